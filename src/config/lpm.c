/* lpm.c - longest-prefix match over 128-bit keys.
 *
 * One open-addressing hash table (linear probing, power-of-two size, load at
 * most 50%) per distinct prefix length.  The levels are kept sorted by
 * descending length, so a lookup masks the address for each level in turn
 * and the first hit is the longest match.  Keys are stored as two host-order
 * 64-bit halves, already masked.  Nothing is written after building: any
 * number of threads may call lpm_lookup()/lpm_get() at once.
 */
#include <endian.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "lpm.h"

#define LPM_MAX_LEN	128
#define LPM_MIN_SLOTS	8

struct lpm_slot {
	uint64_t hi, lo;	/* masked key */
	void *value;
	bool used;
};

struct lpm_level {
	unsigned plen;
	uint64_t mask_hi, mask_lo;
	size_t nslots;		/* power of two */
	unsigned shift;		/* 64 - log2(nslots), for key_hash() */
	size_t count;
	struct lpm_slot *slots;
};

struct lpm {
	struct lpm_level *levels;	/* sorted by plen, longest first */
	unsigned nlevels;
};

static void key_split(const struct in6_addr *a, uint64_t *hi, uint64_t *lo)
{
	uint64_t h, l;

	memcpy(&h, &a->s6_addr[0], 8);
	memcpy(&l, &a->s6_addr[8], 8);
	*hi = be64toh(h);
	*lo = be64toh(l);
}

static uint64_t len_mask(unsigned bits)
{
	if (bits == 0)
		return 0;
	if (bits >= 64)
		return ~(uint64_t)0;
	return ~(uint64_t)0 << (64 - bits);
}

/* The slot index of (hi, lo) in a level of 2^(64 - shift) slots:
 * multiplicative (Fibonacci) hashing, Knuth 6.4: lo folded into hi by one
 * multiply, the upper half of that folded down (the keys' low bits, a
 * /128 SID's, reach the whole word), the index the top bits of a second
 * product, which every bit of the key reaches.  Two multiplies and a
 * shift where the two 64-bit finalizers it replaces took four multiplies
 * and six shifts: the probes were half of End's instructions
 * (bench/behavior-instr.sh).  Simulated
 * on linear probing at the table's load (consecutive /128 SIDs, /64, /48
 * and /32 locators, C-SID blocks, ::ffff:a.b.0.0/16): a miss probes
 * 1.5-2.5 slots on average, the finalizers 2.3-2.5; without the
 * xor-shift 6.3 for /128 SIDs whose last bits step by 2^16
 * (BENCHMARKS.md, session 11).  The keys are the config's; a lookup's
 * address only picks where its probe starts. */
static size_t key_hash(uint64_t hi, uint64_t lo, unsigned shift)
{
	uint64_t x = hi ^ (lo * 0x9e3779b97f4a7c15ULL);

	x ^= x >> 32;
	return (size_t)((x * 0xbf58476d1ce4e5b9ULL) >> shift);
}

/* Slot holding (hi, lo), or the empty slot where it would go.  Inlined
 * in each caller: lpm_lookup() calls it once per prefix length, and the
 * call and its argument moves were a fifth of a probe (callgrind). */
static inline __attribute__((always_inline)) struct lpm_slot *
level_probe(const struct lpm_level *lv, uint64_t hi, uint64_t lo)
{
	size_t m = lv->nslots - 1;
	size_t i = key_hash(hi, lo, lv->shift);

	for (;;) {
		struct lpm_slot *s = &lv->slots[i];

		if (!s->used || (s->hi == hi && s->lo == lo))
			return s;
		i = (i + 1) & m;
	}
}

static int level_grow(struct lpm_level *lv)
{
	struct lpm_slot *old = lv->slots;
	size_t oldn = lv->nslots;
	size_t n = oldn ? oldn * 2 : LPM_MIN_SLOTS;
	struct lpm_slot *slots = calloc(n, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	lv->slots = slots;
	lv->nslots = n;
	lv->shift = 64u - (unsigned)__builtin_ctzll(n);
	for (size_t i = 0; i < oldn; i++) {
		struct lpm_slot *s;

		if (!old[i].used)
			continue;
		s = level_probe(lv, old[i].hi, old[i].lo);
		*s = old[i];
	}
	free(old);
	return 0;
}

static struct lpm_level *level_find(const struct lpm *t, unsigned plen)
{
	for (unsigned i = 0; i < t->nlevels; i++)
		if (t->levels[i].plen == plen)
			return &t->levels[i];
	return NULL;
}

/* The level for plen, created (at its sorted place) if absent. */
static struct lpm_level *level_get(struct lpm *t, unsigned plen)
{
	struct lpm_level *lv = level_find(t, plen), *levels;
	unsigned pos = 0;

	if (lv)
		return lv;
	levels = realloc(t->levels, (t->nlevels + 1) * sizeof(*levels));
	if (!levels)
		return NULL;
	t->levels = levels;
	while (pos < t->nlevels && levels[pos].plen > plen)
		pos++;
	memmove(&levels[pos + 1], &levels[pos],
		(t->nlevels - pos) * sizeof(*levels));
	t->nlevels++;
	lv = &levels[pos];
	memset(lv, 0, sizeof(*lv));
	lv->plen = plen;
	lv->mask_hi = len_mask(plen);
	lv->mask_lo = len_mask(plen > 64 ? plen - 64 : 0);
	if (level_grow(lv) < 0) {
		memmove(&levels[pos], &levels[pos + 1],
			(t->nlevels - pos - 1) * sizeof(*levels));
		t->nlevels--;
		return NULL;
	}
	return lv;
}

/* Returns an empty table, or NULL on allocation failure. */
struct lpm *lpm_new(void)
{
	return calloc(1, sizeof(struct lpm));
}

/* Frees the table (not the values); NULL is ignored. */
void lpm_free(struct lpm *t)
{
	if (!t)
		return;
	for (unsigned i = 0; i < t->nlevels; i++)
		free(t->levels[i].slots);
	free(t->levels);
	free(t);
}

/* Add prefix/plen -> value; bits of prefix past plen are ignored.  Returns
 * 0, -EEXIST if the same prefix is already present (value unchanged),
 * -EINVAL if plen > 128, -ENOMEM. */
int lpm_insert(struct lpm *t, const struct in6_addr *prefix, unsigned plen,
	       void *value)
{
	struct lpm_level *lv;
	struct lpm_slot *s;
	uint64_t hi, lo;

	if (plen > LPM_MAX_LEN)
		return -EINVAL;
	lv = level_get(t, plen);
	if (!lv)
		return -ENOMEM;
	key_split(prefix, &hi, &lo);
	hi &= lv->mask_hi;
	lo &= lv->mask_lo;
	s = level_probe(lv, hi, lo);
	if (s->used)
		return -EEXIST;
	if ((lv->count + 1) * 2 > lv->nslots) {
		if (level_grow(lv) < 0)
			return -ENOMEM;
		s = level_probe(lv, hi, lo);
	}
	s->hi = hi;
	s->lo = lo;
	s->value = value;
	s->used = true;
	lv->count++;
	return 0;
}

/* Value of the longest prefix covering addr, or NULL when none does. */
void *lpm_lookup(const struct lpm *t, const struct in6_addr *addr)
{
	uint64_t hi, lo;

	key_split(addr, &hi, &lo);
	for (unsigned i = 0; i < t->nlevels; i++) {
		const struct lpm_level *lv = &t->levels[i];
		const struct lpm_slot *s;

		s = level_probe(lv, hi & lv->mask_hi, lo & lv->mask_lo);
		if (s->used)
			return s->value;
	}
	return NULL;
}

/* Value stored for exactly prefix/plen (bits past plen ignored), or NULL. */
void *lpm_get(const struct lpm *t, const struct in6_addr *prefix,
	      unsigned plen)
{
	const struct lpm_level *lv = level_find(t, plen);
	const struct lpm_slot *s;
	uint64_t hi, lo;

	if (!lv)
		return NULL;
	key_split(prefix, &hi, &lo);
	s = level_probe(lv, hi & lv->mask_hi, lo & lv->mask_lo);
	return s->used ? s->value : NULL;
}
