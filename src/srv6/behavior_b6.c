/* behavior_b6.c - binding SIDs (RFC 8986 4.13, 4.14; Linux End.B6).
 *
 * The S-numbers are the lines of RFC 8986 4.13's pseudocode.
 *
 * What Linux does (net/ipv6/seg6_local.c, input_action_end_b6_encap and
 * input_action_end_b6) and srv6d does too, byte for byte:
 *
 *   End.B6.Encaps  Segments Left--, DA = Segment List[SL] in the received
 *                  SRH, then H.Encaps of that packet with the policy: the
 *                  outer header copies the inner traffic class, flow label
 *                  and hop limit (the inner one is not decremented: S12 is
 *                  left to the kernel's forwarding of the outer packet).
 *   End.B6         the policy's SRH inserted after the IPv6 header, with
 *                  the DA (this SID) as its Segment List[0]; the received
 *                  SRH is left as it is.
 *
 * Where Linux departs from the RFC, srv6d follows the RFC, as at End:
 * Segments Left 0 or no SRH gets the upper-layer processing of RFC 8986
 * 4.1.1 (Linux drops), hop limit <= 1 gets Time Exceeded (S05-S07) and a
 * bad SRH gets Parameter Problem (S08-S11).  Those cases are End's own
 * (behavior_end() answers them with this SID's counters).
 *
 * End.B6.Encaps.Red has no Linux counterpart: H.Encaps.Red of the policy.
 *
 * Each runs the headend's pipeline (headend.h) on the SID's policy: the
 * segment list (by the flow hash of the packet as received), the route
 * and the egress MTU are decided once, before S13-S14, so that a Packet
 * Too Big quotes the packet as it came and is sent from the SID; the
 * headers go on after.
 */
#include <string.h>

#include "behavior.h"
#include "behavior_b6.h"
#include "headend.h"
#include "ip.h"
#include "srh.h"
#include "srv6.h"

/* The SRH of p when it must be processed here (SL > 0, hop limit > 1,
 * S08-S09 valid); NULL otherwise, after handing p to End, which answers
 * exactly as RFC 8986 asks for a binding SID too (S02-S04 with 4.1.1,
 * S05-S07, S08-S11, RFC 8200 errors). */
static struct srh *b6_srh(struct proc_ctx *ctx, const struct sid *sid,
			  struct pkt *p)
{
	struct srh_error err;
	struct srh_info si;

	if (proc_srh_find(ctx, p, &si, &err) == 0 && si.srh &&
	    si.srh->segments_left > 0 && p->data[IP6_HLIM_OFF] > 1 &&
	    srh_validate(si.srh))
		return si.srh;
	behavior_end(ctx, sid, p);
	return NULL;
}

/* The headend pipeline's first half for the SID's policy (headend.h),
 * on p as received: the list its flow takes, the route, and the MTU the
 * encapsulation meets (S15), a Packet Too Big coming from the SID.
 * Returns 0 to go on, -1 once p has been answered. */
static int b6_prepare(struct proc_ctx *ctx, const struct sid *sid,
		      struct pkt *p, struct headend_plan *plan)
{
	struct sid_stats *st = &ctx->sid_stats[sid->index];

	if (!sid->policy) {
		proc_drop(ctx, p, st, DROP_FAMILY);
		return -1;
	}
	return headend_prepare(ctx, sid->policy, p, st, true, plan);
}

/* RFC 8986 4.13 / 4.14: the policy's mode says reduced or not. */
static void b6_encaps(struct proc_ctx *ctx, const struct sid *sid,
		      struct pkt *p)
{
	struct headend_plan plan;
	struct srh *srh = b6_srh(ctx, sid, p);

	if (!srh || b6_prepare(ctx, sid, p, &plan) < 0)	/* S02-S11 */
		return;
	/* S12 (decrement Hop Limit): the kernel, on forwarding. */
	pkt_chain_write(p);
	srh->segments_left--;				/* S13 */
	memcpy(p->data + IP6_DST_OFF,			/* S14 */
	       &srh->segments[srh->segments_left], sizeof(struct in6_addr));
	headend_finish(ctx, &plan, p);			/* S15-S19 */
}

void behavior_end_b6_encaps(struct proc_ctx *ctx, const struct sid *sid,
			    struct pkt *p)
{
	b6_encaps(ctx, sid, p);
}

void behavior_end_b6_encaps_red(struct proc_ctx *ctx, const struct sid *sid,
				struct pkt *p)
{
	b6_encaps(ctx, sid, p);
}

void behavior_end_b6(struct proc_ctx *ctx, const struct sid *sid,
		     struct pkt *p)
{
	struct headend_plan plan;

	if (!b6_srh(ctx, sid, p) || b6_prepare(ctx, sid, p, &plan) < 0)
		return;
	headend_finish(ctx, &plan, p);
}
