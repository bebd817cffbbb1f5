/* SPDX-License-Identifier: BSD-3-Clause */
/* The global (and per-L3) queue of chunks: see chunkq.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pool/chunkq.h"

static inline struct sl_chunkq_slot *slot_at(const struct sl_chunkq *q, uint64_t pos)
{
	return (struct sl_chunkq_slot *)(q->slots + (pos & q->mask) * q->stride);
}

static inline void **slot_objs(struct sl_chunkq_slot *s)
{
	return (void **)(s + 1);
}

/* A chunk's pointers as 32-bit signed deltas from its first, in units of
 * SL_CHUNKQ_GRAIN bytes: half the lines of the pointers themselves, so half
 * the lines a chunk makes cross between the CPU that pushes it and the one
 * that pops it.  Objects of one pool lie within a few hundred MB of each
 * other and are 8-byte aligned; a chunk that does not fit (objects further
 * than 16 GiB apart, or unaligned) is stored as pointers. */
#define SL_CHUNKQ_GRAIN_SHIFT 3

static inline bool slot_write(struct sl_chunkq_slot *s, void *const *objs, unsigned n)
{
	int32_t *d = (int32_t *)(void *)(s + 1);
	uintptr_t base = (uintptr_t)objs[0];
	uint64_t bad = 0;
	for (unsigned i = 0; i < n; i++) {
		uint64_t off = (uintptr_t)objs[i] - base;
		int64_t q = (int64_t)off >> SL_CHUNKQ_GRAIN_SHIFT;
		bad |= (off & ((1u << SL_CHUNKQ_GRAIN_SHIFT) - 1)) |
		       (((uint64_t)q + 0x80000000u) >> 32);
		d[i] = (int32_t)q;
	}
	s->base = base;
	s->packed = bad == 0;
	if (bad != 0)
		memcpy(slot_objs(s), objs, (size_t)n * sizeof(void *));
	return bad == 0;
}

static inline void slot_read(const struct sl_chunkq_slot *s, void **objs, unsigned n)
{
	if (!s->packed) {
		memcpy(objs, (void *const *)(const void *)(s + 1), (size_t)n * sizeof(void *));
		return;
	}
	const int32_t *d = (const int32_t *)(const void *)(s + 1);
	uintptr_t base = s->base;
	for (unsigned i = 0; i < n; i++)
		objs[i] = (void *)(base + ((uintptr_t)(intptr_t)d[i] << SL_CHUNKQ_GRAIN_SHIFT));
}

int sl_chunkq_init(struct sl_chunkq *q, unsigned n_slots, unsigned chunk,
		   uint64_t first_pos)
{
	if (n_slots < 2 || (n_slots & (n_slots - 1)) != 0 || chunk == 0)
		return -EINVAL;
	size_t data = (size_t)chunk * sizeof(void *);
	size_t stride = sizeof(struct sl_chunkq_slot) +
			(data + SL_POOL_CACHE_LINE - 1) / SL_POOL_CACHE_LINE * SL_POOL_CACHE_LINE;
	char *slots = aligned_alloc(SL_POOL_CACHE_LINE, stride * n_slots);
	if (slots == NULL)
		return -ENOMEM;
	q->slots = slots;
	q->mask = n_slots - 1;
	q->stride = stride;
	q->chunk = chunk;
	for (unsigned i = 0; i < n_slots; i++)
		atomic_init(&slot_at(q, first_pos + i)->seq, first_pos + i);
	atomic_init(&q->head, first_pos);
	atomic_init(&q->unpacked, 0);
	atomic_init(&q->tail, first_pos);
	return 0;
}

void sl_chunkq_fini(struct sl_chunkq *q)
{
	free(q->slots);
	q->slots = NULL;
}

int sl_chunkq_push(struct sl_chunkq *q, void *const *objs)
{
	uint64_t pos = atomic_load_explicit(&q->head, memory_order_relaxed);
	struct sl_chunkq_slot *s;
	for (;;) {
		s = slot_at(q, pos);
		uint64_t seq = atomic_load_explicit(&s->seq, memory_order_acquire);
		int64_t diff = (int64_t)(seq - pos);
		if (diff == 0) {
			/* Free for this lap: claim it.  On failure pos is reloaded. */
			if (atomic_compare_exchange_weak_explicit(&q->head, &pos, pos + 1,
								  memory_order_relaxed,
								  memory_order_relaxed))
				break;
		} else if (diff < 0) {
			/* Still holds the chunk from the previous lap. */
			return -ENOSPC;
		} else {
			/* Another producer took pos; catch up. */
			pos = atomic_load_explicit(&q->head, memory_order_relaxed);
		}
	}
	if (!slot_write(s, objs, q->chunk))
		atomic_fetch_add_explicit(&q->unpacked, 1, memory_order_relaxed);
	atomic_store_explicit(&s->seq, pos + 1, memory_order_release);
	return 0;
}

int sl_chunkq_pop(struct sl_chunkq *q, void **objs)
{
	uint64_t pos = atomic_load_explicit(&q->tail, memory_order_relaxed);
	struct sl_chunkq_slot *s;
	for (;;) {
		s = slot_at(q, pos);
		uint64_t seq = atomic_load_explicit(&s->seq, memory_order_acquire);
		int64_t diff = (int64_t)(seq - (pos + 1));
		if (diff == 0) {
			if (atomic_compare_exchange_weak_explicit(&q->tail, &pos, pos + 1,
								  memory_order_relaxed,
								  memory_order_relaxed))
				break;
		} else if (diff < 0) {
			/* Not filled yet for this lap. */
			return -ENOENT;
		} else {
			pos = atomic_load_explicit(&q->tail, memory_order_relaxed);
		}
	}
	slot_read(s, objs, q->chunk);
	atomic_store_explicit(&s->seq, pos + q->mask + 1, memory_order_release);
	return 0;
}

void sl_chunkq_prefetch_pop(const struct sl_chunkq *q)
{
	uint64_t pos = atomic_load_explicit(&q->tail, memory_order_relaxed);
	const char *s = (const char *)slot_at(q, pos);
	/* the header and a packed chunk's deltas (a chunk stored as pointers
	 * is rare: its second half is not fetched ahead) */
	size_t end = sizeof(struct sl_chunkq_slot) + (size_t)q->chunk * sizeof(int32_t);
	for (size_t off = 0; off < end; off += SL_POOL_CACHE_LINE)
		__builtin_prefetch(s + off, 0, 3);
}

uint64_t sl_chunkq_count(const struct sl_chunkq *q)
{
	/* tail first: the head read afterwards is at least as new, so the
	 * difference cannot go negative. */
	uint64_t tail = atomic_load_explicit(&q->tail, memory_order_acquire);
	uint64_t head = atomic_load_explicit(&q->head, memory_order_acquire);
	uint64_t n = head - tail;
	return n > q->mask + 1 ? q->mask + 1 : n;
}

void sl_chunkq_read_at(const struct sl_chunkq *q, uint64_t pos, void **objs)
{
	slot_read(slot_at(q, pos), objs, q->chunk);
}
