/* kend.c - the kernel's End for srv6d's transit super-packets
 * (kend.h). */
#include <netinet/in.h>
#include <string.h>

#include "behavior_table.h"
#include "ip.h"
#include "kend.h"
#include "lpm.h"
#include "srh.h"
#include "srv6.h"

/* The local SID of segment i of srh, NULL when there is none. */
static const struct sid *kend_segment_sid(const struct config *cfg,
					  const struct srh *srh, unsigned i)
{
	struct in6_addr a;

	memcpy(&a, (const uint8_t *)srh + sizeof(*srh) + 16 * i, sizeof(a));
	return lpm_lookup(cfg->sid_table, &a);
}

uint32_t kend_mark_of(const struct config *cfg, struct pkt *p)
{
	struct srh_info si;
	struct srh_error err;
	const struct sid *sid;
	unsigned sl;

	if (!cfg->kend_on || !cfg->sid_table || pkt_ip_version(p) != 6 ||
	    p->len < IPV6_HDR_LEN ||
	    srh_find(p->data, p->len, &si, &err) < 0 || !si.srh)
		return 0;
	sl = si.srh->segments_left;
	/* An End's result: the destination is segment sl, moved there from
	 * segment sl + 1 (srh_validate(): the list fits the SRH, which
	 * srh_find() checked fits the packet). */
	/* No TLV (an HMAC the kernel may lack the key of, or refuse). */
	if (!srh_validate(si.srh) || sl + 1 > si.srh->last_entry ||
	    si.srh->hdrlen != (si.srh->last_entry + 1u) * 2 ||
	    memcmp(p->data + IP6_DST_OFF, (const uint8_t *)si.srh + sizeof(*si.srh) +
		   16 * sl, 16) != 0 || kend_segment_sid(cfg, si.srh, sl))
		return 0;
	sid = kend_segment_sid(cfg, si.srh, sl + 1);
	if (!sid || !sid->kend_mark || sid->behavior != BHV_END ||
	    sid->flavors)
		return 0;
	/* The segment before that one local too: maybe a chain srv6d ran
	 * (sid_chain()), which the kernel's routes may not redo. */
	if (sl + 2 <= si.srh->last_entry && kend_segment_sid(cfg, si.srh, sl + 2))
		return 0;
	return sid->kend_mark;
}
