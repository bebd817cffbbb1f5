/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The flow table under concurrent readers and writers: four worker threads
 * share one table (a handle each); the keys they use are a window twice the
 * table's capacity that slides as they go,
 * so that lookups, inserts, insert races, evictions (capacity and full
 * buckets), idle expiry and flushes run at once on every bucket.  Each
 * thread holds the entries it found across further operations of its breath
 * and checks that their keys never change under it (an id reused before the
 * grace period would show as a different key; under ThreadSanitizer, as a
 * race).  Workers sometimes go offline for a moment.  At the end, after the
 * epoch is synchronized and drained and the handles closed: no entry is
 * live, every id is back, every inserted entry was unlinked exactly once and
 * freed exactly once.  Run for the immediate and batch policies (qsbr is the
 * same table code over DPDK's defer queue; test_flowtable covers it), each
 * with the incremental scan and with the timer wheel (where evictions by one
 * worker take entries out of another worker's wheel).  With the scan, one
 * worker changes the idle timeout now and then, as a reload does (every
 * scan then reads all its entries once, beside the others' inserts).
 */
#include <pthread.h>
#include <stdio.h>

#include "base/rand.h"
#include "epoch/epoch.h"
#include "apps/flowcache/flowtable.h"

#include "check.h"

#define NT 4u
#define KEYS 1024u
#define CAPACITY 512u
#define OPS_PER_BREATH 32u
#define HOLD 4u

static struct sl_flowtable *table;
static struct sl_epoch *ep;
static uint64_t clock_ns;          /* the shared fake clock */
static unsigned breaths_per_thread;
static bool retime;                /* scan mode: worker 0 changes the timeout */

struct worker {
	pthread_t th;
	unsigned k;
	struct sl_ft_handle *h;
	struct sl_epoch_worker *ew;
	uint64_t records;
	uint64_t checks_done;
	uint64_t rng;
};

static struct worker workers[NT];

static void on_record(const struct sl_flow_record *r, void *arg)
{
	struct worker *w = arg;
	(void)r;
	w->records++;
}

static struct sl_flow_key key_of(unsigned i)
{
	struct sl_flow_key k;
	sl_flow_key_zero(&k);
	k.family = 4;
	k.proto = 6;
	k.sport = (uint16_t)i;
	k.vlan = 0;
	k.dport = (uint16_t)(i >> 16);
	k.src[0] = 198;
	k.src[1] = 18;
	k.src[2] = (uint8_t)(i >> 8);
	k.src[3] = (uint8_t)i;
	return k;
}

static void *run(void *arg)
{
	struct worker *w = arg;
	struct sl_flow_entry *held[HOLD];
	struct sl_flow_key held_key[HOLD];

	sl_epoch_online(w->ew);
	for (unsigned b = 0; b < breaths_per_thread; b++) {
		unsigned n_held = 0;
		uint64_t now = __atomic_add_fetch(&clock_ns, 10, __ATOMIC_RELAXED);
		for (unsigned op = 0; op < OPS_PER_BREATH; op++) {
			/* a window of KEYS keys sliding by two per breath: keys
			 * left behind go idle, the window overfills capacity */
			unsigned i = 2 * b + (unsigned)(sl_rand64(&w->rng) % KEYS);
			struct sl_flow_key k = key_of(i);
			uint32_t hash = sl_flow_key_hash(&k);
			struct sl_flow_entry *e = sl_ft_lookup(table, &k, hash);
			if (e == NULL) {
				enum sl_ft_insert_status st;
				e = sl_ft_insert(w->h, &k, hash, now, i, &st);
			}
			if (e == NULL)
				continue;
			sl_ft_touch(e, 100, now);
			if (n_held < HOLD) {
				held[n_held] = e;
				held_key[n_held++] = k;
			}
		}
		for (unsigned j = 0; j < n_held; j++) {
			CHECK(sl_flow_key_eq(&held[j]->key, &held_key[j]) &&
			      sl_ft_entry_cookie(table, held[j]) == ((uint64_t)held_key[j].dport << 16 | held_key[j].sport),
			      "worker %u: an entry changed before the grace period ended", w->k);
			w->checks_done++;
		}
		/* a reload's new timeout, now and then: every scan then reads
		 * all its entries once, beside the other workers' inserts */
		if (retime && w->k == 0 && b % 2048 == 2047)
			sl_ft_set_expiry(table, b % 4096 == 4095 ? 4000 : 3000, 0, 8);
		sl_ft_expire(w->h, now);
		if (b % 4096 == 4095)
			while (sl_ft_flush(w->h, 64) > 0)
				;
		sl_epoch_reclaim(ep, w->ew, 64);
		sl_epoch_quiesce(ep, w->ew);
		if (b % 1000 == 999) {
			sl_epoch_offline(w->ew);
			sched_yield();
			sl_epoch_online(w->ew);
		}
	}
	sl_epoch_offline(w->ew);
	return NULL;
}

static void run_policy(enum sl_epoch_policy p, enum sl_ft_expiry mode)
{
	char pn[32];
	snprintf(pn, sizeof(pn), "%s/%s", sl_epoch_policy_name(p),
		 mode == SL_FT_WHEEL ? "wheel" : "scan");
	struct sl_err err = { "" };
	struct sl_epoch_conf ec = { .name = "fts", .n_workers = NT, .policy = p };
	ep = sl_epoch_create(&ec, &err);
	CHECK(ep != NULL, "epoch: %s", err.msg);
	struct sl_flowtable_conf fc = { .name = "stress", .capacity = CAPACITY, .idle_ns = 4000,
					.expiry_cap = 8, .n_handles = NT, .socket = -1,
					.expiry = mode };
	table = sl_ft_create(&fc, &err);
	CHECK(table != NULL, "table: %s", err.msg);
	retime = mode == SL_FT_SCAN;
	if (ep == NULL || table == NULL)
		return;
	for (unsigned k = 0; k < NT; k++) {
		struct worker *w = &workers[k];
		*w = (struct worker){ .k = k, .rng = 0x9e3779b97f4a7c15ull * (k + 1) };
		w->ew = sl_epoch_worker(ep, k);
		w->h = sl_ft_open(table, k, ep, w->ew, on_record, w, &err);
		CHECK(w->h != NULL, "open %u: %s", k, err.msg);
	}
	for (unsigned k = 0; k < NT; k++)
		pthread_create(&workers[k].th, NULL, run, &workers[k]);
	/* read metrics meanwhile, as the stats line does */
	for (unsigned r = 0; r < 100; r++) {
		struct sl_ft_stats s;
		sl_ft_handle_stats(workers[r % NT].h, &s);
		CHECK(s.live <= CAPACITY + NT, "%s: live %lu over capacity", pn, (unsigned long)s.live);
		sched_yield();
	}
	for (unsigned k = 0; k < NT; k++)
		pthread_join(workers[k].th, NULL);

	CHECK(sl_ft_live(table) <= CAPACITY, "%s: %lu live after the run, capacity %u", pn,
	      (unsigned long)sl_ft_live(table), CAPACITY);
	sl_epoch_synchronize(ep);
	sl_epoch_drain(ep);
	uint64_t inserted = 0, unlinked = 0, freed = 0, records = 0, races = 0, evicted = 0, idle = 0;
	uint64_t held_checks = 0;
	for (unsigned k = 0; k < NT; k++)
		sl_ft_close(workers[k].h);
	for (unsigned k = 0; k < NT; k++) {
		struct sl_ft_stats s;
		sl_ft_handle_stats(workers[k].h, &s);
		inserted += s.inserted;
		races += s.insert_races;
		for (unsigned r = 0; r < SL_FT_REASONS; r++)
			unlinked += s.unlinked[r];
		evicted += s.unlinked[SL_FT_EVICTED];
		idle += s.unlinked[SL_FT_IDLE];
		freed += s.freed;
		records += workers[k].records;
		held_checks += workers[k].checks_done;
	}
	CHECK(sl_ft_live(table) == 0, "%s: live %lu at the end", pn, (unsigned long)sl_ft_live(table));
	CHECK(sl_ft_ids_free(table) == sl_ft_conf(table)->ids, "%s: ids %u of %u", pn,
	      sl_ft_ids_free(table), sl_ft_conf(table)->ids);
	CHECK(inserted == unlinked && unlinked == freed && records == unlinked,
	      "%s: inserted %lu unlinked %lu freed %lu records %lu", pn, (unsigned long)inserted,
	      (unsigned long)unlinked, (unsigned long)freed, (unsigned long)records);
	CHECK(evicted > 0 && idle > 0, "%s: the run did not evict (%lu) and expire (%lu)", pn,
	      (unsigned long)evicted, (unsigned long)idle);
	printf("%s: %u threads, inserted %lu (races %lu), evicted %lu, idle %lu, "
	       "held-entry checks %lu\n", pn, NT, (unsigned long)inserted, (unsigned long)races,
	       (unsigned long)evicted, (unsigned long)idle, (unsigned long)held_checks);
	sl_ft_free(table);
	sl_epoch_free(ep);
}

int main(void)
{
#if defined(__SANITIZE_THREAD__)
	breaths_per_thread = 5000;    /* ThreadSanitizer runs ~10x slower */
#else
	breaths_per_thread = 40000;
#endif
	run_policy(SL_EPOCH_IMMEDIATE, SL_FT_SCAN);
	run_policy(SL_EPOCH_BATCH, SL_FT_SCAN);
	run_policy(SL_EPOCH_IMMEDIATE, SL_FT_WHEEL);
	run_policy(SL_EPOCH_BATCH, SL_FT_WHEEL);
	printf("%d checks, %d failures\n", checks, failures);
	return failures ? 1 : 0;
}
