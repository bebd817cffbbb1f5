/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * spin.h: a spinlock in one uint32_t (0 free, 1 held), for locks held for a
 * few stores on a worker's path (a table's bucket, an id stack).  Written
 * with GCC's atomics rather than DPDK's rte_spinlock (inline assembly on
 * x86), so that ThreadSanitizer sees the acquire and the release.  Not
 * recursive, not fair; never held across anything that may block.
 */
#ifndef SL_SPIN_H
#define SL_SPIN_H

#include <stdint.h>

#include <rte_pause.h>

static inline void sl_spin_lock(uint32_t *l)
{
	while (__atomic_exchange_n(l, 1, __ATOMIC_ACQUIRE) != 0)
		while (__atomic_load_n(l, __ATOMIC_RELAXED) != 0)
			rte_pause();
}

static inline void sl_spin_unlock(uint32_t *l)
{
	__atomic_store_n(l, 0, __ATOMIC_RELEASE);
}

#endif
