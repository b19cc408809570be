/*
 * test_perfmap - the perf map parser and its file checks: V8's lines
 * (no "0x") and HotSpot's ("0x"), names with blanks, malformed lines
 * skipped and counted, an unterminated last line skipped, later lines
 * winning where they overlap earlier ones, a huge table, and the files
 * refused (a symlink, world-writable, a FIFO, too large); a FIFO is
 * refused without being opened for reading.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "symbols/perfmap.h"
#include "unit.h"

static struct perfmap *parse(const char *s)
{
	return perfmap_parse(s, strlen(s));
}

static int is(const struct perfmap *m, uint64_t addr, const char *want)
{
	const char *got = perfmap_lookup(m, addr, NULL);

	if (!want || !got)
		return want == got;
	return strcmp(got, want) == 0;
}

static void check_good(void)
{
	const char *text = "7f0000001000 40 LazyCompile:*fib /x.js:3:13\n"
			   "0x00007f0000002000 0x20 Burn.fib(I)I\n"
			   "0X7F0000003000 10 Stub:CEntry\n";
	struct perfmap *m = parse(text);
	uint64_t off = 0;

	CHECK(m != NULL);
	CHECK(perfmap_count(m) == 3 && perfmap_malformed(m) == 0);
	CHECK(is(m, 0x7f0000001000, "LazyCompile:*fib /x.js:3:13"));
	CHECK(is(m, 0x7f000000103f, "LazyCompile:*fib /x.js:3:13"));
	CHECK(is(m, 0x7f0000001040, NULL));
	CHECK(is(m, 0x7f0000000fff, NULL));
	CHECK(is(m, 0x7f0000002010, "Burn.fib(I)I"));
	CHECK(perfmap_lookup(m, 0x7f0000002010, &off) && off == 0x10);
	CHECK(is(m, 0x7f000000300f, "Stub:CEntry"));
	CHECK(is(m, 0, NULL) && is(m, UINT64_MAX, NULL));
	perfmap_free(m);
	CHECK(perfmap_lookup(NULL, 1, NULL) == NULL);
}

static void check_malformed(void)
{
	const char *text = "\n"			       /* empty */
			   "1000 10\n"		       /* no name */
			   "1000 10 \n"		       /* empty name */
			   "1000  10 two blanks\n"     /* not single blanks */
			   "zz00 10 not hex\n"	       /* bad start */
			   "2000 0 size zero\n"	       /* nothing covered */
			   "11112222333344445 10 x\n"  /* 17 digits */
			   "ffffffffffffff00 1000 x\n" /* wraps past 2^64 */
			   "0x 10 bare prefix\n"
			   "3000 10 good\n"
			   "4000 10 unterminated";
	struct perfmap *m = parse(text);

	CHECK(m != NULL);
	CHECKF(perfmap_count(m) == 1, "%zu", perfmap_count(m));
	CHECKF(perfmap_malformed(m) == 9, "%zu", perfmap_malformed(m));
	CHECK(is(m, 0x3008, "good"));
	CHECK(is(m, 0x4008, NULL));
	perfmap_free(m);

	/* a NUL inside a name: the line is skipped, the next kept */
	m = perfmap_parse("1000 10 a\0b\n2000 10 c\n", 22);
	CHECK(m && perfmap_count(m) == 1 && perfmap_malformed(m) == 1);
	CHECK(is(m, 0x2000, "c") && is(m, 0x1000, NULL));
	perfmap_free(m);

	/* binary garbage: no line kept, nothing read past len */
	{
		char junk[4096];

		for (size_t i = 0; i < sizeof(junk); i++)
			junk[i] = (char)(i * 7919 % 251);
		m = perfmap_parse(junk, sizeof(junk));
		CHECK(m && perfmap_count(m) == 0);
		perfmap_free(m);
	}
	m = perfmap_parse("", 0);
	CHECK(m && perfmap_count(m) == 0 && is(m, 0, NULL));
	perfmap_free(m);
}

static void check_overlaps(void)
{
	/* V8 reuses addresses: the later line wins where they overlap */
	const char *text = "1000 100 old\n"   /* [1000,1100) */
			   "1040 20 new\n"    /* [1040,1060) inside it */
			   "10f0 20 next\n"   /* [10f0,1110) across its end */
			   "1000 100 again\n" /* all of old again: wins */
			   "1050 8 last\n";
	struct perfmap *m = parse(text);
	uint64_t off;

	CHECK(m && perfmap_count(m) == 5);
	CHECK(is(m, 0x1000, "again") && is(m, 0x1045, "again"));
	CHECK(is(m, 0x1050, "last") && is(m, 0x1057, "last"));
	CHECK(is(m, 0x1058, "again") && is(m, 0x10ff, "again"));
	CHECK(is(m, 0x1100, "next") && is(m, 0x110f, "next"));
	CHECK(is(m, 0x1110, NULL));
	perfmap_free(m);

	/* the earlier line keeps what the later one does not cover */
	m = parse("1000 100 big\n1040 20 small\n");
	CHECK(is(m, 0x103f, "big") && is(m, 0x1040, "small"));
	CHECK(is(m, 0x105f, "small") && is(m, 0x1060, "big"));
	CHECK(perfmap_lookup(m, 0x1044, &off) && off == 4);
	perfmap_free(m);

	/* identical lines: one name */
	m = parse("1000 10 a\n1000 10 b\n1000 10 c\n");
	CHECK(is(m, 0x1000, "c"));
	perfmap_free(m);
}

/* Many lines, in reverse address order, with long names: all found. */
static void check_huge(void)
{
	size_t n = 200000, len = 0, cap = n * 64;
	char *text = malloc(cap), name[PERFMAP_MAX_NAME + 100];
	struct perfmap *m;
	bool ok = true;

	CHECK(text != NULL);
	if (!text)
		return;
	for (size_t i = n; i-- > 0;)
		len += (size_t)snprintf(text + len, cap - len, "%zx 10 f%zu\n",
					0x100000 + i * 0x10, i);
	m = perfmap_parse(text, len);
	CHECK(m && perfmap_count(m) == n);
	for (size_t i = 0; m && i < n; i += 997)
		if (snprintf(name, sizeof(name), "f%zu", i) < 0 ||
		    !is(m, 0x100000 + i * 0x10 + 5, name))
			ok = false;
	CHECK(ok);
	perfmap_free(m);

	/* a name past PERFMAP_MAX_NAME is cut there */
	memset(name, 'x', sizeof(name));
	len = (size_t)snprintf(text, cap, "1000 10 %.*s\n",
			       PERFMAP_MAX_NAME + 50, name);
	m = perfmap_parse(text, len);
	CHECK(m && perfmap_lookup(m, 0x1000, NULL) &&
	      strlen(perfmap_lookup(m, 0x1000, NULL)) == PERFMAP_MAX_NAME);
	perfmap_free(m);
	free(text);
}

/* Whether process pid is in the system call nr (/proc/PID/syscall);
 * true when that cannot be read (Yama's ptrace_scope 3): then the check
 * below may miss an open, never invent one. */
static bool in_syscall(pid_t pid, long nr)
{
	char path[64], line[256];
	bool read;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/syscall", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return true;
	read = fgets(line, sizeof(line), f) != NULL;
	fclose(f);
	/* "running", or the call's number and its arguments */
	return !read || strtol(line, NULL, 10) == nr;
}

/*
 * The FIFO fifo is refused without being opened for reading: a writer
 * blocked in its open(O_WRONLY) stays blocked (a reader's open would
 * release it).  Opening for reading is what would run a device's
 * driver (perfmap.h); a FIFO is the node whose open can be watched.
 */
static void check_fifo_not_opened(const char *fifo)
{
	struct perfmap *m;
	char err[256];
	pid_t child;
	int st, i, done = 0;

	child = fork();
	CHECK(child >= 0);
	if (child == 0) {
		int fd = open(fifo, O_WRONLY);

		_exit(fd >= 0 ? 0 : 1);
	}
	if (child < 0)
		return;
	/* the child is blocked in its open before the map is loaded */
	for (i = 0; i < 1000 && !in_syscall(child, SYS_openat); i++)
		usleep(2000);
	CHECK(in_syscall(child, SYS_openat));
	m = perfmap_load_file(fifo, geteuid(), err, sizeof(err));
	CHECKF(!m && errno == EINVAL && strstr(err, "regular"), "%s", err);
	/* a release would let it exit at once; give it 0.5 s to */
	for (i = 0; i < 50 && !done; i++) {
		done = waitpid(child, &st, WNOHANG) == child;
		if (!done)
			usleep(10000);
	}
	CHECKF(!done, "the FIFO was opened for reading (the writer ran)");
	if (!done) {
		kill(child, SIGKILL);
		waitpid(child, &st, 0);
	}
}

static void check_files(void)
{
	char dir[] = "/tmp/test_perfmap.XXXXXX", path[256], link[256];
	char err[256];
	struct perfmap *m;
	FILE *f;

	CHECK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/perf-1.map", dir);
	f = fopen(path, "w");
	CHECK(f != NULL);
	if (!f)
		return;
	fputs("1000 10 a\n", f);
	fclose(f);
	chmod(path, 0644);
	m = perfmap_load_file(path, geteuid(), err, sizeof(err));
	CHECKF(m && is(m, 0x1000, "a"), "%s", err);
	perfmap_free(m);

	/* owned by another uid (not root): refused */
	if (geteuid() != 0) {
		/* ours, and ours is not the uid asked for */
		m = perfmap_load_file(path, geteuid() + 1, err, sizeof(err));
		CHECKF(!m && errno == EPERM, "%s", err);
	} else {
		CHECK(chown(path, 65534, 65534) == 0);
		m = perfmap_load_file(path, 1234, err, sizeof(err));
		CHECKF(!m && errno == EPERM && strstr(err, "owned by uid"),
		       "%s", err);
		CHECK(chown(path, 0, 0) == 0);
	}

	/* writable by others: refused */
	chmod(path, 0666);
	m = perfmap_load_file(path, geteuid(), err, sizeof(err));
	CHECKF(!m && errno == EPERM && strstr(err, "writable"), "%s", err);
	chmod(path, 0620);
	m = perfmap_load_file(path, geteuid(), err, sizeof(err));
	CHECKF(!m && errno == EPERM, "%s", err);
	chmod(path, 0600);

	/* a symlink: refused */
	snprintf(link, sizeof(link), "%s/perf-2.map", dir);
	CHECK(symlink(path, link) == 0);
	m = perfmap_load_file(link, geteuid(), err, sizeof(err));
	CHECKF(!m && errno == ELOOP && strstr(err, "symbolic link"), "%s", err);
	unlink(link);

	/* a FIFO: refused, never opened for reading */
	CHECK(mkfifo(link, 0600) == 0);
	check_fifo_not_opened(link);
	unlink(link);

	/* too large: refused before a byte is read */
	CHECK(truncate(path, (off_t)PERFMAP_MAX_BYTES + 1) == 0);
	m = perfmap_load_file(path, geteuid(), err, sizeof(err));
	CHECKF(!m && errno == EFBIG && strstr(err, "MiB"), "%s", err);

	/* garbage only: refused with one sentence */
	f = fopen(path, "w");
	if (f) {
		fputs("\x7f"
		      "ELF\x02\x01\n\x01\x02\x03\n",
		      f);
		fclose(f);
	}
	m = perfmap_load_file(path, geteuid(), err, sizeof(err));
	CHECKF(!m && errno == EINVAL && !strchr(err, '\n'), "%s", err);

	/* missing: ENOENT */
	unlink(path);
	m = perfmap_load_file(path, geteuid(), err, sizeof(err));
	CHECK(!m && errno == ENOENT);
	rmdir(dir);
}

int main(void)
{
	check_good();
	check_malformed();
	check_overlaps();
	check_huge();
	check_files();
	return unit_result("test_perfmap");
}
