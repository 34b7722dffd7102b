/* pkt_trace.h - what a worker decided for each packet, while a trace is
 * on (`srv6ctl trace`, `srv6ctl capture`): a record per packet in the
 * worker's own single-producer ring, which the control thread drains.
 *
 * Off, a trace costs a worker one load per batch (the ring's `on`) and
 * nothing per packet: no lock, no allocation, no log line.  On, it copies
 * the first PKT_TRACE_SNAP bytes of each packet as queued before
 * processing, and after the batch's verdicts writes the records the
 * filter keeps into the ring; when the ring is full the record is lost
 * and counted in `overflow`.  The rings are allocated with the engine.
 *
 * The control thread sets the filter only while the trace is off and no
 * worker is inside a batch (after a grace period: engine_trace_start()),
 * then sets `on` (a store-release): a worker that reads `on` true
 * (load-acquire) sees the filter whole.
 */
#ifndef SRV6D_PKT_TRACE_H
#define SRV6D_PKT_TRACE_H

#include <stdbool.h>
#include <stdint.h>

#include "stats.h"

#define PKT_TRACE_SNAP		256	/* bytes of each packet kept */
#define PKT_TRACE_RING		256	/* records per worker (a power of 2) */

/* What processed the packet (from p->st, src/common/pkt.h). */
enum pkt_trace_kind {
	PKT_TRACE_NONE = 0,	/* neither a SID nor a policy */
	PKT_TRACE_SID,		/* a SID of srv6d.conf or the kernel's */
	PKT_TRACE_POLICY,	/* a steering policy of srv6d.conf */
	PKT_TRACE_KPOLICY,	/* a kernel seg6 route's policy */
};

/* What a trace keeps (all of it: every packet, every SID). */
struct pkt_trace_filter {
	bool drops_only;	/* only the packets counted as dropped */
	enum pkt_trace_kind kind;	/* PKT_TRACE_SID or _POLICY: only
					 * that one's (prefix, plen, family);
					 * PKT_TRACE_NONE: any */
	int family;
	uint8_t prefix[16];
	uint8_t plen;
	uint32_t budget;	/* records a worker writes at most */
};

/* One packet: what srv6d decided, and its first bytes as queued. */
struct pkt_trace_record {
	uint64_t mono_ns;	/* its batch's CLOCK_MONOTONIC */
	uint32_t queue;
	uint32_t orig_len;	/* the packet's length as queued */
	uint16_t caplen;	/* bytes of it in data */
	uint8_t kind;		/* enum pkt_trace_kind */
	uint8_t family;		/* of prefix (AF_INET6, AF_INET) */
	uint8_t plen;
	uint8_t behavior;	/* a SID's enum behavior */
	uint8_t action;		/* enum reinject_action: the way back */
	uint8_t outcome;	/* enum worker_outcome */
	uint8_t reason;		/* enum drop_reason, when dropped */
	uint8_t verdict;	/* enum pkt_verdict */
	uint8_t pkt_outcome;	/* enum pkt_outcome: a drop answered with
				 * an ICMP error, or handed to the kernel */
	bool failed;		/* the way back failed (reason says why) */
	bool set_mark;		/* the verdict gave mark */
	uint32_t mark;
	uint32_t table;		/* a policy's table */
	uint8_t prefix[16];	/* the SID's or the policy's */
	uint8_t data[PKT_TRACE_SNAP];
};

/* A worker's ring.  `head`, `produced` and `overflow` are the worker's;
 * `tail` is the control thread's; `on` and `filter` are the control
 * thread's, read by the worker. */
struct pkt_trace_ring {
	bool on;
	struct pkt_trace_filter filter;
	uint64_t head __attribute__((aligned(64)));
	uint32_t produced;	/* records written in this trace */
	uint64_t overflow;	/* records lost: the ring was full */
	uint64_t tail __attribute__((aligned(64)));
	struct pkt_trace_record rec[PKT_TRACE_RING]
		__attribute__((aligned(64)));
};

/* A zeroed ring (off), or NULL when memory runs out. */
struct pkt_trace_ring *pkt_trace_ring_new(void);

/* The worker's side: the slot for the next record, or NULL (counted in
 * overflow) when the ring is full or the budget spent; then
 * pkt_trace_commit() publishes it. */
struct pkt_trace_record *pkt_trace_slot(struct pkt_trace_ring *r);
void pkt_trace_commit(struct pkt_trace_ring *r);

/* The control thread's side: copy at most max records into out, oldest
 * first, and free their slots.  Returns how many. */
unsigned pkt_trace_drain(struct pkt_trace_ring *r, struct pkt_trace_record *out,
			 unsigned max);

/* The control thread, with no worker writing (the trace off and a grace
 * period passed): empty r and give it filter f, produced and overflow
 * 0. */
void pkt_trace_reset(struct pkt_trace_ring *r, const struct pkt_trace_filter *f);

#endif
