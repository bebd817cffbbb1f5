/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The sluice command line: the table of commands (commands[] below) drives
 * the dispatch, `sluice --help` and each command's usage; every command
 * reads its options with the one parser of cli/opts.h.  `sluice exporter`
 * and `sluice bench` run programs of their own, found beside this one.
 *
 * Exit status: 0 success, 1 runtime failure, 2 usage or configuration error.
 */
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runtime/app.h"
#include "config/config.h"
#include "ops/control.h"
#include "run/engine.h"
#include "placement/c2c.h"
#include "config/place.h"
#include "cli/commands.h"
#include "cli/opts.h"
#include "placement/topology.h"


/* --summary-json FILE: the file's directory must exist and be writable now
 * (the summary is written at stop, after the run). */
static int summary_path_opt(const struct sl_opt *o, const char *path,
			    const struct sl_command *cmd)
{
	if (path[0] == '\0')
		return sl_usage_error(cmd, "--summary-json needs a file name, got ''");
	size_t n = strlen(path);
	if (path[n - 1] == '/')
		return sl_usage_error(cmd, "--summary-json needs a file name, got the directory "
				      "'%s'", path);
	*(const char **)o->dst = path;
	char *dir = strdup(path);
	if (dir == NULL) {
		fprintf(stderr, "sluice: run: out of memory\n");
		return SL_EXIT_RUNTIME;
	}
	char *slash = strrchr(dir, '/');
	const char *d = slash == NULL ? "." : slash == dir ? "/" : (*slash = '\0', dir);
	struct stat st;
	int rc = 0;
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		fprintf(stderr, "sluice: run: --summary-json '%s' is a directory\n", path);
		rc = SL_EXIT_CONFIG;
	} else if (stat(d, &st) != 0 || !S_ISDIR(st.st_mode)) {
		fprintf(stderr, "sluice: run: --summary-json '%s': directory '%s' does not exist\n",
			path, d);
		rc = SL_EXIT_CONFIG;
	} else if (access(d, W_OK | X_OK) != 0) {
		fprintf(stderr, "sluice: run: --summary-json '%s': cannot write in directory "
			"'%s': %s\n", path, d, strerror(errno));
		rc = SL_EXIT_CONFIG;
	}
	free(dir);
	return rc;
}

static struct sl_config *load(const char *path)
{
	struct sl_err err = { "" };
	int rc = sl_app_registry_check(&err);
	if (rc < 0) {
		fprintf(stderr, "sluice: internal error: %s\n", err.msg);
		return NULL;
	}
	struct sl_config *cfg = sl_config_load(path, &err);
	if (cfg == NULL) {
		fprintf(stderr, "sluice: %s\n", err.msg);
		return NULL;
	}
	for (unsigned i = 0; i < cfg->n_warnings; i++)
		fprintf(stderr, "sluice: warning: %s\n", cfg->warnings[i]);
	return cfg;
}

/* run's options into opts; *path: CONFIG.  -1 to go on, or an exit status. */
static int run_args(const struct sl_command *cmd, int argc, char **argv,
		    struct sl_run_opts *opts, const char **path)
{
	const struct sl_opt table[] = {
		{ .name = "--duration", .type = SL_OPT_NUM, .dst = &opts->duration, .max = 1e9,
		  .what = "a number of seconds" },
		{ .name = "--stats", .type = SL_OPT_NUM, .dst = &opts->stats, .max = 1e9,
		  .what = "a number of seconds" },
		{ .name = "--stop-timeout", .type = SL_OPT_NUM, .dst = &opts->stop_timeout, .max = 1e9,
		  .what = "a number of seconds" },
		{ .name = "--quiet", .alias = "-q", .type = SL_OPT_FLAG, .dst = &opts->quiet },
		{ .name = "--summary-json", .type = SL_OPT_FN, .dst = &opts->summary_json,
		  .fn = summary_path_opt },
	};
	struct sl_args a = { .cmd = cmd, .opts = table, .n_opts = SL_ARRAY_LEN(table),
			     .max_args = 1, .arg_name = "CONFIG", .rest = true };
	int rc = sl_opts_parse(&a, argc, argv);
	if (rc >= 0)
		return rc;
	opts->eal_args = a.rest_argv;
	opts->n_eal_args = a.n_rest;
	for (unsigned k = 0; k < opts->n_eal_args; k++)
		if (sl_eal_arg_reserved(opts->eal_args[k]))
			return sl_usage_error(cmd, "EAL arguments after --: '%s' is not allowed: "
					      "Sluice assigns lcores from the workers section",
					      opts->eal_args[k]);
	if (a.n_args == 0)
		return sl_usage_error(cmd, "missing CONFIG");
	*path = a.args[0];
	return -1;
}

static int cmd_run(const struct sl_command *cmd, int argc, char **argv,
		   const struct sl_ctl_wait *w)
{
	struct sl_run_opts opts = { .stop_timeout = -1 };   /* -1: engine.stop_timeout */
	const char *path = NULL;
	int arc = run_args(cmd, argc, argv, &opts, &path);
	if (arc >= 0)
		return arc;

	struct sl_config *cfg = load(path);
	if (cfg == NULL)
		return SL_EXIT_CONFIG;
	if (opts.stop_timeout < 0)
		opts.stop_timeout = (double)cfg->stop_timeout_ns / 1e9;
	struct sl_err err = { "" };
	struct sl_topology *topo;
	struct sl_plan plan;
	if (sl_config_plan_here(cfg, &topo, &plan, &err) < 0) {
		fprintf(stderr, "sluice: %s\n", err.msg);
		sl_config_free(cfg);
		return SL_EXIT_CONFIG;
	}
	int rc = sl_engine_run(cfg, topo, &plan, &opts, &err);
	if (rc == -ETIMEDOUT) {
		/* A worker thread still runs and may read cfg, topo and plan:
		 * free nothing, and end the process without exit()'s flush of
		 * every stdio stream, which would wait for the lock of a stream
		 * that thread is blocked in (a pcap file read from a FIFO). */
		fprintf(stderr, "sluice: error: %s\n", err.msg);
		fflush(stdout);
		fflush(stderr);
		_exit(SL_EXIT_RUNTIME);
	}
	sl_plan_free(&plan);
	sl_topology_free(topo);
	sl_config_free(cfg);
	if (rc == -EDOM) {      /* a configuration the device cannot carry out */
		fprintf(stderr, "sluice: %s\n", err.msg);
		return SL_EXIT_CONFIG;
	}
	if (rc < 0) {
		fprintf(stderr, "sluice: error: %s\n", err.msg);
		return SL_EXIT_RUNTIME;
	}
	return SL_EXIT_OK;
}

/* check and plan: load, place on this machine (or the one HWLOC_SYNTHETIC /
 * HWLOC_XMLFILE describe), and print a one-line verdict or the whole plan. */
static int check_or_plan(const struct sl_command *cmd, int argc, char **argv, bool full)
{
	struct sl_args a = { .cmd = cmd, .max_args = 1, .arg_name = "CONFIG" };
	int rc = sl_opts_parse(&a, argc, argv);
	if (rc >= 0)
		return rc;
	if (a.n_args == 0)
		return sl_usage_error(cmd, "missing CONFIG");
	struct sl_config *cfg = load(argv[0]);
	if (cfg == NULL)
		return SL_EXIT_CONFIG;
	struct sl_topology *topo;
	struct sl_plan plan;
	struct sl_err err = { "" };
	if (sl_config_plan_here(cfg, &topo, &plan, &err) < 0) {
		fprintf(stderr, "sluice: %s\n", err.msg);
		sl_config_free(cfg);
		return SL_EXIT_CONFIG;
	}
	if (full) {
		if (sl_config_plan_print(cfg, topo, &plan, stdout) < 0)
			fprintf(stderr, "sluice: out of memory\n");
	} else {
		printf("%s: ok: %u apps, %u links, %u workers (", argv[0], cfg->n_apps,
		       cfg->n_links, cfg->n_workers);
		for (unsigned w = 0; w < cfg->n_workers; w++)
			printf("%s%s on cpu %d", w ? ", " : "", cfg->workers[w].name, plan.cpus[w]);
		printf(")\npush order:");
		for (unsigned k = 0; k < cfg->n_apps; k++)
			printf(" %s", cfg->apps[cfg->order[k]].name);
		printf("\n");
		for (unsigned i = 0; i < plan.n_warnings; i++)
			printf("warning: %s\n", plan.warnings[i]);
	}
	sl_plan_free(&plan);
	sl_topology_free(topo);
	sl_config_free(cfg);
	return SL_EXIT_OK;
}

static int cmd_check(const struct sl_command *cmd, int argc, char **argv,
		     const struct sl_ctl_wait *w)
{
	return check_or_plan(cmd, argc, argv, false);
}

static int cmd_plan(const struct sl_command *cmd, int argc, char **argv,
		    const struct sl_ctl_wait *w)
{
	return check_or_plan(cmd, argc, argv, true);
}

static void ports_text(char *buf, size_t len, const struct sl_port_spec *p, unsigned n)
{
	size_t off = 0;
	buf[0] = '\0';
	for (unsigned i = 0; i < n && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s%s", i ? ", " : "", p[i].name,
					p[i].required ? "" : " (optional)");
	if (n == 0)
		snprintf(buf, len, "none");
}

/* " TEXT |" as a Markdown table cell: a '|' in TEXT would end the cell. */
static void md_cell(const char *text)
{
	putchar(' ');
	for (; *text != '\0'; text++) {
		if (*text == '|')
			putchar('\\');
		putchar(*text);
	}
	fputs(" |", stdout);
}

/* A parameter schema as Markdown table rows: `name` | type | default | range | doc. */
static void md_param_rows(const struct sl_param_spec *specs, unsigned n)
{
	char range[128];
	for (unsigned i = 0; i < n; i++) {
		const struct sl_param_spec *s = &specs[i];
		printf("| `%s` | %s |", s->name, sl_param_type_name(s->type));
		md_cell(s->def ? s->def : "(required)");
		md_cell(sl_param_range_str(s, range, sizeof(range)));
		if (s->live) {   /* a reload changes it in place (docs/control.md) */
			char doc[512];
			snprintf(doc, sizeof(doc), "%s (live: a reload changes it in place)", s->doc);
			md_cell(doc);
		} else {
			md_cell(s->doc);
		}
		putchar('\n');
	}
}

/* A parameter schema as aligned text lines, indented by `indent` columns; the
 * name column shrinks with the indent so that the others stay aligned.  A
 * list's fields follow it, two columns further in. */
static void text_param_rows(const struct sl_param_spec *specs, unsigned n, int indent)
{
	char range[128];
	for (unsigned i = 0; i < n; i++) {
		const struct sl_param_spec *s = &specs[i];
		sl_param_range_str(s, range, sizeof(range));
		printf("%*s%-*s %-8s %-12s %-18s %s%s\n", indent, "", 16 - indent, s->name,
		       sl_param_type_name(s->type), s->def ? s->def : "(required)", range, s->doc,
		       s->live ? " (live: a reload changes it in place)" : "");
		if (s->type == SL_PARAM_TABLE)
			text_param_rows(s->fields, s->n_fields, indent + 2);
	}
}

/* A parameter schema as man(7) tagged paragraphs (a list's fields
 * indented under it). */
static void man_param_rows(const struct sl_param_spec *specs, unsigned n)
{
	char range[128];
	for (unsigned i = 0; i < n; i++) {
		const struct sl_param_spec *s = &specs[i];
		sl_param_range_str(s, range, sizeof(range));
		fputs(".TP\n.B ", stdout);
		sl_roff_put(s->name, true, stdout);
		fputs("\n(", stdout);
		sl_roff_put(sl_param_type_name(s->type), true, stdout);
		fputs(s->def ? "; default " : "; required", stdout);
		if (s->def)
			sl_roff_put(s->def[0] != '\0' ? s->def : "\"\"", true, stdout);
		if (range[0] != '\0' && strcmp(range, "-") != 0) {
			fputs("; ", stdout);
			sl_roff_put(range, true, stdout);
		}
		fputs(")\n", stdout);
		sl_roff_put(s->doc, true, stdout);
		if (s->live)
			fputs(" (live: a reload changes it in place)", stdout);
		fputc('\n', stdout);
		if (s->type == SL_PARAM_TABLE) {
			fputs(".RS\n", stdout);
			man_param_rows(s->fields, s->n_fields);
			fputs(".RE\n", stdout);
		}
	}
}

/* `sluice config --man`: sluice.yaml(5), from the configuration schema. */
static void config_man(const struct sl_config_section *sec, unsigned n)
{
	sl_roff_title("SLUICE.YAML", 5, "File Formats", stdout);
	fputs(".SH NAME\nsluice.yaml \\- the pipeline configuration of sluice(8)\n"
	      ".SH DESCRIPTION\n"
	      "A pipeline is one YAML file: the sections below, each a mapping of the keys\n"
	      "listed under it (or, where it says so, a list or mapping of such entries).\n"
	      "\\fBsluice check\\fR \\fIFILE\\fR validates it without starting DPDK;\n"
	      "every error names the file, line and column and the object, and exits 2.\n"
	      "The app types and their parameters are listed by \\fBsluice apps\\fR;\n"
	      "the full reference with examples is\n"
	      ".I /usr/share/doc/sluice/config.md\n"
	      "and\n.IR /usr/share/doc/sluice/apps.md .\n"
	      ".SH SECTIONS\n", stdout);
	for (unsigned i = 0; i < n; i++) {
		const struct sl_config_section *s = &sec[i];
		fputs(".SS ", stdout);
		sl_roff_put(s->name, true, stdout);
		fputs("\n", stdout);
		sl_roff_put(s->summary, true, stdout);
		fputs(s->entry != NULL && s->n_keys > 0 ? "; the keys of each " : "", stdout);
		if (s->entry != NULL && s->n_keys > 0)
			sl_roff_put(s->entry, true, stdout);
		fputs(".\n", stdout);
		man_param_rows(s->keys, s->n_keys);
	}
	fputs(".SH EXAMPLE\n"
	      ".I /etc/sluice/example.yaml\n"
	      "and the pipelines under\n.IR /usr/share/doc/sluice/examples/ .\n"
	      ".SH SEE ALSO\n.BR sluice (8)\n", stdout);
}

/* The counters of every app (common) then the type's own, as Markdown
 * table rows or text lines. */
static void counter_rows(const struct sl_counter_spec *c, unsigned n, bool md)
{
	for (unsigned i = 0; i < n; i++) {
		if (md) {
			printf("| `%s` | %s |", c[i].name, sl_counter_kind_name(c[i].kind));
			md_cell(c[i].help);
			putchar('\n');
		} else {
			printf("    %-22s %-8s %s\n", c[i].name, sl_counter_kind_name(c[i].kind),
			       c[i].help);
		}
	}
}

static void print_counters(const struct sl_app_type *t, bool md)
{
	if (md) {
		printf("| counter | kind | description |\n| --- | --- | --- |\n");
		counter_rows(t->counters, t->n_counters, md);
		printf("\n");
		return;
	}
	printf("  counters (besides the common ones):\n");
	counter_rows(t->counters, t->n_counters, md);
}

static void print_type(const struct sl_app_type *t, bool md)
{
	char in[256], out[256];
	ports_text(in, sizeof(in), t->inputs, t->n_inputs);
	ports_text(out, sizeof(out), t->outputs, t->n_outputs);
	if (t->take != NULL)   /* engine.direct_links: docs/config.md */
		snprintf(in + strlen(in), sizeof(in) - strlen(in), "; takes bursts in hand "
			 "(a link into it from its worker is direct)");
	if (md) {
		printf("## %s\n\n%s\n\n- inputs: %s\n- outputs: %s\n\n", t->name, t->doc, in, out);
		if (t->n_params == 0) {
			printf("No parameters.\n\n");
			if (t->n_counters > 0)
				print_counters(t, md);
			return;
		}
		printf("| parameter | type | default | range | description |\n");
		printf("| --- | --- | --- | --- | --- |\n");
		md_param_rows(t->params, t->n_params);
		printf("\n");
		/* Markdown tables do not nest: each list's fields get a table of
		 * their own after the parameters. */
		for (unsigned i = 0; i < t->n_params; i++) {
			const struct sl_param_spec *s = &t->params[i];
			if (s->type != SL_PARAM_TABLE)
				continue;
			printf("Fields of each `%s` row:\n\n", s->name);
			printf("| field | type | default | range | description |\n");
			printf("| --- | --- | --- | --- | --- |\n");
			md_param_rows(s->fields, s->n_fields);
			printf("\n");
		}
		if (t->n_counters > 0)
			print_counters(t, md);
		return;
	}
	printf("%s: %s\n  inputs: %s\n  outputs: %s\n", t->name, t->doc, in, out);
	text_param_rows(t->params, t->n_params, 2);
	if (t->n_counters > 0)
		print_counters(t, md);
}

static int cmd_apps(const struct sl_command *cmd, int argc, char **argv,
		    const struct sl_ctl_wait *w)
{
	bool md = false;
	const struct sl_opt table[] = { { .name = "--markdown", .type = SL_OPT_FLAG, .dst = &md } };
	struct sl_args a = { .cmd = cmd, .opts = table, .n_opts = 1, .max_args = 1,
			     .arg_name = "TYPE" };
	int arc = sl_opts_parse(&a, argc, argv);
	if (arc >= 0)
		return arc;
	const char *only = a.n_args > 0 ? a.args[0] : NULL;
	const struct sl_app_type *first[1];
	unsigned n = sl_app_types(first, 1);
	const struct sl_app_type **types = calloc(n + 1, sizeof(*types));
	const char **names = calloc(n + 1, sizeof(*names));
	if (types == NULL || names == NULL) {
		free(types);
		free(names);
		fprintf(stderr, "sluice: apps: out of memory\n");
		return SL_EXIT_RUNTIME;
	}
	n = sl_app_types(types, n);   /* the registry is complete before main */
	int rc = SL_EXIT_OK;
	if (only != NULL) {
		const struct sl_app_type *t = sl_app_type_find(only);
		if (t == NULL) {
			for (unsigned i = 0; i < n; i++)
				names[i] = types[i]->name;
			const char *hint = sl_did_you_mean(only, names, n);
			fprintf(stderr, "sluice: apps: unknown app type '%s'%s%s%s\n", only,
				hint ? " (did you mean '" : "", hint ? hint : "", hint ? "'?)" : "");
			rc = SL_EXIT_CONFIG;
		} else {
			print_type(t, md);
		}
		goto out;
	}
	if (md)
		printf("# Apps\n\n<!-- Generated by `sluice apps --markdown` from the parameter "
		       "schemas; do not edit by hand. -->\n\n"
		       "Ports named `name#` are numbered families (`output0`, `output1`, ...), "
		       "connected from 0 without gaps.\n\n"
		       "Every app has the common counters below; a type's own counters follow "
		       "its parameters.  A counter is a total that only grows while the pipeline "
		       "runs; a gauge is a level or a result.  Values an app keeps outside its "
		       "worker (a shared table's, a device's, a histogram's) are stored when "
		       "the workers have stopped.  The JSON summary (docs/summary.md) "
		       "lists them under `apps.NAME.counters`.\n\n"
		       "| counter | kind | description |\n| --- | --- | --- |\n");
	if (md) {
		counter_rows(sl_app_common_counters, SL_APP_COMMON_COUNTERS, md);
		printf("\n");
	}
	for (unsigned i = 0; i < n; i++) {
		print_type(types[i], md);
		if (!md && i + 1 < n)
			printf("\n");
	}
	if (!md) {
		printf("\ncounters of every app:\n");
		counter_rows(sl_app_common_counters, SL_APP_COMMON_COUNTERS, md);
	}
out:
	free(types);
	free(names);
	return rc;
}

/* sluice config [--markdown]: the configuration schema (docs/config.md is
 * the Markdown). */
static int cmd_config(const struct sl_command *cmd, int argc, char **argv,
		      const struct sl_ctl_wait *w)
{
	bool md = false, man = false;
	const struct sl_opt table[] = { { .name = "--markdown", .type = SL_OPT_FLAG, .dst = &md },
					{ .name = "--man", .type = SL_OPT_FLAG, .dst = &man } };
	struct sl_args a = { .cmd = cmd, .opts = table, .n_opts = 2 };
	int arc = sl_opts_parse(&a, argc, argv);
	if (arc >= 0)
		return arc;
	if (md && man)
		return sl_usage_error(cmd, "--markdown and --man are two formats: give one");
	unsigned n;
	const struct sl_config_section *sec = sl_config_sections(&n);
	if (man) {
		config_man(sec, n);
		return SL_EXIT_OK;
	}
	if (md)
		printf("# Configuration reference\n\n<!-- Generated by `sluice config --markdown` "
		       "from the configuration schema; do not edit by hand. -->\n\n%s\n",
		       sl_config_doc_intro());
	for (unsigned i = 0; i < n; i++) {
		const struct sl_config_section *s = &sec[i];
		if (!md) {
			printf("%s%s: %s\n", i ? "\n" : "", s->name, s->summary);
			if (s->entry != NULL && s->n_keys > 0)
				printf("  (keys of each %s)\n", s->entry);
			text_param_rows(s->keys, s->n_keys, 2);
			continue;
		}
		printf("\n## `%s`\n", s->name);
		if (s->n_keys > 0) {
			printf("\n");
			if (s->entry != NULL)
				printf("Keys of each %s:\n\n", s->entry);
			printf("| key | type | default | range | description |\n");
			printf("| --- | --- | --- | --- | --- |\n");
			md_param_rows(s->keys, s->n_keys);
		}
		if (s->doc != NULL)
			printf("\n%s\n", s->doc);
	}
	return SL_EXIT_OK;
}

/* sluice topology [--measure [--save FILE] [--round-trips N] [--samples N]]
 *                 [--load FILE] */
static int cmd_topology(const struct sl_command *cmd, int argc, char **argv,
			const struct sl_ctl_wait *w)
{
	bool measure = false;
	const char *save = NULL, *load_path = NULL;
	uint64_t round_trips = 20000, samples = 5;
	const struct sl_opt table[] = {
		{ .name = "--measure", .type = SL_OPT_FLAG, .dst = &measure },
		{ .name = "--save", .type = SL_OPT_STR, .dst = &save },
		{ .name = "--load", .type = SL_OPT_STR, .dst = &load_path },
		{ .name = "--round-trips", .type = SL_OPT_UINT, .dst = &round_trips, .min = 1,
		  .max = 10000000, .what = "a positive count" },
		{ .name = "--samples", .type = SL_OPT_UINT, .dst = &samples, .min = 1,
		  .max = 10000000, .what = "a positive count" },
	};
	struct sl_args a = { .cmd = cmd, .opts = table, .n_opts = SL_ARRAY_LEN(table) };
	int arc = sl_opts_parse(&a, argc, argv);
	if (arc >= 0)
		return arc;
	if (save != NULL && !measure)
		return sl_usage_error(cmd, "--save needs --measure");
	struct sl_err err = { "" };
	struct sl_topology *t = sl_topology_load(&err);
	if (t == NULL) {
		fprintf(stderr, "sluice: topology: %s\n", err.msg);
		return SL_EXIT_RUNTIME;
	}
	sl_topology_print(t, stdout);
	int rc = SL_EXIT_OK;
	struct sl_c2c *m = NULL;
	if (measure) {
		if (t->synthetic) {
			fprintf(stderr, "sluice: topology: cannot measure a described machine (%s)\n",
				t->source);
			rc = SL_EXIT_CONFIG;
			goto out;
		}
		cpu_set_t set;
		int cpus[CPU_SETSIZE];
		unsigned n = 0;
		if (sched_getaffinity(0, sizeof(set), &set) < 0) {
			fprintf(stderr, "sluice: topology: cannot read this process's CPU set: %s\n",
				strerror(errno));
			rc = SL_EXIT_RUNTIME;
			goto out;
		}
		for (unsigned i = 0; i < t->n_pus && n < CPU_SETSIZE; i++)
			if (t->pus[i].cpu >= 0 && t->pus[i].cpu < CPU_SETSIZE &&
			    CPU_ISSET(t->pus[i].cpu, &set))
				cpus[n++] = t->pus[i].cpu;
		fprintf(stderr, "measuring %u pairs (%u samples of %u round trips each)...\n",
			n * (n - 1) / 2, (unsigned)samples, (unsigned)round_trips);
		m = sl_c2c_measure(cpus, n, (unsigned)round_trips, (unsigned)samples, &err);
	} else if (load_path != NULL) {
		m = sl_c2c_load(load_path, &err);
	}
	if ((measure || load_path != NULL) && m == NULL) {
		fprintf(stderr, "sluice: topology: %s\n", err.msg);
		rc = measure ? SL_EXIT_RUNTIME : SL_EXIT_CONFIG;
		goto out;
	}
	if (m != NULL) {
		sl_c2c_print(m, stdout);
		int dom[CPU_SETSIZE];
		unsigned nd = sl_c2c_domains(m, SL_C2C_DOMAIN_FACTOR, dom);
		printf("measured domains (latency within %.1fx of the fastest pair): %u\n",
		       SL_C2C_DOMAIN_FACTOR, nd);
		if (save != NULL && sl_c2c_save(m, save, &err) < 0) {
			fprintf(stderr, "sluice: topology: %s\n", err.msg);
			rc = SL_EXIT_RUNTIME;
		} else if (save != NULL) {
			printf("saved to %s (use it with  topology: { c2c: %s }  in a config)\n",
			       save, save);
		}
	}
out:
	sl_c2c_free(m);
	sl_topology_free(t);
	return rc;
}

/* `sluice exporter ARGS`, `sluice bench ARGS`: run PROG (sluice-exporter,
 * sluice-bench), the program beside this one, with ARGS (argv: main's, after
 * the command's name, which PROG's name replaces).  Programs of their own:
 * engine/cli/exporter_main.c says why the exporter is, engine/bench/latency.c
 * why the benchmarks are. */
static int run_beside(const char *prog, const char *cmd, char **argv)
{
	char self[PATH_MAX], path[PATH_MAX + 32];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n < 0) {
		fprintf(stderr, "sluice: %s: cannot find this program's directory: %s\n",
			cmd, strerror(errno));
		return SL_EXIT_RUNTIME;
	}
	self[n] = '\0';
	char *slash = strrchr(self, '/');
	if (slash != NULL)
		*slash = '\0';
	snprintf(path, sizeof(path), "%s/%s", self, prog);
	argv[-1] = (char *)prog;
	execv(path, argv - 1);
	fprintf(stderr, "sluice: %s: cannot run %s: %s (it is installed beside sluice)\n",
		cmd, path, strerror(errno));
	return SL_EXIT_RUNTIME;
}

static int cmd_bench(const struct sl_command *cmd, int argc, char **argv,
		     const struct sl_ctl_wait *w)
{
	return run_beside("sluice-bench", cmd->name, argv);
}

static int cmd_exporter(const struct sl_command *cmd, int argc, char **argv,
			const struct sl_ctl_wait *w)
{
	return run_beside("sluice-exporter", cmd->name, argv);
}

static int cmd_version(const struct sl_command *cmd, int argc, char **argv,
		       const struct sl_ctl_wait *w)
{
	struct sl_args a = { .cmd = cmd };
	int rc = sl_opts_parse(&a, argc, argv);
	if (rc >= 0)
		return rc;
	printf("sluice %s\n", SL_VERSION);
	return SL_EXIT_OK;
}

static int cmd_help(const struct sl_command *cmd, int argc, char **argv,
		    const struct sl_ctl_wait *w);

/* The commands, in the order of `sluice --help`. */
static const struct sl_command commands[] = {
	{ "run", NULL,
	  "run CONFIG [--duration S] [--stats S] [--stop-timeout S] [--quiet]\n"
	  "           [--summary-json FILE] [-- EAL-ARGS...]",
	  "run the pipeline in CONFIG until SIGINT/SIGTERM or for S seconds,\n"
	  "printing a stats line every S seconds with --stats; a stop\n"
	  "that takes over --stop-timeout seconds (default: the config's\n"
	  "engine.stop_timeout; 0: no limit), or a second signal,\n"
	  "names the worker or step that did not stop and exits 1;\n"
	  "--summary-json writes the summary at stop to FILE as JSON\n"
	  "(docs/summary.md)", NULL, cmd_run, false },
	{ "check", NULL, "check CONFIG",
	  "validate CONFIG (syntax, apps, parameters, links, workers)\n"
	  "without starting DPDK or any port", NULL, cmd_check, false },
	{ "plan", NULL, "plan CONFIG",
	  "show where each worker would run (cpu, core, L3 domain, NUMA\n"
	  "node) and the hop class of every link, with warnings", NULL, cmd_plan, false },
	{ "apps", NULL, "apps [TYPE] [--markdown]",
	  "list the app types with their ports, parameters and counters", NULL, cmd_apps,
	  false },
	{ "config", NULL, "config [--markdown | --man]",
	  "list the configuration's sections and their keys, with\n"
	  "type, default, range and meaning (docs/config.md; --man:\n"
	  "sluice.yaml(5))", NULL, cmd_config, false },
	{ "topology", NULL,
	  "topology [--measure [--save FILE] [--round-trips N] [--samples N]] [--load FILE]",
	  "print the machine's PUs, cores, L2/L3 domains (with the L3's\n"
	  "size), NUMA nodes\n"
	  "and PCI devices (hwloc; honours HWLOC_SYNTHETIC, HWLOC_XMLFILE);\n"
	  "--measure adds a core-to-core latency matrix (median ns)", NULL, cmd_topology,
	  false },
	{ "reload", NULL, "reload CONFIG [--prefix P] [--dry-run]",
	  "apply CONFIG to a running engine (found as stats finds it)\n"
	  "without stopping it: apps and links started, stopped,\n"
	  "restarted or moved, live parameters changed in place, other\n"
	  "workers untouched; --dry-run lists the actions only\n"
	  "(docs/control.md); SIGHUP reloads the engine's own file", NULL, sl_cmd_reload, true },
	{ "capture", NULL,
	  "capture [--prefix P] POINT... [-c N] [-s SNAPLEN] [-f FILTER] [-a duration:S]\n"
	  "        -w FILE|-",
	  "copy the packets crossing links or app ports of a running\n"
	  "engine into pcapng (FILE, or - for stdout: | tcpdump -r -),\n"
	  "filtered in libpcap syntax, until N packets, S seconds or\n"
	  "Ctrl-C; prints the captured and dropped counts\n"
	  "(docs/capture.md); POINT: a link \"a.output -> b.input\" or an\n"
	  "app's port \"a.output\", \"b.input\"", NULL, sl_cmd_capture, true },
	{ "stats", NULL, "stats [--json] [--prefix P]",
	  "one snapshot of a running engine (found by its DPDK file prefix,\n"
	  "or the only one running): tables, or JSON in the schema of\n"
	  "--summary-json plus \"live\" (docs/telemetry.md)", NULL, sl_cmd_stats, true },
	{ "top", NULL, "top [--prefix P] [--interval S] [--sort cycles|packets|drops]",
	  "a running engine's workers, apps, links, pool and epoch, live\n"
	  "in the terminal, every S seconds (default 1); q quits", NULL, sl_cmd_top, true },
	/* The exporter, a program of its own, reads $SLUICE_TIMEOUT itself. */
	{ "exporter", NULL, "exporter [--listen ADDR:PORT] [--prefix P]",
	  "serve a running engine's counters to Prometheus on\n"
	  "http://ADDR:PORT/metrics (default 127.0.0.1:9473)", NULL, cmd_exporter, false },
	{ "bench", NULL, "bench latency ...",
	  "latency sweep over placements, loads, pools (bench latency --help;\n"
	  "sluice-bench, installed beside sluice)", NULL, cmd_bench, false },
	{ "version", "--version", "version", "print the version", NULL, cmd_version, false },
	{ "help", "--help", "help [COMMAND | --man]", NULL, NULL, cmd_help, false },
};

static void print_usage(FILE *f)
{
	fputs("usage: sluice COMMAND [ARGS]\n\ncommands:\n", f);
	sl_commands_print(commands, SL_ARRAY_LEN(commands), f);
	fputs("\n'sluice help COMMAND' (or 'sluice COMMAND --help') describes a command.\n"
	      "exit status: 0 success, 1 runtime failure, 2 usage or configuration error\n", f);
}

static const struct sl_command *find_command(const char *name);

/* `sluice help --man`: sluice(8), from the table above (meson builds the
 * installed page with it, so the page says what the program does). */
static void print_man(FILE *f)
{
	sl_roff_title("SLUICE", 8, "System Administration", f);
	fputs(".SH NAME\nsluice \\- userspace packet\\-forwarding engine on DPDK\n"
	      ".SH SYNOPSIS\n.B sluice\n.I COMMAND\n.RI [ ARGS ]\n"
	      ".SH DESCRIPTION\n"
	      "Sluice runs a pipeline of apps (ports, a router, a learning bridge, a flow\n"
	      "cache, generators and sinks) on worker cores placed per L3 cache domain,\n"
	      "described by a YAML file (\\fBsluice.yaml\\fR(5)). The commands below run,\n"
	      "check and place a pipeline, and watch, reload and capture a running one.\n"
	      "\\fBsluice help\\fR \\fICOMMAND\\fR (or \\fBsluice\\fR \\fICOMMAND\\fR\n"
	      "\\fB\\-\\-help\\fR) describes a command in full.\n"
	      ".SH COMMANDS\n", f);
	sl_commands_man(commands, SL_ARRAY_LEN(commands), f);
	fputs(".TP\n.B sluice version\n(or \\fB\\-\\-version\\fR) print the version\n"
	      ".TP\n.B sluice help [COMMAND | \\-\\-man]\n"
	      "describe every command, or one; \\fB\\-\\-man\\fR prints this page\n"
	      ".SH EXIT STATUS\n"
	      "0 success, 1 runtime failure, 2 usage or configuration error (with the\n"
	      "file, line and column of the offending key).\n"
	      ".SH ENVIRONMENT\n"
	      ".TP\n.B SLUICE_TIMEOUT\n"
	      "seconds the commands that talk to a running engine (stats, reload, capture,\n"
	      "top, exporter) wait for it.\n"
	      ".TP\n.B SLUICE_IDLE_SLEEP\n"
	      "a worker's sleep between idle breaths where the configuration does not set\n"
	      "engine.idle_sleep.\n"
	      ".SH FILES\n"
	      ".TP\n.I /etc/sluice/\n"
	      "configurations of the \\fBsluice@\\fR\\fINAME\\fR\\fB.service\\fR units\n"
	      "(\\fI/etc/sluice/NAME.yaml\\fR).\n"
	      ".TP\n.I /usr/share/doc/sluice/\n"
	      "the documentation and example pipelines.\n"
	      ".SH SEE ALSO\n"
	      ".BR sluice.yaml (5),\n.BR sluice\\-exporter (8),\n.BR dpdk\\-testpmd (1)\n", f);
}

/* `sluice help`: every command; `sluice help COMMAND`: that command's
 * usage, as `sluice COMMAND --help` prints it; `sluice help --man`:
 * sluice(8). */
static int cmd_help(const struct sl_command *cmd, int argc, char **argv,
		    const struct sl_ctl_wait *w)
{
	if (argc == 0) {
		print_usage(stdout);
		return SL_EXIT_OK;
	}
	if (argc == 1 && strcmp(argv[0], "--man") == 0) {
		print_man(stdout);
		return SL_EXIT_OK;
	}
	const struct sl_command *c = argc == 1 ? find_command(argv[0]) : NULL;
	if (c == NULL || c == cmd) {
		if (argc > 1)
			fprintf(stderr, "sluice: help: one COMMAND only ('%s' and '%s')\n", argv[0],
				argv[1]);
		else
			fprintf(stderr, "sluice: help: unknown command '%s'\n", argv[0]);
		print_usage(stderr);
		return SL_EXIT_CONFIG;
	}
	char *args[] = { "--help", NULL };
	return c->run(c, 1, args, w);
}

static const struct sl_command *find_command(const char *name)
{
	for (unsigned i = 0; i < SL_ARRAY_LEN(commands); i++) {
		const struct sl_command *c = &commands[i];
		if (strcmp(name, c->name) == 0 || (c->alias != NULL && strcmp(name, c->alias) == 0))
			return c;
	}
	if (strcmp(name, "-h") == 0)
		return find_command("help");
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		print_usage(stderr);
		return SL_EXIT_CONFIG;
	}
	/* Whole lines reach a file or pipe at once: a run that ends with
	 * _exit (a worker that does not stop) loses nothing printed before. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	const struct sl_command *cmd = find_command(argv[1]);
	if (cmd == NULL) {
		const char *names[SL_ARRAY_LEN(commands)];
		for (unsigned i = 0; i < SL_ARRAY_LEN(commands); i++)
			names[i] = commands[i].name;
		const char *hint = sl_did_you_mean(argv[1], names, SL_ARRAY_LEN(commands));
		fprintf(stderr, "sluice: unknown command '%s'%s%s%s\n", argv[1],
			hint ? " (did you mean '" : "", hint ? hint : "", hint ? "'?)" : "");
		print_usage(stderr);
		return SL_EXIT_CONFIG;
	}
	/* A client of a running engine: $SLUICE_TIMEOUT first, read once
	 * (control.h). */
	struct sl_ctl_wait w = { 0 };
	struct sl_err err = { "" };
	if (cmd->client && sl_ctl_client_wait(&w, &err) < 0) {
		fprintf(stderr, "sluice: %s: %s\n", cmd->name, err.msg);
		return SL_EXIT_CONFIG;
	}
	return cmd->run(cmd, argc - 2, argv + 2, &w);
}
