/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include <rte_cycles.h>

#include "base/histogram.h"
#include "interlink/interlink.h"
#include "pool/pool.h"
#include "ops/report.h"

void sl_report_start(const struct sl_config *cfg, const struct sl_worker *workers,
		     int main_cpu)
{
	printf("sluice: running %u apps on %u workers (", cfg->n_apps, cfg->n_workers);
	for (unsigned w = 0; w < cfg->n_workers; w++)
		printf("%s%s on cpu %d", w ? ", " : "", workers[w].name, workers[w].cpu);
	printf("); control thread on cpu %d\n", main_cpu);
	fflush(stdout);
}

/* ---------------------------------------------------------------- stats */

void sl_report_take(const struct sl_config *cfg, struct sl_app *const *apps,
		    struct sl_link *const *links, struct sl_report_snapshot *s, double t)
{
	s->t = t;
	for (unsigned i = 0; i < cfg->n_apps; i++) {
		const struct sl_app *a = apps[i];
		s->in[i] = sl_counter_read(&a->stats.in_packets);
		s->out[i] = sl_counter_read(&a->stats.out_packets);
		s->drops[i] = sl_counter_read(&a->stats.drops);
	}
	s->link_drops = 0;
	for (unsigned i = 0; i < cfg->n_links; i++)
		s->link_drops += sl_counter_read(&links[i]->tx.drops);
}

static void fmt_rate(char *buf, size_t len, double pps)
{
	if (pps >= 1e6)
		snprintf(buf, len, "%.2f Mpps", pps / 1e6);
	else if (pps >= 1e3)
		snprintf(buf, len, "%.1f kpps", pps / 1e3);
	else
		snprintf(buf, len, "%.0f pps", pps);
}

/* Apps that do not fit in the line are left out ("..."); the drops always
 * fit. */
void sl_report_stats_line(const struct sl_config *cfg, struct sl_app *const *apps,
			  const struct sl_report_snapshot *a, const struct sl_report_snapshot *b)
{
	double dt = b->t - a->t;
	char line[1024], tail[48], r[32];
	uint64_t drops = b->link_drops;
	for (unsigned i = 0; i < cfg->n_apps; i++)
		drops += b->drops[i];
	snprintf(tail, sizeof(tail), " ... drops %" PRIu64, drops);
	size_t len = 0, room = sizeof(line) - strlen(tail);
	bool fits = sl_appendf(line, room, &len, "[%7.1fs]", b->t);
	for (unsigned i = 0; i < cfg->n_apps && fits; i++) {
		if (b->in[i] == 0 && b->out[i] == 0)
			continue;
		size_t start = len;
		fits = sl_appendf(line, room, &len, " %s", apps[i]->name);
		if (fits && b->in[i] > 0) {
			fmt_rate(r, sizeof(r), (double)(b->in[i] - a->in[i]) / dt);
			fits = sl_appendf(line, room, &len, " in %s", r);
		}
		if (fits && b->out[i] > 0) {
			fmt_rate(r, sizeof(r), (double)(b->out[i] - a->out[i]) / dt);
			fits = sl_appendf(line, room, &len, " out %s", r);
		}
		if (fits)
			fits = sl_appendf(line, room, &len, " |");
		if (!fits)
			len = start;   /* not half an app */
	}
	line[len] = '\0';
	sl_appendf(line, sizeof(line), &len, "%s", fits ? tail + 4 : tail);
	printf("%s\n", line);
	fflush(stdout);
}

/* ---------------------------------------------------------------- text */

/* Table columns: a header cell per value of specs[0..n), then rows of the
 * values present (absent ones end a row early: they are the trailing,
 * interlink-only columns), each right-aligned in its width. */
static void print_head(const struct sl_counter_spec *specs, const int *width, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		printf(" %*s", width[i], specs[i].name);
	printf("\n");
}

static void print_row(const uint64_t *v, uint64_t absent, const int *width, unsigned n)
{
	for (unsigned i = 0; i < n && !(absent >> i & 1); i++)
		printf(" %*" PRIu64, width[i], v[i]);
	printf("\n");
}

/* " name value, name value" for the values of specs[0..n) present in v. */
static void print_pairs(const struct sl_counter_spec *specs, unsigned n, const uint64_t *v,
			uint64_t absent)
{
	const char *sep = " ";
	for (unsigned i = 0; i < n; i++) {
		if (absent >> i & 1)
			continue;
		printf("%s%s %" PRIu64, sep, specs[i].name, v[i]);
		sep = ", ";
	}
}

static void text_apps(const struct sl_report *r)
{
	static const int width[SL_APP_COMMON_COUNTERS] = { 14, 16, 14, 16, 12 };
	const struct sl_config *cfg = r->cfg;
	uint64_t v[SL_APP_COMMON_COUNTERS + SL_APP_COUNTERS_MAX];
	printf("\napps (in = from outside or generated, out = to outside or consumed):\n");
	printf("  %-16s %-13s %-10s", "app", "type", "worker");
	print_head(sl_app_common_counters, width, SL_APP_COMMON_COUNTERS);
	for (unsigned i = 0; i < cfg->n_apps; i++) {
		const struct sl_app *a = r->apps[i];
		sl_app_counters_read(a, v);
		printf("  %-16s %-13s %-10s", a->name, a->type->name, cfg->workers[a->worker].name);
		print_row(v, 0, width, SL_APP_COMMON_COUNTERS);
	}
}

/* Apps on worker groups: the common counters summed over each app's
 * replicas. */
static void text_replicated(const struct sl_report *r)
{
	static const int width[SL_APP_COMMON_COUNTERS] = { 14, 16, 14, 16, 12 };
	const struct sl_config *cfg = r->cfg;
	bool head = false;
	for (unsigned i = 0; i < cfg->n_apps; i++) {
		const struct sl_app *a = r->apps[i];
		if (a->n_replicas == 0 || a->replica != 0)
			continue;
		if (!head)
			printf("replicated apps (totals over their replicas):\n  %-16s %-13s %-10s",
			       "app", "type", "group");
		if (!head)
			print_head(sl_app_common_counters, width, SL_APP_COMMON_COUNTERS);
		head = true;
		struct sl_values v;
		sl_view_replicated(a, &v);
		char name[64];
		snprintf(name, sizeof(name), "%s x%u", a->base, a->n_replicas);
		printf("  %-16s %-13s %-10s", name, a->type->name, cfg->workers[a->worker].group);
		print_row(v.v, 0, width, SL_APP_COMMON_COUNTERS);
	}
}

static void text_links(const struct sl_report *r)
{
	static const int width[SL_LINK_N_COUNTERS] = { 14, 16, 12, 13, 14, 14 };
	struct sl_values lv;
	printf("links (interlinks only: occupancy high-water in slots, sampled sojourn):\n"
	       "  %-40s %-9s", "link", "kind");
	print_head(sl_link_counters, width, SL_LINK_N_COUNTERS);
	for (unsigned i = 0; i < r->cfg->n_links; i++) {
		const struct sl_link *l = r->links[i];
		sl_view_link(l, &lv);
		printf("  %-40s %-9s", l->name, sl_link_kind(l));
		print_row(lv.v, lv.absent, width, SL_LINK_N_COUNTERS);
	}
}

static void text_workers(const struct sl_report *r)
{
	static const int width[SL_WORKER_N_COUNTERS] = { 5, 6, 14, 14, 14, 16, 16, 10 };
	struct sl_values wv;
	printf("workers:\n  %-16s", "worker");
	print_head(sl_worker_counters, width, SL_WORKER_N_COUNTERS);
	for (unsigned w = 0; w < r->cfg->n_workers; w++) {
		sl_view_worker(&r->workers[w], &wv);
		printf("  %-16s", r->workers[w].name);
		print_row(wv.v, wv.absent, width, SL_WORKER_N_COUNTERS);
	}
}

/* Where the cycles went (engine.accounting), as VPP's `show runtime`: per
 * app that was called, its calls, the packets they moved, cycles per packet
 * and packets per call (the load: near the burst size means saturated). */
static void text_runtime(const struct sl_report *r)
{
	if (!r->cfg->accounting)
		return;
	printf("runtime (pull and push calls; cycles are TSC cycles):\n"
	       "  %-16s %14s %14s %16s %18s %12s %12s\n", "app", "pull_calls", "push_calls",
	       "packets", "cycles", "cycles/pkt", "pkts/call");
	for (unsigned i = 0; i < r->cfg->n_apps; i++) {
		struct sl_values v;
		sl_view_app_runtime(r->apps[i], &r->workers[r->apps[i]->worker], &v);
		struct sl_app_runtime rt;
		memcpy(&rt, v.v, sizeof(rt));
		uint64_t calls = rt.pull_calls + rt.push_calls;
		uint64_t pkts = rt.pull_packets + rt.push_packets;
		uint64_t cyc = rt.pull_cycles + rt.push_cycles;
		if (calls == 0)
			continue;
		printf("  %-16s %14" PRIu64 " %14" PRIu64 " %16" PRIu64 " %18" PRIu64, r->apps[i]->name,
		       rt.pull_calls, rt.push_calls, pkts, cyc);
		if (pkts > 0)
			printf(" %12.1f", (double)cyc / (double)pkts);
		else
			printf(" %12s", "-");
		printf(" %12.2f\n", (double)pkts / (double)calls);
	}
}

/* One line per app whose type declares counters: "NAME (TYPE): a 1, b 2". */
static void text_app_counters(const struct sl_report *r)
{
	uint64_t v[SL_APP_COMMON_COUNTERS + SL_APP_COUNTERS_MAX];
	bool head = false;
	for (unsigned i = 0; i < r->cfg->n_apps; i++) {
		const struct sl_app *a = r->apps[i];
		const struct sl_app_type *t = a->type;
		if (t->n_counters == 0)
			continue;
		if (!head)
			printf("app counters (sluice apps TYPE describes them):\n");
		head = true;
		sl_app_counters_read(a, v);
		printf("  %s (%s):", a->name, t->name);
		print_pairs(t->counters, t->n_counters, v + SL_APP_COMMON_COUNTERS, 0);
		printf("\n");
	}
}

/* "pool (chunk C) tiers: ...; events: ..." and "epoch (POLICY, cap N per
 * breath): ..." (latencies left out when nothing was freed). */
static void text_pool_epoch(const struct sl_report *r)
{
	const struct sl_config *cfg = r->cfg;
	struct sl_values t, ev;
	if (sl_view_pool(r->pool, &t, &ev)) {
		printf("pool (chunk %u) tiers:", cfg->pool.chunk);
		print_pairs(sl_pool_tier_counters, SL_POOL_N_TIER_COUNTERS, t.v, t.absent);
		printf("; events:");
		print_pairs(sl_pool_event_counters, SL_POOL_N_EVENT_COUNTERS, ev.v, ev.absent);
		printf("\n");
	}
	if (!sl_view_epoch(r->epoch, r->cfg->n_workers, r->epoch_drained, &ev))
		return;
	printf("epoch (%s, cap %u per breath):", sl_epoch_policy_name(cfg->epoch_policy),
	       cfg->reclaim_cap);
	print_pairs(sl_epoch_counters, SL_EPOCH_N_COUNTERS, ev.v, ev.absent);
	printf("\n");
}

/* The pool watch's verdict, one line (also when quiet): which workers went
 * without buffers while the pool's buffers sat on freelists, for how long. */
static void text_starvation(const struct sl_report *r)
{
	char line[512];
	size_t len = 0;
	if (r->starved_s == NULL)
		return;
	for (unsigned w = 0; w < r->cfg->n_workers; w++)
		if (r->starved_s[w] > 0)
			sl_appendf(line, sizeof(line), &len, "%s'%s' %.1f s", len ? ", " : "",
				   r->workers[w].name, r->starved_s[w]);
	if (len > 0)
		printf("pool starved (gets failed for whole seconds while the mbufs sat unused on "
		       "freelists): %s\n", line);
}

void sl_report_app_warnings(struct sl_app *const *apps, unsigned n)
{
	for (unsigned i = 0; apps != NULL && i < n; i++)
		if (apps[i] != NULL && apps[i]->warning[0] != '\0')
			printf("sluice: warning: app '%s': %s\n", apps[i]->name, apps[i]->warning);
	fflush(stdout);
}

void sl_report_summary(const struct sl_report *r, bool quiet)
{
	sl_report_app_warnings(r->apps, r->cfg->n_apps);
	if (!quiet) {
		text_apps(r);
		text_replicated(r);
		text_links(r);
		text_workers(r);
		text_runtime(r);
	}
	text_app_counters(r);   /* also when quiet, as the apps' own lines were */
	if (!quiet) {
		text_pool_epoch(r);
		printf("drained at stop: %" PRIu64 " packets delivered, %" PRIu64
		       " freed from links\n", r->drained, r->freed_at_stop);
		if (r->reloads > 0)
			printf("reloads: %u applied; %" PRIu64 " packets freed by reload (in links "
			       "it removed)\n", r->reloads, r->freed_by_reload);
		printf("elapsed: %.2f s\n", r->elapsed);
	}
	text_starvation(r);
	printf("pool: %u of %u mbufs back in the pool\n", r->mbufs_back, r->mbufs_total);
	fflush(stdout);
}

/* ---------------------------------------------------------------- JSON */

/* Add each value of a table to obj: a number, or null where absent.
 * Returns 0 or -ENOMEM. */
static int add_values(json_t *obj, const struct sl_counter_spec *specs, unsigned n,
		      const struct sl_values *v)
{
	for (unsigned i = 0; i < n; i++) {
		json_t *x = (v->absent >> i & 1) ? json_null() : json_integer((json_int_t)v->v[i]);
		if (json_object_set_new(obj, specs[i].name, x) < 0)
			return -ENOMEM;
	}
	return 0;
}

/* obj[key] = a new object, returned (NULL: out of memory). */
static json_t *child(json_t *obj, const char *key)
{
	json_t *c = json_object();
	if (c == NULL || json_object_set_new(obj, key, c) < 0)
		return NULL;
	return c;
}

/* obj[spec->name]: the rows of an app's table (app.h), an object each. */
static int json_table(json_t *obj, const struct sl_table_spec *spec,
		      const struct sl_table_row *rows, unsigned n)
{
	json_t *arr = json_array();
	if (arr == NULL || json_object_set_new(obj, spec->name, arr) < 0)
		return -ENOMEM;
	for (unsigned i = 0; i < n; i++) {
		json_t *row = json_object();
		if (row == NULL || json_array_append_new(arr, row) < 0)
			return -ENOMEM;
		for (unsigned c = 0; c < SL_TABLE_S && spec->s_cols[c] != NULL; c++)
			if (json_object_set_new(row, spec->s_cols[c], json_string(rows[i].s[c])) < 0)
				return -ENOMEM;
		for (unsigned c = 0; c < SL_TABLE_U && spec->u_cols[c] != NULL; c++)
			if (json_object_set_new(row, spec->u_cols[c],
						json_integer((json_int_t)rows[i].u[c])) < 0)
				return -ENOMEM;
	}
	return 0;
}

static int json_apps(const struct sl_report *r, json_t *root)
{
	json_t *apps = child(root, "apps");
	if (apps == NULL)
		return -ENOMEM;
	for (unsigned i = 0; i < r->cfg->n_apps; i++) {
		const struct sl_app *a = r->apps[i];
		const struct sl_app_type *t = a->type;
		struct sl_values v = { .absent = 0 };
		sl_app_counters_read(a, v.v);
		json_t *o = child(apps, a->name), *c;
		if (o == NULL ||
		    json_object_set_new(o, "type", json_string(t->name)) < 0 ||
		    json_object_set_new(o, "worker",
					json_string(r->cfg->workers[a->worker].name)) < 0 ||
		    (c = child(o, "counters")) == NULL ||
		    add_values(c, sl_app_common_counters, SL_APP_COMMON_COUNTERS, &v) < 0)
			return -ENOMEM;
		struct sl_values own = { .absent = 0 }, rt;
		memcpy(own.v, v.v + SL_APP_COMMON_COUNTERS, t->n_counters * sizeof(uint64_t));
		if (add_values(c, t->counters, t->n_counters, &own) < 0)
			return -ENOMEM;
		sl_view_app_runtime(a, &r->workers[a->worker], &rt);
		if ((c = child(o, "runtime")) == NULL ||
		    add_values(c, sl_app_runtime_counters, SL_APP_RUNTIME_COUNTERS, &rt) < 0)
			return -ENOMEM;
		if (t->table != NULL && json_table(o, t->table, a->table_last, a->table_n) < 0)
			return -ENOMEM;
	}
	return 0;
}

/* "replicated": { BASE: { group, replicas: [names], counters: { sums } } }
 * for every app on a worker group; an empty object without groups. */
static int json_replicated(const struct sl_report *r, json_t *root)
{
	json_t *rep = child(root, "replicated");
	if (rep == NULL)
		return -ENOMEM;
	for (unsigned i = 0; i < r->cfg->n_apps; i++) {
		const struct sl_app *a = r->apps[i];
		if (a->n_replicas == 0 || a->replica != 0)
			continue;
		const struct sl_app_type *t = a->type;
		struct sl_values v, own = { .absent = 0 };
		sl_view_replicated(a, &v);
		json_t *o = child(rep, a->base), *names = json_array(), *c;
		if (o == NULL || names == NULL ||
		    json_object_set_new(o, "type", json_string(t->name)) < 0 ||
		    json_object_set_new(o, "group",
					json_string(r->cfg->workers[a->worker].group)) < 0 ||
		    json_object_set_new(o, "replicas", names) < 0)
			return -ENOMEM;
		for (unsigned k = 0; k < a->n_replicas; k++)
			if (json_array_append_new(names, json_string(sl_app_replica(a, k)->name)) < 0)
				return -ENOMEM;
		if ((c = child(o, "counters")) == NULL ||
		    add_values(c, sl_app_common_counters, SL_APP_COMMON_COUNTERS, &v) < 0)
			return -ENOMEM;
		memcpy(own.v, v.v + SL_APP_COMMON_COUNTERS, t->n_counters * sizeof(uint64_t));
		own.absent = v.absent >> SL_APP_COMMON_COUNTERS;
		for (unsigned k = 0; k < t->n_counters; k++)   /* gauges: left out */
			if (!(own.absent >> k & 1) &&
			    json_object_set_new(c, t->counters[k].name,
						json_integer((json_int_t)own.v[k])) < 0)
				return -ENOMEM;
	}
	return 0;
}

static int json_links_workers(const struct sl_report *r, json_t *root)
{
	json_t *links = child(root, "links"), *workers = child(root, "workers");
	if (links == NULL || workers == NULL)
		return -ENOMEM;
	char end[2][160];
	for (unsigned i = 0; i < r->cfg->n_links; i++) {
		const struct sl_link *l = r->links[i];
		struct sl_values v;
		sl_view_link(l, &v);
		snprintf(end[0], sizeof(end[0]), "%s.%s", l->from->name, l->from_port);
		snprintf(end[1], sizeof(end[1]), "%s.%s", l->to->name, l->to_port);
		json_t *o = child(links, l->name);
		if (o == NULL || json_object_set_new(o, "from", json_string(end[0])) < 0 ||
		    json_object_set_new(o, "to", json_string(end[1])) < 0 ||
		    json_object_set_new(o, "kind", json_string(sl_link_kind(l))) < 0 ||
		    add_values(o, sl_link_counters, SL_LINK_N_COUNTERS, &v) < 0)
			return -ENOMEM;
	}
	for (unsigned w = 0; w < r->cfg->n_workers; w++) {
		struct sl_values v;
		sl_view_worker(&r->workers[w], &v);
		json_t *o = child(workers, r->workers[w].name);
		if (o == NULL || add_values(o, sl_worker_counters, SL_WORKER_N_COUNTERS, &v) < 0)
			return -ENOMEM;
	}
	return 0;
}

static int json_pool_epoch(const struct sl_report *r, json_t *root)
{
	const struct sl_config *cfg = r->cfg;
	json_t *pool = child(root, "pool"), *epoch, *starved;
	struct sl_values t, ev;
	if (pool == NULL)
		return -ENOMEM;
	bool ours = sl_view_pool(r->pool, &t, &ev);
	if (json_object_set_new(pool, "ops", json_string(ours ? "sluice" : "dpdk")) < 0 ||
	    json_object_set_new(pool, "chunk", ours ? json_integer(cfg->pool.chunk)
						    : json_null()) < 0)
		return -ENOMEM;
	if (!ours) {
		if (json_object_set_new(pool, "tiers", json_null()) < 0 ||
		    json_object_set_new(pool, "events", json_null()) < 0)
			return -ENOMEM;
	} else {
		json_t *tiers = child(pool, "tiers"), *events = child(pool, "events");
		if (tiers == NULL || events == NULL ||
		    add_values(tiers, sl_pool_tier_counters, SL_POOL_N_TIER_COUNTERS, &t) < 0 ||
		    add_values(events, sl_pool_event_counters, SL_POOL_N_EVENT_COUNTERS, &ev) < 0)
			return -ENOMEM;
	}
	if ((starved = child(pool, "starved_s")) == NULL)
		return -ENOMEM;
	for (unsigned w = 0; r->starved_s != NULL && w < cfg->n_workers; w++)
		if (r->starved_s[w] > 0 &&
		    json_object_set_new(starved, r->workers[w].name, json_real(r->starved_s[w])) < 0)
			return -ENOMEM;
	if (!sl_view_epoch(r->epoch, r->cfg->n_workers, r->epoch_drained, &ev))
		return json_object_set_new(root, "epoch", json_null()) < 0 ? -ENOMEM : 0;
	if ((epoch = child(root, "epoch")) == NULL ||
	    json_object_set_new(epoch, "policy",
				json_string(sl_epoch_policy_name(cfg->epoch_policy))) < 0 ||
	    json_object_set_new(epoch, "reclaim_cap", json_integer(cfg->reclaim_cap)) < 0)
		return -ENOMEM;
	return add_values(epoch, sl_epoch_counters, SL_EPOCH_N_COUNTERS, &ev);
}

static json_t *json_summary(const struct sl_report *r)
{
	json_t *root = json_object(), *drained, *warnings, *mbufs;
	if (root == NULL || json_object_set_new(root, "schema", json_integer(1)) < 0 ||
	    json_object_set_new(root, "elapsed_s", json_real(r->elapsed)) < 0 ||
	    json_object_set_new(root, "control_cpu", json_integer(r->control_cpu)) < 0 ||
	    json_object_set_new(root, "tsc_hz", json_integer((json_int_t)rte_get_tsc_hz())) < 0 ||
	    json_apps(r, root) < 0 || json_replicated(r, root) < 0 ||
	    json_links_workers(r, root) < 0 ||
	    json_pool_epoch(r, root) < 0 || (drained = child(root, "drained_at_stop")) == NULL ||
	    json_object_set_new(drained, "delivered", json_integer((json_int_t)r->drained)) < 0 ||
	    json_object_set_new(drained, "freed", json_integer((json_int_t)r->freed_at_stop)) < 0 ||
	    json_object_set_new(root, "reload", json_pack("{sIsIsf}", "applied",
							  (json_int_t)r->reloads, "freed",
							  (json_int_t)r->freed_by_reload, "last_unix_s",
							  (double)r->last_reload_ns / 1e9)) < 0)
		goto fail;
	if ((warnings = json_array()) == NULL ||
	    json_object_set_new(root, "warnings", warnings) < 0)
		goto fail;
	for (unsigned i = 0; i < r->cfg->n_apps; i++) {
		char w[SL_APP_WARNING_MAX + 96];
		if (r->apps[i]->warning[0] == '\0')
			continue;
		snprintf(w, sizeof(w), "app '%s': %s", r->apps[i]->name, r->apps[i]->warning);
		if (json_array_append_new(warnings, json_string(w)) < 0)
			goto fail;
	}
	if ((mbufs = child(root, "mbufs")) == NULL ||
	    json_object_set_new(mbufs, "total", json_integer(r->mbufs_total)) < 0 ||
	    json_object_set_new(mbufs, "back", json_integer(r->mbufs_back)) < 0)
		goto fail;
	return root;
fail:
	json_decref(root);
	return NULL;
}

int sl_report_json(const struct sl_report *r, const char *path, struct sl_err *err)
{
	json_t *root = json_summary(r);
	if (root == NULL)
		return sl_errf(err, ENOMEM, "summary '%s': out of memory", path);
	char tmp[PATH_MAX];
	if (snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path) >= (int)sizeof(tmp)) {
		json_decref(root);
		return sl_errf(err, ENAMETOOLONG, "summary '%s': the path is too long", path);
	}
	int fd = mkstemp(tmp);
	if (fd < 0) {
		int e = errno;
		json_decref(root);
		return sl_errf(err, e, "cannot write the summary '%s': %s", path, strerror(e));
	}
	mode_t mask = umask(0);
	umask(mask);
	errno = 0;   /* jansson does not always set it: no stale reason below */
	int rc = fchmod(fd, 0666 & ~mask);
	if (rc == 0)
		rc = json_dumpfd(root, fd, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	if (rc == 0 && write(fd, "\n", 1) != 1)
		rc = -1;
	int e = rc < 0 ? (errno ? errno : EIO) : 0;
	if (close(fd) != 0 && e == 0)
		e = errno;
	if (e == 0 && rename(tmp, path) != 0)
		e = errno;
	json_decref(root);
	if (e != 0) {
		unlink(tmp);
		return sl_errf(err, e, "cannot write the summary '%s': %s", path, strerror(e));
	}
	return 0;
}
