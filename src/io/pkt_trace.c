/* pkt_trace.c - a worker's trace ring (pkt_trace.h): one producer (the
 * worker), one consumer (the control thread), head and tail on their own
 * cache lines. */
#include <stdlib.h>
#include <string.h>

#include <urcu/uatomic.h>
#include <urcu/system.h>

#include "pkt_trace.h"

struct pkt_trace_ring *pkt_trace_ring_new(void)
{
	struct pkt_trace_ring *r = aligned_alloc(64, sizeof(*r));

	if (r)
		memset(r, 0, sizeof(*r));
	return r;
}

struct pkt_trace_record *pkt_trace_slot(struct pkt_trace_ring *r)
{
	uint64_t tail = CMM_LOAD_SHARED(r->tail);

	cmm_smp_mb();	/* the consumer is done with the slot it freed */
	if (r->produced >= r->filter.budget)
		return NULL;
	if (r->head - tail >= PKT_TRACE_RING) {
		CMM_STORE_SHARED(r->overflow, r->overflow + 1);
		return NULL;
	}
	return &r->rec[r->head & (PKT_TRACE_RING - 1)];
}

void pkt_trace_commit(struct pkt_trace_ring *r)
{
	r->produced++;
	cmm_smp_wmb();	/* the record before the head that shows it */
	CMM_STORE_SHARED(r->head, r->head + 1);
}

unsigned pkt_trace_drain(struct pkt_trace_ring *r, struct pkt_trace_record *out,
			 unsigned max)
{
	uint64_t head = CMM_LOAD_SHARED(r->head), tail = r->tail;
	unsigned n = 0;

	cmm_smp_rmb();	/* the records the head shows */
	while (tail != head && n < max) {
		out[n++] = r->rec[tail & (PKT_TRACE_RING - 1)];
		tail++;
	}
	cmm_smp_mb();	/* read before the slots are given back */
	CMM_STORE_SHARED(r->tail, tail);
	return n;
}

void pkt_trace_reset(struct pkt_trace_ring *r, const struct pkt_trace_filter *f)
{
	r->filter = *f;
	r->produced = 0;
	r->overflow = 0;
	r->tail = r->head;
}
