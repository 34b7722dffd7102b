/* behavior.h - the SRv6 endpoint behaviors of a local SID: End, End.X,
 * End.T (RFC 8986 4.1-4.3) with the PSP, USP and USD flavors (4.16) and
 * NEXT-C-SID (RFC 9800 4.1); the decapsulating End.DX6, End.DX4, End.DT6,
 * End.DT4, End.DT46 and End.DX2 (4.4-4.9, src/srv6/behavior_decap.c).
 *
 * Each leaves p->verdict set: PKT_NEW_BYTES with the rewritten packet (and,
 * for End.X / End.T, p->set_mark with the SID's mark, which the daemon's
 * ip rule turns into the adjacency or table), or a counted drop or ICMPv6
 * error.  Counters go to ctx->sid_stats[sid->index].  None of them
 * decrements the hop limit: the kernel does once it forwards the verdict.
 */
#ifndef SRV6D_BEHAVIOR_H
#define SRV6D_BEHAVIOR_H

#include "ctx.h"

/* The counters of SID `sid` in ctx (this worker's). */
static inline struct sid_stats *behavior_stats(struct proc_ctx *ctx,
					       const struct sid *sid)
{
	return &ctx->sid_stats[sid->index];
}

/* RFC 8986 4.1.1: the upper-layer header `nh` at offset off of a packet
 * for SID `sid` that the behavior does not process.  An ICMPv6 Echo
 * Request to the SID is answered in place (allowed by srv6d; an invalid
 * one is DROP_UPPER_LAYER); everything else gets Parameter Problem code 4
 * pointing at the header (S03-S04, DROP_UPPER_LAYER). */
void behavior_upper_layer(struct proc_ctx *ctx, const struct sid *sid,
			  struct pkt *p, uint8_t nh, uint32_t off);

/* The inner packet at offset off, of upper-layer type nh (41 IPv6, 4
 * IPv4, 143 Ethernet), before a decapsulation: it must be a whole IPv6
 * (Payload Length > 0) or IPv4 packet, or an Ethernet header; what
 * follows it is cut.  Of a header queue's packet cut short (p->truncated)
 * its header must be at hand and its length within the whole packet's.
 * Returns 0, or -1 with DROP_TRUNCATED or DROP_BAD_IP in *reason. */
int behavior_inner_check(struct pkt *p, uint32_t off, uint8_t nh,
			 enum drop_reason *reason);

/* The length an IPv6 or IPv4 header at in (len bytes at hand) gives its
 * packet; 0 when it is not at hand, or a jumbogram.  Pure. */
uint32_t behavior_inner_len(const uint8_t *in, uint32_t len);

/* The length of the outer headers at o (len bytes of a packet of
 * orig_len bytes) when they are what the kernel's seg6local
 * decapsulation of sid (End.DT6 `table`, End.DX6, End.DX4, no flavor)
 * takes as srv6d does: an IPv6 header whose length is orig_len, then
 * either sid's upper-layer header or an SRH with Segments Left 0, no TLV
 * (the kernel would check an HMAC it has no key for) and that header
 * next.  0 otherwise (another extension header, a TLV, SL > 0, another
 * behavior).  Pure. */
uint32_t behavior_decap_kernel_len(const struct sid *sid, const uint8_t *o,
				   uint32_t len, uint32_t orig_len);

/* RFC 8986 4.1-4.3: End, End.X (L3 cross-connect to sid->nh6, through
 * the mark) and End.T (lookup in sid->table, through the mark), which
 * differ only in S15: how the SID's row (behavior_table.h) routes. */
void behavior_end(struct proc_ctx *ctx, const struct sid *sid, struct pkt *p);

/* RFC 9433 6.2: End.MAP, the DA replaced by the mapped SID (sid->nh6),
 * the SRH (if any) untouched, routed by the main table. */
void behavior_end_map(struct proc_ctx *ctx, const struct sid *sid,
		      struct pkt *p);

/* A route check of SID `sid` failed with `why` (egress.h): ICMPv6
 * Destination Unreachable to p's source, code 3 (address unreachable) for
 * DROP_NEXTHOP_UNREACHABLE, code 0 (no route) for DROP_NO_ROUTE, counted
 * as `why`; DROP_NO_TABLE is a counted drop without an error (the
 * kernel's seg6local blackholes it too). */
void behavior_unreachable(struct proc_ctx *ctx, const struct sid *sid,
			  struct pkt *p, enum drop_reason why);

/* RFC 8986 4.4-4.9: decapsulation.  On success p holds the inner packet
 * (IPv6, IPv4, or for End.DX2 the Ethernet frame), PKT_NEW_BYTES, with
 * p->set_mark and the SID's mark: reinject.c sends IPv6 results as the
 * verdict (the mark selects nh6 or the table), IPv4 results through the
 * SID's device, Ethernet frames out of sid->oif.  Segments Left > 0 gets
 * ICMPv6 Parameter Problem code 0 (DROP_BAD_SRH); an upper-layer header
 * that is not the behavior's, code 4 (DROP_UPPER_LAYER), except an
 * ICMPv6 Echo Request, answered; a truncated inner packet is
 * DROP_TRUNCATED, a malformed one DROP_BAD_IP.  With the route mirror
 * (ctx->mirror): End.DX6/DX4's next hop must be reachable
 * (behavior_unreachable() otherwise); End.DT*'s table must exist
 * (DROP_NO_TABLE) and route the inner destination (else DROP_NO_ROUTE is
 * counted as an error of the SID and the result goes on, marked, to the
 * daemon's `unreachable` rule, which makes the kernel answer as its own
 * End.DT6 does).  The row's decap says which upper-layer header. */
void behavior_decap(struct proc_ctx *ctx, const struct sid *sid,
		    struct pkt *p);

#endif
