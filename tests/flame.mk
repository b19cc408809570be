## Flame graph tests (see src/report/flame.h).
##
## flamegen (tests/tools/flamegen < FOLDED > SVG) writes a flame graph from
## folded stacks; flame-svg.test renders it in headless chromium
## (skipped without chromium).  The unit test: test_flame (unit.mk).
## Covers: flame
## Covers: flame_script flame_svg

check_PROGRAMS += tests/tools/flamegen
TESTS += tests/flame-svg.test

tests_tools_flamegen_SOURCES = tests/tools/flamegen.c
tests_tools_flamegen_LDADD = $(PT_LIBS)

# flame-svg.test reads its screenshots with this (python3, standard
# library only).
EXTRA_DIST += tests/tools/pngstat.py
