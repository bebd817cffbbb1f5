/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The EAL and mbuf pool of a unit or stress test that needs DPDK (with
 * check.h's sl_test_main_fixture): set-up and teardown in one place.
 */
#ifndef SL_EAL_FIXTURE_H
#define SL_EAL_FIXTURE_H

#include <stdio.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "check.h"

/* EAL without hugepages or PCI, mem_mb of memory, lcore 0, a file prefix of
 * name and the pid.  0, or 77 (skipped) with the reason printed. */
static inline int sl_test_eal(const char *name, unsigned mem_mb)
{
	char prefix[40], mem[16];
	snprintf(prefix, sizeof(prefix), "%s%d", name, (int)getpid());
	snprintf(mem, sizeof(mem), "%u", mem_mb);
	char *argv[] = { (char *)name, "--no-huge", "-m", mem, "--no-pci", "--file-prefix",
			 prefix, "--log-level", "lib.eal:error", "-l", "0", NULL };
	if (rte_eal_init(11, argv) < 0) {
		printf("SKIP: cannot initialise DPDK's EAL\n");
		return 77;
	}
	return 0;
}

/* sl_test_eal and a pktmbuf pool of n mbufs of 2048 data bytes, with a
 * per-lcore cache of `cache` mbufs (0: none), in *pool.  0, 77 (skipped) or 1
 * (no pool), with the reason printed. */
static inline int sl_test_eal_pool_cache(const char *name, unsigned mem_mb, unsigned n,
					 unsigned cache, struct rte_mempool **pool)
{
	int rc = sl_test_eal(name, mem_mb);
	if (rc != 0)
		return rc;
	*pool = rte_pktmbuf_pool_create(name, n, cache, 0, 2048 + RTE_PKTMBUF_HEADROOM,
					SOCKET_ID_ANY);
	if (*pool == NULL) {
		printf("FAIL: cannot create a pool\n");
		return 1;
	}
	return 0;
}

/* sl_test_eal_pool_cache without a cache. */
static inline int sl_test_eal_pool(const char *name, unsigned mem_mb, unsigned n,
				   struct rte_mempool **pool)
{
	return sl_test_eal_pool_cache(name, mem_mb, n, 0, pool);
}

/* Every one of the pool's n mbufs back (checked), the pool freed, the EAL
 * cleaned up. */
static inline void sl_test_eal_end(struct rte_mempool *pool, unsigned n)
{
	if (pool != NULL) {
		CHECK(rte_mempool_avail_count(pool) == n, "%u of %u mbufs back",
		      rte_mempool_avail_count(pool), n);
		rte_mempool_free(pool);
	}
	rte_eal_cleanup();
}

#endif /* SL_EAL_FIXTURE_H */
