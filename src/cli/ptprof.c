/*
 * ptprof.c - main(): parse the command line and hand it to its command
 * (cmds.h: cmd_record, cmd_report, cmd_dump, cmd_top), as perf.c does.  Like every
 * file of the command-line layer (cli.h), it may print and exit.
 */
#include "config.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli/cli.h"
#include "cli/cmds.h"
#include "cli/fetchnote.h"
#include "cli/options.h"

int main(int argc, char **argv)
{
	struct options o;
	char err[512];
	int rc;

	/* An inherited SIG_IGN would let the kernel reap COMMAND behind our
	 * back and lose its exit status (strace resets it too). */
	signal(SIGCHLD, SIG_DFL);
	if (options_parse(argc, argv, &o, err, sizeof(err)))
		cli_die(EXIT_USAGE, "%s", err);
	/* DEBUGINFOD_URLS, unless --no-debuginfod; top's screen is its own */
	fetchnote_setup(o.no_debuginfod, o.action != ACTION_TOP);
	switch (o.action) {
	case ACTION_HELP:
		fputs(o.usage, stdout);
		rc = 0;
		break;
	case ACTION_VERSION:
		printf("ptprof %s\n", PACKAGE_VERSION);
		rc = 0;
		break;
	case ACTION_REPORT:
		rc = cmd_report(&o);
		break;
	case ACTION_DUMP:
		rc = cmd_dump(&o);
		break;
	case ACTION_TOP:
		rc = cmd_top(&o);
		break;
	default:
		rc = cmd_record(&o);
		break;
	}
	options_free(&o);
	return rc;
}
