/*
 * fetchnote.c - the debuginfod client's lines on stderr (see fetchnote.h).
 */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/fetchnote.h"
#include "elf/debuginfod.h"
#include "util/textsafe.h"

static struct {
	bool tty;   /* stderr is a terminal, and lines may be redrawn */
	bool drawn; /* a "fetching" line is on it, without its newline */
} note;

static const char *what(enum debuginfod_kind k)
{
	return k == DEBUGINFOD_EXECUTABLE ? "executable" : "debug info";
}

/* The last component of a module's path, escaped. */
static const char *base(const char *path, char *buf, size_t len)
{
	const char *slash = path ? strrchr(path, '/') : NULL;

	return textsafe_str(buf, len, slash ? slash + 1 : path ? path : "?");
}

/* n bytes as "340 kB" or "12 MB" (decimal, as curl counts). */
static void human(long long n, char *buf, size_t len)
{
	if (n < 1000000)
		snprintf(buf, len, "%lld kB", (n + 999) / 1000);
	else
		snprintf(buf, len, "%lld MB", n / 1000000);
}

/* "12 MB" or "12 MB of 300 MB". */
static void sizes(const struct debuginfod_status *st, char *buf, size_t len)
{
	char a[32], b[32];

	human(st->bytes, a, sizeof(a));
	human(st->total, b, sizeof(b));
	if (st->total > st->bytes)
		snprintf(buf, len, "%s of %s", a, b);
	else
		snprintf(buf, len, "%s", a);
}

/* The line of a download, drawn over the last one ("\033[K": the rest of
 * a longer line before it erased). */
static void draw(const struct debuginfod_status *st, bool done)
{
	char line[1024], name[256], id[300], sz[96];
	int n;

	sizes(st, sz, sizeof(sz));
	n = snprintf(line, sizeof(line),
		     "\rptprof: debuginfod: %s %s for %s (%s) %s%s\033[K%s",
		     done ? "fetched" : "fetching", what(st->kind),
		     textsafe_str(id, sizeof(id), st->build_id),
		     base(st->module, name, sizeof(name)), sz,
		     done ? "" : "...", done ? "\n" : "");
	if (n > 0)
		cli_write(2, line,
			  (size_t)n < sizeof(line) ? (size_t)n :
						     sizeof(line) - 1,
			  CLI_WRITE_BOUND_MS);
	note.drawn = !done;
}

/* A line of its own: end a "fetching" line first. */
static void newline(void)
{
	if (note.drawn)
		cli_write(2, "\n", 1, CLI_WRITE_BOUND_MS);
	note.drawn = false;
}

static void hook(const struct debuginfod_status *st, void *arg)
{
	char name[256];

	(void)arg;
	switch (st->event) {
	case DEBUGINFOD_FETCHING:
	case DEBUGINFOD_FETCHED:
		if (note.tty)
			draw(st, st->event == DEBUGINFOD_FETCHED);
		break;
	case DEBUGINFOD_REFUSED:
		newline();
		cli_msg("debuginfod: refused the %s for %s (%s): %s",
			what(st->kind), st->build_id,
			base(st->module, name, sizeof(name)), st->why);
		break;
	case DEBUGINFOD_GAVE_UP:
		newline();
		cli_msg("debuginfod: gave up: %s (frames keep their addresses; --no-debuginfod to skip)",
			st->why);
		break;
	}
}

void fetchnote_setup(bool off, bool progress)
{
	struct debuginfod_config cfg = { .off = off, .hook = hook };

	note.tty = progress && isatty(2);
	note.drawn = false;
	debuginfod_setup(&cfg);
}
