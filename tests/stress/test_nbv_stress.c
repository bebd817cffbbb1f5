/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The router's neighbour-table view (apps/router/neigh_view.h) under load:
 * one worker thread changes a neighbour table all the time (creates
 * entries, confirms them, ages them out) and serves copies at every turn,
 * as the router's tick does; two readers ask for copies and check each row
 * they get.  Every confirmed entry's MAC is derived from its address and
 * its interface is the address's parity, so a torn copy (a row half of one
 * entry, half of another) shows as a mismatch; under ThreadSanitizer, the
 * view's lock and atomics are checked too.  At the end every read was
 * answered and the worker never waited (it only tries the lock).
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>

#include "apps/router/neigh.h"
#include "apps/router/neigh_view.h"

#include "eal_fixture.h"

#define N_READERS 2u
#define READS 300u       /* per reader */
#define N_ADDRS 256u

static _Atomic unsigned readers_left;
static _Atomic unsigned long served;
static char names[2][SL_NBV_IFNAME] = { "even", "odd" };

struct shared {
	struct sl_nb_table *t;
	struct sl_nbv *v;
};

static void mac_of(uint32_t a, uint8_t mac[6])
{
	mac[0] = 0x02;
	mac[1] = 0x5e;
	mac[2] = (uint8_t)(a >> 24);
	mac[3] = (uint8_t)(a >> 16);
	mac[4] = (uint8_t)(a >> 8);
	mac[5] = (uint8_t)a;
}

static void on_probe(void *arg, const struct sl_nb *e)
{
	(void)arg;
	(void)e;
}

static void on_fail(void *arg, const struct sl_nb *e, struct rte_mbuf *m)
{
	(void)arg;
	(void)e;
	(void)m;
}

/* The router's side: change the table, serve copies, until every reader
 * is done. */
static void *worker(void *arg)
{
	struct shared *s = arg;
	const struct sl_nb_ops ops = { .probe = on_probe, .fail = on_fail, .arg = NULL };
	uint64_t now = rte_rdtsc(), ms = rte_get_tsc_hz() / 1000;
	struct rte_mbuf *out[SL_NB_HOLD_MAX];
	unsigned turn = 0;
	while (atomic_load(&readers_left) > 0) {
		uint32_t a = 0xc6120000u + (turn * 37u) % N_ADDRS;
		struct sl_nb *e = sl_nb_find(s->t, a);
		if (e == NULL)
			e = sl_nb_create(s->t, a, (uint8_t)(a & 1), now);
		if (e != NULL && turn % 3 != 0) {
			uint8_t mac[6];
			mac_of(a, mac);
			sl_nb_confirm(s->t, e, mac, now, out);
		}
		now += ms / 4;   /* entries live 1 s + 1 s: about 2000 turns */
		sl_nb_age(s->t, now, sl_nb_buckets(s->t), &ops);
		sl_nbv_serve(s->v, s->t);
		turn++;
	}
	return NULL;
}

static void check_row(const struct sl_table_row *r, unsigned reader)
{
	unsigned b[4];
	CHECK(sscanf(r->s[0], "%u.%u.%u.%u", &b[0], &b[1], &b[2], &b[3]) == 4,
	      "reader %u: address '%s'", reader, r->s[0]);
	uint32_t a = b[0] << 24 | b[1] << 16 | b[2] << 8 | b[3];
	CHECK(strcmp(r->s[3], names[a & 1]) == 0, "reader %u: %s on interface '%s'", reader,
	      r->s[0], r->s[3]);
	if (strcmp(r->s[2], "incomplete") == 0) {
		CHECK(strcmp(r->s[1], "-") == 0, "reader %u: incomplete %s has mac %s", reader,
		      r->s[0], r->s[1]);
		return;
	}
	CHECK(strcmp(r->s[2], "reachable") == 0 || strcmp(r->s[2], "stale") == 0,
	      "reader %u: state '%s'", reader, r->s[2]);
	uint8_t mac[6];
	char want[SL_TABLE_STR];
	mac_of(a, mac);
	snprintf(want, sizeof(want), "%02x:%02x:%02x:%02x:%02x:%02x", mac[0], mac[1], mac[2],
		 mac[3], mac[4], mac[5]);
	CHECK(strcmp(r->s[1], want) == 0, "reader %u: %s has mac %s, not %s (a torn copy)",
	      reader, r->s[0], r->s[1], want);
}

static void *reader(void *arg)
{
	struct shared *s = arg;
	static struct sl_table_row rows[N_READERS][N_ADDRS];
	static _Atomic unsigned next_id;
	unsigned id = atomic_fetch_add(&next_id, 1);
	for (unsigned i = 0; i < READS; i++) {
		struct sl_err err;
		unsigned filled;
		int n = sl_nbv_read(s->v, 0, rows[id], N_ADDRS, &filled, &err);
		CHECK(n >= 0, "reader %u: read %u: %s", id, i, err.msg);
		CHECK((unsigned)n == filled && filled <= N_ADDRS, "reader %u: %d rows, %u filled",
		      id, n, filled);
		for (unsigned r = 0; r < filled; r++)
			check_row(&rows[id][r], id);
		atomic_fetch_add(&served, 1);
	}
	atomic_fetch_sub(&readers_left, 1);
	return NULL;
}

static void test_view_under_load(void)
{
	struct sl_nb_conf c = { .max = N_ADDRS, .hold = 4, .reachable_ns = 1000000000,
				.stale_ns = 1000000000, .retrans_ns = 100000000, .probes = 3,
				.socket = SOCKET_ID_ANY };
	struct sl_err err;
	struct shared s = { .t = sl_nb_table_create(&c, &err) };
	CHECK(s.t != NULL, "table: %s", err.msg);
	s.v = sl_nbv_create(N_ADDRS, (const char (*)[SL_NBV_IFNAME])names, &err);
	CHECK(s.v != NULL, "view: %s", err.msg);
	atomic_store(&readers_left, N_READERS);
	pthread_t th[N_READERS + 1];
	CHECK(pthread_create(&th[0], NULL, worker, &s) == 0, "worker thread");
	for (unsigned i = 1; i <= N_READERS; i++)
		CHECK(pthread_create(&th[i], NULL, reader, &s) == 0, "reader thread");
	for (unsigned i = 0; i <= N_READERS; i++)
		pthread_join(th[i], NULL);
	CHECK(atomic_load(&served) == N_READERS * READS, "%lu of %u reads answered",
	      atomic_load(&served), N_READERS * READS);
	printf("  %u readers x %u copies of a table changing under them, every row whole\n",
	       N_READERS, READS);
	sl_nbv_free(s.v);
	sl_nb_table_free(s.t);
}

static int setup(void)
{
	return sl_test_eal("tnbv", 128);
}

static void teardown(void)
{
	sl_test_eal_end(NULL, 0);
}

static const struct sl_test_case cases[] = {
	SL_CASE(test_view_under_load),
};

int main(int argc, char **argv)
{
	return sl_test_main_fixture(argc, argv, cases, SL_NCASES(cases), setup, teardown);
}
