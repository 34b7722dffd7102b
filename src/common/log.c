/* log.c - syslog/stderr logging with priorities and rate limiting. */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"

static const char *log_ident = "srv6d";
static bool log_debug_on;
static bool log_to_stderr;
static bool log_default_stderr;
static pthread_mutex_t log_rl_lock = PTHREAD_MUTEX_INITIALIZER;

/* True when stderr is systemd's journal stream (which already has what
 * goes to syslog). */
static bool stderr_is_journal(void)
{
	const char *js = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;

	if (!js || sscanf(js, "%llu:%llu", &dev, &ino) != 2 ||
	    fstat(STDERR_FILENO, &st) < 0)
		return false;
	return st.st_dev == dev && st.st_ino == ino;
}

void log_init(const char *ident, bool debug)
{
	log_ident = ident;
	log_debug_on = debug;
	log_default_stderr = debug || isatty(STDERR_FILENO);
	log_to_stderr = log_default_stderr;
	openlog(ident, LOG_PID | LOG_NDELAY, LOG_DAEMON);
	setlogmask(debug ? LOG_UPTO(LOG_DEBUG) : LOG_UPTO(LOG_INFO));
}

void log_close(void)
{
	closelog();
}

void log_stderr(bool on)
{
	log_to_stderr = (on && !stderr_is_journal()) || log_default_stderr;
}

static const char *log_prio_name(int prio)
{
	switch (prio) {
	case LOG_EMERG:
	case LOG_ALERT:
	case LOG_CRIT:
	case LOG_ERR:
		return "error: ";
	case LOG_WARNING:
		return "warning: ";
	case LOG_DEBUG:
		return "debug: ";
	default:
		return "";
	}
}

static void log_vmsg(int prio, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));

static void log_vmsg(int prio, const char *fmt, va_list ap)
{
	char buf[1024];

	if (prio == LOG_DEBUG && !log_debug_on)
		return;
	vsnprintf(buf, sizeof(buf), fmt, ap);
	syslog(prio, "%s", buf);
	if (log_to_stderr)
		fprintf(stderr, "%s: %s%s\n", log_ident, log_prio_name(prio), buf);
}

void log_msg(int prio, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vmsg(prio, fmt, ap);
	va_end(ap);
}

/* Decide under the lock whether this message may go out; returns the count
 * of messages suppressed in the interval that just ended (to report), via
 * *suppressed. */
static bool log_ratelimit_allow(struct log_ratelimit *rl, unsigned *suppressed)
{
	struct timespec ts;
	bool ok;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	*suppressed = 0;
	pthread_mutex_lock(&log_rl_lock);
	if (rl->start == 0 || ts.tv_sec - rl->start >= (time_t)rl->interval) {
		*suppressed = rl->suppressed;
		rl->start = ts.tv_sec ? ts.tv_sec : 1;
		rl->printed = 0;
		rl->suppressed = 0;
	}
	ok = rl->printed < rl->burst;
	if (ok)
		rl->printed++;
	else
		rl->suppressed++;
	pthread_mutex_unlock(&log_rl_lock);
	return ok;
}

void log_ratelimited(struct log_ratelimit *rl, int prio, const char *fmt, ...)
{
	unsigned suppressed;
	va_list ap;

	if (prio == LOG_DEBUG && !log_debug_on)
		return;
	if (!log_ratelimit_allow(rl, &suppressed))
		return;
	if (suppressed)
		log_msg(prio, "%u similar messages suppressed", suppressed);
	va_start(ap, fmt);
	log_vmsg(prio, fmt, ap);
	va_end(ap);
}
