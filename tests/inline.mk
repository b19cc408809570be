## Inlined frames (issue 29, item 2): an -O2 program whose hottest
## function is inlined, profiled by ptprof into a legacy file and a
## .pb.gz, against google-pprof --text, go tool pprof -top and eu-stack
## -i (tests/inline.sh): C (tests/targets/inl, built here), C++ and Rust
## (built by their tests, each skipped without its compiler).
## Covers: symbolize_dwarf pprof_out_tab
check_PROGRAMS += tests/targets/inl
tests_targets_inl_SOURCES = tests/targets/inl.c
tests_targets_inl_CFLAGS = $(PT_TARGET_CFLAGS)
tests_targets_inl_LDFLAGS = $(PT_TARGET_LINKFLAGS)
TESTS += \
	tests/inline-c.test \
	tests/inline-cxx.test \
	tests/inline-rust.test
EXTRA_DIST += tests/inline.sh tests/targets/inl_sort.cc tests/targets/inl.rs
