/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Reload (reload.h, docs/control.md).  A new config is loaded and checked,
 * diffed against the running one (engine/config/diff.h), planned
 * (run/plan.h: what is kept, built anew, restarted, which workers are
 * held, or why it is refused), and the plan carried out in two steps:
 *
 *  1. structure (start, stop, restart and move apps; add and remove links):
 *     everything new is built and started off the data path (a failure
 *     here undoes it: nothing changed); then only the affected workers are
 *     held between two breaths, the removed links' packets are moved into
 *     their rebuilt links or freed and counted, the apps that go are
 *     stopped and finished, restarted apps are initialised, and the held
 *     workers get their new lists and links and breathe again;
 *  2. reconfigure (live parameters): each affected worker applies its apps'
 *     new state between two breaths, without being held.
 *
 * Control thread only.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rte_malloc.h>

#include "base/note.h"
#include "config/diff.h"
#include "config/lookup.h"
#include "config/place.h"
#include "ops/report.h"
#include "ops/telemetry.h"
#include "run/build.h"
#include "run/plan.h"
#include "run/reload.h"

#define HOLD_TIMEOUT_S 5.0

/* ------------------------------------------------------------ hand-over */

/* Store r for worker w; wait (at most HOLD_TIMEOUT_S) until the worker took
 * it (hold: until it is held).  Returns 0 or -ETIMEDOUT. */
static int give(struct engine *e, unsigned w, struct sl_worker_reconf *r, struct sl_err *err)
{
	__atomic_store_n(&e->workers[w].reconf, r, __ATOMIC_RELEASE);
	double t0 = sl_eng_now_s();
	for (;;) {
		bool done = r->hold ? __atomic_load_n(&r->held, __ATOMIC_ACQUIRE) != 0
				    : __atomic_load_n(&e->workers[w].reconf, __ATOMIC_ACQUIRE) == NULL;
		if (done)
			return 0;
		if (sl_eng_now_s() - t0 > HOLD_TIMEOUT_S)
			return sl_errf(err, ETIMEDOUT, "worker '%s' did not take its part of the "
				       "reload within %.0f s (it holds up its breaths)",
				       e->workers[w].name, HOLD_TIMEOUT_S);
		struct timespec nap = { 0, 50 * 1000 };
		nanosleep(&nap, NULL);
	}
}

/* Let a held worker go, and wait until it has left its hold. */
static void let_go(struct engine *e, unsigned w, struct sl_worker_reconf *r)
{
	__atomic_store_n(&r->released, 1, __ATOMIC_RELEASE);
	while (__atomic_load_n(&e->workers[w].reconf, __ATOMIC_ACQUIRE) != NULL) {
		struct timespec nap = { 0, 20 * 1000 };
		nanosleep(&nap, NULL);
	}
}

/* Hand each worker its apps' new state (items[0..n)) and wait until every
 * one has applied it.  Returns 0, -ENOMEM, or -ETIMEDOUT naming the worker
 * (which may still apply it later: its part is then never freed). */
static int hand_over(struct engine *e, struct sl_app **apps, void **states, unsigned n,
		     struct sl_err *err)
{
	unsigned nw = e->cfg->n_workers;
	struct sl_worker_reconf **parts = calloc(nw, sizeof(*parts));
	unsigned *count = calloc(nw, sizeof(*count));
	int rc = 0;
	if (parts == NULL || count == NULL) {
		rc = sl_errf(err, ENOMEM, "out of memory");
		goto out;
	}
	for (unsigned i = 0; i < n; i++)
		count[apps[i]->worker]++;
	for (unsigned w = 0; w < nw; w++) {
		if (count[w] == 0)
			continue;
		parts[w] = calloc(1, sizeof(*parts[w]) + count[w] * sizeof(parts[w]->item[0]));
		if (parts[w] == NULL) {
			rc = sl_errf(err, ENOMEM, "out of memory");
			goto out;
		}
	}
	for (unsigned i = 0; i < n; i++) {
		struct sl_worker_reconf *p = parts[apps[i]->worker];
		p->item[p->n++] = (struct sl_worker_reconf_item){ apps[i], states[i] };
	}
	for (unsigned w = 0; w < nw && rc == 0; w++)
		if (parts[w] != NULL) {
			rc = give(e, w, parts[w], err);
			if (rc < 0)
				parts[w] = NULL;   /* it may still take it: never freed */
		}
out:
	if (parts != NULL)
		for (unsigned w = 0; w < nw; w++)
			free(parts[w]);
	free(parts);
	free(count);
	return rc;
}

/* ------------------------------------------------------------ structure */

/* What one worker runs. */
struct program {
	struct sl_app **pull, **tick;
	struct sl_push_entry *push;
	struct sl_il **il_prod, **il_cons;
	unsigned n_pull, n_tick, n_push, n_il_prod, n_il_cons;
};

/* A structural reload's plan (run/plan.h) being carried out. */
struct rebuild {
	const struct sl_config *nc;
	const struct sl_reload_plan *plan;
	struct sl_app **apps;        /* nc->n_apps: kept objects, or new ones */
	struct sl_link **links;      /* nc->n_links: kept, or new */
	struct program *prog;        /* per worker */
	bool *affected;              /* per worker: the plan's */
	struct sl_worker_reconf *holds;   /* per worker */
	uint64_t moved, freed;
};

static bool fresh(const struct rebuild *r, unsigned j)
{
	return r->plan->app_from[j] < 0;
}

static void free_program(struct program *p)
{
	free(p->pull);
	free(p->tick);
	free(p->push);
	free(p->il_prod);
	free(p->il_cons);
	memset(p, 0, sizeof(*p));
}

static void free_rebuild(struct engine *e, struct rebuild *r)
{
	if (r->prog != NULL)
		for (unsigned w = 0; w < e->cfg->n_workers; w++)
			free_program(&r->prog[w]);
	free(r->apps);
	free(r->links);
	free(r->prog);
	free(r->affected);
	free(r->holds);
}

/* Undo what prepare made before any worker saw it: new apps finished and
 * freed, new links freed. */
static void undo_fresh(struct rebuild *r)
{
	const struct sl_config *nc = r->nc;
	if (r->apps != NULL)
		for (unsigned j = nc->n_apps; j-- > 0;)
			if (fresh(r, j) && r->apps[j] != NULL) {
				struct sl_app *a = r->apps[j];
				if (a->inited && a->type->stop != NULL)
					a->type->stop(a);
				if (a->inited && a->type->fini != NULL)
					a->type->fini(a);
				sl_eng_free_app(a);
			}
	if (r->links != NULL)
		for (unsigned j = 0; j < nc->n_links; j++)
			if (r->plan->link_from[j] < 0)
				sl_eng_free_link(r->links[j]);
}

/* App j of the new structure gets its links. */
static void connect_app(const struct rebuild *r, unsigned j, struct sl_app *a)
{
	const struct sl_reload_ports *p = &r->plan->ports[j];
	for (unsigned q = 0; q < SL_MAX_PORTS; q++) {
		a->in[q] = p->in[q] >= 0 ? r->links[p->in[q]] : NULL;
		a->out[q] = p->out[q] >= 0 ? r->links[p->out[q]] : NULL;
	}
	a->n_in = p->n_in;
	a->n_out = p->n_out;
}

/* Worker w's lists for the new structure. */
static int build_program(struct rebuild *r, unsigned w, struct sl_err *err)
{
	const struct sl_config *nc = r->nc;
	struct program *p = &r->prog[w];
	p->pull = calloc(nc->n_apps + 1, sizeof(*p->pull));
	p->tick = calloc(nc->n_apps + 1, sizeof(*p->tick));
	p->push = calloc(nc->n_apps + 1, sizeof(*p->push));
	p->il_prod = calloc(nc->n_links + 1, sizeof(*p->il_prod));
	p->il_cons = calloc(nc->n_links + 1, sizeof(*p->il_cons));
	if (p->pull == NULL || p->tick == NULL || p->push == NULL || p->il_prod == NULL ||
	    p->il_cons == NULL)
		return sl_errf(err, ENOMEM, "out of memory");
	for (unsigned i = 0; i < nc->n_links; i++) {
		const struct sl_link_cfg *lc = &nc->links[i];
		struct sl_il *il = r->links[i]->il;
		if (il == NULL)
			continue;
		if (nc->apps[lc->from.app].worker == w)
			p->il_prod[p->n_il_prod++] = il;
		if (nc->apps[lc->to.app].worker == w)
			p->il_cons[p->n_il_cons++] = il;
	}
	for (unsigned k = 0; k < nc->n_apps; k++) {
		unsigned j = nc->order[k];
		if (nc->apps[j].worker != w)
			continue;
		struct sl_app *a = r->apps[j];
		if (a->type->pull != NULL)
			p->pull[p->n_pull++] = a;
		if (a->type->tick != NULL)
			p->tick[p->n_tick++] = a;
		if (a->type->push != NULL) {
			struct sl_push_entry *pe = &p->push[p->n_push++];
			const struct sl_reload_ports *ports = &r->plan->ports[j];
			pe->app = a;
			pe->n_in = 0;
			for (unsigned q = 0; q < ports->n_in; q++)
				if (ports->in[q] >= 0)
					pe->in[pe->n_in++] = r->links[ports->in[q]];
		}
	}
	return 0;
}

static bool same_program(const struct sl_worker *wk, const struct program *p)
{
	if (wk->n_pull != p->n_pull || wk->n_tick != p->n_tick || wk->n_push != p->n_push ||
	    wk->n_il_prod != p->n_il_prod || wk->n_il_cons != p->n_il_cons)
		return false;
	if (memcmp(wk->pull, p->pull, p->n_pull * sizeof(*p->pull)) != 0 ||
	    memcmp(wk->tick, p->tick, p->n_tick * sizeof(*p->tick)) != 0 ||
	    memcmp(wk->il_prod, p->il_prod, p->n_il_prod * sizeof(*p->il_prod)) != 0 ||
	    memcmp(wk->il_cons, p->il_cons, p->n_il_cons * sizeof(*p->il_cons)) != 0)
		return false;
	for (unsigned i = 0; i < p->n_push; i++) {
		const struct sl_push_entry *x = &wk->push[i], *y = &p->push[i];
		if (x->app != y->app || x->n_in != y->n_in ||
		    memcmp(x->in, y->in, y->n_in * sizeof(y->in[0])) != 0)
			return false;
	}
	return true;
}

/* Step 1 off the data path, as the plan says: objects for what is new,
 * connected (nobody runs them yet), new apps started, and each worker's new
 * lists.  A restarted app is initialised and started once the app it
 * replaces has let go of what they share (a device).  On failure,
 * undo_fresh undoes it. */
static int prepare(struct engine *e, struct rebuild *r, struct sl_err *err)
{
	const struct sl_reload_plan *p = r->plan;
	const struct sl_config *nc = r->nc;
	unsigned nw = e->cfg->n_workers;
	r->apps = calloc(nc->n_apps + 1, sizeof(*r->apps));
	r->links = calloc(nc->n_links + 1, sizeof(*r->links));
	r->prog = calloc(nw, sizeof(*r->prog));
	r->affected = calloc(nw, sizeof(bool));
	r->holds = calloc(nw, sizeof(*r->holds));
	if (r->apps == NULL || r->links == NULL || r->prog == NULL || r->affected == NULL ||
	    r->holds == NULL)
		return sl_errf(err, ENOMEM, "out of memory");
	for (unsigned j = 0; j < nc->n_apps; j++) {
		r->apps[j] = !fresh(r, j) ? e->apps[p->app_from[j]] : sl_eng_new_app(e, nc, j, err);
		if (r->apps[j] == NULL)
			return -ENOMEM;
	}
	for (unsigned j = 0; j < nc->n_links; j++) {
		int i = p->link_from[j];
		r->links[j] = i >= 0 ? e->links[i] : sl_eng_new_link(e, nc, j, r->apps, err);
		if (r->links[j] == NULL)
			return -ENOMEM;
	}
	for (unsigned j = 0; j < nc->n_apps; j++)
		if (fresh(r, j))
			connect_app(r, j, r->apps[j]);
	for (unsigned j = 0; j < nc->n_apps; j++)
		if (fresh(r, j) && !p->restarted[j]) {
			int rc = sl_eng_init_app(nc, j, r->apps[j], err);
			if (rc == 0)
				rc = sl_eng_start_app(r->apps[j], err);
			if (rc < 0)
				return rc;
		}
	for (unsigned w = 0; w < nw; w++) {
		int rc = build_program(r, w, err);
		if (rc < 0)
			return rc;
		r->affected[w] = p->affected[w];
		if (!r->affected[w] && !same_program(&e->workers[w], &r->prog[w])) {
			sl_warn("reload: worker '%s' gets new lists its plan did not foresee; it "
				"is held too", e->workers[w].name);
			r->affected[w] = true;
		}
	}
	return 0;
}

/* Move what old holds into new, the link rebuilt for it (both ends of both
 * held, or not running yet), and carry old's counters over: new goes on
 * from old's totals, as if it were the same link.  The move itself is no
 * traffic: a moved packet stays counted once in `packets` (when it was
 * accepted), received or consumed by nobody yet; one that does not fit in
 * new is dropped (a drop of the link, no longer counted as accepted). */
static uint64_t move_packets(struct sl_link *old, struct sl_link *new)
{
	struct sl_link_stats before;
	sl_link_stats_read(old, &before);
	struct rte_mbuf *pkts[64];
	uint64_t n = 0;
	unsigned k;
	while ((k = sl_link_receive(old, pkts, RTE_DIM(pkts))) > 0) {
		/* queued, also on a direct link (its consumer's push takes
		 * them); what does not fit is a drop of new */
		sl_link_enqueue(new, pkts, k);
		n += k;
	}
	if (old->il != NULL)
		sl_il_publish_consumer(old->il);
	if (new->il != NULL)
		sl_il_publish_producer(new->il);
	uint64_t overflow = sl_counter_read(&new->tx.drops);
	sl_counter_set(&new->tx.packets, before.tx_packets - overflow);
	sl_counter_set(&new->tx.drops, before.drops + overflow);
	sl_counter_set(&new->rx.packets, before.rx_packets);
	sl_counter_set(&new->rx.bytes, before.rx_bytes);
	return n;
}

/* Hold the affected workers.  Returns 0, or -ETIMEDOUT with those held let
 * go again (nothing changed). */
static int hold(struct engine *e, struct rebuild *r, struct sl_err *err)
{
	unsigned nw = e->cfg->n_workers;
	int rc = 0;
	for (unsigned w = 0; w < nw && rc == 0; w++)
		if (r->affected[w]) {
			r->holds[w] = (struct sl_worker_reconf){ .hold = true };
			rc = give(e, w, &r->holds[w], err);
		}
	if (rc < 0)
		for (unsigned w = 0; w < nw; w++)
			if (r->affected[w] && __atomic_load_n(&r->holds[w].held, __ATOMIC_ACQUIRE))
				let_go(e, w, &r->holds[w]);
	return rc;
}

/* Removed links' packets go into their rebuilt selves, or are freed and
 * counted; the apps that go are stopped and finished (their workers are
 * held). */
static void let_go_of_old(struct engine *e, struct rebuild *r)
{
	const struct sl_config *oc = e->cfg;
	for (unsigned i = 0; i < oc->n_links; i++) {
		if (r->plan->old_link_kept[i])
			continue;
		if (r->plan->into[i] >= 0)
			r->moved += move_packets(e->links[i], r->links[r->plan->into[i]]);
		else
			r->freed += sl_eng_free_link_contents(e->links[i]);
	}
	for (unsigned i = oc->n_apps; i-- > 0;) {
		struct sl_app *a = e->apps[i];
		if (r->plan->old_app_kept[i] || !a->inited)
			continue;
		if (a->type->stop != NULL)
			a->type->stop(a);
		if (a->type->fini != NULL)
			a->type->fini(a);
		a->inited = false;
	}
}

/* Kept apps and links take their new place; the held workers their new
 * lists (their old ones are freed with the rebuild). */
static void switch_over(struct engine *e, struct rebuild *r)
{
	const struct sl_config *nc = r->nc;
	for (unsigned j = 0; j < nc->n_apps; j++) {
		if (fresh(r, j))
			continue;
		struct sl_app *a = r->apps[j];
		connect_app(r, j, a);
		if (r->affected[a->worker] && r->affected[nc->apps[j].worker])
			sl_eng_place_app(e, nc, j, a);
	}
	for (unsigned j = 0; j < nc->n_links; j++) {
		const struct sl_link_cfg *lc = &nc->links[j];
		struct sl_link *l = r->links[j];
		/* Ends and the direct take only where no worker reads them
		 * now: a new link, or one of a held worker (a kept link whose
		 * ends change holds both; an unheld one keeps them all). */
		if (r->plan->link_from[j] < 0 || r->affected[nc->apps[lc->from.app].worker] ||
		    r->affected[nc->apps[lc->to.app].worker]) {
			l->from = r->apps[lc->from.app];
			l->to = r->apps[lc->to.app];
			sl_eng_link_direct(e, nc, j, l);
		}
		l->from_port = lc->from.port;
		l->to_port = lc->to.port;
		l->index = j;
	}
	for (unsigned w = 0; w < e->cfg->n_workers; w++) {
		if (!r->affected[w])
			continue;
		struct sl_worker *wk = &e->workers[w];
		struct program old = { wk->pull, wk->tick, wk->push, wk->il_prod, wk->il_cons,
				       0, 0, 0, 0, 0 };
		struct program *p = &r->prog[w];
		wk->pull = p->pull;
		wk->n_pull = p->n_pull;
		wk->tick = p->tick;
		wk->n_tick = p->n_tick;
		wk->push = p->push;
		wk->n_push = p->n_push;
		wk->il_prod = p->il_prod;
		wk->n_il_prod = p->n_il_prod;
		wk->il_cons = p->il_cons;
		wk->n_il_cons = p->n_il_cons;
		*p = old;
	}
}

/* Step 1 on the data path: hold the affected workers, switch, let go.
 * Returns 0, or -errno when a restarted app could not start (the engine
 * then stops: e->reload_stopped). */
static int apply_structure(struct engine *e, struct rebuild *r, struct sl_err *err)
{
	const struct sl_config *nc = r->nc;
	sl_tel_pause();   /* telemetry waits for the new objects (sl_eng_attach_view) */
	int rc = hold(e, r, err);
	if (rc < 0)
		return rc;
	let_go_of_old(e, r);
	/* Restarted apps, now that the old ones let go. */
	for (unsigned j = 0; j < nc->n_apps && rc == 0; j++)
		if (r->plan->restarted[j]) {
			rc = sl_eng_init_app(nc, j, r->apps[j], err);
			if (rc == 0)
				rc = sl_eng_start_app(r->apps[j], err);
		}
	if (rc < 0) {   /* no way back: stop with everything accounted for */
		e->reload_stopped = true;
		__atomic_store_n(&e->stop, true, __ATOMIC_RELEASE);
	}
	switch_over(e, r);
	for (unsigned w = 0; w < e->cfg->n_workers; w++)
		if (r->affected[w])
			let_go(e, w, &r->holds[w]);
	return rc;
}

/* After the switch: the engine's tables are the new structure's; what went
 * is freed. */
static void settle(struct engine *e, struct rebuild *r, struct sl_config *nc)
{
	const struct sl_config *oc = e->cfg;
	for (unsigned i = 0; i < oc->n_apps; i++)
		if (!r->plan->old_app_kept[i])
			sl_eng_free_app(e->apps[i]);
	for (unsigned i = 0; i < oc->n_links; i++)
		if (!r->plan->old_link_kept[i]) {
			sl_cap_link_gone(e->links[i]);
			sl_eng_free_link(e->links[i]);
		}
	free(e->apps);
	free(e->links);
	e->apps = r->apps;
	e->links = r->links;
	r->apps = NULL;
	r->links = NULL;
	e->cfg = nc;
	e->generation++;
	__atomic_store_n(&e->freed_by_reload, e->freed_by_reload + r->freed, __ATOMIC_RELAXED);
	struct sl_err err = { "" };
	if (sl_eng_rebuild_everyone(e, &err) < 0)
		sl_warn("reload: %s (the drain at stop may miss apps)", err.msg);
}

/* ------------------------------------------------------------ requests */

static json_t *actions_json(const struct sl_diff *d)
{
	json_t *a = json_array();
	for (unsigned i = 0; a != NULL && i < d->n; i++)
		json_array_append_new(a, json_pack("{ssssss}", "action",
						   sl_diff_kind_name(d->actions[i].kind), "name",
						   d->actions[i].name, "detail",
						   d->actions[i].detail));
	return a;
}

/* The reconfigure actions of a reload: each app's new state, built off the
 * data path before anything else changes. */
struct reconf {
	struct sl_app **apps;
	void **states;
	const struct sl_param_value **params;
	unsigned n, made;
};

static int reconf_build(struct engine *e, const struct sl_config *nc,
			const struct sl_reload_plan *p, struct reconf *x, struct sl_err *err)
{
	x->apps = calloc(p->n_reconf + 1, sizeof(*x->apps));
	x->states = calloc(p->n_reconf + 1, sizeof(*x->states));
	x->params = calloc(p->n_reconf + 1, sizeof(*x->params));
	if (x->apps == NULL || x->states == NULL || x->params == NULL)
		return sl_errf(err, ENOMEM, "out of memory");
	for (unsigned i = 0; i < p->n_reconf; i++) {
		const struct sl_reload_reconf *a = &p->reconf[i];
		if (a->old_index < 0)
			return sl_errf(err, ENOENT, "app '%s': not running", a->name);
		x->apps[x->n] = e->apps[a->old_index];
		x->params[x->n++] = nc->apps[a->new_index].params;
	}
	for (; x->made < x->n; x->made++) {
		struct sl_app *app = x->apps[x->made];
		int rc = app->type->reconfig(app, x->params[x->made], &x->states[x->made], err);
		if (rc < 0)
			return sl_err_prefix(err, -rc, "app '%s'", app->name);
	}
	return 0;
}

/* Apply them (the apps are where the structure step left them).  Returns 0
 * or -errno; after -ETIMEDOUT a worker may still apply its part. */
static int reconf_apply(struct engine *e, struct reconf *x, struct sl_err *err)
{
	if (x->n > 0) {
		int rc = hand_over(e, x->apps, x->states, x->n, err);
		if (rc == -ETIMEDOUT)
			x->made = 0;   /* keep the states: they may be applied yet */
		if (rc < 0)
			return rc;
	}
	for (unsigned i = 0; i < x->n; i++) {
		x->apps[i]->params = x->params[i];
		x->apps[i]->type->release(x->apps[i], x->states[i], true);
	}
	x->made = 0;
	return 0;
}

/* Release what was built and not applied, and the arrays. */
static void reconf_free(struct reconf *x)
{
	for (unsigned i = 0; i < x->made; i++)
		x->apps[i]->type->release(x->apps[i], x->states[i], false);
	free(x->apps);
	free(x->states);
	free(x->params);
}

/* After a reload applied nc: every app's strings and parameters are nc's
 * (equal to those it has, or the live ones the reload gave it), so that
 * nothing points into the configs before it (app.h).  e->apps is parallel
 * to e->cfg, which is nc after a structural reload and otherwise holds the
 * same apps, most often in the same order.  Telemetry paused. */
static void adopt(struct engine *e, const struct sl_config *nc)
{
	const struct sl_config *c = e->cfg;
	for (unsigned i = 0; i < c->n_apps; i++) {
		struct sl_app *a = e->apps[i];
		int j = (int)i;
		if (c != nc && (i >= nc->n_apps || strcmp(nc->apps[i].name, a->name) != 0))
			j = sl_config_find_app(nc, a->name);
		if (j < 0)
			continue;   /* not reached: nc runs the same apps */
		const struct sl_app_cfg *ac = &nc->apps[j];
		a->name = ac->name;
		a->base = ac->base;
		a->group = nc->workers[ac->worker].group;
		a->params = ac->params;
	}
}

/* Free the configs reloads loaded that nothing uses any more: all but the
 * structure running (e->cfg: links, telemetry) and the last one applied
 * (e->running: the apps' strings and parameters, the next diff). */
static void sweep(struct engine *e)
{
	unsigned k = 0;
	for (unsigned i = 0; i < e->n_loaded; i++) {
		struct sl_config *c = e->loaded[i];
		if (c == e->cfg || c == e->running)
			e->loaded[k++] = c;
		else
			sl_config_free(c);
	}
	e->n_loaded = k;
}

/* A reload was applied: count it and its time, move the apps' strings and
 * parameters to the config now running and free those before it (nothing
 * points into them any more), with telemetry paused meanwhile. */
static void applied(struct engine *e)
{
	__atomic_store_n(&e->reloads, e->reloads + 1, __ATOMIC_RELAXED);
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	__atomic_store_n(&e->last_reload_ns,
			 (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec,
			 __ATOMIC_RELAXED);
	sl_tel_pause();
	adopt(e, e->running);
	sl_eng_attach_view(e);
	sweep(e);
}

/* The config at path, loaded, placed as `sluice check` places it (cores
 * that exist, ...) and diffed against the one running.  NULL with the
 * error reply in *reply. */
static struct sl_config *load(struct engine *e, const char *path, struct sl_diff *d,
			      json_t **reply)
{
	struct sl_err err = { "" };
	struct sl_config *nc = sl_config_load(path, &err);
	if (nc == NULL) {
		*reply = sl_ctl_error(SL_EXIT_CONFIG, err.msg);
		return NULL;
	}
	struct sl_plan plan;
	if (sl_config_place(nc, e->topo, NULL, &plan, &err) < 0) {
		sl_config_free(nc);
		*reply = sl_ctl_error(SL_EXIT_CONFIG, err.msg);
		return NULL;
	}
	sl_plan_free(&plan);
	int rc = sl_config_diff(e->running, nc, d, &err);
	if (rc < 0) {
		sl_config_free(nc);
		*reply = sl_ctl_error(rc == -EPERM ? SL_EXIT_CONFIG : SL_EXIT_RUNTIME, err.msg);
		return NULL;
	}
	return nc;
}

/* The structure step, as p plans it.  Returns NULL with the packets moved
 * and freed in moved[0..1], or the error reply (nothing changed, unless it
 * says that the engine stops).  *nc is the engine's after a switch (NULL). */
static json_t *restructure(struct engine *e, const char *path, struct sl_config **nc,
			   const struct sl_reload_plan *p, uint64_t moved[2])
{
	struct sl_err err = { "" };
	struct rebuild r = { .nc = *nc, .plan = p };
	int rc = prepare(e, &r, &err);
	if (rc == 0)
		rc = apply_structure(e, &r, &err);
	if (rc < 0 && !e->reload_stopped) {   /* nothing changed */
		undo_fresh(&r);
		free_rebuild(e, &r);
		sl_eng_attach_view(e);
		return sl_ctl_error(rc == -EDOM ? SL_EXIT_CONFIG : SL_EXIT_RUNTIME, err.msg);
	}
	moved[0] = r.moved;
	moved[1] = r.freed;
	settle(e, &r, *nc);
	free_rebuild(e, &r);
	sl_eng_attach_view(e);
	e->loaded[e->n_loaded++] = *nc;
	e->running = *nc;
	*nc = NULL;
	if (!e->reload_stopped)
		return NULL;
	char m[700];
	snprintf(m, sizeof(m), "%s; the engine stops (the apps it replaced are gone; "
		 "every mbuf is accounted for at stop)", err.msg);
	sl_warn("reload of %s failed half-way: %s", path, m);
	return sl_ctl_error(SL_EXIT_RUNTIME, m);
}

/* Apply nc, as p plans it: the reply. */
static json_t *apply(struct engine *e, const char *path, struct sl_config **nc,
		     const struct sl_diff *d, const struct sl_reload_plan *p)
{
	if (p->refused < 0) {
		char m[900];
		snprintf(m, sizeof(m), "%s: %s; nothing was changed (restart Sluice for this "
			 "config, or --dry-run to list every action)", path, p->why);
		return sl_ctl_error(SL_EXIT_CONFIG, m);
	}
	/* The configs in use (e->cfg, e->running) and this one: a successful
	 * reload frees those it replaced (sweep). */
	struct sl_config **loaded = realloc(e->loaded, (e->n_loaded + 1) * sizeof(*loaded));
	if (loaded == NULL)
		return sl_ctl_error(SL_EXIT_RUNTIME, "out of memory");
	e->loaded = loaded;
	struct sl_err err = { "" };
	struct reconf x = { 0 };
	json_t *reply = NULL;
	uint64_t moved[2] = { 0, 0 };
	if (reconf_build(e, *nc, p, &x, &err) < 0)
		reply = sl_ctl_error(SL_EXIT_RUNTIME, err.msg);
	else if (p->structural)
		reply = restructure(e, path, nc, p, moved);
	/* A worker that does not answer: the structure (if any) stays. */
	if (reply == NULL && reconf_apply(e, &x, &err) < 0)
		reply = sl_ctl_error(SL_EXIT_RUNTIME, err.msg);
	reconf_free(&x);
	if (reply != NULL)
		return reply;
	if (*nc != NULL) {
		e->loaded[e->n_loaded++] = *nc;
		e->running = *nc;
		*nc = NULL;
	}
	applied(e);
	return json_pack("{sbsbsosIsIsI}", "ok", 1, "applied", 1, "actions", actions_json(d),
			 "reloads", (json_int_t)e->reloads, "moved", (json_int_t)moved[0],
			 "freed", (json_int_t)moved[1]);
}

/* Reload the config at path (docs/control.md).  The reply's status is 2 for
 * a config that does not load or cannot be applied to this engine, 1 for a
 * failure while applying: nothing changed, unless the reply says that the
 * engine stops. */
static json_t *reload(struct engine *e, const char *path, bool dry_run)
{
	json_t *reply = NULL;
	struct sl_diff d;
	struct sl_config *nc = load(e, path, &d, &reply);
	if (nc == NULL)
		return reply;
	if (dry_run) {
		reply = json_pack("{sbsbso}", "ok", 1, "applied", 0, "actions", actions_json(&d));
	} else {
		struct sl_reload_plan p;
		struct sl_err err = { "" };
		if (sl_reload_plan(e->cfg, nc, &d, &p, &err) < 0)
			reply = sl_ctl_error(SL_EXIT_RUNTIME, err.msg);
		else
			reply = apply(e, path, &nc, &d, &p);
		sl_reload_plan_free(&p);
	}
	sl_diff_free(&d);
	sl_config_free(nc);
	return reply;
}

json_t *sl_eng_reload(struct engine *e, const char *path, bool dry_run)
{
	if (dry_run)
		return reload(e, path, true);
	sl_tel_reloading(true);
	json_t *r = reload(e, path, false);
	sl_tel_reloading(false);
	return r;
}

void sl_eng_reload_on_hup(struct engine *e)
{
	const char *path = e->start_path;
	if (path == NULL || e->reload_stopped)
		return;
	char file[4096];
	snprintf(file, sizeof(file), "%s", path);
	json_t *r = sl_eng_reload(e, file, false);
	if (r == NULL) {
		sl_warn("SIGHUP: reload of %s: out of memory", file);
		return;
	}
	if (json_is_true(json_object_get(r, "ok")))
		sl_note("SIGHUP: reloaded %s (%zu actions applied)", file,
			       json_array_size(json_object_get(r, "actions")));
	else
		sl_warn("SIGHUP: reload failed, nothing changed: %s",
			       json_string_value(json_object_get(r, "error")));
	json_decref(r);
}
