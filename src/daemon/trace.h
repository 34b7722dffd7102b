/* trace.h - the control thread's side of `srv6ctl trace` and `srv6ctl
 * capture` (CTL_REQ_TRACE, ctl_proto.h): one trace at a time, turned on
 * in the workers (engine_trace_start(), pkt_trace.h) by a "start"
 * request, drained by "read" requests into JSON records, and off again
 * once it has its count of records, at "stop", or when no one has read it
 * for TRACE_IDLE_MS (its client is gone).
 *
 * The request's payload, words separated by spaces:
 *
 *	start [count N] [drops] [bytes] [sid SID | policy PREFIX/LEN]
 *	read
 *	stop
 *
 * `drops`: only the packets counted as dropped; `bytes`: each record
 * carries the packet's first PKT_TRACE_SNAP bytes as queued, in hex;
 * `sid`: only that SID's packets (its prefix, or an address in it, as
 * `srv6ctl sid show`); `policy`: only that srv6d.conf policy's.
 * A malformed request gets CTL_ERR_INVALID, an unknown SID or policy
 * CTL_ERR_NOT_FOUND, a start while another trace runs CTL_ERR_FAILED,
 * each with a message.
 */
#ifndef SRV6D_TRACE_H
#define SRV6D_TRACE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <jansson.h>

#include "ctl.h"
#include "worker.h"

#define TRACE_MAX_COUNT		100000	/* records one trace asks for */
#define TRACE_DEFAULT_COUNT	10
#define TRACE_READ_MAX		512	/* records one read returns */
#define TRACE_IDLE_MS		10000	/* unread this long: stopped */

struct trace_session {
	bool active;
	bool bytes;		/* records carry their bytes */
	uint32_t want, got;	/* records asked for, handed out */
	pid_t pid;		/* who started it */
	uint64_t deadline_ms;	/* monotonic: stopped if not read by then */
	struct pkt_trace_record *buf;	/* TRACE_READ_MAX, once allocated */
};

/* Answer a CTL_REQ_TRACE request against engine e (its config in force
 * resolves a sid or policy).  Returns the reply document with *status
 * set, NULL when memory runs out. */
json_t *trace_request(struct trace_session *s, struct engine *e,
		      const struct ctl_request *req, uint16_t *status);

/* From the daemon's loop: stop a trace no one reads any more. */
void trace_tick(struct trace_session *s, struct engine *e);

/* Stop (s's engine still running) and release what s holds. */
void trace_session_end(struct trace_session *s, struct engine *e);

/* The JSON record of rec (time: rec's monotonic time plus mono_to_real,
 * in microseconds since the Epoch); with_bytes: its "data" in hex.
 * Returns a new object, NULL on allocation failure. */
json_t *trace_record_json(const struct pkt_trace_record *rec,
			  int64_t mono_to_real_ns, bool with_bytes);

#endif
