/* SPDX-License-Identifier: BSD-3-Clause */
#include <numa.h>

#include "worker.h"

static inline bool has_input(struct sl_push_entry *e)
{
	for (unsigned i = 0; i < e->n_in; i++)
		if (!sl_link_empty(e->in[i]))
			return true;
	return false;
}

unsigned sl_worker_push(struct sl_worker *w)
{
	unsigned rounds = 0;
	for (unsigned r = 0; r < SL_PUSH_ROUNDS; r++) {
		bool progress = false;
		for (unsigned i = 0; i < w->n_push; i++) {
			struct sl_push_entry *e = &w->push[i];
			if (has_input(e)) {
				sl_worker_at(w, SL_STEP_PUSH, e->app->index);
				e->app->type->push(e->app);
				progress = true;
			}
		}
		if (!progress)
			break;
		rounds++;
	}
	return rounds;
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

bool sl_worker_breathe(struct sl_worker *w)
{
	if (w->epoch != NULL) {
		sl_worker_at(w, SL_STEP_EPOCH, 0);
		sl_epoch_quiesce(w->epoch, w->epoch_w);
		sl_epoch_reclaim(w->epoch, w->epoch_w, w->reclaim_cap);
	}
	for (unsigned i = 0; i < w->n_pull; i++) {
		sl_worker_at(w, SL_STEP_PULL, w->pull[i]->index);
		w->pull[i]->type->pull(w->pull[i]);
	}
	unsigned rounds = sl_worker_push(w);
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
	sl_counter_add(&w->breaths, 1);
	return rounds > 0;
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
	while (!__atomic_load_n(w->stop, __ATOMIC_ACQUIRE))
		sl_worker_breathe(w);
	if (w->epoch != NULL)
		sl_epoch_offline(w->epoch_w);
	sl_worker_at(w, SL_STEP_DONE, 0);
	return 0;
}
