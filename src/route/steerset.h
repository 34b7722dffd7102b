/* steerset.h - the prefixes of the kernel's seg6 encap routes as the
 * elements of srv6d's nft interval sets (`kernel-routes yes` with
 * `steering auto`, steer.h).
 *
 * One set per family and routing table.  An interval set holds no two
 * overlapping intervals, and a packet is to be queued when its
 * destination is in any of the table's prefixes: so the elements are
 * the prefixes no other prefix of the same table covers (the "top"
 * ones); a prefix inside another costs no element.  The routes are
 * counted per prefix (several routes for one prefix: metrics, oifs).
 *
 * A change (steerset_apply()) takes the routes that came and went
 * (rtmirror_kroutes_take()), in any number, and returns the elements
 * to delete and to add, coalesced: only what differs between the sets
 * before and after, so one route's change is one or a few elements
 * whatever the table's size.  It costs a pass over the changed
 * tables' prefixes in srv6d.  Pure: no kernel.
 */
#ifndef SRV6D_STEERSET_H
#define SRV6D_STEERSET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtmirror.h"

/* One element: a prefix of one table's set. */
struct steerset_elem {
	uint8_t family;		/* AF_INET6, AF_INET */
	uint8_t plen;
	bool add;		/* in a delta: add (true) or delete */
	uint8_t pad;
	uint32_t table;
	uint8_t addr[16];	/* masked; 4 bytes for AF_INET */
};

struct steerset_delta {
	struct steerset_elem *e;	/* the deletions first, then the adds */
	size_t n, cap;
	bool tables_changed;	/* a table's set became empty or not */
};

struct steerset;

/* An empty one, NULL out of memory. */
struct steerset *steerset_new(void);

void steerset_free(struct steerset *s);

/* Applies the n route changes of list; the elements that change into
 * *d (emptied first).  A route that goes more often than it came is
 * ignored (counted in steerset_unbalanced()).  Returns 0, -1 out of
 * memory (s is then unchanged). */
int steerset_apply(struct steerset *s, const struct rtmirror_kroute *list,
		   size_t n, struct steerset_delta *d);

void steerset_delta_free(struct steerset_delta *d);

/* The tables with a non-empty set, per family: calls fn for each,
 * IPv6's first, each family's by table number. */
void steerset_tables(const struct steerset *s,
		     void (*fn)(int family, uint32_t table, void *arg),
		     void *arg);

/* Calls fn for every element of family/table's set (the top prefixes),
 * in order.  Returns the count. */
size_t steerset_elems(const struct steerset *s, int family, uint32_t table,
		      void (*fn)(const struct steerset_elem *e, void *arg),
		      void *arg);

/* Prefixes (routes counted once per prefix) and elements in all sets. */
size_t steerset_prefixes(const struct steerset *s);
size_t steerset_count(const struct steerset *s);

/* Route removals that found no route. */
uint64_t steerset_unbalanced(const struct steerset *s);

/* The interval an element stands for, as set elements: the first
 * address in from, the one after the last in to (*has_to false when the
 * prefix ends at the top of the address space: no end element).  alen
 * bytes (16 or 4). */
void steerset_interval(const struct steerset_elem *e, uint8_t *from,
		       uint8_t *to, bool *has_to);

#endif
