## CPU mode on threads that work in short bursts and sleep between them
## (issue 26): bursty.test checks the burst function's share against the
## target's own measure (tests/targets/duty), at several duty cycles and
## rates, and that a run ending in a sleep has no sample in it.
## Covers: sampler_cpu sampler_tick sampler_peek cpuacct sampler_stats
check_PROGRAMS += tests/targets/duty

tests_targets_duty_SOURCES = tests/targets/duty.c
tests_targets_duty_CFLAGS = $(PT_TARGET_CFLAGS)
tests_targets_duty_LDFLAGS = $(PT_TARGET_LINKFLAGS)

TESTS += tests/bursty.test
