## Sample times (issue 18, part 3): the "time" label ptprof writes, report
## --from/--to, and the flame graph's time strip.
## Covers: timeslice pprof_out flame cmd_report
check_PROGRAMS += tests/targets/phases

tests_targets_phases_SOURCES = tests/targets/phases.c
tests_targets_phases_CFLAGS = $(PT_TARGET_CFLAGS)
tests_targets_phases_LDFLAGS = $(PT_TARGET_LINKFLAGS)

TESTS += tests/report-time.test tests/flame-time.test
