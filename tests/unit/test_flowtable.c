/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The flow table on one thread, workers simulated by their epoch handles and
 * time by a variable: drop-immediately (capacity 500, 600 flows) under each
 * epoch policy with the bound that policy promises, idle and active expiry,
 * the expiry cap and how late expiry comes (incremental scan and timer
 * wheel), the scan's stamps (a busy flow read once a timeout, stale stamps,
 * a shortened timeout), eviction choice, a full bucket, an empty id pool, a full
 * retire list, flush, close, the creation errors, and the memory check
 * before allocation (with an allocation that fails after it passed).  The qsbr policy runs
 * on a --no-huge EAL (skipped, with the reason, if that cannot start).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <rte_eal.h>

#include "epoch/epoch.h"
#include "apps/flowcache/flowtable.h"

#include "check.h"

#define NW 2     /* workers */

struct recs {
	unsigned n;
	unsigned by_reason[SL_FT_REASONS];
	struct sl_flow_record last;
};

static void on_record(const struct sl_flow_record *r, void *arg)
{
	struct recs *rs = arg;
	rs->n++;
	rs->by_reason[r->reason]++;
	rs->last = *r;
}

static struct sl_flow_key key_of(unsigned i)
{
	struct sl_flow_key k;
	sl_flow_key_zero(&k);
	k.family = 4;
	k.proto = 17;
	k.sport = (uint16_t)(1024 + i);
	k.dport = 53;
	uint32_t a = 0xc6120000u + i;             /* 198.18.x.y */
	k.src[0] = (uint8_t)(a >> 24);
	k.src[1] = (uint8_t)(a >> 16);
	k.src[2] = (uint8_t)(a >> 8);
	k.src[3] = (uint8_t)a;
	k.dst[0] = 198;
	k.dst[1] = 19;
	k.dst[3] = 1;
	return k;
}

struct rig {
	struct sl_epoch *e;
	struct sl_epoch_worker *w[NW];
	struct sl_flowtable *t;
	struct sl_ft_handle *h;
	struct recs recs;
};

static bool rig_make(struct rig *r, enum sl_epoch_policy p, struct sl_flowtable_conf *fc,
		     unsigned ring)
{
	struct sl_err err = { "" };
	memset(r, 0, sizeof(*r));
	struct sl_epoch_conf ec = { .name = "ft", .n_workers = NW, .policy = p, .ring_size = ring };
	r->e = sl_epoch_create(&ec, &err);
	CHECK(r->e != NULL, "epoch %s: %s", sl_epoch_policy_name(p), err.msg);
	if (r->e == NULL)
		return false;
	for (unsigned i = 0; i < NW; i++) {
		r->w[i] = sl_epoch_worker(r->e, i);
		sl_epoch_online(r->w[i]);
	}
	fc->socket = -1;
	if (fc->n_handles == 0)
		fc->n_handles = 1;
	r->t = sl_ft_create(fc, &err);
	CHECK(r->t != NULL, "create: %s", err.msg);
	if (r->t == NULL)
		return false;
	r->h = sl_ft_open(r->t, 0, r->e, r->w[0], on_record, &r->recs, &err);
	CHECK(r->h != NULL, "open: %s", err.msg);
	return r->h != NULL;
}

static void rig_free(struct rig *r)
{
	for (unsigned i = 0; i < NW; i++)
		sl_epoch_offline(r->w[i]);
	sl_epoch_synchronize(r->e);
	sl_epoch_drain(r->e);
	sl_ft_close(r->h);
	CHECK(sl_ft_live(r->t) == 0, "live after close");
	CHECK(sl_ft_ids_free(r->t) == sl_ft_conf(r->t)->ids, "ids after close: %u of %u",
	      sl_ft_ids_free(r->t), sl_ft_conf(r->t)->ids);
	sl_ft_free(r->t);
	sl_epoch_free(r->e);
}

/* Insert flows 0..n-1 at now through r's handle; what names the test. */
static void rig_insert_n(struct rig *r, unsigned n, uint64_t now, const char *what)
{
	for (unsigned i = 0; i < n; i++) {
		struct sl_flow_key k = key_of(i);
		enum sl_ft_insert_status st;
		CHECK(sl_ft_insert(r->h, &k, sl_flow_key_hash(&k), now, 0, &st) != NULL,
		      "%s: insert %u: %d", what, i, st);
	}
}

/* One breath of every worker, as the engine runs it: reclaim, then quiesce. */
static void breathe_cap(struct rig *r, unsigned cap)
{
	for (unsigned i = 0; i < NW; i++) {
		sl_epoch_reclaim(r->e, r->w[i], cap);
		sl_epoch_quiesce(r->e, r->w[i]);
	}
}

static void breathe_all(struct rig *r)
{
	breathe_cap(r, 64);
}

static struct sl_ft_stats stats(const struct rig *r)
{
	struct sl_ft_stats s;
	sl_ft_handle_stats(r->h, &s);
	return s;
}

/* Capacity 500, 600 flows, one insert per operation then two breaths of every
 * worker.  immediate and qsbr promise: freed == evicted at that point; batch
 * promises only that the backlog stays under its bags (and it does exceed
 * the immediate bound: that is the difference being shown). */
static void test_drop_immediately(enum sl_epoch_policy p)
{
	const char *pn = sl_epoch_policy_name(p);
	struct rig r;
	struct sl_flowtable_conf fc = { .name = "drop", .capacity = 500, .ids = 700,
					.expiry_cap = 16 };
	if (!rig_make(&r, p, &fc, 0))
		return;
	uint32_t n_ids = sl_ft_conf(r.t)->ids;
	uint64_t worst_gap = 0;
	bool exact = p != SL_EPOCH_BATCH;
	for (unsigned i = 0; i < 600; i++) {
		struct sl_flow_key k = key_of(i);
		enum sl_ft_insert_status st;
		struct sl_flow_entry *e = sl_ft_insert(r.h, &k, sl_flow_key_hash(&k), 1000 + i, i, &st);
		CHECK(e != NULL && st == SL_FT_INSERTED, "%s: insert %u: status %d", pn, i, st);
		breathe_all(&r);
		breathe_all(&r);
		struct sl_ft_stats s = stats(&r);
		uint64_t evicted = s.unlinked[SL_FT_EVICTED];
		uint64_t expect_ev = i + 1 > 500 ? i + 1 - 500 : 0;
		CHECK(evicted == expect_ev, "%s: after %u inserts %lu evicted, want %lu", pn, i + 1,
		      (unsigned long)evicted, (unsigned long)expect_ev);
		CHECK(s.live == (i + 1 > 500 ? 500 : i + 1), "%s: live %lu", pn, (unsigned long)s.live);
		uint64_t gap = evicted - s.freed;
		if (gap > worst_gap)
			worst_gap = gap;
		if (exact)
			CHECK(s.freed == evicted, "%s: after %u inserts and two breaths: freed %lu, evicted %lu",
			      pn, i + 1, (unsigned long)s.freed, (unsigned long)evicted);
		else
			CHECK(gap <= 3 * SL_EPOCH_BAG - 1, "%s: backlog %lu over three bags", pn,
			      (unsigned long)gap);
		/* every id is either live, or waiting for its grace, or free */
		CHECK(sl_ft_ids_free(r.t) + s.live + gap == n_ids, "%s: ids free %u live %lu gap %lu",
		      pn, sl_ft_ids_free(r.t), (unsigned long)s.live, (unsigned long)gap);
	}
	CHECK(r.recs.by_reason[SL_FT_EVICTED] == 100, "%s: %u eviction records", pn,
	      r.recs.by_reason[SL_FT_EVICTED]);
	if (!exact)
		CHECK(worst_gap >= SL_EPOCH_BAG - 1, "%s: backlog never reached a bag (%lu)", pn,
		      (unsigned long)worst_gap);
	/* Invalidate everything. */
	unsigned flushed = 0, k;
	while ((k = sl_ft_flush(r.h, 64)) > 0) {
		flushed += k;
		breathe_all(&r);
	}
	breathe_all(&r);
	breathe_all(&r);
	CHECK(flushed == 500, "%s: flushed %u", pn, flushed);
	struct sl_ft_stats s = stats(&r);
	if (!exact) {
		/* Sealed bags are collected every SL_EPOCH_COLLECT_BREATHS
		 * breaths, SL_EPOCH_COLLECT_BAGS at a time; the open bag
		 * (600 mod 64 = 24 objects) waits for more retires or a drain. */
		CHECK(s.freed < 600, "%s: everything freed within two breaths", pn);
		for (unsigned b = 0; b < 3 * SL_EPOCH_COLLECT_BREATHS; b++)
			breathe_cap(&r, SL_EPOCH_BAG * SL_EPOCH_COLLECT_BAGS);
		s = stats(&r);
		CHECK(600 - s.freed == 600 % SL_EPOCH_BAG, "%s: %lu not freed after %u breaths", pn,
		      (unsigned long)(600 - s.freed), 3 * SL_EPOCH_COLLECT_BREATHS);
		sl_epoch_synchronize(r.e);
		sl_epoch_drain(r.e);
		s = stats(&r);
	}
	CHECK(s.freed == 600, "%s: freed %lu of 600", pn, (unsigned long)s.freed);
	CHECK(sl_ft_ids_free(r.t) == n_ids, "%s: id pool %u of %u", pn, sl_ft_ids_free(r.t), n_ids);
	CHECK(s.live == 0, "%s: live %lu", pn, (unsigned long)s.live);
	printf("drop-immediately %s: worst evicted-freed gap after two breaths %lu\n", pn,
	       (unsigned long)worst_gap);
	rig_free(&r);
}

/* Idle and active expiry and the cap, under either way of finding expired
 * entries.  Times are in ns of the test's own clock; slack is how late an
 * expiry may come (the wheel's tick, 1 us here; the scan's paced sweep, an
 * eighth of the shorter timeout). */
static void test_expiry(enum sl_ft_expiry mode)
{
	const char *mn = mode == SL_FT_WHEEL ? "wheel" : "scan";
	const uint64_t idle = 256000, active = 1280000, t0 = 100000;
	/* how late may an expiry be: a wheel tick, or a paced sweep of the scan
	 * (an eighth of the shorter timeout) */
	const uint64_t slack = mode == SL_FT_WHEEL ? 1000 : idle / 8;
	struct rig r;
	struct sl_flowtable_conf fc = { .name = "exp", .capacity = 1024, .idle_ns = idle,
					.active_ns = active, .expiry_cap = 4, .scan = 1024,
					.expiry = mode };
	if (!rig_make(&r, SL_EPOCH_IMMEDIATE, &fc, 0))
		return;
	struct sl_flow_entry *e[10];
	for (unsigned i = 0; i < 10; i++) {
		struct sl_flow_key k = key_of(i);
		enum sl_ft_insert_status st;
		e[i] = sl_ft_insert(r.h, &k, sl_flow_key_hash(&k), t0, 7, &st);
		CHECK(e[i] != NULL, "%s: insert %u", mn, i);
		sl_ft_touch(e[i], 64, t0);
	}
	for (unsigned i = 5; i < 10; i++)
		sl_ft_touch(e[i], 100, t0 + 100000);
	CHECK(sl_ft_expire(r.h, t0 + idle - 1) == 0, "%s: expired before the idle timeout", mn);
	/* 5 idle, capped at 4 per step */
	CHECK(sl_ft_expire(r.h, t0 + idle + slack) == 4, "%s: first step is not capped at 4", mn);
	CHECK(sl_ft_expire(r.h, t0 + idle + slack) == 1, "%s: second step", mn);
	CHECK(r.recs.by_reason[SL_FT_IDLE] == 5, "%s: idle records %u", mn,
	      r.recs.by_reason[SL_FT_IDLE]);
	CHECK(r.recs.last.packets == 1 && r.recs.last.bytes == 64 && r.recs.last.first_ns == t0 &&
	      r.recs.last.last_ns == t0, "%s: idle record: %lu pkts %lu bytes %lu..%lu", mn,
	      (unsigned long)r.recs.last.packets, (unsigned long)r.recs.last.bytes,
	      (unsigned long)r.recs.last.first_ns, (unsigned long)r.recs.last.last_ns);
	CHECK(r.recs.last.key.sport < 1024 + 5, "%s: an idle record names a touched flow", mn);
	CHECK(sl_ft_expire(r.h, t0 + 100000 + idle - 1) == 0, "%s: touched flows expired early", mn);
	/* keep flow 9 busy: it leaves by the active timeout */
	unsigned touches = 0;
	for (uint64_t t = t0 + 200000; t < t0 + active; t += 100000, touches++)
		sl_ft_touch(e[9], 10, t);
	CHECK(sl_ft_expire(r.h, t0 + active - 1) == 4, "%s: flows 5..8 idle", mn);
	CHECK(sl_ft_expire(r.h, t0 + active - 1) == 0, "%s: flow 9 left before its active timeout", mn);
	CHECK(sl_ft_expire(r.h, t0 + active + slack) == 1,
	      "%s: flow 9 not expired by the active timeout", mn);
	CHECK(r.recs.last.reason == SL_FT_ACTIVE && r.recs.last.packets == 2 + touches,
	      "%s: active record: reason %s, %lu packets", mn, sl_ft_reason_name(r.recs.last.reason),
	      (unsigned long)r.recs.last.packets);
	struct sl_flow_key k9 = key_of(9);
	CHECK(sl_ft_lookup(r.t, &k9, sl_flow_key_hash(&k9)) == NULL, "%s: expired flow still found", mn);
	breathe_all(&r);
	breathe_all(&r);
	struct sl_ft_stats s = stats(&r);
	CHECK(s.freed == 10 && s.live == 0, "%s: freed %lu live %lu", mn, (unsigned long)s.freed,
	      (unsigned long)s.live);
	rig_free(&r);
}

/* When expiry happens: 300 flows inserted 997 ns apart, the clock stepped by
 * 500 ns with a cap that never binds; every flow must end no earlier than
 * its idle deadline and at most `late` after it.  Flows touched again later
 * (every third) move their deadline. */
static struct {
	uint64_t now, idle, late, worst;
	unsigned early, too_late, n;
} timing;

static void on_timed_record(const struct sl_flow_record *r, void *arg)
{
	(void)arg;
	timing.n++;
	uint64_t due = r->last_ns + timing.idle;
	if (timing.now < due)
		timing.early++;
	else if (timing.now - due > timing.late)
		timing.too_late++;
	if (timing.now >= due && timing.now - due > timing.worst)
		timing.worst = timing.now - due;
}

static void test_expiry_timing(enum sl_ft_expiry mode)
{
	const char *mn = mode == SL_FT_WHEEL ? "wheel" : "scan";
	struct sl_err err = { "" };
	struct sl_epoch_conf ec = { .name = "tm", .n_workers = 1 };
	struct sl_epoch *ep = sl_epoch_create(&ec, &err);
	struct sl_epoch_worker *w = sl_epoch_worker(ep, 0);
	sl_epoch_online(w);
	struct sl_flowtable_conf fc = { .name = "tm", .capacity = 1024, .idle_ns = 256000,
					.expiry_cap = 1000, .scan = 1024, .n_handles = 1,
					.socket = -1, .expiry = mode };
	struct sl_flowtable *t = sl_ft_create(&fc, &err);
	struct sl_ft_handle *h = sl_ft_open(t, 0, ep, w, on_timed_record, NULL, &err);
	memset(&timing, 0, sizeof(timing));
	timing.idle = fc.idle_ns;
	/* a tick and a step (wheel); a paced sweep and a step (scan) */
	timing.late = mode == SL_FT_WHEEL ? 2000 : fc.idle_ns / 8 + 500;
	struct sl_flow_entry *e[300];
	for (timing.now = 0; timing.now < 800000; timing.now += 500) {
		unsigned i = (unsigned)(timing.now / 997);
		if (i < 300 && timing.now % 997 < 500) {
			struct sl_flow_key k = key_of(i);
			enum sl_ft_insert_status st;
			e[i] = sl_ft_insert(h, &k, sl_flow_key_hash(&k), timing.now, 0, &st);
		}
		if (timing.now % 100000 == 0 && timing.now <= 400000)
			for (unsigned j = 0; j < 300 && j <= i; j += 3)
				if (sl_ft_linked(t, e[j]))
					sl_ft_touch(e[j], 1, timing.now);
		sl_ft_expire(h, timing.now);
		sl_epoch_quiesce(ep, w);
		sl_epoch_reclaim(ep, w, 1000);
	}
	CHECK(timing.n == 300, "%s: %u of 300 flows ended", mn, timing.n);
	CHECK(timing.early == 0, "%s: %u flows ended before their deadline", mn, timing.early);
	CHECK(timing.too_late == 0, "%s: %u flows ended over %lu ns late (worst %lu)", mn,
	      timing.too_late, (unsigned long)timing.late, (unsigned long)timing.worst);
	printf("expiry %s: 300 flows, latest expiry %lu ns after the deadline\n", mn,
	       (unsigned long)timing.worst);
	sl_epoch_offline(w);
	sl_epoch_synchronize(ep);
	sl_epoch_drain(ep);
	sl_ft_close(h);
	CHECK(sl_ft_ids_free(t) == sl_ft_conf(t)->ids, "%s: ids back", mn);
	sl_ft_free(t);
	sl_epoch_free(ep);
}

/* The scan keeps its bound across a gap between steps: it sweeps in 7/8
 * of the step, and the eighth left over is its room to catch up.  2000
 * flows, one every 500 ns, idle timeout 1.024 ms (a step of 128 us); a step
 * every 500 ns with a cap of 2, except for a gap of 50 us while flows come
 * due: every flow ends within the step plus the gap (plus a step) of its
 * deadline, and within 7/8 of the step plus the gap (plus two steps). */
static void test_scan_gap(void)
{
	struct sl_err err = { "" };
	struct sl_epoch_conf ec = { .name = "gap", .n_workers = 1 };
	struct sl_epoch *ep = sl_epoch_create(&ec, &err);
	struct sl_epoch_worker *w = sl_epoch_worker(ep, 0);
	sl_epoch_online(w);
	struct sl_flowtable_conf fc = { .name = "gap", .capacity = 4096, .idle_ns = 1024000,
					.expiry_cap = 2, .scan = 4096, .n_handles = 1,
					.socket = -1 };
	struct sl_flowtable *t = sl_ft_create(&fc, &err);
	struct sl_ft_handle *h = sl_ft_open(t, 0, ep, w, on_timed_record, NULL, &err);
	CHECK(t != NULL && h != NULL, "gap: %s", err.msg);
	if (h == NULL)
		return;
	const uint64_t step = sl_ft_expiry_step_ns(t), gap = 50000;
	memset(&timing, 0, sizeof(timing));
	timing.idle = fc.idle_ns;
	timing.late = step + gap + 500;
	for (timing.now = 0; timing.now < 4000000; timing.now += 500) {
		unsigned i = (unsigned)(timing.now / 500);
		if (i < 2000) {
			struct sl_flow_key k = key_of(i);
			enum sl_ft_insert_status st;
			CHECK(sl_ft_insert(h, &k, sl_flow_key_hash(&k), timing.now, 0, &st) != NULL,
			      "gap: insert %u", i);
		}
		if (timing.now >= 1500000 && timing.now < 1500000 + gap)
			continue;   /* the worker is away */
		sl_ft_expire(h, timing.now);
		sl_epoch_quiesce(ep, w);
		sl_epoch_reclaim(ep, w, 1000);
	}
	CHECK(timing.n == 2000, "gap: %u of 2000 flows ended", timing.n);
	CHECK(timing.early == 0, "gap: %u flows ended before their deadline", timing.early);
	CHECK(timing.too_late == 0, "gap: %u flows ended over %lu ns late (worst %lu)",
	      timing.too_late, (unsigned long)timing.late, (unsigned long)timing.worst);
	CHECK(timing.worst <= step - step / 8 + gap + 1000,
	      "gap: the latest ended %lu ns late, over 7/8 of the step (%lu) + the gap + 2 steps",
	      (unsigned long)timing.worst, (unsigned long)step);
	printf("scan gap: latest expiry %lu ns after the deadline (step %lu, gap %lu)\n",
	       (unsigned long)timing.worst, (unsigned long)step, (unsigned long)gap);
	sl_epoch_offline(w);
	sl_epoch_synchronize(ep);
	sl_epoch_drain(ep);
	sl_ft_close(h);
	sl_ft_free(t);
	sl_epoch_free(ep);
}

/* The wheel's work per step is bounded by `scan` even when one slot holds
 * many flows that are due but still active (each has to be filed again). */
static void test_wheel_budget(void)
{
	struct rig r;
	struct sl_flowtable_conf fc = { .name = "wb", .capacity = 4096, .idle_ns = 256000,
					.expiry_cap = 1, .scan = 16, .expiry = SL_FT_WHEEL };
	if (!rig_make(&r, SL_EPOCH_IMMEDIATE, &fc, 0))
		return;
	struct sl_flow_entry *e[1000];
	for (unsigned i = 0; i < 1000; i++) {
		struct sl_flow_key k = key_of(i);
		enum sl_ft_insert_status st;
		e[i] = sl_ft_insert(r.h, &k, sl_flow_key_hash(&k), 0, 0, &st);
	}
	/* all filed in the slot of tick 256; keep them active */
	for (unsigned i = 0; i < 1000; i++)
		sl_ft_touch(e[i], 1, 200000);
	uint64_t before = stats(&r).scanned;
	unsigned steps = 0;
	for (uint64_t now = 257000; steps < 200; now += 10, steps++) {
		uint64_t b = stats(&r).scanned;
		CHECK(sl_ft_expire(r.h, now) == 0, "wheel: an active flow expired");
		CHECK(stats(&r).scanned - b <= 16, "wheel: %lu visits in one step, scan is 16",
		      (unsigned long)(stats(&r).scanned - b));
	}
	struct sl_ft_stats s = stats(&r);
	CHECK(s.refiled == 1000, "wheel: %lu of 1000 active flows filed again",
	      (unsigned long)s.refiled);
	CHECK(s.scanned - before >= 1000, "wheel: visits %lu", (unsigned long)(s.scanned - before));
	CHECK(s.live == 1000, "wheel: live %lu", (unsigned long)s.live);
	/* from their idle deadline (456 us) on they end, one a step (the cap) */
	unsigned ended = 0, calls = 0;
	CHECK(sl_ft_expire(r.h, 455999) == 0, "wheel: ended before the deadline");
	for (uint64_t now = 456000; ended < 1000 && calls < 5000; now += 100, calls++) {
		unsigned n = sl_ft_expire(r.h, now);
		CHECK(n <= 1, "wheel: %u ended in one step, cap 1", n);
		ended += n;
		breathe_all(&r);
	}
	CHECK(ended == 1000, "wheel: %u of 1000 ended in %u steps", ended, calls);
	rig_free(&r);
}

/* The scan's cap on buckets visited per step, and a whole sweep. */
static void test_scan_cap(void)
{
	struct rig r;
	struct sl_flowtable_conf fc2 = { .name = "scan", .capacity = 4096, .idle_ns = 10,
					 .expiry_cap = 1000, .scan = 64 };
	if (!rig_make(&r, SL_EPOCH_IMMEDIATE, &fc2, 0))
		return;
	unsigned inserted = 0;
	for (unsigned i = 0; i < 2000; i++) {
		struct sl_flow_key k = key_of(i);
		enum sl_ft_insert_status st;
		inserted += sl_ft_insert(r.h, &k, sl_flow_key_hash(&k), 0, 0, &st) != NULL;
	}
	unsigned steps = 0, total = 0, n;
	struct sl_ft_stats s;
	while ((n = sl_ft_expire(r.h, 100 + steps)) > 0 || total < inserted) {
		total += n;
		steps++;
		s = stats(&r);
		CHECK(s.scanned <= 64ull * steps, "scanned %lu buckets in %u steps",
		      (unsigned long)s.scanned, steps);
		breathe_all(&r);
		if (steps > 1000)
			break;
	}
	CHECK(total == inserted, "expired %u of %u", total, inserted);
	CHECK(steps >= 2048 / 64, "a sweep of 2048 buckets took %u steps of 64", steps);
	rig_free(&r);
}

/* A step that reaches expiry_cap in the middle of a bucket starts the next
 * step on that bucket: the sweep ends a bucket's expired entries before it
 * moves on (else they would wait a whole sweep more).  8 flows in 4
 * buckets, all expired, a cap of 1: they end in bucket order.  The table
 * measures how late each ended (late_*) and the gap between steps. */
static void test_scan_cap_whole_bucket(void)
{
	struct rig r;
	struct sl_flowtable_conf fc = { .name = "whole", .capacity = 8, .ids = 8, .idle_ns = 10,
					.expiry_cap = 1, .scan = 64 };
	if (!rig_make(&r, SL_EPOCH_IMMEDIATE, &fc, 64))
		return;
	rig_insert_n(&r, 8, 0, "whole");
	unsigned order[8], n = 0;
	for (unsigned step = 0; step < 64 && n < 8; step++) {
		unsigned before = r.recs.n;
		CHECK(sl_ft_expire(r.h, 100 + 10 * step) <= 1, "step %u ended more than the cap", step);
		if (r.recs.n > before)
			order[n++] = sl_flow_key_hash(&r.recs.last.key) & 3;
		breathe_all(&r);
	}
	CHECK(n == 8, "ended %u of 8", n);
	for (unsigned i = 1; i < n; i++)
		CHECK(order[i] >= order[i - 1], "flow %u ended in bucket %u after one in bucket %u", i,
		      order[i], order[i - 1]);
	struct sl_ft_stats s = stats(&r);
	/* deadline 10, ended at 100 + 10 x step */
	CHECK(s.late_count == 8 && s.late_max_ns >= 90 && s.late_max_ns <= 100 + 10 * 64 &&
	      s.late_p50_ns >= 90 && s.late_p50_ns <= s.late_max_ns,
	      "late: %lu ended, p50 %lu max %lu", (unsigned long)s.late_count,
	      (unsigned long)s.late_p50_ns, (unsigned long)s.late_max_ns);
	CHECK(s.step_gap_ns == 10, "step gap %lu, want 10", (unsigned long)s.step_gap_ns);
	CHECK(sl_ft_expiry_step_ns(r.t) == 1, "step %lu: the sweep period, 10 / 8 at least 1",
	      (unsigned long)sl_ft_expiry_step_ns(r.t));
	rig_free(&r);
}

/* The scan's stamps: it reads an entry only when the stamp in its bucket
 * says the deadline may have come.  2000 flows kept busy for 8 idle
 * timeouts: none ends, and the scan reads each about once a timeout (it
 * used to read every live entry on every sweep, 8 a timeout); then they
 * stop and every one ends within 7/8 of the step, and a step, of its deadline. */
static void test_scan_stamps(void)
{
	const uint64_t idle = 1000000, step = 10000, sweep = idle / 8;
	struct rig r;
	struct sl_flowtable_conf fc = { .name = "stamps", .capacity = 4096, .idle_ns = idle,
					.expiry_cap = 1000, .scan = 4096 };
	if (!rig_make(&r, SL_EPOCH_IMMEDIATE, &fc, 0))
		return;
	enum { N = 2000 };
	static struct sl_flow_entry *e[N];
	for (unsigned i = 0; i < N; i++) {
		struct sl_flow_key k = key_of(i);
		enum sl_ft_insert_status st;
		e[i] = sl_ft_insert(r.h, &k, sl_flow_key_hash(&k), 0, 0, &st);
		CHECK(e[i] != NULL, "stamps: insert %u", i);
	}
	uint64_t now = 0;
	for (; now < 8 * idle; now += step) {
		if (now % (5 * step) == 0)
			for (unsigned i = 0; i < N; i++)
				sl_ft_touch(e[i], 1, now);
		sl_ft_expire(r.h, now);
		breathe_all(&r);
	}
	struct sl_ft_stats s = stats(&r);
	CHECK(r.recs.n == 0, "stamps: %u busy flows ended", r.recs.n);
	CHECK(s.scanned >= 60ull * (sl_ft_conf(r.t)->capacity / 8),
	      "stamps: %lu buckets visited in 64 sweeps", (unsigned long)s.scanned);
	CHECK(s.checked >= 6ull * N && s.checked <= 12ull * N,
	      "stamps: %lu entries read in 8 timeouts of %u busy flows (want about one a timeout each)",
	      (unsigned long)s.checked, N);
	printf("stamps: %lu entries read, %lu buckets visited in 8 timeouts of %u busy flows\n",
	       (unsigned long)s.checked, (unsigned long)s.scanned, N);
	for (uint64_t end = now + 2 * idle; now < end && r.recs.n < N; now += step) {
		sl_ft_expire(r.h, now);
		breathe_all(&r);
	}
	s = stats(&r);
	CHECK(r.recs.by_reason[SL_FT_IDLE] == N, "stamps: %u of %u ended idle",
	      r.recs.by_reason[SL_FT_IDLE], N);
	CHECK(s.late_max_ns <= sweep - sweep / 8 + step + step / 8,
	      "stamps: the latest ended %lu ns past its deadline, bound %lu (7/8 of the step, a step)",
	      (unsigned long)s.late_max_ns, (unsigned long)(sweep - sweep / 8 + step + step / 8));
	rig_free(&r);
}

/* A bucket the scan has not visited for many stamp units may hold stamps
 * that have wrapped (a byte each): its entries are all read.  Flows made at
 * 0 with a 1 ms timeout (units of 16384 ns, the deadline unit 61), the first
 * step 200 units after the deadline: every one ends in that step; and the
 * same after buckets were visited and a gap followed. */
static void test_scan_stale_stamps(void)
{
	const uint64_t idle = 1000000;
	struct rig r;
	struct sl_flowtable_conf fc = { .name = "stale", .capacity = 1024, .idle_ns = idle,
					.expiry_cap = 1000, .scan = 1024 };
	if (!rig_make(&r, SL_EPOCH_IMMEDIATE, &fc, 0))
		return;
	rig_insert_n(&r, 500, 0, "stale");
	unsigned n = sl_ft_expire(r.h, idle + 200 * 16384);
	CHECK(n == 500, "stale: %u of 500 flows ended in the first step after a long gap", n);
	breathe_all(&r);
	breathe_all(&r);
	/* Buckets visited, then a gap: 500 flows made at 10 ms, steps for
	 * 0.2 ms, then none until 205 units past their deadline (their stamps
	 * then read as 51 units ahead, within what a deadline can be): the
	 * buckets' last visit, over 96 units back, makes the scan read them. */
	const uint64_t t0 = 10000000;
	rig_insert_n(&r, 500, t0, "stale2");
	uint64_t now = t0;
	for (; now < t0 + 200000; now += 10000)
		CHECK(sl_ft_expire(r.h, now) == 0, "stale2: ended before the timeout");
	n = sl_ft_expire(r.h, t0 + idle + 205 * 16384);
	CHECK(n == 500, "stale2: %u of 500 flows ended in the first step after a gap of 200 units", n);
	breathe_all(&r);
	breathe_all(&r);
	rig_free(&r);
}

/* An insert whose clock is far behind the scan's (a sharer's worker that
 * was away between reading its clock and inserting): its stamp reads as
 * far ahead, which no stamp can be (a deadline is at most a timeout
 * away), so it is taken for a past one that wrapped.  1 ms timeout, units
 * of 16384 ns; the buckets visited just before; 100 flows inserted with a
 * clock 130 units behind their deadline's: all end within a sweep. */
static void test_scan_late_insert(void)
{
	const uint64_t idle = 1000000, unit = 16384, t = 10000000, step = 10000;
	struct rig r;
	struct sl_flowtable_conf fc = { .name = "late", .capacity = 1024, .idle_ns = idle,
					.expiry_cap = 1000, .scan = 1024 };
	if (!rig_make(&r, SL_EPOCH_IMMEDIATE, &fc, 0))
		return;
	uint64_t now = t - 2 * idle;
	for (; now < t; now += step)
		sl_ft_expire(r.h, now);
	rig_insert_n(&r, 100, t - idle - 130 * unit, "late");
	unsigned ended = 0;
	for (; now <= t + idle / 8 + step && ended < 100; now += step) {
		ended += sl_ft_expire(r.h, now);
		breathe_all(&r);
	}
	CHECK(ended == 100, "late: %u of 100 flows inserted with an old clock ended within a sweep",
	      ended);
	rig_free(&r);
}

/* Timeouts shortened while flows are live (a reload): stamps written with
 * the old timeout would be too late, so the scan reads every entry once.
 * 500 flows made with a 1 ms timeout, which becomes 0.6 ms (the same stamp
 * unit, 16384 ns: the stamps alone would keep them to 1 ms): all end within
 * the new sweep of the new deadline. */
static void test_scan_timeout_shortened(void)
{
	const uint64_t before = 1000000, after = 600000, step = 10000;
	struct rig r;
	struct sl_flowtable_conf fc = { .name = "shorter", .capacity = 1024, .idle_ns = before,
					.expiry_cap = 1000, .scan = 1024 };
	if (!rig_make(&r, SL_EPOCH_IMMEDIATE, &fc, 0))
		return;
	rig_insert_n(&r, 500, 0, "shorter");
	uint64_t now = 0;
	for (; now < 300000; now += step) {
		CHECK(sl_ft_expire(r.h, now) == 0, "shorter: ended before any timeout");
		breathe_all(&r);
	}
	sl_ft_set_expiry(r.t, after, 0, 1000);
	unsigned ended = 0;
	for (; now <= after + after / 8 + step; now += step) {
		ended += sl_ft_expire(r.h, now);
		breathe_all(&r);
	}
	CHECK(ended == 500, "shorter: %u of 500 flows ended within the new sweep of the new timeout",
	      ended);
	rig_free(&r);
}

static void test_eviction_and_limits(void)
{
	struct rig r;
	/* capacity 8: 4 buckets */
	struct sl_flowtable_conf fc = { .name = "ev", .capacity = 8, .ids = 8, .expiry_cap = 4 };
	if (!rig_make(&r, SL_EPOCH_IMMEDIATE, &fc, 64))
		return;
	struct sl_flow_entry *first = NULL;
	for (unsigned i = 0; i < 8; i++) {
		struct sl_flow_key k = key_of(i);
		enum sl_ft_insert_status st;
		struct sl_flow_entry *e = sl_ft_insert(r.h, &k, sl_flow_key_hash(&k), 10 + i, i, &st);
		CHECK(e != NULL, "insert %u: %d", i, st);
		if (i == 0)
			first = e;
	}
	/* flow 0 is the least recently seen unless touched: touch it */
	sl_ft_touch(first, 1, 100);
	struct sl_flow_key k = key_of(100);
	enum sl_ft_insert_status st;
	/* the id pool is empty: 8 live, 8 ids.  The insert is refused, but
	 * its eviction happens, so that an id comes back after the grace
	 * period and the table does not stay full of old flows for good. */
	CHECK(sl_ft_insert(r.h, &k, sl_flow_key_hash(&k), 101, 0, &st) == NULL && st == SL_FT_NO_ID,
	      "insert with no id: status %d", st);
	struct sl_ft_stats s0 = stats(&r);
	CHECK(s0.unlinked[SL_FT_EVICTED] == 1 && s0.live == 7 && s0.no_id == 1,
	      "no id at capacity: evicted %lu live %lu", (unsigned long)s0.unlinked[SL_FT_EVICTED],
	      (unsigned long)s0.live);
	breathe_all(&r);
	breathe_all(&r);
	CHECK(sl_ft_insert(r.h, &k, sl_flow_key_hash(&k), 102, 0, &st) != NULL && st == SL_FT_INSERTED,
	      "insert after the evicted flow's id came back: status %d", st);
	rig_free(&r);

	struct sl_flowtable_conf fc2 = { .name = "ev2", .capacity = 8, .ids = 16, .expiry_cap = 4 };
	if (!rig_make(&r, SL_EPOCH_IMMEDIATE, &fc2, 64))
		return;
	for (unsigned i = 0; i < 8; i++) {
		k = key_of(i);
		struct sl_flow_entry *e = sl_ft_insert(r.h, &k, sl_flow_key_hash(&k), 10 + i, i, &st);
		if (i == 0)
			first = e;
	}
	sl_ft_touch(first, 1, 100);
	k = key_of(100);
	CHECK(sl_ft_insert(r.h, &k, sl_flow_key_hash(&k), 101, 0, &st) != NULL &&
	      st == SL_FT_INSERTED, "insert at capacity: %d", st);
	CHECK(r.recs.by_reason[SL_FT_EVICTED] == 1, "evictions %u", r.recs.by_reason[SL_FT_EVICTED]);
	CHECK(r.recs.last.key.sport != 1024, "evicted the flow that was just seen");
	CHECK(r.recs.last.last_ns <= 17 && r.recs.last.last_ns >= 10, "evicted last_ns %lu",
	      (unsigned long)r.recs.last.last_ns);
	/* same key again: found, not inserted twice */
	CHECK(sl_ft_insert(r.h, &k, sl_flow_key_hash(&k), 102, 0, &st) != NULL && st == SL_FT_FOUND,
	      "second insert of one key: %d", st);
	CHECK(sl_ft_entry_cookie(r.t, sl_ft_lookup(r.t, &k, sl_flow_key_hash(&k))) == 0, "cookie");
	k = key_of(0);
	CHECK(sl_ft_lookup(r.t, &k, sl_flow_key_hash(&k)) == first, "recently seen flow kept");
	rig_free(&r);

	/* a full retire list: nothing is unlinked, the insert says so */
	struct sl_flowtable_conf fc3 = { .name = "room", .capacity = 4, .ids = 200, .expiry_cap = 4 };
	if (!rig_make(&r, SL_EPOCH_IMMEDIATE, &fc3, 64))
		return;
	unsigned no_room = 0;
	for (unsigned i = 0; i < 100; i++) {
		k = key_of(i);
		if (sl_ft_insert(r.h, &k, sl_flow_key_hash(&k), i, 0, &st) == NULL) {
			CHECK(st == SL_FT_NO_ROOM, "status %d", st);
			no_room++;
		}
	}
	struct sl_ft_stats s = stats(&r);
	CHECK(no_room == 100 - 4 - 64 && s.no_room == no_room, "no_room %u (stats %lu)", no_room,
	      (unsigned long)s.no_room);
	CHECK(s.live == 4 && s.unlinked[SL_FT_EVICTED] == 64, "live %lu evicted %lu",
	      (unsigned long)s.live, (unsigned long)s.unlinked[SL_FT_EVICTED]);
	breathe_all(&r);
	breathe_all(&r);
	k = key_of(1000);
	CHECK(sl_ft_insert(r.h, &k, sl_flow_key_hash(&k), 1000, 0, &st) != NULL,
	      "insert after the grace period: %d", st);
	rig_free(&r);
}

static void test_close_and_errors(void)
{
	struct rig r;
	struct sl_flowtable_conf fc = { .name = "cl", .capacity = 64, .expiry_cap = 4, .n_handles = 2 };
	if (!rig_make(&r, SL_EPOCH_IMMEDIATE, &fc, 0))
		return;
	struct sl_err err = { "" };
	CHECK(sl_ft_open(r.t, 0, r.e, r.w[0], NULL, NULL, &err) == NULL &&
	      strcmp(err.msg, "table 'cl': handle 0 is already open") == 0, "reopen: %s", err.msg);
	struct recs r2 = { 0 };
	struct sl_ft_handle *h1 = sl_ft_open(r.t, 1, r.e, r.w[1], on_record, &r2, &err);
	CHECK(h1 != NULL, "open 1: %s", err.msg);
	for (unsigned i = 0; i < 40; i++) {
		struct sl_flow_key k = key_of(i);
		enum sl_ft_insert_status st;
		sl_ft_insert(i % 2 ? h1 : r.h, &k, sl_flow_key_hash(&k), 1, 0, &st);
	}
	CHECK(sl_ft_live(r.t) == 40, "live %lu", (unsigned long)sl_ft_live(r.t));
	for (unsigned i = 0; i < NW; i++)
		sl_epoch_offline(r.w[i]);
	uint64_t c = sl_ft_close(r.h) + sl_ft_close(h1);
	CHECK(c == 40 && r.recs.by_reason[SL_FT_STOPPED] + r2.by_reason[SL_FT_STOPPED] == 40,
	      "closed %lu", (unsigned long)c);
	for (unsigned i = 0; i < NW; i++)
		sl_epoch_online(r.w[i]);
	rig_free(&r);

	struct sl_flowtable_conf bad = { .name = "b", .capacity = 0, .expiry_cap = 1, .n_handles = 1 };
	CHECK(sl_ft_create(&bad, &err) == NULL &&
	      strcmp(err.msg, "table 'b': capacity must be 1..268435456, got 0") == 0, "%s", err.msg);
	bad.capacity = 100;
	bad.ids = 50;
	CHECK(sl_ft_create(&bad, &err) == NULL &&
	      strcmp(err.msg, "table 'b': ids must be at least the capacity (100) and at most "
			      "1073741824, got 50") == 0, "%s", err.msg);
	bad.ids = 0;
	bad.n_handles = 0;
	CHECK(sl_ft_create(&bad, &err) == NULL &&
	      strcmp(err.msg, "table 'b': it can be shared by 1..64 apps, got 0") == 0, "%s", err.msg);
	bad.n_handles = 1;
	bad.expiry_cap = 0;
	CHECK(sl_ft_create(&bad, &err) == NULL &&
	      strcmp(err.msg, "table 'b': expiry_cap must be at least 1") == 0, "%s", err.msg);
	bad.expiry_cap = 1;
	bad.socket = -1;
	struct sl_flowtable *t = sl_ft_create(&bad, &err);
	CHECK(t != NULL && sl_ft_conf(t)->ids == 100 + 1024 && sl_ft_conf(t)->scan == 4,
	      "defaults: ids %u scan %u", t ? sl_ft_conf(t)->ids : 0, t ? sl_ft_conf(t)->scan : 0);
	sl_ft_free(t);
}

/* While set, anonymous mappings of at least this many bytes fail (ENOMEM):
 * the table's allocation fails after its memory check has passed.  This
 * definition takes the place of libc's for the whole program. */
static size_t mmap_fail_from;

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	if (mmap_fail_from != 0 && (flags & MAP_ANONYMOUS) && len >= mmap_fail_from) {
		errno = ENOMEM;
		return MAP_FAILED;
	}
	return (void *)syscall(SYS_mmap, addr, len, prot, flags, fd, off);
}

static void test_memory(void)
{
	struct sl_flowtable_conf c = { .name = "big", .capacity = 300000, .expiry_cap = 32,
				       .n_handles = 1, .socket = -1 };
	struct sl_err err = { "" };
	char want[512];

	/* What a table needs: buckets (a power of two >= capacity / 2, a cache
	 * line each), an entry, its meta and an id per id, the table and its
	 * handles. */
	uint64_t need = sl_ft_mem_bytes(&c);
	/* the three arrays of 2 MB or more are whole 2 MB pages (huge pages) */
#define MB2(x) (((x) + (2ull << 20) - 1) & ~((2ull << 20) - 1))
	uint64_t parts = MB2(262144ull * 64) + MB2(375000ull * sizeof(struct sl_flow_entry)) +
			 MB2(375000ull * sizeof(struct sl_flow_meta)) + 375000ull * 4;
#undef MB2
	CHECK(need >= parts && need < parts + 65536, "needs %llu bytes, parts %llu",
	      (unsigned long long)need, (unsigned long long)parts);
	c.expiry = SL_FT_WHEEL;
	c.n_handles = 4;
	CHECK(sl_ft_mem_bytes(&c) >= need + 4 * SL_FT_WHEEL_SLOTS * 4, "wheel heads counted");
	c.expiry = SL_FT_SCAN;
	c.n_handles = 1;

	/* The check with a given figure: refused, with both sizes. */
	int rc = sl_ft_mem_check(&c, 1 << 20, "a test limit", &err);
	CHECK(rc == -ENOMEM, "rc %d", rc);
	CHECK(strncmp(err.msg, "a flow table of 300000 entries (375000 ids) needs ", 50) == 0 &&
	      strstr(err.msg, " of memory, but this process can get 1.0 MiB (bound by a test "
			      "limit); lower 'entries' or 'ids'") != NULL, "message: %s", err.msg);
	CHECK(sl_ft_mem_check(&c, need, "a test limit", &err) == 0, "exactly enough refused");
	const char *what = NULL;
	CHECK(sl_ft_mem_available(&what) > 0 && what != NULL, "available memory and its source");

	/* sl_ft_create checks before it allocates: under an address space
	 * limit a table of 2^24 entries (about 2.5 GiB) fails at once. */
	struct rlimit old;
	FILE *f = fopen("/proc/self/statm", "r");
	unsigned long long pages = 0;
	if (f != NULL) {
		if (fscanf(f, "%llu", &pages) != 1)
			pages = 0;
		fclose(f);
	}
	if (pages > 0 && getrlimit(RLIMIT_AS, &old) == 0 &&
	    (old.rlim_cur == RLIM_INFINITY ||
	     old.rlim_cur > pages * (unsigned long long)sysconf(_SC_PAGESIZE) + (64ull << 20))) {
		struct rlimit low = old;
		low.rlim_cur = pages * (unsigned long long)sysconf(_SC_PAGESIZE) + (64ull << 20);
		struct sl_flowtable_conf huge = c;
		huge.capacity = 1u << 24;
		struct sl_flowtable *t = NULL;
		if (setrlimit(RLIMIT_AS, &low) == 0) {
			errno = 0;
			t = sl_ft_create(&huge, &err);
			int e = errno;
			setrlimit(RLIMIT_AS, &old);
			CHECK(t == NULL && e == ENOMEM, "huge table under ulimit -v: %p errno %d", (void *)t, e);
			CHECK(strncmp(err.msg, "table 'big': a flow table of 16777216 entries (20971520 ids) needs ", 67) == 0 &&
			      strstr(err.msg, "(bound by the address space limit, ulimit -v); lower 'entries' or 'ids'") != NULL,
			      "message: %s", err.msg);
			printf("memory: a table of 2^24 entries under ulimit -v: %s\n", err.msg);
			sl_ft_free(t);
		}
	}

	/* The allocation itself fails (the check passed): a clean error that
	 * names the table and the ids, read before the table is freed. */
	mmap_fail_from = 1 << 20;
	errno = 0;
	struct sl_flowtable *t = sl_ft_create(&c, &err);
	int e = errno;
	mmap_fail_from = 0;
	CHECK(t == NULL && e == ENOMEM, "failed allocation: %p errno %d", (void *)t, e);
	snprintf(want, sizeof(want), "table 'big': out of memory for 375000 ids and their entries (");
	CHECK(strncmp(err.msg, want, strlen(want)) == 0 && strstr(err.msg, " in all)") != NULL,
	      "message: %s", err.msg);
	sl_ft_free(t);

	/* And a table that fits is made as before. */
	t = sl_ft_create(&c, &err);
	CHECK(t != NULL, "table after the failures: %s", err.msg);
	sl_ft_free(t);
}

/* sl_ft_touch_n: a run of packets counts as that many touches, with plain
 * stores (sole) and with atomic adds; last_ns only moves forward; the
 * counts reach the flow's record. */
static void test_touch_n(bool sole)
{
	const char *mn = sole ? "touch_n sole" : "touch_n shared";
	struct rig r;
	struct sl_flowtable_conf fc = { .name = "tn", .capacity = 64, .expiry_cap = 64 };
	if (!rig_make(&r, SL_EPOCH_IMMEDIATE, &fc, 0))
		return;
	struct sl_flow_key k = key_of(1);
	enum sl_ft_insert_status st;
	struct sl_flow_entry *e = sl_ft_insert(r.h, &k, sl_flow_key_hash(&k), 100, 0, &st);
	CHECK(e != NULL && st == SL_FT_INSERTED, "%s: insert", mn);
	if (e == NULL) {
		rig_free(&r);
		return;
	}
	sl_ft_touch_n(e, 32, 32 * 64, 500, sole);
	sl_ft_touch(e, 1500, 600);
	sl_ft_touch_n(e, 3, 3 * 100, 550, sole);   /* earlier than the last: last_ns stays */
	CHECK(e->packets == 36 && e->bytes == 32 * 64 + 1500 + 300 && e->last_ns == 600,
	      "%s: %lu packets %lu bytes last %lu", mn, (unsigned long)e->packets,
	      (unsigned long)e->bytes, (unsigned long)e->last_ns);
	CHECK(sl_ft_flush(r.h, 64) == 1, "%s: flush", mn);
	CHECK(r.recs.last.packets == 36 && r.recs.last.bytes == 32 * 64 + 1800 &&
	      r.recs.last.first_ns == 100 && r.recs.last.last_ns == 600,
	      "%s: record %lu packets %lu bytes %lu..%lu", mn, (unsigned long)r.recs.last.packets,
	      (unsigned long)r.recs.last.bytes, (unsigned long)r.recs.last.first_ns,
	      (unsigned long)r.recs.last.last_ns);
	breathe_all(&r);
	breathe_all(&r);
	rig_free(&r);
}

/* Keys that share their hash (so bucket and signature) and differ in one
 * 8-byte word each: the lookups (by key and by words) find each one's own
 * entry, the key compared word by word, every word. */
static void test_lookup_words(void)
{
	struct rig r;
	struct sl_flowtable_conf fc = { .name = "lw", .capacity = 64, .expiry_cap = 64 };
	if (!rig_make(&r, SL_EPOCH_IMMEDIATE, &fc, 0))
		return;
	const uint32_t hash = 0x5a5a1234u;   /* every key's: one bucket, one signature */
	struct sl_flow_key k[6];
	struct sl_flow_entry *e[6];
	k[0] = key_of(1);
	for (unsigned i = 1; i < 6; i++) {   /* key i differs from key 0 in word i - 1 */
		k[i] = k[0];
		((uint8_t *)&k[i])[8 * (i - 1) + 7] ^= 0x80;
	}
	for (unsigned i = 0; i < 6; i++) {
		enum sl_ft_insert_status st;
		e[i] = sl_ft_insert(r.h, &k[i], hash, 100, i, &st);
		CHECK(e[i] != NULL && st == SL_FT_INSERTED, "lookup_words: insert %u", i);
	}
	for (unsigned i = 0; i < 6; i++) {
		const struct sl_flow_key *q = &k[i];
		struct sl_flow_entry *byw = sl_ft_lookup_ways_words(
			r.t, sl_flow_key_word(q, 0), sl_flow_key_word(q, 1), sl_flow_key_word(q, 2),
			sl_flow_key_word(q, 3), sl_flow_key_word(q, 4), hash, sl_ft_match(r.t, hash));
		CHECK(byw == e[i], "lookup_words: key %u by words found entry %ld", i,
		      byw != NULL ? (long)(byw - e[0]) : -1L);
		CHECK(sl_ft_lookup(r.t, q, hash) == e[i], "lookup_words: key %u by key", i);
	}
	CHECK(sl_ft_flush(r.h, 64) == 6, "lookup_words: flush");
	breathe_all(&r);
	breathe_all(&r);
	rig_free(&r);
}

/* sl_ft_lookup_ways_v4 compares words 0, 1 and 3 only: in one bucket and
 * signature, an IPv4 key, IPv4 keys differing from it in word 0 (the
 * ports), 1 (source) and 3 (destination), and an IPv6 key with the same
 * bytes but its family: each IPv4 key's words find its own entry, never
 * the IPv6 one's; words no key has find nothing. */
static void test_lookup_v4(void)
{
	struct rig r;
	struct sl_flowtable_conf fc = { .name = "l4", .capacity = 64, .expiry_cap = 64 };
	if (!rig_make(&r, SL_EPOCH_IMMEDIATE, &fc, 0))
		return;
	const uint32_t hash = 0x2b2b4321u;
	struct sl_flow_key k[5];
	struct sl_flow_entry *e[5];
	k[4] = k[0] = key_of(7);
	k[4].family = 6;   /* the IPv6 key: inserted first, so met first */
	for (unsigned i = 1; i < 4; i++) {   /* key i differs from key 0 in word (0, 1, 3)[i - 1] */
		k[i] = k[0];
		((uint8_t *)&k[i])[8 * (i == 1 ? 0 : i == 2 ? 1 : 3) + 2] ^= 0x40;
	}
	enum sl_ft_insert_status st;
	e[4] = sl_ft_insert(r.h, &k[4], hash, 100, 4, &st);
	CHECK(e[4] != NULL && st == SL_FT_INSERTED, "lookup_v4: insert the IPv6 key");
	for (unsigned i = 0; i < 4; i++) {
		e[i] = sl_ft_insert(r.h, &k[i], hash, 100, i, &st);
		CHECK(e[i] != NULL && st == SL_FT_INSERTED, "lookup_v4: insert %u", i);
	}
	unsigned ways = sl_ft_match(r.t, hash);
	for (unsigned i = 0; i < 4; i++) {
		const struct sl_flow_key *q = &k[i];
		struct sl_flow_entry *got = sl_ft_lookup_ways_v4(r.t, sl_flow_key_word(q, 0),
								 sl_flow_key_word(q, 1),
								 sl_flow_key_word(q, 3), hash, ways);
		CHECK(got == e[i], "lookup_v4: key %u found flow id %ld, not %u", i,
		      got != NULL ? (long)sl_ft_entry_id(r.t, got) : -1L,
		      sl_ft_entry_id(r.t, e[i]));
	}
	CHECK(sl_ft_lookup_ways_v4(r.t, sl_flow_key_word(&k[0], 0), sl_flow_key_word(&k[0], 1),
				   sl_flow_key_word(&k[0], 3) ^ 1, hash, ways) == NULL,
	      "lookup_v4: a destination no key has was found");
	CHECK(sl_ft_flush(r.h, 64) == 5, "lookup_v4: flush");
	breathe_all(&r);
	breathe_all(&r);
	rig_free(&r);
}

/* sl_ft_outgrows: a hit reads two lines (128 bytes a flow); a 32 MiB cache
 * holds 262144 flows' and not one more, and an unknown cache is taken as
 * SL_FT_CACHE_GUESS (16 MiB: 131072 flows). */
static void test_outgrows(void)
{
	const uint64_t mib = 1u << 20;
	CHECK(SL_FT_HIT_BYTES == 128, "a hit reads %zu bytes, not two lines", SL_FT_HIT_BYTES);
	CHECK(!sl_ft_outgrows(0, 32 * mib) && !sl_ft_outgrows(262144, 32 * mib),
	      "outgrows: 262144 flows' lines fit in 32 MiB");
	CHECK(sl_ft_outgrows(262145, 32 * mib), "outgrows: 262145 flows' lines fit in 32 MiB");
	CHECK(!sl_ft_outgrows(131072, 0) && sl_ft_outgrows(131073, 0),
	      "outgrows: an unknown cache is not taken as 16 MiB");
	CHECK(sl_ft_outgrows(16777216, 384 * mib) && !sl_ft_outgrows(65536, 8 * mib),
	      "outgrows: 16M flows against 384 MiB, 64k against 8 MiB");
	/* the batch: the caller's burst while the lines fit, 128 once they do
	 * not, whatever the burst */
	CHECK(sl_ft_batch(262144, 32 * mib, 32) == 32 && sl_ft_batch(262145, 32 * mib, 32) == 128,
	      "batch at burst 32: %u, %u", sl_ft_batch(262144, 32 * mib, 32),
	      sl_ft_batch(262145, 32 * mib, 32));
	CHECK(sl_ft_batch(1048576, 32 * mib, 64) == 128 && sl_ft_batch(1048576, 32 * mib, 256) == 128 &&
	      sl_ft_batch(1048576, 32 * mib, 8) == 128, "batch out of cache at bursts 64, 256, 8: %u, %u, %u",
	      sl_ft_batch(1048576, 32 * mib, 64), sl_ft_batch(1048576, 32 * mib, 256),
	      sl_ft_batch(1048576, 32 * mib, 8));
	CHECK(sl_ft_batch(1024, 0, 256) == 256 && sl_ft_batch(1024, 32 * mib, 8) == 8,
	      "batch in cache: the burst (%u, %u)", sl_ft_batch(1024, 0, 256),
	      sl_ft_batch(1024, 32 * mib, 8));
}

static void test_touch_n_sole(void) { test_touch_n(true); }
static void test_touch_n_shared(void) { test_touch_n(false); }
static void test_drop_immediately_immediate(void) { test_drop_immediately(SL_EPOCH_IMMEDIATE); }
static void test_drop_immediately_batch(void) { test_drop_immediately(SL_EPOCH_BATCH); }
static void test_expiry_scan(void) { test_expiry(SL_FT_SCAN); }
static void test_expiry_wheel(void) { test_expiry(SL_FT_WHEEL); }
static void test_expiry_timing_scan(void) { test_expiry_timing(SL_FT_SCAN); }
static void test_expiry_timing_wheel(void) { test_expiry_timing(SL_FT_WHEEL); }

/* The QSBR policy needs DPDK's EAL; where it cannot start, the case is
 * skipped with a note. */
static void test_drop_immediately_qsbr(void)
{
	char prefix[32];
	snprintf(prefix, sizeof(prefix), "tft%d", (int)getpid());
	char *argv[] = { "test_flowtable", "--no-huge", "-m", "64", "--no-pci",
			 "--file-prefix", prefix, "--log-level", "lib.eal:error", "-l", "0", NULL };
	if (rte_eal_init(11, argv) < 0) {
		printf("qsbr policy skipped: cannot initialise DPDK's EAL (--no-huge)\n");
		return;
	}
	test_drop_immediately(SL_EPOCH_QSBR);
	rte_eal_cleanup();
}

static const struct sl_test_case cases[] = {
	SL_CASE(test_touch_n_sole),
	SL_CASE(test_lookup_words),
	SL_CASE(test_lookup_v4),
	SL_CASE(test_outgrows),
	SL_CASE(test_touch_n_shared),
	SL_CASE(test_drop_immediately_immediate),
	SL_CASE(test_drop_immediately_batch),
	SL_CASE(test_expiry_scan),
	SL_CASE(test_expiry_wheel),
	SL_CASE(test_expiry_timing_scan),
	SL_CASE(test_expiry_timing_wheel),
	SL_CASE(test_scan_cap),
	SL_CASE(test_scan_cap_whole_bucket),
	SL_CASE(test_scan_stamps),
	SL_CASE(test_scan_gap),
	SL_CASE(test_scan_stale_stamps),
	SL_CASE(test_scan_late_insert),
	SL_CASE(test_scan_timeout_shortened),
	SL_CASE(test_wheel_budget),
	SL_CASE(test_eviction_and_limits),
	SL_CASE(test_close_and_errors),
	SL_CASE(test_memory),
	SL_CASE(test_drop_immediately_qsbr),
};

int main(int argc, char **argv)
{
	return sl_test_main(argc, argv, cases, SL_NCASES(cases));
}
