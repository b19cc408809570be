/*
 * cmd_dump.c - ptprof dump: every thread's stack, once (cmds.h).
 *
 * One tick of the sampler in --wall mode: every thread is sampled once,
 * one asleep in the kernel read without a stop (peek.h: its stack
 * copied while it sleeps, so its epoll_wait() sees no EINTR), the others
 * stopped, their registers and stack copied, released, and each copy
 * unwound; the sampler hands each stack over with its TID
 * (sampler_config.on_stack).
 * Names and states are read from /proc just before, so the state is the
 * one the thread was in when it was stopped, not the trace stop itself.
 * Frames are symbolized from the maps read during the tick, with files
 * opened under /proc/PID/root (so a process in a container resolves).
 *
 * Several processes (-p A,B, --children) are dumped one after the other,
 * each by that same one-process path: the processes are listed first
 * (with --children, every descendant present now, parents before their
 * children), then each is stopped, printed under a header naming it and
 * let go before the next.  A process that cannot be dumped gets one line
 * on stderr and the others are still printed; the exit status is 1 when
 * a process named with -p was not dumped (a descendant that exited or is
 * refused is only reported), or when a signal ended the dump early.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unistd.h>

#include "cli/cli.h"
#include "cli/cmds.h"
#include "cli/dump.h"
#include "proc/kstack.h"
#include "proc/maps.h"
#include "proc/procfs.h"
#include "proc/proctree.h"
#include "profile/procset.h"
#include "profile/stacktab.h"
#include "python/pyframes.h"
#include "sampler/sampler.h"
#include "symbols/framename.h"
#include "symbols/symbolize.h"
#include "util/grow.h"
#include "util/textsafe.h"
#include "util/timeutil.h"
#include "wait/fdname.h"

/* How long the one capture waits for every thread's stop before those
 * not in yet are LATE (sampler_config.stop_window_ns): a LATE stop that
 * came while the others were unwound was let go without a stack, and on
 * a busy machine (the busy threads queued for a CPU) one thread in three
 * was printed "did not stop in time" (tests/chaos/refuse-strace.test).
 * Each thread is let go as soon as it is copied: a longer wait holds
 * none of them longer. */
#define DUMP_STOP_WINDOW_NS (500 * NSEC_PER_MSEC)

/* The exit status when threads wait on each other (ptprof-dump(1)): not
 * 1, a failure, nor 2, bad usage. */
#define DUMP_EXIT_DEADLOCK 3

static void on_stack(void *arg, const struct sample_origin *from,
		     const uint64_t *pcs, size_t n, uint64_t count)
{
	struct dump *d = arg;
	pid_t tid = from->tid;

	/* from->name: read from /proc before the capture, with the state */
	(void)count; /* one tick: 1 */

	for (size_t i = 0; i < d->n; i++) {
		struct dthread *t = &d->t[i];

		if (t->tid != tid || t->pcs)
			continue;
		t->pcs = malloc(n * sizeof(*pcs));
		if (t->pcs) {
			memcpy(t->pcs, pcs, n * sizeof(*pcs));
			t->n = n;
		}
		return;
	}
}

struct dprocs {
	struct dproc *p;
	size_t n, cap;
	size_t room; /* descendants that may still be added (the cap) */
	size_t over; /* descendants left out for the cap */
	struct proctree *tree; /* --children: the descendants found */
};

static struct dproc *find_proc(struct dprocs *l, pid_t pid)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->p[i].pid == pid)
			return &l->p[i];
	return NULL;
}

static void add_proc(struct dprocs *l, pid_t pid, pid_t ppid, bool named)
{
	struct dproc *np = grow_array(l->p, &l->cap, l->n + 1, sizeof(*np));

	if (!np)
		cli_die(EXIT_FAILURE, "out of memory");
	l->p = np;
	np = &l->p[l->n++];
	memset(np, 0, sizeof(*np));
	np->pid = pid;
	np->ppid = ppid;
	np->named = named;
	np->descendant = !named;
	if (procfs_comm(pid, 0, np->comm, sizeof(np->comm)))
		snprintf(np->comm, sizeof(np->comm), "?");
}

/* Add the descendants of parent among found (proctree's NEW events of
 * one tree), depth first (each after its parent, siblings in the order
 * /proc lists them), at most l->room of them.  ptprof itself (a child of
 * the shell that started it) is left out. */
static void add_found(struct dprocs *l, const struct proctree_event *found,
		      size_t n, pid_t parent)
{
	for (size_t i = 0; i < n; i++) {
		pid_t kid = found[i].pid;

		if (found[i].ppid != parent || kid == getpid() ||
		    find_proc(l, kid))
			continue;
		if (!l->room) {
			l->over++;
			continue;
		}
		l->room--;
		add_proc(l, kid, parent, false);
		add_found(l, found, n, kid);
	}
}

/* The descendants of pid present now, found by proctree (POLL: a scan
 * of /proc, parents before children); one found under an earlier -p
 * process is not found again. */
static void add_descendants(struct dprocs *l, pid_t pid)
{
	struct proctree_event ev[64], *found = NULL, *nf;
	size_t n = 0, cap = 0;
	int got;

	if (!l->tree && !(l->tree = proctree_new(false)) && errno == ENOTSUP)
		cli_die(EXIT_FAILURE,
			"cannot find the children of process %d: this kernel has no /proc/PID/task/TID/children (CONFIG_PROC_CHILDREN)",
			(int)pid);
	if (!l->tree)
		cli_die(EXIT_FAILURE, "out of memory");
	if (proctree_watch(l->tree, pid))
		return; /* gone */
	do {
		got = proctree_poll(l->tree, ev, sizeof(ev) / sizeof(*ev));
		for (int i = 0; i < got; i++) {
			if (ev[i].kind != PROCTREE_NEW)
				continue;
			nf = grow_array(found, &cap, n + 1, sizeof(*nf));
			if (!nf)
				cli_die(EXIT_FAILURE, "out of memory");
			found = nf;
			found[n++] = ev[i];
		}
	} while (got == (int)(sizeof(ev) / sizeof(*ev)));
	/* not read again at the next -p process's poll */
	proctree_forget(l->tree, pid);
	add_found(l, found, n, pid);
	free(found);
}

/* The processes to dump, in order: each -p process, with --children
 * followed by its descendants.  One named again as the descendant of an
 * earlier one is dumped once, where it was found first. */
static void list_processes(const struct options *o, struct dprocs *l)
{
	l->room = PROCSET_MAX_LIVE - o->npids;
	for (size_t i = 0; i < o->npids; i++) {
		struct dproc *p = find_proc(l, o->pids[i]);
		int ppid;

		if (p) {
			p->named = true;
			continue;
		}
		ppid = procfs_ppid(o->pids[i]);
		add_proc(l, o->pids[i], ppid > 0 ? ppid : 0, true);
		if (o->children)
			add_descendants(l, o->pids[i]);
	}
	proctree_free(l->tree);
	l->tree = NULL;
	if (l->over)
		cli_msg("warning: %zu descendant%s not dumped: at most %d processes are dumped at once",
			l->over, l->over == 1 ? "" : "s", PROCSET_MAX_LIVE);
}

/* The threads as /proc lists them now, with names and states. */
static int list_threads(pid_t pid, struct dump *d)
{
	struct tidlist tl = { 0 };

	if (procfs_list_tasks(pid, &tl))
		return -1;
	d->t = calloc(tl.n ? tl.n : 1, sizeof(*d->t));
	if (!d->t)
		cli_die(EXIT_FAILURE, "out of memory");
	for (size_t i = 0; i < tl.n; i++) {
		struct dthread *t = &d->t[d->n++];
		int st = procfs_task_name_state(pid, tl.tids[i], t->name,
						sizeof(t->name));

		t->tid = tl.tids[i];
		t->sysfd = -1;
		t->state = st > 0 ? st : '?';
		if (st <= 0)
			snprintf(t->name, sizeof(t->name), "?");
	}
	procfs_tidlist_free(&tl);
	return 0;
}

/* For a thread without a stack: held by another tracer, or gone. */
static void explain_no_stack(pid_t pid, struct dthread *t)
{
	int tracer;
	char comm[64] = "?";

	if (t->pcs)
		return;
	tracer = procfs_tracer_pid_of(pid, t->tid);
	if (tracer > 0 && tracer != (int)getpid()) {
		t->tracer = tracer;
		procfs_comm(tracer, 0, comm, sizeof(comm));
		snprintf(t->why, sizeof(t->why),
			 "no stack: traced by PID %d (%s)", tracer, comm);
	} else {
		snprintf(t->why, sizeof(t->why),
			 "no stack (it exited, or did not stop in time)");
	}
}

/* Why the capture of p failed, as one sentence (worded as ptprof's own
 * refusals, cli_check_target()). */
static void capture_failed(const struct dproc *p,
			   const struct sampler_stats *st, int err, char *why,
			   size_t len)
{
	char reason[512];

	if (st->seccomp_refused)
		cli_explain_seccomp(st, reason, sizeof(reason));
	else if (err == EPERM)
		cli_explain_refusal(p->pid, reason, sizeof(reason));
	if (st->seccomp_refused || err == EPERM)
		snprintf(why, len, "cannot trace process %d: %s", (int)p->pid,
			 reason);
	else if (err == ESRCH || err == ENOENT)
		snprintf(why, len,
			 "process %d exited before it could be stopped",
			 (int)p->pid);
	else
		snprintf(why, len, "cannot capture process %d: %s", (int)p->pid,
			 strerror(err));
}

/* Stop every thread of p once; their stacks land in d (on_stack).  0,
 * or -1 with why; *signalled when a stop signal came meanwhile. */
static int capture(const struct dproc *p, const struct options *o,
		   const sigset_t *stop, struct dump *d, struct procset *ps,
		   bool *signalled, char *why, size_t len)
{
	struct sampler_config cfg = { .pids = &p->pid,
				      .npids = 1,
				      .hz = 1,
				      .wall = true,
				      .no_peek = o->no_peek,
				      .unsafe_seccomp = o->unsafe_seccomp,
				      .duration_ns = NSEC_PER_MSEC,
				      .stop_window_ns = DUMP_STOP_WINDOW_NS,
				      .no_waits = true,
				      .stop_signals = stop,
				      .on_stack = on_stack,
				      .on_stack_arg = d,
				      .pyframes = d->py };
	struct stacktab *tab = stacktab_new(STACKTAB_MAX_DEPTH);
	struct sampler_stats st;
	int rc, err;

	if (!tab)
		cli_die(EXIT_FAILURE, "out of memory");
	rc = sampler_run(&cfg, tab, ps, &st);
	err = errno;
	stacktab_free(tab);
	*signalled = st.end == SAMPLER_END_SIGNAL;
	if (rc || st.end == SAMPLER_END_ERROR) {
		capture_failed(p, &st, err, why, len);
		return -1;
	}
	if (st.end == SAMPLER_END_TARGET_EXITED && !st.stacks) {
		capture_failed(p, &st, ESRCH, why, len);
		return -1;
	}
	for (size_t i = 0; i < d->n; i++)
		explain_no_stack(p->pid, &d->t[i]);
	return 0;
}

static struct symbolizer *symbolizer_for(pid_t pid, const struct maps *maps)
{
	char root[64];
	struct symbolizer *sym;

	snprintf(root, sizeof(root), "/proc/%d/root", (int)pid);
	sym = symbolizer_new_maps(maps, root, pid);
	if (!sym)
		cli_die(EXIT_FAILURE, "out of memory");
	return sym;
}

static void free_dump(struct dump *d)
{
	for (size_t k = 0; k < d->n; k++)
		dump_thread_free(&d->t[k]);
	free(d->t);
	free(d->kstacks);
	pyframes_free(d->py);
	memset(d, 0, sizeof(*d));
}

struct run {
	const struct options *o;
	sigset_t stop;
	struct json_doc json;
	size_t dumped;	/* processes printed */
	bool signalled; /* a stop signal came: no more processes */
	/* The text, held until every process is dumped: the deadlocks and
	 * chains found across them are printed first. */
	FILE *text;
	char *text_buf;
	size_t text_len;
	struct dump_waits *waits;
	bool kernel;	   /* read the kernel stacks */
	bool kernel_noted; /* the note that they cannot be was given */
};

/* The kernel stacks of p's blocked threads, read before its capture;
 * the one note when the kernel refused them, given once p was dumped
 * (a process that cannot be dumped gets its one line, no more). */
static int read_calls(struct run *r, const struct dproc *p, struct dump *d)
{
	return dump_wait_calls(d, p->pid, r->kernel);
}

static void note_kernel(struct run *r, const struct dproc *p, int denied)
{
	if (!denied || r->kernel_noted)
		return;
	r->kernel_noted = true;
	cli_msg("note: kernel stacks not shown: /proc/%d/task/TID/stack: %s (it needs CAP_SYS_ADMIN; --no-kernel hides this note)",
		(int)p->pid, strerror(denied));
}

/* Dump one process: 0 when printed, else -1 with why. */
static int dump_one(struct run *r, const struct dproc *p, char *why, size_t len)
{
	struct dump d = { 0 };
	struct procset *ps;
	struct symbolizer *sym;
	int rc = -1, denied;

	/* -p processes were checked before anything was touched */
	if (!p->named && cli_target_problem(p->pid, why, len))
		return -1;
	d.no_inline = r->o->no_inline;
	if (!r->o->no_python && !(d.py = pyframes_new(0)))
		cli_die(EXIT_FAILURE, "out of memory");
	if (list_threads(p->pid, &d)) {
		capture_failed(p, &(struct sampler_stats){ 0 }, errno, why,
			       len);
		return -1;
	}
	denied = read_calls(r, p, &d);
	ps = procset_new();
	if (!ps)
		cli_die(EXIT_FAILURE, "out of memory");
	if (capture(p, r->o, &r->stop, &d, ps, &r->signalled, why, len) == 0 &&
	    procset_count(ps)) {
		/* One process: its last image (an exec during the capture). */
		sym = symbolizer_for(p->pid, procset_find(ps, p->pid)->maps);
		dump_wait_describe(&d, p, sym, r->waits);
		note_kernel(r, p, denied);
		if (r->o->json)
			dump_print_json(&r->json, &d, sym, p);
		else
			dump_print_text(r->text, &d, sym, p, r->dumped == 0);
		symbolizer_free(sym);
		r->dumped++;
		rc = 0;
	}
	procset_free(ps);
	free_dump(&d);
	return rc;
}

int cmd_dump(const struct options *o)
{
	struct run r = { .o = o, .json.single = o->npids == 1 && !o->children };
	struct dprocs l = { 0 };
	bool named_missed = false;
	char why[768];
	size_t i, deadlocks;

	cli_check_targets(o);
	r.waits = dump_waits_new();
	r.kernel = o->kernel != OPTIONS_KERNEL_OFF;
	/* --kernel: refused at once when the kernel will not show them;
	 * by default, one note at the first refusal (read_calls()). */
	if (o->kernel == OPTIONS_KERNEL_ON && kstack_available(o->pids[0]))
		cli_die(EXIT_FAILURE,
			"--kernel: cannot read the kernel stacks of process %d (/proc/%d/task/TID/stack): %s (it needs CAP_SYS_ADMIN)",
			(int)o->pids[0], (int)o->pids[0], strerror(errno));
	if (!o->json && !(r.text = open_memstream(&r.text_buf, &r.text_len)))
		cli_die(EXIT_FAILURE, "out of memory");
	list_processes(o, &l);
	cli_raise_fd_limit();
	cli_block_stop_signals(&r.stop);
	for (i = 0; i < l.n && !r.signalled; i++) {
		if (dump_one(&r, &l.p[i], why, sizeof(why)) == 0)
			continue;
		/* one process: the message a one-process dump always gave */
		cli_msg("%s%s", l.n > 1 ? "not dumped: " : "", why);
		named_missed |= l.p[i].named;
	}
	if (i < l.n)
		cli_msg("interrupted: %zu of %zu processes not dumped", l.n - i,
			l.n);
	if (r.json.begun) {
		putchar(']');
		deadlocks = dump_waits_report(r.waits, stdout, true);
		puts("}");
	} else {
		deadlocks = dump_waits_report(r.waits, stdout, false);
	}
	if (r.text) {
		if (fclose(r.text))
			cli_die(EXIT_FAILURE, "out of memory");
		fwrite(r.text_buf, 1, r.text_len, stdout);
		free(r.text_buf);
	}
	dump_waits_free(r.waits);
	fdname_scan_release(); /* the shared scan of every fd link */
	if (fflush(stdout) || ferror(stdout))
		cli_die(EXIT_FAILURE, "cannot write the stacks: %s",
			strerror(errno));
	free(l.p);
	if (named_missed || i < l.n || !r.dumped)
		return EXIT_FAILURE;
	return deadlocks ? DUMP_EXIT_DEADLOCK : 0;
}
