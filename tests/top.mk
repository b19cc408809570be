## ptprof top (issue 18, part 4): the live table's unit test, the view in
## tmux, the plain table when stdout is no terminal, and its refusals.
check_PROGRAMS += tests/unit/test_toptab tests/unit/test_livename \
	tests/targets/topmix
TESTS += tests/unit/test_toptab tests/unit/test_livename
tests_unit_test_toptab_SOURCES = tests/unit/test_toptab.c
tests_unit_test_toptab_LDADD = $(PT_LIBS)
tests_unit_test_livename_SOURCES = tests/unit/test_livename.c
tests_unit_test_livename_LDADD = $(PT_LIBS)
tests_targets_topmix_SOURCES = tests/targets/topmix.c
tests_targets_topmix_CFLAGS = $(PT_TARGET_CFLAGS)
tests_targets_topmix_LDFLAGS = $(PT_TARGET_LINKFLAGS)
TESTS += tests/top-tty.test tests/top-tty-end.test tests/top-plain.test \
	tests/top-python.test \
	tests/top-errors.test
