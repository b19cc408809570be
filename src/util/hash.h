/*
 * hash.h - the hashes every table in ptprof uses: FNV-1a (64 bits) and
 * murmur3's 64-bit finaliser.
 *
 * Contract: pure functions of their arguments, no state, safe anywhere
 * (the sampler's stop window included).  FNV-1a alone barely moves the
 * high bits of short keys; a table that takes high bits, or masks a
 * hash of few bytes, mixes it with hash_mix64() first.  The values are
 * part of ptprof's output where a hash picks a colour (the flame graph):
 * changing them changes the SVG.
 */
#ifndef PTPROF_HASH_H
#define PTPROF_HASH_H

#include <stddef.h>
#include <stdint.h>

#define HASH_FNV_SEED 0xcbf29ce484222325ULL
#define HASH_FNV_PRIME 0x100000001b3ULL

/* FNV-1a over n bytes, continuing from h (HASH_FNV_SEED to start). */
static inline uint64_t hash_fnv1a(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * HASH_FNV_PRIME;
	return h;
}

/* FNV-1a over a NUL-terminated string. */
static inline uint64_t hash_fnv1a_str(const char *s)
{
	uint64_t h = HASH_FNV_SEED;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * HASH_FNV_PRIME;
	return h;
}

/* One FNV-1a step over a whole 64-bit word (the stack table's PCs):
 * cheaper than eight byte steps, and mixed afterwards anyway. */
static inline uint64_t hash_fnv1a_word(uint64_t h, uint64_t w)
{
	return (h ^ w) * HASH_FNV_PRIME;
}

/* murmur3's finaliser: every input bit moves every output bit. */
static inline uint64_t hash_mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	return x ^ (x >> 33);
}

#endif /* PTPROF_HASH_H */
