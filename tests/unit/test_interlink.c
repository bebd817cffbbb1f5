/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Interlink, one thread: argument checks and their errors, defaults, the
 * attach/detach state machine, publish visibility, full rings, index
 * wrap-around, drain and free, counters and the sojourn histogram.  Objects
 * are integers cast to pointers.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_memzone.h>

#include "interlink/interlink.h"
#include "interlink/interlink_worker.h"

#include "check.h"

#define OBJ(v) ((void *)(uintptr_t)(v))
#define VAL(p) ((uintptr_t)(p))

static struct sl_il *make(const char *name, uint32_t size, uint32_t sample)
{
	struct sl_err err = { "" };
	struct sl_il_config cfg = { .size = size, .socket = SOCKET_ID_ANY, .sample_every = sample };
	struct sl_il *il = sl_il_create(name, &cfg, &err);
	CHECK(il != NULL, "create '%s': %s", name, err.msg);
	return il;
}

static void attach_both(struct sl_il *il)
{
	CHECK(sl_il_attach(il, SL_IL_PRODUCER) == 0, "attach producer of '%s'", sl_il_name(il));
	CHECK(sl_il_attach(il, SL_IL_CONSUMER) == 0, "attach consumer of '%s'", sl_il_name(il));
}

static void destroy(struct sl_il *il)
{
	sl_il_detach(il, SL_IL_PRODUCER);
	sl_il_detach(il, SL_IL_CONSUMER);
	sl_il_drain(il, NULL, NULL);
	int rc = sl_il_free(il);
	CHECK(rc == 0, "free: %d", rc);
}

/* A constructor or lookup that must have failed: it returned NULL, set errno
 * to `want` and wrote exactly `msg` (which names the ring) into *err.  Clears
 * errno and *err for the next call. */
static void fails(const char *what, const void *got, struct sl_err *err, int want,
		  const char *msg)
{
	int e = errno;
	CHECK(got == NULL && e == want && strcmp(err->msg, msg) == 0,
	      "%s: got %p, errno %d (want %d), '%s' (want '%s')", what, got, e, want, err->msg,
	      msg);
	errno = 0;
	err->msg[0] = '\0';
}

static void test_create_errors(void)
{
	struct sl_err err = { "" };
	struct sl_il_config cfg = { .size = 1000, .socket = SOCKET_ID_ANY };
	const char *long_name = "abcdefghijklmnopqrstuvwxyz";   /* 26 characters */

	errno = 0;
	fails("NULL name", sl_il_create(NULL, NULL, &err), &err, EINVAL,
	      "interlink: the name is empty");
	fails("empty name", sl_il_create("", NULL, &err), &err, EINVAL,
	      "interlink: the name is empty");
	fails("26-character name", sl_il_create(long_name, NULL, &err), &err, ENAMETOOLONG,
	      "interlink 'abcdefghijklmnopqrstuvwxyz': the name is longer than 25 characters");
	fails("size 1000", sl_il_create("c1", &cfg, &err), &err, EINVAL,
	      "interlink 'c1': size must be a power of two from 2 to 16777216, got 1000");
	cfg.size = 1;
	fails("size 1", sl_il_create("c1", &cfg, &err), &err, EINVAL,
	      "interlink 'c1': size must be a power of two from 2 to 16777216, got 1");
	cfg.size = SL_IL_SIZE_MAX * 2;
	fails("size 2^25", sl_il_create("c1", &cfg, &err), &err, EINVAL,
	      "interlink 'c1': size must be a power of two from 2 to 16777216, got 33554432");
	cfg.size = 64;
	cfg.sample_every = 48;
	fails("sample 48", sl_il_create("c1", &cfg, &err), &err, EINVAL,
	      "interlink 'c1': sample_every must be a power of two from 1 to 65536, got 48");
	cfg.sample_every = SL_IL_SAMPLE_MAX * 2;
	fails("sample 2^17", sl_il_create("c1", &cfg, &err), &err, EINVAL,
	      "interlink 'c1': sample_every must be a power of two from 1 to 65536, got 131072");
	CHECK(sl_il_create("c1", &cfg, NULL) == NULL && errno == EINVAL,
	      "err may be NULL: errno %d", errno);
	errno = 0;

	/* 25 characters is the limit and works. */
	struct sl_il *il = make("abcdefghijklmnopqrstuvwxy", 2, 1);
	CHECK(il != NULL && strcmp(sl_il_name(il), "abcdefghijklmnopqrstuvwxy") == 0, "name");
	CHECK(rte_memzone_lookup("sl_il_abcdefghijklmnopqrstuvwxy") != NULL, "memzone name");
	fails("duplicate", sl_il_create("abcdefghijklmnopqrstuvwxy", NULL, &err), &err, EEXIST,
	      "interlink 'abcdefghijklmnopqrstuvwxy': the memzone "
	      "'sl_il_abcdefghijklmnopqrstuvwxy' exists already");
	CHECK(sl_il_lookup("abcdefghijklmnopqrstuvwxy", NULL) == il, "lookup finds it");
	destroy(il);

	fails("lookup missing", sl_il_lookup("nosuch", &err), &err, ENOENT,
	      "interlink 'nosuch': no memzone 'sl_il_nosuch'");
	fails("lookup empty", sl_il_lookup("", &err), &err, EINVAL,
	      "interlink: the name is empty");
	fails("lookup 26 characters", sl_il_lookup(long_name, &err), &err, ENAMETOOLONG,
	      "interlink 'abcdefghijklmnopqrstuvwxyz': the name is longer than 25 characters");
	const struct rte_memzone *z = rte_memzone_reserve("sl_il_fake", 8192, SOCKET_ID_ANY, 0);
	CHECK(z != NULL, "reserve a fake memzone");
	if (z != NULL) {
		memset(z->addr, 0, z->len);
		fails("lookup of a memzone that is not an interlink", sl_il_lookup("fake", &err),
		      &err, EPROTO, "interlink 'fake': memzone 'sl_il_fake' does not hold an "
		      "interlink of this layout");
		rte_memzone_free(z);
	}
}

static void test_defaults(void)
{
	struct sl_err err = { "" };
	struct sl_il *il = sl_il_create("d1", NULL, &err);
	CHECK(il != NULL, "create with NULL config: %s", err.msg);
	struct sl_il_stats s;
	sl_il_stats_read(il, &s);
	CHECK(s.size == SL_IL_SIZE_DEFAULT && sl_il_size(il) == 1024, "default size %u", s.size);
	CHECK(s.sample_every == SL_IL_SAMPLE_DEFAULT, "default sampling %u", s.sample_every);
	CHECK(s.tsc_hz == rte_get_tsc_hz(), "tsc_hz");
	CHECK(((uintptr_t)il & (SL_IL_BLOCK - 1)) == 0, "ring is block-aligned");
	CHECK(s.state[0] == SL_IL_DETACHED && s.state[1] == SL_IL_DETACHED, "ends detached");
	destroy(il);

	CHECK(sl_il_set_default_size(1000) == -EINVAL, "default 1000 refused");
	CHECK(sl_il_set_default_size(0) == -EINVAL, "default 0 refused");
	CHECK(sl_il_default_size() == 1024, "default unchanged");
	CHECK(sl_il_set_default_size(256) == 0, "default 256");
	il = sl_il_create("d2", &(struct sl_il_config){ .socket = SOCKET_ID_ANY }, &err);
	CHECK(il != NULL && sl_il_size(il) == 256, "global default used");
	destroy(il);
	CHECK(sl_il_set_default_size(SL_IL_SIZE_DEFAULT) == 0, "restore default");
}

static void test_states(void)
{
	struct sl_il *il = make("s1", 64, 0);
	CHECK(sl_il_attach(il, (enum sl_il_end)2) == -EINVAL, "bad end");
	CHECK(sl_il_detach(il, SL_IL_CONSUMER) == -EINVAL, "detach of a detached end");
	CHECK(sl_il_attach(il, SL_IL_PRODUCER) == 0, "attach producer");
	CHECK(sl_il_attach(il, SL_IL_PRODUCER) == -EBUSY, "second producer refused");
	CHECK(sl_il_state(il, SL_IL_PRODUCER) == SL_IL_ATTACHED, "producer attached");
	CHECK(sl_il_state(il, SL_IL_CONSUMER) == SL_IL_DETACHED, "consumer detached");
	/* An end caught half-way through a detach asks the attacher to retry. */
	il->ctrl.state[SL_IL_CONSUMER] = SL_IL_DETACHING;
	CHECK(sl_il_attach(il, SL_IL_CONSUMER) == -EAGAIN, "attach while detaching");
	il->ctrl.state[SL_IL_CONSUMER] = SL_IL_DETACHED;

	struct sl_il_stats s;
	sl_il_stats_read(il, &s);
	CHECK(s.pid[SL_IL_PRODUCER] == getpid() && s.pid[SL_IL_CONSUMER] == 0, "pids %d %d",
	      s.pid[0], s.pid[1]);
	CHECK(sl_il_free(il) == -EBUSY, "free with an end attached");
	CHECK(sl_il_detach(il, SL_IL_PRODUCER) == 0, "detach producer");
	CHECK(sl_il_detach(il, SL_IL_PRODUCER) == -EINVAL, "detach twice");
	CHECK(sl_il_free(il) == 0, "free");
}

static void test_publish(void)
{
	struct sl_il *il = make("p1", 64, 0);
	attach_both(il);
	void *in[10], *out[16];
	for (unsigned i = 0; i < 10; i++)
		in[i] = OBJ(i + 1);

	CHECK(sl_il_enqueue_burst(il, in, 10) == 10, "enqueue 10");
	CHECK(sl_il_empty_hint(il), "unpublished objects are invisible");
	CHECK(sl_il_dequeue_burst(il, out, 16) == 0, "nothing to dequeue before publish");
	sl_il_publish_producer(il);
	CHECK(!sl_il_empty_hint(il), "published objects are visible");
	CHECK(sl_il_count_cached(il) == 10, "cached count %u", sl_il_count_cached(il));
	unsigned n = sl_il_dequeue_burst(il, out, 4);
	CHECK(n == 4, "dequeue 4: %u", n);
	n += sl_il_dequeue_burst(il, out + 4, 16);
	CHECK(n == 10, "dequeue the rest: %u", n);
	for (unsigned i = 0; i < n; i++)
		CHECK(VAL(out[i]) == i + 1, "FIFO: slot %u holds %lu", i, (unsigned long)VAL(out[i]));
	CHECK(sl_il_empty_hint(il), "empty after dequeueing all");

	struct sl_il_stats s;
	sl_il_stats_read(il, &s);
	CHECK(s.occupancy == 10, "occupancy before the consumer publishes: %u", s.occupancy);
	sl_il_publish_consumer(il);
	sl_il_stats_read(il, &s);
	CHECK(s.occupancy == 0, "occupancy after: %u", s.occupancy);
	CHECK(s.packets == 10 && s.dequeued == 10 && s.refused == 0, "counters %lu %lu %lu",
	      (unsigned long)s.packets, (unsigned long)s.dequeued, (unsigned long)s.refused);
	sl_il_add_bytes(il, 640);
	sl_il_stats_read(il, &s);
	CHECK(s.bytes == 640, "bytes %lu", (unsigned long)s.bytes);
	destroy(il);
}

/* The filling dequeue: with part of a publish still cached, the plain
 * dequeue stops at the cached count while the filling one reloads the
 * published index and takes max; both in order, counted alike, and the
 * filling one takes what there is (also nothing) when fewer are published. */
static void test_fill(void)
{
	struct sl_il *il = make("fl1", 256, 0);
	attach_both(il);
	void *in[160], *out[128];
	for (unsigned i = 0; i < 160; i++)
		in[i] = OBJ(i + 1);

	CHECK(sl_il_dequeue_burst_fill(il, out, 128) == 0, "nothing published: 0");
	CHECK(sl_il_enqueue_burst_publish(il, in, 64) == 64, "enqueue 64");
	CHECK(sl_il_dequeue_burst(il, out, 32) == 32, "dequeue 32 of 64");
	CHECK(sl_il_enqueue_burst_publish(il, in + 64, 96) == 96, "enqueue 96 more");
	/* 32 cached, 128 published: the plain dequeue takes the 32 cached */
	unsigned n = sl_il_dequeue_burst(il, out, 128);
	CHECK(n == 32, "plain dequeue with 32 cached: %u", n);
	for (unsigned i = 0; i < n; i++)
		CHECK(VAL(out[i]) == 33 + i, "plain: slot %u holds %lu", i, (unsigned long)VAL(out[i]));
	/* now 0 cached: it reloads (as ever) and takes the 96 published */
	n = sl_il_dequeue_burst(il, out, 128);
	CHECK(n == 96, "plain dequeue once empty: %u", n);

	sl_il_publish_consumer(il);   /* the slots back to the producer */

	/* again with the filling one: 32 cached of 64, 96 more published */
	CHECK(sl_il_enqueue_burst_publish(il, in, 64) == 64, "enqueue 64 (2)");
	CHECK(sl_il_dequeue_burst(il, out, 32) == 32, "dequeue 32 of 64 (2)");
	CHECK(sl_il_enqueue_burst_publish(il, in + 64, 96) == 96, "enqueue 96 more (2)");
	n = sl_il_dequeue_burst_fill(il, out, 128);
	CHECK(n == 128, "filling dequeue with 32 cached and 128 published: %u", n);
	for (unsigned i = 0; i < n; i++)
		CHECK(VAL(out[i]) == 33 + i, "fill: slot %u holds %lu", i, (unsigned long)VAL(out[i]));
	sl_il_publish_consumer(il);
	/* fewer published than asked: all of them, then nothing */
	CHECK(sl_il_enqueue_burst_publish(il, in, 5) == 5, "enqueue 5");
	n = sl_il_dequeue_burst_fill(il, out, 128);
	CHECK(n == 5 && VAL(out[0]) == 1 && VAL(out[4]) == 5, "fill with 5 published: %u", n);
	CHECK(sl_il_dequeue_burst_fill(il, out, 128) == 0, "fill of an empty ring: 0");

	sl_il_publish_consumer(il);
	struct sl_il_stats s;
	sl_il_stats_read(il, &s);
	CHECK(s.packets == 325 && s.dequeued == 325 && s.occupancy == 0,
	      "counters: %lu in, %lu out, occupancy %u", (unsigned long)s.packets,
	      (unsigned long)s.dequeued, s.occupancy);

	/* with at least max cached it reads no shared line, as the plain one;
	 * max 0 takes nothing and reads none either */
	CHECK(sl_il_enqueue_burst_publish(il, in, 64) == 64, "enqueue 64 (3)");
	CHECK(sl_il_dequeue_burst_fill(il, out, 16) == 16, "fill 16 of 64");
	CHECK(sl_il_enqueue_burst_publish(il, in + 64, 32) == 32, "enqueue 32 more (3)");
	struct sl_il_stats before, after;
	sl_il_stats_read(il, &before);
	n = sl_il_dequeue_burst_fill(il, out, 16);
	n += sl_il_dequeue_burst_fill(il, out + 16, 0);
	sl_il_stats_read(il, &after);
	CHECK(n == 16 && VAL(out[0]) == 17, "fill 16 with 48 cached: %u, first %lu", n,
	      (unsigned long)VAL(out[0]));
	CHECK(after.write_idx_moved == before.write_idx_moved,
	      "no reload with enough cached: %lu -> %lu", (unsigned long)before.write_idx_moved,
	      (unsigned long)after.write_idx_moved);
	/* 32 cached and 32 published, asking for more than the ring holds: it
	 * reloads (once) and takes both */
	static void *big[1000];
	n = sl_il_dequeue_burst_fill(il, big, 1000);
	CHECK(n == 64 && VAL(big[0]) == 33 && VAL(big[63]) == 96, "fill 1000 of a 256-slot ring: %u",
	      n);
	sl_il_publish_consumer(il);
	destroy(il);
}

static void test_full(void)
{
	struct sl_il *il = make("f1", 64, 0);
	attach_both(il);
	void *in[70], *out[64];
	for (unsigned i = 0; i < 70; i++)
		in[i] = OBJ(i + 1);

	CHECK(sl_il_enqueue_burst_publish(il, in, 70) == 64, "a 64-slot ring takes 64");
	CHECK(sl_il_dequeue_burst(il, out, 10) == 10, "dequeue 10");
	CHECK(sl_il_enqueue_burst(il, in + 64, 5) == 0,
	      "no room until the consumer publishes");
	sl_il_publish_consumer(il);
	CHECK(sl_il_enqueue_burst_publish(il, in + 64, 6) == 6, "room after publish");
	struct sl_il_stats s;
	sl_il_stats_read(il, &s);
	CHECK(s.refused == 6 + 5, "refused %lu", (unsigned long)s.refused);
	CHECK(s.packets == 70, "packets %lu", (unsigned long)s.packets);
	CHECK(s.occupancy_hwm == 64, "high-water %u", s.occupancy_hwm);

	unsigned got = 10;
	for (unsigned k = 0; k < 10; k++)
		CHECK(VAL(out[k]) == k + 1, "first ten in order");
	unsigned n;
	while ((n = sl_il_dequeue_burst_publish(il, out, 64)) > 0)
		for (unsigned k = 0; k < n; k++, got++)
			CHECK(VAL(out[k]) == got + 1, "object %u is %lu", got + 1,
			      (unsigned long)VAL(out[k]));
	CHECK(got == 70, "all 70 came out: %u", got);
	destroy(il);
}

/* The lines a ring makes cross, counted by its ends: a refresh that finds
 * the other end's index moved, each slot and stamp line written. */
static void test_lines(void)
{
	struct sl_il *il = make("l1", 64, 64);
	attach_both(il);
	void *in[64], *out[64];
	for (unsigned i = 0; i < 64; i++)
		in[i] = OBJ(i + 1);
	struct sl_il_stats s;

	CHECK(sl_il_enqueue_burst(il, in, 5) == 5, "5 in");   /* slots 0..4: a line, a stamp */
	CHECK(sl_il_dequeue_burst(il, out, 64) == 0, "nothing published yet");
	sl_il_publish_producer(il);
	CHECK(sl_il_dequeue_burst(il, out, 64) == 5, "5 out");
	CHECK(sl_il_enqueue_burst_publish(il, in, 11) == 11, "11 in"); /* slots 5..15: two lines */
	CHECK(sl_il_dequeue_burst(il, out, 64) == 11, "11 out");
	sl_il_stats_read(il, &s);
	CHECK(s.write_idx_moved == 2 && s.read_idx_moved == 0 && s.slot_lines == 4,
	      "after two bursts: write index moved %lu (want 2), read %lu (0), slot lines %lu (4)",
	      (unsigned long)s.write_idx_moved, (unsigned long)s.read_idx_moved,
	      (unsigned long)s.slot_lines);
	/* Full: the refresh finds the read index where it was; 48 fit (six lines). */
	CHECK(sl_il_enqueue_burst(il, in, 64) == 48, "48 fit");
	sl_il_publish_consumer(il);
	/* Now it has moved: one more object, in slot 0 again, with a stamp. */
	CHECK(sl_il_enqueue_burst(il, in, 1) == 1, "room after the consumer's publish");
	sl_il_stats_read(il, &s);
	CHECK(s.write_idx_moved == 2 && s.read_idx_moved == 1 && s.slot_lines == 12,
	      "write index moved %lu (want 2), read %lu (1), slot lines %lu (12)",
	      (unsigned long)s.write_idx_moved, (unsigned long)s.read_idx_moved,
	      (unsigned long)s.slot_lines);
	double lpp = sl_il_lines_per_packet(NULL, &s);
	CHECK(lpp == 15.0 / 16, "lines per packet %.4f, want 15/16", lpp);
	struct sl_il_stats later = s;
	CHECK(sl_il_lines_per_packet(&s, &later) == 0, "nothing dequeued between: 0");
	destroy(il);
}

/* Indices start just below 2^32 and cross zero. */
static void test_wrap(void)
{
	struct sl_il *il = make("w1", 16, 4);
	il->shared.read = il->shared.write = UINT32_MAX - 40;
	attach_both(il);
	void *in[16], *out[16];
	uint64_t next_in = 1, next_out = 1;
	unsigned seed = 7;
	while (next_out <= 1000) {
		unsigned b = 1 + (unsigned)(rand_r(&seed) % 16);
		for (unsigned k = 0; k < b; k++)
			in[k] = OBJ(next_in + k);
		next_in += sl_il_enqueue_burst_publish(il, in, b);
		unsigned n = sl_il_dequeue_burst_publish(il, out, 1 + rand_r(&seed) % 16);
		for (unsigned k = 0; k < n; k++, next_out++)
			if (VAL(out[k]) != next_out) {
				CHECK(0, "after wrap: expected %lu, got %lu",
				      (unsigned long)next_out, (unsigned long)VAL(out[k]));
				next_out = 2000;
				break;
			}
	}
	CHECK(il->shared.read < 1000, "the read index wrapped: %u", il->shared.read);
	struct sl_il_stats s;
	sl_il_stats_read(il, &s);
	CHECK(s.occupancy <= 16, "occupancy across the wrap: %u", s.occupancy);
	CHECK(s.sojourn_samples > 200 && s.sojourn_samples < 300, "one sample in 4: %lu",
	      (unsigned long)s.sojourn_samples);
	destroy(il);
}

static void test_reattach(void)
{
	struct sl_il *il = make("r1", 64, 0);
	attach_both(il);
	void *in[8], *out[8];
	for (unsigned i = 0; i < 8; i++)
		in[i] = OBJ(i + 1);

	CHECK(sl_il_enqueue_burst(il, in, 5) == 5, "enqueue 5, unpublished");
	CHECK(sl_il_detach(il, SL_IL_PRODUCER) == 0, "producer detaches");
	CHECK(sl_il_dequeue_burst(il, out, 3) == 3, "detach published the producer's objects");
	CHECK(sl_il_detach(il, SL_IL_CONSUMER) == 0, "consumer detaches after 3");
	struct sl_il_stats s;
	sl_il_stats_read(il, &s);
	CHECK(s.occupancy == 2, "detach published the consumer's cursor: %u", s.occupancy);

	CHECK(sl_il_attach(il, SL_IL_CONSUMER) == 0, "consumer reattaches");
	unsigned n = sl_il_dequeue_burst(il, out, 8);
	CHECK(n == 2 && VAL(out[0]) == 4 && VAL(out[1]) == 5,
	      "reattached consumer continues at 4: got %u objects, first %lu", n,
	      (unsigned long)VAL(out[0]));
	CHECK(sl_il_attach(il, SL_IL_PRODUCER) == 0, "producer reattaches");
	CHECK(sl_il_enqueue_burst_publish(il, in + 5, 3) == 3, "producer continues");
	n = sl_il_dequeue_burst_publish(il, out, 8);
	CHECK(n == 3 && VAL(out[0]) == 6 && VAL(out[2]) == 8, "6, 7, 8 follow");
	destroy(il);
}

struct drain_ctx {
	uintptr_t next;
	unsigned calls;
};

static void drain_cb(void *obj, void *arg)
{
	struct drain_ctx *d = arg;
	CHECK(VAL(obj) == d->next, "drain order: expected %lu, got %lu", (unsigned long)d->next,
	      (unsigned long)VAL(obj));
	d->next++;
	d->calls++;
}

static void test_drain(void)
{
	struct sl_il *il = make("dr1", 128, 0);
	attach_both(il);
	void *in[100], *out[10];
	for (unsigned i = 0; i < 100; i++)
		in[i] = OBJ(i + 1);
	CHECK(sl_il_enqueue_burst_publish(il, in, 60) == 60, "60 published");
	CHECK(sl_il_enqueue_burst(il, in + 60, 40) == 40, "40 unpublished");
	CHECK(sl_il_dequeue_burst(il, out, 10) == 10, "consumer holds 10, unpublished");

	/* Workers have "stopped": the caller owns the 10 it dequeued; the other
	 * 90, published or not, are the ring's. */
	CHECK(sl_il_detach(il, SL_IL_PRODUCER) == 0 && sl_il_detach(il, SL_IL_CONSUMER) == 0,
	      "detach both");
	CHECK(sl_il_free(il) == -ENOTEMPTY, "free refuses a ring with objects");
	CHECK(sl_il_state(il, SL_IL_PRODUCER) == SL_IL_DETACHED, "a refused free releases the ends");
	struct drain_ctx d = { .next = 11 };
	unsigned n = sl_il_drain(il, drain_cb, &d);
	CHECK(n == 90 && d.calls == 90, "drained %u (callback %u)", n, d.calls);
	struct sl_il_stats s;
	sl_il_stats_read(il, &s);
	CHECK(s.drained == 90 && s.occupancy == 0, "drained %lu occupancy %u",
	      (unsigned long)s.drained, s.occupancy);
	CHECK(sl_il_drain(il, drain_cb, &d) == 0, "second drain finds nothing");

	/* The ring is usable again after a drain. */
	attach_both(il);
	CHECK(sl_il_enqueue_burst_publish(il, in, 3) == 3 && sl_il_dequeue_burst(il, out, 10) == 3,
	      "usable after drain");
	sl_il_publish_consumer(il);
	CHECK(sl_il_detach(il, SL_IL_PRODUCER) == 0 && sl_il_detach(il, SL_IL_CONSUMER) == 0,
	      "detach both again");
	CHECK(sl_il_free(il) == 0, "free");
	struct sl_err err = { "" };
	errno = 0;
	fails("gone after free", sl_il_lookup("dr1", &err), &err, ENOENT,
	      "interlink 'dr1': no memzone 'sl_il_dr1'");
}

static void test_sojourn(void)
{
	struct sl_il *il = make("so1", 64, 1);
	attach_both(il);
	void *in[10], *out[10];
	for (unsigned i = 0; i < 10; i++)
		in[i] = OBJ(i);
	uint64_t t0 = rte_rdtsc();
	CHECK(sl_il_enqueue_burst_publish(il, in, 10) == 10, "enqueue");
	rte_delay_us_block(200);
	CHECK(sl_il_dequeue_burst_publish(il, out, 10) == 10, "dequeue");
	uint64_t waited = rte_rdtsc() - t0;
	struct sl_il_stats s;
	sl_il_stats_read(il, &s);
	uint64_t hz = rte_get_tsc_hz();
	CHECK(s.sojourn_samples == 10, "every object sampled: %lu", (unsigned long)s.sojourn_samples);
	CHECK(s.sojourn_max <= waited && s.sojourn_sum / 10 >= hz / 5000,
	      "sojourn between 200 us and the time waited: mean %lu cycles, waited %lu",
	      (unsigned long)(s.sojourn_sum / 10), (unsigned long)waited);
	uint64_t p50 = sl_il_sojourn_quantile_ns(&s, 0.5);
	uint64_t waited_ns = waited * 1000000000ull / hz;
	CHECK(p50 >= 200000 * 7 / 8 && p50 <= waited_ns * 9 / 8,
	      "p50 %lu ns, expected 200000..%lu", (unsigned long)p50, (unsigned long)waited_ns);
	destroy(il);

	/* One in 64: a 200-object run holds indices 0, 64, 128 and 192. */
	il = make("so2", 256, 64);
	attach_both(il);
	void *big[200], *got[200];
	for (unsigned i = 0; i < 200; i++)
		big[i] = OBJ(i);
	unsigned sent = 0, recv = 0;
	while (sent < 200) {
		sent += sl_il_enqueue_burst_publish(il, big + sent, 200 - sent < 7 ? 200 - sent : 7);
		recv += sl_il_dequeue_burst_publish(il, got + recv, 200 - recv);
	}
	while (recv < 200)
		recv += sl_il_dequeue_burst_publish(il, got + recv, 200 - recv);
	sl_il_stats_read(il, &s);
	CHECK(s.sojourn_samples == 4, "4 samples in 200 objects: %lu",
	      (unsigned long)s.sojourn_samples);
	destroy(il);

	/* Sampling interval larger than the ring: one stamp slot, reused. */
	il = make("so3", 4, 16);
	attach_both(il);
	for (unsigned i = 0; i < 64; i++) {
		CHECK(sl_il_enqueue_burst_publish(il, big, 1) == 1, "tiny ring enqueue");
		CHECK(sl_il_dequeue_burst_publish(il, got, 1) == 1, "tiny ring dequeue");
	}
	sl_il_stats_read(il, &s);
	CHECK(s.sojourn_samples == 4, "4 samples in 64 objects: %lu",
	      (unsigned long)s.sojourn_samples);
	destroy(il);
}

static void test_hist(void)
{
	for (unsigned b = 0; b + 1 < SL_IL_HIST_BUCKETS; b++) {
		uint64_t lo = sl_il_hist_bucket_low(b), hi = sl_il_hist_bucket_low(b + 1);
		CHECK(lo < hi, "bucket %u below bucket %u", b, b + 1);
		CHECK(sl_hist_shape_index(SL_IL_HIST_SHAPE, lo) == b && sl_hist_shape_index(SL_IL_HIST_SHAPE, hi - 1) == b,
		      "bucket %u holds [%lu, %lu)", b, (unsigned long)lo, (unsigned long)hi);
	}
	CHECK(sl_hist_shape_index(SL_IL_HIST_SHAPE, UINT64_MAX) == SL_IL_HIST_BUCKETS - 1, "clamped");

	struct sl_il_stats s = { .tsc_hz = 1000000000 }; /* 1 cycle = 1 ns */
	CHECK(sl_il_sojourn_quantile_ns(&s, 0.5) == 0, "no samples");
	s.sojourn_hist[sl_hist_shape_index(SL_IL_HIST_SHAPE, 100)] = 90;  /* [96, 112) */
	s.sojourn_hist[sl_hist_shape_index(SL_IL_HIST_SHAPE, 1000)] = 10; /* [896, 1024) */
	CHECK(sl_il_sojourn_quantile_ns(&s, 0.5) == 104, "p50 %lu",
	      (unsigned long)sl_il_sojourn_quantile_ns(&s, 0.5));
	CHECK(sl_il_sojourn_quantile_ns(&s, 0.9) == 104, "p90 %lu",
	      (unsigned long)sl_il_sojourn_quantile_ns(&s, 0.9));
	CHECK(sl_il_sojourn_quantile_ns(&s, 0.99) == 960, "p99 %lu",
	      (unsigned long)sl_il_sojourn_quantile_ns(&s, 0.99));
}

static const struct sl_test_case cases[] = {
	SL_CASE(test_create_errors),
	SL_CASE(test_defaults),
	SL_CASE(test_states),
	SL_CASE(test_publish),
	SL_CASE(test_fill),
	SL_CASE(test_full),
	SL_CASE(test_wrap),
	SL_CASE(test_lines),
	SL_CASE(test_reattach),
	SL_CASE(test_drain),
	SL_CASE(test_sojourn),
	SL_CASE(test_hist),
};

int main(int argc, char **argv)
{
	char prefix[32];
	snprintf(prefix, sizeof(prefix), "til%d", (int)getpid());
	char *eal[] = { "test_interlink", "--no-huge", "-m", "64", "--no-pci", "--file-prefix",
			prefix, "--log-level", "lib.eal:error", "-l", "0", NULL };
	if (rte_eal_init(11, eal) < 0) {
		printf("SKIP: cannot initialise DPDK's EAL\n");
		return 77;
	}
	int rc = sl_test_main(argc, argv, cases, SL_NCASES(cases));
	rte_eal_cleanup();
	return rc;
}
