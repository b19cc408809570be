## C unit tests: one program a module, tests/unit/test_MODULE for
## src/LAYER/MODULE.c, grouped below by layer (lowest first).  Each links
## src/libptprof.a and tests/unit/unit.h's checks; a test of several
## files has one main() (test_pprof_out).  tests/testmap.test
## fails when a module has neither a unit test here nor a shell test that
## covers it (tests/tools/testmap.sh; `make testmap` prints the table).
EXTRA_DIST += tests/unit/unit.h

## util
UNIT_UTIL_TESTS = tests/unit/test_grow tests/unit/test_hashtab \
	tests/unit/test_leb128 tests/unit/test_safeopen tests/unit/test_scan \
	tests/unit/test_strpool tests/unit/test_textsafe
check_PROGRAMS += $(UNIT_UTIL_TESTS)
TESTS += $(UNIT_UTIL_TESTS)
tests_unit_test_grow_SOURCES = tests/unit/test_grow.c
tests_unit_test_grow_LDADD = $(PT_LIBS)
tests_unit_test_hashtab_SOURCES = tests/unit/test_hashtab.c
tests_unit_test_hashtab_LDADD = $(PT_LIBS)
tests_unit_test_leb128_SOURCES = tests/unit/test_leb128.c
tests_unit_test_leb128_LDADD = $(PT_LIBS)
tests_unit_test_safeopen_SOURCES = tests/unit/test_safeopen.c
tests_unit_test_safeopen_LDADD = $(PT_LIBS)
tests_unit_test_scan_SOURCES = tests/unit/test_scan.c
tests_unit_test_scan_LDADD = $(PT_LIBS)
tests_unit_test_strpool_SOURCES = tests/unit/test_strpool.c
tests_unit_test_strpool_LDADD = $(PT_LIBS)
tests_unit_test_textsafe_SOURCES = tests/unit/test_textsafe.c
tests_unit_test_textsafe_LDADD = $(PT_LIBS)

## proc
UNIT_PROC_TESTS = tests/unit/test_mapfile tests/unit/test_maps \
	tests/unit/test_fsguard tests/unit/test_kstack \
	tests/unit/test_launch tests/unit/test_peek tests/unit/test_procfs \
	tests/unit/test_proctree tests/unit/test_reaper tests/unit/test_seccomp
check_PROGRAMS += $(UNIT_PROC_TESTS)
TESTS += $(UNIT_PROC_TESTS)
tests_unit_test_mapfile_SOURCES = tests/unit/test_mapfile.c
tests_unit_test_mapfile_LDADD = $(PT_LIBS)
tests_unit_test_maps_SOURCES = tests/unit/test_maps.c
tests_unit_test_fsguard_SOURCES = tests/unit/test_fsguard.c
tests_unit_test_fsguard_LDADD = $(PT_LIBS)
tests_unit_test_maps_LDADD = $(PT_LIBS)
tests_unit_test_peek_SOURCES = tests/unit/test_peek.c
tests_unit_test_peek_LDADD = $(PT_LIBS)
tests_unit_test_procfs_SOURCES = tests/unit/test_procfs.c
tests_unit_test_procfs_LDADD = $(PT_LIBS)
tests_unit_test_proctree_SOURCES = tests/unit/test_proctree.c
tests_unit_test_proctree_LDADD = $(PT_LIBS)
tests_unit_test_reaper_SOURCES = tests/unit/test_reaper.c
tests_unit_test_reaper_LDADD = $(PT_LIBS)
tests_unit_test_seccomp_SOURCES = tests/unit/test_seccomp.c
tests_unit_test_seccomp_LDADD = $(PT_LIBS)
tests_unit_test_launch_SOURCES = tests/unit/test_launch.c
tests_unit_test_launch_LDADD = $(PT_LIBS)
tests_unit_test_kstack_SOURCES = tests/unit/test_kstack.c
tests_unit_test_kstack_LDADD = $(PT_LIBS)

## wait: futexwait_decode() on the waits target's real glibc objects
## (tests/waits.mk builds it) and on hostile words; a target's
## descriptors named (test_fdname: pipes with their other end, sockets,
## a file, an epoll set, 10,000 descriptors, a forged /proc/net/unix
## row, a descriptor closed between calls); deadlocks and chains
## (test_waitgraph).
UNIT_WAIT_TESTS = tests/unit/test_futexwait tests/unit/test_fdname \
	tests/unit/test_waitgraph
check_PROGRAMS += $(UNIT_WAIT_TESTS)
TESTS += $(UNIT_WAIT_TESTS)
tests_unit_test_futexwait_SOURCES = tests/unit/test_futexwait.c
tests_unit_test_futexwait_LDADD = $(PT_LIBS)
tests_unit_test_fdname_SOURCES = tests/unit/test_fdname.c
tests_unit_test_fdname_LDADD = $(PT_LIBS)
tests_unit_test_waitgraph_SOURCES = tests/unit/test_waitgraph.c
tests_unit_test_waitgraph_LDADD = $(PT_LIBS)

## elf: .debug_frame converted into a table libunwind searches, checked
## with libunwind's own search (test_debugframe); the segment behind a
## mapping for each linker's layout (test_loadseg).
UNIT_ELF_TESTS = tests/unit/test_debugframe tests/unit/test_ehframe \
	tests/unit/test_loadseg
check_PROGRAMS += $(UNIT_ELF_TESTS)
TESTS += $(UNIT_ELF_TESTS)
tests_unit_test_debugframe_SOURCES = tests/unit/test_debugframe.c
tests_unit_test_debugframe_CFLAGS = $(AM_CFLAGS) $(LIBUNWIND_CFLAGS) \
	$(ZLIB_CFLAGS)
tests_unit_test_debugframe_LDADD = $(PT_LIBS)
tests_unit_test_ehframe_SOURCES = tests/unit/test_ehframe.c
tests_unit_test_ehframe_CFLAGS = $(AM_CFLAGS) $(LIBUNWIND_CFLAGS)
tests_unit_test_ehframe_LDADD = $(PT_LIBS)
tests_unit_test_loadseg_SOURCES = tests/unit/test_loadseg.c
tests_unit_test_loadseg_LDADD = $(PT_LIBS)

## unwind
UNIT_UNWIND_TESTS = tests/unit/test_fpstep tests/unit/test_modcache
check_PROGRAMS += $(UNIT_UNWIND_TESTS)
TESTS += $(UNIT_UNWIND_TESTS)
tests_unit_test_fpstep_SOURCES = tests/unit/test_fpstep.c
tests_unit_test_fpstep_LDADD = $(PT_LIBS)
tests_unit_test_modcache_SOURCES = tests/unit/test_modcache.c
tests_unit_test_modcache_LDADD = $(PT_LIBS)

## symbols: test_gopclntab reads hand-made Go tables of each layout, and
## damaged ones; test_symbolize looks up its own noinline function (the
## function carries noinline/noclone attributes, so any -O works);
## test_symbolize_inline its own two-level always_inline chain, -O2.
UNIT_SYMBOLS_TESTS = tests/unit/test_demangle tests/unit/test_fdetab \
	tests/unit/test_gopclntab tests/unit/test_perfmap \
	tests/unit/test_symbolize tests/unit/test_symbolize_inline
check_PROGRAMS += $(UNIT_SYMBOLS_TESTS)
TESTS += $(UNIT_SYMBOLS_TESTS)
tests_unit_test_demangle_SOURCES = tests/unit/test_demangle.c
tests_unit_test_demangle_LDADD = $(PT_LIBS)
tests_unit_test_fdetab_SOURCES = tests/unit/test_fdetab.c
tests_unit_test_fdetab_CFLAGS = $(AM_CFLAGS) $(LIBELF_CFLAGS)
tests_unit_test_fdetab_LDADD = $(PT_LIBS)
tests_unit_test_gopclntab_SOURCES = tests/unit/test_gopclntab.c
tests_unit_test_gopclntab_CFLAGS = $(AM_CFLAGS) $(LIBELF_CFLAGS)
tests_unit_test_gopclntab_LDADD = $(PT_LIBS)
tests_unit_test_perfmap_SOURCES = tests/unit/test_perfmap.c
tests_unit_test_perfmap_LDADD = $(PT_LIBS)
tests_unit_test_symbolize_SOURCES = tests/unit/test_symbolize.c
tests_unit_test_symbolize_CFLAGS = $(AM_CFLAGS) $(LIBELF_CFLAGS)
tests_unit_test_symbolize_LDADD = $(PT_LIBS) -ldl
tests_unit_test_symbolize_inline_SOURCES = tests/unit/test_symbolize_inline.c
tests_unit_test_symbolize_inline_CFLAGS = $(AM_CFLAGS) -O2 -g
tests_unit_test_symbolize_inline_LDADD = $(PT_LIBS)

## python: CPython's runtime state and frames (test_pyrt: the 3.11
## location table on real tables, pyrt_lines.h, a hostile fake address
## space, and a live /usr/bin/python3, skipped unless it is 3.11); the
## merge with the native stack (test_pymerge) and the frames' synthetic
## PCs (test_pyframes).
UNIT_PYTHON_TESTS = tests/unit/test_pyframes tests/unit/test_pymerge \
	tests/unit/test_pyrt
check_PROGRAMS += $(UNIT_PYTHON_TESTS)
TESTS += $(UNIT_PYTHON_TESTS)
EXTRA_DIST += tests/unit/pyrt_lines.h tests/unit/gen_pyrt_lines.py
tests_unit_test_pyframes_SOURCES = tests/unit/test_pyframes.c
tests_unit_test_pyframes_LDADD = $(PT_LIBS)
tests_unit_test_pymerge_SOURCES = tests/unit/test_pymerge.c
tests_unit_test_pymerge_LDADD = $(PT_LIBS)
tests_unit_test_pyrt_SOURCES = tests/unit/test_pyrt.c
tests_unit_test_pyrt_CFLAGS = $(AM_CFLAGS) $(LIBELF_CFLAGS)
tests_unit_test_pyrt_LDADD = $(PT_LIBS)

## profile: the pprof writer read back (test_pprof_out, with a profile of
## two images: two different non-PIE programs, both at 0x400000, the same
## address a function of each, issue 14; and the "time" label) and the
## reader's refusals (test_pprof_read).
UNIT_PROFILE_TESTS = tests/unit/test_outname tests/unit/test_pprof_out \
	tests/unit/test_pprof_read tests/unit/test_procset \
	tests/unit/test_profile_merge tests/unit/test_profile_out \
	tests/unit/test_profile_read tests/unit/test_stacktab \
	tests/unit/test_bgwrite tests/unit/test_outfile tests/unit/test_recwrite
check_PROGRAMS += $(UNIT_PROFILE_TESTS) tests/targets/twin_a tests/targets/twin_b
TESTS += $(UNIT_PROFILE_TESTS)
tests_unit_test_outname_SOURCES = tests/unit/test_outname.c
tests_unit_test_outname_LDADD = $(PT_LIBS)
tests_unit_test_pprof_out_SOURCES = tests/unit/test_pprof_out.c \
	tests/unit/test_pprof_out_images.c tests/unit/test_pprof_out_time.c
tests_unit_test_pprof_out_CFLAGS = $(AM_CFLAGS) $(LIBELF_CFLAGS) \
	$(PROTOBUF_C_CFLAGS) $(ZLIB_CFLAGS)
tests_unit_test_pprof_out_LDADD = $(PT_LIBS)
PT_TWIN_CFLAGS = -O2 -g -fno-pie -fno-omit-frame-pointer
tests_targets_twin_a_SOURCES = tests/targets/twin.c
tests_targets_twin_a_CFLAGS = $(PT_TWIN_CFLAGS) -DTWIN=a
tests_targets_twin_a_LDFLAGS = -no-pie
tests_targets_twin_b_SOURCES = tests/targets/twin.c
tests_targets_twin_b_CFLAGS = $(PT_TWIN_CFLAGS) -DTWIN=b
tests_targets_twin_b_LDFLAGS = -no-pie
tests_unit_test_pprof_read_SOURCES = tests/unit/test_pprof_read.c
tests_unit_test_pprof_read_CFLAGS = $(AM_CFLAGS) $(PROTOBUF_C_CFLAGS) \
	$(ZLIB_CFLAGS)
tests_unit_test_pprof_read_LDADD = $(PT_LIBS)
tests_unit_test_procset_SOURCES = tests/unit/test_procset.c
tests_unit_test_procset_LDADD = $(PT_LIBS)
tests_unit_test_profile_merge_SOURCES = tests/unit/test_profile_merge.c
tests_unit_test_profile_merge_LDADD = $(PT_LIBS)
tests_unit_test_profile_out_SOURCES = tests/unit/test_profile_out.c
tests_unit_test_profile_out_LDADD = $(PT_LIBS)
tests_unit_test_recwrite_SOURCES = tests/unit/test_recwrite.c
tests_unit_test_recwrite_LDADD = $(PT_LIBS)
tests_unit_test_profile_read_SOURCES = tests/unit/test_profile_read.c
tests_unit_test_profile_read_CFLAGS = $(AM_CFLAGS) $(LIBELF_CFLAGS)
tests_unit_test_profile_read_LDADD = $(PT_LIBS)
tests_unit_test_stacktab_SOURCES = tests/unit/test_stacktab.c
tests_unit_test_stacktab_LDADD = $(PT_LIBS)
tests_unit_test_bgwrite_SOURCES = tests/unit/test_bgwrite.c
tests_unit_test_bgwrite_LDADD = $(PT_LIBS)
tests_unit_test_outfile_SOURCES = tests/unit/test_outfile.c
tests_unit_test_outfile_LDADD = $(PT_LIBS)

## sampler
UNIT_SAMPLER_TESTS = tests/unit/test_cpuacct tests/unit/test_sysbias \
	tests/unit/test_threadtab tests/unit/test_ticksched \
	tests/unit/test_tselect tests/unit/test_sampler_budget \
	tests/unit/test_sampler_stops
check_PROGRAMS += $(UNIT_SAMPLER_TESTS)
TESTS += $(UNIT_SAMPLER_TESTS)
tests_unit_test_cpuacct_SOURCES = tests/unit/test_cpuacct.c
tests_unit_test_cpuacct_LDADD = $(PT_LIBS)
tests_unit_test_sysbias_SOURCES = tests/unit/test_sysbias.c
tests_unit_test_sysbias_LDADD = $(PT_LIBS)
tests_unit_test_threadtab_SOURCES = tests/unit/test_threadtab.c
tests_unit_test_threadtab_LDADD = $(PT_LIBS)
tests_unit_test_ticksched_SOURCES = tests/unit/test_ticksched.c
tests_unit_test_ticksched_LDADD = $(PT_LIBS)
tests_unit_test_tselect_SOURCES = tests/unit/test_tselect.c
tests_unit_test_tselect_LDADD = $(PT_LIBS)
tests_unit_test_sampler_budget_SOURCES = tests/unit/test_sampler_budget.c
tests_unit_test_sampler_budget_LDADD = $(PT_LIBS) -lm
tests_unit_test_sampler_stops_SOURCES = tests/unit/test_sampler_stops.c
tests_unit_test_sampler_stops_LDADD = $(PT_LIBS)

## report: the flame graph's structure (test_flame), its differential
## form (test_flame_diff) and its time strip (test_flame_time).
UNIT_REPORT_TESTS = tests/unit/test_flame tests/unit/test_flame_diff \
	tests/unit/test_flame_time tests/unit/test_livename \
	tests/unit/test_report_diff tests/unit/test_timeslice \
	tests/unit/test_toptab
check_PROGRAMS += $(UNIT_REPORT_TESTS)
TESTS += $(UNIT_REPORT_TESTS)
tests_unit_test_flame_SOURCES = tests/unit/test_flame.c
tests_unit_test_flame_LDADD = $(PT_LIBS) -lm
tests_unit_test_flame_diff_SOURCES = tests/unit/test_flame_diff.c
tests_unit_test_flame_diff_LDADD = $(PT_LIBS) -lm
tests_unit_test_flame_time_SOURCES = tests/unit/test_flame_time.c
tests_unit_test_flame_time_LDADD = $(PT_LIBS)
tests_unit_test_livename_SOURCES = tests/unit/test_livename.c
tests_unit_test_livename_LDADD = $(PT_LIBS)
tests_unit_test_report_diff_SOURCES = tests/unit/test_report_diff.c
tests_unit_test_report_diff_LDADD = $(PT_LIBS)
tests_unit_test_timeslice_SOURCES = tests/unit/test_timeslice.c
tests_unit_test_timeslice_LDADD = $(PT_LIBS)
tests_unit_test_toptab_SOURCES = tests/unit/test_toptab.c
tests_unit_test_toptab_LDADD = $(PT_LIBS)

## cli: options_parse() itself: -p lists, --children, --no-children and
## the children default of each action.
UNIT_CLI_TESTS = tests/unit/test_options
check_PROGRAMS += $(UNIT_CLI_TESTS)
TESTS += $(UNIT_CLI_TESTS)
tests_unit_test_options_SOURCES = tests/unit/test_options.c
tests_unit_test_options_LDADD = $(PT_LIBS)

## proc: vmread_all(), a stretch of a target's memory, all or fail.
UNIT_VMREAD_TESTS = tests/unit/test_vmread
check_PROGRAMS += $(UNIT_VMREAD_TESTS)
TESTS += $(UNIT_VMREAD_TESTS)
tests_unit_test_vmread_SOURCES = tests/unit/test_vmread.c
tests_unit_test_vmread_LDADD = $(PT_LIBS)
