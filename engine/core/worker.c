/* SPDX-License-Identifier: BSD-3-Clause */
#include <numa.h>

#include <rte_cycles.h>

#include "worker.h"

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

/* The push rounds; with `acct` (a constant where inlined) each call's
 * cycles from *t and its packets are charged to its app, and *moved gets
 * the packets taken. */
static inline unsigned push_rounds(struct sl_worker *w, bool acct, uint64_t *t, uint64_t *moved)
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
			uint64_t before = acct ? taken(e) : 0;
			a->type->push(a);
			progress = true;
			if (acct) {
				uint64_t now = rte_rdtsc(), n = taken(e) - before;
				sl_counter_add(&a->rt.push_calls, 1);
				sl_counter_add(&a->rt.push_packets, n);
				sl_counter_add(&a->rt.push_cycles, now - *t);
				*t = now;
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
	return push_rounds(w, false, NULL, NULL);
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

/* One breath, with or without accounting (acct is a constant in each of
 * the two inlined copies, so the loop without it carries no test). */
static inline __attribute__((always_inline)) bool breathe(struct sl_worker *w, bool acct)
{
	/* A breath starts where the last one ended (one rdtsc fewer). */
	uint64_t start = acct ? w->tsc : 0, t = start, moved = 0;
	if (w->epoch != NULL) {
		sl_worker_at(w, SL_STEP_EPOCH, 0);
		sl_epoch_quiesce(w->epoch, w->epoch_w);
		sl_epoch_reclaim(w->epoch, w->epoch_w, w->reclaim_cap);
	}
	for (unsigned i = 0; i < w->n_pull; i++) {
		struct sl_app *a = w->pull[i];
		sl_worker_at(w, SL_STEP_PULL, a->index);
		uint64_t before = acct ? a->stats.in_packets : 0;
		a->type->pull(a);
		if (acct) {
			uint64_t now = rte_rdtsc(), n = a->stats.in_packets - before;
			sl_counter_add(&a->rt.pull_calls, 1);
			sl_counter_add(&a->rt.pull_packets, n);
			sl_counter_add(&a->rt.pull_cycles, now - t);
			t = now;
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
	if (acct) {
		w->tsc = rte_rdtsc();
		uint64_t cycles = w->tsc - start;
		if (moved > 0) {
			sl_counter_add(&w->busy_breaths, 1);
			sl_counter_add(&w->busy_cycles, cycles);
		} else {
			sl_counter_add(&w->idle_cycles, cycles);
		}
	}
	sl_counter_add(&w->breaths, 1);
	return rounds > 0;
}

bool sl_worker_breathe(struct sl_worker *w)
{
	if (w->accounting && w->tsc == 0)
		w->tsc = rte_rdtsc();
	return w->accounting ? breathe(w, true) : breathe(w, false);
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

int sl_worker_main(void *arg)
{
	struct sl_worker *w = arg;
	bind_memory(w);
	if (w->epoch != NULL)
		sl_epoch_online(w->epoch_w);
	if (w->accounting) {
		w->tsc = rte_rdtsc();
		while (!__atomic_load_n(w->stop, __ATOMIC_ACQUIRE))
			breathe(w, true);
	} else {
		while (!__atomic_load_n(w->stop, __ATOMIC_ACQUIRE))
			breathe(w, false);
	}
	if (w->epoch != NULL)
		sl_epoch_offline(w->epoch_w);
	sl_worker_at(w, SL_STEP_DONE, 0);
	return 0;
}
