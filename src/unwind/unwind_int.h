/*
 * unwind_int.h - the unwinder's state, shared by its files.  Private to
 * them; unwind.h is the contract.
 *
 *   unwind.c         life cycle, the unwind loop, and the sigprocmask()
 *                    that keeps libunwind's cache lock cheap
 *   unwind_access.c  the accessors libunwind calls: registers, memory,
 *                    unwind info
 *   unwind_tables.c  the unwind tables of each executable mapping, and
 *                    the images of converted .debug_frame sections
 *   unwind_cfi.c     the rules libunwind is about to run, vetted; the
 *                    vetted bytes pinned; the FDEs refused
 *   unwind_fp.c      frame-pointer steps over frames with no unwind info
 *
 * None of these functions prints or exits; all run inside an unwind, so
 * none may rely on sigprocmask() (unwind.h).
 */
#ifndef PTPROF_UNWIND_INT_H
#define PTPROF_UNWIND_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <libunwind.h>

#include "elf/debugframe.h"
#include "proc/capture.h"
#include "proc/maps.h"
#include "unwind/modcache.h"
#include "unwind/unwind.h"

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
 * address space unwind_access_mem() serves.  SYNTH_BASE is a
 * non-canonical x86-64 address (bits 63..47, or 63..56 with 5-level
 * paging, not all equal): no mapping of the target can ever be there, so
 * no read of the target's memory is ever answered from an image by
 * mistake.  An image is at most MODCACHE_MAX_PART bytes, well inside its
 * slot.
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
 * vetted rule for a looping one in between.  So unwind_access_mem()
 * serves these bytes from here, as vetted.
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
	/* The address space lent from the pool (unwind.c) for this unwind:
	 * valid from unwind_as_take() to the unwind's end; as_slot says
	 * which, -1 none yet, and stays while the slot is still lent to
	 * this unwinder (its cache then still this target's). */
	unw_addr_space_t as;
	int as_slot;
	struct unwtab *tabs;
	size_t ntabs, cap;
	uint8_t *cfi; /* CFI_MAX bytes for unwind_cfi_check(), made at first */
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
	 * frame-pointer step, fp_regs (unwind_fp_step()). */
	const struct user_regs_struct *regs;
	struct user_regs_struct fp_regs;
	bool no_info; /* find_proc_info() found no unwind info for an IP */
	/*
	 * A partial capture (peek.h) knows rip and rsp only.  unknown: the
	 * registers of *regs whose values are not known, a bit per libunwind
	 * register number (0 for a full capture).  access_reg() of one fails;
	 * needed_unknown records that a step needed one (the unwind is then
	 * refused), unless carrying: unwind_fp_step() reading the callee-saved
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

#define REG_BIT(reg) (UINT32_C(1) << (reg))

/* ---- unwind_access.c ------------------------------------------------- */

/* What unwind.c gives unw_create_addr_space(). */
extern unw_accessors_t unwind_access_accessors;

/* libunwind x86-64 register numbers -> offsets in user_regs_struct. */
extern const size_t unwind_access_reg_offset[UNW_X86_64_RIP + 1];

/* libunwind's access_mem accessor (arg: the struct unwind_ctx): the word
 * at addr from the stack copy, a module image or the target.  0, or a
 * negative -UNW_E* code. */
int unwind_access_mem(unw_addr_space_t as, unw_word_t addr, unw_word_t *val,
		      int write, void *arg);

/* ---- unwind_tables.c ------------------------------------------------- */

/* The unwind table for ip, built on first use; NULL if there is none. */
const struct unwtab *unwind_tables_for(struct unwind_ctx *ctx, uint64_t ip);

/* len bytes at the synthetic address addr (SYNTH_BASE) into buf: 0, or -1
 * when no image holds them; with tail, zeros past the image's end. */
int unwind_tables_read_synth(struct unwinder *u, uint64_t addr, uint8_t *buf,
			     size_t len, bool tail);

/* ---- unwind_cfi.c ---------------------------------------------------- */

/* Vet the rules libunwind is about to run for pi, and pin them: 0 if
 * safe, -1 if refused. */
int unwind_cfi_check(struct unwind_ctx *ctx, const unw_proc_info_t *pi);

/* Was an FDE that holds ip refused? */
bool unwind_cfi_is_refused(const struct unwinder *u, uint64_t ip);

/* Remember [start, end) as refused (memory permitting). */
void unwind_cfi_refuse(struct unwinder *u, uint64_t start, uint64_t end);

/* Lay the pinned bytes over the word just read at addr. */
void unwind_cfi_overlay(const struct unwinder *u, uint64_t addr,
			unw_word_t *val);

/* Forget every pin (their bytes freed, the array kept). */
void unwind_cfi_free_pins(struct unwinder *u);

/* ---- unwind_fp.c ----------------------------------------------------- */

/* The cursor c is at a frame with no unwind info (find_proc_info() said
 * so): step to its caller by the frame pointer.  1 if stepped (the
 * caller's registers in ctx->fp_regs, and c restarted there unless
 * ctx->fp_lazy), 0 if the stack ends here. */
int unwind_fp_step(struct unwind_ctx *ctx, unw_cursor_t *c);

/* The same from ctx->fp_regs, when ctx->fp_lazy (the cursor stale). */
int unwind_fp_step_lazy(struct unwind_ctx *ctx, unw_cursor_t *c);

#endif /* PTPROF_UNWIND_INT_H */
