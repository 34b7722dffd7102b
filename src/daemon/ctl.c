/* ctl.c - the control socket's server (ctl.h): accept with the client
 * limits, read framed requests against a deadline, answer through the
 * handler, write the replies; never blocking, never on the data path. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* accept4, struct ucred */
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "ctl.h"
#include "log.h"

/* ---- server ----------------------------------------------------------- */

struct ctl_client {
	int fd;			/* -1: free slot */
	uid_t uid;
	pid_t pid;
	bool may_read, may_write;	/* ctl_peer_allowed() at accept */
	uint64_t deadline;	/* monotonic ms: the request (or the reply)
				 * must be through by then */
	struct ctl_hdr hdr;
	size_t hdr_got;
	uint8_t *payload;
	size_t payload_got;
	char *out;		/* reply being written */
	size_t out_len, out_off;
	bool close_after;	/* after the reply: protocol error */
};

struct ctl_server {
	int fd;
	char *path;
	gid_t gid;		/* the socket's group: who may read */
	ctl_handler_fn fn;
	void *arg;
	struct ctl_client clients[CTL_MAX_CLIENTS];
	/* Per-connection log lines: a few a minute each (srv6d(8)). */
	struct log_ratelimit refused_rl;	/* refused clients */
	struct log_ratelimit event_rl;		/* connects, drops (debug) */
	uint64_t accept_resume;	/* monotonic ms: out of fds, accept then */
	int polled[1 + CTL_MAX_CLIENTS];	/* client slot per pollfd, -1 listen */
	unsigned npolled;
};

#define STR_(x)	#x
#define STR(x)	STR_(x)

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

int ctl_probe(const char *path, char *err, size_t errlen)
{
	struct stat st;
	int fd;

	if (lstat(path, &st) < 0) {
		if (errno == ENOENT)
			return 0;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (!S_ISSOCK(st.st_mode)) {
		snprintf(err, errlen, "%s: exists and is not a socket", path);
		return -1;
	}
	fd = ctl_connect(path);
	if (fd >= 0) {
		close(fd);
		return 1;
	}
	if (errno != ECONNREFUSED) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	/* Nobody listens: a crashed instance's socket. */
	if (unlink(path) < 0 && errno != ENOENT) {
		snprintf(err, errlen, "cannot remove stale %s: %s", path,
			 strerror(errno));
		return -1;
	}
	log_msg(LOG_INFO, "removed stale control socket %s", path);
	return 0;
}

bool ctl_peer_allowed(uid_t uid, gid_t gid, const gid_t *groups,
		      unsigned ngroups, gid_t group, bool write)
{
	if (uid == 0)
		return true;
	if (write)
		return false;
	if (group == (gid_t)-1)
		group = 0;
	if (gid == group)
		return true;
	for (unsigned i = 0; i < ngroups; i++)
		if (groups[i] == group)
			return true;
	return false;
}

struct ctl_server *ctl_server_open(const char *path, gid_t gid,
				   ctl_handler_fn fn, void *arg, char *err,
				   size_t errlen)
{
	struct sockaddr_un sun;
	struct ctl_server *s;
	mode_t old;
	int rc;

	if (ctl_sockaddr_fill(&sun, path) < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return NULL;
	}
	s = calloc(1, sizeof(*s));
	if (!s || !(s->path = strdup(path))) {
		snprintf(err, errlen, "%s", strerror(ENOMEM));
		free(s);
		return NULL;
	}
	for (unsigned i = 0; i < CTL_MAX_CLIENTS; i++)
		s->clients[i].fd = -1;
	s->fn = fn;
	s->arg = arg;
	s->refused_rl = (struct log_ratelimit)LOG_RATELIMIT_INIT(60, 5);
	s->event_rl = (struct log_ratelimit)LOG_RATELIMIT_INIT(60, 10);
	s->gid = gid;
	s->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (s->fd < 0) {
		snprintf(err, errlen, "socket: %s", strerror(errno));
		goto fail;
	}
	old = umask(0117);	/* the socket file is created 0660 */
	rc = bind(s->fd, (struct sockaddr *)&sun, sizeof(sun));
	umask(old);
	if (rc < 0) {
		snprintf(err, errlen, "cannot bind %s: %s", path,
			 strerror(errno));
		goto fail;
	}
	if (gid != (gid_t)-1 && chown(path, (uid_t)-1, gid) < 0) {
		snprintf(err, errlen, "cannot give %s group %u: %s", path,
			 (unsigned)gid, strerror(errno));
		unlink(path);
		goto fail;
	}
	if (listen(s->fd, CTL_MAX_CLIENTS) < 0) {
		snprintf(err, errlen, "cannot listen on %s: %s", path,
			 strerror(errno));
		unlink(path);
		goto fail;
	}
	return s;
fail:
	if (s->fd >= 0)
		close(s->fd);
	free(s->path);
	free(s);
	return NULL;
}

static void client_reset(struct ctl_client *c)
{
	free(c->payload);
	free(c->out);
	c->payload = NULL;
	c->out = NULL;
	c->hdr_got = c->payload_got = 0;
	c->out_len = c->out_off = 0;
}

static void client_close(struct ctl_client *c)
{
	client_reset(c);
	close(c->fd);
	c->fd = -1;
	c->close_after = false;
}

void ctl_server_close(struct ctl_server *s)
{
	if (!s)
		return;
	for (unsigned i = 0; i < CTL_MAX_CLIENTS; i++)
		if (s->clients[i].fd >= 0)
			client_close(&s->clients[i]);
	close(s->fd);
	unlink(s->path);
	free(s->path);
	free(s);
}

unsigned ctl_server_pollfds(struct ctl_server *s, struct pollfd *fds,
			    unsigned max)
{
	unsigned n = 0;

	if (max == 0)
		return 0;
	fds[n] = (struct pollfd){ .fd = s->fd, .events =
		now_ms() < s->accept_resume ? 0 : POLLIN };
	s->polled[n++] = -1;
	for (unsigned i = 0; i < CTL_MAX_CLIENTS && n < max; i++) {
		const struct ctl_client *c = &s->clients[i];

		if (c->fd < 0)
			continue;
		fds[n] = (struct pollfd){ .fd = c->fd,
					  .events = c->out ? POLLOUT : POLLIN };
		s->polled[n++] = (int)i;
	}
	s->npolled = n;
	return n;
}

/* SO_PEERCRED and SO_PEERGROUPS of fd decide what the client may do.
 * Returns 0, or -1 (errno set) when the credentials cannot be read. */
static int client_credentials(const struct ctl_server *s, int fd,
			      struct ctl_client *c)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);
	gid_t groups[256];
	socklen_t glen = sizeof(groups);
	unsigned ng = 0;

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0)
		return -1;
	/* More than 256 groups (ERANGE): the primary group only. */
	if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, groups, &glen) == 0)
		ng = glen / sizeof(groups[0]);
	c->uid = cred.uid;
	c->pid = cred.pid;
	c->may_read = ctl_peer_allowed(cred.uid, cred.gid, groups, ng, s->gid,
				       false);
	c->may_write = ctl_peer_allowed(cred.uid, cred.gid, groups, ng, s->gid,
					true);
	return 0;
}

const char *ctl_admit(uid_t uid, unsigned held, unsigned held_nonroot,
		      unsigned held_uid)
{
	if (held >= CTL_MAX_CLIENTS)
		return "too many clients (" STR(CTL_MAX_CLIENTS) " connected)";
	if (uid == 0)
		return NULL;
	if (held_nonroot >= CTL_MAX_CLIENTS - CTL_ROOT_SLOTS)
		return "too many clients (the last " STR(CTL_ROOT_SLOTS)
		       " of " STR(CTL_MAX_CLIENTS) " are kept for root)";
	if (held_uid >= CTL_MAX_PER_UID)
		return "too many clients of this user (" STR(CTL_MAX_PER_UID)
		       " at once)";
	return NULL;
}

/* A whole reply message (header + compact JSON), *len bytes; NULL on
 * allocation failure. */
static char *reply_build(uint16_t status, json_t *doc, size_t *len)
{
	char *text = json_dumps(doc, JSON_COMPACT);
	char *m;

	if (!text)
		return NULL;
	m = ctl_msg_build(status, text, (uint32_t)strlen(text), len);
	free(text);
	return m;
}

/* The reply {"error": why}, as reply_build(). */
static char *error_build(uint16_t status, const char *why, size_t *len)
{
	json_t *doc = json_pack("{s:s}", "error", why);
	char *m;

	if (!doc)
		return NULL;
	m = reply_build(status, doc, len);
	json_decref(doc);
	return m;
}

/* Tell a client that is being refused or dropped why, if its socket takes
 * the reply now: it is not waited for, and a failure changes nothing (the
 * connection is closed next). */
static void error_send_now(int fd, uint16_t status, const char *why)
{
	size_t len = 0;
	char *m = error_build(status, why, &len);

	if (m)
		(void)send(fd, m, len, MSG_DONTWAIT | MSG_NOSIGNAL);
	free(m);
}

/* A free slot for a client of uid, or NULL with the reason in *why. */
static struct ctl_client *slot_find(struct ctl_server *s, uid_t uid,
				    const char **why)
{
	struct ctl_client *free_slot = NULL;
	unsigned held = 0, nonroot = 0, same = 0;

	for (unsigned i = 0; i < CTL_MAX_CLIENTS; i++) {
		struct ctl_client *c = &s->clients[i];

		if (c->fd < 0) {
			if (!free_slot)
				free_slot = c;
			continue;
		}
		held++;
		nonroot += c->uid != 0;
		same += c->uid == uid;
	}
	*why = ctl_admit(uid, held, nonroot, same);
	return *why ? NULL : free_slot;
}

/* A new connection: take it into a slot, or refuse it with a reply. */
static void server_admit(struct ctl_server *s, int fd)
{
	struct ctl_client tmp = { .fd = fd }, *c;
	const char *why;

	if (client_credentials(s, fd, &tmp) < 0) {
		log_ratelimited(&s->refused_rl, LOG_NOTICE, "control client "
				"refused: no credentials: %s", strerror(errno));
		close(fd);
		return;
	}
	c = slot_find(s, tmp.uid, &why);
	if (!c) {
		log_ratelimited(&s->refused_rl, LOG_NOTICE, "control client "
				"pid %d uid %u refused: %s", (int)tmp.pid,
				(unsigned)tmp.uid, why);
		error_send_now(fd, CTL_ERR_BUSY, why);
		close(fd);
		return;
	}
	*c = tmp;
	c->deadline = now_ms() + CTL_REQUEST_TIMEOUT * 1000u;
	log_ratelimited(&s->event_rl, LOG_DEBUG, "control client pid %d uid "
			"%u connected", (int)c->pid, (unsigned)c->uid);
}

/* Accept what is queued: a bounded batch, so that a stream of connections
 * does not keep the main loop from its signals. */
static void server_accept(struct ctl_server *s)
{
	for (unsigned i = 0; i < CTL_MAX_CLIENTS; i++) {
		int fd = accept4(s->fd, NULL, NULL,
				 SOCK_NONBLOCK | SOCK_CLOEXEC);
		int e = errno;

		if (fd >= 0) {
			server_admit(s, fd);
			continue;
		}
		if (e == EAGAIN || e == EINTR)
			return;
		log_ratelimited(&s->refused_rl, LOG_WARNING,
				"control socket accept: %s", strerror(e));
		/* Out of fds or memory: the connection stays queued and
		 * poll() would wake at once; try again in a second. */
		if (e == EMFILE || e == ENFILE || e == ENOBUFS || e == ENOMEM)
			s->accept_resume = now_ms() + 1000;
		return;
	}
}

/* Queue a reply message m (NULL: allocation failure) of len bytes; it
 * must be read within CTL_REQUEST_TIMEOUT. */
static int client_queue(struct ctl_client *c, char *m, size_t len)
{
	if (!m)
		return -1;
	c->out = m;
	c->out_len = len;
	c->out_off = 0;
	c->deadline = now_ms() + CTL_REQUEST_TIMEOUT * 1000u;
	return 0;
}

static int client_queue_reply(struct ctl_client *c, uint16_t status,
			      json_t *doc)
{
	size_t len = 0;
	char *m = reply_build(status, doc, &len);

	return client_queue(c, m, len);
}

/* Error reply {"error": why}; close_after for protocol errors. */
static int client_queue_error(struct ctl_client *c, uint16_t status,
			      const char *why, bool close_after)
{
	size_t len = 0;
	char *m = error_build(status, why, &len);

	c->close_after = close_after;
	return client_queue(c, m, len);
}

/* A whole request is in: answer it. */
static int client_handle(struct ctl_server *s, struct ctl_client *c)
{
	struct ctl_request req = {
		.type = c->hdr.code, .uid = c->uid, .pid = c->pid,
		.payload = c->payload, .length = c->hdr.length,
	};
	uint16_t status = CTL_OK;
	bool write_req;
	json_t *doc;
	int ret;

	if (!ctl_type_known(req.type, &write_req)) {
		log_ratelimited(&s->event_rl, LOG_DEBUG, "control client pid "
				"%d: unknown request type %u", (int)c->pid,
				req.type);
		return client_queue_error(c, CTL_ERR_UNKNOWN,
					  "unknown request type", true);
	}
	if (!c->may_read) {
		log_ratelimited(&s->refused_rl, LOG_NOTICE, "control client "
				"pid %d uid %u is not in the control group: "
				"refused", (int)c->pid, (unsigned)c->uid);
		return client_queue_error(c, CTL_ERR_PERMISSION,
					  "not a member of the control group",
					  false);
	}
	if (write_req && !c->may_write) {
		log_ratelimited(&s->refused_rl, LOG_NOTICE, "control client "
				"pid %d uid %u: request %u needs root: refused",
				(int)c->pid, (unsigned)c->uid, req.type);
		return client_queue_error(c, CTL_ERR_PERMISSION,
					  "this request needs root", false);
	}
	doc = s->fn(s->arg, &req, &status);
	if (!doc)
		return client_queue_error(c, CTL_ERR_FAILED,
					  "the daemon could not answer", false);
	ret = client_queue_reply(c, status, doc);
	json_decref(doc);
	return ret;
}

/* Read what is there.  Returns -1 when the client must be closed. */
static int client_read(struct ctl_server *s, struct ctl_client *c)
{
	for (;;) {
		uint8_t *dst;
		size_t want;
		ssize_t n;

		if (c->hdr_got < sizeof(c->hdr)) {
			dst = (uint8_t *)&c->hdr + c->hdr_got;
			want = sizeof(c->hdr) - c->hdr_got;
		} else {
			dst = c->payload + c->payload_got;
			want = c->hdr.length - c->payload_got;
		}
		n = recv(c->fd, dst, want, MSG_DONTWAIT);
		if (n == 0)
			return -1;
		if (n < 0)
			return errno == EAGAIN || errno == EINTR ? 0 : -1;
		if (c->hdr_got < sizeof(c->hdr)) {
			const char *why;

			c->hdr_got += (size_t)n;
			if (c->hdr_got < sizeof(c->hdr))
				continue;
			if (ctl_hdr_check(&c->hdr, CTL_MAX_REQUEST, &why)) {
				log_ratelimited(&s->event_rl, LOG_DEBUG,
						"control client pid %d: %s",
						(int)c->pid, why);
				return client_queue_error(c, CTL_ERR_PROTOCOL,
							  why, true);
			}
			c->payload = malloc(c->hdr.length + 1);
			if (!c->payload)
				return -1;
		} else {
			c->payload_got += (size_t)n;
		}
		if (c->payload_got == c->hdr.length) {
			c->payload[c->hdr.length] = '\0';
			return client_handle(s, c);
		}
	}
}

/* Write what can be written.  Returns -1 when the client must be closed. */
static int client_write(struct ctl_client *c)
{
	while (c->out_off < c->out_len) {
		ssize_t n = send(c->fd, c->out + c->out_off,
				 c->out_len - c->out_off,
				 MSG_DONTWAIT | MSG_NOSIGNAL);

		if (n < 0)
			return errno == EAGAIN || errno == EINTR ? 0 : -1;
		c->out_off += (size_t)n;
	}
	if (c->close_after)
		return -1;
	client_reset(c);
	c->deadline = now_ms() + CTL_REQUEST_TIMEOUT * 1000u;	/* the next */
	return 0;
}

/* Past its deadline: tell a client that owes a request (not one that does
 * not read its reply), and close it. */
static void client_expire(struct ctl_server *s, struct ctl_client *c)
{
	log_ratelimited(&s->event_rl, LOG_DEBUG, "control client pid %d uid "
			"%u: %s in %d s: dropped", (int)c->pid, (unsigned)c->uid,
			c->out ? "reply not read" : "no whole request",
			CTL_REQUEST_TIMEOUT);
	if (!c->out)
		error_send_now(c->fd, CTL_ERR_TIMEOUT, "timed out: a request "
			       "must arrive whole within "
			       STR(CTL_REQUEST_TIMEOUT) " s");
	client_close(c);
}

void ctl_server_dispatch(struct ctl_server *s, const struct pollfd *fds,
			 unsigned n)
{
	uint64_t now;

	for (unsigned i = 0; i < n && i < s->npolled; i++) {
		struct ctl_client *c;
		int rc = 0;

		if (!fds[i].revents)
			continue;
		if (s->polled[i] < 0) {
			server_accept(s);
			continue;
		}
		c = &s->clients[s->polled[i]];
		if (c->fd != fds[i].fd)
			continue;
		if (!c->out && (fds[i].revents & (POLLIN | POLLHUP | POLLERR)))
			rc = client_read(s, c);
		else if (c->out && (fds[i].revents & (POLLHUP | POLLERR)))
			rc = -1;
		if (rc == 0 && c->out)
			rc = client_write(c);
		if (rc < 0)
			client_close(c);
	}
	now = now_ms();
	for (unsigned i = 0; i < CTL_MAX_CLIENTS; i++) {
		struct ctl_client *c = &s->clients[i];

		if (c->fd >= 0 && now >= c->deadline)
			client_expire(s, c);
	}
}
