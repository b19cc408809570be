/*
 * stacktab.h - aggregation of sampled call stacks.
 *
 * A stacktab maps a call chain (PCs, leaf first) to the number of samples
 * that had exactly that chain.  It is what the profile writer serialises.
 *
 * Contract:
 *  - The table owns copies of every chain added; callers keep their arrays.
 *  - A chain is cut at its first zero PC (the unwinder's end marker), then
 *    to the table's depth cap, keeping the leaf-most frames.  An empty chain
 *    (npcs 0, or a zero leaf PC) and a count of 0 are not stored: add returns
 *    0 and changes nothing, so no record with count 0, npcs 0 or PC 0 can
 *    ever be written.
 *  - Not thread-safe; no function here prints or exits.  Allocation failure
 *    returns -1 with errno ENOMEM and leaves the table as it was.
 */
#ifndef PTPROF_STACKTAB_H
#define PTPROF_STACKTAB_H

#include <stddef.h>
#include <stdint.h>

/* Frames kept per stack: default and the largest --max-depth accepted. */
#define STACKTAB_DEFAULT_DEPTH 256
#define STACKTAB_MAX_DEPTH 4096
/* The longest chain a table keeps (stacktab_new(); a larger depth is the
 * default): the deepest stack and the keys a writer puts in front of it
 * (pprof_out.c's image, thread and time slot). */
#define STACKTAB_MAX_CHAIN (STACKTAB_MAX_DEPTH + 8)

struct stacktab;

struct stacktab *stacktab_new(unsigned max_depth);
void stacktab_free(struct stacktab *tab);

/* Add count samples of the chain pcs[0..npcs) (leaf first). */
int stacktab_add(struct stacktab *tab, const uint64_t *pcs, size_t npcs,
		 uint64_t count);

/* Forget every chain (after they were written out): the table is empty. */
void stacktab_clear(struct stacktab *tab);

size_t stacktab_distinct(const struct stacktab *tab);
uint64_t stacktab_samples(const struct stacktab *tab);
unsigned stacktab_max_depth(const struct stacktab *tab);

/*
 * Call fn once per distinct chain, in insertion order.  A non-zero return
 * from fn stops the walk and is returned.
 */
typedef int (*stacktab_visit_fn)(const uint64_t *pcs, size_t npcs,
				 uint64_t count, void *arg);
int stacktab_foreach(const struct stacktab *tab, stacktab_visit_fn fn,
		     void *arg);

#endif /* PTPROF_STACKTAB_H */
