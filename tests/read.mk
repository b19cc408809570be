## Reader, symbolizer and the profcat test tool
##
## profcat (tests/tools/profcat FILE, or --raw FILE) prints a profile as
## folded stacks, one line per record; integration tests check its output.
## The reader's and symbolizer's unit tests are in unit.mk.

check_PROGRAMS += tests/tools/profcat

tests_tools_profcat_SOURCES = tests/tools/profcat.c
tests_tools_profcat_CFLAGS = $(AM_CFLAGS) $(LIBELF_CFLAGS)
tests_tools_profcat_LDADD = $(PT_LIBS)
