## Chaos suite (the target never pays for a ptprof fault): ptprof itself under valgrind.
TESTS += tests/chaos/valgrind.test
