/*
 * procset.c - the processes of a run and their images (see procset.h).
 *
 * The images are kept in an array of pointers, each image allocated on
 * its own, so that growing the array never moves an image.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "procset.h"

struct procset {
	struct proc_image **im;
	size_t n, cap;
};

struct procset *procset_new(void)
{
	struct procset *ps = calloc(1, sizeof(*ps));

	if (!ps)
		errno = ENOMEM;
	return ps;
}

void procset_free(struct procset *ps)
{
	if (!ps)
		return;
	for (size_t i = 0; i < ps->n; i++) {
		maps_free(ps->im[i]->maps);
		free(ps->im[i]);
	}
	free(ps->im);
	free(ps);
}

struct proc_image *procset_add(struct procset *ps, pid_t pid, pid_t ppid,
			       const char *comm)
{
	struct proc_image **nv, *im, *prev = procset_find(ps, pid);

	nv = grow_array(ps->im, &ps->cap, ps->n + 1, sizeof(*nv));
	if (!nv)
		return NULL;
	ps->im = nv;
	im = calloc(1, sizeof(*im));
	if (!im || !(im->maps = maps_new())) {
		free(im);
		errno = ENOMEM;
		return NULL;
	}
	im->index = (unsigned)ps->n;
	im->pid = pid;
	im->ppid = ppid;
	if (prev) {
		im->exec_no = prev->exec_no + 1;
		prev->ended = true;
	}
	snprintf(im->comm, sizeof(im->comm), "%s", comm ? comm : "");
	ps->im[ps->n++] = im;
	return im;
}

size_t procset_count(const struct procset *ps)
{
	return ps->n;
}

struct proc_image *procset_at(const struct procset *ps, size_t i)
{
	return i < ps->n ? ps->im[i] : NULL;
}

struct proc_image *procset_find(const struct procset *ps, pid_t pid)
{
	for (size_t i = ps->n; i-- > 0;)
		if (ps->im[i]->pid == pid)
			return ps->im[i];
	return NULL;
}

size_t procset_sampled(const struct procset *ps)
{
	size_t n = 0;

	for (size_t i = 0; i < ps->n; i++)
		n += ps->im[i]->samples > 0;
	return n;
}

size_t procset_sampled_pids(const struct procset *ps)
{
	size_t n = 0;

	for (size_t i = 0; i < ps->n; i++) {
		size_t j;

		if (!ps->im[i]->samples)
			continue;
		for (j = 0; j < i; j++)
			if (ps->im[j]->samples &&
			    ps->im[j]->pid == ps->im[i]->pid)
				break;
		n += j == i;
	}
	return n;
}
