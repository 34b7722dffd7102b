/* config.c - the srv6d.conf grammar (man 5 srv6d.conf) into a validated,
 * read-only struct config.
 *
 * One directive a line, `#` comments, blank-separated words; keywords follow
 * iproute2's seg6 / seg6local syntax.  Every error is reported as
 * "file:line: message" and parsing goes on, so that an operator sees all of
 * them at once (OpenBGPD's habit); a config with any error is never
 * returned.  Once the lines are read, the lookup tables are built and the
 * checks that need the whole file (overlapping prefixes, required
 * directives, marks) run.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <fcntl.h>
#include <grp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "behavior_table.h"
#include "config.h"
#include "lpm.h"

#define MAX_WORDS	64	/* words on one line */
#define QUOTE_MAX	48	/* characters of a word quoted in a message */
#define NBUFS		8	/* message helpers' rotating buffers */
#define BUF_LEN		(QUOTE_MAX * 4 + 8)

struct parser {
	const char *name;
	config_error_fn err;
	config_error_fn warn;
	void *arg;
	unsigned line;
	unsigned errors;
	/* `offload` and the deprecated `gso`: their lines (0: absent) and
	 * values, for check_offload(). */
	unsigned offload_line, gso_line;
	bool offload, gso;
	struct config *cfg;
	unsigned sids_cap, pols_cap, bsid_cap, hmac_cap;
	unsigned *seen;			/* per directive: line first seen */
	bool too_many_sids;		/* reported once */
	unsigned mark_base_line, mark_mask_line;	/* 0: absent */
	char bufs[NBUFS][BUF_LEN];	/* for quote() and fmt_*() */
	unsigned nbuf;
	/* The SR proxy part of the sid line being parsed, and the room
	 * of config->proxies. */
	struct proxy_conf proxy;
	bool has_proxy_segs;
	unsigned proxies_cap;
};

/* ---- messages ----------------------------------------------------------- */

static void report(struct parser *p, unsigned line, const char *msg)
{
	p->errors++;
	if (p->err) {
		p->err(p->arg, p->name, line, msg);
		return;
	}
	if (line)
		fprintf(stderr, "%s:%u: %s\n", p->name, line, msg);
	else
		fprintf(stderr, "%s: %s\n", p->name, msg);
}

static void __attribute__((format(printf, 3, 4)))
error_at(struct parser *p, unsigned line, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	report(p, line, msg);
}

#define error(p, ...)	error_at((p), (p)->line, __VA_ARGS__)

/* A warning on the current line: reported through p->warn (none when it
 * is NULL); the parse goes on and does not fail. */
static void __attribute__((format(printf, 2, 3)))
warning(struct parser *p, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	if (!p->warn)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	p->warn(p->arg, p->name, p->line, msg);
}

static char *next_buf(struct parser *p)
{
	return p->bufs[p->nbuf++ % NBUFS];
}

/* A word as it may appear in a message: at most QUOTE_MAX characters,
 * non-printable bytes as \xNN. */
static const char *quote(struct parser *p, const char *s)
{
	char *b = next_buf(p);
	size_t o = 0;
	unsigned n;

	for (n = 0; s[n] && n < QUOTE_MAX; n++) {
		unsigned char c = (unsigned char)s[n];

		if (c >= 0x20 && c < 0x7f)
			b[o++] = (char)c;
		else
			o += (size_t)snprintf(b + o, BUF_LEN - o, "\\x%02x", c);
	}
	if (s[n])
		o += (size_t)snprintf(b + o, BUF_LEN - o, "...");
	b[o] = '\0';
	return b;
}

static const char *fmt_prefix6(struct parser *p, const struct in6_addr *a,
			       unsigned plen)
{
	char *b = next_buf(p), s[INET6_ADDRSTRLEN];

	inet_ntop(AF_INET6, a, s, sizeof(s));
	snprintf(b, BUF_LEN, "%s/%u", s, plen);
	return b;
}

/* " table T" for a policy of another table than main, "" for main's. */
static const char *fmt_table(struct parser *p, const struct policy *pol)
{
	char *b;

	if (pol->table == CONFIG_TABLE_MAIN)
		return "";
	b = next_buf(p);
	snprintf(b, BUF_LEN, " table %" PRIu32, pol->table);
	return b;
}

static const char *fmt_policy(struct parser *p, const struct policy *pol)
{
	char *b, s[INET_ADDRSTRLEN];

	if (pol->family == AF_INET6)
		return fmt_prefix6(p, &pol->prefix.v6, pol->plen);
	b = next_buf(p);
	inet_ntop(AF_INET, &pol->prefix.v4, s, sizeof(s));
	snprintf(b, BUF_LEN, "%s/%u", s, pol->plen);
	return b;
}

/* ---- words -------------------------------------------------------------- */

/* Decimal, or hexadecimal after 0x; no sign, no blanks.  Values past
 * UINT64_MAX saturate (and are then out of any range). */
static int parse_uint(const char *s, uint64_t *out)
{
	unsigned base = 10;
	uint64_t v = 0;
	bool sat = false;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	}
	if (!*s)
		return -1;
	for (; *s; s++) {
		unsigned d;

		if (*s >= '0' && *s <= '9')
			d = (unsigned)(*s - '0');
		else if (base == 16 && *s >= 'a' && *s <= 'f')
			d = (unsigned)(*s - 'a' + 10);
		else if (base == 16 && *s >= 'A' && *s <= 'F')
			d = (unsigned)(*s - 'A' + 10);
		else
			return -1;
		if (v > (UINT64_MAX - d) / base)
			sat = true;
		else
			v = v * base + d;
	}
	*out = sat ? UINT64_MAX : v;
	return 0;
}

/* A number in [min, max], or -1 after reporting why not.  Messages start
 * with the directive `dir`, then the attribute `attr` if not NULL. */
static int get_number(struct parser *p, const char *dir, const char *attr,
		      const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	uint64_t v;

	if (parse_uint(s, &v) < 0) {
		if (attr)
			error(p, "%s: expected a number after '%s', found '%s'",
			      dir, attr, quote(p, s));
		else
			error(p, "%s: expected a number, found '%s'", dir,
			      quote(p, s));
		return -1;
	}
	if (v < min || v > max) {
		error(p, "%s: %s%s%s is out of range (%" PRIu64 "-%" PRIu64 ")",
		      dir, attr ? attr : "", attr ? " " : "", quote(p, s), min,
		      max);
		return -1;
	}
	*out = v;
	return 0;
}

static void mask6(struct in6_addr *a, unsigned plen)
{
	for (unsigned i = 0; i < 16; i++) {
		unsigned bits = plen > i * 8 ? plen - i * 8 : 0;

		if (bits < 8)
			a->s6_addr[i] &= (uint8_t)(0xff00u >> bits);
	}
}

struct prefix {
	int family;
	struct in6_addr a6;
	struct in_addr a4;
	unsigned plen;
};

/* ADDR[/LEN] (LEN defaults to the full length), IPv6 only unless allow_v4.
 * Host bits past LEN are an error: it names the prefix meant. */
static int get_prefix(struct parser *p, const char *what, const char *s,
		      bool allow_v4, struct prefix *pf)
{
	const char *slash = strchr(s, '/');
	const char *expect = allow_v4 ? "an IPv6 or IPv4 prefix" :
		"an IPv6 prefix";
	char addr[INET6_ADDRSTRLEN];
	size_t alen = slash ? (size_t)(slash - s) : strlen(s);
	unsigned maxlen;

	memset(pf, 0, sizeof(*pf));
	if (alen == 0 || alen >= sizeof(addr))
		goto bad;
	memcpy(addr, s, alen);
	addr[alen] = '\0';
	if (inet_pton(AF_INET6, addr, &pf->a6) == 1) {
		pf->family = AF_INET6;
		maxlen = 128;
	} else if (inet_pton(AF_INET, addr, &pf->a4) == 1) {
		if (!allow_v4) {
			error(p, "%s: expected an IPv6 prefix, found IPv4 '%s'",
			      what, quote(p, s));
			return -1;
		}
		pf->family = AF_INET;
		maxlen = 32;
	} else {
		goto bad;
	}
	pf->plen = maxlen;
	if (slash) {
		uint64_t v;

		/* Decimal only: no 0x, no leading zeros. */
		if (parse_uint(slash + 1, &v) < 0 ||
		    (slash[1] == '0' && slash[2])) {
			error(p, "%s: expected a prefix length after '/', found '%s'",
			      what, quote(p, slash + 1));
			return -1;
		}
		if (v > maxlen) {
			error(p, "%s: prefix length %s is out of range (0-%u)",
			      what, quote(p, slash + 1), maxlen);
			return -1;
		}
		pf->plen = (unsigned)v;
	}
	if (pf->family == AF_INET6) {
		struct in6_addr m = pf->a6;

		mask6(&m, pf->plen);
		if (memcmp(&m, &pf->a6, sizeof(m))) {
			error(p, "%s: %s has host bits set past /%u (did you mean %s?)",
			      what, quote(p, s), pf->plen,
			      fmt_prefix6(p, &m, pf->plen));
			return -1;
		}
	} else {
		uint32_t h = ntohl(pf->a4.s_addr);
		uint32_t m = pf->plen ? ~(uint32_t)0 << (32 - pf->plen) : 0;

		if (h & ~m) {
			struct policy tmp = { .family = AF_INET,
					      .plen = (uint8_t)pf->plen };

			tmp.prefix.v4.s_addr = htonl(h & m);
			error(p, "%s: %s has host bits set past /%u (did you mean %s?)",
			      what, quote(p, s), pf->plen, fmt_policy(p, &tmp));
			return -1;
		}
	}
	return 0;
bad:
	error(p, "%s: expected %s like %s, found '%s'", what, expect,
	      allow_v4 ? "fc00:9::/48 or 10.9.0.0/16" : "fc00:100::1/128",
	      quote(p, s));
	return -1;
}

/* A unicast IPv6 address (not ::, not multicast).  `name` (may be NULL)
 * and `where` (" after 'nh6'") place the word in messages. */
static int get_addr6(struct parser *p, const char *dir, const char *name,
		     const char *where, const char *s, struct in6_addr *a)
{
	if (inet_pton(AF_INET6, s, a) != 1) {
		error(p, "%s: expected an IPv6 address%s, found '%s'", dir, where,
		      quote(p, s));
		return -1;
	}
	if (IN6_IS_ADDR_UNSPECIFIED(a) || IN6_IS_ADDR_MULTICAST(a)) {
		error(p, "%s: %s%s%s is not a unicast address", dir,
		      name ? name : "", name ? " " : "", quote(p, s));
		return -1;
	}
	return 0;
}

/* Linux's dev_valid_name(), and printable. */
static int get_ifname(struct parser *p, const char *dir, const char *attr,
		      const char *s, char name[IF_NAMESIZE])
{
	size_t n = strlen(s);
	bool ok = n > 0 && n < IF_NAMESIZE && strcmp(s, ".") && strcmp(s, "..");

	for (size_t i = 0; ok && i < n; i++)
		if (s[i] == '/' || s[i] == ':' || s[i] <= 0x20 || s[i] >= 0x7f)
			ok = false;
	if (!ok) {
		error(p, "%s: %s%s'%s' is not a valid interface name "
		      "(1-%d characters, no '/' or ':')", dir, attr ? attr : "",
		      attr ? " " : "", quote(p, s), IF_NAMESIZE - 1);
		return -1;
	}
	memcpy(name, s, n + 1);
	return 0;
}

/* argc must be `want` (the keyword counts); `usage` says what is expected. */
static int check_args(struct parser *p, int argc, char **argv, int want,
		      const char *usage)
{
	if (argc < want) {
		error(p, "%s: missing argument (expected %s)", argv[0], usage);
		return -1;
	}
	if (argc > want) {
		error(p, "%s: unexpected extra argument '%s'", argv[0],
		      quote(p, argv[want]));
		return -1;
	}
	return 0;
}

/* ---- daemon settings ---------------------------------------------------- */

/* A queue number or a range like 0-3 (of at most SRV6_MAX_QUEUES) of
 * directive dir into *first and *last. */
static int get_queue_range(struct parser *p, const char *dir, char *word,
			   unsigned *firstp, unsigned *lastp)
{
	uint64_t first, last;
	char *dash = strchr(word, '-');

	if (dash == word || (dash && (!dash[1] || strchr(dash + 1, '-')))) {
		error(p, "%s: expected a queue number or a range like 0-3, "
		      "found '%s'", dir, quote(p, word));
		return -1;
	}
	if (dash)
		*dash = '\0';
	if (get_number(p, dir, NULL, word, 0, 65535, &first) < 0)
		return -1;
	last = first;
	if (dash && get_number(p, dir, NULL, dash + 1, 0, 65535, &last) < 0)
		return -1;
	if (last < first) {
		error(p, "%s: range %" PRIu64 "-%" PRIu64 " is reversed "
		      "(the first queue must not be greater than the last)",
		      dir, first, last);
		return -1;
	}
	if (last - first + 1 > SRV6_MAX_QUEUES) {
		error(p, "%s: range %" PRIu64 "-%" PRIu64 " has %" PRIu64
		      " queues, at most %d", dir, first, last,
		      last - first + 1, SRV6_MAX_QUEUES);
		return -1;
	}
	*firstp = (unsigned)first;
	*lastp = (unsigned)last;
	return 0;
}

static int parse_queue(struct parser *p, int argc, char **argv)
{
	struct config *cfg = p->cfg;

	if (check_args(p, argc, argv, 2, "a queue number or a range like 0-3") < 0)
		return -1;
	return get_queue_range(p, "queue", argv[1], &cfg->queue_first,
			       &cfg->queue_last);
}

/* header-queue FIRST[-LAST] [copy BYTES] */
static int parse_header_queue(struct parser *p, int argc, char **argv)
{
	struct config *cfg = p->cfg;
	uint64_t copy = CONFIG_HQ_COPY_DEFAULT;

	if (argc == 2 && (!strcmp(argv[1], "auto") || !strcmp(argv[1], "no"))) {
		cfg->hqueue_auto = !strcmp(argv[1], "auto");
		return 0;
	}
	if (argc == 4 && strcmp(argv[2], "copy") == 0) {
		if (get_number(p, "header-queue", "copy", argv[3],
			       CONFIG_HQ_COPY_MIN, CONFIG_HQ_COPY_MAX,
			       &copy) < 0)
			return -1;
	} else if (argc == 3 || argc == 4) {
		error(p, "header-queue: expected 'copy BYTES' after the "
		      "queues, found '%s'", quote(p, argv[2]));
		return -1;
	} else if (check_args(p, argc, argv, 2, "auto, no, or a queue number "
			      "or a range like 4-7, then optionally "
			      "'copy BYTES'") < 0) {
		return -1;
	}
	if (get_queue_range(p, "header-queue", argv[1], &cfg->hqueue_first,
			    &cfg->hqueue_last) < 0)
		return -1;
	cfg->has_hqueue = true;
	cfg->hqueue_auto = false;
	cfg->hqueue_copy = (uint32_t)copy;
	cfg->hqueue_line = p->line;
	return 0;
}

static int parse_encap_source(struct parser *p, int argc, char **argv)
{
	if (check_args(p, argc, argv, 2, "an IPv6 address") < 0)
		return -1;
	if (get_addr6(p, argv[0], NULL, "", argv[1],
		      &p->cfg->encap_source) < 0)
		return -1;
	p->cfg->has_encap_source = true;
	return 0;
}

static int parse_tun_name(struct parser *p, int argc, char **argv)
{
	if (check_args(p, argc, argv, 2, "an interface name") < 0)
		return -1;
	return get_ifname(p, argv[0], NULL, argv[1], p->cfg->tun_name);
}

/* reinject auto | verdict | no-payload (`tun`: its older spelling, still
 * accepted).  What each lets be a payload is the daemon's to decide
 * (reinject_resolve()). */
static int parse_reinject(struct parser *p, int argc, char **argv)
{
	if (check_args(p, argc, argv, 2, "auto, verdict or no-payload") < 0)
		return -1;
	if (!strcmp(argv[1], "auto")) {
		p->cfg->reinject = REINJECT_MODE_AUTO;
	} else if (!strcmp(argv[1], "verdict")) {
		p->cfg->reinject = REINJECT_MODE_VERDICT;
	} else if (!strcmp(argv[1], "no-payload") ||
		   !strcmp(argv[1], "tun")) {
		p->cfg->reinject = REINJECT_MODE_NO_PAYLOAD;
	} else {
		error(p, "reinject: expected auto, verdict or no-payload, "
		      "found '%s'", quote(p, argv[1]));
		return -1;
	}
	return 0;
}

static int parse_setting(struct parser *p, int argc, char **argv,
			 uint64_t min, uint64_t max, uint64_t *v)
{
	if (check_args(p, argc, argv, 2, "a number") < 0)
		return -1;
	return get_number(p, argv[0], NULL, argv[1], min, max, v);
}

/* srv6d owns the CONFIG_MARK_RANGE marks and tables from mark-base on
 * (rtrules.h): they must stay clear of the kernel's tables 253-255 and
 * within 32 bits. */
static int parse_mark_base(struct parser *p, int argc, char **argv)
{
	uint64_t v;

	if (parse_setting(p, argc, argv, 0, UINT32_MAX, &v) < 0)
		return -1;
	if (v < CONFIG_MARK_BASE_MIN || v > CONFIG_MARK_BASE_MAX) {
		error(p, "mark-base: %s is out of range (%u-%u): srv6d owns the "
		      "%u marks and tables from mark-base on, which must not "
		      "include tables 253-255 nor pass 32 bits", quote(p, argv[1]),
		      CONFIG_MARK_BASE_MIN, CONFIG_MARK_BASE_MAX, CONFIG_MARK_RANGE);
		return -1;
	}
	p->cfg->mark_base = (uint32_t)v;
	p->mark_base_line = p->line;
	return 0;
}

/* `mark-mask MASK`: one run of at least two bits (the bounce bit and one
 * of the index); checked against mark-base by check_marks(). */
static int parse_mark_mask(struct parser *p, int argc, char **argv)
{
	uint64_t v;
	uint32_t m;

	if (parse_setting(p, argc, argv, 0, UINT32_MAX, &v) < 0)
		return -1;
	m = (uint32_t)v;
	if (!m || ((m >> __builtin_ctz(m)) & ((m >> __builtin_ctz(m)) + 1)) ||
	    __builtin_popcount(m) < 2) {
		error(p, "mark-mask: %s is not one run of at least two bits "
		      "(like 0xffff0000): srv6d's field of the mark holds the "
		      "bounce bit (its highest) and the marks' offsets",
		      quote(p, argv[1]));
		return -1;
	}
	p->cfg->mark_mask = m;
	p->cfg->has_mark_mask = true;
	p->mark_mask_line = p->line;
	return 0;
}

static int parse_rule_priority(struct parser *p, int argc, char **argv)
{
	uint64_t v;

	/* Above the local one (0); with its catch rules (markguard.h, up to
	 * + 4) below the main table's rule (32766). */
	if (parse_setting(p, argc, argv, 1, 32761, &v) < 0)
		return -1;
	p->cfg->rule_priority = (uint32_t)v;
	return 0;
}

static int parse_icmp_rate(struct parser *p, int argc, char **argv)
{
	uint64_t v;

	if (parse_setting(p, argc, argv, 0, CONFIG_ICMP_MAX, &v) < 0)
		return -1;
	p->cfg->icmp_rate = (unsigned)v;
	return 0;
}

static int parse_icmp_burst(struct parser *p, int argc, char **argv)
{
	uint64_t v;

	if (parse_setting(p, argc, argv, 1, CONFIG_ICMP_MAX, &v) < 0)
		return -1;
	p->cfg->icmp_burst = (unsigned)v;
	return 0;
}

/* ---- OAM (RFC 9259, src/srv6/oam.h) ------------------------------------ */

/* `udp ADDRESS:PORT` of oam-copy ([v6]:port or v4:port) into o. */
static int oam_udp_dest(struct parser *p, const char *w, struct config_oam *o)
{
	const char *colon = strrchr(w, ':'), *port;
	char addr[INET6_ADDRSTRLEN + 1], *end;
	bool v6 = w[0] == '[';
	unsigned long n;
	size_t len;

	if (v6) {
		const char *close = strchr(w, ']');

		colon = close && close[1] == ':' ? close + 1 : NULL;
		len = close ? (size_t)(close - w - 1) : 0;
		w++;
	} else {
		len = colon ? (size_t)(colon - w) : 0;
	}
	port = colon ? colon + 1 : "";
	errno = 0;
	n = strtoul(port, &end, 10);
	if (!colon || !len || len >= sizeof(addr) || *end || *port < '0' ||
	    *port > '9' || errno || n == 0 || n > 65535)
		goto bad;
	snprintf(addr, sizeof(addr), "%.*s", (int)len, w);
	memset(&o->dest, 0, sizeof(o->dest));
	if (v6) {
		o->family = AF_INET6;
		o->dest.in6.sin6_family = AF_INET6;
		o->dest.in6.sin6_port = htons((uint16_t)n);
		o->dest_len = sizeof(o->dest.in6);
		if (inet_pton(AF_INET6, addr, &o->dest.in6.sin6_addr) == 1)
			return 0;
	} else {
		o->family = AF_INET;
		o->dest.in4.sin_family = AF_INET;
		o->dest.in4.sin_port = htons((uint16_t)n);
		o->dest_len = sizeof(o->dest.in4);
		if (inet_pton(AF_INET, addr, &o->dest.in4.sin_addr) == 1)
			return 0;
	}
bad:
	error(p, "oam-copy: expected 'udp ADDRESS:PORT' like [::1]:4790 or "
	      "127.0.0.1:4790, found '%s'", quote(p, w - v6));
	return -1;
}

/* oam-copy unix PATH | udp ADDRESS:PORT: where the workers send the
 * copies of O-flag packets and End.OP's punts (a datagram each). */
static int parse_oam_copy(struct parser *p, int argc, char **argv)
{
	struct config_oam *o = &p->cfg->oam;

	if (check_args(p, argc, argv, 3, "'unix PATH' or 'udp ADDRESS:PORT'") < 0)
		return -1;
	o->line = p->line;
	if (!strcmp(argv[1], "udp")) {
		if (oam_udp_dest(p, argv[2], o) < 0)
			return -1;
	} else if (!strcmp(argv[1], "unix")) {
		size_t n = strlen(argv[2]);

		if (argv[2][0] != '/' || n >= sizeof(o->dest.un.sun_path)) {
			error(p, "oam-copy: unix: '%s' is not an absolute path "
			      "of at most %zu bytes", quote(p, argv[2]),
			      sizeof(o->dest.un.sun_path) - 1);
			return -1;
		}
		memset(&o->dest, 0, sizeof(o->dest));
		o->family = AF_UNIX;
		o->dest.un.sun_family = AF_UNIX;
		memcpy(o->dest.un.sun_path, argv[2], n + 1);
		o->dest_len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) +
					  n + 1);
	} else {
		error(p, "oam-copy: expected 'unix' or 'udp', found '%s'",
		      quote(p, argv[1]));
		return -1;
	}
	o->on = true;
	return 0;
}

static int parse_oam_copy_len(struct parser *p, int argc, char **argv)
{
	uint64_t v;

	if (parse_setting(p, argc, argv, CONFIG_OAM_COPY_LEN_MIN,
			  CONFIG_OAM_COPY_LEN_MAX, &v) < 0)
		return -1;
	p->cfg->oam.copy_len = (uint32_t)v;
	return 0;
}

static int parse_oam_rate(struct parser *p, int argc, char **argv)
{
	uint64_t v;

	if (parse_setting(p, argc, argv, 0, CONFIG_OAM_RATE_MAX, &v) < 0)
		return -1;
	p->cfg->oam.rate = (unsigned)v;
	return 0;
}

static int parse_oam_burst(struct parser *p, int argc, char **argv)
{
	uint64_t v;

	if (parse_setting(p, argc, argv, 1, CONFIG_OAM_RATE_MAX, &v) < 0)
		return -1;
	p->cfg->oam.burst = (unsigned)v;
	return 0;
}

/* An End.OP SID punts to the oam-copy socket: it needs one. */
static void check_oam(struct parser *p)
{
	const struct config *cfg = p->cfg;

	for (unsigned i = 0; i < cfg->nsids; i++) {
		const struct sid *s = &cfg->sids[i];

		if (behavior_desc(s->behavior)->oam_punt && !cfg->oam.on)
			error_at(p, s->line, "sid: %s needs 'oam-copy' (where "
				 "its packets go)",
				 behavior_desc(s->behavior)->name);
	}
}

/* ---- sid ---------------------------------------------------------------- */

/* The behaviors in set (bits of enum behavior), in the table's order, as
 * a message lists them: "End, End.X or End.T" (last: " or "). */
static const char *behavior_list(char *buf, size_t size, unsigned set,
				 const char *last)
{
	unsigned left = 0;
	size_t n = 0;

	for (unsigned b = 0; b < BHV__COUNT; b++)
		if ((set & (1u << b)) && behavior_desc((enum behavior)b) &&
		    !behavior_desc((enum behavior)b)->alias)
			left++;
	buf[0] = '\0';
	for (unsigned b = 0; b < BHV__COUNT && n < size; b++) {
		const struct behavior_desc *d = behavior_desc((enum behavior)b);

		if (!(set & (1u << b)) || !d || d->alias)
			continue;
		left--;
		n += (size_t)snprintf(buf + n, size - n, "%s%s",
				      behavior_name((enum behavior)b),
				      left > 1 ? ", " : left ? last : "");
	}
	return buf;
}

/* The behaviors whose sid line takes attribute a (or, flavor, flavor
 * bit f). */
static unsigned behaviors_taking(unsigned attr_bit, unsigned flavor)
{
	unsigned set = 0;

	for (unsigned b = 0; b < BHV__COUNT; b++) {
		const struct behavior_desc *d = behavior_desc((enum behavior)b);

		if (d && !d->alias &&
		    ((d->attrs & attr_bit) || (d->flavors & flavor)))
			set |= 1u << b;
	}
	return set;
}

#define BEHAVIORS_ALL	((1u << BHV__COUNT) - 1)

static const struct {
	const char *name;
	unsigned flag;
} flavor_names[] = {
	{ "psp", FLV_PSP },
	{ "usp", FLV_USP },
	{ "usd", FLV_USD },
	{ "next-csid", FLV_NEXT_CSID },
	{ "replace-csid", FLV_REPLACE_CSID },	/* RFC 9800 4.2 */
};

#define NFLAVORS	(sizeof(flavor_names) / sizeof(flavor_names[0]))

/* psp,usd,... -> FLV_* bits. */
static int get_flavors(struct parser *p, char *list, unsigned *flv)
{
	char *save = NULL, *tok;
	int rc = 0;

	*flv = 0;
	if (list[0] == ',' || list[strlen(list) - 1] == ',' || strstr(list, ",,")) {
		error(p, "sid: empty flavor in list '%s'", quote(p, list));
		return -1;
	}
	for (tok = strtok_r(list, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		unsigned i;

		for (i = 0; i < NFLAVORS; i++)
			if (!strcmp(tok, flavor_names[i].name))
				break;
		if (i == NFLAVORS) {
			error(p, "sid: unknown flavor '%s' (expected psp, usp, "
			      "usd, next-csid or replace-csid)", quote(p, tok));
			rc = -1;
		} else if (*flv & flavor_names[i].flag) {
			error(p, "sid: flavor %s listed twice", tok);
			rc = -1;
		} else {
			*flv |= flavor_names[i].flag;
		}
	}
	return rc;
}

static const char *const sid_attr_names[SA__COUNT] = {
	"flavors", "lblen", "nflen", "nh6", "nh4", "oif", "table", "vrftable",
	"v4src-position",
	"iif", "source", "segs",
};

static const char *const sid_attr_usage[SA__COUNT] = {
	"a list like psp,usd", "a number of bits", "a number of bits",
	"an IPv6 address", "an IPv4 address", "an interface name",
	"a table number", "a VRF device's table number",
	"a bit position in the IPv6 source, 0-96",
	"an interface name", "an IPv6 address", "a list like A,B",
};

/* What follows each attribute in a message ("'nh6 ADDRESS'"). */
static const char *const sid_attr_metavar[SA__COUNT] = {
	"LIST", "N", "N", "ADDRESS", "ADDRESS", "IFNAME", "N", "N", "N",
	"IFNAME", "ADDRESS", "SEGMENTS",
};

static int get_segs(struct parser *p, const char *dir, char *list,
		    struct seglist *sl);

/* lblen and nflen: checked with the flavors (sid_check_flavors()). */
#define SA_WITH_FLAVORS	(SA_BIT(SA_LBLEN) | SA_BIT(SA_NFLEN))

/* A unicast IPv4 address (not 0.0.0.0, multicast or broadcast). */
static int get_addr4(struct parser *p, const char *dir, const char *name,
		     const char *s, struct in_addr *a)
{
	uint32_t h;

	if (inet_pton(AF_INET, s, a) != 1) {
		error(p, "%s: expected an IPv4 address after '%s', found '%s'",
		      dir, name, quote(p, s));
		return -1;
	}
	h = ntohl(a->s_addr);
	if (h == 0 || h >= 0xe0000000u) {
		error(p, "%s: %s %s is not a unicast address", dir, name,
		      quote(p, s));
		return -1;
	}
	return 0;
}

static int sid_attr_value(struct parser *p, struct sid *s, enum sid_attr a,
			  char *v)
{
	uint64_t n;

	switch (a) {
	case SA_FLAVORS:
		return get_flavors(p, v, &s->flavors);
	case SA_LBLEN:
	case SA_NFLEN:
		if (get_number(p, "sid", sid_attr_names[a], v, 8, 120, &n) < 0)
			return -1;
		if (n % 8) {
			error(p, "sid: %s %s is not a multiple of 8",
			      sid_attr_names[a], v);
			return -1;
		}
		if (a == SA_LBLEN)
			s->lblen = (uint8_t)n;
		else
			s->nflen = (uint8_t)n;
		return 0;
	case SA_NH6:
		return get_addr6(p, "sid", "nh6", " after 'nh6'", v, &s->nh6);
	case SA_NH4:
		return get_addr4(p, "sid", "nh4", v, &s->nh4);
	case SA_OIF:
		return get_ifname(p, "sid", "oif", v, s->oif);
	case SA_TABLE:
	case SA_VRFTABLE:
		if (get_number(p, "sid", sid_attr_names[a], v, 1, UINT32_MAX,
			       &n) < 0)
			return -1;
		s->table = (uint32_t)n;
		s->vrf = a == SA_VRFTABLE;
		return 0;
	case SA_V4SRC_POS:	/* RFC 9433 6.6: 32 bits of IPv4 SA fit */
		if (get_number(p, "sid", sid_attr_names[a], v, 0, 96, &n) < 0)
			return -1;
		s->v4src_pos = (uint8_t)n;
		return 0;
	case SA_IIF:
		return get_ifname(p, "sid", "iif", v, s->iif);
	case SA_SOURCE:
		if (s->behavior == BHV_END_M_GTP6_E) {	/* RFC 9433 6.5 S04 */
			s->has_source = true;
			return get_addr6(p, "sid", "source", " after 'source'",
					 v, &s->source);
		}
		return get_addr6(p, "sid", "source", " after 'source'", v,
				 &p->proxy.source);
	case SA_SEGS:
		p->has_proxy_segs = true;
		return get_segs(p, "sid", v, &p->proxy.segs);
	case SA__COUNT:
		break;
	}
	return -1;
}

/* "'table N' or 'vrftable N'": the attributes in set. */
static const char *sid_attr_list(char *buf, size_t size, unsigned set,
				 bool metavar)
{
	unsigned left = (unsigned)__builtin_popcount(set);
	size_t n = 0;

	buf[0] = '\0';
	for (unsigned a = 0; a < SA__COUNT && n < size; a++) {
		if (!(set & SA_BIT(a)))
			continue;
		left--;
		n += (size_t)snprintf(buf + n, size - n, "'%s%s%s'%s",
				      sid_attr_names[a], metavar ? " " : "",
				      metavar ? sid_attr_metavar[a] : "",
				      left > 1 ? ", " : left ? " or " : "");
	}
	return buf;
}

/* What each behavior requires: exactly one of its row's `needs`. */
static int sid_check_required(struct parser *p, struct sid *s,
			      const bool *has)
{
	const struct behavior_desc *d = behavior_desc(s->behavior);
	unsigned given = 0;
	char list[128];
	int rc = 0;

	for (unsigned a = 0; a < SA__COUNT; a++)
		if (has[a] && (d->needs & SA_BIT(a)))
			given++;
	if (d->needs && !given) {
		error(p, "sid: %s needs %s (%s)", d->name,
		      sid_attr_list(list, sizeof(list), d->needs, true),
		      d->needs_why);
		rc = -1;
	} else if (given > 1) {
		error(p, "sid: %s takes %s, not both", d->name,
		      sid_attr_list(list, sizeof(list), d->needs, false));
		rc = -1;
	}
	if (has[SA_NH6] && !has[SA_OIF] && IN6_IS_ADDR_LINKLOCAL(&s->nh6) &&
	    (d->attrs & SA_BIT(SA_NH6))) {
		char a[INET6_ADDRSTRLEN];

		inet_ntop(AF_INET6, &s->nh6, a, sizeof(a));
		if (d->attrs & SA_BIT(SA_OIF))
			error(p, "sid: nh6 %s is link-local: 'oif IFNAME' is "
			      "required with it", a);
		else	/* End.MAP: a SID, routed by the main table */
			error(p, "sid: nh6 %s is link-local: %s's mapped "
			      "SID must be routable", a, d->name);
		rc = -1;
	}
	return rc;
}

/* NEXT-C-SID lengths and the flavors' behaviors. */
static int sid_check_flavors(struct parser *p, struct sid *s, const bool *has)
{
	const struct behavior_desc *d = behavior_desc(s->behavior);
	bool csid = s->flavors & (FLV_NEXT_CSID | FLV_REPLACE_CSID);
	bool rcsid = s->flavors & FLV_REPLACE_CSID;
	char list[128];
	int rc = 0;

	for (unsigned i = 0; i < NFLAVORS; i++) {
		if (!(s->flavors & flavor_names[i].flag & ~d->flavors))
			continue;
		error(p, "sid: flavor %s is only valid with %s, not with %s",
		      flavor_names[i].name,
		      behavior_list(list, sizeof(list),
				    behaviors_taking(0, flavor_names[i].flag),
				    " and "), d->name);
		rc = -1;
	}
	for (unsigned a = SA_LBLEN; a <= SA_NFLEN; a++) {
		if (has[a] && !csid) {
			error(p, "sid: '%s' is only valid with flavor next-csid "
			      "or replace-csid", sid_attr_names[a]);
			rc = -1;
		}
	}
	if (rc < 0 || !csid)
		return rc;
	if (rcsid && (s->flavors & FLV_NEXT_CSID)) {
		error(p, "sid: flavors next-csid and replace-csid exclude each "
		      "other (RFC 9800 4: one C-SID flavor per SID)");
		return -1;
	}
	if (rcsid) {
		/* RFC 9800 5.1: REPLACE-C-SID C-SIDs are 16 or 32 bits. */
		if (!s->lblen)
			s->lblen = RCSID_DEFAULT_LBLEN;
		if (!s->nflen)
			s->nflen = RCSID_DEFAULT_NFLEN;
		if (s->nflen != 16 && s->nflen != 32) {
			error(p, "sid: nflen %u: a replace-csid C-SID is 16 or "
			      "32 bits (RFC 9800 5.1)", s->nflen);
			return -1;
		}
		/* The argument holds DA.Arg.Index, 3 or 2 bits (4.2). */
		if (s->lblen + s->nflen + (s->nflen == 16 ? 3 : 2) > 128) {
			error(p, "sid: lblen %u + nflen %u leaves no room for "
			      "the replace-csid index", s->lblen, s->nflen);
			return -1;
		}
	}
	if (!s->lblen)
		s->lblen = CSID_DEFAULT_LBLEN;
	if (!s->nflen)
		s->nflen = CSID_DEFAULT_NFLEN;
	if (s->lblen + s->nflen > 128) {
		error(p, "sid: lblen %u + nflen %u is more than 128 bits",
		      s->lblen, s->nflen);
		return -1;
	}
	if (s->plen < s->lblen + s->nflen) {
		error(p, "sid: prefix length /%u is shorter than lblen %u + "
		      "nflen %u (a NEXT-C-SID prefix covers both)", s->plen,
		      s->lblen, s->nflen);
		return -1;
	}
	return 0;
}

/* An attribute given where the behavior or the flavors do not allow it. */
static int sid_check_combination(struct parser *p, struct sid *s,
				 const bool *has)
{
	const struct behavior_desc *d = behavior_desc(s->behavior);
	char list[160];
	int rc = 0;

	for (unsigned a = 0; a < SA__COUNT; a++) {
		if (!has[a] || (SA_WITH_FLAVORS & SA_BIT(a)) ||
		    (d->attrs & SA_BIT(a)))
			continue;
		error(p, "sid: '%s' is only valid with %s, not with %s",
		      sid_attr_names[a],
		      behavior_list(list, sizeof(list),
				    behaviors_taking(SA_BIT(a), 0), " or "),
		      d->name);
		rc = -1;
	}
	if (sid_check_required(p, s, has) < 0)
		rc = -1;
	for (unsigned a = 0; a < SA__COUNT; a++) {
		if (has[a] || !(d->requires & SA_BIT(a)))
			continue;
		error(p, "sid: %s needs '%s %s'", d->name, sid_attr_names[a],
		      sid_attr_metavar[a]);
		rc = -1;
	}
	if (rc < 0)
		return rc;
	return sid_check_flavors(p, s, has);
}

/* The index of `encoding` among argv[4..argc-1], 0 when absent. */
static int sid_encoding_at(int argc, char **argv)
{
	for (int i = 4; i < argc; i++)
		if (!strcmp(argv[i], "encoding"))
			return i;
	return 0;
}

/* `encoding` where the behavior takes none: only End.M.GTP6.Di has two
 * (RFC 9433 6.4's and VPP's). */
static int sid_encoding_misplaced(struct parser *p, const struct sid *s)
{
	error(p, "sid: 'encoding' is only valid with End.M.GTP6.Di (RFC 9433 "
	      "6.4 drop-in: rfc or vpp), not with %s",
	      behavior_name(s->behavior));
	return -1;
}

/* The attribute pairs after `action BEHAVIOR`. */
static int sid_attrs(struct parser *p, struct sid *s, int argc, char **argv,
		     bool *has)
{
	int rc = 0;

	for (int i = 4; i < argc; i += 2) {
		unsigned a;

		for (a = 0; a < SA__COUNT; a++)
			if (!strcmp(argv[i], sid_attr_names[a]))
				break;
		if (a == SA__COUNT && !strcmp(argv[i], "encoding"))
			return sid_encoding_misplaced(p, s);
		if (a == SA__COUNT) {
			error(p, "sid: unknown attribute '%s' (expected flavors, "
			      "lblen, nflen, nh6, nh4, oif, table, vrftable, "
			      "v4src-position, iif, source or segs)",
			      quote(p, argv[i]));
			return -1;
		}
		if (i + 1 >= argc) {
			error(p, "sid: '%s' needs an argument (%s)",
			      sid_attr_names[a], sid_attr_usage[a]);
			return -1;
		}
		if (has[a]) {
			error(p, "sid: '%s' given twice", sid_attr_names[a]);
			rc = -1;
			continue;
		}
		has[a] = true;
		if (sid_attr_value(p, s, a, argv[i + 1]) < 0)
			rc = -1;
	}
	return rc;
}

static int add_sid(struct parser *p, const struct sid *s)
{
	struct config *cfg = p->cfg;

	if (cfg->nsids == CONFIG_MAX_SIDS) {
		if (!p->too_many_sids)
			error(p, "sid: too many SIDs (at most %u: each may need "
			      "one of the %u marks from mark-base on)",
			      CONFIG_MAX_SIDS, CONFIG_MARK_RANGE);
		p->too_many_sids = true;
		return -1;
	}
	if (cfg->nsids == p->sids_cap) {
		unsigned cap = p->sids_cap ? p->sids_cap * 2 : 16;
		struct sid *n = realloc(cfg->sids, cap * sizeof(*n));

		if (!n) {
			error(p, "out of memory");
			return -1;
		}
		cfg->sids = n;
		p->sids_cap = cap;
	}
	cfg->sids[cfg->nsids++] = *s;
	return 0;
}

static int policy_attrs(struct parser *p, const char *dir,
			struct policy *pol, int argc, char **argv, int start,
			bool *has_mode);
static int policy_need_segs(struct parser *p, const char *dir,
			    const struct policy *pol);
static int add_policy_to(struct parser *p, struct policy **arr,
			 unsigned *n, unsigned *cap, const struct policy *pol);

/* The policy of a binding SID: `srh segs A,B [weight N] [segs ...]
 * [hmac N]` after `action End.B6*` (iproute2: `encap seg6local action
 * End.B6.Encaps srh segs A,B`).  The SID's policy index is the position
 * in bsid_policies, in the order of the binding SIDs in sids[]:
 * bind_policies() sets sid->policy once the arrays stop moving. */
static int sid_binding_policy(struct parser *p, struct sid *s, int argc,
			      char **argv)
{
	struct policy pol = { .line = p->line, .family = AF_INET6,
			      .prefix.v6 = s->prefix, .plen = s->plen,
			      .binding = true };

	if (argc < 5 || strcmp(argv[4], "srh")) {
		error(p, "sid: %s needs 'srh segs SEGMENTS' (the policy's "
		      "segment list)", behavior_name(s->behavior));
		return -1;
	}
	pol.mode = behavior_desc(s->behavior)->bsid_mode;
	if (policy_attrs(p, "sid", &pol, argc, argv, 5, NULL) < 0 ||
	    policy_need_segs(p, "sid", &pol) < 0)
		return -1;	/* (segs are missing only when all else is fine) */
	return add_policy_to(p, &p->cfg->bsid_policies,
			     &p->cfg->nbsid_policies, &p->bsid_cap, &pol);
}

/* RFC 9433 6.1: Args.Mob.Session (40 bits, and End.M.GTP4.E's IPv4 DA,
 * 32 more) must fit after the SID's prefix. */
static int sid_check_mobile(struct parser *p, const struct sid *s)
{
	unsigned room = s->behavior == BHV_END_M_GTP4_E ? 72 :
			s->behavior == BHV_END_M_GTP6_E ? 40 : 0;

	if (room && s->plen + room > 128) {
		error(p, "sid: %s's prefix /%u leaves no room for %s "
		      "(%u bits after it, RFC 9433 6.1)",
		      behavior_name(s->behavior), s->plen,
		      room == 72 ? "the IPv4 DA and Args.Mob.Session" :
				   "Args.Mob.Session", room);
		return -1;
	}
	return 0;
}

/* `mob-prefix B/LEN` of End.M.GTP6.D (RFC 9433 6.3), taken out of argv:
 * B, the last segment of the SID's policy, carries Args.Mob.Session
 * after LEN bits.  Returns 0 with *b, -1 after an error. */
static int sid_mob_prefix(struct parser *p, struct sid *s, int *argc,
			  char **argv, struct in6_addr *b)
{
	struct prefix pf;
	int i;

	for (i = 4; i < *argc && strcmp(argv[i], "mob-prefix"); i++)
		;
	if (i >= *argc - 1) {
		error(p, "sid: %s needs 'mob-prefix PREFIX' (the SRv6 prefix "
		      "B that carries Args.Mob.Session, RFC 9433 6.3)",
		      behavior_name(s->behavior));
		return -1;
	}
	if (get_prefix(p, "sid", argv[i + 1], false, &pf) < 0)
		return -1;
	if (pf.plen + 40 > 128) {
		error(p, "sid: mob-prefix /%u leaves no room for "
		      "Args.Mob.Session (40 bits, RFC 9433 6.1)", pf.plen);
		return -1;
	}
	*b = pf.a6;
	s->mob_plen = (uint8_t)pf.plen;
	memmove(argv + i, argv + i + 2, (size_t)(*argc - i - 2) * sizeof(*argv));
	*argc -= 2;
	return 0;
}

/* `encoding rfc|vpp` of End.M.GTP6.Di, taken out of argv: rfc (the
 * default) as RFC 9433 6.4 writes it, vpp as VPP's node.  Returns 0, -1
 * after an error (End.M.GTP6.D's `encoding` among them). */
static int sid_di_encoding(struct parser *p, struct sid *s, int *argc,
			   char **argv)
{
	int i = sid_encoding_at(*argc, argv);

	if (!i)
		return 0;
	if (s->behavior != BHV_END_M_GTP6_DI)
		return sid_encoding_misplaced(p, s);
	if (i + 1 >= *argc) {
		error(p, "sid: 'encoding' needs an argument (rfc or vpp)");
		return -1;
	}
	if (strcmp(argv[i + 1], "rfc") && strcmp(argv[i + 1], "vpp")) {
		error(p, "sid: unknown encoding '%s' (expected rfc, RFC 9433 "
		      "6.4's, or vpp, VPP's drop-in)", quote(p, argv[i + 1]));
		return -1;
	}
	s->di_vpp = !strcmp(argv[i + 1], "vpp");
	memmove(argv + i, argv + i + 2, (size_t)(*argc - i - 2) * sizeof(*argv));
	*argc -= 2;
	if (sid_encoding_at(*argc, argv)) {
		error(p, "sid: 'encoding' given twice");
		return -1;
	}
	return 0;
}

/* End.M.GTP6.D's policy: `[srh segs S1,S2 ...]` as a binding SID's, with
 * B last in each list (alone without `srh`).  End.M.GTP6.Di's (RFC 9433
 * 6.4): then a slot, ::, that becomes the packet's own destination D,
 * prepended as SRH[0] (mobile.c).  No HMAC: the last segments change
 * per packet, after any signature. */
static int sid_gtp6d_policy(struct parser *p, struct sid *s, int argc,
			    char **argv)
{
	struct policy one = { .line = p->line, .family = AF_INET6,
			      .prefix.v6 = s->prefix, .plen = s->plen,
			      .binding = true, .mode = ENCAP_MODE_ENCAP,
			      .nlists = 1, .weights = { 1 } };
	struct in6_addr b;
	struct policy *pol;

	if (sid_di_encoding(p, s, &argc, argv) < 0 ||
	    sid_mob_prefix(p, s, &argc, argv, &b) < 0)
		return -1;
	if (argc > 4) {
		if (sid_binding_policy(p, s, argc, argv) < 0)
			return -1;
	} else if (add_policy_to(p, &p->cfg->bsid_policies,
				 &p->cfg->nbsid_policies, &p->bsid_cap,
				 &one) < 0) {
		return -1;
	}
	pol = &p->cfg->bsid_policies[p->cfg->nbsid_policies - 1];
	if (pol->hmac_keyid) {
		error(p, "sid: %s takes no hmac (Args.Mob.Session is written "
		      "into the last segment after signing)",
		      behavior_name(s->behavior));
		return -1;
	}
	for (unsigned l = 0; l < pol->nlists; l++) {
		unsigned add = s->behavior == BHV_END_M_GTP6_DI ? 2 : 1;

		if (pol->lists[l].nsegs + add > SRV6_MAX_SEGS) {
			if (add == 2)
				error(p, "sid: too many segments with "
				      "mob-prefix (at most %d in srh segs: B "
				      "and D follow)", SRV6_MAX_SEGS - add);
			else
				error(p, "sid: too many segments with "
				      "mob-prefix (at most %d)", SRV6_MAX_SEGS);
			return -1;
		}
		pol->lists[l].segs[pol->lists[l].nsegs++] = b;
		if (add == 2)		/* S, per packet */
			memset(&pol->lists[l].segs[pol->lists[l].nsegs++], 0,
			       sizeof(struct in6_addr));
	}
	return 0;
}

/* End.AS's headers (draft-ietf-spring-sr-service-programming-10 6.1,
 * as VPP's end.as builds them): an IPv6 header from `source` to the
 * first segment, hop limit 64, Payload Length filled per packet, and for
 * more than one segment an SRH of them all (Segments Left and Last Entry
 * the last index, in reverse order as RFC 8754 has them), its Next Header
 * the inner type. */
static void proxy_static_hdr(struct proxy_conf *pc, uint8_t inner)
{
	unsigned n = pc->segs.nsegs;
	uint8_t *h = pc->hdr;

	memset(h, 0, sizeof(pc->hdr));
	h[0] = 0x60;
	h[6] = n > 1 ? IPPROTO_ROUTING : inner;
	h[7] = 64;
	memcpy(h + 8, &pc->source, 16);
	memcpy(h + 24, &pc->segs.segs[0], 16);
	pc->hdr_len = 40;
	if (n < 2)
		return;
	h[40] = inner;
	h[41] = (uint8_t)(2 * n);
	h[42] = 4;
	h[43] = (uint8_t)(n - 1);
	h[44] = (uint8_t)(n - 1);
	for (unsigned i = 0; i < n; i++)
		memcpy(h + 48 + 16 * i, &pc->segs.segs[n - 1 - i], 16);
	pc->hdr_len = (uint16_t)(48 + 16 * n);
}

/* An SR proxy's line: the IPv4 row with nh4, its entry in
 * config->proxies (End.AS: its headers). */
static int sid_proxy(struct parser *p, struct sid *s, const bool *has)
{
	const struct behavior_desc *d = behavior_desc(s->behavior);
	struct config *cfg = p->cfg;

	if (has[SA_NH4] && d->v4)
		s->behavior = d->v4;
	for (unsigned i = 0; i < cfg->nproxies; i++) {
		const struct sid *o = &cfg->sids[cfg->proxies[i].sid];
		bool v4 = behavior_desc(s->behavior)->decap == BHV_DECAP_IPV4;

		if (!strcmp(o->iif, s->iif) &&
		    (behavior_desc(o->behavior)->decap == BHV_DECAP_IPV4) == v4) {
			error(p, "sid: iif %s has an %s SR proxy already (line "
			      "%u): one of each family per interface back",
			      s->iif, v4 ? "IPv4" : "IPv6", o->line);
			return -1;
		}
	}
	if (d->proxy == BHV_PROXY_STATIC)
		proxy_static_hdr(&p->proxy, has[SA_NH4] ? IPPROTO_IPIP :
							  IPPROTO_IPV6);
	if (cfg->nproxies == p->proxies_cap) {
		unsigned cap = p->proxies_cap ? p->proxies_cap * 2 : 4;
		struct proxy_conf *n = realloc(cfg->proxies, cap * sizeof(*n));

		if (!n) {
			error(p, "out of memory");
			return -1;
		}
		cfg->proxies = n;
		p->proxies_cap = cap;
	}
	p->proxy.sid = cfg->nsids;
	s->proxy = cfg->nproxies;
	cfg->proxies[cfg->nproxies++] = p->proxy;
	return 0;
}

/* sid PREFIX action BEHAVIOR [flavors LIST] [lblen N] [nflen N]
 *     [nh6 ADDRESS] [nh4 ADDRESS] [oif IFNAME] [table N] [vrftable N]
 * sid PREFIX action End.B6[.Encaps[.Red]] srh segs A,B ...
 * sid PREFIX action End.M.GTP6.D mob-prefix B/LEN [srh segs A,B ...]
 * sid PREFIX action End.M.GTP6.Di mob-prefix B/LEN [encoding rfc|vpp]
 *     [srh segs A,B ...] */
static int parse_sid(struct parser *p, int argc, char **argv)
{
	struct sid s = { .line = p->line };
	bool has[SA__COUNT] = { false };
	char list[256];
	struct prefix pf;
	int rc = 0;

	if (argc < 2) {
		error(p, "sid: missing argument (expected PREFIX action BEHAVIOR ...)");
		return -1;
	}
	if (get_prefix(p, "sid", argv[1], false, &pf) < 0)
		rc = -1;
	s.prefix = pf.a6;
	s.plen = (uint8_t)pf.plen;
	if (argc < 3) {
		error(p, "sid: missing 'action BEHAVIOR' after the prefix");
		return -1;
	}
	if (strcmp(argv[2], "action")) {
		error(p, "sid: expected 'action' after the prefix, found '%s'",
		      quote(p, argv[2]));
		return -1;
	}
	if (argc < 4) {
		error(p, "sid: 'action' needs a behavior (%s)",
		      behavior_list(list, sizeof(list), BEHAVIORS_ALL, " or "));
		return -1;
	}
	if (!behavior_desc_by_name(argv[3], &s.behavior)) {
		error(p, "sid: unknown behavior '%s' (expected %s)",
		      quote(p, argv[3]),
		      behavior_list(list, sizeof(list), BEHAVIORS_ALL, " or "));
		return -1;
	}
	if (s.behavior == BHV_END_M_GTP6_D ||
	    s.behavior == BHV_END_M_GTP6_DI) {
		if (rc < 0 || sid_gtp6d_policy(p, &s, argc, argv) < 0)
			return -1;
		return add_sid(p, &s);
	}
	if (behavior_is_binding(s.behavior)) {
		if (sid_encoding_at(argc, argv))
			return sid_encoding_misplaced(p, &s);
		if (sid_binding_policy(p, &s, argc, argv) < 0 || rc < 0)
			return -1;
		return add_sid(p, &s);
	}
	memset(&p->proxy, 0, sizeof(p->proxy));
	p->has_proxy_segs = false;
	if (sid_attrs(p, &s, argc, argv, has) < 0 || rc < 0)
		return -1;
	if (sid_check_combination(p, &s, has) < 0 ||
	    sid_check_mobile(p, &s) < 0)
		return -1;
	if (behavior_proxy_of(s.behavior) != BHV_PROXY_NONE &&
	    sid_proxy(p, &s, has) < 0)
		return -1;
	return add_sid(p, &s);
}

/* ---- route -------------------------------------------------------------- */

static const char *const encap_mode_names[] = {
	[ENCAP_MODE_ENCAP] = "encap",
	[ENCAP_MODE_ENCAP_RED] = "encap.red",
	[ENCAP_MODE_INLINE] = "inline",
	[ENCAP_MODE_INLINE_RED] = "inline.red",
};

#define NMODES	(sizeof(encap_mode_names) / sizeof(encap_mode_names[0]))

/* A,B,C -> seglist (1..SRV6_MAX_SEGS unicast IPv6 addresses). */
static int get_segs(struct parser *p, const char *dir, char *list,
		    struct seglist *sl)
{
	char *save = NULL, *tok;
	unsigned n = 1;
	int rc = 0;

	for (const char *c = list; *c; c++)
		n += *c == ',';
	if (n > SRV6_MAX_SEGS) {
		error(p, "%s: too many segments (%u, at most %d)", dir, n,
		      SRV6_MAX_SEGS);
		return -1;
	}
	if (list[0] == ',' || list[strlen(list) - 1] == ',' || strstr(list, ",,")) {
		error(p, "%s: empty segment in list '%s'", dir, quote(p, list));
		return -1;
	}
	sl->nsegs = 0;
	for (tok = strtok_r(list, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save))
		if (get_addr6(p, dir, "segment", " in segs", tok,
			      &sl->segs[sl->nsegs++]) < 0)
			rc = -1;
	return rc;
}

static int add_policy_to(struct parser *p, struct policy **arr,
			 unsigned *n, unsigned *cap, const struct policy *pol)
{
	if (*n == *cap) {
		unsigned ncap = *cap ? *cap * 2 : 16;
		struct policy *na = realloc(*arr, ncap * sizeof(*na));

		if (!na) {
			error(p, "out of memory");
			return -1;
		}
		*arr = na;
		*cap = ncap;
	}
	(*arr)[(*n)++] = *pol;
	return 0;
}

static int add_policy(struct parser *p, const struct policy *pol)
{
	return add_policy_to(p, &p->cfg->policies, &p->cfg->npolicies,
			     &p->pols_cap, pol);
}

static int get_mode(struct parser *p, const char *s, enum encap_mode *mode)
{
	for (unsigned m = 0; m < NMODES; m++) {
		if (!strcmp(s, encap_mode_names[m])) {
			*mode = (enum encap_mode)m;
			return 0;
		}
	}
	error(p, "route: unknown mode '%s' (expected encap, encap.red, inline "
	      "or inline.red)", quote(p, s));
	return -1;
}

enum policy_attr { PA_MODE, PA_SEGS, PA_WEIGHT, PA_HMAC, PA__COUNT };

static const char *const policy_attr_names[PA__COUNT] = {
	"mode", "segs", "weight", "hmac",
};

static const char *const policy_attr_usage[PA__COUNT] = {
	"encap, encap.red, inline or inline.red",
	"comma-separated IPv6 addresses", "a number 1-65535",
	"an hmac key id",
};

/* One attribute pair: a `segs` starts a new segment list, a `weight`
 * belongs to the list before it. */
static int policy_attr(struct parser *p, const char *dir, struct policy *pol,
		       enum policy_attr a, char *v, bool *weighted)
{
	uint64_t n;

	switch (a) {
	case PA_MODE:
		return get_mode(p, v, &pol->mode);
	case PA_SEGS:
		if (pol->nlists == POLICY_MAX_LISTS) {
			error(p, "%s: too many segment lists (at most %d)", dir,
			      POLICY_MAX_LISTS);
			return -1;
		}
		pol->weights[pol->nlists] = 1;
		weighted[pol->nlists] = false;
		return get_segs(p, dir, v, &pol->lists[pol->nlists++]);
	case PA_WEIGHT:
		if (!pol->nlists) {
			error(p, "%s: 'weight' must follow the 'segs' list it "
			      "weighs", dir);
			return -1;
		}
		if (weighted[pol->nlists - 1]) {
			error(p, "%s: 'weight' given twice for segment list %u",
			      dir, pol->nlists);
			return -1;
		}
		weighted[pol->nlists - 1] = true;
		if (get_number(p, dir, "weight", v, 1, POLICY_MAX_WEIGHT, &n) < 0)
			return -1;
		pol->weights[pol->nlists - 1] = (uint16_t)n;
		return 0;
	case PA_HMAC:
		if (get_number(p, dir, "hmac", v, 1, UINT32_MAX, &n) < 0)
			return -1;
		pol->hmac_keyid = (uint32_t)n;
		return 0;
	case PA__COUNT:
		break;
	}
	return -1;
}

/* The attribute pairs from argv[start] on: `mode M` (only when has_mode
 * is not NULL), `segs LIST [weight N]` one or more times, `hmac N`.
 * Returns 0; -1 after an error in a value; -2 when the line cannot be
 * read further (unknown attribute, missing value). */
static int policy_attrs(struct parser *p, const char *dir,
			struct policy *pol, int argc, char **argv, int start,
			bool *has_mode)
{
	bool weighted[POLICY_MAX_LISTS] = { false }, has_hmac = false;
	int rc = 0;

	for (int i = start; i < argc; i += 2) {
		unsigned a;

		for (a = has_mode ? PA_MODE : PA_SEGS; a < PA__COUNT; a++)
			if (!strcmp(argv[i], policy_attr_names[a]))
				break;
		if (a == PA__COUNT) {
			error(p, "%s: unknown attribute '%s' (expected %ssegs, "
			      "weight or hmac)", dir, quote(p, argv[i]),
			      has_mode ? "mode, " : "");
			return -2;
		}
		if (i + 1 >= argc) {
			error(p, "%s: '%s' needs an argument (%s)", dir, argv[i],
			      policy_attr_usage[a]);
			return -2;
		}
		if ((a == PA_MODE && *has_mode) || (a == PA_HMAC && has_hmac)) {
			error(p, "%s: '%s' given twice", dir, argv[i]);
			rc = -1;
			continue;
		}
		if (a == PA_MODE)
			*has_mode = true;
		if (a == PA_HMAC)
			has_hmac = true;
		if (policy_attr(p, dir, pol, a, argv[i + 1], weighted) < 0)
			rc = -1;
	}
	return rc;
}

static int policy_need_segs(struct parser *p, const char *dir,
			    const struct policy *pol)
{
	if (pol->nlists)
		return 0;
	error(p, "%s: missing 'segs SEGMENTS' (comma-separated IPv6 "
	      "addresses)", dir);
	return -1;
}

/* The attributes after `encap seg6`, in any order; a mode is required. */
static int route_attrs(struct parser *p, struct policy *pol, int argc,
		       char **argv)
{
	bool has_mode = false;
	int rc = policy_attrs(p, "route", pol, argc, argv, 4, &has_mode);

	if (rc == -2)
		return -1;
	if (!has_mode) {
		error(p, "route: missing 'mode MODE' (encap, encap.red, inline "
		      "or inline.red)");
		rc = -1;
	}
	if (policy_need_segs(p, "route", pol) < 0)
		rc = -1;
	return rc;
}

/* `table T` of a route: a number 1-4294967295 or main (254). */
static int get_route_table(struct parser *p, const char *s, uint32_t *table)
{
	uint64_t n;

	if (!strcmp(s, "main")) {
		*table = CONFIG_TABLE_MAIN;
		return 0;
	}
	if (get_number(p, "route", "table", s, 1, UINT32_MAX, &n) < 0)
		return -1;
	*table = (uint32_t)n;
	return 0;
}

/* Take `table T` out of a route's words, where ip-route(8) puts it: right
 * after the prefix or after the encapsulation's attributes.  Returns 0
 * (pol->table set, main when absent), -1 after an error. */
static int route_table(struct parser *p, struct policy *pol, int *argc,
		       char **argv)
{
	int at = 0;

	pol->table = CONFIG_TABLE_MAIN;
	if (*argc >= 4 && !strcmp(argv[2], "table"))
		at = 2;
	if (*argc >= 6 && !strcmp(argv[*argc - 2], "table")) {
		if (at) {
			error(p, "route: 'table' given twice");
			return -1;
		}
		at = *argc - 2;
	}
	if (!at)
		return 0;
	if (get_route_table(p, argv[at + 1], &pol->table) < 0)
		return -1;
	memmove(&argv[at], &argv[at + 2], (size_t)(*argc - at - 2) * sizeof(*argv));
	*argc -= 2;
	return 0;
}

/* route PREFIX [table T] encap seg6 mode MODE segs A,B,... [weight N]
 *       [segs ...] [hmac N] [table T] */
/* `NAME PREFIX/LEN` of a route's, taken out of argv[start..]: *pf.
 * Returns 0, -1 after an error (also when missing). */
static int take_prefix(struct parser *p, const char *name, const char *why,
		       int start, int *argc, char **argv, struct prefix *pf)
{
	int i;

	for (i = start; i < *argc && strcmp(argv[i], name); i++)
		;
	if (i >= *argc - 1) {
		error(p, "route: encap gtp4 needs '%s PREFIX' (%s)", name, why);
		return -1;
	}
	if (get_prefix(p, "route", argv[i + 1], false, pf) < 0)
		return -1;
	memmove(argv + i, argv + i + 2, (size_t)(*argc - i - 2) * sizeof(*argv));
	*argc -= 2;
	return 0;
}

/* route PREFIX4 encap gtp4 mob-prefix B/LEN src-prefix S/LEN [segs ...]
 * (RFC 9433 6.7 H.M.GTP4.D): B last in each list (alone without segs),
 * the IPv4 DA and Args.Mob.Session after LEN bits of it (72 in all), the
 * IPv4 SA after S's (32).  No mode (H.Encaps), no hmac. */
static int route_gtp4(struct parser *p, struct policy *pol, int argc,
		      char **argv)
{
	struct prefix b, src;

	if (take_prefix(p, "mob-prefix", "the SRv6 prefix B of the IPv4 DA "
			"and Args.Mob.Session", 4, &argc, argv, &b) < 0 ||
	    take_prefix(p, "src-prefix", "the IPv6 source prefix of the IPv4 "
			"SA", 4, &argc, argv, &src) < 0)
		return -1;
	if (b.plen + 72 > 128 || src.plen + 32 > 128) {
		error(p, "route: %s /%u leaves no room for the %s", b.plen + 72 >
		      128 ? "mob-prefix" : "src-prefix", b.plen + 72 > 128 ?
		      b.plen : src.plen, b.plen + 72 > 128 ?
		      "IPv4 DA and Args.Mob.Session (72 bits)" :
		      "IPv4 SA (32 bits)");
		return -1;
	}
	if (pol->family != AF_INET) {
		error(p, "route: encap gtp4 steers IPv4 GTP-U: its prefix must "
		      "be IPv4");
		return -1;
	}
	if (argc > 4 && policy_attrs(p, "route", pol, argc, argv, 4, NULL) < 0)
		return -1;
	if (pol->hmac_keyid) {
		error(p, "route: encap gtp4 takes no hmac (the last segment "
		      "changes per packet, after any signature)");
		return -1;
	}
	if (!pol->nlists) {
		pol->nlists = 1;
		pol->weights[0] = 1;
	}
	for (unsigned l = 0; l < pol->nlists; l++) {
		if (pol->lists[l].nsegs == SRV6_MAX_SEGS) {
			error(p, "route: too many segments with mob-prefix (at "
			      "most %d)", SRV6_MAX_SEGS);
			return -1;
		}
		pol->lists[l].segs[pol->lists[l].nsegs++] = b.a6;
	}
	pol->mode = ENCAP_MODE_ENCAP;
	pol->gtp4d = true;
	pol->mob_plen = (uint8_t)b.plen;
	pol->src_plen = (uint8_t)src.plen;
	pol->src_prefix = src.a6;
	return add_policy(p, pol);
}

static int parse_route(struct parser *p, int argc, char **argv)
{
	struct policy pol = { .line = p->line };
	struct prefix pf;
	int rc = 0;

	if (route_table(p, &pol, &argc, argv) < 0)
		return -1;

	if (argc < 2) {
		error(p, "route: missing argument (expected PREFIX encap seg6 "
		      "mode MODE segs SEGMENTS)");
		return -1;
	}
	if (get_prefix(p, "route", argv[1], true, &pf) < 0)
		rc = -1;
	pol.family = pf.family;
	if (pf.family == AF_INET)
		pol.prefix.v4 = pf.a4;
	else
		pol.prefix.v6 = pf.a6;
	pol.plen = (uint8_t)pf.plen;
	if (argc < 3) {
		error(p, "route: missing 'encap seg6 mode MODE segs SEGMENTS' "
		      "after the prefix");
		return -1;
	}
	if (strcmp(argv[2], "encap")) {
		error(p, "route: expected 'encap' after the prefix, found '%s'",
		      quote(p, argv[2]));
		return -1;
	}
	if (argc < 4) {
		error(p, "route: 'encap' needs a type (seg6)");
		return -1;
	}
	if (!strcmp(argv[3], "gtp4"))
		return rc < 0 ? -1 : route_gtp4(p, &pol, argc, argv);
	if (strcmp(argv[3], "seg6")) {
		error(p, "route: expected encapsulation type seg6 or gtp4, "
		      "found '%s'",
		      quote(p, argv[3]));
		return -1;
	}
	if (route_attrs(p, &pol, argc, argv) < 0 || rc < 0)
		return -1;
	if (pol.family == AF_INET && (pol.mode == ENCAP_MODE_INLINE ||
				      pol.mode == ENCAP_MODE_INLINE_RED)) {
		error(p, "route: mode %s needs an IPv6 prefix (%s is IPv4; "
		      "use encap or encap.red)", encap_mode_names[pol.mode],
		      fmt_policy(p, &pol));
		return -1;
	}
	return add_policy(p, &pol);
}

/* ---- hmac --------------------------------------------------------------- */

static const char *const hmac_alg_names[] = {
	[HMAC_ALG_SHA1] = "sha1",
	[HMAC_ALG_SHA256] = "sha256",
};

/* Read the secret of an hmac key: the file's bytes, one final newline
 * removed; the file must be a regular file that others can neither read
 * nor write. */
static int read_secret(struct parser *p, const char *path,
		       struct hmac_key *k)
{
	uint8_t buf[HMAC_MAX_SECRET + 2];
	struct stat st;
	ssize_t n;
	int fd, rc = -1;

	if (path[0] != '/') {
		error(p, "hmac: secret-file '%s' is not an absolute path",
		      quote(p, path));
		return -1;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		error(p, "hmac: cannot open secret-file %s: %s", quote(p, path),
		      strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		error(p, "hmac: secret-file %s is not a regular file",
		      quote(p, path));
		goto out;
	}
	if (st.st_mode & (S_IROTH | S_IWOTH)) {
		error(p, "hmac: secret-file %s is accessible by others (mode "
		      "%04o): chmod o-rw it", quote(p, path),
		      (unsigned)(st.st_mode & 07777));
		goto out;
	}
	n = read(fd, buf, sizeof(buf));
	if (n < 0) {
		error(p, "hmac: cannot read secret-file %s: %s", quote(p, path),
		      strerror(errno));
		goto out;
	}
	if (n > 0 && buf[n - 1] == '\n')
		n--;
	if (n < 1 || n > HMAC_MAX_SECRET) {
		error(p, "hmac: secret-file %s must hold 1-%d bytes (one final "
		      "newline aside)", quote(p, path), HMAC_MAX_SECRET);
		goto out;
	}
	memcpy(k->secret, buf, (size_t)n);
	k->len = (size_t)n;
	rc = 0;
out:
	explicit_bzero(buf, sizeof(buf));
	close(fd);
	return rc;
}

/* hmac ID sha1|sha256 secret-file PATH */
static int parse_hmac(struct parser *p, int argc, char **argv)
{
	struct config *cfg = p->cfg;
	struct hmac_key k = { .line = p->line };
	const struct hmac_key *o;
	uint64_t id;

	if (check_args(p, argc, argv, 5, "KEYID sha1|sha256 secret-file PATH") < 0)
		return -1;
	if (get_number(p, "hmac", "key id", argv[1], 1, UINT32_MAX, &id) < 0)
		return -1;
	k.id = (uint32_t)id;
	if (!strcmp(argv[2], "sha1")) {
		k.alg = HMAC_ALG_SHA1;
	} else if (!strcmp(argv[2], "sha256")) {
		k.alg = HMAC_ALG_SHA256;
	} else {
		error(p, "hmac: unknown algorithm '%s' (expected sha1 or sha256)",
		      quote(p, argv[2]));
		return -1;
	}
	if (strcmp(argv[3], "secret-file")) {
		error(p, "hmac: expected 'secret-file' after the algorithm, "
		      "found '%s'", quote(p, argv[3]));
		return -1;
	}
	o = config_hmac_key(cfg, k.id);
	if (o) {
		error(p, "hmac: key %" PRIu32 " is already defined at line %u",
		      k.id, o->line);
		return -1;
	}
	if (read_secret(p, argv[4], &k) < 0)
		return -1;
	if (cfg->nhmac_keys == p->hmac_cap) {
		unsigned cap = p->hmac_cap ? p->hmac_cap * 2 : 8;
		struct hmac_key *n = realloc(cfg->hmac_keys, cap * sizeof(*n));

		if (!n) {
			explicit_bzero(&k, sizeof(k));
			error(p, "out of memory");
			return -1;
		}
		cfg->hmac_keys = n;
		p->hmac_cap = cap;
	}
	cfg->hmac_keys[cfg->nhmac_keys++] = k;
	explicit_bzero(&k, sizeof(k));
	return 0;
}

/* control-group NAME|GID: the group must exist (a number is taken as is). */
static int parse_control_group(struct parser *p, int argc, char **argv)
{
	struct group gr, *res = NULL;
	char buf[4096], *end;
	unsigned long n;
	int rc;

	if (check_args(p, argc, argv, 2, "a group name or number") < 0)
		return -1;
	errno = 0;
	n = strtoul(argv[1], &end, 10);
	if (argv[1][0] >= '0' && argv[1][0] <= '9' && !*end) {
		if (errno || n >= (gid_t)-1) {
			error(p, "control-group: %s is out of range (0-%u)",
			      quote(p, argv[1]), (unsigned)((gid_t)-1 - 1));
			return -1;
		}
		p->cfg->control_gid = (gid_t)n;
	} else {
		rc = getgrnam_r(argv[1], &gr, buf, sizeof(buf), &res);
		if (rc || !res) {
			error(p, "control-group: no group '%s'%s%s",
			      quote(p, argv[1]), rc ? ": " : "",
			      rc ? strerror(rc) : "");
			return -1;
		}
		p->cfg->control_gid = res->gr_gid;
	}
	p->cfg->has_control_group = true;
	return 0;
}

/* metrics-listen ADDRESS:PORT: "[IPV6]:PORT" or "IPV4:PORT", numeric
 * (no name is looked up). */
static int parse_metrics_listen(struct parser *p, int argc, char **argv)
{
	const char *w = argv[1], *colon, *port;
	char addr[INET6_ADDRSTRLEN + 1], *end;
	struct config *cfg = p->cfg;
	unsigned long n;
	size_t len;

	if (check_args(p, argc, argv, 2, "an address and port like "
		       "[::1]:9586 or 127.0.0.1:9586") < 0)
		return -1;
	colon = strrchr(w, ':');
	if (w[0] == '[') {
		const char *close = strchr(w, ']');

		colon = close && close[1] == ':' ? close + 1 : NULL;
		len = close ? (size_t)(close - w - 1) : 0;
		w++;
		cfg->metrics_family = AF_INET6;
	} else {
		len = colon ? (size_t)(colon - w) : 0;
		cfg->metrics_family = AF_INET;
	}
	port = colon ? colon + 1 : "";
	errno = 0;
	n = strtoul(port, &end, 10);
	if (!colon || !len || len >= sizeof(addr) || *end || !*port ||
	    *port < '0' || *port > '9' || errno || n == 0 || n > 65535) {
		error(p, "metrics-listen: expected an address and port like "
		      "[::1]:9586 or 127.0.0.1:9586, found '%s'",
		      quote(p, argv[1]));
		return -1;
	}
	snprintf(addr, sizeof(addr), "%.*s", (int)len, w);
	if (inet_pton(cfg->metrics_family, addr, &cfg->metrics_addr) != 1) {
		error(p, "metrics-listen: '%s' is not an IPv%c address (an "
		      "IPv6 one goes in brackets)", quote(p, addr),
		      cfg->metrics_family == AF_INET6 ? '6' : '4');
		return -1;
	}
	cfg->metrics_port = (uint16_t)n;
	cfg->has_metrics = true;
	return 0;
}

/* DIRECTIVE yes|no into *val. */
static int parse_yes_no(struct parser *p, int argc, char **argv, bool *val)
{
	if (check_args(p, argc, argv, 2, "yes or no") < 0)
		return -1;
	if (!strcmp(argv[1], "yes")) {
		*val = true;
	} else if (!strcmp(argv[1], "no")) {
		*val = false;
	} else {
		error(p, "%s: expected yes or no, found '%s'", argv[0],
		      quote(p, argv[1]));
		return -1;
	}
	return 0;
}

/* kernel-routes yes|no */
static int parse_kernel_routes(struct parser *p, int argc, char **argv)
{
	if (check_args(p, argc, argv, 2, "yes or no") < 0)
		return -1;
	if (strcmp(argv[1], "yes") && strcmp(argv[1], "no")) {
		error(p, "kernel-routes: expected yes or no, found '%s'",
		      quote(p, argv[1]));
		return -1;
	}
	p->cfg->kernel_routes = !strcmp(argv[1], "yes");
	return 0;
}

/* steering auto|no: srv6d's own queue rules (steer.h), or none. */
static int parse_steering(struct parser *p, int argc, char **argv)
{
	if (check_args(p, argc, argv, 2, "auto or no") < 0)
		return -1;
	if (strcmp(argv[1], "auto") && strcmp(argv[1], "no")) {
		error(p, "steering: expected auto or no, found '%s'",
		      quote(p, argv[1]));
		return -1;
	}
	p->cfg->steering = !strcmp(argv[1], "auto");
	return 0;
}

/* hmac-require yes|no */
static int parse_hmac_require(struct parser *p, int argc, char **argv)
{
	return parse_yes_no(p, argc, argv, &p->cfg->hmac_require);
}

/* offload yes|no: super-packets whole (the queues' NFQA_CFG_F_GSO) with
 * the kernel's seg6 and End at auto, or none of it. */
static int parse_offload(struct parser *p, int argc, char **argv)
{
	if (parse_yes_no(p, argc, argv, &p->offload) < 0)
		return -1;
	p->offload_line = p->line;
	p->cfg->gso = p->offload;
	return 0;
}

/* gso yes|no: the deprecated name of offload's queue binding; `gso no`
 * is `offload no` (kernel-encap and kernel-end need super-packets). */
static int parse_gso(struct parser *p, int argc, char **argv)
{
	warning(p, "'gso' is deprecated: use 'offload'");
	if (parse_yes_no(p, argc, argv, &p->gso) < 0)
		return -1;
	p->gso_line = p->line;
	p->cfg->gso = p->gso;
	return 0;
}

/* auto|yes|no into *mode and *line (`kernel-encap`, `kernel-end`). */
static int parse_auto_yes_no(struct parser *p, int argc, char **argv,
			     enum kernel_encap_mode *mode, unsigned *line)
{
	static const char *const names[] = { "auto", "yes", "no" };

	if (check_args(p, argc, argv, 2, "auto, yes or no") < 0)
		return -1;
	for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (strcmp(argv[1], names[i]))
			continue;
		*mode = (enum kernel_encap_mode)i;
		*line = p->line;
		return 0;
	}
	error(p, "%s: expected auto, yes or no, found '%s'", argv[0],
	      quote(p, argv[1]));
	return -1;
}

/* kernel-encap auto|yes|no: deprecated, an override of what `offload`
 * sets (auto with offload yes). */
static int parse_kernel_encap(struct parser *p, int argc, char **argv)
{
	warning(p, "'kernel-encap' is deprecated: 'offload' sets it");
	return parse_auto_yes_no(p, argc, argv, &p->cfg->kernel_encap,
				 &p->cfg->kernel_encap_line);
}

/* kernel-end auto|yes|no: deprecated, like kernel-encap. */
static int parse_kernel_end(struct parser *p, int argc, char **argv)
{
	warning(p, "'kernel-end' is deprecated: 'offload' sets it");
	return parse_auto_yes_no(p, argc, argv, &p->cfg->kernel_end,
				 &p->cfg->kernel_end_line);
}

/* ---- lines -------------------------------------------------------------- */

static const struct directive {
	const char *name;
	int (*parse)(struct parser *p, int argc, char **argv);
	bool once;			/* may appear at most once */
} directives[] = {
	{ "queue", parse_queue, true },
	{ "encap-source", parse_encap_source, true },
	{ "sid", parse_sid, false },
	{ "route", parse_route, false },
	{ "tun-name", parse_tun_name, true },
	{ "reinject", parse_reinject, true },
	{ "mark-base", parse_mark_base, true },
	{ "mark-mask", parse_mark_mask, true },
	{ "rule-priority", parse_rule_priority, true },
	{ "icmp-rate", parse_icmp_rate, true },
	{ "icmp-burst", parse_icmp_burst, true },
	{ "hmac", parse_hmac, false },
	{ "hmac-require", parse_hmac_require, true },
	{ "control-group", parse_control_group, true },
	{ "kernel-routes", parse_kernel_routes, true },
	{ "offload", parse_offload, true },
	{ "gso", parse_gso, true },
	{ "kernel-encap", parse_kernel_encap, true },
	{ "kernel-end", parse_kernel_end, true },
	{ "header-queue", parse_header_queue, true },
	{ "metrics-listen", parse_metrics_listen, true },
	{ "steering", parse_steering, true },
	{ "oam-copy", parse_oam_copy, true },
	{ "oam-copy-len", parse_oam_copy_len, true },
	{ "oam-rate", parse_oam_rate, true },
	{ "oam-burst", parse_oam_burst, true },
};

#define NDIRECTIVES	(sizeof(directives) / sizeof(directives[0]))
#define D_QUEUE		0
#define D_ENCAP_SOURCE	1

static void parse_words(struct parser *p, int argc, char **argv)
{
	unsigned i;

	for (i = 0; i < NDIRECTIVES; i++)
		if (!strcmp(argv[0], directives[i].name))
			break;
	if (i == NDIRECTIVES) {
		char list[512];
		size_t n = 0;

		/* every directive of the table, so the message stays true */
		for (unsigned j = 0; j < NDIRECTIVES && n < sizeof(list); j++)
			n += (size_t)snprintf(list + n, sizeof(list) - n, "%s%s",
					      !j ? "" : j + 1 < NDIRECTIVES ?
					      ", " : " or ", directives[j].name);
		error(p, "unknown directive '%s' (expected %s)",
		      quote(p, argv[0]), list);
		return;
	}
	if (directives[i].once && p->seen[i]) {
		error(p, "duplicate '%s' directive (first at line %u)",
		      directives[i].name, p->seen[i]);
		return;
	}
	p->seen[i] = p->line;
	directives[i].parse(p, argc, argv);
}

static void parse_line(struct parser *p, const char *text, size_t len)
{
	char buf[CONFIG_MAX_LINE + 1], *argv[MAX_WORDS], *save = NULL, *w;
	int argc = 0;

	if (len > CONFIG_MAX_LINE) {
		error(p, "line is too long (%zu bytes, at most %d)", len,
		      CONFIG_MAX_LINE);
		return;
	}
	if (memchr(text, '\0', len)) {
		error(p, "line contains a NUL byte (not a text file?)");
		return;
	}
	memcpy(buf, text, len);
	buf[len] = '\0';
	w = strchr(buf, '#');
	if (w)
		*w = '\0';
	for (w = strtok_r(buf, " \t\r\v\f", &save); w;
	     w = strtok_r(NULL, " \t\r\v\f", &save)) {
		if (argc == MAX_WORDS) {
			error(p, "too many words on the line (at most %d)",
			      MAX_WORDS);
			return;
		}
		argv[argc++] = w;
	}
	if (argc)
		parse_words(p, argc, argv);
}

static void parse_lines(struct parser *p, const char *text, size_t len)
{
	const char *pos = text, *end = text + len;

	while (pos < end) {
		const char *nl = memchr(pos, '\n', (size_t)(end - pos));
		const char *eol = nl ? nl : end;

		p->line++;
		parse_line(p, pos, (size_t)(eol - pos));
		pos = nl ? nl + 1 : end;
	}
	p->line = 0;
}

/* ---- whole-file checks and tables --------------------------------------- */

/* Which line turned super-packets off, for a message: "'offload no'
 * (line N)" or "'gso no' (line N)". */
static const char *offload_off_by(struct parser *p)
{
	char *b = next_buf(p);

	if (p->gso_line && !p->gso)
		snprintf(b, BUF_LEN, "'gso no' (line %u)", p->gso_line);
	else
		snprintf(b, BUF_LEN, "'offload no' (line %u)", p->offload_line);
	return b;
}

/* `offload` and the deprecated `gso` both given, and different. */
static bool offload_contradicted(const struct parser *p)
{
	return p->offload_line && p->gso_line && p->offload != p->gso;
}

/* offload and the deprecated gso agree; kernel-encap yes and kernel-end
 * yes need super-packets. */
static void check_offload(struct parser *p)
{
	const struct config *cfg = p->cfg;

	if (offload_contradicted(p)) {
		error_at(p, p->gso_line, "gso %s contradicts 'offload %s' at "
			 "line %u", p->gso ? "yes" : "no",
			 p->offload ? "yes" : "no", p->offload_line);
		return;
	}
	if (cfg->kernel_encap == KERNEL_ENCAP_YES && !cfg->gso)
		error_at(p, cfg->kernel_encap_line, "kernel-encap yes: the "
			 "kernel encapsulates super-packets, which %s turns "
			 "off", offload_off_by(p));
	if (cfg->kernel_end == KERNEL_ENCAP_YES && !cfg->gso)
		error_at(p, cfg->kernel_end_line, "kernel-end yes: the "
			 "kernel's End rewrites super-packets, which %s turns "
			 "off", offload_off_by(p));
}

/* header-queue: one header queue per queue (worker i serves both), none
 * of them a queue of `queue`, and super-packets to cut short. */
/* `header-queue auto`: the queues after those of `queue`, when srv6d
 * installs the rules that feed them (steering auto) and super-packets
 * come (offload on); else none. */
static void header_queue_auto(struct config *cfg)
{
	unsigned n = cfg->queue_last - cfg->queue_first + 1;

	if (!cfg->hqueue_auto || !cfg->steering || !cfg->gso ||
	    cfg->queue_last + n > 65535)	/* NFQUEUE numbers: 16 bits */
		return;
	cfg->has_hqueue = true;
	cfg->hqueue_first = cfg->queue_last + 1;
	cfg->hqueue_last = cfg->queue_last + n;
	cfg->hqueue_copy = CONFIG_HQ_COPY_DEFAULT;
}

static void check_header_queue(struct parser *p)
{
	struct config *cfg = p->cfg;

	if (!p->seen[D_QUEUE])
		return;
	header_queue_auto(cfg);
	if (!cfg->has_hqueue || cfg->hqueue_auto)
		return;
	if (cfg->hqueue_last - cfg->hqueue_first !=
	    cfg->queue_last - cfg->queue_first)
		error_at(p, cfg->hqueue_line, "header-queue: %u queues, but "
			 "'queue' has %u: each worker serves one queue and one "
			 "header queue", cfg->hqueue_last - cfg->hqueue_first + 1,
			 cfg->queue_last - cfg->queue_first + 1);
	else if (cfg->hqueue_first <= cfg->queue_last &&
		 cfg->queue_first <= cfg->hqueue_last)
		error_at(p, cfg->hqueue_line, "header-queue: %u-%u overlaps "
			 "the queues %u-%u of 'queue'", cfg->hqueue_first,
			 cfg->hqueue_last, cfg->queue_first, cfg->queue_last);
	if (!cfg->gso && !offload_contradicted(p))
		error_at(p, cfg->hqueue_line, "header-queue: a header queue is "
			 "for super-packets, which %s turns off",
			 offload_off_by(p));
}

/* mark-base under mark-mask (config.h config_mark_value()), or without
 * mark-mask under the mask mark-base gives (config_default_mark_mask():
 * the operator keeps the bits below mark-base's lowest set bit, at most
 * the low 16): its bits in the mask, its field value below the bounce
 * bit; mark_count offsets from it, as many as the field holds below the
 * bounce bit (at most CONFIG_MARK_RANGE), enough for every SID. */
static void check_marks(struct parser *p)
{
	struct config *cfg = p->cfg;
	unsigned line = p->mark_mask_line ? p->mark_mask_line :
					    p->mark_base_line;
	uint32_t bounce;
	uint64_t room;

	if (!p->mark_mask_line)	/* the operator keeps the bits below */
		cfg->mark_mask = config_default_mark_mask(cfg->mark_base);
	bounce = config_bounce_bit(cfg);
	cfg->mark_shift = (unsigned)__builtin_ctz(cfg->mark_mask);
	cfg->mark_count = 0;
	if (cfg->mark_base & ~cfg->mark_mask) {
		uint32_t low = (uint32_t)1 << cfg->mark_shift;
		uint32_t like = ((CONFIG_MARK_BASE_MIN + low - 1) /
				 low) * low;

		if (like < bounce)
			error_at(p, line, "mark-base %#" PRIx32 " has bits "
				 "outside mark-mask %#" PRIx32 ": srv6d's marks "
				 "are mark-base plus an offset under the mask "
				 "(take a mark-base inside it, like %#" PRIx32
				 ")", cfg->mark_base, cfg->mark_mask, like);
		else
			error_at(p, line, "mark-mask %#" PRIx32 " holds no "
				 "mark-base (at least %u, inside the mask, "
				 "below its highest bit): take a mask that "
				 "reaches higher", cfg->mark_mask,
				 CONFIG_MARK_BASE_MIN);
		return;
	}
	if (cfg->mark_base >= bounce) {
		error_at(p, line, "mark-base %#" PRIx32 " takes mark-mask "
			 "%#" PRIx32 "'s highest bit %#" PRIx32 ", the bounce "
			 "bit: take a mark-base below it or another "
			 "mark-mask", cfg->mark_base, cfg->mark_mask, bounce);
		return;
	}
	room = (uint64_t)(bounce - cfg->mark_base) >> cfg->mark_shift;
	cfg->mark_count = room < CONFIG_MARK_RANGE ? (uint32_t)room :
						     CONFIG_MARK_RANGE;
	if (cfg->nsids + 1 > cfg->mark_count)
		error_at(p, line, "%u SIDs need more marks than the %" PRIu32
			 " mark-base %#" PRIx32 " leaves under %smark-mask %#"
			 PRIx32 " below its bounce bit: widen mark-mask or "
			 "lower mark-base", cfg->nsids, cfg->mark_count - 1,
			 cfg->mark_base, p->mark_mask_line ? "" :
			 "the default ", cfg->mark_mask);
}

/* encap-source is optional: without it the workers pick the outer source
 * per egress from the route mirror (egress.h), as the kernel would. */
static void check_required(struct parser *p)
{
	if (!p->seen[D_QUEUE])
		error_at(p, 0, "missing 'queue' directive (the NFQUEUE number "
			 "or range to serve, like 'queue 0-3')");
	check_offload(p);
	check_header_queue(p);
	check_marks(p);
	check_oam(p);
}

/* SIDs into cfg->sid_table; the same prefix twice is an error.  A SID
 * inside another is not: a packet goes by the longest SID prefix that
 * covers its destination (lpm_lookup()), as with the kernel's seg6local
 * routes (FRR's uA SIDs lie inside their node's uN locator). */
static int build_sid_table(struct parser *p, bool *lens)
{
	struct config *cfg = p->cfg;

	for (unsigned i = 0; i < cfg->nsids; i++) {
		struct sid *s = &cfg->sids[i];
		int rc = lpm_insert(cfg->sid_table, &s->prefix, s->plen, s);
		const struct sid *o;

		if (rc == -ENOMEM) {
			error_at(p, 0, "out of memory");
			return -1;
		}
		if (rc == -EEXIST) {
			o = lpm_get(cfg->sid_table, &s->prefix, s->plen);
			error_at(p, s->line, "sid %s is already defined at line %u",
				 fmt_prefix6(p, &s->prefix, s->plen), o->line);
		}
		lens[s->plen] = true;
	}
	return 0;
}

static void policy_key(const struct policy *pol, struct in6_addr *k,
		       unsigned *plen)
{
	if (pol->family == AF_INET6) {
		*k = pol->prefix.v6;
		*plen = pol->plen;
	} else {
		lpm_v4_key(k, pol->prefix.v4);
		*plen = 96u + pol->plen;
	}
}

/* The index in tabs[0..n) (sorted by table) of `table`, or where it
 * would go. */
static unsigned ptable_pos(const struct policy_table *tabs, unsigned n,
			   uint32_t table)
{
	unsigned lo = 0, hi = n;

	while (lo < hi) {
		unsigned mid = lo + (hi - lo) / 2;

		if (tabs[mid].table < table)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Returns the policies of `table`, or NULL when it has none (the packet
 * path: a binary search over the few tables). */
const struct policy_table *config_policy_table(const struct config *cfg,
					       uint32_t table)
{
	unsigned i;

	if (cfg->nptables == 1)		/* the common case: main only */
		return cfg->ptables[0].table == table ? &cfg->ptables[0] : NULL;
	i = ptable_pos(cfg->ptables, cfg->nptables, table);
	return i < cfg->nptables && cfg->ptables[i].table == table ?
	       &cfg->ptables[i] : NULL;
}

/* Returns table's policy for IPv6 dst, or NULL. */
const struct policy *config_policy_lookup6(const struct config *cfg,
					   uint32_t table,
					   const struct in6_addr *dst)
{
	const struct policy_table *t = config_policy_table(cfg, table);

	return t ? lpm_lookup(t->v6, dst) : NULL;
}

/* Returns table's policy for IPv4 dst, or NULL. */
const struct policy *config_policy_lookup4(const struct config *cfg,
					   uint32_t table, struct in_addr dst)
{
	const struct policy_table *t = config_policy_table(cfg, table);
	struct in6_addr key;

	if (!t)
		return NULL;
	lpm_v4_key(&key, dst);
	return lpm_lookup(t->v4, &key);
}

/* The steering table of `table` in *tabs (*n of them, sorted by
 * table), created in its sorted place.  Returns it, or NULL when memory
 * runs out. */
static struct policy_table *ptable_get(struct policy_table **tabs,
				       unsigned *n, uint32_t table)
{
	unsigned i = ptable_pos(*tabs, *n, table);
	struct policy_table *a, *t;

	if (i < *n && (*tabs)[i].table == table)
		return &(*tabs)[i];
	a = realloc(*tabs, (*n + 1) * sizeof(*a));
	if (!a)
		return NULL;
	*tabs = a;
	t = &a[i];
	memmove(t + 1, t, (*n - i) * sizeof(*t));
	t->table = table;
	t->v6 = lpm_new();
	t->v4 = lpm_new();
	(*n)++;
	if (!t->v6 || !t->v4) {
		lpm_free(t->v6);
		lpm_free(t->v4);
		(*n)--;
		memmove(t, t + 1, (*n - i) * sizeof(*t));
		return NULL;
	}
	return t;
}

/* Free tabs[0..n) and their LPMs. */
static void ptables_free(struct policy_table *tabs, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		lpm_free(tabs[i].v6);
		lpm_free(tabs[i].v4);
	}
	free(tabs);
}

/* Returns 0, -EEXIST (*dup set) or -ENOMEM (config.h). */
int config_policy_insert(struct config *cfg, struct policy *pol,
			 const struct policy **dup)
{
	struct policy_table *t = ptable_get(&cfg->ptables, &cfg->nptables,
					    pol->table);
	struct lpm *l;
	struct in6_addr k;
	unsigned plen;
	int rc;

	if (!t)
		return -ENOMEM;
	l = pol->family == AF_INET6 ? t->v6 : t->v4;
	policy_key(pol, &k, &plen);
	rc = lpm_insert(l, &k, plen, pol);
	if (rc == -EEXIST && dup)
		*dup = lpm_get(l, &k, plen);
	return rc;
}

/* Routes into their table's cfg->ptables; the same prefix twice in one
 * table is an error. */
static int build_policy_tables(struct parser *p, bool *lens6)
{
	struct config *cfg = p->cfg;

	for (unsigned i = 0; i < cfg->npolicies; i++) {
		struct policy *pol = &cfg->policies[i];
		const struct policy *o = NULL;
		int rc = config_policy_insert(cfg, pol, &o);

		if (rc == -ENOMEM) {
			error_at(p, 0, "out of memory");
			return -1;
		}
		if (rc == -EEXIST)
			error_at(p, pol->line, "route %s%s is already defined "
				 "at line %u", fmt_policy(p, pol),
				 fmt_table(p, pol), o->line);
		if (pol->family == AF_INET6)
			lens6[pol->plen] = true;
	}
	return 0;
}

/* The policy in its table's steering table (not a duplicate). */
static bool policy_is_installed(const struct config *cfg,
				const struct policy *r)
{
	const struct policy_table *t = config_policy_table(cfg, r->table);
	struct in6_addr k;
	unsigned plen;

	if (!t)
		return false;
	policy_key(r, &k, &plen);
	return lpm_get(r->family == AF_INET6 ? t->v6 : t->v4, &k, plen) == r;
}

/* An IPv6 route equal to, inside or around a SID: a packet to the common
 * part would match both. Reported at the route's line. */
static void check_route_sid_overlap(struct parser *p, const bool *sid_lens,
				    const bool *route_lens)
{
	const struct config *cfg = p->cfg;

	for (unsigned i = 0; i < cfg->npolicies; i++) {
		const struct policy *r = &cfg->policies[i];

		if (r->family != AF_INET6 || !policy_is_installed(cfg, r))
			continue;
		for (unsigned len = 0; len <= r->plen; len++) {
			const struct sid *s;

			if (!sid_lens[len])
				continue;
			s = lpm_get(cfg->sid_table, &r->prefix.v6, len);
			if (s)
				error_at(p, r->line, "route %s %s sid %s at line %u "
					 "(a packet to it would match both)",
					 fmt_policy(p, r), len == r->plen ?
					 "is the same prefix as" : "is inside",
					 fmt_prefix6(p, &s->prefix, s->plen), s->line);
		}
	}
	for (unsigned i = 0; i < cfg->nsids; i++) {
		const struct sid *s = &cfg->sids[i];

		if (lpm_get(cfg->sid_table, &s->prefix, s->plen) != s)
			continue;
		for (unsigned len = 0; len < s->plen; len++) {
			if (!route_lens[len])
				continue;
			for (unsigned t = 0; t < cfg->nptables; t++) {
				const struct policy *r;

				r = lpm_get(cfg->ptables[t].v6, &s->prefix, len);
				if (r)
					error_at(p, r->line, "route %s%s contains "
						 "sid %s at line %u (a packet to "
						 "it would match both)",
						 fmt_policy(p, r), fmt_table(p, r),
						 fmt_prefix6(p, &s->prefix, s->plen),
						 s->line);
			}
		}
	}
}

/* index of every SID and policy (their counters' slots). */
static void assign_indexes(struct parser *p)
{
	struct config *cfg = p->cfg;

	for (unsigned i = 0; i < cfg->nsids; i++)
		cfg->sids[i].index = i;
	for (unsigned i = 0; i < cfg->npolicies; i++)
		cfg->policies[i].index = i;
}

/* sid->policy of every binding SID: its policies were appended to
 * bsid_policies in the order of the SIDs. */
static void bind_policies(struct parser *p)
{
	struct config *cfg = p->cfg;
	unsigned n = 0;

	for (unsigned i = 0; i < cfg->nsids; i++) {
		struct sid *s = &cfg->sids[i];

		s->policy = NULL;
		if (!behavior_is_binding(s->behavior) ||
		    n == cfg->nbsid_policies)
			continue;
		s->policy = &cfg->bsid_policies[n++];
		s->policy->index = s->index;
	}
}

/* Every `hmac N` of a policy names a key of the file. */
static void check_hmac_refs(struct parser *p, const struct policy *pols,
			    unsigned n, const char *dir)
{
	for (unsigned i = 0; i < n; i++) {
		uint32_t id = pols[i].hmac_keyid;

		if (id && !config_hmac_key(p->cfg, id))
			error_at(p, pols[i].line, "%s: hmac key %" PRIu32 " is not "
				 "defined (add 'hmac %" PRIu32 " sha256 secret-file "
				 "PATH')", dir, id, id);
	}
}

/* An End.T table inside the daemon's own range: its routes would be taken
 * for stale ones of the daemon and removed. */
static void check_end_t_tables(struct parser *p)
{
	const struct config *cfg = p->cfg;

	for (unsigned i = 0; i < cfg->nsids; i++) {
		const struct sid *s = &cfg->sids[i];

		if (behavior_desc(s->behavior)->route != BHV_ROUTE_TABLE ||
		    s->table < cfg->mark_base ||
		    s->table - cfg->mark_base >= CONFIG_MARK_RANGE)
			continue;
		error_at(p, s->line, "sid %s: table %" PRIu32 " is in the range "
			 "srv6d owns (mark-base %" PRIu32 " to %" PRIu32 "); use "
			 "another table or mark-base",
			 fmt_prefix6(p, &s->prefix, s->plen), s->table,
			 cfg->mark_base, cfg->mark_base + (CONFIG_MARK_RANGE - 1));
	}
}

static int build_tables(struct parser *p)
{
	struct config *cfg = p->cfg;
	bool sid_lens[129] = { false }, route_lens[129] = { false };

	cfg->sid_table = lpm_new();
	if (!cfg->sid_table) {
		error_at(p, 0, "out of memory");
		return -1;
	}
	if (build_sid_table(p, sid_lens) < 0 ||
	    build_policy_tables(p, route_lens) < 0)
		return -1;
	check_route_sid_overlap(p, sid_lens, route_lens);
	assign_indexes(p);
	bind_policies(p);
	check_end_t_tables(p);
	check_hmac_refs(p, cfg->policies, cfg->npolicies, "route");
	check_hmac_refs(p, cfg->bsid_policies, cfg->nbsid_policies, "sid");
	return 0;
}

/* ---- entry points ------------------------------------------------------- */

static struct config *config_new(const char *name)
{
	struct config *cfg = calloc(1, sizeof(*cfg));

	if (!cfg)
		return NULL;
	cfg->path = strdup(name);
	if (!cfg->path) {
		free(cfg);
		return NULL;
	}
	memcpy(cfg->tun_name, CONFIG_DEFAULT_TUN, sizeof(CONFIG_DEFAULT_TUN));
	cfg->mark_base = CONFIG_DEFAULT_MARK_BASE;
	cfg->mark_mask = CONFIG_DEFAULT_MARK_MASK;
	cfg->mark_count = CONFIG_MARK_RANGE;	/* check_marks() sets it */
	cfg->rule_priority = CONFIG_DEFAULT_RULE_PRIO;
	cfg->icmp_rate = CONFIG_DEFAULT_ICMP_RATE;
	cfg->icmp_burst = CONFIG_DEFAULT_ICMP_BURST;
	cfg->oam.copy_len = CONFIG_DEFAULT_OAM_COPY_LEN;
	cfg->oam.rate = CONFIG_DEFAULT_OAM_RATE;
	cfg->oam.burst = CONFIG_DEFAULT_OAM_BURST;
	cfg->gso = true;	/* `offload yes` */
	cfg->steering = true;	/* `steering auto` */
	cfg->hqueue_auto = true;	/* `header-queue auto` */
	return cfg;
}

/* Parse and validate len bytes of text; name is used in messages.  Returns
 * the config, or NULL after reporting every error through err (stderr when
 * err is NULL); warnings go to warn (none when NULL) and do not fail. */
struct config *config_parse_buffer_warn(const char *name, const char *text,
					size_t len, config_error_fn err,
					config_error_fn warn, void *arg)
{
	unsigned seen[NDIRECTIVES] = { 0 };
	struct parser p = {
		.name = name, .err = err, .warn = warn, .arg = arg,
		.seen = seen,
	};

	p.cfg = config_new(name);
	if (!p.cfg) {
		error_at(&p, 0, "out of memory");
		return NULL;
	}
	parse_lines(&p, text, len);
	check_required(&p);
	build_tables(&p);
	if (p.errors) {
		config_free(p.cfg);
		return NULL;
	}
	return p.cfg;
}

/* config_parse_buffer_warn() without the warnings. */
struct config *config_parse_buffer(const char *name, const char *text,
				   size_t len, config_error_fn err, void *arg)
{
	return config_parse_buffer_warn(name, text, len, err, NULL, arg);
}

/* Read the whole file (at most CONFIG_MAX_FILE bytes) into *text. */
static int read_file(FILE *f, char **text, size_t *len)
{
	size_t cap = 0, n = 0;
	char *buf = NULL;

	for (;;) {
		size_t got;

		if (n == cap) {
			char *nb;

			if (cap >= CONFIG_MAX_FILE) {
				free(buf);
				return -EFBIG;
			}
			cap = cap ? cap * 2 : 65536;
			nb = realloc(buf, cap + 1);
			if (!nb) {
				free(buf);
				return -ENOMEM;
			}
			buf = nb;
		}
		got = fread(buf + n, 1, cap - n, f);
		n += got;
		if (got == 0)
			break;
	}
	if (ferror(f)) {
		free(buf);
		return -EIO;
	}
	*text = buf;
	*len = n;
	return 0;
}

/* Parse and validate the file at path (see config_parse_buffer_warn()). */
struct config *config_parse_file_warn(const char *path, config_error_fn err,
				      config_error_fn warn, void *arg)
{
	struct parser p = { .name = path, .err = err, .arg = arg };
	struct config *cfg;
	char *text = NULL;
	size_t len = 0;
	FILE *f;
	int rc;

	f = fopen(path, "re");
	if (!f) {
		error_at(&p, 0, "cannot open: %s", strerror(errno));
		return NULL;
	}
	rc = read_file(f, &text, &len);
	fclose(f);
	if (rc == -EFBIG) {
		error_at(&p, 0, "file is too large (more than %d bytes)",
			 CONFIG_MAX_FILE);
		return NULL;
	}
	if (rc < 0) {
		error_at(&p, 0, "cannot read: %s", strerror(-rc));
		return NULL;
	}
	cfg = config_parse_buffer_warn(path, text, len, err, warn, arg);
	free(text);
	return cfg;
}

/* config_parse_file_warn() without the warnings. */
struct config *config_parse_file(const char *path, config_error_fn err,
				 void *arg)
{
	return config_parse_file_warn(path, err, NULL, arg);
}

/* Frees everything the config owns, lookup tables included; NULL is
 * ignored. */
void config_free(struct config *cfg)
{
	if (!cfg)
		return;
	lpm_free(cfg->sid_table);
	ptables_free(cfg->ptables, cfg->nptables);
	free(cfg->sids);
	free(cfg->policies);
	free(cfg->bsid_policies);
	free(cfg->proxies);
	if (cfg->hmac_keys)
		explicit_bzero(cfg->hmac_keys,
			       cfg->nhmac_keys * sizeof(*cfg->hmac_keys));
	free(cfg->hmac_keys);
	free(cfg->path);
	free(cfg);
}

/* "End", "End.X", ...; "?" for a value out of range. */
const char *behavior_name(enum behavior b)
{
	const struct behavior_desc *d = behavior_desc(b);

	return d ? d->name : "?";
}

/* "encap", "encap.red", "inline", "inline.red"; "?" out of range. */
const char *encap_mode_name(enum encap_mode m)
{
	if ((unsigned)m >= NMODES)
		return "?";
	return encap_mode_names[m];
}

/* Writes the FLV_* bits as the config spells them ("psp,usd"; "" for none)
 * into buf, truncated to size.  Returns the length the full text needs. */
size_t config_flavors_format(unsigned flavors, char *buf, size_t size)
{
	size_t n = 0;

	if (size)
		buf[0] = '\0';
	for (unsigned i = 0; i < NFLAVORS; i++) {
		int w;

		if (!(flavors & flavor_names[i].flag))
			continue;
		w = snprintf(buf + (n < size ? n : 0), n < size ? size - n : 0,
			     "%s%s", n ? "," : "", flavor_names[i].name);
		n += (size_t)w;
	}
	return n;
}

/* The key `id` of cfg, or NULL (a linear search: a handful of keys, read
 * when a policy or a SID is set up, not per packet). */
const struct hmac_key *config_hmac_key(const struct config *cfg, uint32_t id)
{
	for (unsigned i = 0; i < cfg->nhmac_keys; i++)
		if (cfg->hmac_keys[i].id == id)
			return &cfg->hmac_keys[i];
	return NULL;
}

/* "sha1", "sha256"; "?" otherwise. */
const char *hmac_alg_name(enum hmac_alg a)
{
	if (a != HMAC_ALG_SHA1 && a != HMAC_ALG_SHA256)
		return "?";
	return hmac_alg_names[a];
}

/* ---- the kernel's routes (kernel-routes yes) ---------------------------- */

/* The merge's state: the candidates by prefix, who they are. */
struct merge {
	const struct config *file;
	const struct sid *ksids;
	unsigned nk;
	struct config_kroute_result *res;	/* nk */
	struct lpm *sids;			/* file's and kernel's */
	struct policy_table *ptabs;		/* file's policies per table,
						 * sorted */
	unsigned nptabs;
	bool sid_lens[129], pol_lens[129];
};

static bool is_file_sid(const struct merge *m, const struct sid *s)
{
	return s >= m->file->sids && s < m->file->sids + m->file->nsids;
}

static void kroute_set(struct config_kroute_result *r,
		       enum config_kroute_status st, const char *why,
		       unsigned line)
{
	if (r->status != CONFIG_KROUTE_APPLIED)
		return;		/* the first reason stays */
	r->status = st;
	r->why = why;
	r->line = line;
}

/* A SID still in the merge: the file's, or a kernel one not set aside. */
static bool sid_alive(const struct merge *m, const struct sid *s)
{
	return s && (is_file_sid(m, s) ||
		     m->res[s - m->ksids].status == CONFIG_KROUTE_APPLIED);
}

/* Every SID into m->sids: a kernel SID at the prefix of one before it is
 * shadowed (srv6d.conf's go first).  Returns 0 or -ENOMEM. */
static int merge_sids_insert(struct merge *m)
{
	for (unsigned i = 0; i < m->file->nsids; i++) {
		const struct sid *s = &m->file->sids[i];

		if (lpm_insert(m->sids, &s->prefix, s->plen, (void *)s) == -ENOMEM)
			return -ENOMEM;
		m->sid_lens[s->plen] = true;
	}
	for (unsigned i = 0; i < m->nk; i++) {
		const struct sid *s = &m->ksids[i], *o;
		int rc = lpm_insert(m->sids, &s->prefix, s->plen, (void *)s);

		if (rc == -ENOMEM)
			return rc;
		m->sid_lens[s->plen] = true;
		if (rc != -EEXIST)
			continue;
		o = lpm_get(m->sids, &s->prefix, s->plen);
		kroute_set(&m->res[i], CONFIG_KROUTE_SHADOWED, is_file_sid(m, o) ?
			   "the same SID is in srv6d.conf" :
			   "the same SID as another kernel route", o->line);
	}
	return 0;
}

/* A live kernel SID equal to or around the file's IPv6 policy p goes (a
 * packet to the common part would match both). */
static void merge_policy_vs_sids(struct merge *m, const struct policy *p)
{
	for (unsigned len = 0; len <= p->plen && p->family == AF_INET6; len++) {
		const struct sid *s;

		if (!m->sid_lens[len])
			continue;
		s = lpm_get(m->sids, &p->prefix.v6, len);
		if (sid_alive(m, s) && !is_file_sid(m, s))
			kroute_set(&m->res[s - m->ksids], CONFIG_KROUTE_SHADOWED,
				   "a SID around a policy of srv6d.conf",
				   p->line);
	}
}

/* Kernel SID s, if live and inside one of the file's policies of table t
 * (IPv6), goes. */
static void merge_sid_in_table(struct merge *m, const struct sid *s,
			       const struct policy_table *t)
{
	for (unsigned len = 0; len < s->plen; len++) {
		const struct policy *p;

		if (!m->pol_lens[len])
			continue;
		p = lpm_get(t->v6, &s->prefix, len);
		if (p && sid_alive(m, s))
			kroute_set(&m->res[s - m->ksids], CONFIG_KROUTE_SHADOWED,
				   "a SID inside a policy of srv6d.conf",
				   p->line);
	}
}

/* Kernel SID s inside a policy of any table (SIDs are every table's): the
 * same as merge_policy_vs_sids(), from the SID's side. */
static void merge_sid_in_policies(struct merge *m, const struct sid *s)
{
	for (unsigned t = 0; t < m->nptabs; t++)
		merge_sid_in_table(m, s, &m->ptabs[t]);
}

/* The file's policy p into its table's LPM of the merge.  Returns 0 or
 * -ENOMEM. */
static int merge_policy_insert(struct merge *m, const struct policy *p)
{
	struct policy_table *pt = ptable_get(&m->ptabs, &m->nptabs, p->table);
	struct in6_addr k;
	unsigned plen;

	if (!pt)
		return -ENOMEM;
	policy_key(p, &k, &plen);
	if (lpm_insert(p->family == AF_INET6 ? pt->v6 : pt->v4, &k, plen,
		       (void *)p) == -ENOMEM)
		return -ENOMEM;
	if (p->family == AF_INET6)
		m->pol_lens[p->plen] = true;
	return 0;
}

/* A table number in the range srv6d owns (mark-base on). */
static bool table_is_daemons(const struct config *f, uint32_t table)
{
	return table >= f->mark_base &&
	       table - f->mark_base < CONFIG_MARK_RANGE;
}

/* What srv6d refuses in a kernel SID even alone: an HMAC key srv6d.conf
 * does not have, an End.T/End.DT* table in the daemon's range. */
static void merge_refusals(struct merge *m)
{
	const struct config *f = m->file;

	for (unsigned i = 0; i < m->nk; i++) {
		const struct sid *s = &m->ksids[i];

		if (s->policy && s->policy->hmac_keyid &&
		    !config_hmac_key(f, s->policy->hmac_keyid))
			kroute_set(&m->res[i], CONFIG_KROUTE_REFUSED,
				   "its HMAC key id is not in srv6d.conf", 0);
		if (behavior_desc(s->behavior)->route == BHV_ROUTE_TABLE &&
		    table_is_daemons(f, s->table))
			kroute_set(&m->res[i], CONFIG_KROUTE_REFUSED,
				   "its table is in the range srv6d owns", 0);
	}
}

/* Decide each kernel route's fate into m->res.  Returns 0 or -ENOMEM. */
static int merge_decide(struct merge *m)
{
	const struct config *f = m->file;

	merge_refusals(m);
	if (merge_sids_insert(m) < 0)
		return -ENOMEM;
	/* a kernel SID gives way to the file's policies, of any table */
	for (unsigned i = 0; i < f->npolicies; i++)
		if (merge_policy_insert(m, &f->policies[i]) < 0)
			return -ENOMEM;
	for (unsigned i = 0; i < f->npolicies; i++)
		merge_policy_vs_sids(m, &f->policies[i]);
	for (unsigned i = 0; i < m->nk; i++)
		merge_sid_in_policies(m, &m->ksids[i]);
	return 0;
}

/* A copy of file, its tables left to build, room for nk extra SIDs.
 * NULL when memory runs out. */
static struct config *merge_base(const struct config *file, unsigned nk)
{
	struct config *cfg = config_new(file->path);
	char *path;

	if (!cfg)
		return NULL;
	path = cfg->path;
	*cfg = *file;
	cfg->path = path;
	cfg->sid_table = NULL;
	cfg->ptables = NULL;
	cfg->nptables = 0;
	cfg->sids = calloc(file->nsids + nk + 1, sizeof(*cfg->sids));
	cfg->bsid_policies = calloc(file->nbsid_policies + nk + 1,
				    sizeof(*cfg->bsid_policies));
	cfg->hmac_keys = calloc(file->nhmac_keys + 1, sizeof(*cfg->hmac_keys));
	cfg->policies = calloc(file->npolicies + 1, sizeof(*cfg->policies));
	cfg->proxies = calloc(file->nproxies + 1, sizeof(*cfg->proxies));
	if (!cfg->sids || !cfg->bsid_policies || !cfg->hmac_keys ||
	    !cfg->policies || !cfg->proxies) {
		config_free(cfg);
		return NULL;
	}
	memcpy(cfg->policies, file->policies,
	       file->npolicies * sizeof(*cfg->policies));
	memcpy(cfg->sids, file->sids, file->nsids * sizeof(*cfg->sids));
	memcpy(cfg->proxies, file->proxies,
	       file->nproxies * sizeof(*cfg->proxies));
	memcpy(cfg->bsid_policies, file->bsid_policies,
	       file->nbsid_policies * sizeof(*cfg->bsid_policies));
	memcpy(cfg->hmac_keys, file->hmac_keys,
	       file->nhmac_keys * sizeof(*cfg->hmac_keys));
	return cfg;
}

/* The applied kernel SIDs into cfg, after the file's. */
static void merge_append(struct config *cfg, const struct merge *m)
{
	for (unsigned i = 0; i < m->nk; i++) {
		const struct sid *s = &m->ksids[i];

		if (m->res[i].status != CONFIG_KROUTE_APPLIED)
			continue;
		if (cfg->nsids == CONFIG_MAX_SIDS) {
			m->res[i].status = CONFIG_KROUTE_REFUSED;
			m->res[i].why = "too many SIDs";
			continue;
		}
		cfg->sids[cfg->nsids++] = *s;
		if (behavior_is_binding(s->behavior))
			cfg->bsid_policies[cfg->nbsid_policies++] = *s->policy;
	}
}

/* config_error_fn of the merge: the first message into err. */
struct merge_err {
	char *buf;
	size_t len;
	bool set;
};

static void merge_error(void *arg, const char *file, unsigned line,
			const char *msg)
{
	struct merge_err *e = arg;

	if (e->set)
		return;
	e->set = true;
	snprintf(e->buf, e->len, "%s:%u: %s", file, line, msg);
}

struct config *config_merge_kernel(const struct config *file,
				   const struct sid *ksids, unsigned nk,
				   struct config_kroute_result *res,
				   char *err, size_t errlen)
{
	struct merge m = { .file = file, .ksids = ksids, .nk = nk,
			   .res = res };
	struct merge_err me = { .buf = err, .len = errlen };
	struct parser p = { .name = file->path, .err = merge_error, .arg = &me };
	struct config *cfg = NULL;

	if (nk)
		memset(res, 0, nk * sizeof(*res));
	m.sids = lpm_new();
	if (!m.sids || merge_decide(&m) < 0)
		goto oom;
	cfg = merge_base(file, nk);
	if (!cfg)
		goto oom;
	merge_append(cfg, &m);
	p.cfg = cfg;
	build_tables(&p);
	if (p.errors) {
		config_free(cfg);
		cfg = NULL;
	}
	goto out;
oom:
	snprintf(err, errlen, "out of memory");
out:
	lpm_free(m.sids);
	ptables_free(m.ptabs, m.nptabs);
	return cfg;
}

