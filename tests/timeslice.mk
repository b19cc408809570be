## Sample times (issue 18, part 3): the "time" label ptprof writes, report
## --from/--to, and the flame graph's time strip.
check_PROGRAMS += tests/targets/phases

tests_targets_phases_SOURCES = tests/targets/phases.c
tests_targets_phases_CFLAGS = $(PT_TARGET_CFLAGS)
tests_targets_phases_LDFLAGS = $(PT_TARGET_LINKFLAGS)

check_PROGRAMS += tests/unit/test_timeslice
TESTS += tests/unit/test_timeslice
tests_unit_test_timeslice_SOURCES = tests/unit/test_timeslice.c
tests_unit_test_timeslice_LDADD = $(PT_LIBS)

TESTS += tests/report-time.test tests/flame-time.test

check_PROGRAMS += tests/unit/test_flame_time
TESTS += tests/unit/test_flame_time
tests_unit_test_flame_time_SOURCES = tests/unit/test_flame_time.c
tests_unit_test_flame_time_LDADD = $(PT_LIBS)

check_PROGRAMS += tests/unit/test_pprof_time
TESTS += tests/unit/test_pprof_time
tests_unit_test_pprof_time_SOURCES = tests/unit/test_pprof_time.c
tests_unit_test_pprof_time_CFLAGS = $(AM_CFLAGS) $(PROTOBUF_C_CFLAGS)
tests_unit_test_pprof_time_LDADD = $(PT_LIBS)
