/* icmp.c - ICMPv6 (RFC 4443) and ICMP (RFC 792) errors and the ICMPv6
 * echo reply, built in place in the packet's slot, rate-limited per worker
 * by a token bucket (RFC 4443 2.4(f)). */
#include <arpa/inet.h>
#include <string.h>

#include "checksum.h"
#include "icmp.h"
#include "ip.h"
#include "srv6.h"

#define ICMP_HDR_LEN	8
#define IPV4_HDR_LEN	20
#define ICMP_HOP_LIMIT	64
#define NS_PER_SEC	1000000000ull

int icmp_ratelimit_take(struct proc_ctx *ctx)
{
	struct ratelimit *rl = &ctx->icmp_rl;
	uint64_t cap = (uint64_t)ctx->cfg->icmp_burst * 1000;
	uint64_t elapsed = 0;
	unsigned __int128 add;

	if (!ctx->cfg->icmp_rate)
		return 0;	/* icmp-rate 0: no error at all, burst or not */
	if (ctx->now_ns > rl->last_ns)
		elapsed = ctx->now_ns - rl->last_ns;
	rl->last_ns = ctx->now_ns;
	/* tokens are counted in thousandths: rate/s * ns * 1000 / 1e9 */
	add = (unsigned __int128)elapsed * ctx->cfg->icmp_rate / 1000000;
	if (add >= cap - rl->tokens_milli || rl->tokens_milli >= cap)
		rl->tokens_milli = cap;
	else
		rl->tokens_milli += (uint64_t)add;
	if (rl->tokens_milli < 1000)
		return 0;
	rl->tokens_milli -= 1000;
	return 1;
}

/* p is now the error about the packet dropped for `reason`. */
static void count_error(struct proc_ctx *ctx, struct pkt *p,
			struct sid_stats *st, enum drop_reason reason)
{
	p->verdict = PKT_NEW_BYTES;
	p->set_mark = false;
	/* A packet of its own, whole checksums: no more a super-packet
	 * (nfq_verdict_add() would refuse it as one), but the queued skb
	 * still is one (reinject_decide()). */
	p->facts.icmp_of_gso = p->gso;
	p->gso = p->csum_partial = false;
	ctx->stats->icmp_sent++;
	proc_count_drop(ctx, p, st, reason, PKT_OUT_ICMP);
}

/* Over the rate: no error, the packet is a drop for its own reason. */
static void drop_ratelimited(struct proc_ctx *ctx, struct pkt *p,
			     struct sid_stats *st, enum drop_reason reason)
{
	ctx->stats->icmp_ratelimited++;
	proc_drop(ctx, p, st, reason);
}

/* ---- ICMPv6 ------------------------------------------------------------ */

/* True if the IPv6 packet carries an ICMPv6 error message (type < 128),
 * looking through the usual extension headers. */
static bool icmp6_is_error(const uint8_t *pkt, uint32_t len)
{
	uint32_t off = IPV6_HDR_LEN;
	uint8_t nh = pkt[6];

	for (int n = 0; n < 16; n++) {
		switch (nh) {
		case IPPROTO_HOPOPTS:
		case IPPROTO_ROUTING:
		case IPPROTO_DSTOPTS:
			if (len - off < 8)
				return false;
			nh = pkt[off];
			off += ((uint32_t)pkt[off + 1] + 1) * 8;
			break;
		case IPPROTO_FRAGMENT:
			if (len - off < 8 || (pkt[off + 2] << 8 | (pkt[off + 3] & 0xf8)))
				return false;	/* a later fragment */
			nh = pkt[off];
			off += 8;
			break;
		case IPPROTO_ICMPV6:
			return len > off && pkt[off] < ICMP6_T_ECHO_REQUEST;
		default:
			return false;
		}
		if (off >= len)
			return false;
	}
	return false;
}

static bool in6_unspec(const uint8_t *a)
{
	static const uint8_t zero[16];

	return memcmp(a, zero, 16) == 0;
}

/* Write the IPv6 header of an ICMPv6 message this node originates. */
static void icmp6_hdr_write(uint8_t *h, uint32_t plen,
			    const struct in6_addr *src,
			    const struct in6_addr *dst)
{
	ip6_hdr_write(h, htonl(6u << 28), plen, IPPROTO_ICMPV6, ICMP_HOP_LIMIT,
		      src, dst);
}

/* Checksum of the ICMPv6 message after the IPv6 header h. */
static void icmp6_set_checksum(uint8_t *h, uint32_t plen)
{
	uint8_t *icmp = h + IPV6_HDR_LEN;
	struct in6_addr src, dst;
	uint32_t sum;

	memcpy(&src, h + IP6_SRC_OFF, sizeof(src));
	memcpy(&dst, h + IP6_DST_OFF, sizeof(dst));
	icmp[2] = icmp[3] = 0;
	sum = csum_ipv6_pseudo(&src, &dst, plen, IPPROTO_ICMPV6);
	sum = csum_partial(icmp, plen, sum);
	icmp[2] = (uint8_t)(csum_fold(sum) >> 8);
	icmp[3] = (uint8_t)csum_fold(sum);
}

void icmp6_error(struct proc_ctx *ctx, struct pkt *p, uint8_t type,
		 uint8_t code, uint32_t param, struct sid_stats *st,
		 enum drop_reason reason)
{
	icmp6_error_from(ctx, p, NULL, type, code, param, st, reason);
}

void icmp6_error_from(struct proc_ctx *ctx, struct pkt *p,
		      const struct in6_addr *from, uint8_t type, uint8_t code,
		      uint32_t param, struct sid_stats *st,
		      enum drop_reason reason)
{
	struct in6_addr src, dst;
	uint32_t plen;
	uint8_t *h;

	if (p->len < IPV6_HDR_LEN) {
		proc_drop(ctx, p, st, reason);
		return;
	}
	/* The error goes to the invoking SA. */
	memcpy(&dst, p->data + IP6_SRC_OFF, sizeof(dst));
	/* RFC 4443 2.4(e): never about an error, about a packet to a
	 * multicast address, or to an unspecified or multicast source. */
	if (in6_unspec(dst.s6_addr) || dst.s6_addr[0] == 0xff ||
	    p->data[IP6_DST_OFF] == 0xff ||
	    icmp6_is_error(p->data, p->len)) {
		proc_drop(ctx, p, st, reason);
		return;
	}
	if (!icmp_ratelimit_take(ctx)) {
		drop_ratelimited(ctx, p, st, reason);
		return;
	}
	/* RFC 4443 2.2: from an address of this node; without `from`, the
	 * invoking DA (a SID of this node). */
	memcpy(&src, from ? from->s6_addr : p->data + IP6_DST_OFF,
	       sizeof(src));
	pkt_trim(p, ICMP6_ERROR_MAX - IPV6_HDR_LEN - ICMP_HDR_LEN);
	h = pkt_push(p, IPV6_HDR_LEN + ICMP_HDR_LEN);
	if (!h) {
		proc_drop(ctx, p, st, DROP_NO_HEADROOM);
		return;
	}
	plen = p->len - IPV6_HDR_LEN;
	icmp6_hdr_write(h, plen, &src, &dst);
	h[40] = type;
	h[41] = code;
	h[44] = (uint8_t)(param >> 24);
	h[45] = (uint8_t)(param >> 16);
	h[46] = (uint8_t)(param >> 8);
	h[47] = (uint8_t)param;
	icmp6_set_checksum(h, plen);
	count_error(ctx, p, st, reason);
}

int icmp6_echo_reply(struct proc_ctx *ctx, struct pkt *p, uint32_t icmp_off)
{
	struct in6_addr src, dst;	/* of the reply */
	uint32_t plen, sum;
	uint8_t *h;

	if (icmp_off < IPV6_HDR_LEN || icmp_off > p->len ||
	    p->len - icmp_off < ICMP_HDR_LEN ||
	    p->data[icmp_off] != ICMP6_T_ECHO_REQUEST ||
	    p->data[icmp_off + 1] != 0)
		return -1;
	memcpy(&src, p->data + IP6_DST_OFF, sizeof(src));
	memcpy(&dst, p->data + IP6_SRC_OFF, sizeof(dst));
	if (in6_unspec(dst.s6_addr) || dst.s6_addr[0] == 0xff ||
	    src.s6_addr[0] == 0xff)
		return -1;
	plen = p->len - icmp_off;
	sum = csum_ipv6_pseudo(&dst, &src, plen, IPPROTO_ICMPV6);
	if (csum_fold(csum_partial(p->data + icmp_off, plen, sum)) != 0)
		return -1;	/* bad checksum: the kernel would drop it too */

	/* Drop the extension headers: the new IPv6 header goes right in
	 * front of the ICMPv6 message. */
	pkt_pull(p, icmp_off - IPV6_HDR_LEN);
	h = p->data;
	icmp6_hdr_write(h, plen, &src, &dst);
	h[40] = ICMP6_T_ECHO_REPLY;
	icmp6_set_checksum(h, plen);
	p->verdict = PKT_NEW_BYTES;
	p->set_mark = false;
	return 0;
}

/* ---- ICMP (IPv4) ------------------------------------------------------- */

static bool in4_bad_source(const uint8_t *a)
{
	return (a[0] == 0 && a[1] == 0 && a[2] == 0 && a[3] == 0) ||
	       a[0] >= 224 ||	/* multicast, class E, broadcast */
	       a[0] == 127;
}

/* RFC 1812 4.3.2.7: not about an ICMP error or a non-first fragment. */
static bool icmp4_forbidden(const uint8_t *ip, uint32_t len)
{
	uint32_t ihl = (uint32_t)(ip[0] & 0x0f) * 4;

	if ((ip[6] & 0x1f) || ip[7])
		return true;	/* fragment offset != 0 */
	if (ip[9] != IPPROTO_ICMP)
		return false;
	if (len < ihl + 1)
		return true;
	switch (ip[ihl]) {
	case 0: case 8:		/* echo reply / request */
	case 13: case 14:	/* timestamp */
	case 15: case 16:	/* information */
	case 17: case 18:	/* address mask */
		return false;
	default:
		return true;
	}
}

void icmp4_error(struct proc_ctx *ctx, struct pkt *p,
		 const struct in_addr *from, uint8_t type, uint8_t code,
		 uint32_t param, struct sid_stats *st, enum drop_reason reason)
{
	uint8_t dst[4], *h;
	uint32_t ilen;
	uint16_t ck;

	if (p->len < IPV4_HDR_LEN) {
		proc_drop(ctx, p, st, reason);
		return;
	}
	memcpy(dst, p->data + IP4_SRC_OFF, 4);	/* to the invoking SA */
	if (in4_bad_source(dst) || in4_bad_source(p->data + IP4_DST_OFF) ||
	    icmp4_forbidden(p->data, p->len)) {
		proc_drop(ctx, p, st, reason);
		return;
	}
	if (!icmp_ratelimit_take(ctx)) {
		drop_ratelimited(ctx, p, st, reason);
		return;
	}
	pkt_trim(p, ICMP4_ERROR_MAX - IPV4_HDR_LEN - ICMP_HDR_LEN);
	ilen = p->len;
	h = pkt_push(p, IPV4_HDR_LEN + ICMP_HDR_LEN);
	if (!h) {
		proc_drop(ctx, p, st, DROP_NO_HEADROOM);
		return;
	}
	memset(h, 0, IPV4_HDR_LEN + ICMP_HDR_LEN);
	h[0] = 0x45;			/* version 4, IHL 5 */
	h[2] = (uint8_t)(p->len >> 8);	/* total length */
	h[3] = (uint8_t)p->len;
	h[8] = ICMP_HOP_LIMIT;		/* TTL */
	h[9] = IPPROTO_ICMP;
	memcpy(h + IP4_SRC_OFF, &from->s_addr, 4);
	memcpy(h + IP4_DST_OFF, dst, 4);
	ck = csum_ip4_hdr(h);
	h[10] = (uint8_t)(ck >> 8);
	h[11] = (uint8_t)ck;
	h[20] = type;
	h[21] = code;
	h[24] = (uint8_t)(param >> 24);
	h[25] = (uint8_t)(param >> 16);
	h[26] = (uint8_t)(param >> 8);
	h[27] = (uint8_t)param;
	ck = csum_fold(csum_partial(h + IPV4_HDR_LEN, ICMP_HDR_LEN + ilen, 0));
	h[22] = (uint8_t)(ck >> 8);
	h[23] = (uint8_t)ck;
	count_error(ctx, p, st, reason);
	/* Sent as this node's own packet: returned as the verdict, its
	 * source (an address of this node) would make it a martian on
	 * the ingress link (docs/design.md "ICMP errors"). */
	p->local_out = true;
}
