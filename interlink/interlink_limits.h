/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The interlink's limits, ends and end states: what both the control side
 * (interlink.h) and the fast path with the ring's layout (interlink_worker.h)
 * name.  On its own so that neither of those two headers includes the other.
 */
#ifndef SL_INTERLINK_LIMITS_H
#define SL_INTERLINK_LIMITS_H

#include "base/histogram.h"

/* Ring size used when sl_il_config.size is 0, until sl_il_set_default_size(). */
#define SL_IL_SIZE_DEFAULT 1024u
/* Largest ring.  Cursors are free-running 32-bit counters compared by
 * unsigned subtraction, which is exact while the distance between them is at
 * most 2^31; the cap keeps the memzone a sane size as well. */
#define SL_IL_SIZE_MAX (1u << 24)
/* Longest ring name: the memzone name "sl_il_<name>" must fit DPDK's 32
 * bytes with its terminating NUL. */
#define SL_IL_NAME_MAX 25
/* Sojourn-time sampling: one object in SL_IL_SAMPLE_DEFAULT (see
 * sl_il_config.sample_every).  Each sample costs an rdtsc on both ends, so
 * sampling is sparse by default; what each rate costs is measured in
 * docs/benchmarks.md ("Interlinks"). */
#define SL_IL_SAMPLE_DEFAULT 256u
#define SL_IL_SAMPLE_MAX (1u << 16)
/* The sojourn histogram: a compact histogram of base/histogram.h with four
 * buckets per power of two of TSC cycles, from 0 up to 2^33 cycles; longer
 * sojourns land in the last bucket. */
#define SL_IL_HIST_SUB_BITS 2u
#define SL_IL_HIST_BUCKETS 128
#define SL_IL_HIST_SHAPE ((struct sl_hist_shape){ SL_IL_HIST_SUB_BITS, SL_IL_HIST_BUCKETS })

struct sl_il;

enum sl_il_end {
	SL_IL_PRODUCER = 0,
	SL_IL_CONSUMER = 1,
};

enum sl_il_state {
	SL_IL_DETACHED = 0,
	SL_IL_ATTACHED = 1,
	SL_IL_DETACHING = 2,
};

#endif /* SL_INTERLINK_LIMITS_H */
