/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef SL_POOL_WORKER_H
#define SL_POOL_WORKER_H

/*
 * The fast path of sl_pool_get() and sl_pool_put() (contract in pool.h):
 * a worker's freelist is a LIFO array that only its own thread touches, so a
 * get or put that stays between 0 and the high mark is a copy and two plain
 * stores.  Everything else is out of line in pool.c.  The struct below is
 * here only so that the compiler can inline this; its fields are private
 * (read them with sl_pool_tier_stats()).  It compiles on its own
 * (tests/unit/test_pool_worker.c); pool.h includes it.
 */

#include <stdalign.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "base/counter.h"
#include "pool/pool_hist.h"

#define SL_POOL_CACHE_LINE 64

struct sl_pool;
struct sl_chunkq;

/* Counters of one tier, written by one thread at a time (base/counter.h:
 * single-writer adds, relaxed reads; the step-time histograms are compact
 * histograms of base/histogram.h, written the same way). */
struct sl_pool_live_stats {
	uint64_t get_fails;
	uint64_t rebalances, reclaims;
	uint64_t reclaims_l3, reclaims_remote, reclaims_shared;
	uint64_t rebalances_shared;
	uint64_t empty, full;
	struct sl_pool_hist rebalance_ns, reclaim_ns;
};

struct sl_pool_worker {
	/* First cache line: everything the fast path touches. */
	alignas(SL_POOL_CACHE_LINE) void **objs;  /* the freelist, capacity slots */
	_Atomic uint32_t depth;                    /* objs[0..depth-1] are free */
	uint32_t high;                             /* rebalance above this */
	uint64_t gets, puts;                       /* objects (base/counter.h) */
	struct sl_pool *pool;
	struct sl_chunkq *home;                    /* own L3 queue, or NULL */
	uint32_t chunk;
	uint32_t capacity;
	uint32_t index;                            /* worker number */
	uint32_t domain;                           /* dense L3 domain index */
	/* Slow path only. */
	alignas(SL_POOL_CACHE_LINE) struct sl_pool_live_stats st;
	/* The fill of a cache in front of this freelist (DPDK's per-lcore
	 * mempool cache of the worker's lcore, mbuf pools only), or NULL.
	 * Written by the worker's thread, read by accounting. */
	const uint32_t *front;
};

_Static_assert(sizeof(struct sl_pool_worker) % SL_POOL_CACHE_LINE == 0,
	       "worker handles must not share cache lines");
_Static_assert(offsetof(struct sl_pool_worker, st) == SL_POOL_CACHE_LINE,
	       "the fast-path fields of a worker fit in one cache line");

/* Internal: the out-of-line parts (pool.c). */
int sl_pool_worker_get_slow(struct sl_pool_worker *w, void **objs, unsigned n);
int sl_pool_worker_put_slow(struct sl_pool_worker *w, void *const *objs, unsigned n);
int sl_pool_worker_house_slow(struct sl_pool_worker *w);
int sl_pool_shared_get(struct sl_pool *pool, void **objs, unsigned n);
int sl_pool_shared_put(struct sl_pool *pool, void *const *objs, unsigned n);

static inline int sl_pool_get(struct sl_pool *pool, struct sl_pool_worker *w,
			      void **objs, unsigned n)
{
	if (w == NULL)
		return sl_pool_shared_get(pool, objs, n);
	uint32_t d = atomic_load_explicit(&w->depth, memory_order_relaxed);
	if (__builtin_expect(d < n, 0))
		return sl_pool_worker_get_slow(w, objs, n);
	d -= n;
	/* PMDs free (and some allocate) one mbuf at a time: a single object
	 * is a plain load, not a call to memcpy. */
	if (n == 1)
		objs[0] = w->objs[d];
	else
		memcpy(objs, w->objs + d, n * sizeof(void *));
	atomic_store_explicit(&w->depth, d, memory_order_relaxed);
	sl_counter_add(&w->gets, n);
	return 0;
}

static inline int sl_pool_put(struct sl_pool *pool, struct sl_pool_worker *w,
			      void *const *objs, unsigned n)
{
	if (w == NULL)
		return sl_pool_shared_put(pool, objs, n);
	uint32_t d = atomic_load_explicit(&w->depth, memory_order_relaxed);
	if (__builtin_expect(d + n > w->high, 0))
		return sl_pool_worker_put_slow(w, objs, n);
	if (n == 1)
		w->objs[d] = objs[0];
	else
		memcpy(w->objs + d, objs, n * sizeof(void *));
	atomic_store_explicit(&w->depth, d + n, memory_order_relaxed);
	sl_counter_add(&w->puts, n);
	return 0;
}

static inline int sl_pool_house(struct sl_pool_worker *w)
{
	if (__builtin_expect(atomic_load_explicit(&w->depth, memory_order_relaxed) <= w->high, 1))
		return 0;
	return sl_pool_worker_house_slow(w);
}

#endif /* SL_POOL_WORKER_H */
