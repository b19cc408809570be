/*
 * cmd_dump.c - ptprof dump: every thread's stack, once (cmds.h).
 *
 * One tick of the sampler in --wall mode: every thread is stopped once,
 * its registers and stack copied, released, and its copy unwound; the
 * sampler hands each stack over with its TID (sampler_config.on_stack).
 * Names and states are read from /proc just before, so the state is the
 * one the thread was in when it was stopped, not the trace stop itself.
 * Frames are symbolized from the maps read during the tick, with files
 * opened under /proc/PID/root (so a process in a container resolves).
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unistd.h>

#include "cli.h"
#include "cmds.h"
#include "demangle.h"
#include "maps.h"
#include "procfs.h"
#include "sampler.h"
#include "stacktab.h"
#include "symbolize.h"
#include "textsafe.h"
#include "timeutil.h"

struct dthread {
	pid_t tid;
	char name[64];
	int state;     /* /proc state letter, or '?' */
	uint64_t *pcs; /* leaf first; NULL: no stack taken */
	size_t n;
	pid_t tracer;  /* without a stack: another process tracing it */
	char why[128]; /* without a stack: why */
};

struct dump {
	struct dthread *t;
	size_t n;
};

static void on_stack(void *arg, const struct sample_origin *from,
		     const uint64_t *pcs, size_t n, uint64_t count)
{
	struct dump *d = arg;
	pid_t tid = from->tid; /* its name was read from /proc before the
				  capture, with the state */

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

/* The threads as /proc lists them now, with names and states. */
static void list_threads(pid_t pid, struct dump *d)
{
	struct tidlist tl = { 0 };

	if (procfs_list_tasks(pid, &tl))
		cli_die(EXIT_FAILURE, "cannot list the threads of %d: %s",
			(int)pid, strerror(errno));
	d->t = calloc(tl.n ? tl.n : 1, sizeof(*d->t));
	if (!d->t)
		cli_die(EXIT_FAILURE, "out of memory");
	for (size_t i = 0; i < tl.n; i++) {
		struct dthread *t = &d->t[d->n++];
		int st = procfs_task_name_state(pid, tl.tids[i], t->name,
						sizeof(t->name));

		t->tid = tl.tids[i];
		t->state = st > 0 ? st : '?';
		if (st <= 0)
			snprintf(t->name, sizeof(t->name), "?");
	}
	procfs_tidlist_free(&tl);
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

/* Stop every thread once; their stacks land in d (on_stack). */
static void capture(pid_t pid, bool unsafe_seccomp, struct dump *d,
		    struct maps *maps)
{
	struct sampler_config cfg = { .pid = pid,
				      .hz = 1,
				      .wall = true,
				      .unsafe_seccomp = unsafe_seccomp,
				      .duration_ns = NSEC_PER_MSEC,
				      .on_stack = on_stack,
				      .on_stack_arg = d };
	struct stacktab *tab = stacktab_new(STACKTAB_MAX_DEPTH);
	struct sampler_stats st;
	sigset_t stop;

	if (!tab)
		cli_die(EXIT_FAILURE, "out of memory");
	cli_block_stop_signals(&stop);
	cfg.stop_signals = &stop;
	if (sampler_run(&cfg, tab, maps, &st) && st.seccomp_refused) {
		char why[512];

		cli_explain_seccomp(&st, why, sizeof(why));
		cli_die(EXIT_FAILURE, "cannot trace process %d: %s", (int)pid,
			why);
	}
	if (st.end == SAMPLER_END_ERROR)
		cli_die(EXIT_FAILURE, "cannot capture process %d: %s", (int)pid,
			strerror(errno));
	stacktab_free(tab);
	for (size_t i = 0; i < d->n; i++)
		explain_no_stack(pid, &d->t[i]);
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

struct frame {
	uint64_t pc;
	const char *func; /* demangled when it could be, or NULL */
	uint64_t off;
	const char *module;
	char *owned; /* func, when demangled */
};

/* Frame i of t: callers are looked up at PC-1 (return addresses). */
static void frame_at(struct symbolizer *sym, const struct dthread *t, size_t i,
		     struct frame *fr)
{
	struct symbol_info si;
	uint64_t addr = i > 0 && t->pcs[i] ? t->pcs[i] - 1 : t->pcs[i];

	symbolizer_lookup(sym, addr, &si);
	fr->pc = t->pcs[i];
	fr->owned = si.func ? demangle(si.func) : NULL;
	fr->func = fr->owned ? fr->owned : si.func;
	fr->off = si.func ? si.func_off + (fr->pc - addr) : si.module_off;
	fr->module = si.module;
}

/* A name (the target's thread names, symbols and paths), escaped. */
static void put(const char *s)
{
	textsafe_fputs(stdout, s, NULL);
}

static void print_frame(const struct frame *fr, size_t i)
{
	printf("#%-3zu 0x%016" PRIx64 " in ", i, fr->pc);
	if (fr->func) {
		put(fr->func);
		printf("+0x%" PRIx64 " (", fr->off);
		put(fr->module ? fr->module : "?");
		puts(")");
	} else if (fr->module) {
		fputs("?? (", stdout);
		put(fr->module);
		printf("+0x%" PRIx64 ")\n", fr->off);
	} else {
		puts("??");
	}
}

static void print_text(const struct dump *d, struct symbolizer *sym, pid_t pid)
{
	printf("Process %d, %zu threads\n", (int)pid, d->n);
	for (size_t k = 0; k < d->n; k++) {
		const struct dthread *t = &d->t[k];

		printf("\nThread %d (", (int)t->tid);
		put(t->name);
		printf(") state %c%s", t->state, t->pcs ? "" : ": ");
		put(t->why); /* may hold a tracer's comm */
		putchar('\n');
		for (size_t i = 0; t->pcs && i < t->n; i++) {
			struct frame fr;

			frame_at(sym, t, i, &fr);
			print_frame(&fr, i);
			free(fr.owned);
		}
	}
}

static void print_json_thread(const struct dthread *t, struct symbolizer *sym)
{
	printf("{\"tid\":%d,\"name\":", (int)t->tid);
	textsafe_fputs_json(stdout, t->name);
	printf(",\"state\":\"%c\",", t->state);
	if (t->tracer)
		printf("\"traced_by\":%d,", (int)t->tracer);
	printf("\"frames\":");
	if (!t->pcs) {
		printf("null}");
		return;
	}
	putchar('[');
	for (size_t i = 0; i < t->n; i++) {
		struct frame fr;

		frame_at(sym, t, i, &fr);
		printf("%s{\"pc\":\"0x%" PRIx64 "\",\"function\":",
		       i ? "," : "", fr.pc);
		textsafe_fputs_json(stdout, fr.func);
		printf(",\"offset\":%" PRIu64 ",\"module\":", fr.off);
		textsafe_fputs_json(stdout, fr.module);
		putchar('}');
		free(fr.owned);
	}
	printf("]}");
}

static void print_json(const struct dump *d, struct symbolizer *sym, pid_t pid)
{
	printf("{\"pid\":%d,\"threads\":[", (int)pid);
	for (size_t k = 0; k < d->n; k++) {
		if (k)
			putchar(',');
		print_json_thread(&d->t[k], sym);
	}
	printf("]}\n");
}

int cmd_dump(const struct options *o)
{
	struct dump d = { 0 };
	struct maps *maps = maps_new();
	struct symbolizer *sym;

	if (!maps)
		cli_die(EXIT_FAILURE, "out of memory");
	cli_check_target(o->pid);
	cli_raise_fd_limit();
	list_threads(o->pid, &d);
	capture(o->pid, o->unsafe_seccomp, &d, maps);
	sym = symbolizer_for(o->pid, maps);
	if (o->json)
		print_json(&d, sym, o->pid);
	else
		print_text(&d, sym, o->pid);
	if (fflush(stdout) || ferror(stdout))
		cli_die(EXIT_FAILURE, "cannot write the stacks: %s",
			strerror(errno));
	symbolizer_free(sym);
	maps_free(maps);
	for (size_t k = 0; k < d.n; k++)
		free(d.t[k].pcs);
	free(d.t);
	return 0;
}
