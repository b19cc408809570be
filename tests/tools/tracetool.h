/*
 * tracetool.h - what the test tools that stop a target's threads share
 * (unwind_compare, peekcmp): monotonic and thread CPU clocks in ns, a
 * sleep, a bounded wait for a ptrace stop, and the maps re-read.
 * Header-only: each tool stays one program.
 */
#ifndef PTPROF_TRACETOOL_H
#define PTPROF_TRACETOOL_H

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#include "proc/maps.h"
#include "proc/procfs.h"
#include "proc/ptctl.h"
#include "unwind/unwind.h"

/* How long wait_stop() waits for a stop. */
#define STOP_WAIT_MS 2000

static inline uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline void sleep_us(unsigned us)
{
	struct timespec ts = { us / 1000000u, (long)(us % 1000000u) * 1000 };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/*
 * Wait for tid's stop, at most STOP_WAIT_MS.  1: stopped (*sig is the
 * signal of a signal-delivery-stop, else 0); 0: it exited; -1: no report
 * in time, or waitpid failed.
 */
static inline int wait_stop(pid_t tid, int *sig)
{
	uint64_t deadline = now_ns() + STOP_WAIT_MS * 1000000ull;

	for (;;) {
		int status;
		pid_t r = waitpid(tid, &status, __WALL | WNOHANG);

		if (r == tid) {
			enum ptctl_stop_kind k = ptctl_classify(status, sig);

			if (k == PTSTOP_EXITED)
				return 0;
			if (k == PTSTOP_UNKNOWN)
				continue;
			return 1;
		}
		if (r < 0 && errno != EINTR)
			return -1;
		if (now_ns() >= deadline)
			return -1;
		sleep_us(20);
	}
}

/* Reread the maps; merge them and flush the unwinder when they changed. */
static inline int update_maps(pid_t pid, struct maps *maps, struct unwinder *u,
			      char **last, size_t *last_len)
{
	char *text;
	size_t len;

	if (procfs_read_maps(pid, 0, &text, &len))
		return -1;
	if (*last && len == *last_len && memcmp(text, *last, len) == 0) {
		free(text);
		return 0;
	}
	if (maps_update(maps, text, len)) {
		free(text);
		return -1;
	}
	if (*last && u)
		unwinder_flush(u);
	free(*last);
	*last = text;
	*last_len = len;
	return 0;
}

#endif /* PTPROF_TRACETOOL_H */
