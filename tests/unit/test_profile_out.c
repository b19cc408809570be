/*
 * test_profile_out - the gperftools CPU profile writer, byte for byte:
 * header slots, records, trailer, maps text; and the atomic file write.
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "proc/maps.h"
#include "profile/profile_load.h"
#include "profile/profile_out.h"
#include "profile/stacktab.h"
#include "unit.h"

static const char maps_text[] =
	"55d0c0a00000-55d0c0a01000 r--p 00000000 08:01 1234 /usr/bin/t\n"
	"55d0c0a01000-55d0c0a02000 r-xp 00001000 08:01 1234 /usr/bin/t\n"
	"7ffd1c000000-7ffd1c021000 rw-p 00000000 00:00 0 [stack]\n";

static int slots_equal(const unsigned char *buf, const uint64_t *want,
		       size_t n)
{
	return memcmp(buf, want, n * sizeof(*want)) == 0;
}

static void test_bytes(void)
{
	struct stacktab *t = stacktab_new(0);
	struct maps *m = maps_new();
	const uint64_t s1[] = { 0xa0000, 0xc0000, 0xe0000 };
	const uint64_t s2[] = { 0xb0000 };
	const uint64_t want[] = {
		0, 3, 0, 10000, 0,		   /* header, 100 Hz */
		5, 3, 0xa0000, 0xc0000, 0xe0000, /* record 1 */
		1, 1, 0xb0000,			   /* record 2 */
		0, 1, 0,			   /* trailer */
	};
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	CHECK(t && m && f);
	CHECK(maps_update(m, maps_text, strlen(maps_text)) == 0);
	CHECK(stacktab_add(t, s1, 3, 4) == 0);
	CHECK(stacktab_add(t, s2, 1, 1) == 0);
	CHECK(stacktab_add(t, s1, 3, 1) == 0);
	CHECK(profile_out_write(f, 10000, t, m) == 0);
	fclose(f);
	CHECK(len == sizeof(want) + strlen(maps_text));
	CHECK(len >= sizeof(want) &&
	      slots_equal((unsigned char *)buf, want, sizeof(want) / 8));
	CHECK(len >= sizeof(want) &&
	      !memcmp(buf + sizeof(want), maps_text, strlen(maps_text)));
	/* the file is little-endian: slot 3 (period 10000) starts 10 27 00 */
	CHECK((unsigned char)buf[24] == 0x10 && (unsigned char)buf[25] == 0x27);
	free(buf);
	stacktab_free(t);
	maps_free(m);
}

static void test_empty_profile(void)
{
	const uint64_t want[] = { 0, 3, 0, 1000, 0, 0, 1, 0 };
	struct stacktab *t = stacktab_new(0);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	CHECK(profile_out_write(f, 1000, t, NULL) == 0);
	fclose(f);
	CHECK(len == sizeof(want) && slots_equal((unsigned char *)buf, want, 8));
	free(buf);
	stacktab_free(t);
}

static void test_atomic_file(void)
{
	char dir[] = "/tmp/ptprof-unit-XXXXXX";
	char path[256], bad[300];
	struct stacktab *t = stacktab_new(0);
	const uint64_t s[] = { 0x1234 };
	struct stat st;

	CHECK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/out.prof", dir);
	CHECK(profile_out_check_writable(path) == 0);
	CHECK(stat(path, &st) < 0 && errno == ENOENT); /* check left nothing */
	CHECK(stacktab_add(t, s, 1, 3) == 0);
	CHECK(profile_out_write_file(path, 10000, t, NULL) == 0);
	CHECK(stat(path, &st) == 0 && st.st_size == 8 * (5 + 3 + 3));
	/* a directory is not a writable output, and it is left alone */
	CHECK(profile_out_check_writable(dir) < 0 && errno == EISDIR);
	CHECK(profile_out_write_file(dir, 10000, t, NULL) < 0);
	snprintf(bad, sizeof(bad), "%s/no/such/dir/out.prof", dir);
	CHECK(profile_out_check_writable(bad) < 0 && errno == ENOENT);
	/* a symbolic link is followed: its target gets the profile */
	snprintf(bad, sizeof(bad), "%s/link.prof", dir);
	CHECK(symlink("target.prof", bad) == 0);
	CHECK(profile_out_write_file(bad, 10000, t, NULL) == 0);
	CHECK(lstat(bad, &st) == 0 && S_ISLNK(st.st_mode));
	snprintf(bad, sizeof(bad), "%s/target.prof", dir);
	CHECK(stat(bad, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 88);
	CHECK(unlink(bad) == 0);
	snprintf(bad, sizeof(bad), "%s/link.prof", dir);
	CHECK(unlink(bad) == 0);
	/* a device is never replaced */
	CHECK(profile_out_check_writable("/dev/null") < 0 && errno == EINVAL);
	CHECK(unlink(path) == 0);
	CHECK(rmdir(dir) == 0); /* no temporary file left behind */
	stacktab_free(t);
}

/* A spilled run: records written in pieces, chains recurring across
 * pieces; the reader sees every record and the counts add up. */
static void test_spill(void)
{
	char dir[] = "/tmp/ptprof-spill-XXXXXX", path[300], err[256];
	struct stacktab *t = stacktab_new(0);
	const uint64_t a[] = { 0x1000, 0x2000 }, b[] = { 0x3000 };
	struct profile_out *o;
	struct profile p;

	CHECK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/spill.prof", dir);
	o = profile_out_open(path, 1000);
	CHECK(o != NULL);
	CHECK(stacktab_add(t, a, 2, 3) == 0);
	CHECK(profile_out_add(o, t) == 0);
	stacktab_clear(t);
	CHECK(stacktab_distinct(t) == 0 && stacktab_samples(t) == 0);
	CHECK(stacktab_add(t, a, 2, 2) == 0);
	CHECK(stacktab_add(t, b, 1, 1) == 0);
	CHECK(profile_out_add(o, t) == 0);
	CHECK(access(path, F_OK) < 0); /* not there before the close */
	CHECK(profile_out_close(o, NULL) == 0);
	CHECK(profile_load_file(path, &p, err, sizeof(err)) == 0);
	CHECK(p.nrecords == 3 && p.total_samples == 6 && p.period_us == 1000);
	profile_free(&p);
	unlink(path);
	/* abort leaves nothing */
	o = profile_out_open(path, 1000);
	CHECK(o != NULL);
	profile_out_abort(o);
	CHECK(access(path, F_OK) < 0);
	CHECK(rmdir(dir) == 0);
	stacktab_free(t);
}

/* "ptprof-pid: PID" follows the maps text, and only a maps text with a
 * mapping: after none (a COMMAND gone before its maps were read), the
 * line alone would be a maps text the reader refuses. */
static void test_pid_line(void)
{
	char dir[] = "/tmp/ptprof-pid-XXXXXX", path[300], err[256] = "";
	struct stacktab *t = stacktab_new(0);
	const uint64_t a[] = { 0x55d0c0a01100 };
	struct maps *full = maps_new(), *empty = maps_new();
	struct profile_out *o;
	struct profile p;

	CHECK(t && full && empty && mkdtemp(dir) != NULL);
	CHECK(maps_update(full, maps_text, strlen(maps_text)) == 0);
	CHECK(stacktab_add(t, a, 1, 1) == 0);
	snprintf(path, sizeof(path), "%s/pid.prof", dir);
	for (int i = 0; i < 2; i++) {
		o = profile_out_open(path, 1000);
		CHECK(o != NULL);
		CHECK(profile_out_add(o, t) == 0);
		CHECK(profile_out_close_pid(o, i ? empty : full, 4242) == 0);
		CHECKF(profile_load_file(path, &p, err, sizeof(err)) == 0,
		       "%s maps: %s", i ? "empty" : "full", err);
		CHECKF(p.pid == (i ? 0 : 4242), "pid %lld",
		       (long long)p.pid);
		profile_free(&p);
		unlink(path);
	}
	CHECK(rmdir(dir) == 0);
	maps_free(full);
	maps_free(empty);
	stacktab_free(t);
}

/* A rotation flushes the spilled stream before its fork (flush); when that
 * write fails (a full disk: here RLIMIT_FSIZE), the bytes are gone from
 * the stream, and the commit must fail rather than rename a file with a
 * hole into place as complete. */
static void test_failed_flush(void)
{
	char dir[] = "/tmp/ptprof-flush-XXXXXX", path[300];
	struct stacktab *t = stacktab_new(0);
	const uint64_t a[] = { 0x1000, 0x2000 };
	struct rlimit old, none;
	struct profile_out *o;
	int flushed, closed, err;

	CHECK(t && mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/flush.prof", dir);
	o = profile_out_open(path, 1000);
	CHECK(o != NULL);
	CHECK(stacktab_add(t, a, 2, 3) == 0);
	CHECK(profile_out_add(o, t) == 0);
	CHECK(getrlimit(RLIMIT_FSIZE, &old) == 0);
	none = old;
	none.rlim_cur = 0;
	signal(SIGXFSZ, SIG_IGN);
	CHECK(setrlimit(RLIMIT_FSIZE, &none) == 0);
	flushed = profile_out_flush(o);
	CHECK(setrlimit(RLIMIT_FSIZE, &old) == 0);
	CHECK(flushed == -1);
	closed = profile_out_close(o, NULL);
	err = errno;
	CHECKF(closed == -1 && err == EFBIG, "close %d (%s)", closed,
	       strerror(err));
	CHECK(access(path, F_OK) < 0);
	CHECK(rmdir(dir) == 0); /* the temporary removed too */
	stacktab_free(t);
}

int main(void)
{
	test_spill();
	test_pid_line();
	test_bytes();
	test_empty_profile();
	test_atomic_file();
	test_failed_flush();
	return unit_result("test_profile_out");
}
