/*
 * dump_wait.c - ptprof dump's waits (dump.h): each blocked thread's
 * system call read before the capture, decoded after it (wait layer),
 * its holder named; across every process dumped, the deadlocks (cycles
 * of lock waits, waitgraph.h) and the chains, printed before the
 * stacks (or as the JSON document's "deadlocks" and "chains").
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/dump.h"
#include "proc/procfs.h"
#include "util/grow.h"
#include "util/textsafe.h"
#include "wait/waitdesc.h"
#include "wait/waitgraph.h"

/* The frames a hint is looked for in (the glibc entry is within the
 * innermost few: __futex_abstimed_wait_common, __lll_lock_wait,
 * pthread_mutex_lock) and the frames a deadlock shows of each thread. */
#define HINT_FRAMES 8
#define SHORT_FRAMES 6

struct wnode {
	char pname[64]; /* its process's name */
	char name[64];	/* the thread's */
	char *text;	/* its wait, holder named; NULL: none */
	char *frames;	/* "f0 <- f1 <- ...", or NULL */
	enum wait_kind kind;
	uint64_t addr;
};

struct dump_waits {
	struct waitgraph_node *g;
	struct wnode *v;
	size_t n, cap, gcap;
};

struct dump_waits *dump_waits_new(void)
{
	struct dump_waits *w = calloc(1, sizeof(*w));

	if (!w)
		cli_die(EXIT_FAILURE, "out of memory");
	return w;
}

void dump_waits_free(struct dump_waits *w)
{
	if (!w)
		return;
	for (size_t i = 0; i < w->n; i++) {
		free(w->v[i].text);
		free(w->v[i].frames);
	}
	free(w->v);
	free(w->g);
	free(w);
}

void dump_thread_free(struct dthread *t)
{
	free(t->pcs);
	free(t->wait);
	if (t->sysfd >= 0)
		close(t->sysfd);
	t->sysfd = -1;
	t->pcs = NULL;
	t->wait = NULL;
	t->kst = NULL;
}

int dump_wait_calls(struct dump *d, pid_t pid, bool kernel)
{
	int denied = 0;

	if (kernel && d->n && !(d->kstacks = calloc(d->n, sizeof(*d->kstacks))))
		cli_die(EXIT_FAILURE, "out of memory");
	for (size_t i = 0; i < d->n; i++) {
		struct dthread *t = &d->t[i];

		/* The call it is in as its stack is taken: the wait read
		 * after the capture is believed to go with this stack only
		 * if it is the same call (dump_wait_describe()).  The file
		 * stays open for those reads (t->sysfd): a seq file, each
		 * pread() at 0 prints it anew, and an fd opened on this
		 * task reads ESRCH once it is gone, never another task
		 * that took its TID. */
		t->has_before = peek_read_syscall(pid, t->tid, &t->sysfd,
						  &t->before) == 1 &&
				t->before.nr >= 0;
		/* A running thread's kernel stack is not its wait (and the
		 * kernel does not take it: kstack.h). */
		if (!kernel || t->state == 'R')
			continue;
		if (kstack_read(pid, t->tid, &d->kstacks[i]) == 0 &&
		    d->kstacks[i].n) {
			t->kst = &d->kstacks[i];
			continue;
		}
		if (errno == EACCES || errno == EPERM)
			denied = errno;
	}
	return denied;
}

/* Only a futex wait, or a call the kernel resumed after a stop
 * (restart_syscall), is told apart by its stack: the others are not
 * worth symbolizing 8 frames of each of 200 sleeping threads. */
static bool wants_hint(int64_t nr)
{
	return nr == SYS_futex || nr == SYS_restart_syscall;
}

/* The innermost glibc entry of t's stack that says what a futex is. */
static enum wait_hint hint_of(struct symbolizer *sym, const struct dump *d,
			      const struct dthread *t)
{
	enum wait_hint h = WAIT_HINT_NONE;

	for (size_t i = 0; t->pcs && i < t->n && i < HINT_FRAMES && !h; i++) {
		struct dump_frame fr;

		dump_frame_at(sym, d->py, t, i, &fr);
		h = wait_hint_of(fr.func);
		framename_done(&fr.name);
	}
	return h;
}

/* "f0 <- f1 <- ..." of t's innermost frames (names escaped), or NULL. */
static char *short_frames(struct symbolizer *sym, const struct dump *d,
			  const struct dthread *t)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	if (!t->pcs || !t->n)
		return NULL;
	f = open_memstream(&text, &len);
	if (!f)
		cli_die(EXIT_FAILURE, "out of memory");
	for (size_t i = 0; i < t->n && i < SHORT_FRAMES; i++) {
		struct dump_frame fr;

		dump_frame_at(sym, d->py, t, i, &fr);
		fprintf(f, "%s%s", i ? " <- " : "",
			fr.func	  ? fr.func :
			fr.module ? fr.module :
				    "??");
		framename_done(&fr.name);
	}
	if (t->n > SHORT_FRAMES)
		fputs(" <- ...", f);
	if (fclose(f))
		cli_die(EXIT_FAILURE, "out of memory");
	return text;
}

static const struct dthread *find_thread(const struct dump *d, pid_t tid)
{
	for (size_t i = 0; i < d->n; i++)
		if (d->t[i].tid == tid)
			return &d->t[i];
	return NULL;
}

/* "... thread 4242 ..." of the wait's text made "... thread 4242
 * (name) state S ...": the holder named where the text names it (or at
 * the end), within the text's size. */
static void name_holder(struct wait_info *w, const struct dthread *h)
{
	char at[32], out[sizeof(w->text)];
	const char *p;
	size_t cut;

	/* "held by thread N itself (self-deadlock)": the name only */
	snprintf(at, sizeof(at), "thread %d", (int)h->tid);
	p = strstr(w->text, at);
	if (p && !strncmp(p + strlen(at), " itself", 7)) {
		snprintf(out, sizeof(out), "%.*s (%s)%s",
			 (int)(p - w->text + strlen(at)), w->text, h->name,
			 p + strlen(at));
		memcpy(w->text, out, sizeof(out));
		return;
	}
	cut = p ? (size_t)(p - w->text) + strlen(at) : strlen(w->text);
	snprintf(out, sizeof(out), "%.*s (%s) state %c%s", (int)cut, w->text,
		 h->name, h->state, w->text + cut);
	memcpy(w->text, out, sizeof(out));
}

/* The waits whose holder is a thread that must let go of something. */
static bool holds_edge(enum wait_kind k)
{
	return k == WAIT_MUTEX || k == WAIT_RWLOCK || k == WAIT_JOIN;
}

static void add_node(struct dump_waits *w, const struct dproc *p,
		     const struct dthread *t, char *frames)
{
	struct waitgraph_node *g;
	struct wnode *v;
	size_t cap = w->cap;

	g = grow_array(w->g, &w->gcap, w->n + 1, sizeof(*g));
	if (!g)
		cli_die(EXIT_FAILURE, "out of memory");
	w->g = g;
	v = grow_array(w->v, &cap, w->n + 1, sizeof(*v));
	if (!v)
		cli_die(EXIT_FAILURE, "out of memory");
	w->v = v;
	w->cap = cap;
	g = &w->g[w->n];
	v = &w->v[w->n++];
	memset(v, 0, sizeof(*v));
	g->pid = p->pid;
	g->tid = t->tid;
	g->holder = t->wait && holds_edge(t->wait->kind) ? t->wait->holder : 0;
	snprintf(v->pname, sizeof(v->pname), "%s", p->comm);
	snprintf(v->name, sizeof(v->name), "%s", t->name);
	v->frames = frames;
	if (t->wait && t->wait->kind != WAIT_NONE) {
		v->kind = t->wait->kind;
		v->addr = t->wait->addr;
		v->text = strdup(t->wait->text);
		if (!v->text)
			cli_die(EXIT_FAILURE, "out of memory");
	}
}

/* Its run count and CPU time now; false when they cannot be told (no
 * schedstat, or the kernel keeps none: "0 0 0"). */
static bool run_marks(pid_t pid, pid_t tid, int *fd, uint64_t *runs,
		      uint64_t *ns)
{
	int rc = procfs_read_schedstat(pid, tid, fd, ns, runs);

	return rc == 0 && (*runs || *ns);
}

static bool same_call(const struct peek_syscall *a,
		      const struct peek_syscall *b)
{
	return a->nr == b->nr && a->sp == b->sp && a->pc == b->pc &&
	       !memcmp(a->args, b->args, sizeof(a->args));
}

/* Was t's stack taken in the call read before the capture?  Its leaf is
 * that call's return address (a peek's, or a stop's: the stop comes at
 * the call's exit; a restarted call's is the instruction before, 2
 * bytes: syscall is 0f 05). */
static bool in_before(const struct dthread *t)
{
	return t->pcs && t->n &&
	       (t->pcs[0] == t->before.pc || t->pcs[0] + 2 == t->before.pc);
}

/*
 * A thread the dump's stop interrupted in a call the kernel restarts (a
 * futex, a read, a sleep resumed by restart_syscall) runs for a moment
 * after its release, and on a busy machine waits that moment for a CPU:
 * its line then says "running".  Before that is taken to mean it left
 * the call, the line of each such thread (asleep before the capture,
 * its stack taken in that call, running now) is read again, every
 * SETTLE_NS, SETTLE_ROUNDS times at most: 50 ms for the whole dump.
 */
#define SETTLE_ROUNDS 5
#define SETTLE_NS 10000000L

static void settle(struct dump *d, pid_t pid)
{
	for (int round = 0; round < SETTLE_ROUNDS; round++) {
		const struct timespec pause = { 0, SETTLE_NS };
		bool any = false;

		for (size_t i = 0; i < d->n; i++) {
			const struct dthread *t = &d->t[i];

			any |= t->has_before && in_before(t) && !t->has_call;
		}
		if (!any)
			return;
		nanosleep(&pause, NULL);
		for (size_t i = 0; i < d->n; i++) {
			struct dthread *t = &d->t[i];

			if (t->has_before && in_before(t) && !t->has_call)
				t->has_call = peek_read_syscall(pid, t->tid,
								&t->sysfd,
								&t->call) ==
						      1 &&
					      t->call.nr >= 0;
		}
	}
}

/* Add to a wait's text, within its size. */
static void append(struct wait_info *w, const char *more)
{
	size_t len = strnlen(w->text, sizeof(w->text) - 1);

	snprintf(w->text + len, sizeof(w->text) - len, "%s", more);
}

/* A holder not believed: the text names the lock and why, and no
 * thread (a text like "held by thread N itself (self-deadlock)" is
 * no longer true of it). */
static void unbelieve(struct wait_info *w, const char *why)
{
	w->holder = 0;
	if (w->addr)
		snprintf(w->text, sizeof(w->text),
			 "%s 0x%" PRIx64 " (%s: holder not believed)",
			 wait_kind_name(w->kind), w->addr, why);
	else
		snprintf(w->text, sizeof(w->text),
			 "%s (%s: holder not believed)",
			 wait_kind_name(w->kind), why);
}

/*
 * A lock's holder is believed only when the waiter did not run while its
 * wait was read.  The reads are three passes over the threads: (0) each
 * futex waiter's run count and CPU time, then its system call line (in
 * that order: a thread seen asleep after its marks were read, with the
 * same marks later, slept in between), (1) each wait decoded (the lock
 * words read), (2) the run counts and lines again.  A line that is not
 * the one read before the capture means the thread woke since its stack
 * and kernel stack were taken: neither names this wait (no hint from
 * it, no kernel frames printed).
 * A thread whose marks did not move slept through the whole window, from
 * before the first decode to after the last: it waited all along on what
 * (1) read, and a holder that also slept throughout held that lock all
 * along (a thread asleep lets go of nothing).  So a cycle of such threads
 * was a deadlock at every moment of the window.  One that moved (it woke:
 * a contended lock changes hands every few microseconds, and its owner
 * word may then name the waiter itself) keeps its text, marked so, but
 * no holder: it makes no cycle and no chain.  (Reading the line before
 * the capture and the lock after it, 21 of 30 dumps of 4 threads sharing
 * one busy mutex reported a false self-deadlock.)
 */
void dump_wait_describe(struct dump *d, const struct dproc *p,
			struct symbolizer *sym, struct dump_waits *w)
{
	struct waitdesc *wd = waitdesc_new(p->pid);
	uint64_t *marks = calloc(d->n ? d->n * 2 : 1, sizeof(*marks));

	if (!marks)
		cli_die(EXIT_FAILURE, "out of memory");
	int *fds = malloc((d->n ? d->n : 1) * sizeof(*fds));

	if (!fds)
		cli_die(EXIT_FAILURE, "out of memory");
	/* Only a futex wait can have a holder (a mutex, an rwlock, a join):
	 * only those threads' run counts are read (their schedstat file
	 * kept open across the passes). */
	for (size_t i = 0; wd && i < d->n; i++) {
		struct dthread *t = &d->t[i];

		/* The marks before the line: a thread seen asleep in the
		 * call after its marks were read, with the same marks at
		 * pass 2, did not run in between. */
		fds[i] = -1;
		marks[2 * i + 1] = UINT64_MAX; /* not read */
		if (t->has_before && t->before.nr == SYS_futex &&
		    !run_marks(p->pid, t->tid, &fds[i], &marks[2 * i],
			       &marks[2 * i + 1]))
			marks[2 * i + 1] = UINT64_MAX;
		t->has_call = peek_read_syscall(p->pid, t->tid, &t->sysfd,
						&t->call) == 1 &&
			      t->call.nr >= 0;
	}
	settle(d, p->pid);
	for (size_t i = 0; wd && i < d->n; i++) {
		struct dthread *t = &d->t[i];

		/* Asleep before the capture, stack taken in that call, and
		 * out of it now (running, or in another call): the wait its
		 * stack shows is the one described, marked as left.  The
		 * common cause is the capture itself: a thread the peek
		 * could not unwind (a frame-pointer build whose innermost
		 * frames keep rbp in the register) is stopped, and the stop
		 * ends an epoll_wait or a read with EINTR.  Reading the line
		 * after the capture only, such a thread had no wait at all,
		 * or the next one's. */
		if (t->has_before && in_before(t) &&
		    (!t->has_call || !same_call(&t->before, &t->call))) {
			/* A sleep the stop interrupted and the kernel
			 * resumed (restart_syscall) is the same wait: the
			 * line before still says what it is. */
			t->woke = !t->has_call ||
				  t->call.nr != SYS_restart_syscall ||
				  t->before.nr == SYS_restart_syscall;
			t->call = t->before;
			t->has_call = true;
		}
		t->marked = marks[2 * i + 1] != UINT64_MAX && t->has_call &&
			    t->call.nr == SYS_futex;
		/* Another call than the one its stack (and kernel stack)
		 * was taken in: neither goes with this wait. */
		t->moved = t->has_call && !t->woke &&
			   (!t->has_before || !same_call(&t->before, &t->call));
		if (t->moved)
			t->kst = NULL;
	}
	for (size_t i = 0; wd && i < d->n; i++) {
		struct dthread *t = &d->t[i];

		if (!t->has_call)
			continue;
		t->wait = calloc(1, sizeof(*t->wait));
		if (!t->wait)
			cli_die(EXIT_FAILURE, "out of memory");
		waitdesc_thread(wd, t->tid, &t->call,
				wants_hint(t->call.nr) && !t->moved ?
					hint_of(sym, d, t) :
					WAIT_HINT_NONE,
				t->wait);
		if (t->moved)
			append(t->wait, " (it woke since its stack was taken)");
		else if (t->woke)
			append(t->wait, " (when its stack was taken; it left "
					"the call since)");
	}
	for (size_t i = 0; wd && i < d->n; i++) {
		struct dthread *t = &d->t[i];
		struct peek_syscall again;
		uint64_t runs, ns;
		const struct dthread *h;

		if (!t->wait || !t->wait->holder)
			continue;
		t->stable = t->marked &&
			    run_marks(p->pid, t->tid, &fds[i], &runs, &ns) &&
			    runs == marks[2 * i] && ns == marks[2 * i + 1] &&
			    peek_read_syscall(p->pid, t->tid, &t->sysfd,
					      &again) == 1 &&
			    same_call(&again, &t->call);
		if (!t->stable) {
			unbelieve(t->wait,
				  t->marked ? "owner changing" :
					      "its run count cannot be read");
			continue;
		}
		h = find_thread(d, t->wait->holder);
		if (h)
			name_holder(t->wait, h);
	}
	for (size_t i = 0; wd && i < d->n; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	free(fds);
	free(marks);
	waitdesc_free(wd);
	for (size_t i = 0; i < d->n; i++) {
		const struct dthread *t = &d->t[i];

		add_node(w, p, t,
			 t->wait && t->wait->holder ? short_frames(sym, d, t) :
						      NULL);
	}
}

/* "thread TID (name)" of node i, escaped. */
static void put_thread(FILE *out, const struct dump_waits *w, size_t i)
{
	fprintf(out, "thread %d (", (int)w->g[i].tid);
	textsafe_fputs(out, w->v[i].name, NULL);
	fputc(')', out);
}

static void text_cycle(FILE *out, const struct dump_waits *w,
		       const struct waitgraph_res *r, int c)
{
	size_t first = 0, len = 0, more = 0;

	for (size_t i = 0; i < w->n; i++) {
		if (r[i].cycle == c && !len++)
			first = i;
		else if (!r[i].cycle && r[i].root >= 0 &&
			 r[r[i].root].cycle == c)
			more++;
	}
	if (len == 1)
		fputs("DEADLOCK: 1 thread of process ", out);
	else
		fprintf(out, "DEADLOCK: %zu threads of process ", len);
	fprintf(out, "%d (", (int)w->g[first].pid);
	textsafe_fputs(out, w->v[first].pname, NULL);
	fputs(len == 1 ? ") waits on a lock it holds:\n" :
			 ") wait on each other:\n",
	      out);
	/* In the order they wait: each on the next, the last on the first. */
	for (size_t i = first, k = 0; k < len; k++) {
		fputs("  ", out);
		put_thread(out, w, i);
		fputs(" waits on ", out);
		textsafe_fputs(out, w->v[i].text ? w->v[i].text : "?", NULL);
		fputc('\n', out);
		if (w->v[i].frames) {
			fputs("      at ", out);
			textsafe_fputs(out, w->v[i].frames, NULL);
			fputc('\n', out);
		}
		for (size_t j = 0; j < w->n; j++)
			if (w->g[j].pid == w->g[i].pid &&
			    w->g[j].tid == w->g[i].holder) {
				i = j;
				break;
			}
	}
	if (more)
		fprintf(out, "  and %zu more thread%s wait on them\n", more,
			more == 1 ? "" : "s");
}

/* A holder with waiters, not on a cycle: one line. */
static void text_chain(FILE *out, const struct dump_waits *w,
		       const struct waitgraph_res *r, size_t root)
{
	size_t direct = 0, first = 0;
	bool one_lock = true;

	for (size_t i = 0; i < w->n; i++) {
		if (w->g[i].pid != w->g[root].pid ||
		    w->g[i].holder != w->g[root].tid || i == root)
			continue;
		if (!direct++)
			first = i;
		else if (w->v[i].addr != w->v[first].addr ||
			 w->v[i].kind != w->v[first].kind)
			one_lock = false;
	}
	fprintf(out, "WAITS: %zu thread%s of process %d wait%s",
		r[root].waiters, r[root].waiters == 1 ? "" : "s",
		(int)w->g[root].pid, r[root].waiters == 1 ? "s" : "");
	if (direct && one_lock && w->v[first].kind == WAIT_JOIN)
		fputs(" to join ", out);
	else if (direct && one_lock)
		fprintf(out, " on %s 0x%" PRIx64 " held by ",
			wait_kind_name(w->v[first].kind), w->v[first].addr);
	else
		fputs(" on ", out);
	put_thread(out, w, root);
	if (w->v[root].text) {
		fputs(", which waits on ", out);
		textsafe_fputs(out, w->v[root].text, NULL);
	} else {
		fputs(", which is not blocked in a system call", out);
	}
	fputc('\n', out);
}

static void json_report(FILE *out, const struct dump_waits *w,
			const struct waitgraph_res *r, int cycles)
{
	bool first = true;

	fputs(",\"deadlocks\":[", out);
	for (int c = 1; c <= cycles; c++) {
		bool t1 = true;

		fprintf(out, "%s{\"threads\":[", c > 1 ? "," : "");
		for (size_t i = 0; i < w->n; i++) {
			if (r[i].cycle != c)
				continue;
			fprintf(out,
				"%s{\"pid\":%d,\"tid\":%d,\"waits_on\":%d,"
				"\"kind\":\"%s\",\"addr\":\"0x%" PRIx64
				"\",\"name\":",
				t1 ? "" : ",", (int)w->g[i].pid,
				(int)w->g[i].tid, (int)w->g[i].holder,
				wait_kind_name(w->v[i].kind), w->v[i].addr);
			textsafe_fputs_json(out, w->v[i].name);
			fputc('}', out);
			t1 = false;
		}
		fputs("]}", out);
	}
	fputs("],\"chains\":[", out);
	for (size_t i = 0; i < w->n; i++) {
		if (r[i].cycle || !r[i].waiters || r[i].root != (long)i)
			continue;
		fprintf(out,
			"%s{\"pid\":%d,\"holder\":%d,\"waiters\":%zu,"
			"\"holder_waits\":",
			first ? "" : ",", (int)w->g[i].pid, (int)w->g[i].tid,
			r[i].waiters);
		textsafe_fputs_json(out, w->v[i].text);
		fputc('}', out);
		first = false;
	}
	fputc(']', out);
}

size_t dump_waits_report(struct dump_waits *w, FILE *out, bool json)
{
	struct waitgraph_res *r = calloc(w->n ? w->n : 1, sizeof(*r));
	int cycles;
	bool any = false;

	if (!r || (cycles = waitgraph_analyze(w->g, w->n, r)) < 0)
		cli_die(EXIT_FAILURE, "out of memory");
	if (json) {
		json_report(out, w, r, cycles);
	} else {
		for (int c = 1; c <= cycles; c++, any = true)
			text_cycle(out, w, r, c);
		for (size_t i = 0; i < w->n; i++) {
			if (r[i].cycle || !r[i].waiters || r[i].root != (long)i)
				continue;
			text_chain(out, w, r, i);
			any = true;
		}
		if (any)
			fputc('\n', out);
	}
	free(r);
	return (size_t)cycles;
}
