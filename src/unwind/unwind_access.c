/*
 * unwind_access.c - the accessors libunwind calls during an unwind:
 * registers from the capture (or a frame-pointer step), memory from the
 * stack copy, a module image or the target, unwind info from the tables.
 */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include <libunwind.h>

#include "proc/vmread.h"
#include "unwind/modcache.h"
#include "unwind/unwind_int.h"

/* Exported by libunwind-x86_64 (as _Ux86_64_...), not declared publicly:
 * the DWARF search over a binary-search table described by a
 * unw_dyn_info_t, the function libunwind-ptrace itself ends in. */
#define dwarf_search_unwind_table _Ux86_64_dwarf_search_unwind_table
extern int dwarf_search_unwind_table(unw_addr_space_t as, unw_word_t ip,
				     unw_dyn_info_t *di, unw_proc_info_t *pi,
				     int need_unwind_info, void *arg);

const size_t unwind_access_reg_offset[UNW_X86_64_RIP + 1] = {
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
	if (reg < 0 || (size_t)reg >= sizeof(unwind_access_reg_offset) /
					      sizeof(*unwind_access_reg_offset))
		return -UNW_EBADREG;
	if (ctx->unknown & REG_BIT(reg)) {
		if (!ctx->carrying)
			ctx->needed_unknown = true;
		return -UNW_EBADREG;
	}
	memcpy(val, (const char *)ctx->regs + unwind_access_reg_offset[reg],
	       sizeof(*val));
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
		return vmread_all(ctx->cap->tid, addr, val, sizeof(*val)) ?
			       -UNW_EINVAL :
			       0; /* straddles two pages */
	if (!ctx->page_ok || ctx->page_addr != base) {
		ctx->page_ok = false;
		if (vmread_all(ctx->cap->tid, base, ctx->page,
			       sizeof(ctx->page)))
			return vmread_all(ctx->cap->tid, addr, val,
					  sizeof(*val)) ?
				       -UNW_EINVAL :
				       0;
		ctx->page_ok = true;
		ctx->page_addr = base;
	}
	memcpy(val, ctx->page + (addr - base), sizeof(*val));
	return 0;
}

int unwind_access_mem(unw_addr_space_t as, unw_word_t addr, unw_word_t *val,
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
		return unwind_tables_read_synth(ctx->u, addr, (uint8_t *)val,
						sizeof(*val), true) ?
			       -UNW_EINVAL :
			       0;
	if (read_module(ctx, addr, val) == 0) {
		ctx->u->count.mem_from_module++;
		if (ctx->u->npins)
			unwind_cfi_overlay(ctx->u, addr, val);
		return 0;
	}
	/* Beyond the copy, writable: the target as it is now. */
	ctx->u->count.mem_from_target++;
	return read_target_cached(ctx, addr, val);
}

static int find_proc_info(unw_addr_space_t as, unw_word_t ip,
			  unw_proc_info_t *pi, int need_unwind_info, void *arg)
{
	struct unwind_ctx *ctx = arg;
	struct unwinder *u = ctx->u;
	const struct unwtab *t = unwind_tables_for(ctx, ip);
	int rc;

	/*
	 * No unwind info for ip (no table: anonymous JIT code; or no FDE in
	 * the table: code the module's .eh_frame does not cover).  Answered
	 * -UNW_EINVAL, never -UNW_ENOINFO: on -UNW_ENOINFO x86-64's
	 * unw_step() guesses a caller from rbp itself, unvalidated; on
	 * -UNW_EINVAL it fails with the cursor still at this frame, and
	 * unwinder_unwind() makes a validated frame-pointer step instead
	 * (unwind_fp_step(), fpstep.h), told so by no_info.
	 */
	if (!t) {
		ctx->no_info = true;
		return -UNW_EINVAL;
	}
	/* -UNW_EINVAL, not -UNW_ENOINFO, and no frame-pointer step either:
	 * this stack ends here. */
	if (unwind_cfi_is_refused(u, ip))
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
	if (rc < 0 || !need_unwind_info || unwind_cfi_check(ctx, pi) == 0)
		return rc;
	/* Refused.  pi->unwind_info came from a pool of libunwind's that
	 * has no public way back: it is lost (80 bytes), once per refused
	 * FDE, since its range is remembered. */
	u->count.cfi_refused++;
	unwind_cfi_refuse(u, pi->start_ip <= ip ? pi->start_ip : ip,
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

unw_accessors_t unwind_access_accessors = {
	.find_proc_info = find_proc_info,
	.put_unwind_info = put_unwind_info,
	.get_dyn_info_list_addr = get_dyn_info_list_addr,
	.access_mem = unwind_access_mem,
	.access_reg = access_reg,
	.access_fpreg = access_fpreg,
	.resume = resume,
	.get_proc_name = get_proc_name,
};
