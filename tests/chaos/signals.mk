## Chaos suite (the target never pays for a ptprof fault): signals cases, see tests/chaos/README.
## Targets that count what they receive (signals, EINTRs, their own
## progress) and print a verdict the tests check.
## Covers: sampler ptctl
check_PROGRAMS += \
	tests/chaos/targets/sigstorm \
	tests/chaos/targets/steadywork \
	tests/chaos/targets/blockwait

tests_chaos_targets_sigstorm_SOURCES = tests/chaos/targets/sigstorm.c \
	tests/chaos/targets/chaos.h
tests_chaos_targets_sigstorm_CFLAGS = $(PT_TARGET_CFLAGS)
tests_chaos_targets_sigstorm_LDFLAGS = $(PT_TARGET_LINKFLAGS)

tests_chaos_targets_steadywork_SOURCES = tests/chaos/targets/steadywork.c
tests_chaos_targets_steadywork_CFLAGS = $(PT_TARGET_CFLAGS)
tests_chaos_targets_steadywork_LDFLAGS = $(PT_TARGET_LINKFLAGS)

tests_chaos_targets_blockwait_SOURCES = tests/chaos/targets/blockwait.c \
	tests/chaos/targets/chaos.h
tests_chaos_targets_blockwait_CFLAGS = $(PT_TARGET_CFLAGS)
tests_chaos_targets_blockwait_LDFLAGS = $(PT_TARGET_LINKFLAGS)

EXTRA_DIST += tests/chaos/sigchaos.sh

TESTS += \
	tests/chaos/sigstorm.test \
	tests/chaos/groupstop.test \
	tests/chaos/interrupted.test \
	tests/chaos/eintr.test \
	tests/chaos/fd-limit.test
