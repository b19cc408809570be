## The record command's behaviour around the run: an existing profile kept
## as FILE.old, the warning about CPU time used by the target's children,
## the progress line on a terminal, where --top goes; which process the
## legacy file holds when there are several.
## Covers: cmd_record outfile profile_out
## Covers: progress record_warn record_summary recwrite cli
check_PROGRAMS += tests/targets/cpuburn
tests_targets_cpuburn_SOURCES = tests/targets/cpuburn.c
tests_targets_cpuburn_CFLAGS = $(PT_TARGET_CFLAGS)
tests_targets_cpuburn_LDFLAGS = $(PT_TARGET_LINKFLAGS)

TESTS += \
	tests/keep-old.test \
	tests/stale-temp.test \
	tests/top-output.test \
	tests/children.test \
	tests/legacy-busiest.test \
	tests/progress.test \
	tests/summary-tcooff.test
EXTRA_DIST += tests/tools/bgterm.py
