/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The engine's report writer: everything a run says, in one place.  The
 * engine decides when; this file decides what and how:
 *
 *   lines      "sluice: ..." notes and "sluice: warning: ..." lines (stdout,
 *              flushed at once, so that a test or a person watching the log
 *              sees them as they happen);
 *   stats      the periodic one-line rates (--stats);
 *   summary    the text tables at stop (apps with their common counters, the
 *              apps' own counters, links, workers, pool, epoch, drain,
 *              elapsed), the apps' warnings, the pool's starvation verdict
 *              and the mbuf check "pool: N of M mbufs back in the pool";
 *   JSON       the same values as a JSON document (--summary-json FILE,
 *              docs/summary.md), written atomically.
 *
 * The names of every value come from the descriptor tables (struct
 * sl_counter_spec, engine/base/counter.h): an app type's own table, the
 * common and runtime app counters (app.h) and the tables of engine/core/
 * view.h for links, workers, the pool and the epoch, whose values view.h
 * also reads.  Those tables are the one source of the names in both
 * summaries, telemetry and `sluice apps`.
 *
 * Threads: the control thread only.  Nothing here blocks except on stdout
 * and on the summary file.
 */
#ifndef SL_REPORT_H
#define SL_REPORT_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_mempool.h>

#include "runtime/app.h"
#include "config/config.h"
#include "base/counter.h"
#include "epoch/epoch.h"
#include "base/err.h"
#include "runtime/link.h"
#include "ops/view.h"
#include "runtime/worker.h"

/* What a run reports at stop: a view of the engine's objects, read after
 * the workers stopped and the apps were finalised. */
struct sl_report {
	const struct sl_config *cfg;
	struct sl_app *const *apps;        /* cfg->n_apps, one each */
	struct sl_link *const *links;      /* cfg->n_links, one each */
	const struct sl_worker *workers;   /* cfg->n_workers */
	struct rte_mempool *pool;
	struct sl_epoch *epoch;            /* NULL: none */
	uint64_t epoch_drained;            /* freed by the epoch drain at stop */
	uint64_t drained;                  /* packets delivered by the drain */
	uint64_t freed_at_stop;            /* packets freed from the links */
	unsigned reloads;                  /* reloads applied while running */
	uint64_t freed_by_reload;          /* packets of links reloads removed, freed */
	uint64_t last_reload_ns;           /* Unix time of the last one applied; 0: none */
	const double *starved_s;           /* per worker, or NULL */
	double elapsed;                    /* seconds */
	int control_cpu;                   /* the control thread's CPU */
	unsigned mbufs_total, mbufs_back;
};

/* "sluice: running N apps on M workers (W on cpu C, ...); control thread on
 * cpu C". */
void sl_report_start(const struct sl_config *cfg, const struct sl_worker *workers,
		     int main_cpu);

/* Counters for the stats line, per app (cfg order) and all links' drops. */
struct sl_report_snapshot {
	double t;
	uint64_t *in, *out, *drops;   /* per app */
	uint64_t link_drops;
};

void sl_report_take(const struct sl_config *cfg, struct sl_app *const *apps,
		    struct sl_link *const *links, struct sl_report_snapshot *s, double t);

/* One line: every app with outside traffic, its rates between a and b,
 * then all drops. */
void sl_report_stats_line(const struct sl_config *cfg, struct sl_app *const *apps,
			  const struct sl_report_snapshot *a, const struct sl_report_snapshot *b);

/* "sluice: warning: app 'NAME': TEXT" for every app of apps[0..n) that
 * recorded a warning (sl_app_warn); the summary prints them too.  For a run
 * that ends before its summary (a failed start), so that nothing an app
 * noticed at stop is lost. */
void sl_report_app_warnings(struct sl_app *const *apps, unsigned n);

/* The end of a run: the apps' warnings, then (unless quiet) the summary
 * tables, the apps' own counters (also when quiet), the pool's starvation
 * verdict and the mbuf check line. */
void sl_report_summary(const struct sl_report *r, bool quiet);

/* Write the JSON summary (docs/summary.md) to path: to a temporary file in
 * the same directory, then renamed over path, so that a reader sees the
 * whole document or none.  Returns 0, or -errno with a sentence naming the
 * file (nothing is left at path or beside it). */
int sl_report_json(const struct sl_report *r, const char *path, struct sl_err *err);

#endif
