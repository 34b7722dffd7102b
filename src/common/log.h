/* log.h - srv6d's logging: syslog, and stderr when asked or on a tty.
 *
 * log_msg() may be called from any thread.  Nothing on the packet path logs
 * per packet; an event that can repeat (ENOBUFS, a failed netlink send) goes
 * through log_ratelimited() with its own struct log_ratelimit.
 */
#ifndef SRV6D_LOG_H
#define SRV6D_LOG_H

#include <stdbool.h>
#include <syslog.h>
#include <time.h>

/* Open syslog as `ident` (LOG_DAEMON).  debug: let LOG_DEBUG through and
 * copy every message to stderr; messages also go to stderr when stderr is
 * a tty. */
void log_init(const char *ident, bool debug);

/* Copy messages to stderr too (on), or back to log_init()'s choice (off):
 * srv6d does it while starting, so that a failed start says why where it
 * was started (not when stderr is already the journal). */
void log_stderr(bool on);

/* Close syslog. */
void log_close(void);

/* Log at syslog priority prio (LOG_ERR ... LOG_DEBUG). */
void log_msg(int prio, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Debug message: only with -d. */
#define log_debug(...) log_msg(LOG_DEBUG, __VA_ARGS__)

/* At most `burst` messages per `interval` seconds; when a new interval
 * starts, the count of messages suppressed in the last one is logged. */
struct log_ratelimit {
	unsigned interval;	/* seconds */
	unsigned burst;
	time_t start;		/* CLOCK_MONOTONIC seconds of this interval */
	unsigned printed;
	unsigned suppressed;
};

#define LOG_RATELIMIT_INIT(interval_s, burst_n) \
	{ .interval = (interval_s), .burst = (burst_n) }

/* log_msg() unless rl's budget for this interval is spent.  One
 * struct log_ratelimit may be shared by threads (a mutex guards it). */
void log_ratelimited(struct log_ratelimit *rl, int prio, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
