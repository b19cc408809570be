## Several profiles in one report, and differences (issue 18 part 2):
## the merge (report-merge.test; unit: test_profile_merge), report
## --diff's table and folded stacks (report-diff.test; unit:
## test_report_diff), and the differential flame graph in headless
## chromium (flame-diff.test, skipped without it; unit: test_flame_diff).
## shift burns CPU in burn_a and burn_b in a ratio given as arguments.
## Covers: profile_merge report_diff flame cmd_report report profile_load

check_PROGRAMS += tests/targets/shift
TESTS += tests/report-merge.test \
	tests/report-diff.test tests/flame-diff.test

tests_targets_shift_SOURCES = tests/targets/shift.c
tests_targets_shift_CFLAGS = $(PT_TARGET_CFLAGS)
tests_targets_shift_LDFLAGS = $(PT_TARGET_LINKFLAGS)

# flame-diff.test's chromium helpers.
EXTRA_DIST += tests/browser.sh
