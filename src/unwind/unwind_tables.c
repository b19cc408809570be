/*
 * unwind_tables.c - the unwind tables of each executable mapping, built
 * on first use from its module's .eh_frame_hdr and converted .debug_frame
 * (debugframe.h), and the images of those conversions, which libunwind
 * reads at synthetic addresses.
 */
#include "config.h"

#include <elf.h>
#include <stdbool.h>
#include <string.h>

#include <libunwind.h>

#include "elf/debugframe.h"
#include "elf/ehframe.h"
#include "elf/loadseg.h"
#include "unwind/modcache.h"
#include "unwind/unwind_int.h"
#include "util/grow.h"

/*
 * Copy len bytes at synthetic address addr (SYNTH_BASE, unwind_int.h)
 * from the image there.  0, or -1 when there is no image or they lie
 * outside it; with `tail`, a read that starts inside the image and runs
 * past its end gets zeros there (libunwind reads aligned words around
 * single bytes).
 */
int unwind_tables_read_synth(struct unwinder *u, uint64_t addr, uint8_t *buf,
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
	 * segments share pages (loadseg.c); e is executable
	 * (unwind_tables_for()) */
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
const struct unwtab *unwind_tables_for(struct unwind_ctx *ctx, uint64_t ip)
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
