/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef SL_CHUNKQ_H
#define SL_CHUNKQ_H

/*
 * The pool's shared tiers (the global queue and the L3 queues): internal to
 * pool/, included by pool.c, chunkq.c and the unit tests.  Not a public
 * interface.
 */

#include <stdalign.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "pool/pool_worker.h" /* SL_POOL_CACHE_LINE */

/*
 * A bounded MPMC queue whose elements are chunks of `chunk` object pointers,
 * the classic array queue with a sequence number per slot: each slot carries
 * a 64-bit sequence number; a producer may fill slot (pos & mask) when it is
 * pos, and publishes it as pos + 1; a consumer may empty it when it is pos + 1
 * and frees it for the next lap as pos + mask + 1.  Claiming a position is one
 * compare-and-swap on the head (producers) or tail (consumers) counter; the
 * chunk's pointers are copied after the claim and before the publishing store
 * (release), and read after the acquiring load.  64-bit positions wrap after
 * 2^64 operations; comparisons use the signed difference, so wrapping is
 * harmless (a unit test starts the positions just below 2^64).
 *
 * Layout: slot i is `stride` bytes at slots + i * stride: one cache line that
 * holds only the sequence number, then the pointers, padded to whole cache
 * lines, so that neither a producer's claim nor a consumer's release touches a
 * neighbour's line.
 */
struct sl_chunkq_slot {
	alignas(SL_POOL_CACHE_LINE) _Atomic uint64_t seq;
	uintptr_t base;     /* packed: the chunk's first pointer */
	uint32_t packed;    /* 1: the chunk is held as 32-bit deltas from base */
	char pad[SL_POOL_CACHE_LINE - 2 * sizeof(uint64_t) - sizeof(uint32_t)];
	/* followed by the chunk: chunk 32-bit deltas (packed) or pointers */
};

_Static_assert(sizeof(struct sl_chunkq_slot) == SL_POOL_CACHE_LINE,
	       "a slot's sequence number has its own cache line");
_Static_assert(offsetof(struct sl_chunkq_slot, seq) == 0, "sequence first");

struct sl_chunkq {
	alignas(SL_POOL_CACHE_LINE) _Atomic uint64_t head;   /* next position to fill */
	alignas(SL_POOL_CACHE_LINE) _Atomic uint64_t tail;   /* next position to empty */
	alignas(SL_POOL_CACHE_LINE) char *slots;             /* read-only after init */
	uint64_t mask;                                        /* n_slots - 1 */
	size_t stride;                                        /* bytes per slot */
	uint32_t chunk;                                       /* pointers per slot */
	/* chunks pushed as pointers, not packed (objects too far apart or
	 * unaligned): written on that rare path only, by any producer */
	alignas(SL_POOL_CACHE_LINE) _Atomic uint64_t unpacked;
};

_Static_assert(offsetof(struct sl_chunkq, tail) == SL_POOL_CACHE_LINE,
	       "producers' and consumers' counters on separate cache lines");
_Static_assert(offsetof(struct sl_chunkq, slots) == 2 * SL_POOL_CACHE_LINE,
	       "read-only fields apart from both counters");

/*
 * Set up q with n_slots slots (a power of two >= 2) of `chunk` pointers,
 * positions starting at first_pos (0 except in tests).  Returns 0, -EINVAL or
 * -ENOMEM.  Single thread.
 */
int sl_chunkq_init(struct sl_chunkq *q, unsigned n_slots, unsigned chunk,
		   uint64_t first_pos);
void sl_chunkq_fini(struct sl_chunkq *q);

/* Copy q->chunk pointers from objs into a free slot.  Returns 0, or -ENOSPC
 * when the slot for the next position has not been emptied yet (full).  Any
 * thread; lock-free between claim attempts. */
int sl_chunkq_push(struct sl_chunkq *q, void *const *objs);

/* Copy the oldest chunk into objs (room for q->chunk pointers).  Returns 0, or
 * -ENOENT when the next slot has not been filled yet (empty).  Any thread. */
int sl_chunkq_pop(struct sl_chunkq *q, void **objs);

/* Start loading the slot the next pop will read (its sequence line and its
 * pointers) into this CPU's cache.  A hint only: never blocks, never fails. */
void sl_chunkq_prefetch_pop(const struct sl_chunkq *q);

/* Chunks pushed as pointers so far (not packed).  Any thread. */
static inline uint64_t sl_chunkq_unpacked(const struct sl_chunkq *q)
{
	return atomic_load_explicit(&q->unpacked, memory_order_relaxed);
}

/* Cache lines of a packed chunk of `chunk` objects (its deltas). */
static inline unsigned sl_chunkq_data_lines(unsigned chunk)
{
	return (unsigned)(((size_t)chunk * sizeof(int32_t) + SL_POOL_CACHE_LINE - 1) /
			  SL_POOL_CACHE_LINE);
}

/* Copy the chunk at position pos into objs, without claiming it: for a
 * snapshot taken while no thread pushes or pops. */
void sl_chunkq_read_at(const struct sl_chunkq *q, uint64_t pos, void **objs);
/* Chunks claimed by producers and not yet claimed by consumers.  A recent
 * value, never more than the capacity.  Any thread. */
uint64_t sl_chunkq_count(const struct sl_chunkq *q);

static inline uint64_t sl_chunkq_slots(const struct sl_chunkq *q)
{
	return q->mask + 1;
}

#endif /* SL_CHUNKQ_H */
