/*
 * hostile.c - a target whose stacks are built to confuse an unwinder
 * (the chaos suite's hostile-stack cases, tests/chaos/stack-*.test).
 *
 *   hostile MODE SECS
 *
 * burns CPU for SECS seconds (or until a file "stop" appears in its
 * current directory) in one of these ways, checks that its
 * computation came out right and prints "MODE ok ..." on stdout (exit 0),
 * or "MODE WRONG ..." (exit 1):
 *
 *   badsp    rounds of a register-only loop (badsp_spin) run with the
 *            stack pointer set to garbage: 0, a low unmapped address, a
 *            kernel address, the last page of the address space (not a
 *            non-canonical one: the CPU faults returning to user mode);
 *   badchain the same loop (badchain_spin) with a valid stack pointer over
 *            a buffer of garbage "return addresses" and a frame pointer
 *            into it (some of it pointing at itself): the unwinder's
 *            chain leads nowhere;
 *   altstack main raises SIGUSR1 again and again; its handler
 *            (altstack_handler) burns CPU on a sigaltstack in heap memory;
 *            every raise must run the handler exactly once;
 *   coro     two coroutines (coro_ping, coro_pong) on heap stacks made
 *            with makecontext() burn CPU and swapcontext() to each other;
 *   deep     deep_rec recurses 20000 frames (about 300 bytes each: 6 MB,
 *            far past the 256 KiB stack copy) and spins in deep_leaf;
 *   jit      a small spinning function copied into anonymous executable
 *            memory (no unwind info, no symbol) is called by call_jit;
 *   jitfp    the same, two JIT functions that keep frame pointers (as V8
 *            and HotSpot's do): call_jit calls the outer one, which calls
 *            the spinning one;
 *   sigprof  main_work burns CPU while ITIMER_PROF delivers SIGPROF, whose
 *            handler (prof_handler) burns more: samples land in a handler
 *            over a signal frame;
 *   cfiloop  cfiloop_spin runs the loop under the unwind rule
 *            DW_CFA_def_cfa_expression { DW_OP_skip -3 }: an expression
 *            that jumps to itself (libunwind 1.6 evaluates it forever),
 *            while a second thread (busy_thread) runs ref_spin with
 *            honest unwind info; prints "ready" once both run;
 *   racolumn the same with racol_spin, whose CIE names return address
 *            column 40 (libunwind 1.6 has slots for columns 0..16 and
 *            indexes them with it unchecked);
 *   cfislow  cfislow_rec recurses 5000 frames and runs the loop, under a
 *            valid but costly CFA rule (an expression that reads target
 *            memory 800 times before it says rsp + 8): an unwind of 4096
 *            frames takes seconds;
 *   cfiswap  (hostile cfiswap SECS LIB) copies LIB (libcfiswap.so) to
 *            ./libcfiswap-copy.so, loads the copy and runs its
 *            cfiswap_spin; once a file "flip" appears in its current
 *            directory, a thread rewrites the copy's file, turning
 *            cfiswap_spin's CFA rule from an honest expression into
 *            DW_OP_skip -3: the rule an unwinder vetted (and cached)
 *            loops when it reads it again;
 *   busy     three threads (busy_thread) check ref_spin's result round
 *            after round: a plain target for the refusal tests;
 *   nodump   the same after prctl(PR_SET_DUMPABLE, 0): only a tracer with
 *            CAP_SYS_PTRACE may attach, even of the same uid.
 *
 * Functions whose names the tests look for are NOIPA.  Nothing here is
 * timed inside the loops that run with a bad stack: they touch no memory.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/time.h>
#include <ucontext.h>
#include <unistd.h>

#include "../../targets/target.h"

/* Iterations of one round of the register-only loop (about 1 ms). */
#define SPIN 1000000u

/*
 * A mode ends after SECS seconds, or earlier once a file of this name
 * appears in the current directory: a test makes it when it is done with
 * the target, so that SECS can be a generous bound.
 */
#define STOP_FILE "stop"

static int running(double end)
{
	return now() < end && access(STOP_FILE, F_OK) != 0;
}

static int fail(const char *mode, const char *what)
{
	printf("%s WRONG: %s\n", mode, what);
	return 1;
}

/* The loop the bad-stack modes run: acc = acc * 5 + i, i = n..1. */
NOIPA static uint64_t ref_spin(uint64_t n)
{
	uint64_t acc = 1;

	for (; n; n--) {
		acc = acc * 5 + n;
		__asm__ volatile("" : "+r"(acc));
	}
	return acc;
}

/* ref_spin's loop in assembly, on registers only: %[acc], %[n]. */
#define ASM_SPIN                                  \
	"1:\n\t"                                   \
	"lea (%[acc],%[acc],4), %[acc]\n\t"        \
	"add %[n], %[acc]\n\t"                     \
	"dec %[n]\n\t"                             \
	"jnz 1b\n\t"

/*
 * The same loop in assembly with rsp = sp meanwhile.  r12 keeps the real
 * stack pointer; no instruction between the two moves touches memory, and
 * the thread takes no signal then (none is sent to it in this mode).
 */
NOIPA static uint64_t badsp_spin(uint64_t sp, uint64_t n)
{
	uint64_t acc = 1;

	__asm__ volatile("mov %%rsp, %%r12\n\t"
			 "mov %[sp], %%rsp\n\t"
			 ASM_SPIN
			 "mov %%r12, %%rsp\n\t"
			 : [acc] "+r"(acc), [n] "+r"(n)
			 : [sp] "r"(sp)
			 : "r12", "cc", "memory");
	return acc;
}

/*
 * The loop with rsp on `junk` (a valid buffer of garbage) and rbp 64 bytes
 * into it (in one round of 16, at a slot that points at itself): whatever
 * the unwinder reads as a return address or a saved frame pointer is
 * garbage or a cycle.
 */
NOIPA static uint64_t badchain_spin(uint64_t *junk, uint64_t n)
{
	uint64_t acc = 1;

	__asm__ volatile("mov %%rsp, %%r12\n\t"
			 "mov %%rbp, %%r13\n\t"
			 "mov %[junk], %%rsp\n\t"
			 "lea 64(%[junk]), %%rbp\n\t"
			 ASM_SPIN
			 "mov %%r13, %%rbp\n\t"
			 "mov %%r12, %%rsp\n\t"
			 : [acc] "+r"(acc), [n] "+r"(n)
			 : [junk] "r"(junk)
			 : "r12", "r13", "cc", "memory");
	return acc;
}

static int run_badsp(double secs, int chain)
{
	static const uint64_t bad[] = {
		0,			/* no stack at all */
		0x1000,			/* unmapped, low */
		0x00007ffffffff000,	/* unmapped, top of user space */
		0xffff880000000000,	/* kernel space */
		0xfffffffffffffff8,	/* wraps around */
	};
	static uint64_t junk[4096] __attribute__((aligned(64)));
	const char *mode = chain ? "badchain" : "badsp";
	uint64_t want = ref_spin(SPIN);
	double end = now() + secs;
	unsigned long rounds = 0;

	/* Garbage: unmapped addresses, kernel addresses, odd values, and
	 * pointers back into junk itself (cycles). */
	for (size_t i = 0; i < sizeof(junk) / sizeof(*junk); i++) {
		switch (i % 4) {
		case 0: junk[i] = 0xdead0000 + i * 8; break;
		case 1: junk[i] = 0xffffffff81000000 + i; break;
		case 2: junk[i] = (uint64_t)(uintptr_t)&junk[i]; break;
		default: junk[i] = (uint64_t)(uintptr_t)&junk[i & ~7u]; break;
		}
	}
	junk[8] = (uint64_t)(uintptr_t)&junk[8]; /* rbp's slot: itself */
	while (running(end)) {
		uint64_t got;

		if (chain)
			got = badchain_spin(&junk[rounds % 16], SPIN);
		else
			got = badsp_spin(bad[rounds % 5], SPIN);
		if (got != want)
			return fail(mode, "the loop's result differs");
		rounds++;
	}
	if (rounds == 0)
		return fail(mode, "no round ran");
	printf("%s ok %lu rounds\n", mode, rounds);
	return 0;
}

static volatile sig_atomic_t handled;
static volatile uint64_t handler_sum;

NOIPA static void altstack_handler(int sig)
{
	stack_t ss;

	(void)sig;
	/* Prove it runs on the alternate stack. */
	if (sigaltstack(NULL, &ss) == 0 && (ss.ss_flags & SS_ONSTACK))
		handler_sum += ref_spin(SPIN / 4);
	handled++;
}

static int run_altstack(double secs)
{
	const uint64_t want = ref_spin(SPIN / 4);
	struct sigaction sa = { .sa_handler = altstack_handler,
				.sa_flags = SA_ONSTACK };
	stack_t ss = { .ss_size = 64 * 1024 };
	double end = now() + secs;
	unsigned long raised = 0;

	ss.ss_sp = malloc(ss.ss_size);
	if (!ss.ss_sp || sigaltstack(&ss, NULL) ||
	    sigaction(SIGUSR1, &sa, NULL))
		return fail("altstack", "cannot set up the handler");
	while (running(end)) {
		raise(SIGUSR1);
		raised++;
		KEEP_FRAME();
	}
	if (handled != (sig_atomic_t)raised)
		return fail("altstack", "not every raise ran the handler once");
	if (handler_sum != raised * want)
		return fail("altstack", "the handler did not run on its stack");
	printf("altstack ok %lu signals\n", raised);
	return 0;
}

static ucontext_t main_ctx, ping_ctx, pong_ctx;
static double coro_end;
static unsigned long coro_switches;
static uint64_t coro_sum;

NOIPA static void coro_ping(void)
{
	while (running(coro_end)) {
		coro_sum += ref_spin(SPIN / 2);
		coro_switches++;
		swapcontext(&ping_ctx, &pong_ctx);
	}
}

NOIPA static void coro_pong(void)
{
	for (;;) {
		coro_sum += ref_spin(SPIN / 2);
		coro_switches++;
		swapcontext(&pong_ctx, &ping_ctx);
	}
}

static int run_coro(double secs)
{
	const size_t size = 64 * 1024;

	coro_end = now() + secs;
	if (getcontext(&ping_ctx) || getcontext(&pong_ctx))
		return fail("coro", "getcontext failed");
	ping_ctx.uc_stack.ss_sp = malloc(size);
	pong_ctx.uc_stack.ss_sp = malloc(size);
	if (!ping_ctx.uc_stack.ss_sp || !pong_ctx.uc_stack.ss_sp)
		return fail("coro", "out of memory");
	ping_ctx.uc_stack.ss_size = pong_ctx.uc_stack.ss_size = size;
	ping_ctx.uc_link = &main_ctx; /* ping ends the game */
	pong_ctx.uc_link = &main_ctx;
	makecontext(&ping_ctx, coro_ping, 0);
	makecontext(&pong_ctx, coro_pong, 0);
	if (swapcontext(&main_ctx, &ping_ctx))
		return fail("coro", "swapcontext failed");
	if (coro_switches == 0 || coro_sum != coro_switches * ref_spin(SPIN / 2))
		return fail("coro", "the coroutines' sum is wrong");
	printf("coro ok %lu switches\n", coro_switches);
	return 0;
}

#define DEEP 20000

NOIPA static uint64_t deep_leaf(void)
{
	uint64_t r = ref_spin(SPIN / 8);

	KEEP_FRAME();
	return r;
}

/* About 300 bytes of frame each, kept by the volatile buffer. */
NOIPA static uint64_t deep_rec(int depth)
{
	volatile char pad[256];
	uint64_t r;

	pad[0] = (char)depth;
	r = depth ? deep_rec(depth - 1) : deep_leaf();
	KEEP_FRAME();
	return r + (uint64_t)pad[0] * 0 + 1;
}

static int run_deep(double secs)
{
	const uint64_t want = ref_spin(SPIN / 8) + DEEP + 1;
	double end = now() + secs;
	unsigned long rounds = 0;

	while (running(end)) {
		if (deep_rec(DEEP) != want)
			return fail("deep", "the recursion's result is wrong");
		rounds++;
	}
	printf("deep ok %lu rounds of %d frames\n", rounds, DEEP);
	return 0;
}

/*
 * The JIT code: uint64_t f(uint64_t n) computing ref_spin(n), position
 * independent, no stack use, n >= 1.
 *   mov $1,%eax; 1: lea (%rax,%rax,4),%rax; add %rdi,%rax; dec %rdi;
 *   jnz 1b; ret
 */
static const unsigned char jit_code[] = {
	0xb8, 0x01, 0x00, 0x00, 0x00,	/* mov $1, %eax */
	0x48, 0x8d, 0x04, 0x80,		/* lea (%rax,%rax,4), %rax */
	0x48, 0x01, 0xf8,		/* add %rdi, %rax */
	0x48, 0xff, 0xcf,		/* dec %rdi */
	0x75, 0xf4,			/* jnz -12 (to the lea) */
	0xc3,				/* ret */
};

/*
 * jitfp's code: the same loop in a function that keeps a frame pointer,
 *   push %rbp; mov %rsp,%rbp; (the loop above); pop %rbp; ret
 * and, JITFP_OUTER bytes in, uint64_t outer(uint64_t n, inner) that
 * calls inner(n) under a frame pointer of its own:
 *   push %rbp; mov %rsp,%rbp; call *%rsi; pop %rbp; ret
 */
#define JITFP_OUTER 0x40
static const unsigned char jitfp_inner[] = {
	0x55,				/* push %rbp */
	0x48, 0x89, 0xe5,		/* mov %rsp, %rbp */
	0xb8, 0x01, 0x00, 0x00, 0x00,	/* mov $1, %eax */
	0x48, 0x8d, 0x04, 0x80,		/* lea (%rax,%rax,4), %rax */
	0x48, 0x01, 0xf8,		/* add %rdi, %rax */
	0x48, 0xff, 0xcf,		/* dec %rdi */
	0x75, 0xf4,			/* jnz -12 (to the lea) */
	0x5d,				/* pop %rbp */
	0xc3,				/* ret */
};
static const unsigned char jitfp_outer[] = {
	0x55,				/* push %rbp */
	0x48, 0x89, 0xe5,		/* mov %rsp, %rbp */
	0xff, 0xd6,			/* call *%rsi */
	0x5d,				/* pop %rbp */
	0xc3,				/* ret */
};

typedef uint64_t (*jit_fn)(uint64_t, const void *);

NOIPA static uint64_t call_jit(jit_fn fn, uint64_t n, const void *inner)
{
	uint64_t r = fn(n, inner);

	KEEP_FRAME();
	return r;
}

/* jit (fp 0) or jitfp (fp 1). */
static int run_jit(double secs, int fp)
{
	const char *mode = fp ? "jitfp" : "jit";
	const uint64_t want = ref_spin(SPIN);
	double end = now() + secs;
	unsigned long rounds = 0;
	jit_fn fn;
	uint8_t *mem;

	mem = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		return fail(mode, "mmap failed");
	if (fp) {
		memcpy(mem, jitfp_inner, sizeof(jitfp_inner));
		memcpy(mem + JITFP_OUTER, jitfp_outer, sizeof(jitfp_outer));
	} else {
		memcpy(mem, jit_code, sizeof(jit_code));
	}
	if (mprotect(mem, 4096, PROT_READ | PROT_EXEC))
		return fail(mode, "mprotect failed");
	/* jit: the spinning function, called as fn(n) (rsi unused) */
	fn = (jit_fn)(void *)(fp ? mem + JITFP_OUTER : mem);
	while (running(end)) {
		if (call_jit(fn, SPIN, mem) != want)
			return fail(mode, "the JIT code's result is wrong");
		rounds++;
	}
	printf("%s ok %lu rounds at %p\n", mode, rounds, (void *)mem);
	return 0;
}

static volatile sig_atomic_t prof_signals;
static volatile sig_atomic_t prof_bad;

/*
 * The handler burns about ten times longer than before each signal comes
 * (20 ms of CPU apart): a handler run much shorter than ptprof's period
 * can alias with its ticks (both follow the kernel's timer) and be all but
 * missed, as it was once in CI (2 of 1987 samples).
 */
NOIPA static void prof_handler(int sig)
{
	(void)sig;
	for (int i = 0; i < 10; i++)
		if (ref_spin(SPIN / 2) != ref_spin(SPIN / 2))
			prof_bad = 1;
	prof_signals++;
}

NOIPA static uint64_t main_work(void)
{
	uint64_t r = ref_spin(SPIN);

	KEEP_FRAME();
	return r;
}

static int run_sigprof(double secs)
{
	struct sigaction sa = { .sa_handler = prof_handler,
				.sa_flags = SA_RESTART };
	struct itimerval it = { { 0, 20000 }, { 0, 20000 } };
	const struct itimerval off = { { 0, 0 }, { 0, 0 } };
	const uint64_t want = ref_spin(SPIN);
	double end = now() + secs;
	unsigned long rounds = 0;

	if (sigaction(SIGPROF, &sa, NULL) || setitimer(ITIMER_PROF, &it, NULL))
		return fail("sigprof", "cannot set up the timer");
	while (running(end)) {
		if (main_work() != want)
			return fail("sigprof", "main_work's result is wrong");
		rounds++;
	}
	setitimer(ITIMER_PROF, &off, NULL);
	if (prof_bad)
		return fail("sigprof", "the handler's result is wrong");
	if (prof_signals == 0)
		return fail("sigprof", "no SIGPROF was handled");
	printf("sigprof ok %lu rounds, %d signals\n", rounds,
	       (int)prof_signals);
	return 0;
}

#define BUSY_THREADS 3

static double busy_end;

/* Rounds of ref_spin until busy_end; (void *)-1 if one came out wrong. */
NOIPA static void *busy_thread(void *arg)
{
	const uint64_t want = ref_spin(SPIN);
	unsigned long rounds = 0;

	(void)arg;
	while (running(busy_end)) {
		if (ref_spin(SPIN) != want)
			return (void *)-1;
		rounds++;
	}
	return (void *)rounds;
}

/*
 * ref_spin's loop under a CFA rule that never ends: 0x0f
 * DW_CFA_def_cfa_expression, 0x03 bytes: 0x2f DW_OP_skip, 0xfffd (-3),
 * back to the skip itself.  remember/restore_state put the compiler's
 * rules back after the loop.
 */
NOIPA static uint64_t cfiloop_spin(uint64_t n)
{
	uint64_t acc = 1;

	__asm__ volatile(".cfi_remember_state\n\t"
			 ".cfi_escape 0x0f, 0x03, 0x2f, 0xfd, 0xff\n\t"
			 ASM_SPIN
			 ".cfi_restore_state\n\t"
			 : [acc] "+r"(acc), [n] "+r"(n)
			 :
			 : "cc");
	return acc;
}

/*
 * ref_spin's loop in assembly under a CIE whose return address column is
 * 40 (.cfi_return_column): no register libunwind keeps a location for.
 */
uint64_t racol_spin(uint64_t n);
__asm__(".text\n\t"
	".p2align 4\n\t"
	".type racol_spin, @function\n"
	"racol_spin:\n\t"
	".cfi_startproc\n\t"
	".cfi_return_column 40\n\t"
	"mov $1, %eax\n"
	"1:\n\t"
	"lea (%rax,%rax,4), %rax\n\t"
	"add %rdi, %rax\n\t"
	"dec %rdi\n\t"
	"jnz 1b\n\t"
	"ret\n\t"
	".cfi_endproc\n\t"
	".size racol_spin, .-racol_spin\n\t"
	".previous");

/* mode cfiloop (spin: cfiloop_spin) or racolumn (racol_spin) */
static int run_cfiloop(double secs, const char *mode,
		       uint64_t (*spin)(uint64_t))
{
	const uint64_t want = ref_spin(SPIN);
	unsigned long rounds = 0;
	pthread_t th;
	void *r;

	busy_end = now() + secs;
	if (pthread_create(&th, NULL, busy_thread, NULL))
		return fail(mode, "pthread_create failed");
	printf("ready\n");
	while (running(busy_end)) {
		if (spin(SPIN) != want) {
			pthread_join(th, NULL);
			return fail(mode, "the loop's result differs");
		}
		rounds++;
	}
	pthread_join(th, &r);
	if (r == (void *)-1)
		return fail(mode, "the thread's result differs");
	printf("%s ok %lu rounds, %lu in the thread\n", mode, rounds,
	       (unsigned long)r);
	return 0;
}

/*
 * cfislow_run(depth, n, buf): with r12 = buf, cfislow_rec calls itself
 * depth times, then runs ref_spin's loop n times and returns its result.
 * cfislow_rec never pushes: its CFA is always rsp + 8, but written as an
 * expression of 3602 bytes (ULEB128 0x92 0x1c) that first reads two words
 * 4096 bytes apart in buf 400 times (DW_OP_breg12 0, DW_OP_deref,
 * DW_OP_drop; DW_OP_breg12 4096, DW_OP_deref, DW_OP_drop), then says
 * DW_OP_breg7 8.  buf is writable memory, which an unwinder reads from
 * the target, a page at a time: 800 reads per frame.
 */
uint64_t cfislow_run(uint64_t depth, uint64_t n, void *buf)
	__attribute__((visibility("hidden")));
__asm__(".text\n"
	".type cfislow_rec, @function\n"
	".p2align 4\n"
	"cfislow_rec:\n"
	".cfi_startproc\n"
	".cfi_escape 0x0f, 0x92, 0x1c\n"
	".rept 400\n"
	".cfi_escape 0x7c, 0x00, 0x06, 0x13, 0x7c, 0x80, 0x20, 0x06, 0x13\n"
	".endr\n"
	".cfi_escape 0x77, 0x08\n"
	"test %rdi, %rdi\n"
	"jz 2f\n"
	"dec %rdi\n"
	"call cfislow_rec\n"
	"ret\n"
	"2:\n"
	"mov $1, %rax\n"
	"1:\n"
	"lea (%rax,%rax,4), %rax\n"
	"add %rsi, %rax\n"
	"dec %rsi\n"
	"jnz 1b\n"
	"ret\n"
	".cfi_endproc\n"
	".size cfislow_rec, .-cfislow_rec\n"
	".globl cfislow_run\n"
	".hidden cfislow_run\n"
	".type cfislow_run, @function\n"
	".p2align 4\n"
	"cfislow_run:\n"
	".cfi_startproc\n"
	"push %r12\n"
	".cfi_def_cfa_offset 16\n"
	".cfi_offset %r12, -16\n"
	"mov %rdx, %r12\n"
	"call cfislow_rec\n"
	"pop %r12\n"
	".cfi_def_cfa_offset 8\n"
	"ret\n"
	".cfi_endproc\n"
	".size cfislow_run, .-cfislow_run\n");

static int run_cfislow(double secs)
{
	static uint8_t buf[8192] __attribute__((aligned(4096)));
	const uint64_t want = ref_spin(SPIN);
	double end = now() + secs;
	unsigned long rounds = 0;

	printf("ready\n");
	while (running(end)) {
		if (cfislow_run(5000, SPIN, buf) != want)
			return fail("cfislow", "the loop's result differs");
		rounds++;
	}
	printf("cfislow ok %lu rounds\n", rounds);
	return 0;
}

#define CFISWAP_COPY "libcfiswap-copy.so"

static int cfiswap_fd = -1;
static off_t cfiswap_off;
static double cfiswap_end;

/* Once "flip" appears, swap the rule's first 3 bytes for a loop. */
static void *cfiswap_flipper(void *arg)
{
	static const uint8_t loop[] = { 0x2f, 0xfd, 0xff };

	(void)arg;
	while (running(cfiswap_end) && access("flip", F_OK) != 0)
		usleep(1000);
	if (!running(cfiswap_end))
		return (void *)0;
	return (void *)(pwrite(cfiswap_fd, loop, 3, cfiswap_off) == 3 ? 1L :
								       -1L);
}

/* Copy lib to CFISWAP_COPY (left open in cfiswap_fd); find the rule. */
static int cfiswap_copy(const char *lib)
{
	static const uint8_t rule[] = { 0x0c, 0x42, 0xee, 0xff,
					0xc0, 0x13, 0x77, 0x08 };
	static uint8_t buf[1 << 20];
	FILE *in = fopen(lib, "rb");
	size_t n = in ? fread(buf, 1, sizeof(buf), in) : 0;

	if (in)
		fclose(in);
	cfiswap_fd = open(CFISWAP_COPY, O_RDWR | O_CREAT | O_TRUNC, 0700);
	if (n == 0 || n == sizeof(buf) || cfiswap_fd < 0 ||
	    write(cfiswap_fd, buf, n) != (ssize_t)n)
		return -1;
	for (size_t i = 0; i + sizeof(rule) <= n; i++)
		if (!memcmp(buf + i, rule, sizeof(rule))) {
			cfiswap_off = (off_t)i;
			return 0;
		}
	return -1;
}

static int run_cfiswap(double secs, const char *lib)
{
	const uint64_t want = ref_spin(SPIN);
	uint64_t (*spin)(uint64_t);
	unsigned long rounds = 0;
	void *h, *r;
	pthread_t th;

	if (!lib || cfiswap_copy(lib))
		return fail("cfiswap", "cannot copy the library or find its rule");
	h = dlopen("./" CFISWAP_COPY, RTLD_NOW);
	spin = h ? (uint64_t(*)(uint64_t))dlsym(h, "cfiswap_spin") : NULL;
	if (!spin)
		return fail("cfiswap", "cannot load the copy");
	cfiswap_end = now() + secs;
	if (pthread_create(&th, NULL, cfiswap_flipper, NULL))
		return fail("cfiswap", "pthread_create failed");
	printf("ready\n");
	while (running(cfiswap_end)) {
		if (spin(SPIN) != want) {
			pthread_join(th, NULL);
			return fail("cfiswap", "the loop's result differs");
		}
		rounds++;
	}
	pthread_join(th, &r);
	if (r == (void *)-1)
		return fail("cfiswap", "cannot rewrite the copy");
	printf("cfiswap ok %lu rounds, rule %s\n", rounds,
	       r ? "swapped" : "never swapped");
	return 0;
}

static int run_busy(double secs, int nodump)
{
	const char *mode = nodump ? "nodump" : "busy";
	pthread_t th[BUSY_THREADS];
	unsigned long rounds = 0;

	if (nodump && prctl(PR_SET_DUMPABLE, 0, 0, 0, 0))
		return fail(mode, "prctl(PR_SET_DUMPABLE) failed");
	busy_end = now() + secs;
	for (int i = 0; i < BUSY_THREADS; i++)
		if (pthread_create(&th[i], NULL, busy_thread, NULL))
			return fail(mode, "pthread_create failed");
	printf("ready\n");
	for (int i = 0; i < BUSY_THREADS; i++) {
		void *r;

		pthread_join(th[i], &r);
		if (r == (void *)-1)
			return fail(mode, "a thread's result differs");
		rounds += (unsigned long)r;
	}
	printf("%s ok %lu rounds in %d threads\n", mode, rounds, BUSY_THREADS);
	return 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	double secs = argc > 2 ? atof(argv[2]) : 2;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(mode, "badsp"))
		return run_badsp(secs, 0);
	if (!strcmp(mode, "badchain"))
		return run_badsp(secs, 1);
	if (!strcmp(mode, "altstack"))
		return run_altstack(secs);
	if (!strcmp(mode, "coro"))
		return run_coro(secs);
	if (!strcmp(mode, "deep"))
		return run_deep(secs);
	if (!strcmp(mode, "jit"))
		return run_jit(secs, 0);
	if (!strcmp(mode, "jitfp"))
		return run_jit(secs, 1);
	if (!strcmp(mode, "sigprof"))
		return run_sigprof(secs);
	if (!strcmp(mode, "cfiloop"))
		return run_cfiloop(secs, mode, cfiloop_spin);
	if (!strcmp(mode, "racolumn"))
		return run_cfiloop(secs, mode, racol_spin);
	if (!strcmp(mode, "cfislow"))
		return run_cfislow(secs);
	if (!strcmp(mode, "cfiswap"))
		return run_cfiswap(secs, argc > 3 ? argv[3] : NULL);
	if (!strcmp(mode, "busy") || !strcmp(mode, "nodump"))
		return run_busy(secs, !strcmp(mode, "nodump"));
	fprintf(stderr, "usage: hostile MODE SECS, MODE one of badsp badchain "
			"altstack coro deep jit jitfp sigprof cfiloop racolumn cfislow "
			"cfiswap "
			"busy nodump\n");
	return 2;
}
