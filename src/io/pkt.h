/* pkt.h - a queued packet in its preallocated buffer, with headroom.
 *
 * The worker receives each NFQUEUE message into a slot of its buffer pool.
 * The packet bytes (the L3 header onwards) start at `data`; everything
 * between `head` and `data` is free headroom that a behavior may claim with
 * pkt_push() to prepend headers in place: no malloc and no copy of the
 * packet.  Only headers move, and only where a behavior removes or inserts
 * one inside the packet (srh_pop() for PSP/USP, headend_insert() for
 * H.Insert: docs/design.md "Where bytes are moved or copied").  `end` is the end of the
 * slot (tailroom for trailers).
 */
#ifndef SRV6D_PKT_H
#define SRV6D_PKT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "stats.h"

struct sid;

/* What the worker does with the packet once processing is over. */
enum pkt_verdict {
	PKT_ACCEPT = 0,	/* give the original back unchanged (NF_ACCEPT) */
	PKT_NEW_BYTES,	/* give back the new bytes data[0..len) (+ mark) */
	PKT_DROP,	/* NF_DROP; the reason has been counted */
	PKT_REPEAT,	/* NF_REPEAT with out_mark: a header queue's packet
			 * cut short that needs its whole bytes, sent back to
			 * its hook for the steering rules to queue it whole
			 * (the bounce, kend.h) */
};

/* What became of the packet, for the counters (stats.h): set with the
 * verdict by processing, reset for each SID of a SID chain, and read once
 * by reinject_packet(), which counts the packet in exactly one of
 * accepted, forwarded, injected and dropped. */
enum pkt_outcome {
	PKT_OUT_NONE = 0,	/* no SID or policy processed it */
	PKT_OUT_OK,		/* a success of the SID or policy p->st */
	PKT_OUT_DROP,		/* dropped for p->reason */
	PKT_OUT_ICMP,		/* dropped for p->reason; an ICMP error to
				 * its source replaces it */
	PKT_OUT_HANDOFF,	/* dropped for p->reason, handed to the
				 * kernel to answer (End.DT* without a
				 * route: its `unreachable` rule) */
};

struct pkt {
	uint8_t *head;		/* start of the slot */
	uint8_t *data;		/* first byte of the packet (IP header) */
	uint8_t *end;		/* end of the slot */
	uint32_t len;		/* bytes of packet at data */
	uint32_t orig_len;	/* length as queued (for byte counters) */
	uint32_t queued_len;	/* of it, the bytes queued to us: orig_len,
				 * fewer when truncated (below) */
	/* The packet path's SRH parse (proc_srh_find(), src/srv6/ctx.h) is
	 * of these headers; pkt_push(), pkt_pull() and pkt_trim() clear
	 * it, srv6_process() too before it starts. */
	bool srh_parsed;
	/* The IP header chain (the IPv6 header and its extension headers,
	 * the first Next Header; the IPv4 header and its options) is the
	 * one queued but for addresses, hop limit / TTL, traffic class and
	 * flow label: what Linux 7.2 lets a verdict's payload change
	 * (reinject.h).  The worker sets it before processing; pkt_push(),
	 * pkt_pull(), pkt_trim() and pkt_chain_write() clear it. */
	bool chain_kept;

	/* From the NFQUEUE message. */
	uint32_t id;		/* NFQA_PACKET_HDR packet_id (host order) */
	uint16_t hw_proto;	/* ETH_P_IP or ETH_P_IPV6 (host order) */
	uint8_t hook;
	uint32_t mark;		/* NFQA_MARK, 0 when absent */
	uint32_t indev;		/* NFQA_IFINDEX_INDEV, 0 when absent */
	/* From the worker's header queue (`header-queue`): its verdict goes
	 * there (nfq.h). */
	bool from_hqueue;
	/* Cut short by the header queue's copy range: data[0..len) are the
	 * first bytes, orig_len the whole packet's length.  Its bytes are
	 * never given back: only the original, unchanged or with the mark of
	 * a kernel route that redoes its result (kend.h, kencap.h), a bounce,
	 * a drop, or an ICMP error built from those first bytes. */
	bool truncated;
	/* NFQA_SKB_INFO, on a queue bound with `gso yes` (NFQA_CFG_F_GSO);
	 * all false otherwise (the kernel segments and completes checksums
	 * before queueing).  src/srv6/gso.h handles such packets. */
	bool gso;		/* a GSO/GRO super-packet (NFQA_SKB_GSO) */
	bool csum_partial;	/* CHECKSUM_PARTIAL: the TCP/UDP checksum
				 * field holds only the pseudo-header sum
				 * (NFQA_SKB_CSUMNOTREADY) */
	bool csum_unverified;	/* no one checked its checksum yet
				 * (NFQA_SKB_CSUM_NOTVERIFIED) */
	uint16_t gso_size;	/* payload bytes per segment, 0 when unknown
				 * (NFQUEUE never says): what srv6d chose
				 * for a super-packet it encapsulates
				 * (headend_seg_size()) */
	uint16_t gso_l4_off;	/* of a super-packet, where its TCP header
				 * was when queued (gso_parse()) */
	/* gso_size is what the in-interface's MTU leaves (the headend did
	 * not make it smaller for the way out): the sender's segments, with
	 * the headers pushed, fit the egress too (headend_gso_check()). */
	bool gso_size_in;
	/* An ICMP error built in place of a super-packet (icmp.c): the
	 * queued skb keeps its GSO state under a verdict's payload
	 * (nfqnl_mangle() trims and overwrites, nothing more), so such an
	 * error, as a payload, is lost on its way; it leaves by the
	 * reinjection device instead (reinject_decide()). */
	bool icmp_of_gso;

	/* Set by processing. */
	enum pkt_verdict verdict;
	bool set_mark;		/* give `out_mark` with the verdict */
	uint32_t out_mark;
	/* The result is a packet this node originates (an ICMP error
	 * icmp4_error() built): it leaves as a locally generated packet
	 * (reinject.h), not as the verdict.  The worker clears it before
	 * processing. */
	bool local_out;
	/* Its frame went to the kernel's seg6 (kencap_send()): a refused
	 * send takes back worker_stats.kencap too (reinject_tx_failed()). */
	bool kencap_sent;
	/* The result is the packet as queued, unchanged, behind the headers
	 * a steering policy's H.Encaps* pushed in front (steer_apply()): the
	 * kernel's seg6 makes the same of the original (kencap.h). */
	bool encap_of_original;
	/* The outcome of the last SID or policy that processed it (see
	 * above), the drop reason counted for it, and its counters (NULL
	 * when none): a drop at reinjection of a success moves the count to
	 * their errors (reinject_charge()).  Processing clears them. */
	enum pkt_outcome outcome;
	enum drop_reason reason;	/* PKT_OUT_DROP, _ICMP, _HANDOFF */
	struct sid_stats *st;
	/* Where data was when processing began: the packet as queued.  A
	 * behavior that only pulls its outer headers (a decapsulation)
	 * leaves them intact there, in front of data (kend.h reads them).
	 * Set by srv6_process(). */
	const uint8_t *orig_data;
	/* The SID the packet's own destination named, run first on it
	 * (before any other SID or policy); NULL when none.  Set by
	 * srv6_process(). */
	const struct sid *dst_sid;
};

/* Bytes of headroom every slot keeps in front of the packet: an outer IPv6
 * header (40) + an SRH of 16 segments (8 + 256) + an HMAC TLV (40), rounded
 * up, plus room for an ICMP error's headers. */
#define PKT_HEADROOM 512

/* The largest packet srv6d hands back, however it leaves: an NFQUEUE
 * verdict's payload attribute has a 16-bit length, its 4-byte header
 * included (nfq.h).  A result built bigger is DROP_TOO_BIG where it is
 * built (the headend). */
#define PKT_MAX_LEN (0xffff - 4)

/* Claim n bytes in front of the packet. Returns the new start, or NULL if
 * the headroom is exhausted (the caller counts DROP_NO_HEADROOM). */
static inline uint8_t *pkt_push(struct pkt *p, uint32_t n)
{
	if ((size_t)(p->data - p->head) < n)
		return NULL;
	p->srh_parsed = false;
	p->chain_kept = false;
	p->data -= n;
	p->len += n;
	return p->data;
}

/* Remove n bytes from the front (n <= len). */
static inline uint8_t *pkt_pull(struct pkt *p, uint32_t n)
{
	p->srh_parsed = false;
	p->chain_kept = false;
	p->data += n;
	p->len -= n;
	return p->data;
}

/* Cut the packet to len bytes (no-op if already shorter). */
static inline void pkt_trim(struct pkt *p, uint32_t len)
{
	if (p->len > len) {
		p->len = len;
		p->srh_parsed = false;
		p->chain_kept = false;
	}
}

/* The caller is about to write into the header chain other than an
 * address, the hop limit, traffic class or flow label (an SRH's Segments
 * Left, a Next Header): the result no longer keeps the chain. */
static inline void pkt_chain_write(struct pkt *p)
{
	p->chain_kept = false;
}

/* IP version of the bytes at data (4, 6, or 0 when empty). */
static inline unsigned pkt_ip_version(const struct pkt *p)
{
	return p->len ? p->data[0] >> 4 : 0;
}

#endif
