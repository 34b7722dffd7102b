/* metrics.h - srv6d's metrics as Prometheus' text exposition format
 * (version 0.0.4), built from the same counters as srv6ctl's STATUS and
 * STATS documents (ctl_json.h): per worker, per SID, per srv6d.conf
 * policy, per drop reason, the kernel's view of the queues and the route
 * mirror.  metrics_http.h serves it (`metrics-listen`, srv6d.conf(5)).
 *
 * Names follow Prometheus' conventions: an `srv6d_` prefix, `_total` for
 * counters, base units (`_seconds`, `_bytes`), HELP and TYPE lines before
 * each family, labels for what varies (worker, queue, sid, behavior,
 * policy, table, outcome, reason).  A worker's drops have a sample for
 * every reason, zero or not; a SID's or a policy's only for the reasons
 * it has counted (a series per SID and reason would be hundreds of them
 * for nothing).
 */
#ifndef SRV6D_METRICS_H
#define SRV6D_METRICS_H

#include <stddef.h>

#include "ctl_json.h"

/* The Content-Type of metrics_text()'s document. */
#define METRICS_CONTENT_TYPE	"text/plain; version=0.0.4; charset=utf-8"

/* The exposition of src (its mirror, when set, read by an online QSBR
 * reader).  Returns a new NUL-terminated text of *len bytes (free()
 * it), or NULL when memory runs out. */
char *metrics_text(const struct ctl_status_src *src, size_t *len);

#endif
