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
#include "symbols/demangle.h"
#include "symbols/framename.h"
#include "util/textsafe.h"

/* Frame i of t (framename.h, without perf maps): callers are looked up
 * at PC-1 (return addresses); a Python frame's PC (pyframes.h) in the
 * dump's registry.  framename_done(&fr->name) when printed. */
void dump_frame_at(struct symbolizer *sym, const struct pyframes *py,
		   const struct dthread *t, size_t i, struct dump_frame *fr)
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

size_t dump_inline_at(struct symbolizer *sym, const struct dump *d,
		      const struct dthread *t, size_t i,
		      const struct dump_frame *fr, struct symbol_frame *in)
{
	if (d->no_inline || fr->py || !fr->func)
		return 0;
	return symbolizer_lookup_inline(sym, framename_addr(t->pcs[i], i > 0),
					in, SYMBOLIZE_MAX_INLINE, NULL, NULL);
}

/* A name (the target's thread names, symbols and paths), escaped. */
static void put(FILE *out, const char *s)
{
	textsafe_fputs(out, s, NULL);
}

static void print_frame(FILE *out, const struct dump_frame *fr, size_t i)
{
	fprintf(out, "#%-3zu 0x%016" PRIx64 " in ", i, fr->pc);
	if (fr->py) { /* "hot_a (app.py:12) [py]", the file as Python has it */
		put(out, fr->py->qualname);
		fputs(" (", out);
		put(out, fr->py->filename);
		fprintf(out, ":%u) %s\n", (unsigned)fr->py->line,
			PYFRAMES_MODULE);
	} else if (fr->func) {
		put(out, fr->func);
		fprintf(out, "+0x%" PRIx64 " (", fr->off);
		put(out, fr->module ? fr->module : "?");
		fputs(")\n", out);
	} else if (fr->module) {
		fputs("?? (", out);
		put(out, fr->module);
		fprintf(out, "+0x%" PRIx64 ")\n", fr->off);
	} else {
		fputs("??\n", out);
	}
}

/* An inlined function at fr's PC, numbered i: "#i 0x... in mix (inline)
 * (MODULE)", no offset (the PC is in the function it was inlined
 * into). */
static void print_inline(FILE *out, const struct symbol_frame *in,
			 const struct dump_frame *fr, size_t i)
{
	char buf[4096];

	framename_format_inline(in, fr->pc, false, buf, sizeof(buf));
	fprintf(out, "#%-3zu 0x%016" PRIx64 " in ", i, fr->pc);
	put(out, buf);
	fputs(" (", out);
	put(out, fr->module ? fr->module : "?");
	fputs(")\n", out);
}

/* "Process PID (NAME)[, child of PPID], N threads", a blank line before
 * every process but the first. */
static void print_header(FILE *out, const struct dproc *p, size_t nthreads,
			 bool first)
{
	if (!first)
		fputc('\n', out);
	fprintf(out, "Process %d (", (int)p->pid);
	put(out, p->comm);
	fputc(')', out);
	if (p->descendant)
		fprintf(out, ", child of %d", (int)p->ppid);
	fprintf(out, ", %zu thread%s\n", nthreads, nthreads == 1 ? "" : "s");
}

/* "  waiting: mutex 0x... held by thread 4242 (name) state S", then a
 * line per descriptor it names ("  fd 3: pipe:[...] ..."). */
static void print_wait(FILE *out, const struct dthread *t)
{
	const struct wait_info *w = t->wait;

	if (!w || w->kind == WAIT_NONE)
		return;
	fputs("  waiting: ", out);
	put(out, w->text);
	fputc('\n', out);
	/* one descriptor: the text above named it already */
	for (size_t i = 0; w->nfds > 1 && i < w->nfds; i++) {
		fprintf(out, "    fd %d: ", w->fds[i].fd);
		put(out, w->fds[i].name);
		fputc('\n', out);
	}
	if (w->fds_more)
		fprintf(out, "    and %zu more descriptor%s\n", w->fds_more,
			w->fds_more == 1 ? "" : "s");
}

void dump_print_text(FILE *out, const struct dump *d, struct symbolizer *sym,
		     const struct dproc *p, bool first)
{
	print_header(out, p, d->n, first);
	for (size_t k = 0; k < d->n; k++) {
		const struct dthread *t = &d->t[k];

		fprintf(out, "\nThread %d (", (int)t->tid);
		put(out, t->name);
		fprintf(out, ") state %c%s", t->state, t->pcs ? "" : ": ");
		put(out, t->why); /* may hold a tracer's comm */
		fputc('\n', out);
		print_wait(out, t);
		/* Innermost first: the kernel's frames, where the call #0
		 * made sleeps, then the user stack. */
		for (size_t i = 0; t->kst && i < t->kst->n; i++) {
			fputs("     [kernel] ", out);
			put(out, t->kst->frames[i]);
			fputc('\n', out);
		}
		/* Frames numbered as eu-stack -i numbers them: an inlined
		 * function's too. */
		for (size_t i = 0, num = 0; t->pcs && i < t->n; i++) {
			struct symbol_frame in[SYMBOLIZE_MAX_INLINE];
			struct dump_frame fr;
			size_t nin;

			dump_frame_at(sym, d->py, t, i, &fr);
			nin = dump_inline_at(sym, d, t, i, &fr, in);
			for (size_t j = 0; j < nin; j++)
				print_inline(out, &in[j], &fr, num++);
			print_frame(out, &fr, num++);
			framename_done(&fr.name);
		}
	}
}

/* "wait":{"kind","syscall","text","addr","holder","fds","peers"} */
static void print_json_wait(FILE *f, const struct wait_info *w)
{
	fprintf(f,
		"\"wait\":{\"kind\":\"%s\",\"syscall\":%" PRId64 ",\"text\":",
		wait_kind_name(w->kind), w->nr);
	textsafe_fputs_json(f, w->text);
	if (w->addr)
		fprintf(f, ",\"addr\":\"0x%" PRIx64 "\"", w->addr);
	if (w->holder)
		fprintf(f, ",\"holder\":%d", (int)w->holder);
	fputs(",\"fds\":[", f);
	for (size_t i = 0; i < w->nfds; i++) {
		fprintf(f, "%s{\"fd\":%d,\"name\":", i ? "," : "",
			w->fds[i].fd);
		textsafe_fputs_json(f, w->fds[i].name);
		fputc('}', f);
	}
	fprintf(f, "],\"fds_more\":%zu,\"peers\":[", w->fds_more);
	for (size_t i = 0; i < WAIT_MAX_FDS && w->peers[i]; i++)
		fprintf(f, "%s%d", i ? "," : "", (int)w->peers[i]);
	fputs("]},", f);
}

/* An inlined function at fr's PC, as a JSON frame of its own:
 * "function" its name (demangled), "inline":true, the PC, offset and
 * module of fr (the function it was inlined into), its file and line
 * when known. */
static void print_json_inline(FILE *f, const struct symbol_frame *in,
			      const struct dump_frame *fr)
{
	char *cxx = in->func ? demangle(in->func) : NULL;

	fprintf(f, "{\"pc\":\"0x%" PRIx64 "\",\"function\":", fr->pc);
	textsafe_fputs_json(f, cxx ? cxx : in->func);
	fprintf(f,
		",\"inline\":true,\"offset\":%" PRIu64 ",\"module\":", fr->off);
	textsafe_fputs_json(f, fr->module);
	if (in->file) {
		fputs(",\"file\":", f);
		textsafe_fputs_json(f, in->file);
		fprintf(f, ",\"line\":%u", in->line);
	}
	fputs("},", f);
	free(cxx);
}

static void print_json_thread(FILE *f, const struct dthread *t,
			      struct symbolizer *sym, const struct dump *d)
{
	fprintf(f, "{\"tid\":%d,\"name\":", (int)t->tid);
	textsafe_fputs_json(f, t->name);
	fprintf(f, ",\"state\":\"%c\",", t->state);
	if (t->tracer)
		fprintf(f, "\"traced_by\":%d,", (int)t->tracer);
	if (t->wait && t->wait->kind != WAIT_NONE)
		print_json_wait(f, t->wait);
	if (t->kst) {
		fputs("\"kernel\":[", f);
		for (size_t i = 0; i < t->kst->n; i++) {
			if (i)
				fputc(',', f);
			textsafe_fputs_json(f, t->kst->frames[i]);
		}
		fputs("],", f);
	}
	fputs("\"frames\":", f);
	if (!t->pcs) {
		fputs("null}", f);
		return;
	}
	fputc('[', f);
	for (size_t i = 0; i < t->n; i++) {
		struct symbol_frame in[SYMBOLIZE_MAX_INLINE];
		struct dump_frame fr;
		size_t nin;

		dump_frame_at(sym, d->py, t, i, &fr);
		nin = dump_inline_at(sym, d, t, i, &fr, in);
		if (i && nin)
			fputc(',', f);
		for (size_t k = 0; k < nin; k++)
			print_json_inline(f, &in[k], &fr);
		fprintf(f, "%s{\"pc\":\"0x%" PRIx64 "\",\"function\":",
			i && !nin ? "," : "", fr.pc);
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
		print_json_thread(f, &d->t[k], sym, d);
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
