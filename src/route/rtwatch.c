/* rtwatch.c - see rtwatch.h. */
#include <errno.h>
#include <net/if.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <linux/fib_rules.h>
#include <linux/if_link.h>
#include <linux/lwtunnel.h>
#include <linux/rtnetlink.h>

#include "rtnl.h"
#include "rtrules.h"
#include "rtwatch.h"

struct rtwatch {
	struct rtnl nl;
	char rx[IF_NAMESIZE], tx[IF_NAMESIZE];	/* the reinjection pair */
};

static const char *const kind_names[RTWATCH_NKINDS] = {
	[RTWATCH_RULE] = "rule",
	[RTWATCH_ROUTE] = "route",
	[RTWATCH_KENCAP] = "kernel-encap route",
	[RTWATCH_KEND] = "kernel-end route",
	[RTWATCH_LINK] = "device",
};

const char *rtwatch_kind_name(enum rtwatch_kind k)
{
	return k < RTWATCH_NKINDS ? kind_names[k] : "?";
}

static unsigned rule_event(const struct nlmsghdr *nlh)
{
	const struct nlattr *tb[FRA_MAX + 1] = { NULL };

	if (rtnl_attrs(nlh, sizeof(struct fib_rule_hdr), tb, FRA_MAX) < 0)
		return 0;
	if (!tb[FRA_PROTOCOL] ||
	    mnl_attr_get_u8(tb[FRA_PROTOCOL]) != RTPROT_SRV6D)
		return RTWATCH_OTHER_RULE;	/* the operator's */
	return nlh->nlmsg_type == RTM_DELRULE ? 1u << RTWATCH_RULE : 0;
}

static unsigned route_event(const struct nlmsghdr *nlh)
{
	const struct nlattr *tb[RTA_MAX + 1] = { NULL };
	const struct rtmsg *rtm = mnl_nlmsg_get_payload(nlh);

	if (nlh->nlmsg_type != RTM_DELROUTE ||
	    nlh->nlmsg_len < NLMSG_LENGTH(sizeof(*rtm)) ||
	    rtm->rtm_protocol != RTPROT_SRV6D ||
	    rtnl_attrs(nlh, sizeof(*rtm), tb, RTA_MAX) < 0)
		return 0;
	if (tb[RTA_ENCAP_TYPE] &&
	    mnl_attr_get_u16(tb[RTA_ENCAP_TYPE]) == LWTUNNEL_ENCAP_SEG6)
		return 1u << RTWATCH_KENCAP;
	if (tb[RTA_ENCAP_TYPE] &&
	    mnl_attr_get_u16(tb[RTA_ENCAP_TYPE]) == LWTUNNEL_ENCAP_SEG6_LOCAL)
		return 1u << RTWATCH_KEND;
	return 1u << RTWATCH_ROUTE;
}

/* srv6d's device: the reinjection pair's names or srv6d's alias. */
static unsigned link_event(const struct nlmsghdr *nlh, const char *rx,
			   const char *tx)
{
	const struct nlattr *tb[IFLA_MAX + 1] = { NULL };
	const struct ifinfomsg *ifi = mnl_nlmsg_get_payload(nlh);
	const char *name, *alias;

	if (nlh->nlmsg_len < NLMSG_LENGTH(sizeof(*ifi)) ||
	    rtnl_attrs(nlh, sizeof(*ifi), tb, IFLA_MAX) < 0)
		return 0;
	name = rtnl_attr_str(tb[IFLA_IFNAME]);
	alias = rtnl_attr_str(tb[IFLA_IFALIAS]);
	if (!(name && (!strcmp(name, rx) || !strcmp(name, tx))) &&
	    !(alias && !strcmp(alias, RTRULES_LINK_ALIAS)))
		return 0;
	if (nlh->nlmsg_type == RTM_DELLINK ||
	    (nlh->nlmsg_type == RTM_NEWLINK && !(ifi->ifi_flags & IFF_UP)))
		return 1u << RTWATCH_LINK;
	return 0;
}

static unsigned watch_event(const struct nlmsghdr *nlh, const char *rx,
			    const char *tx)
{
	switch (nlh->nlmsg_type) {
	case RTM_NEWRULE:
	case RTM_DELRULE:
		return rule_event(nlh);
	case RTM_DELROUTE:
		return route_event(nlh);
	case RTM_NEWLINK:
	case RTM_DELLINK:
		return link_event(nlh, rx, tx);
	default:
		return 0;
	}
}

unsigned rtwatch_event(const struct nlmsghdr *nlh, const char *tun_name)
{
	char rx[IF_NAMESIZE], tx[IF_NAMESIZE];

	rtrules_reinject_dev_names(tun_name, rx, tx);
	return watch_event(nlh, rx, tx);
}

struct rtwatch *rtwatch_open(const char *tun_name)
{
	struct rtwatch *w = calloc(1, sizeof(*w));

	if (!w)
		return NULL;
	if (rtnl_open(&w->nl, RTMGRP_LINK | RTMGRP_IPV4_ROUTE |
		      RTMGRP_IPV6_ROUTE | RTMGRP_IPV4_RULE |
		      1u << (RTNLGRP_IPV6_RULE - 1)) < 0) {
		free(w);
		return NULL;
	}
	rtrules_reinject_dev_names(tun_name, w->rx, w->tx);
	return w;
}

void rtwatch_close(struct rtwatch *w)
{
	if (!w)
		return;
	rtnl_close(&w->nl);
	free(w);
}

int rtwatch_fd(const struct rtwatch *w)
{
	return w ? rtnl_fd(&w->nl) : -1;
}

unsigned rtwatch_read(struct rtwatch *w)
{
	unsigned kinds = 0;
	ssize_t n;

	while ((n = recv(rtnl_fd(&w->nl), w->nl.buf, sizeof(w->nl.buf),
			 MSG_DONTWAIT)) != 0) {
		const struct nlmsghdr *nlh = (const void *)w->nl.buf;
		int len = (int)n;

		if (n < 0) {
			if (errno == ENOBUFS)
				kinds |= RTWATCH_OVERRUN;
			if (errno == EINTR || errno == ENOBUFS)
				continue;
			break;
		}
		for (; mnl_nlmsg_ok(nlh, len); nlh = mnl_nlmsg_next(nlh, &len))
			kinds |= watch_event(nlh, w->rx, w->tx);
	}
	return kinds;
}
