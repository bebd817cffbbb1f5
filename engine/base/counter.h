/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Counters, and the tables that declare them.
 *
 * Single-writer counters.  Exactly one thread adds to a counter; any thread
 * may read it.  The add is a plain load and a relaxed store (no locked
 * instruction); the read is a relaxed load, so readers never see a torn
 * value.  Every counter of the engine, the pool and the interlinks is
 * written with these (the interlinks' also from several processes: a
 * counter in shared memory has one writing process).  Counters are plain
 * uint64_t, not _Atomic: a private copy (a snapshot, a sum of snapshots)
 * is added to with ordinary arithmetic.
 *
 * Declarations.  Every value the engine reports (an app's, a link's, a
 * worker's, the pool's, the epoch's) is declared once in a const table of
 * struct sl_counter_spec: its name, whether it only grows, and one sentence
 * of help.  These tables are the one source of the names in the text and
 * JSON summaries (engine/ops/report.h), `sluice apps` and docs/apps.md.
 * Names are snake_case and stable: a renamed counter is a new counter.
 */
#ifndef SL_COUNTER_H
#define SL_COUNTER_H

#include <stdint.h>

enum sl_counter_kind {
	SL_COUNTER,    /* a total: only grows while the engine runs */
	SL_GAUGE,      /* a level or a result: may go up and down */
	/* The kind says what a value means, not when it is known: an app's
	 * value kept outside its worker (app.h, collect and sample) is stored
	 * when telemetry asks for it (sample) and once the workers have
	 * stopped (collect), and reads 0 before. */
};

struct sl_counter_spec {
	const char *name;            /* snake_case, unique in its table */
	enum sl_counter_kind kind;
	const char *help;            /* one sentence */
};

static inline const char *sl_counter_kind_name(enum sl_counter_kind k)
{
	return k == SL_GAUGE ? "gauge" : "counter";
}

/* Add n (its single writer). */
static inline void sl_counter_add(uint64_t *c, uint64_t n)
{
	__atomic_store_n(c, __atomic_load_n(c, __ATOMIC_RELAXED) + n, __ATOMIC_RELAXED);
}

/* Store a gauge (its single writer). */
static inline void sl_counter_set(uint64_t *c, uint64_t v)
{
	__atomic_store_n(c, v, __ATOMIC_RELAXED);
}

/* Raise a high-water mark to v if v is larger (its single writer). */
static inline void sl_counter_max(uint64_t *c, uint64_t v)
{
	if (v > __atomic_load_n(c, __ATOMIC_RELAXED))
		__atomic_store_n(c, v, __ATOMIC_RELAXED);
}

/* Any thread. */
static inline uint64_t sl_counter_read(const uint64_t *c)
{
	return __atomic_load_n(c, __ATOMIC_RELAXED);
}

#endif
