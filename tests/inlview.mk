## Inlined functions as frames (issue 29, item 2): report's table,
## --lines, --folded and --svg (report-inline.test), ptprof dump text
## and JSON against eu-stack -i (dump-inline.test), ptprof top's plain
## table (top-inline.test); --no-inline for each.
## Covers: report_name report livename dump_out cmd_top
check_PROGRAMS += tests/targets/inlview
tests_targets_inlview_SOURCES = tests/targets/inlview.c
tests_targets_inlview_CFLAGS = $(PT_TARGET_CFLAGS)
tests_targets_inlview_LDFLAGS = $(PT_TARGET_LINKFLAGS)
TESTS += tests/report-inline.test tests/dump-inline.test \
	tests/top-inline.test
