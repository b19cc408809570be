/*
 * fdname.c - a target's descriptor, named (fdname.h).
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "wait/fdname.h"

struct fdname_ctx {
	pid_t pid;
};

struct fdname_ctx *fdname_ctx_new(pid_t pid)
{
	struct fdname_ctx *c = calloc(1, sizeof(*c));

	if (c)
		c->pid = pid;
	return c;
}

void fdname_ctx_free(struct fdname_ctx *ctx)
{
	free(ctx);
}

int fdname_describe(struct fdname_ctx *ctx, int fd, enum fdname_want want,
		    struct wait_fd *out, pid_t *peers, size_t npeers)
{
	char path[64];
	ssize_t n;

	(void)want;
	out->fd = fd;
	if (peers && npeers)
		peers[0] = 0;
	snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)ctx->pid, fd);
	n = readlink(path, out->name, sizeof(out->name) - 1);
	if (n < 0) {
		int err = errno;

		snprintf(out->name, sizeof(out->name), "fd %d (closed)", fd);
		errno = err == ENOENT ? EBADF : err;
		return -1;
	}
	out->name[n] = '\0';
	return 0;
}

size_t fdname_epoll(struct fdname_ctx *ctx, int epfd, struct wait_fd *fds,
		    size_t max, size_t *more)
{
	(void)ctx;
	(void)epfd;
	(void)fds;
	(void)max;
	*more = 0;
	return 0;
}
