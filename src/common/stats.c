/* stats.c - drop reason and outcome names; the outcomes' sum. */
#include "stats.h"

static const char *const drop_reason_names[DROP__COUNT] = {
	[DROP_TRUNCATED] = "truncated",
	[DROP_BAD_IP] = "bad_ip",
	[DROP_BAD_SRH] = "bad_srh",
	[DROP_BAD_TLV] = "bad_tlv",
	[DROP_HOP_LIMIT] = "hop_limit",
	[DROP_UPPER_LAYER] = "upper_layer",
	[DROP_EXT_HEADERS] = "ext_headers",
	[DROP_NO_HEADROOM] = "no_headroom",
	[DROP_TOO_BIG] = "too_big",
	[DROP_FAMILY] = "family",
	[DROP_REINJECT] = "reinject",
	[DROP_FRAGMENT] = "fragment",
	[DROP_HMAC_MISSING] = "hmac_missing",
	[DROP_HMAC_UNKNOWN] = "hmac_unknown",
	[DROP_HMAC_WRONG] = "hmac_wrong",
	[DROP_SID_CHAIN] = "sid_chain",
	[DROP_NO_ROUTE] = "no_route",
	[DROP_NEXTHOP_UNREACHABLE] = "nexthop_unreachable",
	[DROP_NO_TABLE] = "no_table",
	[DROP_NO_SOURCE] = "no_source",
	[DROP_BAD_MESSAGE] = "bad_message",
	[DROP_GSO] = "gso",
	[DROP_BOUNCE_LOOP] = "bounce_loop",
	[DROP_GTPU_MALFORMED] = "gtpu_malformed",
	[DROP_GTPU_MESSAGE] = "gtpu_message",
	[DROP_PROXY_NO_CACHE] = "proxy_no_cache",
	[DROP_PROXY_RETURN] = "proxy_return",
	[DROP_PROXY_CACHE_SIZE] = "proxy_cache_size",
	[DROP_OAM_RATELIMITED] = "oam_ratelimited",
	[DROP_OAM_SEND] = "oam_send",
};

/* Returns the reason's stable name (used by srv6ctl and its JSON), or
 * "unknown" for a value out of range. */
const char *drop_reason_name(enum drop_reason r)
{
	if ((unsigned)r >= DROP__COUNT || !drop_reason_names[r])
		return "unknown";
	return drop_reason_names[r];
}

static const char *const kencap_fallback_names[KENCAP_FB__COUNT] = {
	[KENCAP_FB_OFF] = "off",
	[KENCAP_FB_UNLISTED] = "unlisted",
	[KENCAP_FB_HMAC] = "hmac",
	[KENCAP_FB_SOURCE] = "source",
	[KENCAP_FB_FIRST_SEGMENT] = "first_segment",
	[KENCAP_FB_HELD] = "held",
	[KENCAP_FB_SHAPE] = "shape",
};

/* The fallback reason's stable name (srv6ctl, JSON), "unknown" out of
 * range. */
const char *kencap_fallback_name(enum kencap_fallback r)
{
	if ((unsigned)r >= KENCAP_FB__COUNT)
		return "unknown";
	return kencap_fallback_names[r];
}

static const char *const worker_outcome_names[WORKER_OUT__COUNT] = {
	[WORKER_OUT_FORWARDED] = "forwarded",
	[WORKER_OUT_ACCEPTED] = "accepted",
	[WORKER_OUT_INJECTED] = "injected",
	[WORKER_OUT_BOUNCED] = "bounced",
	[WORKER_OUT_DROPPED] = "dropped",
};

const char *worker_outcome_name(enum worker_outcome o)
{
	if ((unsigned)o >= WORKER_OUT__COUNT)
		return "unknown";
	return worker_outcome_names[o];
}

uint64_t worker_outcome_count(const struct worker_stats *ws,
			      enum worker_outcome o)
{
	switch (o) {
	case WORKER_OUT_FORWARDED:
		return ws->forwarded;
	case WORKER_OUT_ACCEPTED:
		return ws->accepted;
	case WORKER_OUT_INJECTED:
		return ws->injected;
	case WORKER_OUT_BOUNCED:
		return ws->bounced;
	case WORKER_OUT_DROPPED:
		return ws->dropped;
	default:
		return 0;
	}
}

uint64_t worker_stats_outcomes(const struct worker_stats *ws)
{
	uint64_t n = 0;

	for (unsigned o = 0; o < WORKER_OUT__COUNT; o++)
		n += worker_outcome_count(ws, (enum worker_outcome)o);
	return n;
}
