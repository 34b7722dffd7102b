/* srccache.h - a worker's cache of the outer source an encapsulation gets
 * without encap-source (egress_source_select(): docs/design.md "Source
 * selection").
 *
 * Entries, in sets of SRCCACHE_WAYS picked by a hash of (dst, oif), least
 * recently used out: 1024 x 48 bytes = 48 KiB per worker, so that a
 * headend with many first segments misses rarely (a miss walks every
 * address of the node).  An entry is valid while the mirror's links keep
 * the version it was made under (rtmirror_links_version()).  Owned by one
 * worker: no lock.
 */
#ifndef SRV6D_SRCCACHE_H
#define SRV6D_SRCCACHE_H

#include <netinet/in.h>
#include <stdint.h>

#define SRCCACHE_SIZE	1024
#define SRCCACHE_WAYS	2

struct rtmirror;

/* The outer source picked for an encapsulation to `dst` leaving by link
 * `oif`, under links `version`. */
struct srccache_entry {
	struct in6_addr dst;
	struct in6_addr src;
	uint64_t version;	/* 0: empty */
	uint32_t oif;
};

struct srccache {
	struct srccache_entry e[SRCCACHE_SIZE];
};

/* The source the kernel would give a packet to dst leaving by link oif
 * (0: unknown), egress_source_select() in the mirror m through cache c.
 * Returns 0 with *src set, or -1 when the node has no candidate. */
int srccache_source(struct srccache *c, const struct rtmirror *m,
		    const struct in6_addr *dst, uint32_t oif,
		    struct in6_addr *src);

#endif
