/* kencap.c - the kernel encapsulates srv6d's TCP super-packets
 * (kencap.h). */
#include <netinet/in.h>	/* before linux/netfilter.h */
#include <linux/if_ether.h>
#include <string.h>

#include "gso.h"
#include "headend.h"
#include "ip.h"
#include "kencap.h"
#include "lpm.h"
#include "pktsock.h"
#include "process.h"
#include "rtrules.h"

/* The inner header of p: IPv6 or IPv4 in an outer IPv6 header (with or
 * without an SRH), its version in *ver.  Returns its offset, 0 when p is
 * not that. */
static uint32_t kencap_inner_off(struct pkt *p, unsigned *ver)
{
	const struct gso_info *gi = gso_pkt_info(p);

	if (!gi || gi->nlayers != 2 || gi->layer_ver[0] != 6 ||
	    gi->l4_proto != IPPROTO_TCP)
		return 0;
	*ver = gi->layer_ver[1];
	return gi->layer_off[1];
}

bool kencap_from_headers(const struct proc_ctx *ctx, const struct pkt *p)
{
	const struct policy *pol;
	struct sid_stats *st;

	if (!ctx->rs || !ctx->rs->kencap_on || proc_kencap_held(ctx) ||
	    proc_kencap_mark_held(ctx) || (p->truncated && !p->gso))
		return false;
	pol = srv6_steer_policy(ctx, p, &st);
	/* not bounced where the kernel may not take it by the mark: it
	 * is encapsulated whole (headend_kernel_facts()) */
	return pol && runstate_policy_kencap(ctx->rs, ctx->cfg, pol) &&
	       headend_kernel_by_mark(p, pol);
}

int kencap_send(struct pkt *p, struct pkt_tx *tx, uint32_t dev_ifindex,
		uint32_t mark, uint16_t gso_size, enum drop_reason *reason)
{
	unsigned ver = 0;
	uint32_t off = kencap_inner_off(p, &ver);
	uint16_t type = ver == 4 ? ETH_P_IP : ETH_P_IPV6;
	struct virtio_net_hdr vh;
	uint8_t *eth;

	*reason = DROP_GSO;
	if (!off)
		return -1;
	pkt_pull(p, off);	/* the parse follows: the inner packet's */
	if (gso_vnet_prepare(p->data, p->len, gso_pkt_info(p), gso_size,
			     ETH_HLEN, &vh) < 0)
		return -1;
	*reason = DROP_NO_HEADROOM;
	eth = pkt_push(p, ETH_HLEN);
	if (!eth)
		return -1;
	rtrules_dev_mac(0, true, eth);
	rtrules_dev_mac(mark, false, eth + ETH_ALEN);	/* steer.h G0 */
	eth[12] = (uint8_t)(type >> 8);
	eth[13] = (uint8_t)type;
	*reason = DROP_REINJECT;
	if (!tx || !pkt_tx_is_vnet(tx) || !dev_ifindex)
		return -1;
	return pkt_tx_add_vnet_mark(tx, dev_ifindex, &vh, p->data, p->len,
				    mark, p);
}
