## The waits target (tests/targets/waits.c): threads blocked on every
## kind of wait issue 28 decodes (mutexes of each type, deadlocks, a
## chain, condvar, join, rwlock, semaphore, pipes, sockets, epoll,
## sleep), and hostile futex words; each role printed with its TID, the
## object's address and its holder.  Used by tests/unit/test_futexwait
## and by the dump's tests.
## Covers: cmd_dump dump_wait dump_out wait waitdesc waitgraph futexwait fdname kstack
TESTS += tests/dump-waits.test
check_PROGRAMS += tests/targets/waits
tests_targets_waits_SOURCES = tests/targets/waits.c
tests_targets_waits_CFLAGS = $(PT_TARGET_CFLAGS)
tests_targets_waits_LDFLAGS = $(PT_TARGET_LINKFLAGS)
check_PROGRAMS += tests/targets/contend
tests_targets_contend_SOURCES = tests/targets/contend.c
tests_targets_contend_CFLAGS = $(PT_TARGET_CFLAGS)
tests_targets_contend_LDFLAGS = $(PT_TARGET_LINKFLAGS)
## A thread the dump stops (--no-peek) in an epoll_wait the stop ends
## with EINTR, running by the reading after its capture: its wait is
## still the one its stack shows, marked as left (dump-woke.test).
TESTS += tests/dump-woke.test
check_PROGRAMS += tests/targets/eintrspin
tests_targets_eintrspin_SOURCES = tests/targets/eintrspin.c
tests_targets_eintrspin_CFLAGS = $(PT_TARGET_CFLAGS)
tests_targets_eintrspin_LDFLAGS = $(PT_TARGET_LINKFLAGS)
