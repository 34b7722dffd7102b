/* oam.c - RFC 9259 OAM at a SID: the O-flag's copy and End.OP (oam.h). */
#include <arpa/inet.h>
#include <string.h>

#include "oam.h"

_Static_assert(sizeof(struct oam_copy_hdr) == OAM_HDR_LEN,
	       "the copy's header is OAM_HDR_LEN bytes");

/* One copy from the worker's bucket (`oam-rate` per second, `oam-burst`):
 * 1, or 0 over the rate (rate 0: never).  The same bucket as ICMP's
 * (icmp.c), in thousandths of a token. */
static int oam_ratelimit_take(struct proc_ctx *ctx)
{
	const struct config_oam *o = &ctx->cfg->oam;
	struct ratelimit *rl = &ctx->oam_rl;
	uint64_t cap = (uint64_t)o->burst * 1000;
	uint64_t elapsed = 0;
	unsigned __int128 add;

	if (!o->rate)
		return 0;
	if (ctx->now_ns > rl->last_ns)
		elapsed = ctx->now_ns - rl->last_ns;
	rl->last_ns = ctx->now_ns;
	if (elapsed) {	/* once a batch: now_ns is the batch's */
		add = (unsigned __int128)elapsed * o->rate / 1000000;
		if (add >= cap - rl->tokens_milli || rl->tokens_milli >= cap)
			rl->tokens_milli = cap;
		else
			rl->tokens_milli += (uint64_t)add;
	}
	if (rl->tokens_milli < 1000)
		return 0;
	rl->tokens_milli -= 1000;
	return 1;
}

bool oam_flag_set(struct proc_ctx *ctx, struct pkt *p)
{
	struct srh_info si;
	struct srh_error err;

	if (proc_srh_find(ctx, p, &si, &err) < 0 || !si.srh)
		return false;
	return si.srh->flags & SRH_FLAG_OAM;
}

static uint64_t hton64(uint64_t v)
{
	return ((uint64_t)htonl((uint32_t)v) << 32) | htonl((uint32_t)(v >> 32));
}

/* Room in ctx->oam for one more copy, or NULL (the ring full and not
 * sent).  Each copy has OAM_SLOT_SIZE bytes at most: n copies fit. */
static uint8_t *oam_slot(struct oam_ring *r)
{
	if (r->n == OAM_RING_SLOTS && r->full)
		r->full(r, r->full_arg);
	if (r->n == OAM_RING_SLOTS)
		return NULL;
	if (!r->n)
		r->used = 0;
	return r->buf + r->used;
}

/* oam_copy() with the reason it made none in *why. */
static int oam_copy_why(struct proc_ctx *ctx, const struct sid *sid,
			struct pkt *p, uint8_t kind, enum drop_reason *why)
{
	struct oam_ring *r = ctx->oam;
	uint32_t whole = p->truncated ? p->orig_len : p->len;
	uint32_t cap = p->len < ctx->cfg->oam.copy_len ? p->len :
		       ctx->cfg->oam.copy_len;
	struct oam_copy_hdr h;
	uint8_t *s;

	if (!oam_ratelimit_take(ctx)) {
		ctx->stats->oam_ratelimited++;
		*why = DROP_OAM_RATELIMITED;
		return -1;
	}
	s = oam_slot(r);
	if (!s) {
		ctx->stats->oam_send_errors++;
		*why = DROP_OAM_SEND;
		return -1;
	}
	if (cap > OAM_COPY_MAX)
		cap = OAM_COPY_MAX;
	h = (struct oam_copy_hdr){
		.version = OAM_HDR_VERSION,
		.kind = kind,
		.hdr_len = htons(OAM_HDR_LEN),
		.worker = htons((uint16_t)ctx->worker),
		.sid_plen = sid->plen,
		.flags = (uint8_t)((cap < whole ? OAM_F_CUT : 0) |
				   (p->gso ? OAM_F_GSO : 0) |
				   (p->truncated ? OAM_F_HEADERS : 0)),
		.ts_ns = hton64(r->ts_ns),
		.orig_len = htonl(whole),
		.cap_len = htonl(cap),
	};
	memcpy(h.sid, &sid->prefix, sizeof(h.sid));
	memcpy(s, &h, OAM_HDR_LEN);
	memcpy(s + OAM_HDR_LEN, p->data, cap);
	r->off[r->n] = r->used;
	r->len[r->n] = OAM_HDR_LEN + cap;
	r->used += OAM_HDR_LEN + cap;
	r->punt[r->n] = kind == OAM_KIND_PUNT ? p : NULL;
	r->of[r->n] = p;
	r->n++;
	return 0;
}

int oam_copy(struct proc_ctx *ctx, const struct sid *sid, struct pkt *p,
	     uint8_t kind)
{
	struct sid_stats *st = &ctx->sid_stats[sid->index];
	enum drop_reason why;

	if (oam_copy_why(ctx, sid, p, kind, &why) < 0) {
		st->oam_uncopied++;
		return -1;
	}
	st->oam_copies++;
	return 0;
}

void behavior_end_op(struct proc_ctx *ctx, const struct sid *sid,
		     struct pkt *p)
{
	struct sid_stats *st = &ctx->sid_stats[sid->index];
	enum drop_reason why = DROP_OAM_SEND;

	/* Without `oam-copy` (refused by the parse) nothing is permitted. */
	if (!ctx->oam || oam_copy_why(ctx, sid, p, OAM_KIND_PUNT, &why) < 0) {
		proc_drop(ctx, p, st, why);
		return;
	}
	p->verdict = PKT_PUNT;
	proc_count_ok(st, p);
}
