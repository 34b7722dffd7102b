/* reinject.c - verdict payload or TUN: how a processed packet re-enters the
 * kernel (the rules are in include/reinject.h). */
#include <netinet/in.h>	/* before linux/netfilter.h */
#include <linux/if_ether.h>
#include <linux/netfilter.h>

#include "reinject.h"
#include "tun.h"

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

	switch (p->verdict) {
	case PKT_ACCEPT:
		return REINJECT_ACCEPT;
	case PKT_FORWARD:
		break;
	case PKT_DROP:
	default:
		return REINJECT_DROP;
	}
	if (version != 4 && version != 6) {
		*reason = DROP_BAD_IP;
		return REINJECT_DROP_REASON;
	}
	if (reinject_same_family(p) &&
	    (p->set_mark || !cfg->reinject_tun_always)) {
		if (p->len > NFQ_MAX_PAYLOAD) {
			*reason = DROP_TOO_BIG;
			return REINJECT_DROP_REASON;
		}
		return REINJECT_PAYLOAD;
	}
	if (p->set_mark) {
		/* Other family: only TUN could carry it, and TUN carries
		 * no mark; routing without it would be wrong. */
		*reason = DROP_FAMILY;
		return REINJECT_DROP_REASON;
	}
	return REINJECT_TUN;
}

void reinject_packet(const struct config *cfg, struct pkt *p, struct nfq *q,
		     int tun_fd, struct worker_stats *st)
{
	enum drop_reason reason = DROP_REINJECT;

	switch (reinject_decide(cfg, p, &reason)) {
	case REINJECT_ACCEPT:
		nfq_verdict_add(q, p, NF_ACCEPT, false);
		st->accepted++;
		return;
	case REINJECT_PAYLOAD:
		nfq_verdict_add(q, p, NF_ACCEPT, true);
		st->forwarded++;
		return;
	case REINJECT_TUN:
		/* The original is done with either way: the new packet
		 * enters the kernel from the TUN device. */
		nfq_verdict_add(q, p, NF_DROP, false);
		if (tun_write(tun_fd, p->data, p->len) == 0) {
			st->tun_injected++;
			return;
		}
		st->drops[DROP_REINJECT]++;
		st->dropped++;
		return;
	case REINJECT_DROP_REASON:
		st->drops[reason]++;
		/* fall through */
	case REINJECT_DROP:
	default:
		nfq_verdict_add(q, p, NF_DROP, false);
		st->dropped++;
		return;
	}
}
