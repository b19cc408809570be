/*
 * procset.h - the processes of a run, and their images.
 *
 * A run samples a set of processes: the ones named with -p, the launched
 * COMMAND, and with --children (the default with a COMMAND) every
 * descendant found while it runs (proctree.h).  A process that execs
 * starts a new *image*: from then on its addresses mean other code, so
 * each image has its own memory map (maps.h), its own mappings and
 * locations in a pprof profile, and its own name (make -> sh -> gcc:
 * the PID that ran sh runs gcc).  The set holds every image the run
 * sampled or had to skip, numbered in the order they were found (index
 * 0: the first -p PID, or COMMAND), for the writers, the summary and
 * --stats.
 *
 * An endless run (--children --rotate on a service that forks for every
 * request) must not keep every image it saw: at the end of a period,
 * once the period's builders are emptied, procset_retire() empties the
 * maps of every ended image (none of its addresses is left to name) and
 * frees the ended images the summary does not need, folding their counts
 * into the set's totals (procset_retired()).  A skipped image goes too
 * once its process is gone: its count and whether it had samples stay
 * in the totals, the first skipped (and the first never sampled) stay
 * for the end-of-run warning.
 *
 * Contract: plain data but for the functions that look at /proc
 * (procset_image_root(), procset_note_start(), procset_skip_applies(),
 * and procset_retire() through them), not
 * thread-safe, never prints or exits.  The set
 * owns its images and their maps; each image is allocated on its own and
 * stays at its address until procset_free() or, ended, until a
 * procset_retire() frees it: a pointer to an image may be kept while its
 * process lives (and is that image), and no pointer or index to an ended
 * one may be kept past procset_retire(), which renumbers the images.
 * Allocation failure: NULL, errno ENOMEM, the set unchanged.
 */
#ifndef PTPROF_PROCSET_H
#define PTPROF_PROCSET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "proc/maps.h"
#include "wait/wait.h"

/* Processes sampled at once, at most (-p lists longer are refused; a
 * descendant found past it is skipped, counted and warned about). */
#define PROCSET_MAX_LIVE 4096

struct proc_image {
	unsigned index;	   /* in the set: 0, 1, ... in the order found
			      (renumbered by procset_retire()) */
	pid_t pid;	   /* its process (thread group ID) */
	pid_t ppid;	   /* the process it was found a child of; 0: named
			       (-p) or COMMAND */
	unsigned exec_no;  /* 0: the image the process was found with; n:
			       after the n-th exec ptprof saw */
	char comm[16];	   /* the process's name (comm) in this image */
	struct maps *maps; /* its memory map snapshots (owned by the set) */
	uint64_t samples;  /* samples recorded of it (CPU mode: periods) */
	uint64_t stacks;   /* stacks recorded of it */
	uint64_t threads_stopped; /* thread stops taken in it */
	bool ended;		  /* it exited, or exec'd into a newer image */
	/* Never sampled: why, as an errno (EPERM: another user's or a
	 * set-uid image, EBUSY: another tracer holds it, EAGAIN: the cap of
	 * PROCSET_MAX_LIVE processes) and one sentence without a newline. */
	int skipped;
	char skip_why[160];
	/* A skipped image's process, as it started: /proc/PID/stat field 22
	 * (procset_note_start()), or PROCSET_START_ENDED: it ended;
	 * have_start false: unread.  A skip decision holds for that process
	 * only, not for a later one under its PID. */
	bool have_start;
	uint64_t start;
};

/* proc_image.start of a process known to have ended (no start time is
 * that). */
#define PROCSET_START_ENDED UINT64_MAX

/* Where a stack came from: handed with every stack the sampler records
 * (sampler_config.on_stack). */
struct sample_origin {
	const struct proc_image *image; /* its process and image */
	pid_t tid;			/* its thread */
	const char *name;		/* the thread's name, "" unread */
	/* CLOCK_REALTIME, ns since the epoch, at the start of the tick
	 * that recorded the stack (unwound after the release, or settled
	 * when its process ends: that tick's); 0: unknown. */
	int64_t time_ns;
	/* --wall: what the thread was blocked on when the stack was taken
	 * (wait.h; issue 28): the wait's kind (WAIT_NONE: running, not in a
	 * call, or not a --wall run), from its system call and, for a
	 * futex, the glibc object found there (waitdesc.h); and the thread
	 * it waits on, for WAIT_MUTEX, WAIT_RWLOCK and WAIT_JOIN when the
	 * target's memory named one (0: none or unknown).  A thread that
	 * did not run since carries the wait of its last stack. */
	enum wait_kind wait;
	pid_t wait_holder;
};

struct procset;

struct procset *procset_new(void);
void procset_free(struct procset *ps);

/* A new image of pid (its first, or the next after an exec: exec_no is
 * one more than that of pid's newest image, which is marked ended),
 * with empty maps. */
struct proc_image *procset_add(struct procset *ps, pid_t pid, pid_t ppid,
			       const char *comm);

/* Images held, and the i-th (i below procset_count()); those retired
 * are not among them. */
size_t procset_count(const struct procset *ps);
struct proc_image *procset_at(const struct procset *ps, size_t i);

/* pid's newest image, or NULL. */
struct proc_image *procset_find(const struct procset *ps, pid_t pid);

/* The directory to open image im's files under while its process lives
 * and still is that image (its newest, not ended): "/proc/PID/root" in
 * buf (len bytes, 64 are enough), or NULL, when the PID may be another
 * process's by now or that root cannot be entered.  (The one function
 * here that looks at /proc.) */
const char *procset_image_root(const struct procset *ps,
			       const struct proc_image *im, char *buf,
			       size_t len);

/* Image im's process's start time read now (/proc/PID/stat field 22)
 * into im->start, have_start set (PROCSET_START_ENDED: no such process):
 * 0, or -1 with errno (unreadable: no descriptor left; im unchanged).
 * The caller knows that PID is still im's process (a pidfd, or a process
 * just found). */
int procset_note_start(struct proc_image *im);

/* Does a skip decision hold for pid: is its newest image skipped, and
 * pid still that process?  A start time that differs (the PID reused)
 * says no; one unread then or now (no descriptor left, or gone: a NEW
 * for it finds nothing) keeps the decision, as the safe side. */
bool procset_skip_applies(const struct procset *ps, pid_t pid);

/* Images with at least one sample; distinct PIDs among them (the
 * retired included). */
size_t procset_sampled(const struct procset *ps);
size_t procset_sampled_pids(const struct procset *ps);

/* The process with the most samples: the PID whose images' counts add
 * up highest, count[i] being image i's (NULL: the images' own samples,
 * the retired ones' not counted);
 * on a tie, the PID whose first image came first.  Its total into *most
 * (may be NULL).  The first image's PID when no image counted anything;
 * 0 for an empty set. */
pid_t procset_busiest(const struct procset *ps, const uint64_t *count,
		      uint64_t *most);

/* qsort() order of an array of image pointers: most samples first, then
 * the first found (--stats lists the busiest so). */
int procset_cmp_busiest(const void *a, const void *b);

/* Ended images kept by procset_retire() whatever their age: the ones
 * with the most samples (ties: the first found), which --stats lists. */
#define PROCSET_KEEP_BUSIEST 10

/* What procset_retire() freed so far. */
struct procset_retired {
	size_t images;		/* image records freed */
	size_t sampled;		/* of them, with at least one sample */
	size_t maps_emptied;	/* ended images whose maps were freed */
	uint64_t samples_other; /* their samples, of PIDs other than image
				   0's */
	size_t skipped;		/* of them, skipped (procset_skip_applies()
				   no more) */
	size_t skipped_partly;	/* of those, with samples before the skip */
};

/*
 * The end of a period, its samples handed to their writers and the
 * builders emptied: no stack refers to an ended image any more, nor can
 * one come (an image ends when its process is settled, or execs).  Every
 * ended image's maps are freed (an empty map kept); the ended images are
 * freed but for image 0 (the root's, which names the run), the
 * PROCSET_KEEP_BUSIEST with the most samples, the first skipped image
 * and the first skipped one never sampled (the end-of-run warning names
 * them) and the skipped whose process lives on (a NEW for it must still
 * find the decision: procset_skip_applies()); the rest are renumbered in
 * their order.  Returns the images freed by this call.
 */
size_t procset_retire(struct procset *ps);
const struct procset_retired *procset_retired(const struct procset *ps);

#endif /* PTPROF_PROCSET_H */
