## Blocked threads sampled without a stop (issue 17, src/proc/peek.h): the
## wakeblock target counts every EINTR (and early wake-up) its threads
## see; wall-peek.test runs --wall at 100 Hz on threads that wake every
## 10 ms, dump-peek.test dumps 2 busy and 200 idle threads.
## Covers: peek sampler cmd_dump dump_out
## Covers: sampler_peek
## wait-labels.test: --wall's wait labels (issue 28) on waitmix's threads
## blocked on a mutex, a pipe and a sleep, read by go tool pprof and by
## report --waits, and the [wait: KIND] leaf of report --folded.
## Covers: sampler_wait wait_report wait waitdesc
## wall-kernel.test: --wall --kernel's kernel frames (issue 28) on top of
## waitmix's blocked stacks (pipe_read, hrtimer_nanosleep, in [kernel]),
## none on cpuwait's busy thread, none without --kernel.
## Covers: sampler_kernel kstack pyframes
check_PROGRAMS += tests/targets/wakeblock tests/targets/waitmix
tests_targets_waitmix_SOURCES = tests/targets/waitmix.c
tests_targets_waitmix_CFLAGS = $(PT_TARGET_CFLAGS)
tests_targets_waitmix_LDFLAGS = $(PT_TARGET_LINKFLAGS)
tests_targets_wakeblock_SOURCES = tests/targets/wakeblock.c
tests_targets_wakeblock_CFLAGS = $(PT_TARGET_CFLAGS)
tests_targets_wakeblock_LDFLAGS = $(PT_TARGET_LINKFLAGS)

TESTS += \
	tests/wall-peek.test \
	tests/eintr-python.test \
	tests/dump-peek.test \
	tests/wait-labels.test \
	tests/wall-kernel.test
