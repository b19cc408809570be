/*
 * sampler_py.c - the sampler's Python half (issue 16): a process's
 * CPython runtime found at attach or exec, each stopped thread's frame
 * chain read in the stop window, and merged into its native stack after
 * the release.  Private to the sampler (sampler_int.h); pyrt.h,
 * pymerge.h and pyframes.h are the contracts it follows.
 *
 * What is done when:
 *  - sampler_py_open() (attach, exec): look for _PyRuntime and
 *    Py_Version in .dynsym of the main executable and of a mapped
 *    libpython3.X.so, and for _PyEval_EvalFrameDefault's range.  None:
 *    a native process, nothing more is done for it.  (cfg->py_detect:
 *    only counted, for a note.)
 *  - sampler_py_ready() (after a release, rate-limited): pyrt_open(),
 *    pyrt_threads(), pyrt_check() against /proc/PID/task.  A runtime not
 *    yet initialized (a COMMAND just exec'd) is tried again for a few
 *    seconds; any other failure is final: native-only stacks, and one
 *    sentence in stats->py_warning for the command line to print.
 *  - sampler_py_frames() (the stop window, thread stopped): the thread's
 *    frames through the page cache into the tick's frame arena; nothing
 *    else (a thread with no known thread state: nothing at all).
 *  - sampler_py_name() (right after the release, before any unwind):
 *    the code objects the frames name read through a bounded cache,
 *    frames interned as [py] PCs.
 *  - sampler_py_merge() (after the thread's unwind): the merge.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elf/debugfile.h"
#include "elf/loadseg.h"
#include "proc/mapfile.h"
#include "proc/vmread.h"
#include "python/pyframes.h"
#include "python/pymerge.h"
#include "sampler/sampler_int.h"
#include "util/grow.h"
#include "util/hash.h"
#include "util/hashtab.h"
#include "util/timeutil.h"

#define PY_CODE_MAX 2048		 /* code objects kept, at most */
#define PY_CODE_BYTES (8u << 20)	 /* ... and their names and tables */
#define PY_RETRY_NS (50 * NSEC_PER_MSEC) /* a runtime not ready: again */
#define PY_RETRY_FOR_NS (10ull * NSEC_PER_SEC) /* ... for so long */
#define PY_REFRESH_NS (20 * NSEC_PER_MSEC) /* thread states, at most so often */
#define PY_SCANS 8 /* an image's maps looked at for CPython, at most */
#define PY_TRIES 3 /* a check failed: tried again so often */
#define PY_FRESH_NS (10 * NSEC_PER_MSEC) /* frames named within so long */

enum py_state { PY_PENDING, PY_READY, PY_OFF };

struct py_code_ent {
	uint64_t addr;
	bool ok; /* pyrt_code() read it (else: unreadable, no retry) */
	struct pycode code;
};

struct sampler_py {
	enum py_state state;
	pid_t pid;
	uint64_t version_at; /* Py_Version's address */
	uint64_t runtime;
	uint64_t eval_lo, eval_hi; /* _PyEval_EvalFrameDefault's code */
	uint64_t found_ns, tried_ns, refreshed_ns;
	unsigned tries; /* failures that may pass (not_yet()) */
	struct pyrt *rt;
	struct pyrt_pages pages;
	struct pyrt_thread *threads; /* sorted by native_id */
	size_t nthreads, cap_threads;
	/* code objects read (room for PY_CODE_MAX, allocated at first
	 * use), and their address's hash -> index; looked up and read in
	 * sampler_py_name() only, after the release (every thread let go):
	 * never in the stop window, where nothing may allocate */
	struct py_code_ent *codes;
	size_t ncodes;
	struct hashtab code_idx;
	size_t code_bytes; /* their names and line tables */
};

/* The target's memory, read while it is stopped or not. */
static int py_read(void *arg, uint64_t addr, void *buf, size_t len)
{
	const struct sampler_py *py = arg;

	return vmread_all(py->pid, addr, buf, len);
}

struct py_syms {
	uint64_t runtime, version, eval_lo, eval_hi;
	/* an image with _PyRuntime but no Py_Version (CPython before 3.11,
	 * which added it): its base name, for the warning */
	char old[64];
};

/* The load bias of the executable mapping e of elf. */
static bool elf_bias(Elf *elf, const struct map_entry *e, uint64_t *bias)
{
	size_t n;
	Elf64_Phdr ph[64];
	const Elf64_Phdr *seg;

	if (elf_getphdrnum(elf, &n) || n == 0)
		return false;
	if (n > 64)
		n = 64;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr g;

		if (!gelf_getphdr(elf, (int)i, &g))
			return false;
		memcpy(&ph[i], &g, sizeof(ph[i]));
	}
	seg = loadseg_exec(ph, n, e->offset);
	if (!seg)
		return false;
	*bias = loadseg_bias(seg, e->start, e->offset);
	return true;
}

/*
 * The three symbols in elf's .dynsym (each 0 when absent), biased.
 * Kept here rather than taken from the tree: symbolize.c reads a file's
 * symbols only to name addresses (each table read whole, sorted by
 * address, with .symtab and the debug file's first), and no module of
 * src/elf/ looks a symbol up by name.  This is one pass over .dynsym,
 * at attach or exec, outside the stop window.
 */
static void dynsym_find(Elf *elf, uint64_t bias, struct py_syms *out)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *d;
		size_t n;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM ||
		    !sh.sh_entsize)
			continue;
		d = elf_getdata(scn, NULL);
		n = d ? d->d_size / sh.sh_entsize : 0;
		for (size_t i = 0; i < n; i++) {
			GElf_Sym sym;
			const char *name;

			if (!gelf_getsym(d, (int)i, &sym) || !sym.st_value ||
			    sym.st_shndx == SHN_UNDEF)
				continue;
			name = elf_strptr(elf, sh.sh_link, sym.st_name);
			if (!name)
				continue;
			if (!strcmp(name, "_PyRuntime"))
				out->runtime = sym.st_value + bias;
			else if (!strcmp(name, "Py_Version"))
				out->version = sym.st_value + bias;
			else if (!strcmp(name, "_PyEval_EvalFrameDefault")) {
				out->eval_lo = sym.st_value + bias;
				out->eval_hi = out->eval_lo + sym.st_size;
			}
		}
		return;
	}
}

/* Is e the main executable of p, or a libpython3? */
static bool py_candidate(const struct sampler_proc *p,
			 const struct map_entry *e)
{
	const char *base;

	if (!e->exec || e->gone || !maps_entry_is_file(e))
		return false;
	if (e->ino && e->ino == (uint64_t)p->exe_ino)
		return true;
	base = strrchr(e->path, '/');
	base = base ? base + 1 : e->path;
	return !strncmp(base, "libpython3", 10);
}

static bool find_syms(const struct sampler_proc *p, struct py_syms *out)
{
	const struct maps *m = p->im->maps;
	char old[sizeof(out->old)] = "";

	for (size_t i = 0; i < maps_count(m); i++) {
		const struct map_entry *e = maps_entry(m, i);
		struct mapfile_ref ref;
		uint64_t bias;
		int fd;
		Elf *elf;

		if (!py_candidate(p, e))
			continue;
		ref = (struct mapfile_ref){ e->path, e->start, e->end, e->ino,
					    e->dev };
		elf = debugfile_elf_begin(mapfile_open_exact(NULL, p->pid,
							     &ref),
					  &fd);
		if (!elf)
			continue;
		memset(out, 0, sizeof(*out));
		if (elf_bias(elf, e, &bias))
			dynsym_find(elf, bias, out);
		elf_end(elf);
		close(fd);
		if (out->runtime && out->version)
			return true;
		if (out->runtime && !old[0]) {
			const char *base = strrchr(e->path, '/');

			snprintf(old, sizeof(old), "%s",
				 base ? base + 1 : e->path);
		}
	}
	memcpy(out->old, old, sizeof(old));
	return false;
}

static bool try_open(struct sampler *s, struct sampler_proc *p, uint64_t now);
static void py_refuse(struct sampler *s, struct sampler_proc *p,
		      const char *why);

/* At attach or exec: is p's image a CPython one?  Quiet when not. */
void sampler_py_open(struct sampler *s, struct sampler_proc *p)
{
	struct py_syms sy;

	if ((!s->cfg->pyframes && !s->cfg->py_detect) || !p->im ||
	    !p->im->maps || p->py_found)
		return;
	p->py_scans++;
	p->py_scan_maps = maps_count(p->im->maps);
	if (!find_syms(p, &sy)) {
		char why[160];

		if (!sy.old[0] || !s->cfg->pyframes)
			return;
		/* Once per process: a CPython this old is not read. */
		p->py_found = true;
		snprintf(why, sizeof(why),
			 "%s has _PyRuntime but no Py_Version: CPython before "
			 "3.11, which is not supported",
			 sy.old);
		py_refuse(s, p, why);
		return;
	}
	p->py_found = true;
	if (!s->cfg->pyframes) {
		if (!s->st->py_detected++)
			s->st->py_detected_pid = p->pid;
		return;
	}
	p->py = calloc(1, sizeof(*p->py));
	if (!p->py)
		return;
	p->py->pid = p->pid;
	p->py->runtime = sy.runtime;
	p->py->version_at = sy.version;
	p->py->eval_lo = sy.eval_lo;
	p->py->eval_hi = sy.eval_hi;
	p->py->found_ns = mono_now_ns();
	p->py->state = PY_PENDING;
	pyrt_pages_init(&p->py->pages, py_read, p->py);
	/* At once: a process attached (-p, dump) is ready, and its first
	 * stop window can read frames then. */
	try_open(s, p, p->py->found_ns);
}

static void codes_flush(struct sampler_py *py)
{
	for (size_t i = 0; i < py->ncodes; i++)
		pycode_free(&py->codes[i].code);
	hashtab_clear(&py->code_idx);
	py->ncodes = 0;
	py->code_bytes = 0;
}

void sampler_py_close(struct sampler_proc *p)
{
	if (!p->py)
		return;
	codes_flush(p->py);
	free(p->py->codes);
	hashtab_free(&p->py->code_idx);
	free(p->py->threads);
	pyrt_close(p->py->rt);
	free(p->py);
	p->py = NULL;
}

static int cmp_thread(const void *a, const void *b)
{
	const struct pyrt_thread *x = a, *y = b;

	return x->native_id < y->native_id ? -1 : x->native_id > y->native_id;
}

/* The thread states again: 0 or -1 (err says why). */
static int read_threads(struct sampler_py *py, char *err, size_t errlen)
{
	int n = pyrt_threads(py->rt, py->threads, py->cap_threads, err, errlen);

	if (n > 0 && (size_t)n > py->cap_threads) {
		struct pyrt_thread *t = grow_array(py->threads,
						   &py->cap_threads, (size_t)n,
						   sizeof(*t));

		if (!t)
			return -1;
		py->threads = t;
		n = pyrt_threads(py->rt, py->threads, py->cap_threads, err,
				 errlen);
	}
	if (n < 0)
		return -1;
	py->nthreads = (size_t)n < py->cap_threads ? (size_t)n :
						     py->cap_threads;
	qsort(py->threads, py->nthreads, sizeof(*py->threads), cmp_thread);
	return 0;
}

/*
 * Has p's process exited (its memory gone: process_vm_readv() gives
 * ESRCH for a zombie, whose mm is released, as for a reaped one)?  A
 * forked child that runs a little and calls os._exit() is often gone
 * while its runtime is opened; that is no runtime to refuse, and no
 * warning to give (tests/chaos/python-churn.test saw "Py_Version
 * unreadable" for one).
 */
static bool py_gone(const struct sampler_py *py)
{
	uint32_t v;

	return py_read((void *)py, py->version_at, &v, sizeof(v)) &&
	       errno == ESRCH;
}

static void py_refuse(struct sampler *s, struct sampler_proc *p,
		      const char *why)
{
	if (p->py && py_gone(p->py)) {
		/* Exited: nothing refused, nothing to say. */
		pyrt_close(p->py->rt);
		p->py->rt = NULL;
		p->py->state = PY_OFF;
		return;
	}
	s->st->py_refused++;
	if (!s->st->py_warning[0])
		snprintf(s->st->py_warning, sizeof(s->st->py_warning),
			 "process %d: CPython runtime not read (%s): "
			 "native stacks only",
			 (int)p->pid, why);
	if (!p->py)
		return; /* refused before it was opened (too old) */
	pyrt_close(p->py->rt);
	p->py->rt = NULL;
	p->py->state = PY_OFF;
}

/*
 * A runtime that is not ready yet, to be tried again: before
 * Py_Initialize() the interpreter list is empty, and for a moment no
 * thread state is bound to the main thread (a COMMAND just exec'd is
 * attached that early), for PY_RETRY_FOR_NS at most.  Anything else may
 * be a thread listed since our /proc/PID/task listing: a few tries
 * (PY_TRIES), then it is final (a lying _PyRuntime fails at once).
 */
static bool not_yet(struct sampler_py *py, const char *err, uint64_t now)
{
	if (now - py->found_ns >= PY_RETRY_FOR_NS)
		return false;
	if (strstr(err, "no valid interpreter list") ||
	    strstr(err, "no thread state is bound"))
		return true;
	return ++py->tries < PY_TRIES;
}

/* pyrt_open() and the checks; false: not yet (try again later). */
static bool try_open(struct sampler *s, struct sampler_proc *p, uint64_t now)
{
	struct sampler_py *py = p->py;
	char err[160] = "";
	uint32_t version;
	struct tidlist tids = { 0 };
	bool bad;

	py->tried_ns = now;
	if (py_read(py, py->version_at, &version, sizeof(version))) {
		py_refuse(s, p, "Py_Version unreadable");
		return true;
	}
	py->rt = pyrt_open(version, py->runtime, pyrt_pages_read, &py->pages,
			   err, sizeof(err));
	pyrt_pages_reset(&py->pages);
	if (!py->rt) {
		if (not_yet(py, err, now))
			return false;
		py_refuse(s, p, err[0] ? err : "pyrt_open failed");
		return true;
	}
	/* Listed now: a thread state names the threads of this moment. */
	if (procfs_list_tasks(p->pid, &tids))
		tids.n = 0;
	bad = pyrt_check(py->rt, tids.tids, tids.n, err, sizeof(err)) ||
	      read_threads(py, err, sizeof(err));
	procfs_tidlist_free(&tids);
	if (bad) {
		pyrt_pages_reset(&py->pages);
		if (not_yet(py, err, now)) {
			pyrt_close(py->rt);
			py->rt = NULL;
			return false;
		}
		py_refuse(s, p, err[0] ? err : "thread states unreadable");
		return true;
	}
	pyrt_pages_reset(&py->pages);
	py->state = PY_READY;
	py->refreshed_ns = now;
	s->st->py_procs++;
	return true;
}

/* After a release: open p's runtime when it is due. */
void sampler_py_ready(struct sampler *s, struct sampler_proc *p)
{
	uint64_t now;

	/* Right after an exec only the executable and ld.so are mapped:
	 * a libpython3.X.so comes later.  Look again when the maps grew,
	 * PY_SCANS times at most per image (dlopen churn costs nothing). */
	if (!p->py_found && p->py_scans < PY_SCANS && p->im && p->im->maps &&
	    maps_count(p->im->maps) != p->py_scan_maps)
		sampler_py_open(s, p);
	if (!p->py || p->py->state != PY_PENDING)
		return;
	now = mono_now_ns();
	if (p->py->tried_ns && now - p->py->tried_ns < PY_RETRY_NS)
		return;
	try_open(s, p, now);
}

static const struct pyrt_thread *find_tstate(const struct sampler_py *py,
					     pid_t tid)
{
	struct pyrt_thread key = { .native_id = (uint64_t)tid };

	return bsearch(&key, py->threads, py->nthreads, sizeof(key),
		       cmp_thread);
}

/*
 * The stop window (th stopped, its registers taken): its frames into the
 * tick's frame arena (room made by sampler_py_reserve()).  Only reads of
 * the frame chain, through the page cache.
 */
void sampler_py_frames(struct sampler *s, struct thread *th)
{
	struct sampler_py *py = th->proc->py;
	const struct pyrt_thread *t;
	uint64_t t0;
	int status = PYRT_END, n;

	s->pyb.cur_n = 0;
	s->pyb.cur_status = -1;
	if (!py || py->state != PY_READY || !s->pyb.pyf)
		return;
	t = find_tstate(py, th->tid);
	if (!t)
		return;
	t0 = mono_now_ns();
	pyrt_pages_reset(&py->pages);
	n = pyrt_frames(py->rt, t->tstate, s->pyb.pyf + s->pyb.npyf,
			PY_FRAMES_MAX, &status);
	s->st->py_walk_ns += mono_now_ns() - t0;
	s->st->py_walks++;
	s->st->py_page_reads += py->pages.reads;
	py->pages.reads = 0;
	s->pyb.cur_n = n > 0 ? (size_t)n : 0;
	s->pyb.cur_status = status;
	s->pyb.cur_ns = t0;
}

/* Room for one more thread's frames in the arena. */
int sampler_py_reserve(struct sampler *s)
{
	struct pyrt_frame *f;
	struct py_named *nm;

	if (!s->cfg->pyframes)
		return 0;
	f = grow_array(s->pyb.pyf, &s->pyb.cap_pyf, s->pyb.npyf + PY_FRAMES_MAX,
		       sizeof(*f));
	if (!f)
		return -1;
	s->pyb.pyf = f;
	nm = grow_array(s->pyb.named, &s->pyb.cap_named,
			s->pyb.npyf + PY_FRAMES_MAX, sizeof(*nm));
	if (!nm)
		return -1;
	s->pyb.named = nm;
	return 0;
}

struct py_merge_ctx {
	const struct pyrt_frame *frames;
	const struct py_named *named; /* sampler_py_name()'s, beside frames */
};

static bool in_eval(void *arg, uint64_t pc, size_t i)
{
	const struct sampler_py *py = arg;

	if (i)
		pc--; /* a return address: the call is before it */
	return pc >= py->eval_lo && pc < py->eval_hi;
}

/* What a cached code object holds in the heap. */
static size_t code_size(const struct pycode *c)
{
	return sizeof(*c) + c->linetable_len +
	       (c->name ? strlen(c->name) + 1 : 0) +
	       (c->qualname ? strlen(c->qualname) + 1 : 0) +
	       (c->filename ? strlen(c->filename) + 1 : 0);
}

/* Read the code object at addr into entry c (its addr set). */
static const struct pycode *code_read(struct sampler *s, struct sampler_py *py,
				      struct py_code_ent *c, uint64_t addr)
{
	if (c->addr && c->ok && py->code_bytes >= code_size(&c->code))
		py->code_bytes -= code_size(&c->code);
	pycode_free(&c->code);
	pyrt_pages_reset(&py->pages);
	c->addr = addr;
	c->ok = pyrt_code(py->rt, addr, &c->code) == 0;
	pyrt_pages_reset(&py->pages);
	if (c->ok)
		py->code_bytes += code_size(&c->code);
	s->st->py_code_reads++;
	return c->ok ? &c->code : NULL;
}

/* Read the code object at addr (hash h, not cached) into a new entry;
 * room for one is there (PY_CODE_MAX, the index reserved). */
static const struct pycode *code_new(struct sampler *s, struct sampler_py *py,
				     uint64_t h, uint64_t addr)
{
	struct py_code_ent *c = &py->codes[py->ncodes];

	*c = (struct py_code_ent){ 0 };
	hashtab_add(&py->code_idx, h, py->ncodes++); /* reserved: no fail */
	return code_read(s, py, c, addr);
}

/*
 * The cached code object at addr, read on a miss (NULL: unreadable).  A
 * hit is checked against the object's identity now (pyrt_code_ident(),
 * one read): the address may be another code object's since it was read
 * (the old one freed), and the cached names would then be another
 * function's.  Seen: a worker thread's middle frame named
 * "<module> (<string>:1)", the code namedtuple exec'd at start-up, whose
 * address the script's function took (tests/chaos/python-churn.test).
 */
static const struct pycode *code_get(struct sampler *s, struct sampler_py *py,
				     uint64_t addr)
{
	uint64_t h = hash_mix64(addr);
	struct hashtab_probe p;
	struct py_code_ent *c;
	uint64_t ident;
	size_t i;
	int r;

	/* at first use: room for all, so code_new() never fails */
	if (hashtab_reserve(&py->code_idx, PY_CODE_MAX) ||
	    (!py->codes && !(py->codes = calloc(PY_CODE_MAX, sizeof(*c)))))
		return NULL;
	hashtab_probe_init(&py->code_idx, h, &p);
	while (hashtab_next(&py->code_idx, &p, &i)) {
		c = &py->codes[i];
		if (c->addr != addr)
			continue;
		pyrt_pages_reset(&py->pages);
		r = pyrt_code_ident(py->rt, addr, &ident);
		pyrt_pages_reset(&py->pages);
		if (r < 0)
			return NULL; /* gone since the stop: no name to trust */
		if (c->ok && c->code.ident == ident)
			return &c->code;
		if (py->code_bytes < PY_CODE_BYTES)
			return code_read(s, py, c, addr); /* another object */
		/* bounded on a re-read too: a target swapping objects at
		 * cached addresses could grow every entry */
		codes_flush(py);
		s->st->py_code_flushes++;
		return code_new(s, py, h, addr);
	}
	/* Bounded: start again.  Bytes too: a code object may hold three
	 * PYRT_MAX_NAME names and a PYRT_MAX_LINETABLE table, so a target
	 * naming 2048 such (a fake runtime) would make the entries alone
	 * keep 140 MB, per process. */
	if (py->ncodes >= PY_CODE_MAX || py->code_bytes >= PY_CODE_BYTES) {
		codes_flush(py);
		s->st->py_code_flushes++;
	}
	return code_new(s, py, h, addr);
}

/* The PC of frame fr, as pymerge_pcs()'s py_pc gives it (0, 1, -1). */
static int name_frame(struct sampler *s, struct sampler_py *py,
		      const struct pyrt_frame *fr, uint64_t *pc)
{
	const struct pycode *c = code_get(s, py, fr->code);
	struct pyframe f = { .module = PYFRAMES_MODULE };
	int line;

	if (!c)
		return -1;
	if (fr->lasti >= 0 && (uint32_t)fr->lasti < c->firsttraceable)
		return 1; /* incomplete: being set up */
	line = pyrt_line(c, fr->lasti);
	f.qualname = c->qualname && c->qualname[0] ? c->qualname : c->name;
	f.filename = c->filename;
	f.firstline = c->firstlineno > 0 ? (uint32_t)c->firstlineno : 0;
	f.line = line > 0 ? (uint32_t)line : 0;
	/* "?": a name that was no str (pyrt.c, read_str()).  Code objects
	 * are read after the release; a module's <module> code is freed as
	 * soon as its import ends, and one read after that, its memory
	 * reused, passed the identity check by chance but named nothing:
	 * "? (__init__.py:1)" at start-up (tests/chaos/python-churn.test,
	 * 2 runs in about 20).  Unnamed, not a frame of garbage. */
	if (!f.qualname || !f.filename || !strcmp(f.qualname, "?") ||
	    !strcmp(f.filename, "?"))
		return -1;
	return pyframes_intern(s->cfg->pyframes, &f, pc) ? -1 : 0;
}

/*
 * Right after the release, before any unwind (sampler_record.c): q's
 * frames named, each frame's PC kept beside it for the merge.  The
 * frames name their code objects by address, and those are read only
 * now: long after the frames (ptprof preempted on a busy machine), an
 * object may have been freed and its address taken by another, which
 * then names the frame.  Seen: the main thread's start-up stack with a
 * frame named worker_mid, where the code exec'd from a .pth file was
 * (tests/chaos/python-churn.test, a CI dry run at load ~4).  Past
 * PY_FRESH_NS, q->py_stale: the stack stays native, and is not counted
 * again (--wall): its frames are read at its next sample.
 *
 * Named before the unwinds, not at the merge: the tick's unwinds come
 * between (the first of an image reads its unwind tables, several ms),
 * and a dump, one tick, then lost its Python frames at once on a busy
 * machine (tests/python-frames.test, 3 runs in 4 at load 6 on 2 CPUs,
 * the merge 12-38 ms after the read, the code reads themselves not).
 */
void sampler_py_name(struct sampler *s, struct queued *q)
{
	struct sampler_py *py = q->th->proc->py;

	q->py_named = true;
	if (!py || py->state != PY_READY || q->py_status != PYRT_END)
		return; /* nothing to name: sampler_py_merge() says why */
	if (mono_now_ns() - q->py_ns > PY_FRESH_NS) {
		q->py_stale = true;
		return;
	}
	for (size_t i = 0; i < q->py_n; i++) {
		struct py_named *nm = &s->pyb.named[q->py_off + i];

		nm->rc = name_frame(s, py, &s->pyb.pyf[q->py_off + i], &nm->pc);
	}
}

static int py_pc(void *arg, uint32_t i, uint64_t *pc)
{
	const struct py_merge_ctx *m = arg;

	if (m->named[i].rc == 0)
		*pc = m->named[i].pc;
	return m->named[i].rc;
}

/* Is any native frame in the eval loop? */
static bool any_eval(const struct sampler_py *py, const uint64_t *pcs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (in_eval((void *)py, pcs[i], i))
			return true;
	return false;
}

/*
 * After the release: pcs[0..n) (the native stack of q's thread) merged
 * with the frames read in the stop window, into s->pyb.mpcs.  Returns the
 * merged stack's length, or 0: keep the native one (counted).  *unread:
 * the stack runs Python code whose frames were not read (the runtime
 * not open yet, the thread state not known yet), though they may be at
 * its next stop: not a stack for --wall to count again.
 */
size_t sampler_py_merge(struct sampler *s, const struct queued *q,
			const uint64_t *pcs, size_t n, bool *unread)
{
	struct sampler_py *py = q->th->proc->py;
	size_t max = stacktab_max_depth(s->tab), nout = 0, unnamed = 0, k;
	struct py_merge_ctx ctx;
	struct pymerge_in in;
	enum pymerge_status st;
	uint64_t now;

	*unread = false;
	if (!py || py->state == PY_OFF || q->py_status >= 0)
		; /* nothing missed, or nothing to miss */
	else
		*unread = any_eval(py, pcs, n);
	if (!py || py->state != PY_READY)
		return 0;
	if (q->py_status < 0) {
		/* No thread state known for it: new since the last listing? */
		if (!*unread)
			return 0;
		s->st->py_no_tstate++;
		now = mono_now_ns();
		if (now - py->refreshed_ns >= PY_REFRESH_NS) {
			char err[160];

			py->refreshed_ns = now;
			s->st->py_refreshes++;
			read_threads(py, err, sizeof(err));
			pyrt_pages_reset(&py->pages);
		}
		return 0;
	}
	s->st->py_status[q->py_status < PY_STATUSES ? q->py_status : 0]++;
	if (q->py_status != PYRT_END) {
		s->st->py_unended++;
		return 0;
	}
	/* Named too late (sampler_py_name()): native, and not counted
	 * again (--wall). */
	if (q->py_stale) {
		s->st->py_stale++;
		*unread = true;
		return 0;
	}
	ctx = (struct py_merge_ctx){ s->pyb.pyf + q->py_off,
				     s->pyb.named + q->py_off };
	in = (struct pymerge_in){ .pcs = pcs,
				  .npcs = n,
				  .native_cut = n >= max,
				  .entry = &ctx.frames[0].is_entry,
				  .entry_stride = sizeof(ctx.frames[0]),
				  .npy = q->py_n,
				  .in_eval = in_eval,
				  .in_eval_arg = py };
	if (s->pyb.cap_mrefs < max) {
		struct pymerge_ref *r = realloc(s->pyb.mrefs, max * sizeof(*r));
		uint64_t *o = realloc(s->pyb.mpcs, max * sizeof(*o));

		if (r)
			s->pyb.mrefs = r;
		if (o)
			s->pyb.mpcs = o;
		if (!r || !o)
			return 0;
		s->pyb.cap_mrefs = max;
	}
	st = pymerge_stack(&in, s->pyb.mrefs, max, &nout);
	if (st == PYMERGE_NO_ENTRY)
		s->st->py_no_entry++;
	else if (st != PYMERGE_OK)
		s->st->py_mismatch++;
	if (st != PYMERGE_OK || !q->py_n)
		return 0;
	k = pymerge_pcs(&in, s->pyb.mrefs, nout, py_pc, &ctx, s->pyb.mpcs,
			&unnamed);
	s->st->py_unnamed += unnamed;
	s->st->py_merged++;
	return k;
}

/* The tick's frame arena and the merge's buffers, at the end of the run. */
void sampler_py_free(struct sampler *s)
{
	free(s->pyb.pyf);
	free(s->pyb.named);
	free(s->pyb.mrefs);
	free(s->pyb.mpcs);
}
