/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Interlink fast path: the burst calls that run per packet, all static inline.
 * Control (create, attach, stats) is in interlink.h, which says what the ring
 * guarantees.
 *
 * Threads: the producer calls are made only by the thread that attached the
 * producer end, the consumer calls only by the thread that attached the
 * consumer end (see sl_il_attach()); none of them blocks, loops or takes a
 * lock.  Calling them on an end that this thread has not attached is a bug
 * that the ring does not detect.
 *
 * Layout (MCRingBuffer, IPDPS 2010), in one memzone:
 *
 *   ctrl    name, size, end states: written by create, attach and detach only
 *   hist    sampled sojourn histogram: written by the consumer
 *   shared  the published write and read indices, each on a block of its
 *           own: each written by one end, once per batch (publish), and read
 *           by the other end only when its cached copy runs out (or, for
 *           the filling dequeue, holds fewer than it asks for)
 *   cons    consumer-private: read cursor, cached write index, counters
 *   prod    producer-private: write cursor, cached read index, counters
 *   slot[]  size pointers, then one TSC stamp per sample_every slots, each
 *           on its own cache line
 *
 * The four hot lines (write, read, cons, prod) each start a 128-byte block whose
 * second line is left empty, so that the adjacent-line prefetcher (which
 * fetches aligned pairs of lines) does not pull one end's line into the other
 * end's cache; DPDK's rte_ring pads its head/tail lines the same way.
 *
 * Indices are free-running uint32_t counters.  The slot of index i is
 * i & (size - 1); the number of objects between two indices is their
 * difference in unsigned (mod 2^32) arithmetic, which stays exact across the
 * wrap from 0xffffffff to 0 because no two live indices are more than size
 * (<= 2^24) apart.
 *
 * Copies: the producer copies into the slots with memcpy, because the C
 * library picks the widest stores the CPU has at run time, and fewer stores
 * matter there: a publish store waits until the shared line comes back from
 * the consumer, and on x86 the slot stores of the following bursts queue
 * behind it in the store buffer; with 64-byte stores a burst takes 4 entries
 * instead of 16 or 32.  The consumer copies out with an inline loop, which
 * avoids a call for a few hundred bytes.  (The other combinations, measured
 * between distant cores, are in docs/interlink.md, "Copies".)
 *
 * Memory order: an end writes slots (and stamps) with plain stores and
 * publishes its cursor with a release store; the other end loads it with an
 * acquire load before it reads those slots (consumer) or overwrites them
 * (producer).  Nothing relies on x86's store ordering.
 *
 * Sojourn sampling: the producer stamps every index that is a multiple of
 * sample_every with rte_rdtsc() in a side array (one stamp per sample_every
 * slots, right after the slots); the consumer reads the stamp when it
 * dequeues that index, having prefetched it one sample ahead.  The stamps
 * travel with the slots under the same release/acquire edges, so they need no
 * atomics.  A side array keeps the ring's objects opaque (no mbuf dynfield, so
 * it also works for integers and for pointers that are not mbufs) and costs
 * one rdtsc and one store per sample_every objects on each side; the objects
 * themselves are never touched.
 */
#ifndef SL_INTERLINK_WORKER_H
#define SL_INTERLINK_WORKER_H

#include <stdalign.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <rte_branch_prediction.h>
#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_prefetch.h>

#include "base/counter.h"
#include "base/histogram.h"
#include "interlink/interlink_limits.h"

/* Private below this line: use the functions. */

#define SL_IL_BLOCK (2 * RTE_CACHE_LINE_SIZE)
#define SL_IL_MAGIC 0x534c494c00020000ull /* "SLIL", layout version 2.0 */

struct sl_il_ctrl {
	uint64_t magic;         /* SL_IL_MAGIC once the ring is initialised */
	uint32_t struct_size;   /* sizeof(struct sl_il) of the creator */
	uint32_t size;
	uint32_t sample_every;
	int32_t socket;
	uint64_t tsc_hz;
	uint32_t state[2];      /* enum sl_il_state, by enum sl_il_end */
	int32_t pid[2];
	uint64_t drained;       /* written by sl_il_drain() */
	char name[SL_IL_NAME_MAX + 1];
};

/* Sampled sojourn times: a compact histogram of base/histogram.h. */
struct sl_il_hist {
	struct sl_hist_sums sums;   /* samples, their total and the longest, cycles */
	uint64_t bucket[SL_IL_HIST_BUCKETS];
};

/* Each published index on a block of its own, so that each line has one
 * writer: the consumer's publish stays in its own cache (the producer reads
 * it about once a lap), and the producer's publish never has to take its
 * line back from a consumer that has just written the other index. */
struct sl_il_shared {
	alignas(SL_IL_BLOCK) uint32_t write;   /* published by the producer (release) */
	alignas(SL_IL_BLOCK) uint32_t read;    /* published by the consumer (release) */
};

struct sl_il_cons {
	uint32_t read;          /* next index to dequeue */
	uint32_t read_pub;      /* last value stored to shared.read */
	uint32_t write_cache;   /* shared.write as last loaded */
	uint32_t mask;          /* size - 1 */
	uint32_t sample_mask;   /* sample_every - 1 */
	uint32_t stamp_shift;   /* log2(sample_every) */
	uint32_t hwm;           /* occupancy seen at a refresh */
	uint32_t idle_polls;    /* refreshes in a row that found the ring empty */
	uint64_t dequeued;
	uint64_t idx_moved;     /* refreshes that found shared.write moved: a line
				 * that came from the producer's cache */
};

struct sl_il_prod {
	uint32_t write;         /* next index to fill */
	uint32_t write_pub;     /* last value stored to shared.write */
	uint32_t read_cache;    /* shared.read as last loaded */
	uint32_t mask;
	uint32_t sample_mask;
	uint32_t stamp_shift;
	uint32_t hwm;
	uint64_t packets;
	uint64_t bytes;
	uint64_t refused;
	/* The lines this end made cross (the block's second line: only the
	 * producer writes it, only stats readers read it). */
	alignas(RTE_CACHE_LINE_SIZE) uint64_t idx_moved; /* refreshes that found
				 * shared.read moved */
	uint64_t slot_lines;    /* slot and stamp lines written, each one the
				 * consumer then reads */
};

struct sl_il {
	struct sl_il_ctrl ctrl;
	alignas(SL_IL_BLOCK) struct sl_il_hist hist;
	alignas(SL_IL_BLOCK) struct sl_il_shared shared;
	alignas(SL_IL_BLOCK) struct sl_il_cons cons;
	alignas(SL_IL_BLOCK) struct sl_il_prod prod;
	alignas(SL_IL_BLOCK) void *slot[];
};

_Static_assert(offsetof(struct sl_il_shared, read) == SL_IL_BLOCK &&
	       sizeof(struct sl_il_shared) == 2 * SL_IL_BLOCK, "one block per published index");
_Static_assert(sizeof(struct sl_il_cons) <= RTE_CACHE_LINE_SIZE, "consumer state fits a line");
_Static_assert(offsetof(struct sl_il_prod, idx_moved) == RTE_CACHE_LINE_SIZE &&
	       sizeof(struct sl_il_prod) <= SL_IL_BLOCK,
	       "producer state fits a line, its line counters the block's second");
_Static_assert(offsetof(struct sl_il, shared) % SL_IL_BLOCK == 0, "shared line starts a block");
_Static_assert(offsetof(struct sl_il, cons) == offsetof(struct sl_il, shared) + 2 * SL_IL_BLOCK,
	       "consumer line follows the shared block");
_Static_assert(offsetof(struct sl_il, prod) == offsetof(struct sl_il, cons) + SL_IL_BLOCK,
	       "producer line follows the consumer block");
_Static_assert(offsetof(struct sl_il, slot) == offsetof(struct sl_il, prod) + SL_IL_BLOCK,
	       "slots follow the producer block");
_Static_assert(offsetof(struct sl_il, hist) % SL_IL_BLOCK == 0, "histogram starts a block");
_Static_assert(sizeof(struct sl_il_hist) == (3 + SL_IL_HIST_BUCKETS) * sizeof(uint64_t),
	       "layout 2.0: samples, sum, max, then the buckets");

static inline void sl_il_priv_max(uint32_t *c, uint32_t v)
{
	if (v > __atomic_load_n(c, __ATOMIC_RELAXED))
		__atomic_store_n(c, v, __ATOMIC_RELAXED);
}

/* One TSC stamp per cache line, so that the producer writing a new stamp never
 * takes away the line of one the consumer is about to read. */
struct sl_il_stamp {
	alignas(RTE_CACHE_LINE_SIZE) uint64_t tsc;
};

static inline struct sl_il_stamp *sl_il_priv_stamps(struct sl_il *il, uint32_t mask)
{
	size_t off = RTE_ALIGN_CEIL((size_t)(mask + 1) * sizeof(void *), RTE_CACHE_LINE_SIZE);
	return (struct sl_il_stamp *)(void *)((char *)il->slot + off);
}

/* Consumer's copy out of the slots, four at a time, each four a fixed
 * 32-byte copy (two 16-byte loads and stores, or one of 32).  Written as
 * four pointer assignments, GCC vectorised the loop as one 8-byte load per
 * pointer from indices it computed in SSE registers (zero-extended 32-bit
 * sums of the ring's masked index: about 110 instructions a burst of 32,
 * against 16 loads and 16 stores). */
static inline void sl_il_priv_copy(void **restrict dst, void *const *restrict src, size_t n)
{
	size_t k = 0;
	for (; k + 4 <= n; k += 4)
		memcpy(dst + k, src + k, 4 * sizeof(void *));
	for (; k < n; k++)
		dst[k] = src[k];
}

static inline void sl_il_priv_stamp(struct sl_il *il, struct sl_il_prod *p, uint32_t w,
				    uint32_t first, unsigned n)
{
	uint64_t now = rte_rdtsc();
	struct sl_il_stamp *stamp = sl_il_priv_stamps(il, p->mask);
	uint64_t k = 0;
	for (uint32_t i = first; i - w < n; i += p->sample_mask + 1, k++)
		stamp[(i & p->mask) >> p->stamp_shift].tsc = now;
	sl_counter_add(&p->slot_lines, k);
}

/* Cache lines that slots [at, at + n) span (n > 0; the slots start a line). */
static inline uint32_t sl_il_priv_lines(uint32_t at, unsigned n)
{
	enum { PER_LINE = RTE_CACHE_LINE_SIZE / sizeof(void *) };
	return (at + n - 1) / PER_LINE - at / PER_LINE + 1;
}

static inline void sl_il_priv_sample(struct sl_il *il, const struct sl_il_cons *c, uint32_t r,
				     uint32_t first, unsigned n)
{
	uint64_t now = rte_rdtsc();
	const struct sl_il_stamp *stamp = sl_il_priv_stamps(il, c->mask);
	struct sl_il_hist *h = &il->hist;
	uint32_t i = first;
	for (; i - r < n; i += c->sample_mask + 1) {
		uint64_t d = now - stamp[(i & c->mask) >> c->stamp_shift].tsc;
		if ((int64_t)d < 0) /* TSCs of two cores a few cycles apart */
			d = 0;
		sl_hist_sums_record(&h->sums, h->bucket, SL_IL_HIST_SHAPE, d);
	}
	/* The next sampled index, if already published: fetch its stamp's line
	 * now, so that reading it later does not stall on the producer's core. */
	if (i - r < c->write_cache - r)
		rte_prefetch0(&stamp[(i & c->mask) >> c->stamp_shift]);
}

/* Empty refreshes in a row after which the consumer counts the ring as idle. */
#define SL_IL_IDLE_POLLS 256

/* Consumer: reload the published write index.  Returns the objects now
 * available.  When the ring has been idle for a while, also prefetch the slot
 * the next object will land in: when it comes, the consumer's poll finds that
 * line already on its way, and a lone object costs about one cache-line
 * transfer instead of two (index, then slot).  Not while traffic flows: there
 * the prefetch would pull the line the producer is filling away from it. */
static inline uint32_t sl_il_priv_refresh_write(struct sl_il *il, struct sl_il_cons *c)
{
	uint32_t w = __atomic_load_n(&il->shared.write, __ATOMIC_ACQUIRE);
	if (w != c->write_cache)
		sl_counter_add(&c->idx_moved, 1);
	c->write_cache = w;
	uint32_t avail = c->write_cache - c->read;
	if (avail == 0) {
		if (c->idle_polls >= SL_IL_IDLE_POLLS)
			rte_prefetch0(&il->slot[c->read & c->mask]);
		else
			c->idle_polls++;
	} else {
		c->idle_polls = 0;
		sl_il_priv_max(&c->hwm, avail);
	}
	return avail;
}

/* Public fast path. */

/*
 * Producer: copy up to n objects into the ring, in order.  Returns how many
 * were taken (0..n): objs[0..ret) now belong to the ring; objs[ret..n) still
 * belong to the caller (the engine frees them and counts drops).  The objects
 * become visible to the consumer at the next sl_il_publish_producer().
 * Refused objects are counted in `refused`.
 */
static inline unsigned sl_il_enqueue_burst(struct sl_il *il, void *const *objs, unsigned n)
{
	struct sl_il_prod *p = &il->prod;
	uint32_t w = p->write;
	uint32_t room = p->mask + 1 - (w - p->read_cache);

	if (unlikely(room < n)) {
		uint32_t r = __atomic_load_n(&il->shared.read, __ATOMIC_ACQUIRE);
		if (r != p->read_cache)
			sl_counter_add(&p->idx_moved, 1);
		p->read_cache = r;
		room = p->mask + 1 - (w - p->read_cache);
		if (room < n) {
			sl_counter_add(&p->refused, n - room);
			n = room;
		}
		sl_il_priv_max(&p->hwm, w + n - p->read_cache);
	}

	uint32_t at = w & p->mask;
	unsigned first = p->mask + 1 - at;
	if (first > n)
		first = n;
	if (unlikely(n == 0))   /* nothing asked, or a full ring */
		return 0;
	memcpy(&il->slot[at], objs, first * sizeof(void *));
	uint32_t lines = sl_il_priv_lines(at, first);
	if (unlikely(first < n)) {
		memcpy(il->slot, objs + first, (n - first) * sizeof(void *));
		lines += sl_il_priv_lines(0, n - first);
	}
	sl_counter_add(&p->slot_lines, lines);

	uint32_t gap = (0u - w) & p->sample_mask; /* to the next sampled index */
	if (unlikely(gap < n))
		sl_il_priv_stamp(il, p, w, w + gap, n);

	p->write = w + n;
	sl_counter_add(&p->packets, n);
	return n;
}

/* Producer: make everything enqueued so far visible to the consumer (one
 * release store, skipped when there is nothing new). */
static inline void sl_il_publish_producer(struct sl_il *il)
{
	struct sl_il_prod *p = &il->prod;
	if (p->write != p->write_pub) {
		p->write_pub = p->write;
		__atomic_store_n(&il->shared.write, p->write, __ATOMIC_RELEASE);
	}
}

/* Producer: sl_il_enqueue_burst() then sl_il_publish_producer(), for callers
 * that do not batch several bursts per publish. */
static inline unsigned sl_il_enqueue_burst_publish(struct sl_il *il, void *const *objs,
						   unsigned n)
{
	n = sl_il_enqueue_burst(il, objs, n);
	sl_il_publish_producer(il);
	return n;
}

/* Producer: add to the byte counter (the ring cannot size opaque objects; the
 * engine passes the sum of pkt_len of what enqueue took). */
static inline void sl_il_add_bytes(struct sl_il *il, uint64_t bytes)
{
	sl_counter_add(&il->prod.bytes, bytes);
}

/* The dequeues below: up to max objects, the published write index
 * reloaded when the cached copy holds fewer than `want` (1 or max). */
static inline unsigned sl_il_priv_dequeue(struct sl_il *il, void **objs, unsigned max,
					  unsigned want)
{
	struct sl_il_cons *c = &il->cons;
	uint32_t r = c->read;
	uint32_t avail = c->write_cache - r;

	if (avail < want) {
		avail = sl_il_priv_refresh_write(il, c);
		if (avail == 0)
			return 0;
	}
	unsigned n = avail < max ? avail : max;

	uint32_t at = r & c->mask;
	unsigned first = c->mask + 1 - at;
	if (first > n)
		first = n;
	sl_il_priv_copy(objs, &il->slot[at], first);
	sl_il_priv_copy(objs + first, il->slot, n - first);

	uint32_t gap = (0u - r) & c->sample_mask;
	if (unlikely(gap < n))
		sl_il_priv_sample(il, c, r, r + gap, n);

	c->read = r + n;
	sl_counter_add(&c->dequeued, n);
	return n;
}

/*
 * Consumer: take up to max objects, oldest first, into objs.  Returns how many
 * (0..max); the caller owns them.  The published write index is reloaded only
 * when the cached copy says the ring is empty, so a call can return fewer than
 * max while more are published; the next call gets them.  The slots become
 * free for the producer at the next sl_il_publish_consumer().  objs is the
 * caller's array (it must not lie inside the ring).
 */
static inline unsigned sl_il_dequeue_burst(struct sl_il *il, void **objs, unsigned max)
{
	return sl_il_priv_dequeue(il, objs, max, 1);
}

/*
 * Consumer: sl_il_dequeue_burst(), but the published write index is reloaded
 * whenever the cached copy holds fewer than max (one acquire load of the
 * producer's line a call that would otherwise come out short), so that a
 * call returns max whenever that many are published.  For a consumer whose
 * cost per object falls with the batch (a flow table's lookups overlapping
 * their memory accesses); the plain dequeue reads the shared line less.
 */
static inline unsigned sl_il_dequeue_burst_fill(struct sl_il *il, void **objs, unsigned max)
{
	/* no more than the ring holds: a larger max would reload every call */
	unsigned ring = il->cons.mask + 1;
	return sl_il_priv_dequeue(il, objs, max, max < ring ? max : ring);
}

/* Consumer: hand the slots of everything dequeued so far back to the
 * producer (one release store, skipped when there is nothing new). */
static inline void sl_il_publish_consumer(struct sl_il *il)
{
	struct sl_il_cons *c = &il->cons;
	if (c->read != c->read_pub) {
		c->read_pub = c->read;
		__atomic_store_n(&il->shared.read, c->read, __ATOMIC_RELEASE);
	}
}

/* Consumer: sl_il_dequeue_burst() then sl_il_publish_consumer(). */
static inline unsigned sl_il_dequeue_burst_publish(struct sl_il *il, void **objs, unsigned max)
{
	max = sl_il_dequeue_burst(il, objs, max);
	sl_il_publish_consumer(il);
	return max;
}

/*
 * Consumer: true if nothing is available to dequeue.  Uses the cached write
 * index; only when that says empty does it reload the published one (an
 * acquire load of the shared line).  "Hint" because the producer may publish
 * right after it returns; false is definite (a dequeue will return at least
 * one object).
 */
static inline bool sl_il_empty_hint(struct sl_il *il)
{
	struct sl_il_cons *c = &il->cons;
	if (c->write_cache != c->read)
		return false;
	return sl_il_priv_refresh_write(il, c) == 0;
}

/* Consumer: objects available to dequeue according to the cached write index
 * (a lower bound; no shared access). */
static inline unsigned sl_il_count_cached(const struct sl_il *il)
{
	return il->cons.write_cache - il->cons.read;
}

#endif
