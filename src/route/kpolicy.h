/* kpolicy.h - the steering policies of the kernel's seg6 encap routes
 * (`kernel-routes yes`), each attached to its route in the route mirror's
 * FIB (fib.h: struct fib_route's encap) instead of merged into the config.
 *
 * A struct kpolicy is a struct policy allocated with its segment lists
 * only (the last one cut to its segments, config.h), built by the mirror
 * thread when it parses the route (seg6route.c), published and reclaimed
 * with the route: one route's change costs that route, at any table size.
 *
 * Counters: each kernel policy has a slot; each worker has a struct
 * sid_stats per slot in its own pages (mmap'ed, so a slot no packet ever
 * hit costs no memory), written by that worker only and summed by the
 * control thread (kpolicy_stats_sum()).
 *
 * Concurrency: one writer (the mirror thread) creates, holds and puts
 * policies; readers (QSBR: the workers, the control thread) use what they
 * find until their next quiescent state.  A policy whose last route is
 * gone (a grace period after its last route left the FIB) leaves its
 * slot, and is freed a grace period after that (kpolicy_reclaim()), so
 * that a reader that found it through the slot table is done with it.
 */
#ifndef SRV6D_KPOLICY_H
#define SRV6D_KPOLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "stats.h"

#define KPOLICY_CHUNK_BITS	12
#define KPOLICY_CHUNK		(1u << KPOLICY_CHUNK_BITS)	/* slots */
#define KPOLICY_CHUNKS		4096u	/* at most 16M kernel policies */

struct kpolicy {
	/* writer only */
	uint32_t refcnt;	/* routes holding it (+ its builder's) */
	struct kpolicy *next;	/* on the reclaim lists */
	/* pol.index is the slot, pol.ktable and pol.table the route's
	 * table, pol.line 0.  Last: cut to its segments. */
	struct policy pol;
};

struct kpolicy_db;

/* A db for nworkers workers (1..SRV6_MAX_QUEUES), or NULL. */
struct kpolicy_db *kpolicy_db_new(unsigned nworkers);

/* Free the db and every policy in it.  No reader may still use it. */
void kpolicy_db_free(struct kpolicy_db *db);

/* ---- writer side ---- */

/* A new policy from pol (pol->nlists lists, as seg6route_parse() fills
 * it), with a slot whose counters are zero, held once.  Returns NULL when
 * memory or slots run out. */
struct kpolicy *kpolicy_new(struct kpolicy_db *db, const struct policy *pol);

/* One more holder of kp (NULL is ignored). */
void kpolicy_hold(struct kpolicy *kp);

/* One holder less; the last one takes it out of its slot and queues it
 * for kpolicy_reclaim() (NULL is ignored). */
void kpolicy_put(struct kpolicy_db *db, struct kpolicy *kp);

/* True if a and b steer the same way (prefix, table, mode, lists,
 * weights, HMAC key). */
bool kpolicy_equal(const struct kpolicy *a, const struct kpolicy *b);

/* The same for a and a parsed policy q (seg6route_parse()'s): the route
 * again needs no new object. */
bool kpolicy_is(const struct kpolicy *a, const struct policy *q);

/* Free what kpolicy_put() queued, after a grace period (synchronize_rcu: the caller must not be an online reader).
 * Returns how many were freed. */
size_t kpolicy_reclaim(struct kpolicy_db *db);

/* Bytes the policies and their slot table hold (not the counters). */
size_t kpolicy_memory(const struct kpolicy_db *db);

/* ---- reader side (QSBR readers) ---- */

/* Live policies (held by a route). */
size_t kpolicy_count(const struct kpolicy_db *db);

/* One past the highest slot ever used: the bound of kpolicy_at(). */
uint32_t kpolicy_nslots(const struct kpolicy_db *db);

/* The live policy in slot, or NULL. */
const struct kpolicy *kpolicy_at(const struct kpolicy_db *db, uint32_t slot);

/* Worker w's counters of the policy in slot (the packet path's). */
static inline struct sid_stats *kpolicy_stats(const struct kpolicy_db *db,
					      unsigned w, uint32_t slot);

/* The sum over the workers of slot's counters into out. */
void kpolicy_stats_sum(const struct kpolicy_db *db, uint32_t slot,
		       struct sid_stats *out);

/* The worker's view of the counters (for kpolicy_stats()). */
struct kpolicy_db {
	unsigned nworkers;
	uint32_t nslots;		/* high-water mark */
	size_t live;
	/* slots[c][i]: the policy of slot c * KPOLICY_CHUNK + i (RCU) */
	struct kpolicy **slots[KPOLICY_CHUNKS];
	/* stats[c]: nworkers runs of KPOLICY_CHUNK counters, worker w's
	 * at w * KPOLICY_CHUNK (mmap'ed) */
	struct sid_stats *stats[KPOLICY_CHUNKS];
	/* writer only */
	uint32_t *free_slots;
	size_t nfree, free_cap;
	struct kpolicy *dying;		/* out of their slots, to be freed */
	size_t bytes;
};

static inline struct sid_stats *kpolicy_stats(const struct kpolicy_db *db,
					      unsigned w, uint32_t slot)
{
	struct sid_stats *c = db->stats[slot >> KPOLICY_CHUNK_BITS];

	return &c[(size_t)w * KPOLICY_CHUNK + (slot & (KPOLICY_CHUNK - 1))];
}

#endif
