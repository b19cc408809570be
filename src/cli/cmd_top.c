/*
 * cmd_top.c - ptprof top: the hottest functions of running processes,
 * live (cmds.h).
 *
 * The sampler runs as for ptprof -p (CPU mode, or --wall), with no
 * profile written: each stack it hands over (sampler_config.on_stack) is
 * queued as it comes, with the second it came in, and named between ticks
 * from the progress hook (called every TOP_POLL_NS, never while a thread
 * is held), for TOP_DRAIN_NS at most each time: naming a new address can
 * load a binary's symbols, which must not hold the next ticks for long.
 * Named stacks go into the live table (toptab.h: flat and cum by
 * function, since the start and over the window); names come from
 * livename.h, each (image, address) once.
 *
 * On a terminal (stdin and stdout both one) the view is drawn with
 * ncurses once a second, and the keys are taken at each poll; otherwise a
 * plain table (a header line, then rows) is printed every second on
 * stdout.  Either is rendered here into memory and written by a thread
 * of its own (topout.h): a terminal or a pipe that stops reading drops
 * frames (counted, in the header and at the end), never a tick, and a
 * stop signal ends the run at once whatever the output does.  `q` ends
 * the run the way Ctrl-C does: ptprof raises SIGINT at itself, a stop
 * signal the sampler reads between ticks, so the target is let go
 * exactly as at any other ending (no second way out of the sampler).  When the target exits the view says so and stays, with the
 * last table, until q or Ctrl-C; the plain table ends there.
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
#include "cli/options.h"
#include "cli/topout.h"
#include "proc/procfs.h"
#include "profile/procset.h"
#include "profile/stacktab.h"
#include "python/pyframes.h"
#include "report/livename.h"
#include "report/toptab.h"
#include "sampler/sampler.h"
#include "sampler/tselect.h"
#include "util/grow.h"
#include "util/textsafe.h"
#include "util/timeutil.h"

#define TOP_POLL_NS (100 * NSEC_PER_MSEC) /* keys read, queue drained */
#define TOP_DRAW_NS NSEC_PER_SEC	  /* the view redrawn */
#define TOP_MAX_FUNCS 16384		  /* toptab's caps */
#define TOP_MAX_THREADS 4096
#define TOP_QUEUE_STACKS 65536 /* stacks waiting for names */
#define TOP_QUEUE_PCS (1u << 20)
#define TOP_PLAIN_ROWS 20
#define TOP_TAB_STACKS 4096 /* the sampler's table, emptied past it */
#define TOP_MAX_ROWS 512
#define TOP_MIN_COLS 40 /* smaller: "terminal too small" */
#define TOP_MIN_LINES 6
#define TOP_WIDE_COLS 80      /* narrower: no since-the-start columns */
#define TOP_END_BOUND_MS 1000 /* the last frame after a stop signal */

/* A stack waiting for its names. */
struct pending {
	const struct proc_image *im;
	pid_t tid;
	uint32_t n;
	size_t off; /* its first PC in queue.pcs */
	uint64_t count, sec;
	char tname[16];
};

struct queue {
	struct pending *v;
	size_t n, cap, head; /* v[head..n) wait */
	uint64_t *pcs;
	size_t npcs, pcs_cap;
	uint64_t dropped; /* stacks dropped: the queue was full */
};

/* What the header shows, as the sampler last said. */
struct figures {
	uint64_t elapsed_ns, missed, threads;
	uint64_t pause_total_ns, pause_p99_ns;
	size_t procs;
};

struct top {
	const struct options *o;
	struct procset *ps;
	struct pyframes *py;
	struct toptab *tab;
	struct livename *names;
	struct queue q;
	struct topout *out; /* the frames' writer */
	uint32_t *fids;	    /* max_depth * LIVENAME_MAX_FRAMES ids */
	uint64_t start_ns, polled_at, drawn_at, drain_ns;
	struct figures fig;
	/* the view */
	bool tty;	/* ncurses is drawing */
	bool plain_out; /* the plain table, on stdout */
	bool threads;	/* by thread, not by function */
	bool by_window; /* sorted over the window (else since start) */
	bool paused;	/* the display frozen, sampling going on */
	bool quitting;	/* q pressed: SIGINT raised */
	enum toptab_sort by;
	unsigned window;
	const char *ended; /* why sampling ended, when it did */
	char comm[16];	   /* the first process's name, as last sampled */
	int write_errno;   /* the plain table could not be written */
	int lines, cols;   /* the view's size, as last rendered */
};

static uint64_t now_sec(const struct top *t)
{
	return (mono_now_ns() - t->start_ns) / NSEC_PER_SEC;
}

/* ---- the queue: stacks as they come, named between ticks ---- */

static void on_stack(void *arg, const struct sample_origin *from,
		     const uint64_t *pcs, size_t n, uint64_t count)
{
	struct top *t = arg;
	struct queue *q = &t->q;
	struct pending *np, *p;
	uint64_t *npc;

	if (!n || !count)
		return;
	/* the header names the first process as it is now: an exec (a
	 * shell's "exec prog", a server re-executing itself) renames it */
	if (from->image && from->image->pid == t->o->pids[0] &&
	    from->image->comm[0] &&
	    strncmp(t->comm, from->image->comm, sizeof(t->comm)))
		snprintf(t->comm, sizeof(t->comm), "%s", from->image->comm);
	if (q->n - q->head >= TOP_QUEUE_STACKS || q->npcs + n > TOP_QUEUE_PCS) {
		q->dropped++;
		return;
	}
	np = grow_array(q->v, &q->cap, q->n + 1, sizeof(*np));
	if (np)
		q->v = np;
	npc = grow_array(q->pcs, &q->pcs_cap, q->npcs + n, sizeof(*npc));
	if (npc)
		q->pcs = npc;
	if (!np || !npc) {
		q->dropped++;
		return;
	}
	p = &q->v[q->n++];
	p->im = from->image;
	p->tid = from->tid;
	p->n = (uint32_t)n;
	p->off = q->npcs;
	p->count = count;
	p->sec = now_sec(t);
	snprintf(p->tname, sizeof(p->tname), "%s",
		 from->name ? from->name : "");
	memcpy(q->pcs + q->npcs, pcs, n * sizeof(*pcs));
	q->npcs += n;
}

/* One stack named and counted. */
static void count_stack(struct top *t, const struct pending *p)
{
	const uint64_t *pcs = t->q.pcs + p->off;
	const char *names[LIVENAME_MAX_FRAMES], *modules[LIVENAME_MAX_FRAMES];
	size_t n = 0;

	/* leaf first; a PC names an inlined function's frame too */
	for (size_t i = 0; i < p->n; i++) {
		int k = livename_frames(t->names, p->im, pcs[i], i > 0, names,
					modules, LIVENAME_MAX_FRAMES);

		for (int j = 0; j < k; j++) {
			int64_t id = toptab_intern(t->tab, names[j],
						   modules[j]);

			if (id < 0)
				return; /* out of memory: left out */
			t->fids[n++] = (uint32_t)id;
		}
		if (k < 0)
			return;
	}
	toptab_add(t->tab, p->sec, t->fids, n, p->count, p->im->pid, p->tid,
		   p->tname);
}

/* Name queued stacks until the budget (ns, 0: none) is spent. */
static void drain(struct top *t, uint64_t budget)
{
	struct queue *q = &t->q;
	uint64_t until = mono_now_ns() + budget;

	while (q->head < q->n) {
		count_stack(t, &q->v[q->head++]);
		if (budget && mono_now_ns() >= until)
			break;
	}
	if (q->head == q->n) {
		q->head = q->n = q->npcs = 0;
	} else if (q->head > q->n / 2) {
		/* The waiting ones to the front, their PCs too. */
		size_t first = q->v[q->head].off;

		for (size_t i = q->head; i < q->n; i++)
			q->v[i].off -= first;
		memmove(q->pcs, q->pcs + first,
			(q->npcs - first) * sizeof(*q->pcs));
		q->npcs -= first;
		memmove(q->v, q->v + q->head, (q->n - q->head) * sizeof(*q->v));
		q->n -= q->head;
		q->head = 0;
	}
	toptab_advance(t->tab, now_sec(t));
}

/* ---- what the header says ---- */

static void take_figures(struct top *t, const struct sampler_stats *st)
{
	struct figures *f = &t->fig;

	f->elapsed_ns = st->elapsed_ns;
	f->missed = st->missed_ticks;
	f->threads = st->threads_seen;
	f->pause_total_ns = st->pause_total_ns;
	f->pause_p99_ns = sampler_pause_quantile(st, 0.99);
	f->procs = procset_sampled_pids(t->ps);
}

static double pct(uint64_t part, uint64_t total)
{
	return total ? 100.0 * (double)part / (double)total : 0.0;
}

/* The two header lines, each into its buffer. */
static void header_text(const struct top *t, char *l1, size_t n1, char *l2,
			size_t n2)
{
	const struct figures *f = &t->fig;
	char who[160], comm[sizeof(t->comm) * 4], drops[64] = "";
	uint64_t posted = 0, dropped = 0;

	textsafe_str(comm, sizeof(comm), t->comm);
	if (t->o->npids > 1)
		snprintf(who, sizeof(who), "PID %d (%s) and %zu more",
			 (int)t->o->pids[0], comm, t->o->npids - 1);
	else
		snprintf(who, sizeof(who), "PID %d (%s)", (int)t->o->pids[0],
			 comm);
	snprintf(l1, n1,
		 "ptprof top: %s, %u Hz %s, %.0f s; %zu process%s, %llu "
		 "thread%s sampled",
		 who, t->o->hz, t->o->wall ? "wall" : "cpu",
		 (double)f->elapsed_ns / NSEC_PER_SEC, f->procs,
		 f->procs == 1 ? "" : "es", (unsigned long long)f->threads,
		 f->threads == 1 ? "" : "s");
	if (t->out)
		topout_counts(t->out, &posted, &dropped);
	if (dropped)
		snprintf(drops, sizeof(drops),
			 "; frames dropped %llu (output not read)",
			 (unsigned long long)dropped);
	snprintf(l2, n2,
		 "samples %llu (last %u s: %llu); missed ticks %llu; pause "
		 "%.2f%%, p99 %llu us%s%s",
		 (unsigned long long)toptab_total(t->tab, 0), t->window,
		 (unsigned long long)toptab_total(t->tab, t->window),
		 (unsigned long long)f->missed,
		 pct(f->pause_total_ns, f->elapsed_ns),
		 (unsigned long long)(f->pause_p99_ns / NSEC_PER_USEC), drops,
		 t->q.dropped ? "; stacks dropped (naming behind)" : "");
}

/* "name [module]", escaped (the target chooses its names). */
static void row_name(const char *name, const char *module, char *buf,
		     size_t len)
{
	char n[1024], m[256];

	textsafe_str(n, sizeof(n), name);
	if (module) {
		/* "[vdso]" stays as it is, as the report writes it */
		textsafe_str(m, sizeof(m), module);
		snprintf(buf, len, module[0] == '[' ? "%s %s" : "%s [%s]", n,
			 m);
	} else {
		snprintf(buf, len, "%s", n);
	}
}

/* ---- the plain table (stdout not a terminal) ---- */

/* The plain table into memory, handed to the writer (topout.h). */
static void plain_table(struct top *t)
{
	struct toptab_row rows[TOP_MAX_ROWS];
	size_t max = t->o->top ? t->o->top : TOP_PLAIN_ROWS;
	uint64_t wtotal = toptab_total(t->tab, t->window);
	char l1[256], l2[256], name[1400];
	struct topout_frame *f = topout_frame_new();
	size_t n;
	int bad = !f;

	if (max > TOP_MAX_ROWS)
		max = TOP_MAX_ROWS;
	n = toptab_rows(t->tab, t->window, TOPTAB_BY_FLAT, true, rows, max);
	header_text(t, l1, sizeof(l1), l2, sizeof(l2));
	if (f)
		bad |= topout_line(f, TOPOUT_NORMAL, "%s; %s", l1, l2);
	if (f)
		bad |= topout_line(f, TOPOUT_NORMAL, "%8s %6s %8s %6s  %s",
				   "flat", "flat%", "cum", "cum%",
				   "function [module]");
	for (size_t i = 0; f && i < n && n != (size_t)-1; i++) {
		row_name(rows[i].name, rows[i].module, name, sizeof(name));
		bad |= topout_line(f, TOPOUT_NORMAL,
				   "%8" PRIu64 " %5.1f%% %8" PRIu64
				   " %5.1f%%  %s",
				   rows[i].wflat, pct(rows[i].wflat, wtotal),
				   rows[i].wcum, pct(rows[i].wcum, wtotal),
				   name);
	}
	if (bad) {
		topout_frame_free(f);
		errno = ENOMEM;
	} else if (topout_post(t->out, f) == 0) {
		return;
	}
	if (!t->write_errno)
		t->write_errno = errno ? errno : ENOMEM;
	/* No one reads the table (EPIPE), or no memory: end the run as a
	 * stop signal would (see the top of this file). */
	raise(SIGTERM);
}

/* ---- the terminal view (its lines; topout.c draws them) ---- */

static int draw_functions(struct top *t, struct topout_frame *f, int y)
{
	struct toptab_row rows[TOP_MAX_ROWS];
	int max = t->lines - y - 1, bad = 0;
	bool wide = t->cols >= TOP_WIDE_COLS;
	uint64_t wtotal = toptab_total(t->tab, t->window);
	uint64_t total = toptab_total(t->tab, 0);
	char name[1400];
	size_t n;

	if (max > TOP_MAX_ROWS)
		max = TOP_MAX_ROWS;
	n = toptab_rows(t->tab, t->window, t->by, t->by_window, rows,
			max > 0 ? (size_t)max : 0);
	bad |= topout_line(f, TOPOUT_REVERSE, "%8s %6s %8s %6s%s  %s", "flat",
			   "flat%", "cum", "cum%",
			   wide ? "  all:flat%  cum%" : "",
			   "function [module]");
	for (size_t i = 0; i < n && n != (size_t)-1; i++) {
		char all[32] = "";

		row_name(rows[i].name, rows[i].module, name, sizeof(name));
		if (wide)
			snprintf(all, sizeof(all), "     %5.1f%% %5.1f%%",
				 pct(rows[i].flat, total),
				 pct(rows[i].cum, total));
		bad |= topout_line(f, TOPOUT_NORMAL,
				   "%8" PRIu64 " %5.1f%% %8" PRIu64
				   " %5.1f%%%s  %s",
				   rows[i].wflat, pct(rows[i].wflat, wtotal),
				   rows[i].wcum, pct(rows[i].wcum, wtotal), all,
				   name);
	}
	return bad;
}

static int draw_threads(struct top *t, struct topout_frame *f, int y)
{
	struct toptab_thread th[TOP_MAX_ROWS];
	int max = t->lines - y - 1, bad = 0;
	uint64_t wtotal = toptab_total(t->tab, t->window);
	char name[64], leaf[1024];
	size_t n;

	if (max > TOP_MAX_ROWS)
		max = TOP_MAX_ROWS;
	n = toptab_threads(t->tab, t->window, t->by_window, th,
			   max > 0 ? (size_t)max : 0);
	bad |= topout_line(f, TOPOUT_REVERSE, "%8s %6s %8s %7s %7s  %-16s %s",
			   "samples", "%", "all", "PID", "TID", "name",
			   "last leaf");
	for (size_t i = 0; i < n && n != (size_t)-1; i++) {
		textsafe_str(name, sizeof(name), th[i].name);
		textsafe_str(leaf, sizeof(leaf), th[i].last_leaf);
		bad |= topout_line(f, TOPOUT_NORMAL,
				   "%8" PRIu64 " %5.1f%% %8" PRIu64
				   " %7d %7d  %-16s %s",
				   th[i].wsamples, pct(th[i].wsamples, wtotal),
				   th[i].samples, (int)th[i].pid,
				   (int)th[i].tid, name, leaf);
	}
	return bad;
}

/* The keys and the state of the view, on line 2. */
static int draw_status(const struct top *t, struct topout_frame *f)
{
	char basis[32] = "since the start";

	if (t->by_window)
		snprintf(basis, sizeof(basis), "last %u s", t->window);
	return topout_line(f, TOPOUT_NORMAL,
			   "%s by %s, %s%s  keys: f flat, c cum, a window/all, "
			   "w window, t threads, space pause, q quit",
			   t->threads ? "threads" : "functions",
			   t->threads		  ? "samples" :
			   t->by == TOPTAB_BY_CUM ? "cum" :
						    "flat",
			   basis, t->paused ? " (PAUSED)" : "");
}

/* The view, as the terminal's size last was, handed to the writer: a
 * terminal that takes nothing drops it (topout.h), and a frame that
 * cannot be made for want of memory is left out. */
static void draw(struct top *t)
{
	char l1[512], l2[512];
	struct topout_frame *f = topout_frame_new();
	int bad = !f;

	t->drawn_at = mono_now_ns();
	if (!f)
		return;
	topout_size(t->out, &t->lines, &t->cols);
	if (t->cols < TOP_MIN_COLS || t->lines < TOP_MIN_LINES) {
		bad |= topout_line(f, TOPOUT_WRAP,
				   "terminal too small (%dx%d): ptprof top "
				   "needs %dx%d; q quits",
				   t->cols, t->lines, TOP_MIN_COLS,
				   TOP_MIN_LINES);
	} else {
		header_text(t, l1, sizeof(l1), l2, sizeof(l2));
		bad |= topout_line(f, TOPOUT_BOLD, "%s", l1);
		bad |= topout_line(f, TOPOUT_NORMAL, "%s", l2);
		bad |= draw_status(t, f);
		if (t->ended)
			bad |= topout_line(f, TOPOUT_BOLD,
					   "%s: the table as it was; q quits",
					   t->ended);
		else
			bad |= topout_line(f, TOPOUT_NORMAL, "%s", "");
		if (t->threads)
			bad |= draw_threads(t, f, 4);
		else
			bad |= draw_functions(t, f, 4);
	}
	if (bad)
		topout_frame_free(f);
	else
		topout_post(t->out, f);
}

static const unsigned windows[] = { 5, 10, 30, 60 };

static unsigned next_window(unsigned w)
{
	for (size_t i = 0; i < sizeof(windows) / sizeof(*windows); i++)
		if (windows[i] > w)
			return windows[i];
	return windows[0];
}

/* One key: whether the view changed (q: quitting).  Others are ignored. */
static bool take_key(struct top *t, int ch)
{
	switch (ch) {
	case 'q':
	case 'Q':
		t->quitting = true;
		return false;
	case 'f':
		t->by = TOPTAB_BY_FLAT;
		t->threads = false;
		return true;
	case 'c':
		t->by = TOPTAB_BY_CUM;
		t->threads = false;
		return true;
	case 'a':
		t->by_window = !t->by_window;
		return true;
	case 'w':
		t->window = next_window(t->window);
		return true;
	case 't':
		t->threads = !t->threads;
		return true;
	case ' ':
	case 'p':
		t->paused = !t->paused;
		return true;
	case TOPOUT_KEY_RESIZE:
		return true;
	default:
		return false;
	}
}

/* The keys typed since the last poll; the view drawn anew when one
 * changed it (a paused view too: paused, it is only not refreshed by
 * itself). */
static void read_keys(struct top *t)
{
	int keys[TOPOUT_MAX_KEYS];
	size_t n = topout_keys(t->out, keys, TOPOUT_MAX_KEYS);
	bool changed = false;

	for (size_t i = 0; i < n; i++)
		changed |= take_key(t, keys[i]);
	if (changed)
		draw(t);
}

/* ---- the sampler's hook ---- */

static void progress(void *arg, const struct sampler_stats *st)
{
	struct top *t = arg;
	uint64_t now = mono_now_ns();

	drain(t, t->drain_ns);
	if (!t->tty && !t->write_errno && topout_error(t->out)) {
		/* the writer's write failed (EPIPE: no one reads) */
		t->write_errno = topout_error(t->out);
		raise(SIGTERM);
		return;
	}
	if (t->tty) {
		read_keys(t);
		if (t->quitting) {
			raise(SIGINT); /* ends the run between ticks */
			return;
		}
	}
	if (now - t->drawn_at < TOP_DRAW_NS)
		return;
	take_figures(t, st);
	if (t->tty && !t->paused)
		draw(t);
	else if (t->tty)
		t->drawn_at = now;
	else
		plain_table(t), t->drawn_at = now;
}

/* ---- the run ---- */

/* The sampler's own table of stacks is not used (toptab counts them):
 * emptied as it fills, so that it stays bounded over hours. */
static int forget_stacks(void *arg)
{
	stacktab_clear(arg);
	return 0;
}

/* The time naming may take per poll: half a period (2 ms at least, 20
 * at most), so that a queue full of known addresses costs no tick. */
static uint64_t drain_budget(unsigned hz)
{
	uint64_t half = NSEC_PER_SEC / (hz ? hz : 100) / 2;

	if (half < 2 * NSEC_PER_MSEC)
		return 2 * NSEC_PER_MSEC;
	return half > 20 * NSEC_PER_MSEC ? 20 * NSEC_PER_MSEC : half;
}

/* The view on the terminal (topout.c), or NULL: the plain table (no
 * terminal, or one ncurses does not know: said). */
static bool start_view(struct top *t)
{
	t->out = topout_start(TOPOUT_VIEW, STDOUT_FILENO);
	if (t->out) {
		t->tty = true;
		return true;
	}
	if (errno == ENOENT)
		cli_msg("warning: the terminal '%s' is unknown: printing a "
			"plain table",
			getenv("TERM") ? getenv("TERM") : "");
	else if (errno != ENOTTY)
		cli_die(EXIT_FAILURE, "cannot start the view: %s",
			strerror(errno));
	return false;
}

/* The frames dropped, said once at the end, with how the run ended. */
static int say_dropped(const struct top *t, bool tty, bool stuck, bool at_once)
{
	uint64_t posted, dropped;
	const char *what = tty ? "screen refreshes" : "tables";

	topout_counts(t->out, &posted, &dropped);
	if (!tty && stuck && !at_once) {
		cli_msg("cannot write the table: its reader was not reading "
			"at the end of the run; %llu of %llu tables dropped",
			(unsigned long long)dropped,
			(unsigned long long)posted);
		return EXIT_FAILURE;
	}
	/* a stuck terminal is likely stderr's too: not waited for */
	if (dropped && !(stuck && isatty(STDERR_FILENO)))
		cli_msg("%llu of %llu %s dropped: the output was not read",
			(unsigned long long)dropped, (unsigned long long)posted,
			what);
	return 0;
}

static void init_top(struct top *t, const struct options *o)
{
	memset(t, 0, sizeof(*t));
	t->o = o;
	t->window = o->top_window ? o->top_window : 10;
	t->by = TOPTAB_BY_FLAT;
	t->by_window = true;
	t->threads = o->thread_view;
	t->drain_ns = drain_budget(o->hz);
	if (procfs_comm(o->pids[0], 0, t->comm, sizeof(t->comm)))
		snprintf(t->comm, sizeof(t->comm), "?");
	t->ps = procset_new();
	t->tab = toptab_new(TOP_MAX_FUNCS, TOP_MAX_THREADS);
	t->fids = calloc((o->max_depth ? o->max_depth : STACKTAB_MAX_DEPTH) *
				 (size_t)LIVENAME_MAX_FRAMES,
			 sizeof(*t->fids));
	if (!o->no_python)
		t->py = pyframes_new(0);
	if (t->ps)
		t->names = livename_new(t->ps, t->py);
	if (t->names && o->no_inline)
		livename_no_inline(t->names);
	if (!t->ps || !t->tab || !t->fids || !t->names ||
	    (!o->no_python && !t->py))
		cli_die(EXIT_FAILURE, "out of memory");
}

static void free_top(struct top *t)
{
	livename_free(t->names);
	toptab_free(t->tab);
	pyframes_free(t->py);
	procset_free(t->ps);
	free(t->q.v);
	free(t->q.pcs);
	free(t->fids);
	topout_free(t->out);
}

/* After the target exited, on a terminal: the last table stays, the keys
 * still work, until q or a stop signal. */
static void linger(struct top *t, const sigset_t *stop)
{
	const struct timespec step = { 0, TOP_POLL_NS };

	t->paused = false;
	draw(t);
	while (!t->quitting) {
		if (sigtimedwait(stop, NULL, &step) > 0)
			break;
		read_keys(t);
	}
}

/* What ended the run, for the view. */
static const char *ended_text(const struct sampler_stats *st)
{
	switch (st->end) {
	case SAMPLER_END_TARGET_EXITED:
		return "the target exited";
	case SAMPLER_END_DURATION:
		return "the duration (-d) was reached";
	case SAMPLER_END_SIGNAL:
	case SAMPLER_END_ERROR:
		break;
	}
	return NULL;
}

int cmd_top(const struct options *o)
{
	struct sampler_config cfg = { .want_names = true,
				      .on_stack = on_stack,
				      .progress = progress,
				      .progress_ns = TOP_POLL_NS,
				      .spill = forget_stacks,
				      .spill_at = TOP_TAB_STACKS };
	struct stacktab *tab = stacktab_new(o->max_depth);
	struct sampler_stats st;
	struct tselect sel;
	struct top t;
	sigset_t stop;
	int failed, rc = 0;
	bool tty, stuck, at_once;

	cli_sampler_config(o, &cfg);
	cli_check_targets(o);
	cli_select_threads(o, &sel, &cfg);
	init_top(&t, o);
	if (!tab)
		cli_die(EXIT_FAILURE, "out of memory");
	cfg.on_stack_arg = cfg.progress_arg = &t;
	cfg.spill_arg = tab;
	cfg.pyframes = t.py;
	cli_block_stop_signals(&stop);
	cfg.stop_signals = &stop;
	cli_raise_fd_limit();
	tty = start_view(&t);
	if (!tty) {
		signal(SIGPIPE, SIG_IGN); /* a closed pipe: EPIPE, below */
		t.out = topout_start(TOPOUT_PLAIN, STDOUT_FILENO);
		if (!t.out)
			cli_die(EXIT_FAILURE,
				"cannot start the table's writer: %s",
				strerror(errno));
	}
	/* The plain table's first after a second (one at once would have
	 * a tick or two); the view is drawn at once, then every second. */
	t.start_ns = mono_now_ns();
	if (!tty)
		t.drawn_at = t.start_ns;
	failed = sampler_run(&cfg, tab, t.ps, &st);
	drain(&t, 0);
	take_figures(&t, &st);
	t.ended = ended_text(&st);
	if (!failed && t.tty && st.end == SAMPLER_END_TARGET_EXITED &&
	    !t.quitting)
		linger(&t, &stop);
	else if (!failed && !t.tty && !t.write_errno)
		plain_table(&t);
	/* After a stop signal (q among them) the last frame is waited for
	 * a second at most, as the view's (endwin() clears it): the run is
	 * to end at once.  A stop signal while it waits ends the wait. */
	at_once = failed || st.end == SAMPLER_END_SIGNAL || t.quitting || t.tty;
	stuck = topout_finish(t.out,
			      at_once ? TOP_END_BOUND_MS : CLI_WRITE_BOUND_MS,
			      &stop) != 0;
	if (stuck && errno == EINTR)
		at_once = true;
	if (failed) {
		cli_sampling_failed(&cfg, &st);
		rc = EXIT_FAILURE;
	}
	if (!failed && !tty && st.end == SAMPLER_END_TARGET_EXITED)
		cli_msg("the target exited");
	if (t.write_errno && t.write_errno != EPIPE) {
		cli_msg("cannot write the table: %s", strerror(t.write_errno));
		rc = EXIT_FAILURE;
	} else if (!t.write_errno && say_dropped(&t, tty, stuck, at_once)) {
		rc = EXIT_FAILURE;
	}
	cli_warn_seccomp(&st);
	tselect_free(&sel);
	stacktab_free(tab);
	free_top(&t);
	return rc;
}
