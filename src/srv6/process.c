/* process.c - the packet path's dispatcher: check the IP header, find the
 * packet's SID or steering policy, and run its behavior. */
#include <linux/if_ether.h>
#include <sys/socket.h>
#include <string.h>

#include "behavior.h"
#include "behavior_proxy.h"
#include "dispatch.h"
#include "headend.h"
#include "hmac.h"
#include "ip.h"
#include "kpolicy.h"
#include "lpm.h"
#include "mobile.h"
#include "oam.h"
#include "process.h"
#include "rtmirror.h"
#include "srv6.h"

/* Check the IPv6 header against the queued length; cut any bytes after
 * the IPv6 packet.  Returns 0, or -1 with a counted drop. */
static int ipv6_sane(struct proc_ctx *ctx, struct pkt *p)
{
	uint32_t plen;

	if (p->len < IPV6_HDR_LEN) {
		proc_drop(ctx, p, NULL, DROP_TRUNCATED);
		return -1;
	}
	plen = (uint32_t)p->data[IP6_PLEN_OFF] << 8 |
	       p->data[IP6_PLEN_OFF + 1];
	if (pkt_ip_version(p) != 6 || plen == 0) {	/* 0: jumbogram */
		proc_drop(ctx, p, NULL, DROP_BAD_IP);
		return -1;
	}
	/* A header queue's packet cut short (p->truncated): its whole
	 * length is orig_len, and the kernel trimmed it already. */
	if ((p->truncated ? p->orig_len : p->len) < IPV6_HDR_LEN + plen) {
		proc_drop(ctx, p, NULL, DROP_TRUNCATED);
		return -1;
	}
	if (!p->truncated)
		pkt_trim(p, IPV6_HDR_LEN + plen);
	return 0;
}

/* The same for IPv4 (RFC 791 header length and total length). */
static int ipv4_sane(struct proc_ctx *ctx, struct pkt *p)
{
	uint32_t ihl, tot;

	if (p->len < 20) {
		proc_drop(ctx, p, NULL, DROP_TRUNCATED);
		return -1;
	}
	ihl = (uint32_t)(p->data[0] & 0x0f) * 4;
	tot = (uint32_t)p->data[IP4_TOTLEN_OFF] << 8 |
	      p->data[IP4_TOTLEN_OFF + 1];
	if (pkt_ip_version(p) != 4 || ihl < 20 || tot < ihl) {
		proc_drop(ctx, p, NULL, DROP_BAD_IP);
		return -1;
	}
	if ((p->truncated ? p->orig_len : p->len) < tot) {
		proc_drop(ctx, p, NULL, DROP_TRUNCATED);
		return -1;
	}
	if (!p->truncated)
		pkt_trim(p, tot);
	return 0;
}

/* Run the behavior of local SID `sid` on p: its function (dispatch.h),
 * which does what its row says (behavior_table.h). */
static void sid_dispatch(struct proc_ctx *ctx, const struct sid *sid,
			 struct pkt *p)
{
	behavior_fn *run = dispatch_fn(sid->behavior);

	p->outcome = PKT_OUT_NONE;	/* this SID's, not the one before */
	p->st = NULL;
	pkt_facts_reset(p);
	if (!run) {
		proc_drop(ctx, p, &ctx->sid_stats[sid->index], DROP_FAMILY);
		return;
	}
	if (hmac_check(ctx, p, sid) < 0)	/* RFC 8754 2.1.2.1 */
		return;
	/* RFC 9259 2.1.1 S01.1: an O-flag packet's copy, as received, when
	 * `oam-copy` permits (ctx->oam); End.OP punts it whole instead. */
	if (ctx->oam && oam_flag_set(ctx, p) &&
	    !behavior_desc(sid->behavior)->oam_punt)
		oam_copy(ctx, sid, p, OAM_KIND_COPY);
	run(ctx, sid, p);
}

static void *table_lookup(const struct lpm *t, const struct in6_addr *key)
{
	return t ? lpm_lookup(t, key) : NULL;
}

/* RFC 8986 S15 submits the result to the FIB.  When its new destination is
 * another SID of this node, the kernel's seg6local hands it to that SID at
 * once; after our verdict it would never come back through the queue, so
 * run that SID here.  A result routed by a mark (End.X, End.T, ...) goes
 * where its rule sends it, as in the kernel, and is not looked at again. */
static void sid_chain(struct proc_ctx *ctx, struct pkt *p)
{
	const struct sid *sid;
	struct in6_addr dst;

	for (unsigned n = 0;; n++) {
		/* Only a behavior's own result goes on: an ICMP error or
		 * echo reply srv6d built (PKT_OUT_ICMP) is this node's packet
		 * to the sender, even where the sender's address falls in a
		 * local SID's prefix. */
		if (p->verdict != PKT_NEW_BYTES || p->outcome != PKT_OUT_OK ||
		    p->set_mark || pkt_ip_version(p) != 6 ||
		    p->len < IPV6_HDR_LEN)
			return;
		memcpy(&dst, p->data + IP6_DST_OFF, sizeof(dst));
		sid = table_lookup(ctx->cfg->sid_table, &dst);
		if (!sid)
			return;
		if (n == PROC_SID_CHAIN_MAX) {
			proc_drop(ctx, p, &ctx->sid_stats[sid->index], DROP_SID_CHAIN);
			return;
		}
		p->chained = true;	/* not the packet as queued now */
		sid_dispatch(ctx, sid, p);
	}
}

/* The routing table whose policies steer p (srv6d.conf(5) "Tenants"):
 * the one the kernel looks its destination up in, by its in-interface
 * (the route mirror's VRFs and iif rules); main without a mirror. */
static uint32_t steering_table(const struct proc_ctx *ctx,
			       const struct pkt *p, int family)
{
	if (!ctx->mirror)
		return CONFIG_TABLE_MAIN;
	return rtmirror_iif_table(ctx->mirror, p->indev, family);
}

/* Of file (srv6d.conf's match, or NULL) and route r (the kernel's
 * longest-prefix route in the table, or NULL), the steering policy: see
 * srv6_steer_lookup6(). */
static const struct policy *steer_pick(const struct proc_ctx *ctx,
				       const struct policy *file,
				       const struct fib_route *r,
				       struct sid_stats **st)
{
	const struct kpolicy *kp = r ? r->encap : NULL;

	if (kp && (!file || kp->pol.plen > file->plen) &&
	    (!kp->pol.hmac_keyid ||
	     config_hmac_key(ctx->cfg, kp->pol.hmac_keyid))) {
		*st = kpolicy_stats(rtmirror_kpolicies(ctx->mirror),
				    ctx->worker, kp->pol.index);
		return &kp->pol;
	}
	if (file)
		*st = &ctx->policy_stats[file->index];
	return file;
}

/* The mirror's table `table` when kernel seg6 routes steer, else NULL:
 * not in the tables of srv6d's range (mark-base on: its own routes). */
static const struct fib_table *steer_fib(const struct proc_ctx *ctx,
					 uint32_t table)
{
	const struct config *cfg = ctx->cfg;

	if (!ctx->mirror || !cfg->kernel_routes ||
	    !rtmirror_kpolicies(ctx->mirror) ||
	    (table >= cfg->mark_base &&
	     table - cfg->mark_base < CONFIG_MARK_RANGE))
		return NULL;
	return fib_table_get(rtmirror_fib(ctx->mirror), table);
}

const struct policy *srv6_steer_lookup6(const struct proc_ctx *ctx,
					uint32_t table,
					const struct in6_addr *dst,
					struct sid_stats **st)
{
	const struct fib_table *t = steer_fib(ctx, table);

	return steer_pick(ctx, config_policy_lookup6(ctx->cfg, table, dst),
			  t ? fib_lookup6(t, dst) : NULL, st);
}

const struct policy *srv6_steer_lookup4(const struct proc_ctx *ctx,
					uint32_t table, struct in_addr dst,
					struct sid_stats **st)
{
	const struct fib_table *t = steer_fib(ctx, table);

	return steer_pick(ctx, config_policy_lookup4(ctx->cfg, table, dst),
			  t ? fib_lookup4(t, dst) : NULL, st);
}

/* Encapsulate p by steering policy pol, counted in st. */
static void steer_apply(struct proc_ctx *ctx, const struct policy *pol,
			struct sid_stats *st, struct pkt *p)
{
	struct headend_plan plan;

	if (pol->gtp4d) {		/* RFC 9433 6.7 (mobile.h) */
		headend_m_gtp4_d(ctx, pol, st, p);
		sid_chain(ctx, p);
		return;
	}
	if (headend_prepare(ctx, pol, p, st, false, &plan) == 0)
		headend_finish(ctx, &plan, p);
	sid_chain(ctx, p);
}

const struct policy *srv6_steer_policy(const struct proc_ctx *ctx,
				       const struct pkt *p,
				       struct sid_stats **st)
{
	struct in6_addr d6;
	struct in_addr d4;

	if (p->hw_proto == ETH_P_IPV6 && p->len >= IPV6_HDR_LEN &&
	    pkt_ip_version(p) == 6) {
		memcpy(&d6, p->data + IP6_DST_OFF, sizeof(d6));
		if (table_lookup(ctx->cfg->sid_table, &d6))
			return NULL;
		return srv6_steer_lookup6(ctx, steering_table(ctx, p, AF_INET6),
					  &d6, st);
	}
	if (p->hw_proto == ETH_P_IP && p->len >= 20 && pkt_ip_version(p) == 4) {
		memcpy(&d4, p->data + IP4_DST_OFF, sizeof(d4));
		return srv6_steer_lookup4(ctx, steering_table(ctx, p, AF_INET),
					  d4, st);
	}
	return NULL;
}

static void process_ipv6(struct proc_ctx *ctx, struct pkt *p)
{
	const struct config *cfg = ctx->cfg;
	const struct policy *pol;
	const struct sid *sid;
	struct sid_stats *st;
	struct in6_addr dst;

	if (ipv6_sane(ctx, p) < 0)
		return;
	memcpy(&dst, p->data + IP6_DST_OFF, sizeof(dst));
	sid = table_lookup(cfg->sid_table, &dst);
	if (sid) {
		sid_dispatch(ctx, sid, p);
		sid_chain(ctx, p);
		return;
	}
	pol = srv6_steer_lookup6(ctx, steering_table(ctx, p, AF_INET6), &dst,
				 &st);
	if (pol) {
		steer_apply(ctx, pol, st, p);	/* a steering policy */
		return;
	}
	ctx->stats->unmatched++;
}

static void process_ipv4(struct proc_ctx *ctx, struct pkt *p)
{
	const struct policy *pol;
	struct sid_stats *st;
	struct in_addr dst;

	if (ipv4_sane(ctx, p) < 0)
		return;
	memcpy(&dst, p->data + IP4_DST_OFF, sizeof(dst));
	pol = srv6_steer_lookup4(ctx, steering_table(ctx, p, AF_INET), dst,
				 &st);
	if (pol) {
		steer_apply(ctx, pol, st, p);	/* a steering policy */
		return;
	}
	ctx->stats->unmatched++;
}

/* A packet back from an SR proxy's service (behavior_proxy.h): its
 * in-interface is a proxy SID's iif.  True when it was. */
static bool process_proxy_return(struct proc_ctx *ctx, struct pkt *p)
{
	const struct sid *sid = proxy_return_sid(ctx, p);

	if (!sid)
		return false;
	p->outcome = PKT_OUT_NONE;
	p->st = NULL;
	proxy_return(ctx, sid, p);
	sid_chain(ctx, p);
	return true;
}

void srv6_process(struct proc_ctx *ctx, struct pkt *p)
{
	pkt_result_reset(p);
	if (ctx->cfg->nproxies && process_proxy_return(ctx, p))
		return;
	switch (p->hw_proto) {
	case ETH_P_IPV6:
		process_ipv6(ctx, p);
		break;
	case ETH_P_IP:
		process_ipv4(ctx, p);
		break;
	default:
		proc_drop(ctx, p, NULL, DROP_FAMILY);
		break;
	}
}
