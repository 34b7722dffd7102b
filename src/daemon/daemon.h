/* daemon.h - srv6d's life: config, policy routing, engine, control socket,
 * signals, one poll() loop (docs/design.md). */
#ifndef SRV6D_DAEMON_H
#define SRV6D_DAEMON_H

#include <stdbool.h>

/* Exit status of srv6d (srv6d(8) EXIT STATUS). */
#define DAEMON_EXIT_OK		0
#define DAEMON_EXIT_ERROR	1	/* config or runtime error */
#define DAEMON_EXIT_USAGE	2	/* bad command line */

struct daemon_opts {
	const char *config_path;
	const char *ctl_path;		/* control socket */
	bool debug;			/* log_debug, and copy to stderr */
};

/* srv6d -t: parse path, print "PATH: configuration OK" on stdout, or every
 * error as "PATH:LINE: message" on stderr.  Returns the exit status. */
int daemon_check_config(const char *path);

/* srv6d -p: prints the steering rules path's config needs (steer.h), in
 * nft syntax and as iptables commands.  Returns an exit status. */
int daemon_print_steering(const char *path);

/* Run the daemon in the foreground until SIGTERM/SIGINT.  Returns the exit
 * status: DAEMON_EXIT_OK after a clean stop, DAEMON_EXIT_ERROR when it
 * could not start (the reason is logged). */
int daemon_run(const struct daemon_opts *opts);

#endif
