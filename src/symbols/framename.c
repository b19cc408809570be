/*
 * framename.c - the name of one frame (see framename.h).
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/demangle.h"
#include "symbols/framename.h"
#include "util/timeutil.h"

const char *framename_base(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash && slash[1] ? slash + 1 : path;
}

const char *framename_own_name(uint64_t addr)
{
	static const char *const names[FRAMENAME_OWN_KINDS] = {
		[FRAMENAME_OWN_NOT_CAUGHT] = "[CPU time not caught running]",
		[FRAMENAME_OWN_NO_STACK] = "[CPU time of no stack]",
	};
	uint64_t kind = (addr - FRAMENAME_OWN_BASE) / 16;

	if (addr < FRAMENAME_OWN_BASE || kind >= FRAMENAME_OWN_KINDS)
		return NULL;
	return names[kind];
}

void framename_lookup(struct framename *f, struct symbolizer *sym,
		      uint64_t addr)
{
	memset(f, 0, sizeof(*f));
	f->si.func = framename_own_name(addr);
	if (f->si.func)
		f->si.module = FRAMENAME_OWN_MODULE;
	else if (sym)
		symbolizer_lookup(sym, addr, &f->si);
}

bool framename_in_no_file(const struct framename *f)
{
	return !f->si.module || !strcmp(f->si.module, FRAMENAME_JIT_MODULE);
}

/* Whether j's map may be read (again) now. */
static bool may_read(const struct framename_jit *j)
{
	if (!j->load)
		return false;
	if (!j->reads)
		return true;
	if (!j->every_ns)
		return j->reads == 1;
	return mono_now_ns() - j->read_at >= j->every_ns;
}

const char *framename_jit_lookup(struct framename_jit *j, uint64_t addr,
				 uint64_t *off)
{
	const char *name = perfmap_lookup(j->map, addr, off);

	while (!name && may_read(j)) {
		j->map = j->load(j->arg, j->reads > 0);
		j->reads++;
		if (j->every_ns)
			j->read_at = mono_now_ns();
		name = perfmap_lookup(j->map, addr, off);
	}
	return name;
}

bool framename_jit(struct framename *f, struct framename_jit *j, uint64_t addr)
{
	const char *name;

	if (!j || f->si.func || !framename_in_no_file(f))
		return false;
	name = framename_jit_lookup(j, addr, &f->si.func_off);
	if (!name)
		return false;
	f->si.func = name;
	f->si.module = FRAMENAME_JIT_MODULE;
	f->si.module_off = 0;
	f->jit = true;
	return true;
}

const char *framename_func(struct framename *f)
{
	if (!f->si.func)
		return NULL;
	if (!f->demangled) {
		f->cxx = demangle(f->si.func);
		f->demangled = true;
	}
	return f->cxx ? f->cxx : f->si.func;
}

const char *framename_module(const struct framename *f)
{
	if (!f->si.module || (f->si.func && framename_in_no_file(f)))
		return NULL;
	return framename_base(f->si.module);
}

int framename_format(struct framename *f, uint64_t addr, const char *file,
		     unsigned line, char *buf, size_t len)
{
	if (f->si.func && framename_in_no_file(f))
		/* the mark in the name, so that folded stacks and flame
		 * graphs show it too, and "fib" in C stays another name */
		snprintf(buf, len, "%s " FRAMENAME_JIT_MODULE, f->si.func);
	else if (f->si.func && file)
		snprintf(buf, len, "%s %s:%u", framename_func(f), file, line);
	else if (f->si.func)
		snprintf(buf, len, "%s", framename_func(f));
	else if (f->si.module)
		snprintf(buf, len, "%s+0x%" PRIx64,
			 framename_base(f->si.module), f->si.module_off);
	else
		snprintf(buf, len, "0x%" PRIx64, addr);
	return !f->si.func && !f->si.module;
}

void framename_format_inline(const struct symbol_frame *fr, uint64_t addr,
			     bool lines, char *buf, size_t len)
{
	char *cxx = fr->func ? demangle(fr->func) : NULL;
	const char *name = cxx ? cxx : fr->func;

	if (!name)
		snprintf(buf, len, "0x%" PRIx64 FRAMENAME_INLINE_MARK, addr);
	else if (lines && fr->file)
		snprintf(buf, len, "%s %s:%u" FRAMENAME_INLINE_MARK, name,
			 fr->file, fr->line);
	else
		snprintf(buf, len, "%s" FRAMENAME_INLINE_MARK, name);
	free(cxx);
}

void framename_done(struct framename *f)
{
	free(f->cxx);
	f->cxx = NULL;
	f->demangled = false;
}
