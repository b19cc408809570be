/*
 * reaper.h - wait() for ptprof's tracees and children on a thread of its
 * own, and hand the reports to the sampler through a pipe.
 *
 * Why a thread: when a non-leader thread of the target calls execve(),
 * the kernel kills the other threads and waits, holding the target's
 * cred_guard_mutex, until every one of them is released; a traced thread
 * is released only when its tracer wait()s for it.  PTRACE_SEIZE takes
 * that same mutex, and the wait inside it restarts after any signal.  A
 * single-threaded ptprof seizing such a target would wait for the exec,
 * and the exec for ptprof's wait(): forever.  With waitpid() running on
 * another thread the zombies are reaped, the exec completes and the seize
 * returns.  (Any thread of the tracer's thread group may wait() for its
 * tracees; ptrace requests themselves stay on the sampling thread.)
 *
 * Contract: one reaper per process, started on first use and never
 * stopped (it blocks every signal; it ends with the process).  Events come
 * out in the order waitpid() returned them.  reaper_kick() must follow
 * anything that may create a new tracee or child (a seize, a fork): while
 * there is none, the reaper sleeps instead of spinning on ECHILD.  Never
 * prints or exits.
 */
#ifndef PTPROF_REAPER_H
#define PTPROF_REAPER_H

#include <stdbool.h>
#include <sys/types.h>

struct reap_event {
	pid_t pid;
	int status;
};

/* Start the reaper if it is not running.  0, or -1 with errno. */
int reaper_start(void);

/* The read end of the event pipe (non-blocking; poll it for POLLIN). */
int reaper_fd(void);

/*
 * Pop one event: 1, or 0 when none is queued.  Events are read from the
 * pipe 64 at a time; once a read comes back short the pipe is known to
 * be empty, and reaper_next() reads again only after reaper_polled():
 * call that when reaper_fd() polls readable.  (No read() just to hear
 * EAGAIN: one system call per batch of reports.)
 */
int reaper_next(struct reap_event *ev);
void reaper_polled(void);

/* There may be a new tracee or child: wake the reaper if it sleeps. */
void reaper_kick(void);

#endif /* PTPROF_REAPER_H */
