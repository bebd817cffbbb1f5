/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * engine/base/histogram.h and apps/probe/probe.h, without an EAL:
 *   - bucket bounds: buckets tile the uint64 range, every value lands in the
 *     bucket whose [lower, upper) holds it, no bucket is wider than
 *     lower / SL_HIST_SUB;
 *   - percentiles against a sorted reference (uniform, exponential, bimodal,
 *     heavy-tailed, constant, tiny sets): within SL_HIST_REL_ERROR, exact at
 *     q = 0 and q = 1;
 *   - merge equals recording the union; iteration lists every non-empty
 *     bucket once, in order;
 *   - compact shapes: the pool's (3, 304) and the interlinks' (2, 128)
 *     layouts bucket by bucket against the formulas they had before they used
 *     base/, record and merge of struct sl_hist_sums, the quantile bucket,
 *     and the ranks the two used to compute against sl_hist_rank() at the
 *     quantiles the engine reports;
 *   - the sequence check: in order, gaps, reordering, duplicates, a start
 *     above 0, a stream that wraps, packets older than the window, and random
 *     streams against a reference model;
 *   - the invariant TSC check on fake cpuinfo files.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "base/histogram.h"
#include "base/rand.h"
#include "apps/probe/probe.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

static uint64_t rng_state = 0x5eed1234abcdULL;
static uint64_t rnd(void)
{
	return sl_rand64(&rng_state);
}

static double rnd_unit(void)     /* (0, 1] */
{
	return ((double)(rnd() >> 11) + 1.0) / 9007199254740992.0;
}

static bool in_bucket(uint64_t v, unsigned i)
{
	uint64_t lo, hi;
	sl_hist_bounds(i, &lo, &hi);
	if (i == SL_HIST_BUCKETS - 1)
		return lo <= v;      /* ends at UINT64_MAX inclusive */
	return lo <= v && v < hi;
}

static void check_value(uint64_t v)
{
	unsigned i = sl_hist_index(v);
	CHECK(i < SL_HIST_BUCKETS, "value %" PRIu64 ": index %u out of range", v, i);
	if (i < SL_HIST_BUCKETS)
		CHECK(in_bucket(v, i), "value %" PRIu64 " is not in its bucket %u", v, i);
}

static void test_bounds(void)
{
	uint64_t prev_upper = 0;

	for (unsigned i = 0; i < SL_HIST_BUCKETS; i++) {
		uint64_t lo, hi;
		sl_hist_bounds(i, &lo, &hi);
		CHECK(lo == prev_upper, "bucket %u starts at %" PRIu64 ", the previous ends at %" PRIu64,
		      i, lo, prev_upper);
		CHECK(hi > lo, "bucket %u is empty", i);
		uint64_t width = hi - lo + (i == SL_HIST_BUCKETS - 1 ? 1 : 0);
		if (lo < 2 * SL_HIST_SUB)
			CHECK(width == 1, "bucket %u below 2 x SUB has width %" PRIu64, i, width);
		else
			CHECK(width * SL_HIST_SUB <= lo,
			      "bucket %u [%" PRIu64 ", %" PRIu64 ") is wider than lower / %u", i, lo,
			      hi, SL_HIST_SUB);
		CHECK(sl_hist_index(lo) == i, "index(lower of %u) = %u", i, sl_hist_index(lo));
		CHECK(sl_hist_index(hi - 1) == i || i == SL_HIST_BUCKETS - 1,
		      "index(upper - 1 of %u) = %u", i, sl_hist_index(hi - 1));
		prev_upper = hi;
	}
	CHECK(prev_upper == UINT64_MAX, "the last bucket ends at %" PRIu64, prev_upper);
	CHECK(sl_hist_index(UINT64_MAX) == SL_HIST_BUCKETS - 1, "UINT64_MAX is not in the last bucket");

	for (uint64_t v = 0; v < 100000; v++)
		check_value(v);
	for (unsigned k = 0; k < 64; k++) {
		uint64_t p = UINT64_C(1) << k;
		check_value(p);
		check_value(p - 1);
		check_value(p + 1);
		check_value(p | (p - 1));
	}
	for (unsigned n = 0; n < 200000; n++)
		check_value(rnd() >> (rnd() % 64));   /* every magnitude */
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

enum dist { UNIFORM, EXPONENTIAL, BIMODAL, HEAVY_TAIL, CONSTANT, SMALL, N_DIST };
static const char *const dist_name[] = { "uniform", "exponential", "bimodal", "heavy-tail",
					 "constant", "small" };

static uint64_t draw(enum dist d)
{
	switch (d) {
	case UNIFORM:      /* 1 us .. 1 ms */
		return 1000 + rnd() % 999000;
	case EXPONENTIAL:  /* mean 5 us */
		return (uint64_t)(-log(rnd_unit()) * 5000.0);
	case BIMODAL:      /* 90% around 2 us, 10% around 80 us */
		return rnd() % 10 != 0 ? 1900 + rnd() % 200 : 78000 + rnd() % 4000;
	case HEAVY_TAIL: { /* Pareto, alpha 1.1, from 500 ns: a tail into seconds */
		double v = 500.0 / pow(rnd_unit(), 1.0 / 1.1);
		return v > 1e15 ? UINT64_C(1000000000000000) : (uint64_t)v;
	}
	case CONSTANT:
		return 4242;
	case SMALL:        /* the exact range */
		return rnd() % 70;
	default:
		return 0;
	}
}

static const double quantiles[] = { 0, 0.0001, 0.001, 0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99,
				    0.999, 0.9999, 1 };

static void check_percentiles(const char *what, const struct sl_hist *h, uint64_t *ref, size_t n)
{
	qsort(ref, n, sizeof(*ref), cmp_u64);
	CHECK(sl_hist_count(h) == n, "%s: count %" PRIu64 ", recorded %zu", what,
	      sl_hist_count(h), n);
	CHECK(sl_hist_min(h) == ref[0], "%s: min %" PRIu64 ", exact %" PRIu64, what,
	      sl_hist_min(h), ref[0]);
	CHECK(sl_hist_max(h) == ref[n - 1], "%s: max %" PRIu64 ", exact %" PRIu64, what,
	      sl_hist_max(h), ref[n - 1]);
	uint64_t last = 0;
	for (unsigned k = 0; k < ARRAY_LEN(quantiles); k++) {
		double q = quantiles[k];
		uint64_t exact = ref[sl_hist_rank(n, q) - 1];
		uint64_t got = sl_hist_percentile(h, q);
		uint64_t diff = got > exact ? got - exact : exact - got;
		/* |got - exact| <= exact x SL_HIST_REL_ERROR, in integers. */
		CHECK(diff * 2 * SL_HIST_SUB <= exact,
		      "%s (n %zu): p%g is %" PRIu64 ", exact %" PRIu64 " (error %.4f%%)", what, n,
		      q * 100, got, exact, exact ? 100.0 * (double)diff / (double)exact : 0.0);
		if (q == 0 || q == 1)
			CHECK(got == exact, "%s: p%g is %" PRIu64 ", must be exact %" PRIu64, what,
			      q * 100, got, exact);
		CHECK(got >= last, "%s: p%g %" PRIu64 " below the previous quantile's %" PRIu64,
		      what, q * 100, got, last);
		last = got;
	}
}

static struct sl_hist h1, h2, h3, hm;

static void test_percentiles(void)
{
	static const size_t sizes[] = { 1, 2, 3, 10, 1000, 200000 };
	uint64_t *ref = malloc(200000 * sizeof(*ref));

	for (int d = 0; d < N_DIST; d++)
		for (unsigned s = 0; s < ARRAY_LEN(sizes); s++) {
			size_t n = sizes[s];
			char what[64];
			snprintf(what, sizeof(what), "%s", dist_name[d]);
			sl_hist_init(&h1);
			for (size_t i = 0; i < n; i++) {
				ref[i] = draw((enum dist)d);
				sl_hist_record(&h1, ref[i]);
			}
			check_percentiles(what, &h1, ref, n);
		}

	/* Rank: q x n is taken as the integer it is meant to be. */
	CHECK(sl_hist_rank(20000, 0.99) == 19800, "rank(20000, 0.99) = %" PRIu64,
	      sl_hist_rank(20000, 0.99));
	CHECK(sl_hist_rank(1000, 0.999) == 999, "rank(1000, 0.999) = %" PRIu64,
	      sl_hist_rank(1000, 0.999));
	CHECK(sl_hist_rank(10, 0.55) == 6, "rank(10, 0.55) = %" PRIu64, sl_hist_rank(10, 0.55));
	CHECK(sl_hist_rank(10, 0) == 1 && sl_hist_rank(10, 1) == 10 && sl_hist_rank(10, 2) == 10 &&
	      sl_hist_rank(10, -1) == 1 && sl_hist_rank(0, 0.5) == 0, "rank at the edges");

	/* Values at the top of the range. */
	sl_hist_init(&h1);
	ref[0] = UINT64_MAX;
	ref[1] = UINT64_MAX - 1;
	ref[2] = UINT64_C(1) << 63;
	for (int i = 0; i < 3; i++)
		sl_hist_record(&h1, ref[i]);
	check_percentiles("top of the range", &h1, ref, 3);

	/* Empty. */
	struct sl_hist_bucket b;
	sl_hist_init(&h1);
	CHECK(sl_hist_count(&h1) == 0 && sl_hist_min(&h1) == 0 && sl_hist_max(&h1) == 0 &&
	      sl_hist_percentile(&h1, 0.5) == 0, "an empty histogram reads 0");
	CHECK(sl_hist_next(&h1, 0, &b) == SL_HIST_BUCKETS, "an empty histogram has a bucket");
	free(ref);
}

static bool same(const struct sl_hist *a, const struct sl_hist *b)
{
	if (sl_hist_count(a) != sl_hist_count(b) || sl_hist_min(a) != sl_hist_min(b) ||
	    sl_hist_max(a) != sl_hist_max(b))
		return false;
	return memcmp(a->buckets, b->buckets, sizeof(a->buckets)) == 0;
}

static void test_merge_and_iterate(void)
{
	sl_hist_init(&h1);
	sl_hist_init(&h2);
	sl_hist_init(&h3);
	for (int i = 0; i < 50000; i++) {
		uint64_t a = draw(BIMODAL), b = draw(HEAVY_TAIL);
		sl_hist_record(&h1, a);
		sl_hist_record(&h2, b);
		sl_hist_record(&h3, a);
		sl_hist_record(&h3, b);
	}
	sl_hist_init(&hm);
	sl_hist_merge(&hm, &h1);
	CHECK(same(&hm, &h1), "merging into an empty histogram is a copy");
	sl_hist_merge(&hm, &h2);
	CHECK(same(&hm, &h3), "merge differs from recording the union");
	struct sl_hist_bucket b;
	sl_hist_init(&h1);
	sl_hist_merge(&hm, &h1);
	CHECK(same(&hm, &h3), "merging an empty histogram changed something");
	sl_hist_merge(&h1, &hm);
	CHECK(same(&h1, &h3), "merge into an empty one after the fact");

	/* Iteration: non-empty buckets, in order, each once, summing to count. */
	uint64_t total = 0, prev_upper = 0;
	unsigned listed = 0, nonempty = 0;
	for (unsigned i = 0; i < SL_HIST_BUCKETS; i++)
		nonempty += h3.buckets[i] != 0;
	for (unsigned i = sl_hist_next(&h3, 0, &b); i < SL_HIST_BUCKETS;
	     i = sl_hist_next(&h3, i + 1, &b)) {
		uint64_t lo, hi;
		sl_hist_bounds(i, &lo, &hi);
		CHECK(b.count > 0 && b.count == h3.buckets[i], "bucket %u: count %" PRIu64, i, b.count);
		CHECK(b.lower == lo && b.upper == hi, "bucket %u: bounds", i);
		CHECK(listed == 0 || b.lower >= prev_upper, "bucket %u out of order", i);
		prev_upper = b.upper;
		total += b.count;
		listed++;
	}
	CHECK(listed == nonempty, "iteration listed %u buckets, %u are non-empty", listed, nonempty);
	CHECK(total == sl_hist_count(&h3), "iteration sums to %" PRIu64 ", count %" PRIu64, total,
	      sl_hist_count(&h3));
	CHECK(sl_hist_count(&h3) == 100000, "count %" PRIu64, sl_hist_count(&h3));
}

/* ------------------------------------------------------------ compact shapes */

/* The pool's and the interlinks' own layouts before they used base/: the
 * reference that the shapes must reproduce bucket for bucket. */
static unsigned ref_pool_bucket(uint64_t ns)
{
	if (ns < 8)
		return (unsigned)ns;
	unsigned msb = 63u - (unsigned)__builtin_clzll(ns);
	unsigned i = (msb - 3 + 1) * 8 + (unsigned)((ns >> (msb - 3)) & 7);
	return i < 304 ? i : 303;
}

static uint64_t ref_pool_lower(unsigned i)
{
	if (i < 8)
		return i;
	return (uint64_t)(8 + i % 8) << (i / 8 - 1);
}

static unsigned ref_il_bucket(uint64_t v)
{
	if (v < 4)
		return (unsigned)v;
	unsigned e = 63u - (unsigned)__builtin_clzll(v);
	unsigned b = (e - 1) * 4 + (unsigned)((v >> (e - 2)) & 3);
	return b < 128 ? b : 127;
}

static uint64_t ref_il_lower(unsigned b)
{
	if (b < 4)
		return b;
	return (uint64_t)(4 + b % 4) << (b / 4 - 1);
}

static void test_shapes(void)
{
	const struct sl_hist_shape pool = { 3, 304 }, il = { 2, 128 };
	unsigned bad_pool = 0, bad_il = 0;
	for (unsigned i = 0; i <= 304; i++)
		bad_pool += sl_hist_lower_sub(i, 3) != ref_pool_lower(i);
	for (unsigned i = 0; i <= 128; i++)
		bad_il += sl_hist_lower_sub(i, 2) != ref_il_lower(i);
	CHECK(bad_pool == 0 && bad_il == 0, "lower bounds differ: pool %u, interlink %u",
	      bad_pool, bad_il);
	uint64_t samples[] = { 0, 1, 3, 4, 7, 8, 9, 15, 16, 17, 31, 32, 33, 1000, 4095, 4096,
			       (1ull << 33) - 1, 1ull << 33, (1ull << 40) + 5, UINT64_MAX };
	for (size_t k = 0; k < ARRAY_LEN(samples); k++) {
		uint64_t v = samples[k];
		CHECK(sl_hist_shape_index(pool, v) == ref_pool_bucket(v), "pool: %" PRIu64, v);
		CHECK(sl_hist_shape_index(il, v) == ref_il_bucket(v), "interlink: %" PRIu64, v);
	}
	for (int n = 0; n < 200000; n++) {
		uint64_t v = rnd() >> (rnd() & 63);
		if (sl_hist_shape_index(pool, v) != ref_pool_bucket(v) ||
		    sl_hist_shape_index(il, v) != ref_il_bucket(v)) {
			CHECK(0, "random value %" PRIu64 " lands elsewhere", v);
			break;
		}
	}
	/* The full shape is struct sl_hist's layout. */
	for (unsigned i = 0; i < SL_HIST_BUCKETS; i += 7) {
		uint64_t lo, hi;
		sl_hist_bounds(i, &lo, &hi);
		CHECK(sl_hist_lower_sub(i, SL_HIST_SUB_BITS) == lo &&
		      sl_hist_shape_index(SL_HIST_SHAPE, lo) == i &&
		      sl_hist_shape_index(SL_HIST_SHAPE, hi - 1) == i, "full shape, bucket %u", i);
	}
}

static void test_sums(void)
{
	const struct sl_hist_shape s = { 3, 304 };
	static uint64_t b1[304], b2[304], bm[304];
	struct sl_hist_sums t1 = { 0 }, t2 = { 0 }, tm = { 0 };
	CHECK(sl_hist_shape_quantile(s, b1, 0, 0.5) == 304, "empty: no bucket");
	for (uint64_t v = 1; v <= 1000; v++)
		sl_hist_sums_record(&t1, b1, s, v * 10);
	sl_hist_sums_record(&t2, b2, s, UINT64_MAX);
	CHECK(t1.count == 1000 && t1.sum == 5005000 && t1.max == 10000, "count %" PRIu64
	      " sum %" PRIu64 " max %" PRIu64, t1.count, t1.sum, t1.max);
	CHECK(b2[303] == 1 && t2.max == UINT64_MAX, "past the cut: the last bucket");
	CHECK(sl_hist_shape_total(s, b1) == 1000, "total");
	sl_hist_sums_merge(&tm, bm, &t1, b1, s);
	CHECK(tm.count == t1.count && tm.sum == t1.sum && tm.max == t1.max &&
	      memcmp(bm, b1, sizeof(bm)) == 0, "merging into a zeroed one copies");
	sl_hist_sums_merge(&tm, bm, &t2, b2, s);
	CHECK(tm.count == 1001 && tm.max == UINT64_MAX && bm[303] == 1, "merge adds");
	/* Quantile buckets: rank 500 of 1000 is 5000, rank 999 is 9990. */
	unsigned i = sl_hist_shape_quantile(s, b1, 1000, 0.5);
	CHECK(sl_hist_lower_sub(i, 3) <= 5000 && 5000 < sl_hist_lower_sub(i + 1, 3), "p50 bucket %u", i);
	i = sl_hist_shape_quantile(s, b1, 1000, 0.999);
	CHECK(sl_hist_lower_sub(i, 3) <= 9990 && 9990 < sl_hist_lower_sub(i + 1, 3), "p99.9 bucket %u", i);
	CHECK(sl_hist_shape_find(s, b1, 1001) == 304, "a rank past the total: no bucket");
}

/* The pool ranked with (uint64_t)(q n + 0.999999), the interlinks with the
 * exact ceil(q n); both at least 1.  At the quantiles the engine, the tests
 * and the benches report, both agree with sl_hist_rank() for every count up
 * to 10^6: the summaries' and telemetry's values are unchanged. */
static void test_old_ranks(void)
{
	static const double qs[] = { 0.5, 0.9, 0.99, 0.999, 1.0 };
	unsigned bad = 0;
	for (size_t k = 0; k < ARRAY_LEN(qs); k++) {
		double q = qs[k];
		for (uint64_t n = 1; n <= 1000000; n++) {
			uint64_t r = sl_hist_rank(n, q);
			uint64_t pool = (uint64_t)(q * (double)n + 0.999999);
			uint64_t il = (uint64_t)(q * (double)n);
			if ((double)il < q * (double)n)
				il++;
			if (pool == 0)
				pool = 1;
			if (il == 0)
				il = 1;
			if (r != pool || r != il) {
				if (bad++ < 5)
					CHECK(0, "q %g n %" PRIu64 ": rank %" PRIu64 ", pool's %" PRIu64
					      ", interlink's %" PRIu64, q, n, r, pool, il);
			}
		}
	}
	CHECK(bad == 0, "%u counts ranked differently", bad);
}

/* ------------------------------------------------------------ sequences */

static void feed(struct sl_seq *s, const uint64_t *seq, size_t n)
{
	for (size_t i = 0; i < n; i++)
		sl_seq_check(s, seq[i]);
}

#define EXPECT_SEQ(what, s, l, r, d)                                               \
	CHECK((s).lost == (l) && (s).reordered == (r) && (s).duplicates == (d),    \
	      "%s: lost %" PRIu64 " reordered %" PRIu64 " duplicates %" PRIu64       \
	      ", expected %d %d %d", what, (s).lost, (s).reordered, (s).duplicates, \
	      (int)(l), (int)(r), (int)(d))

static void test_seq(void)
{
	struct sl_seq s;

	sl_seq_init(&s, 0);
	for (uint64_t i = 0; i < 5000; i++)
		sl_seq_check(&s, i);
	EXPECT_SEQ("in order", s, 0, 0, 0);
	CHECK(s.next == 5000, "next %" PRIu64, s.next);

	sl_seq_init(&s, 0);
	feed(&s, (uint64_t[]){ 0, 1, 2, 5, 6, 10 }, 6);
	EXPECT_SEQ("gaps", s, 5, 0, 0);

	sl_seq_init(&s, 0);
	feed(&s, (uint64_t[]){ 0, 1, 3, 2, 4 }, 5);
	EXPECT_SEQ("one swapped pair", s, 0, 1, 0);

	sl_seq_init(&s, 0);
	feed(&s, (uint64_t[]){ 0, 1, 1, 2 }, 4);
	EXPECT_SEQ("a duplicate", s, 0, 1, 1);

	sl_seq_init(&s, 0);
	feed(&s, (uint64_t[]){ 0, 2, 1, 1, 3 }, 5);
	EXPECT_SEQ("a late packet, then its duplicate", s, 0, 2, 1);

	sl_seq_init(&s, 0);
	feed(&s, (uint64_t[]){ 5, 6, 7 }, 3);
	EXPECT_SEQ("the stream starts at 5: 0..4 lost", s, 5, 0, 0);

	sl_seq_init(&s, 100);
	feed(&s, (uint64_t[]){ 100, 99, 101 }, 3);
	EXPECT_SEQ("a number before the start counts as seen", s, 0, 1, 1);

	/* Two paths joined: bursts of 4 alternate, the second path one burst late. */
	sl_seq_init(&s, 0);
	feed(&s, (uint64_t[]){ 0, 1, 2, 3, 8, 9, 10, 11, 4, 5, 6, 7, 12, 13, 14, 15 }, 16);
	EXPECT_SEQ("a burst overtaken", s, 0, 4, 0);

	sl_seq_init(&s, 0);
	sl_seq_check(&s, 0);
	sl_seq_check(&s, 1000);
	for (uint64_t x = 999; x >= 1; x--)
		sl_seq_check(&s, x);
	EXPECT_SEQ("999 late, all within the window", s, 0, 999, 0);
	CHECK(s.stale == 0, "stale %" PRIu64, s.stale);

	sl_seq_init(&s, 0);
	sl_seq_check(&s, 0);
	sl_seq_check(&s, 5000);
	EXPECT_SEQ("a gap longer than the window", s, 4999, 0, 0);
	sl_seq_check(&s, 4990);
	sl_seq_check(&s, 4990);
	EXPECT_SEQ("late within the window after a long gap, then again", s, 4998, 2, 1);
	sl_seq_check(&s, 3);
	EXPECT_SEQ("older than the window", s, 4997, 3, 1);
	CHECK(s.stale == 1, "stale %" PRIu64, s.stale);

	/* Wrap: a stream whose numbers pass 2^64. */
	sl_seq_init(&s, UINT64_MAX - 2);
	feed(&s, (uint64_t[]){ UINT64_MAX - 2, UINT64_MAX - 1, UINT64_MAX, 0, 1, 2 }, 6);
	EXPECT_SEQ("in order across the wrap", s, 0, 0, 0);
	sl_seq_init(&s, UINT64_MAX - 1);
	feed(&s, (uint64_t[]){ UINT64_MAX - 1, 1 }, 2);
	EXPECT_SEQ("a gap across the wrap", s, 2, 0, 0);
	sl_seq_check(&s, 0);
	EXPECT_SEQ("a late packet across the wrap", s, 1, 1, 0);
	sl_seq_check(&s, UINT64_MAX);
	sl_seq_check(&s, UINT64_MAX);
	EXPECT_SEQ("the last gap filled, then a duplicate", s, 0, 3, 1);

	/* Random streams against a model: numbers 0..N-1, each dropped with
	 * probability 1/50, duplicated with 1/200, and displaced by less than
	 * 256 places (within the window).  The model: lost = numbers below the
	 * highest seen that never arrived; reordered = arrivals not above the
	 * highest seen before them (duplicates included). */
	enum { N = 100000 };
	uint64_t *arr = malloc(2 * N * sizeof(*arr));
	uint8_t *got = calloc(N, 1);
	for (int round = 0; round < 20; round++) {
		size_t m = 0;
		for (uint64_t i = 0; i < N; i++) {
			if (rnd() % 50 == 0)
				continue;
			arr[m++] = i;
			if (rnd() % 200 == 0)
				arr[m++] = i;
		}
		/* Shuffle a quarter of the blocks of 256 places, so that nothing
		 * moves more than 255 places (well within the window). */
		for (size_t b0 = 0; b0 < m; b0 += 256) {
			size_t len = m - b0 < 256 ? m - b0 : 256;
			if (rnd() % 4 != 0)
				continue;
			for (size_t i = len - 1; i > 0; i--) {
				size_t j = rnd() % (i + 1);
				uint64_t t = arr[b0 + i];
				arr[b0 + i] = arr[b0 + j];
				arr[b0 + j] = t;
			}
		}
		memset(got, 0, N);
		uint64_t hi = 0, reordered = 0, dups = 0;
		bool any = false;
		for (size_t i = 0; i < m; i++) {
			if (any && arr[i] <= hi)
				reordered++;
			if (got[arr[i]])
				dups++;
			got[arr[i]] = 1;
			if (!any || arr[i] > hi)
				hi = arr[i];
			any = true;
		}
		uint64_t lost = 0;
		for (uint64_t x = 0; x < hi; x++)
			lost += !got[x];
		sl_seq_init(&s, 0);
		feed(&s, arr, m);
		CHECK(s.lost == lost && s.reordered == reordered && s.duplicates == dups &&
		      s.stale == 0,
		      "random stream %d: lost %" PRIu64 " reordered %" PRIu64 " duplicates %" PRIu64
		      " stale %" PRIu64 ", the model says %" PRIu64 " %" PRIu64 " %" PRIu64 " 0",
		      round, s.lost, s.reordered, s.duplicates, s.stale, lost, reordered, dups);
	}
	free(arr);
	free(got);
}

/* ------------------------------------------------------------ TSC check */

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	if (f == NULL) {
		perror(path);
		exit(1);
	}
	fputs(text, f);
	fclose(f);
}

static void test_tsc_check(void)
{
	char dir[] = "/tmp/sluice-test-cpuinfo.XXXXXX";
	char path[256];
	struct sl_err err = { "" };
	static const char good[] =
		"processor\t: 0\nflags\t\t: fpu tsc constant_tsc rep_good nopl nonstop_tsc cpuid\n\n"
		"processor\t: 1\nflags\t\t: fpu tsc constant_tsc nonstop_tsc\n";
	static const char one_cpu_without[] =
		"processor\t: 0\nflags\t\t: fpu tsc constant_tsc nonstop_tsc\n\n"
		"processor\t: 1\nflags\t\t: fpu tsc constant_tsc\n";
	static const char look_alike[] =
		"processor\t: 0\nflags\t\t: fpu xconstant_tsc nonstop_tsc_2 constant_tsc\n";
	static const char no_flags[] = "processor\t: 0\nFeatures\t: fp asimd\n";

	if (mkdtemp(dir) == NULL) {
		perror("mkdtemp");
		failures++;
		return;
	}
	snprintf(path, sizeof(path), "%s/cpuinfo", dir);

	write_file(path, good);
	CHECK(sl_probe_check_tsc_file(path, &err) == 0, "both flags on every CPU: %s", err.msg);

	const struct { const char *text, *what; } bad[] = {
		{ one_cpu_without, "one CPU without nonstop_tsc" },
		{ look_alike, "look-alike words" },
		{ no_flags, "no flags line" },
		{ "", "an empty file" },
	};
	char want[512];
	snprintf(want, sizeof(want),
		 "the TSC is not invariant on this machine (no constant_tsc/nonstop_tsc in %s); "
		 "latency stamps would be wrong", path);
	for (unsigned i = 0; i < ARRAY_LEN(bad); i++) {
		write_file(path, bad[i].text);
		err.msg[0] = '\0';
		int rc = sl_probe_check_tsc_file(path, &err);
		CHECK(rc == -ENOTSUP, "%s: rc %d", bad[i].what, rc);
		CHECK(strcmp(err.msg, want) == 0, "%s: message '%s'", bad[i].what, err.msg);
	}

#ifdef RTE_ARCH_X86
	/* SLUICE_CPUINFO names the file to read. */
	write_file(path, one_cpu_without);
	setenv(SL_PROBE_CPUINFO_ENV, path, 1);
	CHECK(sl_probe_check_tsc(&err) == -ENOTSUP, "SLUICE_CPUINFO is not read");
	write_file(path, good);
	CHECK(sl_probe_check_tsc(&err) == 0, "SLUICE_CPUINFO (good): %s", err.msg);
	unsetenv(SL_PROBE_CPUINFO_ENV);
#endif

	unlink(path);
	err.msg[0] = '\0';
	int rc = sl_probe_check_tsc_file(path, &err);
	CHECK(rc == -ENOENT, "a missing file: rc %d", rc);
	CHECK(strstr(err.msg, "cannot read") != NULL && strstr(err.msg, path) != NULL,
	      "a missing file: message '%s'", err.msg);
	rmdir(dir);
}

static const struct sl_test_case cases[] = {
	SL_CASE(test_bounds),
	SL_CASE(test_percentiles),
	SL_CASE(test_merge_and_iterate),
	SL_CASE(test_shapes),
	SL_CASE(test_sums),
	SL_CASE(test_old_ranks),
	SL_CASE(test_seq),
	SL_CASE(test_tsc_check),
};

int main(int argc, char **argv)
{
	return sl_test_main(argc, argv, cases, SL_NCASES(cases));
}
