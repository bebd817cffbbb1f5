/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The commands of sluice that live in files of their own, each an
 * sl_command_fn (opts.h) named by main.c's table of commands: argv[0..argc)
 * are the arguments after the command's name; w: the waits $SLUICE_TIMEOUT
 * set (main reads it once: sl_ctl_client_wait), the rest each command's
 * defaults; the return value is the exit status (SL_EXIT_*).
 */
#ifndef SL_CLI_COMMANDS_H
#define SL_CLI_COMMANDS_H

#include "cli/opts.h"

sl_command_fn sl_cmd_stats;     /* stats.c */
sl_command_fn sl_cmd_reload;    /* reload.c */
sl_command_fn sl_cmd_capture;   /* capture.c */
sl_command_fn sl_cmd_top;       /* top.c */

#endif
