## Chaos suite (the target never pays for a ptprof fault): lifecycle cases, see tests/chaos/README.
## ptprof killed, thread churn, exec/fork/vfork/clone, exit.  Targets (and
## the midkill helper) are built like tests/integ.mk's.
## Covers: sampler reaper launch ptctl
## Covers: dump_wait waitdesc fdname futexwait
check_PROGRAMS += \
	tests/chaos/targets/killee \
	tests/chaos/targets/midkill \
	tests/chaos/targets/churn \
	tests/chaos/targets/forker \
	tests/chaos/targets/dier \
	tests/chaos/targets/traceme

tests_chaos_targets_killee_SOURCES = tests/chaos/targets/killee.c
tests_chaos_targets_killee_CFLAGS = $(PT_TARGET_CFLAGS)
tests_chaos_targets_killee_LDFLAGS = $(PT_TARGET_LINKFLAGS)

tests_chaos_targets_midkill_SOURCES = tests/chaos/targets/midkill.c
tests_chaos_targets_midkill_CFLAGS = $(PT_TARGET_CFLAGS)
tests_chaos_targets_midkill_LDFLAGS = $(PT_TARGET_LINKFLAGS)

tests_chaos_targets_churn_SOURCES = tests/chaos/targets/churn.c
tests_chaos_targets_churn_CFLAGS = $(PT_TARGET_CFLAGS)
tests_chaos_targets_churn_LDFLAGS = $(PT_TARGET_LINKFLAGS)

tests_chaos_targets_forker_SOURCES = tests/chaos/targets/forker.c
tests_chaos_targets_forker_CFLAGS = $(PT_TARGET_CFLAGS)
tests_chaos_targets_forker_LDFLAGS = $(PT_TARGET_LINKFLAGS)

tests_chaos_targets_dier_SOURCES = tests/chaos/targets/dier.c
tests_chaos_targets_dier_CFLAGS = $(PT_TARGET_CFLAGS)
tests_chaos_targets_dier_LDFLAGS = $(PT_TARGET_LINKFLAGS)

tests_chaos_targets_traceme_SOURCES = tests/chaos/targets/traceme.c
tests_chaos_targets_traceme_CFLAGS = $(PT_TARGET_CFLAGS)
tests_chaos_targets_traceme_LDFLAGS = $(PT_TARGET_LINKFLAGS)

TESTS += \
	tests/chaos/ptprof-killed.test \
	tests/chaos/thread-churn.test \
	tests/chaos/fork-exec.test \
	tests/chaos/target-exits.test \
	tests/chaos/traceme.test \
	tests/chaos/waits-hostile.test
