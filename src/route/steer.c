/* steer.c - srv6d's own steering rules (steer.h): the plan from the
 * config, its nft text, and its nfnetlink batches built with libnftnl. */
#include "steer.h"

#include <arpa/inet.h>
#include <errno.h>
#include <libmnl/libmnl.h>
#include <libnftnl/chain.h>
#include <libnftnl/common.h>
#include <libnftnl/expr.h>
#include <libnftnl/object.h>
#include <libnftnl/rule.h>
#include <libnftnl/set.h>
#include <libnftnl/table.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nf_tables.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/xt_NFQUEUE.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>

#include "behavior_table.h"
#include "log.h"
#include "steerset.h"

/* A netlink read (MNL_SOCKET_BUFFER_SIZE is not a constant). */
#define STEER_NL_BUF	16384

/* Prefixes per element batch (one transaction each): about 1 MiB. */
#define STEER_SET_CHUNK	16384u
/* Elements per NEWSETELEM / DELSETELEM message. */
#define STEER_SET_MSG	1024u
/* nft's data types of the sets' keys (nftables' datatype.h) */
#define STEER_TYPE_IPADDR	7
#define STEER_TYPE_IP6ADDR	8

/* ---- the plan ---------------------------------------------------------- */

struct plan_builder {
	struct steer_plan *plan;
	unsigned cap;
	bool failed;
	const struct config *cfg;
	int family;		/* of the kernel tables' rules being added */
	const char *chain;	/* the rules being added go there ("") */
	uint32_t only_table;	/* plan_ktable(): this table only (0: all) */
};

/* The name of family/table's set of kernel route prefixes. */
static void set_name(char *buf, size_t size, int family, uint32_t table)
{
	snprintf(buf, size, "kr%c_%u", family == AF_INET6 ? '6' : '4',
		 table);
}

static struct steer_rule *plan_add(struct plan_builder *b, int family)
{
	struct steer_rule *r;

	if (b->failed)
		return NULL;
	if (b->plan->nrules == b->cap) {
		unsigned ncap = b->cap ? 2 * b->cap : 16;
		struct steer_rule *n = realloc(b->plan->rules,
					       ncap * sizeof(*n));

		if (!n) {
			b->failed = true;
			return NULL;
		}
		b->plan->rules = n;
		b->cap = ncap;
	}
	r = &b->plan->rules[b->plan->nrules++];
	memset(r, 0, sizeof(*r));
	r->family = family;
	r->mark_mask = 0xffffffffu;
	if (b->chain)
		snprintf(r->chain, sizeof(r->chain), "%s", b->chain);
	return r;
}

/* Accept srv6d's own devices and marks (rules 1 and 2 of steer.h). */
static void plan_accepts(struct plan_builder *b, const struct config *cfg,
			 int family)
{
	struct steer_rule *r;

	if ((r = plan_add(b, family))) {
		strcpy(r->iifname, "srv6d");
		r->iif_wildcard = true;
		r->action = STEER_ACCEPT;
	}
	if (strncmp(cfg->tun_name, "srv6d", 5) && (r = plan_add(b, family))) {
		memcpy(r->iifname, cfg->tun_name, sizeof(r->iifname));
		r->action = STEER_ACCEPT;
	}
	if ((r = plan_add(b, family))) {
		r->has_mark_range = true;
		r->mark_from = config_mark_value(cfg, cfg->mark_base + 1);
		r->mark_to = config_mark_value(cfg, cfg->mark_base +
						    (cfg->mark_count - 1));
		r->mark_mask = cfg->mark_mask;
		r->action = STEER_ACCEPT;
	}
}

static const struct in6_addr probe_dst = STEER_PROBE_DST_INIT;

/* r matches the mark probe (markprobe.h): from the reinjection device to
 * STEER_PROBE_DST. */
static void plan_probe_match(const struct config *cfg, struct steer_rule *r)
{
	snprintf(r->iifname, sizeof(r->iifname), "%s", cfg->tun_name);
	memcpy(r->addr, &probe_dst, sizeof(probe_dst));
	r->plen = 128;
}

/* Rule 0 (steer.h): the mark probe to the queues, before the accept of
 * srv6d's own devices. */
static void plan_probe_queue(struct plan_builder *b, const struct config *cfg)
{
	struct steer_rule *r = plan_add(b, AF_INET6);

	if (!r)
		return;
	plan_probe_match(cfg, r);
	r->action = STEER_QUEUE;
	r->queue_first = (uint16_t)cfg->queue_first;
	r->queue_total = (uint16_t)(cfg->queue_last - cfg->queue_first + 1);
}

/* Whether a rule for the same prefix and action is already in plan from
 * index `from` on. */
static bool plan_has(const struct steer_plan *plan, unsigned from,
		     const struct steer_rule *r)
{
	for (unsigned i = from; i + 1 < plan->nrules; i++) {
		const struct steer_rule *o = &plan->rules[i];

		if (o->family == r->family && o->plen == r->plen &&
		    !strcmp(o->iifname, r->iifname) &&
		    !strcmp(o->chain, r->chain) &&
		    o->has_mark_not == r->has_mark_not &&
		    o->queue_first == r->queue_first &&
		    !memcmp(o->addr, r->addr, sizeof(o->addr)))
			return true;
	}
	return false;
}

/* A queue rule for prefix addr/plen (alen bytes), the same prefix's
 * rule left out when there is one (the same prefix in several tables). */
static void plan_queue(struct plan_builder *b, unsigned from, int family,
		       const void *addr, size_t alen, uint8_t plen,
		       unsigned first, unsigned last, const uint32_t *not_mark)
{
	struct steer_rule *r = plan_add(b, family);

	if (!r)
		return;
	memcpy(r->addr, addr, alen);
	r->plen = plen;
	r->action = STEER_QUEUE;
	r->queue_first = (uint16_t)first;
	r->queue_total = (uint16_t)(last - first + 1);
	if (not_mark) {		/* the bounce bit */
		r->has_mark_not = true;
		r->mark_not = *not_mark;
		r->mark_mask = *not_mark;
	}
	if (plan_has(b->plan, from, r))
		b->plan->nrules--;
}

/* Whether the header queues are worth it for s or pol (srv6d.conf(5)
 * header-queue): where the kernel redoes the result of a super-packet
 * from its headers, which rs (the config's state, runstate.h) says: the
 * SIDs with a kernel-end mark, the policies the kernel encapsulates.
 * Without rs (srv6d -p: no kernel asked), the candidates: the plain End
 * SIDs and the encap and encap.red policies without hmac. */
static bool hq_sid(const struct runstate *rs, const struct sid *s)
{
	if (rs)
		return runstate_sid(rs, s).kend_mark != 0;
	return s->behavior == BHV_END && !s->flavors;
}

static bool hq_policy(const struct runstate *rs, const struct config *cfg,
		      const struct policy *p)
{
	if (rs)
		return runstate_policy_kencap(rs, cfg, p);
	return !p->hmac_keyid && !p->binding && !p->gtp4d &&
	       (p->mode == ENCAP_MODE_ENCAP || p->mode == ENCAP_MODE_ENCAP_RED);
}

/* An SR proxy's packets back from its service (src/srv6/behavior_proxy.h):
 * all that comes in on its iif, but for link-local and multicast
 * destinations (draft-ietf-spring-sr-service-programming-10 6: "a
 * non-link-local packet received on IFACE-IN"; neighbor discovery stays
 * the kernel's), to srv6d's queues, in both families: one of the other
 * family than the SID's is a counted drop (proxy_return). */
static void plan_proxy_iifs(struct plan_builder *b, const struct config *cfg,
			    int family)
{
	static const uint8_t ll6[16] = { 0xfe, 0x80 }, mc6[16] = { 0xff };
	static const uint8_t mc4[4] = { 224 }, bc4[4] = { 255, 255, 255, 255 };
	const struct {
		const uint8_t *addr;
		uint8_t plen;
	} skip6[] = { { ll6, 10 }, { mc6, 8 } }, skip4[] = { { mc4, 4 },
							      { bc4, 32 } };
	bool v6 = family == AF_INET6;

	for (unsigned i = 0; i < cfg->nproxies; i++) {
		const struct sid *s = &cfg->sids[cfg->proxies[i].sid];
		struct steer_rule *r;
		bool seen = false;

		for (unsigned j = 0; j < i && !seen; j++)
			seen = !strcmp(cfg->sids[cfg->proxies[j].sid].iif, s->iif);
		if (seen)	/* an IPv4 and an IPv6 proxy share it */
			continue;
		for (unsigned k = 0; k < 2; k++) {
			if (!(r = plan_add(b, family)))
				return;
			memcpy(r->iifname, s->iif, sizeof(r->iifname));
			memcpy(r->addr, v6 ? skip6[k].addr : skip4[k].addr,
			       v6 ? 16 : 4);
			r->plen = v6 ? skip6[k].plen : skip4[k].plen;
			r->action = STEER_ACCEPT;
		}
		if (!(r = plan_add(b, family)))
			return;
		memcpy(r->iifname, s->iif, sizeof(r->iifname));
		r->proxy_iif = true;
		r->action = STEER_QUEUE;
		r->queue_first = (uint16_t)cfg->queue_first;
		r->queue_total = (uint16_t)(cfg->queue_last - cfg->queue_first +
					    1);
	}
}

static struct steer_rule *plan_add(struct plan_builder *b, int family);

/* Rule 5 of steer.h for one table of b->family's. */
static void plan_ktable(int family, uint32_t table, void *arg)
{
	struct plan_builder *b = arg;
	struct steer_rule *r;

	if (family != b->family ||
	    (b->only_table && table != b->only_table) ||
	    !(r = plan_add(b, family)))
		return;
	set_name(r->set, sizeof(r->set), family, table);
	r->action = STEER_QUEUE;
	r->queue_first = (uint16_t)b->cfg->queue_first;
	r->queue_total = (uint16_t)(b->cfg->queue_last -
				    b->cfg->queue_first + 1);
}

static void plan_ktables(struct plan_builder *b, const struct config *cfg,
			 const struct steerset *kset, int family)
{
	if (!kset)
		return;
	b->cfg = cfg;
	b->family = family;
	steerset_tables(kset, plan_ktable, b);
}

/* The in-interfaces the rules follow (steer_links()); n_links is
 * (size_t)-1 when they are not known: every policy in the base chain. */
struct plan_links {
	const struct steer_link *l;
	size_t n;
	bool known;
};

static const void *policy_addr(const struct policy *p)
{
	return p->family == AF_INET6 ? (const void *)&p->prefix.v6 :
				       (const void *)&p->prefix.v4;
}

/* The header-queue rules (hq) or the queue rules of the policies of
 * family in table (0: every table). */
static void plan_policies(struct plan_builder *b, unsigned from,
			  const struct config *cfg, const struct runstate *rs,
			  int family, uint32_t table, bool hq)
{
	size_t alen = family == AF_INET6 ? 16 : 4;
	uint32_t bounce = config_bounce_bit(cfg);

	for (unsigned i = 0; i < cfg->npolicies; i++) {
		const struct policy *p = &cfg->policies[i];

		if (p->family != family || (table && p->table != table))
			continue;
		if (hq && cfg->has_hqueue && hq_policy(rs, cfg, p))
			plan_queue(b, from, family, policy_addr(p), alen,
				   p->plen, cfg->hqueue_first,
				   cfg->hqueue_last, &bounce);
		else if (!hq)
			plan_queue(b, from, family, policy_addr(p), alen,
				   p->plen, cfg->queue_first,
				   cfg->queue_last, NULL);
	}
}

/* Whether table of family has a policy: the config's or a kernel
 * route's set. */
static bool table_has_policies(const struct config *cfg,
			       const struct steerset *kset, int family,
			       uint32_t table)
{
	for (unsigned i = 0; i < cfg->npolicies; i++)
		if (cfg->policies[i].family == family &&
		    cfg->policies[i].table == table)
			return true;
	return kset && steerset_elems(kset, family, table, NULL, NULL) > 0;
}

static uint32_t link_table(const struct steer_link *l, int family)
{
	return family == AF_INET6 ? l->table6 : l->table4;
}

/* The policies of table (3's, 4's and 5's rules of steer.h) into the
 * chain being built. */
static void plan_table(struct plan_builder *b, const struct config *cfg,
		       const struct runstate *rs,
		       const struct steerset *kset, int family,
		       uint32_t table)
{
	unsigned from = b->plan->nrules;

	plan_policies(b, from, cfg, rs, family, table, true);
	plan_policies(b, from, cfg, rs, family, table, false);
	if (kset) {
		b->only_table = table;
		plan_ktables(b, cfg, kset, family);
		b->only_table = 0;
	}
}

/* Whether an earlier link of links (before index i) has table t. */
static bool table_seen(const struct plan_links *pl, size_t i, int family,
		       uint32_t t)
{
	for (size_t j = 0; j < i; j++)
		if (link_table(&pl->l[j], family) == t)
			return true;
	return false;
}

/* The rules of one family: steer.h's order. */
static void plan_family(struct plan_builder *b, const struct config *cfg,
			const struct runstate *rs,
			const struct steerset *kset,
			const struct plan_links *pl, int family)
{
	unsigned from = b->plan->nrules;
	uint32_t bounce = config_bounce_bit(cfg);

	if (rs && family == AF_INET6)
		plan_probe_queue(b, cfg);
	plan_accepts(b, cfg, family);
	plan_proxy_iifs(b, cfg, family);
	for (unsigned i = 0; family == AF_INET6 && cfg->has_hqueue &&
			     i < cfg->nsids; i++)
		if (hq_sid(rs, &cfg->sids[i]))
			plan_queue(b, from, AF_INET6, &cfg->sids[i].prefix, 16,
				   cfg->sids[i].plen, cfg->hqueue_first,
				   cfg->hqueue_last, &bounce);
	if (!pl->known) {
		/* every table's policies, whatever the in-interface */
		plan_policies(b, from, cfg, rs, family, 0, true);
		for (unsigned i = 0; family == AF_INET6 && i < cfg->nsids;
		     i++)
			plan_queue(b, from, AF_INET6, &cfg->sids[i].prefix, 16,
				   cfg->sids[i].plen, cfg->queue_first,
				   cfg->queue_last, NULL);
		plan_policies(b, from, cfg, rs, family, 0, false);
		plan_ktables(b, cfg, kset, family);
		return;
	}
	for (unsigned i = 0; family == AF_INET6 && i < cfg->nsids; i++)
		plan_queue(b, from, AF_INET6, &cfg->sids[i].prefix, 16,
			   cfg->sids[i].plen, cfg->queue_first,
			   cfg->queue_last, NULL);
	/* the links of another table: to its chain, or accepted */
	for (size_t i = 0; i < pl->n; i++) {
		uint32_t t = link_table(&pl->l[i], family);
		struct steer_rule *r;

		if (t == CONFIG_TABLE_MAIN || !(r = plan_add(b, family)))
			continue;
		memcpy(r->iifname, pl->l[i].name, sizeof(r->iifname));
		if (table_has_policies(cfg, kset, family, t)) {
			r->action = STEER_GOTO;
			snprintf(r->go, sizeof(r->go), "t%u", t);
		} else {
			r->action = STEER_ACCEPT;
		}
	}
	plan_table(b, cfg, rs, kset, family, CONFIG_TABLE_MAIN);
	for (size_t i = 0; i < pl->n; i++) {
		uint32_t t = link_table(&pl->l[i], family);
		char chain[16];

		if (t == CONFIG_TABLE_MAIN || table_seen(pl, i, family, t) ||
		    !table_has_policies(cfg, kset, family, t))
			continue;
		snprintf(chain, sizeof(chain), "t%u", t);
		b->chain = chain;
		plan_table(b, cfg, rs, kset, family, t);
		b->chain = NULL;
	}
}

/* Whether policy p is one kernel-encap's guard watches (markguard.h):
 * the kernel encapsulates it by mark and it has a catch rule. */
static bool guard_policy(const struct config *cfg, const struct runstate *rs,
			 const struct policy *p)
{
	return p->plen && !p->ktable && runstate_policy_kencap(rs, cfg, p);
}

/* Whether table (0: any) of family has a policy the guard watches. */
static bool guard_table(const struct config *cfg, const struct runstate *rs,
			int family, uint32_t table)
{
	for (unsigned i = 0; i < cfg->npolicies; i++) {
		const struct policy *p = &cfg->policies[i];

		if (p->family == family && (!table || p->table == table) &&
		    guard_policy(cfg, rs, p))
			return true;
	}
	return false;
}

/* Whether a link of pl looks table up in family. */
static bool guard_linked(const struct plan_links *pl, int family,
			 uint32_t table)
{
	if (table == CONFIG_TABLE_MAIN)
		return true;
	for (size_t i = 0; i < pl->n; i++)
		if (link_table(&pl->l[i], family) == table)
			return true;
	return false;
}

/* A counting rule for the guarded policies of family in table (0: of
 * every table that has a catch), from iif ("" any).  unmarked: those of
 * the policies of one list with mark 0, into STEER_GUARD_UNMARKED (steer.h
 * G3, G4). */
static void guard_counts(struct plan_builder *b, const struct config *cfg,
			 const struct runstate *rs,
			 const struct plan_links *pl, int family,
			 uint32_t table, const char *iif, bool unmarked)
{
	size_t alen = family == AF_INET6 ? 16 : 4;
	unsigned start = b->plan->nrules;

	for (unsigned i = 0; i < cfg->npolicies; i++) {
		const struct policy *p = &cfg->policies[i];
		struct steer_rule *r;

		if (p->family != family || (table && p->table != table) ||
		    !guard_policy(cfg, rs, p) ||
		    !guard_linked(pl, family, p->table) ||
		    (unmarked && p->nlists != 1) ||
		    !(r = plan_add(b, family)))
			continue;
		memcpy(r->addr, policy_addr(p), alen);
		r->plen = p->plen;
		snprintf(r->iifname, sizeof(r->iifname), "%s", iif);
		r->action = unmarked ? STEER_COUNT_UNMARKED : STEER_COUNT;
		r->has_mark_range = unmarked;	/* meta mark 0 */
		if (plan_has(b->plan, start, r))
			b->plan->nrules--;	/* the same prefix again */
	}
}

/* r matches srv6d's marks under mark-mask, every offset's value (G0P on
 * the priority, G1 on the mark). */
static void guard_marks(const struct config *cfg, struct steer_rule *r)
{
	r->has_mark_range = true;
	r->mark_from = config_mark_value(cfg, cfg->mark_base + 1);
	r->mark_to = config_mark_value(cfg, cfg->mark_base +
					    (cfg->mark_count - 1));
	r->mark_mask = cfg->mark_mask;
}

/* G0K (steer.h): each kernel-end SID's packets of mark 0 get its mark,
 * by prefix length from the longest: the first rule that matches sets
 * the mark, so a SID nested in another's prefix is matched first. */
static void plan_kend_restore(struct plan_builder *b, const struct config *cfg,
			      const struct runstate *rs)
{
	for (int len = 128; rs->kend_on && len >= 0; len--) {
		for (unsigned i = 0; i < cfg->nsids && i < rs->nsids; i++) {
			uint32_t m = rs->sids[i].kend_mark;
			struct steer_rule *r;

			if (!m || cfg->sids[i].plen != len ||
			    !(r = plan_add(b, AF_INET6)))
				continue;
			memcpy(r->addr, &cfg->sids[i].prefix, 16);
			r->plen = cfg->sids[i].plen;
			r->has_mark_range = true;	/* meta mark 0 */
			r->action = STEER_MARK_KEND;
			r->set_mark = config_mark_value(cfg, m);
		}
	}
}

/* The guard's rules of family (steer.h) into their chains: GP1-GP4, G0,
 * G0P and G0K with a running state (rs); G1 to G4 with kernel-encap on
 * too, the links known, and a policy to watch. */
static void plan_guard(struct plan_builder *b, const struct config *cfg,
		       const struct runstate *rs,
		       const struct plan_links *pl, int family)
{
	char chain[16];
	struct steer_rule *r;

	if (!rs)
		return;
	b->chain = STEER_GUARD_CHAIN;
	for (int i = 0; family == AF_INET6 && i < 4; i++) {	/* GP1-GP4 */
		static const enum steer_action acts[4] = {
			STEER_PROBE_KEPT_DROP, STEER_PROBE_CARRIED_DROP,
			STEER_PROBE_ZEROED_DROP, STEER_PROBE_LOST_DROP,
		};

		if (!(r = plan_add(b, family)))
			break;
		plan_probe_match(cfg, r);
		r->action = acts[i];
		if (i < 2) {
			r->has_mark_range = true;
			r->mark_from = r->mark_to = config_mark_value(cfg,
							cfg->mark_base);
			r->mark_mask = cfg->mark_mask;
		} else if (i == 2) {
			r->has_mark_range = true;	/* meta mark 0 */
		}
	}
	if ((r = plan_add(b, family))) {	/* G0 */
		snprintf(r->iifname, sizeof(r->iifname), "%s", cfg->tun_name);
		r->action = STEER_MARK_FROM_MAC;
	}
	if ((r = plan_add(b, family))) {	/* G0P */
		guard_marks(cfg, r);
		r->action = STEER_MARK_FROM_PRIORITY;
	}
	if (family == AF_INET6)
		plan_kend_restore(b, cfg, rs);		/* G0K */
	if (!rs->kencap_on || !pl->known || !guard_table(cfg, rs, family, 0)) {
		b->chain = NULL;
		return;
	}
	if ((r = plan_add(b, family))) {	/* G1 */
		guard_marks(cfg, r);
		r->action = STEER_ACCEPT;
	}
	/* G2: main's unmarked ones are caught by `to PREFIX` as srv6d
	 * would; a tenant's have no catch from the device but by mark */
	guard_counts(b, cfg, rs, pl, family, CONFIG_TABLE_MAIN, cfg->tun_name,
		     true);
	guard_counts(b, cfg, rs, pl, family, 0, cfg->tun_name, false);
	for (size_t i = 0; i < pl->n; i++) {		/* G3 */
		uint32_t t = link_table(&pl->l[i], family);

		if (t == CONFIG_TABLE_MAIN || !(r = plan_add(b, family)))
			continue;
		memcpy(r->iifname, pl->l[i].name, sizeof(r->iifname));
		if (guard_table(cfg, rs, family, t)) {
			r->action = STEER_GOTO;
			snprintf(r->go, sizeof(r->go), "g%u", t);
		} else {
			r->action = STEER_ACCEPT;
		}
	}
	guard_counts(b, cfg, rs, pl, family, CONFIG_TABLE_MAIN, "", true); /* G4 */
	guard_counts(b, cfg, rs, pl, family, CONFIG_TABLE_MAIN, "", false);
	for (size_t i = 0; i < pl->n; i++) {
		uint32_t t = link_table(&pl->l[i], family);

		if (t == CONFIG_TABLE_MAIN || table_seen(pl, i, family, t) ||
		    !guard_table(cfg, rs, family, t))
			continue;
		snprintf(chain, sizeof(chain), "g%u", t);
		b->chain = chain;
		guard_counts(b, cfg, rs, pl, family, t, "", true);
		guard_counts(b, cfg, rs, pl, family, t, "", false);
	}
	b->chain = NULL;
}

/* steer_plan_build() with the kernel routes' sets of kset (NULL: none)
 * and the in-interfaces pl. */
static int plan_build_links(const struct config *cfg,
			    const struct runstate *rs,
			    const struct steerset *kset,
			    const struct plan_links *pl,
			    struct steer_plan *plan)
{
	struct plan_builder b = { .plan = plan };

	memset(plan, 0, sizeof(*plan));
	plan_family(&b, cfg, rs, kset, pl, AF_INET6);
	plan_guard(&b, cfg, rs, pl, AF_INET6);
	plan->nrules6 = plan->nrules;
	plan_family(&b, cfg, rs, kset, pl, AF_INET);
	plan_guard(&b, cfg, rs, pl, AF_INET);
	if (b.failed) {
		steer_plan_free(plan);
		return -1;
	}
	return 0;
}

static int plan_build(const struct config *cfg, const struct runstate *rs,
		      const struct steerset *kset, struct steer_plan *plan)
{
	static const struct plan_links none;

	return plan_build_links(cfg, rs, kset, &none, plan);
}

int steer_plan_build(const struct config *cfg, const struct runstate *rs,
		     struct steer_plan *plan)
{
	return plan_build(cfg, rs, NULL, plan);
}

int steer_plan_build_links(const struct config *cfg,
			   const struct runstate *rs,
			   const struct steer_link *links, size_t n,
			   struct steer_plan *plan)
{
	struct plan_links pl = { .l = links, .n = n, .known = true };

	return plan_build_links(cfg, rs, NULL, &pl, plan);
}

void steer_plan_free(struct steer_plan *plan)
{
	free(plan->rules);
	memset(plan, 0, sizeof(*plan));
}

bool steer_plan_equal(const struct steer_plan *a, const struct steer_plan *b)
{
	return a->nrules == b->nrules && a->nrules6 == b->nrules6 &&
	       (!a->nrules || !memcmp(a->rules, b->rules,
				      a->nrules * sizeof(*a->rules)));
}

/* ---- the text ---------------------------------------------------------- */

static void print_prefix(const struct steer_rule *r, FILE *f)
{
	char buf[INET6_ADDRSTRLEN];

	inet_ntop(r->family, r->addr, buf, sizeof(buf));
	fprintf(f, "%s/%u", buf, r->plen);
}

static void print_daddr(const struct steer_rule *r, FILE *f)
{
	fputs(r->family == AF_INET6 ? "ip6 daddr " : "ip daddr ", f);
	print_prefix(r, f);
	fputc(' ', f);
}

/* Whether r's mark range is on the priority, the mark's second carrier
 * (G0P, GP2). */
static bool rule_on_priority(const struct steer_rule *r)
{
	return r->action == STEER_MARK_FROM_PRIORITY ||
	       r->action == STEER_PROBE_CARRIED_DROP;
}

/* The counter of a probe rule (GP1-GP4), NULL for another. */
static const char *rule_probe_counter(const struct steer_rule *r)
{
	switch (r->action) {
	case STEER_PROBE_KEPT_DROP:
		return STEER_PROBE_KEPT;
	case STEER_PROBE_CARRIED_DROP:
		return STEER_PROBE_CARRIED;
	case STEER_PROBE_ZEROED_DROP:
		return STEER_PROBE_ZEROED;
	case STEER_PROBE_LOST_DROP:
		return STEER_PROBE_LOST;
	default:
		return NULL;
	}
}

/* Whether r tests its destination first (GP1-GP4: every frame from the
 * reinjection device meets them; G0K: most packets are for no SID). */
static bool rule_daddr_first(const struct steer_rule *r)
{
	return rule_probe_counter(r) || r->action == STEER_MARK_KEND;
}

static void print_nft_rule(const struct steer_rule *r, FILE *f)
{
	const char *key = rule_on_priority(r) ? "priority" : "mark";

	if (r->proxy_iif)
		fprintf(f, "\t\t# what the service of an SR proxy sends back "
			"on %s (its iif)\n", r->iifname);
	fputs("\t\t", f);
	if (r->iifname[0])
		fprintf(f, "iifname \"%s%s\" ", r->iifname,
			r->iif_wildcard ? "*" : "");
	if (r->plen && rule_daddr_first(r))	/* as built: first */
		print_daddr(r, f);
	if (r->has_mark_range && r->mark_mask != 0xffffffffu &&
	    r->mark_from == r->mark_to)
		fprintf(f, "meta %s and 0x%08x 0x%08x ", key, r->mark_mask,
			r->mark_from);
	else if (r->has_mark_range && r->mark_mask != 0xffffffffu)
		fprintf(f, "meta %s and 0x%08x 0x%08x-0x%08x ", key,
			r->mark_mask, r->mark_from, r->mark_to);
	else if (r->has_mark_range && r->mark_from == r->mark_to)
		fprintf(f, "meta %s 0x%08x ", key, r->mark_from);
	else if (r->has_mark_range)
		fprintf(f, "meta %s 0x%08x-0x%08x ", key, r->mark_from,
			r->mark_to);
	if (r->plen && !rule_daddr_first(r))
		print_daddr(r, f);
	if (r->set[0])
		fprintf(f, "%s daddr @%s ", r->family == AF_INET6 ? "ip6" :
			"ip", r->set);
	if (r->has_mark_not)
		fprintf(f, "meta mark and 0x%08x != 0x%08x ", r->mark_mask,
			r->mark_not);
	if (r->action == STEER_ACCEPT)
		fputs("accept\n", f);
	else if (r->action == STEER_GOTO)
		fprintf(f, "goto %s\n", r->go);
	else if (r->action == STEER_COUNT)
		fputs("counter name \"" STEER_GUARD_COUNTER "\" accept\n", f);
	else if (r->action == STEER_COUNT_UNMARKED)
		fputs("counter name \"" STEER_GUARD_UNMARKED "\" accept\n", f);
	else if (r->action == STEER_MARK_FROM_MAC)
		fputs("meta mark set @ll,64,32\n", f);
	else if (r->action == STEER_MARK_FROM_PRIORITY)
		fputs("meta mark set meta priority meta priority set 0\n", f);
	else if (r->action == STEER_MARK_KEND)
		fprintf(f, "counter name \"" STEER_KEND_RESTORED "\" meta mark "
			"set 0x%08x\n", r->set_mark);
	else if (rule_probe_counter(r))
		fprintf(f, "counter name \"%s\" drop\n", rule_probe_counter(r));
	else if (r->queue_total > 1)
		fprintf(f, "queue num %u-%u fanout\n", r->queue_first,
			r->queue_first + r->queue_total - 1);
	else
		fprintf(f, "queue num %u\n", r->queue_first);
}

/* One iptables line of r, its mark match `match` (may be ""). */
static void print_ipt_line(const struct steer_rule *r, const char *match,
			   FILE *f)
{
	if (r->proxy_iif)
		fprintf(f, "# what the service of an SR proxy sends back on "
			"%s (its iif)\n", r->iifname);
	fputs(r->family == AF_INET6 ? "ip6tables" : "iptables", f);
	if (r->chain[0])
		fprintf(f, " -t raw -A srv6d-%s", r->chain);
	else
		fputs(" -t raw -A PREROUTING", f);
	if (r->iifname[0])
		fprintf(f, " -i %s%s", r->iifname, r->iif_wildcard ? "+" : "");
	fputs(match, f);
	if (r->plen) {
		fputs(" -d ", f);
		print_prefix(r, f);
	}
	if (r->set[0])
		fprintf(f, " -m set --match-set %s dst (an ipset: use nft)",
			r->set);
	if (r->has_mark_not)
		fprintf(f, " -m mark ! --mark 0x%08x/0x%08x", r->mark_not,
			r->mark_mask);
	if (r->action == STEER_ACCEPT)
		fputs(" -j ACCEPT\n", f);
	else if (r->action == STEER_GOTO)
		fprintf(f, " -g srv6d-%s\n", r->go);
	else if (r->queue_total > 1)
		fprintf(f, " -j NFQUEUE --queue-balance %u:%u "
			"--queue-cpu-fanout\n", r->queue_first,
			r->queue_first + r->queue_total - 1);
	else
		fprintf(f, " -j NFQUEUE --queue-num %u\n", r->queue_first);
}

#define IPT_MARK_BLOCKS_MAX	16u

/* The values from..to under mask (one run of bits) as aligned blocks of
 * the field, each a value/mask `-m mark` matches: at most max of them
 * into val[] and msk[], their number; 0 when more are needed. */
static unsigned mark_blocks(uint32_t from, uint32_t to, uint32_t mask,
			    uint32_t *val, uint32_t *msk, unsigned max)
{
	unsigned s = (unsigned)__builtin_ctz(mask);
	uint64_t lo = (from & mask) >> s, hi = (to & mask) >> s;
	uint64_t all = (uint64_t)mask >> s;	/* the field's bits */
	unsigned n = 0;

	while (lo <= hi) {
		uint64_t size = lo ? lo & -lo : all + 1;

		while (lo + size - 1 > hi)
			size >>= 1;
		if (n == max)
			return 0;
		val[n] = (uint32_t)(lo << s);
		msk[n] = (uint32_t)((all & ~(size - 1)) << s);
		n++;
		lo += size;
	}
	return n;
}

static void print_ipt_rule(const struct steer_rule *r, FILE *f)
{
	uint32_t val[IPT_MARK_BLOCKS_MAX], msk[IPT_MARK_BLOCKS_MAX];
	char match[96];
	unsigned n;

	if (!r->has_mark_range) {
		print_ipt_line(r, "", f);
		return;
	}
	/* -m mark has no range.  The mask all bits: the range less
	 * mark-base (no mark of srv6d's), when mark-base is a multiple of
	 * the range's size.  Under a mask (the default's 0xffff0000): one
	 * rule per aligned block of the field's values (srv6d's 8848
	 * offsets above 0x5d6f: 4 rules). */
	if (r->mark_mask == 0xffffffffu &&
	    (r->mark_from - 1) % CONFIG_MARK_RANGE == 0) {
		snprintf(match, sizeof(match), " -m mark ! --mark 0x%08x -m "
			 "mark --mark 0x%08x/0x%08x", r->mark_from - 1,
			 r->mark_from - 1, ~(CONFIG_MARK_RANGE - 1));
		print_ipt_line(r, match, f);
		return;
	}
	n = r->mark_mask == 0xffffffffu ? 0 :
	    mark_blocks(r->mark_from, r->mark_to, r->mark_mask, val, msk,
			IPT_MARK_BLOCKS_MAX);
	if (!n) {
		snprintf(match, sizeof(match), " -m mark --mark 0x%08x-0x%08x "
			 "(no iptables match: use nft)", r->mark_from,
			 r->mark_to);
		print_ipt_line(r, match, f);
		return;
	}
	for (unsigned i = 0; i < n; i++) {
		snprintf(match, sizeof(match), " -m mark --mark 0x%08x/0x%08x",
			 val[i], msk[i]);
		print_ipt_line(r, match, f);
	}
}

/* Whether chain c is the guard's (markguard.h): `guard` or a table's
 * `gT`, which have no iptables form. */
static bool guard_chain(const char *c)
{
	return !strcmp(c, STEER_GUARD_CHAIN) ||
	       (c[0] == 'g' && c[1] >= '0' && c[1] <= '9');
}

void steer_plan_print(const struct steer_plan *plan, FILE *f)
{
	fputs("# srv6d's steering (steering auto), in nft syntax: kernels "
	      "with the nft queue\n# expression (CONFIG_NFT_QUEUE)\n", f);
	for (int pass = 0; pass < 2; pass++) {
		unsigned lo = pass ? plan->nrules6 : 0;
		unsigned hi = pass ? plan->nrules : plan->nrules6;

		bool guard = false;

		for (unsigned i = lo; i < hi; i++)
			guard = guard || guard_chain(plan->rules[i].chain);
		fprintf(f, "table %s " STEER_TABLE " {\n", pass ? "ip" : "ip6");
		if (guard)
			fputs("\tcounter " STEER_GUARD_COUNTER " {\n\t}\n"
			      "\tcounter " STEER_GUARD_UNMARKED " {\n\t}\n", f);
		if (guard && !pass)
			fputs("\tcounter " STEER_PROBE_KEPT " {\n\t}\n"
			      "\tcounter " STEER_PROBE_CARRIED " {\n\t}\n"
			      "\tcounter " STEER_PROBE_ZEROED " {\n\t}\n"
			      "\tcounter " STEER_PROBE_LOST " {\n\t}\n"
			      "\tcounter " STEER_KEND_RESTORED " {\n\t}\n", f);
		fprintf(f, "\tchain " STEER_CHAIN
			" {\n\t\ttype filter hook prerouting priority %d; "
			"policy accept;\n", STEER_PRIORITY);
		for (unsigned i = lo; i < hi; i++)
			if (!plan->rules[i].chain[0])
				print_nft_rule(&plan->rules[i], f);
		fputs("\t}\n", f);
		for (unsigned i = lo; i < hi; i++) {
			const char *c = plan->rules[i].chain;

			if (!c[0] || (i > lo &&
				      !strcmp(plan->rules[i - 1].chain, c)))
				continue;
			fprintf(f, "\tchain %s {\n", c);
			if (!strcmp(c, STEER_GUARD_CHAIN))
				fprintf(f, "\t\ttype filter hook prerouting "
					"priority %d; policy accept;\n",
					STEER_GUARD_PRIORITY);
			for (unsigned j = i; j < hi; j++)
				if (!strcmp(plan->rules[j].chain, c))
					print_nft_rule(&plan->rules[j], f);
			fputs("\t}\n", f);
		}
		fputs("}\n", f);
	}
	fputs("# the same with iptables (kernels without the nft queue "
	      "expression)\n", f);
	for (unsigned i = 0; i < plan->nrules; i++) {
		const struct steer_rule *r = &plan->rules[i];

		if (r->chain[0] && !guard_chain(r->chain) &&
		    (i == 0 || i == plan->nrules6 ||
		     strcmp(plan->rules[i - 1].chain, r->chain)))
			fprintf(f, "%s -t raw -N srv6d-%s\n",
				r->family == AF_INET6 ? "ip6tables" :
							"iptables", r->chain);
	}
	for (unsigned i = 0; i < plan->nrules; i++)
		if (!guard_chain(plan->rules[i].chain))
			print_ipt_rule(&plan->rules[i], f);
}

/* ---- the rules as nf_tables expressions --------------------------------- */

static int rule_add_expr(struct nftnl_rule *r, struct nftnl_expr *e)
{
	if (!e)
		return -1;
	nftnl_rule_add_expr(r, e);
	return 0;
}

/* meta KEY into register 1 (reg NFTNL_EXPR_META_DREG) or set from it
 * (NFTNL_EXPR_META_SREG). */
static struct nftnl_expr *expr_meta_reg(uint32_t key, uint16_t reg)
{
	struct nftnl_expr *e = nftnl_expr_alloc("meta");

	if (e) {
		nftnl_expr_set_u32(e, NFTNL_EXPR_META_KEY, key);
		nftnl_expr_set_u32(e, reg, NFT_REG_1);
	}
	return e;
}

static struct nftnl_expr *expr_meta(uint32_t key)
{
	return expr_meta_reg(key, NFTNL_EXPR_META_DREG);
}

static struct nftnl_expr *expr_meta_set(uint32_t key)
{
	return expr_meta_reg(key, NFTNL_EXPR_META_SREG);
}

static struct nftnl_expr *expr_cmp(uint32_t op, const void *data,
				   uint32_t len)
{
	struct nftnl_expr *e = nftnl_expr_alloc("cmp");

	if (e) {
		nftnl_expr_set_u32(e, NFTNL_EXPR_CMP_SREG, NFT_REG_1);
		nftnl_expr_set_u32(e, NFTNL_EXPR_CMP_OP, op);
		nftnl_expr_set(e, NFTNL_EXPR_CMP_DATA, data, len);
	}
	return e;
}

static int rule_iifname(struct nftnl_rule *nr, const struct steer_rule *r)
{
	char name[IF_NAMESIZE] = { 0 };
	size_t len = strlen(r->iifname);

	memcpy(name, r->iifname, len);
	if (rule_add_expr(nr, expr_meta(NFT_META_IIFNAME)) < 0)
		return -1;
	/* a wildcard compares its bytes only, a name all with its NULs */
	return rule_add_expr(nr, expr_cmp(NFT_CMP_EQ, name,
					  r->iif_wildcard ? len : IF_NAMESIZE));
}

/* The mark in register 1 under mask (none when all bits), in host
 * order as meta mark loads it. */
static int rule_mark_and(struct nftnl_rule *nr, uint32_t mask)
{
	uint32_t xor = 0;
	struct nftnl_expr *e;

	if (mask == 0xffffffffu)
		return 0;
	e = nftnl_expr_alloc("bitwise");
	if (!e)
		return -1;
	nftnl_expr_set_u32(e, NFTNL_EXPR_BITWISE_SREG, NFT_REG_1);
	nftnl_expr_set_u32(e, NFTNL_EXPR_BITWISE_DREG, NFT_REG_1);
	nftnl_expr_set_u32(e, NFTNL_EXPR_BITWISE_LEN, sizeof(mask));
	nftnl_expr_set(e, NFTNL_EXPR_BITWISE_MASK, &mask, sizeof(mask));
	nftnl_expr_set(e, NFTNL_EXPR_BITWISE_XOR, &xor, sizeof(xor));
	nftnl_rule_add_expr(nr, e);
	return 0;
}

static int rule_mark_range(struct nftnl_rule *nr, const struct steer_rule *r)
{
	uint32_t from = htonl(r->mark_from), to = htonl(r->mark_to);
	struct nftnl_expr *e;

	/* G0P's range is on the priority that carries the mark */
	if (rule_add_expr(nr, expr_meta(rule_on_priority(r) ?
					NFT_META_PRIORITY : NFT_META_MARK)) < 0 ||
	    rule_mark_and(nr, r->mark_mask) < 0)
		return -1;
	/* range compares bytes: the mark in network order (as nft does) */
	e = nftnl_expr_alloc("byteorder");
	if (!e)
		return -1;
	nftnl_expr_set_u32(e, NFTNL_EXPR_BYTEORDER_SREG, NFT_REG_1);
	nftnl_expr_set_u32(e, NFTNL_EXPR_BYTEORDER_DREG, NFT_REG_1);
	nftnl_expr_set_u32(e, NFTNL_EXPR_BYTEORDER_OP, NFT_BYTEORDER_HTON);
	nftnl_expr_set_u32(e, NFTNL_EXPR_BYTEORDER_LEN, 4);
	nftnl_expr_set_u32(e, NFTNL_EXPR_BYTEORDER_SIZE, 4);
	nftnl_rule_add_expr(nr, e);
	e = nftnl_expr_alloc("range");
	if (!e)
		return -1;
	nftnl_expr_set_u32(e, NFTNL_EXPR_RANGE_SREG, NFT_REG_1);
	nftnl_expr_set_u32(e, NFTNL_EXPR_RANGE_OP, NFT_RANGE_EQ);
	nftnl_expr_set(e, NFTNL_EXPR_RANGE_FROM_DATA, &from, sizeof(from));
	nftnl_expr_set(e, NFTNL_EXPR_RANGE_TO_DATA, &to, sizeof(to));
	nftnl_rule_add_expr(nr, e);
	return 0;
}

/* The destination's first plen bits: its bytes loaded, the last one
 * masked when plen is not a multiple of 8, compared. */
static int rule_daddr(struct nftnl_rule *nr, const struct steer_rule *r)
{
	uint32_t len = (r->plen + 7u) / 8u;
	struct nftnl_expr *e = nftnl_expr_alloc("payload");

	if (!e)
		return -1;
	nftnl_expr_set_u32(e, NFTNL_EXPR_PAYLOAD_DREG, NFT_REG_1);
	nftnl_expr_set_u32(e, NFTNL_EXPR_PAYLOAD_BASE,
			   NFT_PAYLOAD_NETWORK_HEADER);
	nftnl_expr_set_u32(e, NFTNL_EXPR_PAYLOAD_OFFSET,
			   r->family == AF_INET6 ? 24 : 16);
	nftnl_expr_set_u32(e, NFTNL_EXPR_PAYLOAD_LEN, len);
	nftnl_rule_add_expr(nr, e);
	if (r->plen % 8) {
		uint8_t mask[16] = { 0 }, xor[16] = { 0 };

		memset(mask, 0xff, len - 1);
		mask[len - 1] = (uint8_t)(0xff00u >> (r->plen % 8));
		e = nftnl_expr_alloc("bitwise");
		if (!e)
			return -1;
		nftnl_expr_set_u32(e, NFTNL_EXPR_BITWISE_SREG, NFT_REG_1);
		nftnl_expr_set_u32(e, NFTNL_EXPR_BITWISE_DREG, NFT_REG_1);
		nftnl_expr_set_u32(e, NFTNL_EXPR_BITWISE_LEN, len);
		nftnl_expr_set(e, NFTNL_EXPR_BITWISE_MASK, mask, len);
		nftnl_expr_set(e, NFTNL_EXPR_BITWISE_XOR, xor, len);
		nftnl_rule_add_expr(nr, e);
	}
	return rule_add_expr(nr, expr_cmp(NFT_CMP_EQ, r->addr, len));
}

/* The whole destination looked up in set r->set (rule 5). */
static int rule_daddr_set(struct nftnl_rule *nr, const struct steer_rule *r)
{
	struct nftnl_expr *e = nftnl_expr_alloc("payload");

	if (!e)
		return -1;
	nftnl_expr_set_u32(e, NFTNL_EXPR_PAYLOAD_DREG, NFT_REG_1);
	nftnl_expr_set_u32(e, NFTNL_EXPR_PAYLOAD_BASE,
			   NFT_PAYLOAD_NETWORK_HEADER);
	nftnl_expr_set_u32(e, NFTNL_EXPR_PAYLOAD_OFFSET,
			   r->family == AF_INET6 ? 24 : 16);
	nftnl_expr_set_u32(e, NFTNL_EXPR_PAYLOAD_LEN,
			   r->family == AF_INET6 ? 16 : 4);
	nftnl_rule_add_expr(nr, e);
	e = nftnl_expr_alloc("lookup");
	if (!e)
		return -1;
	nftnl_expr_set_u32(e, NFTNL_EXPR_LOOKUP_SREG, NFT_REG_1);
	nftnl_expr_set_str(e, NFTNL_EXPR_LOOKUP_SET, r->set);
	nftnl_rule_add_expr(nr, e);
	return 0;
}

static int rule_verdict(struct nftnl_rule *nr, const struct steer_rule *r,
			enum steer_backend be)
{
	uint16_t flags = r->queue_total > 1 ? NFT_QUEUE_FLAG_CPU_FANOUT : 0;
	struct nftnl_expr *e;

	if (r->action == STEER_COUNT || r->action == STEER_COUNT_UNMARKED ||
	    r->action == STEER_MARK_KEND || rule_probe_counter(r)) {
		/* counter name "kencap_caught", then accept (or, a probe,
		 * drop) below */
		e = nftnl_expr_alloc("objref");
		if (!e)
			return -1;
		nftnl_expr_set_u32(e, NFTNL_EXPR_OBJREF_IMM_TYPE,
				   NFT_OBJECT_COUNTER);
		nftnl_expr_set_str(e, NFTNL_EXPR_OBJREF_IMM_NAME,
				   rule_probe_counter(r) ?
				   rule_probe_counter(r) :
				   r->action == STEER_MARK_KEND ?
				   STEER_KEND_RESTORED :
				   r->action == STEER_COUNT ?
				   STEER_GUARD_COUNTER : STEER_GUARD_UNMARKED);
		nftnl_rule_add_expr(nr, e);
	}
	if (rule_probe_counter(r)) {
		e = nftnl_expr_alloc("immediate");
		if (!e)
			return -1;
		nftnl_expr_set_u32(e, NFTNL_EXPR_IMM_DREG, NFT_REG_VERDICT);
		nftnl_expr_set_u32(e, NFTNL_EXPR_IMM_VERDICT, NF_DROP);
		nftnl_rule_add_expr(nr, e);
		return 0;
	}
	if (r->action == STEER_MARK_FROM_MAC) {
		/* the source address's last 4 bytes (rtrules_dev_mac() of
		 * the frame's SO_MARK), host order, into the mark; no
		 * verdict: the chain goes on */
		e = nftnl_expr_alloc("payload");
		if (!e)
			return -1;
		nftnl_expr_set_u32(e, NFTNL_EXPR_PAYLOAD_BASE,
				   NFT_PAYLOAD_LL_HEADER);
		nftnl_expr_set_u32(e, NFTNL_EXPR_PAYLOAD_OFFSET, 8);
		nftnl_expr_set_u32(e, NFTNL_EXPR_PAYLOAD_LEN, 4);
		nftnl_expr_set_u32(e, NFTNL_EXPR_PAYLOAD_DREG, NFT_REG_1);
		nftnl_rule_add_expr(nr, e);
		e = nftnl_expr_alloc("byteorder");
		if (!e)
			return -1;
		nftnl_expr_set_u32(e, NFTNL_EXPR_BYTEORDER_SREG, NFT_REG_1);
		nftnl_expr_set_u32(e, NFTNL_EXPR_BYTEORDER_DREG, NFT_REG_1);
		nftnl_expr_set_u32(e, NFTNL_EXPR_BYTEORDER_OP,
				   NFT_BYTEORDER_NTOH);
		nftnl_expr_set_u32(e, NFTNL_EXPR_BYTEORDER_LEN, 4);
		nftnl_expr_set_u32(e, NFTNL_EXPR_BYTEORDER_SIZE, 4);
		nftnl_rule_add_expr(nr, e);
		return rule_add_expr(nr, expr_meta_set(NFT_META_MARK));
	}
	if (r->action == STEER_MARK_KEND) {
		/* the SID's mark into the mark; no verdict: the chain goes
		 * on */
		e = nftnl_expr_alloc("immediate");
		if (!e)
			return -1;
		nftnl_expr_set_u32(e, NFTNL_EXPR_IMM_DREG, NFT_REG_1);
		nftnl_expr_set(e, NFTNL_EXPR_IMM_DATA, &r->set_mark,
			       sizeof(r->set_mark));
		nftnl_rule_add_expr(nr, e);
		return rule_add_expr(nr, expr_meta_set(NFT_META_MARK));
	}
	if (r->action == STEER_MARK_FROM_PRIORITY) {
		/* the priority whole into the mark, then 0 into the
		 * priority; no verdict: the chain goes on */
		static const uint32_t zero;

		if (rule_add_expr(nr, expr_meta(NFT_META_PRIORITY)) < 0 ||
		    rule_add_expr(nr, expr_meta_set(NFT_META_MARK)) < 0)
			return -1;
		e = nftnl_expr_alloc("immediate");
		if (!e)
			return -1;
		nftnl_expr_set_u32(e, NFTNL_EXPR_IMM_DREG, NFT_REG_1);
		nftnl_expr_set(e, NFTNL_EXPR_IMM_DATA, &zero, sizeof(zero));
		nftnl_rule_add_expr(nr, e);
		return rule_add_expr(nr, expr_meta_set(NFT_META_PRIORITY));
	}
	if (r->action == STEER_ACCEPT || r->action == STEER_GOTO ||
	    r->action == STEER_COUNT || r->action == STEER_COUNT_UNMARKED) {
		e = nftnl_expr_alloc("immediate");
		if (!e)
			return -1;
		nftnl_expr_set_u32(e, NFTNL_EXPR_IMM_DREG, NFT_REG_VERDICT);
		if (r->action == STEER_GOTO) {
			/* no return: the table's chain ends in the base
			 * chain's policy, never in main's rules */
			nftnl_expr_set_u32(e, NFTNL_EXPR_IMM_VERDICT,
					   (uint32_t)NFT_GOTO);
			nftnl_expr_set_str(e, NFTNL_EXPR_IMM_CHAIN, r->go);
		} else {
			nftnl_expr_set_u32(e, NFTNL_EXPR_IMM_VERDICT,
					   NF_ACCEPT);
		}
	} else if (be == STEER_BACKEND_NFT_QUEUE) {
		/* no NFT_QUEUE_FLAG_BYPASS: fail closed */
		e = nftnl_expr_alloc("queue");
		if (!e)
			return -1;
		nftnl_expr_set_u16(e, NFTNL_EXPR_QUEUE_NUM, r->queue_first);
		nftnl_expr_set_u16(e, NFTNL_EXPR_QUEUE_TOTAL, r->queue_total);
		nftnl_expr_set_u16(e, NFTNL_EXPR_QUEUE_FLAGS, flags);
	} else {
		/* ip6tables -j NFQUEUE's own: xt_NFQUEUE revision 3 through
		 * nft_compat; no NFQ_FLAG_BYPASS: fail closed */
		struct xt_NFQ_info_v3 *info = calloc(1, sizeof(*info));

		e = nftnl_expr_alloc("target");
		if (!e || !info) {
			free(info);
			if (e)
				nftnl_expr_free(e);
			return -1;
		}
		info->queuenum = r->queue_first;
		info->queues_total = r->queue_total;
		info->flags = r->queue_total > 1 ? NFQ_FLAG_CPU_FANOUT : 0;
		nftnl_expr_set_str(e, NFTNL_EXPR_TG_NAME, "NFQUEUE");
		nftnl_expr_set_u32(e, NFTNL_EXPR_TG_REV, 3);
		/* the expression owns info from here on */
		nftnl_expr_set(e, NFTNL_EXPR_TG_INFO, info, sizeof(*info));
	}
	nftnl_rule_add_expr(nr, e);
	return 0;
}

static struct nftnl_rule *rule_build(const struct steer_rule *r,
				     enum steer_backend be)
{
	struct nftnl_rule *nr = nftnl_rule_alloc();

	if (!nr)
		return NULL;
	nftnl_rule_set_u32(nr, NFTNL_RULE_FAMILY,
			   r->family == AF_INET6 ? NFPROTO_IPV6 : NFPROTO_IPV4);
	nftnl_rule_set_str(nr, NFTNL_RULE_TABLE, STEER_TABLE);
	nftnl_rule_set_str(nr, NFTNL_RULE_CHAIN,
			   r->chain[0] ? r->chain : STEER_CHAIN);
	/* a probe rule (GP1-GP4) and G0K test their destination first */
	if ((r->iifname[0] && rule_iifname(nr, r) < 0) ||
	    (r->plen && rule_daddr_first(r) && rule_daddr(nr, r) < 0) ||
	    (r->has_mark_range && rule_mark_range(nr, r) < 0) ||
	    (r->plen && !rule_daddr_first(r) && rule_daddr(nr, r) < 0) ||
	    (r->set[0] && rule_daddr_set(nr, r) < 0) ||
	    (r->has_mark_not &&
	     (rule_add_expr(nr, expr_meta(NFT_META_MARK)) < 0 ||
	      rule_mark_and(nr, r->mark_mask) < 0 ||
	      rule_add_expr(nr, expr_cmp(NFT_CMP_NEQ, &r->mark_not,
					 sizeof(r->mark_not))) < 0)) ||
	    rule_verdict(nr, r, be) < 0) {
		nftnl_rule_free(nr);
		return NULL;
	}
	return nr;
}

int steer_rule_format(const struct steer_rule *r, enum steer_backend be,
		      char *buf, size_t size)
{
	struct nftnl_rule *nr = rule_build(r, be);
	int n;

	if (!nr)
		return -1;
	n = nftnl_rule_snprintf(buf, size, nr, NFTNL_OUTPUT_DEFAULT, 0);
	nftnl_rule_free(nr);
	return n;
}

/* ---- batches ----------------------------------------------------------- */

struct batch {
	struct mnl_nlmsg_batch *b;
	char *buf;
	uint32_t seq, last_seq;
	unsigned nelems;	/* set element prefixes in it */
	bool failed;
};

static int batch_open(struct batch *bt, size_t nrules, size_t nelems,
		      uint32_t seq)
{
	size_t size = 8192 + nrules * 512 + nelems * 2 * 64;

	/* twice the limit: libmnl keeps the message that passes it */
	bt->buf = malloc(2 * size);
	if (!bt->buf)
		return -1;
	bt->nelems = 0;
	bt->b = mnl_nlmsg_batch_start(bt->buf, size);
	bt->seq = seq;
	bt->failed = false;
	nftnl_batch_begin(mnl_nlmsg_batch_current(bt->b), bt->seq++);
	mnl_nlmsg_batch_next(bt->b);
	return 0;
}

static struct nlmsghdr *batch_hdr(struct batch *bt, uint16_t type,
				  int family, uint16_t flags)
{
	bt->last_seq = bt->seq;
	return nftnl_nlmsg_build_hdr(mnl_nlmsg_batch_current(bt->b), type,
				     (uint16_t)family, flags, bt->seq++);
}

/* Table `srv6d` of family: added (so that the delete finds one), deleted
 * (with all it holds) and, when add, added again with its chain. */
static void batch_table(struct batch *bt, int family, bool add)
{
	struct nftnl_table *t = nftnl_table_alloc();
	struct nlmsghdr *nlh;

	if (!t) {
		bt->failed = true;
		return;
	}
	nftnl_table_set_u32(t, NFTNL_TABLE_FAMILY, (uint32_t)family);
	nftnl_table_set_str(t, NFTNL_TABLE_NAME, STEER_TABLE);
	nlh = batch_hdr(bt, NFT_MSG_NEWTABLE, family, NLM_F_CREATE);
	nftnl_table_nlmsg_build_payload(nlh, t);
	mnl_nlmsg_batch_next(bt->b);
	nlh = batch_hdr(bt, NFT_MSG_DELTABLE, family, 0);
	nftnl_table_nlmsg_build_payload(nlh, t);
	mnl_nlmsg_batch_next(bt->b);
	if (add) {
		struct nftnl_chain *c = nftnl_chain_alloc();

		nlh = batch_hdr(bt, NFT_MSG_NEWTABLE, family, NLM_F_CREATE);
		nftnl_table_nlmsg_build_payload(nlh, t);
		mnl_nlmsg_batch_next(bt->b);
		if (!c) {
			bt->failed = true;
		} else {
			nftnl_chain_set_u32(c, NFTNL_CHAIN_FAMILY,
					    (uint32_t)family);
			nftnl_chain_set_str(c, NFTNL_CHAIN_TABLE, STEER_TABLE);
			nftnl_chain_set_str(c, NFTNL_CHAIN_NAME, STEER_CHAIN);
			nftnl_chain_set_str(c, NFTNL_CHAIN_TYPE, "filter");
			nftnl_chain_set_u32(c, NFTNL_CHAIN_HOOKNUM,
					    NF_INET_PRE_ROUTING);
			nftnl_chain_set_s32(c, NFTNL_CHAIN_PRIO,
					    STEER_PRIORITY);
			nftnl_chain_set_u32(c, NFTNL_CHAIN_POLICY, NF_ACCEPT);
			nlh = batch_hdr(bt, NFT_MSG_NEWCHAIN, family,
					NLM_F_CREATE);
			nftnl_chain_nlmsg_build_payload(nlh, c);
			mnl_nlmsg_batch_next(bt->b);
			nftnl_chain_free(c);
		}
	}
	nftnl_table_free(t);
}

/* The set a rule of plan names: added (type NEWSET) or deleted. */
static void batch_set(struct batch *bt, const struct steer_rule *r,
		      uint16_t type)
{
	int nfproto = r->family == AF_INET6 ? NFPROTO_IPV6 : NFPROTO_IPV4;
	struct nftnl_set *set = nftnl_set_alloc();
	struct nlmsghdr *nlh;

	if (!set) {
		bt->failed = true;
		return;
	}
	nftnl_set_set_u32(set, NFTNL_SET_FAMILY, (uint32_t)nfproto);
	nftnl_set_set_str(set, NFTNL_SET_TABLE, STEER_TABLE);
	nftnl_set_set_str(set, NFTNL_SET_NAME, r->set);
	if (type == NFT_MSG_NEWSET) {
		nftnl_set_set_u32(set, NFTNL_SET_ID, bt->seq);
		nftnl_set_set_u32(set, NFTNL_SET_FLAGS, NFT_SET_INTERVAL);
		nftnl_set_set_u32(set, NFTNL_SET_KEY_TYPE,
				  r->family == AF_INET6 ? STEER_TYPE_IP6ADDR :
							  STEER_TYPE_IPADDR);
		nftnl_set_set_u32(set, NFTNL_SET_KEY_LEN,
				  r->family == AF_INET6 ? 16 : 4);
	}
	nlh = batch_hdr(bt, type, nfproto,
			type == NFT_MSG_NEWSET ? NLM_F_CREATE : 0);
	nftnl_set_nlmsg_build_payload(nlh, set);
	mnl_nlmsg_batch_next(bt->b);
	nftnl_set_free(set);
}

/* A table's chain (a regular chain: no hook) added (NEWCHAIN, kept
 * when there) or deleted. */
static void batch_regular_chain(struct batch *bt, int family,
				const char *name, uint16_t type)
{
	struct nftnl_chain *c = nftnl_chain_alloc();
	struct nlmsghdr *nlh;

	if (!c) {
		bt->failed = true;
		return;
	}
	nftnl_chain_set_u32(c, NFTNL_CHAIN_FAMILY, (uint32_t)family);
	nftnl_chain_set_str(c, NFTNL_CHAIN_TABLE, STEER_TABLE);
	nftnl_chain_set_str(c, NFTNL_CHAIN_NAME, name);
	nlh = batch_hdr(bt, type, family,
			type == NFT_MSG_NEWCHAIN ? NLM_F_CREATE : 0);
	nftnl_chain_nlmsg_build_payload(nlh, c);
	mnl_nlmsg_batch_next(bt->b);
	nftnl_chain_free(c);
}

/* Whether rules lo..hi of plan have one in chain name. */
static bool plan_has_chain(const struct steer_plan *plan, unsigned lo,
			   unsigned hi, const char *name)
{
	for (unsigned i = lo; i < hi; i++)
		if (!strcmp(plan->rules[i].chain, name))
			return true;
	return false;
}

/* The guard's counters (markguard.h) of family, added (NEWOBJ: kept
 * with their counts when there) or deleted. */
static void batch_guard_counter(struct batch *bt, int family, uint16_t type)
{
	static const char *const names[] = {
		STEER_GUARD_COUNTER, STEER_GUARD_UNMARKED,
		STEER_PROBE_KEPT, STEER_PROBE_CARRIED, STEER_PROBE_ZEROED,
		STEER_PROBE_LOST, STEER_KEND_RESTORED,
	};
	/* the probe's (markprobe.h) and G0K's are IPv6's only */
	unsigned n = family == NFPROTO_IPV6 ? 7 : 2;

	for (unsigned i = 0; i < n && !bt->failed; i++) {
		struct nftnl_obj *o = nftnl_obj_alloc();
		struct nlmsghdr *nlh;

		if (!o) {
			bt->failed = true;
			return;
		}
		nftnl_obj_set_u32(o, NFTNL_OBJ_FAMILY, (uint32_t)family);
		nftnl_obj_set_str(o, NFTNL_OBJ_TABLE, STEER_TABLE);
		nftnl_obj_set_str(o, NFTNL_OBJ_NAME, names[i]);
		nftnl_obj_set_u32(o, NFTNL_OBJ_TYPE, NFT_OBJECT_COUNTER);
		nlh = batch_hdr(bt, type, family,
				type == NFT_MSG_NEWOBJ ? NLM_F_CREATE : 0);
		nftnl_obj_nlmsg_build_payload(nlh, o);
		mnl_nlmsg_batch_next(bt->b);
		nftnl_obj_free(o);
	}
}

/* The guard's base chain (the last of prerouting) of family, added
 * (kept when there), its counter first. */
static void batch_guard_chain(struct batch *bt, int family)
{
	struct nftnl_chain *c = nftnl_chain_alloc();
	struct nlmsghdr *nlh;

	batch_guard_counter(bt, family, NFT_MSG_NEWOBJ);
	if (!c) {
		bt->failed = true;
		return;
	}
	nftnl_chain_set_u32(c, NFTNL_CHAIN_FAMILY, (uint32_t)family);
	nftnl_chain_set_str(c, NFTNL_CHAIN_TABLE, STEER_TABLE);
	nftnl_chain_set_str(c, NFTNL_CHAIN_NAME, STEER_GUARD_CHAIN);
	nftnl_chain_set_str(c, NFTNL_CHAIN_TYPE, "filter");
	nftnl_chain_set_u32(c, NFTNL_CHAIN_HOOKNUM, NF_INET_PRE_ROUTING);
	nftnl_chain_set_s32(c, NFTNL_CHAIN_PRIO, STEER_GUARD_PRIORITY);
	nftnl_chain_set_u32(c, NFTNL_CHAIN_POLICY, NF_ACCEPT);
	nlh = batch_hdr(bt, NFT_MSG_NEWCHAIN, family, NLM_F_CREATE);
	nftnl_chain_nlmsg_build_payload(nlh, c);
	mnl_nlmsg_batch_next(bt->b);
	nftnl_chain_free(c);
}

/* The chains of rules lo..hi of plan (family's), each once, added (the
 * guard's a base chain with its counter). */
static void batch_chains(struct batch *bt, const struct steer_plan *plan,
			 unsigned lo, unsigned hi, int family)
{
	if (plan_has_chain(plan, lo, hi, STEER_GUARD_CHAIN))
		batch_guard_chain(bt, family);
	for (unsigned i = lo; i < hi && !bt->failed; i++) {
		const char *c = plan->rules[i].chain;

		if (c[0] && strcmp(c, STEER_GUARD_CHAIN) &&
		    !plan_has_chain(plan, lo, i, c))
			batch_regular_chain(bt, family, c, NFT_MSG_NEWCHAIN);
	}
}

/* Every set the rules lo..hi of plan name, added. */
static void batch_sets(struct batch *bt, const struct steer_plan *plan,
		       unsigned lo, unsigned hi)
{
	for (unsigned i = lo; i < hi && !bt->failed; i++)
		if (plan->rules[i].set[0])
			batch_set(bt, &plan->rules[i], NFT_MSG_NEWSET);
}

/* Whether plan has a rule naming set name of family. */
static bool plan_has_set(const struct steer_plan *plan, int family,
			 const char *name)
{
	for (unsigned i = 0; plan && i < plan->nrules; i++)
		if (plan->rules[i].family == family &&
		    !strcmp(plan->rules[i].set, name))
			return true;
	return false;
}

/* The elements of one set being built into one message. */
struct elem_msg {
	struct batch *bt;
	struct nftnl_set *set;
	int family;
	uint32_t table;
	bool add;
	unsigned n;
};

static void elem_flush(struct elem_msg *m)
{
	struct nlmsghdr *nlh;

	if (m->set && m->n) {
		int nfproto = m->family == AF_INET6 ? NFPROTO_IPV6 :
						      NFPROTO_IPV4;

		nlh = batch_hdr(m->bt, m->add ? NFT_MSG_NEWSETELEM :
					    NFT_MSG_DELSETELEM, nfproto,
				m->add ? NLM_F_CREATE : 0);
		nftnl_set_elems_nlmsg_build_payload(nlh, m->set);
		mnl_nlmsg_batch_next(m->bt->b);
	}
	if (m->set)
		nftnl_set_free(m->set);
	m->set = NULL;
	m->n = 0;
}

static void elem_key(struct elem_msg *m, const uint8_t *key, size_t len,
		     bool end)
{
	struct nftnl_set_elem *e = nftnl_set_elem_alloc();

	if (!e) {
		m->bt->failed = true;
		return;
	}
	nftnl_set_elem_set(e, NFTNL_SET_ELEM_KEY, key, (uint32_t)len);
	if (end)
		nftnl_set_elem_set_u32(e, NFTNL_SET_ELEM_FLAGS,
				       NFT_SET_ELEM_INTERVAL_END);
	nftnl_set_elem_add(m->set, e);
	m->n++;
}

/* Element e (its interval: one or two set elements) into the message,
 * a new message when e is of another set or kind or this one is full. */
static void elem_put(struct elem_msg *m, const struct steerset_elem *e)
{
	char name[16];
	uint8_t from[16], to[16];
	bool has_to;
	size_t alen = e->family == AF_INET6 ? 16 : 4;

	if (m->set && (m->family != e->family || m->table != e->table ||
		       m->add != e->add || m->n >= STEER_SET_MSG))
		elem_flush(m);
	if (m->bt->failed)
		return;
	if (!m->set) {
		m->set = nftnl_set_alloc();
		if (!m->set) {
			m->bt->failed = true;
			return;
		}
		m->family = e->family;
		m->table = e->table;
		m->add = e->add;
		set_name(name, sizeof(name), e->family, e->table);
		nftnl_set_set_u32(m->set, NFTNL_SET_FAMILY,
				  e->family == AF_INET6 ? NFPROTO_IPV6 :
							  NFPROTO_IPV4);
		nftnl_set_set_str(m->set, NFTNL_SET_TABLE, STEER_TABLE);
		nftnl_set_set_str(m->set, NFTNL_SET_NAME, name);
	}
	steerset_interval(e, from, to, &has_to);
	elem_key(m, from, alen, false);
	if (has_to)
		elem_key(m, to, alen, true);
}

/* Table and base chain of family there (created when missing, kept
 * otherwise), the chain's rules flushed, then plan's sets added. */
static void batch_chain_flush(struct batch *bt, int family)
{
	struct nftnl_table *t = nftnl_table_alloc();
	struct nftnl_chain *c = nftnl_chain_alloc();
	struct nftnl_rule *r = nftnl_rule_alloc();
	struct nlmsghdr *nlh;

	if (!t || !c || !r) {
		bt->failed = true;
		goto out;
	}
	nftnl_table_set_u32(t, NFTNL_TABLE_FAMILY, (uint32_t)family);
	nftnl_table_set_str(t, NFTNL_TABLE_NAME, STEER_TABLE);
	nlh = batch_hdr(bt, NFT_MSG_NEWTABLE, family, NLM_F_CREATE);
	nftnl_table_nlmsg_build_payload(nlh, t);
	mnl_nlmsg_batch_next(bt->b);
	nftnl_chain_set_u32(c, NFTNL_CHAIN_FAMILY, (uint32_t)family);
	nftnl_chain_set_str(c, NFTNL_CHAIN_TABLE, STEER_TABLE);
	nftnl_chain_set_str(c, NFTNL_CHAIN_NAME, STEER_CHAIN);
	nftnl_chain_set_str(c, NFTNL_CHAIN_TYPE, "filter");
	nftnl_chain_set_u32(c, NFTNL_CHAIN_HOOKNUM, NF_INET_PRE_ROUTING);
	nftnl_chain_set_s32(c, NFTNL_CHAIN_PRIO, STEER_PRIORITY);
	nftnl_chain_set_u32(c, NFTNL_CHAIN_POLICY, NF_ACCEPT);
	nlh = batch_hdr(bt, NFT_MSG_NEWCHAIN, family, NLM_F_CREATE);
	nftnl_chain_nlmsg_build_payload(nlh, c);
	mnl_nlmsg_batch_next(bt->b);
	/* no chain: every chain's rules of the table */
	nftnl_rule_set_u32(r, NFTNL_RULE_FAMILY, (uint32_t)family);
	nftnl_rule_set_str(r, NFTNL_RULE_TABLE, STEER_TABLE);
	nlh = batch_hdr(bt, NFT_MSG_DELRULE, family, 0);
	nftnl_rule_nlmsg_build_payload(nlh, r);
	mnl_nlmsg_batch_next(bt->b);
out:
	if (t)
		nftnl_table_free(t);
	if (c)
		nftnl_chain_free(c);
	if (r)
		nftnl_rule_free(r);
}

static void batch_rules(struct batch *bt, const struct steer_plan *plan,
			unsigned lo, unsigned hi, enum steer_backend be)
{
	for (unsigned i = lo; i < hi && !bt->failed; i++) {
		const struct steer_rule *r = &plan->rules[i];
		struct nftnl_rule *nr = rule_build(r, be);
		struct nlmsghdr *nlh;

		if (!nr) {
			bt->failed = true;
			return;
		}
		nlh = batch_hdr(bt, NFT_MSG_NEWRULE,
				r->family == AF_INET6 ? NFPROTO_IPV6 :
							NFPROTO_IPV4,
				NLM_F_APPEND | NLM_F_CREATE);
		nftnl_rule_nlmsg_build_payload(nlh, nr);
		mnl_nlmsg_batch_next(bt->b);
		nftnl_rule_free(nr);
	}
}

/* Ends the batch, the last message asking for an ACK (an error is
 * reported for any message anyway); sends it and reads the answers up
 * to that ACK.  Returns 0, or -errno of the first error. */
static int batch_send(struct mnl_socket *nl, struct batch *bt)
{
	struct nlmsghdr *last = NULL;
	char rbuf[STEER_NL_BUF];
	uint32_t portid = mnl_socket_get_portid(nl);
	int first_err = 0, sndbuf;
	size_t len;

	if (bt->failed)
		return -ENOMEM;
	/* the last message before the end asks for the ACK */
	for (struct nlmsghdr *h = mnl_nlmsg_batch_head(bt->b);
	     (char *)h < (char *)mnl_nlmsg_batch_current(bt->b);
	     h = (struct nlmsghdr *)((char *)h + NLMSG_ALIGN(h->nlmsg_len)))
		last = h;
	if (last)
		last->nlmsg_flags |= NLM_F_ACK;
	nftnl_batch_end(mnl_nlmsg_batch_current(bt->b), bt->seq++);
	mnl_nlmsg_batch_next(bt->b);
	len = mnl_nlmsg_batch_size(bt->b);
	sndbuf = (int)len + 4096;
	/* a set's elements make batches larger than wmem_max (as nft) */
	if (setsockopt(mnl_socket_get_fd(nl), SOL_SOCKET, SO_SNDBUFFORCE,
		       &sndbuf, sizeof(sndbuf)) < 0)
		setsockopt(mnl_socket_get_fd(nl), SOL_SOCKET, SO_SNDBUF,
			   &sndbuf, sizeof(sndbuf));
	if (mnl_socket_sendto(nl, mnl_nlmsg_batch_head(bt->b), len) < 0)
		return -errno;
	for (;;) {
		ssize_t n = mnl_socket_recvfrom(nl, rbuf, sizeof(rbuf));
		const struct nlmsghdr *h = (const struct nlmsghdr *)rbuf;
		int left = (int)n;

		if (n < 0)
			return first_err ? first_err : -errno;
		for (; mnl_nlmsg_ok(h, left); h = mnl_nlmsg_next(h, &left)) {
			const struct nlmsgerr *e;

			if (h->nlmsg_pid != portid ||
			    h->nlmsg_type != NLMSG_ERROR)
				continue;
			e = mnl_nlmsg_get_payload(h);
			if (e->error && !first_err)
				first_err = e->error;
			if (h->nlmsg_seq == bt->last_seq)
				return first_err;
		}
	}
}

static void batch_close(struct batch *bt)
{
	if (bt->b)
		mnl_nlmsg_batch_stop(bt->b);
	free(bt->buf);
	bt->b = NULL;
	bt->buf = NULL;
}

/* ---- the object -------------------------------------------------------- */

struct steer {
	struct mnl_socket *nl;		/* batches and their answers */
	struct mnl_socket *watch;	/* NFNLGRP_NFTABLES, or NULL */
	uint32_t seq;
	struct steer_plan plan;		/* in force (when installed) */
	struct steerset *kset;		/* the kernel routes' prefixes */
	struct steer_link *links;	/* steer_links()'s */
	size_t nlinks;
	bool links_known;
	struct steer_status st;
	time_t last_repair_log;
};

const char *steer_backend_name(enum steer_backend b)
{
	switch (b) {
	case STEER_BACKEND_NFT_QUEUE:
		return "nft-queue";
	case STEER_BACKEND_XT_NFQUEUE:
		return "xt-NFQUEUE";
	default:
		return "none";
	}
}

static struct mnl_socket *nl_open(unsigned groups)
{
	struct mnl_socket *nl = mnl_socket_open2(NETLINK_NETFILTER,
						 SOCK_CLOEXEC);
	struct timeval tv = { .tv_sec = 2 };

	if (!nl)
		return NULL;
	if (mnl_socket_bind(nl, groups, MNL_SOCKET_AUTOPID) < 0) {
		mnl_socket_close(nl);
		return NULL;
	}
	/* a kernel that never answers must not hang the daemon */
	setsockopt(mnl_socket_get_fd(nl), SOL_SOCKET, SO_RCVTIMEO, &tv,
		   sizeof(tv));
	return nl;
}

/* The elements of elems[0..n) that belong to a set of plan, into bt
 * and, past STEER_SET_CHUNK, further batches (each one transaction:
 * sent here but the last, which the caller sends).  Returns 0 or
 * -errno. */
static int batch_elems(struct steer *st, struct batch *bt,
		       const struct steer_plan *plan,
		       const struct steer_plan *skip,
		       const struct steerset_elem *elems, size_t n)
{
	struct elem_msg m = { .bt = bt };
	char name[16];
	int r;

	for (size_t i = 0; i < n && !bt->failed; i++) {
		set_name(name, sizeof(name), elems[i].family, elems[i].table);
		if (!plan_has_set(plan, elems[i].family, name))
			continue;	/* its set goes */
		if (skip && !plan_has_set(skip, elems[i].family, name))
			continue;	/* a new set: all of it comes */
		if (bt->nelems == STEER_SET_CHUNK) {
			elem_flush(&m);
			m.bt = NULL;
			r = batch_send(st->nl, bt);
			st->seq = bt->seq;
			batch_close(bt);
			if (r < 0)
				return r;
			st->st.batches++;
			if (batch_open(bt, 0, STEER_SET_CHUNK, st->seq) < 0)
				return -ENOMEM;
			m.bt = bt;
		}
		elem_put(&m, &elems[i]);
		bt->nelems++;
	}
	elem_flush(&m);
	return bt->failed ? -ENOMEM : 0;
}

static void collect_elem(const struct steerset_elem *e, void *arg)
{
	struct steerset_delta *d = arg;

	if (d->n < d->cap)
		d->e[d->n++] = *e;
}

static void collect_table(int family, uint32_t table, void *arg)
{
	void **a = arg;

	steerset_elems(a[0], family, table, collect_elem, a[1]);
}

/* Every element of st->kset, to add, into d.  Returns 0 or -1. */
static int kset_all(const struct steer *st, struct steerset_delta *d)
{
	void *a[2] = { st->kset, d };
	size_t n = st->kset ? steerset_count(st->kset) : 0;

	memset(d, 0, sizeof(*d));
	if (!n)
		return 0;
	d->e = malloc(n * sizeof(*d->e));
	if (!d->e)
		return -1;
	d->cap = n;
	steerset_tables(st->kset, collect_table, a);
	return 0;
}

/* The sets plan installs and their elements (a table no link selects
 * has no set: srv6d would not steer its packets either). */
static void status_sets(struct steer *st, const struct steer_plan *plan)
{
	st->st.sets = 0;
	st->st.set_elements = 0;
	for (unsigned i = 0; plan && i < plan->nrules; i++) {
		const struct steer_rule *r = &plan->rules[i];
		unsigned table;

		if (!r->set[0] || sscanf(r->set + 4, "%u", &table) != 1)
			continue;
		st->st.sets++;
		st->st.set_elements += steerset_elems(st->kset, r->family,
						      table, NULL, NULL);
	}
}

/* One batch (more with many set elements): plan installed with backend
 * be, its sets holding every element of st->kset (plan NULL: the
 * tables removed).  Returns 0 or -errno. */
static int steer_send(struct steer *st, const struct steer_plan *plan,
		      enum steer_backend be)
{
	struct steerset_delta all = { 0 };
	struct batch bt = { 0 };
	int r;

	if (plan && kset_all(st, &all) < 0)
		return -ENOMEM;
	if (batch_open(&bt, plan ? plan->nrules : 0,
		       all.n < STEER_SET_CHUNK ? all.n : STEER_SET_CHUNK,
		       st->seq) < 0) {
		steerset_delta_free(&all);
		return -ENOMEM;
	}
	batch_table(&bt, NFPROTO_IPV6, plan != NULL);
	if (plan) {
		batch_chains(&bt, plan, 0, plan->nrules6, NFPROTO_IPV6);
		batch_sets(&bt, plan, 0, plan->nrules6);
		batch_rules(&bt, plan, 0, plan->nrules6, be);
	}
	batch_table(&bt, NFPROTO_IPV4, plan != NULL);
	if (plan) {
		batch_chains(&bt, plan, plan->nrules6, plan->nrules,
			     NFPROTO_IPV4);
		batch_sets(&bt, plan, plan->nrules6, plan->nrules);
		batch_rules(&bt, plan, plan->nrules6, plan->nrules, be);
	}
	r = plan ? batch_elems(st, &bt, plan, NULL, all.e, all.n) : 0;
	if (r == 0)
		r = batch_send(st->nl, &bt);
	st->seq = bt.seq;
	batch_close(&bt);
	steerset_delta_free(&all);
	if (r == 0) {
		/* counted when the kernel took it: not the probe's */
		st->st.batches++;
		st->st.changed = time(NULL);
		status_sets(st, plan);
	}
	return r;
}

/* plan in force over old (in force: srv6d's tables are there), its
 * chains' rules replaced, its sets kept (new ones added, those old
 * alone names deleted), then the elements of d changed.  One batch
 * (more with many elements).  Returns 0 or -errno. */
static int steer_send_update(struct steer *st, const struct steer_plan *plan,
			     const struct steer_plan *old,
			     const struct steerset_delta *d, bool rules)
{
	struct batch bt = { 0 };
	int r;

	/* with the rules, a set that comes brings all its elements */
	if (batch_open(&bt, rules ? plan->nrules + old->nrules : 0,
		       !rules && d && d->n < STEER_SET_CHUNK ? d->n :
							   STEER_SET_CHUNK,
		       st->seq) < 0)
		return -ENOMEM;
	for (int pass = 0; rules && pass < 2; pass++) {
		int family = pass ? AF_INET : AF_INET6;
		unsigned lo = pass ? plan->nrules6 : 0;
		unsigned hi = pass ? plan->nrules : plan->nrules6;

		unsigned olo = pass ? old->nrules6 : 0;
		unsigned ohi = pass ? old->nrules : old->nrules6;
		int nfproto = pass ? NFPROTO_IPV4 : NFPROTO_IPV6;

		batch_chain_flush(&bt, nfproto);
		batch_chains(&bt, plan, lo, hi, nfproto);
		for (unsigned i = lo; i < hi && !bt.failed; i++)
			if (plan->rules[i].set[0] &&
			    !plan_has_set(old, family, plan->rules[i].set))
				batch_set(&bt, &plan->rules[i],
					  NFT_MSG_NEWSET);
		batch_rules(&bt, plan, lo, hi, st->st.backend);
		for (unsigned i = 0; i < old->nrules && !bt.failed; i++)
			if (old->rules[i].family == family &&
			    old->rules[i].set[0] &&
			    !plan_has_set(plan, family, old->rules[i].set))
				batch_set(&bt, &old->rules[i],
					  NFT_MSG_DELSET);
		for (unsigned i = olo; i < ohi && !bt.failed; i++) {
			const char *c = old->rules[i].chain;

			if (c[0] && !plan_has_chain(old, olo, i, c) &&
			    !plan_has_chain(plan, lo, hi, c))
				batch_regular_chain(&bt, nfproto, c,
						    NFT_MSG_DELCHAIN);
		}
		if (plan_has_chain(old, olo, ohi, STEER_GUARD_CHAIN) &&
		    !plan_has_chain(plan, lo, hi, STEER_GUARD_CHAIN))
			batch_guard_counter(&bt, nfproto, NFT_MSG_DELOBJ);
	}
	/* d's changes of the sets that stay, then every element of those
	 * that come (a table now selected by a link, or new) */
	r = d ? batch_elems(st, &bt, plan, old, d->e, d->n) : 0;
	if (r == 0 && rules) {
		struct steerset_delta fresh = { 0 };
		size_t k = 0;

		if (kset_all(st, &fresh) < 0)
			r = -ENOMEM;
		for (size_t i = 0; i < fresh.n; i++) {
			char name[16];

			set_name(name, sizeof(name), fresh.e[i].family,
				 fresh.e[i].table);
			if (!plan_has_set(old, fresh.e[i].family, name))
				fresh.e[k++] = fresh.e[i];
		}
		if (r == 0)
			r = batch_elems(st, &bt, plan, NULL, fresh.e, k);
		steerset_delta_free(&fresh);
	}
	if (r == 0 && bt.seq == st->seq + 1) {
		/* nothing but the begin: no set of plan's changed */
		batch_close(&bt);
		status_sets(st, plan);
		return 0;
	}
	if (r == 0)
		r = batch_send(st->nl, &bt);
	st->seq = bt.seq;
	batch_close(&bt);
	if (r == 0) {
		st->st.batches++;
		st->st.changed = time(NULL);
		status_sets(st, plan);
	}
	return r;
}

/* plan in force: with the backend found before, else the nft queue
 * expression and, when the kernel has none (ENOENT: no such expression),
 * the xtables target.  A batch is all or nothing: a refused one changed
 * nothing. */
static int steer_install(struct steer *st, const struct steer_plan *plan,
			 char *err, size_t errlen)
{
	enum steer_backend be = st->st.backend;
	int r;

	if (be == STEER_BACKEND_NONE) {
		be = STEER_BACKEND_NFT_QUEUE;
		r = steer_send(st, plan, be);
		if (r == -ENOENT || r == -EOPNOTSUPP) {
			be = STEER_BACKEND_XT_NFQUEUE;
			r = steer_send(st, plan, be);
		}
		if (r == 0)
			log_msg(LOG_INFO, "steering: %s (%s)",
				steer_backend_name(be),
				be == STEER_BACKEND_NFT_QUEUE ?
				"the nft queue expression" :
				"no nft queue expression on this kernel: "
				"the xtables NFQUEUE target");
	} else {
		r = steer_send(st, plan, be);
	}
	if (r < 0) {
		snprintf(err, errlen, "steering: installing the rules of "
			 "table srv6d: %s", strerror(-r));
		snprintf(st->st.why, sizeof(st->st.why), "%s", err);
		st->st.failed = true;
		return -1;
	}
	/* the backend is known once a queue rule was taken */
	for (unsigned i = 0; i < plan->nrules; i++)
		if (plan->rules[i].action == STEER_QUEUE)
			st->st.backend = be;
	st->st.installed = true;
	st->st.failed = false;
	st->st.why[0] = '\0';
	st->st.rules = plan->nrules;
	return 0;
}

/* The plan of cfg with st's sets and links. */
static int steer_plan(const struct steer *st, const struct config *cfg,
		      const struct runstate *rs, struct steer_plan *plan)
{
	struct plan_links pl = { .l = st->links, .n = st->nlinks,
				 .known = st->links_known };

	return plan_build_links(cfg, rs, st->kset, &pl, plan);
}

/* plan in force instead of st->plan: with srv6d's tables installed, its
 * rules replaced and its sets kept (the elements of d changed: NULL
 * none); else installed whole (every element).  Returns 0 or -1
 * (err). */
static int steer_replace(struct steer *st, const struct steer_plan *plan,
			 const struct steerset_delta *d, char *err,
			 size_t errlen)
{
	int r;

	if (!st->st.installed || st->st.backend == STEER_BACKEND_NONE) {
		st->st.installed = false;
		return steer_install(st, plan, err, errlen);
	}
	r = steer_send_update(st, plan, &st->plan, d, true);
	if (r == -ENOENT) {
		/* someone removed a part: all of it again */
		st->st.installed = false;
		return steer_install(st, plan, err, errlen);
	}
	if (r < 0) {
		snprintf(err, errlen, "steering: replacing the rules of "
			 "table srv6d: %s", strerror(-r));
		snprintf(st->st.why, sizeof(st->st.why), "%s", err);
		st->st.failed = true;
		return -1;
	}
	st->st.failed = false;
	st->st.why[0] = '\0';
	st->st.rules = plan->nrules;
	return 0;
}

struct steer *steer_open(const struct config *cfg, const struct runstate *rs,
			 bool *ok, char *err, size_t errlen)
{
	struct steer *st = calloc(1, sizeof(*st));
	struct steer_plan plan;

	*ok = false;
	if (!st) {
		snprintf(err, errlen, "steering: out of memory");
		return NULL;
	}
	st->seq = (uint32_t)time(NULL);
	st->st.enabled = cfg->steering;
	st->nl = nl_open(0);
	if (!st->nl) {
		snprintf(err, errlen, "steering: netlink: %s",
			 strerror(errno));
		snprintf(st->st.why, sizeof(st->st.why), "%s", err);
		st->st.failed = cfg->steering;
		*ok = !cfg->steering;
		return st;
	}
	if (!cfg->steering) {
		/* what an earlier srv6d with steering auto left goes */
		steer_send(st, NULL, STEER_BACKEND_NONE);
		*ok = true;
		return st;
	}
	st->watch = nl_open(1u << (NFNLGRP_NFTABLES - 1));
	st->kset = steerset_new();
	if (!st->kset || steer_plan(st, cfg, rs, &plan) < 0) {
		snprintf(err, errlen, "steering: out of memory");
		return st;
	}
	if (steer_install(st, &plan, err, errlen) < 0) {
		steer_plan_free(&plan);
		return st;
	}
	st->plan = plan;
	*ok = true;
	return st;
}

int steer_update(struct steer *st, const struct config *cfg,
		 const struct runstate *rs, char *err, size_t errlen)
{
	struct steer_plan plan;

	if (!st || !st->st.enabled) {
		if (st && cfg->steering)
			log_msg(LOG_WARNING, "steering: 'steering auto' "
				"needs a restart (it was 'no' at start)");
		return 0;
	}
	if (!cfg->steering) {
		/* auto -> no: srv6d's rules go, the operator's take over */
		steer_send(st, NULL, st->st.backend);
		st->st.enabled = false;
		st->st.installed = false;
		st->st.rules = 0;
		steer_plan_free(&st->plan);
		return 0;
	}
	if (steer_plan(st, cfg, rs, &plan) < 0) {
		snprintf(err, errlen, "steering: out of memory");
		return -1;
	}
	if (st->st.installed && steer_plan_equal(&plan, &st->plan)) {
		steer_plan_free(&plan);
		return 0;
	}
	if (steer_replace(st, &plan, NULL, err, errlen) < 0) {
		steer_plan_free(&plan);
		return -1;
	}
	steer_plan_free(&st->plan);
	st->plan = plan;
	return 0;
}

/* The time since t0 into the status; a large change logged. */
static void kroutes_timed(struct steer *st, const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	st->st.set_last_us = (uint64_t)(t1.tv_sec - t0->tv_sec) * 1000000u +
			     (uint64_t)((t1.tv_nsec - t0->tv_nsec) / 1000);
	/* a large change (a start's load) is news; each other one only
	 * for debugging (a route change: never per packet) */
	log_msg(st->st.set_last_changes >= 10000 ? LOG_INFO : LOG_DEBUG,
		"steering: kernel routes: %zu set elements changed in %llu "
		"us: %zu in %u sets", st->st.set_last_changes,
		(unsigned long long)st->st.set_last_us, st->st.set_elements,
		st->st.sets);
}

int steer_kroutes(struct steer *st, const struct config *cfg,
		  const struct runstate *rs,
		  const struct rtmirror_kroute *list, size_t n, bool lost,
		  char *err, size_t errlen)
{
	struct steerset_delta d = { 0 };
	struct steer_plan plan;
	struct timespec t0;
	int r;

	if (!st || !st->st.enabled || !st->kset)
		return 0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (lost)
		log_msg(LOG_ERR, "steering: kernel route changes lost (out "
			"of memory): the sets may miss prefixes until the "
			"next restart");
	if (steerset_apply(st->kset, list, n, &d) < 0) {
		snprintf(err, errlen, "steering: out of memory");
		return -1;
	}
	if (!d.n) {
		steerset_delta_free(&d);
		return 0;
	}
	st->st.set_last_changes = d.n;
	if (!d.tables_changed) {
		/* elements only: the rules are those in force */
		if (!st->st.installed)
			r = 0;	/* the next install sends them all */
		else
			r = steer_send_update(st, &st->plan, &st->plan, &d,
					      false);
		st->st.set_batches++;
		steerset_delta_free(&d);
		kroutes_timed(st, &t0);
		if (r < 0) {
			snprintf(err, errlen, "steering: changing the "
				 "elements of table srv6d's sets: %s",
				 strerror(-r));
			snprintf(st->st.why, sizeof(st->st.why), "%s", err);
			return -1;
		}
		return 0;
	}
	if (steer_plan(st, cfg, rs, &plan) < 0) {
		steerset_delta_free(&d);
		snprintf(err, errlen, "steering: out of memory");
		return -1;
	}
	if (st->st.installed && steer_plan_equal(&plan, &st->plan)) {
		/* a table no link selects: its set is not installed */
		steer_plan_free(&plan);
		r = steer_send_update(st, &st->plan, &st->plan, &d, false);
		steerset_delta_free(&d);
		kroutes_timed(st, &t0);
		if (r < 0) {
			snprintf(err, errlen, "steering: changing the "
				 "elements of table srv6d's sets: %s",
				 strerror(-r));
			return -1;
		}
		return 0;
	}
	r = steer_replace(st, &plan, &d, err, errlen);
	st->st.set_batches++;
	steerset_delta_free(&d);
	kroutes_timed(st, &t0);
	if (r < 0) {
		steer_plan_free(&plan);
		return -1;
	}
	steer_plan_free(&st->plan);
	st->plan = plan;
	return 0;
}

int steer_links(struct steer *st, const struct config *cfg,
		const struct runstate *rs, const struct steer_link *links,
		size_t n, char *err, size_t errlen)
{
	struct steer_link *copy = n ? malloc(n * sizeof(*copy)) : NULL;
	struct steer_plan plan;
	size_t k = 0;

	if (!st || !st->st.enabled) {
		free(copy);
		return 0;
	}
	if (n && !copy) {
		snprintf(err, errlen, "steering: out of memory");
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		/* srv6d's own devices are accepted before */
		if (!strncmp(links[i].name, "srv6d", 5) ||
		    !strcmp(links[i].name, cfg->tun_name) ||
		    (links[i].table4 == CONFIG_TABLE_MAIN &&
		     links[i].table6 == CONFIG_TABLE_MAIN))
			continue;
		copy[k++] = links[i];
	}
	free(st->links);
	st->links = copy;
	st->nlinks = k;
	st->links_known = true;
	if (steer_plan(st, cfg, rs, &plan) < 0) {
		snprintf(err, errlen, "steering: out of memory");
		return -1;
	}
	if (st->st.installed && steer_plan_equal(&plan, &st->plan)) {
		steer_plan_free(&plan);
		return 0;
	}
	if (steer_replace(st, &plan, NULL, err, errlen) < 0) {
		steer_plan_free(&plan);
		return -1;
	}
	steer_plan_free(&st->plan);
	st->plan = plan;
	return 0;
}

int steer_fd(const struct steer *st)
{
	return st && st->watch ? mnl_socket_get_fd(st->watch) : -1;
}

/* Whether message h (an nf_tables notification) removed something of a
 * table named srv6d: NFTA_TABLE_NAME, NFTA_CHAIN_TABLE and
 * NFTA_RULE_TABLE are all attribute 1. */
static bool event_ours(const struct nlmsghdr *h)
{
	const struct nlattr *a;
	uint16_t type = NFNL_MSG_TYPE(h->nlmsg_type);

	if (NFNL_SUBSYS_ID(h->nlmsg_type) != NFNL_SUBSYS_NFTABLES)
		return false;
	if (type != NFT_MSG_DELTABLE && type != NFT_MSG_DELCHAIN &&
	    type != NFT_MSG_DELRULE)
		return false;
	mnl_attr_for_each(a, h, sizeof(struct nfgenmsg))
		if (mnl_attr_get_type(a) == 1)
			return !mnl_attr_validate(a, MNL_TYPE_NUL_STRING) &&
			       !strcmp(mnl_attr_get_str(a), STEER_TABLE);
	return false;
}

/* Counts the rules of table srv6d of family in the kernel (a dump, every
 * chain's).
 * Returns the count, -1 when the dump fails (no such table: 0). */
static int rules_cb(const struct nlmsghdr *h, void *data)
{
	(void)h;
	(*(int *)data)++;
	return MNL_CB_OK;
}

static int count_rules(struct steer *st, int family)
{
	char buf[STEER_NL_BUF];
	struct nftnl_rule *r = nftnl_rule_alloc();
	uint32_t seq = st->seq++, portid = mnl_socket_get_portid(st->nl);
	struct nlmsghdr *nlh;
	int count = 0, ret;

	if (!r)
		return -1;
	nlh = nftnl_nlmsg_build_hdr(buf, NFT_MSG_GETRULE, (uint16_t)family,
				    NLM_F_DUMP, seq);
	nftnl_rule_set_str(r, NFTNL_RULE_TABLE, STEER_TABLE);
	nftnl_rule_nlmsg_build_payload(nlh, r);
	nftnl_rule_free(r);
	if (mnl_socket_sendto(st->nl, nlh, nlh->nlmsg_len) < 0)
		return -1;
	do {
		ssize_t n = mnl_socket_recvfrom(st->nl, buf, sizeof(buf));

		if (n < 0)
			return -1;
		ret = mnl_cb_run(buf, (size_t)n, seq, portid, rules_cb,
				 &count);
	} while (ret > 0);
	if (ret < 0)
		return errno == ENOENT ? 0 : -1;
	return count;
}

int steer_event(struct steer *st, char *err, size_t errlen)
{
	char buf[STEER_NL_BUF];
	int fd = steer_fd(st), n6, n4;
	bool ours = false;
	ssize_t n;

	if (fd < 0)
		return 0;
	/* drain: a flush sends one message per object */
	while ((n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT)) > 0 ||
	       (n < 0 && errno == ENOBUFS)) {
		const struct nlmsghdr *h = (const struct nlmsghdr *)buf;
		int left = (int)n;

		if (n < 0) {	/* messages lost: look at the tables */
			ours = true;
			continue;
		}
		for (; mnl_nlmsg_ok(h, left); h = mnl_nlmsg_next(h, &left))
			ours = ours || event_ours(h);
	}
	if (!ours || !st->st.enabled || !st->plan.rules)
		return 0;
	n6 = count_rules(st, NFPROTO_IPV6);
	n4 = count_rules(st, NFPROTO_IPV4);
	if (n6 == (int)st->plan.nrules6 &&
	    n4 == (int)(st->plan.nrules - st->plan.nrules6))
		return 0;	/* our own replace, or another table's */
	st->st.installed = false;
	if (steer_install(st, &st->plan, err, errlen) < 0)
		return -1;
	st->st.repairs++;
	if (time(NULL) - st->last_repair_log >= 10) {
		st->last_repair_log = time(NULL);
		log_msg(LOG_WARNING, "steering: table srv6d was changed by "
			"someone else (%d of %u rules left): installed again "
			"(%llu repairs)", (n6 > 0 ? n6 : 0) + (n4 > 0 ? n4 : 0),
			st->plan.nrules, (unsigned long long)st->st.repairs);
	}
	return 1;
}

/* The guard's rules in plan (markguard.h). */
static unsigned plan_guard_rules(const struct steer_plan *plan)
{
	unsigned n = 0;

	for (unsigned i = 0; i < plan->nrules; i++)
		n += guard_chain(plan->rules[i].chain);
	return n;
}

void steer_get_status(const struct steer *st, struct steer_status *out)
{
	if (!st) {
		memset(out, 0, sizeof(*out));
		return;
	}
	*out = st->st;
	out->guard_rules = st->st.enabled && st->st.installed ?
			   plan_guard_rules(&st->plan) : 0;
}

struct obj_read {
	uint64_t packets;
	bool found;
};

static int obj_cb(const struct nlmsghdr *h, void *data)
{
	struct obj_read *o = data;
	struct nftnl_obj *obj = nftnl_obj_alloc();

	if (!obj)
		return MNL_CB_ERROR;
	if (nftnl_obj_nlmsg_parse(h, obj) == 0 &&
	    nftnl_obj_is_set(obj, NFTNL_OBJ_CTR_PKTS)) {
		o->packets += nftnl_obj_get_u64(obj, NFTNL_OBJ_CTR_PKTS);
		o->found = true;
	}
	nftnl_obj_free(obj);
	return MNL_CB_OK;
}

/* Read family's guard counter `name` into o.  Returns 0 or -1 (errno). */
static int guard_read_family(struct steer *st, int family, const char *name,
			     struct obj_read *o)
{
	char buf[STEER_NL_BUF];
	struct nftnl_obj *obj = nftnl_obj_alloc();
	uint32_t seq = st->seq++, portid = mnl_socket_get_portid(st->nl);
	struct nlmsghdr *nlh;
	int ret;

	if (!obj) {
		errno = ENOMEM;
		return -1;
	}
	nlh = nftnl_nlmsg_build_hdr(buf, NFT_MSG_GETOBJ, (uint16_t)family,
				    NLM_F_ACK, seq);
	nftnl_obj_set_str(obj, NFTNL_OBJ_TABLE, STEER_TABLE);
	nftnl_obj_set_str(obj, NFTNL_OBJ_NAME, name);
	nftnl_obj_set_u32(obj, NFTNL_OBJ_TYPE, NFT_OBJECT_COUNTER);
	nftnl_obj_nlmsg_build_payload(nlh, obj);
	nftnl_obj_free(obj);
	if (mnl_socket_sendto(st->nl, nlh, nlh->nlmsg_len) < 0)
		return -1;
	do {
		ssize_t n = mnl_socket_recvfrom(st->nl, buf, sizeof(buf));

		if (n < 0)
			return -1;
		ret = mnl_cb_run(buf, (size_t)n, seq, portid, obj_cb, o);
	} while (ret > 0);
	return ret < 0 ? -1 : 0;
}

int steer_guard_read(struct steer *st, uint64_t *packets,
		     uint64_t *unmarked)
{
	struct obj_read o = { 0 }, u = { 0 };
	bool any = false;

	*packets = *unmarked = 0;
	if (!st || !st->nl || !st->st.enabled || !st->st.installed)
		return 1;
	for (int pass = 0; pass < 2; pass++) {
		unsigned lo = pass ? st->plan.nrules6 : 0;
		unsigned hi = pass ? st->plan.nrules : st->plan.nrules6;

		if (!plan_has_chain(&st->plan, lo, hi, STEER_GUARD_CHAIN))
			continue;
		any = true;
		int nfproto = pass ? NFPROTO_IPV4 : NFPROTO_IPV6;

		if (guard_read_family(st, nfproto, STEER_GUARD_COUNTER,
				      &o) < 0 ||
		    guard_read_family(st, nfproto, STEER_GUARD_UNMARKED,
				      &u) < 0)
			return -1;
	}
	*packets = o.packets;
	*unmarked = u.packets;
	return any ? 0 : 1;
}

bool steer_in_force(const struct steer *st)
{
	return st && st->nl && st->st.enabled && st->st.installed;
}

int steer_probe_read(struct steer *st, uint64_t cur[4])
{
	static const char *const names[4] = {
		STEER_PROBE_KEPT, STEER_PROBE_CARRIED, STEER_PROBE_ZEROED,
		STEER_PROBE_LOST,
	};

	cur[0] = cur[1] = cur[2] = cur[3] = 0;
	if (!steer_in_force(st))	/* the daemon's plan has the guard */
		return 1;
	for (int i = 0; i < 4; i++) {
		struct obj_read o = { 0 };

		if (guard_read_family(st, NFPROTO_IPV6, names[i], &o) < 0)
			return -1;
		cur[i] = o.packets;
	}
	return 0;
}

int steer_kend_restored_read(struct steer *st, uint64_t *packets)
{
	struct obj_read o = { 0 };
	bool any = false;

	*packets = 0;
	if (!steer_in_force(st))
		return 1;
	for (unsigned i = 0; i < st->plan.nrules6 && !any; i++)
		any = st->plan.rules[i].action == STEER_MARK_KEND;
	if (!any)
		return 1;
	if (guard_read_family(st, NFPROTO_IPV6, STEER_KEND_RESTORED, &o) < 0)
		return -1;
	*packets = o.packets;
	return 0;
}

void steer_close(struct steer *st, bool remove)
{
	if (!st)
		return;
	if (remove && st->nl && st->st.enabled && st->st.installed)
		steer_send(st, NULL, st->st.backend);
	if (st->watch)
		mnl_socket_close(st->watch);
	if (st->nl)
		mnl_socket_close(st->nl);
	steer_plan_free(&st->plan);
	steerset_free(st->kset);
	free(st->links);
	free(st);
}
