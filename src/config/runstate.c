/* runstate.c - the running state's marks and lookups (runstate.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lpm.h"
#include "runstate.h"

/* A SID's mark selects its rule or names it to reinject.c; End's results
 * carry none (its row: unmarked). */
static bool sid_needs_mark(const struct sid *s)
{
	return !behavior_desc(s->behavior)->unmarked;
}

/* Give SID s its new mark (and its own table, for a behavior that
 * routes to a next hop: End.X, End.DX6, End.DX4). */
static void sid_set_mark(struct sid_marks *m, const struct sid *s,
			 uint32_t mark)
{
	m->mark = mark;
	m->route_table = behavior_desc(s->behavior)->route ==
			 BHV_ROUTE_NEXTHOP ? mark : 0;
}

/* rs->mark_slot (runstate.h): for each mark from mark_base + 1 to the
 * highest one a SID has, the index + 1 of its SID (0: none), so that
 * runstate_sid_by_mark() stays O(1) whatever marks the SIDs got.
 * Returns 0, or -1 when memory runs out (rs unchanged). */
static int mark_slots_build(struct runstate *rs)
{
	uint32_t span = 0, *slot;

	for (unsigned i = 0; i < rs->nsids; i++)
		if (rs->sids[i].mark && rs->sids[i].mark - rs->mark_base > span)
			span = rs->sids[i].mark - rs->mark_base;
	slot = calloc(span + 1, sizeof(*slot));
	if (!slot)
		return -1;
	for (unsigned i = 0; i < rs->nsids; i++)
		if (rs->sids[i].mark)
			slot[rs->sids[i].mark - rs->mark_base - 1] = i + 1;
	free(rs->mark_slot);
	rs->mark_slot = slot;
	rs->nmark_slots = span;
	return 0;
}

/* mark-base + 1 + index fits in 32 bits and stays in the daemon's range
 * since mark-base <= CONFIG_MARK_BASE_MAX and nsids <= CONFIG_MAX_SIDS. */
struct runstate *runstate_new(const struct config *cfg)
{
	struct runstate *rs = calloc(1, sizeof(*rs));

	if (!rs)
		return NULL;
	rs->mark_base = cfg->mark_base;
	rs->payload = PAYLOAD_ANY;
	rs->nsids = cfg->nsids;
	rs->sids = calloc(cfg->nsids + 1, sizeof(*rs->sids));
	if (!rs->sids)
		goto fail;
	for (unsigned i = 0; i < cfg->nsids; i++)
		if (sid_needs_mark(&cfg->sids[i]))
			sid_set_mark(&rs->sids[i], &cfg->sids[i],
				     cfg->mark_base + 1 + i);
	if (mark_slots_build(rs) < 0)
		goto fail;
	return rs;
fail:
	runstate_free(rs);
	return NULL;
}

void runstate_free(struct runstate *rs)
{
	if (!rs)
		return;
	free(rs->sids);
	free(rs->mark_slot);
	free(rs->kencaps);
	free(rs);
}

const struct sid *runstate_sid_by_mark(const struct runstate *rs,
				       const struct config *cfg,
				       uint32_t mark)
{
	uint32_t i;

	if (!rs)
		return NULL;
	i = mark - rs->mark_base - 1;
	if (mark <= rs->mark_base || i >= rs->nmark_slots ||
	    !rs->mark_slot[i])
		return NULL;
	i = rs->mark_slot[i] - 1;
	if (i >= cfg->nsids || i >= rs->nsids || rs->sids[i].mark != mark)
		return NULL;
	return &cfg->sids[i];
}

/* What makes the kernel route a SID's results (its mark's rules, table,
 * route and veth pair, rtrules.h): two SIDs that agree on it may share a
 * mark across a reload. */
static bool sid_same_routing(const struct sid *a, const struct sid *b)
{
	return a->plen == b->plen &&
	       IN6_ARE_ADDR_EQUAL(&a->prefix, &b->prefix) &&
	       a->behavior == b->behavior &&
	       IN6_ARE_ADDR_EQUAL(&a->nh6, &b->nh6) &&
	       a->nh4.s_addr == b->nh4.s_addr &&
	       !strcmp(a->oif, b->oif) && a->table == b->table &&
	       a->vrf == b->vrf &&
	       /* End.X/End.T with USD: a veth pair for IPv4 results */
	       (a->flavors & FLV_USD) == (b->flavors & FLV_USD);
}

#define MARK_BITS_WORDS	(CONFIG_MARK_RANGE / 64)

static bool mark_bit_get(const uint64_t *bits, uint32_t off)
{
	return bits[off / 64] >> (off % 64) & 1;
}

static void mark_bit_set(uint64_t *bits, uint32_t off)
{
	bits[off / 64] |= 1ull << (off % 64);
}

/* The lowest mark offset (1..count - 1, count at most CONFIG_MARK_RANGE:
 * config.h mark_count) not set in bits, set now; 0 when there is none. */
static uint32_t mark_bit_take(uint64_t *bits, uint32_t count, uint32_t *from)
{
	for (uint32_t off = *from; off < count; off++) {
		if (!mark_bit_get(bits, off)) {
			mark_bit_set(bits, off);
			*from = off + 1;
			return off;
		}
	}
	*from = count;
	return 0;
}

/* Table t as an offset of ncfg's range into used, when it is one. */
static void table_in_force(const struct config *ncfg, uint32_t t,
			   uint64_t *used)
{
	if (t > ncfg->mark_base && t - ncfg->mark_base < ncfg->mark_count)
		mark_bit_set(used, t - ncfg->mark_base);
}

/* One mark of the running state (m, mark-base + o of old) into used:
 * the offset of ncfg's range with the same table, the one with the same
 * packet mark (config_mark_value()), and for a kernel-end mark (catch)
 * the one whose table is its catch table (config_catch_table()); and
 * the offset whose catch table m's table would be. */
static void mark_in_force(const struct config *old, const struct config *ncfg,
			  uint32_t m, bool catch, uint64_t *used)
{
	uint32_t nb = ncfg->mark_base, pm = config_mark_value(old, m);
	uint32_t step = 1u << ncfg->mark_shift;

	table_in_force(ncfg, m, used);			/* its table */
	if (pm > nb && (pm - nb) % step == 0 &&
	    (pm - nb) / step < ncfg->mark_count)
		mark_bit_set(used, (pm - nb) / step);	/* its packet mark */
	if (catch)
		table_in_force(ncfg, config_catch_table(m), used);
	if (nb > CONFIG_MARK_RANGE &&			/* a catch table of ncfg */
	    m > nb - CONFIG_MARK_RANGE && m - (nb - CONFIG_MARK_RANGE) <
	    ncfg->mark_count)
		mark_bit_set(used, m - (nb - CONFIG_MARK_RANGE));
}

void runstate_marks_in_force(const struct runstate *ors,
			     const struct config *old,
			     const struct config *ncfg, uint64_t *used)
{
	if (!ors || !old)
		return;
	for (unsigned i = 0; i < ors->nsids; i++) {
		if (ors->sids[i].mark)
			mark_in_force(old, ncfg, ors->sids[i].mark, false,
				      used);
		if (ors->sids[i].kend_mark)
			mark_in_force(old, ncfg, ors->sids[i].kend_mark, true,
				      used);
	}
	for (unsigned i = 0; i < ors->nkencaps; i++)
		mark_in_force(old, ncfg, ors->kencaps[i].mark, false, used);
}

int runstate_inherit_marks(struct runstate *nrs, const struct config *ncfg,
			   const struct runstate *ors,
			   const struct config *old, char *err, size_t errlen)
{
	bool same_base = old && old->mark_base == ncfg->mark_base;
	struct sid_marks *saved;
	uint32_t from = 1;
	uint64_t *used;
	int rc = -1;

	if (!old || !ors || (same_base && !old->sid_table))
		return 0;
	used = calloc(MARK_BITS_WORDS, sizeof(*used));
	saved = malloc((nrs->nsids + 1) * sizeof(*saved));
	if (!used || !saved) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	memcpy(saved, nrs->sids, nrs->nsids * sizeof(*saved));
	runstate_marks_in_force(ors, old, ncfg, used);
	/* The same SID routed the same way keeps its mark (with the same
	 * mark-base; with another, none is kept) ... */
	for (unsigned i = 0; i < ncfg->nsids; i++) {
		const struct sid *s = &ncfg->sids[i];
		const struct sid *o = same_base ?
			lpm_get(old->sid_table, &s->prefix, s->plen) : NULL;
		uint32_t om = o ? runstate_sid(ors, o).mark : 0;

		if (!saved[i].mark)
			continue;
		sid_set_mark(&nrs->sids[i], s,
			     om && sid_same_routing(s, o) ? om : 0);
	}
	/* ... every other one gets a mark the old config does not use. */
	for (unsigned i = 0; i < ncfg->nsids; i++) {
		uint32_t off;

		if (nrs->sids[i].mark || !saved[i].mark)
			continue;
		off = mark_bit_take(used, ncfg->mark_count, &from);
		if (!off) {
			snprintf(err, errlen, "%u SIDs in force and %u in %s "
				 "need more than the %u marks from mark-base on: "
				 "restart srv6d to apply it", old->nsids,
				 ncfg->nsids, ncfg->path, ncfg->mark_count - 1);
			goto undo;
		}
		sid_set_mark(&nrs->sids[i], &ncfg->sids[i],
			     ncfg->mark_base + off);
	}
	if (mark_slots_build(nrs) == 0) {
		rc = 0;
		goto out;
	}
	snprintf(err, errlen, "out of memory");
undo:
	memcpy(nrs->sids, saved, nrs->nsids * sizeof(*saved));
out:
	free(used);
	free(saved);
	return rc;
}

int runstate_kencap_cmp(const void *a, const void *b)
{
	const struct kencap_entry *x = a, *y = b;

	if (x->mode != y->mode)
		return x->mode < y->mode ? -1 : 1;
	if (x->sl.nsegs != y->sl.nsegs)
		return x->sl.nsegs < y->sl.nsegs ? -1 : 1;
	return memcmp(x->sl.segs, y->sl.segs,
		      x->sl.nsegs * sizeof(x->sl.segs[0]));
}

/* runstate_kencap_find()'s key: the list where it is. */
struct kencap_key {
	enum encap_mode mode;
	const struct seglist *sl;
};

static int kencap_key_cmp(const void *a, const void *b)
{
	const struct kencap_key *x = a;
	const struct kencap_entry *y = b;

	if (x->mode != y->mode)
		return x->mode < y->mode ? -1 : 1;
	if (x->sl->nsegs != y->sl.nsegs)
		return x->sl->nsegs < y->sl.nsegs ? -1 : 1;
	return memcmp(x->sl->segs, y->sl.segs,
		      x->sl->nsegs * sizeof(x->sl->segs[0]));
}

bool runstate_policy_kencap(const struct runstate *rs,
			    const struct config *cfg,
			    const struct policy *pol)
{
	if (!rs || !rs->kencap_on || pol->binding || pol->hmac_keyid ||
	    pol->gtp4d ||
	    (pol->mode != ENCAP_MODE_ENCAP && pol->mode != ENCAP_MODE_ENCAP_RED))
		return false;
	for (unsigned i = 0; i < pol->nlists; i++)
		if (!runstate_kencap_find(rs, pol->mode, &pol->lists[i]) ||
		    (cfg->sid_table &&
		     lpm_lookup(cfg->sid_table, &pol->lists[i].segs[0])))
			return false;
	return true;
}

const struct kencap_entry *runstate_kencap_find(const struct runstate *rs,
						enum encap_mode mode,
						const struct seglist *sl)
{
	struct kencap_key k = { mode, sl };

	if (!rs || !rs->nkencaps || !sl->nsegs || sl->nsegs > SRV6_MAX_SEGS)
		return NULL;
	return bsearch(&k, rs->kencaps, rs->nkencaps, sizeof(*rs->kencaps),
		       kencap_key_cmp);
}
