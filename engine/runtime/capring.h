/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A single-producer single-consumer ring of variable-length records, for
 * packet capture (a link's tap, tap.h): the worker copies a packet's first
 * bytes in as one record, the control thread takes records out and writes
 * them to a pcapng stream.  The producer never waits: a record that does not
 * fit is refused (the caller counts the drop).
 *
 * Layout.  size bytes (a power of two), indices that only grow (64-bit: they
 * do not wrap in practice).  A record is a struct sl_capring_rec header and
 * its bytes, padded to 8 bytes, and never straddles the end of the buffer:
 * where the rest of the buffer is too short, the producer writes a pad
 * header (caplen SL_CAPRING_PAD, len the rest of the buffer; 8 bytes are
 * enough for it since everything is 8-aligned) and starts at offset 0.
 *
 * Memory order.  The producer writes the record, then stores head with
 * release; the consumer loads head with acquire, reads the records, then
 * stores tail with release; the producer loads tail with acquire before it
 * reuses space.  Each side keeps a private copy of the other's index and
 * reloads it only when the copy says full (producer) or empty (consumer).
 *
 * Threads: sl_capring_reserve and commit by one thread at a time (the
 * producer), peek and advance by one thread at a time (the consumer); init
 * and sl_capring_used on the control thread.  No locks, no allocation after
 * init.
 */
#ifndef SL_CAPRING_H
#define SL_CAPRING_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#define SL_CAPRING_PAD UINT32_MAX

struct sl_capring_rec {
	uint32_t len;       /* bytes of this record, header included, 8-aligned */
	uint32_t caplen;    /* bytes captured, or SL_CAPRING_PAD */
	uint32_t origlen;   /* the packet's length */
	uint32_t tag;       /* the producer's: which link (tap.h) */
	uint64_t tsc;       /* when it was captured */
	uint8_t data[];
};

struct sl_capring {
	/* The producer's line. */
	uint64_t head __attribute__((aligned(64)));
	uint64_t tail_seen;          /* producer's copy of tail */
	/* The consumer's line. */
	uint64_t tail __attribute__((aligned(64)));
	uint64_t head_seen;          /* consumer's copy of head */
	/* Fixed at init. */
	uint8_t *buf __attribute__((aligned(64)));
	uint64_t size, mask;
};

/* Use buf (size bytes, a power of two >= 64, 8-aligned) as an empty ring. */
static inline void sl_capring_init(struct sl_capring *r, void *buf, uint64_t size)
{
	memset(r, 0, sizeof(*r));
	r->buf = (uint8_t *)buf;
	r->size = size;
	r->mask = size - 1;
}

/* The largest caplen a record of r can hold. */
static inline uint64_t sl_capring_max_caplen(const struct sl_capring *r)
{
	return r->size / 2 - sizeof(struct sl_capring_rec);
}

static inline uint32_t sl_capring_rec_len(uint32_t caplen)
{
	return (uint32_t)((sizeof(struct sl_capring_rec) + caplen + 7u) & ~7u);
}

/* Producer: room for a record of caplen bytes, or NULL (full).  Fill in
 * its header fields other than len and its data, then sl_capring_commit. */
static inline struct sl_capring_rec *sl_capring_reserve(struct sl_capring *r, uint32_t caplen)
{
	uint64_t len = sl_capring_rec_len(caplen);
	uint64_t head = r->head;
	uint64_t off = head & r->mask;
	uint64_t need = len + (r->size - off < len ? r->size - off : 0);
	if (r->size - (head - r->tail_seen) < need) {
		r->tail_seen = __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE);
		if (r->size - (head - r->tail_seen) < need)
			return NULL;
	}
	if (need != len) {   /* the rest of the buffer: a pad record */
		struct sl_capring_rec *pad = (struct sl_capring_rec *)(r->buf + off);
		pad->len = (uint32_t)(r->size - off);
		pad->caplen = SL_CAPRING_PAD;
		off = 0;
	}
	struct sl_capring_rec *rec = (struct sl_capring_rec *)(r->buf + off);
	rec->len = (uint32_t)need;   /* the commit's step; rewritten below */
	return rec;
}

/* Producer: publish the record sl_capring_reserve returned. */
static inline void sl_capring_commit(struct sl_capring *r, struct sl_capring_rec *rec)
{
	uint64_t step = rec->len;
	rec->len = sl_capring_rec_len(rec->caplen);
	__atomic_store_n(&r->head, r->head + step, __ATOMIC_RELEASE);
}

/* Consumer: the oldest record, or NULL (empty).  It stays valid until
 * sl_capring_advance. */
static inline const struct sl_capring_rec *sl_capring_peek(struct sl_capring *r)
{
	for (;;) {
		if (r->tail == r->head_seen) {
			r->head_seen = __atomic_load_n(&r->head, __ATOMIC_ACQUIRE);
			if (r->tail == r->head_seen)
				return NULL;
		}
		const struct sl_capring_rec *rec =
			(const struct sl_capring_rec *)(r->buf + (r->tail & r->mask));
		if (rec->caplen != SL_CAPRING_PAD)
			return rec;
		/* Skip the pad (published: the producer reads tail); the
		 * record is at the start of the buffer. */
		__atomic_store_n(&r->tail, r->tail + rec->len, __ATOMIC_RELEASE);
	}
}

/* Consumer: let go of the record peek returned (and of any pad before it);
 * the producer may reuse its space once the consumer publishes (every
 * advance publishes). */
static inline void sl_capring_advance(struct sl_capring *r, const struct sl_capring_rec *rec)
{
	__atomic_store_n(&r->tail, r->tail + rec->len, __ATOMIC_RELEASE);
}

/* Consumer: bytes queued now (a snapshot). */
static inline uint64_t sl_capring_used(const struct sl_capring *r)
{
	return __atomic_load_n(&r->head, __ATOMIC_ACQUIRE) - r->tail;
}

#endif
