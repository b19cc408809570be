/*
 * sampler_kernel.c - --wall --kernel (issue 28): a blocked thread's
 * kernel frames on top of its user stack, each a synthetic PC of the
 * kernel function it sleeps in (pyframes_intern_kernel(): module
 * "[kernel]"), so that an off-CPU flame graph ends in pipe_read,
 * futex_wait_queue or hrtimer_nanosleep rather than at the libc wrapper.
 *
 * Which threads: only one read without a stop (a peek, sampler_peek.c),
 * asleep in a call.  A stopped thread's kernel stack shows the ptrace
 * stop (ptrace_stop, get_signal, arch_do_signal_or_restart), not the
 * call it slept in, which the stop cut short; one that ran is not
 * sampled in a call.  So a blocked thread stopped rather than peeked
 * (--no-peek, a peek refused, or one found awake twice) gets its user
 * stack only.
 *
 * When: sampler_kernel_read() runs in the peek (peek_read()), right
 * after the stack's copy and inside the schedstat bracket that makes a
 * peek's parts one moment (the same CPU time and run count before the
 * peek and after this read: the thread did not run, so its kernel stack
 * is that of the call the user stack is in); sampler_kernel_frames() at
 * the record, after the unwind and the Python merge, puts them on top.
 *
 * Cost: kstack_read() reads /proc/PID/task/TID/stack twice, about 70 us
 * a thread (the kernel walks the stack for each reading), so once per
 * peek of a due thread: a thread that did not run since its last sample
 * is not peeked, its last stack (the kernel frames with it) counted
 * again (threadtab.h).  The interning is a hash lookup per frame.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "proc/kstack.h"
#include "python/pyframes.h"
#include "sampler/sampler_int.h"
#include "util/grow.h"

void sampler_kernel_drop(struct sampler *s)
{
	s->kb.th = NULL;
}

void sampler_kernel_read(struct sampler *s, const struct thread *th)
{
	s->kb.th = NULL;
	if (!s->cfg->kframes)
		return;
	if (!s->kb.ks && !(s->kb.ks = malloc(sizeof(*s->kb.ks))))
		return;
	/* Not allowed, gone, or ran between the two readings (EAGAIN):
	 * the user stack alone, as without --kernel.  (Allowed or not was
	 * decided at the start: kstack_available().) */
	if (kstack_read(th->proc->pid, th->tid, s->kb.ks) || !s->kb.ks->n)
		return;
	s->kb.th = th;
}

/* The function of a kstack frame, "name+0xOFF[ [MODULE]]" (kstack.h),
 * into buf (KSTACK_NAME_MAX bytes). */
static void frame_function(const char *frame, char *buf)
{
	size_t n = strcspn(frame, "+ ");

	memcpy(buf, frame, n);
	buf[n] = '\0';
}

size_t sampler_kernel_frames(struct sampler *s, const struct queued *q,
			     const uint64_t *pcs, size_t n,
			     const uint64_t **out)
{
	const struct kstack *ks = s->kb.ks;
	char name[KSTACK_NAME_MAX];
	uint64_t *v;
	size_t k;

	*out = pcs;
	if (!s->kb.th || s->kb.th != q->th || !q->partial)
		return n;
	s->kb.th = NULL; /* used once: a repeat reuses the stack kept */
	v = grow_array(s->kb.pcs, &s->kb.cap, ks->n + n, sizeof(*v));
	if (!v)
		return n;
	s->kb.pcs = v;
	/* Innermost first, as a stack's PCs are: the kernel's innermost
	 * frame is the sample's leaf, the user leaf (the call's wrapper)
	 * under the outermost kernel frame kept (__x64_sys_NAME). */
	for (k = 0; k < ks->n; k++) {
		frame_function(ks->frames[k], name);
		/* The registry full (ENOSPC) or no memory: no frame rather
		 * than a kernel stack with a hole. */
		if (pyframes_intern_kernel(s->cfg->kframes, name, &v[k]))
			return n;
	}
	memcpy(v + k, pcs, n * sizeof(*pcs));
	*out = v;
	return k + n;
}

void sampler_kernel_free(struct sampler *s)
{
	free(s->kb.ks);
	free(s->kb.pcs);
	s->kb = (struct sampler_kbufs){ 0 };
}
