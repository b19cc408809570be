/*
 * capture.h - what is taken from a thread while it is stopped.
 *
 * Capture is the only work that must happen inside the stop window; it is
 * kept apart from unwinding so that unwinding can later move after the
 * thread is resumed (from a copy of its stack).  Today a capture is the
 * thread's general registers.
 *
 * Contract: capture_thread() needs tid to be in a ptrace-stop of ours.
 * 0, or -1 with errno (ESRCH: the thread died under us).  Never prints.
 */
#ifndef PTPROF_CAPTURE_H
#define PTPROF_CAPTURE_H

#include <sys/types.h>
#include <sys/user.h>

struct capture {
	pid_t tid;
	struct user_regs_struct regs;
};

int capture_thread(pid_t tid, struct capture *out);

#endif /* PTPROF_CAPTURE_H */
