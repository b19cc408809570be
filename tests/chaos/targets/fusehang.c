/*
 * fusehang.c - a FUSE server that stops answering (tests/chaos/fuse-hang.test).
 *
 * fusehang MOUNTPOINT FILE: mounts (as root, with mount(2): no libfuse,
 * no fusermount) a filesystem of type fuse.fusehang on MOUNTPOINT that
 * holds one file, MOUNTPOINT/bin, a copy of FILE (mode 0755), and serves
 * it.  Attributes and names are never cached by the kernel (timeouts 0),
 * so every stat() and lookup is a request.  Once SIGUSR1 comes it goes on
 * reading requests and answers none: whoever asked waits in the kernel,
 * and a request read by the server is waited for even through SIGKILL.
 * SIGTERM ends it: the connection closes, every waiter gets ENOTCONN.
 * Prints "ready" once mounted.  Single-threaded; requests it does not know
 * get ENOSYS.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/fuse.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#define ROOT_ID 1
#define FILE_ID 2

static volatile sig_atomic_t hang;
static char *data;
static size_t size;
static int dev;

static void on_usr1(int sig)
{
	(void)sig;
	hang = 1;
}

static void reply(uint64_t unique, int err, const void *out, size_t len)
{
	struct fuse_out_header h = { sizeof(h) + (err ? 0 : len), -err,
				     unique };
	struct iovec iov[2] = { { &h, sizeof(h) }, { (void *)out, len } };

	if (writev(dev, iov, err || !len ? 1 : 2) < 0 && errno != ENOENT)
		perror("fusehang: writev");
}

static void attr_of(uint64_t id, struct fuse_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->ino = id;
	a->nlink = id == ROOT_ID ? 2 : 1;
	a->mode = id == ROOT_ID ? S_IFDIR | 0755 : S_IFREG | 0755;
	a->size = id == ROOT_ID ? 0 : size;
	a->blocks = (a->size + 511) / 512;
	a->blksize = 4096;
}

static void serve(const struct fuse_in_header *in, const char *arg)
{
	switch (in->opcode) {
	case FUSE_INIT: {
		struct fuse_init_out o = { 0 };

		o.major = FUSE_KERNEL_VERSION;
		o.minor = FUSE_KERNEL_MINOR_VERSION;
		o.max_readahead = 128 * 1024;
		o.max_write = 128 * 1024;
		o.max_background = 16;
		o.congestion_threshold = 12;
		o.time_gran = 1;
		reply(in->unique, 0, &o, sizeof(o));
		return;
	}
	case FUSE_LOOKUP: {
		struct fuse_entry_out o = { 0 };

		if (in->nodeid != ROOT_ID || strcmp(arg, "bin")) {
			reply(in->unique, ENOENT, NULL, 0);
			return;
		}
		o.nodeid = FILE_ID;
		o.generation = 1;
		attr_of(FILE_ID, &o.attr);
		reply(in->unique, 0, &o, sizeof(o));
		return;
	}
	case FUSE_GETATTR: {
		struct fuse_attr_out o = { 0 };

		attr_of(in->nodeid, &o.attr);
		reply(in->unique, 0, &o, sizeof(o));
		return;
	}
	case FUSE_OPEN:
	case FUSE_OPENDIR: {
		struct fuse_open_out o = { 0 };

		o.fh = 1;
		o.open_flags = FOPEN_KEEP_CACHE;
		reply(in->unique, 0, &o, sizeof(o));
		return;
	}
	case FUSE_READ: {
		const struct fuse_read_in *r = (const void *)arg;
		size_t off = r->offset < size ? (size_t)r->offset : size;
		size_t n = size - off < r->size ? size - off : r->size;

		reply(in->unique, 0, data + off, n);
		return;
	}
	case FUSE_RELEASE:
	case FUSE_RELEASEDIR:
	case FUSE_FLUSH:
		reply(in->unique, 0, NULL, 0);
		return;
	case FUSE_FORGET:
	case FUSE_BATCH_FORGET:
	case FUSE_INTERRUPT:
		return; /* no reply */
	case FUSE_DESTROY:
		reply(in->unique, 0, NULL, 0);
		exit(0);
	default:
		reply(in->unique, ENOSYS, NULL, 0);
	}
}

static int load(const char *path)
{
	FILE *f = fopen(path, "rb");
	long n;

	if (!f || fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 ||
	    fseek(f, 0, SEEK_SET))
		return -1;
	size = (size_t)n;
	data = malloc(size ? size : 1);
	if (!data || fread(data, 1, size, f) != size)
		return -1;
	return fclose(f);
}

int main(int argc, char **argv)
{
	static char buf[1 << 20];
	struct sigaction sa = { .sa_handler = on_usr1 }; /* no SA_RESTART */
	char opts[128];

	if (argc != 3) {
		fprintf(stderr, "usage: fusehang MOUNTPOINT FILE\n");
		return 2;
	}
	if (load(argv[2])) {
		perror("fusehang: cannot read FILE");
		return 1;
	}
	sigaction(SIGUSR1, &sa, NULL);
	dev = open("/dev/fuse", O_RDWR | O_CLOEXEC);
	if (dev < 0) {
		perror("fusehang: /dev/fuse");
		return 1;
	}
	snprintf(opts, sizeof(opts),
		 "fd=%d,rootmode=40000,user_id=0,group_id=0,allow_other,"
		 "default_permissions",
		 dev);
	if (mount("fusehang", argv[1], "fuse.fusehang", MS_NOSUID | MS_NODEV,
		  opts)) {
		perror("fusehang: mount");
		return 1;
	}
	printf("ready\n");
	fflush(stdout);
	for (;;) {
		ssize_t n = read(dev, buf, sizeof(buf));
		const struct fuse_in_header *in = (const void *)buf;

		if (n < 0 &&
		    (errno == EINTR || errno == ENOENT || errno == EAGAIN))
			continue;
		if (n < 0) /* ENODEV: unmounted */
			return 0;
		if ((size_t)n < sizeof(*in))
			continue;
		if (hang) { /* taken, never answered */
			if (hang == 1) {
				fprintf(stderr, "fusehang: hanging\n");
				hang = 2;
			}
			continue;
		}
		buf[n < (ssize_t)sizeof(buf) ? n : n - 1] = '\0';
		serve(in, buf + sizeof(*in));
	}
}
