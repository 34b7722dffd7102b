/* nfq72.c - make this Linux 6.18 machine judge NFQUEUE verdicts as Linux
 * 7.2 does (tests only; LD_PRELOAD into srv6d, see srv6d-k72.in).
 *
 * What it stands for: 7.2's nfqnl_mangle() validates every verdict
 * payload against the packet it queued and turns a refused one into
 * NF_DROP, silently (rules.h).  6.18 accepts any payload.  This shim sits
 * between srv6d and its NFQUEUE sockets:
 *   - recvmmsg()/recvmsg(): for every packet message received, it keeps
 *     the packet's IP header and extension header chain, by (queue, id);
 *   - sendmsg(): for every verdict carrying a payload, it judges the
 *     payload against what it kept and, when 7.2 would refuse it, rewrites
 *     the verdict to NF_DROP before the real kernel sees it.
 * So srv6d's packets meet 7.2's rule on the real 6.18 data path, and a
 * payload 7.2 refuses is lost here as it would be there: no error, no
 * counter in the kernel.  The shim's own count is printed to stderr (the
 * daemon's log) at exit and, with NFQ72_STATS=FILE, written to FILE after
 * every verdict message that had a payload.
 *
 * uname(): the release is made 7.2's (NFQ72_RELEASE, default
 * "7.2.0-k72"), so that srv6d's `reinject auto` decides as it would on
 * 7.2 (src/io/reinject.h).
 *
 * NFQ72_USERNS=1: 7.1's refusal of any payload from a network namespace
 * outside the initial user namespace (968cc2c96390) too: every verdict
 * with a payload becomes NF_DROP, and fopen() of /proc/self/uid_map
 * reads a map that is not the identity (0 100000 65536), so that
 * srv6d's auto decides as it would there (the tests run in the initial
 * user namespace).
 * Test code: it may allocate and lock; srv6d's packet path does neither.
 */
#define _GNU_SOURCE
#include <netinet/in.h>	/* before linux/netfilter.h */
#include <arpa/inet.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/nfnetlink_queue.h>
#include <linux/netlink.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "rules.h"

#define KEEP_BYTES	2600	/* an IPv6 header and an SRH of 128 SIDs */
#define KEEP_SLOTS	8192	/* packets in flight at once, per process */
#define LOG_REFUSALS	20	/* refusals told one by one, then counted */

struct kept {
	int used;
	uint16_t queue;
	uint16_t hw_proto;
	uint32_t id;
	uint32_t len;
	uint8_t bytes[KEEP_BYTES];
};

static struct kept kept[KEEP_SLOTS];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned long judged, unknown, refused_total, refused[K72_FRAG + 1];
static unsigned long refused_userns;

/* NFQ72_USERNS=1: emulate a netns outside the initial user namespace. */
static int userns_mode(void)
{
	const char *v = getenv("NFQ72_USERNS");

	return v && !strcmp(v, "1");
}

static ssize_t (*real_sendmsg)(int, const struct msghdr *, int);
static ssize_t (*real_recvmsg)(int, struct msghdr *, int);
static int (*real_recvmmsg)(int, struct mmsghdr *, unsigned int, int,
			    struct timespec *);

static void resolve(void)
{
	if (!real_sendmsg)
		real_sendmsg = dlsym(RTLD_NEXT, "sendmsg");
	if (!real_recvmsg)
		real_recvmsg = dlsym(RTLD_NEXT, "recvmsg");
	if (!real_recvmmsg)
		real_recvmmsg = dlsym(RTLD_NEXT, "recvmmsg");
}

static int is_nfqueue_socket(int fd)
{
	int v = 0;
	socklen_t l = sizeof(v);

	if (getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &v, &l) < 0 || v != AF_NETLINK)
		return 0;
	l = sizeof(v);
	return getsockopt(fd, SOL_SOCKET, SO_PROTOCOL, &v, &l) == 0 &&
	       v == NETLINK_NETFILTER;
}

static struct kept *slot(uint16_t queue, uint32_t id)
{
	return &kept[(id * 31u + queue) % KEEP_SLOTS];
}

/* The attribute `type` of the nfqueue message nlh, or NULL. */
static const struct nlattr *nfq_attr(const struct nlmsghdr *nlh, int type)
{
	const uint8_t *end = (const uint8_t *)nlh + nlh->nlmsg_len;
	const uint8_t *a = (const uint8_t *)NLMSG_DATA(nlh) +
			   NLMSG_ALIGN(sizeof(struct nfgenmsg));

	while (a + NLA_HDRLEN <= end) {
		const struct nlattr *na = (const void *)a;

		if (na->nla_len < NLA_HDRLEN || a + na->nla_len > end)
			return NULL;
		if ((na->nla_type & NLA_TYPE_MASK) == type)
			return na;
		a += NLA_ALIGN(na->nla_len);
	}
	return NULL;
}

static uint16_t nfq_queue(const struct nlmsghdr *nlh)
{
	const struct nfgenmsg *g = NLMSG_DATA(nlh);

	return ntohs(g->res_id);
}

static int nfq_type(const struct nlmsghdr *nlh)
{
	if (nlh->nlmsg_type >> 8 != NFNL_SUBSYS_QUEUE)
		return -1;
	return nlh->nlmsg_type & 0xff;
}

/* A packet message: keep its headers. */
static void keep_packet(const struct nlmsghdr *nlh)
{
	const struct nlattr *ph = nfq_attr(nlh, NFQA_PACKET_HDR);
	const struct nlattr *pl = nfq_attr(nlh, NFQA_PAYLOAD);
	const struct nfqnl_msg_packet_hdr *h;
	struct kept *k;
	size_t len;

	if (!ph || !pl || ph->nla_len < NLA_HDRLEN + sizeof(*h))
		return;
	h = (const void *)((const uint8_t *)ph + NLA_HDRLEN);
	len = pl->nla_len - NLA_HDRLEN;
	if (len > KEEP_BYTES)
		len = KEEP_BYTES;
	pthread_mutex_lock(&lock);
	k = slot(nfq_queue(nlh), ntohl(h->packet_id));
	k->used = 1;
	k->queue = nfq_queue(nlh);
	k->id = ntohl(h->packet_id);
	k->hw_proto = ntohs(h->hw_protocol);
	k->len = (uint32_t)len;
	memcpy(k->bytes, (const uint8_t *)pl + NLA_HDRLEN, len);
	pthread_mutex_unlock(&lock);
}

static void keep_buffer(const uint8_t *buf, size_t len)
{
	const struct nlmsghdr *nlh = (const void *)buf;
	int n = (int)len;

	for (; NLMSG_OK(nlh, n); nlh = NLMSG_NEXT(nlh, n))
		if (nfq_type(nlh) == NFQNL_MSG_PACKET)
			keep_packet(nlh);
}

/* The received bytes of mh (n of them) as one buffer: the first iovec
 * when it holds them all (srv6d's case), else a copy in *tmp. */
static const uint8_t *flat(const struct msghdr *mh, size_t n, uint8_t **tmp)
{
	size_t off = 0;

	*tmp = NULL;
	if (mh->msg_iovlen == 0)
		return NULL;
	if (mh->msg_iov[0].iov_len >= n)
		return mh->msg_iov[0].iov_base;
	*tmp = malloc(n);
	if (!*tmp)
		return NULL;
	for (size_t i = 0; i < mh->msg_iovlen && off < n; i++) {
		size_t c = mh->msg_iov[i].iov_len;

		if (c > n - off)
			c = n - off;
		memcpy(*tmp + off, mh->msg_iov[i].iov_base, c);
		off += c;
	}
	return *tmp;
}

static void keep_received(const struct msghdr *mh, size_t n)
{
	uint8_t *tmp;
	const uint8_t *b = flat(mh, n, &tmp);

	if (b)
		keep_buffer(b, n);
	free(tmp);
}

static void stats_write(void)
{
	const char *path = getenv("NFQ72_STATS");
	char buf[512];
	int fd, len;

	if (!path)
		return;
	len = snprintf(buf, sizeof(buf),
		       "judged %lu\nunknown %lu\nrefused %lu\n"
		       "first_nh %lu\next_changed %lu\nlength %lu\n"
		       "family %lu\nihl_options %lu\nfrag %lu\nuserns %lu\n",
		       judged, unknown, refused_total,
		       refused[K72_FIRST_NH], refused[K72_EXT_CHANGED],
		       refused[K72_BAD_LENGTH], refused[K72_BAD_FAMILY],
		       refused[K72_IHL_OPTIONS], refused[K72_FRAG], refused_userns);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	if (write(fd, buf, (size_t)len) < 0)
		(void)0;
	close(fd);
}

/* A verdict message with a payload: judge it; rewrite a refused one to
 * NF_DROP in place (buf is the shim's own copy).  Returns 1 when judged. */
static int judge_verdict(struct nlmsghdr *nlh)
{
	struct nlattr *vh = (struct nlattr *)nfq_attr(nlh, NFQA_VERDICT_HDR);
	const struct nlattr *pl = nfq_attr(nlh, NFQA_PAYLOAD);
	struct nfqnl_msg_verdict_hdr *v;
	enum k72_verdict r;
	struct kept *k;
	uint32_t id;

	if (!vh || !pl || vh->nla_len < NLA_HDRLEN + sizeof(*v))
		return 0;
	v = (void *)((uint8_t *)vh + NLA_HDRLEN);
	id = ntohl(v->id);
	pthread_mutex_lock(&lock);
	k = slot(nfq_queue(nlh), id);
	if (!k->used || k->id != id || k->queue != nfq_queue(nlh)) {
		unknown++;
		pthread_mutex_unlock(&lock);
		return 1;
	}
	r = k72_payload_judge(k->hw_proto, k->bytes, k->len,
			      (const uint8_t *)pl + NLA_HDRLEN,
			      pl->nla_len - NLA_HDRLEN);
	k->used = 0;
	judged++;
	if (userns_mode()) {
		/* 7.1: -EPERM for any payload, whatever it is. */
		refused_userns++;
		refused_total++;
		v->verdict = htonl(NF_DROP);
	} else if (r != K72_OK) {
		refused[r]++;
		v->verdict = htonl(NF_DROP);
		if (++refused_total <= LOG_REFUSALS)
			fprintf(stderr, "kernel72: payload of packet %u (queue "
				"%u) refused (%s): NF_DROP, as Linux 7.2\n",
				id, k->queue, k72_verdict_name(r));
	}
	pthread_mutex_unlock(&lock);
	return 1;
}

ssize_t sendmsg(int fd, const struct msghdr *mh, int flags)
{
	struct msghdr copy;
	struct iovec iov;
	size_t total = 0, off = 0;
	uint8_t *buf;
	int n, any = 0;
	ssize_t ret;

	resolve();
	if (!is_nfqueue_socket(fd))
		return real_sendmsg(fd, mh, flags);
	for (size_t i = 0; i < mh->msg_iovlen; i++)
		total += mh->msg_iov[i].iov_len;
	buf = malloc(total ? total : 1);
	if (!buf)
		return real_sendmsg(fd, mh, flags);
	for (size_t i = 0; i < mh->msg_iovlen; i++) {
		memcpy(buf + off, mh->msg_iov[i].iov_base, mh->msg_iov[i].iov_len);
		off += mh->msg_iov[i].iov_len;
	}
	n = (int)total;
	for (struct nlmsghdr *nlh = (void *)buf; NLMSG_OK(nlh, n);
	     nlh = NLMSG_NEXT(nlh, n))
		if (nfq_type(nlh) == NFQNL_MSG_VERDICT)
			any |= judge_verdict(nlh);
	if (any) {
		pthread_mutex_lock(&lock);
		stats_write();
		pthread_mutex_unlock(&lock);
	}
	copy = *mh;
	iov.iov_base = buf;
	iov.iov_len = total;
	copy.msg_iov = &iov;
	copy.msg_iovlen = 1;
	ret = real_sendmsg(fd, &copy, flags);
	free(buf);
	return ret;
}

ssize_t recvmsg(int fd, struct msghdr *mh, int flags)
{
	ssize_t n;

	resolve();
	n = real_recvmsg(fd, mh, flags);
	if (n > 0 && is_nfqueue_socket(fd))
		keep_received(mh, (size_t)n);
	return n;
}

int recvmmsg(int fd, struct mmsghdr *v, unsigned int vlen, int flags,
	     struct timespec *tmo)
{
	int n;

	resolve();
	n = real_recvmmsg(fd, v, vlen, flags, tmo);
	if (n > 0 && is_nfqueue_socket(fd))
		for (int i = 0; i < n; i++)
			keep_received(&v[i].msg_hdr, v[i].msg_len);
	return n;
}

FILE *fopen(const char *path, const char *mode)
{
	static FILE *(*real_fopen)(const char *, const char *);
	static char map[] = "         0     100000      65536\n";

	if (!real_fopen)
		real_fopen = dlsym(RTLD_NEXT, "fopen");
	if (userns_mode() && !strcmp(path, "/proc/self/uid_map"))
		return fmemopen(map, strlen(map), "r");
	return real_fopen(path, mode);
}

int uname(struct utsname *u)
{
	static int (*real_uname)(struct utsname *);
	const char *rel = getenv("NFQ72_RELEASE");

	if (!real_uname)
		real_uname = dlsym(RTLD_NEXT, "uname");
	if (real_uname(u) < 0)
		return -1;
	snprintf(u->release, sizeof(u->release), "%s",
		 rel && *rel ? rel : "7.2.0-k72");
	return 0;
}

__attribute__((destructor)) static void nfq72_report(void)
{
	if (judged || unknown)
		fprintf(stderr, "kernel72: %lu payload verdicts judged by Linux "
			"7.2's rule, %lu refused (first_nh %lu, ext_changed "
			"%lu, length %lu), %lu not judged (packet unknown)\n",
			judged, refused_total, refused[K72_FIRST_NH],
			refused[K72_EXT_CHANGED], refused[K72_BAD_LENGTH],
			unknown);
	stats_write();
}
