/* reinject.c - verdict payload, srv6d's devices or the raw socket: how a
 * processed packet re-enters the kernel (the rules are in include/reinject.h). */
#include <netinet/in.h>	/* before linux/netfilter.h */
#include <errno.h>
#include <linux/if_ether.h>
#include <linux/netfilter.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "behavior_table.h"
#include "egress.h"
#include "gso.h"
#include "kencap.h"
#include "log.h"
#include "reinject.h"
#include "pktsock.h"

/* The SID a marked result belongs to, or NULL. */
static const struct sid *reinject_sid(const struct config *cfg,
				      const struct runstate *rs,
				      const struct pkt *p)
{
	return p->set_mark ? runstate_sid_by_mark(rs, cfg, p->out_mark) : NULL;
}

/* An IPv4 result of a SID whose routing is its device's (the
 * reinjection device with the SID's mark, rtrules.h)
 * (behavior_has_dev4(): End.DX4, End.DT4, End.DT46, and End.X/End.T
 * with USD, an inner IPv4 packet, RFC 8986 4.16.3). */
static bool reinject_by_dev(const struct sid *sid, const struct pkt *p)
{
	return sid && pkt_ip_version(p) == 4 && p->hw_proto == ETH_P_IPV6 &&
	       behavior_has_dev4(sid->behavior, sid->flavors);
}

/* The running kernel takes p's new bytes as its verdict's payload
 * (rs->payload): any, only a result that keeps the header chain
 * (p->chain_kept, pkt.h), or none. */
static bool reinject_payload_ok(const struct config *cfg,
				const struct runstate *rs,
				const struct pkt *p)
{
	switch (rs ? rs->payload : PAYLOAD_ANY) {
	case PAYLOAD_ANY:
		return true;
	case PAYLOAD_KEEP_CHAIN:
		return p->chain_kept;
	case PAYLOAD_NONE:
	default:
		return false;
	}
}

/* With `steering auto` a verdict's mark has a second carrier, the
 * priority (reinject_mark_carrier()), but not for a packet that came with
 * a priority of its own (a rule before srv6d's hook set it), nor while
 * the mark probe finds both carriers lost (p->carrier_lost, markprobe.h):
 * a marked result of such a packet goes by the SID's device instead,
 * whose frames carry the mark in their source address (the guard's
 * G0). */
static bool reinject_carrier_lost(const struct config *cfg,
				  const struct pkt *p)
{
	return cfg->steering && (p->priority || p->carrier_lost);
}

/* An IPv6 result whose mark routes it (End.X, End.DX6: to nh6; End.T,
 * End.DT6, End.DT46: in their table) that may not go as a payload
 * enters the kernel through the SID's device (behavior_has_dev6()): the
 * reinjection device with the mark as SO_MARK (a VRF SID's veth pair,
 * whose iif rules do what the mark does). */
static bool reinject_by_dev6(const struct config *cfg,
			     const struct runstate *rs, const struct sid *sid,
			     const struct pkt *p)
{
	return sid && pkt_ip_version(p) == 6 &&
	       (!reinject_payload_ok(cfg, rs, p) ||
		reinject_carrier_lost(cfg, p)) &&
	       behavior_has_dev6(sid->behavior);
}

/* The result of a SID whose frames leave by its oif (End.DX2). */
static bool reinject_by_l2(const struct sid *sid)
{
	const struct behavior_desc *d = sid ? behavior_desc(sid->behavior) :
					      NULL;

	return d && d->route == BHV_ROUTE_L2;
}

/* True when the result's IP version is the family the packet was queued
 * from, i.e. when the verdict may carry it. */
static bool reinject_same_family(const struct pkt *p)
{
	switch (pkt_ip_version(p)) {
	case 4:
		return p->hw_proto == ETH_P_IP;
	case 6:
		return p->hw_proto == ETH_P_IPV6;
	default:
		return false;
	}
}

enum reinject_action reinject_decide_single(const struct config *cfg,
					    const struct runstate *rs,
					    const struct sid_runtime *rt,
					    const struct pkt *p,
					    enum drop_reason *reason)
{
	unsigned version = pkt_ip_version(p);
	const struct sid *sid;

	switch (p->verdict) {
	case PKT_ACCEPT:
		return REINJECT_ACCEPT;
	case PKT_NEW_BYTES:
		break;
	case PKT_PUNT:
		return REINJECT_PUNT;
	case PKT_DROP:
	default:
		return REINJECT_DROP;
	}
	if (p->local_out && version == 4)
		return REINJECT_LOCAL;
	sid = reinject_sid(cfg, rs, p);
	if (reinject_by_l2(sid)) {
		if (!sid_runtime_get(rt, sid).ifindex) {
			/* its oif is no link (yet): struct sid_marks */
			*reason = DROP_NEXTHOP_UNREACHABLE;
			return REINJECT_DROP_REASON;
		}
		return REINJECT_L2;
	}
	if (version != 4 && version != 6) {
		*reason = DROP_BAD_IP;
		return REINJECT_DROP_REASON;
	}
	if (reinject_by_dev6(cfg, rs, sid, p)) {
		if (!sid_runtime_get(rt, sid).ifindex) {
			*reason = DROP_REINJECT;
			return REINJECT_DROP_REASON;
		}
		return REINJECT_DEV;
	}
	if (reinject_same_family(p) && reinject_payload_ok(cfg, rs, p)) {
		if (p->len > NFQ_MAX_PAYLOAD) {
			*reason = DROP_TOO_BIG;
			return REINJECT_DROP_REASON;
		}
		return REINJECT_PAYLOAD;
	}
	if (reinject_by_dev(sid, p)) {
		if (!sid_runtime_get(rt, sid).ifindex) {
			*reason = DROP_REINJECT;
			return REINJECT_DROP_REASON;
		}
		return REINJECT_DEV;
	}
	if (p->set_mark) {
		/* Only the reinjection device could carry it, without its
		 * mark; routing
		 * without it would be wrong. */
		*reason = reinject_same_family(p) ? DROP_REINJECT : DROP_FAMILY;
		return REINJECT_DROP_REASON;
	}
	return REINJECT_OWN_DEV;
}

/* ---- super-packets (`offload yes`) -------------------------------------- */

/* A super-packet's result given as the payload of a verdict keeps the
 * skb's GSO state and header offsets, and gets CHECKSUM_NONE
 * (nfqnl_mangle()): the kernel then segments it in software, and
 * tcp_gso_segment() sums the pseudo header of the IP header in front of
 * TCP.  Right only for a result of the same length and layout (a
 * transit rewrite) whose TCP's final destination is that header's. */
static bool reinject_gso_payload_ok(struct pkt *p)
{
	const struct gso_info *gi;

	if (p->len != p->orig_len)
		return false;
	gi = gso_pkt_info(p);
	return gi && gi->l4_off == p->gso_l4_off && gso_kernel_can_segment(gi);
}

/* A super-packet result that may not go as its payload, or one the
 * kernel would segment wrongly from it, that the plain way would send as
 * a payload: into the SID's device when it has a mark (rtrules.c gives
 * End.X, End.T, End.DX6, End.DT6, End.DT46 one with `offload yes`: the
 * reinjection device with the mark), else into srv6d's reinjection
 * device. */
static enum reinject_action reinject_gso_unpayload(const struct sid_runtime *rt,
						   const struct sid *sid,
						   const struct pkt *p)
{
	if (!p->set_mark)
		return REINJECT_OWN_DEV;
	if (sid && pkt_ip_version(p) == 6 && behavior_has_dev6(sid->behavior) &&
	    sid_runtime_get(rt, sid).ifindex)
		return REINJECT_DEV;
	return REINJECT_DROP_REASON;
}

/* The way a super-packet result goes, from the way `a` its segments would
 * go one by one (reinject_decide_single()). */
static enum reinject_action reinject_decide_gso(const struct config *cfg,
						const struct runstate *rs,
						const struct sid_runtime *rt,
						struct pkt *p,
						enum reinject_action a,
						enum drop_reason *reason)
{
	const struct gso_info *gi;

	if (a == REINJECT_PAYLOAD) {
		if (reinject_gso_payload_ok(p))
			return REINJECT_PAYLOAD;
		a = reinject_gso_unpayload(rt, reinject_sid(cfg, rs, p), p);
	}
	if (a != REINJECT_DEV && a != REINJECT_OWN_DEV) {
		if (a == REINJECT_L2 || a == REINJECT_DROP_REASON) {
			*reason = DROP_GSO;
			return REINJECT_DROP_REASON;
		}
		return a;	/* accepted, dropped, local */
	}
	gi = gso_pkt_info(p);
	if (gso_vnet_can_carry(gi))
		return a == REINJECT_DEV ? REINJECT_VNET_DEV :
					   REINJECT_VNET_OWN_DEV;
	if (gi && gi->l4_proto == IPPROTO_TCP)
		return REINJECT_SEGMENT;	/* IP in IP */
	*reason = DROP_GSO;			/* not TCP */
	return REINJECT_DROP_REASON;
}

/* The bounce of a header queue's packet (`header-queue`): NF_REPEAT with
 * the bounce bit, for its hook's rules to queue it whole; one that
 * carries the bit already (whatever the rest of its mark: a rule may
 * have rewritten other bits) came back through rules that queue bounced
 * packets to a header queue again: DROP_BOUNCE_LOOP.  So a packet is
 * bounced once at most. */
static enum reinject_action reinject_decide_bounce(const struct config *cfg,
						   const struct runstate *rs,
						   const struct pkt *p,
						   enum drop_reason *reason)
{
	if (config_mark_bounced(cfg, p->mark)) {
		*reason = DROP_BOUNCE_LOOP;
		return REINJECT_DROP_REASON;
	}
	return REINJECT_BOUNCE;
}

/* A header queue's packet cut short (p->truncated), processed and not
 * dropped: only its headers are here, so it is accepted unchanged, or
 * accepted with the mark of the kernel route that makes its result from
 * the original (p->facts: a plain End's, a policy's H.Encaps*); any
 * other is bounced to be processed whole. */
static enum reinject_action reinject_decide_truncated(const struct config *cfg,
						      const struct runstate *rs,
						      const struct pkt *p,
						      enum drop_reason *reason)
{
	if (p->verdict == PKT_ACCEPT)
		return REINJECT_ACCEPT;
	if (p->facts.kernel != PKT_KERNEL_NONE &&
	    p->facts.kernel_from_original)
		return REINJECT_KERNEL;
	return reinject_decide_bounce(cfg, rs, p, reason);
}

/* Processing dropped p (PKT_OUT_DROP), answered it with an ICMP error
 * (PKT_OUT_ICMP) or handed it to the kernel (PKT_OUT_HANDOFF: End.DT*
 * without a route, marked for the `unreachable` rule after its table):
 * counted dropped, whatever happens to what goes on. */
static bool reinject_outcome_dropped(const struct pkt *p)
{
	return p->outcome == PKT_OUT_DROP || p->outcome == PKT_OUT_ICMP ||
	       p->outcome == PKT_OUT_HANDOFF;
}

enum reinject_action reinject_decide(const struct config *cfg,
				     const struct runstate *rs,
				     const struct sid_runtime *rt,
				     struct pkt *p,
				     enum drop_reason *reason)
{
	enum reinject_action a;

	if (p->verdict == PKT_REPEAT)	/* the worker's bounce */
		return reinject_decide_bounce(cfg, rs, p, reason);
	a = reinject_decide_single(cfg, rs, rt, p, reason);
	if (reinject_outcome_dropped(p)) {
		if (p->outcome == PKT_OUT_DROP)
			return REINJECT_DROP;
		/* An SR proxy's error goes back into its service. */
		if (p->outcome == PKT_OUT_ICMP && p->facts.icmp_to_service &&
		    p->hw_src_len == ETH_ALEN)
			return REINJECT_SERVICE;
		/* End.DT* without a route: the inner super-packet goes to
		 * the kernel's `unreachable` rule the way its super-packet
		 * results go (whole, behind a virtio_net_hdr). */
		if (p->outcome == PKT_OUT_HANDOFF && p->gso &&
		    p->verdict == PKT_NEW_BYTES)
			return reinject_decide_gso(cfg, rs, rt, p, a, reason);
		/* An ICMP error built in place of a super-packet: the
		 * queued skb it would be the payload of keeps its GSO
		 * state, and the error would be lost (checked on Linux
		 * 6.18: no Time Exceeded reached the sender). */
		if (p->facts.icmp_of_gso && a == REINJECT_PAYLOAD)
			return REINJECT_OWN_DEV;
		return a;
	}
	if (a == REINJECT_DROP ||	/* a message nfq.c could not parse */
	    a == REINJECT_PUNT)		/* End.OP's: gone to the OAM process */
		return a;
	if (p->truncated)
		return reinject_decide_truncated(cfg, rs, p, reason);
	if (!p->gso || p->verdict != PKT_NEW_BYTES)
		return a;
	/* The kernel makes the result from the original: no bytes back. */
	if (p->facts.kernel != PKT_KERNEL_NONE &&
	    p->facts.kernel_from_original)
		return REINJECT_KERNEL;
	a = reinject_decide_gso(cfg, rs, rt, p, a, reason);
	/* An encapsulation the kernel's seg6 makes from the inner packet:
	 * not cut, the inner super-packet whole with the mark. */
	if (a == REINJECT_SEGMENT && p->facts.kernel == PKT_KERNEL_ENCAP)
		return REINJECT_KERNEL_INNER;
	return a;
}

uint32_t reinject_mtu_room(uint32_t mtu, uint32_t hdr_len, uint32_t room)
{
	if (mtu > hdr_len && mtu - hdr_len < room)
		return mtu - hdr_len;
	return room;
}

/* The MTU of the route the result p takes once in the kernel (the SID's
 * next hop, its table, or the main tables for its destination); 0 when
 * unknown (no mirror, no route, a local route). */
static uint32_t reinject_route_mtu(const struct rtmirror *m,
				   const struct config *cfg,
				   const struct runstate *rs, const struct pkt *p)
{
	const struct sid *sid = reinject_sid(cfg, rs, p);
	const struct behavior_desc *d = sid ? behavior_desc(sid->behavior) :
					      NULL;
	unsigned v = pkt_ip_version(p);
	int family = v == 6 ? AF_INET6 : AF_INET;
	const void *dst = p->data + (v == 6 ? 24 : 16);
	uint32_t table = FIB_TABLE_UNSPEC;
	struct egress e;

	if (!m)
		return 0;
	if (d && d->route == BHV_ROUTE_NEXTHOP) {
		/* End.X's or End.DX6's nh6, End.DX4's nh4 (the result's
		 * family, USD aside: then its destination is used). */
		if (v == 4 && behavior_nexthop_is_v4(sid->behavior))
			dst = &sid->nh4;
		else if (v == 6 && !behavior_nexthop_is_v4(sid->behavior))
			dst = &sid->nh6;
	} else if (d && d->route == BHV_ROUTE_TABLE) {
		table = sid->table;
	}
	if (egress_route(m, family, table, dst, 0, &e) != EGRESS_OK)
		return 0;
	return e.mtu;
}

uint16_t reinject_gso_size(const struct rtmirror *m, const struct config *cfg,
			   const struct runstate *rs,
			   struct pkt *p, uint32_t dev_ifindex)
{
	const struct rtmirror_link *in = m ? rtmirror_link_get(m, p->indev) :
					     NULL;
	const struct rtmirror_link *dev = m ? rtmirror_link_get(m, dev_ifindex) :
					      NULL;
	const struct gso_info *gi = gso_pkt_info(p);
	uint32_t room = UINT32_MAX, tcp_len, queued_hdr;

	if (!gi || gi->l4_proto != IPPROTO_TCP)
		return 0;
	tcp_len = (uint32_t)gi->hdr_len - gi->l4_off;
	queued_hdr = (uint32_t)p->gso_l4_off + tcp_len;
	if (in)
		room = reinject_mtu_room(in->mtu, queued_hdr, room);
	if (dev)
		room = reinject_mtu_room(dev->mtu, gi->hdr_len, room);
	room = reinject_mtu_room(reinject_route_mtu(m, cfg, rs, p), gi->hdr_len,
				 room);
	if (room == UINT32_MAX)	/* nothing known: IPv6's minimum MTU */
		room = REINJECT_GSO_MIN_MTU > gi->hdr_len ?
		       REINJECT_GSO_MIN_MTU - gi->hdr_len : 0;
	return room > 0xffff ? 0xffff : (uint16_t)room;
}

/* ---- carrying the decision out ------------------------------------------ */

/* pkt_tx_failed_fn: a frame of packet `cookie` did not leave: it is a
 * drop, counted by reinject_count() (the first failure's reason). */
static void reinject_tx_failed(void *cookie, int err, void *arg)
{
	struct pkt *p = cookie;

	(void)arg;
	if (err == EAGAIN || err == EWOULDBLOCK || err == ENOBUFS)
		p->way.tx_full = true;
	if (p->way.failed)
		return;
	p->way.failed = true;
	p->way.reason = err == EMSGSIZE ? DROP_TOO_BIG : DROP_REINJECT;
}

/* Send the frames queued so far (their packets' failures are marked for
 * reinject_count()) and empty the segment area. */
static void reinject_tx_send(struct reinject_io *io)
{
	if (io->tx && pkt_tx_count(io->tx))
		pkt_tx_flush(io->pkt_fd, io->tx, reinject_tx_failed, NULL);
	if (io->seg)
		seg_area_reset(io->seg);
}

uint32_t reinject_ifindex(const struct config *cfg,
			  const struct runstate *rs,
			  const struct sid_runtime *rt, const struct pkt *p)
{
	const struct sid *sid = reinject_sid(cfg, rs, p);

	return sid ? sid_runtime_get(rt, sid).ifindex : 0;
}

/* The EtherType of the IP packet at p. */
static uint16_t reinject_eth_type(const struct pkt *p)
{
	return pkt_ip_version(p) == 4 ? ETH_P_IP : ETH_P_IPV6;
}

/* The Ethernet header (ETH_HLEN bytes at eth) of a frame of EtherType
 * type sent into the reinjection device (mark 0) or the veth pair of the
 * VRF SID of `mark`, to its receiving end.  Into the reinjection device
 * the source address carries the frame's SO_MARK so_mark
 * (rtrules_dev_mac() of it): the steering guard puts it back right
 * before routing, whatever rewrote the mark in between (steer.h G0). */
static void reinject_eth_write(uint8_t *eth, uint32_t mark, uint32_t so_mark,
			       uint16_t type)
{
	rtrules_dev_mac(mark, true, eth);
	rtrules_dev_mac(mark ? mark : so_mark, false, eth + ETH_ALEN);
	eth[12] = (uint8_t)(type >> 8);
	eth[13] = (uint8_t)type;
}

/* REINJECT_DEV: put an Ethernet header to the receiving end of the
 * device (mark as reinject_eth_write()) in front of the IPv4 or IPv6
 * packet (in the headroom the outer headers left).  Returns 0, or -1
 * without headroom. */
static int reinject_eth_push(struct pkt *p, uint32_t mark, uint32_t so_mark)
{
	uint16_t type = reinject_eth_type(p);
	uint8_t *eth = pkt_push(p, ETH_HLEN);

	if (!eth)
		return -1;
	reinject_eth_write(eth, mark, so_mark, type);
	return 0;
}

void reinject_charge(struct pkt *p, enum drop_reason reason)
{
	struct sid_stats *s = p->st;

	if (!s || p->outcome != PKT_OUT_OK)
		return;
	s->packets--;
	s->bytes -= p->orig_len;
	s->errors++;
	s->drops[reason]++;
	p->st = NULL;
	p->outcome = PKT_OUT_DROP;
	p->reason = reason;
}

/* The SO_MARK of a frame of p's result with srv6d's `mark` (0: none)
 * sent into the reinjection device: the mark's value under mark-mask and
 * the bits of the queued packet's mark outside it (config.h), which the
 * new skb would not have otherwise. */
static uint32_t reinject_so_mark(const struct config *cfg,
				 const struct pkt *p, uint32_t mark)
{
	return config_mark_apply(cfg, p->mark,
				 mark ? config_mark_value(cfg, mark) : 0);
}

/* The marks of a frame of p's result with `mark` (0: none) sent into
 * ifindex: into the reinjection device (io's) it carries the mark as its
 * SO_MARK (its SID's fwmark rules route it, rtrules.h), to the device's
 * own address; into a VRF SID's veth pair it goes without, to the pair's
 * address of the mark.  Returns the SO_MARK (0: none), with the mark of
 * the Ethernet address in *mac_mark. */
static uint32_t reinject_frame_mark(const struct config *cfg,
				    const struct pkt *p,
				    const struct reinject_io *io,
				    uint32_t ifindex, uint32_t mark,
				    uint32_t *mac_mark)
{
	bool shared = ifindex == io->dev_ifindex;

	*mac_mark = shared ? 0 : mark;
	return shared ? reinject_so_mark(cfg, p, mark) : 0;
}

/* REINJECT_L2 / REINJECT_DEV / REINJECT_OWN_DEV: the frame goes with the
 * batch (reinject_flush()).  Returns 0 once queued, else -1 with the
 * reason. */
static int reinject_frame(const struct config *cfg,
			  const struct runstate *rs,
			  const struct sid_runtime *rt, struct pkt *p,
			  enum reinject_action a, const struct reinject_io *io,
			  enum drop_reason *reason)
{
	bool own = a == REINJECT_OWN_DEV;
	uint32_t ifindex = own ? io->dev_ifindex : reinject_ifindex(cfg, rs, rt, p);
	uint32_t mac_mark, so_mark = 0;

	if (a != REINJECT_L2) {
		so_mark = reinject_frame_mark(cfg, p, io, ifindex,
					      own ? 0 : p->out_mark, &mac_mark);
		if (reinject_eth_push(p, mac_mark, so_mark) < 0) {
			*reason = DROP_NO_HEADROOM;
			return -1;
		}
	}
	*reason = DROP_REINJECT;
	if (io->pkt_fd < 0 || !io->tx || !ifindex)
		return -1;
	/* Sent with the batch (reinject_flush()). */
	return pkt_tx_add_mark(io->tx, ifindex, p->data, p->len, so_mark, p);
}

/* REINJECT_SERVICE: the error goes out of the in-interface of the
 * packet it answers, to that frame's source (the service), from the
 * link's own Ethernet address, with the batch.  Returns 0 once queued,
 * else -1 with the reason: DROP_REINJECT when the mirror does not know
 * the link's address (or there is no socket), DROP_NO_HEADROOM. */
static int reinject_service_frame(struct pkt *p, const struct reinject_io *io,
				  enum drop_reason *reason)
{
	const struct rtmirror_link *l = io->mirror ?
		rtmirror_link_get(io->mirror, p->indev) : NULL;
	uint16_t type = reinject_eth_type(p);
	uint8_t *eth;

	*reason = DROP_REINJECT;
	if (!l || !l->has_hwaddr || io->pkt_fd < 0 || !io->tx)
		return -1;
	eth = pkt_push(p, ETH_HLEN);
	if (!eth) {
		*reason = DROP_NO_HEADROOM;
		return -1;
	}
	memcpy(eth, p->hw_src, ETH_ALEN);
	memcpy(eth + ETH_ALEN, l->hwaddr, ETH_ALEN);
	eth[12] = (uint8_t)(type >> 8);
	eth[13] = (uint8_t)type;
	return pkt_tx_add(io->tx, p->indev, p->data, p->len, p);
}

/* REINJECT_VNET_OWN_DEV / REINJECT_VNET_DEV: the TCP super-packet goes
 * whole, behind its virtio_net_hdr, with the batch.  Returns 0 once
 * queued, else -1 with the reason. */
static int reinject_vnet_frame(const struct config *cfg,
			       const struct runstate *rs,
			       const struct sid_runtime *rt, struct pkt *p,
			       enum reinject_action a,
			       const struct reinject_io *io,
			       enum drop_reason *reason)
{
	bool own = a == REINJECT_VNET_OWN_DEV;
	uint32_t ifindex = own ? io->dev_ifindex : reinject_ifindex(cfg, rs, rt, p);
	uint32_t mac_mark, so_mark = reinject_frame_mark(cfg, p, io, ifindex,
							 own ? 0 : p->out_mark,
							 &mac_mark);
	struct virtio_net_hdr vh;

	*reason = DROP_REINJECT;
	if (io->pkt_fd < 0 || !io->tx || !pkt_tx_is_vnet(io->tx) || !ifindex)
		return -1;
	*reason = DROP_GSO;
	if (gso_vnet_prepare(p->data, p->len, gso_pkt_info(p),
			     reinject_gso_size(io->mirror, cfg, rs, p, ifindex),
			     ETH_HLEN, &vh) < 0)
		return -1;
	*reason = DROP_NO_HEADROOM;
	if (reinject_eth_push(p, mac_mark, so_mark) < 0)
		return -1;
	*reason = DROP_REINJECT;
	return pkt_tx_add_vnet_mark(io->tx, ifindex, &vh, p->data, p->len,
				    so_mark, p);
}

/* A packet that came with a partial checksum (p->csum_partial, `offload yes`)
 * and leaves as a plain frame (a device, not a payload nor the vnet
 * socket) would enter the kernel with only its pseudo-header sum in the
 * checksum field (the packet socket sends it as it is, CHECKSUM_NONE):
 * complete it (counted in csum_completed).  The field's sum is of the
 * pseudo header the sender used: a decapsulation's inner one. */
static void reinject_csum_fix(struct pkt *p, enum reinject_action a,
			      struct worker_stats *st)
{
	if (!p->csum_partial || p->gso ||
	    (a != REINJECT_DEV && a != REINJECT_OWN_DEV))
		return;
	if (gso_csum_complete(p->data, p->len) == 0)
		st->csum_completed++;
	p->csum_partial = false;
}

/* ---- encapsulated super-packets (REINJECT_SEGMENT) ---------------------- */

/* Queue the first frames of p's segments in io->tx: send the frames
 * before them when the area or the batch is full; each frame with
 * so_mark (reinject_frame_mark()).  Returns the frames
 * queued and *total (0: p cannot be cut, or one frame does not fit an
 * empty area). */
static unsigned reinject_segment_first(struct reinject_io *io, struct pkt *p,
				       uint16_t gso_size, const uint8_t *eth,
				       uint32_t ifindex, uint32_t so_mark,
				       unsigned *total)
{
	uint8_t *frames[PKT_TX_MAX];
	uint32_t lens[PKT_TX_MAX];
	unsigned n;

	for (int tries = 0; tries < 2; tries++) {
		n = seg_cut(io->seg, p->data, p->len, gso_pkt_info(p),
			    gso_size, eth, 0,
			    PKT_TX_MAX - pkt_tx_count(io->tx), frames, lens,
			    total);
		if (n || !*total)
			break;
		reinject_tx_send(io);	/* room for it: send the others */
	}
	for (unsigned k = 0; k < n; k++)
		pkt_tx_add_mark(io->tx, ifindex, frames[k], lens[k], so_mark,
				p);
	return n;
}

/* Queue the rest of p's segments from segment `first`, sending the
 * batch whenever it is full (the frames keep their order).  Returns the
 * segments queued. */
static unsigned reinject_segment_rest(struct reinject_io *io, struct pkt *p,
				      uint16_t gso_size, const uint8_t *eth,
				      uint32_t ifindex, uint32_t so_mark,
				      unsigned first, unsigned total)
{
	uint8_t *frames[PKT_TX_MAX];
	uint32_t lens[PKT_TX_MAX];
	unsigned n, all, queued = 0;
	bool sent = false;

	while (first < total) {
		n = seg_cut(io->seg, p->data, p->len, gso_pkt_info(p),
			    gso_size, eth, first,
			    PKT_TX_MAX - pkt_tx_count(io->tx), frames, lens,
			    &all);
		if (!n && sent)
			break;	/* never: its first frame fitted */
		sent = !n;
		if (!n) {
			reinject_tx_send(io);
			continue;
		}
		for (unsigned k = 0; k < n; k++)
			pkt_tx_add_mark(io->tx, ifindex, frames[k], lens[k],
					so_mark, p);
		queued += n;
		first += n;
	}
	return queued;
}

/* REINJECT_SEGMENT: p's segments for the device a frame of it would take
 * (the reinjection device, a marked result's with its mark as SO_MARK; a
 * VRF SID's veth pair), sent with the batch; counted in gso_segments here.  Returns 0 once queued, else
 * -1: DROP_REINJECT without the device or socket, DROP_TOO_BIG when it
 * cannot be cut (a segment larger than the area). */
static int reinject_segment(const struct config *cfg,
			    const struct runstate *rs,
			    const struct sid_runtime *rt, struct pkt *p,
			    struct reinject_io *io, struct worker_stats *st,
			    enum drop_reason *reason)
{
	uint32_t mark = p->set_mark ? p->out_mark : 0;
	uint32_t ifindex = mark ? reinject_ifindex(cfg, rs, rt, p) :
				  io->dev_ifindex;
	/* The headend's choice (headend_seg_size()); for a transit result
	 * (encapsulated traffic that may not be a payload) what fits the
	 * MTUs on the way (reinject_gso_size()), else 1280's. */
	uint16_t gso_size = p->facts.gso_size ? p->facts.gso_size :
			    reinject_gso_size(io->mirror, cfg, rs, p, ifindex);
	uint32_t mac_mark, so_mark = reinject_frame_mark(cfg, p, io, ifindex,
							 mark, &mac_mark);
	uint8_t eth[ETH_HLEN];
	unsigned n, total = 0;

	if (!gso_size)
		gso_size = seg_size_default(gso_pkt_info(p));
	*reason = DROP_REINJECT;
	if (io->pkt_fd < 0 || !io->tx || !io->seg || !ifindex)
		return -1;
	reinject_eth_write(eth, mac_mark, so_mark, reinject_eth_type(p));
	n = reinject_segment_first(io, p, gso_size, eth, ifindex, so_mark,
				   &total);
	*reason = DROP_TOO_BIG;
	if (!n)
		return -1;
	st->gso_segments += n;
	st->gso_segments += reinject_segment_rest(io, p, gso_size, eth,
						  ifindex, so_mark, n, total);
	return 0;
}

/* The mark's second carrier (pkt.h verdict_priority): with `steering
 * auto` the steering guard's G0P (steer.h) copies a priority that holds
 * one of srv6d's marks under mark-mask back into the mark right before
 * routing and clears it, so a rule between srv6d's hook and routing that
 * rewrites the mark (`CONNMARK --restore-mark`, an operator's MARK)
 * cannot route srv6d's result by another table.  Only for a packet that
 * came with priority 0 (the guard puts 0 back); without steering there
 * is no guard, and a priority left set would choose the egress qdisc's
 * class; nor from another hook than prerouting (an operator's own rule
 * that queues from output), which the guard does not see.  A bounce
 * (NF_REPEAT) gets none: nfq_verdict_add() sends it with NF_ACCEPT only. */
static void reinject_mark_carrier(const struct config *cfg, struct pkt *p)
{
	p->verdict_priority = cfg->steering && !p->priority &&
			      p->hook == NF_INET_PRE_ROUTING ?
			      p->verdict_mark : 0;
}

/* Carry out decision a for p: queue its verdict on q and, for the ways
 * other than the verdict, its frames in io->tx (sent by reinject_flush())
 * or its send on the raw socket.  Returns 0, or -1 when p does not go,
 * with *reason (REINJECT_DROP_REASON: the one reinject_decide() gave). */
static int reinject_carry_out(const struct config *cfg,
			      const struct runstate *rs,
			      const struct sid_runtime *rt, struct pkt *p,
			      struct nfq *q, enum reinject_action a,
			      struct reinject_io *io, struct worker_stats *st,
			      enum drop_reason *reason)
{
	if (p->set_mark) {	/* a result's own (End.X's, ...) */
		p->verdict_mark = config_mark_apply(cfg, p->mark,
				config_mark_value(cfg, p->out_mark));
		reinject_mark_carrier(cfg, p);
	}
	switch (a) {
	case REINJECT_ACCEPT:
		nfq_verdict_add(q, p, NF_ACCEPT, false);
		return 0;
	case REINJECT_PAYLOAD:
		nfq_verdict_add(q, p, NF_ACCEPT, true);
		return 0;
	case REINJECT_KERNEL:
		/* The original with the kernel route's mark: the kernel
		 * makes the result (kend.h, kencap.h). */
		p->set_mark = true;
		p->out_mark = p->facts.kernel_mark;
		p->verdict_mark = config_mark_apply(cfg, p->mark,
				config_mark_value(cfg, p->out_mark));
		reinject_mark_carrier(cfg, p);
		nfq_verdict_add(q, p, NF_ACCEPT, false);
		return 0;
	case REINJECT_BOUNCE:
		/* the bounce bit alone in srv6d's field */
		p->set_mark = true;
		p->verdict_mark = config_mark_apply(cfg, p->mark,
						    config_bounce_bit(cfg));
		p->out_mark = 0;
		nfq_verdict_add(q, p, NF_REPEAT, false);
		return 0;
	default:
		break;
	}
	/* The original is done with; what goes on goes another way. */
	nfq_verdict_add(q, p, NF_DROP, false);
	/* A cut super-packet may have filled the batch's frames: send them
	 * before one more (counting waits for reinject_flush() anyway). */
	if (io->tx && pkt_tx_count(io->tx) >= PKT_TX_MAX)
		reinject_tx_send(io);
	switch (a) {
	case REINJECT_L2:
	case REINJECT_DEV:
	case REINJECT_OWN_DEV:
		reinject_csum_fix(p, a, st);
		return reinject_frame(cfg, rs, rt, p, a, io, reason);
	case REINJECT_VNET_OWN_DEV:
	case REINJECT_VNET_DEV:
		return reinject_vnet_frame(cfg, rs, rt, p, a, io, reason);
	case REINJECT_KERNEL_INNER:
		/* gso_size judged on the encapsulated result: its outer
		 * headers count. */
		return kencap_send(p, io->pkt_fd >= 0 ? io->tx : NULL,
				   io->dev_ifindex,
				   reinject_so_mark(cfg, p, p->facts.kernel_mark),
				   reinject_gso_size(io->mirror, cfg, rs, p,
						     io->dev_ifindex), reason);
	case REINJECT_SEGMENT:
		return reinject_segment(cfg, rs, rt, p, io, st, reason);
	case REINJECT_SERVICE:
		return reinject_service_frame(p, io, reason);
	case REINJECT_LOCAL:
		/* The error leaves as this node's own packet (OUTPUT, then
		 * routing). */
		*reason = DROP_REINJECT;
		return io->raw_fd >= 0 &&
		       raw4_sock_send(io->raw_fd, p->data, p->len) == 0 ? 0 : -1;
	case REINJECT_DROP_REASON:
		return -1;
	case REINJECT_DROP:
	default:
		return 0;
	}
}

void reinject_packet(const struct config *cfg, const struct runstate *rs,
		     const struct sid_runtime *rt,
		     struct pkt *p, struct nfq *q, struct reinject_io *io,
		     struct worker_stats *st)
{
	enum drop_reason reason = DROP_REINJECT;
	enum reinject_action a = reinject_decide(cfg, rs, rt, p, &reason);

	p->way = (struct pkt_way){ .action = (uint8_t)a };
	if (a == REINJECT_BOUNCE || reason == DROP_BOUNCE_LOOP)
		proc_count_undo(p);	/* counted again when it comes whole */
	if (reinject_carry_out(cfg, rs, rt, p, q, a, io, st, &reason) < 0) {
		p->way.failed = true;
		p->way.reason = (uint8_t)reason;
	}
	if (io->npending < REINJECT_PENDING_MAX)
		io->pending[io->npending++] = p;
	else
		reinject_count(p, st);	/* never: a batch is NFQ_BATCH */
}

/* A drop at reinjection of a result processing counted as a success (or
 * did not count): the worker's counters and the SID's/policy's. */
static void reinject_drop(struct pkt *p, struct worker_stats *st,
			  enum drop_reason reason)
{
	if (reason == DROP_GSO)
		st->gso_refused++;
	st->drops[reason]++;
	st->dropped++;
	reinject_charge(p, reason);
}

/* What a headend's encapsulated super-packet that the kernel does not
 * encapsulate, and that is cut, is counted under. */
static void reinject_count_fallback(const struct pkt *p,
				    struct worker_stats *st)
{
	if (p->gso && p->facts.gso_size &&
	    p->facts.kernel == PKT_KERNEL_NONE &&
	    (unsigned)p->facts.kencap_fallback < KENCAP_FB__COUNT)
		st->kencap_fallback[p->facts.kencap_fallback]++;
}

void reinject_count(struct pkt *p, struct worker_stats *st)
{
	enum reinject_action a = p->way.action;

	if (reinject_outcome_dropped(p)) {
		/* Its reason and its SID's error are counted already. */
		if (p->way.failed && p->outcome == PKT_OUT_ICMP)
			st->icmp_send_errors++;
		st->dropped++;
		return;
	}
	if (p->way.failed) {
		if (p->way.tx_full && p->way.reason == DROP_REINJECT)
			st->tx_full++;
		reinject_drop(p, st, p->way.reason);
		return;
	}
	switch (a) {
	case REINJECT_ACCEPT:
		st->accepted++;
		return;
	case REINJECT_PAYLOAD:
		st->forwarded++;
		return;
	case REINJECT_KERNEL:
		st->forwarded++;
		if (p->facts.kernel == PKT_KERNEL_END)
			st->kend++;
		else
			st->kencap++;
		return;
	case REINJECT_BOUNCE:
		/* An encapsulation's fallback reason is counted once, when
		 * it comes back whole and is cut. */
		st->bounced++;
		return;
	case REINJECT_DROP:
		/* not processed: a queue message nfq.c could not parse */
		reinject_drop(p, st, DROP_BAD_MESSAGE);
		return;
	case REINJECT_KERNEL_INNER:
		st->kencap++;
		st->gso_vnet++;
		st->injected++;
		return;
	case REINJECT_VNET_OWN_DEV:
	case REINJECT_VNET_DEV:
		st->gso_vnet++;
		st->injected++;
		return;
	case REINJECT_SEGMENT:
		reinject_count_fallback(p, st);
		st->injected++;
		return;
	default:
		st->injected++;
		return;
	}
}

enum worker_outcome reinject_outcome(const struct pkt *p,
				     enum drop_reason *reason)
{
	if (reinject_outcome_dropped(p)) {
		*reason = p->reason;
		return WORKER_OUT_DROPPED;
	}
	if (p->way.failed) {
		*reason = (enum drop_reason)p->way.reason;
		return WORKER_OUT_DROPPED;
	}
	switch ((enum reinject_action)p->way.action) {
	case REINJECT_ACCEPT:
		return WORKER_OUT_ACCEPTED;
	case REINJECT_PAYLOAD:
	case REINJECT_KERNEL:
		return WORKER_OUT_FORWARDED;
	case REINJECT_BOUNCE:
		return WORKER_OUT_BOUNCED;
	case REINJECT_DROP:
		*reason = DROP_BAD_MESSAGE;
		return WORKER_OUT_DROPPED;
	default:
		return WORKER_OUT_INJECTED;
	}
}

const char *reinject_action_name(enum reinject_action a)
{
	static const char *const names[] = {
		[REINJECT_ACCEPT] = "accept",
		[REINJECT_PAYLOAD] = "payload",
		[REINJECT_OWN_DEV] = "own-dev",
		[REINJECT_L2] = "l2",
		[REINJECT_DEV] = "dev",
		[REINJECT_LOCAL] = "local",
		[REINJECT_DROP] = "drop",
		[REINJECT_DROP_REASON] = "drop",
		[REINJECT_VNET_OWN_DEV] = "vnet-own-dev",
		[REINJECT_VNET_DEV] = "vnet-dev",
		[REINJECT_SEGMENT] = "segment",
		[REINJECT_KERNEL] = "kernel",
		[REINJECT_KERNEL_INNER] = "kernel-inner",
		[REINJECT_BOUNCE] = "bounce",
		[REINJECT_PUNT] = "punt",
		[REINJECT_SERVICE] = "service",
	};

	if ((unsigned)a >= sizeof(names) / sizeof(names[0]) || !names[a])
		return "unknown";
	return names[a];
}

void reinject_flush(struct reinject_io *io, struct worker_stats *st)
{
	reinject_tx_send(io);
	for (unsigned i = 0; i < io->npending; i++)
		reinject_count(io->pending[i], st);
	io->npending = 0;
}

/* ---- what the running kernel accepts ------------------------------------ */

/* Major and minor of a kernel release ("7.2.0-1-amd64"); 0.0 when it
 * cannot be read. */
static unsigned reinject_release_version(const char *release)
{
	unsigned major = 0, minor = 0;

	if (sscanf(release, "%u.%u", &major, &minor) < 2)
		return 0;
	return major * 1000 + minor;
}

enum payload_rule reinject_kernel_rule(const char *release, bool init_userns,
				       char *why, size_t whylen)
{
	unsigned v = reinject_release_version(release);

	if (!init_userns && v >= 7001) {
		snprintf(why, whylen, "kernel %s >= 7.1 refuses any payload "
			 "outside the initial user namespace", release);
		return PAYLOAD_NONE;
	}
	if (v >= 7002) {
		snprintf(why, whylen, "kernel %s >= 7.2 refuses a payload "
			 "that changes the header chain", release);
		return PAYLOAD_KEEP_CHAIN;
	}
	snprintf(why, whylen, "kernel %s < 7.2 takes any payload", release);
	return PAYLOAD_ANY;
}

bool reinject_uid_map_initial(const char *map)
{
	unsigned long inside, outside, count;
	int used = 0;

	/* The initial user namespace maps all of it to itself, one line. */
	if (sscanf(map, "%lu %lu %lu %n", &inside, &outside, &count,
		   &used) < 3)
		return false;
	return inside == 0 && outside == 0 && count == 4294967295ul &&
	       map[used] == '\0';
}

/* Is this process in the initial user namespace (its uid_map)?  A map
 * that cannot be read counts as the initial one. */
static bool reinject_init_userns(void)
{
	char map[512];
	size_t n;
	FILE *f = fopen("/proc/self/uid_map", "re");

	if (!f)
		return true;
	n = fread(map, 1, sizeof(map) - 1, f);
	fclose(f);
	map[n] = '\0';
	return reinject_uid_map_initial(map);
}

enum payload_rule reinject_running_kernel(char *why, size_t whylen)
{
	struct utsname u;

	if (uname(&u) < 0)
		snprintf(u.release, sizeof(u.release), "unknown");
	return reinject_kernel_rule(u.release, reinject_init_userns(), why,
				    whylen);
}

void reinject_resolve(struct runstate *rs, const struct config *cfg)
{
	switch (cfg->reinject) {
	case REINJECT_MODE_VERDICT:
		rs->payload = PAYLOAD_ANY;
		snprintf(rs->payload_why, sizeof(rs->payload_why),
			 "reinject verdict");
		return;
	case REINJECT_MODE_NO_PAYLOAD:
		rs->payload = PAYLOAD_NONE;
		snprintf(rs->payload_why, sizeof(rs->payload_why),
			 "reinject no-payload");
		return;
	case REINJECT_MODE_AUTO:
	default:
		break;
	}
	rs->payload = reinject_running_kernel(rs->payload_why,
					      sizeof(rs->payload_why));
}

const char *reinject_mode_name(enum reinject_mode m)
{
	switch (m) {
	case REINJECT_MODE_VERDICT:
		return "verdict";
	case REINJECT_MODE_NO_PAYLOAD:
		return "no-payload";
	case REINJECT_MODE_AUTO:
	default:
		return "auto";
	}
}

const char *reinject_payload_name(enum payload_rule r)
{
	switch (r) {
	case PAYLOAD_ANY:
		return "any";
	case PAYLOAD_KEEP_CHAIN:
		return "keep-chain";
	case PAYLOAD_NONE:
	default:
		return "none";
	}
}
