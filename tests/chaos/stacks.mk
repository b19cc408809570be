## Chaos suite (the target never pays for a ptprof fault): stacks cases, see tests/chaos/README.
## Hostile stacks (one target, tests/chaos/targets/hostile.c, one mode per
## case), real runtimes (Java, Go, Python) and refusals.
## Covers: unwind fpstep perfmap seccomp pyrt gopclntab sampler_py
## Covers: unwind_cfi unwind_fp unwind_tables symbolize_stripped
check_PROGRAMS += tests/chaos/targets/hostile tests/chaos/targets/sandboxed \
	tests/chaos/targets/libcfiswap.so tests/chaos/targets/stacked

tests_chaos_targets_hostile_SOURCES = tests/chaos/targets/hostile.c
tests_chaos_targets_hostile_CFLAGS = $(PT_TARGET_CFLAGS)
tests_chaos_targets_hostile_LDFLAGS = $(PT_TARGET_LINKFLAGS)
tests_chaos_targets_sandboxed_SOURCES = tests/chaos/targets/sandboxed.c
tests_chaos_targets_sandboxed_CFLAGS = $(PT_TARGET_CFLAGS)
tests_chaos_targets_sandboxed_LDFLAGS = $(PT_TARGET_LINKFLAGS)
tests_chaos_targets_hostile_LDADD = -ldl
tests_chaos_targets_stacked_SOURCES = tests/chaos/targets/stacked.c
tests_chaos_targets_stacked_CFLAGS = $(PT_TARGET_CFLAGS)
tests_chaos_targets_stacked_LDFLAGS = $(PT_TARGET_LINKFLAGS)
# hostile cfiswap loads a copy of it (-shared: see tests/modules.mk)
tests_chaos_targets_libcfiswap_so_SOURCES = tests/chaos/targets/cfiswap.c
tests_chaos_targets_libcfiswap_so_CFLAGS = $(PT_TARGET_SO_CFLAGS)
tests_chaos_targets_libcfiswap_so_LDFLAGS = -shared

TESTS += \
	tests/chaos/stack-badsp.test \
	tests/chaos/stack-altstack.test \
	tests/chaos/stack-deep.test \
	tests/chaos/stack-jit.test \
	tests/chaos/stack-jitfp.test \
	tests/chaos/perfmap-hostile.test \
	tests/chaos/perfmap-ns.test \
	tests/chaos/stack-signal.test \
	tests/chaos/stack-cfiloop.test \
	tests/chaos/stack-racolumn.test
EXTRA_DIST += tests/chaos/stacks.sh tests/chaos/jit.sh

TESTS += \
	tests/chaos/runtime-java.test \
	tests/chaos/runtime-node.test \
	tests/chaos/runtime-jvm.test \
	tests/chaos/runtime-go.test \
	tests/chaos/runtime-go-stripped.test \
	tests/chaos/runtime-go-dwarf.test \
	tests/chaos/runtime-python.test
EXTRA_DIST += tests/chaos/targets/Sieve.java tests/chaos/targets/sieve.go \
	tests/chaos/targets/jitsplit.js tests/chaos/targets/JitSplit.java \
	tests/chaos/targets/sieve.py tests/chaos/targets/hashsort.go
# Python frames while threads and forked children come and go (issue 16).
TESTS += tests/chaos/python-churn.test
EXTRA_DIST += tests/chaos/targets/pychurn.py
# report --lines on .pb.gz files of Go programs (the lines they carry).
TESTS += tests/chaos/runtime-go-lines.test
EXTRA_DIST += tests/chaos/targets/selfprof.go
# JIT code unwound by frame pointer (src/unwind/fpstep.h): Node and the JVM.
TESTS += tests/chaos/runtime-node-fp.test tests/chaos/runtime-java-fp.test
EXTRA_DIST += tests/chaos/targets/jitsplit-fp.js tests/chaos/targets/FpSplit.java

TESTS += \
	tests/chaos/refuse-strace.test \
	tests/chaos/refuse-user.test \
	tests/chaos/tracer-held.test \
	tests/chaos/refuse-seccomp.test \
	tests/chaos/seccomp-userns.test \
	tests/chaos/seccomp-stacked.test
