/* ctl_proto.c - the control protocol (ctl_proto.h): framing, and the
 * client's side of a call, which srv6ctl uses. */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "ctl_proto.h"

/* ---- framing ---------------------------------------------------------- */

void ctl_hdr_init(struct ctl_hdr *h, uint16_t code, uint32_t length)
{
	h->magic = CTL_MAGIC;
	h->version = CTL_PROTO_VERSION;
	h->code = code;
	h->length = length;
}

int ctl_hdr_check(const struct ctl_hdr *h, uint32_t maxlen, const char **why)
{
	if (h->magic != CTL_MAGIC) {
		*why = "bad magic";
		return CTL_ERR_PROTOCOL;
	}
	if (h->version != CTL_PROTO_VERSION) {
		*why = "unsupported protocol version";
		return CTL_ERR_PROTOCOL;
	}
	if (h->length > maxlen) {
		*why = "message too long";
		return CTL_ERR_PROTOCOL;
	}
	*why = NULL;
	return CTL_OK;
}

bool ctl_type_known(uint16_t type, bool *write_req)
{
	*write_req = false;
	switch (type) {
	case CTL_REQ_STATUS:
	case CTL_REQ_VERSION:
	case CTL_REQ_SIDS:
	case CTL_REQ_POLICIES:
	case CTL_REQ_STATS:
	case CTL_REQ_ROUTES:
	case CTL_REQ_ROUTE_GET:
		return true;
	case CTL_REQ_RELOAD:
	case CTL_REQ_CLEAR:
	case CTL_REQ_TRACE:	/* packets' bytes and addresses */
		*write_req = true;
		return true;
	default:
		return false;
	}
}

const char *ctl_status_name(uint16_t status)
{
	static const char *const names[] = {
		[CTL_OK] = "ok",
		[CTL_ERR_PROTOCOL] = "protocol error",
		[CTL_ERR_UNKNOWN] = "unknown request",
		[CTL_ERR_PERMISSION] = "permission denied",
		[CTL_ERR_FAILED] = "request failed",
		[CTL_ERR_NOT_FOUND] = "not found",
		[CTL_ERR_INVALID] = "invalid request",
		[CTL_ERR_BUSY] = "busy",
		[CTL_ERR_TIMEOUT] = "timed out",
	};

	if (status < sizeof(names) / sizeof(names[0]))
		return names[status];
	return "unknown status";
}

void *ctl_msg_build(uint16_t code, const void *payload, uint32_t length,
		    size_t *len)
{
	struct ctl_hdr h;
	uint8_t *m = malloc(sizeof(h) + length);

	if (!m)
		return NULL;
	ctl_hdr_init(&h, code, length);
	memcpy(m, &h, sizeof(h));
	if (length)
		memcpy(m + sizeof(h), payload, length);
	*len = sizeof(h) + length;
	return m;
}

/* ---- connecting ------------------------------------------------------- */

int ctl_sockaddr_fill(struct sockaddr_un *sun, const char *path)
{
	memset(sun, 0, sizeof(*sun));
	sun->sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(sun->sun_path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	strcpy(sun->sun_path, path);
	return 0;
}

int ctl_connect(const char *path)
{
	struct sockaddr_un sun;
	int fd;

	if (ctl_sockaddr_fill(&sun, path) < 0)
		return -1;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) < 0) {
		int e = errno;

		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

/* ---- the client's call ------------------------------------------------ */

/* Move len bytes in direction events, waiting at most timeout_ms each
 * time.  Returns 0, or -1 with a message in err and errno set. */
static int io_full(int fd, short events, void *buf, size_t len,
		   int timeout_ms, char *err, size_t errlen)
{
	uint8_t *p = buf;

	while (len) {
		struct pollfd pfd = { .fd = fd, .events = events };
		ssize_t n;
		int r = poll(&pfd, 1, timeout_ms);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			if (r == 0)
				errno = ETIMEDOUT;
			snprintf(err, errlen, "%s", r == 0 ?
				 "timed out waiting for the daemon" :
				 strerror(errno));
			return -1;
		}
		if (events == POLLOUT)
			n = send(fd, p, len, MSG_DONTWAIT | MSG_NOSIGNAL);
		else
			n = recv(fd, p, len, MSG_DONTWAIT);
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (n <= 0) {
			int e = n == 0 ? ECONNRESET : errno;

			snprintf(err, errlen, "%s", e == ECONNRESET ||
				 e == EPIPE ? "the daemon closed the connection"
					    : strerror(e));
			errno = e;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Read one reply.  Returns 0 with *status and *reply set, or -1 with a
 * message in err. */
static int reply_read(int fd, int timeout_ms, uint16_t *status,
		      json_t **reply, char *err, size_t errlen)
{
	struct ctl_hdr h;
	json_error_t jerr;
	const char *why;
	char *text;

	if (io_full(fd, POLLIN, &h, sizeof(h), timeout_ms, err, errlen) < 0)
		return -1;
	if (ctl_hdr_check(&h, CTL_MAX_REPLY, &why)) {
		snprintf(err, errlen, "bad reply from the daemon: %s", why);
		return -1;
	}
	text = malloc(h.length + 1);
	if (!text) {
		snprintf(err, errlen, "%s", strerror(ENOMEM));
		return -1;
	}
	if (io_full(fd, POLLIN, text, h.length, timeout_ms, err, errlen) < 0) {
		free(text);
		return -1;
	}
	*reply = json_loadb(text, h.length, 0, &jerr);
	free(text);
	if (!*reply) {
		snprintf(err, errlen, "bad reply from the daemon: %s", jerr.text);
		return -1;
	}
	*status = h.code;
	return 0;
}

int ctl_call(int fd, uint16_t type, const void *payload, uint32_t length,
	     int timeout_ms, uint16_t *status, json_t **reply, char *err,
	     size_t errlen)
{
	size_t len;
	void *msg = ctl_msg_build(type, payload, length, &len);
	int sent;

	*reply = NULL;
	if (!msg) {
		snprintf(err, errlen, "%s", strerror(ENOMEM));
		return -1;
	}
	sent = io_full(fd, POLLOUT, msg, len, timeout_ms, err, errlen);
	free(msg);
	/* A daemon that closed the connection may have said why first. */
	if (sent < 0 && errno != EPIPE && errno != ECONNRESET)
		return -1;
	return reply_read(fd, timeout_ms, status, reply, err, errlen);
}
