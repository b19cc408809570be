/*
 * futexwait.c - which glibc object a futex wait is on (futexwait.h).
 *
 * The object is chosen from the futex op (FUTEX_LOCK_PI is a PI lock
 * word by the kernel's definition; FUTEX_WAIT_REQUEUE_PI a condvar
 * waiting to be requeued onto a PI mutex), then the hint from the
 * thread's frames, then the memory: without a hint the layouts are
 * tried in turn, each strictly (mutex, join, condvar, rwlock, sem, then
 * the plain word), and the first that fits names the wait.  Every number read is the target's: a
 * holder is believed only when it is one of in->tids.
 *
 * The layouts are glibc 2.34 to 2.40's on x86-64 (nptl/ and
 * sysdeps/nptl/bits/; checked against 2.36, Debian 12).  glibc 2.41
 * joins on struct pthread's joinstate, not its tid: such a join does not
 * fit the join layout and is shown as a plain futex word.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <linux/futex.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "proc/vmread.h"
#include "wait/futexwait.h"

#ifndef FUTEX_LOCK_PI2
#define FUTEX_LOCK_PI2 13 /* Linux 5.14 */
#endif
#ifndef FUTEX_WAIT_REQUEUE_PI
#define FUTEX_WAIT_REQUEUE_PI 11
#endif

/* The lock word of a robust or PI mutex (linux/futex.h). */
#define TID_MASK 0x3fffffffu
#define WAITERS_BIT 0x80000000u
#define OWNER_DIED_BIT 0x40000000u

/* pthread_mutex_t.__kind (glibc's pthreadP.h): the type in the low two
 * bits, then flags; the priority ceiling of a PP mutex is kept in the
 * lock word's top bits. */
#define MX_TYPE_MASK 3
#define MX_RECURSIVE 1
#define MX_ERRORCHECK 2
#define MX_ADAPTIVE 3
#define MX_ROBUST 16
#define MX_PI 32
#define MX_PP 64
#define MX_PSHARED 128
#define MX_ELISION 256
#define MX_NO_ELISION 512
#define MX_FLAGS \
	(MX_ROBUST | MX_PI | MX_PP | MX_PSHARED | MX_ELISION | MX_NO_ELISION)
#define MX_CEILING_MASK 0xfff80000u
/* __owner of a robust mutex whose owner died, taken with EOWNERDEAD and
 * not yet made consistent. */
#define MX_INCONSISTENT 0x7fffffff

/* pthread_rwlock_t.__readers (pthread_rwlock_common.c). */
#define RW_WRPHASE 1u
#define RW_WRLOCKED 2u
#define RW_RWAITING 4u
#define RW_READER_SHIFT 3
#define RW_FUTEX_USED 2u /* in __wrphase_futex and __writers_futex */

/* Linux's PID_MAX_LIMIT: no TID is above it. */
#define TID_MAX 4194304

struct mutex_mem {
	int32_t lock;
	uint32_t count;
	int32_t owner;
	uint32_t nusers;
	int32_t kind;
	int16_t spins, elision;
	uint64_t prev, next;
};

struct rwlock_mem {
	uint32_t readers, writers, wrphase_futex, writers_futex, pad3, pad4;
	int32_t cur_writer, shared;
	int8_t rwelision;
	uint8_t pad1[7];
	uint64_t pad2;
	uint32_t flags, pad5;
};

struct sem_mem {
	uint64_t data; /* value in the low 32 bits, waiters above */
	int32_t private_flag;
	int32_t pad;
};

_Static_assert(sizeof(struct mutex_mem) == 40, "pthread_mutex_t is 40 bytes");
_Static_assert(sizeof(struct rwlock_mem) == 56, "pthread_rwlock_t is 56");
_Static_assert(sizeof(struct sem_mem) == 16, "sem_t's data is 16 bytes");

/* What each decoder leaves: 1 decoded (out filled), 0 the layout does not
 * fit, -1 the memory could not be read (errno). */

/* Is tid one of the process's threads (in->tids, ascending)? */
static bool is_thread(const struct futexwait_in *in, int64_t tid)
{
	size_t lo = 0, hi = in->tids ? in->ntids : 0;

	if (tid <= 0 || tid > TID_MAX)
		return false;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (in->tids[mid] == tid)
			return true;
		if (in->tids[mid] < tid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

/*
 * Read the len bytes at addr whose 32-bit word at woff is the futex word.
 * The word is read again after the copy: when it moved in between (the
 * lock was let go, the waiter is being woken, a hostile writer), the
 * whole object is read once more and that copy is the one reported;
 * *moved says so.  No more rounds: a word that keeps changing is shown
 * as it last was, in bounded time.
 */
static int read_obj(const struct futexwait_in *in, uint64_t addr, void *buf,
		    size_t len, size_t woff, bool *moved)
{
	uint32_t first, again;

	*moved = false;
	if (addr > UINT64_MAX - len || vmread_all(in->pid, addr, buf, len))
		return -1;
	memcpy(&first, (char *)buf + woff, sizeof(first));
	if (vmread_all(in->pid, addr + woff, &again, sizeof(again)))
		return -1;
	if (again == first)
		return 0;
	*moved = true;
	return vmread_all(in->pid, addr, buf, len);
}

static bool kind_valid(int32_t kind)
{
	uint32_t k = (uint32_t)kind;

	if (k & ~(uint32_t)(MX_TYPE_MASK | MX_FLAGS))
		return false;
	if ((k & MX_PI) && (k & MX_PP))
		return false;
	return !((k & MX_ELISION) && (k & MX_NO_ELISION));
}

/* "robust recursive mutex" and the like, into buf. */
static void mutex_name(int32_t kind, char *buf, size_t len)
{
	static const char *const types[] = { "", "recursive ", "errorcheck ",
					     "adaptive " };

	snprintf(buf, len, "%s%s%smutex", kind & MX_ROBUST ? "robust " : "",
		 kind & MX_PI ? "PI " :
		 kind & MX_PP ? "PP " :
				"",
		 types[kind & MX_TYPE_MASK]);
}

/*
 * Does the lock word say "held", and does the value waited with fit the
 * kind?  glibc's waiters: a normal/recursive/errorcheck/adaptive mutex
 * sleeps with 2 (locked, waiters); a PP one with its ceiling | 2; a
 * robust one with the word it saw (owner TID | FUTEX_WAITERS); a PI one
 * in FUTEX_LOCK_PI, whose value is not used.
 */
static bool mutex_wait_fits(const struct futexwait_in *in, int32_t kind,
			    bool pi_op)
{
	uint32_t val = (uint32_t)in->val;

	if (kind & MX_PI)
		return pi_op;
	if (pi_op)
		return false;
	if (kind & MX_ROBUST)
		return (val & TID_MASK) != 0 || (val & OWNER_DIED_BIT);
	if (kind & MX_PP)
		return (val & ~MX_CEILING_MASK) == 2;
	return val == 2;
}

/*
 * The rest of a held plain mutex (normal, recursive, errorcheck,
 * adaptive: no robust, PI or PP flag), as pthread_mutex_lock() leaves it:
 * __nusers counted (it is raised just after __owner is stored: a lock
 * caught in between is not believed), __count 0 but for a recursive
 * mutex, and the robust list links 0 (only a robust mutex is on a list).
 * __pthread_mutex_lock_full() keeps __count 1 for the others and may
 * leave __nusers alone: they are judged by their lock word.
 */
static bool held_fields_fit(const struct mutex_mem *m)
{
	if (m->kind & (MX_ROBUST | MX_PI | MX_PP))
		return true;
	if (m->nusers < 1)
		return false;
	if ((m->kind & MX_TYPE_MASK) != MX_RECURSIVE && m->count != 0)
		return false;
	return m->prev == 0 && m->next == 0;
}

/*
 * The mutex at in->uaddr (its __lock is at offset 0).  strict: no hint
 * said "mutex", so the layout must fit in every part (kind, the value
 * waited with, an owner that is a thread of the process); with the
 * hint, a mutex whose owner cannot be believed is still called a mutex,
 * without a holder.
 */
static int decode_mutex(const struct futexwait_in *in, bool strict, bool pi_op,
			struct wait_info *out)
{
	struct mutex_mem m;
	char name[48], extra[96] = "";
	bool moved, robust;
	uint32_t lock;
	int64_t owner;

	if (read_obj(in, in->uaddr, &m, sizeof(m), 0, &moved))
		return -1;
	if (!kind_valid(m.kind) || !mutex_wait_fits(in, m.kind, pi_op))
		return 0;
	mutex_name(m.kind, name, sizeof(name));
	lock = (uint32_t)m.lock;
	robust = m.kind & (MX_ROBUST | MX_PI);
	/* A robust or PI mutex's owner is the kernel's: the TID in the
	 * word (the kernel reads it at the owner's death, or to boost it);
	 * __owner may say MX_INCONSISTENT meanwhile.  Any other mutex
	 * keeps its owner in __owner only. */
	owner = robust ? (int64_t)(lock & TID_MASK) : (int64_t)m.owner;
	if (robust && !owner && (lock & OWNER_DIED_BIT)) {
		if (strict)
			return 0;
		out->kind = WAIT_MUTEX;
		snprintf(out->text, sizeof(out->text),
			 "%s 0x%" PRIx64 " (owner died)", name, in->uaddr);
		return 1;
	}
	if (!lock || (!robust && !owner)) {
		/* Let go (or taken, __owner not yet stored) as it was read:
		 * the waiter is being woken. */
		if (strict)
			return 0;
		out->kind = WAIT_MUTEX;
		snprintf(out->text, sizeof(out->text),
			 "%s 0x%" PRIx64 " (no owner as read%s)", name,
			 in->uaddr, moved ? ", changing" : "");
		return 1;
	}
	if (owner == in->tid) {
		/* glibc returns EDEADLK (errorcheck) or counts (recursive)
		 * when the owner locks again, and the kernel refuses a PI
		 * self-lock: only a normal or adaptive mutex, robust or
		 * not, puts its own owner to sleep on it, for good. */
		int type = m.kind & MX_TYPE_MASK;

		if ((m.kind & MX_PI) || type == MX_RECURSIVE ||
		    type == MX_ERRORCHECK) {
			if (strict)
				return 0;
			out->kind = WAIT_MUTEX;
			snprintf(out->text, sizeof(out->text),
				 "%s 0x%" PRIx64
				 ": owner TID %d is the waiter itself, which "
				 "glibc never puts to sleep (a stale reading)",
				 name, in->uaddr, (int)owner);
			return 1;
		}
		/* The one branch that makes a deadlock of one thread: the
		 * held mutex's fields must fit, as for any other owner. */
		if (!held_fields_fit(&m)) {
			if (strict)
				return 0;
			out->kind = WAIT_MUTEX;
			snprintf(out->text, sizeof(out->text),
				 "%s 0x%" PRIx64 ": owner TID %d (the waiter) "
				 "not believed: its fields do not fit a held "
				 "mutex",
				 name, in->uaddr, (int)owner);
			return 1;
		}
		out->kind = WAIT_MUTEX;
		out->holder = in->tid;
		snprintf(out->text, sizeof(out->text),
			 "%s 0x%" PRIx64
			 " held by thread %d itself (self-deadlock)",
			 name, in->uaddr, (int)owner);
		return 1;
	}
	if (!is_thread(in, owner) || !held_fields_fit(&m)) {
		if (strict)
			return 0;
		out->kind = WAIT_MUTEX;
		snprintf(out->text, sizeof(out->text),
			 "%s 0x%" PRIx64 ": owner TID %" PRId64 "%s", name,
			 in->uaddr, owner,
			 is_thread(in, owner) ?
				 " not believed: its fields do not fit a "
				 "held mutex" :
				 " is not a thread of this process");
		return 1;
	}
	if ((m.kind & MX_TYPE_MASK) == MX_RECURSIVE && m.count > 0 &&
	    m.count < 0x7fffffff)
		snprintf(extra, sizeof(extra), " (count %u)", m.count);
	else if (robust && m.owner == MX_INCONSISTENT)
		snprintf(extra, sizeof(extra),
			 " (taken after its owner died, not yet consistent)");
	else if (moved)
		snprintf(extra, sizeof(extra), " (changing)");
	out->kind = WAIT_MUTEX;
	out->holder = (pid_t)owner;
	snprintf(out->text, sizeof(out->text),
		 "%s 0x%" PRIx64 " held by thread %d%s", name, in->uaddr,
		 (int)owner, extra);
	return 1;
}

/*
 * A FUTEX_LOCK_PI wait on a word that is no pthread_mutex_t (a PI lock
 * of its own): the word is the owner's TID, the kernel's rule.
 */
static int decode_pi_word(const struct futexwait_in *in, struct wait_info *out)
{
	uint32_t w;
	bool moved;
	int64_t owner;

	if (read_obj(in, in->uaddr, &w, sizeof(w), 0, &moved))
		return -1;
	owner = w & TID_MASK;
	out->kind = WAIT_FUTEX;
	if (owner && owner != in->tid && is_thread(in, owner)) {
		out->holder = (pid_t)owner;
		snprintf(out->text, sizeof(out->text),
			 "PI futex at 0x%" PRIx64 " held by thread %d",
			 in->uaddr, (int)owner);
	} else if (owner) {
		snprintf(out->text, sizeof(out->text),
			 "PI futex at 0x%" PRIx64 ": owner TID %" PRId64
			 " is not a thread of this process",
			 in->uaddr, owner);
	} else {
		snprintf(out->text, sizeof(out->text),
			 "PI futex at 0x%" PRIx64 " (value 0x%x)", in->uaddr,
			 w);
	}
	return 1;
}

/*
 * pthread_join() in glibc 2.34-2.40 (__pthread_clockjoin_ex) sleeps on
 * the joined thread's struct pthread tid field with the value it read
 * there, the thread's TID, until the kernel clears it at the thread's
 * exit (CLONE_CHILD_CLEARTID).  So the word, the value waited with and a
 * thread of the process, not the waiter, are all one number.
 */
static int decode_join(const struct futexwait_in *in, bool hinted,
		       struct wait_info *out)
{
	uint32_t w;
	bool moved;

	if (read_obj(in, in->uaddr, &w, sizeof(w), 0, &moved))
		return -1;
	if (in->val == 0 || in->val > TID_MAX || (pid_t)in->val == in->tid)
		return 0;
	if (w == in->val && is_thread(in, w)) {
		out->kind = WAIT_JOIN;
		out->holder = (pid_t)w;
		snprintf(out->text, sizeof(out->text), "join of thread %d",
			 (int)w);
		return 1;
	}
	if (!hinted)
		return 0;
	out->kind = WAIT_JOIN;
	if (w == 0)
		snprintf(out->text, sizeof(out->text),
			 "join of thread %d, which has exited", (int)in->val);
	else
		snprintf(out->text, sizeof(out->text),
			 "join of TID %d, not a thread of this process",
			 (int)in->val);
	return 1;
}

/*
 * pthread_rwlock_t (pthread_rwlock_common.c): a reader sleeps on
 * __readers (@0) with RWAITING set, or on __wrphase_futex (@8); a writer
 * on __wrphase_futex or __writers_futex (@12), both 0 or 1 with
 * FUTEX_USED beside.  Which field the address is cannot be told from
 * it: each candidate base is read, and the first whose fields all fit
 * (pads 0, __shared 0 or 1, __flags a valid preference) is the lock.
 */
static bool rwlock_fits(const struct rwlock_mem *r, size_t off, uint32_t val)
{
	if (r->pad3 || r->pad4 || (r->shared != 0 && r->shared != 1) ||
	    r->flags > 2 || r->pad2)
		return false;
	for (size_t i = 0; i < sizeof(r->pad1); i++)
		if (r->pad1[i])
			return false;
	if (off == 0)
		return (val & RW_RWAITING) != 0;
	return (val & ~RW_FUTEX_USED) <= 1;
}

/*
 * Without a hint the word's state must also be a waiter's, as
 * pthread_rwlock_common.c leaves it (RW_WRPHASE: __readers' bit 0, a
 * writer's phase): the word still holds the value waited with; on
 * __readers (@0) that value has RWAITING; on __wrphase_futex (@8)
 * FUTEX_USED beside 1 (a reader waiting out a write phase: WRPHASE set)
 * or 0 (a writer waiting for the readers to leave: WRPHASE clear, one
 * reader at least); on __writers_futex (@12) 1 | FUTEX_USED, a writer
 * holding it (WRLOCKED and WRPHASE).  A sem or condvar waits with 0,
 * which none of these is.
 */
static bool rwlock_state_fits(const struct rwlock_mem *r, size_t off,
			      uint32_t val)
{
	uint32_t word = off == 0 ? r->readers :
			off == 8 ? r->wrphase_futex :
				   r->writers_futex;

	if (word != val)
		return false;
	if (off == 0)
		return (r->readers & RW_RWAITING) != 0;
	if (off == 8) {
		if (val == (1 | RW_FUTEX_USED))
			return (r->readers & RW_WRPHASE) != 0;
		return val == RW_FUTEX_USED && !(r->readers & RW_WRPHASE) &&
		       (r->readers >> RW_READER_SHIFT) >= 1;
	}
	return val == (1 | RW_FUTEX_USED) && (r->readers & RW_WRLOCKED) &&
	       (r->readers & RW_WRPHASE);
}

static int decode_rwlock(const struct futexwait_in *in, bool strict,
			 struct wait_info *out)
{
	static const size_t offs[] = { 0, 8, 12 };
	struct rwlock_mem r;
	bool moved;

	for (size_t i = 0; i < sizeof(offs) / sizeof(*offs); i++) {
		uint64_t base = in->uaddr - offs[i];
		uint32_t nreaders;

		if (in->uaddr < offs[i] ||
		    read_obj(in, base, &r, sizeof(r), offs[i], &moved)) {
			if (errno == ESRCH)
				return -1;
			continue;
		}
		if (!rwlock_fits(&r, offs[i], (uint32_t)in->val) ||
		    (strict &&
		     !rwlock_state_fits(&r, offs[i], (uint32_t)in->val)))
			continue;
		out->kind = WAIT_RWLOCK;
		out->addr = base;
		nreaders = r.readers >> RW_READER_SHIFT;
		if ((r.readers & RW_WRLOCKED) && r.cur_writer != in->tid &&
		    is_thread(in, r.cur_writer)) {
			out->holder = r.cur_writer;
			snprintf(out->text, sizeof(out->text),
				 "rwlock 0x%" PRIx64
				 " held for writing by thread %d",
				 base, (int)r.cur_writer);
		} else if (r.readers & RW_WRLOCKED) {
			snprintf(out->text, sizeof(out->text),
				 "rwlock 0x%" PRIx64
				 " held for writing: writer TID %d is not a "
				 "thread of this process",
				 base, (int)r.cur_writer);
		} else if (nreaders) {
			snprintf(out->text, sizeof(out->text),
				 "rwlock 0x%" PRIx64 " held by %u reader%s",
				 base, nreaders, nreaders == 1 ? "" : "s");
		} else {
			snprintf(out->text, sizeof(out->text),
				 "rwlock 0x%" PRIx64 " (free as read%s)", base,
				 moved ? ", changing" : "");
		}
		return 1;
	}
	return 0;
}

/*
 * sem_t (nptl/sem_waitcommon.c, 64-bit atomics): data's low 32 bits are
 * the value, the high ones the waiters; a waiter sleeps on the value
 * with 0.  private is FUTEX_PRIVATE_FLAG (128) or 0.
 */
static int decode_sem(const struct futexwait_in *in, bool strict,
		      struct wait_info *out)
{
	struct sem_mem s;
	bool moved;
	uint32_t value;

	if (read_obj(in, in->uaddr, &s, sizeof(s), 0, &moved))
		return -1;
	value = (uint32_t)s.data;
	if (in->val != 0 || (s.private_flag != 0 && s.private_flag != 128) ||
	    (s.data >> 32) == 0 || value > 0x7fffffff)
		return 0;
	/* Without a hint the value must be what the waiter saw: 0. */
	if (strict && value != 0)
		return 0;
	out->kind = WAIT_SEM;
	snprintf(out->text, sizeof(out->text),
		 "semaphore 0x%" PRIx64 " (value %u)", in->uaddr, value);
	return 1;
}

/*
 * pthread_cond_t (glibc 2.36, nptl/pthread_cond_wait.c; 48 bytes):
 * uint64 __wseq @0 (2 a waiter ever, LSB the G2 index), uint64
 * __g1_start @8, __g_refs[2] @16 (unused since the lost-wakeup fix
 * Debian's 2.36 carries: not checked), __g_size[2] @24, __g1_orig_size
 * @32 (its two low bits an internal lock), __wrefs @36 (8 a waiter, flags
 * in the low 3 bits), __g_signals[2] @40: a waiter sleeps on
 * __g_signals[g] with 0.
 */
struct cond_mem {
	uint64_t wseq, g1_start;
	uint32_t g_refs[2], g_size[2], g1_orig_size, wrefs, g_signals[2];
};

_Static_assert(sizeof(struct cond_mem) == 48, "pthread_cond_t is 48 bytes");

/* A cap on a condvar's waiters (a shared one's may be many processes'). */
#define CV_WAITERS_MAX (1u << 24)

/*
 * Without a hint, the word is __g_signals[0] or [1] only when the whole
 * object fits a condvar with a waiter asleep: waited with 0; __wrefs
 * counts one waiter at least; every waiter now asleep took a sequence
 * number at or past __g1_start and below __wseq, so __g1_start < __wseq
 * (in waiters) and __wseq counts at least __wrefs' waiters; the group
 * sizes are counts of those same waiters.  Which group it is: the base
 * at uaddr - 40 is tried first, then uaddr - 44.
 */
static bool cond_fits(const struct cond_mem *c)
{
	uint64_t seq = c->wseq >> 1, start = c->g1_start >> 1;
	uint32_t waiters = c->wrefs >> 3;

	if (waiters < 1 || waiters > CV_WAITERS_MAX || start >= seq ||
	    seq < waiters)
		return false;
	return c->g_size[0] <= seq && c->g_size[1] <= seq &&
	       (c->g1_orig_size >> 2) <= seq;
}

static int decode_cond(const struct futexwait_in *in, bool strict,
		       struct wait_info *out)
{
	static const size_t offs[] = { 40, 44 };
	struct cond_mem c;
	bool moved;

	if (in->val > 0xffff)
		return 0;
	if (!strict) {
		/* Which of the two words it is cannot be told without the
		 * checks: the address is the word's, as wait.h says. */
		out->kind = WAIT_CONDVAR;
		snprintf(out->text, sizeof(out->text),
			 "condvar 0x%" PRIx64 " (futex word)", in->uaddr);
		return 1;
	}
	if (in->val != 0)
		return 0;
	for (size_t i = 0; i < sizeof(offs) / sizeof(*offs); i++) {
		uint64_t base = in->uaddr - offs[i];

		if (in->uaddr < offs[i] ||
		    read_obj(in, base, &c, sizeof(c), offs[i], &moved)) {
			if (errno == ESRCH)
				return -1;
			continue;
		}
		if (!cond_fits(&c))
			continue;
		out->kind = WAIT_CONDVAR;
		snprintf(out->text, sizeof(out->text),
			 "condvar 0x%" PRIx64 " (futex word; %u waiter%s)",
			 in->uaddr, c.wrefs >> 3,
			 (c.wrefs >> 3) == 1 ? "" : "s");
		return 1;
	}
	return 0;
}

/* Nothing fits: the word and what it holds, and why a holder was not
 * believed when it was mutex-shaped but named no thread of the process. */
static int decode_plain(const struct futexwait_in *in, struct wait_info *out)
{
	struct mutex_mem m;
	uint32_t w;
	bool moved, kind_ok;
	int64_t owner = 0;

	if (read_obj(in, in->uaddr, &w, sizeof(w), 0, &moved))
		return -1;
	out->kind = WAIT_FUTEX;
	snprintf(out->text, sizeof(out->text),
		 "futex at 0x%" PRIx64 " (value %u%s)", in->uaddr, w,
		 moved ? ", changing" : "");
	/* A word shaped as a held mutex, waited on as one, but whose owner
	 * is no thread here: said, since a holder was refused. */
	if (vmread_all(in->pid, in->uaddr, &m, sizeof(m)))
		return 1;
	kind_ok = kind_valid(m.kind) && !(m.kind & (MX_ROBUST | MX_PI)) &&
		  mutex_wait_fits(in, m.kind, false);
	owner = m.owner;
	if (kind_ok && m.lock && owner > 0 && owner <= TID_MAX &&
	    owner != in->tid && !is_thread(in, owner)) {
		size_t n = strlen(out->text);

		snprintf(out->text + n, sizeof(out->text) - n,
			 ": owner TID %" PRId64
			 " is not a thread of this process",
			 owner);
	}
	return 1;
}

/* The op's command: FUTEX_PRIVATE_FLAG and FUTEX_CLOCK_REALTIME only say
 * how the word is hashed and the timeout read. */
static int futex_cmd(uint64_t op)
{
	return (int)(op &
		     ~(uint64_t)(FUTEX_PRIVATE_FLAG | FUTEX_CLOCK_REALTIME));
}

/*
 * glibc's own lock (__lll_lock_wait_private: stdio's _IO_lock_t, malloc's
 * arenas, the dynamic loader's): an int that is 0, 1 or 2, never a
 * pthread_mutex_t, and with no owner kept anywhere.
 */
static int decode_libc_lock(const struct futexwait_in *in,
			    struct wait_info *out)
{
	uint32_t w;
	bool moved;

	if (read_obj(in, in->uaddr, &w, sizeof(w), 0, &moved))
		return -1;
	out->kind = WAIT_FUTEX;
	snprintf(out->text, sizeof(out->text),
		 "libc internal lock 0x%" PRIx64 " (value %u)", in->uaddr, w);
	return 1;
}

static int decode_hinted(const struct futexwait_in *in, struct wait_info *out)
{
	switch (in->hint) {
	case WAIT_HINT_MUTEX:
		return decode_mutex(in, false, false, out);
	case WAIT_HINT_JOIN:
		return decode_join(in, true, out);
	case WAIT_HINT_RWLOCK:
		return decode_rwlock(in, false, out);
	case WAIT_HINT_SEM:
		return decode_sem(in, false, out);
	case WAIT_HINT_CONDVAR:
		return decode_cond(in, false, out);
	case WAIT_HINT_LIBC_LOCK:
		return decode_libc_lock(in, out);
	default:
		return 0;
	}
}

int futexwait_decode(const struct futexwait_in *in, struct wait_info *out)
{
	int cmd = futex_cmd(in->op), r = 0;

	out->kind = WAIT_FUTEX;
	out->addr = in->uaddr;
	out->holder = 0;
	snprintf(out->text, sizeof(out->text), "futex at 0x%" PRIx64,
		 in->uaddr);
	switch (cmd) {
	case FUTEX_WAIT:
	case FUTEX_WAIT_BITSET:
		r = decode_hinted(in, out);
		if (r == 0 && in->hint == WAIT_HINT_NONE)
			r = decode_mutex(in, true, false, out);
		if (r == 0 && in->hint == WAIT_HINT_NONE)
			r = decode_join(in, false, out);
		/* The condvar before the sem: a sem_t's 16 bytes may be read
		 * over a condvar's last 8 and what follows it. */
		if (r == 0 && in->hint == WAIT_HINT_NONE)
			r = decode_cond(in, true, out);
		if (r == 0 && in->hint == WAIT_HINT_NONE)
			r = decode_rwlock(in, true, out);
		if (r == 0 && in->hint == WAIT_HINT_NONE)
			r = decode_sem(in, true, out);
		break;
	case FUTEX_LOCK_PI:
	case FUTEX_LOCK_PI2:
		r = decode_mutex(in, in->hint != WAIT_HINT_MUTEX, true, out);
		if (r == 0)
			r = decode_pi_word(in, out);
		break;
	case FUTEX_WAIT_REQUEUE_PI:
		/* A condvar waiter of a PI mutex (glibc before 2.25, and
		 * other libraries): to be requeued onto the mutex. */
		out->kind = WAIT_CONDVAR;
		snprintf(out->text, sizeof(out->text),
			 "condvar 0x%" PRIx64 " (futex word, PI requeue)",
			 in->uaddr);
		return 0;
	default:
		snprintf(out->text, sizeof(out->text),
			 "futex op %d at 0x%" PRIx64 " (not a wait)", cmd,
			 in->uaddr);
		errno = EINVAL;
		return -1;
	}
	if (r == 0)
		r = decode_plain(in, out);
	if (r < 0) {
		int err = errno;

		out->kind = WAIT_FUTEX;
		out->addr = in->uaddr;
		out->holder = 0;
		snprintf(out->text, sizeof(out->text),
			 "futex at 0x%" PRIx64 " (%s)", in->uaddr,
			 err == ESRCH ? "the process is gone" :
					"its memory could not be read");
		errno = err;
		return -1;
	}
	return 0;
}

pid_t futexwait_holder_now(pid_t pid, enum wait_kind kind, uint64_t addr)
{
	union {
		struct mutex_mem m;
		struct rwlock_mem r;
		uint32_t w;
	} u;
	size_t len = kind == WAIT_MUTEX	 ? sizeof(u.m) :
		     kind == WAIT_RWLOCK ? sizeof(u.r) :
					   sizeof(u.w);

	if (kind != WAIT_MUTEX && kind != WAIT_RWLOCK && kind != WAIT_JOIN)
		return 0;
	if (addr > UINT64_MAX - len || vmread_all(pid, addr, &u, len))
		return -1;
	if (kind == WAIT_JOIN) /* 0 once the thread has exited */
		return u.w <= TID_MAX ? (pid_t)u.w : 0;
	if (kind == WAIT_RWLOCK)
		return (u.r.readers & RW_WRLOCKED) && u.r.cur_writer > 0 &&
				       u.r.cur_writer <= TID_MAX ?
			       u.r.cur_writer :
			       0;
	if (!kind_valid(u.m.kind) || !u.m.lock)
		return 0;
	if (u.m.kind & (MX_ROBUST | MX_PI))
		return (pid_t)((uint32_t)u.m.lock & TID_MASK);
	return u.m.owner > 0 && u.m.owner <= TID_MAX && held_fields_fit(&u.m) ?
		       u.m.owner :
		       0;
}
