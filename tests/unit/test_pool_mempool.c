/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The "sluice" mempool ops on a real EAL (--no-huge): a pktmbuf pool whose
 * worker lcore has DPDK's per-lcore cache in front of its freelist (sized to
 * the chunk) and whose other lcores have none, mbufs allocated and freed
 * from the worker lcore and from the control thread (a non-worker), one at a
 * time and in bulk, all-or-nothing bulk allocation, the available count,
 * per-tier accounting (the front cache counted in the worker tier), pools
 * made through DPDK's own by-ops constructor, the placement of the objects
 * on 4 kB pages (packed, each with its true IOVA, for Sluice's pools and
 * sl_mempool_pktmbuf_create's) and the errors of sl_pool_mbuf_create().
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_mbuf_pool_ops.h>
#include <rte_memzone.h>
#include <rte_mempool.h>

#include "pool/pool.h"

#include "check.h"

#define N_MBUFS 4095u
#define HELD 1000u

static struct rte_mempool *mp;
static struct rte_mbuf *held[HELD];

enum job { ALLOC, FREE_HALF, FREE_ALL_HELD, CHURN };

static int on_worker(void *arg)
{
	enum job job = (enum job)(uintptr_t)arg;
	switch (job) {
	case ALLOC:
		for (unsigned i = 0; i < HELD; i += 25)
			if (rte_pktmbuf_alloc_bulk(mp, held + i, 25) != 0)
				return -ENOBUFS;
		return 0;
	case FREE_HALF:
		for (unsigned i = 0; i < HELD / 2; i++)
			rte_pktmbuf_free(held[i]);   /* one at a time: enqueue of 1 */
		return 0;
	case FREE_ALL_HELD:
		rte_pktmbuf_free_bulk(held, HELD);
		return 0;
	case CHURN: {
		struct rte_mbuf *b[32];
		for (unsigned i = 0; i < 100000; i++) {
			if (rte_pktmbuf_alloc_bulk(mp, b, 32) != 0)
				return -ENOBUFS;
			rte_pktmbuf_free_bulk(b, 32);
		}
		return 0;
	}
	}
	return -EINVAL;
}

static int run_on(unsigned lcore, enum job job)
{
	if (rte_eal_remote_launch(on_worker, (void *)(uintptr_t)job, lcore) != 0)
		return -EBUSY;
	return rte_eal_wait_lcore(lcore);
}

static void check_accounting(unsigned expect, const char *what)
{
	struct sl_pool_counts c;
	sl_pool_count(sl_pool_of(mp), &c);
	CHECK(c.total == expect, "%s: tiers hold %lu, want %u", what, (unsigned long)c.total,
	      expect);
	CHECK(rte_mempool_avail_count(mp) == expect, "%s: avail %u, want %u", what,
	      rte_mempool_avail_count(mp), expect);
	CHECK(rte_mempool_in_use_count(mp) == N_MBUFS - expect, "%s: in use %u", what,
	      rte_mempool_in_use_count(mp));
}

/* The worker's holdings: its front cache (DPDK's cache of its lcore, as
 * the pool reports it) and the freelist behind it. */
static void check_worker_tier(unsigned worker_lcore, const char *what)
{
	struct sl_pool_counts c;
	sl_pool_count(sl_pool_of(mp), &c);
	struct sl_pool_tier_stats w;
	sl_pool_tier_stats(sl_pool_of(mp), 0, &w);
	const struct rte_mempool_cache *front = &mp->local_cache[worker_lcore];
	CHECK(c.cached == front->len && c.cached <= 96, "%s: cached %lu, the lcore's cache %u",
	      what, (unsigned long)c.cached, front->len);
	CHECK(w.depth == c.workers && c.workers >= c.cached && c.workers - c.cached < 64,
	      "%s: worker depth %lu, tier %lu, cached %lu (behind the cache: less than a "
	      "chunk)", what, (unsigned long)w.depth, (unsigned long)c.workers,
	      (unsigned long)c.cached);
	CHECK(mp->local_cache[0].len == 0, "%s: the control thread's lcore caches nothing",
	      what);
}

static void test_two_lcores(unsigned worker_lcore)
{
	const struct sl_pool_worker_cfg ws[] = { { .lcore = worker_lcore, .l3 = 0 } };
	const struct sl_pool_opts opts = { .chunk = 64, .n_workers = 1, .workers = ws };
	struct sl_err err = { "" };
	mp = sl_pool_mbuf_create("tpm", N_MBUFS, 2048 + RTE_PKTMBUF_HEADROOM, SOCKET_ID_ANY,
				 &opts, &err);
	CHECK(mp != NULL, "create: %s", err.msg);
	if (mp == NULL)
		return;
	/* chunk 64, high mark 96 (1.5 x chunk): the worker's cache refills to
	 * the chunk and flushes above the high mark; lcore 0's is off. */
	CHECK(mp->cache_size == 64, "DPDK cache of %u", mp->cache_size);
	CHECK(mp->local_cache[worker_lcore].size == 64 &&
	      mp->local_cache[worker_lcore].flushthresh == 96,
	      "the worker's front: size %u, threshold %u", mp->local_cache[worker_lcore].size,
	      mp->local_cache[worker_lcore].flushthresh);
	CHECK(mp->local_cache[0].size == 0 && mp->local_cache[0].flushthresh == 0,
	      "no cache for the control thread's lcore: size %u, threshold %u",
	      mp->local_cache[0].size, mp->local_cache[0].flushthresh);
	CHECK(strcmp(rte_mempool_get_ops(mp->ops_index)->name, SL_POOL_OPS_NAME) == 0, "ops");
	CHECK(sl_pool_of(mp) != NULL && sl_pool_chunk(sl_pool_of(mp)) == 64, "sl_pool_of");
	CHECK(rte_pktmbuf_data_room_size(mp) == 2048 + RTE_PKTMBUF_HEADROOM, "data room %u",
	      rte_pktmbuf_data_room_size(mp));
	check_accounting(N_MBUFS, "created");

	/* The worker allocates, the control thread frees half, the worker the rest. */
	CHECK(run_on(worker_lcore, ALLOC) == 0, "worker allocation");
	check_accounting(N_MBUFS - HELD, "worker holds 1000");
	check_worker_tier(worker_lcore, "worker allocated");
	CHECK(held[0]->pool == mp && held[0]->buf_len == 2048 + RTE_PKTMBUF_HEADROOM &&
	      rte_pktmbuf_headroom(held[0]) == RTE_PKTMBUF_HEADROOM, "an initialised mbuf");
	rte_pktmbuf_free_bulk(held + HELD / 2, HELD / 2);   /* control thread */
	check_accounting(N_MBUFS - HELD / 2, "control thread freed 500");
	struct sl_pool_tier_stats w, nw;
	sl_pool_tier_stats(sl_pool_of(mp), 0, &w);
	uint64_t puts_before = w.puts;
	CHECK(run_on(worker_lcore, FREE_HALF) == 0, "worker frees");
	check_accounting(N_MBUFS, "all back");
	check_worker_tier(worker_lcore, "worker freed one at a time");
	/* 500 single frees reach the ops only as whole flushes of the cache
	 * (at most 96 objects each, so at least 6). */
	sl_pool_tier_stats(sl_pool_of(mp), 0, &w);
	CHECK(w.puts - puts_before >= 500 - 96 && w.puts - puts_before <= 500,
	      "the ops took %lu of 500 single frees", (unsigned long)(w.puts - puts_before));

	/* The control thread allocates (global tier), the worker frees. */
	for (unsigned i = 0; i < HELD; i += 40)
		CHECK(rte_pktmbuf_alloc_bulk(mp, held + i, i + 40 <= HELD ? 40 : HELD - i) == 0,
		      "control thread allocation at %u", i);
	check_accounting(N_MBUFS - HELD, "control thread holds 1000");
	CHECK(run_on(worker_lcore, FREE_ALL_HELD) == 0, "worker frees the control thread's");
	check_accounting(N_MBUFS, "all back again");
	check_worker_tier(worker_lcore, "worker freed in bulk");

	/* All or nothing: one more than the control thread can reach (all but
	 * what sits in the worker's freelist) fails and takes nothing. */
	struct sl_pool_counts c;
	sl_pool_count(sl_pool_of(mp), &c);
	unsigned reach = (unsigned)(c.total - c.workers);
	CHECK(c.workers > 0 && c.workers < 96 + 64, "worker tier holds %lu",
	      (unsigned long)c.workers);
	struct rte_mbuf **all = calloc(N_MBUFS + 1, sizeof(*all));
	CHECK(rte_pktmbuf_alloc_bulk(mp, all, reach + 1) != 0, "one more than reachable fails");
	check_accounting(N_MBUFS, "after a failed bulk");
	CHECK(rte_pktmbuf_alloc_bulk(mp, all, reach) == 0, "all reachable at once");
	check_accounting(N_MBUFS - reach, "everything reachable out");
	struct rte_mbuf *one;
	CHECK(rte_mempool_get(mp, (void **)&one) != 0, "empty for the control thread");
	rte_pktmbuf_free_bulk(all, reach);
	check_accounting(N_MBUFS, "everything back");
	free(all);

	/* Churn on the worker: its front cache serves it; the ops see at most
	 * one refill (chunk + burst) and no flush, and no step happens. */
	sl_pool_tier_stats(sl_pool_of(mp), 0, &w);
	struct sl_pool_tier_stats before = w;
	CHECK(run_on(worker_lcore, CHURN) == 0, "churn");
	sl_pool_tier_stats(sl_pool_of(mp), 0, &w);
	sl_pool_tier_stats(sl_pool_of(mp), SL_POOL_NONWORKER, &nw);
	CHECK(w.gets - before.gets <= 64 + 32 && w.puts == before.puts,
	      "3.2 M gets and puts reach the ops as %lu gets, %lu puts",
	      (unsigned long)(w.gets - before.gets), (unsigned long)(w.puts - before.puts));
	CHECK(w.reclaims - before.reclaims <= 2 && w.rebalances == before.rebalances,
	      "churn needs (almost) no steps: %lu/%lu", (unsigned long)(w.reclaims - before.reclaims),
	      (unsigned long)(w.rebalances - before.rebalances));
	check_worker_tier(worker_lcore, "after churn");
	CHECK(nw.puts == N_MBUFS + HELD / 2 + reach, "non-worker puts %lu",
	      (unsigned long)nw.puts);
	check_accounting(N_MBUFS, "after churn");
	rte_mempool_free(mp);
	CHECK(rte_mempool_lookup("tpm") == NULL, "freed");
	mp = NULL;
}

static void test_by_ops(void)
{
	/* DPDK's own constructor: the defaults, no workers. */
	struct rte_mempool *p = rte_pktmbuf_pool_create_by_ops("tpm_ops", 511, 0, 0,
							       1024 + RTE_PKTMBUF_HEADROOM,
							       SOCKET_ID_ANY, SL_POOL_OPS_NAME);
	CHECK(p != NULL, "by ops: %s", rte_strerror(rte_errno));
	if (p == NULL)
		return;
	CHECK(sl_pool_of(p) != NULL && sl_pool_n_workers(sl_pool_of(p)) == 0, "no workers");
	struct rte_mbuf *b[300];
	CHECK(rte_pktmbuf_alloc_bulk(p, b, 300) == 0, "alloc 300");
	CHECK(rte_mempool_avail_count(p) == 211, "avail %u", rte_mempool_avail_count(p));
	rte_pktmbuf_free_bulk(b, 300);
	CHECK(rte_mempool_avail_count(p) == 511, "avail %u", rte_mempool_avail_count(p));
	rte_mempool_free(p);

	/* DPDK's constructor with a cache and no workers (as testpmd makes its
	 * pool): DPDK's caches stay as asked, in front of the non-worker tier,
	 * and the available count adds them once. */
	p = rte_pktmbuf_pool_create_by_ops("tpm_opsc", 1023, 64, 0, 1024 + RTE_PKTMBUF_HEADROOM,
					   SOCKET_ID_ANY, SL_POOL_OPS_NAME);
	CHECK(p != NULL, "by ops with a cache: %s", rte_strerror(rte_errno));
	if (p == NULL)
		return;
	CHECK(p->local_cache[0].size == 64 && p->local_cache[0].flushthresh == 96,
	      "DPDK's cache as asked: size %u, threshold %u", p->local_cache[0].size,
	      p->local_cache[0].flushthresh);
	CHECK(rte_pktmbuf_alloc_bulk(p, b, 300) == 0, "alloc 300");
	CHECK(rte_mempool_avail_count(p) == 723, "avail %u", rte_mempool_avail_count(p));
	rte_pktmbuf_free_bulk(b, 300);
	CHECK(rte_mempool_avail_count(p) == 1023 && p->local_cache[0].len > 0,
	      "avail %u, %u in DPDK's cache", rte_mempool_avail_count(p), p->local_cache[0].len);
	rte_mempool_free(p);

	/* sl_pool_of() on a pool with other ops. */
	p = rte_pktmbuf_pool_create("tpm_ring", 255, 0, 0, 1024, SOCKET_ID_ANY);
	CHECK(p != NULL && sl_pool_of(p) == NULL, "sl_pool_of on ring ops");
	rte_mempool_free(p);
}

/* The objects of mp: packed (each object right after the one before in
 * memory: no 4 kB page holds a single one), in one chunk, and each mbuf's
 * buf_iova its buffer's address (IOVA as VA). */
struct placement {
	uintptr_t lo, hi;
	unsigned n, iova_bad;
};

static void place_cb(struct rte_mempool *mp, void *arg, void *obj, unsigned idx)
{
	struct placement *pl = arg;
	struct rte_mbuf *m = obj;
	(void)mp;
	(void)idx;
	if (pl->n == 0 || (uintptr_t)obj < pl->lo)
		pl->lo = (uintptr_t)obj;
	if ((uintptr_t)obj > pl->hi)
		pl->hi = (uintptr_t)obj;
	if (m->buf_iova != (rte_iova_t)(uintptr_t)m->buf_addr)
		pl->iova_bad++;
	pl->n++;
}

static void check_packed(struct rte_mempool *mp, const char *what)
{
	struct placement pl = { 0 };
	size_t elt = mp->header_size + mp->elt_size + mp->trailer_size;
	rte_mempool_obj_iter(mp, place_cb, &pl);
	CHECK(pl.n == mp->size, "%s: %u objects of %u", what, pl.n, mp->size);
	CHECK(mp->nb_mem_chunks == 1, "%s: one chunk, got %u", what, mp->nb_mem_chunks);
	CHECK(pl.hi - pl.lo == (mp->size - 1) * elt,
	      "%s: packed: %zu bytes from the first object to the last, want %zu", what,
	      (size_t)(pl.hi - pl.lo), (size_t)(mp->size - 1) * elt);
	CHECK(elt < 4096 && (mp->flags & RTE_MEMPOOL_F_NO_IOVA_CONTIG) != 0,
	      "%s: %zu-byte objects, flags %#x", what, elt, mp->flags);
	CHECK(pl.iova_bad == 0, "%s: %u mbufs whose buf_iova is not their address", what,
	      pl.iova_bad);
}

/* Free mp, whose packed objects are in memzone mz_name: the zone was there
 * and is gone with the pool. */
static void free_packed(struct rte_mempool *mp, const char *mz_name, const char *what)
{
	CHECK(rte_memzone_lookup(mz_name) != NULL, "%s: memzone %s holds the objects", what,
	      mz_name);
	rte_mempool_free(mp);
	CHECK(rte_memzone_lookup(mz_name) == NULL, "%s: its memzone freed", what);
}

static void test_placement(void)
{
	CHECK(rte_eal_iova_mode() == RTE_IOVA_VA && !rte_eal_has_hugepages(),
	      "--no-huge: IOVA as VA");
	CHECK(sl_mempool_flags() == RTE_MEMPOOL_F_NO_IOVA_CONTIG, "flags %#x",
	      sl_mempool_flags());
	struct sl_err err = { "" };
	struct rte_mempool *p = sl_pool_mbuf_create("tpm_pack", 1023, 2048 + RTE_PKTMBUF_HEADROOM,
						    SOCKET_ID_ANY, NULL, &err);
	CHECK(p != NULL, "sluice pool: %s", err.msg);
	if (p != NULL) {
		check_packed(p, "sluice pool");
		struct rte_mbuf *b[64];
		CHECK(rte_pktmbuf_alloc_bulk(p, b, 64) == 0, "alloc 64");
		rte_pktmbuf_free_bulk(b, 64);
		CHECK(rte_mempool_avail_count(p) == 1023, "all back");
		free_packed(p, "MP_tpm_pack_0", "sluice pool");
	}
	p = sl_mempool_pktmbuf_create("tpm_dpk", 1023, 32, 2048 + RTE_PKTMBUF_HEADROOM,
				      SOCKET_ID_ANY);
	CHECK(p != NULL, "DPDK's ops: %s", rte_strerror(rte_errno));
	if (p != NULL) {
		check_packed(p, "DPDK's ops");
		CHECK(strcmp(rte_mempool_get_ops(p->ops_index)->name,
			     rte_mbuf_best_mempool_ops()) == 0, "DPDK's best ops");
		free_packed(p, "MP_tpm_dpk_0", "DPDK's ops");
	}
	/* The longest name a mempool may have: its memzone's name still fits
	 * (DPDK's own format for a mempool's first memzone). */
	char longest[RTE_MEMPOOL_NAMESIZE], mz[RTE_MEMZONE_NAMESIZE];
	memset(longest, 'n', sizeof(longest) - 1);
	longest[sizeof(longest) - 1] = '\0';
	p = sl_mempool_pktmbuf_create(longest, 63, 0, 2048, SOCKET_ID_ANY);
	CHECK(p != NULL, "a %zu-character name: %s", strlen(longest), rte_strerror(rte_errno));
	if (p != NULL) {
		check_packed(p, "longest name");
		snprintf(mz, sizeof(mz), "MP_%s_0", longest);
		free_packed(p, mz, "longest name");
	}
	/* More mbufs than the EAL's memory: refused with ENOMEM, nothing left. */
	p = sl_mempool_pktmbuf_create("tpm_huge", 1000000, 0, 2048, SOCKET_ID_ANY);
	CHECK(p == NULL && rte_errno == ENOMEM && rte_mempool_lookup("tpm_huge") == NULL &&
	      rte_memzone_lookup("MP_tpm_huge_0") == NULL,
	      "too large: errno %d", rte_errno);
}

/* Of every two mbufs taken one after the other, how many were placed in
 * memory in the direction that most pairs go (n - 1 pairs in all). */
static unsigned runs_along(struct rte_mbuf **b, unsigned n)
{
	unsigned up = 0;
	for (unsigned i = 1; i < n; i++)
		up += (uintptr_t)b[i] > (uintptr_t)b[i - 1];
	return up > (n - 1) / 2 ? up : n - 1 - up;
}

/* The order mbufs leave a new pool in (pool.h): DPDK's address order by
 * default; with opts.shuffle a random one, the same every time.
 * Taken on the control thread (a non-worker: no cache in front), all of
 * them, each once. */
static void test_order(void)
{
	enum { N = 1023 };
	static struct rte_mbuf *b[N], *first[N];
	for (unsigned pass = 0; pass < 3; pass++) {
		struct sl_pool_opts o = { .shuffle = pass < 2 };
		struct sl_err err = { "" };
		struct rte_mempool *p = sl_pool_mbuf_create("tpm_order", N, 2048 + RTE_PKTMBUF_HEADROOM,
							    SOCKET_ID_ANY, &o, &err);
		CHECK(p != NULL, "order pool %u: %s", pass, err.msg);
		if (p == NULL)
			continue;
		CHECK(rte_mempool_get_bulk(p, (void **)b, N) == 0, "pass %u: all %u taken", pass, N);
		unsigned same = 0;
		for (unsigned i = 1; i < N; i++)
			for (unsigned j = 0; j < i && same == 0; j++)
				same += b[i] == b[j];
		CHECK(same == 0, "pass %u: every mbuf once", pass);
		unsigned along = runs_along(b, N);
		if (pass < 2) {
			/* a random order: about half the pairs go each way */
			CHECK(along < (N - 1) * 6 / 10, "shuffled: %u of %u pairs one way", along,
			      N - 1);
			if (pass == 0)
				memcpy(first, b, sizeof(b));
			else
				CHECK(memcmp(first, b, sizeof(b)) == 0,
				      "shuffled the same way in a second pool");
		} else {
			/* one way within each chunk the non-worker tier hands out */
			CHECK(along * 100 >= (N - 1) * 99, "address order: %u of %u pairs one way",
			      along, N - 1);
		}
		rte_mempool_put_bulk(p, (void **)b, N);
		CHECK(rte_mempool_avail_count(p) == N, "pass %u: all back", pass);
		rte_mempool_free(p);
	}
}

static void test_errors(void)
{
	/* Each bad argument: NULL, errno EINVAL and a sentence naming the pool,
	 * before anything is allocated. */
	struct {
		const char *what;
		const char *name;
		unsigned n, room;
		struct sl_pool_worker_cfg ws[2];
		struct sl_pool_opts o;
		const char *msg;
	} cases[] = {
		{ "same lcore twice", "e1", 100, 1024, { { 1, 0 }, { 1, 0 } }, { .n_workers = 2 },
		  "pool 'e1': workers 0 and 1 have the same lcore (1)" },
		{ "lcore too big", "e2", 100, 1024, { { RTE_MAX_LCORE, 0 } }, { .n_workers = 1 },
		  "pool 'e2': worker 0's lcore 128 is not below RTE_MAX_LCORE (128)" },
		{ "workers missing", "e3", 100, 1024, { { 0 } }, { .n_workers = 1 },
		  "pool 'e3': 1 workers but no table of their lcores" },
		{ "chunk 32", "e4", 100, 1024, { { 0 } }, { .chunk = 32 },
		  "pool 'e4': chunk must be 64..2048, got 32" },
		{ "no mbufs", "e5", 0, 1024, { { 0 } }, { 0 },
		  "pool 'e5': capacity must be 1..1073741824, got 0" },
		{ "data room", "e6", 100, 70000, { { 0 } }, { 0 },
		  "pool 'e6': data_room must be at most 65535, got 70000" },
		{ "no name", NULL, 100, 1024, { { 0 } }, { 0 }, "pool: the name is empty" },
	};
	_Static_assert(RTE_MAX_LCORE == 128, "the messages above name RTE_MAX_LCORE");
	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		if (strcmp(cases[i].what, "workers missing") != 0)
			cases[i].o.workers = cases[i].ws;
		struct sl_err err = { "" };
		errno = 0;
		struct rte_mempool *p = sl_pool_mbuf_create(cases[i].name, cases[i].n,
							    cases[i].room, SOCKET_ID_ANY,
							    &cases[i].o, &err);
		int e = errno;
		CHECK(p == NULL && e == EINVAL && strcmp(err.msg, cases[i].msg) == 0,
		      "%s: errno %d (want EINVAL), '%s' (want '%s')", cases[i].what, e, err.msg,
		      cases[i].msg);
		if (cases[i].name != NULL)
			CHECK(rte_mempool_lookup(cases[i].name) == NULL,
			      "%s: nothing left behind", cases[i].what);
		rte_mempool_free(p);
	}
	struct sl_err err = { "" };
	struct rte_mempool *a = sl_pool_mbuf_create("dup", 100, 1024, SOCKET_ID_ANY, NULL, &err);
	errno = 0;
	struct rte_mempool *b = sl_pool_mbuf_create("dup", 100, 1024, SOCKET_ID_ANY, NULL, &err);
	int e = errno;
	CHECK(a != NULL && b == NULL && e == EEXIST &&
	      strstr(err.msg, "pool 'dup': cannot create a mempool of 100 mbufs of 1024 bytes "
			      "on socket -1: ") == err.msg,
	      "name taken: errno %d, '%s'", e, err.msg);
	rte_mempool_free(a);
}

int main(void)
{
	char prefix[32];
	snprintf(prefix, sizeof(prefix), "tpm%d", (int)getpid());
	char *argv[] = { "test_pool_mempool", "--no-huge", "-m", "256", "--no-pci",
			 "--file-prefix", prefix, "--log-level", "lib.eal:error",
			 "--lcores", "0@0,1@0", NULL };
	if (rte_eal_init(11, argv) < 0) {
		printf("SKIP: cannot initialise DPDK's EAL\n");
		return 77;
	}
	test_two_lcores(1);
	CHECK(sl_pool_ops_register() == 0, "the ops register (again: a no-op)");
	test_by_ops();
	test_placement();
	test_order();
	test_errors();
	rte_eal_cleanup();
	if (failures) {
		printf("%d failures\n", failures);
		return 1;
	}
	printf("ok\n");
	return 0;
}
