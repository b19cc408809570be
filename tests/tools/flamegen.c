/*
 * flamegen - write a flame graph from folded stacks, for the test suite.
 *
 *   flamegen [-t TITLE] [-s SUBTITLE] [-w WIDTH] < FOLDED > SVG
 *
 * FOLDED holds one stack a line, "root;caller;leaf COUNT" (the format of
 * flamegraph.pl and of profcat): the frames are split at ';', the count is
 * after the last space.  Empty lines are skipped.  WIDTH is a number (its
 * range is flame_write_svg's to check).  The SVG comes from
 * flame_write_svg() (src/flame.h).  On error: one line "flamegen: why" on
 * stderr and exit status 1; usage errors exit 2.
 */
#define _GNU_SOURCE /* getline */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/flame.h"

struct input {
	struct flame_stack *stacks;
	size_t n, cap;
	char **lines; /* each stack's frames point into its line */
};

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void die(const char *fmt, ...)
{
	va_list ap;

	fputs("flamegen: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static void *xrealloc(void *p, size_t n, size_t size)
{
	if (!n || !size)
		n = size = 1;
	if (n > SIZE_MAX / size)
		die("out of memory");
	p = realloc(p, n * size);
	if (!p)
		die("out of memory");
	return p;
}

/* Split "a;b;c" in place into a new array of frames. */
static const char **split_frames(char *s, size_t *nframes)
{
	size_t n = 1, i = 0;
	const char **frames;
	char *p;

	for (p = s; *p; p++)
		n += *p == ';';
	frames = xrealloc(NULL, n, sizeof(*frames));
	frames[i++] = s;
	for (p = s; *p; p++) {
		if (*p == ';') {
			*p = '\0';
			frames[i++] = p + 1;
		}
	}
	*nframes = *s || n > 1 ? n : 0;
	return frames;
}

static void add_line(struct input *in, char *line, unsigned long lineno)
{
	char *sp = strrchr(line, ' '), *end;
	struct flame_stack *st;
	unsigned long long count;

	if (!sp)
		die("line %lu: expected 'frame;frame;... COUNT'", lineno);
	*sp = '\0';
	errno = 0;
	count = strtoull(sp + 1, &end, 10);
	if (errno || end == sp + 1 || *end || sp[1] == '-')
		die("line %lu: bad count '%s'", lineno, sp + 1);
	if (in->n == in->cap) {
		in->cap = in->cap ? in->cap * 2 : 64;
		in->stacks = xrealloc(in->stacks, in->cap, sizeof(*in->stacks));
		in->lines = xrealloc(in->lines, in->cap, sizeof(*in->lines));
	}
	st = &in->stacks[in->n];
	st->count = count;
	st->frames = split_frames(line, &st->nframes);
	in->lines[in->n++] = line;
}

static void read_input(struct input *in)
{
	char *line = NULL;
	size_t size = 0;
	ssize_t len;
	unsigned long lineno = 0;

	while ((len = getline(&line, &size, stdin)) >= 0) {
		lineno++;
		while (len > 0 &&
		       (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = '\0';
		if (len == 0)
			continue;
		add_line(in, line, lineno);
		line = NULL;
		size = 0;
	}
	free(line);
	if (ferror(stdin))
		die("reading stdin: %s", strerror(errno));
}

static void usage(void)
{
	fputs("usage: flamegen [-t TITLE] [-s SUBTITLE] [-w WIDTH] "
	      "< FOLDED > SVG\n",
	      stderr);
	exit(2);
}

/* A width in pixels; flame_write_svg() checks its range. */
static unsigned parse_width(const char *s)
{
	unsigned long w;
	char *end;

	errno = 0;
	w = strtoul(s, &end, 10);
	if (errno || end == s || *end || *s == '-' || w > 1000000)
		usage();
	return (unsigned)w;
}

int main(int argc, char **argv)
{
	struct flame_options opt = { 0 };
	struct input in = { 0 };
	size_t i;
	int c;

	while ((c = getopt(argc, argv, "t:s:w:")) != -1) {
		switch (c) {
		case 't':
			opt.title = optarg;
			break;
		case 's':
			opt.subtitle = optarg;
			break;
		case 'w':
			opt.width = parse_width(optarg);
			break;
		default:
			usage();
		}
	}
	if (optind != argc)
		usage();
	read_input(&in);
	if (flame_write_svg(stdout, in.stacks, in.n, &opt) < 0)
		die("writing the flame graph: %s", strerror(errno));
	for (i = 0; i < in.n; i++) {
		free((void *)in.stacks[i].frames);
		free(in.lines[i]);
	}
	free(in.stacks);
	free(in.lines);
	return 0;
}
