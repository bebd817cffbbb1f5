/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The capture ring (engine/runtime/capring.h), a single-producer
 * single-consumer ring of variable-length records, over a 4096-byte buffer
 * so that wrap-around and pad records come every few dozen records.
 *
 *  1. single thread: an empty ring peeks NULL; filling it with equal records
 *     takes exactly size / len of them, reserve then says full, and peek
 *     gives them back in order; filling it with records of varied caplen
 *     stops only when the next one (and its pad) does not fit; a record of
 *     sl_capring_max_caplen fits an empty ring wherever head is (a pad before
 *     it where the end of the buffer is too short) and one byte more does not
 *     always; a record that does not fit at the end goes to offset 0 behind a
 *     pad of exactly the rest of the buffer, refused until enough is freed
 *     for pad and record together.
 *  2. two threads: a producer puts N records of pseudo-random caplen (a
 *     function of the sequence number; tsc = sequence number, origlen and
 *     tag derived from it, the data a pseudo-random pattern at an offset
 *     derived from it), retrying with sched_yield while reserve says full,
 *     and a consumer peeks and advances.  Asserted: the consumer sees every
 *     record exactly once and in order, with the right caplen, origlen, tag,
 *     tsc and every data byte, len the 8-aligned header + caplen, never a pad
 *     (caplen SL_CAPRING_PAD), each record where the previous one ended or at
 *     offset 0 behind a pad that was needed, never straddling the end; the
 *     producer's and the consumer's counts of pads agree; the ring ends
 *     empty.  Under ThreadSanitizer this checks the ring's memory order: the
 *     record's bytes are plain stores published by the head's release.
 */
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "base/rand.h"
#include "runtime/capring.h"

#include "check.h"

#define RING_BYTES 4096u
#if defined(__SANITIZE_THREAD__)
#define N_RECORDS 1000000u       /* ThreadSanitizer (gcc): about 6 s on 2 CPUs */
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define N_RECORDS 1000000u       /* ThreadSanitizer (clang) */
#endif
#endif
#ifndef N_RECORDS
#define N_RECORDS 2000000u
#endif
#define PAT_LEN 8192u            /* the data pattern; a record starts at an offset in it */
#define MAX_REPORTS 10u          /* per thread, then only counted */

static uint8_t ring_buf[RING_BYTES] __attribute__((aligned(64)));
static uint8_t pattern[PAT_LEN + RING_BYTES];
static struct sl_capring ring;

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	x ^= x >> 33;
	return x;
}

/* The record of sequence number seq: its caplen (mostly under 256, one in
 * 32 anything up to max), origlen and where its data starts in pattern. */
static uint32_t caplen_of(uint64_t seq, uint32_t max)
{
	uint64_t h = mix(seq);
	uint32_t lim = (h & 31) == 0 ? max : (max < 255 ? max : 255);
	return (uint32_t)((h >> 8) % (lim + 1u));
}

static uint32_t origlen_of(uint64_t seq, uint32_t caplen)
{
	return caplen + (uint32_t)(mix(seq ^ 0x5a5a) % 1500u);
}

static const uint8_t *data_of(uint64_t seq)
{
	return pattern + (seq * 2654435761u) % PAT_LEN;
}

static void fill(struct sl_capring_rec *rec, uint64_t seq, uint32_t caplen)
{
	rec->caplen = caplen;
	rec->origlen = origlen_of(seq, caplen);
	rec->tag = (uint32_t)(seq & 0xffff);
	rec->tsc = seq;
	memcpy(rec->data, data_of(seq), caplen);
}

/* Whether rec is record seq of caplen bytes, whole. */
static bool intact(const struct sl_capring_rec *rec, uint64_t seq, uint32_t caplen)
{
	return rec->caplen == caplen && rec->len == sl_capring_rec_len(caplen) &&
	       rec->origlen == origlen_of(seq, caplen) && rec->tag == (seq & 0xffff) &&
	       rec->tsc == seq && memcmp(rec->data, data_of(seq), caplen) == 0;
}

static uint64_t off_of(const void *rec)
{
	return (uint64_t)((const uint8_t *)rec - ring_buf);
}

/* Put one record (asserting that it fits); the offset it went to. */
static uint64_t put1(uint64_t seq, uint32_t caplen)
{
	struct sl_capring_rec *rec = sl_capring_reserve(&ring, caplen);
	CHECK(rec != NULL, "record %lu (caplen %u) refused", (unsigned long)seq, caplen);
	if (rec == NULL)
		return UINT64_MAX;
	fill(rec, seq, caplen);
	sl_capring_commit(&ring, rec);
	return off_of(rec);
}

/* Take one record, asserting it is seq of caplen bytes. */
static void take1(uint64_t seq, uint32_t caplen)
{
	const struct sl_capring_rec *rec = sl_capring_peek(&ring);
	CHECK(rec != NULL, "record %lu missing", (unsigned long)seq);
	if (rec == NULL)
		return;
	CHECK(intact(rec, seq, caplen), "record %lu (caplen %u) garbled: caplen %u len %u tsc %lu",
	      (unsigned long)seq, caplen, rec->caplen, rec->len, (unsigned long)rec->tsc);
	sl_capring_advance(&ring, rec);
}

/* A fresh empty ring whose head (and tail) are at offset off: off is 0 or
 * 24..size-8 (a record is at least 24 bytes and never straddles the end, so
 * 8 and 16 are unreachable).  Records of at most size / 2 bytes. */
static void empty_ring_at(uint64_t off)
{
	const uint32_t hdr = (uint32_t)sizeof(struct sl_capring_rec);
	sl_capring_init(&ring, ring_buf, RING_BYTES);
	uint64_t rem = off, seq = 0;
	while (rem > 0) {
		uint64_t c = rem <= RING_BYTES / 2 ? rem
			     : (rem - RING_BYTES / 2 >= hdr ? RING_BYTES / 2 : rem - hdr);
		put1(seq, (uint32_t)(c - hdr));
		take1(seq, (uint32_t)(c - hdr));
		rem -= c;
		seq++;
	}
}

static void single_thread(void)
{
	/* Empty. */
	sl_capring_init(&ring, ring_buf, RING_BYTES);
	const uint32_t max = (uint32_t)sl_capring_max_caplen(&ring);
	CHECK(sl_capring_max_caplen(&ring) == RING_BYTES / 2 - sizeof(struct sl_capring_rec),
	      "max caplen %lu", (unsigned long)sl_capring_max_caplen(&ring));
	CHECK(sl_capring_peek(&ring) == NULL, "an empty ring peeks a record");
	CHECK(sl_capring_used(&ring) == 0, "an empty ring uses %lu bytes",
	      (unsigned long)sl_capring_used(&ring));

	/* Fill with records of 64 bytes: exactly size / 64, then full. */
	unsigned n = 0;
	for (;;) {
		struct sl_capring_rec *rec = sl_capring_reserve(&ring, 40);
		if (rec == NULL)
			break;
		CHECK(off_of(rec) == 64u * n, "record %u at %lu", n, (unsigned long)off_of(rec));
		fill(rec, n, 40);
		sl_capring_commit(&ring, rec);
		if (++n > RING_BYTES)
			break;
	}
	CHECK(n == RING_BYTES / 64, "%u records of 64 bytes filled the ring, expected %u", n,
	      RING_BYTES / 64);
	CHECK(sl_capring_used(&ring) == RING_BYTES, "full ring uses %lu bytes",
	      (unsigned long)sl_capring_used(&ring));
	CHECK(sl_capring_reserve(&ring, 0) == NULL, "a full ring takes a record of caplen 0");
	for (unsigned i = 0; i < n; i++)
		take1(i, 40);
	CHECK(sl_capring_peek(&ring) == NULL, "a drained ring peeks a record");
	CHECK(sl_capring_used(&ring) == 0, "a drained ring uses %lu bytes",
	      (unsigned long)sl_capring_used(&ring));

	/* Fill with records of varied caplen, from a ring that is part way round
	 * (so the fill crosses the end): reserve refuses only a record that
	 * (with its pad) does not fit. */
	empty_ring_at(1000);
	n = 0;
	for (;;) {
		uint32_t caplen = caplen_of(n, max);
		struct sl_capring_rec *rec = sl_capring_reserve(&ring, caplen);
		if (rec == NULL) {
			/* tail is at 1000 (nothing consumed since), head past it by used. */
			uint64_t used = sl_capring_used(&ring);
			uint64_t head_off = (1000 + used) & (RING_BYTES - 1);
			uint64_t len = sl_capring_rec_len(caplen);
			uint64_t need = len + (RING_BYTES - head_off < len ? RING_BYTES - head_off : 0);
			CHECK(RING_BYTES - used < need,
			      "record %u (len %lu, %lu with its pad) refused with %lu bytes free", n,
			      (unsigned long)len, (unsigned long)need, (unsigned long)(RING_BYTES - used));
			break;
		}
		fill(rec, n, caplen);
		sl_capring_commit(&ring, rec);
		if (++n > RING_BYTES)
			break;
	}
	CHECK(n > 2, "only %u varied records fit", n);
	for (unsigned i = 0; i < n; i++)
		take1(i, caplen_of(i, max));
	CHECK(sl_capring_peek(&ring) == NULL, "a drained ring peeks a record");

	/* The largest record fits an empty ring wherever head is. */
	for (uint64_t off = 0; off < RING_BYTES; off += 8) {
		if (off == 8 || off == 16)
			continue;
		empty_ring_at(off);
		CHECK(sl_capring_peek(&ring) == NULL, "ring at %lu not empty", (unsigned long)off);
		struct sl_capring_rec *rec = sl_capring_reserve(&ring, max);
		CHECK(rec != NULL, "a record of max caplen %u refused by an empty ring at %lu", max,
		      (unsigned long)off);
		if (rec == NULL)
			continue;
		bool pad = RING_BYTES - off < RING_BYTES / 2;
		CHECK(off_of(rec) == (pad ? 0 : off), "max record at %lu from head %lu",
		      (unsigned long)off_of(rec), (unsigned long)off);
		fill(rec, 7, max);
		sl_capring_commit(&ring, rec);
		CHECK(sl_capring_used(&ring) == RING_BYTES / 2 + (pad ? RING_BYTES - off : 0),
		      "ring at %lu uses %lu after the max record", (unsigned long)off,
		      (unsigned long)sl_capring_used(&ring));
		const struct sl_capring_rec *got = sl_capring_peek(&ring);
		CHECK(got == rec, "peek from %lu gave %p, not the record %p", (unsigned long)off,
		      (const void *)got, (void *)rec);
		if (got != NULL) {
			CHECK(intact(got, 7, max) && got->len == RING_BYTES / 2,
			      "max record from %lu garbled", (unsigned long)off);
			sl_capring_advance(&ring, got);
		}
		CHECK(sl_capring_peek(&ring) == NULL && sl_capring_used(&ring) == 0,
		      "ring at %lu not empty after the max record", (unsigned long)off);
	}
	/* One byte more: at offset size / 2 it would need the whole second half
	 * as a pad and more than the first half. */
	empty_ring_at(RING_BYTES / 2);
	CHECK(sl_capring_reserve(&ring, max + 1) == NULL,
	      "a record of caplen max + 1 fit an empty ring at size / 2");

	/* Wrap-around: 33 records of 120 bytes leave 136 at the end; a record of
	 * 224 does not fit there, so it needs a pad of 136 and 224 at offset 0. */
	sl_capring_init(&ring, ring_buf, RING_BYTES);
	for (unsigned i = 0; i < 33; i++)
		CHECK(put1(i, 96) == 120u * i, "record %u misplaced", i);
	CHECK(sl_capring_reserve(&ring, 200) == NULL, "pad + record fit in 136 free bytes");
	take1(0, 96);
	CHECK(sl_capring_reserve(&ring, 200) == NULL, "pad + record (360) fit in 256 free bytes");
	take1(1, 96);
	take1(2, 96);
	uint64_t at = put1(33, 200);   /* 376 free */
	CHECK(at == 0, "the wrapped record at %lu, not 0", (unsigned long)at);
	const struct sl_capring_rec *pad = (const struct sl_capring_rec *)(ring_buf + 33 * 120);
	CHECK(pad->caplen == SL_CAPRING_PAD && pad->len == RING_BYTES - 33 * 120,
	      "pad at %u: caplen %u len %u", 33 * 120, pad->caplen, pad->len);
	CHECK(sl_capring_used(&ring) == 30 * 120 + (RING_BYTES - 33 * 120) + 224,
	      "used %lu after the wrap", (unsigned long)sl_capring_used(&ring));
	for (unsigned i = 3; i < 33; i++)
		take1(i, 96);
	const struct sl_capring_rec *w = sl_capring_peek(&ring);
	CHECK(w == (const void *)ring_buf, "after the pad peek gave %p, not the buffer's start",
	      (const void *)w);
	if (w != NULL) {
		CHECK(w->caplen != SL_CAPRING_PAD && intact(w, 33, 200), "wrapped record garbled");
		sl_capring_advance(&ring, w);
	}
	CHECK(sl_capring_peek(&ring) == NULL && sl_capring_used(&ring) == 0,
	      "ring not empty after the wrap");
}

/* Two threads. */

struct side {
	uint64_t records, fulls, pads, errors;
};

static struct side prod, cons;
static uint32_t max_cap;
static int prod_done;
static int cons_quit;     /* the consumer gave up: the producer stops too */

static void *producer(void *arg)
{
	(void)arg;
	uint64_t expect = 0;   /* where the next record goes unless a pad */
	for (uint64_t seq = 0; seq < N_RECORDS; seq++) {
		uint32_t caplen = caplen_of(seq, max_cap);
		uint32_t len = sl_capring_rec_len(caplen);
		struct sl_capring_rec *rec;
		while ((rec = sl_capring_reserve(&ring, caplen)) == NULL) {
			prod.fulls++;
			if (__atomic_load_n(&cons_quit, __ATOMIC_ACQUIRE))
				goto out;
			sched_yield();
		}
		uint64_t off = off_of(rec);
		if (off != expect) {
			const struct sl_capring_rec *p = (const void *)(ring_buf + expect);
			bool ok = off == 0 && RING_BYTES - expect < len && p->caplen == SL_CAPRING_PAD &&
				  p->len == RING_BYTES - expect;
			if (!ok && prod.errors++ < MAX_REPORTS)
				CHECK(ok, "producer: record %lu at %lu, expected %lu or a pad there",
				      (unsigned long)seq, (unsigned long)off, (unsigned long)expect);
			prod.pads++;
		}
		fill(rec, seq, caplen);
		sl_capring_commit(&ring, rec);
		expect = (off + len) & (RING_BYTES - 1);
		prod.records++;
	}
out:
	__atomic_store_n(&prod_done, 1, __ATOMIC_RELEASE);
	return NULL;
}

#define CONS_CHECK(cond, ...)                                                \
	do {                                                                 \
		if (!(cond) && cons.errors++ < MAX_REPORTS)                  \
			CHECK(cond, __VA_ARGS__);                            \
	} while (0)

static void *consumer(void *arg)
{
	(void)arg;
	uint64_t next = 0, expect = 0;
	while (next < N_RECORDS && cons.errors < 1000) {
		const struct sl_capring_rec *rec = sl_capring_peek(&ring);
		if (rec == NULL) {
			if (!__atomic_load_n(&prod_done, __ATOMIC_ACQUIRE)) {
				sched_yield();
				continue;
			}
			rec = sl_capring_peek(&ring);   /* the producer's last */
			if (rec == NULL)
				break;
		}
		uint64_t off = off_of(rec);
		uint64_t seq = rec->tsc;
		uint32_t caplen = rec->caplen;
		CONS_CHECK(caplen != SL_CAPRING_PAD, "consumer: peek gave a pad at %lu",
			   (unsigned long)off);
		if (caplen == SL_CAPRING_PAD)
			break;   /* its len is no record's: cannot go on */
		if (off != expect) {
			CONS_CHECK(off == 0 && RING_BYTES - expect < rec->len,
				   "consumer: record %lu at %lu, expected %lu or 0 behind a needed pad",
				   (unsigned long)seq, (unsigned long)off, (unsigned long)expect);
			cons.pads++;
		}
		CONS_CHECK(off % 8 == 0 && off + rec->len <= RING_BYTES,
			   "consumer: record %lu at %lu len %u straddles the end", (unsigned long)seq,
			   (unsigned long)off, rec->len);
		CONS_CHECK(seq == next, "consumer: record %lu where %lu was next (%s)",
			   (unsigned long)seq, (unsigned long)next, seq > next ? "lost" : "duplicate");
		CONS_CHECK(caplen == caplen_of(seq, max_cap), "consumer: record %lu caplen %u, not %u",
			   (unsigned long)seq, caplen, caplen_of(seq, max_cap));
		if (caplen <= max_cap) {
			CONS_CHECK(intact(rec, seq, caplen),
				   "consumer: record %lu garbled: len %u origlen %u tag %u",
				   (unsigned long)seq, rec->len, rec->origlen, rec->tag);
		}
		expect = (off + rec->len) & (RING_BYTES - 1);
		next = seq + 1;
		cons.records++;
		sl_capring_advance(&ring, rec);
	}
	__atomic_store_n(&cons_quit, 1, __ATOMIC_RELEASE);
	return NULL;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void two_threads(void)
{
	sl_capring_init(&ring, ring_buf, RING_BYTES);
	max_cap = (uint32_t)sl_capring_max_caplen(&ring);
	double t0 = now_s();
	pthread_t tp, tc;
	if (pthread_create(&tc, NULL, consumer, NULL) != 0 ||
	    pthread_create(&tp, NULL, producer, NULL) != 0) {
		CHECK(0, "pthread_create");
		return;
	}
	pthread_join(tp, NULL);
	pthread_join(tc, NULL);
	double dt = now_s() - t0;

	CHECK(prod.records == N_RECORDS, "producer put %lu records", (unsigned long)prod.records);
	CHECK(cons.records == N_RECORDS, "consumer took %lu of %u records",
	      (unsigned long)cons.records, N_RECORDS);
	CHECK(prod.errors == 0, "producer: %lu errors", (unsigned long)prod.errors);
	CHECK(cons.errors == 0, "consumer: %lu errors", (unsigned long)cons.errors);
	CHECK(prod.pads == cons.pads && cons.pads > 0, "pads: producer %lu, consumer %lu",
	      (unsigned long)prod.pads, (unsigned long)cons.pads);
	CHECK(sl_capring_peek(&ring) == NULL && sl_capring_used(&ring) == 0,
	      "ring not empty at the end (%lu bytes)", (unsigned long)sl_capring_used(&ring));
	printf("test_capring_stress: %lu records, %lu fulls, %lu pads in %.2f s\n",
	       (unsigned long)cons.records, (unsigned long)prod.fulls, (unsigned long)cons.pads, dt);
}

int main(void)
{
	uint64_t x = 0;
	for (size_t i = 0; i < sizeof(pattern); i++)
		pattern[i] = (uint8_t)(sl_rand64(&x) >> 24);
	single_thread();
	two_threads();
	printf("test_capring_stress: %d checks, %d failures\n", checks, failures);
	return failures ? 1 : 0;
}
