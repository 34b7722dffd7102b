/* rtnl.h - one rtnetlink socket over libmnl: open, a request and its ack,
 * a dump through a callback, a message's attributes as a table.  What
 * rtrules.c (the daemon's own rules) and rtmirror.c (the route mirror)
 * share; never used on the packet path.
 */
#ifndef SRV6D_RTNL_H
#define SRV6D_RTNL_H

#include <stddef.h>
#include <stdint.h>

#include <libmnl/libmnl.h>

#define RTNL_BUF_SIZE	65536	/* > any message the kernel sends */

/* srv6d's routing protocol number: the FRA_PROTOCOL of every rule and the
 * rtm_protocol of every route srv6d installs, and what it goes by to know
 * them again (a sweep deletes what carries it and nothing else; the
 * route mirror leaves it out of `kernel-routes yes`).  `ip rule` and `ip
 * route` print it as "srv6d" with /etc/iproute2/rt_protos.d/srv6d.conf
 * (make install).  93 (0x5d, as in mark-base 0x5d6f0000): none of the
 * kernel's RTPROT_* (0-18, 42 babel, 84 ovn, 99 openr, 186-192), nor
 * iproute2's rt_protos, nor FRR's (11 zebra, 186-198), bird's (12),
 * keepalived's (18) or Calico's (80). */
#define RTPROT_SRV6D	93

/* One NETLINK_ROUTE socket, its sequence numbers and receive buffer. */
struct rtnl {
	struct mnl_socket *sock;	/* NULL: closed */
	uint32_t portid;
	uint32_t seq;			/* the last one used */
	uint8_t buf[RTNL_BUF_SIZE] __attribute__((aligned(4)));
};

/* Open nl, bound to the multicast `groups` (RTMGRP_*, 0: none), with
 * extended acks.  Returns 0, or -1 with errno set (nl closed). */
int rtnl_open(struct rtnl *nl, unsigned groups);

/* Close nl (closed already is fine). */
void rtnl_close(struct rtnl *nl);

/* The file descriptor of an open nl, for poll() and socket options. */
int rtnl_fd(const struct rtnl *nl);

/* Start a message in buf (len bytes, zeroed here): NLM_F_REQUEST | flags,
 * seq, then a zeroed family header of hdrlen bytes (at
 * mnl_nlmsg_get_payload()).  Pure.  Returns the message. */
struct nlmsghdr *rtnl_msg_new(void *buf, size_t len, uint16_t type,
			      uint16_t flags, uint32_t seq, size_t hdrlen);

/* Send the request nlh (NLM_F_ACK set) and wait for its ack.  Returns 0,
 * or the (positive) errno the kernel or the socket answered, with a
 * readable reason (the kernel's extended ack message when it has one) in
 * why. */
int rtnl_request(struct rtnl *nl, const struct nlmsghdr *nlh, char *why,
		 size_t whylen);

/* rtnl_request() whose replies other than the ack (a RTM_GETLINK's
 * answer, an NLM_F_ECHO's copy) go to cb(message, data) first. */
int rtnl_request_cb(struct rtnl *nl, const struct nlmsghdr *nlh, mnl_cb_t cb,
		    void *data, char *why, size_t whylen);

/* Dump every object of `type` (RTM_GETLINK, RTM_GETADDR, RTM_GETROUTE,
 * RTM_GETRULE or RTM_GETNEXTHOP) of `family` (AF_UNSPEC: all), calling
 * cb(message, data) on
 * each until the dump ends or cb returns MNL_CB_STOP.  Returns 0, or -1
 * with errno set (a callback's MNL_CB_ERROR too). */
int rtnl_dump(struct rtnl *nl, uint16_t type, uint8_t family, mnl_cb_t cb,
	      void *data);

/* The attributes of nlh after its family header of hdrlen bytes into tb:
 * tb[type] for each type <= max (tb has max + 1 entries, zeroed by the
 * caller; the last of a type wins).  Returns mnl_attr_parse()'s result
 * (MNL_CB_ERROR on a malformed message). */
int rtnl_attrs(const struct nlmsghdr *nlh, size_t hdrlen,
	       const struct nlattr **tb, unsigned max);

/* The same for the attributes nested in `nest`. */
int rtnl_attrs_nested(const struct nlattr *nest, const struct nlattr **tb,
		      unsigned max);

/* The u32 in attribute a, or dflt when a is NULL or not a u32. */
uint32_t rtnl_attr_u32(const struct nlattr *a, uint32_t dflt);

/* The NUL-terminated string in attribute a, or NULL when a is NULL or not
 * one. */
const char *rtnl_attr_str(const struct nlattr *a);

#endif
