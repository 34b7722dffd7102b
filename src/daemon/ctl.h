/* ctl.h - the control socket between srv6d and srv6ctl.
 *
 * A UNIX stream socket.  Every message starts with a fixed header, in host
 * byte order (both ends are on the same host):
 *
 *	uint32 magic    'S6CT' (0x53364354)
 *	uint16 version  1
 *	uint16 code     request: the type (CTL_REQ_*); reply: the status
 *	                (CTL_OK, else CTL_ERR_*)
 *	uint32 length   bytes of payload that follow
 *
 * A request's payload is at most CTL_MAX_REQUEST bytes; a reply's payload
 * is one JSON document (an object; on error {"error": "..."}).  A client may
 * send several requests on one connection, one at a time.  A request with a
 * bad magic, version or length, or an unknown type, gets an error reply and
 * the connection is closed.  Nothing a client does blocks the daemon: the
 * server is non-blocking, reads each request by its length, drops a client
 * idle for CTL_CLIENT_TIMEOUT seconds, and never touches the data path.
 *
 * Who may ask (SO_PEERCRED/SO_PEERGROUPS of the client, on top of the
 * socket file's mode 0660 and group): root, and members of the socket's
 * group (`control-group`), may read; only root (uid 0) may change anything
 * (CTL_REQ_RELOAD).
 */
#ifndef SRV6D_CTL_H
#define SRV6D_CTL_H

#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <jansson.h>

#include "config.h"
#include "rtmirror.h"
#include "stats.h"

#ifndef SRV6D_VERSION
#define SRV6D_VERSION	"0.1.0"	/* AC_INIT's version in configure.ac */
#endif

#define CTL_DEFAULT_PATH	RUNSTATEDIR "/srv6d/srv6d.sock"

#define CTL_MAGIC		0x53364354u	/* "S6CT" */
#define CTL_PROTO_VERSION	1
#define CTL_MAX_REQUEST		65536u
#define CTL_MAX_REPLY		(64u << 20)	/* what a client accepts */
#define CTL_MAX_CLIENTS		64
#define CTL_CLIENT_TIMEOUT	10		/* seconds */

/* Request types. */
enum ctl_req_type {
	CTL_REQ_STATUS = 1,	/* counters, SIDs, policies (read-only) */
	CTL_REQ_VERSION = 2,	/* {"version": ..., "protocol": 1} */
	CTL_REQ_SIDS = 3,	/* {"sids": [...]}; payload: "" or one SID */
	CTL_REQ_POLICIES = 4,	/* {"policies": [...]} */
	CTL_REQ_STATS = 5,	/* counters and the kernel's view of the queues */
	CTL_REQ_RELOAD = 6,	/* re-read the config file (root only) */
	CTL_REQ_ROUTES = 7,	/* the route mirror's counts; payload: ""
				 * or a table id */
	CTL_REQ_ROUTE_GET = 8,	/* one route as `ip route get`; payload:
				 * "ADDR" or "ADDR TABLE" */
};

/* Reply status. */
enum ctl_status {
	CTL_OK = 0,
	CTL_ERR_PROTOCOL = 1,	/* bad magic, version or length */
	CTL_ERR_UNKNOWN = 2,	/* unknown request type */
	CTL_ERR_PERMISSION = 3,	/* request reserved to root */
	CTL_ERR_FAILED = 4,	/* the daemon could not do it */
	CTL_ERR_NOT_FOUND = 5,	/* no such SID */
	CTL_ERR_INVALID = 6,	/* a request's payload is not valid */
};

struct ctl_hdr {
	uint32_t magic;
	uint16_t version;
	uint16_t code;
	uint32_t length;
};

/* ---- framing (pure) ---- */

/* Fill h for a message with this code and payload length. */
void ctl_hdr_init(struct ctl_hdr *h, uint16_t code, uint32_t length);

/* Check a received header against the magic, the version and maxlen.
 * Returns CTL_OK, or CTL_ERR_PROTOCOL with a reason in *why. */
int ctl_hdr_check(const struct ctl_hdr *h, uint32_t maxlen, const char **why);

/* True for a request type this version knows; *write_req tells whether it
 * changes anything (reserved to root). */
bool ctl_type_known(uint16_t type, bool *write_req);

/* Short name of a reply status ("ok", "protocol error", ...). */
const char *ctl_status_name(uint16_t status);

/* ---- documents (pure) ---- */

/* A line of /proc/net/netfilter/nfnetlink_queue (the kernel's
 * nfnetlink_queue.c seq_show(): "%5u %6u %5u %1u %5u %5u %5u %8u %2d"). */
struct ctl_nfq_queue {
	unsigned queue;
	uint32_t portid;		/* netlink port id of the bound socket */
	unsigned waiting;		/* packets waiting for a verdict */
	unsigned copy_mode, copy_range;
	uint64_t queue_dropped;		/* dropped by the kernel: queue full */
	uint64_t user_dropped;		/* dropped by the kernel: socket full */
	uint32_t id_sequence;		/* last packet id */
};

#define CTL_NFQ_PROC	"/proc/net/netfilter/nfnetlink_queue"

/* Parse one line of CTL_NFQ_PROC.  Returns 0, or -1 if it is not one. */
int ctl_nfq_parse_line(const char *line, struct ctl_nfq_queue *q);

/* Read the lines of path (CTL_NFQ_PROC) into q (at most max).  Returns
 * how many, or -1 with errno set when the file cannot be read. */
int ctl_nfq_read(const char *path, struct ctl_nfq_queue *q, unsigned max);

/* Everything a STATUS or STATS reply shows; the arrays are the caller's. */
struct ctl_status_src {
	pid_t pid;
	uint64_t uptime;		/* seconds */
	const char *config_path;
	int64_t config_loaded;		/* Unix time of the last good load */
	uint64_t reloads;		/* successful reloads */
	uint64_t reload_failures;	/* refused reloads */
	unsigned nworkers;
	const unsigned *queues;		/* queue number of worker i */
	const struct worker_stats *workers;	/* nworkers entries */
	const struct worker_stats *totals;
	const struct config *cfg;
	const struct sid_stats *sids;	/* cfg->nsids entries */
	const struct sid_stats *pols;	/* cfg->npolicies entries */
	/* The route mirror (NULL: none; "mirror" is null).  The documents
	 * that read it must be built by an online QSBR reader thread. */
	const struct rtmirror *mirror;
	/* STATS only: the kernel's queues (NULL: not readable). */
	const struct ctl_nfq_queue *kq;
	unsigned nkq;
};

/* Every field of ws by its C name, plus "drops" with every reason.
 * Returns a new object, NULL on allocation failure. */
json_t *ctl_worker_stats_json(const struct worker_stats *ws);

/* The STATUS document (schema in srv6ctl(8)).  Returns a new object, NULL
 * on allocation failure. */
json_t *ctl_status_json(const struct ctl_status_src *src);

/* The SIDS document {"sids": [...]}: every SID, or only the one `want`
 * names ("prefix/len" exactly, or an address: the longest SID prefix
 * holding it); want NULL or "" for all.  Returns a new object with
 * *status CTL_OK, CTL_ERR_NOT_FOUND or CTL_ERR_INVALID ({"error": ...});
 * NULL on allocation failure. */
json_t *ctl_sids_json(const struct ctl_status_src *src, const char *want,
		      uint16_t *status);

/* The POLICIES document {"policies": [...]}.  Returns a new object, NULL
 * on allocation failure. */
json_t *ctl_policies_json(const struct ctl_status_src *src);

/* The STATS document: totals and workers (each with "kernel": its queue's
 * line of CTL_NFQ_PROC, or null).  Returns a new object, NULL on
 * allocation failure. */
json_t *ctl_stats_json(const struct ctl_status_src *src);

/* The mirror's own state: {"synced", "stale", "resyncs", "events",
 * "enobufs", "dump_restarts", "purged", "swept", "ignored", "errors",
 * "last_sync_ms", "last_error" (strerror text or null), "routes", "memory"}.
 * Returns a new object, NULL on allocation failure. */
json_t *ctl_mirror_json(const struct rtmirror *m);

/* The ROUTES document: {"mirror": ctl_mirror_json(), "tables": [{"table",
 * "ipv4", "ipv6"}...]} for every table, or only `table` (0: all).  A table
 * the mirror does not have: *status CTL_ERR_NOT_FOUND.  Returns a new
 * object (NULL on allocation failure).  Online QSBR reader. */
json_t *ctl_routes_json(const struct rtmirror *m, uint32_t table,
			uint16_t *status);

/* The ROUTE_GET document for the request text "ADDR [TABLE]": as `ip
 * route get` (no policy rules; no TABLE: local, main, default): {"dst"
 * (the address asked), "type", "prefix" ("dst/plen"), "table", "metric",
 * "protocol", "gateway" (absent without one), "dev", "oif", "mtu" (the
 * egress MTU: the route's mtu metric, else the link's), "src" (the
 * source the kernel would pick), "nexthops" (a multipath route's)}.
 * *status CTL_ERR_INVALID for bad text, CTL_ERR_NOT_FOUND for no route.
 * Returns a new object (NULL on allocation failure).  Online QSBR
 * reader. */
json_t *ctl_route_get_json(const struct rtmirror *m, const char *req,
			   uint16_t *status);

/* ---- server (in srv6d) ---- */

struct ctl_request {
	uint16_t type;
	uid_t uid;			/* SO_PEERCRED of the client */
	pid_t pid;
	const void *payload;
	uint32_t length;
};

/* Answer a known request: return the reply document (a new reference) and
 * set *status; NULL means "failed" (an error reply is sent). */
typedef json_t *(*ctl_handler_fn)(void *arg, const struct ctl_request *req,
				  uint16_t *status);

struct ctl_server;

/* Is a daemon answering on path?  Returns 1 if a connect succeeds, 0 if
 * not (a stale socket file is unlinked), -1 with a message in err when it
 * cannot tell. */
int ctl_probe(const char *path, char *err, size_t errlen);

/* Create, bind (umask 0117: mode 0660) and listen on path; when gid is
 * not (gid_t)-1, give the socket file that group.  Returns the server, or
 * NULL with a message in err. */
struct ctl_server *ctl_server_open(const char *path, gid_t gid,
				   ctl_handler_fn fn, void *arg, char *err,
				   size_t errlen);

/* May a client with these credentials read (write: change anything)?
 * Root may do anything; a member of group (primary gid, or one of the
 * ngroups supplementary groups) may read; group (gid_t)-1 means root's
 * group 0. */
bool ctl_peer_allowed(uid_t uid, gid_t gid, const gid_t *groups,
		      unsigned ngroups, gid_t group, bool write);

/* Close every client and the socket, unlink path. */
void ctl_server_close(struct ctl_server *s);

/* Fill fds (at most max) with what the server waits for.  Returns the
 * count; pass the same array to ctl_server_dispatch() after poll(). */
unsigned ctl_server_pollfds(struct ctl_server *s, struct pollfd *fds,
			    unsigned max);

/* Accept, read, answer and write what poll() reported ready; close clients
 * idle for more than CTL_CLIENT_TIMEOUT seconds. */
void ctl_server_dispatch(struct ctl_server *s, const struct pollfd *fds,
			 unsigned n);

/* ---- client (srv6ctl) ---- */

/* Connect to path.  Returns the socket, or -1 with errno set. */
int ctl_connect(const char *path);

/* Send a request and read its reply (waiting at most timeout_ms in each
 * read or write).  Returns 0 with *status and *reply (a new reference, the
 * JSON document) set, or -1 with a message in err for a transport or
 * framing failure. */
int ctl_call(int fd, uint16_t type, const void *payload, uint32_t length,
	     int timeout_ms, uint16_t *status, json_t **reply, char *err,
	     size_t errlen);

#endif
