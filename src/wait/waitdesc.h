/*
 * waitdesc.h - a blocked thread's wait, described (wait.h): the one
 * entry the dump and the sampler call.
 *
 * The call is the thread's /proc/TID/syscall line (peek.h, read without
 * a stop); its number picks the decoder: futex() waits go to
 * futexwait.h, calls on descriptors to fdname.h (poll/select/epoll: the
 * descriptors watched), sleeps read their timespec from the target's
 * memory, wait4/waitid name the child.  A thread running, or asleep
 * outside a call (a page fault), is WAIT_NONE.
 *
 * Contract:
 *  - waitdesc_new(pid): a context for one process: its thread list
 *    (read now: the holders must be among them) and, on first need, its
 *    descriptors' (fdname.h).  NULL with errno (ENOMEM; ESRCH: gone).
 *  - waitdesc_thread(wd, tid, sc, hint, out): out described from sc (a
 *    line as peek_read_syscall() gives); hint from the stack's frames
 *    (wait_hint_of()), WAIT_HINT_NONE when unknown.  Always fills out
 *    (kind WAIT_NONE when sc->nr < 0); 0, or -1 with errno when a part
 *    could not be read (out->text then says what was read, and what
 *    not, in a few words).
 *  - waitdesc_read(wd, tid, hint, out): the same from the thread's
 *    syscall file, read now; -1 with errno (ESRCH, EACCES) and kind
 *    WAIT_NONE when it cannot be read.
 *  - waitdesc_kind_of_call(nr): the kind from the call alone (no read
 *    of anything: futex calls are WAIT_FUTEX): for the sampler's
 *    per-sample label when no more is wanted.
 *  - Never prints, never stops, signals or writes to a target.  Bounded:
 *    at most WAIT_MAX_FDS descriptors are described per wait.
 */
#ifndef PTPROF_WAITDESC_H
#define PTPROF_WAITDESC_H

#include <stdint.h>
#include <sys/types.h>

#include "proc/peek.h"
#include "wait/wait.h"

struct waitdesc;

struct waitdesc *waitdesc_new(pid_t pid);
void waitdesc_free(struct waitdesc *wd);
int waitdesc_thread(struct waitdesc *wd, pid_t tid,
		    const struct peek_syscall *sc, enum wait_hint hint,
		    struct wait_info *out);
int waitdesc_read(struct waitdesc *wd, pid_t tid, enum wait_hint hint,
		  struct wait_info *out);
enum wait_kind waitdesc_kind_of_call(int64_t nr);

#endif /* PTPROF_WAITDESC_H */
