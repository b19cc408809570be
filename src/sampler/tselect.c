/*
 * tselect.c - which threads of the target to sample (see tselect.h).
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "sampler/tselect.h"

int tselect_init(struct tselect *t, const pid_t *tids, size_t ntids,
		 const char *regex)
{
	int rc;

	memset(t, 0, sizeof(*t));
	t->tids = tids;
	t->ntids = ntids;
	if (!regex)
		return 0;
	rc = regcomp(&t->re, regex, REG_EXTENDED | REG_NOSUB);
	if (rc) {
		errno = rc == REG_ESPACE ? ENOMEM : EINVAL;
		return -1;
	}
	t->have_re = true;
	return 0;
}

void tselect_free(struct tselect *t)
{
	if (t->have_re)
		regfree(&t->re);
	t->have_re = false;
}

bool tselect_active(const struct tselect *t)
{
	return t->ntids || t->have_re;
}

bool tselect_match(void *arg, pid_t tid, const char *name)
{
	const struct tselect *t = arg;

	for (size_t i = 0; i < t->ntids; i++)
		if (t->tids[i] == tid)
			return true;
	return t->have_re && regexec(&t->re, name, 0, NULL, 0) == 0;
}
