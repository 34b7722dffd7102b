/* steer.c - srv6d's own steering rules (steer.h): the plan from the
 * config, its nft text, and its nfnetlink batches built with libnftnl. */
#include "steer.h"

#include <arpa/inet.h>
#include <errno.h>
#include <libmnl/libmnl.h>
#include <libnftnl/chain.h>
#include <libnftnl/common.h>
#include <libnftnl/expr.h>
#include <libnftnl/rule.h>
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

/* A netlink read (MNL_SOCKET_BUFFER_SIZE is not a constant). */
#define STEER_NL_BUF	16384

/* ---- the plan ---------------------------------------------------------- */

struct plan_builder {
	struct steer_plan *plan;
	unsigned cap;
	bool failed;
};

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

/* Whether a rule for the same prefix and action is already in plan from
 * index `from` on. */
static bool plan_has(const struct steer_plan *plan, unsigned from,
		     const struct steer_rule *r)
{
	for (unsigned i = from; i + 1 < plan->nrules; i++) {
		const struct steer_rule *o = &plan->rules[i];

		if (o->family == r->family && o->plen == r->plen &&
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
	return !p->hmac_keyid && !p->binding &&
	       (p->mode == ENCAP_MODE_ENCAP || p->mode == ENCAP_MODE_ENCAP_RED);
}

static void plan_family6(struct plan_builder *b, const struct config *cfg,
			 const struct runstate *rs)
{
	unsigned from = b->plan->nrules;
	uint32_t bounce = config_bounce_bit(cfg);

	plan_accepts(b, cfg, AF_INET6);
	if (cfg->has_hqueue) {
		for (unsigned i = 0; i < cfg->nsids; i++)
			if (hq_sid(rs, &cfg->sids[i]))
				plan_queue(b, from, AF_INET6,
					   &cfg->sids[i].prefix, 16,
					   cfg->sids[i].plen,
					   cfg->hqueue_first,
					   cfg->hqueue_last, &bounce);
		for (unsigned i = 0; i < cfg->npolicies; i++) {
			const struct policy *p = &cfg->policies[i];

			if (p->family == AF_INET6 && hq_policy(rs, cfg, p))
				plan_queue(b, from, AF_INET6, &p->prefix.v6,
					   16, p->plen, cfg->hqueue_first,
					   cfg->hqueue_last, &bounce);
		}
	}
	for (unsigned i = 0; i < cfg->nsids; i++)
		plan_queue(b, from, AF_INET6, &cfg->sids[i].prefix, 16,
			   cfg->sids[i].plen, cfg->queue_first,
			   cfg->queue_last, NULL);
	for (unsigned i = 0; i < cfg->npolicies; i++) {
		const struct policy *p = &cfg->policies[i];

		if (p->family == AF_INET6)
			plan_queue(b, from, AF_INET6, &p->prefix.v6, 16,
				   p->plen, cfg->queue_first,
				   cfg->queue_last, NULL);
	}
}

static void plan_family4(struct plan_builder *b, const struct config *cfg,
			 const struct runstate *rs)
{
	unsigned from = b->plan->nrules;
	uint32_t bounce = config_bounce_bit(cfg);

	plan_accepts(b, cfg, AF_INET);
	for (unsigned i = 0; cfg->has_hqueue && i < cfg->npolicies; i++) {
		const struct policy *p = &cfg->policies[i];

		if (p->family == AF_INET && hq_policy(rs, cfg, p))
			plan_queue(b, from, AF_INET, &p->prefix.v4, 4,
				   p->plen, cfg->hqueue_first,
				   cfg->hqueue_last, &bounce);
	}
	for (unsigned i = 0; i < cfg->npolicies; i++) {
		const struct policy *p = &cfg->policies[i];

		if (p->family == AF_INET)
			plan_queue(b, from, AF_INET, &p->prefix.v4, 4,
				   p->plen, cfg->queue_first,
				   cfg->queue_last, NULL);
	}
}

int steer_plan_build(const struct config *cfg, const struct runstate *rs,
		     struct steer_plan *plan)
{
	struct plan_builder b = { .plan = plan };

	memset(plan, 0, sizeof(*plan));
	plan_family6(&b, cfg, rs);
	plan->nrules6 = plan->nrules;
	plan_family4(&b, cfg, rs);
	if (b.failed) {
		steer_plan_free(plan);
		return -1;
	}
	return 0;
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

static void print_nft_rule(const struct steer_rule *r, FILE *f)
{
	fputs("\t\t", f);
	if (r->iifname[0])
		fprintf(f, "iifname \"%s%s\" ", r->iifname,
			r->iif_wildcard ? "*" : "");
	if (r->has_mark_range && r->mark_mask != 0xffffffffu)
		fprintf(f, "meta mark and 0x%08x 0x%08x-0x%08x ",
			r->mark_mask, r->mark_from, r->mark_to);
	else if (r->has_mark_range)
		fprintf(f, "meta mark 0x%08x-0x%08x ", r->mark_from,
			r->mark_to);
	if (r->plen) {
		fputs(r->family == AF_INET6 ? "ip6 daddr " : "ip daddr ", f);
		print_prefix(r, f);
		fputc(' ', f);
	}
	if (r->has_mark_not)
		fprintf(f, "meta mark and 0x%08x != 0x%08x ", r->mark_mask,
			r->mark_not);
	if (r->action == STEER_ACCEPT)
		fputs("accept\n", f);
	else if (r->queue_total > 1)
		fprintf(f, "queue num %u-%u fanout\n", r->queue_first,
			r->queue_first + r->queue_total - 1);
	else
		fprintf(f, "queue num %u\n", r->queue_first);
}

static void print_ipt_rule(const struct steer_rule *r, FILE *f)
{
	fputs(r->family == AF_INET6 ? "ip6tables" : "iptables", f);
	fputs(" -t raw -A PREROUTING", f);
	if (r->iifname[0])
		fprintf(f, " -i %s%s", r->iifname, r->iif_wildcard ? "+" : "");
	if (r->has_mark_range) {
		/* -m mark has no range: the range less mark-base (no mark
		 * of srv6d's), when mark-base is a multiple of the range's
		 * size and the mask all bits */
		if ((r->mark_from - 1) % CONFIG_MARK_RANGE ||
		    r->mark_mask != 0xffffffffu)
			fprintf(f, " -m mark --mark 0x%08x-0x%08x (no iptables "
				"match: use nft)", r->mark_from, r->mark_to);
		else
			fprintf(f, " -m mark ! --mark 0x%08x -m mark --mark "
				"0x%08x/0x%08x", r->mark_from - 1,
				r->mark_from - 1, ~(CONFIG_MARK_RANGE - 1));
	}
	if (r->plen) {
		fputs(" -d ", f);
		print_prefix(r, f);
	}
	if (r->has_mark_not)
		fprintf(f, " -m mark ! --mark 0x%08x/0x%08x", r->mark_not,
			r->mark_mask);
	if (r->action == STEER_ACCEPT)
		fputs(" -j ACCEPT\n", f);
	else if (r->queue_total > 1)
		fprintf(f, " -j NFQUEUE --queue-balance %u:%u "
			"--queue-cpu-fanout\n", r->queue_first,
			r->queue_first + r->queue_total - 1);
	else
		fprintf(f, " -j NFQUEUE --queue-num %u\n", r->queue_first);
}

void steer_plan_print(const struct steer_plan *plan, FILE *f)
{
	fputs("# srv6d's steering (steering auto), in nft syntax: kernels "
	      "with the nft queue\n# expression (CONFIG_NFT_QUEUE)\n", f);
	for (int pass = 0; pass < 2; pass++) {
		unsigned lo = pass ? plan->nrules6 : 0;
		unsigned hi = pass ? plan->nrules : plan->nrules6;

		fprintf(f, "table %s " STEER_TABLE " {\n\tchain " STEER_CHAIN
			" {\n\t\ttype filter hook prerouting priority %d; "
			"policy accept;\n", pass ? "ip" : "ip6",
			STEER_PRIORITY);
		for (unsigned i = lo; i < hi; i++)
			print_nft_rule(&plan->rules[i], f);
		fputs("\t}\n}\n", f);
	}
	fputs("# the same with iptables (kernels without the nft queue "
	      "expression)\n", f);
	for (unsigned i = 0; i < plan->nrules; i++)
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

static struct nftnl_expr *expr_meta(uint32_t key)
{
	struct nftnl_expr *e = nftnl_expr_alloc("meta");

	if (e) {
		nftnl_expr_set_u32(e, NFTNL_EXPR_META_KEY, key);
		nftnl_expr_set_u32(e, NFTNL_EXPR_META_DREG, NFT_REG_1);
	}
	return e;
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

	if (rule_add_expr(nr, expr_meta(NFT_META_MARK)) < 0 ||
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

static int rule_verdict(struct nftnl_rule *nr, const struct steer_rule *r,
			enum steer_backend be)
{
	uint16_t flags = r->queue_total > 1 ? NFT_QUEUE_FLAG_CPU_FANOUT : 0;
	struct nftnl_expr *e;

	if (r->action == STEER_ACCEPT) {
		e = nftnl_expr_alloc("immediate");
		if (!e)
			return -1;
		nftnl_expr_set_u32(e, NFTNL_EXPR_IMM_DREG, NFT_REG_VERDICT);
		nftnl_expr_set_u32(e, NFTNL_EXPR_IMM_VERDICT, NF_ACCEPT);
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
	nftnl_rule_set_str(nr, NFTNL_RULE_CHAIN, STEER_CHAIN);
	if ((r->iifname[0] && rule_iifname(nr, r) < 0) ||
	    (r->has_mark_range && rule_mark_range(nr, r) < 0) ||
	    (r->plen && rule_daddr(nr, r) < 0) ||
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
	bool failed;
};

static int batch_open(struct batch *bt, size_t nrules, uint32_t seq)
{
	size_t size = 8192 + nrules * 512;

	bt->buf = malloc(size);
	if (!bt->buf)
		return -1;
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
	setsockopt(mnl_socket_get_fd(nl), SOL_SOCKET, SO_SNDBUF, &sndbuf,
		   sizeof(sndbuf));
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

/* One batch: plan installed with backend be (plan NULL: the tables
 * removed).  Returns 0 or -errno. */
static int steer_send(struct steer *st, const struct steer_plan *plan,
		      enum steer_backend be)
{
	struct batch bt = { 0 };
	int r;

	if (batch_open(&bt, plan ? plan->nrules : 0, st->seq) < 0)
		return -ENOMEM;
	batch_table(&bt, NFPROTO_IPV6, plan != NULL);
	if (plan)
		batch_rules(&bt, plan, 0, plan->nrules6, be);
	batch_table(&bt, NFPROTO_IPV4, plan != NULL);
	if (plan)
		batch_rules(&bt, plan, plan->nrules6, plan->nrules, be);
	r = batch_send(st->nl, &bt);
	st->seq = bt.seq;
	batch_close(&bt);
	st->st.batches++;
	st->st.changed = time(NULL);
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
	st->st.backend = be;
	st->st.installed = true;
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
	if (steer_plan_build(cfg, rs, &plan) < 0) {
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
	if (steer_plan_build(cfg, rs, &plan) < 0) {
		snprintf(err, errlen, "steering: out of memory");
		return -1;
	}
	if (st->st.installed && steer_plan_equal(&plan, &st->plan)) {
		steer_plan_free(&plan);
		return 0;
	}
	if (steer_install(st, &plan, err, errlen) < 0) {
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

/* Counts the rules of table srv6d of family in the kernel (a dump).
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
	nftnl_rule_set_str(r, NFTNL_RULE_CHAIN, STEER_CHAIN);
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

void steer_get_status(const struct steer *st, struct steer_status *out)
{
	if (!st) {
		memset(out, 0, sizeof(*out));
		return;
	}
	*out = st->st;
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
	free(st);
}
