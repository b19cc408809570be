## Where a profile's code comes from: a library dlclose()d during the run
## (the maps section keeps it), targets in other mount namespaces, chroots
## and PID namespaces (files read through /proc/PID/root), deleted files
## (/proc/PID/map_files), build IDs in the maps section; binaries linked by
## lld, whose segments share pages.
##
## The libraries a target dlopen()s are plain check_PROGRAMS linked with
## -shared (the project does not use libtool); -fPIC as shared code needs.
## Covers: maps mapfile loadseg mapsync modcache debugfile symbolize procset
## Covers: fdetab
check_PROGRAMS += \
	tests/targets/dlcloser \
	tests/targets/libdlburn.so \
	tests/targets/libdlburn2.so

tests_targets_dlcloser_SOURCES = tests/targets/dlcloser.c
tests_targets_dlcloser_CFLAGS = $(PT_TARGET_CFLAGS)
tests_targets_dlcloser_LDFLAGS = $(PT_TARGET_LINKFLAGS)
tests_targets_dlcloser_LDADD = -ldl

PT_TARGET_SO_CFLAGS = -O2 -g -fomit-frame-pointer -fPIC
tests_targets_libdlburn_so_SOURCES = tests/targets/dlburn.c
tests_targets_libdlburn_so_CFLAGS = $(PT_TARGET_SO_CFLAGS)
tests_targets_libdlburn_so_LDFLAGS = -shared

# The same library with its spinning function named dlburn2_spin: loaded
# after the first is unloaded, it takes the address range the first left.
tests_targets_libdlburn2_so_SOURCES = tests/targets/dlburn.c
tests_targets_libdlburn2_so_CFLAGS = $(PT_TARGET_SO_CFLAGS) \
	-DDLBURN_SPIN=dlburn2_spin
tests_targets_libdlburn2_so_LDFLAGS = -shared

TESTS += \
	tests/dlclose.test \
	tests/container.test \
	tests/buildid.test

# Binaries linked with lld (segments sharing pages), built by the tests
# themselves: C with clang (tests/lld.test), Rust with rustc
# (tests/lld-rust.test); each is skipped without its compiler.
TESTS += \
	tests/lld.test \
	tests/lld-rust.test
EXTRA_DIST += tests/targets/chain.rs
# Rust names, legacy and v0 mangling (tests/rust-names.test, skipped
# without rustc).
TESTS += tests/rust-names.test
# Stripped code, one row per unwind-table entry (tests/stripped-fde.test:
# Debian's xz with liblzma, and dash).
TESTS += tests/stripped-fde.test
# The stripped python3.11's static functions named from python3.11-dbg's
# debug file, found by build ID (tests/python-dbgsym.test, skipped
# without a matching python3.11-dbg).
TESTS += tests/python-dbgsym.test
EXTRA_DIST += tests/targets/names.rs
# Go's inline trees in .gopclntab (tests/go-inline.test: a stripped Go
# program of its own and Debian's go toolchain building a module, against
# go tool pprof; skipped without go).
## Covers: gopclntab symbolize_stripped
TESTS += tests/go-inline.test
