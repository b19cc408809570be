## Performance acceptance tests.
##
## unwind-compare.test: ptprof's unwind of the 32 KiB stack copy, taken
## after the thread is released, against stock libunwind-ptrace on the
## stopped thread (tests/tools/unwind_compare), on a deep recursion
## (tests/targets/deeprec) whose stacks outgrow the copy.
## syscalls.test: the system calls ptprof makes per stopped thread and
## tick, counted with strace (skipped without it).
## Covers: unwind capture peek sampler
## Covers: unwind_access unwind_tables unwind_cfi unwind_fp
check_PROGRAMS += tests/targets/deeprec tests/tools/unwind_compare

tests_targets_deeprec_SOURCES = tests/targets/deeprec.c
tests_targets_deeprec_CFLAGS = $(PT_TARGET_CFLAGS)
tests_targets_deeprec_LDFLAGS = $(PT_TARGET_LINKFLAGS)

tests_tools_unwind_compare_SOURCES = tests/tools/unwind_compare.c \
	tests/tools/tracetool.h
tests_tools_unwind_compare_CFLAGS = $(AM_CFLAGS) $(LIBUNWIND_CFLAGS) \
	$(LIBELF_CFLAGS)
tests_tools_unwind_compare_LDADD = $(PT_LIBS)

TESTS += \
	tests/unwind-compare.test \
	tests/syscalls.test

## peek-compare.test: a blocked thread's stack read without a stop
## (peek.h) against a ptrace stop's, on the same threads
## (tests/tools/peekcmp), on tests/targets/blocked built without and with
## frame pointers.
check_PROGRAMS += tests/targets/blocked tests/targets/blocked_fp \
	tests/tools/peekcmp
tests_targets_blocked_SOURCES = tests/targets/blocked.c
tests_targets_blocked_CFLAGS = $(PT_TARGET_CFLAGS)
tests_targets_blocked_LDFLAGS = $(PT_TARGET_LINKFLAGS)
tests_targets_blocked_fp_SOURCES = tests/targets/blocked.c
tests_targets_blocked_fp_CFLAGS = $(PT_TARGET_CFLAGS) -DBLOCKED_FP \
	-fno-omit-frame-pointer
tests_targets_blocked_fp_LDFLAGS = $(PT_TARGET_LINKFLAGS)
tests_tools_peekcmp_SOURCES = tests/tools/peekcmp.c tests/tools/tracetool.h
tests_tools_peekcmp_LDADD = $(PT_LIBS)
TESTS += tests/peek-compare.test

## budget.test: --max-overhead holds a busy target and a many-threaded
## one under the budget, by their own clocks (bench/jitter.c, built here
## as tests/targets/jitter), against runs without ptprof.
## Covers: sampler_budget ticksched options_record record_summary
check_PROGRAMS += tests/targets/jitter
tests_targets_jitter_SOURCES = bench/jitter.c
tests_targets_jitter_CFLAGS = $(PT_TARGET_CFLAGS)
tests_targets_jitter_LDFLAGS = $(PT_TARGET_LINKFLAGS)
TESTS += tests/budget.test
