/* kencap.c - the kernel encapsulates srv6d's TCP super-packets
 * (kencap.h). */
#include <netinet/in.h>	/* before linux/netfilter.h */
#include <linux/if_ether.h>
#include <linux/netfilter.h>
#include <string.h>

#include "egress.h"
#include "gso.h"
#include "ip.h"
#include "kencap.h"
#include "kencap_routes.h"
#include "nfq.h"
#include "lpm.h"
#include "pktsock.h"
#include "process.h"
#include "rtrules.h"
#include "srv6.h"

/* The mode and list of the SRH at srh (its last entry `last`, Segments
 * Left sl) under an outer destination dst into *mode and *l: SL = Last
 * Entry is H.Encaps's SRH (its active segment dst), SL = Last Entry + 1
 * H.Encaps.Red's (the first segment only in dst).  Returns 0, or -1 for
 * an SRH no headend of srv6d wrote (KENCAP_FB_UNLISTED). */
static int kencap_srh_list(const uint8_t *srh, const uint8_t *dst,
			   enum encap_mode *mode, struct seglist *l)
{
	unsigned last = srh[4], sl = srh[3], k = 0;

	if (sl == last) {
		*mode = ENCAP_MODE_ENCAP;
	} else if (sl == last + 1 && last + 2 <= SRV6_MAX_SEGS) {
		*mode = ENCAP_MODE_ENCAP_RED;
		memcpy(&l->segs[k++], dst, 16);
	} else {
		return -1;
	}
	for (unsigned i = 0; i <= last; i++)
		memcpy(&l->segs[k++], srh + SRH_FIXED_LEN + (last - i) * 16, 16);
	l->nsegs = k;
	return memcmp(&l->segs[0], dst, 16) ? -1 : 0;
}

/* The mode and list of p's encapsulation, and the offset of its inner
 * header.  Returns 0, or -1 with *why. */
static int kencap_parse(const struct pkt *p, enum encap_mode *mode,
			struct seglist *l, uint32_t *inner,
			enum kencap_fallback *why)
{
	const uint8_t *d = p->data, *srh = d + IPV6_HDR_LEN;
	uint8_t nh;

	*why = KENCAP_FB_SHAPE;
	if (p->len < IPV6_HDR_LEN || (d[0] >> 4) != 6)
		return -1;
	nh = d[IP6_NH_OFF];
	if (nh == IPPROTO_IPV6 || nh == IPPROTO_IPIP) {
		/* H.Encaps.Red of one segment: no SRH */
		*mode = ENCAP_MODE_ENCAP_RED;
		l->nsegs = 1;
		memcpy(&l->segs[0], d + IP6_DST_OFF, 16);
		*inner = IPV6_HDR_LEN;
		return 0;
	}
	if (nh != IPPROTO_ROUTING || p->len < IPV6_HDR_LEN + SRH_FIXED_LEN ||
	    p->len < IPV6_HDR_LEN + SRH_FIXED_LEN + srh[1] * 8u)
		return -1;
	*inner = IPV6_HDR_LEN + SRH_FIXED_LEN + srh[1] * 8u;
	*why = KENCAP_FB_UNLISTED;
	if (srh[2] != SRH_TYPE)
		return -1;
	*why = KENCAP_FB_HMAC;	/* TLVs, flags or a tag: not the kernel's */
	if (srh[1] != (srh[4] + 1u) * 2 || srh[5] || srh[6] || srh[7])
		return -1;
	*why = KENCAP_FB_UNLISTED;
	return kencap_srh_list(srh, d + IP6_DST_OFF, mode, l);
}

uint32_t kencap_mark_of(const struct config *cfg, const struct rtmirror *m,
			const struct pkt *p, enum kencap_fallback *why)
{
	const struct kencap_entry *e;
	enum encap_mode mode = ENCAP_MODE_ENCAP;
	struct in6_addr src;
	struct seglist l;
	uint32_t inner = 0;

	*why = KENCAP_FB_OFF;
	if (!cfg->kencap_on)
		return 0;
	if (kencap_parse(p, &mode, &l, &inner, why) < 0)
		return 0;
	*why = KENCAP_FB_UNLISTED;
	e = kencap_routes_find(cfg, mode, &l);
	if (!e)
		return 0;
	*why = KENCAP_FB_FIRST_SEGMENT;
	if ((p->data[inner] >> 4) == 6 && p->len >= inner + IPV6_HDR_LEN &&
	    !memcmp(p->data + inner + IP6_DST_OFF, &l.segs[0], 16))
		return 0;
	*why = KENCAP_FB_SOURCE;
	src = cfg->kencap_tunsrc;
	if (IN6_IS_ADDR_UNSPECIFIED(&src) &&
	    (!m || egress_source_select(m, cfg->kencap_oif, &l.segs[0],
					&src) < 0))
		return 0;
	if (memcmp(p->data + IP6_SRC_OFF, &src, 16))
		return 0;
	return e->mark;
}

/* The inner header of p: IPv6 or IPv4 in an outer IPv6 header (with or
 * without an SRH), its version in *ver.  Returns its offset, 0 when p is
 * not that. */
static uint32_t kencap_inner_off(const struct pkt *p, unsigned *ver)
{
	struct gso_info gi;

	if (gso_parse(p->data, p->len, &gi) < 0 || gi.nlayers != 2 ||
	    gi.layer_ver[0] != 6 || gi.l4_proto != IPPROTO_TCP)
		return 0;
	*ver = gi.layer_ver[1];
	return gi.layer_off[1];
}

bool kencap_accept_ok(const struct pkt *p)
{
	unsigned ver = 0;
	uint32_t off;

	if (!p->encap_of_original || !p->gso_size_in)
		return false;
	off = kencap_inner_off(p, &ver);
	return off && p->len - off == p->queued_len;
}

bool kencap_from_headers(const struct proc_ctx *ctx, const struct pkt *p)
{
	const struct config *cfg = ctx->cfg;
	const struct policy *pol;
	struct sid_stats *st;

	if (!cfg->kencap_on || (p->truncated && !p->gso))
		return false;
	pol = srv6_steer_policy(ctx, p, &st);
	if (!pol || pol->binding || pol->hmac_keyid ||
	    (pol->mode != ENCAP_MODE_ENCAP && pol->mode != ENCAP_MODE_ENCAP_RED))
		return false;
	for (unsigned i = 0; i < pol->nlists; i++)
		if (!kencap_routes_find(cfg, pol->mode, &pol->lists[i]) ||
		    (cfg->sid_table &&
		     lpm_lookup(cfg->sid_table, &pol->lists[i].segs[0])))
			return false;
	return true;
}

int kencap_send(struct pkt *p, struct nfq *q, struct pkt_tx *tx,
		uint32_t dev_ifindex, uint32_t mark, uint16_t gso_size,
		enum drop_reason *reason)
{
	unsigned ver = 0;
	uint32_t off = kencap_inner_off(p, &ver);
	uint16_t type = ver == 4 ? ETH_P_IP : ETH_P_IPV6;
	struct virtio_net_hdr vh;
	uint8_t *eth;

	nfq_verdict_add(q, p, NF_DROP, false);
	*reason = DROP_GSO;
	if (!off)
		return -1;
	pkt_pull(p, off);
	if (gso_vnet_prepare(p->data, p->len, gso_size, ETH_HLEN, &vh) < 0)
		return -1;
	*reason = DROP_NO_HEADROOM;
	eth = pkt_push(p, ETH_HLEN);
	if (!eth)
		return -1;
	rtrules_dev_mac(0, true, eth);
	rtrules_dev_mac(0, false, eth + ETH_ALEN);
	eth[12] = (uint8_t)(type >> 8);
	eth[13] = (uint8_t)type;
	*reason = DROP_REINJECT;
	if (!tx || !pkt_tx_is_vnet(tx) || !dev_ifindex)
		return -1;
	return pkt_tx_add_vnet_mark(tx, dev_ifindex, &vh, p->data, p->len,
				    mark, p);
}
