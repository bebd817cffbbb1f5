/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Interlinks: single-producer/single-consumer rings of opaque pointers between
 * two threads, possibly in two processes.  This header is the control side:
 * create, look up, attach, detach, drain, free and statistics.  The per-burst
 * fast path is in interlink_worker.h.
 *
 * Guarantees
 *  - FIFO, no loss, no duplication: every object that enqueue took is handed
 *    out by dequeue exactly once, in order, or freed by sl_il_drain().  This
 *    holds across any number of detach/attach cycles of either end, in any
 *    thread or process.
 *  - Batched visibility: enqueue and dequeue move private cursors only.  What
 *    the producer enqueued becomes visible to the consumer when the producer
 *    publishes (sl_il_publish_producer()); the space the consumer freed becomes
 *    visible to the producer when the consumer publishes.  Each publish is one
 *    release store; the other end reads it with an acquire load, and only when
 *    its cached copy says empty (consumer) or full (producer), or, for the
 *    consumer's filling dequeue, holds fewer than asked for.  An end that
 *    never publishes stalls the other: publish once per batch (the engine does
 *    it once per breath) or use the *_publish variants of the burst calls.
 *  - Nothing here blocks or sleeps.  Only create, lookup and free take DPDK's
 *    memzone lock; the fast path and attach/detach are lock-free.
 *
 * Memory
 *  The ring lives in a DPDK memzone named "sl_il_<name>", reserved on the
 *  NUMA node the caller names (the consumer's: the consumer reads the cached
 *  lines and slots most often).  Another DPDK process of the same file prefix
 *  (--proc-type=secondary) can find it with sl_il_lookup() and attach either
 *  end.  The ring stores pointers as opaque values: a pointer is meaningful in
 *  the other process only if it points into memory both share (an mbuf from a
 *  mempool created by the primary, say); plain integers cast to pointers always
 *  travel.
 *
 * Ends
 *  Each end (producer, consumer) has a state: DETACHED -> ATTACHED ->
 *  DETACHING -> DETACHED.  sl_il_attach() claims a detached end for the
 *  calling thread; from then on only that thread runs the end's fast path,
 *  until it calls sl_il_detach(), which publishes the end's cursor and frees
 *  the end.  Another thread or process may then attach it and continues
 *  exactly where the last one stopped.  A successful attach happens after the
 *  previous detach, so handing an end over needs no other synchronisation.
 *  A process that dies while attached leaves its end ATTACHED: the ring cannot
 *  tell a dead owner from a slow one, so that end stays claimed until the
 *  ring is freed.
 *
 * Errors (the project's convention, err.h): actions return 0 or a negative
 * errno; constructors and lookups return a pointer, or NULL with errno set and
 * a sentence naming the ring in *err (err may be NULL); predicates return
 * bool; bursts return a count.
 */
#ifndef SL_INTERLINK_H
#define SL_INTERLINK_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_memory.h> /* SOCKET_ID_ANY */

#include "base/err.h"
#include "base/histogram.h"
#include "interlink/interlink_limits.h"

struct sl_il_config {
	/* Number of slots: a power of two in [2, SL_IL_SIZE_MAX]; 0 means the
	 * global default (sl_il_default_size()).  All slots are usable. */
	uint32_t size;
	/* NUMA node of the memzone (the consumer's); SOCKET_ID_ANY (-1) lets
	 * DPDK choose.  Creation fails rather than fall back to another node. */
	int socket;
	/* Sample the sojourn time of one object in sample_every: a power of two
	 * in [1, SL_IL_SAMPLE_MAX]; 0 means SL_IL_SAMPLE_DEFAULT. */
	uint32_t sample_every;
};

/*
 * Counters.  Each is written by one end only (base/counter.h: plain add,
 * relaxed store) and read here with relaxed loads, so a snapshot taken while the ring runs can be
 * a few objects old and its fields need not add up; each one is exact once
 * both ends are quiet.
 */
struct sl_il_stats {
	uint32_t size;          /* slots */
	uint32_t sample_every;
	uint64_t packets;       /* objects taken by enqueue (producer) */
	uint64_t bytes;         /* sum of what the producer passed to sl_il_add_bytes() */
	uint64_t refused;       /* objects enqueue did not take because the ring
				 * was full; the engine frees them: its drops */
	uint64_t dequeued;      /* objects handed out by dequeue (consumer) */
	uint64_t drained;       /* objects freed by sl_il_drain() */
	/* Cache lines made to cross between the ends (a measure of the ring's
	 * cost that does not depend on how far apart the two cores are; the
	 * model: each refresh that finds the other end's published index moved
	 * brings its line over once, and each slot or stamp line the producer
	 * writes is read once by the consumer).  lines_per_packet is their sum
	 * over `dequeued`. */
	uint64_t write_idx_moved;  /* consumer refreshes that found a new write index */
	uint64_t read_idx_moved;   /* producer refreshes that found a new read index */
	uint64_t slot_lines;       /* slot and stamp lines the producer wrote */
	uint32_t occupancy_hwm; /* most slots seen in use, sampled when an end
				 * refreshes its cached copy of the other's index */
	uint32_t occupancy;     /* published write - published read, now */
	uint64_t tsc_hz;        /* to turn the cycle counts below into time */
	uint64_t sojourn_samples;
	uint64_t sojourn_sum;   /* cycles, over the samples */
	uint64_t sojourn_max;   /* cycles */
	uint64_t sojourn_hist[SL_IL_HIST_BUCKETS]; /* see sl_il_hist_bucket_low() */
	enum sl_il_state state[2];  /* indexed by enum sl_il_end */
	int pid[2];                 /* process of an attached end, else 0 */
};

/* The global default size used when sl_il_config.size is 0.  Returns 0, or
 * -EINVAL if size is not a power of two in [2, SL_IL_SIZE_MAX].  Process-wide;
 * call from the control thread before creating rings. */
int sl_il_set_default_size(uint32_t size);
uint32_t sl_il_default_size(void);

/*
 * Create ring `name` in a new memzone "sl_il_<name>".  cfg may be NULL (all
 * defaults, SOCKET_ID_ANY).  Both ends start DETACHED and the ring empty.
 * Returns the ring, or NULL with errno set to:
 *   EINVAL        name empty, or size or sample_every not a power of two in range
 *   ENAMETOOLONG  name longer than SL_IL_NAME_MAX
 *   EEXIST        a memzone of that name exists
 *   ENOMEM        no memory on that socket (or no free memzone)
 *   ENODEV        DPDK's EAL is not initialised
 * and a sentence naming the ring in *err (err may be NULL), e.g.
 * "interlink 'l3': size must be a power of two from 2 to 16777216, got 1000".
 * Control thread of any DPDK process; takes the memzone lock; does not block
 * otherwise.  The caller owns the ring until sl_il_free().
 */
struct sl_il *sl_il_create(const char *name, const struct sl_il_config *cfg,
			   struct sl_err *err);

/*
 * Find ring `name` (created by this or another process of the same DPDK file
 * prefix).  Returns the ring, or NULL with errno set to ENOENT (no such
 * memzone, or no EAL), EPROTO (the memzone is not an interlink of this layout)
 * or ENAMETOOLONG / EINVAL (bad name), and a sentence naming the ring in *err
 * (err may be NULL).  Any thread; takes the memzone lock.
 */
struct sl_il *sl_il_lookup(const char *name, struct sl_err *err);

/*
 * Claim `end` for the calling thread.  The end's cursor continues from the
 * published index, so nothing is lost or repeated.  Returns 0, -EBUSY (the end
 * is attached), -EAGAIN (it is being detached; try again) or -EINVAL (bad end).
 * Any thread; lock-free, never blocks.
 */
int sl_il_attach(struct sl_il *il, enum sl_il_end end);

/*
 * Release `end`: publish its cursor (a producer's unpublished objects become
 * visible; a consumer's dequeued objects are released for good), then mark it
 * DETACHED.  Returns 0, or -EINVAL if the end is not attached (or bad end).
 * Called by the thread that attached the end, or by any thread once that
 * thread has stopped and been joined.  Lock-free, never blocks.
 */
int sl_il_detach(struct sl_il *il, enum sl_il_end end);

/* State of an end (any thread; may be stale as soon as it returns). */
enum sl_il_state sl_il_state(const struct sl_il *il, enum sl_il_end end);

/* Name (without the "sl_il_" prefix), size and socket; any thread. */
const char *sl_il_name(const struct sl_il *il);
uint32_t sl_il_size(const struct sl_il *il);
int sl_il_socket(const struct sl_il *il);

/*
 * Free every object left in the ring, from the consumer's cursor to the
 * producer's (published or not), through free_fn(obj, arg), in FIFO order;
 * then publish both cursors at the end.  free_fn may be NULL (the objects are
 * only counted).  Returns the number of objects, which is also added to the
 * `drained` counter.  Only while no thread runs either end (after the workers
 * have stopped and been joined, or with both ends detached); the ends' states
 * are left as they are.  Control thread; does not block.
 */
unsigned sl_il_drain(struct sl_il *il, void (*free_fn)(void *obj, void *arg), void *arg);

/*
 * Free the ring and its memzone.  Returns 0, -EBUSY (an end is attached or
 * detaching) or -ENOTEMPTY (objects are left: call sl_il_drain() first).
 * Control thread of any process; the ring must not be used afterwards by any
 * process.  Takes the memzone lock.
 */
int sl_il_free(struct sl_il *il);

/* Snapshot of the counters (any thread, any process). */
void sl_il_stats_read(const struct sl_il *il, struct sl_il_stats *s);

/* The lines a snapshot counts: write_idx_moved + read_idx_moved +
 * slot_lines. */
static inline uint64_t sl_il_stats_lines(const struct sl_il_stats *s)
{
	return s->write_idx_moved + s->read_idx_moved + s->slot_lines;
}

/* Cache lines made to cross per packet between two snapshots of one ring
 * (before may be NULL: since creation): (write_idx_moved + read_idx_moved +
 * slot_lines) over dequeued, 0 when nothing was dequeued. */
double sl_il_lines_per_packet(const struct sl_il_stats *before, const struct sl_il_stats *after);

/* Lowest sojourn time, in cycles, that falls into histogram bucket b
 * (sl_hist_lower_sub() of SL_IL_HIST_SUB_BITS); sl_hist_shape_index() of
 * SL_IL_HIST_SHAPE is the bucket of a time. */
uint64_t sl_il_hist_bucket_low(unsigned b);

/* The q-quantile (0 < q <= 1) of the sampled sojourn times in nanoseconds,
 * taken as the middle of the bucket it falls into (the rank of
 * sl_hist_rank() over the buckets' total; buckets are 25% wide, so the
 * answer is within about 12% of the true value; the last bucket counts as
 * twice its lower bound wide); 0 if nothing was sampled. */
uint64_t sl_il_sojourn_quantile_ns(const struct sl_il_stats *s, double q);

#endif
