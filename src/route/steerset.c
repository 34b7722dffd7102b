/* steerset.c - the kernel's seg6 encap prefixes as nft set elements
 * (steerset.h). */
#include "steerset.h"

#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

struct entry {
	uint8_t addr[16];
	uint8_t plen;
	bool top;		/* an element: no other prefix covers it */
	uint32_t refs;		/* routes with this prefix */
};

struct table {
	uint8_t family;
	uint32_t id;
	struct entry *e;	/* by address, then prefix length */
	size_t n;
	size_t ntop;		/* of them elements */
};

struct steerset {
	struct table *t;	/* IPv6's first, each family's by id */
	size_t nt;
	uint64_t unbalanced;
};

struct steerset *steerset_new(void)
{
	return calloc(1, sizeof(struct steerset));
}

void steerset_free(struct steerset *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nt; i++)
		free(s->t[i].e);
	free(s->t);
	free(s);
}

void steerset_delta_free(struct steerset_delta *d)
{
	free(d->e);
	memset(d, 0, sizeof(*d));
}

/* IPv6 first, then by table. */
static int table_cmp(uint8_t fa, uint32_t ta, uint8_t fb, uint32_t tb)
{
	if (fa != fb)
		return fa == AF_INET6 ? -1 : 1;
	return ta < tb ? -1 : ta > tb;
}

static int prefix_cmp(const uint8_t *a, uint8_t pa, const uint8_t *b,
		      uint8_t pb)
{
	int c = memcmp(a, b, 16);

	if (c)
		return c;
	return pa < pb ? -1 : pa > pb;
}

static int kroute_cmp(const void *x, const void *y)
{
	const struct rtmirror_kroute *a = x, *b = y;
	int c = table_cmp(a->family, a->table, b->family, b->table);

	return c ? c : prefix_cmp(a->addr, a->plen, b->addr, b->plen);
}

/* Whether prefix a covers b (b inside a, or a itself). */
static bool covers(const struct entry *a, const struct entry *b)
{
	unsigned full = a->plen / 8u, rest = a->plen % 8u;

	if (a->plen > b->plen || memcmp(a->addr, b->addr, full))
		return false;
	return !rest || !((a->addr[full] ^ b->addr[full]) &
			  (uint8_t)(0xff00u >> rest));
}

static int delta_push(struct steerset_delta *d, uint8_t family,
		      uint32_t table, const struct entry *e, bool add)
{
	struct steerset_elem *x;

	if (d->n == d->cap) {
		size_t cap = d->cap ? 2 * d->cap : 64;
		void *n = realloc(d->e, cap * sizeof(*d->e));

		if (!n)
			return -1;
		d->e = n;
		d->cap = cap;
	}
	x = &d->e[d->n++];
	memset(x, 0, sizeof(*x));
	x->family = family;
	x->plen = e->plen;
	x->add = add;
	x->table = table;
	memcpy(x->addr, e->addr, 16);
	return 0;
}

/* The new entries of table t (old: t->e, t->n; may be empty) with the
 * sorted changes ch[0..nch) applied, into *out (*nout); the elements
 * that change into dels and adds.  Returns 0 or -1. */
static int table_merge(struct steerset *s, const struct table *t,
		       uint8_t family, uint32_t id,
		       const struct rtmirror_kroute *ch, size_t nch,
		       struct entry **out, size_t *nout, size_t *ntop,
		       struct steerset_delta *dels,
		       struct steerset_delta *adds)
{
	struct entry *ne = malloc((t->n + nch + 1) * sizeof(*ne));
	const struct entry *last_top = NULL;
	size_t i = 0, j = 0, n = 0, tops = 0;

	if (!ne)
		return -1;
	while (i < t->n || j < nch) {
		struct entry cur = { 0 };
		bool old_top = false;
		int64_t refs = 0;
		int c;

		if (i == t->n)
			c = 1;
		else if (j == nch)
			c = -1;
		else
			c = prefix_cmp(t->e[i].addr, t->e[i].plen,
				       ch[j].addr, ch[j].plen);
		if (c <= 0) {
			cur = t->e[i];
			old_top = cur.top;
			refs = cur.refs;
			i++;
		} else {
			memcpy(cur.addr, ch[j].addr, 16);
			cur.plen = ch[j].plen;
		}
		/* every change of this prefix */
		while (c >= 0 && j < nch &&
		       !prefix_cmp(cur.addr, cur.plen, ch[j].addr,
				   ch[j].plen)) {
			refs += ch[j].delta;
			if (refs < 0) {
				s->unbalanced++;
				refs = 0;
			}
			j++;
		}
		cur.top = false;
		if (refs > 0) {
			cur.refs = (uint32_t)refs;
			cur.top = !last_top || !covers(last_top, &cur);
			ne[n] = cur;
			if (cur.top) {
				last_top = &ne[n];
				tops++;
			}
			n++;
		}
		if (old_top != cur.top &&
		    delta_push(cur.top ? adds : dels, family, id, &cur,
			       cur.top) < 0) {
			free(ne);
			return -1;
		}
	}
	*out = ne;
	*nout = n;
	*ntop = tops;
	return 0;
}

static struct table *table_find(struct steerset *s, uint8_t family,
				uint32_t id)
{
	for (size_t i = 0; i < s->nt; i++)
		if (s->t[i].family == family && s->t[i].id == id)
			return &s->t[i];
	return NULL;
}

static int table_sort_cmp(const void *x, const void *y)
{
	const struct table *a = x, *b = y;

	return table_cmp(a->family, a->id, b->family, b->id);
}

/* A merged table, ready to take the place of its old one. */
struct merged {
	uint8_t family;
	uint32_t id;
	struct entry *e;
	size_t n, ntop;
};

static int delta_append(struct steerset_delta *d,
			const struct steerset_delta *from)
{
	if (!from->n)
		return 0;
	if (d->n + from->n > d->cap) {
		void *n = realloc(d->e, (d->n + from->n) * sizeof(*d->e));

		if (!n)
			return -1;
		d->e = n;
		d->cap = d->n + from->n;
	}
	memcpy(d->e + d->n, from->e, from->n * sizeof(*d->e));
	d->n += from->n;
	return 0;
}

/* Commits the merged tables into s: replaced, added, the empty ones
 * removed.  Returns whether a table came or went. */
static bool commit(struct steerset *s, struct merged *mg, size_t nmg,
		   struct table *grown)
{
	bool changed = false;
	size_t k = 0;

	for (size_t m = 0; m < nmg; m++) {
		struct table *t = table_find(s, mg[m].family, mg[m].id);

		if (!t) {
			t = &grown[s->nt++];
			t->family = mg[m].family;
			t->id = mg[m].id;
			t->e = NULL;
			t->n = 0;
		}
		changed = changed || !t->n != !mg[m].n;
		free(t->e);
		t->e = mg[m].e;
		t->n = mg[m].n;
		t->ntop = mg[m].ntop;
	}
	for (size_t i = 0; i < s->nt; i++) {
		if (!s->t[i].n) {
			free(s->t[i].e);
			continue;
		}
		s->t[k++] = s->t[i];
	}
	s->nt = k;
	qsort(s->t, s->nt, sizeof(*s->t), table_sort_cmp);
	return changed;
}

int steerset_apply(struct steerset *s, const struct rtmirror_kroute *list,
		   size_t n, struct steerset_delta *d)
{
	struct steerset_delta dels = { 0 }, adds = { 0 };
	struct rtmirror_kroute *ch = NULL;
	struct merged *mg = NULL;
	struct table *grown;
	size_t nmg = 0, i = 0;
	bool changed;

	d->n = 0;
	d->tables_changed = false;
	if (!n)
		return 0;
	ch = malloc(n * sizeof(*ch));
	mg = calloc(n, sizeof(*mg));
	grown = realloc(s->t, (s->nt + n) * sizeof(*s->t));
	if (!ch || !mg || !grown)
		goto fail;
	s->t = grown;
	memcpy(ch, list, n * sizeof(*ch));
	qsort(ch, n, sizeof(*ch), kroute_cmp);
	while (i < n) {
		static const struct table none;
		const struct table *t;
		size_t j = i;

		while (j < n && ch[j].family == ch[i].family &&
		       ch[j].table == ch[i].table)
			j++;
		t = table_find(s, ch[i].family, ch[i].table);
		mg[nmg].family = ch[i].family;
		mg[nmg].id = ch[i].table;
		if (table_merge(s, t ? t : &none, ch[i].family, ch[i].table,
				ch + i, j - i, &mg[nmg].e, &mg[nmg].n,
				&mg[nmg].ntop, &dels,
				&adds) < 0)
			goto fail;
		nmg++;
		i = j;
	}
	if (delta_append(d, &dels) < 0 || delta_append(d, &adds) < 0)
		goto fail;
	changed = commit(s, mg, nmg, s->t);
	d->tables_changed = changed;
	free(ch);
	free(mg);
	steerset_delta_free(&dels);
	steerset_delta_free(&adds);
	return 0;
fail:
	for (size_t m = 0; mg && m < nmg; m++)
		free(mg[m].e);
	free(ch);
	free(mg);
	steerset_delta_free(&dels);
	steerset_delta_free(&adds);
	d->n = 0;
	return -1;
}

void steerset_tables(const struct steerset *s,
		     void (*fn)(int family, uint32_t table, void *arg),
		     void *arg)
{
	for (size_t i = 0; i < s->nt; i++)
		fn(s->t[i].family, s->t[i].id, arg);
}

size_t steerset_elems(const struct steerset *s, int family, uint32_t table,
		      void (*fn)(const struct steerset_elem *e, void *arg),
		      void *arg)
{
	const struct table *t = table_find((struct steerset *)s,
					   (uint8_t)family, table);
	size_t count = 0;

	if (!fn)
		return t ? t->ntop : 0;
	for (size_t i = 0; t && i < t->n; i++) {
		struct steerset_elem e = { .family = (uint8_t)family,
					   .plen = t->e[i].plen,
					   .add = true, .table = table };

		if (!t->e[i].top)
			continue;
		memcpy(e.addr, t->e[i].addr, 16);
		fn(&e, arg);
		count++;
	}
	return count;
}

size_t steerset_prefixes(const struct steerset *s)
{
	size_t n = 0;

	for (size_t i = 0; i < s->nt; i++)
		n += s->t[i].n;
	return n;
}

size_t steerset_count(const struct steerset *s)
{
	size_t n = 0;

	for (size_t i = 0; i < s->nt; i++)
		n += steerset_elems(s, s->t[i].family, s->t[i].id, NULL,
				    NULL);
	return n;
}

uint64_t steerset_unbalanced(const struct steerset *s)
{
	return s->unbalanced;
}

void steerset_interval(const struct steerset_elem *e, uint8_t *from,
		       uint8_t *to, bool *has_to)
{
	unsigned alen = e->family == AF_INET ? 4 : 16;
	unsigned carry = 1;

	memcpy(from, e->addr, alen);
	memcpy(to, e->addr, alen);
	/* the last address of the prefix, plus one */
	for (unsigned b = e->plen; b < alen * 8u; b++)
		to[b / 8] |= (uint8_t)(0x80u >> (b % 8));
	for (int i = (int)alen - 1; i >= 0 && carry; i--) {
		unsigned v = to[i] + carry;

		to[i] = (uint8_t)v;
		carry = v >> 8;
	}
	*has_to = !carry;
}
