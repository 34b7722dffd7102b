/* srv6ctl.c - look at a running srv6d over its control socket. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "ctl.h"
#include "stats.h"

/* Exit status (srv6ctl(8) EXIT STATUS). */
#define EXIT_DAEMON_ERROR	1	/* error reply, or no usable reply */
#define EXIT_USAGE		2
#define EXIT_NO_DAEMON		3	/* cannot connect */

#define CALL_TIMEOUT_MS		5000
#define TABLE_MAX_COLS		10

static void usage(FILE *f)
{
	fprintf(f,
		"usage: srv6ctl [-hjV] [-s socket] command\n"
		"  -s socket  control socket (default %s)\n"
		"  -j         print the daemon's JSON document\n"
		"  -V         print srv6ctl's version and exit\n"
		"  -h         print this help and exit\n"
		"commands:\n"
		"  status     counters per queue, SID and policy; drop reasons\n"
		"  version    the daemon's version\n",
		CTL_DEFAULT_PATH);
}

/* ---- reading the document ------------------------------------------- */

static uint64_t jnum(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);

	return json_is_integer(v) ? (uint64_t)json_integer_value(v) : 0;
}

static const char *jstr(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : "-";
}

/* Sum of a "drops" object's values. */
static uint64_t drops_sum(const json_t *o)
{
	const json_t *drops = json_object_get(o, "drops");
	const char *k;
	json_t *v;
	uint64_t n = 0;

	json_object_foreach((json_t *)drops, k, v)
		if (json_is_integer(v))
			n += (uint64_t)json_integer_value(v);
	return n;
}

/* "a,b,c" from an array of strings. */
static void join_strings(const json_t *a, char *buf, size_t len)
{
	size_t off = 0;
	size_t i;
	json_t *v;

	buf[0] = '\0';
	json_array_foreach((json_t *)a, i, v) {
		const char *s = json_string_value(v);

		if (!s || off >= len)
			continue;
		off += (size_t)snprintf(buf + off, len - off, "%s%s",
					i ? "," : "", s);
	}
	if (!buf[0] && len > 1)
		snprintf(buf, len, "-");
}

/* ---- aligned tables ------------------------------------------------- */

struct table {
	unsigned ncols;
	const char *head[TABLE_MAX_COLS];
	bool right[TABLE_MAX_COLS];	/* numbers are right-aligned */
	char **cells;			/* rows * ncols strings */
	unsigned nrows, cap;
};

static void table_init(struct table *t, const char *spec)
{
	/* spec: "name<" left-aligned or "name>" right-aligned, '|' between */
	static char buf[512];
	char *save, *tok;

	memset(t, 0, sizeof(*t));
	snprintf(buf, sizeof(buf), "%s", spec);
	for (tok = strtok_r(buf, "|", &save); tok && t->ncols < TABLE_MAX_COLS;
	     tok = strtok_r(NULL, "|", &save)) {
		size_t n = strlen(tok);

		t->right[t->ncols] = n && tok[n - 1] == '>';
		if (n)
			tok[n - 1] = '\0';
		t->head[t->ncols++] = tok;
	}
}

static void table_row(struct table *t, ...)
{
	va_list ap;

	if (t->nrows == t->cap) {
		unsigned ncap = t->cap ? t->cap * 2 : 16;
		char **nc = realloc(t->cells, (size_t)ncap * t->ncols * sizeof(char *));

		if (!nc) {
			perror("srv6ctl");
			exit(EXIT_DAEMON_ERROR);
		}
		t->cells = nc;
		t->cap = ncap;
	}
	va_start(ap, t);
	for (unsigned c = 0; c < t->ncols; c++) {
		char *s = strdup(va_arg(ap, const char *));

		if (!s) {
			perror("srv6ctl");
			exit(EXIT_DAEMON_ERROR);
		}
		t->cells[t->nrows * t->ncols + c] = s;
	}
	va_end(ap);
	t->nrows++;
}

static void table_print(struct table *t)
{
	size_t w[TABLE_MAX_COLS];

	for (unsigned c = 0; c < t->ncols; c++) {
		w[c] = strlen(t->head[c]);
		for (unsigned r = 0; r < t->nrows; r++) {
			size_t n = strlen(t->cells[r * t->ncols + c]);

			if (n > w[c])
				w[c] = n;
		}
	}
	for (unsigned r = 0; r <= t->nrows; r++) {
		for (unsigned c = 0; c < t->ncols; c++) {
			const char *s = r ? t->cells[(r - 1) * t->ncols + c]
					  : t->head[c];
			bool last = c + 1 == t->ncols;

			if (t->right[c])
				printf("%*s%s", (int)w[c], s, last ? "" : "  ");
			else if (last)
				printf("%s", s);
			else
				printf("%-*s  ", (int)w[c], s);
		}
		putchar('\n');
	}
	for (unsigned i = 0; i < t->nrows * t->ncols; i++)
		free(t->cells[i]);
	free(t->cells);
	t->cells = NULL;
	t->nrows = t->cap = 0;
}

/* Counters as strings, for table_row(). */
#define NUMBUF 24
static const char *num(char buf[NUMBUF], uint64_t v)
{
	snprintf(buf, NUMBUF, "%" PRIu64, v);
	return buf;
}

/* ---- status --------------------------------------------------------- */

static void print_uptime(uint64_t s)
{
	if (s >= 86400)
		printf("%" PRIu64 "d", s / 86400);
	if (s >= 3600)
		printf("%" PRIu64 "h", s / 3600 % 24);
	if (s >= 60)
		printf("%" PRIu64 "m", s / 60 % 60);
	printf("%" PRIu64 "s", s % 60);
}

static void print_queues(const json_t *doc)
{
	const json_t *workers = json_object_get(doc, "workers");
	const json_t *tot = json_object_get(doc, "totals");
	char b[7][NUMBUF];
	struct table t;
	size_t i;
	json_t *w;

	table_init(&t, "queue<|rx packets>|rx bytes>|forwarded>|accepted>|"
		   "dropped>|unmatched>");
	json_array_foreach((json_t *)workers, i, w)
		table_row(&t, num(b[0], jnum(w, "queue")),
			  num(b[1], jnum(w, "rx_packets")),
			  num(b[2], jnum(w, "rx_bytes")),
			  num(b[3], jnum(w, "forwarded")),
			  num(b[4], jnum(w, "accepted")),
			  num(b[5], jnum(w, "dropped")),
			  num(b[6], jnum(w, "unmatched")));
	table_row(&t, "total", num(b[1], jnum(tot, "rx_packets")),
		  num(b[2], jnum(tot, "rx_bytes")),
		  num(b[3], jnum(tot, "forwarded")),
		  num(b[4], jnum(tot, "accepted")),
		  num(b[5], jnum(tot, "dropped")),
		  num(b[6], jnum(tot, "unmatched")));
	table_print(&t);
}

static void print_sids(const json_t *doc)
{
	const json_t *sids = json_object_get(doc, "sids");
	char b[4][NUMBUF], flv[128];
	struct table t;
	size_t i;
	json_t *s;

	if (!json_array_size(sids)) {
		printf("no SIDs\n");
		return;
	}
	table_init(&t, "sid<|behavior<|flavors<|packets>|bytes>|errors>|drops>");
	json_array_foreach((json_t *)sids, i, s) {
		join_strings(json_object_get(s, "flavors"), flv, sizeof(flv));
		table_row(&t, jstr(s, "sid"), jstr(s, "behavior"), flv,
			  num(b[0], jnum(s, "packets")),
			  num(b[1], jnum(s, "bytes")),
			  num(b[2], jnum(s, "errors")),
			  num(b[3], drops_sum(s)));
	}
	table_print(&t);
}

static void print_policies(const json_t *doc)
{
	const json_t *pols = json_object_get(doc, "policies");
	char b[4][NUMBUF], segs[SRV6_MAX_SEGS * 48];
	struct table t;
	size_t i;
	json_t *p;

	if (!json_array_size(pols)) {
		printf("no policies\n");
		return;
	}
	table_init(&t, "prefix<|mode<|packets>|bytes>|errors>|drops>|segs<");
	json_array_foreach((json_t *)pols, i, p) {
		join_strings(json_object_get(p, "segs"), segs, sizeof(segs));
		table_row(&t, jstr(p, "prefix"), jstr(p, "mode"),
			  num(b[0], jnum(p, "packets")),
			  num(b[1], jnum(p, "bytes")),
			  num(b[2], jnum(p, "errors")),
			  num(b[3], drops_sum(p)), segs);
	}
	table_print(&t);
}

/* The totals' non-zero drop reasons, then each SID's and policy's. */
static void print_drops(const json_t *doc)
{
	const json_t *drops = json_object_get(json_object_get(doc, "totals"),
					      "drops");
	struct table t;
	char b[NUMBUF];
	const char *k;
	json_t *v;

	table_init(&t, "drop reason<|packets>");
	json_object_foreach((json_t *)drops, k, v)
		if (json_integer_value(v))
			table_row(&t, k, num(b, (uint64_t)json_integer_value(v)));
	if (!t.nrows) {
		printf("no drops\n");
		return;
	}
	table_print(&t);
}

static void print_status(const json_t *doc)
{
	printf("srv6d %s, pid %" PRIu64 ", up ", jstr(doc, "version"),
	       jnum(doc, "pid"));
	print_uptime(jnum(doc, "uptime"));
	printf(", config %s\n\n", jstr(doc, "config"));
	print_queues(doc);
	putchar('\n');
	print_sids(doc);
	putchar('\n');
	print_policies(doc);
	putchar('\n');
	print_drops(doc);
}

static void print_version(const json_t *doc)
{
	printf("srv6ctl %s\nsrv6d %s (control protocol %" PRIu64 ")\n",
	       SRV6D_VERSION, jstr(doc, "version"), jnum(doc, "protocol"));
}

/* ---- main ----------------------------------------------------------- */

static const struct command {
	const char *name;
	uint16_t type;
	void (*print)(const json_t *doc);
} commands[] = {
	{ "status", CTL_REQ_STATUS, print_status },
	{ "version", CTL_REQ_VERSION, print_version },
};

static int run(const char *sock, const struct command *cmd, bool json)
{
	char err[512];
	uint16_t status;
	json_t *doc;
	int fd;

	fd = ctl_connect(sock);
	if (fd < 0) {
		fprintf(stderr, "srv6ctl: cannot connect to %s: %s "
			"(is srv6d running?)\n", sock, strerror(errno));
		return EXIT_NO_DAEMON;
	}
	if (ctl_call(fd, cmd->type, NULL, 0, CALL_TIMEOUT_MS, &status, &doc,
		     err, sizeof(err)) < 0) {
		fprintf(stderr, "srv6ctl: %s: %s\n", sock, err);
		close(fd);
		return EXIT_DAEMON_ERROR;
	}
	close(fd);
	if (status != CTL_OK) {
		fprintf(stderr, "srv6ctl: srv6d: %s: %s\n",
			ctl_status_name(status), jstr(doc, "error"));
		json_decref(doc);
		return EXIT_DAEMON_ERROR;
	}
	if (json) {
		json_dumpf(doc, stdout, JSON_INDENT(2));
		putchar('\n');
	} else {
		cmd->print(doc);
	}
	json_decref(doc);
	return fflush(stdout) == 0 ? EXIT_SUCCESS : EXIT_DAEMON_ERROR;
}

int main(int argc, char **argv)
{
	const char *sock = CTL_DEFAULT_PATH;
	bool json = false;
	int c;

	while ((c = getopt(argc, argv, "s:jVh")) != -1) {
		switch (c) {
		case 's':
			sock = optarg;
			break;
		case 'j':
			json = true;
			break;
		case 'V':
			printf("srv6ctl %s\n", SRV6D_VERSION);
			return EXIT_SUCCESS;
		case 'h':
			usage(stdout);
			return EXIT_SUCCESS;
		default:
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (argc - optind != 1) {
		usage(stderr);
		return EXIT_USAGE;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[optind], commands[i].name))
			return run(sock, &commands[i], json);
	fprintf(stderr, "srv6ctl: unknown command '%s'\n", argv[optind]);
	usage(stderr);
	return EXIT_USAGE;
}
