## Chaos suite (issue 5): signals cases, see tests/chaos/README.
## Targets that count what they receive (signals, EINTRs, their own
## progress) and print a verdict the tests check.
check_PROGRAMS += \
	tests/chaos/targets/sigstorm

tests_chaos_targets_sigstorm_SOURCES = tests/chaos/targets/sigstorm.c
tests_chaos_targets_sigstorm_CFLAGS = $(PT_TARGET_CFLAGS)
tests_chaos_targets_sigstorm_LDFLAGS = $(PT_TARGET_LINKFLAGS)

TESTS += \
	tests/chaos/sigstorm.test
