/*
 * sampler_procs.c - the sampler's process set (sampler.h, "Several
 * processes"): the roots, the descendants proctree.h finds, each with
 * its own pidfd, image, unwinder and map keeping; a new image when one
 * execs; a process settled and forgotten when it exits.  Runs between
 * ticks (and before the unwinds of a tick: an exec), never in a stop
 * window.  It never calls the loop by name: what it needs of it comes
 * through s->hooks (sampler_int.h).  It also keeps each thread's tie to
 * its process (sampler_procs_thread()) and forgets a thread's user code
 * when its TID changes hands or it execs.
 */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sampler/sampler_int.h"
#include "util/grow.h"
#include "util/timeutil.h"

/* Descendant events taken per proctree_poll(). */
#define TREE_EVENTS 64
/* How long a process skipped while it lives waits for the stops still
 * owed to it (stop_owed()). */
#define SKIP_WAIT_NS (500 * NSEC_PER_MSEC)

static struct sampler_proc *proc_of(const struct sampler *s, pid_t pid)
{
	for (size_t i = 0; i < s->set.nprocs; i++)
		if (s->set.procs[i]->pid == pid)
			return s->set.procs[i];
	return NULL;
}

/*
 * p's image now, as /proc/PID/stat marks it: where its code starts and
 * ends and where its stack starts (an exec maps new ones; with address
 * randomization at new addresses even for the same file).  That file
 * names no file of the target's: a stat() of /proc/PID/exe, which this
 * was, asks the executable's filesystem, and a FUSE server that stopped
 * answering held it forever, deaf to every signal (proc/fsguard.h).
 * False: not readable (an exiting process has no memory: all 0).
 */
static bool read_exe(struct sampler_proc *p, uint64_t mark[3])
{
	struct procfs_stat st;

	/* the file the thread count is read from, kept open (one pread()
	 * a tick: tests/syscalls.test counts them) */
	if (procfs_read_proc_stat(p->pid, &p->stat_fd, &st) || st.fields < 28 ||
	    !(st.startcode | st.endcode | st.startstack))
		return false;
	mark[0] = st.startcode;
	mark[1] = st.endcode;
	mark[2] = st.startstack;
	return true;
}

/* Its main executable's device and inode: the mapping of its code. */
static void exe_file(struct sampler_proc *p)
{
	const struct map_entry *e = maps_find(p->im->maps, p->exe_mark[0]);

	p->exe_dev = e ? (dev_t)e->dev : 0;
	p->exe_ino = e ? (ino_t)e->ino : 0;
}

/* p's maps read (and its CPython runtime looked for in them). */
static void read_image(struct sampler *s, struct sampler_proc *p)
{
	mapsync_refresh(&p->mapsync, 0);
	exe_file(p);
	sampler_py_open(s, p);
}

/*
 * The unwinder and map keeping of p's current image; its maps read now
 * if eager, else at its first capture (sampler_procs_check_exec(): a
 * capture of it is unwound only after that).  (Its executable was read
 * before its name and maps: an exec after that is seen at its next
 * capture, sampler_procs_check_exec().)
 *
 * Not eager: the descendants found at the start (-p PID --children), not
 * born in the run.  Reading every one's maps, and the build IDs of every
 * file they map, when it is found made the first tick of a tree of 4,200
 * idle processes take seconds, for processes that, idle, are never
 * stopped (issue 27); a process that lives from the start is there
 * still at its first capture.  One born in the run is read at once: a
 * short one may be gone by its first capture's unwind, and a fork
 * without exec must be unwound with the maps it was born with.  The
 * cost: a process read late has no Python frames in its first stop.
 */
static int open_image(struct sampler *s, struct sampler_proc *p, bool eager)
{
	p->unw = unwinder_new(p->pid, p->im->maps);
	if (!p->unw)
		return -1;
	unwinder_set_hook(p->unw, s->hooks.between_steps, s);
	mapsync_init(&p->mapsync, p->pid, p->im->maps, p->unw);
	p->py_found = false; /* a new image: look again */
	p->py_scans = 0;
	if (eager)
		read_image(s, p);
	return 0;
}

/* Its unwinder's counters into the run's (at its end, or an exec). */
void sampler_procs_close_image(struct sampler *s, struct sampler_proc *p)
{
	struct unwinder_counters c, *u = &s->st->unwind;

	if (!p->unw)
		return;
	unwinder_counters(p->unw, &c);
	u->mem_from_stack += c.mem_from_stack;
	u->mem_from_module += c.mem_from_module;
	u->mem_from_target += c.mem_from_target;
	u->tables_built += c.tables_built;
	u->tables_missing += c.tables_missing;
	u->tables_debug_frame += c.tables_debug_frame;
	u->debug_frame_fdes += c.debug_frame_fdes;
	u->debug_frame_skipped += c.debug_frame_skipped;
	u->cfi_refused += c.cfi_refused;
	u->budget_cuts += c.budget_cuts;
	u->fp_steps += c.fp_steps;
	u->fp_stop_bad_fp += c.fp_stop_bad_fp;
	u->fp_stop_unreadable += c.fp_stop_unreadable;
	u->fp_stop_not_exec += c.fp_stop_not_exec;
	u->fp_stop_limit += c.fp_stop_limit;
	u->unwinds += c.unwinds;
	u->unwind_ns += c.unwind_ns;
	u->unwinds_fp += c.unwinds_fp;
	u->unwind_fp_ns += c.unwind_fp_ns;
	u->cache_size_set = c.cache_size_set;
	sampler_py_close(p);
	mapsync_free(&p->mapsync);
	unwinder_free(p->unw);
	p->unw = NULL;
}

void sampler_procs_free(struct sampler *s, struct sampler_proc *p)
{
	sampler_procs_close_image(s, p);
	sampler_wait_forget(p);
	procfs_tidlist_free(&p->tids);
	procfs_tasks_close(&p->task_dir);
	if (p->stat_fd >= 0)
		close(p->stat_fd);
	if (p->pidfd >= 0)
		close(p->pidfd);
	free(p);
}

static int push_proc(struct sampler *s, struct sampler_proc *p)
{
	struct sampler_proc **a = grow_array(s->set.procs, &s->set.cap_procs,
					     s->set.nprocs + 1, sizeof(*a));

	if (!a)
		return -1;
	s->set.procs = a;
	s->set.procs[s->set.nprocs++] = p;
	return 0;
}

/* A process never sampled: its image says it was skipped (err), and why. */
static int add_skipped(struct sampler *s, pid_t pid, pid_t ppid, int err,
		       const char *why)
{
	char comm[16] = "";
	struct proc_image *im;

	procfs_comm(pid, 0, comm, sizeof(comm));
	im = procset_add(s->ps, pid, ppid, comm);
	if (!im)
		return -1;
	im->skipped = err;
	im->ended = true;
	snprintf(im->skip_why, sizeof(im->skip_why), "%s", why);
	procset_note_start(im); /* unread: skipped_already() errs safe */
	s->st->procs_found++;
	s->st->procs_skipped++;
	return 0;
}

/* Past PROCSET_MAX_LIVE: skipped, and so are its descendants. */
static int add_capped(struct sampler *s, pid_t pid, pid_t ppid)
{
	char why[96];

	if (s->set.tree)
		proctree_forget(s->set.tree, pid);
	snprintf(why, sizeof(why),
		 "%d processes were sampled already (the most at once)",
		 PROCSET_MAX_LIVE);
	return add_skipped(s, pid, ppid, EAGAIN, why);
}

/*
 * A descendant ptprof could not start to follow, for want of something
 * other than memory (descriptors: EMFILE, ENFILE): skipped, with why, and
 * so are its descendants; the run goes on with the rest.  -1 (the run
 * fails): a root, or no memory.
 */
static int add_unwatched(struct sampler *s, pid_t pid, pid_t ppid, bool root)
{
	int err = errno;
	char why[128];

	if (root || err == ENOMEM)
		return -1;
	if (s->set.tree)
		proctree_forget(s->set.tree, pid);
	snprintf(why, sizeof(why), "ptprof could not follow it: %s",
		 strerror(err));
	return add_skipped(s, pid, ppid, err, why);
}

/*
 * Watch pid's descendants (proctree.h): before its executable, name and
 * maps are read, so that an exec after that is reported.  A descendant
 * gone already (proctree_watch() says ESRCH) is no part of the run: 1.
 */
static int watch_tree(struct sampler *s, pid_t pid, bool root)
{
	if (!s->set.tree || proctree_watch(s->set.tree, pid) == 0)
		return 0;
	if (errno != ESRCH)
		return -1;
	return root ? 0 : 1;
}

/* The sampler's state of a new process, its image added to the set
 * (born: in the run, see open_image()). */
static int start_proc(struct sampler *s, struct sampler_proc *p, pid_t ppid,
		      bool born)
{
	char comm[16] = "";

	p->stat_fd = -1;
	read_exe(p, p->exe_mark);
	procfs_comm(p->pid, 0, comm, sizeof(comm));
	cpuacct_proc_init(&p->acct, p->pid, s->period_ns, s->cfg->wall);
	if (p->born)
		cpuacct_proc_from_birth(&p->acct);
	p->im = procset_add(s->ps, p->pid, ppid, comm);
	s->set.roots_live += p->root;
	s->st->procs_found++;
	return p->im ? open_image(s, p, p->root || born) : -1;
}

/*
 * A process born in the run and reaped before it could be read (its NEW
 * was taken after its parent waited for it): kept until its EXIT, which
 * may tell the CPU time it used (proctree.h), UNREAD_MAX of them at
 * most (a tree without taskstats sends EXITs all the same).
 */
#define UNREAD_MAX 1024

static int unread_keep(struct sampler *s, pid_t pid, pid_t ppid)
{
	struct sampler_set *set = &s->set;
	struct sampler_unread *u;

	if (set->nunread >= UNREAD_MAX)
		return 0;
	u = grow_array(set->unread, &set->cap_unread, set->nunread + 1,
		       sizeof(*u));
	if (!u)
		return -1;
	set->unread = u;
	u[set->nunread++] = (struct sampler_unread){ pid, ppid };
	return 0;
}

/*
 * A process to sample from the next tick on: a root (cfg->pids), or a
 * descendant proctree found.  The pidfd is opened first: a descendant
 * already gone is no part of the run (0), and the PID cannot be another
 * process's from then on.  Past PROCSET_MAX_LIVE it is skipped, and so
 * are its descendants.  Its maps are read now, for the unwinder.  born:
 * forked in the run (proctree.h), its CPU time counted from 0; one gone
 * already is kept for its EXIT (unread_exit()).
 */
static int add_proc(struct sampler *s, pid_t pid, pid_t ppid, bool root,
		    bool born)
{
	struct sampler_proc *p;
	int pidfd = (int)syscall(SYS_pidfd_open, pid, 0), w;

	/* No pidfd (old kernel): /proc is read instead (sampler_procs_exited()). */
	if (pidfd < 0 && errno == ESRCH && !root)
		return born ? unread_keep(s, pid, ppid) : 0;
	w = watch_tree(s, pid, root);
	if (w) {
		if (pidfd >= 0)
			close(pidfd);
		if (w > 0)
			return born ? unread_keep(s, pid, ppid) : 0;
		return add_unwatched(s, pid, ppid, root);
	}
	if (s->set.nprocs >= PROCSET_MAX_LIVE) {
		if (pidfd >= 0)
			close(pidfd);
		return add_capped(s, pid, ppid);
	}
	p = calloc(1, sizeof(*p));
	if (!p || push_proc(s, p)) {
		free(p);
		if (pidfd >= 0)
			close(pidfd);
		return -1;
	}
	p->pid = pid;
	p->root = root;
	p->born = born && !s->cfg->wall;
	p->pidfd = pidfd;
	return start_proc(s, p, ppid, born);
}

/* A thread first listed as one of p's: mark it so.  NULL with EEXIST
 * when the TID is still another process's (that one exited this tick
 * and a new one has the TID already: it is for the next tick). */
struct thread *sampler_procs_thread(struct sampler *s, struct sampler_proc *p,
				    pid_t tid)
{
	struct thread *th = threadtab_get(s->threads, tid, true);

	if (th && !th->proc) {
		th->proc = p;
		/* Born in the run: its threads of the first listing count
		 * from 0 (cpuacct_from_birth() says why only those). */
		if (p->born && p->first_tick == s->tick)
			cpuacct_from_birth(&th->cpu);
	}
	if (th && th->proc != p) {
		errno = EEXIST;
		return NULL;
	}
	return th;
}

/*
 * Another task has the thread's TID, or it exec'd: its stacks stopped in
 * user code are of code that is no more (or another thread's), and its
 * split of user and system time (sysbias.h) is another task's.  Forget
 * them (the correction starts again as for a new thread).
 */
void sampler_procs_forget_user_code(struct thread *th)
{
	th->user_stacks.count = 0;
	th->user_stacks.put = 0;
	th->user_stacks.turn = 0;
	th->bias = (struct sysbias_thread){ 0 };
	th->have_image = false;
}

/* A thread of p that exec'd away its image: its stacks are no more. */
static void forget_image(struct thread *th, void *arg)
{
	if (th->proc != arg)
		return;
	free(th->last_pcs);
	th->last_pcs = NULL;
	th->last_n = 0;
	sampler_procs_forget_user_code(th);
}

/*
 * p's image is another (read_exe()): it exec'd.  From now on its
 * addresses mean the new image's code: a new image in the set, with its
 * own maps and a fresh unwinder.  The carry of its threads goes on (the
 * CPU time they used is theirs), but not their last stacks.
 */
void sampler_procs_check_exec(struct sampler *s, struct sampler_proc *p)
{
	uint64_t mark[3];
	char comm[16] = "";
	struct proc_image *im;

	p->exe_tick = s->tick;
	if (!read_exe(p, mark) || !memcmp(mark, p->exe_mark, sizeof(mark))) {
		if (!p->mapsync.text) /* never read yet (open_image()) */
			read_image(s, p);
		return;
	}
	memcpy(p->exe_mark, mark, sizeof(mark));
	procfs_comm(p->pid, 0, comm, sizeof(comm));
	im = procset_add(s->ps, p->pid, p->im->ppid, comm);
	if (!im)
		return; /* no memory: the old image goes on */
	sampler_procs_close_image(s, p);
	p->im = im;
	threadtab_foreach(s->threads, forget_image, p);
	if (open_image(s, p, true))
		p->gone = true; /* no unwinder: nothing more of it */
}

static bool of_proc(const struct thread *th, void *arg)
{
	return th->proc == arg;
}

/*
 * The CPU time of ended processes that is under a sample's worth each,
 * pooled: ns more into the pool; what it then holds of whole periods
 * (rounded as cpuacct_periods() does, with what the earlier ones left)
 * is taken out and returned, to be samples of the process that filled it.
 * Rounded one by one, 40 processes of 11 ms each were 40 samples for
 * 0.45 s, and the 1.2 ms of each was in no sample; 3,000 zombies of 2.7
 * ms each were 8 s "in no sample", 71% of the run (issue 27).  What is
 * left at the end, under half a period, is said (unsampled_ns).
 */
static int64_t pool_ended(struct sampler *s, uint64_t ns)
{
	int64_t period = (int64_t)s->period_ns, w;

	s->set.unread_resid += (int64_t)ns;
	w = s->set.unread_resid > 0 ?
		    (s->set.unread_resid + period / 2) / period :
		    0;
	s->set.unread_resid -= w * period;
	return w;
}

/* w samples of the pool on the row "[CPU time of no stack]" of im (p:
 * NULL when never in the set, and then counted as a process never read's),
 * else in no sample, said. */
static void pool_record(struct sampler *s, struct sampler_proc *p,
			struct proc_image *im, pid_t pid, const char *comm,
			int64_t w)
{
	if (!sampler_record_own_proc(s, p, im, pid, comm,
				     FRAMENAME_OWN_NO_STACK, (uint64_t)w))
		s->st->unsampled_ns += (uint64_t)w * s->period_ns;
	else if (!p)
		s->st->nostack_unread_samples += (uint64_t)w;
}

/*
 * p ended: its threads' carries go to their last stacks (s->hooks.settle,
 * sampler_cpu.c), and what that leaves in no sample, under half a period,
 * goes to the pool of ended processes' time (pool_ended()) rather than
 * being counted as missed: a process that ended can never be sampled
 * again, and its few milliseconds are time no tick could have caught
 * (a zombie's, a short child's).  Only the time of processes still
 * living at the end, and the pool's last half period, stay in
 * unsampled_ns: that is the rule for what record_warn.c's "in no sample"
 * counts.
 */
static void settle_ended(struct sampler *s, struct sampler_proc *p)
{
	uint64_t before = s->st->unsampled_ns;
	int64_t w;

	s->hooks.settle(s, p, false);
	if (s->cfg->wall || p->im->skipped || s->st->unsampled_ns <= before)
		return;
	w = pool_ended(s, s->st->unsampled_ns - before);
	s->st->unsampled_ns = before;
	if (w)
		pool_record(s, p, p->im, p->pid, p->im->comm, w);
}

/*
 * An image of a process that ended and is forgotten, with no stack
 * recorded of it (its samples, if any, on ptprof's own rows): no address
 * will ever be named through its maps, so they are emptied (its
 * unwinder and map keeping, their last users, are freed).  A storm of
 * short children, forks whose maps were read at once (open_image()),
 * kept 2-3 KB each for nothing: 60,000 of them, 150 MB.
 */
static void forget_maps(struct proc_image *im)
{
	struct maps *none;

	if (im->stacks || !(none = maps_new()))
		return;
	maps_free(im->maps);
	im->maps = none;
}

/*
 * A process that exited (or was skipped): its threads' carries go to
 * their last stacks (s->hooks.settle), then it is forgotten; its image
 * stays in the set.  A LATE thread of it dropped here is let go when its
 * stop comes, as any stop not asked for (handle_status()).
 */
static void finish_proc(struct sampler *s, size_t i)
{
	struct sampler_proc *p = s->set.procs[i];
	struct proc_image *im = p->im;

	/* Found gone by its pidfd before its EXIT: what it used in all. */
	if (!p->have_exit_cpu && s->set.tree &&
	    proctree_exit_cpu(s->set.tree, p->pid, &p->exit_cpu_ns))
		p->have_exit_cpu = true;
	settle_ended(s, p);
	threadtab_sweep(s->threads, of_proc, p);
	p->im->ended = true;
	/* Skipped while it lives: its start time tells skipped_already()
	 * whether a NEW under its PID is still it; one that exited, whose
	 * PID may be another's soon, holds no decision any more.  Only its
	 * pidfd proves it ended: without one, "no thread listed" may be
	 * ptprof out of descriptors (EMFILE), and procset_note_start() then
	 * leaves the start unread, which keeps the skip. */
	if (im->skipped && p->pidfd >= 0 && sampler_procs_exited(p)) {
		im->have_start = true;
		im->start = PROCSET_START_ENDED;
	} else if (im->skipped && !im->have_start) {
		procset_note_start(im);
	}
	if (s->set.tree)
		proctree_forget(s->set.tree, p->pid);
	s->set.roots_live -= p->root;
	memmove(&s->set.procs[i], &s->set.procs[i + 1],
		(s->set.nprocs - i - 1) * sizeof(*s->set.procs));
	s->set.nprocs--;
	sampler_procs_free(s, p);
	forget_maps(im);
}

/* The whole set, at the end of the run (the tree's counters kept). */
void sampler_procs_free_all(struct sampler *s)
{
	for (size_t i = 0; i < s->set.nprocs; i++)
		sampler_procs_free(s, s->set.procs[i]);
	free(s->set.procs);
	free(s->set.pfds);
	free(s->set.unread);
	if (s->set.unread_resid > 0) /* under half a period, said */
		s->st->unsampled_ns += (uint64_t)s->set.unread_resid;
	if (s->set.tree) {
		proctree_counters(s->set.tree, &s->st->tree);
		proctree_free(s->set.tree);
	}
}

bool sampler_procs_roots_left(const struct sampler *s)
{
	for (size_t i = 0; i < s->set.nprocs; i++)
		if (s->set.procs[i]->root && !s->set.procs[i]->gone)
			return true;
	return false;
}

static void count_held(struct thread *th, void *arg)
{
	struct sampler_proc *p = arg;

	p->held_now += th->proc == p &&
		       (th->state == TS_SEIZED || th->state == TS_LATE);
}

/*
 * Is p, skipped while it lives, still holding a stop of ours to come?
 * Then it is kept until that stop is in (SKIP_WAIT_NS at most, as the end
 * of a run waits for LATE stops: one in D state may never come):
 * note_stop() judges the thread's seccomp filters and defuses a pending
 * restart before it lets it go; forgotten, its stop would be let go as
 * one not asked for (handle_status()), and a filter that kills on
 * restart_syscall would kill it.
 */
static bool stop_owed(struct sampler_proc *p, struct sampler *s)
{
	if (!p->im->skipped || sampler_procs_exited(p) ||
	    mono_now_ns() - p->skipped_ns > SKIP_WAIT_NS)
		return false;
	p->held_now = 0;
	threadtab_foreach(s->threads, count_held, p);
	return p->held_now > 0;
}

static int take_tree_events(struct sampler *s);

static void finish_found_gone(struct sampler *s)
{
	for (size_t i = s->set.nprocs; i-- > 0;)
		if (s->set.procs[i]->gone && !stop_owed(s->set.procs[i], s))
			finish_proc(s, i);
}

/*
 * Finish the processes found gone; the run is over once no root is left
 * (-p: all of them exited; COMMAND: it did).  Then the tree's last events
 * are taken: the EXITs of the descendants the roots waited for, which
 * came before the roots' own exit, with the CPU time they used since
 * they were last read (proctree.h), and the NEW and EXIT of those that
 * lived between the last tick and the end.
 */
void sampler_procs_finish_gone(struct sampler *s)
{
	s->hooks.flush(s); /* LATE captures: of processes still known */
	finish_found_gone(s);
	if (s->set.roots_live || s->target_gone)
		return;
	s->target_gone = true;
	if (s->set.tree && take_tree_events(s) == 0)
		finish_found_gone(s);
}

/*
 * A NEW for a PID skipped already (another tracer holds it, the cap):
 * the tree may report it again after proctree_forget(), when its parent's
 * children are read.  It stays skipped, and is warned about once.  A
 * later process under the PID (they wrap on an endless run) is not that
 * one: its start time differs, and it is sampled
 * (procset_skip_applies()).
 */
static bool skipped_already(const struct sampler *s, pid_t pid)
{
	return procset_skip_applies(s->ps, pid);
}

/*
 * A NEW for the PID of a process still in the set: the PID was reused,
 * the process we knew under it exited (its EXIT came in the same batch,
 * or, a root's, is told by its pidfd only).  It is finished now, before
 * the new one is added: left to the end of the batch, the new process
 * would be taken for it and never sampled, and finishing it would make
 * the tree forget the new one's descendants too.  False: it lives (the
 * NEW is the tree's, of a process we have already).
 */
static bool finish_reused(struct sampler *s, struct sampler_proc *p)
{
	size_t i = 0;

	if (!p->gone && !sampler_procs_exited(p))
		return false;
	s->hooks.flush(s); /* its threads are freed */
	while (s->set.procs[i] != p)
		i++;
	finish_proc(s, i);
	if (!s->set.roots_live)
		s->target_gone = true;
	return true;
}

/*
 * The EXIT of a process never read: with its CPU time told, its image
 * (ended, under its name at exit) and its time on the row "[CPU time of
 * no stack]", so that a process that lived between two ticks is in the
 * profile, under its name, rather than lost.  CPU mode only.
 */
static int unread_exit(struct sampler *s, const struct proctree_event *ev)
{
	struct sampler_set *set = &s->set;
	struct proc_image *im;
	pid_t ppid;
	int64_t w;
	size_t i = 0;

	while (i < set->nunread && set->unread[i].pid != ev->pid)
		i++;
	if (i == set->nunread)
		return 0;
	ppid = set->unread[i].ppid;
	set->unread[i] = set->unread[--set->nunread];
	if (s->cfg->wall || !ev->have_cpu)
		return 0;
	w = pool_ended(s, ev->cpu_ns);
	if (!w)
		return 0;
	im = procset_add(s->ps, ev->pid, ppid, ev->comm);
	if (!im)
		return -1;
	im->ended = true;
	s->st->procs_found++;
	pool_record(s, NULL, im, ev->pid, ev->comm, w);
	return 0;
}

/* A process of the set exited: what it used in all, when told. */
static void note_exit(struct sampler_proc *p, const struct proctree_event *ev)
{
	if (ev->have_cpu) {
		p->have_exit_cpu = true;
		p->exit_cpu_ns = ev->cpu_ns;
	}
	if (!p->root)
		p->gone = true;
}

/* One event of the tree (proctree.h). */
static int tree_event(struct sampler *s, const struct proctree_event *ev)
{
	struct sampler_proc *p = proc_of(s, ev->pid);

	switch (ev->kind) {
	case PROCTREE_NEW:
		if ((p && !finish_reused(s, p)) || skipped_already(s, ev->pid))
			return 0;
		return add_proc(s, ev->pid, ev->ppid, false, ev->born);
	case PROCTREE_EXEC:
		if (p)
			sampler_procs_check_exec(s, p);
		return 0;
	case PROCTREE_EXIT:
		if (p)
			note_exit(p, ev);
		return p ? 0 : unread_exit(s, ev);
	}
	return 0;
}

static int take_tree_events(struct sampler *s)
{
	struct proctree_event ev[TREE_EVENTS];
	int n;

	do {
		n = proctree_poll(s->set.tree, ev, TREE_EVENTS);
		for (int i = 0; i < n; i++)
			if (tree_event(s, &ev[i]))
				return -1;
	} while (n == TREE_EVENTS);
	return n < 0 && errno != EAGAIN && errno != EINTR ? -1 : 0;
}

/* Several processes: which exited, all pidfds in one poll(). */
static void poll_exits(struct sampler *s)
{
	struct pollfd *pf = grow_array(s->set.pfds, &s->set.cap_pfds,
				       s->set.nprocs, sizeof(*pf));

	if (!pf)
		return; /* then listing their threads tells */
	s->set.pfds = pf;
	for (size_t i = 0; i < s->set.nprocs; i++) {
		pf[i].fd = s->set.procs[i]->pidfd;
		pf[i].events = POLLIN;
	}
	if (poll(pf, s->set.nprocs, 0) > 0)
		for (size_t i = 0; i < s->set.nprocs; i++)
			if (pf[i].revents & POLLIN)
				s->set.procs[i]->gone = true;
}

/* Before a tick: new descendants, execs, exits. */
int sampler_procs_watch(struct sampler *s)
{
	if (s->set.tree && take_tree_events(s))
		return -1;
	if (s->set.nprocs > 1)
		poll_exits(s);
	sampler_procs_finish_gone(s);
	return 0;
}

/* The roots, and with cfg->children the tree that finds descendants. */
int sampler_procs_add_roots(struct sampler *s)
{
	const struct sampler_config *cfg = s->cfg;

	/* Without a way to find descendants the roots are sampled alone
	 * (stats->tree_errno says why). */
	if (cfg->children) {
		s->set.tree = proctree_new(true);
		if (s->set.tree)
			s->st->discovery = proctree_method_name(s->set.tree);
		else
			s->st->tree_errno = errno;
	}
	for (size_t i = 0; i < cfg->npids; i++)
		if (add_proc(s, cfg->pids[i], 0, true, false))
			return -1;
	return 0;
}

/*
 * The target has exited when its pidfd polls readable (the whole thread
 * group is gone: a zombie leader with live threads is not "exited"), or,
 * without a pidfd, when /proc lists no thread that is not a zombie.  The
 * pidfd also keeps a recycled PID from passing for the target.
 */
bool sampler_procs_exited(const struct sampler_proc *p)
{
	struct pollfd pfd = { .fd = p->pidfd, .events = POLLIN };

	if (p->pidfd >= 0)
		return poll(&pfd, 1, 0) > 0;
	return !procfs_process_alive(p->pid);
}
