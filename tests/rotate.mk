## Continuous profiling: --rotate, SIGUSR2, output name templates, --keep.
TESTS += tests/rotate.test
