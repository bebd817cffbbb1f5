/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Log-linear histograms of uint64 values (nanoseconds, in Sluice's use).
 *
 * Buckets.  Values below 2^(SL_HIST_SUB_BITS + 1) each have a bucket of
 * their own (width 1).  Above that, every range [2^k, 2^(k+1)) is split into
 * SL_HIST_SUB = 2^SL_HIST_SUB_BITS linear sub-buckets of width
 * 2^(k - SL_HIST_SUB_BITS).  So a bucket [lower, upper) is never wider than
 * max(1, lower / SL_HIST_SUB), and the whole uint64 range is covered by
 * SL_HIST_BUCKETS buckets.  Every bound is exclusive above except the last
 * bucket's, which ends at UINT64_MAX inclusive (2^64 is not a uint64).
 *
 * Percentiles.  sl_hist_percentile(h, q) finds the bucket holding the value of
 * rank r = max(1, ceil(q x count)) in sorted order (the exact q-quantile of
 * the recorded values) and returns that bucket's midpoint, clamped to
 * [min, max].  If x is the exact value, the result v satisfies
 *     |v - x| <= x / (2 x SL_HIST_SUB)        (SL_HIST_REL_ERROR)
 * and q = 0 gives the exact min, q = 1 the exact max.
 *
 * Threads.  One thread writes a histogram (sl_hist_record, sl_hist_merge into
 * it, sl_hist_init).  Any thread may read it: every field is read and written
 * with relaxed atomics (engine/base/counter.h), so a reader never sees a torn
 * value, but may see a count that is a few values ahead of or behind the
 * buckets.  A reader that wants a consistent view merges the histogram into
 * a private one (sl_hist_init + sl_hist_merge) and reads that.
 *
 * Nothing here allocates; struct sl_hist is a plain struct of
 * SL_HIST_BUCKETS + 3 uint64 values (about 15 KiB).
 */
#ifndef SL_HISTOGRAM_H
#define SL_HISTOGRAM_H

#include <stdbool.h>
#include <stdint.h>

#include "base/counter.h"

#define SL_HIST_SUB_BITS 5u
#define SL_HIST_SUB (1u << SL_HIST_SUB_BITS)
#define SL_HIST_BUCKETS ((64u - SL_HIST_SUB_BITS + 1u) * SL_HIST_SUB)
#define SL_HIST_REL_ERROR (1.0 / (2.0 * SL_HIST_SUB))

struct sl_hist {
	uint64_t count;
	uint64_t min;      /* UINT64_MAX while empty */
	uint64_t max;      /* 0 while empty */
	uint64_t buckets[SL_HIST_BUCKETS];
};

struct sl_hist_bucket {
	uint64_t lower;    /* smallest value in the bucket */
	uint64_t upper;    /* one past the largest (UINT64_MAX for the last bucket) */
	uint64_t count;
};

/* Index of the bucket that holds v: no branch, one bit scan. */
static inline unsigned sl_hist_index(uint64_t v)
{
	/* Values below 2^SL_HIST_SUB_BITS share the shift of 2^SL_HIST_SUB_BITS
	 * itself (0), so they map to themselves. */
	unsigned top = 63u - (unsigned)__builtin_clzll(v | SL_HIST_SUB);
	unsigned shift = top - SL_HIST_SUB_BITS;
	return (shift << SL_HIST_SUB_BITS) + (unsigned)(v >> shift);
}

/* Record one value.  Single writer. */
static inline void sl_hist_record(struct sl_hist *h, uint64_t v)
{
	uint64_t lo = sl_counter_read(&h->min), hi = sl_counter_read(&h->max);

	sl_counter_add(&h->buckets[sl_hist_index(v)], 1);
	sl_counter_add(&h->count, 1);
	__atomic_store_n(&h->min, v < lo ? v : lo, __ATOMIC_RELAXED);
	__atomic_store_n(&h->max, v > hi ? v : hi, __ATOMIC_RELAXED);
}

/* Make h empty.  Single writer. */
void sl_hist_init(struct sl_hist *h);

/* Add every value of src to dst (dst's writer; src may be written meanwhile
 * by its own writer: its fields are read with relaxed loads). */
void sl_hist_merge(struct sl_hist *dst, const struct sl_hist *src);

static inline uint64_t sl_hist_count(const struct sl_hist *h)
{
	return sl_counter_read(&h->count);
}

/* Smallest and largest value recorded; 0 for an empty histogram. */
uint64_t sl_hist_min(const struct sl_hist *h);
uint64_t sl_hist_max(const struct sl_hist *h);

/* The rank (1-based, in sorted order) of the value at quantile q of n values:
 * max(1, ceil(q x n)), with q x n rounded to the nearest integer first when
 * it is within 1e-9 relative of one (so 0.99 x 20000 is 19800, not 19801);
 * 0 when n is 0. */
uint64_t sl_hist_rank(uint64_t n, double q);

/* Value at quantile q (0 <= q <= 1; clamped) within SL_HIST_REL_ERROR of the
 * exact one, as described above; 0 for an empty histogram. */
uint64_t sl_hist_percentile(const struct sl_hist *h, double q);

/* Bounds of bucket i (< SL_HIST_BUCKETS): [*lower, *upper). */
void sl_hist_bounds(unsigned i, uint64_t *lower, uint64_t *upper);

/* The first non-empty bucket with index >= from: fills *b and returns its
 * index, or returns SL_HIST_BUCKETS if there is none.  Iterate with
 *   for (unsigned i = sl_hist_next(h, 0, &b); i < SL_HIST_BUCKETS;
 *        i = sl_hist_next(h, i + 1, &b)) ...
 */
unsigned sl_hist_next(const struct sl_hist *h, unsigned from, struct sl_hist_bucket *b);

#endif
