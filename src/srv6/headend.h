/* headend.h - SR policy headend behaviors: H.Encaps, H.Encaps.Red
 * (RFC 8986 5.1, 5.2) for IPv6 and IPv4 traffic, and H.Insert,
 * H.Insert.Red (Linux's "inline" mode; draft-filsfils-spring-srv6-net-pgm-
 * insertion, not in RFC 8986) for IPv6 traffic, pushed in place into the
 * packet's headroom. */
#ifndef SRV6D_HEADEND_H
#define SRV6D_HEADEND_H

#include "process.h"

/* headend_push() and helpers: no drop reason. */
#define HEADEND_OK	DROP__COUNT

/* Apply policy `pol` to packet p (steered by its destination); each of
 * pol's 1..POLICY_MAX_LISTS segment lists holds 1..SRV6_MAX_SEGS segments
 * (the config guarantees it), and the packet's flow picks one by weight
 * (flowhash.h).  With pol->hmac_keyid the SRH carries an HMAC TLV (hmac.h).
 * On success p holds the new packet and p->verdict == PKT_NEW_BYTES; otherwise
 * the packet is dropped with a counted reason (DROP_NO_HEADROOM,
 * DROP_TOO_BIG, DROP_FAMILY, DROP_TRUNCATED, DROP_BAD_IP,
 * DROP_HMAC_UNKNOWN).  The counters in ctx->policy_stats[pol->index] (a
 * binding SID's policy: ctx->sid_stats[pol->index]) are updated. */
void headend_apply(struct proc_ctx *ctx, const struct policy *pol,
		   struct pkt *p);

/* The headers of headend_apply() without its verdict and counters, for
 * the binding SIDs (behavior_b6.h): push (or insert) pol's headers for
 * the list p's flow picks.  Returns HEADEND_OK, or the drop reason with p
 * unchanged. */
enum drop_reason headend_push(const struct config *cfg,
			      const struct policy *pol, struct pkt *p);

/* The segment list of pol that p's flow takes (the only one, or by the
 * flow hash in proportion to the weights: flowhash.h).  Never fails. */
const struct seglist *headend_pick(const struct policy *pol,
				   const struct pkt *p);

/* Bytes headend_apply() puts in front of (H.Encaps*) or into (H.Insert*) a
 * packet of family hw_proto (ETH_P_IPV6 / ETH_P_IP) under policy pol, e.g.
 * to check a result against an MTU: the most any of its lists adds, HMAC
 * TLV included.  Returns 0 for a combination that is dropped (an
 * insertion into IPv4). */
uint32_t headend_push_len(const struct policy *pol, uint16_t hw_proto);

#endif
