/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The MAC table under concurrent readers and writers: four worker threads
 * share one table and learn a window of addresses on random members, so
 * that learns, races for one key, moves (entries replaced and retired),
 * full buckets and a full table, and aging (each thread sweeping its share
 * of the buckets on a shared clock that runs fast) happen at once on every
 * bucket.  Each thread holds the entries it looked up for the rest of its
 * breath and checks that their key and member never change under it (an
 * entry reused before the grace period would show it; under
 * ThreadSanitizer, as a race).  At the end, after the epoch is drained:
 * every entry the table counts as live is in a way, the per-member counts
 * add up, and learned + moved entries are live or freed, none twice.
 */
#include <pthread.h>
#include <stdio.h>

#include "base/rand.h"
#include "epoch/epoch.h"
#include "apps/bridge/mactable.h"

#include "check.h"

#define NT 4u
#define KEYS 2048u
#define CAPACITY 1024u
#define MEMBERS 6u
#define OPS_PER_BREATH 32u
#define HOLD 8u

static struct sl_mt *table;
static struct sl_epoch *ep;
static uint64_t clock_ns;          /* the shared fake clock */
static unsigned breaths_per_thread;

struct worker {
	pthread_t th;
	unsigned k;
	struct sl_epoch_worker *ew;
	struct sl_mt_sweep sweep;
	uint64_t made, moved, aged, checks;
	uint64_t rng;
};

static struct worker workers[NT];

static uint64_t key_of(unsigned i)
{
	const uint8_t mac[6] = { 0x02, 0, 0, 0, (uint8_t)(i >> 8), (uint8_t)i };
	return sl_mt_key((uint16_t)(1 + i % 3), mac);
}

static void *run(void *arg)
{
	struct worker *w = arg;
	const struct sl_mt_entry *held[HOLD];
	uint64_t held_key[HOLD];
	uint16_t held_member[HOLD];
	sl_epoch_online(w->ew);
	for (unsigned b = 0; b < breaths_per_thread; b++) {
		sl_epoch_quiesce(ep, w->ew);
		sl_epoch_reclaim(ep, w->ew, 256);
		unsigned n_held = 0;
		/* the window of keys slides with the breaths */
		unsigned base = (b * 7) % KEYS;
		uint64_t now = __atomic_add_fetch(&clock_ns, 50000, __ATOMIC_RELAXED);
		for (unsigned op = 0; op < OPS_PER_BREATH; op++) {
			uint64_t r = sl_rand64(&w->rng);
			uint64_t key = key_of((base + (unsigned)(r % (KEYS / 2))) % KEYS);
			uint32_t h = sl_mt_hash(key);
			if ((r >> 20) % 3 == 0) {
				enum sl_mt_learn res = sl_mt_learn(table, ep, w->ew, key, h,
								   (unsigned)((r >> 32) % MEMBERS), now);
				w->made += res == SL_MT_LEARNED || res == SL_MT_MOVED;
				w->moved += res == SL_MT_MOVED;
			} else {
				const struct sl_mt_entry *e = sl_mt_lookup(table, key, h);
				if (e != NULL) {
					CHECK(e->key == key, "lookup returned another key");
					if (n_held < HOLD) {
						held[n_held] = e;
						held_key[n_held] = e->key;
						held_member[n_held] = e->member;
						n_held++;
					}
				}
			}
			for (unsigned i = 0; i < n_held; i++) {
				CHECK(held[i]->key == held_key[i] && held[i]->member == held_member[i],
				      "an entry held within the breath changed");
				w->checks++;
			}
		}
		w->aged += sl_mt_age(table, &w->sweep, ep, w->ew, now, 16, NULL);
		if (b % 97 == 0) {   /* a moment offline, as a napping worker */
			sl_epoch_offline(w->ew);
			sl_epoch_online(w->ew);
		}
	}
	sl_epoch_offline(w->ew);
	return NULL;
}

static void run_policy(enum sl_epoch_policy policy)
{
	struct sl_err err = { "" };
	struct sl_epoch_conf ec = { .name = "mts", .n_workers = NT, .ring_size = 1024,
				    .policy = policy };
	ep = sl_epoch_create(&ec, &err);
	CHECK(ep != NULL, "epoch: %s", err.msg);
	/* aging 20 ms on a clock that moves 50 us per breath per thread */
	struct sl_mt_conf c = { .name = "stress", .capacity = CAPACITY, .member_limit = 0,
				.aging_ns = 20000000, .socket = -1 };
	table = sl_mt_create(&c, &err);
	CHECK(table != NULL, "table: %s", err.msg);
	if (ep == NULL || table == NULL)
		return;
	clock_ns = 0;
	for (unsigned i = 0; i < NT; i++) {
		workers[i] = (struct worker){ .k = i, .ew = sl_epoch_worker(ep, i),
					      .rng = 0x9e3779b97f4a7c15ull * (i + 1) };
		sl_mt_sweep_init(table, &workers[i].sweep, i, NT, 0);
	}
	for (unsigned i = 0; i < NT; i++)
		pthread_create(&workers[i].th, NULL, run, &workers[i]);
	uint64_t made = 0, aged = 0, checks = 0, moved = 0;
	for (unsigned i = 0; i < NT; i++) {
		pthread_join(workers[i].th, NULL);
		made += workers[i].made;
		aged += workers[i].aged;
		checks += workers[i].checks;
		moved += workers[i].moved;
	}
	sl_epoch_drain(ep);
	struct sl_mt_stats s;
	sl_mt_stats(table, &s);
	uint64_t linked = 0, per_member = 0;
	for (uint32_t id = 1; id <= CAPACITY; id++) {
		struct sl_mt_entry e;
		if (sl_mt_entry_read(table, id, &e)) {
			linked++;
			CHECK(sl_mt_lookup(table, e.key, sl_mt_hash(e.key)) != NULL,
			      "a linked entry is not found by its key");
		}
	}
	for (unsigned m = 0; m < SL_MT_MEMBERS; m++)
		per_member += s.member_entries[m];
	CHECK(linked == s.entries && per_member == s.entries, "linked %llu, entries %llu, per member %llu",
	      (unsigned long long)linked, (unsigned long long)s.entries,
	      (unsigned long long)per_member);
	/* every entry made is live, or was replaced by a move or aged, and
	 * then freed once */
	CHECK(made == s.entries + s.freed, "made %llu = live %llu + freed %llu",
	      (unsigned long long)made, (unsigned long long)s.entries, (unsigned long long)s.freed);
	CHECK(s.freed == moved + aged, "freed %llu = moved %llu + aged %llu",
	      (unsigned long long)s.freed, (unsigned long long)moved, (unsigned long long)aged);
	CHECK(moved > 0 && aged > 0 && checks > 0, "moves %llu, aged %llu, checks %llu",
	      (unsigned long long)moved, (unsigned long long)aged, (unsigned long long)checks);
	printf("policy %s: made %llu, moved %llu, aged %llu, live %llu, held-entry checks %llu\n",
	       sl_epoch_policy_name(policy), (unsigned long long)made, (unsigned long long)moved,
	       (unsigned long long)aged, (unsigned long long)s.entries, (unsigned long long)checks);
	sl_mt_free(table);
	sl_epoch_free(ep);
}

static void test_immediate(void)
{
	run_policy(SL_EPOCH_IMMEDIATE);
}

static void test_batch(void)
{
	run_policy(SL_EPOCH_BATCH);
}

static const struct sl_test_case cases[] = {
	SL_CASE(test_immediate), SL_CASE(test_batch),
};

int main(int argc, char **argv)
{
	breaths_per_thread = 50000;
	return sl_test_main(argc, argv, cases, SL_NCASES(cases));
}
