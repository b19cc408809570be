/*
 * profile_write.c - gperftools CPU profile writer (see profile_write.h).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "profile_write.h"

/* Slots are native-endian words; ptprof only runs on x86-64 (LE, 8 bytes). */
static int put_slots(FILE *f, const uint64_t *v, size_t n)
{
	return fwrite(v, sizeof(*v), n, f) == n ? 0 : -1;
}

static int put_record(const uint64_t *pcs, size_t npcs, uint64_t count,
		      void *arg)
{
	FILE *f = arg;
	uint64_t head[2] = { count, npcs };

	if (put_slots(f, head, 2) || put_slots(f, pcs, npcs))
		return -1;
	return 0;
}

int profile_write(FILE *f, uint64_t period_us, const struct stacktab *tab,
		  const struct maps *maps)
{
	const uint64_t header[5] = { 0, 3, 0, period_us, 0 };
	const uint64_t trailer[3] = { 0, 1, 0 };

	if (put_slots(f, header, 5))
		return -1;
	if (tab && stacktab_foreach(tab, put_record, f))
		return -1;
	if (put_slots(f, trailer, 3))
		return -1;
	if (maps && maps_write(maps, f))
		return -1;
	return 0;
}

/* "dir/.name.XXXXXX" beside path, for mkstemp(). */
static int temp_name(const char *path, char *buf, size_t len)
{
	const char *slash = strrchr(path, '/');
	int dirlen = slash ? (int)(slash - path + 1) : 0;
	int n = snprintf(buf, len, "%.*s.%s.XXXXXX", dirlen, path,
			 slash ? slash + 1 : path);

	if (n < 0 || (size_t)n >= len) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

static int not_a_directory(const char *path)
{
	struct stat st;

	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		errno = EISDIR;
		return -1;
	}
	return 0;
}

/* The process umask (reading it means setting it; ptprof has one thread). */
static mode_t umask_get(void)
{
	mode_t m = umask(022);

	umask(m);
	return m;
}

static int write_and_close(int fd, uint64_t period_us,
			   const struct stacktab *tab, const struct maps *maps)
{
	FILE *f = fdopen(fd, "w");
	int rc, saved;

	if (!f) {
		close(fd);
		return -1;
	}
	rc = profile_write(f, period_us, tab, maps);
	if (!rc && fflush(f))
		rc = -1;
	if (!rc && fsync(fileno(f)))
		rc = -1;
	saved = errno;
	if (fclose(f) && !rc) {
		saved = errno;
		rc = -1;
	}
	errno = saved;
	return rc;
}

int profile_write_file(const char *path, uint64_t period_us,
		       const struct stacktab *tab, const struct maps *maps)
{
	char tmp[PATH_MAX];
	int fd, saved;

	if (not_a_directory(path) || temp_name(path, tmp, sizeof(tmp)))
		return -1;
	fd = mkstemp(tmp);
	if (fd < 0)
		return -1;
	/* mkstemp makes 0600; a profile is an ordinary file of its user. */
	fchmod(fd, 0644 & ~umask_get());
	if (write_and_close(fd, period_us, tab, maps) || rename(tmp, path)) {
		saved = errno;
		unlink(tmp);
		errno = saved;
		return -1;
	}
	return 0;
}

int profile_check_writable(const char *path)
{
	char tmp[PATH_MAX];
	int fd;

	if (not_a_directory(path) || temp_name(path, tmp, sizeof(tmp)))
		return -1;
	fd = mkstemp(tmp);
	if (fd < 0)
		return -1;
	close(fd);
	unlink(tmp);
	return 0;
}
