/* stats.c - drop reason names. */
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
