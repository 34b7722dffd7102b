/* icmp.h - ICMPv6 (RFC 4443) and ICMP (RFC 792) errors built in place.
 *
 * The error's headers are pushed into the slot's headroom in front of the
 * invoking packet, which is cut so the error fits in 1280 bytes (576 for
 * ICMP).  The error goes to the invoking packet's source with hop limit /
 * TTL 64, from an address of this node (RFC 4443 2.2, RFC 1812 4.3.2.4):
 * at a SID the invoking packet's destination (the SID itself); at a
 * headend, whose steered packet is addressed to a remote host, the
 * address the caller picked (egress_icmp6_source() /
 * egress_icmp4_source()).  A per-worker token bucket (cfg->icmp_rate per
 * second, cfg->icmp_burst) limits them (RFC 4443 2.4(f)).
 */
#ifndef SRV6D_ICMP_H
#define SRV6D_ICMP_H

#include <netinet/in.h>
#include <stdint.h>

#include "ctx.h"

/* ICMPv6 types and codes used by srv6d (RFC 4443, RFC 8754 4.4). */
#define ICMP6_T_DST_UNREACH	1
#define ICMP6_T_PKT_TOO_BIG	2
#define ICMP6_T_TIME_EXCEEDED	3
#define ICMP6_T_PARAM_PROB	4
#define ICMP6_T_ECHO_REQUEST	128
#define ICMP6_T_ECHO_REPLY	129
#define ICMP6_C_HOP_LIMIT	0	/* Time Exceeded in transit */
#define ICMP6_C_HDR_FIELD	0	/* Erroneous header field */
#define ICMP6_C_SR_UPPER_LAYER	4	/* SR Upper-layer Header Error */

/* ICMP (IPv4) types and codes used by srv6d (RFC 792, RFC 1191). */
#define ICMP4_T_DST_UNREACH	3
#define ICMP4_C_FRAG_NEEDED	4

/* Largest ICMPv6 / ICMP error (RFC 4443 2.4(c), RFC 1812 4.3.2.3). */
#define ICMP6_ERROR_MAX		1280
#define ICMP4_ERROR_MAX		576

/* Turn the IPv6 packet p, addressed to this node (a SID), into an ICMPv6
 * error of `type`/`code` to its source, from its destination; `param` is
 * the 32-bit field after the checksum (the Pointer of a Parameter
 * Problem, the MTU of a Packet Too Big, 0 otherwise).  On success
 * p->verdict = PKT_NEW_BYTES, outcome PKT_OUT_ICMP, ctx->stats->icmp_sent
 * is counted and the packet counts as a drop for `reason` (and in st,
 * when not NULL, as an error).  Otherwise a counted drop: `reason` when
 * no error may be sent (the invoking packet is an ICMPv6 error, or its
 * source is unspecified or multicast, or its destination multicast: RFC
 * 4443 2.4(e)) and over the rate (counted apart too, icmp_ratelimited),
 * DROP_NO_HEADROOM. */
void icmp6_error(struct proc_ctx *ctx, struct pkt *p, uint8_t type,
		 uint8_t code, uint32_t param, struct sid_stats *st,
		 enum drop_reason reason);

/* icmp6_error() from `from`, an address of this node, for a packet that
 * is not addressed to it (at a headend).  from NULL: icmp6_error(). */
void icmp6_error_from(struct proc_ctx *ctx, struct pkt *p,
		      const struct in6_addr *from, uint8_t type, uint8_t code,
		      uint32_t param, struct sid_stats *st,
		      enum drop_reason reason);

/* The same for an IPv4 packet p (RFC 792), from `from`, an address of
 * this node: `param` is the 32-bit field after the checksum, host order
 * (the next-hop MTU for Fragmentation Needed, pointer << 24 for a
 * Parameter Problem).  No error is sent about an ICMP error, a non-first
 * fragment, or from/to a multicast, broadcast or zero address (RFC 1812
 * 4.3.2.7): counted drop for `reason`.  A built error has p->local_out
 * set: it leaves by the worker's raw socket (reinject.h). */
void icmp4_error(struct proc_ctx *ctx, struct pkt *p,
		 const struct in_addr *from, uint8_t type, uint8_t code,
		 uint32_t param, struct sid_stats *st, enum drop_reason reason);

/* Answer the ICMPv6 Echo Request at offset icmp_off of the IPv6 packet p
 * in place (RFC 4443 4.2): the reply has a fresh IPv6 header (source: the
 * request's destination, hop limit 64) and no extension headers.
 * Returns 0 with p->verdict = PKT_NEW_BYTES; -1 when p is not a valid echo
 * request (truncated, bad checksum, unspecified or multicast source), p
 * untouched: the caller drops it. */
int icmp6_echo_reply(struct proc_ctx *ctx, struct pkt *p, uint32_t icmp_off);

/* Take one token from the worker's ICMP bucket at ctx->now_ns.  Returns 1
 * if an error may be sent, 0 if over the rate or the rate is 0 (no
 * errors at all, whatever icmp-burst says). */
int icmp_ratelimit_take(struct proc_ctx *ctx);

#endif
