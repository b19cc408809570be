## Chaos suite: hostile files under a root ptprof (issue 12, items 4-6):
## a library truncated while ptprof holds its unwind tables, a debug link
## to a huge sparse file, a mapped path swapped for a symlink after exit,
## a rotating run's output directory swapped for a link (issue 27);
## an executable on a FUSE mount whose server stops answering (issue 27,
## item 4: fuse-hang.test, its server tests/chaos/targets/fusehang);
## and (issue 27, items 1-2) devices and FIFOs a profile or a target's
## mounts name, never opened for reading, and a root-only file a target
## binds over its perf map, opened with the target's credentials.
## Covers: modcache debugfile symbolize mapfile outfile fsguard safeopen
## Covers: rootopen perfmap profile_load rotate
check_PROGRAMS += \
	tests/chaos/targets/truncator \
	tests/chaos/targets/libcbspin.so \
	tests/chaos/targets/fusehang

tests_chaos_targets_fusehang_SOURCES = tests/chaos/targets/fusehang.c

tests_chaos_targets_truncator_SOURCES = tests/chaos/targets/truncator.c
tests_chaos_targets_truncator_CFLAGS = $(PT_TARGET_CFLAGS)
tests_chaos_targets_truncator_LDFLAGS = $(PT_TARGET_LINKFLAGS)
tests_chaos_targets_truncator_LDADD = -ldl

tests_chaos_targets_libcbspin_so_SOURCES = tests/chaos/targets/cbspin.c
tests_chaos_targets_libcbspin_so_CFLAGS = $(PT_TARGET_SO_CFLAGS)
tests_chaos_targets_libcbspin_so_LDFLAGS = -shared

TESTS += \
	tests/chaos/file-truncated.test \
	tests/chaos/debuglink-huge.test \
	tests/chaos/symlink-swap.test \
	tests/chaos/rotate-dirswap.test \
	tests/chaos/dwz-alt-fifo.test \
	tests/chaos/symtab-sparse.test \
	tests/chaos/fuse-hang.test \
	tests/chaos/device-open.test \
	tests/chaos/perfmap-bind.test \
	tests/chaos/perfmap-fuse.test
