/* routemsg.h - rtnetlink route messages for the Check unit tests, laid
 * out as the kernel sends them (net/ipv4/fib_semantics.c, net/ipv6/route.c)
 * with the seg6 and seg6local encapsulations of net/ipv6/seg6_iptunnel.c
 * and seg6_local.c.  A message is built in one static buffer, valid
 * until the next; a bad address aborts the test. */
#ifndef SRV6D_ROUTEMSG_H
#define SRV6D_ROUTEMSG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct nlattr;
struct nlmsghdr;
struct rtnexthop;

/* A route message of type RTM_NEWROUTE or RTM_DELROUTE: rtmsg (protocol
 * boot, scope universe, route type rtype), RTA_TABLE (table > 255: only
 * there) and RTA_DST dst/plen. */
struct nlmsghdr *routemsg_new(uint16_t type, int family, const char *dst,
			      unsigned plen, uint32_t table, uint8_t rtype);

/* routemsg_new() of a unicast route followed by what the kernel adds to
 * a plain `ip route add DST dev IF` one: RTA_PRIORITY 1024, RTA_OIF 2. */
struct nlmsghdr *routemsg_kernel(uint16_t type, int family, const char *dst,
				 unsigned plen, uint32_t table);

/* Append attribute attr (RTA_GATEWAY, RTA_PREFSRC, ...) holding address
 * addr of family. */
void routemsg_put_addr(struct nlmsghdr *nlh, uint16_t attr, int family,
		       const char *addr);

/* Open a next hop (oif, weight) in an open RTA_MULTIPATH; its
 * attributes follow, then routemsg_nexthop_end(). */
struct rtnexthop *routemsg_nexthop_start(struct nlmsghdr *nlh, int oif,
					 unsigned weight);
void routemsg_nexthop_end(struct nlmsghdr *nlh, struct rtnexthop *rtnh);

/* An SRH in p as iproute2 builds it: segs[0..n-1] in reverse;
 * placeholder: one free slot at segments[0] (inline, End.B6); hmac: an
 * HMAC TLV with that key id (0: none).  Returns its length. */
size_t routemsg_srh(uint8_t *p, const char *const *segs, unsigned n,
		    bool placeholder, uint32_t hmac);

/* Append `encap seg6 mode mode segs ...` (RTA_ENCAP_TYPE, RTA_ENCAP with
 * SEG6_IPTUNNEL_SRH; inline mode has the free slot). */
void routemsg_put_seg6(struct nlmsghdr *nlh, int mode,
		       const char *const *segs, unsigned n, uint32_t hmac);

/* Append `encap seg6local action A` and leave its RTA_ENCAP open for
 * the action's attributes: close it with mnl_attr_nest_end(). */
struct nlattr *routemsg_seg6local_start(struct nlmsghdr *nlh,
					uint32_t action);

#endif
