/* headend.h - SR policy headend behaviors: H.Encaps, H.Encaps.Red
 * (RFC 8986 5.1, 5.2) for IPv6 and IPv4 traffic, and H.Insert,
 * H.Insert.Red (Linux's "inline" mode; draft-filsfils-spring-srv6-net-pgm-
 * insertion, not in RFC 8986) for IPv6 traffic, pushed in place into the
 * packet's headroom. */
#ifndef SRV6D_HEADEND_H
#define SRV6D_HEADEND_H

#include <stdbool.h>

#include "ctx.h"
#include "egress.h"

/* An encapsulation decided before it is made (headend_prepare()). */
struct headend_plan {
	const struct policy *pol;
	const struct seglist *sl;	/* the list p's flow takes */
	struct sid_stats *st;		/* where p is counted */
	bool at_sid;		/* a binding SID's: not of the packet as
				 * queued */
	bool one_header;	/* a super-packet of TCP in one IP header
				 * (gso_vnet_can_carry()): what the kernel's
				 * seg6 takes whole */
	struct egress e;	/* the route to sl's first segment; e.route
				 * NULL: none in the mirror, the kernel
				 * decides */
};

/* Apply policy `pol` to packet p (steered by its destination): the
 * headend pipeline, headend_prepare() then headend_finish(), counted in
 * ctx->policy_stats[pol->index] (a binding SID's policy:
 * ctx->sid_stats[pol->index]).  Each of pol's 1..POLICY_MAX_LISTS
 * segment lists holds 1..SRV6_MAX_SEGS segments (the config guarantees
 * it).  On success p holds the new packet and p->verdict == PKT_NEW_BYTES;
 * otherwise p is answered (Packet Too Big, Fragmentation Needed) or
 * dropped with a counted reason (DROP_TOO_BIG, DROP_NO_SOURCE,
 * DROP_NO_HEADROOM, DROP_FAMILY, DROP_TRUNCATED, DROP_BAD_IP,
 * DROP_HMAC_UNKNOWN). */
void headend_apply(struct proc_ctx *ctx, const struct policy *pol,
		   struct pkt *p);

/* The outer source of the encapsulation plan makes (headend_prepare()
 * chose it): encap-source; else the one the kernel would give a packet
 * to the first segment leaving by the planned route (its preferred
 * source, else egress_source_select() on its link, through the worker's
 * cache); without the mirror cfg->encap_source.  Returns 0, or -1 when
 * the node has none. */
int headend_outer_source(struct proc_ctx *ctx,
			 const struct headend_plan *plan,
			 struct in6_addr *src);

/* The pipeline's first half, before p changes: pick the segment list of
 * pol that p's flow takes (the only one, or by the flow hash in
 * proportion to the weights: flowhash.h), route its first segment in the
 * mirror with that same hash (an ECMP route's next hop for the flow), and
 * answer p when it would leave bigger than the egress MTU (at_sid: p is
 * addressed to a binding SID of this node, which the error comes from).
 * Counts go to st.  Returns 0 with *plan filled, or -1 once p has been
 * answered. */
int headend_prepare(struct proc_ctx *ctx, const struct policy *pol,
		    struct pkt *p, struct sid_stats *st, bool at_sid,
		    struct headend_plan *plan);

/* The second half: choose the outer source (encap-source, else the
 * source the kernel would pick for the planned route, docs/design.md
 * "Source selection"; an insertion keeps p's own), push (or insert)
 * plan's headers, sign them once when pol has an HMAC key (hmac.h), and
 * count p once, as a success (PKT_NEW_BYTES) or a drop. */
void headend_finish(struct proc_ctx *ctx, const struct headend_plan *plan,
		    struct pkt *p);

/* The segment size (TCP payload bytes) a super-packet is cut into when
 * it leaves encapsulated (p->facts.gso_size, reinject.h): as large as what came
 * in on its in-interface (in_mtu minus the packet's own headers, hdr
 * bytes up to the end of TCP's: what the sender's TSO or the in-
 * interface's GRO was given), and no larger than what fits the egress
 * MTU out_mtu with the push bytes of the encapsulation in front.  An
 * in_mtu of 0 (not known) does not count; an out_mtu of 0 (not known)
 * counts as 1280, IPv6's minimum.  Returns 0 when not even one byte of
 * payload fits (the MTU check's Packet Too Big).  Pure. */
uint16_t headend_seg_size(uint32_t in_mtu, uint32_t out_mtu, uint32_t push,
			  uint32_t hdr);

/* The outer source the kernel's seg6 (`kernel-encap`) gives an
 * encapsulation whose first segment is `first`, into *src (the headend's
 * and the SR proxies' check that the kernel makes srv6d's bytes).
 * Returns 0, or -1 when it cannot be known (no mirror). */
int headend_kernel_source(const struct proc_ctx *ctx,
			  const struct in6_addr *first, struct in6_addr *src);

/* `kernel-encap` (src/io/kencap.h): why the kernel's seg6 route of list
 * sl in `mode` (with HMAC key hmac_keyid, 0 none) cannot make the
 * encapsulation from outer source src that srv6d made of a super-packet
 * (to_first: the inner destination is sl's first segment, which the
 * list's throw route keeps out), or KENCAP_FB__COUNT when it can: then
 * *mark is the route's, and a held worker's probe token is taken.  The
 * one check of the headend's encapsulations and of End.AS's way back
 * (behavior_proxy.c). */
enum kencap_fallback headend_kernel_check(const struct proc_ctx *ctx,
					 enum encap_mode mode,
					 uint32_t hmac_keyid,
					 const struct seglist *sl,
					 const struct in6_addr *src,
					 bool to_first, uint32_t *mark);

/* Whether the kernel's seg6 may make p's encapsulation under policy pol
 * from the original handed over by the verdict's mark: not while the
 * mark probe finds the marks lost (p->carrier_lost) for a policy of
 * several lists, whose catch (markguard.h) has its first list only, nor
 * for any policy while it finds them lost to a foreign mark
 * (p->carrier_foreign: the catch would count it and hold kernel-encap);
 * one list's original lost to mark 0 its catch encapsulates as the
 * kernel would.  The rule of headend_kernel_facts() and of the header
 * queues' kencap_from_headers(). */
static inline bool headend_kernel_by_mark(const struct pkt *p,
					  const struct policy *pol)
{
	return !p->carrier_lost ||
	       (pol->nlists == 1 && !p->carrier_foreign);
}

/* Bytes headend_apply() puts in front of (H.Encaps*) or into (H.Insert*) a
 * packet of family hw_proto (ETH_P_IPV6 / ETH_P_IP) under policy pol: the
 * most any of its lists adds, HMAC TLV included.  Returns 0 for a
 * combination that is dropped (an insertion into IPv4). */
uint32_t headend_push_len(const struct policy *pol, uint16_t hw_proto);

#endif
