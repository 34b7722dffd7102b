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

#include "gso_info.h"
#include "stats.h"

/* What the worker does with the packet once processing is over. */
enum pkt_verdict {
	PKT_ACCEPT = 0,	/* give the original back unchanged (NF_ACCEPT) */
	PKT_NEW_BYTES,	/* give back the new bytes data[0..len) (+ mark) */
	PKT_DROP,	/* NF_DROP; the reason has been counted */
	PKT_REPEAT,	/* NF_REPEAT with out_mark: a header queue's packet
			 * cut short that needs its whole bytes, sent back to
			 * its hook for the steering rules to queue it whole
			 * (the bounce, kend.h) */
	PKT_PUNT,	/* NF_DROP: the packet went to the OAM process
			 * (End.OP, src/srv6/oam.h), counted as injected */
};

/* What became of the packet, for the counters (stats.h): set with the
 * verdict by processing, reset for each SID of a SID chain, and read once
 * by reinject_count(), which counts the packet in exactly one of
 * accepted, forwarded, injected, dropped and bounced. */
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

/* A kernel route srv6d installed that makes a result itself, from the
 * packet as queued (accepted unchanged with its mark) or from the inner
 * packet of an encapsulation (src/route/kencap_routes.h). */
enum pkt_kernel {
	PKT_KERNEL_NONE = 0,
	PKT_KERNEL_END,		/* `kernel-end`: the SID's seg6local route */
	PKT_KERNEL_ENCAP,	/* `kernel-encap`: the list's seg6 route */
};

/* What processing found, for the way back: set by the behavior or the
 * headend that made the result, reset for each SID of a SID chain
 * (pkt_facts_reset()). */
struct pkt_facts {
	/* The kernel route that makes this result (kend.h, kencap.h):
	 * its kind and mark, and whether it makes it from the original
	 * as queued (else, an encapsulation, from the inner packet). */
	enum pkt_kernel kernel;
	uint32_t kernel_mark;
	bool kernel_from_original;
	/* An encapsulated super-packet's result (H.Encaps*) the kernel
	 * cannot encapsulate: why (stats.h; counted when it is cut). */
	enum kencap_fallback kencap_fallback;
	/* payload bytes per segment a super-packet is cut into, 0 when
	 * unknown (NFQUEUE never says): what the headend chose for one it
	 * encapsulated (headend_seg_size()) */
	uint16_t gso_size;
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
	/* An ICMP error about a packet back from an SR proxy's service
	 * (proxy_return()): it goes back the way that packet came, out of
	 * its in-interface to the service's link-layer address
	 * (REINJECT_SERVICE), so that the service's NAT or firewall sees
	 * it as an error about its own traffic and translates it. */
	bool icmp_to_service;
};

/* How the packet went back (reinject.h), for reinject_count(). */
struct pkt_way {
	uint8_t action;		/* enum reinject_action */
	uint8_t reason;		/* enum drop_reason of a failure */
	bool failed;		/* it did not go: dropped for `reason` */
	bool tx_full;		/* a frame refused for a full queue */
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
	 * (reinject.h).  pkt_result_reset() sets it before processing; pkt_push(),
	 * pkt_pull(), pkt_trim() and pkt_chain_write() clear it. */
	bool chain_kept;

	/* From the NFQUEUE message. */
	uint32_t id;		/* NFQA_PACKET_HDR packet_id (host order) */
	uint16_t hw_proto;	/* ETH_P_IP or ETH_P_IPV6 (host order) */
	uint8_t hook;
	uint32_t mark;		/* NFQA_MARK, 0 when absent */
	uint32_t priority;	/* NFQA_PRIORITY (skb->priority), 0 when
				 * absent (Linux sends it when not 0) */
	uint32_t indev;		/* NFQA_IFINDEX_INDEV, 0 when absent */
	/* NFQA_HWADDR: the link-layer source of the frame it came in,
	 * an Ethernet address; hw_src_len 0 when absent (a link without
	 * one, a packet of this node) or not 6 bytes long. */
	uint8_t hw_src[6];
	uint8_t hw_src_len;
	/* From the worker's header queue (`header-queue`): its verdict goes
	 * there (nfq.h). */
	bool from_hqueue;
	/* Cut short by the header queue's copy range: data[0..len) are the
	 * first bytes, orig_len the whole packet's length.  Its bytes are
	 * never given back: only the original, unchanged or with the mark of
	 * a kernel route that redoes its result (kend.h, kencap.h), a bounce,
	 * a drop, or an ICMP error built from those first bytes. */
	bool truncated;
	/* NFQA_SKB_INFO, on a queue bound with `offload yes` (NFQA_CFG_F_GSO);
	 * all false otherwise (the kernel segments and completes checksums
	 * before queueing).  src/srv6/gso.h handles such packets. */
	bool gso;		/* a GSO/GRO super-packet (NFQA_SKB_GSO) */
	bool csum_partial;	/* CHECKSUM_PARTIAL: the TCP/UDP checksum
				 * field holds only the pseudo-header sum
				 * (NFQA_SKB_CSUMNOTREADY) */
	bool csum_unverified;	/* no one checked its checksum yet
				 * (NFQA_SKB_CSUM_NOTVERIFIED) */
	uint16_t gso_l4_off;	/* of a super-packet, where its TCP header
				 * was when queued (gso_parse()) */
	/* gso_parse() of data[0..len) (gso_pkt_info(), src/srv6/gso.h):
	 * made once, by nfq.c on receipt of a super-packet (or on first
	 * use), for as long as the headers stay.  pkt_push(), pkt_trim()
	 * (but of bytes past the headers) and pkt_chain_write() end it;
	 * pkt_pull() of whole outer IP headers keeps it, shifted, as the
	 * headend does for the header it puts in front (gso_info.h).  Not
	 * a result of processing: pkt_result_reset() keeps it (nfq.c's
	 * memset of each message starts it). */
	struct gso_cache gso_cache;
	/* Set by processing. */
	enum pkt_verdict verdict;
	bool set_mark;		/* give `out_mark` with the verdict */
	uint32_t out_mark;	/* srv6d's number for it (config.h "marks") */
	/* The mark the verdict gives when set_mark (reinject.c, the one
	 * place that carries a verdict out): out_mark's value under
	 * mark-mask with the packet's other bits (config_mark_apply()). */
	uint32_t verdict_mark;
	/* The verdict also gives skb->priority this value (NFQA_PRIORITY,
	 * Linux 5.18), 0: not.  The mark's second carrier (reinject.c
	 * reinject_mark_carrier()): the steering guard's G0P copies it back
	 * into the mark right before routing and clears it (steer.h). */
	uint32_t verdict_priority;
	/* The worker's: srv6d's mark probe says verdict marks do not
	 * survive to routing (markprobe.h, engine_set_marks_lost()), so
	 * a marked IPv6 result goes by the SID's device (reinject.c), and
	 * a super-packet a policy of several lists encapsulates as its
	 * inner packet by the reinjection device, not as the original
	 * with the mark (headend.c, kencap.c).  Set before processing. */
	bool carrier_lost;
	/* ... and the rule that loses them gives another mark than 0 (the
	 * probe's `lost`, not `zeroed`): every policy's super-packet goes
	 * as its inner packet by the reinjection device (headend.h
	 * headend_kernel_by_mark()).  Set before processing. */
	bool carrier_foreign;
	/* The result is a packet this node originates (an ICMP error
	 * icmp4_error() built): it leaves as a locally generated packet
	 * (reinject.h), not as the verdict. */
	bool local_out;
	/* A SID ran on the result of another SID of this node
	 * (sid_chain()): no kernel route makes it from the original. */
	bool chained;
	/* The outcome of the last SID or policy that processed it (see
	 * above), the drop reason counted for it, and its counters (NULL
	 * when none): a drop at reinjection of a success moves the count to
	 * their errors (reinject_charge()).  pkt_result_reset() clears
	 * them, sid_dispatch() for each SID of a chain. */
	enum pkt_outcome outcome;
	enum drop_reason reason;	/* PKT_OUT_DROP, _ICMP, _HANDOFF */
	struct sid_stats *st;
	/* What the behaviors found that the way back needs, so that it
	 * parses and looks up nothing again (reinject_decide()). */
	struct pkt_facts facts;
	/* The way back reinject_decide() chose and how it went, read once
	 * by reinject_count() when the batch's frames have left. */
	struct pkt_way way;
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
	p->gso_cache.valid = false;
	p->data -= n;
	p->len += n;
	return p->data;
}

/* Remove n bytes from the front (n <= len).  Of a packet parsed for GSO
 * (gso_cache), n the offset of one of its inner IP headers: the parse
 * follows. */
static inline uint8_t *pkt_pull(struct pkt *p, uint32_t n)
{
	p->srh_parsed = false;
	p->chain_kept = false;
	gso_cache_pull(&p->gso_cache, n);
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
		gso_cache_trim(&p->gso_cache, len);
	}
}

/* The caller is about to write into the header chain other than an
 * address, the hop limit, traffic class or flow label (an SRH's Segments
 * Left, a Next Header): the result no longer keeps the chain. */
static inline void pkt_chain_write(struct pkt *p)
{
	p->chain_kept = false;
	p->gso_cache.valid = false;	/* a Segments Left, a Next Header */
}

/* IP version of the bytes at data (4, 6, or 0 when empty). */
static inline unsigned pkt_ip_version(const struct pkt *p)
{
	return p->len ? p->data[0] >> 4 : 0;
}

/* A SID of a chain starts from no facts: what the one before found is
 * not of its result (sid_dispatch()). */
static inline void pkt_facts_reset(struct pkt *p)
{
	p->facts = (struct pkt_facts){ 0 };
}

/* Before processing: nothing decided yet (the one reset of what
 * processing sets; the rest of struct pkt is nfq.c's parse). */
static inline void pkt_result_reset(struct pkt *p)
{
	p->verdict = PKT_ACCEPT;
	p->set_mark = false;
	p->out_mark = 0;
	p->verdict_mark = 0;
	p->verdict_priority = 0;
	p->local_out = false;
	p->chain_kept = true;
	p->srh_parsed = false;
	p->outcome = PKT_OUT_NONE;
	p->reason = (enum drop_reason)0;
	p->st = NULL;
	p->chained = false;
	pkt_facts_reset(p);
}

#endif
