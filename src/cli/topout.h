/*
 * topout.h - ptprof top's screen, written by a thread of its own, so that
 * a terminal or a pipe that stops reading drops frames, never ticks.
 *
 * The sampler's thread renders each frame (the plain table, or the
 * view's lines) into memory and posts it (topout_post()): a pointer
 * handed over under a lock, nothing written.  The writer thread writes
 * it whole, blocking as long as the reader makes it; a frame posted
 * while the one before is still waiting to be written replaces it, and
 * the replaced one is counted as dropped when the writer had been held
 * by its write for 250 ms or more (else the two are merely merged: the
 * new one shows all the old one would have).  A reader that resumes so
 * gets whole frames, the newest next.
 *
 * TOPOUT_PLAIN: frame->text is written to fd as it is (write(2) until
 * all of it is taken; EPIPE and other errors kept for topout_error(),
 * and later frames dropped).  TOPOUT_VIEW (fd is stdout): topout_start()
 * sets ncurses up on the terminal of stdin and stdout, if both are one
 * and ptprof is in its foreground process group (else NULL and ENOTTY;
 * ENOENT: a terminal ncurses does not know), and from then on only the
 * writer thread calls ncurses: it draws each frame (one line of
 * frame->text a screen line, with its attribute, cut at the edge), and
 * between frames reads the keys every TOPOUT_KEY_MS, which topout_keys()
 * hands over; topout_size() gives the screen's size as ncurses last saw
 * it (a resize is handed over as the key TOPOUT_KEY_RESIZE too).
 *
 * The writer thread blocks every signal: the stop signals stay for the
 * sampler's signalfd, and cli_write()'s SIGALRM for the thread it was
 * armed on.  topout_finish() lets it write what was posted and waits for
 * it, at most bound_ms (from the start of the write under way, if one
 * is: a writer stuck for longer is not waited for) and only until a
 * signal of stop is pending: 0 when it ended (joined; with TOPOUT_VIEW,
 * ncurses ended: endwin()); else -1 and errno ETIMEDOUT or EINTR, the
 * thread left blocked in its write, what it did not write counted as
 * dropped.  topout_free() then frees the
 * struct only if the thread ended (else the process is to exit, and the
 * terminal is not to be touched).
 *
 * Contract: one caller thread; NULL or -1 with errno on failure; never
 * prints or exits.  A view left stuck (topout_finish() -1) leaves the
 * terminal in the view's modes, if it ever takes output again: nothing
 * more can be written to it without the risk of blocking so too.
 */
#ifndef PTPROF_TOPOUT_H
#define PTPROF_TOPOUT_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#define TOPOUT_MAX_LINES 600
#define TOPOUT_KEY_MS 50
#define TOPOUT_MAX_KEYS 64
#define TOPOUT_KEY_RESIZE (-2) /* the terminal's size changed */

enum topout_mode { TOPOUT_PLAIN, TOPOUT_VIEW };

/* A line's attribute on the view. */
enum topout_attr {
	TOPOUT_NORMAL,
	TOPOUT_BOLD,
	TOPOUT_REVERSE,
	TOPOUT_WRAP, /* from the top left corner over the whole screen */
};

/* One frame: text, lines ending with '\n'; the view's attributes. */
struct topout_frame {
	char *text;
	size_t len, cap;
	size_t nlines;
	unsigned char attr[TOPOUT_MAX_LINES];
};

struct topout;

struct topout *topout_start(enum topout_mode mode, int fd);

/* A new empty frame; one line appended (cut at TOPOUT_MAX_LINES lines);
 * freed. */
struct topout_frame *topout_frame_new(void);
int topout_line(struct topout_frame *f, enum topout_attr attr, const char *fmt,
		...) __attribute__((format(printf, 3, 4)));
void topout_frame_free(struct topout_frame *f);

/* f handed to the writer (freed by it, or when replaced, or when the
 * writer failed: then -1 and topout_error()'s errno). */
int topout_post(struct topout *o, struct topout_frame *f);

/* The keys read since the last call, at most max; their number. */
size_t topout_keys(struct topout *o, int *keys, size_t max);
void topout_size(struct topout *o, int *lines, int *cols);

/* The errno of the write that failed (0: none). */
int topout_error(struct topout *o);

/* Frames posted, and dropped (replaced unwritten, or never written). */
void topout_counts(struct topout *o, uint64_t *posted, uint64_t *dropped);

int topout_finish(struct topout *o, unsigned bound_ms, const sigset_t *stop);
void topout_free(struct topout *o);

#endif /* PTPROF_TOPOUT_H */
