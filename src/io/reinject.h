/* reinject.h - the one place that decides how a processed packet goes back
 * into the kernel (as the verdict's payload, through srv6d's reinjection
 * device (rtrules.h: a veth pair, once a TUN device; a marked result
 * with its SID's mark as SO_MARK), a SID's device or the raw socket), and
 * the one place that counts it.
 *
 * A verdict cannot change the packet's address family (the kernel drops an
 * IPv4 payload returned to the IPv6 hook); what srv6d sends into the
 * reinjection device keeps its mark only as the frame's SO_MARK, which
 * the daemon's fwmark rules of the SID act on (rtrules.h; a VRF SID's
 * results go into its own veth pair, routed by its VRF device).  A
 * result with a mark names its SID (runstate_sid_by_mark()).  So:
 *   PKT_ACCEPT               -> NF_ACCEPT, original bytes (mark if set)
 *   PKT_DROP                 -> NF_DROP (reason counted by processing)
 *   PKT_OUT_ICMP, an error about a packet back from an SR proxy's
 *     service (p->facts.icmp_to_service) that came in an Ethernet frame
 *     (p->hw_src)
 *                            -> send it back the way that packet came:
 *                               a frame out of its in-interface, to
 *                               the frame's source from the link's own
 *                               address (the route mirror's; unknown:
 *                               DROP_REINJECT, an icmp_send_errors),
 *                               NF_DROP the original; the service's
 *                               NAT translates it (behavior_proxy.h).
 *                               Without p->hw_src, the ways below
 *   PKT_NEW_BYTES, IPv4 with p->local_out (an ICMP error srv6d built)
 *                            -> send it on the worker's raw socket as a
 *                               locally generated packet, NF_DROP the
 *                               original (its source is this node's:
 *                               back from PREROUTING it is a martian)
 *   PKT_NEW_BYTES, End.DX2 SID's mark
 *                            -> send the frame out of the SID's oif
 *                               (packet socket), NF_DROP the original
 *   PKT_NEW_BYTES, IPv6 with the mark of an End.X, End.T, End.DX6,
 *     End.DT6 or End.DT46 SID, that may not go as a payload (below)
 *                            -> send it into the SID's device (the
 *                               reinjection device with the mark as
 *                               SO_MARK; vrftable: its veth pair),
 *                               NF_DROP
 *   PKT_NEW_BYTES, a TCP super-packet (p->gso) srv6d encapsulated
 *     (H.Encaps*, End.B6.Encaps*: an IP header more in front of its TCP)
 *                            -> cut into segments of p->facts.gso_size (chosen
 *                               by the headend, headend_seg_size(); else
 *                               what fits 1280 bytes), each sent with the
 *                               batch into the device the result would
 *                               take without a payload (the reinjection
 *                               device, a mark as SO_MARK; a VRF SID's
 *                               veth pair), NF_DROP the original; one that
 *                               cannot be cut is DROP_TOO_BIG
 *   PKT_NEW_BYTES, same family, that may go as a payload (below)
 *                            -> NF_ACCEPT with the new bytes (+ mark)
 *   PKT_NEW_BYTES, IPv4 from the IPv6 hook, mark of an End.DX4, End.DT4 or
 *     End.DT46 SID, or of an End.X or End.T SID with USD
 *                            -> send it into the SID's device (as
 *                               above: its fwmark rule routes it), NF_DROP
 *   PKT_NEW_BYTES, otherwise, no mark
 *                            -> send it into the reinjection device,
 *                               NF_DROP the original
 *   PKT_NEW_BYTES, other family, other mark
 *                            -> NF_DROP, DROP_FAMILY: the mark (End.X/End.T
 *                               routing) would not survive that device
 *                               (same family: DROP_REINJECT)
 *   a SID device not set up (its sid_runtime ifindex 0, rtrules.h)
 *                            -> NF_DROP, DROP_REINJECT
 *
 * Which results may go as a payload is rs->payload (runstate.h), decided
 * once per config by reinject_resolve() from `reinject` and, for auto
 * (the default), from the running kernel:
 *   Linux < 7.2                       -> PAYLOAD_ANY: every result
 *   Linux >= 7.2 (nfqnl_mangle() drops a payload whose IP header chain
 *     differs: mainline 54f34607d184) -> PAYLOAD_KEEP_CHAIN: a result
 *                                        whose p->chain_kept (pkt.h) is
 *                                        set (a C-SID shift); the rest
 *                                        goes another way
 *   Linux >= 7.1 outside the initial user namespace (any payload is
 *     refused: 968cc2c96390)          -> PAYLOAD_NONE
 * `reinject verdict` is PAYLOAD_ANY, `reinject no-payload` PAYLOAD_NONE.
 *
 * Counting (p->outcome, pkt.h): processing counts the drop reason, the
 * SID's or policy's success or error, and icmp_sent; reinject_packet()
 * counts each packet once, in exactly one of accepted, forwarded,
 * injected (a device, the raw socket) and dropped:
 *   PKT_OUT_DROP, PKT_OUT_ICMP (an ICMP error replaces it, sent as above:
 *   one that does not leave is an icmp_send_errors), PKT_OUT_HANDOFF
 *   (End.DT* without a route in its table: handed, marked, to the
 *   kernel's `unreachable` rule, as above)
 *                            -> dropped, whatever happens to what goes on
 *   PKT_OUT_OK, PKT_OUT_NONE -> accepted, forwarded or injected as it
 *                               goes back; dropped for the reason when it
 *                               cannot (and a SID's or policy's success
 *                               becomes its error: reinject_charge())
 *   a queue message nfq.c could not parse (PKT_DROP, PKT_OUT_NONE)
 *                            -> dropped, DROP_BAD_MESSAGE
 * So a worker's drops add up to its dropped, and a SID's or policy's to
 * its errors.
 *
 * Super-packets (p->gso, `offload yes`), decided in the same place
 * (reinject_decide_gso() after the ways above):
 *   the way above is the payload, and the result has the queued length
 *   and layout and its TCP's final destination in the IP header in front
 *   of it (the kernel keeps the GSO state and segments it right: a
 *   transit rewrite, encapsulated TCP or SL 1 -> 0)
 *                            -> NF_ACCEPT with the new bytes, as above
 *   the way above is a device (srv6d's, the SID's), or the payload the
 *   kernel would segment wrongly or may not take (then the SID's device
 *   with a mark, srv6d's device without), and the result
 *   is TCP in one IP header (gso_vnet_can_carry(): a decapsulation's
 *   inner packet, H.Insert's IPv6 with an SRH, a transit rewrite of an
 *   inline SRH)
 *                            -> REINJECT_VNET_*: the frame behind a
 *                               virtio_net_hdr (gso_vnet_prepare()) on
 *                               the worker's vnet socket, NF_DROP; the
 *                               kernel segments it at reinject_gso_size()
 *   the same, TCP inside IP in IP (an encapsulation's result)
 *                            -> REINJECT_SEGMENT: to be cut into
 *                               segments in userspace and sent as frames
 *                               the way above (reinject_segment());
 *                               until then a DROP_GSO
 *   otherwise (not TCP, End.DX2, a marked result without its device)
 *                            -> NF_DROP, DROP_GSO
 * A DROP_GSO is also counted in gso_refused; a super-packet the kernel
 * took by the vnet socket in gso_vnet.
 *
 * The kernel's own ways, from what the behavior or headend that made the
 * result recorded (p->facts, pkt.h), before the super-packet ways above:
 *   a super-packet (or a header queue's packet cut short) whose result a
 *   kernel route srv6d installed makes from the original (a plain End's
 *   seg6local route, kend.h; a steering policy's H.Encaps* seg6 route in
 *   the sender's segments, kencap.h)
 *                            -> REINJECT_KERNEL: NF_ACCEPT of the
 *                               original with that route's mark;
 *                               forwarded, and kend or kencap
 *   the result the ways above would cut (REINJECT_SEGMENT) when the
 *   kernel's seg6 route of its list encapsulates its inner packet
 *                            -> REINJECT_KERNEL_INNER (kencap_send());
 *                               injected, gso_vnet and kencap
 *   a header queue's packet cut short whose result no kernel route makes
 *   from the original, or one the worker did not process (PKT_REPEAT)
 *                            -> REINJECT_BOUNCE: NF_REPEAT with the
 *                               bounce bit (its count taken back);
 *                               bounced; DROP_BOUNCE_LOOP when it carries
 *                               the bit already (whatever its other bits)
 * Every packet is counted once by reinject_count(), after the batch's
 * frames were sent (reinject_flush()): nothing counted is taken back.
 */
#ifndef SRV6D_REINJECT_H
#define SRV6D_REINJECT_H

#include "config.h"
#include "runstate.h"
#include "nfq.h"
#include "pkt.h"
#include "pktsock.h"
#include "rtmirror.h"
#include "rtrules.h"
#include "segment.h"
#include "stats.h"

enum reinject_action {
	REINJECT_ACCEPT,	/* NF_ACCEPT, original bytes */
	REINJECT_PAYLOAD,	/* NF_ACCEPT with p->data[0..len) */
	REINJECT_OWN_DEV,	/* send p->data into srv6d's reinjection
				 * device, NF_DROP the original */
	REINJECT_L2,		/* send the frame at p->data out of the SID's
				 * oif, NF_DROP the original */
	REINJECT_DEV,		/* send the IPv4 (or payload-free IPv6)
				 * packet into the SID's device (the
				 * reinjection device with its mark, a VRF
				 * SID's veth pair), NF_DROP
				 * the original */
	REINJECT_LOCAL,		/* send the IPv4 packet on the raw socket,
				 * NF_DROP the original */
	REINJECT_DROP,		/* NF_DROP, already counted by processing */
	REINJECT_DROP_REASON,	/* NF_DROP for *reason, counted by reinject */
	REINJECT_VNET_OWN_DEV,	/* a TCP super-packet, whole, behind a
				 * virtio_net_hdr into srv6d's reinjection
				 * device (the vnet socket), NF_DROP */
	REINJECT_VNET_DEV,	/* the same into the SID's device */
	REINJECT_SEGMENT,	/* an encapsulated TCP super-packet: its
				 * segments go as frames the way
				 * reinject_decide_single() says (reinject_segment(),
				 * segment.h), NF_DROP */
	REINJECT_KERNEL,	/* NF_ACCEPT of the original, unchanged, with
				 * the mark of the kernel route that makes
				 * its result (p->facts.kernel_mark: the
				 * kernel's End, kend.h; seg6, kencap.h) */
	REINJECT_KERNEL_INNER,	/* an encapsulation's inner TCP super-packet
				 * whole behind a virtio_net_hdr, with the
				 * mark of the kernel's seg6 route that
				 * encapsulates it, into the reinjection
				 * device (kencap_send()), NF_DROP */
	REINJECT_BOUNCE,	/* NF_REPEAT with the bounce bit: a header
				 * queue's packet to be queued whole */
	REINJECT_PUNT,		/* NF_DROP: End.OP sent the packet to the
				 * OAM process (src/srv6/oam.h, PKT_PUNT),
				 * counted injected */
	REINJECT_SERVICE,	/* an ICMP error about a packet back from an
				 * SR proxy's service: the frame out of
				 * p->indev to p->hw_src, NF_DROP */
};

/* Decide how p goes back (see above): the one function that does, from
 * p's verdict, outcome and what processing found (p->facts: the kernel
 * route that makes the result, the segment size; pkt.h), parsing
 * nothing but a super-packet's headers.  *reason is set for
 * REINJECT_DROP_REASON: DROP_FAMILY (other family with a mark),
 * DROP_BAD_IP (result is neither IPv4 nor IPv6), DROP_TOO_BIG (larger
 * than a verdict can carry), DROP_REINJECT (the SID's device is not set
 * up), DROP_GSO (a super-packet no way carries) or DROP_BOUNCE_LOOP (a
 * bounced packet back on a header queue).  rt: the SIDs' devices
 * (rtrules.h) published with cfg, NULL for none.  Pure but for the GSO
 * parse of a super-packet's result, which it makes once and keeps on p
 * for the way out (gso_pkt_info()): no other side effect. */
enum reinject_action reinject_decide(const struct config *cfg,
				     const struct runstate *rs,
				     const struct sid_runtime *rt,
				     struct pkt *p,
				     enum drop_reason *reason);

/* The same for p taken as one packet (the table above without its
 * super-packet part): the way the segments of a REINJECT_SEGMENT result
 * go (never REINJECT_VNET_* or REINJECT_SEGMENT).  Pure. */
enum reinject_action reinject_decide_single(const struct config *cfg,
					    const struct runstate *rs,
					    const struct sid_runtime *rt,
					    const struct pkt *p,
					    enum drop_reason *reason);

/* With no MTU known on a super-packet's way, its segments are cut for
 * IPv6's minimum link MTU (RFC 8200 5). */
#define REINJECT_GSO_MIN_MTU	1280

/* The room a link of `mtu` (0: unknown) leaves a segment's payload behind
 * hdr_len bytes of headers, if less than `room`; else room.  Pure. */
uint32_t reinject_mtu_room(uint32_t mtu, uint32_t hdr_len, uint32_t room);

/* The gso_size a super-packet result p is handed to the kernel with
 * (NFQUEUE never says the sender's): the largest payload that keeps every
 * segment within each MTU it is known to meet: the link it came in on
 * (p->indev, with the headers it had there: each of the sender's
 * segments fitted it), the device it is sent into (dev_ifindex: the
 * kernel segments it there, and the receiving end drops a frame over its
 * MTU), and the route it takes (the SID's next hop or table, else its
 * destination's in the main tables: the route's mtu metric or its
 * link's), each less the result's own headers.  An MTU the route mirror
 * m does not know is left out; with none known, REINJECT_GSO_MIN_MTU.  0
 * when p is not TCP or its headers leave no room.  Reader of m (QSBR);
 * p's headers from its GSO parse (gso_pkt_info()). */
uint16_t reinject_gso_size(const struct rtmirror *m, const struct config *cfg,
			   const struct runstate *rs,
			   struct pkt *p, uint32_t dev_ifindex);

/* The device p leaves by when reinject_decide() says REINJECT_L2 or
 * REINJECT_DEV: its SID's ifindex in rt (0 otherwise).  Pure. */
uint32_t reinject_ifindex(const struct config *cfg,
			  const struct runstate *rs,
			  const struct sid_runtime *rt, const struct pkt *p);

/* p could not be reinjected for `reason`: when processing counted it as a
 * success of a SID or policy (PKT_OUT_OK, p->st), make it one of its
 * errors instead (packets and bytes back, errors and drops[reason] up);
 * p becomes PKT_OUT_DROP for reason, p->st is cleared.
 * The worker's own counters are reinject_packet()'s business. */
void reinject_charge(struct pkt *p, enum drop_reason reason);

/* The packets of a batch reinject_packet() handed on, counted by
 * reinject_flush() once their frames have left. */
#define REINJECT_PENDING_MAX	64

/* A worker's ways into the kernel other than the verdict, opened by the
 * worker at start (worker.c), never per packet; -1 when one could not be
 * opened (what should go by it is then a counted drop). */
struct reinject_io {
	uint32_t dev_ifindex;	/* the reinjection device's sending end */
	int pkt_fd;	/* AF_PACKET: End.DX2's oif, a VRF SID's veth pair,
			 * the reinjection device; with `offload yes` a socket
			 * with PACKET_VNET_HDR (pkt_vnet_sock_open()), tx a
			 * vnet batch (pkt_tx_is_vnet()): super-packets
			 * (REINJECT_VNET_*) and plain frames in one batch,
			 * in the order they were decided */
	int raw_fd;	/* raw IPv4: srv6d's own ICMPv4 errors */
	struct pkt_tx *tx;	/* the batch's frames for pkt_fd (pktsock.h) */
	struct seg_area *seg;	/* where REINJECT_SEGMENT's frames are cut
				 * (segment.h); emptied by each flush */
	const struct rtmirror *mirror;	/* MTUs for reinject_gso_size(),
					 * NULL: none known */
	struct pkt *pending[REINJECT_PENDING_MAX];	/* to be counted */
	unsigned npending;
};

/* Carry out reinject_decide()'s decision for p: queue its verdict on q,
 * send it on io's raw socket when it is local, or add its frames to
 * io->tx when it goes by a device (sent with the batch's others by
 * reinject_flush()), and keep p in io->pending to be counted there
 * (p->way).  A bounced packet's count is taken back (proc_count_undo():
 * it is counted when it comes back whole).  Called by the workers
 * only. */
void reinject_packet(const struct config *cfg, const struct runstate *rs, const struct sid_runtime *rt,
		     struct pkt *p, struct nfq *q, struct reinject_io *io,
		     struct worker_stats *st);

/* Count p in st, once, from p->outcome and p->way (see above): the one
 * place a packet's way back is counted.  A drop here of a success is
 * also charged to the SID or policy that made the result
 * (reinject_charge()). */
void reinject_count(struct pkt *p, struct worker_stats *st);

/* The outcome reinject_count() counts (or counted) p under, and for
 * WORKER_OUT_DROPPED its reason in *reason: what a trace shows
 * (pkt_trace.h).  Pure; the same before and after the count. */
enum worker_outcome reinject_outcome(const struct pkt *p,
				     enum drop_reason *reason);

/* The way's short name for a trace ("payload", "kernel", "own-dev",
 * "bounce", ...), "unknown" out of range. */
const char *reinject_action_name(enum reinject_action a);

/* The payload rule of a kernel of release `release` (uname -r), the
 * process in the initial user namespace or not (above); why (whylen
 * bytes) says why in a line for the log and srv6ctl status.  Pure. */
enum payload_rule reinject_kernel_rule(const char *release, bool init_userns,
				       char *why, size_t whylen);

/* The text of /proc/self/uid_map is the initial user namespace's (one
 * line, 0 0 4294967295).  Pure. */
bool reinject_uid_map_initial(const char *map);

/* The payload rule of the running kernel (uname(2), /proc/self/uid_map;
 * a map that cannot be read counts as the initial namespace's), with
 * why as above. */
enum payload_rule reinject_running_kernel(char *why, size_t whylen);

/* Set rs->payload and rs->payload_why from cfg->reinject and, for
 * auto, the running kernel (reinject_running_kernel()): before the
 * config's rules and devices are installed (they depend on it). */
void reinject_resolve(struct runstate *rs, const struct config *cfg);

/* "auto", "verdict", "no-payload"; "any", "keep-chain", "none". */
const char *reinject_mode_name(enum reinject_mode m);
const char *reinject_payload_name(enum payload_rule r);

/* Send the frames reinject_packet() collected in io->tx during a batch,
 * in one sendmmsg() (pkt_tx_flush()), before the batch's verdicts are
 * flushed, then count each packet of io->pending (reinject_count()): a
 * frame the kernel refuses makes its packet a drop, DROP_TOO_BIG when it
 * is larger than the device's MTU, DROP_REINJECT otherwise (the device
 * gone in a reload, its queue full), charged to its SID; one that was a
 * drop already (an ICMP error, a hand-off) is an icmp_send_errors when it
 * is an error.  The packets stay valid until then.  Called by the
 * workers only. */
void reinject_flush(struct reinject_io *io, struct worker_stats *st);

#endif
