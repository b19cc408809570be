/*
 * tselect.h - which threads of the target to sample (-t, --thread-name).
 *
 * A selection holds a list of TIDs and an optional POSIX extended regular
 * expression matched against thread names (comm).  A thread is selected
 * when its TID is listed or its name matches; an empty selection (no TID,
 * no expression) selects every thread.
 *
 * Contract: plain data, never prints or exits.  tselect_init() returns 0,
 * or -1 with errno (EINVAL: the expression does not compile; ENOMEM).
 * tselect_match() has the signature of sampler_config.select, so a
 * selection can be handed to the sampler as is.
 */
#ifndef PTPROF_TSELECT_H
#define PTPROF_TSELECT_H

#include <regex.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct tselect {
	const pid_t *tids; /* borrowed */
	size_t ntids;
	bool have_re;
	regex_t re;
};

int tselect_init(struct tselect *t, const pid_t *tids, size_t ntids,
		 const char *regex);
void tselect_free(struct tselect *t);

/* Whether any thread is selected at all (else: no selection, all are). */
bool tselect_active(const struct tselect *t);

/* arg is a struct tselect. */
bool tselect_match(void *arg, pid_t tid, const char *name);

#endif /* PTPROF_TSELECT_H */
