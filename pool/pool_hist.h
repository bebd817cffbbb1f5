/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef SL_POOL_HIST_H
#define SL_POOL_HIST_H

/*
 * The pool's step-time histogram type, on its own so that both the contract
 * (pool.h, which declares the functions that read it) and the inline fast
 * path (pool_worker.h, whose worker handle holds two) can include it.
 */

#include <stdint.h>

#include "base/histogram.h"

/*
 * Step-time histogram in nanoseconds: a compact histogram of
 * base/histogram.h with 8 linear sub-buckets per power of two (at most 12.5%
 * relative error), cut after SL_POOL_HIST_BUCKETS buckets (from about 1000 s
 * up, values share the last).  Bucket i covers [sl_pool_hist_lower(i),
 * sl_pool_hist_lower(i + 1)).  The pool's writers record with
 * sl_hist_sums_record(); sl_pool_tier_stats() and sl_pool_stats() return
 * copies.
 */
#define SL_POOL_HIST_SUB_BITS 3u
#define SL_POOL_HIST_BUCKETS 304u
#define SL_POOL_HIST_SHAPE ((struct sl_hist_shape){ SL_POOL_HIST_SUB_BITS, SL_POOL_HIST_BUCKETS })
struct sl_pool_hist {
	struct sl_hist_sums sums;   /* steps, their total and longest time, ns */
	uint64_t bucket[SL_POOL_HIST_BUCKETS];
};
_Static_assert(SL_POOL_HIST_BUCKETS <= (64u - SL_POOL_HIST_SUB_BITS + 1u) << SL_POOL_HIST_SUB_BITS,
	       "the step-time histogram is a cut of the full layout");

#endif /* SL_POOL_HIST_H */
