## Continuous profiling: --rotate, SIGUSR2, output name templates, --keep.
## Covers: bgwrite outname outfile cmd_record
TESTS += tests/rotate.test
