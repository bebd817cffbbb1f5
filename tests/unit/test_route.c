/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Route tables (apps/router/route.h) on a real EAL (--no-huge): prefix parsing and
 * its messages, longest-prefix match (/0 default, /32 hosts, /25 inside a
 * /24), misses, repeated prefixes, tables of many routes longer than /24, the
 * registry by name, and route hints on mbufs (set, get, another table's,
 * clear, a fresh mbuf has none).
 *
 * Then the router app (apps/router/router.c), built by hand with its links: init's
 * messages for bad routes, a hint that overrides the lookup (and is cleared),
 * another table's hint ignored, and headers split over mbuf segments at every
 * offset, which must leave exactly the bytes of the one-segment case.  The
 * golden end-to-end test is tests/integration/test_router.sh.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "runtime/app.h"
#include "apps/router/route.h"

#include "check.h"

static struct rte_mempool *pool;

static uint32_t ip(unsigned a, unsigned b, unsigned c, unsigned d)
{
	return (uint32_t)a << 24 | b << 16 | c << 8 | d;
}

static struct sl_route R(uint32_t prefix, uint8_t depth, uint16_t output)
{
	struct sl_route r = { .prefix = prefix, .depth = depth };
	r.nh.output = output;
	return r;
}

static void expect_lookup(const struct sl_route_table *t, uint32_t dst, int want)
{
	int got = sl_route_lookup(t, dst);
	CHECK(got == want, "%s: %u.%u.%u.%u -> %d, want %d", sl_route_table_name(t), dst >> 24,
	      (dst >> 16) & 0xff, (dst >> 8) & 0xff, dst & 0xff, got, want);
}

static void test_parse(void)
{
	static const char *const bad[] = {
		"", "10", "10.0.0.0", "10.0.0/8", "10.0.0.0/", "10.0.0.0/33", "256.0.0.0/8",
		"10.0.0.0/8x", "010.0.0.0/8", "10.0.0.0/08", "-1.0.0.0/8", "10..0.0/8",
		"10.0.0.0.0/8", " 10.0.0.0/8", "10.0.0.0/8 ", "1000.0.0.0/8", "0x0a.0.0.0/8",
	};
	struct sl_err err;
	uint32_t p, a;
	uint8_t d;
	int rc;

	rc = sl_route_parse_prefix("10.1.0.0/16", &p, &d, &err);
	CHECK(rc == 0 && p == ip(10, 1, 0, 0) && d == 16, "10.1.0.0/16: rc %d p %#x d %u", rc,
	      p, d);
	rc = sl_route_parse_prefix("0.0.0.0/0", &p, &d, &err);
	CHECK(rc == 0 && p == 0 && d == 0, "0.0.0.0/0: rc %d", rc);
	rc = sl_route_parse_prefix("255.255.255.255/32", &p, &d, &err);
	CHECK(rc == 0 && p == 0xffffffffu && d == 32, "/32: rc %d", rc);
	rc = sl_route_parse_prefix("192.168.1.128/25", &p, &d, &err);
	CHECK(rc == 0 && p == ip(192, 168, 1, 128) && d == 25, "/25: rc %d", rc);

	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char want[128];
		snprintf(want, sizeof(want), "prefix '%s' is not A.B.C.D/N with N in 0..32",
			 bad[i]);
		err.msg[0] = '\0';
		rc = sl_route_parse_prefix(bad[i], &p, &d, &err);
		CHECK(rc == -EINVAL && strcmp(err.msg, want) == 0, "'%s': rc %d, '%s'", bad[i],
		      rc, err.msg);
	}
	rc = sl_route_parse_prefix("10.1.2.3/8", &p, &d, &err);
	CHECK(rc == -EINVAL && strcmp(err.msg, "prefix '10.1.2.3/8' has host bits set "
				      "(10.0.0.0/8 would keep them zero)") == 0,
	      "host bits: rc %d, '%s'", rc, err.msg);
	rc = sl_route_parse_prefix("1.0.0.0/0", &p, &d, &err);
	CHECK(rc == -EINVAL && strcmp(err.msg, "prefix '1.0.0.0/0' has host bits set "
				      "(0.0.0.0/0 would keep them zero)") == 0,
	      "host bits /0: rc %d, '%s'", rc, err.msg);

	rc = sl_route_parse_addr("192.0.2.1", &a, &err);
	CHECK(rc == 0 && a == ip(192, 0, 2, 1), "address: rc %d %#x", rc, a);
	rc = sl_route_parse_addr("192.0.2.1/32", &a, &err);
	CHECK(rc == -EINVAL && strcmp(err.msg, "address '192.0.2.1/32' is not an IPv4 address "
				      "A.B.C.D") == 0, "address with a length: '%s'", err.msg);
	rc = sl_route_parse_addr("gw", &a, &err);
	CHECK(rc == -EINVAL, "address 'gw': rc %d", rc);
}

static void test_lookup(void)
{
	struct sl_route routes[] = {
		R(ip(10, 0, 0, 0), 8, 0),
		R(ip(10, 1, 0, 0), 16, 1),
		R(ip(10, 1, 2, 0), 24, 2),
		R(ip(10, 1, 2, 3), 32, 3),
		R(ip(10, 1, 2, 128), 25, 4),
		R(0, 0, 5),
	};
	struct sl_err err = { "" };
	struct sl_route_table *t;

	routes[3].nh.gateway = ip(192, 0, 2, 1);
	routes[3].nh.set_dmac = true;
	memcpy(routes[3].nh.dmac, "\x02\x00\x00\x00\x00\x33", 6);
	t = sl_route_table_create("lpm", routes, 6, SOCKET_ID_ANY, &err);
	CHECK(t != NULL, "create: %s", err.msg);
	if (t == NULL)
		return;
	CHECK(sl_route_n_nh(t) == 6, "n_nh %u", sl_route_n_nh(t));
	CHECK(strcmp(sl_route_table_name(t), "lpm") == 0, "name %s", sl_route_table_name(t));
	expect_lookup(t, ip(10, 9, 9, 9), 0);
	expect_lookup(t, ip(10, 1, 9, 9), 1);
	expect_lookup(t, ip(10, 1, 2, 9), 2);
	expect_lookup(t, ip(10, 1, 2, 3), 3);
	expect_lookup(t, ip(10, 1, 2, 4), 2);
	expect_lookup(t, ip(10, 1, 2, 200), 4);
	expect_lookup(t, ip(10, 1, 2, 127), 2);
	expect_lookup(t, ip(11, 0, 0, 1), 5);
	expect_lookup(t, 0, 5);
	expect_lookup(t, 0xffffffffu, 5);

	const struct sl_route_nh *nh = sl_route_nh(t, 3);
	CHECK(nh->output == 3 && nh->gateway == ip(192, 0, 2, 1) && nh->set_dmac &&
	      !nh->set_smac && nh->dmac[5] == 0x33, "next hop 3 kept its fields");
	sl_route_table_free(t);

	/* Without a default route, misses are -1. */
	t = sl_route_table_create("nodef", routes, 5, SOCKET_ID_ANY, &err);
	CHECK(t != NULL, "create nodef: %s", err.msg);
	if (t == NULL)
		return;
	expect_lookup(t, ip(11, 0, 0, 1), -1);
	expect_lookup(t, ip(9, 255, 255, 255), -1);
	expect_lookup(t, ip(10, 0, 0, 0), 0);
	sl_route_table_free(t);

	/* One host route. */
	struct sl_route host = R(ip(192, 0, 2, 7), 32, 0);
	t = sl_route_table_create("host", &host, 1, SOCKET_ID_ANY, &err);
	CHECK(t != NULL, "create host: %s", err.msg);
	if (t == NULL)
		return;
	expect_lookup(t, ip(192, 0, 2, 7), 0);
	expect_lookup(t, ip(192, 0, 2, 6), -1);
	expect_lookup(t, ip(192, 0, 2, 8), -1);
	sl_route_table_free(t);
	sl_route_table_free(NULL);
}

/* Equal next hops share an index, in the order of their first route; MACs
 * that are not written do not count; the default route shares too. */
static void test_shared_next_hops(void)
{
	struct sl_route routes[] = {
		R(ip(10, 0, 0, 0), 8, 1),
		R(ip(10, 1, 0, 0), 16, 2),
		R(ip(10, 2, 0, 0), 16, 1),    /* = route 0 */
		R(ip(10, 3, 0, 0), 16, 1),    /* output 1, new dmac */
		R(ip(10, 4, 0, 0), 16, 1),    /* = route 3 */
		R(ip(10, 5, 0, 0), 16, 1),    /* dmac bytes set but not written: = route 0 */
		R(0, 0, 2),                   /* = route 1 */
	};
	routes[3].nh.set_dmac = routes[4].nh.set_dmac = true;
	memcpy(routes[3].nh.dmac, "\x02\x00\x00\x00\x00\x07", 6);
	memcpy(routes[4].nh.dmac, "\x02\x00\x00\x00\x00\x07", 6);
	memcpy(routes[5].nh.dmac, "\x02\x00\x00\x00\x00\x09", 6);
	struct sl_err err = { "" };
	struct sl_route_table *t = sl_route_table_create("share", routes, 7, SOCKET_ID_ANY, &err);
	CHECK(t != NULL, "create: %s", err.msg);
	if (t == NULL)
		return;
	CHECK(sl_route_n_nh(t) == 3, "3 distinct next hops, got %u", sl_route_n_nh(t));
	expect_lookup(t, ip(10, 9, 0, 1), 0);
	expect_lookup(t, ip(10, 1, 0, 1), 1);
	expect_lookup(t, ip(10, 2, 0, 1), 0);
	expect_lookup(t, ip(10, 3, 0, 1), 2);
	expect_lookup(t, ip(10, 4, 0, 1), 2);
	expect_lookup(t, ip(10, 5, 0, 1), 0);
	expect_lookup(t, ip(11, 0, 0, 1), 1);
	const struct sl_route_nh *h = sl_route_nh(t, 2);
	CHECK(h->output == 1 && h->set_dmac && h->dmac[5] == 7, "next hop 2 is route 3's");
	CHECK(sl_route_nh(t, 1)->output == 2 && !sl_route_nh(t, 0)->set_dmac, "next hops 0 and 1");
	CHECK(sl_route_head(t)->has_fast, "routes with a dst_mac: a next hop for the fast path");
	sl_route_table_free(t);
}

static void test_many_deep(void)
{
	enum { N = 600 };
	static struct sl_route routes[N];
	struct sl_err err = { "" };
	struct sl_route_table *t;
	int wrong = 0;

	/* Every route longer than /24, each in a /24 of its own: one tbl8 group
	 * apiece. */
	for (unsigned i = 0; i < N; i++)
		routes[i] = R(ip(172, 16 + i / 256, i % 256, 64), i % 2 ? 32 : 26, (uint16_t)i);
	t = sl_route_table_create("deep", routes, N, SOCKET_ID_ANY, &err);
	CHECK(t != NULL, "create %u deep routes: %s", N, err.msg);
	if (t == NULL)
		return;
	for (unsigned i = 0; i < N; i++) {
		if (sl_route_lookup(t, routes[i].prefix) != (int)i)
			wrong++;
		if (sl_route_lookup(t, routes[i].prefix + 1) != (i % 2 ? -1 : (int)i))
			wrong++;
		if (sl_route_lookup(t, routes[i].prefix - 1) != -1)
			wrong++;
	}
	CHECK(wrong == 0, "%d wrong lookups among %u deep routes", wrong, N);
	CHECK(!sl_route_head(t)->has_fast, "no route with a dst_mac or a gateway: none for the fast path");
	{
		/* a gateway's route: the fast path may take it (its neighbour's
		 * MAC); a connected prefix's alone: not (a neighbour a packet) */
		struct sl_route gw[2] = { R(ip(10, 9, 0, 0), 16, 0), R(ip(198, 18, 1, 0), 24, 0) };
		gw[0].nh.kind = SL_NH_GATEWAY;
		gw[0].nh.gateway = ip(198, 18, 1, 2);
		gw[1].nh.kind = SL_NH_CONNECTED;
		struct sl_route_table *g = sl_route_table_create("gw", gw, 2, SOCKET_ID_ANY, &err);
		struct sl_route_table *c = sl_route_table_create("conn", gw + 1, 1, SOCKET_ID_ANY, &err);
		CHECK(g != NULL && sl_route_head(g)->has_fast, "a gateway's route: for the fast path");
		CHECK(c != NULL && !sl_route_head(c)->has_fast, "a connected prefix alone: not");
		sl_route_table_free(g);
		sl_route_table_free(c);
	}

	/* The bulk lookup agrees with the single one: each route's address,
	 * the next one and the one before, in bursts of 256 and a short last
	 * one, with a default route added. */
	struct sl_route with_def[N + 1];
	memcpy(with_def, routes, sizeof(routes));
	with_def[N] = R(0, 0, N);
	struct sl_route_table *d = sl_route_table_create("deepdef", with_def, N + 1,
							 SOCKET_ID_ANY, &err);
	CHECK(d != NULL, "create %u deep routes and a default: %s", N + 1, err.msg);
	for (unsigned pass = 0; pass < 2; pass++) {
		const struct sl_route_table *tt = pass == 0 ? t : d;
		if (tt == NULL)
			continue;
		enum { M = 3 * N };
		static uint32_t dst[M];
		static int got[M];
		for (unsigned i = 0; i < N; i++) {
			dst[3 * i] = routes[i].prefix;
			dst[3 * i + 1] = routes[i].prefix + 1;
			dst[3 * i + 2] = routes[i].prefix - 1;
		}
		for (unsigned at = 0; at < M; at += SL_ROUTE_BULK_MAX)
			sl_route_lookup_bulk(tt, dst + at, got + at,
					     M - at < SL_ROUTE_BULK_MAX ? M - at : SL_ROUTE_BULK_MAX);
		wrong = 0;
		for (unsigned i = 0; i < M; i++)
			wrong += got[i] != sl_route_lookup(tt, dst[i]);
		CHECK(wrong == 0, "%d of %u bulk lookups differ from single ones (%s)", wrong,
		      (unsigned)M, pass == 0 ? "no default" : "with a default route");
		CHECK(pass == 0 || got[2] == N, "an address outside every route found %d, not the "
		      "default route %u", got[2], (unsigned)N);
	}
	sl_route_table_free(d);
	sl_route_table_free(t);
}

static void test_errors(void)
{
	struct sl_route routes[] = {
		R(ip(10, 0, 0, 0), 8, 0),
		R(ip(10, 0, 0, 0), 16, 1),
		R(ip(10, 0, 0, 0), 8, 2),
		R(ip(10, 1, 0, 0), 16, 3),
		R(ip(10, 1, 0, 0), 16, 4),
		R(ip(10, 0, 0, 0), 8, 5),
	};
	struct sl_err err = { "" };
	unsigned first = 99, again = 99;
	int rc;

	rc = sl_route_find_repeat(routes, 6, &first, &again);
	CHECK(rc == -EEXIST && first == 0 && again == 2, "repeat: rc %d, %u and %u", rc, first,
	      again);
	rc = sl_route_find_repeat(routes + 1, 5, &first, &again);
	CHECK(rc == -EEXIST && first == 2 && again == 3, "repeat from 1: rc %d, %u and %u", rc,
	      first, again);
	rc = sl_route_find_repeat(routes, 2, &first, &again);
	CHECK(rc == 0, "no repeat in 2: rc %d", rc);
	rc = sl_route_find_repeat(routes, 1, &first, &again);
	CHECK(rc == 0, "no repeat in 1: rc %d", rc);

	errno = 0;
	CHECK(sl_route_table_create("dup", routes, 6, SOCKET_ID_ANY, &err) == NULL &&
	      errno == EEXIST, "a repeated prefix is refused with EEXIST (errno %d)", errno);
	CHECK(strcmp(err.msg, "route table 'dup': route 2 repeats route 0 (10.0.0.0/8)") == 0,
	      "message: '%s'", err.msg);
	/* no routes (a router with IPv6 routes only): every lookup misses */
	struct sl_route_table *none = sl_route_table_create("none", routes, 0, SOCKET_ID_ANY, &err);
	CHECK(none != NULL, "an empty table: %s", err.msg);
	if (none != NULL) {
		CHECK(sl_route_lookup(none, ip(10, 1, 2, 3)) == -1, "an empty table has no route");
		sl_route_table_free(none);
	}
	struct sl_route host_bits = R(ip(10, 0, 0, 1), 8, 0);
	errno = 0;
	CHECK(sl_route_table_create("hb", &host_bits, 1, SOCKET_ID_ANY, &err) == NULL &&
	      errno == EINVAL &&
	      strcmp(err.msg, "route table 'hb': route 0 (10.0.0.1/8) is not a prefix with "
		     "host bits zero") == 0, "host bits: errno %d, '%s'", errno, err.msg);
	/* DPDK's LPM refuses a socket below -1 (rte_errno EINVAL): the table
	 * fails with that errno, not with 0. */
	errno = 0;
	CHECK(sl_route_table_create("sock", routes, 1, -5, &err) == NULL && errno == EINVAL &&
	      strstr(err.msg, "route table 'sock': cannot create an LPM of 1 routes: ") ==
	      err.msg, "bad socket: errno %d, '%s'", errno, err.msg);
}

static void test_registry(void)
{
	struct sl_route r = R(0, 0, 0);
	struct sl_err err = { "" };
	struct sl_route_table *a = sl_route_table_create("r1", &r, 1, SOCKET_ID_ANY, &err);
	struct sl_route_table *b = sl_route_table_create("r2", &r, 1, SOCKET_ID_ANY, &err);
	struct sl_route_table *a2 = sl_route_table_create("r1", &r, 1, SOCKET_ID_ANY, &err);

	CHECK(a != NULL && b != NULL && a2 != NULL, "create: %s", err.msg);
	if (a == NULL || b == NULL || a2 == NULL)
		return;
	CHECK(sl_route_table_find("r1") == NULL, "nothing registered yet");
	CHECK(sl_route_table_register(a, &err) == 0, "register r1: %s", err.msg);
	CHECK(sl_route_table_register(b, &err) == 0, "register r2: %s", err.msg);
	CHECK(sl_route_table_register(a, &err) == 0, "registering twice is a no-op");
	CHECK(sl_route_table_find("r1") == a && sl_route_table_find("r2") == b, "find");
	CHECK(sl_route_table_find("r3") == NULL, "find r3");
	CHECK(sl_route_table_register(a2, &err) == -EEXIST &&
	      strcmp(err.msg, "route table 'r1' is already registered") == 0,
	      "second r1: '%s'", err.msg);
	sl_route_table_free(a);
	CHECK(sl_route_table_find("r1") == NULL, "free unregisters r1");
	CHECK(sl_route_table_find("r2") == b, "r2 stays");
	CHECK(sl_route_table_register(a2, &err) == 0, "r1 again after the first is freed: %s",
	      err.msg);
	CHECK(sl_route_table_find("r1") == a2, "find the new r1");
	sl_route_table_free(b);
	sl_route_table_free(a2);
	CHECK(sl_route_table_find("r1") == NULL && sl_route_table_find("r2") == NULL,
	      "registry empty");
}

static void test_hints(void)
{
	const uint32_t D = ip(10, 1, 2, 3);   /* the destination hinted for */
	struct sl_route routes[] = { R(ip(10, 0, 0, 0), 8, 0), R(0, 0, 1) };
	struct sl_err err = { "" };
	struct sl_route_table *t = sl_route_table_create("h1", routes, 2, SOCKET_ID_ANY, &err);
	struct sl_route_table *u = sl_route_table_create("h2", routes, 2, SOCKET_ID_ANY, &err);
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);

	CHECK(t != NULL && u != NULL && m != NULL, "setup: %s", err.msg);
	if (t == NULL || u == NULL || m == NULL)
		goto out;
	/* Before registration nothing is stored or read. */
	sl_route_hint_set(m, t, 1, D);
	CHECK(sl_route_hint_get(m, t, D) == -1, "unregistered: no hint");
	CHECK(sl_route_hint_register(&err) == 0, "register: %s", err.msg);
	CHECK(sl_route_hint_register(&err) == 0, "register again: %s", err.msg);
	CHECK(sl_route_hint_get(m, t, D) == -1, "a fresh mbuf has no hint");
	CHECK(sl_route_hint_get(m, u, D) == -1, "a fresh mbuf has no hint");
	sl_route_hint_set(m, t, 1, D);
	CHECK(sl_route_hint_get(m, t, D) == 1, "hint 1: got %d", sl_route_hint_get(m, t, D));
	CHECK(sl_route_hint_get(m, u, D) == -1, "another table sees no hint");
	sl_route_hint_set(m, t, 0, D);
	CHECK(sl_route_hint_get(m, t, D) == 0, "hint 0: got %d", sl_route_hint_get(m, t, D));
	sl_route_hint_set(m, u, 1, D);
	CHECK(sl_route_hint_get(m, u, D) == 1 && sl_route_hint_get(m, t, D) == -1,
	      "the last table's hint replaces the first's");
	sl_route_hint_clear(m);
	CHECK(sl_route_hint_get(m, u, D) == -1 && sl_route_hint_get(m, t, D) == -1, "cleared");
	sl_route_hint_set(m, t, 1, D);
	sl_route_hint_set(m, t, -1, D);
	CHECK(sl_route_hint_get(m, t, D) == -1, "nh -1 clears");
	sl_route_hint_set(m, t, 1, D);
	sl_route_hint_set(m, t, 2, D);
	CHECK(sl_route_hint_get(m, t, D) == -1, "a next hop out of range clears");
	/* A hint holds only for the destination it was made for. */
	sl_route_hint_set(m, t, 1, D);
	CHECK(sl_route_hint_get(m, t, D + 1) == -1, "a hint for another destination is used");
	CHECK(sl_route_hint_get(m, t, D) == 1, "the destination's own hint is lost");
	/* The hint travels with the mbuf: copies carry it. */
	sl_route_hint_set(m, t, 1, D);
	CHECK(rte_pktmbuf_append(m, 60) != NULL, "append");
	struct rte_mbuf *c = rte_pktmbuf_copy(m, pool, 0, UINT32_MAX);
	CHECK(c != NULL && sl_route_hint_get(c, t, D) == 1, "a copy keeps the hint");
	rte_pktmbuf_free(c);
out:
	rte_pktmbuf_free(m);
	sl_route_table_free(t);
	sl_route_table_free(u);
}

/* --- the router app --- */

struct route_row {
	const char *prefix, *via;
	unsigned output;
	const char *dmac, *smac;    /* NULL: not given */
};

struct rig {
	struct sl_app app;
	struct sl_link in, out[2];
	struct sl_param_value param[16]; /* the router's, routes first; defaults */
};

static void mac_of(const char *text, uint8_t *mac)
{
	unsigned b[6];
	if (sscanf(text, "%x:%x:%x:%x:%x:%x", &b[0], &b[1], &b[2], &b[3], &b[4], &b[5]) == 6)
		for (int i = 0; i < 6; i++)
			mac[i] = (uint8_t)b[i];
}

static void link_init(struct sl_link *l)
{
	memset(l, 0, sizeof(*l));
	l->mask = 63;
	l->slots = calloc(64, sizeof(void *));
}

/* A router named name with rows[0..n) and n_out outputs, not yet inited. */
static bool rig_make(struct rig *r, const char *name, const struct route_row *rows, unsigned n,
		     unsigned n_out)
{
	const struct sl_app_type *t = sl_app_type_find("router");

	memset(r, 0, sizeof(*r));
	if (t == NULL) {
		CHECK(0, "no app type 'router'");
		return false;
	}
	r->app.type = t;
	r->app.name = name;
	r->app.burst = 32;
	r->app.pool = pool;
	r->app.socket = SOCKET_ID_ANY;
	r->app.priv = calloc(1, t->priv_size);
	r->app.params = r->param;
	unsigned missing;
	struct sl_err derr;
	CHECK(t->n_params <= 16 && t->params[0].type == SL_PARAM_TABLE, "router params");
	/* routes (0) has no default: set, the others get theirs */
	r->param[0].set = true;
	CHECK(sl_param_defaults(t->params, t->n_params, r->param, &missing, &derr) == 0,
	      "router defaults: %s", derr.msg);
	r->param[0].n_rows = n;
	r->param[0].n_fields = 5;
	r->param[0].rows = calloc(n, sizeof(*r->param[0].rows));
	for (unsigned i = 0; i < n; i++) {
		struct sl_param_value *v = calloc(5, sizeof(*v));
		char where[32];
		snprintf(where, sizeof(where), "t.yaml:%u:9", 10 + i);
		v[0].s = strdup(rows[i].prefix);
		v[0].set = true;
		v[1].s = strdup(rows[i].via != NULL ? rows[i].via : "none");
		v[1].set = rows[i].via != NULL;
		v[2].u = rows[i].output;
		v[2].set = true;
		if (rows[i].dmac != NULL) {
			mac_of(rows[i].dmac, v[3].mac);
			v[3].set = true;
		}
		if (rows[i].smac != NULL) {
			mac_of(rows[i].smac, v[4].mac);
			v[4].set = true;
		}
		r->param[0].rows[i].v = v;
		r->param[0].rows[i].where = strdup(where);
	}
	link_init(&r->in);
	r->app.in[0] = &r->in;
	r->app.n_in = 1;
	for (unsigned o = 0; o < n_out; o++) {
		link_init(&r->out[o]);
		r->app.out[o] = &r->out[o];
	}
	r->app.n_out = n_out;
	return true;
}

static void rig_free(struct rig *r)
{
	if (r->app.type != NULL && r->app.type->fini != NULL)
		r->app.type->fini(&r->app);
	for (unsigned i = 0; i < r->app.type->n_params; i++)
		sl_param_value_free(&r->param[i]);
	free(r->app.priv);
	free(r->in.slots);
	free(r->out[0].slots);
	free(r->out[1].slots);
}

static int rig_init(struct rig *r, struct sl_err *err)
{
	err->msg[0] = '\0';
	return r->app.type->init(&r->app, err);
}

/* Everything on output o, removed from the link. */
static unsigned rig_take(struct rig *r, unsigned o, struct rte_mbuf **p, unsigned max)
{
	return sl_link_receive(&r->out[o], p, max);
}

static uint16_t csum16(const uint8_t *b, unsigned len)
{
	uint32_t s = 0;
	for (unsigned i = 0; i + 1 < len; i += 2)
		s += (uint32_t)b[i] << 8 | b[i + 1];
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)~s;
}

/* The first 60 bytes of m, whatever its segments, into out. */
static bool frame_read(const struct rte_mbuf *m, uint8_t out[60])
{
	const uint8_t *d = rte_pktmbuf_read(m, 0, 60, out);
	if (d != NULL && d != out)
		memcpy(out, d, 60);
	return d != NULL;
}

/* A 60-byte Ethernet/IPv4/UDP frame to dst with ttl, checksum correct. */
static void udp_frame(uint8_t *f, uint32_t dst, uint8_t ttl)
{
	static const uint8_t head[14] = { 2, 0, 0, 0, 0, 0xaa, 2, 0, 0, 0, 0, 0xbb, 8, 0 };
	memset(f, 0, 60);
	memcpy(f, head, 14);
	uint8_t *h = f + 14;
	h[0] = 0x45;
	h[3] = 28;
	h[4] = 0x12;
	h[5] = 0x34;
	h[8] = ttl;
	h[9] = 17;
	h[12] = 198, h[13] = 51, h[14] = 100, h[15] = 1;
	h[16] = (uint8_t)(dst >> 24), h[17] = (uint8_t)(dst >> 16);
	h[18] = (uint8_t)(dst >> 8), h[19] = (uint8_t)dst;
	uint16_t c = csum16(h, 20);
	h[10] = (uint8_t)(c >> 8);
	h[11] = (uint8_t)c;
	h[20] = 0x30, h[21] = 0x39, h[22] = 0, h[23] = 53, h[25] = 8;
}

static struct rte_mbuf *mbuf_split(const uint8_t *b, unsigned len, unsigned cut)
{
	struct rte_mbuf *a = rte_pktmbuf_alloc(pool), *c = rte_pktmbuf_alloc(pool);
	if (a == NULL || c == NULL) {
		rte_pktmbuf_free(a);
		rte_pktmbuf_free(c);
		return NULL;
	}
	memcpy(rte_pktmbuf_append(a, (uint16_t)cut), b, cut);
	if (cut == len) {
		rte_pktmbuf_free(c);
		return a;
	}
	memcpy(rte_pktmbuf_append(c, (uint16_t)(len - cut)), b + cut, len - cut);
	rte_pktmbuf_chain(a, c);
	return a;
}

static void test_router_init_errors(void)
{
	static const struct {
		struct route_row rows[3];
		unsigned n;
		const char *msg;
	} cases[] = {
		{ { { "10.1.0.0/16", NULL, 0, NULL, NULL },
		    { "10.1.0/24", NULL, 1, NULL, NULL } }, 2,
		  "t.yaml:11:9: routes[1]: prefix '10.1.0/24' is not A.B.C.D/N with N in 0..32" },
		{ { { "10.1.2.3/24", NULL, 0, NULL, NULL } }, 1,
		  "t.yaml:10:9: routes[0]: prefix '10.1.2.3/24' has host bits set "
		  "(10.1.2.0/24 would keep them zero)" },
		{ { { "10.1.0.0/16", NULL, 0, NULL, NULL },
		    { "10.2.0.0/16", NULL, 3, NULL, NULL } }, 2,
		  "t.yaml:11:9: routes[1]: output 3 is not connected (outputs 0..1 are)" },
		{ { { "10.1.0.0/16", NULL, 0, NULL, NULL },
		    { "10.2.0.0/16", NULL, 1, NULL, NULL },
		    { "10.1.0.0/16", NULL, 1, NULL, NULL } }, 3,
		  "t.yaml:12:9: routes[2]: prefix 10.1.0.0/16 repeats routes[0] (t.yaml:10:9)" },
		{ { { "10.1.0.0/16", "10.1.0.256", 0, NULL, NULL } }, 1,
		  "t.yaml:10:9: routes[0]: via: address '10.1.0.256' is not an IPv4 address "
		  "A.B.C.D" },
	};
	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct rig r;
		struct sl_err err;
		if (!rig_make(&r, "rt_bad", cases[i].rows, cases[i].n, 2))
			return;
		int rc = rig_init(&r, &err);
		CHECK(rc < 0 && strcmp(err.msg, cases[i].msg) == 0, "case %u: rc %d, '%s'", i, rc,
		      err.msg);
		CHECK(sl_route_table_find("rt_bad") == NULL, "case %u: nothing registered", i);
		rig_free(&r);   /* fini after a failed init */
	}

	/* One output connected: the message says so. */
	struct route_row one[] = { { "0.0.0.0/0", NULL, 1, NULL, NULL } };
	struct rig r;
	struct sl_err err;
	if (!rig_make(&r, "rt_one", one, 1, 1))
		return;
	CHECK(rig_init(&r, &err) < 0 && strcmp(err.msg, "t.yaml:10:9: routes[0]: output 1 is "
					       "not connected (only output 0 is)") == 0,
	      "one output: '%s'", err.msg);
	rig_free(&r);
}

static void test_router_hints(void)
{
	static const struct route_row rows[] = {
		{ "10.1.0.0/16", NULL, 0, "02:00:00:00:01:01", "02:00:00:00:01:00" },
		{ "10.2.0.0/16", "10.0.0.254", 1, "02:00:00:00:02:01", NULL },
	};
	struct rig r, other;
	struct sl_err err;
	struct rte_mbuf *p[8];
	uint8_t f[60];

	if (!rig_make(&r, "rt_h", rows, 2, 2) || !rig_make(&other, "rt_o", rows, 2, 2))
		return;
	CHECK(rig_init(&r, &err) == 0, "init: %s", err.msg);
	CHECK(rig_init(&other, &err) == 0, "init other: %s", err.msg);
	const struct sl_route_table *t = sl_route_table_find("rt_h");
	const struct sl_route_table *u = sl_route_table_find("rt_o");
	CHECK(t != NULL && u != NULL, "both tables registered");
	if (t == NULL || u == NULL)
		goto out;

	/* Three packets to 10.1.0.9: no hint, a hint for next hop 1 (output
	 * 1, though the lookup says 0), a hint for the other router's table. */
	for (unsigned i = 0; i < 3; i++) {
		udp_frame(f, ip(10, 1, 0, 9), 64);
		p[i] = mbuf_split(f, 60, 60);
	}
	sl_route_hint_set(p[1], t, 1, ip(10, 1, 0, 9));
	sl_route_hint_set(p[2], u, 1, ip(10, 1, 0, 9));
	sl_link_transmit(&r.in, p, 3);
	r.app.type->push(&r.app);

	unsigned n0 = rig_take(&r, 0, p, 8);
	unsigned n1 = rig_take(&r, 1, p + 4, 4);
	CHECK(n0 == 2 && n1 == 1, "outputs got %u and %u, want 2 and 1", n0, n1);
	if (n0 == 2 && n1 == 1) {
		const uint8_t *a = rte_pktmbuf_mtod(p[4], const uint8_t *);
		CHECK(a[5] == 0x01 && a[4] == 0x02 && a[11] == 0xbb,
		      "hinted packet: next hop 1's dst_mac, source kept");
		CHECK(sl_route_hint_get(p[4], t, ip(10, 1, 0, 9)) == -1, "the router cleared the hint it used");
		CHECK(sl_route_hint_get(p[1], u, ip(10, 1, 0, 9)) == 1, "another table's hint is left alone");
		for (unsigned i = 0; i < 2; i++) {
			const uint8_t *b = rte_pktmbuf_mtod(p[i], const uint8_t *);
			CHECK(b[5] == 0x01 && b[4] == 0x01 && b[11] == 0x00 && b[10] == 0x01,
			      "packet %u: next hop 0's MACs", i);
		}
		for (unsigned i = 0; i < 5; i++) {
			if (i == 2 || i == 3)
				continue;
			const uint8_t *h = rte_pktmbuf_mtod_offset(p[i], const uint8_t *, 14);
			CHECK(h[8] == 63 && csum16(h, 20) == 0, "packet %u: ttl %u, checksum %s",
			      i, h[8], csum16(h, 20) == 0 ? "right" : "wrong");
		}
	}
	rte_pktmbuf_free_bulk(p, n0);
	rte_pktmbuf_free_bulk(p + 4, n1);

	/* Drops: TTL 1, no route; both counted as the app's drops. */
	udp_frame(f, ip(10, 1, 0, 9), 1);
	p[0] = mbuf_split(f, 60, 60);
	udp_frame(f, ip(10, 3, 0, 9), 9);
	p[1] = mbuf_split(f, 60, 60);
	sl_link_transmit(&r.in, p, 2);
	r.app.type->push(&r.app);
	CHECK(r.app.stats.drops == 2 && sl_link_count(&r.out[0]) == 0 &&
	      sl_link_count(&r.out[1]) == 0, "drops %lu", (unsigned long)r.app.stats.drops);
out:
	rig_free(&r);
	rig_free(&other);
	CHECK(sl_route_table_find("rt_h") == NULL && sl_route_table_find("rt_o") == NULL,
	      "fini unregisters");
}

/* Route one frame cut at cut through r; the 60 bytes that come out (false
 * if nothing does). */
static bool route_split(struct rig *r, unsigned cut, uint8_t *out)
{
	uint8_t f[60];
	struct rte_mbuf *m;

	udp_frame(f, ip(10, 1, 7, 7), 200);
	m = mbuf_split(f, 60, cut);
	if (m == NULL)
		return false;
	sl_link_transmit(&r->in, &m, 1);
	r->app.type->push(&r->app);
	if (rig_take(r, 0, &m, 1) != 1)
		return false;
	bool got = frame_read(m, out);
	rte_pktmbuf_free(m);
	return got;
}

/* Headers split at every offset: the same bytes out as from one segment. */
static void test_router_segments(void)
{
	static const struct route_row rows[] = {
		{ "10.1.0.0/16", NULL, 0, "02:00:00:00:01:01", "02:00:00:00:01:00" },
	};
	struct rig r;
	struct sl_err err;
	uint8_t want[60], got[60];
	unsigned bad = 0;

	if (!rig_make(&r, "rt_seg", rows, 1, 1))
		return;
	CHECK(rig_init(&r, &err) == 0, "init: %s", err.msg);
	CHECK(route_split(&r, 60, want), "one segment: nothing out");
	CHECK(want[14 + 8] == 199 && csum16(want + 14, 20) == 0 && want[5] == 0x01 &&
	      want[11] == 0x00, "one segment: ttl %u, checksum %#x", want[14 + 8],
	      csum16(want + 14, 20));
	for (unsigned cut = 1; cut < 60; cut++) {
		if (!route_split(&r, cut, got) || memcmp(got, want, 60) != 0) {
			if (bad++ == 0)
				CHECK(0, "cut at %u: not the one-segment bytes", cut);
		}
	}
	CHECK(bad == 0, "%u of 59 split frames differ", bad);
	rig_free(&r);
}

/* The app's own counter `name` (its type's), or UINT64_MAX. */
static uint64_t app_ctr(const struct sl_app *a, const char *name)
{
	for (unsigned i = 0; i < a->type->n_counters; i++)
		if (strcmp(a->type->counters[i].name, name) == 0)
			return a->ctr[i];
	return UINT64_MAX;
}

/* TTL and checksum on both paths, for every checksum a header can carry:
 * frames that differ in their IPv4 id only (so their checksums run through
 * every value), each routed whole (the fast path's one 32-bit update) and
 * cut inside its IPv4 header (the full path, RFC 1624 by
 * sl_csum_replace16); both must give the same bytes, TTL - 1 and a header
 * that sums right.  The values 0xfeff..0xffff of the checksum are where
 * the fast path's update adds its second 1. */
static void test_router_checksums(void)
{
	static const struct route_row rows[] = {
		{ "10.1.0.0/16", NULL, 0, "02:00:00:00:01:01", "02:00:00:00:01:00" },
	};
	struct rig r;
	struct sl_err err;
	struct rte_mbuf *p[32];
	uint8_t f[60], fast[60], full[60];
	unsigned bad = 0, wrapped = 0;

	if (!rig_make(&r, "rt_ck", rows, 1, 1))
		return;
	CHECK(rig_init(&r, &err) == 0, "init: %s", err.msg);
	for (uint32_t id = 0; id <= 0xffff; id++) {
		udp_frame(f, ip(10, 1, 2, 3), 64);
		f[14 + 4] = (uint8_t)(id >> 8);
		f[14 + 5] = (uint8_t)id;
		f[14 + 10] = f[14 + 11] = 0;
		uint16_t ck = csum16(f + 14, 20);
		f[14 + 10] = (uint8_t)(ck >> 8);
		f[14 + 11] = (uint8_t)ck;
		wrapped += ck >= 0xfeff;
		p[0] = mbuf_split(f, 60, 60);    /* whole: the fast path */
		p[1] = mbuf_split(f, 60, 14 + 9); /* cut before the checksum: the full path */
		if (p[0] == NULL || p[1] == NULL) {
			CHECK(0, "id %u: no mbufs", id);
			rte_pktmbuf_free(p[0]);
			rte_pktmbuf_free(p[1]);
			break;
		}
		sl_link_transmit(&r.in, p, 2);
		r.app.type->push(&r.app);
		if (rig_take(&r, 0, p, 2) != 2) {
			CHECK(0, "id %u: not both frames out", id);
			break;
		}
		bool read = frame_read(p[0], fast) && frame_read(p[1], full);
		rte_pktmbuf_free_bulk(p, 2);
		if (!read || memcmp(fast, full, 60) != 0 || fast[14 + 8] != 63 || csum16(fast + 14, 20) != 0) {
			if (bad++ == 0)
				CHECK(0, "id %#x (checksum %#x): fast ttl %u sum %#x, full ttl %u sum %#x",
				      id, ck, fast[14 + 8], csum16(fast + 14, 20), full[14 + 8],
				      csum16(full + 14, 20));
		}
	}
	CHECK(bad == 0, "%u of 65536 frames wrong", bad);
	CHECK(wrapped > 0, "no checksum at or above 0xfeff among the frames");
	CHECK(app_ctr(&r.app, "fast") == 65536, "fast path: %lu of 65536 frames, want all",
	      (unsigned long)app_ctr(&r.app, "fast"));
	CHECK(app_ctr(&r.app, "forwarded") == 2 * 65536, "forwarded %lu, want 131072",
	      (unsigned long)app_ctr(&r.app, "forwarded"));
	rig_free(&r);
}

static int setup(void)
{
	char prefix[32];
	snprintf(prefix, sizeof(prefix), "troute%d", (int)getpid());
	char *argv[] = { "test_route", "--no-huge", "-m", "512", "--no-pci", "--file-prefix",
			 prefix, "--log-level", "lib.eal:error", "-l", "0", NULL };
	if (rte_eal_init(11, argv) < 0) {
		printf("SKIP: cannot initialise DPDK's EAL\n");
		return 77;
	}
	pool = rte_pktmbuf_pool_create("troute", 63, 0, 0, 2048 + RTE_PKTMBUF_HEADROOM,
				       SOCKET_ID_ANY);
	if (pool == NULL) {
		printf("FAIL: cannot create a pool\n");
		return 1;
	}
	return 0;
}

static void teardown(void)
{
	CHECK(rte_mempool_avail_count(pool) == 63, "%u of 63 mbufs back",
	      rte_mempool_avail_count(pool));
	rte_mempool_free(pool);
	rte_eal_cleanup();
}

static const struct sl_test_case cases[] = {
	SL_CASE(test_parse),
	SL_CASE(test_lookup),
	SL_CASE(test_shared_next_hops),
	SL_CASE(test_many_deep),
	SL_CASE(test_errors),
	SL_CASE(test_registry),
	SL_CASE(test_hints),
	SL_CASE(test_router_init_errors),
	SL_CASE(test_router_hints),
	SL_CASE(test_router_segments),
	SL_CASE(test_router_checksums),
};

int main(int argc, char **argv)
{
	return sl_test_main_fixture(argc, argv, cases, SL_NCASES(cases), setup, teardown);
}
