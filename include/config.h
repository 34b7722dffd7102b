/* config.h - srv6d's configuration: parsed once, then read-only.
 *
 * A `struct config` is built by config_parse_*(), fully validated, and only
 * then handed to the workers.  Workers never write it; a reload builds a new
 * one and swaps the pointer (see docs/design.md).
 */
#ifndef SRV6D_CONFIG_H
#define SRV6D_CONFIG_H

#include <net/if.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SRV6_MAX_SEGS	16	/* segments in a policy's SRH */
#define SRV6_MAX_QUEUES	64

enum behavior {
	BHV_END,
	BHV_END_X,
	BHV_END_T,
	BHV__COUNT
};

/* Flavors (RFC 8986 4.16, RFC 9800), a bit set. */
#define FLV_PSP		0x1u
#define FLV_USP		0x2u
#define FLV_USD		0x4u
#define FLV_NEXT_CSID	0x8u

/* NEXT-C-SID defaults (RFC 9800 section 4.1 / Linux): LBL 32, LNFL 16. */
#define CSID_DEFAULT_LBLEN	32
#define CSID_DEFAULT_NFLEN	16

struct sid {
	struct in6_addr prefix;	/* masked to plen */
	uint8_t plen;
	enum behavior behavior;
	unsigned flavors;	/* FLV_* */
	uint8_t lblen, nflen;	/* NEXT-C-SID locator block / node function */
	struct in6_addr nh6;	/* End.X */
	char oif[IF_NAMESIZE];	/* End.X optional, "" when absent */
	uint32_t table;		/* End.T */
	uint32_t mark;		/* verdict mark selecting our ip rule; 0 none */
	uint32_t route_table;	/* End.X: the daemon's own table for nh6 */
	unsigned index;		/* position in config->sids, counter slot */
	unsigned line;		/* config line, for messages */
};

enum encap_mode {
	ENCAP_MODE_ENCAP,	/* H.Encaps */
	ENCAP_MODE_ENCAP_RED,	/* H.Encaps.Red */
	ENCAP_MODE_INLINE,	/* H.Insert */
	ENCAP_MODE_INLINE_RED,	/* H.Insert.Red */
};

struct seglist {
	unsigned nsegs;
	struct in6_addr segs[SRV6_MAX_SEGS];	/* in travel order: segs[0] first */
};

struct policy {
	int family;		/* AF_INET6 or AF_INET */
	union {
		struct in6_addr v6;
		struct in_addr v4;
	} prefix;		/* masked to plen */
	uint8_t plen;
	enum encap_mode mode;
	struct seglist sl;
	unsigned index;
	unsigned line;
};

struct lpm;	/* lpm.h */

struct config {
	char *path;			/* file it was read from (or a name) */
	unsigned queue_first, queue_last;	/* NFQUEUE numbers, inclusive */
	struct in6_addr encap_source;	/* outer source of encapsulations */
	bool has_encap_source;
	char tun_name[IF_NAMESIZE];	/* TUN device for reinjection */
	bool reinject_tun_always;	/* `reinject tun`: every result by TUN */
	uint32_t mark_base;		/* first mark/table the daemon owns */
	uint32_t rule_priority;		/* priority of the daemon's ip rules */
	unsigned icmp_rate;		/* ICMP errors per second per worker */
	unsigned icmp_burst;

	struct sid *sids;
	unsigned nsids;
	struct policy *policies;
	unsigned npolicies;

	/* Lookup tables built from the above (lpm.h); values point into
	 * sids[] / policies[]. */
	struct lpm *sid_table;		/* IPv6 LPM over SID prefixes */
	struct lpm *policy6;		/* IPv6 steering prefixes */
	struct lpm *policy4;		/* IPv4 steering prefixes (as ::ffff:0:0/96) */
};

/* Called once per error: "file:line: message". line 0: not tied to a line. */
typedef void (*config_error_fn)(void *arg, const char *file, unsigned line,
				const char *msg);

/* Parse and validate `path`. Returns the config, or NULL after reporting
 * every error through `err` (stderr when err is NULL). */
struct config *config_parse_file(const char *path, config_error_fn err,
				 void *arg);

/* Same over a buffer; `name` is used in messages. */
struct config *config_parse_buffer(const char *name, const char *text,
				   size_t len, config_error_fn err, void *arg);

void config_free(struct config *cfg);

/* "End", "End.X", "End.T" ("?" out of range). */
const char *behavior_name(enum behavior b);
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

/* srv6d owns the marks and routing tables mark_base .. mark_base +
 * CONFIG_MARK_RANGE - 1 (rtrules.h's RTRULES_RANGE must be the same): a
 * SID's mark is mark_base + 1 + index, so there are at most
 * CONFIG_MARK_RANGE - 1 SIDs, and mark-base keeps the range clear of the
 * kernel's tables 253-255 and within 32 bits. */
#define CONFIG_MARK_RANGE	65536u
#define CONFIG_MAX_SIDS		(CONFIG_MARK_RANGE - 1)
#define CONFIG_MARK_BASE_MIN	256u
#define CONFIG_MARK_BASE_MAX	(0xffffffffu - (CONFIG_MARK_RANGE - 1))

/* Defaults. */
#define CONFIG_DEFAULT_PATH	SYSCONFDIR "/srv6d/srv6d.conf"
#define CONFIG_DEFAULT_TUN	"srv6d0"
#define CONFIG_DEFAULT_MARK_BASE	0x5d6f0000u
#define CONFIG_DEFAULT_RULE_PRIO	1000u
#define CONFIG_DEFAULT_ICMP_RATE	100u
#define CONFIG_DEFAULT_ICMP_BURST	50u

#endif
