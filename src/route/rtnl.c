/* rtnl.c - one rtnetlink socket over libmnl (see rtnl.h). */
#include <errno.h>
#include <linux/fib_rules.h>
#include <linux/netlink.h>
#include <linux/nexthop.h>
#include <linux/rtnetlink.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "rtnl.h"

#define RTNL_DUMP_REQ_SIZE	64	/* a dump request: header + family */

int rtnl_open(struct rtnl *nl, unsigned groups)
{
	int one = 1, e;

	nl->sock = mnl_socket_open(NETLINK_ROUTE);
	if (!nl->sock)
		return -1;
	if (mnl_socket_bind(nl->sock, groups, MNL_SOCKET_AUTOPID) < 0) {
		e = errno;
		rtnl_close(nl);
		errno = e;
		return -1;
	}
	/* Short acks with the kernel's own explanation, when it has one. */
	mnl_socket_setsockopt(nl->sock, NETLINK_CAP_ACK, &one, sizeof(one));
	mnl_socket_setsockopt(nl->sock, NETLINK_EXT_ACK, &one, sizeof(one));
	nl->portid = mnl_socket_get_portid(nl->sock);
	nl->seq = (uint32_t)time(NULL);
	return 0;
}

void rtnl_close(struct rtnl *nl)
{
	if (nl->sock)
		mnl_socket_close(nl->sock);
	nl->sock = NULL;
}

int rtnl_fd(const struct rtnl *nl)
{
	return mnl_socket_get_fd(nl->sock);
}

struct nlmsghdr *rtnl_msg_new(void *buf, size_t len, uint16_t type,
			      uint16_t flags, uint32_t seq, size_t hdrlen)
{
	struct nlmsghdr *nlh;

	memset(buf, 0, len);
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | flags;
	nlh->nlmsg_seq = seq;
	mnl_nlmsg_put_extra_header(nlh, hdrlen);
	return nlh;
}

static int extack_attr_cb(const struct nlattr *attr, void *data)
{
	const char **msg = data;

	if (mnl_attr_get_type(attr) == NLMSGERR_ATTR_MSG &&
	    mnl_attr_validate(attr, MNL_TYPE_NUL_STRING) == 0)
		*msg = mnl_attr_get_str(attr);
	return MNL_CB_OK;
}

/* Parse an NLMSG_ERROR: returns its (positive) errno, 0 for an ack; the
 * kernel's extended ack message, if any, goes to why. */
static int rtnl_ack_parse(const struct nlmsghdr *nlh, char *why,
			  size_t whylen)
{
	const struct nlmsgerr *e = mnl_nlmsg_get_payload(nlh);
	const char *msg = NULL;
	size_t off = sizeof(*e);

	if (nlh->nlmsg_len < mnl_nlmsg_size(sizeof(*e)))
		return EBADMSG;
	if (e->error && (nlh->nlmsg_flags & NLM_F_ACK_TLVS)) {
		if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
			off += e->msg.nlmsg_len - sizeof(struct nlmsghdr);
		if (mnl_nlmsg_size(off) <= nlh->nlmsg_len)
			mnl_attr_parse(nlh, off, extack_attr_cb, &msg);
	}
	if (msg)
		snprintf(why, whylen, "%s (%s)", strerror(-e->error), msg);
	else if (e->error)
		snprintf(why, whylen, "%s", strerror(-e->error));
	return -e->error;
}

int rtnl_request(struct rtnl *nl, const struct nlmsghdr *nlh, char *why,
		 size_t whylen)
{
	return rtnl_request_cb(nl, nlh, NULL, NULL, why, whylen);
}

int rtnl_request_cb(struct rtnl *nl, const struct nlmsghdr *nlh, mnl_cb_t cb,
		    void *data, char *why, size_t whylen)
{
	uint32_t seq = nlh->nlmsg_seq;

	snprintf(why, whylen, "no answer from the kernel");
	if (mnl_socket_sendto(nl->sock, nlh, nlh->nlmsg_len) < 0) {
		snprintf(why, whylen, "%s", strerror(errno));
		return errno;
	}
	for (;;) {
		ssize_t n = mnl_socket_recvfrom(nl->sock, nl->buf,
						sizeof(nl->buf));
		const struct nlmsghdr *r = (const void *)nl->buf;
		int len = (int)n;

		if (n < 0) {
			snprintf(why, whylen, "%s", strerror(errno));
			return errno;
		}
		for (; mnl_nlmsg_ok(r, len); r = mnl_nlmsg_next(r, &len)) {
			if (r->nlmsg_seq != seq)
				continue;
			if (r->nlmsg_type == NLMSG_ERROR)
				return rtnl_ack_parse(r, why, whylen);
			if (cb)
				cb(r, data);
		}
	}
}

/* The family header of a dump request of `type`. */
static size_t rtnl_family_hdrlen(uint16_t type)
{
	switch (type) {
	case RTM_GETLINK:
		return sizeof(struct ifinfomsg);
	case RTM_GETADDR:
		return sizeof(struct ifaddrmsg);
	case RTM_GETRULE:
		return sizeof(struct fib_rule_hdr);
	case RTM_GETNEXTHOP:
		return sizeof(struct nhmsg);
	default:
		return sizeof(struct rtmsg);
	}
}

int rtnl_dump(struct rtnl *nl, uint16_t type, uint8_t family, mnl_cb_t cb,
	      void *data)
{
	uint32_t req[RTNL_DUMP_REQ_SIZE / 4];
	struct nlmsghdr *nlh;
	uint8_t *fam;
	int ret;

	nlh = rtnl_msg_new(req, sizeof(req), type, NLM_F_DUMP, ++nl->seq,
			   rtnl_family_hdrlen(type));
	/* ifinfomsg, ifaddrmsg, rtmsg, fib_rule_hdr and nhmsg all start
	 * with their family. */
	fam = mnl_nlmsg_get_payload(nlh);
	*fam = family;
	if (mnl_socket_sendto(nl->sock, nlh, nlh->nlmsg_len) < 0)
		return -1;
	do {
		ssize_t n = mnl_socket_recvfrom(nl->sock, nl->buf,
						sizeof(nl->buf));

		if (n <= 0) {
			if (n == 0)
				errno = EIO;
			return -1;
		}
		ret = mnl_cb_run(nl->buf, (size_t)n, nlh->nlmsg_seq,
				 nl->portid, cb, data);
	} while (ret > MNL_CB_STOP);
	return ret < 0 ? -1 : 0;
}

/* An attribute table being filled: tb[0..max]. */
struct rtnl_table {
	const struct nlattr **tb;
	unsigned max;
};

static int rtnl_attr_cb(const struct nlattr *attr, void *data)
{
	const struct rtnl_table *t = data;
	unsigned type = mnl_attr_get_type(attr);

	if (type <= t->max)
		t->tb[type] = attr;
	return MNL_CB_OK;
}

int rtnl_attrs(const struct nlmsghdr *nlh, size_t hdrlen,
	       const struct nlattr **tb, unsigned max)
{
	struct rtnl_table t = { .tb = tb, .max = max };

	return mnl_attr_parse(nlh, (unsigned)hdrlen, rtnl_attr_cb, &t);
}

int rtnl_attrs_nested(const struct nlattr *nest, const struct nlattr **tb,
		      unsigned max)
{
	struct rtnl_table t = { .tb = tb, .max = max };

	return mnl_attr_parse_nested(nest, rtnl_attr_cb, &t);
}

uint32_t rtnl_attr_u32(const struct nlattr *a, uint32_t dflt)
{
	return a && mnl_attr_validate(a, MNL_TYPE_U32) == 0 ?
	       mnl_attr_get_u32(a) : dflt;
}

const char *rtnl_attr_str(const struct nlattr *a)
{
	return a && mnl_attr_validate(a, MNL_TYPE_NUL_STRING) == 0 ?
	       mnl_attr_get_str(a) : NULL;
}
