## Chaos suite (issue 5): ptprof itself under valgrind.
TESTS += tests/chaos/valgrind.test
