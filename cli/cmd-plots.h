/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef RTLAB_CMD_PLOTS_H
#define RTLAB_CMD_PLOTS_H

/*
 * `rtlab plot compare` and `rtlab plot trend`, reached through cmd_plot()
 * (cmd-runs.c) when its first argument names one of them.  Same calling
 * convention as the other subcommands: argv[0] is "compare" or "trend",
 * the return value is the exit status (0, 1, or 2 for usage errors).
 */

int cmd_plot_compare(int argc, char **argv);
int cmd_plot_trend(int argc, char **argv);

#endif
