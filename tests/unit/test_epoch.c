/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Epoch reclamation on one thread, workers simulated by their handles: when
 * an object is freed under each policy (exact breath counts), offline
 * workers, the cap, the full retire list, retiring n at once, the metrics, the laggard check,
 * drain, the barrier (a second thread waits in it), and the creation
 * errors.  The qsbr policy runs on a --no-huge EAL
 * (skipped, with the reason, if that cannot start).
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rte_eal.h>

#include "epoch/epoch.h"

#include "check.h"

static unsigned n_freed;

static void count_free(void *obj, void *arg)
{
	(void)obj;
	unsigned *c = arg;
	(*c)++;
	n_freed++;
}

static struct sl_epoch *make(enum sl_epoch_policy p, unsigned n, unsigned ring)
{
	struct sl_err err = { "" };
	struct sl_epoch_conf c = { .name = "t", .n_workers = n, .ring_size = ring, .policy = p };
	struct sl_epoch *e = sl_epoch_create(&c, &err);
	CHECK(e != NULL, "create %s: %s", sl_epoch_policy_name(p), err.msg);
	return e;
}

/* quiesce + reclaim, as a breath does */
static unsigned breathe(struct sl_epoch *e, struct sl_epoch_worker *w, unsigned cap)
{
	sl_epoch_quiesce(e, w);
	return sl_epoch_reclaim(e, w, cap);
}

static void check_stats_add_up(struct sl_epoch *e)
{
	struct sl_epoch_stats s;
	CHECK(sl_epoch_stats(e, -1, &s) == 0, "stats");
	CHECK(s.retired == s.freed + s.backlog, "retired %lu != freed %lu + backlog %lu",
	      (unsigned long)s.retired, (unsigned long)s.freed, (unsigned long)s.backlog);
	CHECK(s.backlog_hwm >= s.backlog, "hwm %lu < backlog %lu",
	      (unsigned long)s.backlog_hwm, (unsigned long)s.backlog);
}

/* Immediate and qsbr: one worker frees at its first breath after the retire;
 * not in the breath of the retire. */
static void test_single(enum sl_epoch_policy p)
{
	struct sl_epoch *e = make(p, 1, 0);
	if (e == NULL)
		return;
	struct sl_epoch_worker *w = sl_epoch_worker(e, 0);
	unsigned c = 0;
	sl_epoch_online(w);
	sl_epoch_quiesce(e, w);                     /* breath 1 */
	CHECK(sl_epoch_retire(e, w, &c, count_free, &c) == 0, "retire");
	CHECK(sl_epoch_reclaim(e, w, 16) == 0 && c == 0, "%s: freed in the retiring breath",
	      sl_epoch_policy_name(p));
	CHECK(breathe(e, w, 16) == 1 && c == 1, "%s: not freed at the next breath (c=%u)",
	      sl_epoch_policy_name(p), c);
	CHECK(breathe(e, w, 16) == 0 && c == 1, "freed twice");
	const struct sl_hist *hb = sl_epoch_hist(e, 0, SL_EPOCH_HIST_FREE_BREATHS);
	CHECK(sl_hist_count(hb) == 1 && sl_hist_max(hb) == 1,
	      "latency in breaths: count %lu max %lu", (unsigned long)sl_hist_count(hb),
	      (unsigned long)sl_hist_max(hb));
	CHECK(sl_hist_count(sl_epoch_hist(e, 0, SL_EPOCH_HIST_FREE_NS)) == 1, "ns histogram");
	check_stats_add_up(e);
	sl_epoch_offline(w);
	sl_epoch_free(e);
}

/* Two workers: w0's retire waits for w1's quiescent state; offline w1 does
 * not hold it up. */
static void test_two(enum sl_epoch_policy p)
{
	struct sl_epoch *e = make(p, 2, 0);
	if (e == NULL)
		return;
	struct sl_epoch_worker *w0 = sl_epoch_worker(e, 0), *w1 = sl_epoch_worker(e, 1);
	unsigned c = 0;
	sl_epoch_online(w0);
	sl_epoch_online(w1);
	CHECK(sl_epoch_retire(e, w0, &c, count_free, &c) == 0, "retire");
	for (int i = 0; i < 5; i++)
		CHECK(breathe(e, w0, 16) == 0, "%s: freed before w1 quiesced",
		      sl_epoch_policy_name(p));
	CHECK(c == 0, "freed early");
	sl_epoch_quiesce(e, w1);
	CHECK(breathe(e, w0, 16) == 1 && c == 1, "%s: not freed once both quiesced",
	      sl_epoch_policy_name(p));

	/* w1 offline holds nothing up */
	sl_epoch_offline(w1);
	CHECK(!sl_epoch_is_online(e, 1) && sl_epoch_is_online(e, 0), "online flags");
	CHECK(sl_epoch_retire(e, w0, &c, count_free, &c) == 0, "retire");
	CHECK(breathe(e, w0, 16) == 1 && c == 2, "%s: offline worker held it up",
	      sl_epoch_policy_name(p));
	/* back online, it holds up again */
	sl_epoch_online(w1);
	CHECK(sl_epoch_retire(e, w0, &c, count_free, &c) == 0, "retire");
	CHECK(breathe(e, w0, 16) == 0, "online again: not held up");
	sl_epoch_quiesce(e, w1);
	CHECK(breathe(e, w0, 16) == 1 && c == 3, "not freed after w1 quiesced");
	/* an offline retirer's objects wait for the online ones */
	sl_epoch_offline(w0);
	CHECK(sl_epoch_retire(e, w0, &c, count_free, &c) == 0, "offline retire");
	CHECK(sl_epoch_reclaim(e, w0, 16) == 0, "offline retirer: freed before w1 quiesced");
	sl_epoch_quiesce(e, w1);
	CHECK(sl_epoch_reclaim(e, w0, 16) == 1 && c == 4, "offline retirer: not freed");
	check_stats_add_up(e);
	sl_epoch_offline(w1);
	sl_epoch_free(e);
}

/* The cap, and -ENOSPC on a full ring (the caller keeps the object). */
static void test_cap_and_full(enum sl_epoch_policy p)
{
	struct sl_epoch *e = make(p, 1, 64);
	if (e == NULL)
		return;
	struct sl_epoch_worker *w = sl_epoch_worker(e, 0);
	unsigned c = 0, ok = 0;
	sl_epoch_online(w);
	for (unsigned i = 0; i < 100; i++)
		if (sl_epoch_retire(e, w, &c, count_free, &c) == 0)
			ok++;
	CHECK(ok == 64, "%s: ring of 64 took %u", sl_epoch_policy_name(p), ok);
	CHECK(sl_epoch_retire(e, w, &c, count_free, &c) == -ENOSPC, "full: not -ENOSPC");
	struct sl_epoch_stats s;
	sl_epoch_stats(e, 0, &s);
	CHECK(s.retired == ok && s.backlog == ok && s.backlog_hwm == ok, "stats after full");
	sl_epoch_quiesce(e, w);
	CHECK(sl_epoch_reclaim(e, w, 10) == 10 && c == 10, "%s: cap 10 freed %u",
	      sl_epoch_policy_name(p), c);
	CHECK(sl_epoch_reclaim(e, w, 0) == 0, "cap 0 freed something");
	CHECK(sl_epoch_reclaim(e, w, 1000) == ok - 10 && c == ok, "rest");
	sl_epoch_stats(e, 0, &s);
	CHECK(s.freed == ok && s.backlog == 0 && s.backlog_hwm == ok, "stats after reclaim");
	check_stats_add_up(e);
	sl_epoch_offline(w);
	sl_epoch_free(e);
}

/* sl_epoch_retire_n: n objects at once, freed after the same grace as one
 * retire; all or nothing against the room.  Two workers; a ring of 64. */
static void test_retire_n(enum sl_epoch_policy p)
{
	const char *pn = sl_epoch_policy_name(p);
	struct sl_epoch *e = make(p, 2, 64);
	if (e == NULL)
		return;
	struct sl_epoch_worker *w0 = sl_epoch_worker(e, 0), *w1 = sl_epoch_worker(e, 1);
	unsigned c = 0;
	void *objs[64];
	for (unsigned i = 0; i < 64; i++)
		objs[i] = &objs[i];
	sl_epoch_online(w0);
	sl_epoch_online(w1);
	CHECK(sl_epoch_retire_n(e, w0, objs, 0, count_free, &c) == 0, "%s: n 0", pn);
	CHECK(sl_epoch_retire_n(e, w0, objs, 40, count_free, &c) == 0, "%s: 40", pn);
	CHECK(sl_epoch_retire_room(e, w0) == 24, "%s: room %u after 40 of 64", pn,
	      sl_epoch_retire_room(e, w0));
	CHECK(sl_epoch_retire_n(e, w0, objs + 40, 25, count_free, &c) == -ENOSPC,
	      "%s: 25 into a room of 24 not refused", pn);
	CHECK(sl_epoch_retire_room(e, w0) == 24, "%s: a refused retire_n took room", pn);
	struct sl_epoch_stats s;
	sl_epoch_stats(e, 0, &s);
	CHECK(s.retired == 40 && s.backlog == 40 && s.backlog_hwm == 40, "%s: retired %lu", pn,
	      (unsigned long)s.retired);
	if (p == SL_EPOCH_BATCH) {
		/* the open bag is sealed by the 64th retire: fill it */
		CHECK(sl_epoch_retire_n(e, w0, objs + 40, 24, count_free, &c) == 0, "%s: 24", pn);
		for (unsigned i = 0; i < SL_EPOCH_COLLECT_BREATHS; i++) {
			sl_epoch_quiesce(e, w1);
			breathe(e, w0, 64);
		}
		CHECK(c == 64, "%s: %u of 64 freed after the collect", pn, c);
	} else {
		for (int i = 0; i < 3; i++)
			CHECK(breathe(e, w0, 64) == 0, "%s: freed before w1 quiesced", pn);
		sl_epoch_quiesce(e, w1);
		CHECK(breathe(e, w0, 64) == 40 && c == 40, "%s: %u of 40 freed once both quiesced",
		      pn, c);
	}
	check_stats_add_up(e);
	sl_epoch_offline(w0);
	sl_epoch_offline(w1);
	sl_epoch_free(e);
}

/* Batch: nothing leaves an open bag; a sealed bag waits for the collect at
 * breath 128; a collect frees at most 8 bags. */
static void test_batch(void)
{
	struct sl_epoch *e = make(SL_EPOCH_BATCH, 1, 1024);
	struct sl_epoch_worker *w = sl_epoch_worker(e, 0);
	unsigned c = 0, freed = 0;
	sl_epoch_online(w);
	for (unsigned i = 0; i < SL_EPOCH_BAG - 1; i++)
		CHECK(sl_epoch_retire(e, w, &c, count_free, &c) == 0, "retire");
	for (unsigned b = 1; b <= 200; b++)
		freed += breathe(e, w, 1000);
	CHECK(freed == 0 && c == 0, "open bag of 63 freed %u", freed);
	CHECK(sl_epoch_retire(e, w, &c, count_free, &c) == 0, "retire 64th");
	/* breaths so far 200, last collect at 128: next at 256 */
	for (unsigned b = 201; b < 256; b++)
		freed += breathe(e, w, 1000);
	CHECK(freed == 0, "sealed bag freed before the collect: %u", freed);
	CHECK(breathe(e, w, 1000) == SL_EPOCH_BAG && c == SL_EPOCH_BAG,
	      "collect at breath 256 did not free the bag of 64 (c=%u)", c);

	/* 10 bags: a collect takes 8, the next one (128 breaths on) the rest */
	for (unsigned i = 0; i < 10 * SL_EPOCH_BAG; i++)
		sl_epoch_retire(e, w, &c, count_free, &c);
	for (unsigned b = 257; b < 384; b++)
		freed += breathe(e, w, 1000);
	CHECK(freed == 0, "freed between collects");
	CHECK(breathe(e, w, 1000) == 8 * SL_EPOCH_BAG, "collect of 10 bags took %u",
	      c - SL_EPOCH_BAG);
	for (unsigned b = 385; b < 512; b++)
		freed += breathe(e, w, 1000);
	CHECK(freed == 0 && breathe(e, w, 1000) == 2 * SL_EPOCH_BAG, "second collect");
	CHECK(sl_hist_max(sl_epoch_hist(e, 0, SL_EPOCH_HIST_FREE_BREATHS)) <= 256,
	      "latency in breaths");

	/* drain frees an open bag */
	for (unsigned i = 0; i < 5; i++)
		sl_epoch_retire(e, w, &c, count_free, &c);
	sl_epoch_offline(w);
	CHECK(sl_epoch_synchronize(e) == 0, "synchronize");
	CHECK(sl_epoch_drain(e) == 5, "drain of an open bag");
	check_stats_add_up(e);
	struct sl_epoch_stats s;
	sl_epoch_stats(e, -1, &s);
	CHECK(s.retired == SL_EPOCH_BAG + 10 * SL_EPOCH_BAG + 5 &&
	      s.freed == s.retired && s.backlog == 0, "batch totals: retired %lu freed %lu",
	      (unsigned long)s.retired, (unsigned long)s.freed);
	sl_epoch_free(e);
}

/* Grace periods, the laggard check, synchronize and drain. */
static void test_laggard_and_drain(void)
{
	struct sl_epoch *e = make(SL_EPOCH_IMMEDIATE, 3, 0);
	struct sl_epoch_worker *w[3];
	unsigned c = 0;
	for (unsigned i = 0; i < 3; i++) {
		w[i] = sl_epoch_worker(e, i);
		sl_epoch_online(w[i]);
	}
	CHECK(sl_epoch_worker(e, 3) == NULL, "worker 3 of 3");
	uint64_t now = sl_epoch_now_ns(e);
	CHECK(sl_epoch_laggard(e, now + 1000000000ull, 0) == -1,
	      "nothing retired: no laggard");
	sl_epoch_retire(e, w[0], &c, count_free, &c);
	CHECK(sl_epoch_reclaim(e, w[0], 16) == 0, "freed early");
	sl_epoch_quiesce(e, w[0]);
	sl_epoch_quiesce(e, w[2]);
	uint64_t q1 = sl_epoch_last_quiesce_ns(e, 1);
	CHECK(q1 != 0 && q1 <= sl_epoch_last_quiesce_ns(e, 2), "last quiescent times");
	/* by handle: the same values, each a reading of the epoch's clock
	 * taken at the quiesce (between the readings around it) */
	for (unsigned i = 0; i < 3; i++)
		CHECK(sl_epoch_worker_last_ns(w[i]) == sl_epoch_last_quiesce_ns(e, i),
		      "worker %u's last quiescent time by handle", i);
	uint64_t before = sl_epoch_now_ns(e);
	sl_epoch_quiesce(e, w[2]);
	uint64_t q2 = sl_epoch_worker_last_ns(w[2]);
	CHECK(before <= q2 && q2 <= sl_epoch_now_ns(e) && q2 >= q1,
	      "a quiesce's time between the clock's readings around it");
	CHECK(sl_epoch_laggard(e, q1 + 5000000ull, 0) == -1, "5 ms is not a laggard");
	CHECK(sl_epoch_laggard(e, q1 + SL_EPOCH_LAGGARD_NS + 1, 0) == 1,
	      "worker 1 not named at 10 ms");
	CHECK(sl_epoch_laggard(e, q1 + 2000, 1000) == 1, "threshold 1 us");
	sl_epoch_offline(w[1]);
	CHECK(sl_epoch_laggard(e, q1 + SL_EPOCH_LAGGARD_NS * 10, 0) == -1,
	      "offline worker named");
	CHECK(sl_epoch_reclaim(e, w[0], 16) == 1, "freed after w1 offline");
	CHECK(sl_hist_count(sl_epoch_hist(e, 0, SL_EPOCH_HIST_GRACE_NS)) == 1,
	      "grace period recorded");
	CHECK(sl_epoch_hist(e, 3, SL_EPOCH_HIST_GRACE_NS) == NULL, "hist of worker 3");

	/* retired by three, synchronize with all quiesced or offline, drain */
	for (unsigned i = 0; i < 3; i++)
		for (unsigned k = 0; k < 10; k++)
			sl_epoch_retire(e, w[i], &c, count_free, &c);
	for (unsigned i = 0; i < 3; i++)
		sl_epoch_offline(w[i]);
	CHECK(sl_epoch_synchronize(e) == 0, "synchronize");
	CHECK(sl_hist_count(sl_epoch_sync_hist(e)) == 1, "sync histogram");
	CHECK(sl_epoch_drain(e) == 30 && c == 31, "drain freed %u", c);
	struct sl_epoch_stats s;
	CHECK(sl_epoch_stats(e, 3, &s) == -EINVAL, "stats of worker 3");
	sl_epoch_stats(e, -1, &s);
	CHECK(s.retired == 31 && s.freed == 31 && s.backlog == 0, "totals after drain");
	sl_epoch_free(e);
}

/* A stall is recorded, with its whole length, when the worker quiesces
 * again; gaps shorter than SL_EPOCH_LAGGARD_NS and time offline are not
 * stalls.  The stall is made by sleeping: its recorded length is at least
 * the sleep however long the sleep turns out. */
static void test_stall_record(void)
{
	struct sl_epoch *e = make(SL_EPOCH_IMMEDIATE, 2, 0);
	struct sl_epoch_worker *w = sl_epoch_worker(e, 0);
	uint64_t from = 7, len = 7;
	CHECK(!sl_epoch_last_stall(e, 0, &from, &len) && from == 7 && len == 7,
	      "a stall before any quiescent state");
	CHECK(!sl_epoch_last_stall(e, 2, &from, &len), "stall of worker 2 of 2");
	/* Back-to-back breaths are no stall, unless this thread was held up
	 * between them for longer than SL_EPOCH_LAGGARD_NS (a loaded machine):
	 * what is expected follows the gaps measured. */
	sl_epoch_online(w);
	uint64_t t0 = sl_epoch_last_quiesce_ns(e, 0);
	sl_epoch_quiesce(e, w);
	uint64_t t1 = sl_epoch_last_quiesce_ns(e, 0);
	sl_epoch_quiesce(e, w);
	uint64_t q0 = sl_epoch_last_quiesce_ns(e, 0);
	bool held_up = t1 - t0 >= SL_EPOCH_LAGGARD_NS || q0 - t1 >= SL_EPOCH_LAGGARD_NS;
	CHECK(sl_epoch_last_stall(e, 0, &from, &len) == held_up,
	      "breaths %lu and %lu ns apart: stall recorded %d", (unsigned long)(t1 - t0),
	      (unsigned long)(q0 - t1), !held_up);
	struct timespec nap = { 0, (long)(SL_EPOCH_LAGGARD_NS * 3 / 2) };
	nanosleep(&nap, NULL);
	uint64_t slept = sl_epoch_now_ns(e) - q0;
	sl_epoch_quiesce(e, w);
	uint64_t q1 = sl_epoch_last_quiesce_ns(e, 0);
	CHECK(sl_epoch_last_stall(e, 0, &from, &len), "a %lu ns gap not recorded",
	      (unsigned long)slept);
	CHECK(from == q0 && len == q1 - q0 && len >= slept,
	      "stall from %lu len %lu; expected from %lu len %lu (>= %lu slept)",
	      (unsigned long)from, (unsigned long)len, (unsigned long)q0,
	      (unsigned long)(q1 - q0), (unsigned long)slept);
	sl_epoch_offline(w);
	nanosleep(&nap, NULL);
	sl_epoch_quiesce(e, w);   /* offline: nothing recorded */
	sl_epoch_online(w);
	uint64_t t2 = sl_epoch_last_quiesce_ns(e, 0);
	sl_epoch_quiesce(e, w);
	uint64_t t3 = sl_epoch_last_quiesce_ns(e, 0);
	uint64_t from2, len2;
	if (t3 - t2 >= SL_EPOCH_LAGGARD_NS)   /* held up between online and quiesce */
		CHECK(sl_epoch_last_stall(e, 0, &from2, &len2) && from2 == t2 && len2 == t3 - t2,
		      "a stall after going online again: from %lu len %lu",
		      (unsigned long)from2, (unsigned long)len2);
	else
		CHECK(sl_epoch_last_stall(e, 0, &from2, &len2) && from2 == from && len2 == len,
		      "time offline counted as a stall");
	sl_epoch_offline(w);
	sl_epoch_free(e);
}

static void test_errors(void)
{
	struct sl_err err = { "" };
	struct sl_epoch_conf c = { .name = "fc", .n_workers = 0 };
	errno = 0;
	CHECK(sl_epoch_create(&c, &err) == NULL &&
	      strcmp(err.msg, "epoch 'fc': n_workers must be 1..128, got 0") == 0,
	      "n_workers 0: '%s'", err.msg);
	CHECK(errno == EINVAL, "n_workers 0: errno %d, expected EINVAL", errno);
	c.n_workers = 2;
	c.ring_size = 1000;
	CHECK(sl_epoch_create(&c, &err) == NULL &&
	      strcmp(err.msg, "epoch 'fc': ring_size must be a power of two from 64 to 2^30, "
			      "got 1000") == 0, "ring 1000: '%s'", err.msg);
	c.ring_size = 0;
	c.policy = (enum sl_epoch_policy)7;
	CHECK(sl_epoch_create(&c, &err) == NULL &&
	      strcmp(err.msg, "epoch 'fc': unknown policy 7") == 0, "policy: '%s'", err.msg);
	CHECK(strcmp(sl_epoch_policy_name(SL_EPOCH_BATCH), "batch") == 0, "policy name");
}

/* sl_epoch_barrier: a quiescent state from before the call does not count;
 * one after it, or going offline, ends the wait. */
struct barrier_arg {
	struct sl_epoch *e;
	int rc;
	int done;
};

static void *barrier_thread(void *p)
{
	struct barrier_arg *a = p;
	a->rc = sl_epoch_barrier(a->e, 60ull * 1000 * 1000 * 1000);
	__atomic_store_n(&a->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void test_barrier(void)
{
	struct sl_epoch *e = make(SL_EPOCH_IMMEDIATE, 2, 0);
	struct sl_epoch_worker *w0 = sl_epoch_worker(e, 0), *w1 = sl_epoch_worker(e, 1);
	CHECK(sl_epoch_barrier(e, 0) == 0, "no worker online: the barrier waited");
	sl_epoch_online(w0);
	sl_epoch_quiesce(e, w0);
	CHECK(sl_epoch_barrier(e, 1000 * 1000) == -ETIMEDOUT,
	      "a quiescent state before the barrier ended it");
	/* w0 quiesces (again and again) while another thread waits */
	struct barrier_arg a = { .e = e, .rc = 1 };
	pthread_t th;
	CHECK(pthread_create(&th, NULL, barrier_thread, &a) == 0, "thread");
	while (!__atomic_load_n(&a.done, __ATOMIC_ACQUIRE))
		sl_epoch_quiesce(e, w0);
	pthread_join(th, NULL);
	CHECK(a.rc == 0, "barrier after w0's quiescent state: %d", a.rc);
	/* w1 online and silent: the wait ends when it goes offline */
	sl_epoch_online(w1);
	a.done = 0, a.rc = 1;
	CHECK(pthread_create(&th, NULL, barrier_thread, &a) == 0, "thread");
	sl_epoch_quiesce(e, w0);
	sl_epoch_offline(w1);
	while (!__atomic_load_n(&a.done, __ATOMIC_ACQUIRE))
		sl_epoch_quiesce(e, w0);
	pthread_join(th, NULL);
	CHECK(a.rc == 0, "barrier with w1 gone offline: %d", a.rc);
	/* retires still free as before after the token moved */
	unsigned c = 0;
	CHECK(sl_epoch_retire(e, w0, &c, count_free, &c) == 0, "retire");
	CHECK(breathe(e, w0, 16) == 1 && c == 1, "not freed at the next breath after a barrier");
	sl_epoch_offline(w0);
	sl_epoch_free(e);
}

/* Without EAL the qsbr policy says why it cannot be created. */
static void test_qsbr_no_eal(void)
{
	struct sl_err err = { "" };
	struct sl_epoch_conf c = { .name = "fc", .n_workers = 2, .policy = SL_EPOCH_QSBR };
	errno = 0;
	CHECK(sl_epoch_create(&c, &err) == NULL && errno != 0 && errno != EINVAL &&
	      strstr(err.msg, "epoch 'fc': policy 'qsbr' cannot create the defer queue of "
			      "worker 0 (it needs DPDK's EAL initialised)") == err.msg,
	      "qsbr without EAL: '%s'", err.msg);
}

static void test_single_immediate(void) { test_single(SL_EPOCH_IMMEDIATE); }
static void test_two_immediate(void) { test_two(SL_EPOCH_IMMEDIATE); }
static void test_cap_and_full_immediate(void) { test_cap_and_full(SL_EPOCH_IMMEDIATE); }
static void test_retire_n_immediate(void) { test_retire_n(SL_EPOCH_IMMEDIATE); }
static void test_retire_n_batch(void) { test_retire_n(SL_EPOCH_BATCH); }

/* The QSBR policy's cases need DPDK's EAL (its rte_rcu_qsbr); where it
 * cannot start, they are skipped with a note. */
static void test_qsbr_policy(void)
{
	char prefix[32];
	snprintf(prefix, sizeof(prefix), "tep%d", (int)getpid());
	char *argv[] = { "test_epoch", "--no-huge", "-m", "64", "--no-pci",
			 "--file-prefix", prefix, "--log-level", "lib.eal:error",
			 "--lcores", "0@0", NULL };
	if (rte_eal_init(11, argv) < 0) {
		printf("qsbr policy skipped: cannot initialise DPDK's EAL (--no-huge)\n");
		return;
	}
	test_single(SL_EPOCH_QSBR);
	test_two(SL_EPOCH_QSBR);
	test_cap_and_full(SL_EPOCH_QSBR);
	test_retire_n(SL_EPOCH_QSBR);
	rte_eal_cleanup();
}

static const struct sl_test_case cases[] = {
	SL_CASE(test_errors),
	SL_CASE(test_qsbr_no_eal),
	SL_CASE(test_single_immediate),
	SL_CASE(test_two_immediate),
	SL_CASE(test_cap_and_full_immediate),
	SL_CASE(test_retire_n_immediate),
	SL_CASE(test_retire_n_batch),
	SL_CASE(test_batch),
	SL_CASE(test_laggard_and_drain),
	SL_CASE(test_stall_record),
	SL_CASE(test_barrier),
	SL_CASE(test_qsbr_policy),
};

int main(int argc, char **argv)
{
	return sl_test_main(argc, argv, cases, SL_NCASES(cases));
}
