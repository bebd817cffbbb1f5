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
 *
 * Compact histograms.  Where 15 KiB is too much (the pool keeps two per
 * worker, an interlink one in its shared memory), a component keeps a
 * struct sl_hist_sums (count, sum, largest value) beside a small array of
 * buckets in the same scheme at a coarser grain and with a cut: a shape
 * { sub_bits, buckets } has 2^sub_bits sub-buckets per power of two (a
 * bucket is never wider than max(1, lower / 2^sub_bits)) and keeps the
 * first `buckets` buckets; values from the lower bound of the last one up
 * all land in that one.  Bucket i of shape { SL_HIST_SUB_BITS,
 * SL_HIST_BUCKETS } (SL_HIST_SHAPE) is bucket i of struct sl_hist.  The same
 * threads rule holds: one writer (sl_hist_sums_record), any reader, and a
 * reader that wants a copy merges it into a zeroed private one
 * (sl_hist_sums_merge).  What value a component reports for a quantile (a
 * bucket's midpoint or its upper bound) is its own contract; the bucket
 * that holds the quantile is found here (sl_hist_shape_quantile), with the
 * rank of sl_hist_rank().
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

/* A bucket layout: 2^sub_bits sub-buckets per power of two, the first
 * `buckets` buckets kept (see "Compact histograms" above). */
struct sl_hist_shape {
	unsigned sub_bits;   /* 1..SL_HIST_SUB_BITS */
	unsigned buckets;    /* at least 2^(sub_bits + 1), at most
				(64 - sub_bits + 1) x 2^sub_bits (all of uint64) */
};

#define SL_HIST_SHAPE ((struct sl_hist_shape){ SL_HIST_SUB_BITS, SL_HIST_BUCKETS })

/* Index of the bucket that holds v in the layout with 2^sub_bits sub-buckets
 * per power of two, before any cut: no branch, one bit scan. */
static inline unsigned sl_hist_index_sub(uint64_t v, unsigned sub_bits)
{
	/* Values below 2^sub_bits share the shift of 2^sub_bits itself (0), so
	 * they map to themselves. */
	unsigned top = 63u - (unsigned)__builtin_clzll(v | (1ull << sub_bits));
	unsigned shift = top - sub_bits;
	return (shift << sub_bits) + (unsigned)(v >> shift);
}

/* Index of the bucket that holds v. */
static inline unsigned sl_hist_index(uint64_t v)
{
	return sl_hist_index_sub(v, SL_HIST_SUB_BITS);
}

/* Index of the bucket of shape s that holds v (the last one for every value
 * past the cut). */
static inline unsigned sl_hist_shape_index(struct sl_hist_shape s, uint64_t v)
{
	unsigned i = sl_hist_index_sub(v, s.sub_bits);
	return i < s.buckets ? i : s.buckets - 1;
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

/* ------------------------------------------------------------ compact */

/* Count, sum and largest value of a compact histogram, beside its buckets.
 * Zeroed, it is empty. */
struct sl_hist_sums {
	uint64_t count;
	uint64_t sum;      /* of the values recorded (wraps after 2^64) */
	uint64_t max;      /* 0 while empty */
};

/* Record v in t and buckets (s.buckets counters).  Single writer. */
static inline void sl_hist_sums_record(struct sl_hist_sums *t, uint64_t *buckets,
				       struct sl_hist_shape s, uint64_t v)
{
	sl_counter_add(&buckets[sl_hist_shape_index(s, v)], 1);
	sl_counter_add(&t->count, 1);
	sl_counter_add(&t->sum, v);
	sl_counter_max(&t->max, v);
}

/* Add src and its buckets to dst and its buckets: counts and sums add, the
 * larger max stays.  dst's writer; src's fields are read with relaxed loads
 * (src may be written meanwhile by its own writer, and then the copy's count
 * need not match its buckets).  Into a zeroed dst this takes a snapshot. */
void sl_hist_sums_merge(struct sl_hist_sums *dst, uint64_t *dst_buckets,
			const struct sl_hist_sums *src, const uint64_t *src_buckets,
			struct sl_hist_shape s);

/* Lower bound of bucket i of the uncut layout with 2^sub_bits sub-buckets
 * (so i may be a shape's `buckets`: where its last bucket would end without
 * the cut).  i < (64 - sub_bits + 1) x 2^sub_bits. */
uint64_t sl_hist_lower_sub(unsigned i, unsigned sub_bits);

/* The sum of s.buckets counters (relaxed loads). */
uint64_t sl_hist_shape_total(struct sl_hist_shape s, const uint64_t *buckets);

/* The first bucket at which the running total of buckets[0], buckets[1], ...
 * reaches rank (1-based, in sorted order), or s.buckets if it never does. */
unsigned sl_hist_shape_find(struct sl_hist_shape s, const uint64_t *buckets, uint64_t rank);

/* The bucket that holds quantile q of n values recorded in buckets:
 * sl_hist_shape_find() of sl_hist_rank(n, q); s.buckets when n is 0 or the
 * buckets hold fewer than that rank. */
unsigned sl_hist_shape_quantile(struct sl_hist_shape s, const uint64_t *buckets, uint64_t n,
				double q);

#endif
