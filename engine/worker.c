/* SPDX-License-Identifier: BSD-3-Clause */
#include "worker.h"

static inline bool has_input(const struct sl_push_entry *e)
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

bool sl_worker_breathe(struct sl_worker *w)
{
	for (unsigned i = 0; i < w->n_pull; i++)
		w->pull[i]->type->pull(w->pull[i]);
	unsigned rounds = sl_worker_push(w);
	for (unsigned i = 0; i < w->n_tick; i++)
		w->tick[i]->type->tick(w->tick[i]);
	sl_counter_add(&w->breaths, 1);
	return rounds > 0;
}

int sl_worker_main(void *arg)
{
	struct sl_worker *w = arg;
	while (!__atomic_load_n(w->stop, __ATOMIC_ACQUIRE))
		sl_worker_breathe(w);
	return 0;
}
