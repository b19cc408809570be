/*
 * proctree_lat - how soon, and how surely, proctree.h finds short-lived
 * children, with each method.
 *
 *   proctree_lat [-n N] [-l MS[,MS...]] [-r HZ] [-m METHODS] [-b]
 *
 * For each method and each lifetime L (default 5,20,50 ms) a forker
 * process forks N children (default 200), one every 5 to 25 ms (random,
 * so forks do not line up with the polls), each living L ms (asleep,
 * or spinning on the CPU with -b) and reaped at once by the forker
 * (SIGCHLD).  This process watches the forker, polls the tree at HZ
 * (default 100) calling proctree_ran() for the forker before each poll,
 * as the sampler does, and watches every NEW process, as the sampler
 * does.  METHODS (default netlink,netlink-fd,poll): netlink and poll
 * poll at HZ only; netlink-fd also polls as soon as the connector's
 * socket is readable.  One line per method and L:
 *
 *   method L_ms N found_pct alive_pct lat_p50_ms lat_p90_ms lat_max_ms
 *     cpu_pct events/poll files/poll resyncs
 *
 * found: reported NEW at all; alive: reported before the forker reaped
 * it (what a sampler could still sample); the latencies run from just
 * before fork() to the poll that reported it, over the found ones;
 * cpu_pct: this process's CPU time over the run's wall time (what the
 * polling costs: the forker is another process); events and children
 * files read per proctree_poll() (connector events come from the whole
 * machine).
 * Exits 77 when netlink was asked and the connector refuses (no
 * CAP_NET_ADMIN before Linux 6.6, a nested pid namespace).  Kills
 * nothing but its own forker, by PID.
 */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "proc/proctree.h"
#include "util/timeutil.h"

struct child {
	pid_t pid;
	uint64_t fork_ns, reap_ns, report_ns;
};

struct opts {
	int n, hz, busy;
	int lives[8], nlives;
	const char *methods;
};

static void sleep_until(uint64_t t)
{
	struct timespec ts = ns_to_timespec(t);

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) ==
	       EINTR)
		;
}

static void __attribute__((noreturn)) live(int ms, int busy)
{
	uint64_t end = mono_now_ns() + (uint64_t)ms * NSEC_PER_MSEC;

	if (!busy)
		sleep_until(end);
	while (mono_now_ns() < end)
		;
	_exit(0);
}

/* Reap every child that ended, noting when, until deadline. */
static void reap_until(struct child *c, int n, uint64_t deadline,
		       const sigset_t *chld)
{
	for (;;) {
		uint64_t now = mono_now_ns();
		struct timespec ts;
		pid_t pid;

		while ((pid = waitpid(-1, NULL, WNOHANG)) > 0)
			for (int i = 0; i < n; i++)
				if (c[i].pid == pid)
					c[i].reap_ns = mono_now_ns();
		if (now >= deadline)
			return;
		ts = ns_to_timespec(deadline - now);
		(void)sigtimedwait(chld, NULL, &ts);
	}
}

/* The forker: n children into c (shared memory), then reaps the last. */
static void __attribute__((noreturn))
forker(struct child *c, int n, int ms, int busy, int go_fd)
{
	sigset_t chld;
	char g;

	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, NULL);
	if (read(go_fd, &g, 1) != 1)
		_exit(1);
	srand((unsigned)getpid());
	for (int i = 0; i < n; i++) {
		uint64_t gap = (5 + (uint64_t)(rand() % 21)) * NSEC_PER_MSEC;

		pid_t pid;

		c[i].fork_ns = mono_now_ns();
		pid = fork(); /* the child must not write c: it is shared */
		if (pid == 0)
			live(ms, busy);
		c[i].pid = pid;
		reap_until(c, n, c[i].fork_ns + gap, &chld);
	}
	reap_until(c, n, mono_now_ns() + (uint64_t)(ms + 100) * NSEC_PER_MSEC,
		   &chld);
	_exit(0);
}

/* The NEW events seen, matched to the children at the end: the poller
 * may see a child before the forker has stored its PID. */
struct seen {
	pid_t pid;
	uint64_t ns;
};
static struct seen *seen;
static size_t nseen, seen_cap;

static void note(const struct proctree_event *ev, uint64_t now)
{
	if (nseen == seen_cap) {
		struct seen *s = realloc(seen,
					 (seen_cap * 2 + 64) * sizeof(*s));

		if (!s)
			return;
		seen = s;
		seen_cap = seen_cap * 2 + 64;
	}
	seen[nseen].pid = ev->pid;
	seen[nseen++].ns = now;
}

static void match(struct child *c, int n)
{
	for (size_t j = 0; j < nseen; j++)
		for (int i = 0; i < n; i++)
			if (c[i].pid == seen[j].pid && !c[i].report_ns &&
			    seen[j].ns >= c[i].fork_ns)
				c[i].report_ns = seen[j].ns;
	nseen = 0;
}

static unsigned long polls; /* proctree_poll() calls of the run */

/* One poll: the events noted, each NEW watched. */
static void poll_once(struct proctree *t, pid_t fk)
{
	struct proctree_event ev[64];
	int got;

	proctree_ran(t, fk);
	do {
		uint64_t now;

		got = proctree_poll(t, ev, 64);
		polls++;
		now = mono_now_ns();
		for (int i = 0; i < got; i++) {
			if (ev[i].kind != PROCTREE_NEW)
				continue;
			note(&ev[i], now);
			(void)proctree_watch(t, ev[i].pid);
		}
	} while (got == 64);
}

/* Poll at hz until the forker ends; with use_fd also when the socket is
 * readable. */
static void watch_run(struct proctree *t, pid_t fk, int hz, int use_fd)
{
	uint64_t period = NSEC_PER_SEC / (uint64_t)hz;
	uint64_t next = mono_now_ns() + period;

	while (waitpid(fk, NULL, WNOHANG) == 0) {
		struct pollfd pfd = { .fd = proctree_fd(t), .events = POLLIN };
		uint64_t now = mono_now_ns();

		if (use_fd && pfd.fd >= 0 && now < next &&
		    poll(&pfd, 1, (int)((next - now) / NSEC_PER_MSEC) + 1) >
			    0) {
			poll_once(t, fk);
			continue;
		}
		sleep_until(next);
		next += period;
		poll_once(t, fk);
	}
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* This process's CPU time so far (the forker's not included), in ns. */
static uint64_t self_cpu_ns(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ((uint64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000 +
		(uint64_t)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec)) *
	       NSEC_PER_USEC;
}

/* The cost columns: CPU time of the polling per second of the run, and
 * the tree's counters per poll. */
static void print_cost(const struct proctree *t, uint64_t cpu_ns,
		       uint64_t wall_ns, unsigned long npolls)
{
	struct proctree_counters k;

	proctree_counters(t, &k);
	printf(" %7.2f %7.1f %7.1f %3llu\n", 100.0 * cpu_ns / wall_ns,
	       (double)k.events / npolls, (double)k.scans / npolls, k.resyncs);
}

static void print_row(const char *method, int ms, const struct child *c, int n)
{
	uint64_t *lat = calloc((size_t)n, sizeof(*lat));
	int found = 0, alive = 0;

	for (int i = 0; i < n && lat; i++) {
		if (!c[i].report_ns)
			continue;
		lat[found++] = c[i].report_ns - c[i].fork_ns;
		alive += !c[i].reap_ns || c[i].report_ns < c[i].reap_ns;
	}
	if (!lat)
		return;
	qsort(lat, (size_t)found, sizeof(*lat), cmp_u64);
	printf("%-10s %4d %5d %6.1f %6.1f", method, ms, n, 100.0 * found / n,
	       100.0 * alive / n);
	if (found)
		printf(" %8.2f %8.2f %8.2f", lat[found / 2] / 1e6,
		       lat[found * 9 / 10] / 1e6, lat[found - 1] / 1e6);
	else
		printf(" %8s %8s %8s", "-", "-", "-");
	free(lat);
}

/* One method, one lifetime.  0, or 77 when the method is refused. */
static int run_one(const char *method, int ms, const struct opts *o)
{
	size_t size = (size_t)o->n * sizeof(struct child);
	struct child *c = mmap(NULL, size, PROT_READ | PROT_WRITE,
			       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	int nl = strncmp(method, "netlink", 7) == 0, go[2];
	struct proctree *t = proctree_new(nl);
	uint64_t cpu0 = self_cpu_ns(), wall0 = mono_now_ns();

	polls = 0;
	pid_t fk;

	if (c == MAP_FAILED || !t || pipe(go))
		return 1;
	if (nl && proctree_method(t) != PROCTREE_NETLINK) {
		proctree_free(t);
		return 77;
	}
	fk = fork();
	if (fk == 0)
		forker(c, o->n, ms, o->busy, go[0]);
	close(go[0]);
	if (proctree_watch(t, fk))
		kill(fk, SIGKILL);
	poll_once(t, fk);
	(void)!write(go[1], "g", 1);
	close(go[1]);
	watch_run(t, fk, o->hz, strcmp(method, "netlink-fd") == 0);
	poll_once(t, fk);
	match(c, o->n);
	print_row(method, ms, c, o->n);
	print_cost(t, self_cpu_ns() - cpu0, mono_now_ns() - wall0, polls);
	proctree_free(t);
	munmap(c, size);
	return 0;
}

static int parse(int argc, char **argv, struct opts *o)
{
	int opt;

	while ((opt = getopt(argc, argv, "n:l:r:m:b")) != -1) {
		char *s, *tok;

		switch (opt) {
		case 'n':
			o->n = atoi(optarg);
			break;
		case 'r':
			o->hz = atoi(optarg);
			break;
		case 'm':
			o->methods = optarg;
			break;
		case 'b':
			o->busy = 1;
			break;
		case 'l':
			o->nlives = 0;
			for (s = optarg;
			     (tok = strtok(s, ",")) && o->nlives < 8; s = NULL)
				o->lives[o->nlives++] = atoi(tok);
			break;
		default:
			return -1;
		}
	}
	return o->n > 0 && o->hz > 0 && o->nlives > 0 ? 0 : -1;
}

int main(int argc, char **argv)
{
	struct opts o = { .n = 200,
			  .hz = 100,
			  .lives = { 5, 20, 50 },
			  .nlives = 3,
			  .methods = "netlink,netlink-fd,poll" };
	char methods[128], *s, *m;
	int rc = 0;

	if (parse(argc, argv, &o)) {
		fprintf(stderr, "usage: proctree_lat [-n N] [-l MS[,MS...]] "
				"[-r HZ] [-m METHODS] [-b]\n");
		return 2;
	}
	snprintf(methods, sizeof(methods), "%s", o.methods);
	printf("# method L_ms N found_pct alive_pct lat_p50_ms lat_p90_ms "
	       "lat_max_ms cpu_pct events/poll files/poll resyncs "
	       "(%d Hz, children %s)\n",
	       o.hz, o.busy ? "spinning" : "asleep");
	for (s = methods; (m = strtok(s, ",")) != NULL; s = NULL)
		for (int i = 0; i < o.nlives && rc != 1; i++) {
			int r = run_one(m, o.lives[i], &o);

			rc = r > rc ? r : rc;
			fflush(stdout);
		}
	return rc;
}
