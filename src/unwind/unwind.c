/*
 * unwind.c - libunwind over a captured stack (see unwind.h).
 */
#include "config.h"

#include <elf.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include <libunwind.h>

#include "elf/debugframe.h"
#include "elf/ehframe.h"
#include "elf/loadseg.h"
#include "unwind/fpstep.h"
#include "unwind/modcache.h"
#include "unwind/unwind.h"
#include "util/grow.h"
#include "util/timeutil.h"

/* Exported by libunwind-x86_64 (as _Ux86_64_...), not declared publicly:
 * the DWARF search over a binary-search table described by a
 * unw_dyn_info_t, the function libunwind-ptrace itself ends in. */
#define dwarf_search_unwind_table _Ux86_64_dwarf_search_unwind_table
extern int dwarf_search_unwind_table(unw_addr_space_t as, unw_word_t ip,
				     unw_dyn_info_t *di, unw_proc_info_t *pi,
				     int need_unwind_info, void *arg);

/*
 * libunwind 1.6 takes its cache lock with every signal blocked: two
 * rt_sigprocmask system calls per frame unwound, which measured as two
 * thirds of ptprof's unwinding CPU on deep stacks (tests/syscalls.test
 * prints the count).  The blocking protects a cache shared with signal
 * handlers that unwind; ptprof runs no signal handler at all (its signals
 * are read from a signalfd, its other thread blocks them all), so during
 * an unwind the calls are needless.  ptprof therefore provides
 * sigprocmask() itself: libunwind's calls bind to it (the executable's
 * definition comes first), and while `in_unwind` is set it does nothing;
 * otherwise it is pthread_sigmask(), which is what glibc's is.
 */
static bool in_unwind;

int sigprocmask(int how, const sigset_t *set, sigset_t *old)
{
	int rc;

	if (in_unwind) {
		if (old)
			sigemptyset(old);
		return 0;
	}
	rc = pthread_sigmask(how, set, old);
	if (rc) {
		errno = rc;
		return -1;
	}
	return 0;
}

/* libunwind's register-state cache: 2^14 entries (its maximum is 2^15). */
#define RS_CACHE_SIZE (1u << 14)

/* The unwind tables of one executable mapping: its .eh_frame_hdr (if
 * ok), its .debug_frame converted (if dwf), or both. */
struct unwtab {
	uint64_t start, end;
	bool ok;
	unw_dyn_info_t di;
	const struct debugframe *dwf; /* the module's, see debugframe.h */
	unw_dyn_info_t dwf_di;
};

/*
 * Where libunwind finds a converted .debug_frame: the image of the table
 * of u->tabs[i] (debugframe.h) lies at SYNTH_BASE + i * SYNTH_SLOT in the
 * address space access_mem serves.  SYNTH_BASE is a non-canonical x86-64
 * address (bits 63..47, or 63..56 with 5-level paging, not all equal):
 * no mapping of the target can ever be there, so no read of the target's
 * memory is ever answered from an image by mistake.  An image is at most
 * MODCACHE_MAX_PART bytes, well inside its slot.
 */
#define SYNTH_BASE 0x4000000000000000ULL
#define SYNTH_SLOT (1ULL << 32)

/* A range of target addresses; lists of them are kept sorted by start
 * and disjoint. */
struct range {
	uint64_t start, end;
};

/*
 * Call frame instructions as ehframe_check_cfi() vetted them.  libunwind
 * reads them again after find_proc_info (to run them) and keeps the
 * address of each DWARF expression in its cache, re-reading the
 * expression at every step that uses the cached rule.  Those bytes come
 * from a copy of the target's file (modcache.h), read again after a
 * modcache_flush(), or, outside the parts copied, from the target's own
 * memory: a target that can write that file or memory could swap a
 * vetted rule for a looping one in between.  So access_mem serves these
 * bytes from here, as vetted.
 */
struct pin {
	struct range r;
	uint8_t *bytes;
};

/* The most CFI bytes (CIE and FDE instructions together) vetted and run:
 * a real FDE's are a few hundred bytes at most. */
#define CFI_MAX (256u * 1024)

struct unwinder {
	pid_t pid;
	const struct maps *maps;
	struct modcache *mods;
	unw_addr_space_t as;
	struct unwtab *tabs;
	size_t ntabs, cap;
	uint8_t *cfi; /* CFI_MAX bytes for check_rules(), made on first use */
	struct range *refused; /* FDEs refused (merged where they overlap) */
	size_t nrefused, cap_refused;
	struct pin *pins;
	size_t npins, cap_pins;
	unwinder_hook hook;
	void *hook_arg;
	struct unwinder_counters count;
};

/* What libunwind hands every accessor as `arg` during one unwind. */
struct unwind_ctx {
	struct unwinder *u;
	const struct capture *cap;
	/* The registers libunwind starts from: the capture's, then, after a
	 * frame-pointer step, fp_regs (fp_step()). */
	const struct user_regs_struct *regs;
	struct user_regs_struct fp_regs;
	bool no_info; /* find_proc_info() found no unwind info for an IP */
	/*
	 * A partial capture (peek.h) knows rip and rsp only.  unknown: the
	 * registers of *regs whose values are not known, a bit per libunwind
	 * register number (0 for a full capture).  access_reg() of one fails;
	 * needed_unknown records that a step needed one (the unwind is then
	 * refused), unless carrying: fp_step() reading the callee-saved
	 * registers only to carry them to the caller.
	 */
	uint32_t unknown;
	bool needed_unknown;
	bool carrying;
	bool fp_lazy; /* the current frame is fp_regs, the cursor is stale */
	int fp_steps; /* frame-pointer steps in this unwind */
	const struct map_entry *last; /* mapping of the last module read */
	const struct module *last_mod;
	uint64_t page_addr; /* the target page held in page, if page_ok */
	bool page_ok;
	uint8_t page[4096];
};

/* libunwind x86-64 register numbers -> offsets in user_regs_struct. */
static const size_t reg_offset[] = {
	[UNW_X86_64_RAX] = offsetof(struct user_regs_struct, rax),
	[UNW_X86_64_RDX] = offsetof(struct user_regs_struct, rdx),
	[UNW_X86_64_RCX] = offsetof(struct user_regs_struct, rcx),
	[UNW_X86_64_RBX] = offsetof(struct user_regs_struct, rbx),
	[UNW_X86_64_RSI] = offsetof(struct user_regs_struct, rsi),
	[UNW_X86_64_RDI] = offsetof(struct user_regs_struct, rdi),
	[UNW_X86_64_RBP] = offsetof(struct user_regs_struct, rbp),
	[UNW_X86_64_RSP] = offsetof(struct user_regs_struct, rsp),
	[UNW_X86_64_R8] = offsetof(struct user_regs_struct, r8),
	[UNW_X86_64_R9] = offsetof(struct user_regs_struct, r9),
	[UNW_X86_64_R10] = offsetof(struct user_regs_struct, r10),
	[UNW_X86_64_R11] = offsetof(struct user_regs_struct, r11),
	[UNW_X86_64_R12] = offsetof(struct user_regs_struct, r12),
	[UNW_X86_64_R13] = offsetof(struct user_regs_struct, r13),
	[UNW_X86_64_R14] = offsetof(struct user_regs_struct, r14),
	[UNW_X86_64_R15] = offsetof(struct user_regs_struct, r15),
	[UNW_X86_64_RIP] = offsetof(struct user_regs_struct, rip),
};

#define REG_BIT(reg) (UINT32_C(1) << (reg))

/* A partial capture's registers but rip and rsp. */
#define PARTIAL_UNKNOWN                         \
	(((REG_BIT(UNW_X86_64_RIP) << 1) - 1) & \
	 ~(REG_BIT(UNW_X86_64_RIP) | REG_BIT(UNW_X86_64_RSP)))

/*
 * libunwind (1.6) asks for a register's value only when it needs it:
 * unw_init_remote() reads rip and rsp (x86_64/init.h, common_init()),
 * every other register is a location until a step reads it, to compute
 * a CFA based on it, in a DWARF expression (DW_OP_breg), or as the return
 * address (dwarf/Gparser.c, apply_reg_state(); rsp is the CFA, never
 * read again).  Its frame-chain guess reads rbp too, but only on
 * -UNW_ENOINFO, which find_proc_info() never answers.
 */
static int access_reg(unw_addr_space_t as, unw_regnum_t reg, unw_word_t *val,
		      int write, void *arg)
{
	struct unwind_ctx *ctx = arg;

	(void)as;
	if (write)
		return -UNW_EREADONLYREG;
	if (reg < 0 || (size_t)reg >= sizeof(reg_offset) / sizeof(*reg_offset))
		return -UNW_EBADREG;
	if (ctx->unknown & REG_BIT(reg)) {
		if (!ctx->carrying)
			ctx->needed_unknown = true;
		return -UNW_EBADREG;
	}
	memcpy(val, (const char *)ctx->regs + reg_offset[reg], sizeof(*val));
	return 0;
}

static int access_fpreg(unw_addr_space_t as, unw_regnum_t reg, unw_fpreg_t *val,
			int write, void *arg)
{
	(void)as, (void)reg, (void)val, (void)write, (void)arg;
	return -UNW_EBADREG;
}

/* From the image of a read-only module mapped at addr (no syscall). */
static int read_module(struct unwind_ctx *ctx, uint64_t addr, unw_word_t *val)
{
	const struct map_entry *e = ctx->last;

	if (!e || addr < e->start || addr >= e->end) {
		e = maps_find(ctx->u->maps, addr);
		if (!e || e->write)
			return -1;
		ctx->last_mod = modcache_get(ctx->u->mods, e, ctx->cap->tid);
		ctx->last = e;
	}
	if (!ctx->last_mod)
		return -1;
	return modcache_read(ctx->last_mod, e, addr, val, sizeof(*val));
}

static int read_target(pid_t tid, uint64_t addr, void *buf, size_t len)
{
	struct iovec local = { buf, len };
	struct iovec remote = { (void *)(uintptr_t)addr, len };

	return process_vm_readv(tid, &local, 1, &remote, 1, 0) == (ssize_t)len ?
		       0 :
		       -1;
}

/*
 * A stack deeper than the copy (--max-depth past what the copy holds) is
 * read from the target page by page: a word at a time would be one
 * process_vm_readv per word (8.5 ms a sample at --max-depth=4096).  The
 * page is kept for this one unwind only: the target runs on meanwhile.
 */
static int read_target_cached(struct unwind_ctx *ctx, uint64_t addr,
			      unw_word_t *val)
{
	uint64_t base = addr & ~(uint64_t)(sizeof(ctx->page) - 1);

	if (addr - base + sizeof(*val) > sizeof(ctx->page))
		return read_target(ctx->cap->tid, addr, val, sizeof(*val)) ?
			       -UNW_EINVAL :
			       0; /* straddles two pages */
	if (!ctx->page_ok || ctx->page_addr != base) {
		ctx->page_ok = false;
		if (read_target(ctx->cap->tid, base, ctx->page,
				sizeof(ctx->page)))
			return read_target(ctx->cap->tid, addr, val,
					   sizeof(*val)) ?
				       -UNW_EINVAL :
				       0;
		ctx->page_ok = true;
		ctx->page_addr = base;
	}
	memcpy(val, ctx->page + (addr - base), sizeof(*val));
	return 0;
}

/* In a sorted list of n elements of `size` bytes, each starting with a
 * struct range: the first whose range ends after ip (n if none). */
static size_t range_after(const void *list, size_t n, size_t size, uint64_t ip)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct range *r = (const void *)((const char *)list +
						       mid * size);

		if (r->end <= ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static size_t refused_after(const struct unwinder *u, uint64_t ip)
{
	return range_after(u->refused, u->nrefused, sizeof(*u->refused), ip);
}

static size_t pin_after(const struct unwinder *u, uint64_t addr)
{
	return range_after(u->pins, u->npins, sizeof(*u->pins), addr);
}

/*
 * Pin len vetted bytes at addr.  0 when pinned (or pinned already, the
 * same bytes: a CIE shared by many FDEs); -1 when they overlap a pin
 * otherwise (bytes changed since, or hostile overlapping CIEs and FDEs:
 * the caller refuses the FDE), or there is no memory.
 */
static int pin(struct unwinder *u, uint64_t addr, const uint8_t *bytes,
	       size_t len)
{
	size_t i = pin_after(u, addr);
	struct pin *p;
	uint8_t *copy;

	if (len == 0)
		return 0;
	if (i < u->npins && u->pins[i].r.start < addr + len) {
		const struct pin *q = &u->pins[i];
		bool same = q->r.start == addr && q->r.end == addr + len &&
			    memcmp(q->bytes, bytes, len) == 0;

		return same ? 0 : -1;
	}
	p = grow_array(u->pins, &u->cap_pins, u->npins + 1, sizeof(*p));
	if (!p)
		return -1;
	u->pins = p;
	if (!(copy = malloc(len)))
		return -1;
	memcpy(copy, bytes, len);
	memmove(p + i + 1, p + i, (u->npins - i) * sizeof(*p));
	p[i].r.start = addr;
	p[i].r.end = addr + len;
	p[i].bytes = copy;
	u->npins++;
	return 0;
}

/* Lay the pinned bytes over the word just read at addr. */
static void overlay_pins(const struct unwinder *u, uint64_t addr,
			 unw_word_t *val)
{
	uint8_t *w = (uint8_t *)val;

	for (size_t i = pin_after(u, addr);
	     i < u->npins && u->pins[i].r.start < addr + sizeof(*val); i++) {
		const struct pin *p = &u->pins[i];
		uint64_t lo = p->r.start > addr ? p->r.start : addr;
		uint64_t hi = p->r.end < addr + sizeof(*val) ?
				      p->r.end :
				      addr + sizeof(*val);

		memcpy(w + (lo - addr), p->bytes + (lo - p->r.start), hi - lo);
	}
}

static void free_pins(struct unwinder *u)
{
	for (size_t i = 0; i < u->npins; i++)
		free(u->pins[i].bytes);
	u->npins = 0;
}

/*
 * Copy len bytes at synthetic address addr (SYNTH_BASE above) from the
 * image there.  0, or -1 when there is no image or they lie outside it;
 * with `tail`, a read that starts inside the image and runs past its end
 * gets zeros there (libunwind reads aligned words around single bytes).
 */
static int read_synth(struct unwinder *u, uint64_t addr, uint8_t *buf,
		      size_t len, bool tail)
{
	uint64_t i = (addr - SYNTH_BASE) / SYNTH_SLOT;
	uint64_t off = (addr - SYNTH_BASE) % SYNTH_SLOT;
	const struct debugframe *d;
	size_t n;

	if (addr < SYNTH_BASE || i >= u->ntabs || !(d = u->tabs[i].dwf) ||
	    off >= d->len || (!tail && len > d->len - off))
		return -1;
	n = len < d->len - off ? len : (size_t)(d->len - off);
	memcpy(buf, d->image + off, n);
	memset(buf + n, 0, len - n);
	u->count.mem_from_module++;
	return 0;
}

static int access_mem(unw_addr_space_t as, unw_word_t addr, unw_word_t *val,
		      int write, void *arg)
{
	struct unwind_ctx *ctx = arg;
	const struct capture *cap = ctx->cap;

	(void)as;
	if (write)
		return -UNW_EINVAL; /* never write into the target */
	if (addr >= cap->stack_start &&
	    addr - cap->stack_start + sizeof(*val) <= cap->stack_len) {
		memcpy(val,
		       cap->stack + cap->stack_skip + (addr - cap->stack_start),
		       sizeof(*val));
		ctx->u->count.mem_from_stack++;
		return 0;
	}
	if (addr >= SYNTH_BASE) /* a converted .debug_frame, or nothing */
		return read_synth(ctx->u, addr, (uint8_t *)val, sizeof(*val),
				  true) ?
			       -UNW_EINVAL :
			       0;
	if (read_module(ctx, addr, val) == 0) {
		ctx->u->count.mem_from_module++;
		if (ctx->u->npins)
			overlay_pins(ctx->u, addr, val);
		return 0;
	}
	/* Beyond the copy, writable: the target as it is now. */
	ctx->u->count.mem_from_target++;
	return read_target_cached(ctx, addr, val);
}

/*
 * The program headers of the module mapped by e (its headers are a part
 * of the module, modcache.h) into *ph and *n, and the mapping's load
 * bias into *bias.  0, or -1.
 */
static int module_layout(const struct module *mod, const struct map_entry *e,
			 const Elf64_Phdr **ph, size_t *n, uint64_t *bias)
{
	const Elf64_Ehdr *eh = (const void *)modcache_bytes(mod, 0,
							    sizeof(*eh));
	const Elf64_Phdr *load;

	if (!eh || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_phentsize != sizeof(**ph))
		return -1;
	*ph = (const void *)modcache_bytes(mod, eh->e_phoff,
					   eh->e_phnum * sizeof(**ph));
	*n = eh->e_phnum;
	/* the segment e maps, not the first holding its offset: lld's
	 * segments share pages (loadseg.c); e is executable (table_for) */
	if (!*ph || !(load = loadseg_exec(*ph, *n, e->offset)))
		return -1;
	*bias = loadseg_bias(load, e->start, e->offset);
	return 0;
}

/* Describe the .eh_frame_hdr of the module mapped by e (its tables are a
 * part of the module, modcache.h). */
static int describe(const struct module *mod, const struct map_entry *e,
		    unw_dyn_info_t *di)
{
	const Elf64_Phdr *ph, *hdr = NULL;
	const uint8_t *tab;
	uint64_t bias;
	size_t n;

	if (module_layout(mod, e, &ph, &n, &bias))
		return -1;
	for (size_t i = 0; i < n; i++)
		if (ph[i].p_type == PT_GNU_EH_FRAME)
			hdr = &ph[i];
	if (!hdr || hdr->p_filesz < 4 ||
	    !(tab = modcache_bytes(mod, hdr->p_offset, hdr->p_filesz)))
		return -1;
	return ehframe_describe(tab, hdr->p_filesz, bias + hdr->p_vaddr,
				e->start, e->end, di);
}

/* Describe the converted .debug_frame of the module mapped by e, for the
 * table t (its image is at t's synthetic address). */
static int describe_debug_frame(struct unwinder *u, struct unwtab *t,
				const struct module *mod,
				const struct map_entry *e)
{
	const Elf64_Phdr *ph;
	uint64_t bias;
	size_t n;

	if (!mod->dwf || module_layout(mod, e, &ph, &n, &bias))
		return -1;
	t->dwf = mod->dwf;
	debugframe_describe(t->dwf,
			    SYNTH_BASE + (uint64_t)(t - u->tabs) * SYNTH_SLOT,
			    bias, &t->dwf_di);
	return 0;
}

static struct unwtab *new_table(struct unwinder *u, const struct map_entry *e)
{
	struct unwtab *t;

	t = grow_array(u->tabs, &u->cap, u->ntabs + 1, sizeof(*t));
	if (!t)
		return NULL;
	u->tabs = t;
	t = &u->tabs[u->ntabs++];
	memset(t, 0, sizeof(*t));
	t->start = e->start;
	t->end = e->end;
	return t;
}

/* The unwind table for ip, built on first use; NULL if there is none. */
static const struct unwtab *table_for(struct unwind_ctx *ctx, uint64_t ip)
{
	struct unwinder *u = ctx->u;
	const struct map_entry *e;
	const struct module *mod;
	struct unwtab *t;

	for (size_t i = 0; i < u->ntabs; i++)
		if (ip >= u->tabs[i].start && ip < u->tabs[i].end)
			return u->tabs[i].ok || u->tabs[i].dwf ? &u->tabs[i] :
								 NULL;
	e = maps_find(u->maps, ip);
	if (!e || !e->exec || !(t = new_table(u, e)))
		return NULL;
	mod = modcache_get(u->mods, e, ctx->cap->tid);
	t->ok = mod && describe(mod, e, &t->di) == 0;
	if (mod && describe_debug_frame(u, t, mod, e) == 0) {
		u->count.tables_debug_frame++;
		u->count.debug_frame_fdes += t->dwf->nfde;
		u->count.debug_frame_skipped += t->dwf->skipped;
	}
	if (t->ok)
		u->count.tables_built++;
	else if (!t->dwf)
		u->count.tables_missing++;
	return t->ok || t->dwf ? t : NULL;
}

/*
 * The head of libunwind's struct dwarf_cie_info (include/dwarf.h, the
 * same from 1.0 to 1.8), which dwarf_search_unwind_table() leaves in
 * pi->unwind_info when asked for unwind info: where the CIE's and the
 * FDE's instructions are, and the FDE pointer encoding.
 */
struct lu_cie_info {
	unw_word_t cie_instr_start, cie_instr_end;
	unw_word_t fde_instr_start, fde_instr_end;
	unw_word_t code_align, data_align, ret_addr_column, handler;
	uint16_t abi, tag;
	uint8_t fde_encoding, lsda_encoding;
};

/* Copy [start, end) of the target from a module image into buf + *len. */
static int read_image(struct unwind_ctx *ctx, uint64_t start, uint64_t end,
		      uint8_t *buf, size_t *len)
{
	const struct map_entry *e = maps_find(ctx->u->maps, start);
	const struct module *mod;

	if (start > end || end - start > CFI_MAX - *len)
		return -1;
	if (start == end)
		return 0;
	if (start >= SYNTH_BASE) { /* a converted .debug_frame */
		if (read_synth(ctx->u, start, buf + *len, end - start, false))
			return -1;
		*len += end - start;
		return 0;
	}
	if (!e || e->write || end > e->end ||
	    !(mod = modcache_get(ctx->u->mods, e, ctx->cap->tid)) ||
	    modcache_read(mod, e, start, buf + *len, end - start))
		return -1;
	*len += end - start;
	return 0;
}

/*
 * Vet the rules libunwind is about to run for pi (ehframe.h says why):
 * the CIE's initial instructions and the FDE's, read from the module
 * image as libunwind's access_mem will read them.  0 if safe.
 */
static int check_rules(struct unwind_ctx *ctx, const unw_proc_info_t *pi)
{
	const struct lu_cie_info *ci = pi->unwind_info;
	uint8_t *buf = ctx->u->cfi;
	size_t n = 0, cie_len;

	/* libunwind 1.6 indexes its DWARF_NUM_PRESERVED_REGS (17) register
	 * locations with the CIE's return address column unchecked
	 * (Gparser.c, apply_reg_state): a larger one reads past them. */
	if (!ci || pi->unwind_info_size < (int)sizeof(*ci) ||
	    ci->ret_addr_column > UNW_X86_64_RIP)
		return -1;
	if (!buf && !(buf = ctx->u->cfi = malloc(CFI_MAX)))
		return -1;
	if (read_image(ctx, ci->cie_instr_start, ci->cie_instr_end, buf, &n) ==
	    0) {
		cie_len = n;
		if (read_image(ctx, ci->fde_instr_start, ci->fde_instr_end, buf,
			       &n) == 0 &&
		    ehframe_check_cfi(buf, cie_len, ci->fde_encoding) == 0 &&
		    ehframe_check_cfi(buf + cie_len, n - cie_len,
				      ci->fde_encoding) == 0 &&
		    pin(ctx->u, ci->cie_instr_start, buf, cie_len) == 0 &&
		    pin(ctx->u, ci->fde_instr_start, buf + cie_len,
			n - cie_len) == 0)
			return 0;
	}
	return -1;
}

static bool is_refused(const struct unwinder *u, uint64_t ip)
{
	size_t i = refused_after(u, ip);

	return i < u->nrefused && u->refused[i].start <= ip;
}

/*
 * Remember [start, end) as refused, merged with the ranges it overlaps:
 * the list stays disjoint, so is_refused() finds every refused IP even
 * with FDEs that overlap (hostile ones), and it grows only with ranges
 * not yet covered, at most one per FDE of the target's modules.
 */
static void remember_refused(struct unwinder *u, uint64_t start, uint64_t end)
{
	size_t i = refused_after(u, start), j = i;
	struct range *r;

	while (j < u->nrefused && u->refused[j].start <= end) {
		if (u->refused[j].start < start)
			start = u->refused[j].start;
		if (u->refused[j].end > end)
			end = u->refused[j].end;
		j++;
	}
	if (j == i) { /* nothing to merge with: insert at i */
		r = grow_array(u->refused, &u->cap_refused, u->nrefused + 1,
			       sizeof(*r));
		if (!r)
			return; /* refused again next time: no harm */
		u->refused = r;
		memmove(r + i + 1, r + i, (u->nrefused - i) * sizeof(*r));
		u->nrefused++;
		j = i + 1;
	}
	u->refused[i].start = start;
	u->refused[i].end = end;
	memmove(u->refused + i + 1, u->refused + j,
		(u->nrefused - j) * sizeof(*u->refused));
	u->nrefused -= j - i - 1;
}

static int find_proc_info(unw_addr_space_t as, unw_word_t ip,
			  unw_proc_info_t *pi, int need_unwind_info, void *arg)
{
	struct unwind_ctx *ctx = arg;
	struct unwinder *u = ctx->u;
	const struct unwtab *t = table_for(ctx, ip);
	int rc;

	/*
	 * No unwind info for ip (no table: anonymous JIT code; or no FDE in
	 * the table: code the module's .eh_frame does not cover).  Answered
	 * -UNW_EINVAL, never -UNW_ENOINFO: on -UNW_ENOINFO x86-64's
	 * unw_step() guesses a caller from rbp itself, unvalidated; on
	 * -UNW_EINVAL it fails with the cursor still at this frame, and
	 * unwinder_unwind() makes a validated frame-pointer step instead
	 * (fp_step(), fpstep.h), told so by no_info.
	 */
	if (!t) {
		ctx->no_info = true;
		return -UNW_EINVAL;
	}
	/* -UNW_EINVAL, not -UNW_ENOINFO, and no frame-pointer step either:
	 * this stack ends here. */
	if (is_refused(u, ip))
		return -UNW_EINVAL;
	rc = -UNW_ENOINFO;
	if (t->ok)
		rc = dwarf_search_unwind_table(as, ip, (unw_dyn_info_t *)&t->di,
					       pi, need_unwind_info, arg);
	/* .eh_frame first; .debug_frame where it has no FDE for ip (and
	 * inside the range of the table, which libunwind asserts) */
	if (rc == -UNW_ENOINFO && t->dwf && ip >= t->dwf_di.start_ip &&
	    ip < t->dwf_di.end_ip)
		rc = dwarf_search_unwind_table(as, ip,
					       (unw_dyn_info_t *)&t->dwf_di, pi,
					       need_unwind_info, arg);
	if (rc == -UNW_ENOINFO) {
		ctx->no_info = true;
		return -UNW_EINVAL;
	}
	if (rc < 0 || !need_unwind_info || check_rules(ctx, pi) == 0)
		return rc;
	/* Refused.  pi->unwind_info came from a pool of libunwind's that
	 * has no public way back: it is lost (80 bytes), once per refused
	 * FDE, since its range is remembered. */
	u->count.cfi_refused++;
	remember_refused(u, pi->start_ip <= ip ? pi->start_ip : ip,
			 pi->end_ip > ip ? pi->end_ip : ip + 1);
	return -UNW_EINVAL;
}

/* Only dynamic (JIT-registered) info would come here: there is none. */
static void put_unwind_info(unw_addr_space_t as, unw_proc_info_t *pi, void *arg)
{
	(void)as, (void)pi, (void)arg;
}

static int get_dyn_info_list_addr(unw_addr_space_t as, unw_word_t *addr,
				  void *arg)
{
	(void)as, (void)addr, (void)arg;
	return -UNW_ENOINFO;
}

static int resume(unw_addr_space_t as, unw_cursor_t *c, void *arg)
{
	(void)as, (void)c, (void)arg;
	return -UNW_EINVAL; /* ptprof never resumes a thread through libunwind */
}

static int get_proc_name(unw_addr_space_t as, unw_word_t addr, char *buf,
			 size_t len, unw_word_t *off, void *arg)
{
	(void)as, (void)addr, (void)buf, (void)len, (void)off, (void)arg;
	return -UNW_ENOINFO; /* symbols are the report's business */
}

static unw_accessors_t accessors = {
	.find_proc_info = find_proc_info,
	.put_unwind_info = put_unwind_info,
	.get_dyn_info_list_addr = get_dyn_info_list_addr,
	.access_mem = access_mem,
	.access_reg = access_reg,
	.access_fpreg = access_fpreg,
	.resume = resume,
	.get_proc_name = get_proc_name,
};

struct unwinder *unwinder_new(pid_t pid, const struct maps *maps)
{
	struct unwinder *u = calloc(1, sizeof(*u));

	if (!u)
		return NULL;
	u->pid = pid;
	u->maps = maps;
	u->mods = modcache_new(pid);
	u->as = unw_create_addr_space(&accessors, 0);
	if (!u->as || !u->mods) {
		unwinder_free(u);
		errno = ENOMEM;
		return NULL;
	}
	unw_set_caching_policy(u->as, UNW_CACHE_GLOBAL);
	/*
	 * libunwind 1.6 sizes the cache lazily: the first call records the
	 * size, and it is applied when the cache is (re)initialised; a second
	 * call returns 0 once it really took.  Builds with per-thread caches
	 * refuse (-1); the default (2^7 entries) then stays.
	 */
	unw_set_cache_size(u->as, RS_CACHE_SIZE, 0);
	u->count.cache_size_set = unw_set_cache_size(u->as, RS_CACHE_SIZE, 0);
	return u;
}

void unwinder_free(struct unwinder *u)
{
	if (!u)
		return;
	if (u->as)
		unw_destroy_addr_space(u->as);
	modcache_free(u->mods);
	free(u->cfi);
	free(u->refused);
	free_pins(u);
	free(u->pins);
	free(u->tabs);
	free(u);
}

void unwinder_flush(struct unwinder *u)
{
	unw_flush_cache(u->as, 0, 0);
	u->ntabs = 0;
	u->nrefused = 0;
	free_pins(u);
	/* A new image at a known path (exec of a rebuilt binary) must not be
	 * read from the old copy. */
	modcache_flush(u->mods);
}

void unwinder_set_hook(struct unwinder *u, unwinder_hook hook, void *arg)
{
	u->hook = hook;
	u->hook_arg = arg;
}

void unwinder_counters(const struct unwinder *u, struct unwinder_counters *c)
{
	*c = u->count;
}

bool unwinder_after_syscall(struct unwinder *u, const struct capture *cap)
{
	uint64_t at = cap->regs.rip - 2;
	const struct map_entry *e;
	const struct module *mod = NULL;
	uint8_t b[2];
	int rc = -1;

	if (cap->regs.rip < 2)
		return false;
	e = maps_find(u->maps, at);
	if (e && !e->write && at + sizeof(b) <= e->end)
		mod = modcache_get(u->mods, e, cap->tid);
	if (mod)
		rc = modcache_read(mod, e, at, b, sizeof(b));
	if (rc)
		rc = read_target(cap->tid, at, b, sizeof(b));
	return rc == 0 && b[0] == 0x0f && b[1] == 0x05;
}

/* fpstep.h's callbacks, over the unwind's memory accessor and maps. */
static int fp_read(void *arg, uint64_t addr, uint64_t *val)
{
	unw_word_t w;

	if (access_mem(NULL, addr, &w, 0, arg) < 0)
		return -1;
	*val = w;
	return 0;
}

static bool fp_is_exec(void *arg, uint64_t addr)
{
	const struct unwind_ctx *ctx = arg;
	const struct map_entry *e = maps_find(ctx->u->maps, addr);

	return e && e->exec;
}

/* The stack that holds rsp: its writable mapping, else the stack copy
 * (a mapping newer than the last maps snapshot). */
static bool fp_stack(const struct unwind_ctx *ctx, uint64_t rsp,
		     struct fpstep_env *env)
{
	const struct map_entry *e = maps_find(ctx->u->maps, rsp);
	const struct capture *cap = ctx->cap;

	if (e && e->write) {
		env->stack_lo = e->start;
		env->stack_hi = e->end;
		return true;
	}
	if (rsp < cap->stack_start || rsp - cap->stack_start >= cap->stack_len)
		return false;
	env->stack_lo = cap->stack_start;
	env->stack_hi = cap->stack_start + cap->stack_len;
	return true;
}

static void fp_count(struct unwinder_counters *c, enum fpstep_result r)
{
	switch (r) {
	case FPSTEP_OK:
		c->fp_steps++;
		break;
	case FPSTEP_END:
		break;
	case FPSTEP_BAD_FP:
		c->fp_stop_bad_fp++;
		break;
	case FPSTEP_UNREADABLE:
		c->fp_stop_unreadable++;
		break;
	case FPSTEP_NOT_EXEC:
		c->fp_stop_not_exec++;
		break;
	}
}

/* The callee-saved registers besides rbp, as unwound so far: JIT code
 * says nothing of them, so the caller of a frame-pointer step gets them
 * unchanged (libunwind's own frame-chain step does the same). */
static const unw_regnum_t fp_kept[] = {
	UNW_X86_64_RBX, UNW_X86_64_R12, UNW_X86_64_R13,
	UNW_X86_64_R14, UNW_X86_64_R15,
};

/* The frame-pointer step from in (fpstep.h) into ctx->fp_regs: 1 if
 * stepped, 0 if the stack ends here. */
static int fp_regs_step(struct unwind_ctx *ctx, const struct fpstep_regs *in)
{
	struct fpstep_env env = { fp_read, fp_is_exec, ctx, 0, 0 };
	struct unwinder_counters *count = &ctx->u->count;
	struct fpstep_regs out;
	enum fpstep_result r;

	if (ctx->fp_steps >= UNWIND_FP_MAX) {
		count->fp_stop_limit++;
		return 0;
	}
	if (!fp_stack(ctx, in->rsp, &env)) {
		count->fp_stop_bad_fp++;
		return 0;
	}
	r = fpstep_step(&env, in, &out);
	fp_count(count, r);
	if (r != FPSTEP_OK)
		return 0;
	ctx->fp_regs.rip = out.rip;
	ctx->fp_regs.rsp = out.rsp;
	ctx->fp_regs.rbp = out.rbp;
	ctx->unknown &= ~(REG_BIT(UNW_X86_64_RIP) | REG_BIT(UNW_X86_64_RSP) |
			  REG_BIT(UNW_X86_64_RBP));
	ctx->regs = &ctx->fp_regs;
	ctx->fp_steps++;
	return 1;
}

/*
 * After a frame-pointer step to ctx->fp_regs: if that caller's code has
 * no unwind table either (the next JIT frame), the next step is by frame
 * pointer again, without libunwind (fp_lazy: the cursor is left stale,
 * which saves a restart and a failed search per JIT frame); else restart
 * libunwind there, so DWARF unwinding resumes.  1, or 0 if libunwind
 * cannot start there.  libunwind looks the restarted frame's unwind info
 * up at the return address itself, not at the call before it: a call that
 * ends its function (a noreturn call) would find the next one's.
 */
static int fp_resume(struct unwind_ctx *ctx, unw_cursor_t *c)
{
	ctx->fp_lazy = !table_for(ctx, ctx->fp_regs.rip);
	if (ctx->fp_lazy)
		return 1;
	return unw_init_remote(c, ctx->u->as, ctx) == 0;
}

/* The cursor is at a frame with no unwind info: step to its caller by
 * the frame pointer, the other registers kept as unwound so far. */
static int fp_step(struct unwind_ctx *ctx, unw_cursor_t *c)
{
	const size_t nkept = sizeof(fp_kept) / sizeof(*fp_kept);
	unw_word_t ip, sp, fp, kept[sizeof(fp_kept) / sizeof(*fp_kept)];
	int got[sizeof(fp_kept) / sizeof(*fp_kept)];
	const struct map_entry *e;
	struct fpstep_regs in;

	if (unw_get_reg(c, UNW_REG_IP, &ip) < 0) {
		ctx->u->count.fp_stop_bad_fp++;
		return 0;
	}
	/* A PC in a mapping that is not executable is no code (a data word
	 * that a CFI row took for a return address: Go's rt0_go gives
	 * &runtime.g0): the stack ends there, and rbp, which a partial
	 * capture lacks, is not needed. */
	e = maps_find(ctx->u->maps, ip);
	if (e && !e->exec) {
		ctx->u->count.fp_stop_not_exec++;
		return 0;
	}
	if (unw_get_reg(c, UNW_X86_64_RSP, &sp) < 0 ||
	    unw_get_reg(c, UNW_X86_64_RBP, &fp) < 0) {
		ctx->u->count.fp_stop_bad_fp++;
		return 0;
	}
	in.rip = ip, in.rsp = sp, in.rbp = fp;
	/* All read before any is written: after a restart the cursor reads
	 * registers libunwind has no rule for from fp_regs itself, and a
	 * DW_CFA_register rule can name another kept register.  These reads
	 * only carry the values: one a partial capture lacks is not needed
	 * (carrying), it stays unknown in fp_regs; one read from the stack
	 * is known from here on. */
	ctx->carrying = true;
	for (size_t i = 0; i < nkept; i++)
		got[i] = unw_get_reg(c, fp_kept[i], &kept[i]);
	ctx->carrying = false;
	if (ctx->regs != &ctx->fp_regs)
		ctx->fp_regs = *ctx->regs;
	for (size_t i = 0; i < nkept; i++) {
		if (got[i] == 0) {
			memcpy((char *)&ctx->fp_regs + reg_offset[fp_kept[i]],
			       &kept[i], sizeof(kept[i]));
			ctx->unknown &= ~REG_BIT(fp_kept[i]);
		} else if (ctx->cap->partial) {
			/* not this frame's value: fp_regs keeps the last one */
			ctx->unknown |= REG_BIT(fp_kept[i]);
		}
	}
	return fp_regs_step(ctx, &in) && fp_resume(ctx, c);
}

/* One step from the current frame to its caller, whose PC goes to *ip:
 * > 0 if stepped. */
static int step(struct unwind_ctx *ctx, unw_cursor_t *c, unw_word_t *ip)
{
	struct fpstep_regs in;
	int rc;

	if (ctx->fp_lazy) {
		in.rip = ctx->fp_regs.rip;
		in.rsp = ctx->fp_regs.rsp;
		in.rbp = ctx->fp_regs.rbp;
		rc = fp_regs_step(ctx, &in) && fp_resume(ctx, c);
	} else {
		ctx->no_info = false;
		rc = unw_step(c);
		if (rc < 0 && ctx->no_info)
			rc = fp_step(ctx, c);
	}
	if (rc <= 0)
		return rc;
	if (ctx->fp_lazy) {
		*ip = ctx->fp_regs.rip;
		return 1;
	}
	return unw_get_reg(c, UNW_REG_IP, ip) < 0 ? -1 : 1;
}

int unwinder_unwind(struct unwinder *u, const struct capture *cap,
		    uint64_t *pcs, int max)
{
	struct unwind_ctx ctx = { .u = u,
				  .cap = cap,
				  .regs = &cap->regs,
				  .unknown = cap->partial ? PARTIAL_UNKNOWN :
							    0 };
	unw_cursor_t cursor;
	uint64_t t0, t_hooks = 0, now;
	int n = 0;

	if (max <= 0 || cap->regs.rip == 0)
		return 0;
	pcs[n++] = cap->regs.rip;
	t0 = mono_now_ns();
	in_unwind = true;
	if (unw_init_remote(&cursor, u->as, &ctx) == 0) {
		unw_word_t ip;

		while (n < max && step(&ctx, &cursor, &ip) > 0) {
			uint64_t t1;
			bool stop;

			if (ip == 0)
				break;
			pcs[n++] = ip;
			/* Between steps libunwind holds no lock: the hook may
			 * do what it likes, sigprocmask() included. */
			now = mono_now_ns();
			if (now - t0 > UNWIND_BUDGET_NS) {
				u->count.budget_cuts++;
				break;
			}
			if (!u->hook)
				continue;
			in_unwind = false;
			stop = u->hook(u->hook_arg, now);
			in_unwind = true;
			t1 = mono_now_ns();
			t_hooks += t1 - now;
			if (stop)
				break;
		}
	}
	in_unwind = false;
	/* the unwind's own time, without the hook's */
	now = mono_now_ns() - t0 - t_hooks;
	u->count.unwinds++;
	u->count.unwind_ns += now;
	if (ctx.fp_steps) {
		u->count.unwinds_fp++;
		u->count.unwind_fp_ns += now;
	}
	if (ctx.needed_unknown) {
		u->count.partial_refused++;
		errno = ENODATA;
		return -1;
	}
	return n; /* the leaf alone is still a sample */
}
