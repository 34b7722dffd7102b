/* config.h - srv6d's configuration: parsed once, then read-only.
 *
 * A `struct config` is built by config_parse_*(), fully validated, and only
 * then handed to the workers.  Nothing writes it after the parse: what the
 * daemon decides for it on the running kernel (marks, payloads, the
 * kernel's routes) is its struct runstate (runstate.h).  A reload builds a
 * new pair and swaps the pointer (see docs/design.md).
 */
#ifndef SRV6D_CONFIG_H
#define SRV6D_CONFIG_H

#include <net/if.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/un.h>

#include "behavior_table.h"
#include "paths.h"		/* SYSCONFDIR: made by make (Makefile.am) */

#define SRV6_MAX_SEGS	16	/* segments in a policy's SRH */
#define SRV6_MAX_QUEUES	64

/* NEXT-C-SID defaults (RFC 9800 section 4.1 / Linux): LBL 32, LNFL 16. */
#define CSID_DEFAULT_LBLEN	32
#define CSID_DEFAULT_NFLEN	16
/* REPLACE-C-SID: RFC 9800 5.1 recommends 32-bit C-SIDs, 5.2 a block of
 * 48 to 80 bits. */
#define RCSID_DEFAULT_LBLEN	48
#define RCSID_DEFAULT_NFLEN	32

struct policy;

struct sid {
	struct in6_addr prefix;	/* masked to plen */
	uint8_t plen;
	enum behavior behavior;
	unsigned flavors;	/* FLV_* */
	uint8_t lblen, nflen;	/* C-SID flavors: locator block / C-SID length */
	struct in6_addr nh6;	/* End.X, End.DX6 */
	struct in_addr nh4;	/* End.DX4 */
	char oif[IF_NAMESIZE];	/* End.X, End.DX6, End.DX4 optional, End.DX2
				 * required; "" when absent */
	uint32_t table;		/* End.T, End.DT6, End.DT4, End.DT46 */
	bool vrf;		/* End.DT*: `vrftable` (table is a VRF device's) */
	/* Binding SIDs (End.B6, End.B6.Encaps, End.B6.Encaps.Red): the
	 * policy, owned by the config (config->bsid_policies), not in the
	 * steering tables; its counters are this SID's.  NULL otherwise. */
	struct policy *policy;
	unsigned index;		/* position in config->sids, counter slot */
	unsigned line;		/* config line, for messages */
	uint32_t ktable;	/* from a kernel route of this table
				 * (`kernel-routes yes`); 0: srv6d.conf's */
	/* RFC 9433 (src/srv6/mobile.h).  End.M.GTP6.D: the prefix length
	 * of `mob-prefix` B, its policy's last segment, where
	 * Args.Mob.Session goes.  End.M.GTP4.E: `v4src-position`, the bit
	 * of the IPv6 source where its IPv4 source starts. */
	uint8_t mob_plen;
	uint8_t v4src_pos;
	/* End.M.GTP6.Di: `encoding rfc` (the default, RFC 9433 6.4: the
	 * outer source S, the headend's) or `encoding vpp` (VPP's node:
	 * the GTP-U packet's own source, the gNB's). */
	bool di_vpp;
	/* End.M.GTP6.E: `source`, its S (RFC 9433 6.5 S04); without it the
	 * packet's own source is kept (VPP's). */
	bool has_source;
	struct in6_addr source;
	/* SR proxies (End.AS, End.AD, End.AM): the interface the service
	 * sends back on, and the SID's entry in config->proxies. */
	char iif[IF_NAMESIZE];
	unsigned proxy;
};

struct seglist {
	unsigned nsegs;
	struct in6_addr segs[SRV6_MAX_SEGS];	/* in travel order: segs[0] first */
};

/* The longest headers an SR proxy pushes back (src/srv6/behavior_proxy.h):
 * an IPv6 header and an SRH of SRV6_MAX_SEGS segments (End.AS), or what
 * End.AD learned: the IPv6 header and extension headers, at most this. */
#define PROXY_HDR_MAX	(40 + 8 + 16 * SRV6_MAX_SEGS + 40)

/* An SR proxy SID's part of the config (config->proxies[sid->proxy]). */
struct proxy_conf {
	unsigned sid;		/* its index in config->sids */
	/* End.AS: `source` and `segs`, and the headers they make, built at
	 * the parse (IPv6 header with Payload Length 0, SRH when more
	 * than one segment), hdr_len bytes. */
	struct in6_addr source;
	struct seglist segs;
	uint16_t hdr_len;
	uint8_t hdr[PROXY_HDR_MAX];
};

#define POLICY_MAX_LISTS	16	/* segment lists in one policy */
#define POLICY_MAX_WEIGHT	65535u

struct policy {
	int family;		/* AF_INET6 or AF_INET */
	union {
		struct in6_addr v6;
		struct in_addr v4;
	} prefix;		/* masked to plen (a binding SID's: the SID) */
	uint8_t plen;
	enum encap_mode mode;	/* End.B6: inline; End.B6.Encaps: encap;
				 * End.B6.Encaps.Red: encap.red */
	unsigned nlists;	/* 1..POLICY_MAX_LISTS from the parser */
	uint16_t weights[POLICY_MAX_LISTS];	/* 1..65535, default 1 */
	uint32_t hmac_keyid;	/* `hmac N`: a config->hmac_keys id; 0 none */
	uint32_t table;		/* `table T`: the routing table whose packets
				 * it steers (CONFIG_TABLE_MAIN by default);
				 * a binding SID's: 0 */
	bool binding;		/* a binding SID's policy: `index` is then the
				 * SID's index (counters in sid_stats), not a
				 * policy_stats slot */
	unsigned index;
	unsigned line;
	uint32_t ktable;	/* from a kernel route of this table
				 * (`kernel-routes yes`); 0: srv6d.conf's */
	/* `encap gtp4` (RFC 9433 6.7 H.M.GTP4.D, src/srv6/mobile.h): the
	 * IPv4 GTP-U it steers becomes SRv6; each list's last segment is
	 * `mob-prefix` B (mob_plen bits), the IPv4 DA and Args.Mob.Session
	 * after them; the outer source `src-prefix` (src_plen bits), then
	 * the IPv4 SA.  Never the kernel's to apply (no seg6 route). */
	bool gtp4d;
	uint8_t mob_plen, src_plen;
	struct in6_addr src_prefix;
	/* Last, so that a kernel route's policy (kpolicy.h) is allocated
	 * with its lists only, the last one cut to its segments: never
	 * copy a struct policy you did not allocate whole. */
	union {
		struct seglist sl;	/* lists[0]: single-list code */
		struct seglist lists[POLICY_MAX_LISTS];
	};
};

/* HMAC keys (RFC 8754 2.1.2.1), as the kernel's `ip sr hmac set`. */
enum hmac_alg {
	HMAC_ALG_SHA1 = 1,	/* the kernel's SEG6_HMAC_ALGO_SHA1 */
	HMAC_ALG_SHA256 = 2,	/* SEG6_HMAC_ALGO_SHA256 */
};

#define HMAC_MAX_SECRET	64	/* bytes, the kernel's SEG6_HMAC_SECRET_LEN */

struct hmac_key {
	uint32_t id;		/* 1..2^32-1 */
	enum hmac_alg alg;
	uint8_t secret[HMAC_MAX_SECRET];
	size_t len;		/* 1..HMAC_MAX_SECRET */
	unsigned line;
};

struct lpm;	/* lpm.h */

/* The kernel's main routing table (RT_TABLE_MAIN): a `route` without
 * `table`, and a packet whose in-interface maps to no table. */
#define CONFIG_TABLE_MAIN	254u

/* The steering policies of one routing table (config_policy_lookup6()). */
struct policy_table {
	uint32_t table;
	struct lpm *v6;		/* IPv6 steering prefixes */
	struct lpm *v4;		/* IPv4 steering prefixes (as ::ffff:0:0/96) */
};

/* `reinject auto | verdict | no-payload` (srv6d.conf(5)). */
enum reinject_mode {
	REINJECT_MODE_AUTO = 0,	/* what the running kernel accepts */
	REINJECT_MODE_VERDICT,	/* every result that can, as the payload */
	REINJECT_MODE_NO_PAYLOAD,	/* no result as a payload (`tun`) */
};

/* `kernel-encap auto | yes | no` (srv6d.conf(5), src/route/kencap_routes.h;
 * deprecated: `offload` sets auto or, with `offload no`, nothing to do):
 * whether the kernel's seg6 encapsulates srv6d's TCP super-packets. */
enum kernel_encap_mode {
	KERNEL_ENCAP_AUTO = 0,	/* with `offload yes`, when the kernel can */
	KERNEL_ENCAP_YES,	/* the same, and `offload yes` is required */
	KERNEL_ENCAP_NO,	/* every encapsulated super-packet is cut */
};

/* RFC 9259 OAM (srv6d.conf(5) OAM, src/srv6/oam.h): where the copies of
 * O-flag packets and End.OP's punts go, how much of each, how many. */
struct config_oam {
	bool on;			/* `oam-copy` given: O-flag processing
					 * permitted (RFC 9259 2.1.1 S01.1) */
	unsigned line;			/* oam-copy's line */
	int family;			/* AF_UNIX, AF_INET6 or AF_INET */
	union {
		struct sockaddr sa;
		struct sockaddr_un un;
		struct sockaddr_in6 in6;
		struct sockaddr_in in4;
	} dest;
	socklen_t dest_len;
	uint32_t copy_len;		/* `oam-copy-len`: bytes of the packet
					 * in a copy, at most */
	unsigned rate;			/* `oam-rate`: copies per second per
					 * worker (0: none) */
	unsigned burst;			/* `oam-burst` */
};

struct config {
	char *path;			/* file it was read from (or a name) */
	unsigned queue_first, queue_last;	/* NFQUEUE numbers, inclusive */
	/* `header-queue FIRST-LAST copy BYTES`: worker i also serves
	 * hqueue_first + i, bound with a copy range of hqueue_copy bytes
	 * (nfq.h nfq_bind_header_queue()): a longer packet arrives cut
	 * short, and only the kernel's End can handle one then (kend.h);
	 * any other goes back to the hook with the bounce bit
	 * (config_bounce_bit()) for the steering rules to queue it whole. */
	bool has_hqueue;
	unsigned hqueue_first, hqueue_last;
	uint32_t hqueue_copy;
	unsigned hqueue_line;
	/* `header-queue auto` (the default): with `steering auto` and
	 * offload on, the header queues are the queues right after those
	 * of `queue` (has_hqueue set at the parse's end, hqueue_line 0);
	 * srv6d's rules send them only what the kernel redoes (steer.c).
	 * `header-queue no`: none. */
	bool hqueue_auto;
	struct in6_addr encap_source;	/* outer source of encapsulations */
	bool has_encap_source;		/* false: picked per egress (egress.h) */
	char tun_name[IF_NAMESIZE];	/* reinjection device (rtrules.h) */
	enum reinject_mode reinject;	/* `reinject` as configured */
	uint32_t mark_base;		/* first mark/table the daemon owns */
	/* `mark-mask`: the bits of the packet mark srv6d owns (one run of
	 * bits; config_mark_value()), the number of its lowest bit, and how
	 * many offsets from mark-base its marks have (mark_count: at most
	 * CONFIG_MARK_RANGE, fewer when the field is narrow). */
	uint32_t mark_mask;
	bool has_mark_mask;		/* false: mark-base's default */
	unsigned mark_shift;
	uint32_t mark_count;
	uint32_t rule_priority;		/* priority of the daemon's ip rules */
	unsigned icmp_rate;		/* ICMP errors per second per worker */
	unsigned icmp_burst;

	struct sid *sids;
	unsigned nsids;
	struct policy *policies;
	unsigned npolicies;
	struct proxy_conf *proxies;	/* SR proxies' (sid->proxy) */
	unsigned nproxies;
	struct policy *bsid_policies;	/* binding SIDs' (sid->policy) */
	unsigned nbsid_policies;
	struct hmac_key *hmac_keys;
	unsigned nhmac_keys;
	bool hmac_require;		/* `hmac-require yes`: SIDs verify */
	bool gso;			/* `offload yes` (the default; or the
					 * deprecated `gso yes`): queues take
					 * super-packets whole (nfq.h
					 * NFQ_OPEN_GSO) */
	/* `control-group NAME|GID`: the control socket's group (the daemon
	 * applies it at start); has_control_group false: root's. */
	bool has_control_group;
	gid_t control_gid;
	/* `metrics-listen ADDRESS:PORT`: where srv6d serves its metrics
	 * over HTTP (src/daemon/metrics_http.h); has_metrics false:
	 * nowhere, the default. */
	bool has_metrics;
	int metrics_family;		/* AF_INET or AF_INET6 */
	union {
		struct in_addr v4;
		struct in6_addr v6;
	} metrics_addr;
	uint16_t metrics_port;
	bool steering;			/* `steering auto` (the default):
					 * srv6d installs its queue rules
					 * (src/route/steer.h); `no`: none */
	enum kernel_encap_mode kernel_encap;	/* `kernel-encap` */
	unsigned kernel_encap_line;	/* its line, 0 when absent */
	/* `kernel-end auto | yes | no` (the same values; what the daemon
	 * made of it: runstate.h). */
	enum kernel_encap_mode kernel_end;
	unsigned kernel_end_line;
	bool kernel_routes;		/* `kernel-routes yes`: the kernel's
					 * seg6local routes are SIDs too
					 * (config_merge_kernel()), its seg6
					 * routes policies (kpolicy.h) */

	/* Lookup tables built from the above (lpm.h); values point into
	 * sids[] / policies[]. */
	struct lpm *sid_table;		/* IPv6 LPM over SID prefixes */
	/* The steering tables, one per routing table that has a policy,
	 * sorted by table number (config_policy_insert()). */
	struct policy_table *ptables;
	unsigned nptables;

	struct config_oam oam;		/* `oam-copy` and its settings */
};

/* Called once per error (or warning): "file:line: message". line 0: not
 * tied to a line. */
typedef void (*config_error_fn)(void *arg, const char *file, unsigned line,
				const char *msg);

/* Parse and validate `path`. Returns the config, or NULL after reporting
 * every error through `err` (stderr when err is NULL).  Each warning (a
 * deprecated directive) goes to `warn` (nowhere when NULL) and does not
 * fail the parse; arg is passed to both. */
struct config *config_parse_file_warn(const char *path, config_error_fn err,
				      config_error_fn warn, void *arg);

/* config_parse_file_warn() with no warnings. */
struct config *config_parse_file(const char *path, config_error_fn err,
				 void *arg);

/* Same over a buffer; `name` is used in messages. */
struct config *config_parse_buffer_warn(const char *name, const char *text,
					size_t len, config_error_fn err,
					config_error_fn warn, void *arg);
struct config *config_parse_buffer(const char *name, const char *text,
				   size_t len, config_error_fn err, void *arg);

void config_free(struct config *cfg);

/* "End", "End.X", ..., "End.B6.Encaps.Red" ("?" out of range). */
const char *behavior_name(enum behavior b);

/* The HMAC key `id` of cfg, or NULL. */
const struct hmac_key *config_hmac_key(const struct config *cfg, uint32_t id);

/* The policies of routing table `table`, or NULL when it has none. */
const struct policy_table *config_policy_table(const struct config *cfg,
					       uint32_t table);

/* The steering policy of routing table `table` whose prefix is the
 * longest to cover dst, or NULL (no fallback to another table).  Lock-free
 * and allocation-free: the packet path's steering lookup. */
const struct policy *config_policy_lookup6(const struct config *cfg,
					   uint32_t table,
					   const struct in6_addr *dst);
const struct policy *config_policy_lookup4(const struct config *cfg,
					   uint32_t table, struct in_addr dst);

/* Put pol (which must stay where it is: the tables point to it) into the
 * steering table of pol->table, created if needed.  For building a config
 * before it is published.  Returns 0, -EEXIST when that table already has
 * pol's exact prefix (*dup, when not NULL, is then the policy that has
 * it), -ENOMEM. */
int config_policy_insert(struct config *cfg, struct policy *pol,
			 const struct policy **dup);

/* What config_merge_kernel() made of a kernel SID. */
enum config_kroute_status {
	CONFIG_KROUTE_APPLIED,
	CONFIG_KROUTE_SHADOWED,	/* srv6d.conf, or a kernel route before it,
				 * has the same or an overlapping prefix */
	CONFIG_KROUTE_REFUSED,	/* srv6d cannot apply it in this config */
};

struct config_kroute_result {
	enum config_kroute_status status;
	const char *why;	/* not applied: why (a static text) */
	unsigned line;		/* shadowed by srv6d.conf's line (0: by a
				 * kernel route) */
};

/* The config in force with `kernel-routes yes`: a new config with all of
 * file, then the kernel's SIDs (its seg6local routes) ksids[0..nk) (a
 * binding SID's policy at ksids[i].policy) where nothing before them has
 * the same or an overlapping prefix (a SID must not overlap another, nor
 * an IPv6 policy of srv6d.conf of any table): srv6d.conf wins, then the
 * kernel route that comes first.  The kernel's seg6 encap routes are not
 * merged: their policies stay in the route mirror's FIB (kpolicy.h).
 * res[i] (nk entries; NULL when nk is 0) says what became of each kernel
 * SID.  Returns the config, or NULL with a message in err (out of
 * memory). */
struct config *config_merge_kernel(const struct config *file,
				   const struct sid *ksids, unsigned nk,
				   struct config_kroute_result *res,
				   char *err, size_t errlen);

/* "sha1", "sha256" ("?" otherwise). */
const char *hmac_alg_name(enum hmac_alg a);
/* "encap", "encap.red", "inline", "inline.red" ("?" out of range). */
const char *encap_mode_name(enum encap_mode m);

/* Writes FLV_* bits as the config spells them ("psp,usd"; "" for none)
 * into buf, truncated to size (snprintf-like).  Returns the length the
 * whole text needs. */
size_t config_flavors_format(unsigned flavors, char *buf, size_t size);

/* Limits of the file format. */
#define CONFIG_MAX_LINE		4096		/* bytes in a line, newline excluded */
#define CONFIG_MAX_FILE		(16 << 20)	/* bytes in a file */
#define CONFIG_ICMP_MAX		1000000u	/* icmp-rate and icmp-burst */
/* header-queue's copy range: room for an IPv6 header and the largest SRH
 * (8 + 255 * 8 bytes) by default, at most what NFQUEUE copies. */
#define CONFIG_HQ_COPY_DEFAULT	2112u
#define CONFIG_HQ_COPY_MIN	128u
#define CONFIG_HQ_COPY_MAX	65531u

/* srv6d owns the marks and routing tables mark_base .. mark_base +
 * CONFIG_MARK_RANGE - 1 (rtrules.h's RTRULES_RANGE must be the same): a
 * SID's mark is mark_base + 1 + index, so there are at most
 * CONFIG_MARK_RANGE - 1 SIDs, and mark-base keeps the range clear of the
 * kernel's tables 253-255 and within 32 bits.  (After a reload a SID may
 * hold any mark of the range: runstate_inherit_marks().) */
#define CONFIG_MARK_RANGE	65536u
#define CONFIG_MAX_SIDS		(CONFIG_MARK_RANGE - 1)
#define CONFIG_MARK_BASE_MIN	256u
#define CONFIG_MARK_BASE_MAX	(0xffffffffu - (CONFIG_MARK_RANGE - 1))

/* srv6d's marks under `mark-mask` (srv6d.conf(5), docs/design.md
 * "Marks").  srv6d numbers what it routes by mark (a SID's results, a
 * kernel-end or kernel-encap route) by an offset o from mark-base (1 ..
 * mark_count - 1; 0 is not used): its table is mark-base + o whatever the
 * mask, and the running state (runstate.h) holds it as that number, its
 * "mark".  On the packet it is the field value (mark-base >> shift) + o
 * under mark-mask: config_mark_value().  The mask's highest bit is the
 * bounce bit (config_bounce_bit()), which no other mark of srv6d's has.
 * The bits outside the mask are the operator's: a verdict keeps them
 * (config_mark_apply()), srv6d's rules do not look at them.  The
 * default mask leaves the operator the bits below mark-base's lowest set
 * bit, at most the low 16 (config_default_mark_mask()); with mark-mask
 * 0xffffffff a mark is mark-base + o, as before the mask was. */
static inline uint32_t config_mark_value(const struct config *cfg,
					 uint32_t mark)
{
	return cfg->mark_base + ((mark - cfg->mark_base) << cfg->mark_shift);
}

/* The bounce bit: mark-mask's highest. */
static inline uint32_t config_bounce_bit(const struct config *cfg)
{
	return cfg->mark_mask & ~(cfg->mark_mask >> 1);
}

/* The mark a packet that carries pkt_mark gets when srv6d gives it value
 * (a config_mark_value() or the bounce bit): srv6d's field replaced, the
 * operator's bits kept. */
static inline uint32_t config_mark_apply(const struct config *cfg,
					 uint32_t pkt_mark, uint32_t value)
{
	return (pkt_mark & ~cfg->mark_mask) | value;
}

/* The table that catches what kernel-end's SID with mark `mark` meets
 * without it (src/route/markguard.h): mark + CONFIG_MARK_RANGE (mark -
 * CONFIG_MARK_RANGE where that would pass 32 bits), outside the tables
 * of srv6d's marks. */
static inline uint32_t config_catch_table(uint32_t mark)
{
	return mark <= UINT32_MAX - CONFIG_MARK_RANGE ?
	       mark + CONFIG_MARK_RANGE : mark - CONFIG_MARK_RANGE;
}

/* Whether pkt_mark carries the bounce bit (whatever its other bits). */
static inline bool config_mark_bounced(const struct config *cfg,
				       uint32_t pkt_mark)
{
	return (pkt_mark & config_bounce_bit(cfg)) != 0;
}

/* Defaults. */
#define CONFIG_DEFAULT_PATH	SYSCONFDIR "/srv6d/srv6d.conf"
#define CONFIG_DEFAULT_TUN	"srv6d0"
#define CONFIG_DEFAULT_MARK_BASE	0x5d6f0000u
/* Without `mark-mask`, srv6d's field is every bit from mark-base's
 * lowest set bit up, but never the low 16 bits: the operator keeps those
 * (where wg-quick's 0xca6c and kube-proxy's 0x4000/0x8000 are).  The
 * default mark-base gives 0xffff0000 (srv6d.conf(5) mark-mask): 8849
 * offsets, (0x80000000 - 0x5d6f0000) >> 16.  Any mark-base that is a
 * multiple of 0x10000 gives the same mask. */
#define CONFIG_DEFAULT_MARK_MASK_SHIFT_MAX	16u
static inline uint32_t config_default_mark_mask(uint32_t mark_base)
{
	unsigned s = mark_base ? (unsigned)__builtin_ctz(mark_base) : 31;

	if (s > CONFIG_DEFAULT_MARK_MASK_SHIFT_MAX)
		s = CONFIG_DEFAULT_MARK_MASK_SHIFT_MAX;
	return 0xffffffffu << s;
}
#define CONFIG_DEFAULT_MARK_MASK \
	config_default_mark_mask(CONFIG_DEFAULT_MARK_BASE)	/* 0xffff0000 */
#define CONFIG_DEFAULT_RULE_PRIO	1000u
#define CONFIG_DEFAULT_ICMP_RATE	100u
#define CONFIG_DEFAULT_ICMP_BURST	50u
/* OAM copies (RFC 9259): the first 256 bytes of each (an IPv6 header, an
 * SRH of 12 segments and the headers behind), 1000 a second per worker,
 * bursts of 100; at most OAM_COPY_MAX bytes (src/srv6/oam.h). */
#define CONFIG_DEFAULT_OAM_COPY_LEN	256u
#define CONFIG_OAM_COPY_LEN_MIN		40u
#define CONFIG_OAM_COPY_LEN_MAX		2048u
#define CONFIG_DEFAULT_OAM_RATE		1000u
#define CONFIG_DEFAULT_OAM_BURST	100u
#define CONFIG_OAM_RATE_MAX		1000000u

#endif
