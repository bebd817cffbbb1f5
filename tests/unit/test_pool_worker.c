/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pool/pool_worker.h on its own: it is the first Sluice header here, so this
 * file compiles only while the header brings everything it needs.  pool.h
 * follows only to create a pool for the case that drives the inline fast
 * path.
 */
#include "pool/pool_worker.h"
#include "pool/pool.h"

#include <stdint.h>

#include "check.h"

static void *obj(unsigned i)
{
	return (void *)(uintptr_t)(0x1000 + i * 64);
}

/* Gets and puts within the high mark stay in the worker's freelist and are
 * counted there; one object at a time and whole bursts alike. */
static void test_fast_path(void)
{
	struct sl_pool_opts o = { .chunk = 64, .n_workers = 1, .tsc_hz = 1000000000 };
	struct sl_pool *p = sl_pool_create("alone", 256, &o, NULL);
	CHECK(p != NULL, "pool created");
	if (p == NULL)
		return;
	struct sl_pool_worker *w = sl_pool_worker(p, 0);
	void *objs[64];
	for (unsigned i = 0; i < 64; i++)
		objs[i] = obj(i);
	CHECK(sl_pool_put(p, w, objs, 64) == 0, "burst put");
	void *extra = obj(64);
	CHECK(sl_pool_put(p, w, &extra, 1) == 0, "single put");
	void *one = NULL;
	CHECK(sl_pool_get(p, w, &one, 1) == 0 && one == obj(64), "single get: LIFO");
	void *back[32];
	CHECK(sl_pool_get(p, w, back, 32) == 0 && back[0] == obj(32) && back[31] == obj(63),
	      "burst get: the last 32 put, in order");
	CHECK(sl_pool_house(w) == 0, "nothing to house");
	struct sl_pool_tier_stats t;
	CHECK(sl_pool_tier_stats(p, 0, &t) == 0, "stats");
	CHECK(t.puts == 65 && t.gets == 33 && t.depth == 32,
	      "puts %lu gets %lu depth %lu", (unsigned long)t.puts, (unsigned long)t.gets,
	      (unsigned long)t.depth);
	CHECK(t.rebalances == 0 && t.reclaims == 0 && t.rebalance_ns.sums.count == 0,
	      "no steps");
	sl_pool_free(p);
}

static const struct sl_test_case cases[] = {
	SL_CASE(test_fast_path),
};

int main(int argc, char **argv)
{
	return sl_test_main(argc, argv, cases, SL_NCASES(cases));
}
