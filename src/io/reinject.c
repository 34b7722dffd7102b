/* reinject.c - verdict payload, TUN, a device or the raw socket: how a processed packet
 * re-enters the kernel (the rules are in include/reinject.h). */
#include <netinet/in.h>	/* before linux/netfilter.h */
#include <errno.h>
#include <linux/if_ether.h>
#include <linux/netfilter.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include "behavior_table.h"
#include "log.h"
#include "reinject.h"
#include "tun.h"

/* The calling worker's packet socket: opened on its first frame (one
 * socket() per worker thread, never per packet), closed by the key's
 * destructor when the thread exits.  PKT_SOCK_FAILED: the open failed
 * once; it is not retried (no syscall per packet), every frame is a
 * DROP_REINJECT. */
#define PKT_SOCK_NONE	(-1)
#define PKT_SOCK_FAILED	(-2)

static __thread int pkt_sock = PKT_SOCK_NONE;
static pthread_key_t pkt_sock_key;
static pthread_once_t pkt_sock_once = PTHREAD_ONCE_INIT;

static void pkt_sock_close(void *arg)
{
	int fd = (int)(intptr_t)arg - 1;

	if (fd >= 0)
		close(fd);
}

static void pkt_sock_key_create(void)
{
	if (pthread_key_create(&pkt_sock_key, pkt_sock_close) != 0)
		log_msg(LOG_WARNING, "reinject: no thread key: packet sockets "
			"will stay open until exit");
}

/* The worker's packet socket, or -1. */
static int reinject_pkt_sock(void)
{
	if (pkt_sock >= 0)
		return pkt_sock;
	if (pkt_sock == PKT_SOCK_FAILED)
		return -1;
	pthread_once(&pkt_sock_once, pkt_sock_key_create);
	pkt_sock = pkt_sock_open();
	if (pkt_sock < 0) {
		log_msg(LOG_ERR, "reinject: cannot open a packet socket: %s; "
			"End.DX2, End.DX4, End.DT4 and End.DT46 results of "
			"this worker are dropped", strerror(errno));
		pkt_sock = PKT_SOCK_FAILED;
		return -1;
	}
	pthread_setspecific(pkt_sock_key, (void *)(intptr_t)(pkt_sock + 1));
	return pkt_sock;
}

/* The SID a marked result belongs to, or NULL. */
static const struct sid *reinject_sid(const struct config *cfg,
				      const struct pkt *p)
{
	return p->set_mark ? config_sid_by_mark(cfg, p->out_mark) : NULL;
}

/* An IPv4 result of a SID whose routing is its veth device's rule
 * (behavior_has_dev4(): End.DX4, End.DT4, End.DT46, and End.X/End.T
 * with USD, an inner IPv4 packet, RFC 8986 4.16.3). */
static bool reinject_by_dev(const struct sid *sid, const struct pkt *p)
{
	return sid && pkt_ip_version(p) == 4 && p->hw_proto == ETH_P_IPV6 &&
	       behavior_has_dev4(sid);
}

/* With `reinject tun`: an IPv6 result whose mark routes it (End.X,
 * End.DX6: to nh6; End.T, End.DT6, End.DT46: in their table) cannot go
 * through the TUN device, which carries no mark; it enters the kernel
 * through the SID's veth pair (behavior_has_dev6()), whose iif rules do
 * what the mark does. */
static bool reinject_by_dev6(const struct config *cfg, const struct sid *sid,
			     const struct pkt *p)
{
	return cfg->reinject_tun_always && sid && pkt_ip_version(p) == 6 &&
	       behavior_has_dev6(sid);
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

enum reinject_action reinject_decide(const struct config *cfg,
				     const struct pkt *p,
				     enum drop_reason *reason)
{
	unsigned version = pkt_ip_version(p);
	const struct sid *sid;

	switch (p->verdict) {
	case PKT_ACCEPT:
		return REINJECT_ACCEPT;
	case PKT_FORWARD:
		break;
	case PKT_DROP:
	default:
		return REINJECT_DROP;
	}
	if (p->local_out && version == 4)
		return REINJECT_LOCAL;
	sid = reinject_sid(cfg, p);
	if (reinject_by_l2(sid)) {
		if (!sid->ifindex) {
			*reason = DROP_REINJECT;
			return REINJECT_DROP_REASON;
		}
		return REINJECT_L2;
	}
	if (version != 4 && version != 6) {
		*reason = DROP_BAD_IP;
		return REINJECT_DROP_REASON;
	}
	if (reinject_by_dev6(cfg, sid, p)) {
		if (!sid->ifindex) {
			*reason = DROP_REINJECT;
			return REINJECT_DROP_REASON;
		}
		return REINJECT_DEV;
	}
	if (reinject_same_family(p) &&
	    (p->set_mark || !cfg->reinject_tun_always)) {
		if (p->len > NFQ_MAX_PAYLOAD) {
			*reason = DROP_TOO_BIG;
			return REINJECT_DROP_REASON;
		}
		return REINJECT_PAYLOAD;
	}
	if (reinject_by_dev(sid, p)) {
		if (!sid->ifindex) {
			*reason = DROP_REINJECT;
			return REINJECT_DROP_REASON;
		}
		return REINJECT_DEV;
	}
	if (p->set_mark) {
		/* Other family: only TUN could carry it, and TUN carries
		 * no mark; routing without it would be wrong. */
		*reason = DROP_FAMILY;
		return REINJECT_DROP_REASON;
	}
	return REINJECT_TUN;
}

uint32_t reinject_ifindex(const struct config *cfg, const struct pkt *p)
{
	const struct sid *sid = reinject_sid(cfg, p);

	return sid ? sid->ifindex : 0;
}

/* REINJECT_DEV: put an Ethernet header to the receiving end of the SID's
 * veth pair in front of the IPv4 or IPv6 packet (in the headroom the
 * outer headers left).  Returns 0, or -1 without headroom. */
static int reinject_eth_push(struct pkt *p)
{
	uint16_t type = pkt_ip_version(p) == 6 ? ETH_P_IPV6 : ETH_P_IP;
	uint8_t *eth = pkt_push(p, ETH_HLEN);

	if (!eth)
		return -1;
	tun_veth_mac(p->out_mark, true, eth);
	tun_veth_mac(p->out_mark, false, eth + ETH_ALEN);
	eth[12] = (uint8_t)(type >> 8);
	eth[13] = (uint8_t)type;
	return 0;
}

void reinject_charge(struct pkt *p, enum drop_reason reason)
{
	struct sid_stats *s = p->st;

	if (!s)
		return;
	s->packets--;
	s->bytes -= p->orig_len;
	s->errors++;
	s->drops[reason]++;
	p->st = NULL;
}

/* A drop at reinjection: the worker's counters and the SID's/policy's. */
static void reinject_drop(struct pkt *p, struct worker_stats *st,
			  enum drop_reason reason)
{
	st->drops[reason]++;
	st->dropped++;
	reinject_charge(p, reason);
}

/* REINJECT_L2 / REINJECT_DEV: the original is done with either way. */
static void reinject_frame(const struct config *cfg, struct pkt *p,
			   struct nfq *q, enum reinject_action a,
			   struct worker_stats *st)
{
	uint32_t ifindex = reinject_ifindex(cfg, p);
	int fd;

	nfq_verdict_add(q, p, NF_DROP, false);
	if (a == REINJECT_DEV && reinject_eth_push(p) < 0) {
		reinject_drop(p, st, DROP_NO_HEADROOM);
		return;
	}
	fd = reinject_pkt_sock();
	if (fd >= 0 && pkt_sock_send(fd, ifindex, p->data, p->len) == 0) {
		st->tun_injected++;
		return;
	}
	reinject_drop(p, st, DROP_REINJECT);
}

/* End.DT*'s inner packet without a route in the SID's table goes on, with
 * the SID's mark, to the daemon's `unreachable` rule after the table
 * (behavior_decap.c), so that the kernel answers it with its own bytes:
 * the packet is handed over to be rejected.  Processing counted it once
 * already, as the worker's drops[no_route] and the SID's error, never as
 * a success (p->st NULL; a successful End.DT* result always has it).  So
 * it is counted here as `dropped` (what happens to it), not as forwarded
 * or tun_injected, and a failure to hand it over adds no second reason:
 * the worker's drops then still add up to dropped + icmp_sent. */
static bool reinject_handoff(const struct config *cfg, const struct pkt *p)
{
	const struct sid *sid = reinject_sid(cfg, p);

	return p->verdict == PKT_FORWARD && !p->st && sid &&
	       (sid->behavior == BHV_END_DT6 || sid->behavior == BHV_END_DT4 ||
		sid->behavior == BHV_END_DT46);
}

/* reinject_handoff(): give the packet to the kernel as decided, count it
 * as dropped (for the reason processing counted) whatever happens. */
static void reinject_handoff_packet(const struct config *cfg, struct pkt *p,
				    struct nfq *q, enum reinject_action a,
				    struct worker_stats *st)
{
	struct worker_stats tmp = { 0 };

	if (a == REINJECT_PAYLOAD) {
		nfq_verdict_add(q, p, NF_ACCEPT, true);
	} else if (a == REINJECT_DEV) {
		/* the send's own counters are not this packet's */
		reinject_frame(cfg, p, q, a, &tmp);
	} else {
		nfq_verdict_add(q, p, NF_DROP, false);
	}
	st->dropped++;
}

/* REINJECT_LOCAL: the original is done with either way; the error
 * leaves as this node's own packet (OUTPUT, then routing). */
static void reinject_local(struct pkt *p, struct nfq *q, int raw_fd,
			   struct worker_stats *st)
{
	nfq_verdict_add(q, p, NF_DROP, false);
	if (raw_fd >= 0 && raw4_sock_send(raw_fd, p->data, p->len) == 0) {
		st->tun_injected++;
		return;
	}
	reinject_drop(p, st, DROP_REINJECT);
}

void reinject_packet(const struct config *cfg, struct pkt *p, struct nfq *q,
		     int tun_fd, int raw_fd, struct worker_stats *st)
{
	enum drop_reason reason = DROP_REINJECT;
	enum reinject_action a = reinject_decide(cfg, p, &reason);

	if (reinject_handoff(cfg, p)) {
		reinject_handoff_packet(cfg, p, q, a, st);
		return;
	}

	switch (a) {
	case REINJECT_ACCEPT:
		nfq_verdict_add(q, p, NF_ACCEPT, false);
		st->accepted++;
		return;
	case REINJECT_PAYLOAD:
		nfq_verdict_add(q, p, NF_ACCEPT, true);
		st->forwarded++;
		return;
	case REINJECT_L2:
	case REINJECT_DEV:
		reinject_frame(cfg, p, q, a, st);
		return;
	case REINJECT_LOCAL:
		reinject_local(p, q, raw_fd, st);
		return;
	case REINJECT_TUN:
		/* The original is done with either way: the new packet
		 * enters the kernel from the TUN device. */
		nfq_verdict_add(q, p, NF_DROP, false);
		if (tun_write(tun_fd, p->data, p->len) == 0) {
			st->tun_injected++;
			return;
		}
		reinject_drop(p, st, DROP_REINJECT);
		return;
	case REINJECT_DROP_REASON:
		nfq_verdict_add(q, p, NF_DROP, false);
		reinject_drop(p, st, reason);
		return;
	case REINJECT_DROP:
	default:
		nfq_verdict_add(q, p, NF_DROP, false);
		st->dropped++;
		return;
	}
}
