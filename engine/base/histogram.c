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

void sl_hist_bounds(unsigned i, uint64_t *lower, uint64_t *upper)
{
	unsigned group = i >> SL_HIST_SUB_BITS;

	if (group <= 1) {
		/* The exact range: one value per bucket. */
		*lower = i;
		*upper = (uint64_t)i + 1;
		return;
	}
	unsigned shift = group - 1;
	uint64_t mantissa = i - (shift << SL_HIST_SUB_BITS);   /* SUB .. 2 SUB - 1 */
	*lower = mantissa << shift;
	/* The last bucket would end at 2^64. */
	*upper = i == SL_HIST_BUCKETS - 1 ? UINT64_MAX : (mantissa + 1) << shift;
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

	uint64_t seen = 0;
	for (unsigned i = 0; i < SL_HIST_BUCKETS; i++) {
		seen += sl_counter_read(&h->buckets[i]);
		if (seen >= r) {
			uint64_t lower, upper;
			sl_hist_bounds(i, &lower, &upper);
			uint64_t v = lower + (upper - lower) / 2;
			if (v < lo)
				v = lo;
			if (v > hi)
				v = hi;
			return v;
		}
	}
	/* Only if the buckets were read behind the count (a writer is busy). */
	return hi;
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
