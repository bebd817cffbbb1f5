/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The live-reconfiguration hand-over (engine/runtime/worker.h, struct
 * sl_worker_reconf): two workers breathe (sl_worker_main, each running one
 * app whose pull reads its current settings every breath) while the control
 * thread hands them new settings 5000 times, as a reload does (the pulls
 * yield their CPU: three threads share two CPUs here).  Each
 * settings object is written whole by the control thread before the
 * hand-over, and the pull checks that both of its fields agree (a torn or
 * early read shows as a mismatch, and under ThreadSanitizer as a race).
 * Asserted: every hand-over is applied exactly once and in order, the
 * worker's reconfs count equals the hand-overs, a settings object is never
 * read after the control thread reclaimed it (it is poisoned then), and a
 * reconf stored as the stop comes is still applied.
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/app.h"
#include "runtime/worker.h"

#include "check.h"

#define ROUNDS 5000u
#define N_WORKERS 2u
#define POISON 0xdeaddeaddeaddeadull

struct settings {
	uint64_t a, b;          /* always equal while live */
};

struct priv {
	struct settings *cur;   /* the worker's own: read by pull, set by apply */
	uint64_t applied;       /* the last applied a */
	uint64_t mismatches, pulls, out_of_order;
};

static void t_pull(struct sl_app *app)
{
	struct priv *p = app->priv;
	struct settings *s = p->cur;
	if (s != NULL && s->a != s->b)
		p->mismatches++;
	p->pulls++;
	sched_yield();
}

static void t_apply(struct sl_app *app, void *state)
{
	struct priv *p = app->priv;
	struct settings *s = state;
	if (s->a != p->applied + 1)
		p->out_of_order++;
	p->applied = s->a;
	/* The control thread poisons the old settings once the next
	 * hand-over is done (as release retires what apply replaced). */
	p->cur = s;
}

static void t_release(struct sl_app *app, void *state, bool applied)
{
	(void)app;
	(void)state;
	(void)applied;
}

static const struct sl_port_spec out_port[] = { { "output", false, "" } };
static const struct sl_app_type t_type = { .name = "t_reconf", .doc = "test",
	.outputs = out_port, .n_outputs = 1, .pull = t_pull, .apply = t_apply,
	.release = t_release, .priv_size = sizeof(struct priv) };

static bool stop;

static void *run(void *arg)
{
	sl_worker_main(arg);
	return NULL;
}

int main(void)
{
	struct sl_worker w[N_WORKERS];
	struct sl_app apps[N_WORKERS];
	struct priv privs[N_WORKERS];
	struct sl_app *pulls[N_WORKERS];
	struct settings *all[N_WORKERS];
	pthread_t th[N_WORKERS];

	memset(w, 0, sizeof(w));
	memset(apps, 0, sizeof(apps));
	memset(privs, 0, sizeof(privs));
	for (unsigned k = 0; k < N_WORKERS; k++) {
		all[k] = calloc(ROUNDS + 2, sizeof(struct settings));
		if (all[k] == NULL)
			return 1;
		apps[k].type = &t_type;
		apps[k].name = k == 0 ? "a" : "b";
		apps[k].priv = &privs[k];
		apps[k].worker = k;
		pulls[k] = &apps[k];
		w[k].pull = &pulls[k];
		w[k].n_pull = 1;
		w[k].stop = &stop;
		w[k].name = apps[k].name;
		w[k].index = k;
		w[k].socket = -1;
		pthread_create(&th[k], NULL, run, &w[k]);
	}

	struct {
		struct sl_worker_reconf r;
		struct sl_worker_reconf_item item[1];
	} parts[N_WORKERS];
	memset(parts, 0, sizeof(parts));   /* no hold: a reconf of items only */
	for (unsigned i = 1; i <= ROUNDS; i++) {
		for (unsigned k = 0; k < N_WORKERS; k++) {
			struct settings *s = &all[k][i];
			s->a = i;
			s->b = i;
			parts[k].r.n = 1;
			parts[k].item[0] = (struct sl_worker_reconf_item){ &apps[k], s };
			__atomic_store_n(&w[k].reconf, &parts[k].r, __ATOMIC_RELEASE);
		}
		for (unsigned k = 0; k < N_WORKERS; k++)
			while (__atomic_load_n(&w[k].reconf, __ATOMIC_ACQUIRE) != NULL)
				sched_yield();
		/* The settings two hand-overs back can no longer be read: poison. */
		for (unsigned k = 0; k < N_WORKERS; k++)
			if (i >= 2) {
				all[k][i - 1].a = POISON;
				all[k][i - 1].b = 0;
			}
	}
	/* One stored as the stop comes: applied before the worker returns. */
	for (unsigned k = 0; k < N_WORKERS; k++) {
		struct settings *s = &all[k][ROUNDS + 1];
		s->a = s->b = ROUNDS + 1;
		parts[k].item[0] = (struct sl_worker_reconf_item){ &apps[k], s };
		__atomic_store_n(&w[k].reconf, &parts[k].r, __ATOMIC_RELEASE);
	}
	__atomic_store_n(&stop, true, __ATOMIC_RELEASE);
	for (unsigned k = 0; k < N_WORKERS; k++)
		pthread_join(th[k], NULL);

	for (unsigned k = 0; k < N_WORKERS; k++) {
		CHECK(privs[k].applied == ROUNDS + 1, "worker %u applied up to %lu, expected %u", k,
		      (unsigned long)privs[k].applied, ROUNDS + 1);
		CHECK(privs[k].out_of_order == 0, "worker %u: %lu hand-overs out of order", k,
		      (unsigned long)privs[k].out_of_order);
		CHECK(privs[k].mismatches == 0, "worker %u: %lu torn or poisoned reads", k,
		      (unsigned long)privs[k].mismatches);
		CHECK(w[k].reconfs == ROUNDS + 1, "worker %u counted %lu reconfs", k,
		      (unsigned long)w[k].reconfs);
		CHECK(w[k].reconf == NULL, "worker %u left a reconf pending", k);
		CHECK(privs[k].pulls >= ROUNDS, "worker %u breathed only %lu times", k,
		      (unsigned long)privs[k].pulls);
		free(all[k]);
	}
	printf("test_reconf_stress: %d checks, %d failures\n", checks, failures);
	return failures ? 1 : 0;
}
