/* kpolicy.c - the kernel seg6 encap routes' policies and their per-worker
 * counters (kpolicy.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <urcu-qsbr.h>

#include "kpolicy.h"

struct kpolicy_db *kpolicy_db_new(unsigned nworkers)
{
	struct kpolicy_db *db;

	if (nworkers == 0 || nworkers > SRV6_MAX_QUEUES)
		return NULL;
	db = calloc(1, sizeof(*db));
	if (db)
		db->nworkers = nworkers;
	return db;
}

static size_t stats_chunk_bytes(const struct kpolicy_db *db)
{
	return (size_t)db->nworkers * KPOLICY_CHUNK * sizeof(struct sid_stats);
}

static void list_free(struct kpolicy *kp)
{
	while (kp) {
		struct kpolicy *next = kp->next;

		free(kp);
		kp = next;
	}
}

void kpolicy_db_free(struct kpolicy_db *db)
{
	if (!db)
		return;
	for (uint32_t c = 0; c < KPOLICY_CHUNKS && db->slots[c]; c++) {
		for (uint32_t i = 0; i < KPOLICY_CHUNK; i++)
			free(db->slots[c][i]);
		free(db->slots[c]);
		munmap(db->stats[c], stats_chunk_bytes(db));
	}
	list_free(db->dying);
	free(db->free_slots);
	free(db);
}

/* The slot table and counters of chunk c, made once.  Returns 0 or
 * -ENOMEM. */
static int chunk_make(struct kpolicy_db *db, uint32_t c)
{
	struct kpolicy **slots;
	void *st;

	if (db->slots[c])
		return 0;
	slots = calloc(KPOLICY_CHUNK, sizeof(*slots));
	if (!slots)
		return -ENOMEM;
	/* zero pages until a packet counts: no memory for idle slots */
	st = mmap(NULL, stats_chunk_bytes(db), PROT_READ | PROT_WRITE,
		  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (st == MAP_FAILED) {
		free(slots);
		return -ENOMEM;
	}
	rcu_assign_pointer(db->stats[c], (struct sid_stats *)st);
	rcu_assign_pointer(db->slots[c], slots);
	db->bytes += KPOLICY_CHUNK * sizeof(*slots);
	return 0;
}

/* A free slot, or UINT32_MAX. */
static uint32_t slot_take(struct kpolicy_db *db)
{
	uint32_t s;

	if (db->nfree)
		return db->free_slots[--db->nfree];
	s = db->nslots;
	if (s >= KPOLICY_CHUNKS * KPOLICY_CHUNK ||
	    chunk_make(db, s >> KPOLICY_CHUNK_BITS) < 0)
		return UINT32_MAX;
	CMM_STORE_SHARED(db->nslots, s + 1);
	return s;
}

/* Zero slot's counters in every worker, touching only those that are
 * not zero already (an untouched page stays unmapped). */
static void slot_zero(struct kpolicy_db *db, uint32_t slot)
{
	static const struct sid_stats zero;

	for (unsigned w = 0; w < db->nworkers; w++) {
		struct sid_stats *st = kpolicy_stats(db, w, slot);

		if (memcmp(st, &zero, sizeof(zero)))
			memset(st, 0, sizeof(*st));
	}
}

/* Give slot back (its policy freed: no reader holds it). */
static void slot_give(struct kpolicy_db *db, uint32_t slot)
{
	if (db->nfree == db->free_cap) {
		size_t cap = db->free_cap ? db->free_cap * 2 : 1024;
		uint32_t *n = realloc(db->free_slots, cap * sizeof(*n));

		if (!n)
			return;		/* lost: the slot is not reused */
		db->free_slots = n;
		db->free_cap = cap;
	}
	slot_zero(db, slot);
	db->free_slots[db->nfree++] = slot;
}

/* The bytes a policy of pol's lists takes: whole lists but the last,
 * cut to its segments. */
static size_t kpolicy_size(const struct policy *pol)
{
	unsigned n = pol->nlists ? pol->nlists : 1;
	const struct seglist *last = &pol->lists[n - 1];

	return offsetof(struct kpolicy, pol.lists) +
	       (n - 1) * sizeof(struct seglist) +
	       offsetof(struct seglist, segs) +
	       last->nsegs * sizeof(last->segs[0]);
}

struct kpolicy *kpolicy_new(struct kpolicy_db *db, const struct policy *pol)
{
	size_t size = kpolicy_size(pol);
	struct kpolicy *kp = malloc(size);
	uint32_t slot;

	if (!kp)
		return NULL;
	slot = slot_take(db);
	if (slot == UINT32_MAX) {
		free(kp);
		return NULL;
	}
	kp->refcnt = 1;
	kp->next = NULL;
	memcpy(&kp->pol, pol, size - offsetof(struct kpolicy, pol));
	if (!kp->pol.nlists)
		kp->pol.nlists = 1;
	kp->pol.binding = false;
	kp->pol.index = slot;
	kp->pol.line = 0;
	db->live++;
	db->bytes += size;
	rcu_assign_pointer(db->slots[slot >> KPOLICY_CHUNK_BITS]
				    [slot & (KPOLICY_CHUNK - 1)], kp);
	return kp;
}

void kpolicy_hold(struct kpolicy *kp)
{
	if (kp)
		kp->refcnt++;
}

void kpolicy_put(struct kpolicy_db *db, struct kpolicy *kp)
{
	uint32_t s;

	if (!kp || --kp->refcnt)
		return;
	s = kp->pol.index;
	rcu_assign_pointer(db->slots[s >> KPOLICY_CHUNK_BITS]
				    [s & (KPOLICY_CHUNK - 1)], NULL);
	db->live--;
	db->bytes -= kpolicy_size(&kp->pol);
	kp->next = db->dying;
	db->dying = kp;
}

bool kpolicy_equal(const struct kpolicy *a, const struct kpolicy *b)
{
	return kpolicy_is(a, &b->pol);
}

bool kpolicy_is(const struct kpolicy *a, const struct policy *q)
{
	const struct policy *p = &a->pol;
	unsigned nq = q->nlists ? q->nlists : 1;

	if (p->family != q->family || p->plen != q->plen ||
	    p->mode != q->mode || p->nlists != nq ||
	    p->hmac_keyid != q->hmac_keyid || p->table != q->table ||
	    p->ktable != q->ktable ||
	    memcmp(&p->prefix, &q->prefix, sizeof(p->prefix)) ||
	    memcmp(p->weights, q->weights, p->nlists * sizeof(p->weights[0])))
		return false;
	for (unsigned i = 0; i < p->nlists; i++)
		if (p->lists[i].nsegs != q->lists[i].nsegs ||
		    memcmp(p->lists[i].segs, q->lists[i].segs,
			   p->lists[i].nsegs * sizeof(p->lists[i].segs[0])))
			return false;
	return true;
}

size_t kpolicy_reclaim(struct kpolicy_db *db)
{
	size_t n = 0;

	if (!db->dying)
		return 0;
	/* Out of the routes a grace period ago (fib_reclaim()), out of
	 * their slots now: once more, for a reader that found one in its
	 * slot before it left. */
	synchronize_rcu();
	for (struct kpolicy *kp = db->dying, *next; kp; kp = next) {
		next = kp->next;
		slot_give(db, kp->pol.index);
		free(kp);
		n++;
	}
	db->dying = NULL;
	return n;
}

size_t kpolicy_memory(const struct kpolicy_db *db)
{
	return db->bytes + db->free_cap * sizeof(uint32_t);
}

size_t kpolicy_count(const struct kpolicy_db *db)
{
	return CMM_LOAD_SHARED(db->live);
}

uint32_t kpolicy_nslots(const struct kpolicy_db *db)
{
	return CMM_LOAD_SHARED(db->nslots);
}

const struct kpolicy *kpolicy_at(const struct kpolicy_db *db, uint32_t slot)
{
	struct kpolicy **c;

	if (slot >= kpolicy_nslots(db))
		return NULL;
	c = rcu_dereference(((struct kpolicy_db *)db)->slots[slot >>
							     KPOLICY_CHUNK_BITS]);
	return c ? rcu_dereference(c[slot & (KPOLICY_CHUNK - 1)]) : NULL;
}

void kpolicy_stats_sum(const struct kpolicy_db *db, uint32_t slot,
		       struct sid_stats *out)
{
	memset(out, 0, sizeof(*out));
	for (unsigned w = 0; w < db->nworkers; w++) {
		const struct sid_stats *st = kpolicy_stats(db, w, slot);

		out->packets += CMM_LOAD_SHARED(st->packets);
		out->bytes += CMM_LOAD_SHARED(st->bytes);
		out->errors += CMM_LOAD_SHARED(st->errors);
		for (unsigned r = 0; r < DROP__COUNT; r++)
			out->drops[r] += CMM_LOAD_SHARED(st->drops[r]);
	}
}
