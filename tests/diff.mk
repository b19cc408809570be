## Several profiles in one report, and differences (issue 18 part 2):
## the merge (test_profile_merge, report-merge.test), report --diff's
## table and folded stacks (report-diff.test), and the differential flame
## graph in headless chromium (flame-diff.test, skipped without it).
## shift burns CPU in burn_a and burn_b in a ratio given as arguments.

check_PROGRAMS += tests/unit/test_profile_merge tests/unit/test_flame_diff \
	tests/unit/test_report_diff tests/targets/shift
TESTS += tests/unit/test_profile_merge tests/unit/test_flame_diff \
	tests/unit/test_report_diff \
	tests/report-merge.test \
	tests/report-diff.test tests/flame-diff.test

tests_unit_test_profile_merge_SOURCES = tests/unit/test_profile_merge.c
tests_unit_test_profile_merge_LDADD = $(PT_LIBS)

tests_unit_test_report_diff_SOURCES = tests/unit/test_report_diff.c
tests_unit_test_report_diff_LDADD = $(PT_LIBS)

tests_unit_test_flame_diff_SOURCES = tests/unit/test_flame_diff.c
tests_unit_test_flame_diff_LDADD = $(PT_LIBS) -lm

tests_targets_shift_SOURCES = tests/targets/shift.c
tests_targets_shift_CFLAGS = $(PT_TARGET_CFLAGS)
tests_targets_shift_LDFLAGS = $(PT_TARGET_LINKFLAGS)

# flame-diff.test's chromium helpers.
EXTRA_DIST += tests/browser.sh
