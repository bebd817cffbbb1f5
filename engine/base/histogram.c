/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Log-linear histograms: everything but the recording fast path, which is
 * inline in histogram.h.
 */
#include <math.h>

#include "base/histogram.h"

void sl_hist_init(struct sl_hist *h)
{
	for (unsigned i = 0; i < SL_HIST_BUCKETS; i++)
		__atomic_store_n(&h->buckets[i], 0, __ATOMIC_RELAXED);
	__atomic_store_n(&h->count, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&h->min, UINT64_MAX, __ATOMIC_RELAXED);
	__atomic_store_n(&h->max, 0, __ATOMIC_RELAXED);
}

void sl_hist_merge(struct sl_hist *dst, const struct sl_hist *src)
{
	uint64_t n = 0;

	for (unsigned i = 0; i < SL_HIST_BUCKETS; i++) {
		uint64_t c = sl_counter_read(&src->buckets[i]);
		if (c != 0) {
			sl_counter_add(&dst->buckets[i], c);
			n += c;
		}
	}
	if (n == 0)
		return;
	/* The count is the sum of the buckets read, so that dst stays
	 * consistent even if src was being written. */
	sl_counter_add(&dst->count, n);
	uint64_t lo = sl_counter_read(&src->min), hi = sl_counter_read(&src->max);
	if (lo < sl_counter_read(&dst->min))
		__atomic_store_n(&dst->min, lo, __ATOMIC_RELAXED);
	if (hi > sl_counter_read(&dst->max))
		__atomic_store_n(&dst->max, hi, __ATOMIC_RELAXED);
}

uint64_t sl_hist_min(const struct sl_hist *h)
{
	return sl_hist_count(h) == 0 ? 0 : sl_counter_read(&h->min);
}

uint64_t sl_hist_max(const struct sl_hist *h)
{
	return sl_hist_count(h) == 0 ? 0 : sl_counter_read(&h->max);
}

uint64_t sl_hist_lower_sub(unsigned i, unsigned sub_bits)
{
	unsigned group = i >> sub_bits;

	if (group <= 1)       /* the exact range: one value per bucket */
		return i;
	unsigned shift = group - 1;
	uint64_t mantissa = i - (shift << sub_bits);   /* 2^sub_bits .. 2^(sub_bits+1) - 1 */
	return mantissa << shift;
}

void sl_hist_bounds(unsigned i, uint64_t *lower, uint64_t *upper)
{
	*lower = sl_hist_lower_sub(i, SL_HIST_SUB_BITS);
	/* The last bucket would end at 2^64. */
	*upper = i == SL_HIST_BUCKETS - 1 ? UINT64_MAX : sl_hist_lower_sub(i + 1, SL_HIST_SUB_BITS);
}

uint64_t sl_hist_rank(uint64_t n, double q)
{
	if (n == 0)
		return 0;
	if (!(q > 0))      /* also NaN */
		q = 0;
	if (q > 1)
		q = 1;
	double x = q * (double)n;
	double near = nearbyint(x);
	if (fabs(x - near) <= 1e-9 * x)
		x = near;
	uint64_t r = (uint64_t)ceil(x);
	if (r < 1)
		r = 1;
	if (r > n)
		r = n;
	return r;
}

uint64_t sl_hist_percentile(const struct sl_hist *h, double q)
{
	uint64_t n = sl_hist_count(h);
	if (n == 0)
		return 0;
	uint64_t lo = sl_counter_read(&h->min), hi = sl_counter_read(&h->max);
	uint64_t r = sl_hist_rank(n, q);
	if (r == 1 && !(q > 0))
		return lo;
	if (r == n && q >= 1)
		return hi;

	unsigned i = sl_hist_shape_find(SL_HIST_SHAPE, h->buckets, r);
	/* Only if the buckets were read behind the count (a writer is busy). */
	if (i == SL_HIST_BUCKETS)
		return hi;
	uint64_t lower, upper;
	sl_hist_bounds(i, &lower, &upper);
	uint64_t v = lower + (upper - lower) / 2;
	if (v < lo)
		v = lo;
	if (v > hi)
		v = hi;
	return v;
}

unsigned sl_hist_next(const struct sl_hist *h, unsigned from, struct sl_hist_bucket *b)
{
	for (unsigned i = from; i < SL_HIST_BUCKETS; i++) {
		uint64_t c = sl_counter_read(&h->buckets[i]);
		if (c == 0)
			continue;
		sl_hist_bounds(i, &b->lower, &b->upper);
		b->count = c;
		return i;
	}
	return SL_HIST_BUCKETS;
}

/* ------------------------------------------------------------ compact */

void sl_hist_sums_merge(struct sl_hist_sums *dst, uint64_t *dst_buckets,
			const struct sl_hist_sums *src, const uint64_t *src_buckets,
			struct sl_hist_shape s)
{
	sl_counter_add(&dst->count, sl_counter_read(&src->count));
	sl_counter_add(&dst->sum, sl_counter_read(&src->sum));
	sl_counter_max(&dst->max, sl_counter_read(&src->max));
	for (unsigned i = 0; i < s.buckets; i++)
		sl_counter_add(&dst_buckets[i], sl_counter_read(&src_buckets[i]));
}

uint64_t sl_hist_shape_total(struct sl_hist_shape s, const uint64_t *buckets)
{
	uint64_t n = 0;
	for (unsigned i = 0; i < s.buckets; i++)
		n += sl_counter_read(&buckets[i]);
	return n;
}

unsigned sl_hist_shape_find(struct sl_hist_shape s, const uint64_t *buckets, uint64_t rank)
{
	uint64_t seen = 0;
	for (unsigned i = 0; i < s.buckets; i++) {
		seen += sl_counter_read(&buckets[i]);
		if (seen >= rank)
			return i;
	}
	return s.buckets;
}

unsigned sl_hist_shape_quantile(struct sl_hist_shape s, const uint64_t *buckets, uint64_t n,
				double q)
{
	if (n == 0)
		return s.buckets;
	return sl_hist_shape_find(s, buckets, sl_hist_rank(n, q));
}
