/*
 * futexwait.h - which glibc object a futex() wait is on, and who holds
 * it, read from the target's memory (process_vm_readv, vmread.h) while
 * the thread sleeps: never a stop.
 *
 * Layouts (glibc 2.34+, x86-64; nptl/ and sysdeps/nptl/bits/
 * struct_mutex.h, struct_rwlock.h, thread-shared-types.h):
 *  - pthread_mutex_t: int __lock @0, unsigned __count @4, int __owner @8,
 *    unsigned __nusers @12, int __kind @16.  A waiter sleeps on __lock
 *    (the futex address is the mutex's).  A normal, recursive, errorcheck
 *    or adaptive mutex keeps its owner's TID in __owner; a robust or PI
 *    one in __lock itself (with FUTEX_WAITERS 0x80000000 and
 *    FUTEX_OWNER_DIED 0x40000000 beside it); FUTEX_LOCK_PI waits are
 *    always on such a word.
 *  - pthread_cond_t: 48 bytes, waiters sleep on __g_signals[0] @40 or
 *    [1] @44.
 *  - pthread_join(): sleeps on the joined thread's struct pthread tid
 *    field, whose value is that thread's TID until it exits (the kernel
 *    clears it, CLONE_CHILD_CLEARTID) and is the value it waits with.
 *  - pthread_rwlock_t: unsigned __readers @0, __writers @4,
 *    __wrphase_futex @8, __writers_futex @12, int __cur_writer @24 (the
 *    writer's TID); a waiter sleeps on @0, @8 or @12.
 *  - sem_t: uint64 data @0 (value in the low 32 bits), waiters sleep on
 *    the low word with value 0.
 * Each reading is checked before it is believed: the owner must be a
 * thread of the process (the tids given), the kind a valid mutex kind,
 * the value waited with what the word holds; what does not fit is a
 * plain "futex at 0x..." (WAIT_FUTEX), never a guessed holder.  A word
 * that changes between reads (the lock was let go meanwhile) is read
 * once more, then reported as it last was.
 *
 * Contract: futexwait_decode() fills out->kind, addr, holder and text
 * ("mutex 0x7f.. held by thread 4242"; the caller appends the holder's
 * name and state) for the futex call in in; 0, or -1 with errno
 * (EINVAL: not a futex wait; ESRCH: the process is gone) with out->kind
 * WAIT_FUTEX and a text naming the word's address when the call was a
 * futex wait.  Never prints.
 *
 * futexwait_holder_now(pid, kind, addr): for a wait already decoded
 * (kind WAIT_MUTEX, WAIT_RWLOCK or WAIT_JOIN, addr its out->addr), the
 * TID its layout names as holder now, from one read of the object: 0
 * when none (or another kind), -1 with errno when it cannot be read.  Not
 * checked against the process's threads: a caller believes it only when
 * it is the holder decoded before (--wall's repeated samples).
 */
#ifndef PTPROF_FUTEXWAIT_H
#define PTPROF_FUTEXWAIT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "wait/wait.h"

struct futexwait_in {
	pid_t pid;	     /* the process */
	pid_t tid;	     /* the waiting thread */
	uint64_t uaddr;	     /* futex() argument 1 */
	uint64_t op;	     /* argument 2 (FUTEX_WAIT, _BITSET, _LOCK_PI...) */
	uint64_t val;	     /* argument 3: the value waited with */
	enum wait_hint hint; /* from the stack's frames, or NONE */
	const pid_t *tids;   /* the process's threads, ascending */
	size_t ntids;
};

int futexwait_decode(const struct futexwait_in *in, struct wait_info *out);
pid_t futexwait_holder_now(pid_t pid, enum wait_kind kind, uint64_t addr);

#endif /* PTPROF_FUTEXWAIT_H */
