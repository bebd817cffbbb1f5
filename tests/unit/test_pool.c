/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The buffer pool without DPDK's EAL: the chunk queue (order, full, empty,
 * 64-bit sequence wrap-around), options, chunk boundaries of rebalance and
 * reclaim, a cache in front of a worker, all-or-nothing gets, full and
 * empty events, the L3 tier, threads
 * that are not workers, the histograms, and that the tiers always account for
 * every object exactly once.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pool/chunkq.h"
#include "pool/pool.h"

#include "check.h"

#define N_OBJ 4096
static char arena[N_OBJ];

static void *obj(unsigned i)
{
	return &arena[i];
}

static const struct sl_pool_opts base = { .chunk = 64, .high = 128, .tsc_hz = 1000000000 };

/* Every object 0..n-1 is in the pool exactly once (and nothing else is). */
static void check_all_once(const struct sl_pool *p, unsigned n, const char *what)
{
	void **all = calloc(sl_pool_capacity(p), sizeof(void *));
	unsigned char *seen = calloc(N_OBJ, 1);
	unsigned got = sl_pool_snapshot(p, all);
	CHECK(got == n, "%s: snapshot holds %u objects, want %u", what, got, n);
	for (unsigned i = 0; i < got; i++) {
		ptrdiff_t k = (char *)all[i] - arena;
		if (k < 0 || k >= N_OBJ) {
			CHECK(0, "%s: foreign object %p", what, all[i]);
			continue;
		}
		CHECK(seen[k] == 0, "%s: object %td held twice", what, k);
		seen[k] = 1;
	}
	struct sl_pool_counts c;
	sl_pool_count(p, &c);
	CHECK(c.total == n, "%s: counts say %lu, want %u", what, (unsigned long)c.total, n);
	CHECK(c.total == c.workers + c.l3 + c.global + c.shared, "%s: sum", what);
	free(seen);
	free(all);
}

static void fill(struct sl_pool *p, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		CHECK(sl_pool_put(p, NULL, (void *const[]){ obj(i) }, 1) == 0, "fill %u", i);
}

/* ------------------------------------------------------------ chunk queue */

static void fill_chunk(void **c, unsigned chunk, unsigned tag)
{
	for (unsigned i = 0; i < chunk; i++)
		c[i] = obj((tag * chunk + i) % N_OBJ);
}

static bool chunk_is(void **c, unsigned chunk, unsigned tag)
{
	for (unsigned i = 0; i < chunk; i++)
		if (c[i] != obj((tag * chunk + i) % N_OBJ))
			return false;
	return true;
}

static void test_chunkq_order_full_empty(uint64_t first, const char *what)
{
	struct sl_chunkq q;
	void *c[64];
	CHECK(sl_chunkq_init(&q, 4, 64, first) == 0, "%s: init", what);
	CHECK(sl_chunkq_pop(&q, c) == -ENOENT, "%s: pop on empty", what);
	CHECK(sl_chunkq_count(&q) == 0, "%s: empty count", what);
	for (unsigned t = 0; t < 4; t++) {
		fill_chunk(c, 64, t);
		CHECK(sl_chunkq_push(&q, c) == 0, "%s: push %u", what, t);
	}
	CHECK(sl_chunkq_count(&q) == 4, "%s: count %lu", what, (unsigned long)sl_chunkq_count(&q));
	fill_chunk(c, 64, 99);
	CHECK(sl_chunkq_push(&q, c) == -ENOSPC, "%s: push on full", what);
	for (unsigned t = 0; t < 4; t++) {
		memset(c, 0, sizeof(c));
		CHECK(sl_chunkq_pop(&q, c) == 0 && chunk_is(c, 64, t), "%s: FIFO %u", what, t);
	}
	CHECK(sl_chunkq_pop(&q, c) == -ENOENT, "%s: empty again", what);
	/* Many laps, interleaved, across the wrap when first is near 2^64. */
	unsigned pushed = 0, popped = 0;
	for (unsigned round = 0; round < 1000; round++) {
		unsigned k = 1 + round % 4;
		for (unsigned i = 0; i < k; i++) {
			fill_chunk(c, 64, pushed);
			if (sl_chunkq_push(&q, c) == 0)
				pushed++;
		}
		CHECK(sl_chunkq_count(&q) == pushed - popped, "%s: count in round %u", what, round);
		for (unsigned i = 0; i < (round % 3) + 1; i++) {
			if (sl_chunkq_pop(&q, c) != 0)
				break;
			CHECK(chunk_is(c, 64, popped), "%s: chunk %u corrupted", what, popped);
			popped++;
		}
	}
	CHECK(pushed > 900, "%s: only %u pushes", what, pushed);
	uint64_t head = atomic_load(&q.head);
	CHECK(head - first == pushed + 4, "%s: head moved %lu", what, (unsigned long)(head - first));
	sl_chunkq_fini(&q);
}

/* One chunk of 64 objects at base + offs[i] (never dereferenced) through a
 * queue: it comes back the same, packed (32-bit deltas) or not as expected,
 * and sl_chunkq_read_at sees the same chunk. */
static void chunkq_round_trip(uintptr_t base, const int64_t *offs, bool packed, const char *what)
{
	struct sl_chunkq q;
	void *c[64], *got[64];
	CHECK(sl_chunkq_init(&q, 2, 64, 0) == 0, "%s: init", what);
	for (unsigned i = 0; i < 64; i++)
		c[i] = (void *)(base + (uintptr_t)offs[i]);
	CHECK(sl_chunkq_push(&q, c) == 0, "%s: push", what);
	const struct sl_chunkq_slot *s = (const void *)q.slots;
	CHECK(s->packed == packed, "%s: packed %u, want %u", what, s->packed, packed);
	CHECK(sl_chunkq_unpacked(&q) == !packed, "%s: unpacked counter %lu", what,
	      (unsigned long)sl_chunkq_unpacked(&q));
	memset(got, 0, sizeof(got));
	sl_chunkq_read_at(&q, 0, got);
	CHECK(memcmp(got, c, sizeof(c)) == 0, "%s: read_at", what);
	memset(got, 0, sizeof(got));
	CHECK(sl_chunkq_pop(&q, got) == 0 && memcmp(got, c, sizeof(c)) == 0, "%s: pop", what);
	sl_chunkq_fini(&q);
}

static void test_chunkq_packing(void)
{
	int64_t offs[64];
	const uintptr_t at = (uintptr_t)1 << 40;
	const int64_t far = (int64_t)1 << 34;   /* 16 GiB: 2^31 steps of 8 bytes */
	/* 8-byte aligned, before and after the first, in no order */
	for (unsigned i = 0; i < 64; i++)
		offs[i] = ((int64_t)((i * 37) % 64) - 20) * 2432;
	offs[0] = 0;
	chunkq_round_trip(at, offs, true, "mbuf stride");
	/* the edges of the 32-bit range, in steps of 8 bytes */
	offs[1] = far - 8;
	offs[2] = -far;
	chunkq_round_trip(at, offs, true, "edges");
	offs[1] = far;
	chunkq_round_trip(at, offs, false, "16 GiB after");
	offs[1] = 8;
	offs[2] = -far - 8;
	chunkq_round_trip(at, offs, false, "16 GiB and 8 bytes before");
	offs[2] = 16;
	offs[63] = 12;
	chunkq_round_trip(at, offs, false, "not 8-byte aligned");
	/* the lines one handoff makes cross: sequence there and back, and the
	 * deltas at 16 a line */
	struct sl_err err = { "" };
	struct sl_pool_opts o = base;
	o.chunk = 512;
	o.high = 0;
	struct sl_pool *p = sl_pool_create("handoff", 4096, &o, &err);
	CHECK(p != NULL && sl_pool_handoff_lines(p) == 2 + 32, "handoff lines, chunk 512: %u",
	      p ? sl_pool_handoff_lines(p) : 0);
	sl_pool_free(p);
	o.chunk = 65;
	p = sl_pool_create("handoff65", 4096, &o, &err);
	CHECK(p != NULL && sl_pool_handoff_lines(p) == 2 + 5, "handoff lines, chunk 65: %u",
	      p ? sl_pool_handoff_lines(p) : 0);
	sl_pool_free(p);
	/* The pool counts the chunks its queues took as pointers: the arena's
	 * objects, a byte apart, all; 8-byte aligned ones, none. */
	static uint64_t aligned[N_OBJ];
	struct sl_pool_stats st;
	for (unsigned k = 0; k < 2; k++) {
		o = base;
		p = sl_pool_create("unpacked", N_OBJ, &o, &err);
		CHECK(p != NULL, "create: %s", err.msg);
		if (p == NULL)
			return;
		for (unsigned i = 0; i < N_OBJ; i++)
			CHECK(sl_pool_put(p, NULL, (void *const[]){ k ? (void *)&aligned[i] : obj(i) },
					  1) == 0, "put %u", i);
		sl_pool_stats(p, &st);
		CHECK(st.global_chunks > 0, "%s: no chunk in the global queue", k ? "aligned" : "arena");
		CHECK(st.unpacked == (k ? 0 : st.global_chunks), "%s: %lu of %lu chunks unpacked",
		      k ? "aligned" : "arena", (unsigned long)st.unpacked,
		      (unsigned long)st.global_chunks);
		sl_pool_free(p);
	}
}

static void test_chunkq(void)
{
	struct sl_chunkq q;
	CHECK(sl_chunkq_init(&q, 3, 64, 0) == -EINVAL, "3 slots");
	CHECK(sl_chunkq_init(&q, 1, 64, 0) == -EINVAL, "1 slot");
	test_chunkq_order_full_empty(0, "from 0");
	test_chunkq_order_full_empty(UINT64_MAX - 1, "from 2^64-2");
	test_chunkq_order_full_empty(UINT64_MAX - 700, "from 2^64-701");
	/* The layout: a slot's sequence alone on a line, data from the next. */
	CHECK(sl_chunkq_init(&q, 2, 65, 0) == 0, "init 65");
	CHECK(q.stride == 64 + 576, "stride %zu", q.stride);
	CHECK((uintptr_t)q.slots % 64 == 0, "slots aligned");
	sl_chunkq_fini(&q);
}

/* ------------------------------------------------------------ options */

static void test_options(void)
{
	/* Each bad option: errno EINVAL and a sentence naming the pool. */
	struct {
		const char *what;
		const char *name;
		unsigned cap;
		struct sl_pool_opts o;
		const char *msg;   /* NULL: created */
	} cases[] = {
		{ "chunk 63", "p", 100, { .chunk = 63 },
		  "pool 'p': chunk must be 64..2048, got 63" },
		{ "chunk 2049", "rx", 100, { .chunk = 2049 },
		  "pool 'rx': chunk must be 64..2048, got 2049" },
		{ "high < chunk", "p", 100, { .chunk = 64, .high = 63 },
		  "pool 'p': high must be at least the chunk (64), got 63" },
		{ "l3_chunks 3", "p", 100, { .l3_chunks = 3 },
		  "pool 'p': l3_chunks must be a power of two >= 2, got 3" },
		{ "global_chunks 6", "p", 100, { .global_chunks = 6 },
		  "pool 'p': global_chunks must be a power of two >= 2, got 6" },
		{ "capacity 0", "p", 0, { 0 }, "pool 'p': capacity must be 1..1073741824, got 0" },
		{ "capacity 2^30 + 1", "p", (1u << 30) + 1, { 0 },
		  "pool 'p': capacity must be 1..1073741824, got 1073741825" },
		{ "no name", "", 100, { 0 }, "pool: the name is empty" },
		{ "NULL name", NULL, 100, { 0 }, "pool: the name is empty" },
		{ "long name", "01234567890123456789012345678901", 100, { 0 },
		  "pool '01234567890123456789012345678901': the name is longer than 31 "
		  "characters" },
		{ "workers", "p", 100, { .n_workers = SL_POOL_WORKERS_MAX + 1 },
		  "pool 'p': n_workers must be at most 1024, got 1025" },
		{ "31-character name", "0123456789012345678901234567890", 100, { 0 }, NULL },
		{ "chunk 64", "p", 100, { .chunk = 64 }, NULL },
		{ "chunk 2048", "p", 100, { .chunk = 2048 }, NULL },
		{ "defaults", "p", 100, { 0 }, NULL },
	};
	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sl_err err = { "" };
		cases[i].o.tsc_hz = 1000000000;
		errno = 0;
		struct sl_pool *p = sl_pool_create(cases[i].name, cases[i].cap, &cases[i].o, &err);
		int e = errno;
		if (cases[i].msg == NULL) {
			CHECK(p != NULL, "%s: rejected (%s)", cases[i].what, err.msg);
		} else {
			CHECK(p == NULL && e == EINVAL && strcmp(err.msg, cases[i].msg) == 0,
			      "%s: errno %d (want EINVAL), '%s' (want '%s')", cases[i].what, e,
			      err.msg, cases[i].msg);
			CHECK(sl_pool_check(cases[i].name, cases[i].cap, &cases[i].o, NULL) ==
			      -EINVAL, "%s: sl_pool_check agrees", cases[i].what);
		}
		sl_pool_free(p);
	}
	errno = 0;
	CHECK(sl_pool_create("p", 0, NULL, NULL) == NULL && errno == EINVAL,
	      "err may be NULL: errno %d", errno);
	struct sl_pool *p = sl_pool_create("p", 100, NULL, NULL);
	CHECK(p != NULL && sl_pool_chunk(p) == SL_POOL_CHUNK_DEFAULT && sl_pool_n_workers(p) == 0,
	      "NULL options give the defaults");
	CHECK(sl_pool_worker(p, 0) == NULL, "no worker 0");
	struct sl_pool_tier_stats t;
	CHECK(sl_pool_tier_stats(p, 0, &t) == -EINVAL, "stats of a missing worker");
	sl_pool_free(p);
	sl_pool_free(NULL);
}

/* ------------------------------------------------------------ boundaries */

static void test_chunk_boundaries(void)
{
	struct sl_pool_opts o = base;
	o.n_workers = 1;
	struct sl_pool *p = sl_pool_create("bounds", 1000, &o, NULL);
	struct sl_pool_worker *w = sl_pool_worker(p, 0);
	fill(p, 1000);
	struct sl_pool_counts c;
	sl_pool_count(p, &c);
	CHECK(c.global == 960 && c.shared == 40 && c.workers == 0,
	      "after filling: global %lu shared %lu", (unsigned long)c.global,
	      (unsigned long)c.shared);
	struct sl_pool_tier_stats t;
	sl_pool_tier_stats(p, SL_POOL_NONWORKER, &t);
	CHECK(t.rebalances == 15 && t.puts == 1000 && t.depth == 40,
	      "non-worker: %lu chunks moved", (unsigned long)t.rebalances);

	/* One get: one chunk comes in, 63 stay. */
	void *b[1000];   /* the refused puts below pass 1000 */
	CHECK(sl_pool_get(p, w, b, 1) == 0, "get 1");
	sl_pool_tier_stats(p, 0, &t);
	CHECK(t.reclaims == 1 && t.depth == 63, "reclaim: %lu, depth %lu",
	      (unsigned long)t.reclaims, (unsigned long)t.depth);
	/* Exactly 64 more gets need one more chunk, on the 64th. */
	CHECK(sl_pool_get(p, w, b + 1, 63) == 0, "get 63");
	sl_pool_tier_stats(p, 0, &t);
	CHECK(t.reclaims == 1 && t.depth == 0, "depth 0 without a step");
	CHECK(sl_pool_get(p, w, b + 64, 1) == 0, "get the 65th");
	sl_pool_tier_stats(p, 0, &t);
	CHECK(t.reclaims == 2 && t.depth == 63, "second reclaim");

	/* Up to the high mark without a step, one over it moves one chunk. */
	CHECK(sl_pool_put(p, w, b, 65) == 0, "put 65");   /* depth 128 */
	CHECK(sl_pool_get(p, w, b, 64) == 0 && sl_pool_put(p, w, b, 64) == 0, "churn 64");
	CHECK(sl_pool_get(p, w, b, 1) == 0 && sl_pool_put(p, w, b, 1) == 0, "churn 1");
	sl_pool_tier_stats(p, 0, &t);
	CHECK(t.depth == 128 && t.rebalances == 0 && t.reclaims == 2,
	      "at the mark without a step: depth %lu", (unsigned long)t.depth);
	CHECK(sl_pool_get(p, w, b, 128) == 0, "get 128");   /* depth 0 */
	CHECK(sl_pool_get(p, w, b + 128, 1) == 0, "get 1");  /* reclaim: 63 */
	CHECK(sl_pool_put(p, w, b, 129) == 0, "put 129");    /* 192 -> 128 */
	sl_pool_tier_stats(p, 0, &t);
	CHECK(t.rebalances == 1 && t.reclaims == 3 && t.depth == 128,
	      "one step for a put of 129: %lu, depth %lu", (unsigned long)t.rebalances,
	      (unsigned long)t.depth);

	/* A get larger than a chunk moves ceil(missing / chunk) chunks. */
	CHECK(sl_pool_get(p, w, b, 128) == 0, "empty the freelist");
	sl_pool_tier_stats(p, 0, &t);
	uint64_t before = t.reclaims;
	CHECK(sl_pool_get(p, w, b + 128, 150) == 0, "get 150");
	sl_pool_tier_stats(p, 0, &t);
	CHECK(t.reclaims - before == 3 && t.depth == 192 - 150, "3 chunks for 150: %lu, depth %lu",
	      (unsigned long)(t.reclaims - before), (unsigned long)t.depth);
	/* A put larger than a chunk: at most ceil(n / chunk) steps. */
	CHECK(sl_pool_put(p, w, b, 278) == 0, "put 278");   /* 42 + 278 = 320 -> 128 */
	sl_pool_tier_stats(p, 0, &t);
	CHECK(t.depth == 128, "depth after a big put: %lu", (unsigned long)t.depth);
	check_all_once(p, 1000, "boundaries");

	/* Capacity: more objects than it can hold is refused, nothing taken. */
	CHECK(sl_pool_put(p, w, (void *const *)b, 1000) == -ENOSPC, "over capacity (worker)");
	CHECK(sl_pool_put(p, NULL, (void *const *)b, 1000) == -ENOSPC, "over capacity (non-worker)");
	check_all_once(p, 1000, "after refused puts");
	sl_pool_free(p);
}

/* A cache in front of a worker (as mempool.c puts DPDK's per-lcore cache):
 * its fill counts in the worker tier, and the freelist behind it keeps only
 * what whole chunks leave over (high mark chunk - 1). */
static void test_front(void)
{
	struct sl_pool_opts o = base;
	o.n_workers = 1;
	struct sl_pool *p = sl_pool_create("front", 1000, &o, NULL);
	struct sl_pool_worker *w = sl_pool_worker(p, 0);
	fill(p, 1000);
	uint32_t front = 0;
	sl_pool_worker_set_front(w, &front, 0);

	/* A refill of chunk + 10 (as DPDK asks): two chunks in, 54 left over. */
	void *b[300];
	CHECK(sl_pool_get(p, w, b, 74) == 0, "refill 74");
	struct sl_pool_tier_stats t;
	sl_pool_tier_stats(p, 0, &t);
	CHECK(t.reclaims == 2 && t.depth == 54, "refill: %lu chunks, depth %lu",
	      (unsigned long)t.reclaims, (unsigned long)t.depth);
	/* The objects now in the cache count in the worker tier. */
	front = 74;
	struct sl_pool_counts c;
	sl_pool_count(p, &c);
	CHECK(c.workers == 54 + 74 && c.cached == 74 && c.total == 1000,
	      "workers %lu (cached %lu), total %lu", (unsigned long)c.workers,
	      (unsigned long)c.cached, (unsigned long)c.total);
	sl_pool_tier_stats(p, 0, &t);
	CHECK(t.depth == 54 + 74, "tier depth with its front: %lu", (unsigned long)t.depth);
	/* A flush of 74: 128 behind the cache, two whole chunks go out. */
	front = 0;
	CHECK(sl_pool_put(p, w, b, 74) == 0, "flush 74");
	sl_pool_tier_stats(p, 0, &t);
	CHECK(t.rebalances == 2 && t.depth == 0, "flush: %lu chunks, depth %lu",
	      (unsigned long)t.rebalances, (unsigned long)t.depth);
	/* What does not make a whole chunk stays behind the cache; the put
	 * that completes one moves it. */
	CHECK(sl_pool_get(p, w, b, 10) == 0 && sl_pool_put(p, w, b, 5) == 0, "get 10, put 5");
	sl_pool_tier_stats(p, 0, &t);
	CHECK(t.rebalances == 2 && t.reclaims == 3 && t.depth == 59,
	      "less than a chunk: depth %lu", (unsigned long)t.depth);
	CHECK(sl_pool_put(p, w, b + 5, 5) == 0, "put 5");
	sl_pool_tier_stats(p, 0, &t);
	CHECK(t.rebalances == 3 && t.depth == 0, "a whole chunk: %lu, depth %lu",
	      (unsigned long)t.rebalances, (unsigned long)t.depth);
	CHECK(sl_pool_put(p, w, b, 0) == 0 && sl_pool_house(w) == 0, "house: nothing to do");
	check_all_once(p, 1000, "front");
	sl_pool_free(p);
}

/* ------------------------------------------------------------ empty and full */

static void test_empty(void)
{
	struct sl_pool_opts o = base;
	o.n_workers = 2;
	struct sl_pool *p = sl_pool_create("empty", 1000, &o, NULL);
	struct sl_pool_worker *w0 = sl_pool_worker(p, 0), *w1 = sl_pool_worker(p, 1);
	fill(p, 1000);
	static void *held[1000];
	unsigned n = 0;
	while (n + 32 <= 1000 && sl_pool_get(p, w0, held + n, 32) == 0)
		n += 32;
	/* 15 chunks and the 40 in the non-worker freelist: 1000 = 31 * 32 + 8 */
	CHECK(n == 992, "worker 0 got %u", n);
	void *probe[32];
	for (unsigned i = 0; i < 32; i++)
		probe[i] = (void *)(uintptr_t)0xdead;
	CHECK(sl_pool_get(p, w0, probe, 32) == -ENOBUFS, "empty for 32");
	bool untouched = true;
	for (unsigned i = 0; i < 32; i++)
		untouched &= probe[i] == (void *)(uintptr_t)0xdead;
	CHECK(untouched, "a failed get writes nothing");
	CHECK(sl_pool_get(p, w1, probe, 1) == -ENOBUFS, "worker 1 finds nothing");
	CHECK(sl_pool_get(p, NULL, probe, 1) == -ENOBUFS, "non-worker finds nothing");
	struct sl_pool_tier_stats t;
	sl_pool_tier_stats(p, 0, &t);
	CHECK(t.get_fails == 1 && t.empty >= 1 && t.reclaims_shared == 1,
	      "worker 0: fails %lu empty %lu from the non-worker freelist %lu",
	      (unsigned long)t.get_fails, (unsigned long)t.empty, (unsigned long)t.reclaims_shared);
	CHECK(sl_pool_get(p, w0, probe, 8) == 0, "the last 8");
	held[n++] = probe[0];
	for (unsigned i = 1; i < 8; i++)
		held[n++] = probe[i];
	CHECK(sl_pool_avail(p) == 0, "avail 0");
	/* All back through the other worker and a non-worker. */
	CHECK(sl_pool_put(p, w1, held, 500) == 0, "w1 put 500");
	CHECK(sl_pool_put(p, NULL, held + 500, 500) == 0, "non-worker put 500");
	check_all_once(p, 1000, "empty");
	sl_pool_free(p);
}

static void test_full(void)
{
	struct sl_pool_opts o = base;
	o.n_workers = 1;
	o.global_chunks = 2;
	struct sl_pool *p = sl_pool_create("full", 1000, &o, NULL);
	struct sl_pool_worker *w = sl_pool_worker(p, 0);
	fill(p, 1000);
	struct sl_pool_counts c;
	sl_pool_count(p, &c);
	CHECK(c.global == 128 && c.shared == 872, "global %lu shared %lu",
	      (unsigned long)c.global, (unsigned long)c.shared);
	struct sl_pool_tier_stats t;
	sl_pool_tier_stats(p, SL_POOL_NONWORKER, &t);
	CHECK(t.full > 0 && t.rebalances == 2, "non-worker full events %lu", (unsigned long)t.full);
	check_all_once(p, 1000, "full, non-worker");

	/* A worker takes everything, then gives it back: the queue fills, and
	 * the chunks that do not fit go to the non-worker freelist. */
	static void *held[1000];
	unsigned n = 0;
	while (n < 1000 && sl_pool_get(p, w, held + n, 1) == 0)
		n++;
	CHECK(n == 1000, "worker got %u", n);
	CHECK(sl_pool_put(p, w, held, 1000) == 0, "put all back");
	sl_pool_tier_stats(p, 0, &t);
	sl_pool_count(p, &c);
	CHECK(t.full == 0 && t.rebalances_shared > 0 && c.global == 128 && c.workers <= 128,
	      "worker: full %lu, to the non-worker freelist %lu, global %lu, freelist %lu",
	      (unsigned long)t.full, (unsigned long)t.rebalances_shared,
	      (unsigned long)c.global, (unsigned long)c.workers);
	check_all_once(p, 1000, "full, worker");

	/* With the non-worker lock taken too (a control thread in the middle of
	 * a call), chunks have nowhere to go: they stay above the mark, counted,
	 * until sl_pool_house() finds room. */
	n = 0;
	while (n < 1000 && sl_pool_get(p, w, held + n, 1) == 0)
		n++;
	CHECK(n == 1000, "worker got %u again", n);
	sl_pool_hold_shared_lock(p, true);
	CHECK(sl_pool_put(p, w, held, 1000) == 0, "put all back, lock taken");
	sl_pool_tier_stats(p, 0, &t);
	CHECK(t.full > 0 && t.depth > 128, "kept above the mark: full %lu, depth %lu",
	      (unsigned long)t.full, (unsigned long)t.depth);
	CHECK(sl_pool_house(w) == -ENOSPC, "house: still nowhere to go");
	sl_pool_hold_shared_lock(p, false);
	unsigned houses = 0;
	while (sl_pool_house(w) == -ENOSPC && houses < 100)
		houses++;
	sl_pool_tier_stats(p, 0, &t);
	CHECK(t.depth <= 128, "house brought the freelist to its mark: %lu after %u calls",
	      (unsigned long)t.depth, houses);
	CHECK(sl_pool_house(w) == 0, "house: nothing to do");
	check_all_once(p, 1000, "full, worker");
	sl_pool_free(p);
}

/* ------------------------------------------------------------ L3 tier */

static void test_l3_tier(void)
{
	const struct sl_pool_worker_cfg ws[] = { { 0, 7 }, { 0, 7 }, { 0, 9 }, { 0, 9 } };
	struct sl_pool_opts o = base;
	o.n_workers = 4;
	o.workers = ws;
	o.l3_tier = true;
	o.l3_chunks = 2;
	struct sl_pool *p = sl_pool_create("l3", 2000, &o, NULL);
	struct sl_pool_worker *w[4];
	for (unsigned i = 0; i < 4; i++)
		w[i] = sl_pool_worker(p, i);
	fill(p, 2000);
	struct sl_pool_stats s;
	sl_pool_stats(p, &s);
	CHECK(s.l3_domains == 2 && s.l3_slots == 2 && s.l3_chunks == 0,
	      "domains %lu slots %lu", (unsigned long)s.l3_domains, (unsigned long)s.l3_slots);

	/* Worker 0 takes 4 chunks and frees them: chunks beyond its high mark go
	 * to domain 7's queue (2 slots), then to the global queue. */
	static void *b[512];
	CHECK(sl_pool_get(p, w[0], b, 256) == 0, "w0 get 256");
	CHECK(sl_pool_put(p, w[0], b, 256) == 0, "w0 put 256");
	sl_pool_stats(p, &s);
	CHECK(s.l3_chunks == 2 && s.counts.workers == 128, "l3 holds %lu chunks, freelists %lu",
	      (unsigned long)s.l3_chunks, (unsigned long)s.counts.workers);
	/* Worker 1 (same domain) reuses them first. */
	CHECK(sl_pool_get(p, w[1], b, 64) == 0, "w1 get");
	struct sl_pool_tier_stats t;
	sl_pool_tier_stats(p, 1, &t);
	CHECK(t.reclaims == 1 && t.reclaims_l3 == 1, "w1 reclaimed from its domain: %lu",
	      (unsigned long)t.reclaims_l3);
	/* Worker 2 (domain 9) takes from the global queue, not from domain 7. */
	CHECK(sl_pool_get(p, w[2], b + 64, 64) == 0, "w2 get");
	sl_pool_tier_stats(p, 2, &t);
	CHECK(t.reclaims == 1 && t.reclaims_l3 == 0 && t.reclaims_remote == 0,
	      "w2 from the global queue");
	/* Drain the global queue and the non-worker freelist through worker 3;
	 * then it steals the last chunk in domain 7. */
	static void *held[2000];
	unsigned n = 0;
	while (sl_pool_get(p, w[3], held + n, 64) == 0)
		n += 64;
	sl_pool_tier_stats(p, 3, &t);
	CHECK(t.reclaims_remote == 1, "w3 stole %lu chunks from domain 7",
	      (unsigned long)t.reclaims_remote);
	CHECK(sl_pool_put(p, w[3], held, n) == 0, "w3 gives back");
	CHECK(sl_pool_put(p, w[1], b, 64) == 0 && sl_pool_put(p, w[2], b + 64, 64) == 0, "back");
	check_all_once(p, 2000, "l3");
	/* A non-worker that finds the global queue empty takes from a domain. */
	for (unsigned i = 0; i < 4; i++) {
		sl_pool_tier_stats(p, i, &t);
		CHECK(sl_pool_get(p, w[i], held, t.depth) == 0, "empty freelist %u", i);
		CHECK(sl_pool_put(p, NULL, held, t.depth) == 0, "to the non-worker tier");
	}
	n = 0;
	while (sl_pool_get(p, NULL, held + n, 100) == 0)
		n += 100;
	CHECK(n == 2000, "non-worker got %u of 2000", n);
	sl_pool_tier_stats(p, SL_POOL_NONWORKER, &t);
	sl_pool_stats(p, &s);
	CHECK(s.l3_chunks == 0 && t.reclaims_remote >= 1, "non-worker took from domains: %lu",
	      (unsigned long)t.reclaims_remote);
	CHECK(sl_pool_put(p, NULL, held, n) == 0, "all back");
	check_all_once(p, 2000, "l3 end");
	sl_pool_free(p);
}

/* ------------------------------------------------------------ non-workers */

struct nw_arg {
	struct sl_pool *p;
	unsigned seed;
	unsigned ok;
};

static void *nonworker(void *a)
{
	struct nw_arg *arg = a;
	void *b[200];
	unsigned seed = arg->seed;
	for (unsigned i = 0; i < 20000; i++) {
		unsigned n = 1 + rand_r(&seed) % 200;
		if (sl_pool_get(arg->p, NULL, b, n) == 0) {
			arg->ok++;
			if (sl_pool_put(arg->p, NULL, b, n) != 0)
				abort();
		}
	}
	return NULL;
}

static void test_nonworkers(void)
{
	struct sl_pool_opts o = base;
	o.n_workers = 1;
	struct sl_pool *p = sl_pool_create("nw", 3000, &o, NULL);
	fill(p, 3000);
	pthread_t th[4];
	struct nw_arg args[4];
	for (unsigned i = 0; i < 4; i++) {
		args[i] = (struct nw_arg){ p, i + 1, 0 };
		pthread_create(&th[i], NULL, nonworker, &args[i]);
	}
	/* The worker runs on this thread meanwhile. */
	struct sl_pool_worker *w = sl_pool_worker(p, 0);
	void *b[100];
	unsigned ok = 0;
	for (unsigned i = 0; i < 50000; i++)
		if (sl_pool_get(p, w, b, 100) == 0) {
			ok++;
			sl_pool_put(p, w, b, 100);
		}
	for (unsigned i = 0; i < 4; i++) {
		pthread_join(th[i], NULL);
		CHECK(args[i].ok > 0, "non-worker %u never got anything", i);
	}
	CHECK(ok > 0, "the worker never got anything");
	check_all_once(p, 3000, "non-workers");
	sl_pool_free(p);
}

/* ------------------------------------------------------------ histograms */

static void test_hist(void)
{
	for (uint64_t v = 0; v < 100000; v = v < 64 ? v + 1 : v + v / 7) {
		unsigned b = sl_pool_hist_bucket(v);
		CHECK(sl_pool_hist_lower(b) <= v && v < sl_pool_hist_lower(b + 1),
		      "%lu in bucket %u [%lu, %lu)", (unsigned long)v, b,
		      (unsigned long)sl_pool_hist_lower(b), (unsigned long)sl_pool_hist_lower(b + 1));
		CHECK(b == 0 || sl_pool_hist_lower(b) > sl_pool_hist_lower(b - 1), "monotonic");
		/* at most 12.5% wide */
		CHECK(v < 8 || (sl_pool_hist_lower(b + 1) - sl_pool_hist_lower(b)) * 8 <=
				       sl_pool_hist_lower(b), "width at %lu", (unsigned long)v);
	}
	CHECK(sl_pool_hist_bucket(UINT64_MAX) == SL_POOL_HIST_BUCKETS - 1, "clamped");
	static struct sl_pool_hist h;
	memset(&h, 0, sizeof(h));
	CHECK(sl_pool_hist_quantile(&h, 0.5) == 0, "empty quantile");
	for (uint64_t v = 1; v <= 1000; v++) {
		h.bucket[sl_pool_hist_bucket(v * 10)]++;
		h.sums.count++;
		h.sums.sum += v * 10;
		h.sums.max = v * 10;
	}
	uint64_t p50 = sl_pool_hist_quantile(&h, 0.5), p999 = sl_pool_hist_quantile(&h, 0.999);
	CHECK(p50 >= 5000 && p50 <= 5000 * 9 / 8 + 1, "p50 %lu", (unsigned long)p50);
	CHECK(p999 >= 9990 && p999 <= 10000, "p99.9 %lu", (unsigned long)p999);
	CHECK(sl_pool_hist_quantile(&h, 1.0) == 10000, "max");
	/* Step times are recorded: one per chunk moved here. */
	struct sl_pool_opts o = base;
	o.n_workers = 1;
	o.tsc_hz = 0;   /* measured */
	struct sl_pool *p = sl_pool_create("hist", 1000, &o, NULL);
	fill(p, 1000);
	void *b[64];
	for (unsigned i = 0; i < 100; i++) {
		sl_pool_get(p, sl_pool_worker(p, 0), b, 64);
		sl_pool_put(p, NULL, b, 64);
	}
	struct sl_pool_tier_stats t;
	sl_pool_tier_stats(p, 0, &t);
	CHECK(t.reclaim_ns.sums.count == 100 && t.reclaims == 100, "100 reclaim steps timed: %lu",
	      (unsigned long)t.reclaim_ns.sums.count);
	CHECK(t.reclaim_ns.sums.max > 0 && t.reclaim_ns.sums.max < 1000000000,
	      "max step %lu ns", (unsigned long)t.reclaim_ns.sums.max);
	struct sl_pool_stats s;
	sl_pool_stats(p, &s);
	CHECK(s.sum.reclaims == 100 && s.sum.rebalances == 15 + 100 && s.global_slots == 32,
	      "sums: reclaims %lu rebalances %lu slots %lu", (unsigned long)s.sum.reclaims,
	      (unsigned long)s.sum.rebalances, (unsigned long)s.global_slots);
	sl_pool_free(p);
}

/* A pool whose global positions start just below 2^64. */
static void test_pool_wrap(void)
{
	struct sl_pool_opts o = base;
	o.n_workers = 2;
	o.global_chunks = 4;
	struct sl_pool *p = sl_pool_create_at("wrap", 256, &o, UINT64_MAX - 3, NULL);
	fill(p, 256);   /* 4 chunks: positions 2^64-4 .. 2^64-1 */
	void *b[64];
	struct sl_pool_worker *w0 = sl_pool_worker(p, 0), *w1 = sl_pool_worker(p, 1);
	unsigned i = 0;
	/* w1 keeps up to its mark (128); then each of its puts moves a chunk */
	while (i < 10000 && sl_pool_get(p, w0, b, 64) == 0 && sl_pool_put(p, w1, b, 64) == 0)
		i++;
	CHECK(i == 10000, "stopped after %u rounds", i);
	struct sl_pool_stats s;
	sl_pool_stats(p, &s);
	CHECK(s.sum.reclaims >= 9000 && s.sum.full == 0, "reclaims %lu full %lu",
	      (unsigned long)s.sum.reclaims, (unsigned long)s.sum.full);
	CHECK(sl_pool_global_head(p) < 20000, "head wrapped past 2^64: %lu",
	      (unsigned long)sl_pool_global_head(p));
	check_all_once(p, 256, "wrap");
	sl_pool_free(p);
}

static const struct sl_test_case cases[] = {
	SL_CASE(test_chunkq),
	SL_CASE(test_chunkq_packing),
	SL_CASE(test_options),
	SL_CASE(test_chunk_boundaries),
	SL_CASE(test_front),
	SL_CASE(test_empty),
	SL_CASE(test_full),
	SL_CASE(test_l3_tier),
	SL_CASE(test_nonworkers),
	SL_CASE(test_hist),
	SL_CASE(test_pool_wrap),
};

int main(int argc, char **argv)
{
	return sl_test_main(argc, argv, cases, SL_NCASES(cases));
}
