## Continuous profiling: --rotate, SIGUSR2, output name templates, --keep.
## Covers: bgwrite outname outfile cmd_record
## Covers: rotate recwrite
TESTS += tests/rotate.test
