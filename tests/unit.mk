## Unit tests of the aggregator, the maps union, the profile writers
## (legacy and pprof protobuf, with the protobuf reader), and of the
## segment behind a mapping for each linker's layout (test_loadseg).
UNIT_CORE = tests/unit/test_stacktab tests/unit/test_maps \
	tests/unit/test_profile_out tests/unit/test_ehframe \
	tests/unit/test_reaper tests/unit/test_mapfile tests/unit/test_pprof \
	tests/unit/test_grow tests/unit/test_loadseg tests/unit/test_textsafe \
	tests/unit/test_cpuacct tests/unit/test_seccomp tests/unit/test_modcache \
	tests/unit/test_sysbias tests/unit/test_ticksched \
	tests/unit/test_proctree tests/unit/test_procset tests/unit/test_fpstep \
	tests/unit/test_demangle tests/unit/test_fdetab tests/unit/test_perfmap \
	tests/unit/test_peek tests/unit/test_outname
check_PROGRAMS += $(UNIT_CORE)
TESTS += $(UNIT_CORE)
EXTRA_DIST += tests/unit/unit.h

tests_unit_test_outname_SOURCES = tests/unit/test_outname.c
tests_unit_test_outname_LDADD = $(PT_LIBS)
tests_unit_test_stacktab_SOURCES = tests/unit/test_stacktab.c
tests_unit_test_stacktab_LDADD = $(PT_LIBS)
tests_unit_test_maps_SOURCES = tests/unit/test_maps.c
tests_unit_test_maps_LDADD = $(PT_LIBS)
tests_unit_test_profile_out_SOURCES = tests/unit/test_profile_out.c
tests_unit_test_profile_out_LDADD = $(PT_LIBS)
tests_unit_test_reaper_SOURCES = tests/unit/test_reaper.c
tests_unit_test_reaper_LDADD = $(PT_LIBS)
tests_unit_test_mapfile_SOURCES = tests/unit/test_mapfile.c
tests_unit_test_mapfile_LDADD = $(PT_LIBS)
tests_unit_test_ehframe_SOURCES = tests/unit/test_ehframe.c
tests_unit_test_ehframe_CFLAGS = $(AM_CFLAGS) $(LIBUNWIND_CFLAGS)
tests_unit_test_ehframe_LDADD = $(PT_LIBS)
tests_unit_test_loadseg_SOURCES = tests/unit/test_loadseg.c
tests_unit_test_loadseg_LDADD = $(PT_LIBS)
tests_unit_test_textsafe_SOURCES = tests/unit/test_textsafe.c
tests_unit_test_textsafe_LDADD = $(PT_LIBS)
tests_unit_test_cpuacct_SOURCES = tests/unit/test_cpuacct.c
tests_unit_test_cpuacct_LDADD = $(PT_LIBS)
tests_unit_test_ticksched_SOURCES = tests/unit/test_ticksched.c
tests_unit_test_ticksched_LDADD = $(PT_LIBS)
tests_unit_test_modcache_SOURCES = tests/unit/test_modcache.c
tests_unit_test_modcache_LDADD = $(PT_LIBS)
tests_unit_test_sysbias_SOURCES = tests/unit/test_sysbias.c
tests_unit_test_sysbias_LDADD = $(PT_LIBS)
tests_unit_test_procset_SOURCES = tests/unit/test_procset.c
tests_unit_test_procset_LDADD = $(PT_LIBS)
tests_unit_test_perfmap_SOURCES = tests/unit/test_perfmap.c
tests_unit_test_perfmap_LDADD = $(PT_LIBS)
tests_unit_test_proctree_SOURCES = tests/unit/test_proctree.c
tests_unit_test_proctree_LDADD = $(PT_LIBS)
tests_unit_test_fpstep_SOURCES = tests/unit/test_fpstep.c
tests_unit_test_fpstep_LDADD = $(PT_LIBS)
tests_unit_test_grow_SOURCES = tests/unit/test_grow.c
tests_unit_test_grow_LDADD = $(PT_LIBS)
tests_unit_test_seccomp_SOURCES = tests/unit/test_seccomp.c
tests_unit_test_seccomp_LDADD = $(PT_LIBS)
tests_unit_test_pprof_SOURCES = tests/unit/test_pprof.c
tests_unit_test_pprof_CFLAGS = $(AM_CFLAGS) $(LIBELF_CFLAGS) \
	$(PROTOBUF_C_CFLAGS) $(ZLIB_CFLAGS)
tests_unit_test_pprof_LDADD = $(PT_LIBS)

# A profile of two images: two different non-PIE programs, both at
# 0x400000, the same address a function of each (issue 14).
check_PROGRAMS += tests/targets/twin_a tests/targets/twin_b \
	tests/unit/test_pprof_images
TESTS += tests/unit/test_pprof_images
PT_TWIN_CFLAGS = -O2 -g -fno-pie -fno-omit-frame-pointer
tests_targets_twin_a_SOURCES = tests/targets/twin.c
tests_targets_twin_a_CFLAGS = $(PT_TWIN_CFLAGS) -DTWIN=a
tests_targets_twin_a_LDFLAGS = -no-pie
tests_targets_twin_b_SOURCES = tests/targets/twin.c
tests_targets_twin_b_CFLAGS = $(PT_TWIN_CFLAGS) -DTWIN=b
tests_targets_twin_b_LDFLAGS = -no-pie
tests_unit_test_pprof_images_SOURCES = tests/unit/test_pprof_images.c
tests_unit_test_pprof_images_CFLAGS = $(AM_CFLAGS) $(PROTOBUF_C_CFLAGS) \
	$(ZLIB_CFLAGS)
tests_unit_test_pprof_images_LDADD = $(PT_LIBS)
tests_unit_test_peek_SOURCES = tests/unit/test_peek.c
tests_unit_test_peek_LDADD = $(PT_LIBS)
tests_unit_test_demangle_SOURCES = tests/unit/test_demangle.c
tests_unit_test_demangle_LDADD = $(PT_LIBS)
tests_unit_test_fdetab_SOURCES = tests/unit/test_fdetab.c
tests_unit_test_fdetab_CFLAGS = $(AM_CFLAGS) $(LIBELF_CFLAGS)
tests_unit_test_fdetab_LDADD = $(PT_LIBS)

# .debug_frame converted into a table libunwind searches (debugframe.h),
# checked with libunwind's own search.
check_PROGRAMS += tests/unit/test_debugframe
TESTS += tests/unit/test_debugframe
tests_unit_test_debugframe_SOURCES = tests/unit/test_debugframe.c
tests_unit_test_debugframe_CFLAGS = $(AM_CFLAGS) $(LIBUNWIND_CFLAGS) \
	$(ZLIB_CFLAGS)
tests_unit_test_debugframe_LDADD = $(PT_LIBS)

# CPython's runtime state and frames (pyrt.h): the 3.11 location table
# on real tables (pyrt_lines.h), a hostile fake address space, and a
# live /usr/bin/python3 (skipped unless it is 3.11).
check_PROGRAMS += tests/unit/test_pyrt
TESTS += tests/unit/test_pyrt
EXTRA_DIST += tests/unit/pyrt_lines.h tests/unit/gen_pyrt_lines.py
tests_unit_test_pyrt_SOURCES = tests/unit/test_pyrt.c
tests_unit_test_pyrt_CFLAGS = $(AM_CFLAGS) $(LIBELF_CFLAGS)
tests_unit_test_pyrt_LDADD = $(PT_LIBS)

# Python frames (issue 16): the merge with the native stack
# (pymerge.h) and their synthetic PCs (pyframes.h).
check_PROGRAMS += tests/unit/test_pymerge tests/unit/test_pyframes
TESTS += tests/unit/test_pymerge tests/unit/test_pyframes
tests_unit_test_pymerge_SOURCES = tests/unit/test_pymerge.c
tests_unit_test_pymerge_LDADD = $(PT_LIBS)
tests_unit_test_pyframes_SOURCES = tests/unit/test_pyframes.c
tests_unit_test_pyframes_LDADD = $(PT_LIBS)

# The one LEB128 reader and writer (util/leb128.h): DWARF's examples,
# the 64-bit boundaries, the bounds, a round trip.
check_PROGRAMS += tests/unit/test_leb128
TESTS += tests/unit/test_leb128
tests_unit_test_leb128_SOURCES = tests/unit/test_leb128.c
tests_unit_test_leb128_LDADD = $(PT_LIBS)

# The /proc/PID/stat and status parsers (procfs.h: comm with ')', spaces
# and newlines; lines cut short) and the number scanners (util/scan.h).
check_PROGRAMS += tests/unit/test_procfs tests/unit/test_scan
TESTS += tests/unit/test_procfs tests/unit/test_scan
tests_unit_test_procfs_SOURCES = tests/unit/test_procfs.c
tests_unit_test_procfs_LDADD = $(PT_LIBS)
tests_unit_test_scan_SOURCES = tests/unit/test_scan.c
tests_unit_test_scan_LDADD = $(PT_LIBS)

# The one hash table (hashtab.h): growth, equal hashes, a full table,
# allocation failure.
check_PROGRAMS += tests/unit/test_hashtab
TESTS += tests/unit/test_hashtab
tests_unit_test_hashtab_SOURCES = tests/unit/test_hashtab.c
tests_unit_test_hashtab_LDADD = $(PT_LIBS)
