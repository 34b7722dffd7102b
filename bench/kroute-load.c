/* kroute-load.c - load a prefix list into the kernel as seg6 encap routes
 * over rtnetlink, the way a routing daemon writes them, and say what the
 * kernel refused: bench/kroutes-scale.sh's loader.
 *
 *   kroute-load LIST DEV [MAX] [RETRY_MS] [4|6]
 *
 * Prefix i of LIST (../shared/data/bgp-prefixes.txt.gz; of one family
 * only with 4 or 6) becomes `ip route add P encap seg6 mode encap segs
 * fc00:ffff::a|b dev DEV table 101 + i % 2` (tenant A's SID in table
 * 101, B's in 102); with MAX (0: all), MAX of them, spread over the list
 * (its mix of families and lengths).  The kernel's seg6 build_state
 * allocates its per-route dst_cache per CPU with GFP_ATOMIC
 * (net/ipv6/seg6_iptunnel.c), and an atomic per-CPU allocation fails
 * (ENOMEM) rather than create a chunk when the populated ones are full
 * (mm/percpu.c pcpu_alloc()), until the allocator's balance work has
 * added one: a route refused with ENOMEM is retried after RETRY_MS ms
 * (default 1; 0: no retry, stop at the first refusal).  Prints one line:
 * routes loaded (a prefix the list has twice is counted once), ENOMEM
 * retries, seconds, and the first error that stopped it, if one did.  Run
 * it in the namespace to load
 * (ip netns exec NS kroute-load ...). */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <libmnl/libmnl.h>
#include <linux/lwtunnel.h>
#include <linux/rtnetlink.h>
#include <linux/seg6.h>
#include <linux/seg6_iptunnel.h>
#include <netinet/in.h>

#include "benchutil.h"

/* struct seg6_iptunnel_encap with an SRH of one segment. */
struct encap1 {
	int mode;
	struct ipv6_sr_hdr srh;
	struct in6_addr seg;
};

/* The RTM_NEWROUTE of prefix p into buf; returns its header. */
static struct nlmsghdr *route_msg(char *buf, const struct pfx *p,
				  unsigned ifindex, uint32_t table,
				  uint32_t seq)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct encap1 e = { .mode = SEG6_IPTUN_MODE_ENCAP };
	struct rtmsg *rtm;
	struct nlattr *nest;

	nlh->nlmsg_type = RTM_NEWROUTE;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | NLM_F_CREATE |
			   NLM_F_EXCL;
	nlh->nlmsg_seq = seq;
	rtm = mnl_nlmsg_put_extra_header(nlh, sizeof(*rtm));
	rtm->rtm_family = p->family;
	rtm->rtm_dst_len = p->plen;
	rtm->rtm_table = RT_TABLE_UNSPEC;
	rtm->rtm_protocol = RTPROT_STATIC;
	rtm->rtm_scope = p->family == AF_INET ? RT_SCOPE_LINK
					      : RT_SCOPE_UNIVERSE;
	rtm->rtm_type = RTN_UNICAST;
	mnl_attr_put_u32(nlh, RTA_TABLE, table);
	mnl_attr_put(nlh, RTA_DST, p->family == AF_INET ? 4 : 16, p->dst);
	mnl_attr_put_u32(nlh, RTA_OIF, ifindex);
	e.srh.hdrlen = 2;		/* one segment: 16 bytes, in 8s */
	e.srh.type = 4;			/* the SRH (RFC 8754) */
	e.srh.segments_left = 0;
	e.srh.first_segment = 0;
	e.seg.s6_addr[0] = 0xfc;
	e.seg.s6_addr[2] = 0xff;
	e.seg.s6_addr[3] = 0xff;
	e.seg.s6_addr[15] = table == 101 ? 0xa : 0xb;
	mnl_attr_put_u16(nlh, RTA_ENCAP_TYPE, LWTUNNEL_ENCAP_SEG6);
	nest = mnl_attr_nest_start(nlh, RTA_ENCAP);
	mnl_attr_put(nlh, SEG6_IPTUNNEL_SRH, sizeof(e), &e);
	mnl_attr_nest_end(nlh, nest);
	return nlh;
}

/* Send nlh, read its ack: 0 or the kernel's -errno. */
static int route_send(struct mnl_socket *nl, struct nlmsghdr *nlh)
{
	char buf[8192];
	ssize_t n;

	if (mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) < 0)
		return -errno;
	n = mnl_socket_recvfrom(nl, buf, sizeof(buf));
	if (n < 0)
		return -errno;
	if (mnl_cb_run(buf, (size_t)n, nlh->nlmsg_seq,
		       mnl_socket_get_portid(nl), NULL, NULL) < 0)
		return -errno;
	return 0;
}

int main(int argc, char **argv)
{
	char buf[512];
	struct timespec pause;
	struct mnl_socket *nl;
	unsigned long retries = 0, dups = 0, retry_ms = 1;
	size_t n, max = 0, i;
	struct pfx *pf;
	unsigned ifindex;
	int family = 0;
	double t0;
	int rc = 0;

	if (argc < 3) {
		fprintf(stderr, "usage: %s LIST DEV [MAX] [RETRY_MS] [4|6]\n",
			argv[0]);
		return 2;
	}
	if (argc > 3)
		max = strtoul(argv[3], NULL, 10);
	if (argc > 4)
		retry_ms = strtoul(argv[4], NULL, 10);
	if (argc > 5)
		family = atoi(argv[5]) == 4 ? AF_INET : AF_INET6;
	pause.tv_sec = (time_t)(retry_ms / 1000);
	pause.tv_nsec = (long)(retry_ms % 1000) * 1000000;
	ifindex = if_nametoindex(argv[2]);
	pf = bench_load_prefixes(argv[1], &n);
	if (!ifindex || !pf) {
		fprintf(stderr, "%s: no such device or no prefixes\n", argv[0]);
		return 1;
	}
	if (family) {
		size_t k = 0;

		for (i = 0; i < n; i++)
			if (pf[i].family == family)
				pf[k++] = pf[i];
		n = k;
	}
	if (max && max < n) {	/* every (n / max)th: the list's mix */
		for (i = 0; i < max; i++)
			pf[i] = pf[i * n / max];
		n = max;
	}
	nl = mnl_socket_open(NETLINK_ROUTE);
	if (!nl || mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		perror("netlink");
		return 1;
	}
	t0 = bench_now_s();
	for (i = 0; i < n; i++) {
		struct nlmsghdr *nlh = route_msg(buf, &pf[i], ifindex,
						 101 + (uint32_t)(i % 2),
						 (uint32_t)i + 1);

		rc = route_send(nl, nlh);
		while (rc == -ENOMEM && retry_ms) {
			retries++;
			nanosleep(&pause, NULL);
			rc = route_send(nl, nlh);
		}
		if (rc == -EEXIST) {	/* the list has it twice */
			dups++;
			rc = 0;
		}
		if (rc < 0)
			break;
	}
	printf("loaded %zu routes (%lu duplicates), %lu ENOMEM retries, "
	       "%.2f s%s%s\n", i - dups, dups, retries, bench_now_s() - t0,
	       rc < 0 ? ", stopped: " : "", rc < 0 ? strerror(-rc) : "");
	mnl_socket_close(nl);
	free(pf);
	return rc < 0;
}
