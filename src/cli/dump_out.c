/*
 * dump_out.c - ptprof dump's text and JSON (dump.h): each thread's TID,
 * name and state, then its frames, named by the one frame namer
 * (framename.h; callers at PC-1).
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/dump.h"
#include "symbols/framename.h"
#include "util/textsafe.h"

struct frame {
	uint64_t pc;
	const char *func; /* demangled when it could be, or NULL */
	uint64_t off;
	const char *module;
	struct framename name;	  /* func's */
	const struct pyframe *py; /* a Python frame (then func, module) */
	struct pyframe pyf;
};

/* Frame i of t (framename.h, without perf maps): callers are looked up
 * at PC-1 (return addresses); a Python frame's PC (pyframes.h) in the
 * dump's registry.  framename_done(&fr->name) when printed. */
static void frame_at(struct symbolizer *sym, const struct pyframes *py,
		     const struct dthread *t, size_t i, struct frame *fr)
{
	uint64_t addr = framename_addr(t->pcs[i], i > 0);

	memset(fr, 0, sizeof(*fr));
	if (py && pyframes_is_pc(t->pcs[i]) &&
	    pyframes_lookup(py, t->pcs[i], &fr->pyf) == 0) {
		fr->pc = t->pcs[i];
		fr->py = &fr->pyf;
		fr->func = fr->pyf.qualname;
		fr->module = PYFRAMES_MODULE;
		return;
	}

	framename_lookup(&fr->name, sym, addr);
	if (fr->name.si.fde) /* a dump shows where, not which unnamed one */
		fr->name.si.func = NULL;
	fr->pc = t->pcs[i];
	fr->func = framename_func(&fr->name);
	fr->off = fr->func ? fr->name.si.func_off + (fr->pc - addr) :
			     fr->name.si.module_off;
	fr->module = fr->name.si.module;
}

/* A name (the target's thread names, symbols and paths), escaped. */
static void put(const char *s)
{
	textsafe_fputs(stdout, s, NULL);
}

static void print_frame(const struct frame *fr, size_t i)
{
	printf("#%-3zu 0x%016" PRIx64 " in ", i, fr->pc);
	if (fr->py) { /* "hot_a (app.py:12) [py]", the file as Python has it */
		put(fr->py->qualname);
		fputs(" (", stdout);
		put(fr->py->filename);
		printf(":%u) %s\n", (unsigned)fr->py->line, PYFRAMES_MODULE);
	} else if (fr->func) {
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

/* "Process PID (NAME)[, child of PPID], N threads", a blank line before
 * every process but the first. */
static void print_header(const struct dproc *p, size_t nthreads, bool first)
{
	if (!first)
		putchar('\n');
	printf("Process %d (", (int)p->pid);
	put(p->comm);
	putchar(')');
	if (p->descendant)
		printf(", child of %d", (int)p->ppid);
	printf(", %zu thread%s\n", nthreads, nthreads == 1 ? "" : "s");
}

void dump_print_text(const struct dump *d, struct symbolizer *sym,
		     const struct dproc *p, bool first)
{
	print_header(p, d->n, first);
	for (size_t k = 0; k < d->n; k++) {
		const struct dthread *t = &d->t[k];

		printf("\nThread %d (", (int)t->tid);
		put(t->name);
		printf(") state %c%s", t->state, t->pcs ? "" : ": ");
		put(t->why); /* may hold a tracer's comm */
		putchar('\n');
		for (size_t i = 0; t->pcs && i < t->n; i++) {
			struct frame fr;

			frame_at(sym, d->py, t, i, &fr);
			print_frame(&fr, i);
			framename_done(&fr.name);
		}
	}
}

static void print_json_thread(FILE *f, const struct dthread *t,
			      struct symbolizer *sym, const struct pyframes *py)
{
	fprintf(f, "{\"tid\":%d,\"name\":", (int)t->tid);
	textsafe_fputs_json(f, t->name);
	fprintf(f, ",\"state\":\"%c\",", t->state);
	if (t->tracer)
		fprintf(f, "\"traced_by\":%d,", (int)t->tracer);
	fputs("\"frames\":", f);
	if (!t->pcs) {
		fputs("null}", f);
		return;
	}
	fputc('[', f);
	for (size_t i = 0; i < t->n; i++) {
		struct frame fr;

		frame_at(sym, py, t, i, &fr);
		fprintf(f, "%s{\"pc\":\"0x%" PRIx64 "\",\"function\":",
			i ? "," : "", fr.pc);
		textsafe_fputs_json(f, fr.func);
		fprintf(f, ",\"offset\":%" PRIu64 ",\"module\":", fr.off);
		textsafe_fputs_json(f, fr.module);
		if (fr.py) {
			fputs(",\"file\":", f);
			textsafe_fputs_json(f, fr.py->filename);
			fprintf(f, ",\"line\":%u", (unsigned)fr.py->line);
		}
		fputc('}', f);
		framename_done(&fr.name);
	}
	fputs("]}", f);
}

/* The "threads" array of one process, as a string to free. */
static char *json_threads(const struct dump *d, struct symbolizer *sym)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		cli_die(EXIT_FAILURE, "out of memory");
	fputc('[', f);
	for (size_t k = 0; k < d->n; k++) {
		if (k)
			fputc(',', f);
		print_json_thread(f, &d->t[k], sym, d->py);
	}
	fputc(']', f);
	if (fclose(f))
		cli_die(EXIT_FAILURE, "out of memory");
	return text;
}

void dump_print_json(struct json_doc *j, const struct dump *d,
		     struct symbolizer *sym, const struct dproc *p)
{
	char *threads = json_threads(d, sym);

	if (!j->begun && j->single)
		printf("{\"pid\":%d,\"threads\":%s,\"processes\":[",
		       (int)p->pid, threads);
	else if (!j->begun)
		fputs("{\"processes\":[", stdout);
	else
		putchar(',');
	j->begun = true;
	printf("{\"pid\":%d,\"name\":", (int)p->pid);
	textsafe_fputs_json(stdout, p->comm);
	printf(",\"ppid\":%d,\"threads\":%s}", (int)p->ppid, threads);
	free(threads);
}
