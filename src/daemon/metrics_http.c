/* metrics_http.c - the metrics' HTTP endpoint (metrics_http.h) on
 * libmicrohttpd: its external polling mode with epoll (one descriptor),
 * driven by the daemon's loop. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include <microhttpd.h>

#include "log.h"
#include "metrics.h"
#include "metrics_http.h"

/* A connection's socket and when it was accepted, for the deadline. */
struct metrics_conn {
	int fd;			/* -1: a free slot */
	uint64_t since_ms;	/* monotonic */
};

struct metrics_http {
	struct MHD_Daemon *mhd;
	int fd;			/* its epoll set */
	metrics_fill_fn fn;
	void *arg;
	struct metrics_conn conns[METRICS_HTTP_MAX_CLIENTS];
};

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* libmicrohttpd's connection notice: note when a socket was accepted, and
 * forget it when it is closed.  *socket_context is its slot. */
static void metrics_conn_notice(void *cls, struct MHD_Connection *c,
				void **socket_context,
				enum MHD_ConnectionNotificationCode what)
{
	struct metrics_http *h = cls;
	struct metrics_conn *slot = *socket_context;
	const union MHD_ConnectionInfo *info;

	if (what == MHD_CONNECTION_NOTIFY_CLOSED) {
		if (slot)
			slot->fd = -1;
		*socket_context = NULL;
		return;
	}
	info = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
	for (unsigned i = 0; info && i < METRICS_HTTP_MAX_CLIENTS; i++) {
		if (h->conns[i].fd < 0) {
			h->conns[i].fd = info->connect_fd;
			h->conns[i].since_ms = now_ms();
			*socket_context = &h->conns[i];
			return;
		}
	}
}

/* A connection older than METRICS_HTTP_DEADLINE, however busy (a client
 * that trickles a byte a second is never idle): its socket is shut down,
 * which libmicrohttpd sees at its next run and closes. */
static void metrics_deadlines(struct metrics_http *h)
{
	uint64_t now = now_ms();

	for (unsigned i = 0; i < METRICS_HTTP_MAX_CLIENTS; i++) {
		struct metrics_conn *c = &h->conns[i];

		if (c->fd >= 0 && now - c->since_ms >
		    METRICS_HTTP_DEADLINE * 1000u) {
			shutdown(c->fd, SHUT_RDWR);
			c->since_ms = now;	/* once a deadline */
		}
	}
}

/* Queue a response of text (static) with status code. */
static enum MHD_Result respond_static(struct MHD_Connection *c,
				      unsigned code, const char *text,
				      bool allow)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(
		strlen(text), (void *)text, MHD_RESPMEM_PERSISTENT);
	enum MHD_Result ret;

	if (!r)
		return MHD_NO;	/* the connection is closed */
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
				"text/plain; charset=utf-8");
	if (allow)
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	ret = MHD_queue_response(c, code, r);
	MHD_destroy_response(r);
	return ret;
}

/* The metrics document, 200; 500 when it cannot be built. */
static enum MHD_Result respond_metrics(struct metrics_http *h,
				       struct MHD_Connection *c)
{
	struct MHD_Response *r;
	enum MHD_Result ret;
	size_t len = 0;
	char *text = h->fn(h->arg, &len);

	if (!text)
		return respond_static(c, MHD_HTTP_INTERNAL_SERVER_ERROR,
				      "srv6d could not build its metrics\n",
				      false);
	r = MHD_create_response_from_buffer(len, text, MHD_RESPMEM_MUST_FREE);
	if (!r) {
		free(text);
		return MHD_NO;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
				METRICS_CONTENT_TYPE);
	ret = MHD_queue_response(c, MHD_HTTP_OK, r);
	MHD_destroy_response(r);
	return ret;
}

/* libmicrohttpd's access handler: called once the request's headers are
 * in.  Any body is not read: the answer goes at once, and libmicrohttpd
 * closes the connection after it. */
static enum MHD_Result metrics_answer(void *cls, struct MHD_Connection *c,
				      const char *url, const char *method,
				      const char *version,
				      const char *upload_data,
				      size_t *upload_data_size, void **con_cls)
{
	struct metrics_http *h = cls;

	(void)version;
	(void)upload_data;
	(void)upload_data_size;
	(void)con_cls;
	if (strcmp(method, MHD_HTTP_METHOD_GET) &&
	    strcmp(method, MHD_HTTP_METHOD_HEAD))
		return respond_static(c, MHD_HTTP_METHOD_NOT_ALLOWED,
				      "only GET and HEAD\n", true);
	if (strcmp(url, "/metrics"))
		return respond_static(c, MHD_HTTP_NOT_FOUND,
				      "not found: the metrics are at "
				      "/metrics\n", false);
	return respond_metrics(h, c);
}

/* cfg's address as a struct sockaddr in ss; *flags gets MHD_USE_IPv6 for
 * an IPv6 one.  Returns its length. */
static socklen_t metrics_sockaddr(const struct config *cfg,
				  struct sockaddr_storage *ss,
				  unsigned *flags)
{
	memset(ss, 0, sizeof(*ss));
	if (cfg->metrics_family == AF_INET6) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;

		s6->sin6_family = AF_INET6;
		s6->sin6_addr = cfg->metrics_addr.v6;
		s6->sin6_port = htons(cfg->metrics_port);
		*flags |= MHD_USE_IPv6;
		return sizeof(*s6);
	}
	struct sockaddr_in *s4 = (struct sockaddr_in *)ss;

	s4->sin_family = AF_INET;
	s4->sin_addr = cfg->metrics_addr.v4;
	s4->sin_port = htons(cfg->metrics_port);
	return sizeof(*s4);
}

/* "[::1]:9586" or "127.0.0.1:9586" of cfg. */
static void metrics_addr_text(const struct config *cfg, char *buf,
			      size_t len)
{
	char a[INET6_ADDRSTRLEN];
	bool v6 = cfg->metrics_family == AF_INET6;

	inet_ntop(cfg->metrics_family, &cfg->metrics_addr, a, sizeof(a));
	snprintf(buf, len, "%s%s%s:%u", v6 ? "[" : "", a, v6 ? "]" : "",
		 cfg->metrics_port);
}

struct metrics_http *metrics_http_open(const struct config *cfg,
				       metrics_fill_fn fn, void *arg,
				       char *err, size_t errlen)
{
	const union MHD_DaemonInfo *info;
	struct sockaddr_storage ss;
	unsigned flags = MHD_USE_EPOLL;
	struct metrics_http *h;
	char where[INET6_ADDRSTRLEN + 16];

	metrics_addr_text(cfg, where, sizeof(where));
	(void)metrics_sockaddr(cfg, &ss, &flags);
	h = calloc(1, sizeof(*h));
	if (!h) {
		snprintf(err, errlen, "metrics-listen %s: out of memory", where);
		return NULL;
	}
	h->fn = fn;
	h->arg = arg;
	for (unsigned i = 0; i < METRICS_HTTP_MAX_CLIENTS; i++)
		h->conns[i].fd = -1;
	errno = 0;
	h->mhd = MHD_start_daemon(flags, cfg->metrics_port, NULL, NULL,
				  metrics_answer, h,
				  MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
				  MHD_OPTION_CONNECTION_LIMIT,
				  (unsigned)METRICS_HTTP_MAX_CLIENTS,
				  MHD_OPTION_CONNECTION_TIMEOUT,
				  (unsigned)METRICS_HTTP_TIMEOUT,
				  MHD_OPTION_CONNECTION_MEMORY_LIMIT,
				  (size_t)METRICS_HTTP_MEMORY,
				  MHD_OPTION_LISTENING_ADDRESS_REUSE, 1u,
				  MHD_OPTION_NOTIFY_CONNECTION,
				  metrics_conn_notice, h,
				  MHD_OPTION_END);
	info = h->mhd ? MHD_get_daemon_info(h->mhd, MHD_DAEMON_INFO_EPOLL_FD)
		      : NULL;
	if (!info) {
		snprintf(err, errlen, "metrics-listen %s: cannot listen%s%s",
			 where, errno ? ": " : "", errno ? strerror(errno) : "");
		if (h->mhd)
			MHD_stop_daemon(h->mhd);
		free(h);
		return NULL;
	}
	h->fd = info->epoll_fd;
	log_msg(LOG_INFO, "metrics at http://%s/metrics", where);
	return h;
}

int metrics_http_fd(const struct metrics_http *h)
{
	return h ? h->fd : -1;
}

int metrics_http_timeout_ms(const struct metrics_http *h)
{
	MHD_UNSIGNED_LONG_LONG ms;

	if (!h || MHD_get_timeout(h->mhd, &ms) != MHD_YES)
		return -1;
	return ms > 1000 ? 1000 : (int)ms;
}

void metrics_http_run(struct metrics_http *h)
{
	if (!h)
		return;
	MHD_run(h->mhd);
	metrics_deadlines(h);
}

void metrics_http_close(struct metrics_http *h)
{
	if (!h)
		return;
	MHD_stop_daemon(h->mhd);
	free(h);
}
