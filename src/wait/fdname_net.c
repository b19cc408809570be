/*
 * fdname_net.c - a socket, named (fdname.h, fdname_int.h): its row in
 * the target's network namespace's tables /proc/PID/net/{tcp,tcp6,udp,
 * udp6,unix}, read once per context and kept by inode; a unix socket's
 * peer from the kernel's sock_diag, when ptprof shares the target's
 * namespace.
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sock_diag.h>
#include <linux/unix_diag.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "proc/procfs.h"
#include "util/grow.h"
#include "util/hash.h"
#include "util/scan.h"
#include "util/timeutil.h"
#include "wait/fdname_int.h"

/* A table past this is cut (a row some 150 bytes: 200,000 rows). */
#define NET_TABLE_MAX (32u << 20)

/* The tables the next contexts of each namespace take, while fresh. */
static struct fdname_nettab *shared_net[FDNAME_NETNS];

static void nettab_unref(struct fdname_nettab *nt)
{
	if (!nt || --nt->refs)
		return;
	free(nt->socks);
	hashtab_free(&nt->sock_idx);
	free(nt->unix_text);
	free(nt);
}

void fdname_net_free(struct fdname_ctx *ctx)
{
	nettab_unref(ctx->net);
	ctx->net = NULL;
}

void fdname_net_release(void)
{
	for (size_t i = 0; i < FDNAME_NETNS; i++) {
		nettab_unref(shared_net[i]);
		shared_net[i] = NULL;
	}
}

static struct fdname_sock *sock_find(struct fdname_nettab *nt, uint64_t ino)
{
	struct hashtab_probe p;
	size_t i;

	if (!nt)
		return NULL;
	hashtab_probe_init(&nt->sock_idx, hash_mix64(ino), &p);
	while (hashtab_next(&nt->sock_idx, &p, &i))
		if (nt->socks[i].ino == ino)
			return &nt->socks[i];
	return NULL;
}

/*
 * Keep a row.  An inode seen before: a unix socket's path may hold a
 * newline, and what follows it reads as a row of the path's choosing;
 * every real socket of the namespace has its own row too, so a forged
 * row shows as an inode twice, and neither row is believed.
 */
static int sock_add(struct fdname_nettab *nt, const struct fdname_sock *s)
{
	struct fdname_sock *old = sock_find(nt, s->ino), *g;

	if (old) {
		old->twice = true;
		return 0;
	}
	g = grow_array(nt->socks, &nt->capsocks, nt->nsocks + 1, sizeof(*g));
	if (!g)
		return -1;
	nt->socks = g;
	if (hashtab_add(&nt->sock_idx, hash_mix64(s->ino), nt->nsocks))
		return -1;
	g[nt->nsocks++] = *s;
	return 0;
}

/* The next blank-separated token of [*p, end): its bounds; -1 at end. */
static int token(const char **p, const char *end, const char **ts,
		 const char **te)
{
	const char *q = *p;

	while (q < end && *q == ' ')
		q++;
	if (q == end)
		return -1;
	*ts = q;
	while (q < end && *q != ' ')
		q++;
	*te = q;
	*p = q;
	return 0;
}

/* Exactly digits hex digits, then the token's end or sep. */
static int hex_field(const char **p, const char *te, size_t digits, char sep,
		     uint64_t *v)
{
	const char *s = *p;

	/* an IPv6 address is four words run together: each ends by place */
	if ((size_t)(te - s) < digits ||
	    scan_hex(p, s + digits, digits, 0, v) || (size_t)(*p - s) != digits)
		return -1;
	if (sep) {
		if (*p == te || **p != sep)
			return -1;
		++*p;
	}
	return 0;
}

/*
 * "0100007F:18EB": the kernel prints an IPv4 address as the u32 it is
 * in memory (network order) with %08X, so on x86-64 its bytes come out
 * reversed; an IPv6 one as four such words.
 */
static int addr_field(const char **p, const char *te, int family,
		      unsigned char *addr, unsigned *port)
{
	size_t words = family == AF_INET6 ? 4 : 1;
	uint64_t v;

	for (size_t w = 0; w < words; w++) {
		if (hex_field(p, te, 8, 0, &v))
			return -1;
		for (int b = 0; b < 4; b++)
			addr[w * 4 + (size_t)b] = (unsigned char)(v >> (8 * b));
	}
	if (*p == te || **p != ':')
		return -1;
	++*p;
	if (hex_field(p, te, 4, 0, &v) || *p != te)
		return -1;
	*port = (unsigned)v;
	return 0;
}

/*
 * One tcp or udp row: "sl: local remote st tx:rx tr:when retrnsmt uid
 * timeout inode ..." (net/ipv4/tcp_ipv4.c get_tcp4_sock(),
 * udp.c udp4_format_sock() and their IPv6 twins).  0, or -1.
 */
static int inet_row(const char *t, const char *end, int proto, int family,
		    struct fdname_sock *s)
{
	const char *ts, *te, *p = t;
	uint64_t v;

	memset(s, 0, sizeof(*s));
	s->proto = proto;
	s->family = family;
	if (token(&p, end, &ts, &te) || te[-1] != ':')
		return -1;
	if (token(&p, end, &ts, &te) ||
	    addr_field(&ts, te, family, s->local, &s->lport))
		return -1;
	if (token(&p, end, &ts, &te) ||
	    addr_field(&ts, te, family, s->remote, &s->rport))
		return -1;
	if (token(&p, end, &ts, &te) || hex_field(&ts, te, 2, 0, &v) ||
	    ts != te)
		return -1;
	s->state = (unsigned)v;
	if (token(&p, end, &ts, &te) || hex_field(&ts, te, 8, ':', &s->txq) ||
	    hex_field(&ts, te, 8, 0, &s->rxq) || ts != te)
		return -1;
	for (int skip = 0; skip < 4; skip++) /* tr:when retrnsmt uid timeout */
		if (token(&p, end, &ts, &te))
			return -1;
	if (token(&p, end, &ts, &te) || scan_dec(&ts, te, UINT64_MAX, &v) ||
	    ts != te)
		return -1;
	s->ino = v;
	return 0;
}

/*
 * One unix row: "Num: RefCount Protocol Flags Type St Inode[ Path]"
 * (net/unix/af_unix.c unix_seq_show()); the path is the rest of the
 * line, bytes as bound (an abstract name's NULs shown as '@').
 */
static int unix_row(const char *t, const char *end, const char *base,
		    struct fdname_sock *s)
{
	const char *ts, *te, *p = t;
	uint64_t v;

	memset(s, 0, sizeof(*s));
	s->proto = FDNAME_UNIX;
	if (token(&p, end, &ts, &te) || te[-1] != ':')
		return -1;
	for (int skip = 0; skip < 2; skip++) /* RefCount Protocol */
		if (token(&p, end, &ts, &te))
			return -1;
	if (token(&p, end, &ts, &te) || hex_field(&ts, te, 8, 0, &v) ||
	    ts != te)
		return -1;
	s->flags = (unsigned)v;
	if (token(&p, end, &ts, &te) || hex_field(&ts, te, 4, 0, &v) ||
	    ts != te)
		return -1;
	s->type = (unsigned)v;
	if (token(&p, end, &ts, &te) || hex_field(&ts, te, 2, 0, &v) ||
	    ts != te)
		return -1;
	s->state = (unsigned)v;
	if (token(&p, end, &ts, &te) || scan_dec(&ts, te, UINT64_MAX, &v) ||
	    ts != te)
		return -1;
	s->ino = v;
	if (p < end && *p == ' ' && p + 1 < end) {
		s->path_off = (size_t)(p + 1 - base);
		s->path_len = (size_t)(end - p - 1);
	}
	return 0;
}

/* Read one table and keep its rows; the unix one's text is kept too. */
static int read_table(struct fdname_nettab *nt, pid_t pid, const char *name,
		      int proto, int family)
{
	char path[64], *text;
	const char *t, *end;
	size_t len;
	int rc = 0;

	snprintf(path, sizeof(path), "/proc/%d/net/%s", (int)pid, name);
	if (procfs_read_file_max(path, NET_TABLE_MAX, &text, &len) < 0)
		return -1;
	t = memchr(text, '\n', len); /* the header */
	for (t = t ? t + 1 : text + len, end = text + len; t < end && !rc;) {
		const char *nl = memchr(t, '\n', (size_t)(end - t));
		const char *le = nl ? nl : end;
		struct fdname_sock s;
		int bad = proto == FDNAME_UNIX ?
				  unix_row(t, le, text, &s) :
				  inet_row(t, le, proto, family, &s);

		/* a cut last line, a time-wait row (inode 0): not kept */
		if (!bad && s.ino && nl)
			rc = sock_add(nt, &s);
		t = le + 1;
	}
	if (proto == FDNAME_UNIX)
		nt->unix_text = text;
	else
		free(text);
	return rc;
}

/*
 * ctx's tables: those of its namespace made under FDNAME_SHARE_NS ago
 * (by the namespace's device and inode: stat() of /proc/PID/ns/net), or
 * read now and shared in the place of a stale (or the oldest) entry.  A
 * namespace that cannot be stat'ed gets tables of its own.
 */
static void net_read(struct fdname_ctx *ctx)
{
	uint64_t now = mono_now_ns();
	struct fdname_nettab *nt;
	char path[64];
	struct stat st;
	size_t slot = 0;

	if (ctx->net_read)
		return;
	ctx->net_read = true;
	snprintf(path, sizeof(path), "/proc/%d/ns/net", (int)ctx->pid);
	if (stat(path, &st) == 0)
		for (size_t i = 0; i < FDNAME_NETNS; i++) {
			nt = shared_net[i];
			if (nt && now - nt->made_ns < FDNAME_SHARE_NS &&
			    nt->ns_dev == (uint64_t)st.st_dev &&
			    nt->ns_ino == (uint64_t)st.st_ino) {
				nt->refs++;
				ctx->net = nt;
				return;
			}
			if (!nt || (shared_net[slot] &&
				    nt->made_ns < shared_net[slot]->made_ns))
				slot = i;
		}
	else
		st.st_dev = st.st_ino = 0;
	if (!(nt = calloc(1, sizeof(*nt))))
		return;
	nt->refs = 1;
	nt->made_ns = now;
	/* a table missing (no IPv6) or unreadable: its sockets unnamed */
	read_table(nt, ctx->pid, "tcp", FDNAME_TCP, AF_INET);
	read_table(nt, ctx->pid, "tcp6", FDNAME_TCP, AF_INET6);
	read_table(nt, ctx->pid, "udp", FDNAME_UDP, AF_INET);
	read_table(nt, ctx->pid, "udp6", FDNAME_UDP, AF_INET6);
	read_table(nt, ctx->pid, "unix", FDNAME_UNIX, AF_UNIX);
	ctx->net = nt;
	if (!st.st_ino)
		return;
	nt->ns_dev = (uint64_t)st.st_dev;
	nt->ns_ino = (uint64_t)st.st_ino;
	nettab_unref(shared_net[slot]);
	shared_net[slot] = nt;
	nt->refs++;
}

/* include/net/tcp_states.h */
static const char *tcp_state(unsigned st)
{
	static const char *const names[] = { "",
					     "ESTABLISHED",
					     "SYN_SENT",
					     "SYN_RECV",
					     "FIN_WAIT1",
					     "FIN_WAIT2",
					     "TIME_WAIT",
					     "CLOSE",
					     "CLOSE_WAIT",
					     "LAST_ACK",
					     "LISTEN",
					     "CLOSING",
					     "NEW_SYN_RECV" };

	return st && st < sizeof(names) / sizeof(names[0]) ? names[st] :
							     "state ?";
}

/* "127.0.0.1:6379" or "[::1]:6379". */
static void addr_text(const struct fdname_sock *s, const unsigned char *a,
		      unsigned port, char *buf, size_t size)
{
	char ip[INET6_ADDRSTRLEN];

	if (!inet_ntop(s->family, a, ip, sizeof(ip)))
		snprintf(ip, sizeof(ip), "?");
	snprintf(buf, size, s->family == AF_INET6 ? "[%s]:%u" : "%s:%u", ip,
		 port);
}

static void inet_text(const struct fdname_sock *s, char *buf, size_t size)
{
	char local[64], remote[64];
	const char *proto = s->proto == FDNAME_TCP ? "TCP" : "UDP";

	addr_text(s, s->local, s->lport, local, sizeof(local));
	addr_text(s, s->remote, s->rport, remote, sizeof(remote));
	if (s->proto == FDNAME_TCP && s->state == 10) /* LISTEN */
		snprintf(buf, size, "TCP %s LISTEN%s", local,
			 s->rxq ? ", connections waiting to be accepted" : "");
	else if (s->proto == FDNAME_TCP)
		snprintf(buf, size,
			 "TCP %s <- %s %s rx %" PRIu64 " tx %" PRIu64, local,
			 remote, tcp_state(s->state), s->rxq, s->txq);
	else if (s->rport) /* a connected UDP socket */
		snprintf(buf, size, "%s %s <- %s rx %" PRIu64 " tx %" PRIu64,
			 proto, local, remote, s->rxq, s->txq);
	else
		snprintf(buf, size, "%s %s rx %" PRIu64 " tx %" PRIu64, proto,
			 local, s->rxq, s->txq);
}

/* Whether ptprof is in the target's network namespace (the inodes of
 * the two ns/net links: stat() of a namespace, not a path of its). */
static bool same_netns(struct fdname_ctx *ctx)
{
	char path[64];
	struct stat a, b;

	if (ctx->same_netns < 0) {
		snprintf(path, sizeof(path), "/proc/%d/ns/net", (int)ctx->pid);
		ctx->same_netns = !stat("/proc/self/ns/net", &a) &&
				  !stat(path, &b) && a.st_ino == b.st_ino &&
				  a.st_dev == b.st_dev;
	}
	return ctx->same_netns == 1;
}

/*
 * A unix socket's peer's inode, from NETLINK_SOCK_DIAG (UNIX_DIAG_PEER;
 * an exact request: the cookie "none" matches any socket).  The kernel
 * answers before sendto() returns, so the receive never waits.  0 when
 * it has none or cannot say.
 */
static uint64_t unix_peer(uint64_t ino)
{
	struct {
		struct nlmsghdr nlh;
		struct unix_diag_req req;
	} msg = {
		.nlh = { .nlmsg_len = sizeof(msg),
			 .nlmsg_type = SOCK_DIAG_BY_FAMILY,
			 .nlmsg_flags = NLM_F_REQUEST },
		.req = { .sdiag_family = AF_UNIX,
			 .udiag_states = ~0u,
			 .udiag_ino = (uint32_t)ino,
			 .udiag_show = UDIAG_SHOW_PEER,
			 .udiag_cookie = { INET_DIAG_NOCOOKIE,
					   INET_DIAG_NOCOOKIE } },
	};
	union {
		struct nlmsghdr h;
		char b[4096];
	} buf;
	uint64_t peer = 0;
	ssize_t n;
	int fd;

	if (ino > UINT32_MAX) /* the request's inode is 32 bits */
		return 0;
	fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
	if (fd < 0)
		return 0;
	if (send(fd, &msg, sizeof(msg), 0) != (ssize_t)sizeof(msg)) {
		close(fd);
		return 0;
	}
	n = recv(fd, &buf, sizeof(buf), MSG_DONTWAIT);
	close(fd);
	for (struct nlmsghdr *h = &buf.h; n > 0 && NLMSG_OK(h, (size_t)n);
	     h = NLMSG_NEXT(h, n)) {
		struct unix_diag_msg *m = NLMSG_DATA(h);
		struct rtattr *a;
		int alen;

		if (h->nlmsg_type != SOCK_DIAG_BY_FAMILY ||
		    h->nlmsg_len < NLMSG_LENGTH(sizeof(*m)) ||
		    m->udiag_ino != (uint32_t)ino)
			continue;
		alen = (int)(h->nlmsg_len - NLMSG_LENGTH(sizeof(*m)));
		for (a = (struct rtattr *)(m + 1); RTA_OK(a, alen);
		     a = RTA_NEXT(a, alen))
			if (a->rta_type == UNIX_DIAG_PEER &&
			    RTA_PAYLOAD(a) >= (int)sizeof(uint32_t))
				memcpy(&peer, RTA_DATA(a), sizeof(uint32_t));
	}
	return peer;
}

static void unix_text(struct fdname_ctx *ctx, const struct fdname_sock *s,
		      char *buf, size_t size, pid_t *pids, size_t max)
{
	pid_t got[WAIT_MAX_FDS];
	size_t len, total, n;
	uint64_t peer;

	if (s->twice)
		snprintf(buf, size,
			 "unix socket:[%" PRIu64 "] (its row forged)", s->ino);
	else if (s->path_len) /* raw bytes: the writer escapes them */
		snprintf(buf, size, "unix %.*s",
			 (int)(s->path_len < 150 ? s->path_len : 150),
			 ctx->net->unix_text + s->path_off);
	else
		snprintf(buf, size, "unix (unnamed)");
	if (!same_netns(ctx) || !(peer = unix_peer(s->ino)) || fdname_scan(ctx))
		return;
	total = fdname_holders(ctx, FDNAME_SOCKET, peer, FDNAME_ANY, got,
			       WAIT_MAX_FDS);
	if (!total)
		return;
	n = total < WAIT_MAX_FDS ? total : WAIT_MAX_FDS;
	for (size_t i = 0; pids && i < max && i < n; i++)
		pids[i] = got[i];
	if (pids && n < max)
		pids[n] = 0;
	len = strlen(buf);
	snprintf(buf + len, size - len, " peer ");
	fdname_name_pids(ctx, got, n, total, buf, size);
}

int fdname_net_describe(struct fdname_ctx *ctx, uint64_t ino, char *buf,
			size_t size, pid_t *pids, size_t max)
{
	const struct fdname_sock *s;

	net_read(ctx);
	s = sock_find(ctx->net, ino);
	if (!s)
		return -1;
	if (s->proto == FDNAME_UNIX)
		unix_text(ctx, s, buf, size, pids, max);
	else if (s->twice)
		return -1;
	else
		inet_text(s, buf, size);
	return 0;
}
