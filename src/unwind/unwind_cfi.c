/*
 * unwind_cfi.c - the call frame instructions libunwind is about to run,
 * vetted (ehframe_check_cfi()) and pinned, so that libunwind runs them as
 * vetted thereafter; the FDEs refused, so that they are not tried again.
 */
#include "config.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <libunwind.h>

#include "elf/ehframe.h"
#include "unwind/modcache.h"
#include "unwind/unwind_int.h"
#include "util/grow.h"

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
void unwind_cfi_overlay(const struct unwinder *u, uint64_t addr,
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

void unwind_cfi_free_pins(struct unwinder *u)
{
	for (size_t i = 0; i < u->npins; i++)
		free(u->pins[i].bytes);
	u->npins = 0;
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
		if (unwind_tables_read_synth(ctx->u, start, buf + *len,
					     end - start, false))
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
 * image as libunwind's access_mem (unwind_access_mem()) will read them.
 * 0 if safe.
 */
int unwind_cfi_check(struct unwind_ctx *ctx, const unw_proc_info_t *pi)
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

bool unwind_cfi_is_refused(const struct unwinder *u, uint64_t ip)
{
	size_t i = refused_after(u, ip);

	return i < u->nrefused && u->refused[i].start <= ip;
}

/*
 * Remember [start, end) as refused, merged with the ranges it overlaps:
 * the list stays disjoint, so unwind_cfi_is_refused() finds every refused
 * IP even with FDEs that overlap (hostile ones), and it grows only with
 * ranges not yet covered, at most one per FDE of the target's modules.
 */
void unwind_cfi_refuse(struct unwinder *u, uint64_t start, uint64_t end)
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
