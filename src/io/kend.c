/* kend.c - the kernel's End for srv6d's transit super-packets
 * (kend.h). */
#include <netinet/in.h>
#include <string.h>

#include "behavior.h"
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

/* The kend_mark of segment k (Segments Left) of p's SRH, p's
 * destination, when the End of that SID alone is what srv6d does with p
 * (what behavior_end.c then records in p->facts): its SID a plain End
 * with a kend_mark, the SRH without TLVs, segment k - 1 (the new
 * destination) no local SID (srv6d would run it next, sid_chain()), and
 * segment k + 1 none either.  0 otherwise. */
static uint32_t kend_segment_mark(const struct config *cfg,
				  const struct runstate *rs, struct pkt *p)
{
	struct srh_info si;
	struct srh_error err;
	const struct sid *sid;
	unsigned sl, k;

	if (!rs || !rs->kend_on || !cfg->sid_table ||
	    pkt_ip_version(p) != 6 || p->len < IPV6_HDR_LEN ||
	    srh_find(p->data, p->len, &si, &err) < 0 || !si.srh)
		return 0;
	sl = si.srh->segments_left;
	k = sl;
	/* srh_validate(): the list fits the SRH, which srh_find() checked
	 * fits the bytes at hand.  The destination is segment sl. */
	if (!srh_validate(si.srh) || k < 1 || k > si.srh->last_entry ||
	    si.srh->hdrlen != (si.srh->last_entry + 1u) * 2 ||
	    memcmp(p->data + IP6_DST_OFF, (const uint8_t *)si.srh +
		   sizeof(*si.srh) + 16 * sl, 16) != 0 ||
	    kend_segment_sid(cfg, si.srh, k - 1))
		return 0;
	sid = kend_segment_sid(cfg, si.srh, k);
	if (!sid || !runstate_sid(rs, sid).kend_mark ||
	    sid->behavior != BHV_END || sid->flavors)
		return 0;
	if (k + 1 <= si.srh->last_entry && kend_segment_sid(cfg, si.srh, k + 1))
		return 0;
	return runstate_sid(rs, sid).kend_mark;
}

/* Whether p, as queued, is one whose decapsulation the kernel's
 * seg6local makes from the original (behavior_decap.c records it then):
 * its destination a decapsulating SID with a kend_mark, the outer headers
 * behavior_decap_kernel_len() wants, then the inner header, at hand,
 * whose length ends the packet. */
static bool kend_decap_from_headers(const struct config *cfg,
				    const struct runstate *rs,
				    const struct pkt *p)
{
	const struct sid *sid;
	struct in6_addr dst;
	uint32_t off;

	if (!rs || !rs->kend_on || !cfg->sid_table ||
	    pkt_ip_version(p) != 6 || p->len < IPV6_HDR_LEN)
		return false;
	memcpy(&dst, p->data + IP6_DST_OFF, sizeof(dst));
	sid = lpm_lookup(cfg->sid_table, &dst);
	if (!sid || !runstate_sid(rs, sid).kend_mark)
		return false;
	off = behavior_decap_kernel_len(sid, p->data, p->len, p->orig_len);
	return off && off + behavior_inner_len(p->data + off, p->len - off) ==
		      p->orig_len;
}

bool kend_from_headers(const struct config *cfg, const struct runstate *rs,
		       struct pkt *p)
{
	return kend_segment_mark(cfg, rs, p) != 0 ||
	       kend_decap_from_headers(cfg, rs, p);
}
