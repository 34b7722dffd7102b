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
 */
#include <string.h>

#include "behavior.h"
#include "behavior_b6.h"
#include "headend.h"
#include "srh.h"
#include "srv6.h"

#define IP6_HLIM_OFF	7
#define IP6_DST_OFF	24

/* The SRH of p when it must be processed here (SL > 0, hop limit > 1,
 * S08-S09 valid); NULL otherwise, after handing p to End, which answers
 * exactly as RFC 8986 asks for a binding SID too (S02-S04 with 4.1.1,
 * S05-S07, S08-S11, RFC 8200 errors). */
static struct srh *b6_srh(struct proc_ctx *ctx, const struct sid *sid,
			  struct pkt *p)
{
	struct srh_error err;
	struct srh_info si;

	if (srh_find(p->data, p->len, &si, &err) == 0 && si.srh &&
	    si.srh->segments_left > 0 && p->data[IP6_HLIM_OFF] > 1 &&
	    srh_validate(si.srh))
		return si.srh;
	behavior_end(ctx, sid, p);
	return NULL;
}

/* Apply the SID's policy to p and count the result. */
static void b6_apply(struct proc_ctx *ctx, const struct sid *sid,
		     struct pkt *p)
{
	struct sid_stats *st = &ctx->sid_stats[sid->index];
	enum drop_reason why = DROP_FAMILY;

	if (sid->policy)
		why = headend_push(ctx->cfg, sid->policy, p);
	if (why != HEADEND_OK) {
		proc_drop(ctx, p, st, why);
		return;
	}
	p->verdict = PKT_NEW_BYTES;
	proc_count_ok(st, p);
}

/* RFC 8986 4.13 / 4.14: the policy's mode says reduced or not. */
static void b6_encaps(struct proc_ctx *ctx, const struct sid *sid,
		      struct pkt *p)
{
	struct srh *srh = b6_srh(ctx, sid, p);

	if (!srh)					/* S02-S11 */
		return;
	/* S12 (decrement Hop Limit): the kernel, on forwarding. */
	srh->segments_left--;				/* S13 */
	memcpy(p->data + IP6_DST_OFF,			/* S14 */
	       &srh->segments[srh->segments_left], sizeof(struct in6_addr));
	b6_apply(ctx, sid, p);				/* S15-S19 */
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
	if (!b6_srh(ctx, sid, p))
		return;
	b6_apply(ctx, sid, p);
}
