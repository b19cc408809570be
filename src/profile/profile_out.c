/*
 * profile_out.c - gperftools CPU profile writer (see profile_out.h).
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>

#include "profile/outfile.h"
#include "profile/profile.h"
#include "profile/profile_out.h"

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

int profile_out_write(FILE *f, uint64_t period_us, const struct stacktab *tab,
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

struct profile_out {
	struct outfile file;
};

struct profile_out *profile_out_open(const char *path, uint64_t period_us)
{
	const uint64_t header[5] = { 0, 3, 0, period_us, 0 };
	struct profile_out *o = calloc(1, sizeof(*o));
	int saved;

	if (!o)
		return NULL;
	if (outfile_open(&o->file, path))
		goto fail;
	if (put_slots(o->file.f, header, 5)) {
		saved = errno;
		outfile_abort(&o->file);
		errno = saved;
		goto fail;
	}
	return o;
fail:
	saved = errno;
	free(o);
	errno = saved;
	return NULL;
}

int profile_out_add(struct profile_out *o, const struct stacktab *tab)
{
	return stacktab_foreach(tab, put_record, o->file.f) ? -1 : 0;
}

void profile_out_abort(struct profile_out *o)
{
	if (!o)
		return;
	outfile_abort(&o->file);
	free(o);
}

int profile_out_flush(struct profile_out *o)
{
	return outfile_flush(&o->file);
}

void profile_out_release(struct profile_out *o)
{
	if (!o)
		return;
	outfile_release(&o->file);
	free(o);
}

int profile_out_retarget(struct profile_out *o, const char *path)
{
	return outfile_retarget(&o->file, path);
}

int profile_out_close(struct profile_out *o, const struct maps *maps)
{
	return profile_out_close_pid(o, maps, 0);
}

int profile_out_close_pid(struct profile_out *o, const struct maps *maps,
			  pid_t pid)
{
	const uint64_t trailer[3] = { 0, 1, 0 };
	int rc, saved;

	/* Not after an empty maps text (a COMMAND gone before its maps were
	 * read): the line alone would be a maps text with no mapping line,
	 * which ptprof's readers refuse (profile_read.c). */
	if (put_slots(o->file.f, trailer, 3) ||
	    (maps && maps_write(maps, o->file.f)) ||
	    (pid > 0 && maps && maps_count(maps) > 0 &&
	     fprintf(o->file.f, PROFILE_PID_LINE "%d\n", (int)pid) < 0)) {
		saved = errno;
		outfile_abort(&o->file);
		rc = -1;
	} else {
		rc = outfile_commit(&o->file);
		saved = errno;
	}
	free(o);
	errno = saved;
	return rc;
}

int profile_out_write_file(const char *path, uint64_t period_us,
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

int profile_out_check_writable(const char *path)
{
	return outfile_check_writable(path);
}
