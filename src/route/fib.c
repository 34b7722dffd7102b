/* fib.c - multibit tries with leaf pushing, RCU-published, for a full table.
 *
 * A node is an array of slots followed by writer-only metadata.  A slot
 * holds 0 (no route), a route pointer, or a child node pointer with bit 0
 * set.  The root of a family has 2^16 slots, every other node 2^8: a prefix
 * of length p lands in the root if p <= 16, else in the node whose base is
 * the largest 16 + 8k below p, and fills the 2^(stride - (p - base)) slots
 * it covers there, unless a longer prefix of the same node holds them
 * (own[] records the length that fills each slot).  A child node's slots
 * that no prefix of its own fills hold the child's cover: the value its
 * parent slot would have without the child.  So a lookup reads one slot per
 * level until it meets something that is not a child, and that is the
 * answer.
 *
 * Writer: every slot change is one rcu_assign_pointer(); a new child is
 * filled before its pointer is stored; an unlinked node, a replaced route
 * and an old table array go to a retire list that fib_reclaim() frees after
 * synchronize_rcu().
 */
#define URCU_INLINE_SMALL_FUNCTIONS
#include <arpa/inet.h>
#include <errno.h>
#include <linux/rtnetlink.h>
#include <stdlib.h>
#include <string.h>
#include <urcu-qsbr.h>

#include "fib.h"

/* Publish a tagged slot value: what rcu_assign_pointer() does for a
 * pointer (a write barrier, then one store), for the uintptr_t slots of
 * the tries. */
static inline void slot_publish(uintptr_t *slot, uintptr_t val)
{
	cmm_smp_wmb();
	CMM_STORE_SHARED(*slot, val);
}

#define ROOT_BITS	16
#define NODE_BITS	8
#define OWN_NONE	0xff
#define ROUTE_SLAB	4096
#define HASH_MIN	1024

struct node_meta {
	const struct fib_route *cover;	/* value of the parent slot */
	uint32_t nprefix;		/* prefixes landing here */
	uint32_t nchild;
	uint8_t own[];			/* plen filling each slot, OWN_NONE */
};

struct fib_family {
	uintptr_t *root;		/* RCU */
	struct fib_route **hash;	/* exact prefixes, writer only */
	size_t hsize;
	size_t count;
};

struct fib_table {
	uint32_t id;
	struct fib_family fam[2];	/* 0: IPv4, 1: IPv6 */
};

struct fib_tables {
	uint32_t n;
	struct fib_table *t[];		/* sorted by id */
};

enum retire_kind { RETIRE_ROUTE, RETIRE_NODE, RETIRE_FREE };

struct retired {
	enum retire_kind kind;
	void *p;
};

struct route_slab {
	struct route_slab *next;
	struct fib_route r[ROUTE_SLAB];
};

struct fib_db {
	struct fib_tables *tables;	/* RCU */
	struct fib_info **ihash;
	size_t ihsize, icount;
	struct retired *retired;
	size_t nretired, retired_cap;
	struct route_slab *slabs;
	size_t slab_used;		/* routes handed out of slabs->r */
	struct fib_route *free_routes;	/* linked by hnext */
	size_t nnodes;
	size_t info_bytes;
	struct fib_encap_ops encap_ops;	/* hold/put NULL: none */
};

/* ---- small helpers ---- */

static unsigned family_index(int family)
{
	return family == AF_INET6;
}

static unsigned family_maxlen(int family)
{
	return family == AF_INET ? 32 : 128;
}

static unsigned node_bits(unsigned base)
{
	return base ? NODE_BITS : ROOT_BITS;
}

static size_t node_slots(unsigned base)
{
	return (size_t)1 << node_bits(base);
}

static struct node_meta *node_meta(uintptr_t *n, unsigned base)
{
	return (struct node_meta *)(n + node_slots(base));
}

static unsigned slot_index(const uint8_t *b, unsigned base)
{
	if (!base)
		return (unsigned)b[0] << 8 | b[1];
	return b[base / 8];
}

static void addr_mask(union fib_addr *a, unsigned plen)
{
	for (unsigned i = 0; i < 16; i++) {
		unsigned bits = plen > i * 8 ? plen - i * 8 : 0;

		if (bits < 8)
			a->b[i] &= (uint8_t)(0xff00 >> bits);
	}
}

static uint32_t hash_bytes(const void *p, size_t len, uint64_t seed)
{
	const uint8_t *b = p;
	uint64_t h = seed * 0x9e3779b97f4a7c15ULL;

	while (len >= 8) {
		uint64_t w;

		memcpy(&w, b, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdULL;
		h ^= h >> 32;
		b += 8;
		len -= 8;
	}
	while (len--)
		h = (h ^ *b++) * 0xc4ceb9fe1a85ec53ULL;
	h ^= h >> 29;
	return (uint32_t)h;
}

static uint32_t prefix_hash(const union fib_addr *dst, unsigned plen)
{
	return hash_bytes(dst, sizeof(*dst), plen + 1);
}

static int retire(struct fib_db *db, enum retire_kind kind, void *p)
{
	if (db->nretired == db->retired_cap) {
		size_t cap = db->retired_cap ? db->retired_cap * 2 : 256;
		struct retired *n = realloc(db->retired, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		db->retired = n;
		db->retired_cap = cap;
	}
	db->retired[db->nretired].kind = kind;
	db->retired[db->nretired].p = p;
	db->nretired++;
	return 0;
}

/* ---- route objects and shared infos ---- */

static struct fib_route *route_alloc(struct fib_db *db)
{
	struct fib_route *r = db->free_routes;

	if (r) {
		db->free_routes = r->hnext;
		return r;
	}
	if (!db->slabs || db->slab_used == ROUTE_SLAB) {
		struct route_slab *s = malloc(sizeof(*s));

		if (!s)
			return NULL;
		s->next = db->slabs;
		db->slabs = s;
		db->slab_used = 0;
	}
	return &db->slabs->r[db->slab_used++];
}

static size_t info_size(unsigned nnh)
{
	return sizeof(struct fib_info) + nnh * sizeof(struct fib_nexthop);
}

/* The bytes of an info that define it: header fields before refcnt, nh. */
#define INFO_KEY_LEN	offsetof(struct fib_info, refcnt)

static uint32_t info_hash(const struct fib_info *fi)
{
	return hash_bytes(fi, INFO_KEY_LEN, 7) ^
	       hash_bytes(fi->nh, fi->nnh * sizeof(fi->nh[0]), 11);
}

static bool info_equal(const struct fib_info *a, const struct fib_info *b)
{
	return !memcmp(a, b, INFO_KEY_LEN) &&
	       !memcmp(a->nh, b->nh, a->nnh * sizeof(a->nh[0]));
}

/* Build the canonical (zero-padded) info of a spec into fi. */
static void info_from_spec(struct fib_info *fi, const struct fib_route_spec *s)
{
	unsigned nnh = s->nnh > FIB_MAX_NH ? FIB_MAX_NH : s->nnh;

	memset(fi, 0, info_size(nnh));
	if (s->prefsrc_set) {
		fi->prefsrc = s->prefsrc;
		fi->prefsrc_set = 1;
	}
	fi->priority = s->priority;
	fi->mtu = s->mtu;
	fi->protocol = s->protocol;
	fi->scope = s->scope;
	fi->nnh = (uint8_t)nnh;
	for (unsigned i = 0; i < nnh; i++) {
		struct fib_nexthop *nh = &fi->nh[i];

		nh->gw_family = s->nh[i].gw_family;
		if (nh->gw_family == AF_INET)
			nh->gw.v4 = s->nh[i].gw.v4;
		else if (nh->gw_family == AF_INET6)
			nh->gw.v6 = s->nh[i].gw.v6;
		nh->oif = s->nh[i].oif;
		nh->weight = s->nh[i].weight ? s->nh[i].weight : 1;
		nh->flags = s->nh[i].flags;
	}
	fi->hash = info_hash(fi);
}

static struct fib_info *info_find(const struct fib_db *db,
				  const struct fib_info *key)
{
	struct fib_info *fi;

	if (!db->ihsize)
		return NULL;
	for (fi = db->ihash[key->hash & (db->ihsize - 1)]; fi; fi = fi->hnext)
		if (fi->hash == key->hash && info_equal(fi, key))
			return fi;
	return NULL;
}

static int info_rehash(struct fib_db *db)
{
	size_t nsize = db->ihsize ? db->ihsize * 2 : 64;
	struct fib_info **nh = calloc(nsize, sizeof(*nh));

	if (!nh)
		return -ENOMEM;
	for (size_t i = 0; i < db->ihsize; i++) {
		struct fib_info *fi, *next;

		for (fi = db->ihash[i]; fi; fi = next) {
			next = fi->hnext;
			fi->hnext = nh[fi->hash & (nsize - 1)];
			nh[fi->hash & (nsize - 1)] = fi;
		}
	}
	free(db->ihash);
	db->ihash = nh;
	db->ihsize = nsize;
	return 0;
}

/* The shared info equal to key, with a reference taken; NULL on ENOMEM. */
static struct fib_info *info_get(struct fib_db *db, const struct fib_info *key)
{
	struct fib_info *fi = info_find(db, key);
	size_t sz = info_size(key->nnh);

	if (fi) {
		fi->refcnt++;
		return fi;
	}
	if (db->icount >= db->ihsize && info_rehash(db) < 0)
		return NULL;
	fi = malloc(sz);
	if (!fi)
		return NULL;
	memcpy(fi, key, sz);
	fi->refcnt = 1;
	fi->hnext = db->ihash[fi->hash & (db->ihsize - 1)];
	db->ihash[fi->hash & (db->ihsize - 1)] = fi;
	db->icount++;
	db->info_bytes += sz;
	return fi;
}

static void info_put(struct fib_db *db, struct fib_info *fi)
{
	struct fib_info **pp;

	if (--fi->refcnt)
		return;
	for (pp = &db->ihash[fi->hash & (db->ihsize - 1)]; *pp; pp = &(*pp)->hnext)
		if (*pp == fi) {
			*pp = fi->hnext;
			break;
		}
	db->icount--;
	db->info_bytes -= info_size(fi->nnh);
	free(fi);
}

static void route_free(struct fib_db *db, struct fib_route *r)
{
	if (r->encap && db->encap_ops.put)
		db->encap_ops.put(db->encap_ops.arg, r->encap);
	info_put(db, (struct fib_info *)r->fi);
	r->hnext = db->free_routes;
	db->free_routes = r;
}

/* ---- tables ---- */

const struct fib_table *fib_table_get(const struct fib_db *db, uint32_t id)
{
	const struct fib_tables *ts = rcu_dereference(db->tables);
	uint32_t lo = 0, hi = ts ? ts->n : 0;

	while (lo < hi) {
		uint32_t mid = (lo + hi) / 2;

		if (ts->t[mid]->id == id)
			return ts->t[mid];
		if (ts->t[mid]->id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static struct fib_table *table_get_or_create(struct fib_db *db, uint32_t id)
{
	struct fib_tables *old = db->tables, *ts;
	struct fib_table *t = (struct fib_table *)fib_table_get(db, id);
	uint32_t n = old ? old->n : 0, i, j;

	if (t)
		return t;
	t = calloc(1, sizeof(*t));
	ts = malloc(sizeof(*ts) + (n + 1) * sizeof(ts->t[0]));
	if (!t || !ts || (old && retire(db, RETIRE_FREE, old) < 0)) {
		free(t);
		free(ts);
		return NULL;
	}
	t->id = id;
	for (i = 0, j = 0; i < n; i++) {
		if (j == i && old->t[i]->id > id)
			ts->t[j++] = t;
		ts->t[j++] = old->t[i];
	}
	if (j == i)
		ts->t[j++] = t;
	ts->n = j;
	rcu_assign_pointer(db->tables, ts);
	return t;
}

/* ---- exact-prefix hash (writer only) ---- */

static int family_rehash(struct fib_family *f)
{
	size_t nsize = f->hsize ? f->hsize * 2 : HASH_MIN;
	struct fib_route **nh = calloc(nsize, sizeof(*nh));

	if (!nh)
		return -ENOMEM;
	for (size_t i = 0; i < f->hsize; i++) {
		struct fib_route *r, *next;

		for (r = f->hash[i]; r; r = next) {
			uint32_t h = prefix_hash(&r->dst, r->plen) & (nsize - 1);

			next = r->hnext;
			r->hnext = nh[h];
			nh[h] = r;
		}
	}
	free(f->hash);
	f->hash = nh;
	f->hsize = nsize;
	return 0;
}

static struct fib_route **hash_bucket(const struct fib_family *f,
				      const union fib_addr *dst, unsigned plen)
{
	return &f->hash[prefix_hash(dst, plen) & (f->hsize - 1)];
}

static bool route_key_eq(const struct fib_route *r, const union fib_addr *dst,
			 unsigned plen)
{
	return r->plen == plen && !memcmp(&r->dst, dst, sizeof(*dst));
}

static struct fib_route *hash_find(const struct fib_family *f,
				   const union fib_addr *dst, unsigned plen,
				   unsigned tos, uint32_t priority,
				   const uint32_t *key_oif)
{
	struct fib_route *r;

	if (!f->hsize)
		return NULL;
	for (r = *hash_bucket(f, dst, plen); r; r = r->hnext)
		if (route_key_eq(r, dst, plen) && r->tos == tos &&
		    r->fi->priority == priority &&
		    (!key_oif || r->key_oif == *key_oif))
			return r;
	return NULL;
}

static uint32_t spec_key_oif(const struct fib_route_spec *s)
{
	return s->family == AF_INET6 && s->nnh == 1 ? s->nh[0].oif : 0;
}

/* The route a lookup should find for dst/plen: TOS 0, lowest metric. */
static const struct fib_route *prefix_best(const struct fib_family *f,
					   const union fib_addr *dst,
					   unsigned plen)
{
	const struct fib_route *r, *best = NULL;

	if (!f->hsize)
		return NULL;
	for (r = *hash_bucket(f, dst, plen); r; r = r->hnext)
		if (route_key_eq(r, dst, plen) && !r->tos &&
		    (!best || r->fi->priority < best->fi->priority))
			best = r;
	return best;
}

static void hash_unlink(struct fib_family *f, struct fib_route *r)
{
	struct fib_route **pp;

	for (pp = hash_bucket(f, &r->dst, r->plen); *pp; pp = &(*pp)->hnext)
		if (*pp == r) {
			*pp = r->hnext;
			return;
		}
}

/* ---- trie ---- */

static uintptr_t *node_new(struct fib_db *db, unsigned base,
			   const struct fib_route *cover)
{
	size_t n = node_slots(base);
	size_t sz = n * sizeof(uintptr_t) + sizeof(struct node_meta) + n;
	uintptr_t *node = aligned_alloc(64, (sz + 63) & ~(size_t)63);
	struct node_meta *m;

	if (!node)
		return NULL;
	for (size_t i = 0; i < n; i++)
		node[i] = (uintptr_t)cover;
	m = node_meta(node, base);
	m->cover = cover;
	m->nprefix = 0;
	m->nchild = 0;
	memset(m->own, OWN_NONE, n);
	db->nnodes++;
	return node;
}

static size_t node_bytes(unsigned base)
{
	size_t n = node_slots(base);

	return (n * sizeof(uintptr_t) + sizeof(struct node_meta) + n + 63) &
	       ~(size_t)63;
}

static void slot_set(uintptr_t *n, unsigned base, unsigned s, uintptr_t val);

/* The value above child changed: refill every slot it does not own. */
static void node_set_cover(uintptr_t *child, unsigned base,
			   const struct fib_route *cover)
{
	struct node_meta *m = node_meta(child, base);

	m->cover = cover;
	for (unsigned s = 0; s < node_slots(base); s++)
		if (m->own[s] == OWN_NONE)
			slot_set(child, base, s, (uintptr_t)cover);
}

static void slot_set(uintptr_t *n, unsigned base, unsigned s, uintptr_t val)
{
	uintptr_t cur = n[s];

	if (cur & 1)
		node_set_cover((uintptr_t *)(cur - 1), base + node_bits(base),
			       (const struct fib_route *)val);
	else if (cur != val)
		slot_publish(&n[s], val);
}

#define MAX_DEPTH	16

struct trie_path {
	uintptr_t *node[MAX_DEPTH];
	unsigned slot[MAX_DEPTH];
	unsigned depth;
};

/* Walk to the node where plen lands, creating nodes if create is set.
 * Returns the node (and its base in *basep), or NULL. */
static uintptr_t *trie_descend(struct fib_db *db, uintptr_t *root,
			       const union fib_addr *dst, unsigned plen,
			       bool create, unsigned *basep,
			       struct trie_path *path)
{
	uintptr_t *n = root;
	unsigned base = 0;

	path->depth = 0;
	while (plen > base + node_bits(base)) {
		unsigned s = slot_index(dst->b, base);
		uintptr_t e = n[s];

		if (!(e & 1)) {
			uintptr_t *child;

			if (!create)
				return NULL;
			child = node_new(db, base + node_bits(base),
					 (const struct fib_route *)e);
			if (!child)
				return NULL;
			slot_publish(&n[s], (uintptr_t)child | 1);
			node_meta(n, base)->nchild++;
			e = (uintptr_t)child | 1;
		}
		path->node[path->depth] = n;
		path->slot[path->depth] = s;
		path->depth++;
		n = (uintptr_t *)(e - 1);
		base += node_bits(base);
	}
	*basep = base;
	return n;
}

/* Unlink empty nodes from the bottom of the path up. */
static void trie_prune(struct fib_db *db, uintptr_t *n, unsigned base,
		       struct trie_path *path)
{
	while (path->depth) {
		struct node_meta *m = node_meta(n, base);
		uintptr_t *parent;
		unsigned pbase;

		if (m->nprefix || m->nchild)
			return;
		path->depth--;
		parent = path->node[path->depth];
		pbase = path->depth ? ROOT_BITS + NODE_BITS * (path->depth - 1) : 0;
		slot_publish(&parent[path->slot[path->depth]],
			     (uintptr_t)m->cover);
		if (retire(db, RETIRE_NODE, n) < 0) {
			/* Cannot defer: leak it rather than free it early. */
		}
		db->nnodes--;
		node_meta(parent, pbase)->nchild--;
		n = parent;
		base = pbase;
	}
}

/* The best route of dst/plen changed to best (NULL: none left); had says
 * whether there was one before.  Rewrite the slots it covers. */
static int trie_set(struct fib_db *db, struct fib_family *f,
		    const union fib_addr *dst, unsigned plen,
		    const struct fib_route *best, bool had)
{
	struct trie_path path;
	unsigned base, l, first, count;
	struct node_meta *m;
	uintptr_t *n;

	n = trie_descend(db, f->root, dst, plen, best != NULL, &base, &path);
	if (!n)
		return best ? -ENOMEM : 0;
	m = node_meta(n, base);
	l = plen - base;
	first = slot_index(dst->b, base);
	count = 1u << (node_bits(base) - l);
	if (best) {
		for (unsigned s = first; s < first + count; s++)
			if (m->own[s] == OWN_NONE || m->own[s] <= plen) {
				m->own[s] = (uint8_t)plen;
				slot_set(n, base, s, (uintptr_t)best);
			}
		if (!had)
			m->nprefix++;
		return 0;
	}
	/* Deleted: the next shorter prefix of this node takes over, else
	 * the cover from above. */
	const struct fib_route *repl = NULL;
	unsigned rl = OWN_NONE;
	for (int q = (int)plen - 1; q >= (int)(base ? base + 1 : 0); q--) {
		union fib_addr a = *dst;

		addr_mask(&a, (unsigned)q);
		repl = prefix_best(f, &a, (unsigned)q);
		if (repl) {
			rl = (unsigned)q;
			break;
		}
	}
	for (unsigned s = first; s < first + count; s++)
		if (m->own[s] == plen) {
			m->own[s] = (uint8_t)rl;
			slot_set(n, base, s,
				 (uintptr_t)(repl ? repl : m->cover));
		}
	if (had)
		m->nprefix--;
	trie_prune(db, n, base, &path);
	return 0;
}

/* ---- writer API ---- */

struct fib_db *fib_db_new(void)
{
	return calloc(1, sizeof(struct fib_db));
}

void fib_db_set_encap_ops(struct fib_db *db, const struct fib_encap_ops *ops)
{
	db->encap_ops = *ops;
}

/* True if route r's encap is spec's (both none, or equal). */
static bool encap_same(const struct fib_db *db, const struct fib_route *r,
		       const struct fib_route_spec *spec)
{
	if (r->encap == spec->encap)
		return true;
	if (!r->encap || !spec->encap || !db->encap_ops.equal)
		return false;
	return db->encap_ops.equal(r->encap, spec->encap);
}

static void node_free_all(uintptr_t *n, unsigned base)
{
	if (base + node_bits(base) < 128)
		for (size_t s = 0; s < node_slots(base); s++)
			if (n[s] & 1)
				node_free_all((uintptr_t *)(n[s] - 1),
					      base + node_bits(base));
	free(n);
}

void fib_db_free(struct fib_db *db)
{
	if (!db)
		return;
	for (size_t i = 0; i < db->nretired; i++)
		if (db->retired[i].kind != RETIRE_ROUTE)
			free(db->retired[i].p);
	for (uint32_t i = 0; db->tables && i < db->tables->n; i++) {
		struct fib_table *t = db->tables->t[i];

		for (int k = 0; k < 2; k++) {
			if (t->fam[k].root)
				node_free_all(t->fam[k].root, 0);
			free(t->fam[k].hash);
		}
		free(t);
	}
	free(db->tables);
	for (size_t i = 0; i < db->ihsize; i++) {
		struct fib_info *fi, *next;

		for (fi = db->ihash[i]; fi; fi = next) {
			next = fi->hnext;
			free(fi);
		}
	}
	free(db->ihash);
	while (db->slabs) {
		struct route_slab *s = db->slabs;

		db->slabs = s->next;
		free(s);
	}
	free(db->retired);
	free(db);
}

static int spec_check(const struct fib_route_spec *s, union fib_addr *dst)
{
	if (s->family != AF_INET && s->family != AF_INET6)
		return -EINVAL;
	if (s->plen > family_maxlen(s->family))
		return -EINVAL;
	*dst = s->dst;
	if (s->family == AF_INET)
		memset(&dst->b[4], 0, 12);
	addr_mask(dst, s->plen);
	return 0;
}

static struct fib_family *spec_family(const struct fib_db *db,
				      const struct fib_route_spec *s)
{
	const struct fib_table *t = fib_table_get(db, s->table);

	return t ? (struct fib_family *)&t->fam[family_index(s->family)] : NULL;
}

static struct fib_family *family_prepare(struct fib_db *db,
					 const struct fib_route_spec *s)
{
	struct fib_table *t = table_get_or_create(db, s->table);
	struct fib_family *f;

	if (!t)
		return NULL;
	f = &t->fam[family_index(s->family)];
	if (!f->root) {
		uintptr_t *root = node_new(db, 0, NULL);

		if (!root)
			return NULL;
		rcu_assign_pointer(f->root, root);
	}
	if (f->count >= f->hsize && family_rehash(f) < 0)
		return NULL;
	return f;
}

/* Replace old (may be NULL) by r (may be NULL) in f and fix the trie. */
static int family_swap(struct fib_db *db, struct fib_family *f,
		       const union fib_addr *dst, unsigned plen,
		       struct fib_route *old, struct fib_route *r)
{
	const struct fib_route *before = prefix_best(f, dst, plen), *after;

	if (old) {
		hash_unlink(f, old);
		f->count--;
	}
	if (r) {
		struct fib_route **b = hash_bucket(f, dst, plen);

		r->hnext = *b;
		*b = r;
		f->count++;
	}
	after = prefix_best(f, dst, plen);
	if (db->encap_ops.change) {
		if (old && old->encap)
			db->encap_ops.change(db->encap_ops.arg, old, -1);
		if (r && r->encap)
			db->encap_ops.change(db->encap_ops.arg, r, 1);
	}
	if (old && retire(db, RETIRE_ROUTE, old) < 0)
		return -ENOMEM;
	if (after == before)
		return 0;
	return trie_set(db, f, dst, plen, after, before != NULL);
}

int fib_route_add(struct fib_db *db, const struct fib_route_spec *spec,
		  uint32_t gen)
{
	union {
		struct fib_info fi;
		uint8_t buf[sizeof(struct fib_info) +
			    FIB_MAX_NH * sizeof(struct fib_nexthop)];
	} key;
	struct fib_family *f;
	struct fib_route *old, *r;
	union fib_addr dst;
	uint32_t oif;
	int err = spec_check(spec, &dst);

	if (err < 0)
		return err;
	f = family_prepare(db, spec);
	if (!f)
		return -ENOMEM;
	info_from_spec(&key.fi, spec);
	oif = spec_key_oif(spec);
	old = hash_find(f, &dst, spec->plen, spec->tos, spec->priority, &oif);
	if (old && old->type == spec->type && old->fi == info_find(db, &key.fi) &&
	    encap_same(db, old, spec)) {
		old->gen = gen;
		return 1;
	}
	r = route_alloc(db);
	if (!r)
		return -ENOMEM;
	memset(r, 0, sizeof(*r));
	r->fi = info_get(db, &key.fi);
	if (!r->fi) {
		r->hnext = db->free_routes;
		db->free_routes = r;
		return -ENOMEM;
	}
	r->dst = dst;
	r->table = spec->table;
	r->family = spec->family;
	r->plen = spec->plen;
	r->type = spec->type;
	r->tos = spec->tos;
	r->gen = gen;
	r->key_oif = spec_key_oif(spec);
	r->encap = spec->encap;
	if (r->encap && db->encap_ops.hold)
		db->encap_ops.hold(db->encap_ops.arg, r->encap);
	return family_swap(db, f, &dst, spec->plen, old, r);
}

const struct fib_route *fib_route_find(const struct fib_db *db,
				       const struct fib_route_spec *spec)
{
	struct fib_family *f = spec_family(db, spec);
	uint32_t oif = spec_key_oif(spec);
	union fib_addr dst;

	if (!f || spec_check(spec, &dst) < 0)
		return NULL;
	return hash_find(f, &dst, spec->plen, spec->tos, spec->priority, &oif);
}

static int route_remove(struct fib_db *db, struct fib_family *f,
			struct fib_route *r)
{
	union fib_addr dst = r->dst;

	return family_swap(db, f, &dst, r->plen, r, NULL);
}

int fib_route_del(struct fib_db *db, const struct fib_route_spec *spec)
{
	struct fib_family *f = spec_family(db, spec);
	struct fib_route *r;
	union fib_addr dst;

	if (!f || spec_check(spec, &dst) < 0)
		return -ESRCH;
	uint32_t oif = spec_key_oif(spec);

	/* No oif given: the first route of that key, as `ip -6 route del`. */
	r = hash_find(f, &dst, spec->plen, spec->tos, spec->priority,
		      oif ? &oif : NULL);
	if (!r)
		return -ESRCH;
	return route_remove(db, f, r);
}

size_t fib_route_del_all(struct fib_db *db, const struct fib_route_spec *spec)
{
	struct fib_family *f = spec_family(db, spec);
	struct fib_route *r;
	union fib_addr dst;
	size_t n = 0;

	if (!f || spec_check(spec, &dst) < 0)
		return 0;
	while ((r = hash_find(f, &dst, spec->plen, spec->tos, spec->priority,
			      NULL))) {
		route_remove(db, f, r);
		n++;
	}
	return n;
}

size_t fib_route_del_others(struct fib_db *db,
			    const struct fib_route_spec *spec)
{
	struct fib_family *f = spec_family(db, spec);
	uint32_t oif = spec_key_oif(spec);
	struct fib_route *r, *next;
	union fib_addr dst;
	size_t n = 0;

	if (!f || !f->hsize || spec_check(spec, &dst) < 0)
		return 0;
	/* route_remove() unlinks r only (and never rehashes) */
	for (r = *hash_bucket(f, &dst, spec->plen); r; r = next) {
		next = r->hnext;
		if (route_key_eq(r, &dst, spec->plen) && r->tos == spec->tos &&
		    r->fi->priority == spec->priority && r->key_oif != oif) {
			route_remove(db, f, r);
			n++;
		}
	}
	return n;
}

int fib_foreach(const struct fib_db *db,
		int (*fn)(const struct fib_route *r, void *arg), void *arg)
{
	const struct fib_tables *ts = db->tables;

	for (uint32_t i = 0; ts && i < ts->n; i++)
		for (int k = 0; k < 2; k++) {
			const struct fib_family *f = &ts->t[i]->fam[k];

			for (size_t b = 0; b < f->hsize; b++)
				for (const struct fib_route *r = f->hash[b]; r;
				     r = r->hnext) {
					int rc = fn(r, arg);

					if (rc)
						return rc;
				}
		}
	return 0;
}

size_t fib_sweep(struct fib_db *db, uint32_t gen)
{
	const struct fib_tables *ts = db->tables;
	size_t n = 0;

	for (uint32_t i = 0; ts && i < ts->n; i++)
		for (int k = 0; k < 2; k++) {
			struct fib_family *f = &ts->t[i]->fam[k];

			for (size_t b = 0; b < f->hsize; b++) {
				struct fib_route *r = f->hash[b], *next;

				/* route_remove unlinks r only (and never
				 * rehashes), so next stays valid. */
				for (; r; r = next) {
					next = r->hnext;
					if (r->gen != gen) {
						route_remove(db, f, r);
						n++;
					}
				}
			}
		}
	return n;
}

size_t fib_reclaim(struct fib_db *db)
{
	size_t n = db->nretired;

	if (!n)
		return 0;
	synchronize_rcu();
	for (size_t i = 0; i < n; i++) {
		struct retired *rt = &db->retired[i];

		if (rt->kind == RETIRE_ROUTE)
			route_free(db, rt->p);
		else
			free(rt->p);
	}
	db->nretired = 0;
	return n;
}

void fib_route_to_spec(const struct fib_route *r, struct fib_route_spec *s)
{
	const struct fib_info *fi = r->fi;

	memset(s, 0, offsetof(struct fib_route_spec, nh));
	s->encap = r->encap;
	s->dst = r->dst;
	s->table = r->table;
	s->family = r->family;
	s->plen = r->plen;
	s->type = r->type;
	s->tos = r->tos;
	s->priority = fi->priority;
	s->mtu = fi->mtu;
	s->protocol = fi->protocol;
	s->scope = fi->scope;
	s->prefsrc = fi->prefsrc;
	s->prefsrc_set = fi->prefsrc_set;
	s->nnh = fi->nnh;
	memcpy(s->nh, fi->nh, fi->nnh * sizeof(fi->nh[0]));
}

size_t fib_count(const struct fib_db *db, uint32_t table, int family)
{
	const struct fib_tables *ts = rcu_dereference(db->tables);
	size_t n = 0;

	for (uint32_t i = 0; ts && i < ts->n; i++)
		if (!table || ts->t[i]->id == table)
			n += ts->t[i]->fam[family_index(family)].count;
	return n;
}

size_t fib_table_ids(const struct fib_db *db, uint32_t *ids, size_t max)
{
	const struct fib_tables *ts = rcu_dereference(db->tables);
	size_t n = ts ? ts->n : 0;

	for (size_t i = 0; i < n && i < max; i++)
		ids[i] = ts->t[i]->id;
	return n;
}

size_t fib_memory(const struct fib_db *db)
{
	const struct fib_tables *ts = db->tables;
	size_t bytes = sizeof(*db) + db->info_bytes +
		       db->ihsize * sizeof(db->ihash[0]) +
		       db->retired_cap * sizeof(db->retired[0]);

	for (const struct route_slab *s = db->slabs; s; s = s->next)
		bytes += sizeof(*s);
	for (uint32_t i = 0; ts && i < ts->n; i++) {
		bytes += sizeof(struct fib_table) + sizeof(ts->t[0]);
		for (int k = 0; k < 2; k++) {
			const struct fib_family *f = &ts->t[i]->fam[k];

			bytes += f->hsize * sizeof(f->hash[0]);
			if (f->root)
				bytes += node_bytes(0);
		}
	}
	/* Every non-root node has the same size. */
	bytes += db->nnodes * node_bytes(ROOT_BITS);
	for (uint32_t i = 0; ts && i < ts->n; i++)
		for (int k = 0; k < 2; k++)
			if (ts->t[i]->fam[k].root)
				bytes -= node_bytes(ROOT_BITS);
	return bytes;
}

/* ---- reader API ---- */

const struct fib_route *fib_lookup4(const struct fib_table *t,
				    struct in_addr addr)
{
	const uintptr_t *n = rcu_dereference(t->fam[0].root);
	uint32_t k = ntohl(addr.s_addr);
	uintptr_t e;

	if (!n)
		return NULL;
	e = rcu_dereference(n[k >> 16]);
	if (e & 1) {
		n = (const uintptr_t *)(e - 1);
		e = rcu_dereference(n[(k >> 8) & 0xff]);
		if (e & 1) {
			n = (const uintptr_t *)(e - 1);
			e = rcu_dereference(n[k & 0xff]);
		}
	}
	return (const struct fib_route *)e;
}

const struct fib_route *fib_lookup6(const struct fib_table *t,
				    const struct in6_addr *addr)
{
	const uintptr_t *n = rcu_dereference(t->fam[1].root);
	const uint8_t *b = addr->s6_addr;
	uintptr_t e;
	unsigned i = 2;

	if (!n)
		return NULL;
	e = rcu_dereference(n[(unsigned)b[0] << 8 | b[1]]);
	while (e & 1) {
		n = (const uintptr_t *)(e - 1);
		e = rcu_dereference(n[b[i++]]);
	}
	return (const struct fib_route *)e;
}

static const uint32_t default_tables[] = {
	FIB_TABLE_LOCAL, FIB_TABLE_MAIN, FIB_TABLE_DEFAULT
};

const struct fib_route *fib_route_get4(const struct fib_db *db,
				       uint32_t table, struct in_addr addr)
{
	for (unsigned i = 0; i < 3; i++) {
		uint32_t id = table ? table : default_tables[i];
		const struct fib_table *t = fib_table_get(db, id);
		const struct fib_route *r = t ? fib_lookup4(t, addr) : NULL;

		if (r && r->type != RTN_THROW)
			return r;
		if (table)
			break;
	}
	return NULL;
}

const struct fib_route *fib_route_get6(const struct fib_db *db,
				       uint32_t table,
				       const struct in6_addr *addr)
{
	for (unsigned i = 0; i < 3; i++) {
		uint32_t id = table ? table : default_tables[i];
		const struct fib_table *t = fib_table_get(db, id);
		const struct fib_route *r = t ? fib_lookup6(t, addr) : NULL;

		if (r && r->type != RTN_THROW)
			return r;
		if (table)
			break;
	}
	return NULL;
}

const struct fib_nexthop *fib_route_nexthop(const struct fib_route *r,
					    uint32_t flow_hash)
{
	const struct fib_info *fi = r->fi;
	uint32_t total = 0, pick;

	for (unsigned i = 0; i < fi->nnh; i++)
		if (!(fi->nh[i].flags & RTNH_F_DEAD))
			total += fi->nh[i].weight;
	if (!total)
		return NULL;
	pick = (uint32_t)(((uint64_t)flow_hash * total) >> 32);
	for (unsigned i = 0; i < fi->nnh; i++) {
		if (fi->nh[i].flags & RTNH_F_DEAD)
			continue;
		if (pick < fi->nh[i].weight)
			return &fi->nh[i];
		pick -= fi->nh[i].weight;
	}
	return NULL;
}
