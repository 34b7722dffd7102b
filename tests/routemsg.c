/* routemsg.c - rtnetlink route messages for the Check unit tests. */
#include <arpa/inet.h>
#include <check.h>
#include <libmnl/libmnl.h>
#include <linux/lwtunnel.h>
#include <linux/rtnetlink.h>
#include <linux/seg6.h>
#include <linux/seg6_iptunnel.h>
#include <linux/seg6_local.h>
#include <string.h>

#include "routemsg.h"

static uint8_t buf[8192] __attribute__((aligned(4)));

static void addr_parse(int family, const char *s, uint8_t a[16])
{
	ck_assert_int_eq(inet_pton(family, s, a), 1);
}

struct nlmsghdr *routemsg_new(uint16_t type, int family, const char *dst,
			      unsigned plen, uint32_t table, uint8_t rtype)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct rtmsg *rtm = mnl_nlmsg_put_extra_header(nlh, sizeof(*rtm));

	nlh->nlmsg_type = type;
	rtm->rtm_family = (uint8_t)family;
	rtm->rtm_dst_len = (uint8_t)plen;
	rtm->rtm_table = table < 256 ? (uint8_t)table : RT_TABLE_UNSPEC;
	rtm->rtm_protocol = RTPROT_BOOT;
	rtm->rtm_scope = RT_SCOPE_UNIVERSE;
	rtm->rtm_type = rtype;
	mnl_attr_put_u32(nlh, RTA_TABLE, table);
	routemsg_put_addr(nlh, RTA_DST, family, dst);
	return nlh;
}

struct nlmsghdr *routemsg_kernel(uint16_t type, int family, const char *dst,
				 unsigned plen, uint32_t table)
{
	struct nlmsghdr *nlh = routemsg_new(type, family, dst, plen, table,
					    RTN_UNICAST);

	mnl_attr_put_u32(nlh, RTA_PRIORITY, 1024);
	mnl_attr_put_u32(nlh, RTA_OIF, 2);
	return nlh;
}

void routemsg_put_addr(struct nlmsghdr *nlh, uint16_t attr, int family,
		       const char *addr)
{
	uint8_t a[16];

	addr_parse(family, addr, a);
	mnl_attr_put(nlh, attr, family == AF_INET ? 4 : 16, a);
}

struct rtnexthop *routemsg_nexthop_start(struct nlmsghdr *nlh, int oif,
					 unsigned weight)
{
	struct rtnexthop *rtnh = mnl_nlmsg_get_payload_tail(nlh);

	memset(rtnh, 0, sizeof(*rtnh));
	nlh->nlmsg_len += RTNH_ALIGN(sizeof(*rtnh));
	rtnh->rtnh_ifindex = oif;
	rtnh->rtnh_hops = (uint8_t)(weight - 1);
	return rtnh;
}

void routemsg_nexthop_end(struct nlmsghdr *nlh, struct rtnexthop *rtnh)
{
	uint8_t *tail = mnl_nlmsg_get_payload_tail(nlh);

	rtnh->rtnh_len = (unsigned short)(tail - (uint8_t *)rtnh);
}

size_t routemsg_srh(uint8_t *p, const char *const *segs, unsigned n,
		    bool placeholder, uint32_t hmac)
{
	struct ipv6_sr_hdr *srh = (struct ipv6_sr_hdr *)p;
	unsigned nseg = n + placeholder;
	size_t len = sizeof(*srh) + nseg * 16 + (hmac ? 40 : 0);

	memset(p, 0, len);
	srh->hdrlen = (uint8_t)(len / 8 - 1);
	srh->type = 4;
	srh->segments_left = srh->first_segment = (uint8_t)(nseg - 1);
	for (unsigned i = 0; i < n; i++)
		addr_parse(AF_INET6, segs[i],
			   srh->segments[nseg - 1 - i].s6_addr);
	if (hmac) {
		uint8_t *t = p + sizeof(*srh) + nseg * 16;
		uint32_t id = htonl(hmac);

		srh->flags = SR6_FLAG1_HMAC;
		t[0] = 5;
		t[1] = 38;
		memcpy(t + 4, &id, 4);
	}
	return len;
}

void routemsg_put_seg6(struct nlmsghdr *nlh, int mode,
		       const char *const *segs, unsigned n, uint32_t hmac)
{
	uint8_t tun[512] __attribute__((aligned(4)));
	struct seg6_iptunnel_encap *t = (struct seg6_iptunnel_encap *)tun;
	struct nlattr *nest;
	size_t len;

	t->mode = mode;
	len = routemsg_srh((uint8_t *)t->srh, segs, n,
			   mode == SEG6_IPTUN_MODE_INLINE, hmac);
	mnl_attr_put_u16(nlh, RTA_ENCAP_TYPE, LWTUNNEL_ENCAP_SEG6);
	nest = mnl_attr_nest_start(nlh, RTA_ENCAP);
	mnl_attr_put(nlh, SEG6_IPTUNNEL_SRH, sizeof(*t) + len, t);
	mnl_attr_nest_end(nlh, nest);
}

struct nlattr *routemsg_seg6local_start(struct nlmsghdr *nlh, uint32_t action)
{
	struct nlattr *nest;

	mnl_attr_put_u16(nlh, RTA_ENCAP_TYPE, LWTUNNEL_ENCAP_SEG6_LOCAL);
	nest = mnl_attr_nest_start(nlh, RTA_ENCAP);
	mnl_attr_put_u32(nlh, SEG6_LOCAL_ACTION, action);
	return nest;
}
