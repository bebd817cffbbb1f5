/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Epoch reclamation under load, for the immediate and batch policies: one
 * writer replaces the objects of a table of slots millions of times and
 * retires the old ones (one at a time, or 8 at once with sl_epoch_retire_n);
 * three readers hold pointers to objects between their quiescent states
 * (and sometimes go offline) and check that an object they can still reach
 * is never poisoned.  The free function poisons an object
 * and puts it on the writer's free list for reuse, so a premature free shows
 * as poison (and, under ThreadSanitizer, as a race).  The control thread
 * reads the metrics meanwhile; at the end, after synchronize and drain,
 * freed equals retired.  (The qsbr policy needs EAL; test_epoch covers it.)
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

#include "epoch/epoch.h"

#include "check.h"

#define N_SLOTS 64u
#define N_READERS 3u
#define HOLD 8u
#define LIVE 0x1176e11176e11176ull
#define POISON 0xdeaddeaddeaddeadull

struct obj {
	uint64_t magic;
	uint64_t value;
	uint64_t check;     /* ~value */
	struct obj *next;   /* free list */
};

static struct obj *slots[N_SLOTS];
static struct sl_epoch *ep;
static bool stop;
static struct obj *free_list;      /* the writer's */
static uint64_t allocated;         /* the writer's */

static void poison_free(void *p, void *arg)
{
	struct obj *o = p;
	(void)arg;
	o->magic = POISON;
	o->value = POISON;
	o->check = POISON;
	o->next = free_list;
	free_list = o;
}

static struct obj *obj_new(uint64_t v)
{
	struct obj *o = free_list;
	if (o != NULL) {
		free_list = o->next;
	} else {
		o = malloc(sizeof(*o));
		if (o == NULL)
			abort();
		allocated++;
	}
	o->magic = LIVE;
	o->value = v;
	o->check = ~v;
	return o;
}

static bool intact(const struct obj *o)
{
	return o->magic == LIVE && o->check == ~o->value;
}

static void *reader(void *arg)
{
	unsigned idx = (unsigned)(uintptr_t)arg;
	struct sl_epoch_worker *w = sl_epoch_worker(ep, idx);
	struct obj *held[HOLD];
	uint64_t bad = 0, seed = idx + 1, breaths = 0;

	sl_epoch_online(w);
	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
		sl_epoch_quiesce(ep, w);
		for (unsigned i = 0; i < HOLD; i++) {
			seed = seed * 6364136223846793005ull + 1442695040888963407ull;
			held[i] = __atomic_load_n(&slots[(seed >> 33) % N_SLOTS], __ATOMIC_ACQUIRE);
			if (!intact(held[i]))
				bad++;
		}
		for (unsigned k = 0; k < 4; k++) {
			for (unsigned i = 0; i < HOLD; i++)
				if (!intact(held[i]))
					bad++;
		}
		if (++breaths % 1024 == 0) {
			sl_epoch_offline(w);
			sched_yield();
			sl_epoch_online(w);
		}
	}
	sl_epoch_offline(w);
	CHECK(bad == 0, "reader %u: %lu poisoned or torn reads", idx, (unsigned long)bad);
	return NULL;
}

struct wres {
	uint64_t retired, freed, enospc;
	unsigned per_breath;   /* replacements per writer breath */
};

/* Retire the writer's put-aside objects at once (sl_epoch_retire_n). */
static void retire_pending(struct sl_epoch_worker *w, struct wres *r, void **pend, unsigned *np)
{
	while (sl_epoch_retire_n(ep, w, pend, *np, poison_free, NULL) == -ENOSPC) {
		r->enospc++;
		sl_epoch_quiesce(ep, w);
		r->freed += sl_epoch_reclaim(ep, w, 256);
		sched_yield();
	}
	r->retired += *np;
	*np = 0;
}

/* The writer: one replacement at a time, retired at once in even breaths;
 * in odd breaths the old objects are put aside and retired 8 at a time
 * with sl_epoch_retire_n (one stamp for them all). */
static void *writer(void *arg)
{
	struct sl_epoch_worker *w = sl_epoch_worker(ep, N_READERS);
	struct wres *r = arg;
	uint64_t n = r->retired;   /* replacements to do */
	uint64_t v = N_SLOTS;
	void *pend[8];
	unsigned np = 0;

	r->retired = 0;
	sl_epoch_online(w);
	for (uint64_t i = 0; i < n; i++) {
		if (i % r->per_breath == 0) {
			retire_pending(w, r, pend, &np);
			sl_epoch_quiesce(ep, w);
			r->freed += sl_epoch_reclaim(ep, w, 256);
		}
		struct obj *o = obj_new(v++);
		struct obj *old = __atomic_exchange_n(&slots[i % N_SLOTS], o, __ATOMIC_ACQ_REL);
		if ((i / r->per_breath) % 2 == 1) {
			pend[np++] = old;
			if (np == 8)
				retire_pending(w, r, pend, &np);
			continue;
		}
		while (sl_epoch_retire(ep, w, old, poison_free, NULL) == -ENOSPC) {
			r->enospc++;
			sl_epoch_quiesce(ep, w);
			r->freed += sl_epoch_reclaim(ep, w, 256);
			sched_yield();
		}
		r->retired++;
	}
	retire_pending(w, r, pend, &np);
	sl_epoch_offline(w);
	__atomic_store_n(&stop, true, __ATOMIC_RELEASE);
	return NULL;
}

static void run(enum sl_epoch_policy policy, uint64_t n, unsigned per_breath)
{
	struct sl_err err = { "" };
	struct sl_epoch_conf conf = { .name = "stress", .n_workers = N_READERS + 1,
				      .ring_size = 1u << 16, .policy = policy };
	pthread_t th[N_READERS + 1];
	struct wres r = { .retired = n, .per_breath = per_breath };

	ep = sl_epoch_create(&conf, &err);
	CHECK(ep != NULL, "create: %s", err.msg);
	if (ep == NULL)
		return;
	stop = false;
	free_list = NULL;
	allocated = 0;
	for (unsigned i = 0; i < N_SLOTS; i++)
		slots[i] = obj_new(i);
	for (unsigned i = 0; i < N_READERS; i++)
		pthread_create(&th[i], NULL, reader, (void *)(uintptr_t)i);
	pthread_create(&th[N_READERS], NULL, writer, &r);

	uint64_t polls = 0;
	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
		struct sl_epoch_stats s;
		sl_epoch_stats(ep, -1, &s);
		CHECK(s.retired >= s.freed && s.backlog == s.retired - s.freed,
		      "live stats: retired %lu freed %lu backlog %lu", (unsigned long)s.retired,
		      (unsigned long)s.freed, (unsigned long)s.backlog);
		(void)sl_epoch_laggard(ep, sl_epoch_now_ns(ep), 0);
		polls++;
		sched_yield();
	}
	for (unsigned i = 0; i <= N_READERS; i++)
		pthread_join(th[i], NULL);

	CHECK(sl_epoch_synchronize(ep) == 0, "synchronize");
	uint64_t drained = sl_epoch_drain(ep);
	struct sl_epoch_stats s;
	sl_epoch_stats(ep, -1, &s);
	CHECK(r.retired == n && s.retired == n, "%s: retired %lu of %lu",
	      sl_epoch_policy_name(policy), (unsigned long)s.retired, (unsigned long)n);
	CHECK(s.freed == s.retired && s.backlog == 0 && r.freed + drained == s.freed,
	      "%s: freed %lu (reclaimed %lu + drained %lu), retired %lu",
	      sl_epoch_policy_name(policy), (unsigned long)s.freed, (unsigned long)r.freed,
	      (unsigned long)drained, (unsigned long)s.retired);
	CHECK(sl_hist_count(sl_epoch_hist(ep, N_READERS, SL_EPOCH_HIST_FREE_NS)) == s.freed,
	      "latency histogram count");

	/* every object is either in a slot or on the free list, once */
	uint64_t on_list = 0;
	for (struct obj *o = free_list; o != NULL; o = o->next, on_list++)
		CHECK(o->magic == POISON, "free list object not poisoned");
	CHECK(on_list + N_SLOTS == allocated, "objects: %lu free + %u live != %lu allocated",
	      (unsigned long)on_list, N_SLOTS, (unsigned long)allocated);
	printf("%s: %lu retired, %lu reclaimed, %lu drained, backlog high-water %lu, "
	       "%lu ENOSPC, free p50 %lu ns p99 %lu ns, %lu breaths max, %lu polls\n",
	       sl_epoch_policy_name(policy), (unsigned long)s.retired, (unsigned long)r.freed,
	       (unsigned long)drained, (unsigned long)s.backlog_hwm, (unsigned long)r.enospc,
	       (unsigned long)sl_hist_percentile(sl_epoch_hist(ep, N_READERS, SL_EPOCH_HIST_FREE_NS), 0.5),
	       (unsigned long)sl_hist_percentile(sl_epoch_hist(ep, N_READERS, SL_EPOCH_HIST_FREE_NS), 0.99),
	       (unsigned long)sl_hist_max(sl_epoch_hist(ep, N_READERS, SL_EPOCH_HIST_FREE_BREATHS)),
	       (unsigned long)polls);

	for (unsigned i = 0; i < N_SLOTS; i++)
		free(slots[i]);
	while (free_list != NULL) {
		struct obj *o = free_list;
		free_list = o->next;
		free(o);
	}
	sl_epoch_free(ep);
}

int main(void)
{
	/* batch frees at most 8 bags of 64 every 128 breaths, 4 a breath:
	 * retire fewer than that so that the backlog stays bounded */
	run(SL_EPOCH_IMMEDIATE, 2000000, 4);
	run(SL_EPOCH_BATCH, 1000000, 2);
	printf("%d checks, %d failures\n", checks, failures);
	return failures ? 1 : 0;
}
