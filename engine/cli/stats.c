/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sluice stats [--json] [--prefix P]: one snapshot of a running engine
 * (telclient.h), as JSON in the schema of the JSON summary plus "live", or
 * as text tables like the run summary's.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "base/err.h"
#include "cli/commands.h"
#include "cli/snapview.h"
#include "cli/telclient.h"
#include "runtime/app.h"

#define LEN(a) (sizeof(a) / sizeof((a)[0]))

static const char *const common_counters[] = { "in_packets", "in_bytes", "out_packets",
					       "out_bytes", "drops" };
static const char *const link_columns[] = { "packets", "bytes", "drops", "occupancy_hwm",
					    "sojourn_p50_ns", "sojourn_p99_ns" };

static bool is_common(const char *key)
{
	for (size_t i = 0; i < LEN(common_counters); i++)
		if (strcmp(key, common_counters[i]) == 0)
			return true;
	return false;
}

/* " k v, k v" for the numbers in obj (nulls and keys in skip left out). */
static void print_pairs(const json_t *obj, const char *const *skip, size_t n_skip)
{
	const char *key, *sep = " ";
	json_t *v;
	json_object_foreach((json_t *)obj, key, v) {
		bool skipped = false;
		for (size_t i = 0; i < n_skip; i++)
			skipped |= strcmp(key, skip[i]) == 0;
		if (skipped || !json_is_number(v))
			continue;
		if (json_is_integer(v))
			printf("%s%s %" JSON_INTEGER_FORMAT, sep, key, json_integer_value(v));
		else
			printf("%s%s %g", sep, key, json_real_value(v));
		sep = ", ";
	}
}

static void text_head(const json_t *s)
{
	const json_t *live = json_object_get(s, "live");
	double el = 0;
	char pid[32], cpu[32];
	sl_snap_fmt_u64(pid, sizeof(pid), json_object_get(live, "pid"));
	sl_snap_fmt_u64(cpu, sizeof(cpu), json_object_get(s, "control_cpu"));
	printf("engine '%s': pid %s, sluice %s, %s", sl_snap_str(json_object_get(live, "prefix"), "-"),
	       pid, sl_snap_str(json_object_get(live, "version"), "-"),
	       sl_snap_str(json_object_get(live, "state"), "-"));
	if (sl_snap_num(json_object_get(live, "elapsed_ns"), &el))
		printf(" for %.2f s", el / 1e9);
	else if (sl_snap_num(json_object_get(s, "elapsed_s"), &el))
		printf(" for %.2f s", el);
	printf("; control thread on cpu %s\n", cpu);
	/* Reloads applied, and when the last was (local time). */
	const json_t *rl = json_object_get(s, "reload");
	double n = 0, last = 0;
	if (sl_snap_num(json_object_get(rl, "applied"), &n) && n > 0 &&
	    sl_snap_num(json_object_get(rl, "last_unix_s"), &last) && last > 0) {
		time_t t = (time_t)last;
		struct tm tm;
		char when[64];
		if (localtime_r(&t, &tm) != NULL &&
		    strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S %z", &tm) > 0)
			printf("reloads: %.0f applied, the last at %s\n", n, when);
	}
}

static void text_apps(const json_t *s)
{
	static const int width[] = { 14, 16, 14, 16, 12 };
	const json_t *apps = json_object_get(s, "apps");
	const char *name;
	json_t *a;
	char buf[64];
	printf("\napps (in = from outside or generated, out = to outside or consumed; cycles "
	       "and calls since the start):\n  %-16s %-13s %-10s", "app", "type", "worker");
	for (size_t i = 0; i < LEN(common_counters); i++)
		printf(" %*s", width[i], common_counters[i]);
	printf(" %13s %12s\n", "cycles/packet", "packets/call");
	json_object_foreach((json_t *)apps, name, a) {
		struct sl_snap_runtime zero = { .ok = true }, rt;
		double v = 0;
		printf("  %-16s %-13s %-10s", name, sl_snap_str(json_object_get(a, "type"), "-"),
		       sl_snap_str(json_object_get(a, "worker"), "-"));
		for (size_t i = 0; i < LEN(common_counters); i++) {
			sl_snap_fmt_u64(buf, sizeof(buf),
					sl_snap_get(a, "counters", common_counters[i], NULL));
			printf(" %*s", width[i], buf);
		}
		sl_snap_app_runtime(a, &rt);
		bool ok = sl_snap_cycles_per_packet(&zero, &rt, &v);
		sl_snap_fmt(buf, sizeof(buf), ok, "%.1f", v);
		printf(" %13s", buf);
		ok = sl_snap_packets_per_call(&zero, &rt, &v);
		sl_snap_fmt(buf, sizeof(buf), ok, "%.2f", v);
		printf(" %12s\n", buf);
	}
	bool head = false;
	json_object_foreach((json_t *)apps, name, a) {
		const json_t *c = json_object_get(a, "counters");
		const char *key;
		json_t *v;
		bool own = false;
		json_object_foreach((json_t *)c, key, v)
			own |= !is_common(key);
		if (!own)
			continue;
		if (!head)
			printf("app counters (sluice apps TYPE describes them):\n");
		head = true;
		printf("  %s (%s):", name, sl_snap_str(json_object_get(a, "type"), "-"));
		print_pairs(c, common_counters, LEN(common_counters));
		printf("\n");
	}
}

/* Each app's table (a router's neighbours), a line per row: its cells in
 * the table's column order, names first. */
static void text_tables(const json_t *s)
{
	const char *name;
	json_t *a;
	json_object_foreach(json_object_get(s, "apps"), name, a) {
		const struct sl_app_type *t =
			sl_app_type_find(sl_snap_str(json_object_get(a, "type"), ""));
		if (t == NULL || t->table == NULL)
			continue;
		const json_t *rows = json_object_get(a, t->table->name);
		if (!json_is_array(rows)) {
			printf("%s of %s: not read (its worker made no copy in time)\n",
			       t->table->name, name);
			continue;
		}
		printf("%s of %s (%zu):\n", t->table->name, name, json_array_size(rows));
		size_t i;
		json_t *row;
		json_array_foreach(rows, i, row) {
			printf(" ");
			for (unsigned k = 0; k < SL_TABLE_S && t->table->s_cols[k] != NULL; k++)
				printf(" %s %s", t->table->s_cols[k],
				       sl_snap_str(json_object_get(row, t->table->s_cols[k]), "-"));
			for (unsigned k = 0; k < SL_TABLE_U && t->table->u_cols[k] != NULL; k++) {
				char buf[32];
				sl_snap_fmt_u64(buf, sizeof(buf),
						json_object_get(row, t->table->u_cols[k]));
				printf(" %s %s", t->table->u_cols[k], buf);
			}
			printf("\n");
		}
	}
}

static void text_links(const json_t *s)
{
	static const int width[] = { 14, 16, 12, 13, 14, 14 };
	const char *name;
	json_t *l;
	char buf[64];
	printf("links (interlinks only: occupancy high-water in slots, sampled sojourn):\n"
	       "  %-40s %-9s", "link", "kind");
	for (size_t i = 0; i < LEN(link_columns); i++)
		printf(" %*s", width[i], link_columns[i]);
	printf("\n");
	json_object_foreach(json_object_get(s, "links"), name, l) {
		printf("  %-40s %-9s", name, sl_snap_str(json_object_get(l, "kind"), "-"));
		for (size_t i = 0; i < LEN(link_columns); i++) {
			sl_snap_fmt_u64(buf, sizeof(buf), json_object_get(l, link_columns[i]));
			printf(" %*s", width[i], buf);
		}
		printf("\n");
	}
}

static void text_workers(const json_t *s)
{
	static const char *const cols[] = { "cpu", "lcore", "breaths", "busy_breaths",
					    "idle_breaths" };
	static const int width[] = { 5, 6, 14, 14, 14 };
	const char *name;
	json_t *w;
	char buf[64];
	printf("workers (busy: breaths that moved at least one packet; busy %% of cycles since "
	       "the start):\n  %-16s", "worker");
	for (size_t i = 0; i < LEN(cols); i++)
		printf(" %*s", width[i], cols[i]);
	printf(" %7s\n", "busy %");
	json_object_foreach(json_object_get(s, "workers"), name, w) {
		struct sl_snap_worker zero = { .ok = true }, v;
		double pct = 0;
		printf("  %-16s", name);
		for (size_t i = 0; i < LEN(cols); i++) {
			sl_snap_fmt_u64(buf, sizeof(buf), json_object_get(w, cols[i]));
			printf(" %*s", width[i], buf);
		}
		sl_snap_worker_read(w, &v);
		bool ok = sl_snap_busy_pct(&zero, &v, &pct);
		sl_snap_fmt(buf, sizeof(buf), ok, "%.1f", pct);
		printf(" %7s\n", buf);
	}
}

static void text_pool_epoch(const json_t *s)
{
	static const char *const epoch_skip[] = { "policy", "reclaim_cap" };
	const json_t *pool = json_object_get(s, "pool"), *ep = json_object_get(s, "epoch");
	char a[32], b[32];
	if (json_is_object(json_object_get(pool, "tiers"))) {
		sl_snap_fmt_u64(a, sizeof(a), json_object_get(pool, "chunk"));
		printf("pool (chunk %s) tiers:", a);
		print_pairs(json_object_get(pool, "tiers"), NULL, 0);
		printf("; events:");
		print_pairs(json_object_get(pool, "events"), NULL, 0);
		printf("\n");
	} else if (pool != NULL) {
		printf("pool (%s ops)\n", sl_snap_str(json_object_get(pool, "ops"), "-"));
	}
	if (ep != NULL) {
		sl_snap_fmt_u64(a, sizeof(a), json_object_get(ep, "reclaim_cap"));
		printf("epoch (%s, cap %s per breath):",
		       sl_snap_str(json_object_get(ep, "policy"), "-"), a);
		print_pairs(ep, epoch_skip, LEN(epoch_skip));
		printf("\n");
	}
	sl_snap_fmt_u64(a, sizeof(a), sl_snap_get(s, "mbufs", "back", NULL));
	sl_snap_fmt_u64(b, sizeof(b), sl_snap_get(s, "mbufs", "total", NULL));
	printf("pool: %s of %s mbufs in the pool now\n", a, b);
}

int sl_cmd_stats(const struct sl_command *cmd, int argc, char **argv,
		 const struct sl_ctl_wait *w)
{
	const char *prefix = NULL;
	bool json = false;
	const struct sl_opt opts[] = {
		{ .name = "--json", .type = SL_OPT_FLAG, .dst = &json },
		{ .name = "--prefix", .type = SL_OPT_STR, .dst = &prefix, .nonempty = true },
	};
	struct sl_args a = { .cmd = cmd, .opts = opts, .n_opts = SL_OPTS_LEN(opts) };
	int arc = sl_opts_parse(&a, argc, argv);
	if (arc >= 0)
		return arc;
	struct sl_err err = { "" };
	struct sl_telc *c = sl_telc_open(prefix, w, &err);
	if (c == NULL) {
		fprintf(stderr, "sluice: stats: %s\n", err.msg);
		return SL_EXIT_RUNTIME;
	}
	json_t *s = sl_telc_snapshot(c, &err);
	sl_telc_close(c);
	if (s == NULL) {
		fprintf(stderr, "sluice: stats: %s\n", err.msg);
		return SL_EXIT_RUNTIME;
	}
	int rc = SL_EXIT_OK;
	if (json) {
		if (json_dumpf(s, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER) < 0 ||
		    fputc('\n', stdout) == EOF || fflush(stdout) == EOF) {
			fprintf(stderr, "sluice: stats: cannot write the snapshot: %s\n",
				strerror(errno));
			rc = SL_EXIT_RUNTIME;
		}
	} else {
		text_head(s);
		text_apps(s);
		text_tables(s);
		text_links(s);
		text_workers(s);
		text_pool_epoch(s);
	}
	json_decref(s);
	return rc;
}
