/* stats.h - per-worker counters and drop reasons.
 *
 * Every counter is written by exactly one worker (its own cache lines) and
 * summed only when the main thread answers a control request: no memory
 * that two workers write, no atomics on the packet path.
 */
#ifndef SRV6D_STATS_H
#define SRV6D_STATS_H

#include <stdint.h>

/* Why a packet was dropped.  Every drop on the packet path is one of these;
 * srv6ctl prints drop_reason_name(). Keep drop_reason_names[] in sync.
 * A packet answered with an ICMP error is a drop for its reason (sent or
 * rate-limited, the reason is counted), so that the drops of a worker, a
 * SID or a policy always add up to its dropped (errors). */
enum drop_reason {
	DROP_TRUNCATED,		/* shorter than the headers it claims */
	DROP_BAD_IP,		/* not IPv4/IPv6, bad version or length */
	DROP_BAD_SRH,		/* SRH fails RFC 8754 4.3.1 checks */
	DROP_BAD_TLV,		/* malformed SRH TLV */
	DROP_HOP_LIMIT,		/* hop limit <= 1 (Time Exceeded sent) */
	DROP_UPPER_LAYER,	/* upper-layer header not allowed at SID */
	DROP_EXT_HEADERS,	/* unsupported or too many extension headers */
	DROP_NO_HEADROOM,	/* push would exceed the slot's headroom */
	DROP_TOO_BIG,		/* result exceeds PKT_MAX_LEN or slot */
	DROP_FAMILY,		/* behavior got a family it cannot handle */
	DROP_REINJECT,		/* no way back into the kernel: a packet
				 * socket send failed, or the SID's
				 * device (or End.DX2's oif) is unknown */
	DROP_FRAGMENT,		/* fragmented packet at a SID */
	DROP_HMAC_MISSING,	/* hmac-require: SRH without HMAC TLV */
	DROP_HMAC_UNKNOWN,	/* HMAC Key ID not configured here */
	DROP_HMAC_WRONG,	/* HMAC (or its DA check) does not verify */
	DROP_SID_CHAIN,		/* more than 1 + PROC_SID_CHAIN_MAX local SIDs in a row */
	DROP_NO_ROUTE,		/* no route to the next hop or destination */
	DROP_NEXTHOP_UNREACHABLE,	/* next hop's link down or next hop dead */
	DROP_NO_TABLE,		/* End.T/End.DT*: the table does not exist */
	DROP_NO_SOURCE,		/* no encap-source and no address to pick */
	DROP_BAD_MESSAGE,	/* a queue message nfq.c could not parse
				 * (counted in bad_messages too) */
	DROP_GSO,		/* a super-packet result no way back carries
				 * whole or segmented (counted in
				 * gso_refused too) */
	DROP_BOUNCE_LOOP,	/* a header queue's packet cut short that
				 * needs its whole bytes came back bounced
				 * already: the steering rules queue bounced
				 * packets to a header queue again */
	DROP_GTPU_MALFORMED,	/* a GTP-U SID's UDP/GTP-U header is not
				 * one of TS 29.281 (version, Length,
				 * extension headers) */
	DROP_GTPU_MESSAGE,	/* a GTP-U message not carried over SRv6
				 * (not a G-PDU, Echo, Error Indication or
				 * End Marker; or under an HMAC or
				 * insertion policy: mobile.c) */
	DROP_PROXY_NO_CACHE,	/* End.AD: a packet back from the service
				 * before the SID learned any headers */
	DROP_PROXY_RETURN,	/* a packet back from an SR proxy's service
				 * that the SID cannot send on: not its
				 * inner type; End.AM: no SRH, SL 0 */
	DROP_PROXY_CACHE_SIZE,	/* End.AD: headers longer than its cache */
	DROP_OAM_RATELIMITED,	/* End.OP: over oam-rate, not punted
				 * (RFC 9259; counted in oam_ratelimited) */
	DROP_OAM_SEND,		/* End.OP: its punt to the oam-copy socket
				 * failed (counted in oam_send_errors) */
	DROP__COUNT
};

const char *drop_reason_name(enum drop_reason r);

/* Why an encapsulated super-packet did not go to the kernel's seg6
 * (`kernel-encap`, src/io/kencap.h) and was cut by srv6d instead. */
enum kencap_fallback {
	KENCAP_FB_OFF = 0,	/* kernel encapsulation off (srv6ctl status
				 * says why) */
	KENCAP_FB_UNLISTED,	/* no kernel route for its list and mode (a
				 * kernel route's policy, no mark left) */
	KENCAP_FB_HMAC,		/* its SRH has TLVs or flags (HMAC) */
	KENCAP_FB_SOURCE,	/* its outer source is not the kernel's */
	KENCAP_FB_FIRST_SEGMENT,	/* its inner destination is the first
					 * segment (the throw route's) */
	KENCAP_FB_SHAPE,	/* not an outer IPv6 around TCP */
	KENCAP_FB_HELD,		/* held back: packets for the policies reach
				 * routing without srv6d's mark (markguard.h) */
	KENCAP_FB__COUNT
};

const char *kencap_fallback_name(enum kencap_fallback r);

/* RFC 8986 section 6 counters, per SID (and per policy), per worker. */
struct sid_stats {
	uint64_t packets;	/* processed successfully */
	uint64_t bytes;
	uint64_t errors;	/* dropped or answered with an ICMP error:
				 * the sum of drops[] */
	uint64_t drops[DROP__COUNT];
	/* RFC 9259 2.1.1: O-flag packets at this SID with `oam-copy` on:
	 * copied, and not (over oam-rate, or the ring full: the worker's
	 * oam_ratelimited / oam_send_errors say which).  The packet itself
	 * is counted above as any other.  End.OP's punts are its packets. */
	uint64_t oam_copies;
	uint64_t oam_uncopied;
};

/* Per-worker totals. Aligned so two workers never share a line. */
struct worker_stats {
	uint64_t rx_packets;	/* messages with a packet received */
	uint64_t rx_bytes;
	uint64_t rx_batches;	/* recvmmsg calls returning > 0 */
	uint64_t verdicts;	/* verdicts sent */
	uint64_t verdict_batches;	/* sendmsg calls */
	/* Every packet received is counted in exactly one of accepted,
	 * forwarded, injected, dropped and bounced (reinject_count()). */
	uint64_t accepted;	/* NF_ACCEPT unchanged */
	uint64_t forwarded;	/* NF_ACCEPT with new payload */
	uint64_t dropped;	/* not forwarded, for one of drops[]: NF_DROP,
				 * or answered with an ICMP error, or handed
				 * to the kernel to be answered; the sum of
				 * drops[] */
	uint64_t unmatched;	/* no SID, no policy: accepted unchanged */
	uint64_t mark_probes;	/* of unmatched, srv6d's mark probes
				 * (markprobe.h), accepted with the probe
				 * mark */
	uint64_t injected;	/* results that re-entered the kernel other
				 * than as a verdict: sent by the packet
				 * socket (the reinjection device, a SID's
				 * veth device, End.DX2's oif) or
				 * the raw socket (srv6d's own ICMPv4
				 * errors) */
	uint64_t icmp_sent;	/* ICMP errors generated (about dropped
				 * packets) */
	uint64_t icmp_ratelimited;	/* ICMP errors owed, not generated:
					 * over icmp-rate (the packet is a
					 * drop for its own reason) */
	uint64_t icmp_send_errors;	/* ICMP errors generated that did not
					 * leave (TUN write or raw-socket send
					 * failed) */
	uint64_t enobufs;	/* ENOBUFS on the queue socket */
	uint64_t recv_errors;	/* other recv errors */
	uint64_t send_errors;	/* verdict sendmsg failures */
	uint64_t tx_full;	/* packets a frame of which the packet
				 * socket refused for want of room
				 * (EAGAIN: its send buffer; ENOBUFS: the
				 * device's queue or the backlog): of
				 * drops[DROP_REINJECT] */
	uint64_t nl_errors;	/* NLMSG_ERROR messages from the kernel */
	uint64_t bad_messages;	/* queue messages we could not parse */
	uint64_t rx_too_long;	/* of bad_messages: packets longer than the
				 * copy range (NFQA_CAP_LEN), never
				 * rewritten: dropped */
	uint64_t gso_packets;	/* super-packets received (`offload yes`) */
	uint64_t gso_refused;	/* of dropped: super-packet results no way
				 * back carries (drops[DROP_GSO],
				 * reinject_decide()) */
	uint64_t gso_vnet;	/* super-packet results sent whole behind a
				 * virtio_net_hdr (reinject.h) */
	uint64_t csum_completed;	/* partial checksums completed for a
					 * payload verdict or a frame sent
					 * into a device */
	uint64_t gso_segments;	/* segments cut from encapsulated super-
				 * packets and handed to the packet socket
				 * (reinject.h REINJECT_SEGMENT; the super-
				 * packet is one injected) */
	uint64_t kencap;	/* encapsulated super-packets handed to the
				 * kernel's seg6 whole (src/io/kencap.h):
				 * the original with the mark (of
				 * forwarded), or the inner packet (of
				 * injected, also in gso_vnet) */
	uint64_t kencap_fallback[KENCAP_FB__COUNT];	/* cut instead */
	uint64_t kend;		/* of forwarded: End, End.DT6, End.DX6 and
				 * End.DX4 results handed to the kernel's
				 * seg6local unchanged with their SID's
				 * mark (`kernel-end`, src/io/kend.h) */
	uint64_t hq_truncated;	/* header queue packets cut short by its
				 * copy range (`header-queue`) */
	uint64_t bounced;	/* of those, sent back to their hook with
				 * the bounce bit to be queued whole: the
				 * fifth of accepted, forwarded, injected,
				 * dropped (each comes again, counted again) */
	/* RFC 9259 OAM (src/srv6/oam.h): copies of O-flag packets and
	 * End.OP's punts to the oam-copy socket. */
	uint64_t oam_sent;	/* copies and punts that left */
	uint64_t oam_ratelimited;	/* copies and punts owed, not made:
					 * over oam-rate (an O-flag packet
					 * goes on all the same) */
	uint64_t oam_send_errors;	/* copies and punts made that the
					 * socket refused (an O-flag packet
					 * goes on all the same) */
	uint64_t drops[DROP__COUNT];
} __attribute__((aligned(64)));

/* What became of a packet received: reinject_count() counts each in
 * exactly one of these worker_stats fields, so that rx_packets is their
 * sum (worker_stats_outcomes()).  srv6ctl status has a column for each,
 * in this order; the metrics' outcome label takes their names. */
enum worker_outcome {
	WORKER_OUT_FORWARDED,
	WORKER_OUT_ACCEPTED,
	WORKER_OUT_INJECTED,
	WORKER_OUT_BOUNCED,
	WORKER_OUT_DROPPED,
	WORKER_OUT__COUNT
};

/* The outcome's name, that of its worker_stats field ("forwarded", ...),
 * or "unknown" out of range. */
const char *worker_outcome_name(enum worker_outcome o);

/* ws's count of outcome o (0 out of range). */
uint64_t worker_outcome_count(const struct worker_stats *ws,
			      enum worker_outcome o);

/* The sum of ws's outcomes: its rx_packets, for a reading at rest. */
uint64_t worker_stats_outcomes(const struct worker_stats *ws);

#endif
