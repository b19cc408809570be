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

static int copy_name(const char *path, char *out, size_t len)
{
	if (snprintf(out, len, "%s", path) >= (int)len) {
		errno = ENAMETOOLONG;
		return -1;
	}
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

/*
 * The file the profile really goes to.  rename() replaces the last path
 * component itself, so a symbolic link is followed here first (the link
 * stays, its target gets the profile).  A directory is EISDIR; anything
 * else that exists and is not a regular file (a device such as /dev/null,
 * a FIFO, a socket) is EINVAL: renaming over it would replace it.
 */
static int resolve_output(const char *path, char *out, size_t len,
			  int depth)
{
	char link[PATH_MAX], next[PATH_MAX];
	const char *slash = strrchr(path, '/');
	struct stat st;
	ssize_t n;

	if (lstat(path, &st) < 0)
		return errno == ENOENT ? copy_name(path, out, len) : -1;
	if (S_ISDIR(st.st_mode)) {
		errno = EISDIR;
		return -1;
	}
	if (S_ISREG(st.st_mode))
		return copy_name(path, out, len);
	if (!S_ISLNK(st.st_mode)) {
		errno = EINVAL;
		return -1;
	}
	if (depth >= 16) {
		errno = ELOOP;
		return -1;
	}
	/* ptprof usually runs as root: a link planted by someone else in a
	 * shared directory (/tmp) must not aim root's write at /etc/shadow.
	 * The kernel's protected_symlinks rule cannot help, as the link is
	 * followed here by hand; follow only our own links. */
	if (st.st_uid != geteuid()) {
		errno = EPERM;
		return -1;
	}
	/* Follow one link by hand: its target may not exist yet. */
	n = readlink(path, link, sizeof(link) - 1);
	if (n < 0)
		return -1;
	link[n] = '\0';
	if (link[0] == '/' || !slash)
		return resolve_output(link, out, len, depth + 1);
	if (snprintf(next, sizeof(next), "%.*s/%s", (int)(slash - path), path,
		     link) >= (int)sizeof(next)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return resolve_output(next, out, len, depth + 1);
}

/* The process umask (reading it means setting it; ptprof has one thread). */
static mode_t umask_get(void)
{
	mode_t m = umask(022);

	umask(m);
	return m;
}


struct profile_out {
	FILE *f;
	char tmp[PATH_MAX];
	char path[PATH_MAX];
};

struct profile_out *profile_out_open(const char *path, uint64_t period_us)
{
	const uint64_t header[5] = { 0, 3, 0, period_us, 0 };
	struct profile_out *o = calloc(1, sizeof(*o));
	int fd, saved;

	if (!o)
		return NULL;
	if (resolve_output(path, o->path, sizeof(o->path), 0) ||
	    temp_name(o->path, o->tmp, sizeof(o->tmp)))
		goto fail;
	fd = mkstemp(o->tmp);
	if (fd < 0)
		goto fail;
	/* mkstemp makes 0600; a profile is an ordinary file of its user. */
	fchmod(fd, 0644 & ~umask_get());
	o->f = fdopen(fd, "w");
	if (!o->f) {
		close(fd);
		goto fail_unlink;
	}
	if (put_slots(o->f, header, 5))
		goto fail_unlink;
	return o;
fail_unlink:
	saved = errno;
	if (o->f)
		fclose(o->f);
	unlink(o->tmp);
	errno = saved;
fail:
	saved = errno;
	free(o);
	errno = saved;
	return NULL;
}

int profile_out_add(struct profile_out *o, const struct stacktab *tab)
{
	return stacktab_foreach(tab, put_record, o->f) ? -1 : 0;
}

void profile_out_abort(struct profile_out *o)
{
	if (!o)
		return;
	fclose(o->f);
	unlink(o->tmp);
	free(o);
}

int profile_out_close(struct profile_out *o, const struct maps *maps)
{
	const uint64_t trailer[3] = { 0, 1, 0 };
	int rc = 0, saved;

	if (put_slots(o->f, trailer, 3) || (maps && maps_write(maps, o->f)) ||
	    fflush(o->f) || fsync(fileno(o->f)))
		rc = -1;
	saved = errno;
	if (fclose(o->f) && !rc) {
		saved = errno;
		rc = -1;
	}
	if (!rc && rename(o->tmp, o->path)) {
		saved = errno;
		rc = -1;
	}
	if (rc)
		unlink(o->tmp);
	free(o);
	errno = saved;
	return rc;
}

int profile_write_file(const char *path, uint64_t period_us,
		       const struct stacktab *tab, const struct maps *maps)
{
	struct profile_out *o = profile_out_open(path, period_us);

	if (!o)
		return -1;
	if (tab && profile_out_add(o, tab)) {
		int saved = errno;

		profile_out_abort(o);
		errno = saved;
		return -1;
	}
	return profile_out_close(o, maps);
}

int profile_check_writable(const char *path)
{
	char tmp[PATH_MAX], real[PATH_MAX];
	int fd;

	if (resolve_output(path, real, sizeof(real), 0) ||
	    temp_name(real, tmp, sizeof(tmp)))
		return -1;
	fd = mkstemp(tmp);
	if (fd < 0)
		return -1;
	close(fd);
	unlink(tmp);
	return 0;
}
