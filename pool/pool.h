/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef SL_POOL_H
#define SL_POOL_H

/*
 * Sluice's packet buffer pool.
 *
 * What it is for
 *   Handing packet buffers (any pointers; mbufs in Sluice) between worker
 *   threads cheaply, including one-way pipelines where one worker only
 *   allocates and another only frees, so every buffer has to travel back.
 *
 * How it is built (three tiers, one optional)
 *   - one freelist per worker: a LIFO array owned by that worker; get and put
 *     are plain loads and stores (pool_worker.h, inline).  In an mbuf pool
 *     (sl_pool_mbuf_create) DPDK's per-lcore cache of the worker's lcore
 *     stands in front of it, so that single-object gets and puts stay in
 *     DPDK's inline code; the freelist then only keeps what a refill or
 *     flush of that cache leaves over once whole chunks have moved;
 *   - optionally one queue per L3 domain (opts.l3_tier): chunks freed by the
 *     workers of a domain are reused inside that domain first;
 *   - the global tier: a bounded MPMC queue (one compare-and-swap per chunk)
 *     whose elements are chunks of opts.chunk object pointers, plus a small
 *     freelist behind a lock for threads that are not workers.
 *   A worker's put that takes its freelist above the high mark moves one
 *   chunk out (a "rebalance" step); a get that finds too few objects moves one
 *   chunk in (a "reclaim" step).
 *
 * Guarantees
 *   - Bounded work: a call moves at most one chunk when it asks for at most
 *     opts.chunk objects (every burst in Sluice does); a larger request moves
 *     at most ceil(n / chunk) chunks (so a front cache's refill of chunk +
 *     burst objects or flush of up to the high mark moves at most two with
 *     the defaults; chunks go straight between the cache's array and the
 *     queues).  No worker call waits for another
 *     thread: a queue that is momentarily full or empty fails the attempt
 *     instead, and workers only ever try the non-worker lock.  A non-worker
 *     call may spin briefly on that lock.
 *   - Nothing is lost: a chunk that finds every queue full goes to the
 *     non-worker freelist, or if that is busy stays where it was (a "full"
 *     event; sl_pool_house() or the next put tries again); an empty pool
 *     fails the get (an "empty" event) and hands out nothing.  get is all or
 *     nothing.
 *   - Accounting: when no call is in progress, the objects counted in all
 *     tiers (sl_pool_count) equal the objects put in minus those held by
 *     callers.
 *
 * Limits
 *   - A worker handle is used by exactly one thread at a time.  Non-worker
 *     calls (worker == NULL) are safe from any number of threads but are
 *     serialised among themselves: they are for control paths, not data paths.
 *   - A get can fail while objects sit in other workers' freelists (up to the
 *     high mark each, more after a full event; in an mbuf pool up to the high
 *     mark, at most 2 x RTE_MEMPOOL_CACHE_MAX_SIZE, in the front cache and
 *     the rest of the mark, at least chunk - 1, behind it) or in another
 *     thread's step in progress: size the pool for that, as for DPDK's
 *     per-lcore caches.
 *   - A thread descheduled in the middle of a step (between claiming a queue
 *     slot and publishing it) holds up that one slot: until it runs again,
 *     others may see the queue as full or empty at that position (counted,
 *     nothing lost).  Keep threads that use the pool during traffic on their
 *     own CPUs, and call sl_pool_house() once per breath.
 *   - Objects are pointers the pool never dereferences; putting an object the
 *     caller does not own, or more objects than the capacity, is a caller bug
 *     (the capacity overflow is detected: -ENOSPC).
 *   - Memory: each freelist reserves room for every object (virtual memory;
 *     pages become resident, on the owner's NUMA node, as the freelist grows);
 *     the queues are allocated by the creating thread (its NUMA node).  All of
 *     it is process-private: a DPDK secondary process cannot use the pool.
 *
 * Errors (the project's convention, err.h): actions return 0 or a negative
 * errno; constructors return a pointer, or NULL with errno set and a sentence
 * naming the pool in *err (err may be NULL); predicates return bool.
 */

#include <stdbool.h>
#include <stdint.h>

#include "base/err.h"
#include "pool/pool_hist.h"

#ifdef __cplusplus
extern "C" {
#endif

struct sl_pool;
struct sl_pool_worker;
struct rte_mempool;

#define SL_POOL_CHUNK_MIN 64u
#define SL_POOL_CHUNK_MAX 2048u
#define SL_POOL_CHUNK_DEFAULT 512u
#define SL_POOL_L3_CHUNKS_DEFAULT 4u
#define SL_POOL_WORKERS_MAX 1024u
#define SL_POOL_CAPACITY_MAX (1u << 30)
#define SL_POOL_NAME_MAX 31u        /* characters, without the NUL */

/* One worker of the pool. */
struct sl_pool_worker_cfg {
	unsigned lcore;   /* EAL lcore id that runs it (mbuf pools only; else ignored) */
	unsigned l3;      /* its L3 domain: any number; equal numbers share a domain */
};

/* Options; a zeroed struct (or NULL) gives the defaults. */
struct sl_pool_opts {
	unsigned chunk;          /* objects per chunk, 64..2048; 0: 512 */
	unsigned high;           /* freelist high mark, >= chunk; 0: chunk * 3 / 2 */
	bool l3_tier;            /* add the per-L3-domain tier */
	unsigned l3_chunks;      /* chunks per L3 queue, a power of two >= 2; 0: 4 */
	unsigned global_chunks;  /* global queue slots, a power of two >= 2; 0: twice
				    the chunks the pool can make (recommended: the
				    queue then only looks full while a thread is
				    stalled in the middle of a step) */
	unsigned n_workers;      /* 0..SL_POOL_WORKERS_MAX */
	const struct sl_pool_worker_cfg *workers; /* n_workers entries; may be NULL
						     (then all in one domain) */
	uint64_t tsc_hz;         /* TSC frequency for step times; 0: measured once */
	bool shuffle;            /* sl_pool_mbuf_create only: hand the mbufs out in
				    a random order (below); false: in address
				    order, as DPDK does */
};

/* ------------------------------------------------------------ lifecycle */

/*
 * Create an empty pool for up to `capacity` objects (1..SL_POOL_CAPACITY_MAX),
 * with opts->n_workers worker freelists (handles: sl_pool_worker()).  `name`
 * (1..SL_POOL_NAME_MAX characters) names the pool in messages.  Fill it with
 * sl_pool_put(pool, NULL, ...).
 * Returns the pool, or NULL with errno set to EINVAL (bad name, capacity or
 * option) or ENOMEM, and a sentence naming the pool in *err (err may be
 * NULL): "pool 'rx': chunk must be 64..2048, got 32".  Control thread; may
 * allocate (and the first call may spend about 10 ms measuring the TSC when
 * opts->tsc_hz is 0); does not block otherwise.
 */
struct sl_pool *sl_pool_create(const char *name, unsigned capacity,
			       const struct sl_pool_opts *opts, struct sl_err *err);

/*
 * Free the pool (not the objects).  No thread may use it any more.  NULL is
 * accepted.  Control thread.
 */
void sl_pool_free(struct sl_pool *pool);

/*
 * Worker w's handle (0 <= w < n_workers), or NULL if w is out of range.
 * The handle is owned by the pool; it stays valid until sl_pool_free().
 */
struct sl_pool_worker *sl_pool_worker(struct sl_pool *pool, unsigned w);

/* Capacity, chunk size, the worker freelists' high mark (a put above it
 * rebalances) and worker count as created.  Any thread. */
unsigned sl_pool_capacity(const struct sl_pool *pool);
unsigned sl_pool_chunk(const struct sl_pool *pool);
unsigned sl_pool_high(const struct sl_pool *pool);
unsigned sl_pool_n_workers(const struct sl_pool *pool);

/* Cache lines one chunk makes cross between the CPU that hands it to a
 * shared tier and the CPU that takes it (the model of docs/interlink.md,
 * "Lines per packet"): the slot's sequence line, the chunk's 32-bit deltas
 * (16 a line; a chunk whose objects lie more than 16 GiB apart, or are not
 * 8-byte aligned, goes as pointers, 8 a line: sl_pool_stats' `unpacked`) and the
 * sequence line back to the next producer.  Any thread. */
unsigned sl_pool_handoff_lines(const struct sl_pool *pool);

/* ------------------------------------------------------------ get / put */

/*
 * Take n objects (all or nothing) into objs.  worker is the calling worker's
 * handle, or NULL for a thread that is not a worker (global tier).
 * Returns 0 (objs[0..n-1] now belong to the caller) or -ENOBUFS (nothing
 * taken; counted as an "empty" event).  Thread: the worker's own thread, or
 * any thread with NULL.  Never blocks (NULL: may spin on the non-worker lock).
 * Inline fast path in pool_worker.h.
 */
static inline int sl_pool_get(struct sl_pool *pool, struct sl_pool_worker *worker,
			      void **objs, unsigned n);

/*
 * Give n objects back.  Returns 0 (the pool owns them), or -ENOSPC when the
 * pool would hold more than its capacity (a caller bug; nothing taken).
 * Never drops: a full queue leaves the objects in the caller's tier.
 * Same threads and blocking as sl_pool_get().
 */
static inline int sl_pool_put(struct sl_pool *pool, struct sl_pool_worker *worker,
			      void *const *objs, unsigned n);

/*
 * Housekeeping for a worker, once per breath: if an earlier put left its
 * freelist above the high mark (every queue looked full and the non-worker
 * lock was taken), try one rebalance step now.  A worker that only frees
 * would otherwise keep those objects until its next put.  Returns 0 (at or
 * below the mark now), or -ENOSPC (still above it; counted as a full event).
 * Thread: the worker's own.  Never blocks; one load and a compare when there
 * is nothing to do.
 */
static inline int sl_pool_house(struct sl_pool_worker *worker);

/* ------------------------------------------------------------ accounting */

/* Objects in each tier.  Exact when no call is in progress; otherwise each
 * field is a recent value and an object in a step may be missed. */
struct sl_pool_counts {
	uint64_t workers;   /* in worker freelists, with the caches in front of them */
	uint64_t cached;    /*   of which in those caches (mbuf pools: DPDK's
				 per-lcore caches of the workers' lcores) */
	uint64_t l3;        /* in L3-domain queues */
	uint64_t global;    /* in the global queue */
	uint64_t shared;    /* in the non-worker freelist */
	uint64_t total;     /* the sum: objects available */
};

/* Fill *c.  Any thread; never blocks. */
void sl_pool_count(const struct sl_pool *pool, struct sl_pool_counts *c);

/* c.total of sl_pool_count(): what rte_mempool_avail_count() reports (the
 * ops' get_count is c.total - c.cached; DPDK adds its caches itself). */
unsigned sl_pool_avail(const struct sl_pool *pool);

/* ------------------------------------------------------------ telemetry */

/* The step-time histogram, struct sl_pool_hist: pool/pool_hist.h. */
/* sl_hist_lower_sub() and sl_hist_shape_index() of SL_POOL_HIST_SHAPE. */
uint64_t sl_pool_hist_lower(unsigned bucket);
/* The bucket a value falls in (values past the last bucket go there). */
unsigned sl_pool_hist_bucket(uint64_t ns);
/* Upper bound (ns) of the bucket holding quantile q (0..1; the rank of
 * sl_hist_rank()), at most the largest step; 0 when empty. */
uint64_t sl_pool_hist_quantile(const struct sl_pool_hist *h, double q);
/* a += b (sl_hist_sums_merge()) */
void sl_pool_hist_add(struct sl_pool_hist *a, const struct sl_pool_hist *b);

/* Counters of one tier: a worker, or the non-worker callers. */
struct sl_pool_tier_stats {
	uint64_t gets, puts;        /* objects handed out / taken back (behind a
				       front cache: those of its refills and
				       flushes, not those the cache served) */
	uint64_t get_fails;         /* get calls that failed (-ENOBUFS; DPDK
				       retries a failed refill with the part
				       the caller asked for: two per
				       rte_mempool_get that finds nothing) */
	uint64_t rebalances;        /* chunks moved out (rebalance steps that moved) */
	uint64_t reclaims;          /* chunks moved in (reclaim steps that moved) */
	uint64_t reclaims_l3;       /*   of which from the own L3 domain's queue */
	uint64_t reclaims_remote;   /*   of which from another domain's queue */
	uint64_t reclaims_shared;   /*   of which from the non-worker freelist */
	uint64_t rebalances_shared; /* chunks moved out to the non-worker freelist
				       because every queue looked full */
	uint64_t empty;             /* reclaim steps that found nothing anywhere */
	uint64_t full;              /* rebalance steps that found nowhere to go */
	uint64_t depth;             /* objects in this tier's freelist now (a
				       worker's: with the cache in front of it) */
	struct sl_pool_hist rebalance_ns, reclaim_ns;   /* time of each step */
};

/*
 * Worker w's counters, or with w == SL_POOL_NONWORKER those of the threads
 * that are not workers.  Returns 0, or -EINVAL if w is out of range.
 * Any thread; never blocks; values are recent, not a consistent snapshot.
 */
#define SL_POOL_NONWORKER (~0u)
int sl_pool_tier_stats(const struct sl_pool *pool, unsigned w,
		       struct sl_pool_tier_stats *out);

struct sl_pool_stats {
	struct sl_pool_tier_stats sum;   /* all workers plus the non-workers */
	struct sl_pool_counts counts;
	uint64_t global_chunks;          /* global queue fill, in chunks */
	uint64_t global_slots;           /* its capacity, in chunks */
	uint64_t l3_domains;             /* 0 when the L3 tier is off */
	uint64_t l3_chunks;              /* chunks in all L3 queues */
	uint64_t l3_slots;               /* capacity of each L3 queue */
	uint64_t unpacked;               /* chunks the global and L3 queues took as
					  * pointers, not packed (objects more than
					  * 16 GiB apart, or not 8-byte aligned):
					  * sl_pool_handoff_lines() does not count them */
};

/* The whole pool's counters.  Any thread; never blocks. */
void sl_pool_stats(const struct sl_pool *pool, struct sl_pool_stats *out);

/* ------------------------------------------------------------ DPDK mbufs */

/*
 * The mempool ops driver, under SL_POOL_OPS_NAME.  Registered by
 * sl_pool_ops_register(), which sl_pool_mbuf_create() calls: after
 * rte_eal_init, so that it comes after every ops the EAL's plugins register
 * and DPDK's own ops keep the table indices they have in a secondary process
 * without it (a mempool names its ops by index: dpdk-dumpcap's pool must
 * mean ring_mp_mc in the engine too).  The plugin build (-d) registers them
 * by a constructor instead.  DPDK gives ops no per-thread state, so the
 * calling EAL lcore (rte_lcore_id(), a thread-local) picks the tier: an lcore
 * named in opts->workers uses that worker's freelist; any other lcore and
 * non-EAL threads use the global tier.  (Sluice's own code can pass the
 * handle explicitly: sl_pool_worker(sl_pool_of(mp), w); that bypasses the
 * front cache.)  When the mempool has a DPDK cache and workers are named
 * (sl_pool_mbuf_create), each worker lcore's cache is that worker's front:
 * it is refilled to min(chunk, RTE_MEMPOOL_CACHE_MAX_SIZE) objects and
 * flushed once a put would take it above min(high, 2 x
 * RTE_MEMPOOL_CACHE_MAX_SIZE, n); every other lcore's cache is switched off
 * (size and threshold 0), so its gets and puts reach the non-worker tier as
 * they come.  A mempool set to these ops by other means
 * (rte_pktmbuf_pool_create_by_ops, rte_mempool_set_ops_byname with a NULL
 * config) gets the defaults and no workers, and keeps whatever DPDK cache
 * its creator asked for, in front of the non-worker tier.
 */
#define SL_POOL_OPS_NAME "sluice"

/* Register the ops (once; again is a no-op).  0, or -ENOSPC when DPDK's
 * table is full.  Control thread, after rte_eal_init. */
int sl_pool_ops_register(void);

/*
 * The order the mbufs first leave the pool in.  DPDK hands a new pool's
 * objects out in address order, and buffers then keep that order from one
 * trip round the pipeline to the next (a worker's cache gives back what it
 * was given, a burst at a time).  A consumer on another CPU that reads each
 * packet (a sink's stamp, a router's header) then walks memory at a fixed
 * stride, which its CPU's stride prefetcher follows ahead of it, into the
 * buffers the producer is writing at that moment: each line it pulls over
 * must be taken back for the producer's stores.  With opts->shuffle,
 * sl_pool_mbuf_create shuffles the populated pool once (a fixed seed: the
 * same order every run); the order then stays random from trip to trip, and
 * no stride is there to follow.  It is not the default: a worker that walks
 * buffers it holds in their order of allocation (net_pcap replaying the
 * frames it keeps in mbufs) loses the prefetcher that the address order
 * gave it (docs/pool.md, "Order").
 */

/*
 * Create and populate a pktmbuf pool of n mbufs with these ops: data_room is
 * the data room including RTE_PKTMBUF_HEADROOM (as for
 * rte_pktmbuf_pool_create), no private area.  With workers, the mempool gets
 * a DPDK cache of min(chunk, RTE_MEMPOOL_CACHE_MAX_SIZE, 2n/3) objects, used
 * only on the workers' lcores (above); without, none.  opts->workers[i].lcore must be
 * distinct EAL lcore ids below RTE_MAX_LCORE.  The mapping from lcores to
 * workers is fixed here: create the pool before the workers start.
 * Returns the mempool (free it with rte_mempool_free), or NULL with errno set
 * to EINVAL (bad argument or option), EEXIST (name taken), ENOMEM (also when
 * DPDK's memory ran out while populating), ENOSYS (the
 * ops could not be registered: DPDK's table of mempool ops was full), or
 * another errno from DPDK, and a sentence naming the pool in *err (err may
 * be NULL).  Control thread, after rte_eal_init; allocates.
 */
struct rte_mempool *sl_pool_mbuf_create(const char *name, unsigned n,
					unsigned data_room, int socket,
					const struct sl_pool_opts *opts, struct sl_err *err);

/*
 * Where a pktmbuf pool's objects go.  DPDK keeps each object within one page
 * so that it is IOVA-contiguous; on 4 kB pages (EAL --no-huge) that is one
 * mbuf of 2432 bytes per page, every first line at the same offset, so all
 * of them compete for the same few sets of each cache.  With IOVA as VA
 * (what the EAL selects without hugepages) an object's IOVA is its address,
 * so an object across two pages is IOVA-contiguous as well, and the objects
 * can be packed: sl_mempool_flags() is the flag for rte_mempool_create_empty
 * that allows it there (RTE_MEMPOOL_F_NO_IOVA_CONTIG; 0 on hugepages or with
 * IOVA as PA).  Both constructors here (sl_pool_mbuf_create and
 * sl_mempool_pktmbuf_create) create their mempools with it and then place
 * the objects packed in one memzone, each with its true IOVA, where it is
 * set; DPDK's rte_mempool_populate_default() otherwise.  Control thread,
 * after rte_eal_init.
 */
unsigned sl_mempool_flags(void);

/* rte_pktmbuf_pool_create() (DPDK's best mempool ops, a per-lcore cache of
 * cache objects, no private area; NULL with rte_errno set on failure), with
 * its objects placed as above. */
struct rte_mempool *sl_mempool_pktmbuf_create(const char *name, unsigned n, unsigned cache,
					      uint16_t data_room, int socket);

/* The pool behind a mempool that uses these ops, else NULL.  Any thread. */
struct sl_pool *sl_pool_of(const struct rte_mempool *mp);

/* ------------------------------------------------ for mempool.c and tests */

/* The pool's own files and its unit tests use these; applications do not. */

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

/* Test hook: take (true) or release (false) the non-worker freelist's lock,
 * as a control thread in the middle of a call holds it.  Single thread. */
void sl_pool_hold_shared_lock(struct sl_pool *pool, bool taken);

/* Test hook: the global queue's next position to fill (wraps at 2^64). */
uint64_t sl_pool_global_head(const struct sl_pool *pool);

#ifdef __cplusplus
}
#endif

#include "pool/pool_worker.h"

#endif /* SL_POOL_H */
