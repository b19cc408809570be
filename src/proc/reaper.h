/*
 * reaper.h - wait() for ptprof's tracees and children: on the sampling
 * thread, with a watchdog thread for the one case where that thread
 * cannot.
 *
 * The sampling thread collects the reports itself, with
 * waitpid(-1, __WALL | WNOHANG), and sleeps on reaper_fd(): a signalfd for
 * SIGCHLD, which the kernel sends for every ptrace-stop and exit of a
 * tracee or child.  (An earlier version waited on a thread of its own and
 * passed the reports through a pipe: two more thread wake-ups and four
 * more system calls per stop, which a target on busy CPUs paid for.)
 *
 * Why a watchdog: when a non-leader thread of the target calls execve(),
 * the kernel kills the other threads and waits, holding the target's
 * cred_guard_mutex, until every one of them is released; a traced thread
 * is released only when its tracer wait()s for it.  PTRACE_SEIZE takes
 * that same mutex, and the wait inside it restarts after any signal.  A
 * single-threaded ptprof seizing such a target would wait for the exec,
 * and the exec for ptprof's wait(): forever.  So every seize is bracketed
 * by reaper_seize_begin()/end(), and a watchdog thread that finds one
 * lasting over 20 ms reaps on the sampling thread's behalf and queues what
 * it reaped; reaper_next() hands the queue out first, in order.  (Any
 * thread of the tracer's thread group may wait() for its tracees; ptrace
 * requests themselves stay on the sampling thread.)
 *
 * Contract: one reaper per process, started by reaper_start() on the
 * sampling thread, which from then on keeps SIGCHLD blocked (a signalfd
 * needs it; ptprof never handles SIGCHLD otherwise); the watchdog blocks
 * every signal and ends with the process.  Events come out in the order
 * waitpid() returned them.  Never prints or exits.
 */
#ifndef PTPROF_REAPER_H
#define PTPROF_REAPER_H

#include <stdint.h>
#include <sys/types.h>

struct reap_event {
	pid_t pid;
	int status;
};

/* Start the reaper if it is not running.  0, or -1 with errno. */
int reaper_start(void);

/* Poll this for POLLIN: a report may be waiting (the SIGCHLD signalfd). */
int reaper_fd(void);

/*
 * Pop one report: 1, or 0 when none is waiting; never blocks.  After a
 * waitpid() that found nothing, none is tried again until reaper_polled()
 * says SIGCHLD came: call that when reaper_fd() polls readable.  (No
 * system call just to hear "nothing".)
 */
int reaper_next(struct reap_event *ev);
void reaper_polled(void);

/*
 * Pop one report, asking waitpid() again and again until one comes or
 * CLOCK_MONOTONIC passes `until` (ns): 1, or 0.  A busy wait, for a stop
 * due in microseconds when the CPU would otherwise go idle (see
 * collect_stops() in sampler.c: waking an idle CPU costs more).
 */
int reaper_spin(struct reap_event *ev, uint64_t until);

/* Sleep until SIGCHLD comes or `timeout_ns` passes (one system call, not
 * a poll and a read): for when nothing but reports is awaited. */
void reaper_wait(uint64_t timeout_ns);

/* What reaper_poll() found ready. */
enum reaper_ready {
	REAPER_SIGNAL = 1 << 0,	 /* sigfd is readable: a signal is pending */
	REAPER_PIDFD = 1 << 1,	 /* pidfd is readable: the process exited */
	REAPER_REPORTS = 1 << 2, /* waitpid() reports may be waiting */
};

/*
 * Sleep until a report may be waiting, a signal of the signalfd sigfd is
 * pending, the pidfd pidfd polls readable (fds < 0 are left out), or
 * CLOCK_MONOTONIC passes deadline (ns; 0: no deadline).  Returns the
 * enum reaper_ready bits of what is ready: 0 when the deadline passed or
 * a signal not in sigfd interrupted the sleep.  Take the reports already
 * queued (reaper_next()) before calling: this does not look for them.
 */
int reaper_poll(int sigfd, int pidfd, uint64_t deadline);

/* The same, without sleeping at all: what is ready now.  (A deadline a
 * microsecond away is no substitute: the sleep ppoll() then makes lasts
 * the timer slack and a wake-up, 0.1 to 1.5 ms on the development VM.) */
int reaper_poll_now(int sigfd, int pidfd);

/* Bracket every PTRACE_SEIZE (see above). */
void reaper_seize_begin(void);
void reaper_seize_end(void);

#endif /* PTPROF_REAPER_H */
