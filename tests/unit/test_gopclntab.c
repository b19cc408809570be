/*
 * test_gopclntab - Go's .gopclntab in each layout, made by hand here as
 * Go's linker lays it out (Go's src/debug/gosym/pclntab.go reads the
 * same): the 1.2 (magic 0xfffffffb), 1.16 (0xfffffffa), 1.18
 * (0xfffffff0) and 1.20 (0xfffffff1) layouts, little- and big-endian,
 * 8- and 4-byte pointers.  Two functions: main.alpha, 0x40 bytes at the
 * text's start, a.go line 10 for its first 0x10 bytes, 12 for the next
 * 0x10, 11 after;
 * main.beta, 0x20 bytes after it, b.go line 20.  Then hostile tables:
 * every prefix of a table and every byte of it changed must give an
 * answer or none, within the copy (run under the sanitizers), a count
 * that lies, a PC-value table with no end, one longer than a lookup
 * walks, a file cut short.  Then the inline tree of a real Go binary,
 * built here by `go build -ldflags=-s -w` (only .gopclntab names it):
 * main.leaf inlined into main.mid inlined into main.main, looked up
 * through the symbolizer and compared with what the Go runtime itself
 * says of the same PC (runtime.Callers expands inlined frames); and
 * the same tree damaged (a cycle of parents, every byte changed).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symbols/gopclntab.h"
#include "symbols/symbolize.h"
#include "unit.h"

#define TEXT 0x401000u

/* A table being made: bytes and the layout's choices. */
struct tab {
	uint8_t b[1024];
	size_t n;
	int version;
	bool be;
	unsigned ptr; /* pointer size */
};

static void put_at(struct tab *t, size_t off, uint64_t v, unsigned size)
{
	for (unsigned i = 0; i < size; i++)
		t->b[off + i] = (uint8_t)(v >> 8 * (t->be ? size - 1 - i : i));
}

static size_t put(struct tab *t, uint64_t v, unsigned size)
{
	size_t off = t->n;

	put_at(t, off, v, size);
	t->n += size;
	return off;
}

static size_t put_bytes(struct tab *t, const void *p, size_t len)
{
	size_t off = t->n;

	memcpy(t->b + off, p, len);
	t->n += len;
	return off;
}

/* The PC-value tables: (zigzag value delta, PC delta) pairs, 0 ends. */
static const uint8_t pc_file0[] = { 2, 0x40, 0 };  /* 0 (1.16+ index) */
static const uint8_t pc_file0b[] = { 2, 0x20, 0 }; /* the same, beta */
static const uint8_t pc_file1[] = { 4, 0x40, 0 };  /* 1 (1.2: a.go) */
static const uint8_t pc_file2[] = { 6, 0x20, 0 };  /* 2 (1.2: b.go) */
static const uint8_t pc_ln_a[] = {
	22, 0x10, 4, 0x10, 1, 0x20, 0
};						  /* 10, 12, 11 */
static const uint8_t pc_ln_b[] = { 42, 0x20, 0 }; /* 20 */

/* One _func: entry, then nameoff, args, deferreturn, pcsp, pcfile,
 * pcln, npcdata, cuOffset, startLine (1.20), and a last word. */
static void put_func(struct tab *t, uint64_t entry, uint32_t nameoff,
		     uint32_t pcfile, uint32_t pcln, uint32_t cu)
{
	put(t, t->version >= 118 ? entry - TEXT : entry,
	    t->version >= 118 ? 4 : t->ptr);
	put(t, nameoff, 4);
	put(t, 0, 4);
	put(t, 0, 4);
	put(t, 0, 4);
	put(t, pcfile, 4);
	put(t, pcln, 4);
	put(t, 0, 4);
	put(t, cu, 4);
	put(t, 0, 4);
	put(t, 0, 4);
}

static void put_header(struct tab *t)
{
	static const uint32_t magic[] = {
		[0] = 0xfffffffb, [1] = 0xfffffffa, [2] = 0xfffffff0, [3] = 0xfffffff1
	};
	int i = t->version == 12  ? 0 :
		t->version == 116 ? 1 :
		t->version == 118 ? 2 :
				    3;

	put(t, magic[i], 4);
	put(t, 0, 1);
	put(t, 0, 1);
	put(t, 1, 1); /* PC quantum */
	put(t, t->ptr, 1);
}

/* Go 1.16 and later: header words, then the parts, their offsets
 * patched into the header as they are laid down. */
static void make_116(struct tab *t)
{
	unsigned fs = t->version >= 118 ? 4 : t->ptr;
	unsigned first = t->version >= 118 ? 3 : 2, w = t->ptr;
	size_t words = 8, functab, pctab, fa, fb, la, lb;

	put_header(t);
	put(t, 2, w); /* nfunc */
	put(t, 2, w); /* nfiles */
	if (t->version >= 118)
		put(t, TEXT, w);
	t->n += 5 * w;
	put_at(t, words + (first + 0) * w, t->n, w);
	put_bytes(t, "main.alpha\0main.beta", 21);
	put_at(t, words + (first + 1) * w, t->n, w);
	put(t, 0, 4); /* cu 0: file 0 is "a.go" */
	put(t, 5, 4); /* cu 1: file 0 is "b.go" */
	put_at(t, words + (first + 2) * w, t->n, w);
	put_bytes(t, "a.go\0b.go", 10);
	pctab = t->n;
	put_at(t, words + (first + 3) * w, pctab, w);
	put(t, 0, 1); /* offset 0 is no table */
	fa = put_bytes(t, pc_file0, sizeof(pc_file0)) - pctab;
	fb = put_bytes(t, pc_file0b, sizeof(pc_file0b)) - pctab;
	la = put_bytes(t, pc_ln_a, sizeof(pc_ln_a)) - pctab;
	lb = put_bytes(t, pc_ln_b, sizeof(pc_ln_b)) - pctab;
	functab = t->n;
	put_at(t, words + (first + 4) * w, functab, w);
	put(t, t->version >= 118 ? 0 : TEXT, fs);
	put(t, 5 * fs, fs);
	put(t, t->version >= 118 ? 0x40 : TEXT + 0x40, fs);
	put(t, 5 * fs + 44 + 4 * (fs == 8), fs);
	put(t, t->version >= 118 ? 0x60 : TEXT + 0x60, fs);
	put_func(t, TEXT, 0, (uint32_t)fa, (uint32_t)la, 0);
	put_func(t, TEXT + 0x40, 11, (uint32_t)fb, (uint32_t)lb, 1);
}

/* Go 1.2: the function table right after the header, the file table's
 * offset after it; names, files and PC-value tables are offsets from
 * the table's start; pcfile values index the file table. */
static void make_12(struct tab *t)
{
	unsigned w = t->ptr;
	size_t functab, fileoff, f0, f1, na, nb, sa, sb, fa, fb, la, lb, end;

	put_header(t);
	put(t, 2, w);
	functab = t->n;
	t->n += 5 * w;
	fileoff = put(t, 0, 4);
	f0 = t->n;
	t->n += 2 * (4 + 10 * 4 + w);
	f1 = f0 + 4 + 10 * 4 + w;
	na = put_bytes(t, "main.alpha", 11);
	nb = put_bytes(t, "main.beta", 10);
	sa = put_bytes(t, "a.go", 5);
	sb = put_bytes(t, "b.go", 5);
	fa = put_bytes(t, pc_file1, sizeof(pc_file1));
	fb = put_bytes(t, pc_file2, sizeof(pc_file2));
	la = put_bytes(t, pc_ln_a, sizeof(pc_ln_a));
	lb = put_bytes(t, pc_ln_b, sizeof(pc_ln_b));
	put_at(t, fileoff, t->n, 4);
	put(t, 3, 4); /* entries 1 and 2 follow */
	put(t, sa, 4);
	put(t, sb, 4);
	end = t->n;
	put_at(t, functab, TEXT, w);
	put_at(t, functab + w, f0, w);
	put_at(t, functab + 2 * w, TEXT + 0x40, w);
	put_at(t, functab + 3 * w, f1, w);
	put_at(t, functab + 4 * w, TEXT + 0x60, w);
	t->n = f0;
	put_func(t, TEXT, (uint32_t)na, (uint32_t)fa, (uint32_t)la, 0);
	t->n = f1;
	put_func(t, TEXT + 0x40, (uint32_t)nb, (uint32_t)fb, (uint32_t)lb, 0);
	t->n = end;
}

static void make(struct tab *t, int version, bool be, unsigned ptr)
{
	memset(t, 0, sizeof(*t));
	t->version = version;
	t->be = be;
	t->ptr = ptr;
	if (version == 12)
		make_12(t);
	else
		make_116(t);
}

/* The answers every layout must give. */
static void check_answers(const struct gopclntab *g, const char *what)
{
	static const struct {
		uint64_t pc;
		const char *func, *file;
		unsigned line;
	} want[] = {
		{ TEXT, "main.alpha", "a.go", 10 },
		{ TEXT + 0x0f, "main.alpha", "a.go", 10 },
		{ TEXT + 0x10, "main.alpha", "a.go", 12 },
		{ TEXT + 0x1f, "main.alpha", "a.go", 12 },
		{ TEXT + 0x20, "main.alpha", "a.go", 11 },
		{ TEXT + 0x3f, "main.alpha", "a.go", 11 },
		{ TEXT + 0x40, "main.beta", "b.go", 20 },
		{ TEXT + 0x5f, "main.beta", "b.go", 20 },
	};
	const char *name, *file;
	uint64_t entry;
	unsigned line;

	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		CHECKF(gopclntab_func(g, want[i].pc, &name, &entry) == 0 &&
			       !strcmp(name, want[i].func) &&
			       entry == (want[i].pc < TEXT + 0x40 ?
						 TEXT :
						 TEXT + 0x40),
		       "%s: no %s at %#llx", what, want[i].func,
		       (unsigned long long)want[i].pc);
		CHECKF(gopclntab_line(g, want[i].pc, &file, &line) == 0 &&
			       !strcmp(file, want[i].file) &&
			       line == want[i].line,
		       "%s: not %s:%u at %#llx", what, want[i].file,
		       want[i].line, (unsigned long long)want[i].pc);
	}
	CHECK(gopclntab_func(g, TEXT - 1, &name, &entry) == -1 &&
	      errno == ENOENT);
	CHECK(gopclntab_func(g, TEXT + 0x60, &name, &entry) == -1 &&
	      errno == ENOENT);
	CHECK(gopclntab_line(g, TEXT + 0x60, &file, &line) == -1 &&
	      errno == ENOENT);
	CHECK(gopclntab_count(g) == 2);
}

static void test_layouts(void)
{
	static const struct {
		int version;
		bool be;
		unsigned ptr;
	} lay[] = { { 12, false, 8 },  { 12, true, 4 },	  { 116, false, 8 },
		    { 116, true, 8 },  { 118, false, 8 }, { 118, true, 4 },
		    { 120, false, 8 }, { 120, false, 4 } };
	char err[128], what[64];
	struct gopclntab *g;
	struct tab t;

	for (size_t i = 0; i < sizeof(lay) / sizeof(lay[0]); i++) {
		make(&t, lay[i].version, lay[i].be, lay[i].ptr);
		snprintf(what, sizeof(what), "Go %d %s %u-byte", lay[i].version,
			 lay[i].be ? "BE" : "LE", lay[i].ptr);
		err[0] = '\0';
		g = gopclntab_new(t.b, t.n, TEXT, err, sizeof(err));
		CHECKF(g != NULL, "%s refused: %s", what, err);
		if (!g)
			continue;
		CHECK(gopclntab_version(g) == lay[i].version);
		check_answers(g, what);
		gopclntab_free(g);
	}
	/* Go 1.18+: without the .text address, the header's textStart */
	make(&t, 118, false, 8);
	g = gopclntab_new(t.b, t.n, 0, err, sizeof(err));
	CHECK(g != NULL);
	if (g)
		check_answers(g, "Go 1.18, textStart from the header");
	gopclntab_free(g);
}

/* Every lookup of interest on a table that may be damaged: whatever it
 * answers, within the copy (the sanitizers watch) and in bounded time. */
static void poke(const struct gopclntab *g)
{
	const char *name, *file;
	uint64_t entry;
	unsigned line;

	for (uint64_t pc = TEXT - 1; pc <= TEXT + 0x61; pc += 7) {
		if (gopclntab_func(g, pc, &name, &entry) == 0)
			CHECK(strlen(name) < 1024);
		if (gopclntab_line(g, pc, &file, &line) == 0)
			CHECK(line > 0 && strlen(file) < 1024);
	}
}

static void test_hostile(void)
{
	static const int versions[] = { 12, 116, 118, 120 };
	static const uint8_t vals[] = { 0x00, 0x01, 0x7f, 0x80, 0xfe, 0xff };
	char err[128];
	struct gopclntab *g;
	struct tab t, bad;
	size_t refused = 0;

	for (size_t v = 0; v < 4; v++) {
		make(&t, versions[v], false, 8);
		/* every prefix: refused, or answers within it */
		for (size_t n = 0; n < t.n; n++) {
			g = gopclntab_new(t.b, n, TEXT, err, sizeof(err));
			if (!g) {
				CHECK(errno == EINVAL && err[0]);
				refused++;
			} else {
				poke(g);
			}
			gopclntab_free(g);
		}
		/* every byte changed to a few values */
		for (size_t i = 0; i < t.n; i++)
			for (size_t k = 0; k < sizeof(vals); k++) {
				bad = t;
				bad.b[i] = vals[k];
				g = gopclntab_new(bad.b, bad.n, TEXT, NULL, 0);
				if (g)
					poke(g);
				gopclntab_free(g);
			}
	}
	CHECK(refused > 0);

	CHECK(!gopclntab_new(NULL, 0, TEXT, err, sizeof(err)) &&
	      errno == EINVAL && err[0]);
	/* no magic */
	make(&t, 118, false, 8);
	t.b[0] = 0;
	CHECK(!gopclntab_new(t.b, t.n, TEXT, err, sizeof(err)) &&
	      errno == EINVAL && strstr(err, "at byte 0"));
	/* a function count the table cannot hold */
	make(&t, 118, false, 8);
	put_at(&t, 8, UINT64_MAX / 2, 8);
	CHECK(!gopclntab_new(t.b, t.n, TEXT, err, sizeof(err)) &&
	      errno == EINVAL && strstr(err, "function count"));
	/* a part past the end */
	make(&t, 116, false, 8);
	put_at(&t, 8 + 6 * 8, t.n + 100, 8);
	CHECK(!gopclntab_new(t.b, t.n, TEXT, err, sizeof(err)) &&
	      errno == EINVAL);
	CHECK(!gopclntab_new(t.b, (size_t)GOPCLNTAB_MAX_SIZE + 1, TEXT, err,
			     sizeof(err)) &&
	      errno == EFBIG);
}

/* A line table of (+1, 0 bytes) steps that never ends: the walk stops
 * at the end of the copy, with no line, in time. */
static void test_endless(void)
{
	size_t pctab = 0, beta, pcln_at;
	struct gopclntab *g;
	const char *file;
	unsigned line;
	struct tab t;

	make(&t, 118, false, 8);
	for (unsigned i = 0; i < 8; i++)
		pctab |= (size_t)t.b[8 + 6 * 8 + i] << 8 * i;
	/* main.beta's _func: after the function table and main.alpha's */
	beta = t.n - 44;
	pcln_at = beta + 4 + 5 * 4;
	put_at(&t, pcln_at, t.n - pctab, 4);
	while (t.n < sizeof(t.b))
		put(&t, t.n % 2 ? 0 : 2, 1);
	g = gopclntab_new(t.b, t.n, TEXT, NULL, 0);
	CHECK(g != NULL);
	CHECK(g && gopclntab_line(g, TEXT + 0x40, &file, &line) == -1 &&
	      errno == ENOENT);
	CHECK(g && gopclntab_line(g, TEXT, &file, &line) == 0 && line == 10);
	gopclntab_free(g);
}

static void put32(uint8_t *b, uint32_t v)
{
	for (unsigned i = 0; i < 4; i++)
		b[i] = (uint8_t)(v >> 8 * i);
}

static void put64(uint8_t *b, uint64_t v)
{
	put32(b, (uint32_t)v);
	put32(b + 4, (uint32_t)(v >> 32));
}

/*
 * A 1.18 table of one function, main.x at TEXT, whose line table has a
 * pair (+1, 1 byte) more than GOPCLNTAB_MAX_STEPS, so line N at TEXT + N:
 * a lookup that needs more pairs than that gets no line, the one that
 * needs them all gets it.  Without the limit a hostile table makes every
 * lookup walk all of it.
 */
static void test_long_walk(void)
{
	const size_t funcname = 0x100, cu = 0x120, filetab = 0x130,
		     funcdata = 0x200, pctab = 0x1000;
	size_t len = pctab + 16 + 2 * (GOPCLNTAB_MAX_STEPS + 16);
	uint8_t *b = calloc(1, len), *f;
	struct gopclntab *g;
	const char *file;
	unsigned line;

	CHECK(b != NULL);
	if (!b)
		return;
	put32(b, 0xfffffff0);
	b[6] = 1;	  /* PC quantum */
	b[7] = 8;	  /* pointer size */
	put64(b + 8, 1);  /* nfunc */
	put64(b + 16, 1); /* nfiles */
	put64(b + 24, TEXT);
	put64(b + 32, funcname);
	put64(b + 40, cu);
	put64(b + 48, filetab);
	put64(b + 56, pctab);
	put64(b + 64, funcdata);
	memcpy(b + funcname, "main.x", 7);
	memcpy(b + filetab, "x.go", 5); /* cu 0's file 0: offset 0 */
	put32(b + funcdata + 4, 0x40);	/* main.x at 0, its _func at 0x40 */
	put32(b + funcdata + 8, 0x7fffffff); /* the end of the text */
	f = b + funcdata + 0x40;
	put32(f + 4 + 4 * 4, 1); /* pcfile: pctab + 1 */
	put32(f + 4 + 5 * 4, 6); /* pcln: pctab + 6 */
	/* pcfile: file 0 for 2^28 - 1 bytes */
	memcpy(b + pctab + 1, "\x02\xff\xff\xff\x7f", 5);
	for (size_t i = pctab + 6; i + 1 < len; i += 2) {
		b[i] = 2;
		b[i + 1] = 1;
	}
	g = gopclntab_new(b, len, TEXT, NULL, 0);
	CHECK(g != NULL);
	CHECK(g && gopclntab_line(g, TEXT + 1000, &file, &line) == 0 &&
	      line == 1000 && !strcmp(file, "x.go"));
	CHECK(g &&
	      gopclntab_line(g, TEXT + GOPCLNTAB_MAX_STEPS - 1, &file, &line) ==
		      0 &&
	      line == GOPCLNTAB_MAX_STEPS - 1);
	CHECK(g &&
	      gopclntab_line(g, TEXT + GOPCLNTAB_MAX_STEPS + 8, &file, &line) ==
		      -1 &&
	      errno == ENOENT);
	gopclntab_free(g);
	free(b);
}

/* From a file, as symbolize_stripped.c reads it: at an offset, cut short. */
static void test_read(void)
{
	char path[] = "/tmp/test_gopclntab.XXXXXX", err[128];
	struct gopclntab *g;
	struct tab t;
	int fd = mkstemp(path);

	CHECK(fd >= 0);
	if (fd < 0)
		return;
	unlink(path);
	make(&t, 120, false, 8);
	CHECK(pwrite(fd, "junk", 4, 0) == 4);
	CHECK(pwrite(fd, t.b, t.n, 4) == (ssize_t)t.n);
	g = gopclntab_read(fd, 4, t.n, TEXT, err, sizeof(err));
	CHECKF(g != NULL, "%s", err);
	if (g)
		check_answers(g, "read from a file");
	gopclntab_free(g);
	CHECK(!gopclntab_read(fd, 4, t.n + 1, TEXT, err, sizeof(err)) &&
	      errno == EIO && strstr(err, "file ends"));
	CHECK(!gopclntab_read(fd, 4, (uint64_t)GOPCLNTAB_MAX_SIZE + 1, TEXT,
			      err, sizeof(err)) &&
	      errno == EFBIG);
	close(fd);
}

/* The Go program: where() records the PC of its call in leaf(), which
 * the compiler inlines into mid(), inlined into main(); main prints that
 * PC, then each frame the runtime expands there, "func line". */
static const char go_src[] =
	"package main\n"
	"\n"
	"import (\n"
	"\t\"fmt\"\n"
	"\t\"runtime\"\n"
	")\n"
	"\n"
	"var sink uintptr\n"
	"var stack [8]uintptr\n"
	"var depth int\n"
	"\n"
	"//go:noinline\n"
	"func where() uintptr {\n"
	"\tpc, _, _, _ := runtime.Caller(1)\n"
	"\tdepth = runtime.Callers(2, stack[:])\n"
	"\treturn pc\n"
	"}\n"
	"\n"
	"func leaf(x int) int {\n"
	"\tsink = where()\n"
	"\treturn x + 1\n"
	"}\n"
	"\n"
	"func mid(x int) int {\n"
	"\treturn leaf(x) * 2\n"
	"}\n"
	"\n"
	"func main() {\n"
	"\tmid(3)\n"
	"\tfmt.Printf(\"%x\\n\", sink)\n"
	"\tframes := runtime.CallersFrames(stack[:depth])\n"
	"\tfor {\n"
	"\t\tf, more := frames.Next()\n"
	"\t\tfmt.Printf(\"%s %d\\n\", f.Function, f.Line)\n"
	"\t\tif !more || f.Function == \"main.main\" {\n"
	"\t\t\tbreak\n"
	"\t\t}\n"
	"\t}\n"
	"}\n";

/* The runtime's answer: the PC and up to 4 frames, outer last. */
struct go_answer {
	unsigned long long pc;
	char func[4][64];
	unsigned line[4];
	size_t n;
};

/* Build the program in dir and run it; false (and the test skipped)
 * when there is no go command. */
static bool go_build(const char *dir, struct go_answer *a)
{
	char path[512], cmd[2048];
	FILE *f;

	snprintf(path, sizeof(path), "%s/inl.go", dir);
	f = fopen(path, "w");
	CHECK(f != NULL);
	if (!f)
		return false;
	fputs(go_src, f);
	fclose(f);
	if (system("command -v go >/dev/null 2>&1") != 0) {
		fprintf(stderr, "test_gopclntab: no go command, "
				"the real binary's part skipped\n");
		return false;
	}
	snprintf(cmd, sizeof(cmd),
		 "cd %s && GOCACHE=%s/cache GOPATH=%s/gopath GOFLAGS=-mod=mod "
		 "GOPROXY=off GO111MODULE=off go build -ldflags='-s -w' "
		 "-o inl inl.go && ./inl > out",
		 dir, dir, dir);
	CHECKF(system(cmd) == 0, "%s failed", cmd);
	snprintf(path, sizeof(path), "%s/out", dir);
	f = fopen(path, "r");
	CHECK(f != NULL);
	if (!f)
		return false;
	CHECK(fscanf(f, "%llx", &a->pc) == 1);
	for (a->n = 0; a->n < 4 &&
		       fscanf(f, "%63s %u", a->func[a->n], &a->line[a->n]) == 2;
	     a->n++)
		;
	fclose(f);
	CHECKF(a->n == 3 && !strcmp(a->func[0], "main.leaf") &&
		       !strcmp(a->func[1], "main.mid") &&
		       !strcmp(a->func[2], "main.main"),
	       "the Go program says %zu frames, not leaf, mid, main", a->n);
	return a->n == 3;
}

/* The section of elf named name, or the one holding address addr. */
static bool section(Elf *elf, const char *name, uint64_t addr, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;
	size_t shstr;

	if (elf_getshdrstrndx(elf, &shstr))
		return false;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *n;

		if (!gelf_getshdr(scn, sh))
			continue;
		n = elf_strptr(elf, shstr, sh->sh_name);
		if (name ? n && !strcmp(n, name) :
			   sh->sh_type == SHT_PROGBITS && addr >= sh->sh_addr &&
				    addr - sh->sh_addr < sh->sh_size)
			return true;
	}
	return false;
}

/* The 32-bit little-endian word at p. */
static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

/*
 * The real binary's tree through gopclntab.h, then damaged: each record
 * that names main.leaf or main.mid (found by name offset) made its own
 * caller (parentPc back at pc: a cycle of one), then both (a cycle of
 * two): no answer, in bounded time; then each byte of those records
 * changed: any answer, within the copy.
 */
static void test_real_hostile(const char *bin, uint64_t pc)
{
	GElf_Shdr tab, nd, text, rod;
	struct symbol_frame fr[4];
	struct gopclntab *t = NULL;
	uint8_t *b = NULL, *fd = NULL;
	const char *name;
	uint64_t gofunc, entry, fdlen;
	size_t rec, noff, poff, hits[8], nhits = 0, nnames = 0, n;
	uint8_t *raw = NULL, *bad;
	uint32_t names[2] = { 0, 0 }, fnt;
	int f = open(bin, O_RDONLY);
	Elf *elf;

	CHECK(f >= 0 && elf_version(EV_CURRENT) != EV_NONE);
	elf = f >= 0 ? elf_begin(f, ELF_C_READ, NULL) : NULL;
	CHECK(elf && section(elf, ".gopclntab", 0, &tab) &&
	      section(elf, ".noptrdata", 0, &nd) &&
	      section(elf, ".text", 0, &text));
	if (!elf)
		goto out;
	t = gopclntab_read(f, tab.sh_offset, tab.sh_size, text.sh_addr, NULL,
			   0);
	b = malloc(nd.sh_size);
	CHECK(t && b &&
	      pread(f, b, nd.sh_size, (off_t)nd.sh_offset) ==
		      (ssize_t)nd.sh_size);
	if (!t || !b)
		goto out;
	CHECK(gopclntab_gofunc(t, b, nd.sh_size, nd.sh_addr, tab.sh_addr,
			       &gofunc) == 0 &&
	      section(elf, NULL, gofunc, &rod));
	fdlen = rod.sh_size - (gofunc - rod.sh_addr);
	fd = malloc(fdlen);
	CHECK(fd && pread(f, fd, fdlen,
			  (off_t)(rod.sh_offset + gofunc - rod.sh_addr)) ==
			    (ssize_t)fdlen);
	CHECK(gopclntab_inline(t, pc, fr, 4, NULL, NULL) == 0); /* no data */
	CHECK(gopclntab_set_funcdata(t, fd, fdlen) == 0);
	CHECK(gopclntab_inline(t, pc, fr, 4, NULL, NULL) == 2 &&
	      !strcmp(fr[0].func, "main.leaf"));
	CHECK(gopclntab_func(t, pc, &name, &entry) == 0);
	/* the records: 1.18's func_ at 12, parentPc at 16 of 20 bytes;
	 * 1.20's nameOff at 4, parentPc at 8 of 16 */
	rec = gopclntab_version(t) >= 120 ? 16 : 20;
	noff = gopclntab_version(t) >= 120 ? 4 : 12;
	poff = noff + 4;
	/* main.leaf's and main.mid's name offsets, from the raw table:
	 * funcnametab is header word 3 (8-byte pointers, Go 1.18+) */
	raw = malloc(tab.sh_size + 1);
	CHECK(raw && pread(f, raw, tab.sh_size, (off_t)tab.sh_offset) ==
			     (ssize_t)tab.sh_size);
	if (!raw)
		goto out;
	raw[tab.sh_size] = '\0';
	fnt = le32(raw + 8 + 3 * 8);
	for (size_t i = fnt; i + 10 < tab.sh_size; i++)
		if (raw[i - 1] == '\0' &&
		    (!strcmp((char *)raw + i, "main.leaf") ||
		     !strcmp((char *)raw + i, "main.mid")))
			names[nnames++ % 2] = (uint32_t)(i - fnt);
	CHECK(nnames == 2);
	for (size_t i = 0; i + rec <= fdlen && nhits < 8; i += 4)
		if (le32(fd + i + noff) == names[0] ||
		    le32(fd + i + noff) == names[1])
			hits[nhits++] = i;
	CHECKF(nhits >= 2, "%zu records name main.leaf or main.mid", nhits);
	/* each its own caller, then all of them: cycles */
	for (size_t h = 0; h <= nhits; h++) {
		memcpy(bad = malloc(fdlen), fd, fdlen);
		for (size_t k = 0; k < nhits; k++)
			if (k == h || h == nhits)
				for (unsigned by = 0; by < 4; by++)
					bad[hits[k] + poff + by] =
						(uint8_t)((pc - entry) >>
							  8 * by);
		CHECK(gopclntab_set_funcdata(t, bad, fdlen) == 0);
		n = gopclntab_inline(t, pc, fr, 4, NULL, NULL);
		CHECKF(h < nhits || n == 0, "a cycle gave %zu frames", n);
		free(bad);
	}
	/* every byte of those records changed */
	for (size_t k = 0; k < nhits; k++)
		for (size_t i = 0; i < rec; i++)
			for (unsigned v = 0; v < 256; v += 51) {
				memcpy(bad = malloc(fdlen), fd, fdlen);
				bad[hits[k] + i] = (uint8_t)v;
				CHECK(gopclntab_set_funcdata(t, bad, fdlen) ==
				      0);
				n = gopclntab_inline(t, pc, fr, 4, NULL, NULL);
				for (size_t m = 0; m < n; m++)
					CHECK(fr[m].func &&
					      strlen(fr[m].func) < 4096);
				free(bad);
			}
out:
	gopclntab_free(t);
	free(raw);
	free(fd);
	free(b);
	if (elf)
		elf_end(elf);
	if (f >= 0)
		close(f);
}

static void test_real(void)
{
	char dir[] = "/tmp/test_gopclntab.XXXXXX", maps[1024], bin[600];
	struct symbol_frame fr[SYMBOLIZE_MAX_INLINE];
	struct symbolizer *sym;
	struct symbol_info si;
	struct go_answer a;
	const char *of = NULL;
	unsigned ol = 0;
	struct stat st;
	size_t n;

	CHECK(mkdtemp(dir) != NULL);
	if (!go_build(dir, &a))
		goto out;
	snprintf(bin, sizeof(bin), "%s/inl", dir);
	CHECK(stat(bin, &st) == 0);
	/* a non-PIE Go binary: its first segment at 0x400000, offset 0 */
	snprintf(maps, sizeof(maps),
		 "00400000-%08llx r-xp 00000000 %02x:%02x %llu %s\n",
		 0x400000ull + (unsigned long long)st.st_size,
		 (unsigned)(st.st_dev >> 8), (unsigned)(st.st_dev & 0xff),
		 (unsigned long long)st.st_ino, bin);
	sym = symbolizer_new(maps, strlen(maps), NULL, 0);
	CHECK(sym != NULL);
	if (!sym)
		goto out;
	CHECK(symbolizer_lookup(sym, a.pc, &si) == 0 && si.func &&
	      !strcmp(si.func, "main.main"));
	n = symbolizer_lookup_inline(sym, a.pc, fr, SYMBOLIZE_MAX_INLINE, &of,
				     &ol);
	CHECKF(n == 2, "%zu inlined frames at %#llx, not 2", n, a.pc);
	if (n == 2) {
		CHECKF(fr[0].func && !strcmp(fr[0].func, "main.leaf") &&
			       fr[0].line == a.line[0] && fr[0].file &&
			       strstr(fr[0].file, "inl.go"),
		       "innermost %s:%u, not main.leaf:%u", fr[0].func,
		       fr[0].line, a.line[0]);
		CHECKF(fr[1].func && !strcmp(fr[1].func, "main.mid") &&
			       fr[1].line == a.line[1],
		       "then %s:%u, not main.mid:%u", fr[1].func, fr[1].line,
		       a.line[1]);
		CHECKF(ol == a.line[2] && of && strstr(of, "inl.go"),
		       "outer line %u, not %u", ol, a.line[2]);
	}
	/* max 1: the innermost kept, the outer line still said */
	ol = 0;
	n = symbolizer_lookup_inline(sym, a.pc, fr, 1, &of, &ol);
	CHECK(n == 1 && !strcmp(fr[0].func, "main.leaf") && ol == a.line[2]);
	symbolizer_free(sym);
	test_real_hostile(bin, a.pc);
out:
	snprintf(bin, sizeof(bin), "rm -rf %s", dir);
	CHECK(system(bin) == 0);
}

int main(void)
{
	test_layouts();
	test_hostile();
	test_endless();
	test_long_walk();
	test_read();
	test_real();
	return unit_result("test_gopclntab");
}
