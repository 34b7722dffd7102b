/* main.c - srv6d: options, then daemon_run(). */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "config.h"
#include "ctl.h"
#include "daemon.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: srv6d [-dhptV] [-c file] [-s socket]\n"
		"  -c file    configuration file (default %s)\n"
		"  -s socket  control socket (default %s)\n"
		"  -t         check the configuration and exit\n"
		"  -p         print the steering rules srv6d installs and exit\n"
		"  -d         debug: log debug messages, also to stderr\n"
		"  -V         print the version and exit\n"
		"  -h         print this help and exit\n",
		CONFIG_DEFAULT_PATH, CTL_DEFAULT_PATH);
}

int main(int argc, char **argv)
{
	struct daemon_opts o = {
		.config_path = CONFIG_DEFAULT_PATH,
		.ctl_path = CTL_DEFAULT_PATH,
	};
	bool check = false, print = false;
	int c;

	while ((c = getopt(argc, argv, "c:s:tpdVh")) != -1) {
		switch (c) {
		case 'c':
			o.config_path = optarg;
			break;
		case 's':
			o.ctl_path = optarg;
			break;
		case 't':
			check = true;
			break;
		case 'p':
			print = true;
			break;
		case 'd':
			o.debug = true;
			break;
		case 'V':
			printf("srv6d %s\n", SRV6D_VERSION);
			return DAEMON_EXIT_OK;
		case 'h':
			usage(stdout);
			return DAEMON_EXIT_OK;
		default:
			usage(stderr);
			return DAEMON_EXIT_USAGE;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "srv6d: unexpected argument '%s'\n", argv[optind]);
		usage(stderr);
		return DAEMON_EXIT_USAGE;
	}
	if (check)
		return daemon_check_config(o.config_path);
	if (print)
		return daemon_print_steering(o.config_path);
	return daemon_run(&o);
}
