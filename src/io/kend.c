/* kend.c - EXPERIMENTAL: the kernel's End for srv6d's transit
 * super-packets (kend.h). */
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

#include "behavior_table.h"
#include "ip.h"
#include "kend.h"
#include "lpm.h"
#include "srh.h"
#include "srv6.h"

uint32_t kend_mark_from_env(void)
{
	const char *s = getenv("SRV6D_EXP_KERNEL_END_MARK");
	char *end;
	unsigned long v;

	if (!s || !*s)
		return 0;
	v = strtoul(s, &end, 0);
	return *end || v > UINT32_MAX ? 0 : (uint32_t)v;
}

/* The local SID of segment i of srh, NULL when there is none. */
static const struct sid *kend_segment_sid(const struct config *cfg,
					  const struct srh *srh, unsigned i)
{
	struct in6_addr a;

	memcpy(&a, (const uint8_t *)srh + sizeof(*srh) + 16 * i, sizeof(a));
	return lpm_lookup(cfg->sid_table, &a);
}

bool kend_eligible(const struct config *cfg, struct pkt *p)
{
	struct srh_info si;
	struct srh_error err;
	const struct sid *sid;
	unsigned sl;

	if (!cfg->sid_table || pkt_ip_version(p) != 6 ||
	    p->len < IPV6_HDR_LEN ||
	    srh_find(p->data, p->len, &si, &err) < 0 || !si.srh)
		return false;
	sl = si.srh->segments_left;
	/* An End's result: the destination is segment sl, moved there from
	 * segment sl + 1 (srh_validate(): the list fits the SRH, which
	 * srh_find() checked fits the packet). */
	if (!srh_validate(si.srh) || sl + 1 > si.srh->last_entry ||
	    memcmp(p->data + IP6_DST_OFF, (const uint8_t *)si.srh + sizeof(*si.srh) +
		   16 * sl, 16) != 0 || kend_segment_sid(cfg, si.srh, sl))
		return false;
	sid = kend_segment_sid(cfg, si.srh, sl + 1);
	if (!sid || sid->behavior != BHV_END || sid->flavors)
		return false;
	/* The segment before that one local too: maybe a chain srv6d ran
	 * (sid_chain()), which the kernel's routes may not redo. */
	return sl + 2 > si.srh->last_entry ||
	       !kend_segment_sid(cfg, si.srh, sl + 2);
}
