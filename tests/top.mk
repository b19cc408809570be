## ptprof top (issue 18, part 4): the view in
## tmux, the plain table when stdout is no terminal, and its refusals;
## output that stops being read drops frames, not ticks (issue 30, part 5).
## Covers: cmd_top toptab livename tselect cli topout
check_PROGRAMS += tests/targets/topmix
tests_targets_topmix_SOURCES = tests/targets/topmix.c
tests_targets_topmix_CFLAGS = $(PT_TARGET_CFLAGS)
tests_targets_topmix_LDFLAGS = $(PT_TARGET_LINKFLAGS)
TESTS += tests/top-tty.test tests/top-tty-end.test tests/top-plain.test \
	tests/top-python.test tests/top-stuck.test \
	tests/top-errors.test tests/top-blocked.test tests/top-tty-blocked.test
EXTRA_DIST += tests/tools/fullpipe.py tests/tools/stallpipe.py
