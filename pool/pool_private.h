/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef SL_POOL_PRIVATE_H
#define SL_POOL_PRIVATE_H

/*
 * Internals of the pool, shared by pool.c, chunkq.c, mempool.c and the unit
 * tests.  Not a public interface.
 */

#include <stdalign.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pool/pool.h"

/* ------------------------------------------------------------ chunk queue */

/*
 * A bounded MPMC queue whose elements are chunks of `chunk` object pointers,
 * the classic array queue with a sequence number per slot: each slot carries
 * a 64-bit sequence number; a producer may fill slot (pos & mask) when it is
 * pos, and publishes it as pos + 1; a consumer may empty it when it is pos + 1
 * and frees it for the next lap as pos + mask + 1.  Claiming a position is one
 * compare-and-swap on the head (producers) or tail (consumers) counter; the
 * chunk's pointers are copied after the claim and before the publishing store
 * (release), and read after the acquiring load.  64-bit positions wrap after
 * 2^64 operations; comparisons use the signed difference, so wrapping is
 * harmless (a unit test starts the positions just below 2^64).
 *
 * Layout: slot i is `stride` bytes at slots + i * stride: one cache line that
 * holds only the sequence number, then the pointers, padded to whole cache
 * lines, so that neither a producer's claim nor a consumer's release touches a
 * neighbour's line.
 */
struct sl_chunkq_slot {
	alignas(SL_POOL_CACHE_LINE) _Atomic uint64_t seq;
	char pad[SL_POOL_CACHE_LINE - sizeof(uint64_t)];
	/* followed by the chunk's pointers */
};

_Static_assert(sizeof(struct sl_chunkq_slot) == SL_POOL_CACHE_LINE,
	       "a slot's sequence number has its own cache line");
_Static_assert(offsetof(struct sl_chunkq_slot, seq) == 0, "sequence first");

struct sl_chunkq {
	alignas(SL_POOL_CACHE_LINE) _Atomic uint64_t head;   /* next position to fill */
	alignas(SL_POOL_CACHE_LINE) _Atomic uint64_t tail;   /* next position to empty */
	alignas(SL_POOL_CACHE_LINE) char *slots;             /* read-only after init */
	uint64_t mask;                                        /* n_slots - 1 */
	size_t stride;                                        /* bytes per slot */
	uint32_t chunk;                                       /* pointers per slot */
};

_Static_assert(offsetof(struct sl_chunkq, tail) == SL_POOL_CACHE_LINE,
	       "producers' and consumers' counters on separate cache lines");
_Static_assert(offsetof(struct sl_chunkq, slots) == 2 * SL_POOL_CACHE_LINE,
	       "read-only fields apart from both counters");

/*
 * Set up q with n_slots slots (a power of two >= 2) of `chunk` pointers,
 * positions starting at first_pos (0 except in tests).  Returns 0, -EINVAL or
 * -ENOMEM.  Single thread.
 */
int sl_chunkq_init(struct sl_chunkq *q, unsigned n_slots, unsigned chunk,
		   uint64_t first_pos);
void sl_chunkq_fini(struct sl_chunkq *q);

/* Copy q->chunk pointers from objs into a free slot.  Returns 0, or -ENOSPC
 * when the slot for the next position has not been emptied yet (full).  Any
 * thread; lock-free between claim attempts. */
int sl_chunkq_push(struct sl_chunkq *q, void *const *objs);

/* Copy the oldest chunk into objs (room for q->chunk pointers).  Returns 0, or
 * -ENOENT when the next slot has not been filled yet (empty).  Any thread. */
int sl_chunkq_pop(struct sl_chunkq *q, void **objs);

/* Start loading the slot the next pop will read (its sequence line and its
 * pointers) into this CPU's cache.  A hint only: never blocks, never fails. */
void sl_chunkq_prefetch_pop(const struct sl_chunkq *q);

/* Chunks claimed by producers and not yet claimed by consumers.  A recent
 * value, never more than the capacity.  Any thread. */
uint64_t sl_chunkq_count(const struct sl_chunkq *q);

static inline uint64_t sl_chunkq_slots(const struct sl_chunkq *q)
{
	return q->mask + 1;
}

/* ------------------------------------------------------------ the pool */

/* The freelist of threads that are not workers, behind a spinlock.  Workers
 * only ever try the lock (when they find nothing anywhere else). */
struct sl_pool_shared {
	alignas(SL_POOL_CACHE_LINE) atomic_bool locked;
	_Atomic uint32_t depth;
	void **objs;                       /* capacity slots */
	uint64_t gets, puts;               /* base/counter.h */
	struct sl_pool_live_stats st;
};

struct sl_pool {
	char name[SL_POOL_NAME_MAX + 1];
	uint32_t capacity;
	uint32_t chunk;
	uint32_t high;
	uint32_t n_workers;
	uint32_t n_domains;                /* L3 queues; 0 when the tier is off */
	double ns_per_tick;
	struct sl_pool_worker *workers;    /* n_workers handles */
	struct sl_chunkq *domains;         /* n_domains queues, or NULL */
	struct sl_chunkq global;
	struct sl_pool_shared shared;
};

/*
 * Check sl_pool_create()'s arguments (opts may be NULL).  Returns 0, or
 * -EINVAL with the sentence sl_pool_create() would write in *err (err may be
 * NULL).  Any thread.
 */
int sl_pool_check(const char *name, unsigned capacity, const struct sl_pool_opts *opts,
		  struct sl_err *err);

/* Test hook: sl_pool_create() with the global queue's positions starting at
 * first_pos, to exercise wrap-around. */
struct sl_pool *sl_pool_create_at(const char *name, unsigned capacity,
				  const struct sl_pool_opts *opts, uint64_t first_pos,
				  struct sl_err *err);

/*
 * Test hook: copy every object the pool holds into out (room for capacity
 * pointers), tier by tier.  Returns the number copied.  Only while no other
 * thread uses the pool; the pool is unchanged.
 */
unsigned sl_pool_snapshot(const struct sl_pool *pool, void **out);

/*
 * Put a cache in front of worker w (mempool.c: DPDK's per-lcore cache of the
 * worker's lcore): `len` is its fill, counted in the worker tier from now on.
 * The freelist behind it then keeps what is left of a refill or flush once
 * whole chunks have moved, up to `high` (at least chunk - 1: the cache's
 * threshold and this mark together make the worker tier's high mark).
 * Before any thread uses the pool.
 */
void sl_pool_worker_set_front(struct sl_pool_worker *w, const uint32_t *len, unsigned high);

/* Step timing: TSC ticks to ns for this pool. */
uint64_t sl_pool_ticks(void);

#endif /* SL_POOL_PRIVATE_H */
