## Reader, symbolizer and the profcat test tool
##
## profcat (tests/tools/profcat FILE, or --raw FILE) prints a profile as
## folded stacks, one line per record; integration tests check its output.
## test_gopclntab reads hand-made Go tables of each layout, and damaged ones.
## test_symbolize looks up its own noinline function: the function carries
## noinline/noclone attributes, so any -O works.

check_PROGRAMS += tests/unit/test_profile_read tests/unit/test_symbolize \
	tests/unit/test_gopclntab tests/tools/profcat
TESTS += tests/unit/test_profile_read tests/unit/test_symbolize \
	tests/unit/test_gopclntab

tests_unit_test_profile_read_SOURCES = tests/unit/test_profile_read.c
tests_unit_test_profile_read_CFLAGS = $(AM_CFLAGS) $(LIBELF_CFLAGS)
tests_unit_test_profile_read_LDADD = $(PT_LIBS)

tests_unit_test_symbolize_SOURCES = tests/unit/test_symbolize.c
tests_unit_test_symbolize_CFLAGS = $(AM_CFLAGS) $(LIBELF_CFLAGS)
tests_unit_test_symbolize_LDADD = $(PT_LIBS) -ldl

tests_unit_test_gopclntab_SOURCES = tests/unit/test_gopclntab.c
tests_unit_test_gopclntab_LDADD = $(PT_LIBS)

tests_tools_profcat_SOURCES = tests/tools/profcat.c
tests_tools_profcat_CFLAGS = $(AM_CFLAGS) $(LIBELF_CFLAGS)
tests_tools_profcat_LDADD = $(PT_LIBS)
