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

#include "histogram.h"
#include "interlink.h"
#include "pool.h"
#include "report.h"

/* ---------------------------------------------------------------- tables */

const struct sl_counter_spec sl_link_counters[SL_LINK_N_COUNTERS] = {
	[SL_LINK_PACKETS] = { "packets", SL_COUNTER,
			      "Packets the link took from its producer." },
	[SL_LINK_BYTES] = { "bytes", SL_COUNTER,
			    "Bytes of the packets its consumer received." },
	[SL_LINK_DROPS] = { "drops", SL_COUNTER,
			    "Packets freed by transmit because the link was full." },
	[SL_LINK_OCCUPANCY_HWM] = { "occupancy_hwm", SL_GAUGE,
				    "Most slots seen in use, sampled (interlinks only)." },
	[SL_LINK_SOJOURN_P50_NS] = { "sojourn_p50_ns", SL_GAUGE,
				     "Median time a sampled packet spent in the ring, in ns "
				     "(interlinks only)." },
	[SL_LINK_SOJOURN_P99_NS] = { "sojourn_p99_ns", SL_GAUGE,
				     "99th percentile of that time, in ns (interlinks only)." },
};

const struct sl_counter_spec sl_worker_counters[SL_WORKER_N_COUNTERS] = {
	[SL_WORKER_CPU] = { "cpu", SL_GAUGE, "The CPU the worker's thread is pinned to." },
	[SL_WORKER_LCORE] = { "lcore", SL_GAUGE, "The worker's DPDK lcore id." },
	[SL_WORKER_BREATHS] = { "breaths", SL_COUNTER,
				"Passes of the worker's loop (engine/core/worker.h)." },
};

const struct sl_counter_spec sl_pool_tier_counters[SL_POOL_N_TIER_COUNTERS] = {
	[SL_POOL_TIER_WORKERS] = { "workers", SL_GAUGE,
				   "Mbufs on the per-worker freelists at stop." },
	[SL_POOL_TIER_L3] = { "l3", SL_GAUGE, "Mbufs in the L3-domain queues at stop." },
	[SL_POOL_TIER_GLOBAL] = { "global", SL_GAUGE, "Mbufs in the global queue at stop." },
	[SL_POOL_TIER_SHARED] = { "shared", SL_GAUGE,
				  "Mbufs on the non-worker freelist at stop." },
};

const struct sl_counter_spec sl_pool_event_counters[SL_POOL_N_EVENT_COUNTERS] = {
	[SL_POOL_REBALANCES] = { "rebalances", SL_COUNTER,
				 "Chunks the freelists moved out to the shared tiers (rebalance steps that moved one)." },
	[SL_POOL_RECLAIMS] = { "reclaims", SL_COUNTER,
			       "Chunks the freelists took in from the shared tiers (reclaim steps that moved one)." },
	[SL_POOL_EMPTY] = { "empty", SL_COUNTER,
			    "Reclaim steps that found no chunk anywhere." },
	[SL_POOL_FULL] = { "full", SL_COUNTER,
			   "Rebalance steps that found nowhere to put their chunk." },
	[SL_POOL_REBALANCE_P999_NS] = { "rebalance_p999_ns", SL_GAUGE,
					"99.9th percentile of a rebalance step, in ns." },
	[SL_POOL_RECLAIM_P999_NS] = { "reclaim_p999_ns", SL_GAUGE,
				      "99.9th percentile of a reclaim step, in ns." },
};

const struct sl_counter_spec sl_epoch_counters[SL_EPOCH_N_COUNTERS] = {
	[SL_EPOCH_RETIRED] = { "retired", SL_COUNTER, "Objects handed to the epoch for a deferred free." },
	[SL_EPOCH_FREED] = { "freed", SL_COUNTER, "Retired objects freed after their grace period." },
	[SL_EPOCH_FREED_AT_STOP] = { "freed_at_stop", SL_COUNTER,
				     "Of those, freed by the drain after the workers stopped." },
	[SL_EPOCH_BACKLOG_HWM] = { "backlog_hwm", SL_GAUGE,
				   "Sum over the workers of their most objects retired and not yet freed." },
	[SL_EPOCH_FREE_NS_P50] = { "free_ns_p50", SL_GAUGE, "Median retire-to-free time, in ns." },
	[SL_EPOCH_FREE_NS_P99] = { "free_ns_p99", SL_GAUGE, "99th percentile retire-to-free time, in ns." },
	[SL_EPOCH_FREE_NS_MAX] = { "free_ns_max", SL_GAUGE, "Longest retire-to-free time, in ns." },
	[SL_EPOCH_FREE_BREATHS_P50] = { "free_breaths_p50", SL_GAUGE,
					"Median retire-to-free time, in breaths of the retiring worker." },
	[SL_EPOCH_FREE_BREATHS_P99] = { "free_breaths_p99", SL_GAUGE,
					"99th percentile retire-to-free time, in breaths." },
	[SL_EPOCH_FREE_BREATHS_MAX] = { "free_breaths_max", SL_GAUGE,
					"Longest retire-to-free time, in breaths." },
	[SL_EPOCH_GRACE_NS_P50] = { "grace_ns_p50", SL_GAUGE, "Median grace period, in ns." },
	[SL_EPOCH_GRACE_NS_P99] = { "grace_ns_p99", SL_GAUGE, "99th percentile grace period, in ns." },
};

/* ---------------------------------------------------------------- values */

/* Values of one object for its table; `absent` has bit i set where value i
 * does not exist for this object (JSON null, left out of the text). */
struct values {
	uint64_t v[SL_APP_COMMON_COUNTERS + SL_APP_COUNTERS_MAX];
	uint64_t absent;
};

static void link_values(const struct sl_link *l, struct values *out)
{
	struct sl_link_stats s;
	sl_link_stats_read(l, &s);
	memset(out, 0, sizeof(*out));
	out->v[SL_LINK_PACKETS] = s.tx_packets;
	out->v[SL_LINK_BYTES] = s.rx_bytes;
	out->v[SL_LINK_DROPS] = s.drops;
	if (l->il == NULL) {
		out->absent = 1u << SL_LINK_OCCUPANCY_HWM | 1u << SL_LINK_SOJOURN_P50_NS |
			      1u << SL_LINK_SOJOURN_P99_NS;
		return;
	}
	struct sl_il_stats is;
	sl_il_stats_read(l->il, &is);
	out->v[SL_LINK_OCCUPANCY_HWM] = is.occupancy_hwm;
	out->v[SL_LINK_SOJOURN_P50_NS] = sl_il_sojourn_quantile_ns(&is, 0.5);
	out->v[SL_LINK_SOJOURN_P99_NS] = sl_il_sojourn_quantile_ns(&is, 0.99);
}

static void worker_values(const struct sl_worker *w, struct values *out)
{
	memset(out, 0, sizeof(*out));
	out->v[SL_WORKER_CPU] = (uint64_t)w->cpu;
	out->v[SL_WORKER_LCORE] = w->lcore;
	out->v[SL_WORKER_BREATHS] = sl_counter_read(&w->breaths);
}

/* The pool's tiers and events; false for a pool that is not Sluice's. */
static bool pool_values(const struct sl_report *r, struct values *tiers, struct values *events)
{
	const struct sl_pool *sp = sl_pool_of(r->pool);
	if (sp == NULL)
		return false;
	struct sl_pool_stats ps;
	sl_pool_stats(sp, &ps);
	memset(tiers, 0, sizeof(*tiers));
	memset(events, 0, sizeof(*events));
	tiers->v[SL_POOL_TIER_WORKERS] = ps.counts.workers;
	tiers->v[SL_POOL_TIER_L3] = ps.counts.l3;
	tiers->v[SL_POOL_TIER_GLOBAL] = ps.counts.global;
	tiers->v[SL_POOL_TIER_SHARED] = ps.counts.shared;
	events->v[SL_POOL_REBALANCES] = ps.sum.rebalances;
	events->v[SL_POOL_RECLAIMS] = ps.sum.reclaims;
	events->v[SL_POOL_EMPTY] = ps.sum.empty;
	events->v[SL_POOL_FULL] = ps.sum.full;
	events->v[SL_POOL_REBALANCE_P999_NS] = sl_pool_hist_quantile(&ps.sum.rebalance_ns, 0.999);
	events->v[SL_POOL_RECLAIM_P999_NS] = sl_pool_hist_quantile(&ps.sum.reclaim_ns, 0.999);
	return true;
}

/* The epoch's counters and latencies merged over the workers (latencies
 * absent when nothing was freed); false without an epoch. */
static bool epoch_values(const struct sl_report *r, struct values *out)
{
	struct sl_epoch_stats es;
	if (r->epoch == NULL || sl_epoch_stats(r->epoch, -1, &es) < 0)
		return false;
	memset(out, 0, sizeof(*out));
	out->v[SL_EPOCH_RETIRED] = es.retired;
	out->v[SL_EPOCH_FREED] = es.freed;
	out->v[SL_EPOCH_FREED_AT_STOP] = r->epoch_drained;
	out->v[SL_EPOCH_BACKLOG_HWM] = es.backlog_hwm;
	struct sl_hist *h = malloc(3 * sizeof(*h));
	if (h != NULL) {
		for (unsigned k = 0; k < 3; k++) {
			sl_hist_init(&h[k]);
			for (unsigned w = 0; w < r->cfg->n_workers; w++)
				sl_hist_merge(&h[k], sl_epoch_hist(r->epoch, w, (enum sl_epoch_hist)k));
		}
	}
	const struct sl_hist *ns = h ? &h[SL_EPOCH_HIST_FREE_NS] : NULL;
	if (ns == NULL || sl_hist_count(ns) == 0) {
		for (unsigned i = SL_EPOCH_FREE_NS_P50; i < SL_EPOCH_N_COUNTERS; i++)
			out->absent |= UINT64_C(1) << i;
		free(h);
		return true;
	}
	const struct sl_hist *br = &h[SL_EPOCH_HIST_FREE_BREATHS], *gp = &h[SL_EPOCH_HIST_GRACE_NS];
	out->v[SL_EPOCH_FREE_NS_P50] = sl_hist_percentile(ns, 0.5);
	out->v[SL_EPOCH_FREE_NS_P99] = sl_hist_percentile(ns, 0.99);
	out->v[SL_EPOCH_FREE_NS_MAX] = sl_hist_max(ns);
	out->v[SL_EPOCH_FREE_BREATHS_P50] = sl_hist_percentile(br, 0.5);
	out->v[SL_EPOCH_FREE_BREATHS_P99] = sl_hist_percentile(br, 0.99);
	out->v[SL_EPOCH_FREE_BREATHS_MAX] = sl_hist_max(br);
	out->v[SL_EPOCH_GRACE_NS_P50] = sl_hist_percentile(gp, 0.5);
	out->v[SL_EPOCH_GRACE_NS_P99] = sl_hist_percentile(gp, 0.99);
	free(h);
	return true;
}

/* ---------------------------------------------------------------- lines */

static void vline(FILE *f, const char *prefix, const char *fmt, va_list ap)
{
	fputs(prefix, f);
	vfprintf(f, fmt, ap);
	fputc('\n', f);
	fflush(f);
}

void sl_report_note(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vline(stdout, "sluice: ", fmt, ap);
	va_end(ap);
}

void sl_report_warn(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vline(stdout, "sluice: warning: ", fmt, ap);
	va_end(ap);
}

void sl_report_warn_err(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vline(stderr, "sluice: warning: ", fmt, ap);
	va_end(ap);
}

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

void sl_report_take(const struct sl_config *cfg, const struct sl_app *apps,
		    const struct sl_link *links, struct sl_report_snapshot *s, double t)
{
	s->t = t;
	for (unsigned i = 0; i < cfg->n_apps; i++) {
		const struct sl_app *a = &apps[i];
		s->in[i] = sl_counter_read(&a->stats.in_packets);
		s->out[i] = sl_counter_read(&a->stats.out_packets);
		s->drops[i] = sl_counter_read(&a->stats.drops);
	}
	s->link_drops = 0;
	for (unsigned i = 0; i < cfg->n_links; i++)
		s->link_drops += sl_counter_read(&links[i].tx.drops);
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
void sl_report_stats_line(const struct sl_config *cfg, const struct sl_app *apps,
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
		fits = sl_appendf(line, room, &len, " %s", apps[i].name);
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
		const struct sl_app *a = &r->apps[i];
		sl_app_counters_read(a, v);
		printf("  %-16s %-13s %-10s", a->name, a->type->name, cfg->workers[a->worker].name);
		print_row(v, 0, width, SL_APP_COMMON_COUNTERS);
	}
}

static void text_links(const struct sl_report *r)
{
	static const int width[SL_LINK_N_COUNTERS] = { 14, 16, 12, 13, 14, 14 };
	struct values lv;
	printf("links (interlinks only: occupancy high-water in slots, sampled sojourn):\n"
	       "  %-40s %-9s", "link", "kind");
	print_head(sl_link_counters, width, SL_LINK_N_COUNTERS);
	for (unsigned i = 0; i < r->cfg->n_links; i++) {
		const struct sl_link *l = &r->links[i];
		link_values(l, &lv);
		printf("  %-40s %-9s", l->name, l->il ? "interlink" : "local");
		print_row(lv.v, lv.absent, width, SL_LINK_N_COUNTERS);
	}
}

static void text_workers(const struct sl_report *r)
{
	static const int width[SL_WORKER_N_COUNTERS] = { 5, 6, 14 };
	struct values wv;
	printf("workers:\n  %-16s", "worker");
	print_head(sl_worker_counters, width, SL_WORKER_N_COUNTERS);
	for (unsigned w = 0; w < r->cfg->n_workers; w++) {
		worker_values(&r->workers[w], &wv);
		printf("  %-16s", r->workers[w].name);
		print_row(wv.v, wv.absent, width, SL_WORKER_N_COUNTERS);
	}
}

/* One line per app whose type declares counters: "NAME (TYPE): a 1, b 2". */
static void text_app_counters(const struct sl_report *r)
{
	uint64_t v[SL_APP_COMMON_COUNTERS + SL_APP_COUNTERS_MAX];
	bool head = false;
	for (unsigned i = 0; i < r->cfg->n_apps; i++) {
		const struct sl_app *a = &r->apps[i];
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
	struct values t, ev;
	if (pool_values(r, &t, &ev)) {
		printf("pool (chunk %u) tiers:", cfg->pool.chunk);
		print_pairs(sl_pool_tier_counters, SL_POOL_N_TIER_COUNTERS, t.v, t.absent);
		printf("; events:");
		print_pairs(sl_pool_event_counters, SL_POOL_N_EVENT_COUNTERS, ev.v, ev.absent);
		printf("\n");
	}
	if (!epoch_values(r, &ev))
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

void sl_report_app_warnings(const struct sl_app *apps, unsigned n)
{
	for (unsigned i = 0; apps != NULL && i < n; i++)
		if (apps[i].warning[0] != '\0')
			printf("sluice: warning: app '%s': %s\n", apps[i].name, apps[i].warning);
	fflush(stdout);
}

void sl_report_summary(const struct sl_report *r, bool quiet)
{
	sl_report_app_warnings(r->apps, r->cfg->n_apps);
	if (!quiet) {
		text_apps(r);
		text_links(r);
		text_workers(r);
	}
	text_app_counters(r);   /* also when quiet, as the apps' own lines were */
	if (!quiet) {
		text_pool_epoch(r);
		printf("drained at stop: %" PRIu64 " packets delivered, %" PRIu64
		       " freed from links\n", r->drained, r->freed_at_stop);
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
		      const struct values *v)
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

static int json_apps(const struct sl_report *r, json_t *root)
{
	json_t *apps = child(root, "apps");
	if (apps == NULL)
		return -ENOMEM;
	for (unsigned i = 0; i < r->cfg->n_apps; i++) {
		const struct sl_app *a = &r->apps[i];
		const struct sl_app_type *t = a->type;
		struct values v = { .absent = 0 };
		sl_app_counters_read(a, v.v);
		json_t *o = child(apps, a->name), *c;
		if (o == NULL ||
		    json_object_set_new(o, "type", json_string(t->name)) < 0 ||
		    json_object_set_new(o, "worker",
					json_string(r->cfg->workers[a->worker].name)) < 0 ||
		    (c = child(o, "counters")) == NULL ||
		    add_values(c, sl_app_common_counters, SL_APP_COMMON_COUNTERS, &v) < 0)
			return -ENOMEM;
		struct values own = { .absent = 0 };
		memcpy(own.v, v.v + SL_APP_COMMON_COUNTERS, t->n_counters * sizeof(uint64_t));
		if (add_values(c, t->counters, t->n_counters, &own) < 0)
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
		const struct sl_link *l = &r->links[i];
		struct values v;
		link_values(l, &v);
		snprintf(end[0], sizeof(end[0]), "%s.%s", l->from->name, l->from_port);
		snprintf(end[1], sizeof(end[1]), "%s.%s", l->to->name, l->to_port);
		json_t *o = child(links, l->name);
		if (o == NULL || json_object_set_new(o, "from", json_string(end[0])) < 0 ||
		    json_object_set_new(o, "to", json_string(end[1])) < 0 ||
		    json_object_set_new(o, "kind", json_string(l->il ? "interlink" : "local")) < 0 ||
		    add_values(o, sl_link_counters, SL_LINK_N_COUNTERS, &v) < 0)
			return -ENOMEM;
	}
	for (unsigned w = 0; w < r->cfg->n_workers; w++) {
		struct values v;
		worker_values(&r->workers[w], &v);
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
	struct values t, ev;
	if (pool == NULL)
		return -ENOMEM;
	bool ours = pool_values(r, &t, &ev);
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
	if (!epoch_values(r, &ev))
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
	    json_apps(r, root) < 0 || json_links_workers(r, root) < 0 ||
	    json_pool_epoch(r, root) < 0 || (drained = child(root, "drained_at_stop")) == NULL ||
	    json_object_set_new(drained, "delivered", json_integer((json_int_t)r->drained)) < 0 ||
	    json_object_set_new(drained, "freed", json_integer((json_int_t)r->freed_at_stop)) < 0)
		goto fail;
	if ((warnings = json_array()) == NULL ||
	    json_object_set_new(root, "warnings", warnings) < 0)
		goto fail;
	for (unsigned i = 0; i < r->cfg->n_apps; i++) {
		char w[SL_APP_WARNING_MAX + 96];
		if (r->apps[i].warning[0] == '\0')
			continue;
		snprintf(w, sizeof(w), "app '%s': %s", r->apps[i].name, r->apps[i].warning);
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
