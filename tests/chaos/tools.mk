## Chaos suite (the target never pays for a ptprof fault): ptprof itself under valgrind.
## Covers: sampler
TESTS += tests/chaos/valgrind.test
