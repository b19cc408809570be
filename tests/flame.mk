## Flame graph tests (see src/report/flame.h).
##
## flamegen (tests/tools/flamegen < FOLDED > SVG) writes a flame graph from
## folded stacks; test_flame checks the SVG's structure, flame-svg.test
## renders it in headless chromium (skipped without chromium).

check_PROGRAMS += tests/unit/test_flame tests/tools/flamegen
TESTS += tests/unit/test_flame tests/flame-svg.test

tests_unit_test_flame_SOURCES = tests/unit/test_flame.c
tests_unit_test_flame_LDADD = $(PT_LIBS) -lm

tests_tools_flamegen_SOURCES = tests/tools/flamegen.c
tests_tools_flamegen_LDADD = $(PT_LIBS)

# flame-svg.test reads its screenshots with this (python3, standard
# library only).
EXTRA_DIST += tests/tools/pngstat.py
