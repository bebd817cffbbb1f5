/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Single-writer counters.  Exactly one thread adds to a counter; any thread may
 * read it.  The add is a plain load and a relaxed store (no locked
 * instruction); the read is a relaxed load, so readers never see a torn value.
 */
#ifndef SL_COUNTER_H
#define SL_COUNTER_H

#include <stdint.h>

static inline void sl_counter_add(uint64_t *c, uint64_t n)
{
	__atomic_store_n(c, __atomic_load_n(c, __ATOMIC_RELAXED) + n, __ATOMIC_RELAXED);
}

static inline uint64_t sl_counter_read(const uint64_t *c)
{
	return __atomic_load_n(c, __ATOMIC_RELAXED);
}

#endif
