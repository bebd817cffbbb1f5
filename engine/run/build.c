/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The pieces an engine is built of (build.h), for its setup (engine.c) and
 * for reloads (reload.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "base/note.h"
#include "config/diff.h"
#include "config/lookup.h"
#include "interlink/interlink.h"
#include "ops/capture.h"
#include "ops/telemetry.h"
#include "run/build.h"
#include "run/plan.h"
#include "run/signals.h"

double sl_eng_now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void sl_eng_place_app(struct engine *e, const struct sl_config *cfg, unsigned i,
		      struct sl_app *a)
{
	const struct sl_app_cfg *ac = &cfg->apps[i];
	a->name = ac->name;
	a->index = i;
	a->worker = ac->worker;
	a->base = ac->base;
	a->group = cfg->workers[ac->worker].group;
	a->replica = ac->replica;
	a->n_replicas = ac->n_replicas;
	a->params = ac->params;
	a->epoch_w = e->workers[ac->worker].epoch_w;
}

struct sl_app *sl_eng_new_app(struct engine *e, const struct sl_config *cfg, unsigned i,
			      struct sl_err *err)
{
	const struct sl_app_cfg *ac = &cfg->apps[i];
	int socket = e->workers[ac->worker].socket;
	struct sl_app *a = rte_zmalloc_socket("sl_app", sizeof(*a), RTE_CACHE_LINE_SIZE, socket);
	if (a == NULL)
		return sl_errf_null(err, ENOMEM, "app '%s': out of memory", ac->name);
	a->type = ac->type;
	sl_eng_place_app(e, cfg, i, a);
	a->burst = cfg->burst;
	a->pool = e->pool;
	a->socket = socket;
	a->l3_bytes = e->workers[ac->worker].l3_bytes;
	a->epoch = e->epoch;
	a->control_epoch_w = e->ctl_epoch_w;
	if (a->type->priv_size > 0) {
		a->priv = rte_zmalloc_socket("sl_app", a->type->priv_size, RTE_CACHE_LINE_SIZE,
					     a->socket);
		if (a->priv == NULL) {
			rte_free(a);
			return sl_errf_null(err, ENOMEM, "app '%s': out of memory", ac->name);
		}
	}
	return a;
}

void sl_eng_free_app(struct sl_app *a)
{
	if (a == NULL)
		return;
	if (a->replicas != NULL && a->replica == 0)
		free((void *)(uintptr_t)a->replicas);
	free(a->table_last);
	rte_free(a->priv);
	rte_free(a);
}

int sl_eng_init_app(const struct sl_config *cfg, unsigned i, struct sl_app *a,
		    struct sl_err *err)
{
	if (a->type->init == NULL) {
		a->inited = true;
	} else {
		int rc = sl_step_to(err, "initialising app '%s' (%s)", a->name, a->type->name);
		if (rc < 0)
			return rc;
		rc = a->type->init(a, err);
		a->inited = true;    /* fini must run even after a failed init */
		if (rc == -EDOM) {   /* the configuration asks too much of the device */
			const struct sl_mark *m = &cfg->apps[i].mark;
			return sl_err_prefix(err, EDOM, "%s:%u:%u: app '%s'", cfg->path, m->line,
					     m->col, a->base != NULL ? a->base : a->name);
		}
		if (rc < 0)
			return sl_err_prefix(err, -rc, "app '%s'", a->name);
	}
	return 0;
}

int sl_eng_start_app(struct sl_app *a, struct sl_err *err)
{
	if (a->type->start == NULL)
		return 0;
	int rc = sl_step_to(err, "starting app '%s' (%s)", a->name, a->type->name);
	if (rc == 0)
		rc = a->type->start(a, err);
	return rc < 0 ? sl_err_prefix(err, -rc, "app '%s'", a->name) : 0;
}

void sl_eng_link_direct(struct engine *e, const struct sl_config *cfg, unsigned i,
			struct sl_link *l)
{
	unsigned oi;
	sl_reload_link_ports(cfg, i, &oi, &l->to_in);
	bool direct = sl_config_link_direct(cfg, i);
	l->take = direct ? l->to->type->take : NULL;
	l->take_w = direct ? &e->workers[cfg->apps[cfg->links[i].to.app].worker] : NULL;
}

struct sl_link *sl_eng_new_link(struct engine *e, const struct sl_config *cfg, unsigned i,
				struct sl_app *const *apps, struct sl_err *err)
{
	const struct sl_link_cfg *lc = &cfg->links[i];
	struct sl_app *from = apps[lc->from.app], *to = apps[lc->to.app];
	unsigned wf = cfg->apps[lc->from.app].worker, wt = cfg->apps[lc->to.app].worker;
	int socket = e->workers[wt].socket;
	struct sl_link *l = rte_zmalloc_socket("sl_link", sizeof(*l), RTE_CACHE_LINE_SIZE, socket);
	if (l == NULL)
		return sl_errf_null(err, ENOMEM, "out of memory");
	l->from = from;
	l->to = to;
	l->from_port = lc->from.port;
	l->to_port = lc->to.port;
	l->index = i;
	sl_config_link_name(cfg, i, l->name, sizeof(l->name));
	uint32_t size = lc->size != 0 ? lc->size : cfg->link_size;
	if (wf == wt) {
		l->mask = size - 1;
		l->slots = rte_zmalloc_socket("sl_link", size * sizeof(void *), RTE_CACHE_LINE_SIZE,
					      socket);
		if (l->slots == NULL) {
			sl_errf(err, ENOMEM, "link '%s': out of memory", l->name);
			goto out_free;
		}
		sl_eng_link_direct(e, cfg, i, l);
		return l;
	}
	if (cfg->link_impl == SL_LINK_RING) {
		char rname[RTE_RING_NAMESIZE];
		snprintf(rname, sizeof(rname), "sluice_r%u", e->il_serial++);
		l->ring = rte_ring_create(rname, size, socket,
					  RING_F_SP_ENQ | RING_F_SC_DEQ | RING_F_EXACT_SZ);
		if (l->ring == NULL) {
			int e = rte_errno;
			sl_errf(err, e, "link '%s': cannot create its rte_ring: %s", l->name,
				rte_strerror(e));
			sl_eng_free_link(l);
			errno = e;
			return NULL;
		}
		return l;
	}
	char name[SL_IL_NAME_MAX + 1];
	snprintf(name, sizeof(name), "sluice_l%u", e->il_serial++);
	struct sl_il_config ilc = { .size = size, .socket = socket };
	l->il = sl_il_create(name, &ilc, err);
	if (l->il == NULL) {
		sl_err_prefix(err, errno > 0 ? errno : ENOMEM, "link '%s': cannot create its "
			      "interlink", l->name);
		goto out_free;
	}
	/* The control thread attaches both ends for the workers (and uses
	 * them itself to drain at stop). */
	int rc = sl_il_attach(l->il, SL_IL_PRODUCER);
	if (rc == 0)
		rc = sl_il_attach(l->il, SL_IL_CONSUMER);
	if (rc < 0) {
		sl_errf(err, -rc, "link '%s': cannot attach its interlink: %s", l->name,
			strerror(-rc));
		goto out_free;
	}
	return l;
out_free:
	sl_eng_free_link(l);
	errno = ENOMEM;
	return NULL;
}

static void free_mbuf(void *obj, void *arg)
{
	(void)arg;
	rte_pktmbuf_free(obj);
}

uint64_t sl_eng_free_link_contents(struct sl_link *l)
{
	if (l->il != NULL)
		return sl_il_drain(l->il, free_mbuf, NULL);
	struct rte_mbuf *pkts[64];
	uint64_t n = 0;
	unsigned k;
	while ((k = sl_link_receive(l, pkts, RTE_DIM(pkts))) > 0) {
		rte_pktmbuf_free_bulk(pkts, k);
		n += k;
	}
	return n;
}

/* Detach both ends of a link's interlink (attached by create_links unless it
 * failed half-way) and free it; what is still in it (nothing after teardown,
 * unless setup failed) is freed first.  A ring that cannot be freed keeps its
 * memzone until the process exits: say so. */
static void free_interlink(struct sl_link *l)
{
	int rc = 0;
	for (int end = SL_IL_PRODUCER; end <= SL_IL_CONSUMER && rc == 0; end++)
		if (sl_il_state(l->il, (enum sl_il_end)end) == SL_IL_ATTACHED)
			rc = sl_il_detach(l->il, (enum sl_il_end)end);
	if (rc == 0) {
		rc = sl_il_free(l->il);
		if (rc == -ENOTEMPTY) {
			sl_il_drain(l->il, free_mbuf, NULL);
			rc = sl_il_free(l->il);
		}
	}
	if (rc < 0)
		sl_warn_err("link '%s': cannot free its interlink: %s (its memory stays "
				   "reserved until the process exits)", l->name, strerror(-rc));
	l->il = NULL;
}

void sl_eng_free_link(struct sl_link *l)
{
	if (l == NULL)
		return;
	rte_free(l->slots);
	if (l->il != NULL)
		free_interlink(l);
	if (l->ring != NULL) {
		sl_eng_free_link_contents(l);   /* nothing after teardown */
		rte_ring_free(l->ring);
	}
	rte_free(l);
}

void sl_eng_push_entry(struct sl_push_entry *pe, struct sl_app *a)
{
	pe->app = a;
	pe->n_in = 0;
	for (unsigned p = 0; p < a->n_in; p++)
		if (a->in[p] != NULL)
			pe->in[pe->n_in++] = a->in[p];
}

/* The control thread's list of every app and interlink (for the drain at
 * stop), for the structure running now. */
int sl_eng_rebuild_everyone(struct engine *e, struct sl_err *err)
{
	const struct sl_config *cfg = e->cfg;
	struct sl_worker *ev = &e->everyone;
	free(ev->push);
	free(ev->il_prod);
	free(ev->il_cons);
	ev->push = calloc(cfg->n_apps + 1, sizeof(*ev->push));
	ev->il_prod = calloc(cfg->n_links + 1, sizeof(struct sl_il *));
	ev->il_cons = calloc(cfg->n_links + 1, sizeof(struct sl_il *));
	ev->n_push = ev->n_il_prod = ev->n_il_cons = 0;
	if (ev->push == NULL || ev->il_prod == NULL || ev->il_cons == NULL)
		return sl_errf(err, ENOMEM, "out of memory");
	for (unsigned i = 0; i < cfg->n_links; i++)
		if (e->links[i]->il != NULL) {
			ev->il_prod[ev->n_il_prod++] = e->links[i]->il;
			ev->il_cons[ev->n_il_cons++] = e->links[i]->il;
		}
	for (unsigned k = 0; k < cfg->n_apps; k++) {
		struct sl_app *a = e->apps[cfg->order[k]];
		if (a->type->push != NULL)
			sl_eng_push_entry(&ev->push[ev->n_push++], a);
	}
	return 0;
}

void sl_eng_attach_view(struct engine *e)
{
	struct sl_tel_view tv = {
		.cfg = e->cfg, .apps = e->apps, .links = e->links, .workers = e->workers,
		.pool = e->pool, .epoch = e->epoch, .control_cpu = e->plan->main_cpu,
		.reloads = &e->reloads, .freed_by_reload = &e->freed_by_reload,
		.last_reload_ns = &e->last_reload_ns,
	};
	sl_tel_attach(&tv);
	struct sl_cap_view cv = {
		.cfg = e->cfg, .links = e->links, .epoch = e->epoch, .epoch_w = e->ctl_epoch_w,
		.ctl = &e->ctl, .stopping = &e->reload_stopped,
	};
	sl_cap_attach(&cv);
}
