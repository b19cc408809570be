/*
 * pyrt_pages.c - the page cache of pyrt_pages_read() (pyrt.h): the last
 * PYRT_PAGES pages read of a target, so a frame chain costs a few reads.
 */
#include "config.h"

#include "python/pyrt.h"

#include <stdint.h>
#include <string.h>

void pyrt_pages_init(struct pyrt_pages *pc, pyrt_read_fn read, void *arg)
{
	memset(pc->addr, 0, sizeof(pc->addr));
	pc->read = read;
	pc->arg = arg;
	pc->n = pc->next = 0;
	pc->reads = 0;
}

void pyrt_pages_reset(struct pyrt_pages *pc)
{
	pc->n = pc->next = 0;
}

/* The page at page (4 KiB-aligned), read if not held; NULL if unreadable. */
static const uint8_t *page_get(struct pyrt_pages *pc, uint64_t page)
{
	unsigned i;

	for (i = 0; i < pc->n; i++)
		if (pc->addr[i] == page)
			return pc->data[i];
	i = pc->n < PYRT_PAGES ? pc->n : pc->next;
	pc->reads++;
	if (pc->read(pc->arg, page, pc->data[i], 4096) != 0) {
		if (i < pc->n)
			pc->addr[i] = 1; /* half overwritten: matches no page */
		return NULL;
	}
	if (i == pc->n)
		pc->n++;
	else
		pc->next = (i + 1) % PYRT_PAGES;
	pc->addr[i] = page;
	return pc->data[i];
}

int pyrt_pages_read(void *arg, uint64_t addr, void *buf, size_t len)
{
	struct pyrt_pages *pc = arg;
	uint8_t *out = buf;
	uint64_t page;
	size_t off, k;
	const uint8_t *p;

	if (len > 2 * 4096 || addr + len < addr)
		goto direct; /* larger than two pages: not worth holding */
	while (len) {
		page = addr & ~4095ull;
		off = (size_t)(addr - page);
		k = len < 4096 - off ? len : 4096 - off;
		p = page_get(pc, page);
		if (!p)
			goto direct;
		memcpy(out, p + off, k);
		out += k;
		addr += k;
		len -= k;
	}
	return 0;
direct:
	pc->reads++;
	return pc->read(pc->arg, addr, out, len);
}
