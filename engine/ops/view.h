/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Views of the engine's objects: the tables that declare the values of
 * links, workers, the pool and the epoch (name, kind, help), and functions
 * that read those values into table order.  The text and JSON summaries
 * (report.h) and telemetry (telemetry.h) read values only through here, so
 * each name has one declaration and one way of being read.
 *
 * Threads: any.  Every read is a relaxed load of single-writer counters (or
 * a histogram read as histogram.h allows), so a view taken while workers run
 * is a recent, never torn, value of each counter; values of one view may be
 * a few packets apart.  Nothing here takes a lock or blocks.
 */
#ifndef SL_VIEW_H
#define SL_VIEW_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_mempool.h>

#include "runtime/app.h"
#include "base/counter.h"
#include "epoch/epoch.h"
#include "runtime/link.h"
#include "runtime/worker.h"

/* A link's values, in the order of sl_link_counters. */
enum sl_link_ctr {
	SL_LINK_PACKETS,
	SL_LINK_BYTES,
	SL_LINK_DROPS,
	SL_LINK_OCCUPANCY_HWM,     /* interlinks only */
	SL_LINK_SOJOURN_P50_NS,    /* interlinks only */
	SL_LINK_SOJOURN_P99_NS,    /* interlinks only */
	SL_LINK_LINES,             /* interlinks only */
	SL_LINK_N_COUNTERS
};
extern const struct sl_counter_spec sl_link_counters[SL_LINK_N_COUNTERS];

/* A worker's values; the last four are kept with engine.accounting only. */
enum sl_worker_ctr {
	SL_WORKER_CPU, SL_WORKER_LCORE, SL_WORKER_BREATHS,
	SL_WORKER_BUSY_BREATHS, SL_WORKER_IDLE_BREATHS, SL_WORKER_BUSY_CYCLES, SL_WORKER_IDLE_CYCLES,
	SL_WORKER_NAPS,
	SL_WORKER_N_COUNTERS
};
extern const struct sl_counter_spec sl_worker_counters[SL_WORKER_N_COUNTERS];

/* The pool's (ops: sluice) objects by tier. */
enum sl_pool_tier_ctr {
	SL_POOL_TIER_WORKERS, SL_POOL_TIER_L3, SL_POOL_TIER_GLOBAL, SL_POOL_TIER_SHARED,
	SL_POOL_N_TIER_COUNTERS
};
extern const struct sl_counter_spec sl_pool_tier_counters[SL_POOL_N_TIER_COUNTERS];

/* The pool's (ops: sluice) events, summed over its freelists. */
enum sl_pool_event_ctr {
	SL_POOL_REBALANCES, SL_POOL_RECLAIMS, SL_POOL_EMPTY, SL_POOL_FULL,
	SL_POOL_REBALANCE_P999_NS, SL_POOL_RECLAIM_P999_NS,
	SL_POOL_N_EVENT_COUNTERS
};
extern const struct sl_counter_spec sl_pool_event_counters[SL_POOL_N_EVENT_COUNTERS];

/* The epoch's values, over all workers. */
enum sl_epoch_ctr {
	SL_EPOCH_RETIRED, SL_EPOCH_FREED, SL_EPOCH_FREED_AT_STOP, SL_EPOCH_BACKLOG,
	SL_EPOCH_BACKLOG_HWM, SL_EPOCH_STALL_NS,
	SL_EPOCH_FREE_NS_P50, SL_EPOCH_FREE_NS_P99, SL_EPOCH_FREE_NS_MAX,
	SL_EPOCH_FREE_BREATHS_P50, SL_EPOCH_FREE_BREATHS_P99, SL_EPOCH_FREE_BREATHS_MAX,
	SL_EPOCH_GRACE_NS_P50, SL_EPOCH_GRACE_NS_P99,
	SL_EPOCH_N_COUNTERS
};
extern const struct sl_counter_spec sl_epoch_counters[SL_EPOCH_N_COUNTERS];

/* Values of one object in its table's order; `absent` has bit i set where
 * value i does not exist for this object (an interlink-only value of a
 * local link, a latency with no samples): JSON null, left out of text. */
struct sl_values {
	uint64_t v[SL_APP_COMMON_COUNTERS + SL_APP_COUNTERS_MAX];
	uint64_t absent;
};

void sl_view_link(const struct sl_link *l, struct sl_values *out);

/* A replicated app's totals (config.h, worker groups): every counter of
 * sl_app_counters_read's order summed over the replicas of first, which must
 * be replica 0 of its app (first->replica == 0, first->n_replicas > 0; its
 * replicas follow it in the array).  Gauges are absent (among the first 64
 * values, which `absent` can mark): a sum of levels (a queue number, a link
 * state) means nothing. */
void sl_view_replicated(const struct sl_app *first, struct sl_values *out);

/* An app's runtime counters (sl_app_runtime_counters), the cycles scaled
 * to its worker w's time (sl_worker_cycles); all absent when w does not
 * account (engine.accounting off). */
void sl_view_app_runtime(const struct sl_app *a, const struct sl_worker *w, struct sl_values *out);

void sl_view_worker(const struct sl_worker *w, struct sl_values *out);

/* The pool's tiers and events; false (outputs untouched) for a pool that is
 * not Sluice's (ops: dpdk). */
bool sl_view_pool(struct rte_mempool *pool, struct sl_values *tiers, struct sl_values *events);

/* The epoch's values over its n_workers workers (freed_at_stop: what the
 * drain at stop freed, 0 while running; stall_ns: measured now, 0 when no
 * worker is online); the latencies are absent while nothing was freed.
 * False (out untouched) without an epoch.  May allocate; on failure to do so
 * the latencies are absent. */
bool sl_view_epoch(struct sl_epoch *epoch, unsigned n_workers, uint64_t freed_at_stop,
		   struct sl_values *out);

#endif
