/*
 * unwind.c - remote unwinding with libunwind over ptrace (see unwind.h).
 */
#include "config.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include <elf.h>
#include <libunwind-ptrace.h>
#include <sys/uio.h>

#include "ehframe.h"
#include "procfs.h"
#include "unwind.h"

/* Exported by libunwind-x86_64 (as _Ux86_64_...), not declared publicly:
 * the DWARF search over a binary-search table described by a
 * unw_dyn_info_t, the same function _UPT_find_proc_info() ends in. */
#define dwarf_search_unwind_table _Ux86_64_dwarf_search_unwind_table
extern int dwarf_search_unwind_table(unw_addr_space_t as, unw_word_t ip,
				     unw_dyn_info_t *di, unw_proc_info_t *pi,
				     int need_unwind_info, void *arg);

/*
 * The vDSO has no file behind its mapping, so _UPT_find_proc_info() finds
 * no unwind table for it and libunwind falls back to guessing with the
 * frame pointer, which in code built without one yields garbage callers
 * (every sample that stops inside clock_gettime).  Its .eh_frame_hdr is
 * read from the target's memory instead.
 */
struct vdso {
	bool tried, ok;
	uint64_t start, end;
	unw_dyn_info_t di;
};

struct thread_handle {
	pid_t tid;
	void *upt;
};

struct unwinder {
	pid_t pid;
	unw_addr_space_t as;
	struct vdso vdso;
	struct thread_handle *h;
	size_t n, cap;
};

/*
 * libunwind hands the `arg` of unw_init_remote() to every accessor, and the
 * _UPT_* functions hand it on again to our accessors (for instance
 * _UPT_find_proc_info() reads the unwind tables through as->acc.access_mem
 * with its own arg).  So arg must be the UPT handle itself, and the
 * registers of the sample being unwound travel beside it: the unwinder is
 * single-threaded, one unwind at a time.
 */
static const struct user_regs_struct *current_regs;
static struct unwinder *current_unwinder;

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

/* Registers come from the capture, not from the thread: one GETREGS per
 * sample instead of one PTRACE_PEEKUSER per register per frame. */
static int access_reg(unw_addr_space_t as, unw_regnum_t reg, unw_word_t *val,
		      int write, void *arg)
{
	(void)as, (void)arg;
	if (write)
		return -UNW_EREADONLYREG;
	if (reg < 0 || (size_t)reg >= sizeof(reg_offset) / sizeof(*reg_offset) ||
	    !current_regs)
		return -UNW_EBADREG;
	memcpy(val, (const char *)current_regs + reg_offset[reg], sizeof(*val));
	return 0;
}

static int access_fpreg(unw_addr_space_t as, unw_regnum_t reg,
			unw_fpreg_t *val, int write, void *arg)
{
	(void)as, (void)reg, (void)val, (void)write, (void)arg;
	return -UNW_EBADREG;
}

static int access_mem(unw_addr_space_t as, unw_word_t addr, unw_word_t *val,
		      int write, void *arg)
{
	if (write)
		return -UNW_EINVAL; /* never write into the target */
	return _UPT_access_mem(as, addr, val, 0, arg);
}

static int find_proc_info(unw_addr_space_t as, unw_word_t ip,
			  unw_proc_info_t *pi, int need_unwind_info, void *arg)
{
	const struct vdso *v = current_unwinder ? &current_unwinder->vdso : NULL;

	if (v && v->ok && ip >= v->start && ip < v->end)
		return dwarf_search_unwind_table(as, ip, (unw_dyn_info_t *)&v->di,
						 pi, need_unwind_info, arg);
	return _UPT_find_proc_info(as, ip, pi, need_unwind_info, arg);
}

static int resume(unw_addr_space_t as, unw_cursor_t *c, void *arg)
{
	(void)as, (void)c, (void)arg;
	return -UNW_EINVAL; /* ptprof never resumes a thread through libunwind */
}

static unw_accessors_t accessors = {
	.find_proc_info = find_proc_info,
	.put_unwind_info = _UPT_put_unwind_info,
	.get_dyn_info_list_addr = _UPT_get_dyn_info_list_addr,
	.access_mem = access_mem,
	.access_reg = access_reg,
	.access_fpreg = access_fpreg,
	.resume = resume,
	.get_proc_name = _UPT_get_proc_name,
};

static int read_target(pid_t pid, uint64_t addr, void *buf, size_t len)
{
	struct iovec local = { buf, len };
	struct iovec remote = { (void *)(uintptr_t)addr, len };

	return process_vm_readv(pid, &local, 1, &remote, 1, 0) == (ssize_t)len ?
		       0 : -1;
}

/*
 * The vDSO's load address: AT_SYSINFO_EHDR in the auxiliary vector, or 0.
 * Read through the thread being unwound: a main thread that has exited
 * (pthread_exit) has neither auxv nor memory to read any more.
 */
static uint64_t vdso_base(pid_t pid, pid_t tid)
{
	char path[96], *buf;
	uint64_t base = 0, pair[2];
	size_t len;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/auxv", (int)pid,
		 (int)tid);
	if (procfs_read_file(path, &buf, &len))
		return 0;
	for (size_t off = 0; off + sizeof(pair) <= len; off += sizeof(pair)) {
		memcpy(pair, buf + off, sizeof(pair));
		if (pair[0] == AT_SYSINFO_EHDR)
			base = pair[1];
	}
	free(buf);
	return base;
}

/* Read the vDSO's program headers and .eh_frame_hdr from the target. */
static int vdso_describe(pid_t pid, pid_t tid, struct vdso *v)
{
	Elf64_Phdr ph[16];
	const Elf64_Phdr *load = NULL, *eh = NULL;
	uint64_t base = vdso_base(pid, tid), bias;
	uint8_t hdr[32];
	Elf64_Ehdr e;

	if (!base || read_target(tid, base, &e, sizeof(e)) ||
	    memcmp(e.e_ident, ELFMAG, SELFMAG) || e.e_phnum > 16 ||
	    e.e_phentsize != sizeof(Elf64_Phdr) ||
	    read_target(tid, base + e.e_phoff, ph, e.e_phnum * sizeof(*ph)))
		return -1;
	for (int i = 0; i < e.e_phnum; i++) {
		if (ph[i].p_type == PT_LOAD && !load)
			load = &ph[i];
		if (ph[i].p_type == PT_GNU_EH_FRAME)
			eh = &ph[i];
	}
	if (!load || !eh)
		return -1;
	bias = base - (load->p_vaddr - load->p_offset);
	v->start = bias + load->p_vaddr;
	v->end = v->start + load->p_memsz;
	if (read_target(tid, bias + eh->p_vaddr, hdr, sizeof(hdr)))
		return -1;
	return ehframe_describe(hdr, sizeof(hdr), bias + eh->p_vaddr,
				v->start, v->end, &v->di);
}

struct unwinder *unwinder_new(pid_t pid)
{
	struct unwinder *u = calloc(1, sizeof(*u));

	if (!u)
		return NULL;
	u->pid = pid;
	u->as = unw_create_addr_space(&accessors, 0);
	if (!u->as) {
		free(u);
		errno = ENOMEM;
		return NULL;
	}
	unw_set_caching_policy(u->as, UNW_CACHE_GLOBAL);
	return u;
}

void unwinder_free(struct unwinder *u)
{
	if (!u)
		return;
	for (size_t i = 0; i < u->n; i++)
		_UPT_destroy(u->h[i].upt);
	free(u->h);
	unw_destroy_addr_space(u->as);
	free(u);
}

static void *thread_upt(struct unwinder *u, pid_t tid)
{
	void *upt;

	for (size_t i = 0; i < u->n; i++)
		if (u->h[i].tid == tid)
			return u->h[i].upt;
	if (u->n == u->cap) {
		size_t cap = u->cap ? u->cap * 2 : 16;
		struct thread_handle *h = realloc(u->h, cap * sizeof(*h));

		if (!h)
			return NULL;
		u->h = h;
		u->cap = cap;
	}
	upt = _UPT_create(tid);
	if (!upt)
		return NULL;
	u->h[u->n++] = (struct thread_handle){ tid, upt };
	return upt;
}

void unwinder_forget_thread(struct unwinder *u, pid_t tid)
{
	for (size_t i = 0; i < u->n; i++) {
		if (u->h[i].tid == tid) {
			_UPT_destroy(u->h[i].upt);
			u->h[i] = u->h[--u->n];
			return;
		}
	}
}

void unwinder_flush(struct unwinder *u)
{
	unw_flush_cache(u->as, 0, 0);
	u->vdso.tried = u->vdso.ok = false; /* exec maps a new one */
	/* A UPT handle caches one ELF image; a fresh handle forgets it. */
	for (size_t i = 0; i < u->n; i++)
		_UPT_destroy(u->h[i].upt);
	u->n = 0;
}

int unwinder_unwind(struct unwinder *u, const struct capture *cap,
		    uint64_t *pcs, int max)
{
	unw_cursor_t cursor;
	void *upt;
	int n = 0;

	if (max <= 0 || cap->regs.rip == 0)
		return 0;
	pcs[n++] = cap->regs.rip;
	upt = thread_upt(u, cap->tid);
	if (!upt)
		return -1;
	if (!u->vdso.tried) {
		u->vdso.tried = true;
		u->vdso.ok = vdso_describe(u->pid, cap->tid, &u->vdso) == 0;
	}
	current_regs = &cap->regs;
	current_unwinder = u;
	if (unw_init_remote(&cursor, u->as, upt) == 0) {
		while (n < max && unw_step(&cursor) > 0) {
			unw_word_t ip;

			if (unw_get_reg(&cursor, UNW_REG_IP, &ip) < 0 || ip == 0)
				break;
			pcs[n++] = ip;
		}
	}
	current_regs = NULL;
	current_unwinder = NULL;
	return n; /* a failed step ends the chain; the leaf alone counts */
}
