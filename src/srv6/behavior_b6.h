/* behavior_b6.h - binding SIDs: End.B6.Encaps and End.B6.Encaps.Red
 * (RFC 8986 4.13, 4.14) and End.B6 (Linux seg6local End.B6: the policy's
 * SRH inserted in front of the received one).
 *
 * The SID's policy (sid->policy: one or more weighted segment lists, an
 * optional HMAC key) is applied with the headend's own code (headend.h).
 * Each leaves p->verdict set: PKT_NEW_BYTES with the new packet, routed by
 * the kernel to the policy's first segment, or a counted drop or ICMPv6
 * error.  Counters go to ctx->sid_stats[sid->index].  None of them
 * decrements a hop limit: the kernel decrements the outer one once when
 * it forwards the verdict, as after its own seg6local End.B6*.
 */
#ifndef SRV6D_BEHAVIOR_B6_H
#define SRV6D_BEHAVIOR_B6_H

#include "ctx.h"

/* RFC 8986 4.13: End.B6.Encaps. */
void behavior_end_b6_encaps(struct proc_ctx *ctx, const struct sid *sid,
			    struct pkt *p);

/* RFC 8986 4.14: End.B6.Encaps.Red. */
void behavior_end_b6_encaps_red(struct proc_ctx *ctx, const struct sid *sid,
				struct pkt *p);

/* Linux End.B6 (draft-filsfils-spring-srv6-net-pgm-insertion End.B6.Insert
 * as Linux implements it: Segments Left is not decremented and the SID
 * itself becomes Segment List[0] of the inserted SRH). */
void behavior_end_b6(struct proc_ctx *ctx, const struct sid *sid,
		     struct pkt *p);

#endif
