/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The command line's commands and their options: one parser for every
 * command of sluice (and of the programs it runs, sluice-exporter and
 * sluice-bench), driven by a table of options per command.
 *
 * A command is named by a struct sl_command (main.c's table: its name, its
 * synopsis and summary for `sluice --help` and `sluice CMD --help`, and the
 * function that runs it).  The function describes its options in an array of
 * struct sl_opt, each writing into a variable of its own, and calls
 * sl_opts_parse.  Options are accepted anywhere among the arguments, as
 * `--name value`, `--name=value` or (a short name) `-c value`; `--` ends the
 * options.  --help and -h print the command's help and end it with status 0.
 *
 * Every error is one line naming the command and the option, then the
 * command's usage, on stderr, and exit status 2 (SL_EXIT_CONFIG):
 *
 *   sluice: top: unknown option '--sot' (did you mean '--sort'?)
 *   sluice: top: --interval needs a value
 *   sluice: top: --interval needs seconds in 0.1..3600, got '0'
 *   sluice: reload: one CONFIG only ('a.yaml' and 'b.yaml')
 *   usage: sluice top [--prefix P] [--interval S] [--sort cycles|packets|drops]
 *
 * Thread: the main thread, before anything starts.
 */
#ifndef SL_CLI_OPTS_H
#define SL_CLI_OPTS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct sl_ctl_wait;
struct sl_command;

/* A command's function: argv holds the arguments after the command's name;
 * w: the wait for a running engine ($SLUICE_TIMEOUT, read once: a client's
 * only).  Returns the process's exit status. */
typedef int sl_command_fn(const struct sl_command *cmd, int argc, char **argv,
			  const struct sl_ctl_wait *w);

struct sl_command {
	const char *name;       /* "capture", "bench latency" */
	const char *alias;      /* another name ("--version"), or NULL */
	/* After "sluice ": "top [--prefix P] ...".  Lines after the first are
	 * indented from where the synopsis starts (the printers add the
	 * column it starts at). */
	const char *synopsis;
	/* What it does, for `sluice --help` and `sluice CMD --help`: lines
	 * without indentation; NULL: left out of `sluice --help`. */
	const char *summary;
	/* `sluice CMD --help` in full, or NULL: the usage and the summary. */
	const char *help;
	sl_command_fn *run;
	bool client;            /* a client of a running engine */
};

enum sl_opt_type {
	SL_OPT_FLAG,    /* bool *dst: set; takes no value */
	SL_OPT_STR,     /* const char **dst: the value as given */
	SL_OPT_NUM,     /* double *dst: a number in min..max */
	SL_OPT_UINT,    /* uint64_t *dst: a whole number (digits) in min..max */
	SL_OPT_CHOICE,  /* int *dst: the value's index in choices */
	SL_OPT_FN,      /* fn(opt, value, cmd) */
};

/* For SL_OPT_FN: 0, -1 (the value is not what `what` says: the parser
 * says so), or an exit status after printing the reason itself. */
struct sl_opt;
typedef int sl_opt_fn(const struct sl_opt *opt, const char *value, const struct sl_command *cmd);

struct sl_opt {
	const char *name;               /* "--duration", "-c" */
	const char *alias;              /* another name ("-q"), or NULL */
	enum sl_opt_type type;
	void *dst;
	double min, max;                /* SL_OPT_NUM, SL_OPT_UINT */
	/* What the value must be, for "OPT needs WHAT, got 'V'"; NULL: "a whole
	 * number in MIN..MAX" (SL_OPT_UINT), "one of A, B, C" (SL_OPT_CHOICE). */
	const char *what;
	const char *const *choices;     /* SL_OPT_CHOICE: NULL-terminated */
	sl_opt_fn *fn;                  /* SL_OPT_FN */
	bool *seen;                     /* set true when given, or NULL */
	bool nonempty;                  /* an empty value is a missing one */
};

/* One command's arguments: what sl_opts_parse needs, and what it leaves. */
struct sl_args {
	const struct sl_command *cmd;
	const struct sl_opt *opts;
	unsigned n_opts;
	unsigned max_args;              /* positional arguments allowed */
	const char *arg_name;           /* "CONFIG", for "one CONFIG only" */
	bool rest;                      /* what follows `--` is the rest, not arguments */
	/* Left by sl_opts_parse: the positional arguments (in argv, moved to
	 * its front) and what followed `--` (with rest). */
	char **args;
	unsigned n_args;
	char **rest_argv;
	unsigned n_rest;
};

#define SL_ARGS_ANY 0xffffffffu
/* The number of options in an array of them. */
#define SL_OPTS_LEN(a) ((unsigned)(sizeof(a) / sizeof((a)[0])))

/* Parse argv[0..argc) by a's options into their variables.  Returns -1 to go
 * on, or the exit status to end the command with: 0 after --help (printed on
 * stdout), 2 after an error (printed on stderr). */
int sl_opts_parse(struct sl_args *a, int argc, char **argv);

/* "sluice: CMD: MESSAGE" and the command's usage on stderr; returns
 * SL_EXIT_CONFIG. */
int sl_usage_error(const struct sl_command *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* "usage: sluice SYNOPSIS" (lines after the first re-indented) on f. */
void sl_usage_print(const struct sl_command *cmd, FILE *f);

/* `sluice --help`'s command list: each command's synopsis and summary. */
void sl_commands_print(const struct sl_command *cmds, unsigned n, FILE *f);

/* The same commands as man(7) source for a COMMANDS section: for each one
 * with a summary, a tagged paragraph of its synopsis (its lines joined)
 * and its summary, escaped for roff. */
void sl_commands_man(const struct sl_command *cmds, unsigned n, FILE *f);

/* text for roff: '-' as \-, '\' as \e, newlines as spaces (join) or
 * kept, a line that would start with '.' or '\'' guarded with \&. */
void sl_roff_put(const char *text, bool join, FILE *f);

/* A man page's title line: .TH with the page's name (upper case, as
 * given; escaped as sl_roff_put does), its section, "sluice VERSION" and
 * the manual's name ("System Administration", "File Formats"). */
void sl_roff_title(const char *name, unsigned section, const char *manual, FILE *f);

/* A whole number of digits in min..max: 0, or -1. */
int sl_opts_uint(const char *text, uint64_t min, uint64_t max, uint64_t *out);

#endif
