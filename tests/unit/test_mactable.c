/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The bridge's MAC table on one thread, with a clock of the test's own:
 * learning, lookups per VLAN, moves (the old entry freed only after a
 * quiescent state), static entries, the per-member limit and a full table
 * (nothing evicted), and aging: an idle entry goes between aging and
 * sl_mt_bound_ns() after its last frame, one refreshed in time stays.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "epoch/epoch.h"
#include "apps/bridge/mactable.h"

#include "check.h"

static struct sl_epoch *ep;
static struct sl_epoch_worker *ew;

static void epoch_up(void)
{
	struct sl_err err = { "" };
	struct sl_epoch_conf c = { .name = "mt", .n_workers = 1, .ring_size = 64 };
	ep = sl_epoch_create(&c, &err);
	CHECK(ep != NULL, "epoch: %s", err.msg);
	ew = sl_epoch_worker(ep, 0);
	sl_epoch_online(ew);
}

static void epoch_down(void)
{
	sl_epoch_offline(ew);
	sl_epoch_drain(ep);
	sl_epoch_free(ep);
}

static struct sl_mt *table(unsigned capacity, unsigned limit, uint64_t aging_ns)
{
	struct sl_err err = { "" };
	struct sl_mt_conf c = { .name = "t", .capacity = capacity, .member_limit = limit,
				.aging_ns = aging_ns, .socket = -1 };
	struct sl_mt *t = sl_mt_create(&c, &err);
	CHECK(t != NULL, "create: %s", err.msg);
	return t;
}

static uint64_t key_n(uint16_t vlan, unsigned n)
{
	const uint8_t mac[6] = { 0x02, 0, (uint8_t)(n >> 24), (uint8_t)(n >> 16), (uint8_t)(n >> 8),
				 (uint8_t)n };
	return sl_mt_key(vlan, mac);
}

static enum sl_mt_learn learn(struct sl_mt *t, uint64_t key, unsigned member, uint64_t now)
{
	return sl_mt_learn(t, ep, ew, key, sl_mt_hash(key), member, now);
}

static int member_of(const struct sl_mt *t, uint64_t key)
{
	const struct sl_mt_entry *e = sl_mt_lookup(t, key, sl_mt_hash(key));
	return e == NULL ? -1 : e->member;
}

static void breath(void)
{
	sl_epoch_quiesce(ep, ew);
	sl_epoch_reclaim(ep, ew, 256);
}

static void test_key(void)
{
	const uint8_t mac[6] = { 0x02, 0x11, 0x22, 0x33, 0x44, 0x55 };
	uint64_t k = sl_mt_key(4094, mac);
	uint8_t back[6];
	sl_mt_key_mac(k, back);
	CHECK(sl_mt_key_vlan(k) == 4094, "vlan %u", sl_mt_key_vlan(k));
	CHECK(memcmp(back, mac, 6) == 0, "mac back");
	CHECK(k == 0x0ffe021122334455ull, "key %llx", (unsigned long long)k);
}

static void test_learn_lookup(void)
{
	epoch_up();
	struct sl_mt *t = table(1024, 0, 1000000000);
	uint64_t a10 = key_n(10, 1), a20 = key_n(20, 1);
	CHECK(member_of(t, a10) == -1, "empty table finds nothing");
	CHECK(learn(t, a10, 0, 1) == SL_MT_LEARNED, "first learn");
	CHECK(learn(t, a10, 0, 2) == SL_MT_KNOWN, "second learn is known");
	CHECK(member_of(t, a10) == 0, "found on member 0");
	CHECK(member_of(t, a20) == -1, "the same MAC on another VLAN is another key");
	CHECK(learn(t, a20, 3, 3) == SL_MT_LEARNED, "learn on VLAN 20");
	CHECK(member_of(t, a20) == 3 && member_of(t, a10) == 0, "both, each its member");
	struct sl_mt_stats s;
	sl_mt_stats(t, &s);
	CHECK(s.entries == 2 && s.member_entries[0] == 1 && s.member_entries[3] == 1,
	      "entries %llu", (unsigned long long)s.entries);
	/* the listing sees both */
	unsigned listed = 0;
	for (uint32_t id = 1; id <= sl_mt_capacity(t); id++) {
		struct sl_mt_entry e;
		if (sl_mt_entry_read(t, id, &e)) {
			listed++;
			CHECK(e.key == a10 || e.key == a20, "listed key");
			CHECK(!e.is_static, "learned");
		}
	}
	CHECK(listed == 2, "listed %u", listed);
	sl_mt_free(t);
	epoch_down();
}

static void test_move(void)
{
	epoch_up();
	struct sl_mt *t = table(64, 0, 1000000000);
	uint64_t a = key_n(1, 7);
	CHECK(learn(t, a, 0, 1) == SL_MT_LEARNED, "learn");
	const struct sl_mt_entry *held = sl_mt_lookup(t, a, sl_mt_hash(a));
	CHECK(learn(t, a, 2, 2) == SL_MT_MOVED, "moved");
	CHECK(member_of(t, a) == 2, "now on member 2");
	/* the entry a reader held keeps its key and member until a quiescent
	 * state: not freed, not reused */
	CHECK(held->key == a && held->member == 0, "held entry intact");
	struct sl_mt_stats s;
	sl_mt_stats(t, &s);
	CHECK(s.entries == 1 && s.freed == 0, "one live, none freed yet (%llu)",
	      (unsigned long long)s.freed);
	CHECK(s.member_entries[0] == 0 && s.member_entries[2] == 1, "counts follow the move");
	breath();
	breath();
	sl_mt_stats(t, &s);
	CHECK(s.freed == 1, "freed after the grace period: %llu", (unsigned long long)s.freed);
	CHECK(learn(t, a, 2, 3) == SL_MT_KNOWN, "known on its new member");
	sl_mt_free(t);
	epoch_down();
}

static void test_static(void)
{
	epoch_up();
	struct sl_err err = { "" };
	struct sl_mt *t = table(64, 0, 1000000);
	uint64_t b = key_n(5, 9);
	CHECK(sl_mt_static_add(t, b, 4, &err) == 0, "static: %s", err.msg);
	CHECK(sl_mt_static_add(t, b, 4, &err) == -EEXIST, "twice refused");
	CHECK(strstr(err.msg, "02:00:00:00:00:09 on VLAN 5 has a static entry already") != NULL,
	      "message: %s", err.msg);
	CHECK(learn(t, b, 1, 10) == SL_MT_STATIC, "a static entry does not move");
	CHECK(member_of(t, b) == 4, "still on member 4");
	CHECK(learn(t, b, 4, 11) == SL_MT_KNOWN, "known on its own member");
	struct sl_mt_sweep sw = { 0 };
	sl_mt_sweep_init(t, &sw, 0, 1, 0);
	uint64_t late = 0;
	unsigned aged = 0;
	for (uint64_t now = 0; now < 100000000; now += 1000000)
		aged += sl_mt_age(t, &sw, ep, ew, now, 1000, &late);
	CHECK(aged == 0 && member_of(t, b) == 4, "a static entry never ages");
	struct sl_mt_stats s;
	sl_mt_stats(t, &s);
	CHECK(s.statics == 1 && s.entries == 1 && s.member_entries[4] == 0,
	      "static counted apart from learned");
	sl_mt_free(t);
	epoch_down();
}

/* A reload's static changes while the table is in use (mactable.h,
 * static_set and static_del): a learned entry made static, a static one
 * moved to another member, one removed; each replaced entry freed only
 * after a grace period. */
static void test_static_reload(void)
{
	epoch_up();
	struct sl_err err = { "" };
	struct sl_mt *t = table(64, 0, 1000000000);
	uint64_t a = key_n(1, 1), b = key_n(1, 2);
	CHECK(learn(t, a, 0, 1) == SL_MT_LEARNED, "learn a");
	CHECK(sl_mt_static_set(t, ep, ew, a, 3, &err) == 0, "a made static: %s", err.msg);
	CHECK(member_of(t, a) == 3, "a static on 3");
	CHECK(learn(t, a, 0, 2) == SL_MT_STATIC, "a no longer moves");
	CHECK(sl_mt_static_set(t, ep, ew, b, 1, &err) == 0, "b static");
	CHECK(sl_mt_static_set(t, ep, ew, b, 2, &err) == 0, "b moved to 2");
	CHECK(member_of(t, b) == 2, "b on 2");
	struct sl_mt_stats s;
	sl_mt_stats(t, &s);
	CHECK(s.entries == 2 && s.statics == 2 && s.member_entries[0] == 0, "entries %llu statics %llu",
	      (unsigned long long)s.entries, (unsigned long long)s.statics);
	CHECK(sl_mt_static_del(t, ep, ew, b) == 1, "b removed");
	CHECK(sl_mt_static_del(t, ep, ew, b) == 0, "b removed once");
	CHECK(member_of(t, b) == -1, "b gone");
	CHECK(learn(t, b, 0, 3) == SL_MT_LEARNED, "b learned again");
	sl_mt_stats(t, &s);
	CHECK(s.statics == 1 && s.entries == 2 && s.freed == 0, "before the grace period: freed %llu",
	      (unsigned long long)s.freed);
	breath();
	breath();
	sl_mt_stats(t, &s);
	CHECK(s.freed == 3, "the learned a, static b on 1, static b on 2 freed: %llu",
	      (unsigned long long)s.freed);
	sl_mt_free(t);
	epoch_down();
}

static void test_limits(void)
{
	epoch_up();
	struct sl_mt *t = table(8, 3, 1000000000);
	for (unsigned i = 0; i < 3; i++)
		CHECK(learn(t, key_n(1, i), 0, 1) == SL_MT_LEARNED, "learn %u", i);
	CHECK(learn(t, key_n(1, 3), 0, 1) == SL_MT_LIMITED, "member 0 at its limit");
	CHECK(member_of(t, key_n(1, 3)) == -1, "not learned");
	for (unsigned i = 0; i < 3; i++)
		CHECK(learn(t, key_n(1, 10 + i), 1, 1) == SL_MT_LEARNED, "member 1 learns %u", i);
	CHECK(learn(t, key_n(1, 20), 2, 1) == SL_MT_LEARNED, "member 2: 7th entry");
	CHECK(learn(t, key_n(1, 21), 2, 1) == SL_MT_LEARNED, "member 2: 8th entry");
	CHECK(learn(t, key_n(1, 22), 2, 1) == SL_MT_FULL, "a full table refuses");
	for (unsigned i = 0; i < 3; i++)
		CHECK(member_of(t, key_n(1, i)) == 0, "nothing evicted (%u)", i);
	sl_mt_free(t);
	epoch_down();
}

/* The time an entry learned at 0 and never seen again is gone, stepping
 * the clock by step ns. */
static uint64_t gone_at(struct sl_mt *t, uint64_t key, uint64_t step, uint64_t *late)
{
	struct sl_mt_sweep sw = { 0 };
	sl_mt_sweep_init(t, &sw, 0, 1, 0);
	for (uint64_t now = step; now < 100 * sl_mt_bound_ns(t); now += step) {
		sl_mt_age(t, &sw, ep, ew, now, 64, late);
		breath();
		if (member_of(t, key) < 0)
			return now;
	}
	return UINT64_MAX;
}

static void test_aging(void)
{
	epoch_up();
	const uint64_t aging = 1000000000;   /* 1 s */
	/* 4096 entries: 1024 buckets, swept in aging / 8 by at most 64 a call */
	struct sl_mt *t = table(4096, 0, aging);
	uint64_t a = key_n(1, 1), late = 0;
	CHECK(learn(t, a, 0, 0) == SL_MT_LEARNED, "learn at 0");
	uint64_t at = gone_at(t, a, 1000000, &late);
	CHECK(at > aging + sl_mt_refresh_ns(t), "gone at %llu ns: not before aging + refresh step",
	      (unsigned long long)at);
	CHECK(at <= sl_mt_bound_ns(t), "gone at %llu ns, bound %llu", (unsigned long long)at,
	      (unsigned long long)sl_mt_bound_ns(t));
	CHECK(late > 0 && late <= sl_mt_bound_ns(t) - aging, "late %llu", (unsigned long long)late);
	struct sl_mt_stats s;
	sl_mt_stats(t, &s);
	CHECK(s.entries == 0 && s.member_entries[0] == 0, "counts back to 0");
	breath();
	sl_mt_stats(t, &s);
	CHECK(s.freed == 1, "freed %llu", (unsigned long long)s.freed);

	/* refreshed every half aging: never goes */
	uint64_t b = key_n(1, 2);
	CHECK(learn(t, b, 0, 0) == SL_MT_LEARNED, "learn b");
	struct sl_mt_sweep sw = { 0 };
	sl_mt_sweep_init(t, &sw, 0, 1, 0);
	unsigned aged = 0;
	for (uint64_t now = 1000000; now < 5 * aging; now += 1000000) {
		if (now % (aging / 2) == 0)
			CHECK(learn(t, b, 0, now) == SL_MT_KNOWN, "refresh");
		aged += sl_mt_age(t, &sw, ep, ew, now, 64, NULL);
	}
	CHECK(aged == 0 && member_of(t, b) == 0, "a refreshed entry stays");
	sl_mt_free(t);
	epoch_down();
}

static void test_bad_conf(void)
{
	struct sl_err err = { "" };
	struct sl_mt_conf c = { .name = "bad", .capacity = 0, .aging_ns = 1 };
	CHECK(sl_mt_create(&c, &err) == NULL && errno == EINVAL, "capacity 0 refused");
	CHECK(strstr(err.msg, "MAC table 'bad': capacity must be") != NULL, "message: %s", err.msg);
}

static const struct sl_test_case cases[] = {
	SL_CASE(test_key), SL_CASE(test_learn_lookup), SL_CASE(test_move), SL_CASE(test_static), SL_CASE(test_static_reload),
	SL_CASE(test_limits), SL_CASE(test_aging), SL_CASE(test_bad_conf),
};

int main(int argc, char **argv)
{
	return sl_test_main(argc, argv, cases, SL_NCASES(cases));
}
