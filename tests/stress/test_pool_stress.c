/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The buffer pool under concurrency, without DPDK's EAL (so that it runs
 * under ThreadSanitizer too): 2 to 8 worker threads in one-way, fan-out and
 * all-to-all patterns, passing objects to each other through SPSC rings,
 * plus a thread that is not a worker, over millions of objects.
 *
 * Every object carries an owner word.  Taking an object from the pool swaps
 * the owner from FREE to the taker; giving it back swaps it to FREE.  Any
 * other previous value means two owners held it at once.  At the end every
 * object must be in the pool exactly once, in some tier, and the counters
 * must balance.
 *
 * SL_STRESS_OBJECTS (environment) sets how many objects each case moves
 * (default 2000000).
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pool/pool.h"

#define FREE (-1)
#define MAX_THREADS 8
#define RING 512
#define BURST 32

struct object {
	_Atomic int owner;
	char pad[60];
};

struct ring {
	alignas(64) _Atomic uint32_t head;
	alignas(64) _Atomic uint32_t tail;
	alignas(64) void *slot[RING];
};

enum pattern { ONEWAY, FANOUT, ALL2ALL };
static const char *pattern_name[] = { "one-way", "fan-out", "all-to-all" };

struct scase {
	enum pattern pattern;
	unsigned threads;
	unsigned chunk;
	bool l3;
	unsigned global_chunks;
	unsigned capacity;
};

static struct object *objects;
static struct ring rings[MAX_THREADS][MAX_THREADS];   /* [from][to] */
static struct sl_pool *pool;
static const struct scase *cur;
static uint64_t quota;                                /* objects per producer */
static _Atomic unsigned producers_left;
static _Atomic bool stop_nonworker;
static _Atomic uint64_t violations;

static bool ring_push(struct ring *r, void *o)
{
	uint32_t h = atomic_load_explicit(&r->head, memory_order_relaxed);
	if (h - atomic_load_explicit(&r->tail, memory_order_acquire) == RING)
		return false;
	r->slot[h % RING] = o;
	atomic_store_explicit(&r->head, h + 1, memory_order_release);
	return true;
}

static bool ring_pop(struct ring *r, void **o)
{
	uint32_t t = atomic_load_explicit(&r->tail, memory_order_relaxed);
	if (t == atomic_load_explicit(&r->head, memory_order_acquire))
		return false;
	*o = r->slot[t % RING];
	atomic_store_explicit(&r->tail, t + 1, memory_order_release);
	return true;
}

static void take(void **b, unsigned n, int me)
{
	for (unsigned i = 0; i < n; i++) {
		int prev = atomic_exchange(&((struct object *)b[i])->owner, me);
		if (prev != FREE)
			atomic_fetch_add(&violations, 1);
	}
}

static void give(void **b, unsigned n, int me)
{
	for (unsigned i = 0; i < n; i++) {
		int prev = atomic_exchange(&((struct object *)b[i])->owner, FREE);
		if (prev != me)
			atomic_fetch_add(&violations, 1);
	}
}

/* Hand objects to another thread: the owner word follows the object. */
static void pass(void *o, int from, int to)
{
	int prev = atomic_exchange(&((struct object *)o)->owner, to);
	if (prev != from)
		atomic_fetch_add(&violations, 1);
}

static void put_checked(struct sl_pool_worker *w, void **b, unsigned n, int me)
{
	give(b, n, me);
	if (sl_pool_put(pool, w, b, n) != 0)
		atomic_fetch_add(&violations, 1000000);
}

/* Drain every ring into this thread and free what came; returns the count. */
static unsigned drain(unsigned me, struct sl_pool_worker *w)
{
	void *b[BURST];
	unsigned total = 0;
	for (unsigned from = 0; from < cur->threads; from++) {
		unsigned n = 0;
		while (n < BURST && ring_pop(&rings[from][me], &b[n]))
			n++;
		if (n > 0) {
			put_checked(w, b, n, (int)me);
			total += n;
		}
	}
	return total;
}

/* Take n objects, freeing what others sent us while the pool is empty. */
static void get_blocking(unsigned me, struct sl_pool_worker *w, void **b, unsigned n)
{
	while (sl_pool_get(pool, w, b, n) != 0) {
		if (drain(me, w) == 0)
			sched_yield();
	}
	take(b, n, (int)me);
}

static bool is_producer(unsigned me)
{
	switch (cur->pattern) {
	case ONEWAY:
		return me % 2 == 0;
	case FANOUT:
		return me == 0;
	case ALL2ALL:
		return true;
	}
	return false;
}

/* Whom producer `me` sends its i-th burst to. */
static unsigned target(unsigned me, uint64_t i)
{
	unsigned t = cur->threads;
	switch (cur->pattern) {
	case ONEWAY:
		return me + 1 < t ? me + 1 : me;   /* odd count: the last one keeps its own */
	case FANOUT:
		return 1 + (unsigned)(i % (t - 1));
	case ALL2ALL:
		return (unsigned)(me + 1 + i % (t - 1)) % t;
	}
	return me;
}

static void *worker(void *arg)
{
	unsigned me = (unsigned)(uintptr_t)arg;
	struct sl_pool_worker *w = sl_pool_worker(pool, me);
	void *b[BURST];
	if (is_producer(me)) {
		uint64_t sent = 0, i = 0;
		while (sent < quota) {
			unsigned n = 1 + (unsigned)((sent * 7 + me) % BURST);
			if (n > quota - sent)
				n = (unsigned)(quota - sent);
			get_blocking(me, w, b, n);
			unsigned to = target(me, i++);
			if (to == me) {
				put_checked(w, b, n, (int)me);
			} else {
				for (unsigned k = 0; k < n; k++) {
					pass(b[k], (int)me, (int)to);
					while (!ring_push(&rings[me][to], b[k])) {
						drain(me, w);   /* never wait while holding up others */
						sched_yield();
					}
				}
			}
			sent += n;
			drain(me, w);
		}
		atomic_fetch_sub(&producers_left, 1);
	}
	/* Consume until every producer is done and nothing is left for us. */
	for (;;) {
		bool done = atomic_load(&producers_left) == 0;
		if (drain(me, w) == 0) {
			if (done)
				break;
			sl_pool_house(w);   /* what a worker does once per breath */
			sched_yield();
		}
	}
	return NULL;
}

/* A thread that is not a worker: small gets and puts through the global tier. */
static void *nonworker(void *arg)
{
	void *b[8];
	unsigned seed = 12345;
	int me = MAX_THREADS;
	while (!atomic_load(&stop_nonworker)) {
		unsigned n = 1 + rand_r(&seed) % 8;
		if (sl_pool_get(pool, NULL, b, n) == 0) {
			take(b, n, me);
			put_checked(NULL, b, n, me);
		}
		sched_yield();   /* a control thread, not a data path */
	}
	return NULL;
}

static int run_case(const struct scase *c, uint64_t objects_per_case)
{
	cur = c;
	unsigned producers = 0;
	for (unsigned t = 0; t < c->threads; t++)
		producers += is_producer(t);
	quota = objects_per_case / producers;
	atomic_store(&producers_left, producers);
	atomic_store(&stop_nonworker, false);
	atomic_store(&violations, 0);
	memset(rings, 0, sizeof(rings));

	struct sl_pool_worker_cfg ws[MAX_THREADS];
	for (unsigned t = 0; t < c->threads; t++)
		ws[t] = (struct sl_pool_worker_cfg){ .lcore = t, .l3 = t < c->threads / 2 ? 0 : 1 };
	struct sl_pool_opts o = {
		.chunk = c->chunk, .high = 2 * c->chunk, .l3_tier = c->l3, .l3_chunks = 4,
		.global_chunks = c->global_chunks, .n_workers = c->threads, .workers = ws,
	};
	struct sl_err err = { "" };
	pool = sl_pool_create("stress", c->capacity, &o, &err);
	if (pool == NULL) {
		printf("FAIL: %s\n", err.msg);
		return 1;
	}
	objects = aligned_alloc(64, c->capacity * sizeof(*objects));
	for (unsigned i = 0; i < c->capacity; i++) {
		atomic_init(&objects[i].owner, FREE);
		void *p = &objects[i];
		sl_pool_put(pool, NULL, &p, 1);
	}

	pthread_t th[MAX_THREADS], nw;
	pthread_create(&nw, NULL, nonworker, NULL);
	for (unsigned t = 0; t < c->threads; t++)
		pthread_create(&th[t], NULL, worker, (void *)(uintptr_t)t);
	for (unsigned t = 0; t < c->threads; t++)
		pthread_join(th[t], NULL);
	atomic_store(&stop_nonworker, true);
	pthread_join(nw, NULL);

	int bad = 0;
	uint64_t v = atomic_load(&violations);
	if (v != 0) {
		printf("FAIL: %lu ownership violations\n", (unsigned long)v);
		bad = 1;
	}
	/* Every object exactly once, all free. */
	void **all = calloc(c->capacity + 1, sizeof(void *));
	unsigned char *seen = calloc(c->capacity, 1);
	unsigned n = sl_pool_snapshot(pool, all);
	if (n != c->capacity) {
		printf("FAIL: the tiers hold %u objects, want %u\n", n, c->capacity);
		bad = 1;
	}
	for (unsigned i = 0; i < n; i++) {
		size_t k = (size_t)((struct object *)all[i] - objects);
		if (k >= c->capacity || seen[k]++) {
			printf("FAIL: object %zu twice or foreign\n", k);
			bad = 1;
			break;
		}
		if (atomic_load(&objects[k].owner) != FREE) {
			printf("FAIL: object %zu in the pool but owned by %d\n", k,
			       atomic_load(&objects[k].owner));
			bad = 1;
			break;
		}
	}
	struct sl_pool_stats s;
	sl_pool_stats(pool, &s);
	if (s.counts.total != c->capacity) {
		printf("FAIL: counts %lu, want %u\n", (unsigned long)s.counts.total, c->capacity);
		bad = 1;
	}
	if (s.sum.puts != s.sum.gets + c->capacity) {
		printf("FAIL: puts %lu != gets %lu + %u\n", (unsigned long)s.sum.puts,
		       (unsigned long)s.sum.gets, c->capacity);
		bad = 1;
	}
	printf("%-10s threads %u chunk %4u l3 %-3s: %lu gets, %lu rebalances, %lu reclaims "
	       "(%lu same-L3, %lu other L3, %lu non-worker), %lu empty, %lu full, "
	       "step p99.9 %lu/%lu ns%s\n",
	       pattern_name[c->pattern], c->threads, c->chunk, c->l3 ? "on" : "off",
	       (unsigned long)s.sum.gets, (unsigned long)s.sum.rebalances,
	       (unsigned long)s.sum.reclaims, (unsigned long)s.sum.reclaims_l3,
	       (unsigned long)s.sum.reclaims_remote, (unsigned long)s.sum.reclaims_shared,
	       (unsigned long)s.sum.empty, (unsigned long)s.sum.full,
	       (unsigned long)sl_pool_hist_quantile(&s.sum.rebalance_ns, 0.999),
	       (unsigned long)sl_pool_hist_quantile(&s.sum.reclaim_ns, 0.999),
	       bad ? "  FAILED" : "");
	if (s.sum.gets < objects_per_case) {
		printf("FAIL: only %lu gets\n", (unsigned long)s.sum.gets);
		bad = 1;
	}
	free(seen);
	free(all);
	free(objects);
	sl_pool_free(pool);
	return bad;
}

int main(void)
{
	uint64_t n = 2000000;
	const char *env = getenv("SL_STRESS_OBJECTS");
	if (env != NULL)
		n = strtoull(env, NULL, 10);
	/* Capacities leave room for every freelist at its mark plus a burst. */
	static const struct scase cases[] = {
		{ ONEWAY, 2, 64, false, 0, 4096 },
		{ ONEWAY, 3, 256, false, 0, 8192 },
		{ ONEWAY, 8, 64, true, 0, 8192 },
		{ FANOUT, 4, 256, false, 0, 8192 },
		{ FANOUT, 8, 64, true, 0, 8192 },
		{ ALL2ALL, 2, 64, true, 0, 4096 },
		{ ALL2ALL, 5, 128, false, 0, 8192 },
		{ ALL2ALL, 8, 64, true, 0, 8192 },
		/* A global queue too small for the pool: full events, nothing lost. */
		{ ALL2ALL, 4, 64, false, 4, 8192 },
		{ FANOUT, 3, 2048, true, 0, 32768 },
	};
	int bad = 0;
	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		bad |= run_case(&cases[i], n);
	printf(bad ? "FAILED\n" : "ok\n");
	return bad;
}
