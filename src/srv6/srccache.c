/* srccache.c - the worker's outer-source cache (srccache.h). */
#include <stdbool.h>
#include <string.h>

#include "egress.h"
#include "srccache.h"

/* The set of (dst, oif): its first entry's index.  Every byte of dst
 * counts (an operator's first segments often differ only in their
 * locator bits). */
static unsigned srccache_set(const struct in6_addr *dst, uint32_t oif)
{
	uint64_t hi, lo;

	memcpy(&hi, dst->s6_addr, sizeof(hi));
	memcpy(&lo, dst->s6_addr + 8, sizeof(lo));
	hi ^= (lo * 0x9e3779b97f4a7c15ull) ^ oif;
	hi ^= hi >> 33;			/* MurmurHash3's fmix64 */
	hi *= 0xff51afd7ed558ccdull;
	hi ^= hi >> 33;
	hi *= 0xc4ceb9fe1a85ec53ull;
	hi ^= hi >> 33;
	return (unsigned)(hi % (SRCCACHE_SIZE / SRCCACHE_WAYS)) *
	       SRCCACHE_WAYS;
}

static bool srccache_match(const struct srccache_entry *c,
			   const struct in6_addr *dst, uint32_t oif,
			   uint64_t version)
{
	return c->version == version && version && c->oif == oif &&
	       !memcmp(&c->dst, dst, sizeof(*dst));
}

int srccache_source(struct srccache *c, const struct rtmirror *m,
		    const struct in6_addr *dst, uint32_t oif,
		    struct in6_addr *src)
{
	uint64_t version = rtmirror_links_version(m);
	struct srccache_entry *set = &c->e[srccache_set(dst, oif)], hit;

	if (srccache_match(&set[0], dst, oif, version)) {
		*src = set[0].src;
		return 0;
	}
	/* Two ways, most recently used first: a hit in the second moves
	 * to the front, a miss pushes the first back. */
	if (srccache_match(&set[1], dst, oif, version)) {
		hit = set[1];
		*src = hit.src;
	} else if (egress_source_select(m, oif, dst, src) < 0) {
		return -1;
	} else {
		hit.dst = *dst;
		hit.src = *src;
		hit.oif = oif;
		hit.version = version;
	}
	set[1] = set[0];
	set[0] = hit;
	return 0;
}
