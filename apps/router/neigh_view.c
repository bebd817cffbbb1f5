/* SPDX-License-Identifier: BSD-3-Clause */
/* The neighbour table as table rows, and copies for readers: neigh_view.h. */
#include <arpa/inet.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_cycles.h>

#include "apps/router/neigh_view.h"

const struct sl_table_spec sl_nbv_spec = {
	.name = "neighbours",
	.doc = "The router's neighbour table: address, MAC, state, interface, ms since the last confirmation (or since the request, incomplete), packets held.",
	.s_cols = { "address", "mac", "state", "interface" },
	.u_cols = { "age_ms", "held" },
};

struct sl_nbv {
	pthread_mutex_t lock;               /* the copy below; the worker only tries it */
	_Atomic uint64_t want;              /* copies asked for */
	_Atomic uint64_t done;              /* the ask the copy answers */
	const char (*names)[SL_NBV_IFNAME];
	unsigned cap, n;
	struct sl_table_row rows[];
};

static const char *const state_name[] = {
	[SL_NB_INCOMPLETE] = "incomplete", [SL_NB_REACHABLE] = "reachable", [SL_NB_STALE] = "stale",
};

struct fill {
	const char (*names)[SL_NBV_IFNAME];
	struct sl_table_row *rows;
	unsigned offset, max, filled, seen;
	uint64_t now, hz;
};

static void fill_one(void *arg, const struct sl_nb *e)
{
	struct fill *f = arg;
	unsigned i = f->seen++;
	if (i < f->offset || f->filled == f->max)
		return;
	struct sl_table_row *r = &f->rows[f->filled++];
	memset(r, 0, sizeof(*r));
	if (e->v6)
		inet_ntop(AF_INET6, e->addr6, r->s[0], SL_TABLE_STR);
	else
		snprintf(r->s[0], SL_TABLE_STR, "%u.%u.%u.%u", e->addr >> 24,
			 e->addr >> 16 & 0xff, e->addr >> 8 & 0xff, e->addr & 0xff);
	if (e->state == SL_NB_INCOMPLETE)
		snprintf(r->s[1], SL_TABLE_STR, "-");
	else
		snprintf(r->s[1], SL_TABLE_STR, "%02x:%02x:%02x:%02x:%02x:%02x", e->mac[0],
			 e->mac[1], e->mac[2], e->mac[3], e->mac[4], e->mac[5]);
	snprintf(r->s[2], SL_TABLE_STR, "%s",
		 e->state <= SL_NB_STALE ? state_name[e->state] : "?");
	snprintf(r->s[3], SL_TABLE_STR, "%s", f->names[e->iface]);
	r->u[0] = f->now > e->confirmed ? (f->now - e->confirmed) * 1000 / f->hz : 0;
	r->u[1] = e->n_held;
}

unsigned sl_nbv_fill(const struct sl_nb_table *t, const char (*names)[SL_NBV_IFNAME],
		     unsigned offset, struct sl_table_row *rows, unsigned max,
		     unsigned *filled)
{
	struct fill f = { .names = names, .rows = rows, .offset = offset, .max = max,
			  .now = rte_rdtsc(), .hz = rte_get_tsc_hz() };
	sl_nb_walk(t, fill_one, &f);
	*filled = f.filled;
	return f.seen;
}

struct sl_nbv *sl_nbv_create(unsigned cap, const char (*names)[SL_NBV_IFNAME],
			     struct sl_err *err)
{
	if (cap > SL_NBV_CAP)
		cap = SL_NBV_CAP;
	struct sl_nbv *v = calloc(1, sizeof(*v) + cap * sizeof(v->rows[0]));
	if (v == NULL)
		return sl_errf_null(err, ENOMEM, "out of memory for a neighbour table view");
	pthread_mutex_init(&v->lock, NULL);
	v->cap = cap;
	v->names = names;
	return v;
}

void sl_nbv_free(struct sl_nbv *v)
{
	if (v == NULL)
		return;
	pthread_mutex_destroy(&v->lock);
	free(v);
}

void sl_nbv_serve(struct sl_nbv *v, const struct sl_nb_table *t)
{
	uint64_t want = atomic_load_explicit(&v->want, memory_order_acquire);
	if (want == atomic_load_explicit(&v->done, memory_order_relaxed) ||
	    pthread_mutex_trylock(&v->lock) != 0)
		return;
	sl_nbv_fill(t, v->names, 0, v->rows, v->cap, &v->n);
	atomic_store_explicit(&v->done, want, memory_order_release);
	pthread_mutex_unlock(&v->lock);
}

int sl_nbv_read(struct sl_nbv *v, unsigned offset, struct sl_table_row *rows, unsigned max,
		unsigned *filled, struct sl_err *err)
{
	uint64_t ask = atomic_fetch_add_explicit(&v->want, 1, memory_order_acq_rel) + 1;
	const struct timespec ms = { 0, 1000000 };
	for (unsigned waited = 0;
	     atomic_load_explicit(&v->done, memory_order_acquire) < ask; waited++) {
		if (waited == SL_TABLE_WAIT_MS)
			return sl_errf(err, ETIMEDOUT, "the router's worker made no copy of its "
				       "neighbour table in %u ms", SL_TABLE_WAIT_MS);
		nanosleep(&ms, NULL);
	}
	pthread_mutex_lock(&v->lock);
	unsigned n = v->n;
	*filled = 0;
	for (unsigned i = offset; i < n && *filled < max; i++)
		rows[(*filled)++] = v->rows[i];
	pthread_mutex_unlock(&v->lock);
	return (int)n;
}
