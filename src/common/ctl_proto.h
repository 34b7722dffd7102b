/* ctl_proto.h - the control protocol between srv6d and srv6ctl: framing,
 * request types, reply statuses, and the client's call.  Both ends link it
 * (the daemon's server is ctl.h, its JSON documents ctl_json.h).
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
 * the connection is closed.  The daemon may also send an error reply that
 * answers no request, and close: CTL_ERR_BUSY at once when it refuses the
 * connection, CTL_ERR_TIMEOUT when a request did not arrive in time.
 */
#ifndef SRV6D_CTL_PROTO_H
#define SRV6D_CTL_PROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "paths.h"		/* RUNSTATEDIR: made by make (Makefile.am) */

#ifndef SRV6D_VERSION
#define SRV6D_VERSION	"0.1.0"	/* AC_INIT's version in configure.ac */
#endif

#define CTL_DEFAULT_PATH	RUNSTATEDIR "/srv6d/srv6d.sock"

#define CTL_MAGIC		0x53364354u	/* "S6CT" */
#define CTL_PROTO_VERSION	1
#define CTL_MAX_REQUEST		65536u
#define CTL_MAX_REPLY		(64u << 20)	/* what a client accepts */

/* The kernel's queues, which the STATS document's "kernel" objects show. */
#define CTL_NFQ_PROC	"/proc/net/netfilter/nfnetlink_queue"

/* Request types. */
enum ctl_req_type {
	CTL_REQ_STATUS = 1,	/* counters, SIDs, policies (read-only) */
	CTL_REQ_VERSION = 2,	/* {"version": ..., "protocol": 1} */
	CTL_REQ_SIDS = 3,	/* {"sids": [...]}; payload: "" or one SID */
	CTL_REQ_POLICIES = 4,	/* {"policies": [...]}; payload: "" or
				 * one prefix/length */
	CTL_REQ_STATS = 5,	/* counters and the kernel's view of the queues */
	CTL_REQ_RELOAD = 6,	/* re-read the config file (root only) */
	CTL_REQ_ROUTES = 7,	/* the route mirror's counts; payload: ""
				 * or a table id */
	CTL_REQ_ROUTE_GET = 8,	/* one route as `ip route get`; payload:
				 * "ADDR" or "ADDR TABLE" */
	CTL_REQ_CLEAR = 9,	/* counters shown from zero (root only) */
	CTL_REQ_TRACE = 10,	/* the workers' decisions, packet by packet
				 * (root only); payload: "start ...",
				 * "read" or "stop" (srv6ctl(8) trace) */
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
	CTL_ERR_BUSY = 7,	/* too many clients: connection refused */
	CTL_ERR_TIMEOUT = 8,	/* the request did not arrive in time */
};

struct ctl_hdr {
	uint32_t magic;
	uint16_t version;
	uint16_t code;
	uint32_t length;
};

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

/* A whole message (header + payload) in a new buffer of *len bytes.
 * Returns it, or NULL on allocation failure. */
void *ctl_msg_build(uint16_t code, const void *payload, uint32_t length,
		   size_t *len);

/* Fill a struct sockaddr_un (sun) for path.  Returns 0, or -1 with errno
 * ENAMETOOLONG. */
struct sockaddr_un;
int ctl_sockaddr_fill(struct sockaddr_un *sun, const char *path);

/* Connect to path.  Returns the socket, or -1 with errno set. */
int ctl_connect(const char *path);

/* Send a request and read its reply (waiting at most timeout_ms in each
 * read or write).  A daemon that refuses the connection sends its reply
 * before any request and closes: when the request cannot be sent, the
 * reply already there is returned all the same.  Returns 0 with *status
 * and *reply (a new reference, the JSON document) set, or -1 with a
 * message in err for a transport or framing failure. */
int ctl_call(int fd, uint16_t type, const void *payload, uint32_t length,
	     int timeout_ms, uint16_t *status, json_t **reply, char *err,
	     size_t errlen);

#endif
