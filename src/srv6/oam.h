/* oam.h - RFC 9259 OAM at a SID: the O-flag's timestamped copy and End.OP.
 *
 * RFC 9259 2.1.1 appends S01.1 to RFC 8754 4.3.1.1's S01 at every SID
 * this node processes: "IF the O-flag is set and local configuration
 * permits O-flag processing { a. Make a copy of the packet. b. Send the
 * copied packet, along with a timestamp, to the OAM process }", and the
 * original goes on as its SID's behavior says.  Local configuration
 * permits it when srv6d.conf has `oam-copy`: the OAM process is whoever
 * reads that socket.  End.OP (OAM Endpoint with Punt) sends the packet
 * itself to the OAM process: the original is done with.
 *
 * The packet path (sid_dispatch(), behavior_end_op()) writes each copy,
 * a struct oam_copy_hdr and the packet's first bytes, into the worker's
 * ring (no allocation, no system call, no lock); the timestamp is the
 * batch's receipt, read once per batch (ring->ts_ns); the worker sends the
 * ring's copies in one sendmmsg() per batch (src/io/oamsock.h) before
 * the batch is counted.  A token bucket per worker (`oam-rate`,
 * `oam-burst`) bounds them: a copy over the rate is not made
 * (oam_ratelimited), a copy the socket refuses is lost (oam_send_errors);
 * neither touches the original.
 */
#ifndef SRV6D_OAM_H
#define SRV6D_OAM_H

#include <stdint.h>

#include "ctx.h"

/* The SRH's O-flag: bit 2 of Flags (RFC 9259 2.1, Linux SR6_FLAG1_OAM). */
#define SRH_FLAG_OAM		0x20

/* A copy on the wire, in network byte order, then `cap_len` bytes of
 * the packet as the SID received it. */
#define OAM_HDR_VERSION		1
#define OAM_HDR_LEN		40
#define OAM_KIND_COPY		1	/* an O-flag packet's copy */
#define OAM_KIND_PUNT		2	/* End.OP's packet */
#define OAM_F_CUT		0x01	/* cap_len < orig_len: the first bytes */
#define OAM_F_GSO		0x02	/* a super-packet (offload): one copy
					 * for all the packets it stands for */
#define OAM_F_HEADERS		0x04	/* a header queue's packet: only its
					 * headers reached srv6d */

struct oam_copy_hdr {
	uint8_t version;	/* OAM_HDR_VERSION */
	uint8_t kind;		/* OAM_KIND_* */
	uint16_t hdr_len;	/* OAM_HDR_LEN: the packet's bytes follow */
	uint16_t worker;	/* the worker (queue index) that copied it */
	uint8_t sid_plen;	/* the SID's prefix length */
	uint8_t flags;		/* OAM_F_* */
	uint64_t ts_ns;		/* CLOCK_REALTIME, ns, when the worker
				 * received the packet's batch */
	uint32_t orig_len;	/* the packet's whole length */
	uint32_t cap_len;	/* bytes of it that follow */
	uint8_t sid[16];	/* the SID (its prefix) */
} __attribute__((packed));

/* Bytes of a packet a copy holds at most (CONFIG_OAM_COPY_LEN_MAX). */
#define OAM_COPY_MAX		2048u
/* Copies one batch holds before the ring is sent mid-batch. */
#define OAM_RING_SLOTS		64u
#define OAM_SLOT_SIZE		(OAM_HDR_LEN + OAM_COPY_MAX)

/* Copies held for the next batch at most (oam_ring_hold()), and how long:
 * fewer than a local OAM process's AF_UNIX socket queues unread
 * (net.unix.max_dgram_qlen, 10 by default), so that a burst of held
 * copies does not find it full. */
#define OAM_HOLD_MAX		8u
#define OAM_HOLD_NS		2000000ull

/* A worker's copies of one batch (and those held from the batches
 * before, oam_ring_hold()): written by the packet path, sent and emptied
 * by oamsock_flush() (src/io/oamsock.h). */
struct oam_ring {
	unsigned n;				/* copies made */
	uint32_t used;				/* bytes of buf they fill */
	uint64_t held_since_ns;			/* 0: none held */
	/* The copies' timestamp: CLOCK_REALTIME (ns) when the worker
	 * received the batch, read once per batch while oam-copy is on. */
	uint64_t ts_ns;
	/* Copy i: len[i] bytes at buf + off[i], packed one after the other
	 * (a batch's copies stay in few cache lines). */
	uint32_t off[OAM_RING_SLOTS];
	uint32_t len[OAM_RING_SLOTS];
	/* End.OP's packet of each punt (its send failing makes it a drop
	 * for DROP_OAM_SEND); NULL for an O-flag copy. */
	struct pkt *punt[OAM_RING_SLOTS];
	/* The packet each copy is of: a header queue's packet that is
	 * bounced after its processing comes back whole and is copied then
	 * (oam_ring_unwind()). */
	const struct pkt *of[OAM_RING_SLOTS];
	/* Set by the worker: sends the ring (n == OAM_RING_SLOTS) so that
	 * one more copy fits; NULL (unit tests): the copy is refused as
	 * over the rate. */
	void (*full)(struct oam_ring *ring, void *arg);
	void *full_arg;
	uint8_t buf[OAM_RING_SLOTS * OAM_SLOT_SIZE];
};

/* The O-flag of IPv6 packet p's SRH, when ctx permits O-flag processing
 * (ctx->oam, `oam-copy`).  The SRH parse is the one the behavior uses
 * (proc_srh_find()). */
bool oam_flag_set(struct proc_ctx *ctx, struct pkt *p);

/* RFC 9259 2.1.1 S01.1 a-b: a copy of p, as SID `sid` received it, with
 * a timestamp, into ctx->oam; p itself is untouched.  Over oam-rate, no
 * copy (oam_ratelimited).  Returns 0, or -1 when no copy was made. */
int oam_copy(struct proc_ctx *ctx, const struct sid *sid, struct pkt *p,
	     uint8_t kind);

/* End.OP, OAM Endpoint with Punt (RFC 9259): p goes to the OAM process
 * (a copy of kind OAM_KIND_PUNT) and the original is done with (PKT_PUNT,
 * a success of the SID, counted injected).  Over oam-rate it is a drop
 * for DROP_OAM_RATELIMITED; a punt the socket refuses becomes a drop for
 * DROP_OAM_SEND (oamsock_flush()). */
void behavior_end_op(struct proc_ctx *ctx, const struct sid *sid,
		     struct pkt *p);

/* Take back the copies of p, the last ones made (a header queue's packet
 * bounced to be processed whole: it is copied once, then).  A copy the
 * ring sent already, full mid-batch, stays sent. */
static inline void oam_ring_unwind(struct oam_ring *ring, const struct pkt *p)
{
	while (ring->n && ring->of[ring->n - 1] == p)
		ring->used = ring->off[--ring->n];
}

/* Keep the ring's copies for the next batch instead of sending them now:
 * at a packet a wakeup (below some 30,000 pps a batch is one packet) the
 * copy's own sendmmsg() and the OAM process's wakeup are what an O-flag
 * packet costs over End's; held, up to OAM_HOLD_MAX copies go in one.
 * Each copy carries the timestamp of its packet's receipt (RFC 9259), so
 * holding delays the copy, not what it says.  Held while none is an
 * End.OP punt (whose send decides its packet's outcome in its batch),
 * there are fewer than OAM_HOLD_MAX and the first was held less than
 * OAM_HOLD_NS ago (by now_ns, the batch's clock); the worker sends them
 * when its receive times out and before it stops.  Returns true when
 * held (nothing to send now). */
static inline bool oam_ring_hold(struct oam_ring *ring, uint64_t now_ns)
{
	if (!ring->n || ring->n >= OAM_HOLD_MAX)
		return false;
	for (unsigned i = 0; i < ring->n; i++)
		if (ring->punt[i])
			return false;
	if (!ring->held_since_ns)
		ring->held_since_ns = now_ns ? now_ns : 1;
	else if (now_ns - ring->held_since_ns >= OAM_HOLD_NS)
		return false;
	/* The next batch's packets reuse the pkt slots: a held copy is of
	 * none of them (oam_ring_unwind()). */
	for (unsigned i = 0; i < ring->n; i++)
		ring->of[i] = NULL;
	return true;
}

/* Copy i of ring: its bytes (header first). */
static inline const uint8_t *oam_ring_copy(const struct oam_ring *ring,
					   unsigned i, uint32_t *len)
{
	*len = ring->len[i];
	return ring->buf + ring->off[i];
}

#endif
