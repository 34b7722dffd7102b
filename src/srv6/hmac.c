/* hmac.c - the SRH's HMAC TLV (RFC 8754 2.1.2), see hmac.h.
 *
 * nettle's HMAC contexts live on the stack: no allocation, no shared state,
 * safe from any number of workers at once.  Like the kernel, the key is
 * set for every packet (two extra compression rounds). */
#include <arpa/inet.h>
#include <nettle/hmac.h>
#include <nettle/memops.h>
#include <string.h>

#include "hmac.h"
#include "ip.h"

/* The RFC 8754 2.1.2.1 text after the source address: Last Entry (8),
 * Flags (8), HMAC Key ID (32). */
static void hmac_text_fields(uint8_t f[6], const struct srh *srh,
			     uint32_t key_id)
{
	uint32_t id = htonl(key_id);

	f[0] = srh->last_entry;
	f[1] = srh->flags;
	memcpy(f + 2, &id, 4);
}

static size_t seglist_bytes(const struct srh *srh)
{
	return ((size_t)srh->last_entry + 1) * 16;
}

static void digest_sha256(const struct hmac_key *key, const uint8_t *src,
			  const uint8_t f[6], const struct srh *srh,
			  uint8_t *out)
{
	struct hmac_sha256_ctx c;

	hmac_sha256_set_key(&c, key->len, key->secret);
	hmac_sha256_update(&c, 16, src);
	hmac_sha256_update(&c, 6, f);
	hmac_sha256_update(&c, seglist_bytes(srh),
			   (const uint8_t *)srh->segments);
	hmac_sha256_digest(&c, SHA256_DIGEST_SIZE, out);
}

static void digest_sha1(const struct hmac_key *key, const uint8_t *src,
			const uint8_t f[6], const struct srh *srh,
			uint8_t *out)
{
	struct hmac_sha1_ctx c;

	hmac_sha1_set_key(&c, key->len, key->secret);
	hmac_sha1_update(&c, 16, src);
	hmac_sha1_update(&c, 6, f);
	hmac_sha1_update(&c, seglist_bytes(srh),
			 (const uint8_t *)srh->segments);
	hmac_sha1_digest(&c, SHA1_DIGEST_SIZE, out);
}

int hmac_srh_digest(const struct hmac_key *key, const uint8_t *src,
		    const struct srh *srh, uint8_t out[HMAC_FIELD_LEN])
{
	uint8_t f[6];

	hmac_text_fields(f, srh, key->id);
	memset(out, 0, HMAC_FIELD_LEN);
	switch (key->alg) {
	case HMAC_ALG_SHA256:
		digest_sha256(key, src, f, srh, out);
		return 0;
	case HMAC_ALG_SHA1:
		digest_sha1(key, src, f, srh, out);
		return 0;
	}
	return -1;
}

int hmac_tlv_write(uint8_t *tlv, const struct hmac_key *key, bool d_flag,
		   const uint8_t *src, const struct srh *srh)
{
	uint32_t id = htonl(key->id);

	tlv[0] = SRH_TLV_HMAC;
	tlv[1] = HMAC_TLV_DATA_LEN;
	tlv[2] = d_flag ? HMAC_TLV_D_FLAG : 0;
	tlv[3] = 0;
	memcpy(tlv + 4, &id, 4);
	return hmac_srh_digest(key, src, srh, tlv + 8);
}

bool hmac_equal(const uint8_t *a, const uint8_t *b, unsigned n)
{
	return memeql_sec(a, b, n) != 0;
}

/* RFC 8754 2.1.2.1: unless the D bit says the list is reduced, the
 * Destination Address must be Segment List[Segments Left].  Linux's
 * layout (H flag) predates the D bit: Linux's encap.red with an HMAC sends
 * a reduced list (SL = Last Entry + 1) without it, accepted as reduced. */
static bool hmac_da_ok(const uint8_t *pkt, const struct srh *srh,
		       const uint8_t *tlv)
{
	if (tlv[2] & HMAC_TLV_D_FLAG)
		return true;
	if (srh->segments_left > srh->last_entry)
		return (srh->flags & SRH_FLAG_HMAC_LINUX) &&
		       srh->segments_left == srh->last_entry + 1;
	return memcmp(pkt + IP6_DST_OFF, &srh->segments[srh->segments_left],
		      16) == 0;
}

enum drop_reason hmac_verify(const struct config *cfg, const uint8_t *pkt,
			     const struct srh_info *si)
{
	uint8_t digest[HMAC_FIELD_LEN];
	const struct hmac_key *key;
	const uint8_t *tlv;
	uint32_t id;
	unsigned flen;

	if (!si->hmac_off)
		return DROP_HMAC_MISSING;
	tlv = pkt + si->hmac_off;
	/* srh_tlv_walk() has checked the TLV's 2 + Length bytes fit */
	flen = tlv[1] >= 6 ? tlv[1] - 6u : 0;
	if (flen == 0 || flen > HMAC_FIELD_LEN || flen % 8)
		return DROP_BAD_TLV;
	memcpy(&id, tlv + 4, 4);
	key = config_hmac_key(cfg, ntohl(id));
	if (!key)
		return DROP_HMAC_UNKNOWN;
	if (!hmac_da_ok(pkt, si->srh, tlv))
		return DROP_HMAC_WRONG;
	if (hmac_srh_digest(key, pkt + IP6_SRC_OFF, si->srh, digest) < 0)
		return DROP_HMAC_UNKNOWN;
	if (!hmac_equal(digest, tlv + 8, flen))
		return DROP_HMAC_WRONG;
	return HMAC_OK;
}

int hmac_check(struct proc_ctx *ctx, struct pkt *p, const struct sid *sid)
{
	const struct config *cfg = ctx->cfg;
	enum drop_reason why;
	struct srh_error err;
	struct srh_info si;

	if (!cfg->hmac_require && cfg->nhmac_keys == 0)
		return 0;
	if (proc_srh_find(ctx, p, &si, &err) < 0)
		return 0;	/* the behavior answers the bad header */
	if (!si.srh)	/* no SRH, no list to protect: as Linux */
		why = HMAC_OK;
	else if (!si.hmac_off && !cfg->hmac_require)
		why = HMAC_OK;
	else
		why = hmac_verify(cfg, p->data, &si);
	if (why == HMAC_OK)
		return 0;
	proc_drop(ctx, p, &ctx->sid_stats[sid->index], why);
	return -1;
}
