/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef RTLAB_AGENT_CMD_H
#define RTLAB_AGENT_CMD_H

/*
 * rtlab-agent's subcommands.  Each takes the arguments after its name
 * (argv[0] is the subcommand), answers --help, and returns the exit
 * status: 0 success, 1 runtime failure, 2 usage error.
 */

#define AGENT_EXIT_OK 0
#define AGENT_EXIT_FAILURE 1
#define AGENT_EXIT_USAGE 2

int cmd_run(int argc, char **argv);
int cmd_flush(int argc, char **argv);
int cmd_check(int argc, char **argv);

#endif
