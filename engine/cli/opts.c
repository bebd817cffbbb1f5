/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One option parser for every command (opts.h).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "cli/opts.h"
#include "runtime/param.h"

#define SUMMARY_COLUMN 21       /* where summaries start in `sluice --help` */
#define MAX_NAMES 64            /* option names offered by "did you mean" */

/* Print text with `indent` more spaces after each newline: a synopsis's lines
 * after the first are indented from where it starts. */
static void put_indented(const char *text, int indent, FILE *f)
{
	for (; *text != '\0'; text++) {
		fputc(*text, f);
		if (*text == '\n')
			fprintf(f, "%*s", indent, "");
	}
}

void sl_usage_print(const struct sl_command *cmd, FILE *f)
{
	fputs("usage: sluice ", f);
	put_indented(cmd->synopsis, (int)strlen("usage: sluice "), f);
	fputc('\n', f);
}

int sl_usage_error(const struct sl_command *cmd, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "sluice: %s: ", cmd->name);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	sl_usage_print(cmd, stderr);
	return SL_EXIT_CONFIG;
}

void sl_commands_print(const struct sl_command *cmds, unsigned n, FILE *f)
{
	for (unsigned i = 0; i < n; i++) {
		const struct sl_command *c = &cmds[i];
		if (c->summary == NULL)
			continue;
		fputs("  ", f);
		put_indented(c->synopsis, 2, f);
		/* The summary beside a one-line synopsis that leaves room for it. */
		size_t width = 2 + strlen(c->synopsis);
		if (strchr(c->synopsis, '\n') == NULL && width + 2 <= SUMMARY_COLUMN)
			fprintf(f, "%*s", (int)(SUMMARY_COLUMN - width), "");
		else
			fprintf(f, "\n%*s", SUMMARY_COLUMN, "");
		put_indented(c->summary, SUMMARY_COLUMN, f);
		fputc('\n', f);
	}
}

void sl_roff_put(const char *text, bool join, FILE *f)
{
	bool line_start = true;
	for (const char *p = text; *p != '\0'; p++) {
		if (*p == '\n') {
			if (join) {
				/* a continuation line: its indentation goes too */
				while (p[1] == ' ')
					p++;
				fputc(' ', f);
				continue;
			}
			fputc('\n', f);
			line_start = true;
			continue;
		}
		if (line_start && (*p == '.' || *p == '\''))
			fputs("\\&", f);
		line_start = false;
		if (*p == '-')
			fputs("\\-", f);
		else if (*p == '\\')
			fputs("\\e", f);
		else
			fputc(*p, f);
	}
}

void sl_roff_title(const char *name, unsigned section, const char *manual, FILE *f)
{
	fputs(".TH ", f);
	sl_roff_put(name, true, f);
	fprintf(f, " %u \"\" \"sluice %s\" \"%s\"\n", section, SL_VERSION, manual);
}

void sl_commands_man(const struct sl_command *cmds, unsigned n, FILE *f)
{
	for (unsigned i = 0; i < n; i++) {
		const struct sl_command *c = &cmds[i];
		if (c->summary == NULL)
			continue;
		fputs(".TP\n.B sluice ", f);
		sl_roff_put(c->synopsis, true, f);
		fputc('\n', f);
		sl_roff_put(c->summary, true, f);
		fputc('\n', f);
	}
}

int sl_opts_uint(const char *text, uint64_t min, uint64_t max, uint64_t *out)
{
	char *end;
	if (text[0] < '0' || text[0] > '9')
		return -1;
	errno = 0;
	unsigned long long v = strtoull(text, &end, 10);
	if (errno != 0 || *end != '\0' || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

static void print_help(const struct sl_command *cmd)
{
	if (cmd->help != NULL) {
		fputs(cmd->help, stdout);
		return;
	}
	sl_usage_print(cmd, stdout);
	if (cmd->summary != NULL)
		printf("\n%s\n", cmd->summary);
}

/* The option named `name` (its first len bytes), or NULL. */
static const struct sl_opt *find_opt(const struct sl_args *a, const char *name, size_t len)
{
	for (unsigned i = 0; i < a->n_opts; i++) {
		const struct sl_opt *o = &a->opts[i];
		if ((strlen(o->name) == len && strncmp(o->name, name, len) == 0) ||
		    (o->alias != NULL && strlen(o->alias) == len && strncmp(o->alias, name, len) == 0))
			return o;
	}
	return NULL;
}

static int unknown_option(const struct sl_args *a, const char *arg)
{
	const char *names[MAX_NAMES + 1];
	unsigned n = 0;
	for (unsigned i = 0; i < a->n_opts && n < MAX_NAMES; i++)
		names[n++] = a->opts[i].name;
	names[n++] = "--help";
	const char *hint = sl_did_you_mean(arg, names, n);
	return sl_usage_error(a->cmd, "unknown option '%s'%s%s%s", arg,
			      hint ? " (did you mean '" : "", hint ? hint : "", hint ? "'?)" : "");
}

/* "one of A, B, C" into buf. */
static const char *choices_text(const char *const *choices, char *buf, size_t len)
{
	size_t off = (size_t)snprintf(buf, len, "one of");
	for (unsigned i = 0; choices[i] != NULL && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s %s", i ? "," : "", choices[i]);
	return buf;
}

/* The value of option o into its variable: 0, -1 (not a value of its
 * kind), or an exit status that o's function printed the reason for. */
static int set_value(const struct sl_opt *o, const char *v, const struct sl_command *cmd)
{
	char *end;
	switch (o->type) {
	case SL_OPT_FLAG:
		*(bool *)o->dst = true;
		return 0;
	case SL_OPT_STR:
		*(const char **)o->dst = v;
		return 0;
	case SL_OPT_NUM: {
		double d = strtod(v, &end);
		if (end == v || *end != '\0' || !(d >= o->min && d <= o->max))
			return -1;
		*(double *)o->dst = d;
		return 0;
	}
	case SL_OPT_UINT:
		return sl_opts_uint(v, (uint64_t)o->min, (uint64_t)o->max, (uint64_t *)o->dst);
	case SL_OPT_CHOICE:
		for (int i = 0; o->choices[i] != NULL; i++)
			if (strcmp(v, o->choices[i]) == 0) {
				*(int *)o->dst = i;
				return 0;
			}
		return -1;
	case SL_OPT_FN:
		return o->fn(o, v, cmd);
	}
	return -1;
}

static int bad_value(const struct sl_command *cmd, const struct sl_opt *o, const char *v)
{
	char buf[256];
	const char *what = o->what;
	if (what == NULL && o->type == SL_OPT_CHOICE)
		what = choices_text(o->choices, buf, sizeof(buf));
	else if (what == NULL) {
		snprintf(buf, sizeof(buf), "a whole number in %.0f..%.0f", o->min, o->max);
		what = buf;
	}
	return sl_usage_error(cmd, "%s needs %s, got '%s'", o->name, what, v);
}

/* One option, argv[*i] (and its value after it, moving *i on).  Returns -1
 * to go on, or an exit status. */
static int one_option(const struct sl_args *a, int argc, char **argv, int *i)
{
	const char *arg = argv[*i];
	const char *eq = arg[1] == '-' ? strchr(arg, '=') : NULL;
	const struct sl_opt *o = find_opt(a, arg, eq != NULL ? (size_t)(eq - arg) : strlen(arg));
	if (o == NULL && eq == NULL && (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0)) {
		print_help(a->cmd);
		return SL_EXIT_OK;
	}
	if (o == NULL)
		return unknown_option(a, arg);
	if (o->seen != NULL)
		*o->seen = true;
	if (o->type == SL_OPT_FLAG) {
		if (eq != NULL)
			return sl_usage_error(a->cmd, "%s takes no value", o->name);
		set_value(o, NULL, a->cmd);
		return -1;
	}
	const char *v = eq != NULL ? eq + 1 : NULL;
	if (v == NULL && *i + 1 < argc && strcmp(argv[*i + 1], "--") != 0)
		v = argv[++*i];
	if (v == NULL || (o->nonempty && v[0] == '\0'))
		return sl_usage_error(a->cmd, "%s needs a value", o->name);
	int rc = set_value(o, v, a->cmd);
	if (rc < 0)
		return bad_value(a->cmd, o, v);
	return rc > 0 ? rc : -1;
}

int sl_opts_parse(struct sl_args *a, int argc, char **argv)
{
	unsigned n = 0;
	a->args = argv;
	a->rest_argv = NULL;
	a->n_rest = 0;
	int i;
	for (i = 0; i < argc; i++) {
		const char *arg = argv[i];
		if (strcmp(arg, "--") == 0) {
			i++;
			break;
		}
		if (arg[0] == '-' && arg[1] != '\0') {
			int rc = one_option(a, argc, argv, &i);
			if (rc >= 0)
				return rc;
			continue;
		}
		argv[n++] = argv[i];    /* n <= i: the options are read already */
	}
	if (a->rest) {
		a->rest_argv = argv + i;
		a->n_rest = (unsigned)(argc - i);
	} else {
		for (; i < argc; i++)
			argv[n++] = argv[i];
	}
	a->n_args = n;
	if (n > a->max_args && a->max_args == 1)
		return sl_usage_error(a->cmd, "one %s only ('%s' and '%s')", a->arg_name, argv[0],
				      argv[1]);
	if (n > a->max_args)
		return sl_usage_error(a->cmd, "unexpected argument '%s'", argv[a->max_args]);
	return -1;
}
