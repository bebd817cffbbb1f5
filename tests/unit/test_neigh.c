/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The router's neighbour table (apps/router/neigh.h) on a real EAL
 * (--no-huge), with the TSC given by hand: create, find, hold and its
 * bound, confirm handing the held packets back, the state timers
 * (reachable -> stale -> removed; incomplete re-probed, then failed with its
 * packets handed to fail), a use of a stale entry asking for one probe per
 * retrans, the capacity (the oldest incomplete entry evicted first, nothing
 * created when none is incomplete: a flood cannot take over confirmed
 * entries), a full aging pass within SL_NB_PASS_MS budgets, and every mbuf
 * back at the end.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "apps/router/neigh.h"

#include "eal_fixture.h"

#define N_MBUFS 63u

static struct rte_mempool *pool;
static uint64_t ms;    /* TSC cycles per millisecond */

struct seen {
	unsigned probes, fails;
	uint32_t last_probe;
};

static void on_probe(void *arg, const struct sl_nb *e)
{
	struct seen *s = arg;
	s->probes++;
	s->last_probe = e->addr;
}

static void on_fail(void *arg, const struct sl_nb *e, struct rte_mbuf *m)
{
	(void)e;
	struct seen *s = arg;
	s->fails++;
	rte_pktmbuf_free(m);
}

static struct sl_nb_table *table(unsigned max, unsigned hold)
{
	struct sl_nb_conf c = { .max = max, .hold = hold, .reachable_ns = 1000000000,
				.stale_ns = 2000000000, .retrans_ns = 100000000, .probes = 3,
				.socket = SOCKET_ID_ANY };
	struct sl_err err;
	struct sl_nb_table *t = sl_nb_table_create(&c, &err);
	CHECK(t != NULL, "table: %s", err.msg);
	return t;
}

/* Age the whole table at now. */
static void age_all(struct sl_nb_table *t, uint64_t now, struct seen *s)
{
	const struct sl_nb_ops ops = { .probe = on_probe, .fail = on_fail, .arg = s };
	sl_nb_age(t, now, sl_nb_buckets(t), &ops);
}

static void test_lifecycle(void)
{
	struct sl_nb_table *t = table(16, 2);
	struct seen s = { 0 };
	uint64_t t0 = 1000 * ms;
	if (t == NULL)
		return;
	struct sl_nb *e = sl_nb_create(t, 0xc6120202, 1, t0);
	CHECK(e != NULL && e->state == SL_NB_INCOMPLETE && e->iface == 1, "created incomplete");
	CHECK(sl_nb_find(t, 0xc6120202) == e && sl_nb_find(t, 0xc6120203) == NULL, "find");
	struct rte_mbuf *m[3];
	CHECK(rte_pktmbuf_alloc_bulk(pool, m, 3) == 0, "mbufs");
	CHECK(sl_nb_hold(t, e, m[0]) && sl_nb_hold(t, e, m[1]) && !sl_nb_hold(t, e, m[2]),
	      "two held, the third refused (hold 2)");
	rte_pktmbuf_free(m[2]);
	CHECK(sl_nb_stats(t)->held == 2 && sl_nb_stats(t)->hold_drops == 1, "held 2, dropped 1");

	/* confirmed: reachable, the held packets handed back */
	static const uint8_t mac[6] = { 2, 0, 0, 0, 0, 9 };
	struct rte_mbuf *out[SL_NB_HOLD_MAX];
	unsigned n = sl_nb_confirm(t, e, mac, t0 + 10 * ms, out);
	CHECK(n == 2 && out[0] == m[0] && out[1] == m[1], "confirm hands back 2 packets in order");
	rte_pktmbuf_free_bulk(out, n);
	CHECK(e->state == SL_NB_REACHABLE && memcmp(e->mac, mac, 6) == 0, "reachable, its MAC");
	CHECK(!sl_nb_use(t, e, t0 + 20 * ms), "a reachable entry is not probed on use");

	/* reachable for 1 s, then stale; a use probes once per retrans */
	age_all(t, t0 + 1009 * ms, &s);
	CHECK(e->state == SL_NB_REACHABLE, "still reachable before 1 s");
	age_all(t, t0 + 1011 * ms, &s);
	CHECK(e->state == SL_NB_STALE, "stale after 1 s");
	CHECK(sl_nb_use(t, e, t0 + 1100 * ms), "a stale entry's use asks for a probe");
	CHECK(!sl_nb_use(t, e, t0 + 1150 * ms), "not again within retrans");
	CHECK(sl_nb_use(t, e, t0 + 1201 * ms), "again after retrans");

	/* removed 1 s + 2 s after its confirmation */
	age_all(t, t0 + 3009 * ms, &s);
	CHECK(sl_nb_find(t, 0xc6120202) != NULL, "kept until reachable + stale");
	age_all(t, t0 + 3011 * ms, &s);
	CHECK(sl_nb_find(t, 0xc6120202) == NULL && sl_nb_count(t) == 0 &&
	      sl_nb_stats(t)->removed_aged == 1, "aged out after reachable + stale");
	CHECK(s.probes == 0 && s.fails == 0, "no probe or failure from aging a confirmed entry");
	sl_nb_table_free(t);
}

static void test_failure(void)
{
	struct sl_nb_table *t = table(16, 4);
	struct seen s = { 0 };
	uint64_t t0 = 5000 * ms;
	if (t == NULL)
		return;
	struct sl_nb *e = sl_nb_create(t, 0x0a000001, 0, t0);
	struct rte_mbuf *m[2];
	CHECK(rte_pktmbuf_alloc_bulk(pool, m, 2) == 0, "mbufs");
	sl_nb_hold(t, e, m[0]);
	sl_nb_hold(t, e, m[1]);
	/* the caller sent request 1; aging sends 2 and 3, one retrans apart */
	age_all(t, t0 + 50 * ms, &s);
	CHECK(s.probes == 0, "no request before retrans");
	age_all(t, t0 + 101 * ms, &s);
	age_all(t, t0 + 202 * ms, &s);
	CHECK(s.probes == 2 && s.last_probe == 0x0a000001, "requests 2 and 3: %u", s.probes);
	age_all(t, t0 + 303 * ms, &s);
	CHECK(s.fails == 2 && sl_nb_count(t) == 0 && sl_nb_stats(t)->removed_failed == 1,
	      "after 3 requests: failed, its 2 packets handed to fail");
	sl_nb_table_free(t);
}

static void test_capacity(void)
{
	struct sl_nb_table *t = table(4, 1);
	uint64_t t0 = 9000 * ms;
	static const uint8_t mac[6] = { 2, 0, 0, 0, 0, 1 };
	struct rte_mbuf *out[SL_NB_HOLD_MAX];
	if (t == NULL)
		return;
	struct sl_nb *a = sl_nb_create(t, 1, 0, t0);
	struct sl_nb *b = sl_nb_create(t, 2, 0, t0 + 1);
	sl_nb_create(t, 3, 0, t0 + 2);
	sl_nb_create(t, 4, 0, t0 + 3);
	sl_nb_confirm(t, b, mac, t0 + 4, out);           /* 2 confirmed */
	struct rte_mbuf *m;
	CHECK(rte_pktmbuf_alloc_bulk(pool, &m, 1) == 0, "mbuf");
	sl_nb_hold(t, a, m);                              /* freed when a is evicted */
	/* full: the oldest incomplete (1) goes, then 3, then 4; 2 stays */
	CHECK(sl_nb_create(t, 5, 0, t0 + 5) != NULL && sl_nb_find(t, 1) == NULL,
	      "the oldest incomplete evicted");
	CHECK(sl_nb_create(t, 6, 0, t0 + 6) != NULL && sl_nb_find(t, 3) == NULL, "then the next");
	CHECK(sl_nb_create(t, 7, 0, t0 + 7) != NULL && sl_nb_find(t, 4) == NULL, "then the next");
	CHECK(sl_nb_find(t, 2) == b && b->state == SL_NB_REACHABLE, "the confirmed entry stays");
	CHECK(sl_nb_stats(t)->evicted == 3 && sl_nb_stats(t)->hold_drops == 1,
	      "3 evicted, the held packet dropped");
	/* a flood of 1000 unknown neighbours: the table stays at 4, 2 stays */
	for (uint32_t a2 = 100; a2 < 1100; a2++)
		sl_nb_create(t, a2, 0, t0 + a2);
	CHECK(sl_nb_count(t) == 4 && sl_nb_find(t, 2) == b, "a flood: 4 entries, 2 kept");
	/* every entry confirmed: nothing to evict, nothing created */
	for (uint32_t a2 = 1097; a2 < 1100; a2++)
		sl_nb_confirm(t, sl_nb_find(t, a2), mac, t0 + 2000, out);
	CHECK(sl_nb_create(t, 5000, 0, t0 + 3000) == NULL && sl_nb_stats(t)->full == 1,
	      "full of confirmed entries: none created, counted");
	sl_nb_table_free(t);
}

static void test_pass_budget(void)
{
	struct sl_nb_table *t = table(1024, 0);
	struct seen s = { 0 };
	static const uint8_t mac[6] = { 2, 0, 0, 0, 0, 1 };
	struct rte_mbuf *out[SL_NB_HOLD_MAX];
	uint64_t t0 = 20000 * ms;
	if (t == NULL)
		return;
	for (uint32_t a = 1; a <= 1024; a++)
		sl_nb_confirm(t, sl_nb_create(t, a, 0, t0), mac, t0, out);
	/* what the router does: a budget per ms covering the table in
	 * SL_NB_PASS_MS calls */
	unsigned budget = (sl_nb_buckets(t) + SL_NB_PASS_MS - 1) / SL_NB_PASS_MS;
	const struct sl_nb_ops ops = { .probe = on_probe, .fail = on_fail, .arg = &s };
	uint64_t end = t0 + 3000 * ms + 1;   /* past reachable + stale */
	for (unsigned k = 0; k < SL_NB_PASS_MS; k++)
		sl_nb_age(t, end, budget, &ops);   /* one pass: reachable -> stale */
	unsigned stale = 0;
	for (uint32_t a = 1; a <= 1024; a++)
		stale += sl_nb_find(t, a) != NULL && sl_nb_find(t, a)->state == SL_NB_STALE;
	CHECK(stale == 1024, "one pass of SL_NB_PASS_MS budgets visits all: %u stale", stale);
	for (unsigned k = 0; k < SL_NB_PASS_MS; k++)
		sl_nb_age(t, end, budget, &ops);
	CHECK(sl_nb_count(t) == 0 && sl_nb_stats(t)->removed_aged == 1024,
	      "all 1024 gone within SL_NB_PASS_MS budgets of the pass after: %u left",
	      sl_nb_count(t));
	sl_nb_table_free(t);
}

static int setup(void)
{
	int rc = sl_test_eal_pool("tneigh", 256, N_MBUFS, &pool);
	ms = rte_get_tsc_hz() / 1000;
	return rc;
}

static void teardown(void)
{
	sl_test_eal_end(pool, N_MBUFS);
}

static const struct sl_test_case cases[] = {
	SL_CASE(test_lifecycle),
	SL_CASE(test_failure),
	SL_CASE(test_capacity),
	SL_CASE(test_pass_budget),
};

int main(int argc, char **argv)
{
	return sl_test_main_fixture(argc, argv, cases, SL_NCASES(cases), setup, teardown);
}
