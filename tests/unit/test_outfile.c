/*
 * test_outfile - an output file never seen half-written (profile/
 * outfile.h), in a directory of its own: until the commit FILE is as it
 * was and the temporary is DIR/.NAME.XXXXXX of mode 0600 whatever the
 * umask; the commit renames it to FILE and keeps the old FILE as
 * FILE.old; an abort leaves no trace; a directory at FILE is EISDIR, a
 * FIFO EINVAL (never replaced by a regular file); a FILE.old that is a
 * directory is left alone and the commit still succeeds; a stale
 * temporary is removed by the next open; a failed write fails the commit
 * and leaves FILE untouched.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "profile/outfile.h"
#include "unit.h"

static char dir[] = "/tmp/test_outfile.XXXXXX";

static char *path_of(const char *name)
{
	static char buf[2][PATH_MAX];
	static int k;

	k ^= 1;
	snprintf(buf[k], sizeof(buf[k]), "%s/%s", dir, name);
	return buf[k];
}

/* The contents of name (static), or "<none>". */
static const char *contents(const char *name)
{
	static char buf[256];
	FILE *f = fopen(path_of(name), "r");
	size_t n;

	if (!f)
		return "<none>";
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/* Entries of dir whose name starts with prefix. */
static int entries(const char *prefix)
{
	char cmd[PATH_MAX + 64];
	FILE *p;
	int n = 0, c;

	snprintf(cmd, sizeof(cmd), "ls -A '%s' | grep -c '^%s'", dir, prefix);
	p = popen(cmd, "r");
	if (p && fscanf(p, "%d", &n) != 1)
		n = -1;
	while (p && (c = fgetc(p)) != EOF)
		;
	if (p)
		pclose(p);
	return n;
}

static void write_file(const char *name, const char *text)
{
	FILE *f = fopen(path_of(name), "w");

	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static void test_commit(void)
{
	struct outfile o;
	struct stat st;
	mode_t old = umask(0);

	write_file("p", "old\n");
	CHECK(outfile_open(&o, path_of("p")) == 0);
	umask(old);
	CHECK(o.f && !strncmp(o.tmp, dir, strlen(dir)) &&
	      strstr(o.tmp, "/.p."));
	CHECK(stat(o.tmp, &st) == 0 && (st.st_mode & 0777) == 0600);
	fputs("new\n", o.f);
	fflush(o.f);
	CHECK(!strcmp(contents("p"), "old\n")); /* not before the commit */
	CHECK(outfile_commit(&o) == 0);
	CHECK(!strcmp(contents("p"), "new\n"));
	CHECK(!strcmp(contents("p.old"), "old\n"));
	CHECK(entries("\\.p\\.") == 0);

	/* abort: FILE as it was, no temporary left */
	CHECK(outfile_open(&o, path_of("p")) == 0);
	fputs("aborted\n", o.f);
	outfile_abort(&o);
	CHECK(!strcmp(contents("p"), "new\n"));
	CHECK(entries("\\.p\\.") == 0);

	/* a new FILE: nothing to keep */
	CHECK(outfile_open(&o, path_of("fresh")) == 0);
	fputs("x", o.f);
	CHECK(outfile_commit(&o) == 0);
	CHECK(!strcmp(contents("fresh"), "x") && entries("fresh.old") == 0);
}

static void test_refusals(void)
{
	struct outfile o;
	struct stat st;

	CHECK(mkdir(path_of("d"), 0700) == 0);
	errno = 0;
	CHECK(outfile_open(&o, path_of("d")) == -1 && errno == EISDIR);
	CHECK(mkfifo(path_of("fifo"), 0600) == 0);
	errno = 0;
	CHECK(outfile_open(&o, path_of("fifo")) == -1 && errno == EINVAL);
	errno = 0;
	CHECK(outfile_check_writable(path_of("fifo")) == -1 && errno == EINVAL);
	errno = 0;
	CHECK(outfile_open(&o, path_of("nodir/p")) == -1 && errno == ENOENT);
	CHECK(outfile_check_writable(path_of("p")) == 0);
	CHECK(entries("\\.p\\.") == 0); /* the check leaves nothing */

	/* FILE.old a directory: left alone, FILE written all the same */
	write_file("q", "q1");
	CHECK(mkdir(path_of("q.old"), 0700) == 0);
	errno = 0;
	CHECK(outfile_check_writable(path_of("q")) == -1 && errno == EEXIST);
	CHECK(outfile_open(&o, path_of("q")) == 0);
	fputs("q2", o.f);
	CHECK(outfile_commit(&o) == 0);
	CHECK(!strcmp(contents("q"), "q2"));
	CHECK(stat(path_of("q.old"), &st) == 0 && S_ISDIR(st.st_mode));
}

/* A temporary of FILE's name left by a killed run (its ctime over 2 s
 * old, no flock()) is removed by the next open; another name's, or one
 * whose suffix is not mkstemp's six letters, is not. */
static void test_stale(void)
{
	struct outfile o;

	write_file(".s.AbC123", "stale");
	write_file(".s.AbC12", "not a temporary");
	write_file(".other.AbC123", "not ours");
	CHECK(outfile_open(&o, path_of("s")) == 0); /* too new yet */
	CHECK(access(path_of(".s.AbC123"), F_OK) == 0);
	outfile_abort(&o);
	sleep(3); /* ctime cannot be set back: wait it out */
	CHECK(outfile_open(&o, path_of("s")) == 0);
	CHECK(access(path_of(".s.AbC123"), F_OK) == -1);
	CHECK(access(path_of(".s.AbC12"), F_OK) == 0);
	CHECK(access(path_of(".other.AbC123"), F_OK) == 0);
	outfile_abort(&o);
}

/* A write that failed (outfile_flush() on a full device) fails the
 * commit with its errno; FILE stays as it was. */
static void test_failed_write(void)
{
	struct outfile o;
	FILE *full;

	write_file("w", "before");
	CHECK(outfile_open(&o, path_of("w")) == 0);
	full = fopen("/dev/full", "w");
	if (!full) {
		outfile_abort(&o);
		return;
	}
	/* the stream now writes to /dev/full */
	fclose(o.f);
	o.f = full;
	fputs("lost", o.f);
	CHECK(outfile_flush(&o) == -1 && errno == ENOSPC);
	errno = 0;
	CHECK(outfile_commit(&o) == -1 && errno == ENOSPC);
	CHECK(!strcmp(contents("w"), "before"));
	CHECK(entries("\\.w\\.") == 0);
}

int main(void)
{
	char cmd[PATH_MAX + 16];

	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 99;
	}
	test_commit();
	test_refusals();
	test_stale();
	test_failed_write();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		fprintf(stderr, "could not remove %s\n", dir);
	return unit_result("test_outfile");
}
