/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef RTLAB_COMMANDS_H
#define RTLAB_COMMANDS_H

/*
 * The rtlab subcommands.  Each takes the arguments after its name
 * (argv[0] is the subcommand), answers --help, and returns the process exit
 * status: 0 success, 1 failure, 2 usage error.
 */

#define EXIT_USAGE 2

int cmd_db(int argc, char **argv);
int cmd_server(int argc, char **argv);
int cmd_board(int argc, char **argv);
int cmd_runs(int argc, char **argv);
int cmd_show(int argc, char **argv);
int cmd_plot(int argc, char **argv);
int cmd_kernel(int argc, char **argv);
int cmd_build(int argc, char **argv);
int cmd_tree(int argc, char **argv);
int cmd_bisect(int argc, char **argv);
int cmd_boot(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_verdicts(int argc, char **argv);
int cmd_verdict(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_baseline(int argc, char **argv);
int cmd_job(int argc, char **argv);
int cmd_jobs(int argc, char **argv);
int cmd_worker(int argc, char **argv);
int cmd_analyze(int argc, char **argv);
int cmd_calibrate(int argc, char **argv);
int cmd_token(int argc, char **argv);
int cmd_testcase(int argc, char **argv);
int cmd_farm(int argc, char **argv);
int cmd_submit(int argc, char **argv);

#endif
