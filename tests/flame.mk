## Flame graph tests (tests/flame-svg.test and its tools): see src/flame.h.
