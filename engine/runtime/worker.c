/* SPDX-License-Identifier: BSD-3-Clause */
#include <numa.h>
#include <time.h>

#include <rte_cycles.h>
#include <rte_pause.h>

#include "runtime/worker.h"

static inline bool has_input(struct sl_push_entry *e)
{
	for (unsigned i = 0; i < e->n_in; i++)
		if (!sl_link_empty(e->in[i]))
			return true;
	return false;
}

/* Packets the app of e has taken from its inputs so far: the consumer-side
 * counters, which this worker writes. */
static inline uint64_t taken(const struct sl_push_entry *e)
{
	uint64_t n = 0;
	for (unsigned i = 0; i < e->n_in; i++)
		n += e->in[i]->rx.packets;
	return n;
}

/* What a breath accounts (each a constant in its inlined copy). */
enum acct {
	ACCT_OFF = 0,  /* breaths only (and outside a breath: acct_now) */
	ACCT_COUNT,    /* calls and packets */
	ACCT_TIMED,    /* and cycles, scaled by SL_ACCT_SAMPLE */
};

/* Cycles from *t to now (a timed breath's interval), unscaled. */
static inline uint64_t timed(uint64_t *t)
{
	uint64_t now = rte_rdtsc(), d = now - *t;
	*t = now;
	return d;
}

/* Charge a call: its packets always, its cycles since *t on a timed breath,
 * less those of the direct takes it made (charged to their own apps). */
static inline void charge(struct sl_worker *w, enum acct acct, uint64_t *calls, uint64_t *pkts,
			  uint64_t *cycles, uint64_t n, uint64_t *t)
{
	sl_counter_add(calls, 1);
	sl_counter_add(pkts, n);
	if (acct == ACCT_TIMED) {
		sl_counter_add(cycles, timed(t) - w->nested);
		w->nested = 0;
	}
}

void sl_worker_take(struct sl_link *l, struct rte_mbuf **pkts, unsigned n, uint64_t bytes)
{
	struct sl_worker *w = l->take_w;
	struct sl_app *a = l->to;

	sl_counter_add(&l->tx.packets, n);
	sl_counter_add(&l->rx.packets, n);
	/* No sl_worker_at: the take runs within its caller's step, which a
	 * worker that does not stop is reported in. */
	if (w->acct_now != ACCT_OFF) {
		sl_counter_add(&a->rt.push_calls, 1);
		sl_counter_add(&a->rt.push_packets, n);
	}
	if (likely(w->acct_now != ACCT_TIMED)) {
		l->take(a, l->to_in, pkts, n, bytes);
		return;
	}
	/* nested: what takes inside this one took */
	uint64_t outer = w->nested, t0 = rte_rdtsc();
	w->nested = 0;
	l->take(a, l->to_in, pkts, n, bytes);
	uint64_t d = rte_rdtsc() - t0;
	sl_counter_add(&a->rt.push_cycles, d - w->nested);
	w->nested = outer + d;
}

/* The push rounds; with accounting each call is charged to its app and
 * *moved gets the packets taken. */
static inline unsigned push_rounds(struct sl_worker *w, enum acct acct, uint64_t *t,
				   uint64_t *moved)
{
	unsigned rounds = 0;
	for (unsigned r = 0; r < SL_PUSH_ROUNDS; r++) {
		bool progress = false;
		for (unsigned i = 0; i < w->n_push; i++) {
			struct sl_push_entry *e = &w->push[i];
			if (!has_input(e))
				continue;
			struct sl_app *a = e->app;
			sl_worker_at(w, SL_STEP_PUSH, a->index);
			uint64_t before = acct != ACCT_OFF ? taken(e) : 0;
			a->type->push(a);
			progress = true;
			if (acct != ACCT_OFF) {
				uint64_t n = taken(e) - before;
				charge(w, acct, &a->rt.push_calls, &a->rt.push_packets,
				       &a->rt.push_cycles, n, t);
				*moved += n;
			}
		}
		if (!progress)
			break;
		rounds++;
	}
	return rounds;
}

unsigned sl_worker_push(struct sl_worker *w)
{
	return push_rounds(w, ACCT_OFF, NULL, NULL);
}

void sl_worker_flush(struct sl_worker *w)
{
	for (unsigned i = 0; i < w->n_il_prod; i++)
		sl_il_publish_producer(w->il_prod[i]);
	for (unsigned i = 0; i < w->n_il_cons; i++)
		sl_il_publish_consumer(w->il_cons[i]);
}

const char *sl_worker_step_name(enum sl_worker_step step)
{
	switch (step) {
	case SL_STEP_START: return "start";
	case SL_STEP_EPOCH: return "epoch";
	case SL_STEP_PULL: return "pull";
	case SL_STEP_PUSH: return "push";
	case SL_STEP_FLUSH: return "flush";
	case SL_STEP_HOUSE: return "house";
	case SL_STEP_TICK: return "tick";
	case SL_STEP_DONE: return "done";
	}
	return "unknown";
}

/* One breath (acct is a constant in each inlined copy, so the loop without
 * accounting carries no test of it). */
static inline __attribute__((always_inline)) bool breathe(struct sl_worker *w, enum acct acct)
{
	uint64_t start = acct == ACCT_TIMED ? rte_rdtsc() : 0, t = start, moved = 0;
	w->acct_now = acct;
	if (acct == ACCT_TIMED) {   /* the span: from the first timed breath */
		w->nested = 0;
		if (w->win_start != 0)
			sl_counter_add(&w->span_cycles, start - w->win_start);
		w->win_start = start;
	}
	if (w->epoch != NULL) {
		sl_worker_at(w, SL_STEP_EPOCH, 0);
		sl_epoch_quiesce(w->epoch, w->epoch_w);
		sl_epoch_reclaim(w->epoch, w->epoch_w, w->reclaim_cap);
	}
	for (unsigned i = 0; i < w->n_pull; i++) {
		struct sl_app *a = w->pull[i];
		sl_worker_at(w, SL_STEP_PULL, a->index);
		uint64_t before = acct != ACCT_OFF ? a->stats.in_packets : 0;
		a->type->pull(a);
		if (acct != ACCT_OFF) {
			uint64_t n = a->stats.in_packets - before;
			charge(w, acct, &a->rt.pull_calls, &a->rt.pull_packets, &a->rt.pull_cycles,
			       n, &t);
			moved += n;
		}
	}
	unsigned rounds = push_rounds(w, acct, &t, &moved);
	sl_worker_at(w, SL_STEP_FLUSH, 0);
	sl_worker_flush(w);
	if (w->pool != NULL) {
		sl_worker_at(w, SL_STEP_HOUSE, 0);
		sl_pool_house(w->pool);
	}
	for (unsigned i = 0; i < w->n_tick; i++) {
		sl_worker_at(w, SL_STEP_TICK, w->tick[i]->index);
		w->tick[i]->type->tick(w->tick[i]);
	}
	if (acct != ACCT_OFF && moved > 0)
		sl_counter_add(&w->busy_breaths, 1);
	if (acct == ACCT_TIMED) {
		uint64_t len = timed(&start);
		sl_counter_add(moved > 0 ? &w->busy_cycles : &w->idle_cycles, len);
		sl_counter_add(&w->timed_cycles, len);
	}
	sl_counter_add(&w->breaths, 1);
	return rounds > 0;
}

/* A breath with accounting: timed once every SL_ACCT_SAMPLE breaths. */
static inline __attribute__((always_inline)) bool breathe_counted(struct sl_worker *w)
{
	if ((sl_counter_read(&w->breaths) & (SL_ACCT_SAMPLE - 1)) != 0)
		return breathe(w, ACCT_COUNT);
	return breathe(w, ACCT_TIMED);
}

bool sl_worker_breathe(struct sl_worker *w)
{
	return w->accounting ? breathe_counted(w) : breathe(w, ACCT_OFF);
}

/* Bind the worker thread's memory policy to its NUMA node, so that what it
 * allocates (and the kernel's pages it touches first) is local.  The thread
 * itself is already pinned to its CPU by DPDK's lcore map. */
static void bind_memory(const struct sl_worker *w)
{
	if (numa_available() < 0 || w->socket < 0 || w->socket > numa_max_node())
		return;
	struct bitmask *nodes = numa_allocate_nodemask();
	if (nodes == NULL)
		return;
	numa_bitmask_setbit(nodes, (unsigned)w->socket);
	numa_set_membind(nodes);
	numa_bitmask_free(nodes);
}

/* Between two breaths: apply what a reload stored for this worker. */
static void take_reconf(struct sl_worker *w)
{
	struct sl_worker_reconf *rc = __atomic_load_n(&w->reconf, __ATOMIC_ACQUIRE);
	if (likely(rc == NULL))
		return;
	for (unsigned i = 0; i < rc->n; i++)
		rc->item[i].app->type->apply(rc->item[i].app, rc->item[i].state);
	if (rc->hold) {
		__atomic_store_n(&rc->held, 1, __ATOMIC_RELEASE);
		while (!__atomic_load_n(&rc->released, __ATOMIC_ACQUIRE))
			rte_pause();
	}
	sl_counter_add(&w->reconfs, 1);
	__atomic_store_n(&w->reconf, NULL, __ATOMIC_RELEASE);
}

/* Packets the worker's pull apps have brought in so far. */
static uint64_t pulled(const struct sl_worker *w)
{
	uint64_t n = 0;
	for (unsigned i = 0; i < w->n_pull; i++)
		n += w->pull[i]->stats.in_packets;
	return n;
}

/* Sleep idle_sleep_ns, offline to the epoch.  timed: the breath before was
 * timed, so the nap is added to its idle cycles (see worker.h). */
static void nap(struct sl_worker *w, bool timed)
{
	struct timespec ts = { .tv_sec = (time_t)(w->idle_sleep_ns / 1000000000u),
			       .tv_nsec = (long)(w->idle_sleep_ns % 1000000000u) };
	uint64_t start = timed ? rte_rdtsc() : 0;
	if (w->epoch != NULL)
		sl_epoch_offline(w->epoch_w);
	nanosleep(&ts, NULL);
	if (w->epoch != NULL)
		sl_epoch_online(w->epoch_w);
	if (timed) {
		uint64_t len = rte_rdtsc() - start;
		sl_counter_add(&w->idle_cycles, len);
		sl_counter_add(&w->timed_cycles, len);
	}
	sl_counter_add(&w->naps, 1);
}

/* The loop with idle sleep: a breath, then a nap once SL_IDLE_SPIN breaths
 * in a row found nothing to do. */
static void loop_napping(struct sl_worker *w)
{
	while (!__atomic_load_n(w->stop, __ATOMIC_ACQUIRE)) {
		take_reconf(w);
		uint64_t in = pulled(w);
		bool pushed = w->accounting ? breathe_counted(w) : breathe(w, ACCT_OFF);
		if (pushed || pulled(w) != in) {
			w->idle_streak = 0;
			continue;
		}
		if (w->idle_streak < SL_IDLE_SPIN) {
			w->idle_streak++;
			continue;
		}
		/* breaths was counted at the end of the breath: the breath
		 * just run was timed if the count before it was a multiple. */
		uint64_t before = sl_counter_read(&w->breaths) - 1;
		nap(w, w->accounting && (before & (SL_ACCT_SAMPLE - 1)) == 0);
	}
}

int sl_worker_main(void *arg)
{
	struct sl_worker *w = arg;
	bind_memory(w);
	if (w->epoch != NULL)
		sl_epoch_online(w->epoch_w);
	if (w->idle_sleep_ns != 0) {
		loop_napping(w);
	} else if (w->accounting) {
		while (!__atomic_load_n(w->stop, __ATOMIC_ACQUIRE)) {
			take_reconf(w);
			breathe_counted(w);
		}
	} else {
		while (!__atomic_load_n(w->stop, __ATOMIC_ACQUIRE)) {
			take_reconf(w);
			breathe(w, ACCT_OFF);
		}
	}
	take_reconf(w);   /* one stored as the stop came: it is never left pending */
	w->acct_now = ACCT_OFF;   /* the drain's takes run outside a breath */
	if (w->epoch != NULL)
		sl_epoch_offline(w->epoch_w);
	sl_worker_at(w, SL_STEP_DONE, 0);
	return 0;
}
