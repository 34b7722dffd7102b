/* metrics_http.h - the HTTP endpoint of srv6d's metrics (`metrics-listen`,
 * srv6d.conf(5)), on libmicrohttpd in its external polling mode: the
 * daemon's poll() loop waits on one descriptor (libmicrohttpd's epoll
 * set) and the control thread answers, between its other work; nothing
 * of it runs on, or waits for, the workers.
 *
 * GET or HEAD of /metrics is answered with metrics.h's document; another
 * path gets 404, another method 405 (Allow: GET, HEAD).  A client cannot
 * hold the daemon: every socket is non-blocking, at most
 * METRICS_HTTP_MAX_CLIENTS are connected at once (others wait in the
 * listen backlog), a connection idle for METRICS_HTTP_TIMEOUT seconds is
 * closed, and so is any connection METRICS_HTTP_DEADLINE seconds after it
 * was accepted (a client that trickles), and a request's headers are at
 * most METRICS_HTTP_MEMORY bytes (a bigger one gets an error and is
 * closed; a body is never read).
 */
#ifndef SRV6D_METRICS_HTTP_H
#define SRV6D_METRICS_HTTP_H

#include <stddef.h>

#include "config.h"

#define METRICS_HTTP_MAX_CLIENTS	16
#define METRICS_HTTP_TIMEOUT		10	/* seconds idle */
#define METRICS_HTTP_DEADLINE		15	/* seconds in all */
#define METRICS_HTTP_MEMORY		16384	/* bytes per connection */

/* The document of a scrape: a new text of *len bytes (free()d by the
 * server), or NULL when it cannot be built (500). */
typedef char *(*metrics_fill_fn)(void *arg, size_t *len);

struct metrics_http;

/* Listen on cfg's metrics-listen address.  Returns the server, or NULL
 * with a message in err (the address in use, not local, ...). */
struct metrics_http *metrics_http_open(const struct config *cfg,
				       metrics_fill_fn fn, void *arg,
				       char *err, size_t errlen);

/* The descriptor to poll() for POLLIN (-1 for NULL). */
int metrics_http_fd(const struct metrics_http *h);

/* Milliseconds poll() may wait at most for the server, -1 for as long as
 * it likes (NULL, or nothing pending). */
int metrics_http_timeout_ms(const struct metrics_http *h);

/* Do what is ready: accept, read, answer, write, close what timed out.
 * Never blocks.  Call it after every poll() (h may be NULL). */
void metrics_http_run(struct metrics_http *h);

/* Close every connection and the socket (h may be NULL). */
void metrics_http_close(struct metrics_http *h);

#endif
