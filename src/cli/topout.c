/*
 * topout.c - ptprof top's screen, written by a thread of its own
 * (topout.h).
 *
 * Why a thread, and not the output fd made non-blocking: a terminal's
 * open file description is shared with the shell and every job of the
 * session, so O_NONBLOCK set on it would be theirs too (and stay, if
 * ptprof died); ncurses writes with write(2) and retries EAGAIN at once,
 * spinning; and poll() saying "writable" promises room for a byte, not
 * for a frame (a pty takes what room its other side has left, and the
 * write of the rest blocks).  A thread may block in its write as long as
 * the reader likes: the sampler only ever takes the lock to hand over a
 * pointer, which the writer never holds while it writes.
 */
#include "config.h"

#include <curses.h>
#include <errno.h>
#include <locale.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/topout.h"
#include "util/grow.h"
#include "util/timeutil.h"

#define TOPOUT_STEP_NS (50 * NSEC_PER_MSEC)  /* topout_finish()'s checks */
#define TOPOUT_HELD_NS (250 * NSEC_PER_MSEC) /* a write this long: held */

struct topout {
	enum topout_mode mode;
	int fd;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake;	   /* to the writer: a frame, or the end */
	pthread_cond_t idle;	   /* to the caller: the writer ended */
	struct topout_frame *next; /* posted, not taken yet */
	bool busy;		   /* a frame is being written */
	uint64_t busy_since;	   /* since when (mono_now_ns()) */
	bool ending;		   /* write what is posted, then end */
	bool ended;		   /* the writer returned */
	bool joined;
	int err; /* the write that failed */
	uint64_t posted, dropped;
	int keys[TOPOUT_MAX_KEYS];
	size_t nkeys;
	int lines, cols;
};

/* ---- frames ---- */

struct topout_frame *topout_frame_new(void)
{
	return calloc(1, sizeof(struct topout_frame));
}

void topout_frame_free(struct topout_frame *f)
{
	if (!f)
		return;
	free(f->text);
	free(f);
}

int topout_line(struct topout_frame *f, enum topout_attr attr, const char *fmt,
		...)
{
	va_list ap;
	char *nt;
	int n;

	if (f->nlines >= TOPOUT_MAX_LINES)
		return 0;
	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -1;
	/* the line, its '\n' and a '\0' after it */
	nt = grow_array(f->text, &f->cap, f->len + (size_t)n + 2, 1);
	if (!nt)
		return -1;
	f->text = nt;
	va_start(ap, fmt);
	vsnprintf(f->text + f->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	f->len += (size_t)n;
	f->text[f->len++] = '\n';
	f->text[f->len] = '\0';
	f->attr[f->nlines++] = (unsigned char)attr;
	return 0;
}

/* ---- the writer thread ---- */

/* Each line of f on its screen line, cut at the edge. */
static void draw(const struct topout_frame *f)
{
	const char *p = f->text;

	erase();
	for (size_t i = 0; i < f->nlines && (int)i < LINES; i++) {
		const char *nl = strchr(p, '\n');
		int len = (int)(nl - p), attr = 0;

		if (f->attr[i] == TOPOUT_WRAP) {
			mvaddnstr(0, 0, p,
				  len < COLS * LINES - 1 ? len :
							   COLS * LINES - 1);
			break;
		}
		if (f->attr[i] == TOPOUT_BOLD)
			attr = A_BOLD;
		else if (f->attr[i] == TOPOUT_REVERSE)
			attr = A_REVERSE;
		move((int)i, 0);
		attron(attr);
		addnstr(p, len < COLS ? len : COLS);
		attroff(attr);
		p = nl + 1;
	}
	refresh();
}

/* The keys typed (the terminal is in nodelay mode: no wait). */
static void read_keys(struct topout *o)
{
	int ch;

	while ((ch = getch()) != ERR) {
		pthread_mutex_lock(&o->lock);
		if (ch == KEY_RESIZE) {
			o->lines = LINES;
			o->cols = COLS;
			ch = TOPOUT_KEY_RESIZE;
		}
		if (o->nkeys < TOPOUT_MAX_KEYS)
			o->keys[o->nkeys++] = ch;
		pthread_mutex_unlock(&o->lock);
	}
}

static void *writer(void *arg)
{
	struct topout *o = arg;
	struct timespec ts;

	pthread_mutex_lock(&o->lock);
	for (;;) {
		struct topout_frame *f;
		int err = 0;

		if (!o->next && o->ending)
			break;
		if (!o->next && o->mode == TOPOUT_VIEW) {
			ts = ns_to_timespec(mono_now_ns() +
					    TOPOUT_KEY_MS * NSEC_PER_MSEC);
			pthread_cond_timedwait(&o->wake, &o->lock, &ts);
		} else if (!o->next) {
			pthread_cond_wait(&o->wake, &o->lock);
		}
		f = o->next;
		o->next = NULL;
		o->busy = f != NULL;
		o->busy_since = mono_now_ns();
		pthread_mutex_unlock(&o->lock);

		if (o->mode == TOPOUT_VIEW) {
			read_keys(o);
			if (f)
				draw(f);
		} else if (f) {
			/* all of it, as long as the reader takes: this thread
			 * holds nothing anyone waits for (not cli_write():
			 * its bound is made of process-wide signal handlers
			 * and a jump buffer, for the main thread) */
			if (cli_write_all(o->fd, f->text, f->len))
				err = errno;
		}
		topout_frame_free(f);

		pthread_mutex_lock(&o->lock);
		o->busy = false;
		if (err && !o->err)
			o->err = err;
	}
	o->ended = true;
	pthread_cond_broadcast(&o->idle);
	pthread_mutex_unlock(&o->lock);
	return NULL;
}

/*
 * Ctrl-Z in the view: the sampler would stop ptprof between ticks
 * (suspend_self() in sampler.c) with the terminal left in the view's
 * modes, and a `fg` would not draw it again.  The view takes no suspend
 * character instead (q quits); endwin() gives the shell its own back.
 * Ctrl-S neither (IXON off; cbreak() leaves it on): a terminal stopped by
 * it would hold the writer, and the view with it, until Ctrl-Q (frames
 * dropped, no key read).
 */
static void no_stop_keys(void)
{
	struct termios tio;

	if (tcgetattr(STDIN_FILENO, &tio))
		return;
	tio.c_cc[VSUSP] = _POSIX_VDISABLE;
	tio.c_iflag &= ~(tcflag_t)IXON;
	if (tcsetattr(STDIN_FILENO, TCSANOW, &tio) == 0)
		def_prog_mode(); /* ncurses' own copy of the view's modes */
}

/*
 * ncurses on the terminal: keys without Enter or echo (Ctrl-C still sends
 * SIGINT: cbreak, not raw), read without waiting.  Only in the
 * terminal's foreground process group: a background job (`&`, or under
 * timeout(1), which makes a process group of its own) that reads the
 * terminal is stopped by SIGTTIN, and one that sets its modes by SIGTTOU,
 * which would stop ptprof between ticks.  The view ignores both while it
 * runs, in case it is put in the background later (then a read fails
 * with EIO, and getch() gives no key).  SIGTSTP is ignored too: with
 * its default action, newterm() installs ncurses' own handler (endwin(),
 * then a redraw), which would run on whichever thread takes the signal
 * while the writer thread draws, ncurses from two threads; and a view
 * suspended would leave the terminal in its modes (ptprof-top(1): Ctrl-Z
 * does nothing in the view).
 */
static int start_curses(void)
{
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO) ||
	    tcgetpgrp(STDIN_FILENO) != getpgrp()) {
		errno = ENOTTY;
		return -1;
	}
	signal(SIGTTIN, SIG_IGN);
	signal(SIGTTOU, SIG_IGN);
	signal(SIGTSTP, SIG_IGN);
	setlocale(LC_CTYPE, "");
	if (!newterm(NULL, stdout, stdin)) {
		errno = ENOENT;
		return -1;
	}
	cbreak();
	noecho();
	no_stop_keys();
	nodelay(stdscr, TRUE);
	keypad(stdscr, TRUE);
	curs_set(0);
	return 0;
}

struct topout *topout_start(enum topout_mode mode, int fd)
{
	struct topout *o;
	pthread_condattr_t ca;
	sigset_t all, old;
	int rc;

	if (mode == TOPOUT_VIEW && start_curses())
		return NULL;
	o = calloc(1, sizeof(*o));
	if (!o) {
		if (mode == TOPOUT_VIEW)
			endwin();
		errno = ENOMEM;
		return NULL;
	}
	o->mode = mode;
	o->fd = fd;
	if (mode == TOPOUT_VIEW) {
		o->lines = LINES;
		o->cols = COLS;
	}
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_mutex_init(&o->lock, NULL);
	pthread_cond_init(&o->wake, &ca);
	pthread_cond_init(&o->idle, &ca);
	pthread_condattr_destroy(&ca);
	/* Every signal blocked in the writer (topout.h): set around the
	 * creation, which the new thread inherits. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = pthread_create(&o->thread, NULL, writer, o);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc) {
		if (mode == TOPOUT_VIEW)
			endwin();
		pthread_cond_destroy(&o->idle);
		pthread_cond_destroy(&o->wake);
		pthread_mutex_destroy(&o->lock);
		free(o);
		errno = rc;
		return NULL;
	}
	return o;
}

/* ---- the sampler's side ---- */

int topout_post(struct topout *o, struct topout_frame *f)
{
	struct topout_frame *old;
	int err;

	pthread_mutex_lock(&o->lock);
	err = o->err;
	o->posted++;
	if (err) {
		old = f;
		o->dropped++;
	} else {
		/* Replaced before the writer took it: dropped if the writer
		 * is held by its write; else only merged with the new one (a
		 * key's redraw, or a writer not scheduled yet on a busy
		 * machine), which shows what it would have, and more. */
		old = o->next;
		if (old && o->busy &&
		    mono_now_ns() - o->busy_since >= TOPOUT_HELD_NS)
			o->dropped++;
		o->next = f;
		pthread_cond_signal(&o->wake);
	}
	pthread_mutex_unlock(&o->lock);
	topout_frame_free(old);
	if (err) {
		errno = err;
		return -1;
	}
	return 0;
}

size_t topout_keys(struct topout *o, int *keys, size_t max)
{
	size_t n;

	pthread_mutex_lock(&o->lock);
	n = o->nkeys < max ? o->nkeys : max;
	memcpy(keys, o->keys, n * sizeof(*keys));
	memmove(o->keys, o->keys + n, (o->nkeys - n) * sizeof(*keys));
	o->nkeys -= n;
	pthread_mutex_unlock(&o->lock);
	return n;
}

void topout_size(struct topout *o, int *lines, int *cols)
{
	pthread_mutex_lock(&o->lock);
	*lines = o->lines;
	*cols = o->cols;
	pthread_mutex_unlock(&o->lock);
}

int topout_error(struct topout *o)
{
	int err;

	pthread_mutex_lock(&o->lock);
	err = o->err;
	pthread_mutex_unlock(&o->lock);
	return err;
}

void topout_counts(struct topout *o, uint64_t *posted, uint64_t *dropped)
{
	pthread_mutex_lock(&o->lock);
	*posted = o->posted;
	*dropped = o->dropped;
	pthread_mutex_unlock(&o->lock);
}

static bool stop_pending(const sigset_t *stop)
{
	sigset_t pend;

	if (!stop || sigpending(&pend))
		return false;
	for (int s = 1; s < NSIG; s++)
		if (sigismember(stop, s) == 1 && sigismember(&pend, s) == 1)
			return true;
	return false;
}

int topout_finish(struct topout *o, unsigned bound_ms, const sigset_t *stop)
{
	uint64_t until = mono_now_ns() + bound_ms * NSEC_PER_MSEC;
	struct timespec ts;
	int err = 0;

	pthread_mutex_lock(&o->lock);
	o->ending = true;
	pthread_cond_signal(&o->wake);
	/* a write under way has the bound from its start: one stuck for
	 * longer is not waited for at all */
	if (o->busy && o->busy_since + bound_ms * NSEC_PER_MSEC < until)
		until = o->busy_since + bound_ms * NSEC_PER_MSEC;
	while (!o->ended) {
		uint64_t now = mono_now_ns();

		if (now >= until) {
			err = ETIMEDOUT;
			break;
		}
		if (stop_pending(stop)) {
			err = EINTR;
			break;
		}
		ts = ns_to_timespec(now + TOPOUT_STEP_NS < until ?
					    now + TOPOUT_STEP_NS :
					    until);
		pthread_cond_timedwait(&o->idle, &o->lock, &ts);
	}
	if (err)
		o->dropped += (o->next != NULL) + o->busy;
	pthread_mutex_unlock(&o->lock);
	if (err) {
		errno = err;
		return -1;
	}
	pthread_join(o->thread, NULL);
	o->joined = true;
	if (o->mode == TOPOUT_VIEW)
		endwin(); /* the writer's calls of ncurses are over */
	return 0;
}

void topout_free(struct topout *o)
{
	if (!o || !o->joined)
		return;
	topout_frame_free(o->next);
	pthread_cond_destroy(&o->idle);
	pthread_cond_destroy(&o->wake);
	pthread_mutex_destroy(&o->lock);
	free(o);
}
