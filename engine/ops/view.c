/* SPDX-License-Identifier: BSD-3-Clause */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "base/histogram.h"
#include "interlink/interlink.h"
#include "pool/pool.h"
#include "ops/view.h"

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
	[SL_LINK_LINES] = { "lines", SL_COUNTER,
			    "Cache lines the ring made cross between its two ends: refreshes "
			    "that found the other end's index moved, and the slot and stamp "
			    "lines written (interlink.h; over packets, a cost that does not "
			    "depend on how far apart the two CPUs are; interlinks only)." },
};

const struct sl_counter_spec sl_worker_counters[SL_WORKER_N_COUNTERS] = {
	[SL_WORKER_CPU] = { "cpu", SL_GAUGE, "The CPU the worker's thread is pinned to." },
	[SL_WORKER_LCORE] = { "lcore", SL_GAUGE, "The worker's DPDK lcore id." },
	[SL_WORKER_BREATHS] = { "breaths", SL_COUNTER,
				"Passes of the worker's loop (engine/runtime/worker.h)." },
	[SL_WORKER_BUSY_BREATHS] = { "busy_breaths", SL_COUNTER,
				     "Breaths that moved at least one packet (engine.accounting)." },
	[SL_WORKER_IDLE_BREATHS] = { "idle_breaths", SL_COUNTER,
				     "Breaths that moved none (engine.accounting)." },
	[SL_WORKER_BUSY_CYCLES] = { "busy_cycles", SL_COUNTER,
				    "TSC cycles of the busy breaths (engine.accounting; estimated from one breath in 16)." },
	[SL_WORKER_IDLE_CYCLES] = { "idle_cycles", SL_COUNTER,
				    "TSC cycles of the idle breaths (engine.accounting; estimated from one breath in 16)." },
	[SL_WORKER_NAPS] = { "naps", SL_COUNTER,
			     "Sleeps between idle breaths (engine.idle_sleep; absent when it is 0)." },
};

const struct sl_counter_spec sl_pool_tier_counters[SL_POOL_N_TIER_COUNTERS] = {
	[SL_POOL_TIER_WORKERS] = { "workers", SL_GAUGE,
				   "Mbufs on the per-worker freelists." },
	[SL_POOL_TIER_L3] = { "l3", SL_GAUGE, "Mbufs in the L3-domain queues." },
	[SL_POOL_TIER_GLOBAL] = { "global", SL_GAUGE, "Mbufs in the global queue." },
	[SL_POOL_TIER_SHARED] = { "shared", SL_GAUGE,
				  "Mbufs on the non-worker freelist." },
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
	[SL_EPOCH_BACKLOG] = { "backlog", SL_GAUGE,
			       "Objects retired and not yet freed, all workers." },
	[SL_EPOCH_BACKLOG_HWM] = { "backlog_hwm", SL_GAUGE,
				   "Sum over the workers of their most objects retired and not yet freed." },
	[SL_EPOCH_STALL_NS] = { "stall_ns", SL_GAUGE,
				"How long the slowest online worker has gone without a quiescent "
				"state, in ns (0 once the workers stopped)." },
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



void sl_view_link(const struct sl_link *l, struct sl_values *out)
{
	struct sl_link_stats s;
	sl_link_stats_read(l, &s);
	memset(out, 0, sizeof(*out));
	out->v[SL_LINK_PACKETS] = s.tx_packets;
	out->v[SL_LINK_BYTES] = s.rx_bytes;
	out->v[SL_LINK_DROPS] = s.drops;
	if (l->il == NULL) {
		out->absent = 1u << SL_LINK_OCCUPANCY_HWM | 1u << SL_LINK_SOJOURN_P50_NS |
			      1u << SL_LINK_SOJOURN_P99_NS | 1u << SL_LINK_LINES;
		return;
	}
	struct sl_il_stats is;
	sl_il_stats_read(l->il, &is);
	out->v[SL_LINK_OCCUPANCY_HWM] = is.occupancy_hwm;
	out->v[SL_LINK_SOJOURN_P50_NS] = sl_il_sojourn_quantile_ns(&is, 0.5);
	out->v[SL_LINK_SOJOURN_P99_NS] = sl_il_sojourn_quantile_ns(&is, 0.99);
	out->v[SL_LINK_LINES] = sl_il_stats_lines(&is);
}

void sl_view_app_runtime(const struct sl_app *a, const struct sl_worker *w, struct sl_values *out)
{
	memset(out, 0, sizeof(*out));
	if (!w->accounting) {
		out->absent = (UINT64_C(1) << SL_APP_RUNTIME_COUNTERS) - 1;
		return;
	}
	_Static_assert(offsetof(struct sl_app_runtime, pull_cycles) == 2 * sizeof(uint64_t) &&
		       offsetof(struct sl_app_runtime, push_cycles) == 5 * sizeof(uint64_t),
		       "cycles at indices 2 and 5 of the runtime table");
	sl_app_runtime_read(a, out->v);
	out->v[2] = sl_worker_cycles(w, out->v[2]);
	out->v[5] = sl_worker_cycles(w, out->v[5]);
}

void sl_view_worker(const struct sl_worker *w, struct sl_values *out)
{
	memset(out, 0, sizeof(*out));
	out->v[SL_WORKER_CPU] = (uint64_t)w->cpu;
	out->v[SL_WORKER_LCORE] = w->lcore;
	out->v[SL_WORKER_BREATHS] = sl_counter_read(&w->breaths);
	out->v[SL_WORKER_BUSY_BREATHS] = sl_counter_read(&w->busy_breaths);
	out->v[SL_WORKER_BUSY_CYCLES] = sl_worker_cycles(w, sl_counter_read(&w->busy_cycles));
	out->v[SL_WORKER_IDLE_CYCLES] = sl_worker_cycles(w, sl_counter_read(&w->idle_cycles));
	/* breaths is read first and only grows past busy_breaths */
	out->v[SL_WORKER_IDLE_BREATHS] = out->v[SL_WORKER_BREATHS] > out->v[SL_WORKER_BUSY_BREATHS]
		? out->v[SL_WORKER_BREATHS] - out->v[SL_WORKER_BUSY_BREATHS] : 0;
	out->v[SL_WORKER_NAPS] = sl_counter_read(&w->naps);
	if (!w->accounting)
		out->absent = 1u << SL_WORKER_BUSY_BREATHS | 1u << SL_WORKER_IDLE_BREATHS |
			      1u << SL_WORKER_BUSY_CYCLES | 1u << SL_WORKER_IDLE_CYCLES;
	if (w->idle_sleep_ns == 0)
		out->absent |= 1u << SL_WORKER_NAPS;
}

bool sl_view_pool(struct rte_mempool *pool, struct sl_values *tiers, struct sl_values *events)
{
	const struct sl_pool *sp = sl_pool_of(pool);
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

bool sl_view_epoch(struct sl_epoch *epoch, unsigned n_workers, uint64_t freed_at_stop,
		   struct sl_values *out)
{
	struct sl_epoch_stats es;
	if (epoch == NULL || sl_epoch_stats(epoch, -1, &es) < 0)
		return false;
	memset(out, 0, sizeof(*out));
	out->v[SL_EPOCH_RETIRED] = es.retired;
	out->v[SL_EPOCH_FREED] = es.freed;
	out->v[SL_EPOCH_FREED_AT_STOP] = freed_at_stop;
	out->v[SL_EPOCH_BACKLOG] = es.backlog;
	out->v[SL_EPOCH_BACKLOG_HWM] = es.backlog_hwm;
	uint64_t now = sl_epoch_now_ns(epoch);
	for (unsigned w = 0; w < n_workers; w++) {
		uint64_t last = sl_epoch_last_quiesce_ns(epoch, w);
		if (sl_epoch_is_online(epoch, w) && last != 0 && now > last &&
		    now - last > out->v[SL_EPOCH_STALL_NS])
			out->v[SL_EPOCH_STALL_NS] = now - last;
	}
	struct sl_hist *h = malloc(3 * sizeof(*h));
	if (h != NULL) {
		for (unsigned k = 0; k < 3; k++) {
			sl_hist_init(&h[k]);
			/* The workers' and the control thread's (the handle
			 * after them: what reloads retired). */
			for (unsigned w = 0; w <= n_workers; w++) {
				const struct sl_hist *x = sl_epoch_hist(epoch, w,
									(enum sl_epoch_hist)k);
				if (x != NULL)
					sl_hist_merge(&h[k], x);
			}
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

void sl_view_replicated(const struct sl_app *first, struct sl_values *out)
{
	const struct sl_app_type *t = first->type;
	unsigned n = SL_APP_COMMON_COUNTERS + t->n_counters;
	uint64_t v[SL_APP_COMMON_COUNTERS + SL_APP_COUNTERS_MAX];
	memset(out, 0, sizeof(*out));
	for (unsigned r = 0; r < first->n_replicas; r++) {
		sl_app_counters_read(sl_app_replica(first, r), v);
		for (unsigned i = 0; i < n; i++)
			out->v[i] += v[i];
	}
	for (unsigned i = 0; i < t->n_counters; i++)
		if (t->counters[i].kind == SL_GAUGE && SL_APP_COMMON_COUNTERS + i < 64)
			out->absent |= UINT64_C(1) << (SL_APP_COMMON_COUNTERS + i);
}
