/* lpm.h - small longest-prefix-match table over 128-bit keys.
 *
 * Used for the config's SID and steering tables (hundreds to thousands of
 * entries): one open-addressing hash per distinct prefix length, probed
 * longest first.  Built once, then read-only: safe for any number of
 * concurrent readers.  IPv4 prefixes are stored as ::ffff:a.b.c.d/(96+len).
 */
#ifndef SRV6D_LPM_H
#define SRV6D_LPM_H

#include <netinet/in.h>
#include <stdint.h>

struct lpm;

/* Returns an empty table, or NULL on allocation failure. */
struct lpm *lpm_new(void);
void lpm_free(struct lpm *t);

/* Add prefix/plen -> value. Returns 0, -EEXIST if the exact prefix is
 * already present (value unchanged), -ENOMEM. */
int lpm_insert(struct lpm *t, const struct in6_addr *prefix, unsigned plen,
	       void *value);

/* Value of the longest prefix covering addr, or NULL. */
void *lpm_lookup(const struct lpm *t, const struct in6_addr *addr);

/* Value of the exact prefix, or NULL. */
void *lpm_get(const struct lpm *t, const struct in6_addr *prefix,
	      unsigned plen);

/* Map an IPv4 address into the table's key space. */
static inline void lpm_v4_key(struct in6_addr *key, struct in_addr a)
{
	static const uint8_t pfx[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };
	for (int i = 0; i < 12; i++)
		key->s6_addr[i] = pfx[i];
	__builtin_memcpy(&key->s6_addr[12], &a, 4);
}

#endif
