/* ctl.h - srv6d's control socket server: accept, clients, deadlines,
 * dispatch (the protocol is ctl_proto.h, the documents ctl_json.h).
 *
 * Nothing a client does blocks the daemon: the server is non-blocking,
 * reads each request by its length, and never touches the data path.  A
 * request must arrive whole within CTL_REQUEST_TIMEOUT seconds of the
 * connection (or of the previous reply), and a reply be read within as
 * long; else the client gets a CTL_ERR_TIMEOUT reply (when it fits in the
 * socket) and is dropped.  At most CTL_MAX_CLIENTS at once: clients other
 * than root hold at most CTL_MAX_CLIENTS - CTL_ROOT_SLOTS of them, and
 * CTL_MAX_PER_UID each, so that root (srv6ctl reload, systemctl reload)
 * always gets in; a refused client gets a CTL_ERR_BUSY reply and is closed.
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

#include "ctl_json.h"
#include "ctl_proto.h"

#define CTL_MAX_CLIENTS		64
#define CTL_ROOT_SLOTS		4	/* of CTL_MAX_CLIENTS, kept for root */
#define CTL_MAX_PER_UID		16	/* slots one uid other than root holds */
#define CTL_REQUEST_TIMEOUT	10	/* seconds for a whole request */

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

/* Accept, read, answer and write what poll() reported ready; drop the
 * clients past their deadline (CTL_REQUEST_TIMEOUT).  poll() must wake
 * at least once a second for the deadlines to hold. */
void ctl_server_dispatch(struct ctl_server *s, const struct pollfd *fds,
			 unsigned n);

/* May one more client of uid connect, with `held` slots taken in all and
 * `held_uid` by uid?  Root: while a slot is free; another uid: while fewer
 * than CTL_MAX_CLIENTS - CTL_ROOT_SLOTS are taken by others than root
 * (`held_nonroot`) and it holds fewer than CTL_MAX_PER_UID.  Returns NULL,
 * or why not (the text of the CTL_ERR_BUSY reply). */
const char *ctl_admit(uid_t uid, unsigned held, unsigned held_nonroot,
		      unsigned held_uid);

#endif
