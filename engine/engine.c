/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "engine.h"
#include "epoch.h"
#include "interlink.h"
#include "placement.h"
#include "pool.h"
#include "worker.h"

static volatile sig_atomic_t signalled;

static void on_signal(int sig)
{
	signalled = sig;
}

/* Everything one run owns; torn down in reverse order of setup. */
struct engine {
	const struct sl_config *cfg;
	const struct sl_run_opts *opts;
	struct rte_mempool *pool;
	struct sl_app *apps;            /* cfg->n_apps */
	struct sl_link *links;          /* cfg->n_links */
	struct sl_worker *workers;      /* cfg->n_workers */
	struct sl_worker everyone;      /* all apps, for the drain on stop */
	struct sl_epoch *epoch;
	uint64_t epoch_drained;
	const struct sl_plan *plan;
	bool stop;
	uint64_t drained, freed_at_stop;
};

/* ---------------------------------------------------------------- EAL */

static int eal_init(struct engine *e, struct sl_err *err)
{
	const struct sl_config *cfg = e->cfg;
	unsigned argc = 0, max = cfg->n_eal_args + e->opts->n_eal_args + 4;
	char **argv = calloc(max, sizeof(*argv));
	char *lcores = malloc(16 * (cfg->n_workers + 1) + 16);
	if (argv == NULL || lcores == NULL) {
		free(argv);
		free(lcores);
		return sl_errf(err, ENOMEM, "out of memory");
	}
	argv[argc++] = (char *)"sluice";
	for (unsigned i = 0; i < cfg->n_eal_args; i++)
		argv[argc++] = cfg->eal_args[i];
	for (unsigned i = 0; i < e->opts->n_eal_args; i++)
		argv[argc++] = e->opts->eal_args[i];
	int len = sprintf(lcores, "0@%d", e->plan->main_cpu);
	for (unsigned w = 0; w < cfg->n_workers; w++)
		len += sprintf(lcores + len, ",%u@%d", w + 1, e->plan->cpus[w]);
	argv[argc++] = (char *)"--lcores";
	argv[argc++] = lcores;

	int rc = rte_eal_init((int)argc, argv);
	int saved = rte_errno;
	free(argv);
	free(lcores);
	if (rc < 0)
		return sl_errf(err, saved ? saved : EINVAL,
			       "cannot initialise DPDK (EAL arguments in dpdk.args or after --): %s",
			       rte_strerror(saved));
	return 0;
}

/* ---------------------------------------------------------------- build */

/* The mbuf pool: Sluice's chunked pool (pool/) with DPDK's cache disabled,
 * or with `ops: dpdk` DPDK's ring_mp_mc and its per-lcore cache.  Created on
 * the first worker's node (falling back to any node). */
static int create_pool(struct engine *e, const struct sl_topology *topo, struct sl_err *err)
{
	const struct sl_pool_cfg *p = &e->cfg->pool;
	uint16_t room = (uint16_t)(p->data_room + RTE_PKTMBUF_HEADROOM);
	int socket = e->workers[0].socket;

	if (p->ops == SL_POOL_OPS_DPDK) {
		if (p->cache > 0 && p->cache * 3 / 2 > p->mbufs)
			return sl_errf(err, EINVAL,
				       "pool: cache %u is too large for %u mbufs (at most mbufs / 1.5)",
				       p->cache, p->mbufs);
		e->pool = rte_pktmbuf_pool_create("sluice_mbufs", p->mbufs, p->cache, 0, room,
						  socket);
		if (e->pool == NULL && socket != SOCKET_ID_ANY)
			e->pool = rte_pktmbuf_pool_create("sluice_mbufs", p->mbufs, p->cache, 0,
							  room, SOCKET_ID_ANY);
		if (e->pool == NULL)
			return sl_errf(err, rte_errno ? rte_errno : ENOMEM,
				       "pool: cannot create %u mbufs of %u bytes: %s (raise dpdk.args -m?)",
				       p->mbufs, p->data_room, rte_strerror(rte_errno));
		return 0;
	}

	unsigned n = e->cfg->n_workers;
	struct sl_pool_worker_cfg *ws = calloc(n, sizeof(*ws));
	if (ws == NULL)
		return sl_errf(err, ENOMEM, "out of memory");
	for (unsigned w = 0; w < n; w++) {
		const struct sl_topo_pu *pu = sl_topology_pu(topo, e->plan->cpus[w]);
		ws[w] = (struct sl_pool_worker_cfg){ .lcore = e->workers[w].lcore,
			.l3 = pu != NULL && pu->l3 >= 0 ? (unsigned)pu->l3 : 0 };
	}
	struct sl_pool_opts o = { .chunk = p->chunk, .high = p->high, .l3_tier = p->l3_tier,
				  .l3_chunks = p->l3_chunks, .n_workers = n, .workers = ws };
	int rc = 0;
	e->pool = sl_pool_mbuf_create("sluice_mbufs", p->mbufs, room, socket, &o, &rc);
	if (e->pool == NULL && rc == ENOMEM && socket != SOCKET_ID_ANY)
		e->pool = sl_pool_mbuf_create("sluice_mbufs", p->mbufs, room, SOCKET_ID_ANY, &o,
					      &rc);
	free(ws);
	if (e->pool == NULL)
		return sl_errf(err, rc ? rc : ENOMEM,
			       "pool: cannot create %u mbufs of %u bytes (chunk %u): %s%s",
			       p->mbufs, p->data_room, p->chunk, strerror(rc ? rc : ENOMEM),
			       rc == ENOMEM ? " (raise dpdk.args -m?)" : "");
	for (unsigned w = 0; w < n; w++)
		e->workers[w].pool = sl_pool_worker(sl_pool_of(e->pool), w);
	return 0;
}

static int create_links(struct engine *e, struct sl_err *err)
{
	const struct sl_config *cfg = e->cfg;
	for (unsigned i = 0; i < cfg->n_links; i++) {
		const struct sl_link_cfg *lc = &cfg->links[i];
		struct sl_link *l = &e->links[i];
		struct sl_app *from = &e->apps[lc->from.app], *to = &e->apps[lc->to.app];
		l->from = from;
		l->to = to;
		l->from_port = lc->from.port;
		l->to_port = lc->to.port;
		l->index = i;
		snprintf(l->name, sizeof(l->name), "%s.%s -> %s.%s", from->name,
			 lc->from.port, to->name, lc->to.port);
		uint32_t size = lc->size != 0 ? lc->size : cfg->link_size;
		if (from->worker == to->worker) {
			l->mask = size - 1;
			l->slots = rte_zmalloc_socket("sl_link", size * sizeof(void *),
						      RTE_CACHE_LINE_SIZE, to->socket);
			if (l->slots == NULL)
				return sl_errf(err, ENOMEM, "link '%s': out of memory", l->name);
		} else {
			char name[SL_IL_NAME_MAX + 1];
			int rc = 0;
			snprintf(name, sizeof(name), "sluice_l%u", i);
			struct sl_il_config ilc = { .size = size, .socket = to->socket };
			l->il = sl_il_create(name, &ilc, &rc);
			if (l->il == NULL)
				return sl_errf(err, -rc, "link '%s': cannot create its interlink: %s",
					       l->name, strerror(-rc));
			/* The control thread attaches both ends for the workers (and
			 * uses them itself to drain at stop). */
			if (sl_il_attach(l->il, SL_IL_PRODUCER) < 0 ||
			    sl_il_attach(l->il, SL_IL_CONSUMER) < 0)
				return sl_errf(err, EBUSY, "link '%s': cannot attach its interlink",
					       l->name);
		}
		/* Fixed ports are indexed by their place in the type's list,
		 * numbered families by their number. */
		const struct sl_app_type *ft = from->type, *tt = to->type;
		size_t fl = strlen(ft->outputs[lc->from.spec].name);
		size_t tl = strlen(tt->inputs[lc->to.spec].name);
		unsigned oi = ft->outputs[lc->from.spec].name[fl - 1] == '#' ? lc->from.number
									       : lc->from.spec;
		unsigned ii = tt->inputs[lc->to.spec].name[tl - 1] == '#' ? lc->to.number
									 : lc->to.spec;
		from->out[oi] = l;
		if (oi + 1 > from->n_out)
			from->n_out = oi + 1;
		to->in[ii] = l;
		if (ii + 1 > to->n_in)
			to->n_in = ii + 1;
	}
	return 0;
}

static void push_entry(struct sl_push_entry *pe, struct sl_app *a)
{
	pe->app = a;
	pe->n_in = 0;
	for (unsigned p = 0; p < a->n_in; p++)
		if (a->in[p] != NULL)
			pe->in[pe->n_in++] = a->in[p];
}

/* Fill each worker's pull, push and tick lists in push order, and the
 * control thread's list of every app (for the drain). */
static int build_workers(struct engine *e, struct sl_err *err)
{
	const struct sl_config *cfg = e->cfg;
	unsigned n = cfg->n_apps;
	for (unsigned w = 0; w < cfg->n_workers; w++) {
		struct sl_worker *wk = &e->workers[w];
		wk->pull = calloc(n, sizeof(*wk->pull));
		wk->push = calloc(n, sizeof(*wk->push));
		wk->tick = calloc(n, sizeof(*wk->tick));
		if (wk->pull == NULL || wk->push == NULL || wk->tick == NULL)
			return sl_errf(err, ENOMEM, "out of memory");
	}
	e->everyone.push = calloc(n, sizeof(*e->everyone.push));
	unsigned nl = cfg->n_links + 1;
	e->everyone.il_prod = calloc(nl, sizeof(struct sl_il *));
	e->everyone.il_cons = calloc(nl, sizeof(struct sl_il *));
	if (e->everyone.push == NULL || e->everyone.il_prod == NULL ||
	    e->everyone.il_cons == NULL)
		return sl_errf(err, ENOMEM, "out of memory");
	for (unsigned w = 0; w < cfg->n_workers; w++) {
		e->workers[w].il_prod = calloc(nl, sizeof(struct sl_il *));
		e->workers[w].il_cons = calloc(nl, sizeof(struct sl_il *));
		if (e->workers[w].il_prod == NULL || e->workers[w].il_cons == NULL)
			return sl_errf(err, ENOMEM, "out of memory");
	}
	for (unsigned i = 0; i < cfg->n_links; i++) {
		struct sl_link *l = &e->links[i];
		if (l->il == NULL)
			continue;
		struct sl_worker *from = &e->workers[l->from->worker];
		struct sl_worker *to = &e->workers[l->to->worker];
		from->il_prod[from->n_il_prod++] = l->il;
		to->il_cons[to->n_il_cons++] = l->il;
		e->everyone.il_prod[e->everyone.n_il_prod++] = l->il;
		e->everyone.il_cons[e->everyone.n_il_cons++] = l->il;
	}
	for (unsigned k = 0; k < n; k++) {
		struct sl_app *a = &e->apps[cfg->order[k]];
		struct sl_worker *wk = &e->workers[a->worker];
		if (a->type->pull != NULL)
			wk->pull[wk->n_pull++] = a;
		if (a->type->tick != NULL)
			wk->tick[wk->n_tick++] = a;
		if (a->type->push != NULL) {
			push_entry(&wk->push[wk->n_push++], a);
			push_entry(&e->everyone.push[e->everyone.n_push++], a);
		}
	}
	return 0;
}

static int init_apps(struct engine *e, struct sl_err *err)
{
	const struct sl_config *cfg = e->cfg;
	for (unsigned i = 0; i < cfg->n_apps; i++) {
		struct sl_app *a = &e->apps[i];
		if (a->type->init == NULL) {
			a->inited = true;
			continue;
		}
		int rc = a->type->init(a, err);
		a->inited = true;    /* fini must run even after a failed init */
		if (rc < 0)
			return sl_err_prefix(err, -rc, "app '%s'", a->name);
	}
	for (unsigned i = 0; i < cfg->n_apps; i++) {
		struct sl_app *a = &e->apps[i];
		if (a->type->start == NULL)
			continue;
		int rc = a->type->start(a, err);
		if (rc < 0)
			return sl_err_prefix(err, -rc, "app '%s'", a->name);
	}
	return 0;
}

static int setup(struct engine *e, const struct sl_topology *topo, struct sl_err *err)
{
	const struct sl_config *cfg = e->cfg;
	int rc;

	e->apps = calloc(cfg->n_apps, sizeof(*e->apps));
	e->links = rte_zmalloc("sl_links", (cfg->n_links + 1) * sizeof(*e->links),
			       RTE_CACHE_LINE_SIZE);
	e->workers = rte_zmalloc("sl_workers", cfg->n_workers * sizeof(*e->workers),
				 RTE_CACHE_LINE_SIZE);
	if (e->apps == NULL || e->links == NULL || e->workers == NULL)
		return sl_errf(err, ENOMEM, "out of memory");

	for (unsigned w = 0; w < cfg->n_workers; w++) {
		struct sl_worker *wk = &e->workers[w];
		wk->name = cfg->workers[w].name;
		wk->index = w;
		wk->lcore = w + 1;
		wk->cpu = e->plan->cpus[w];
		wk->socket = (int)rte_lcore_to_socket_id(wk->lcore);
		wk->stop = &e->stop;
	}
	rc = create_pool(e, topo, err);
	if (rc < 0)
		return rc;
	struct sl_epoch_conf ec = { .name = "sluice", .n_workers = cfg->n_workers,
				    .policy = cfg->epoch_policy };
	e->epoch = sl_epoch_create(&ec, err);
	if (e->epoch == NULL)
		return sl_err_prefix(err, EINVAL, "engine.epoch");
	for (unsigned w = 0; w < cfg->n_workers; w++) {
		e->workers[w].epoch = e->epoch;
		e->workers[w].epoch_w = sl_epoch_worker(e->epoch, w);
		e->workers[w].reclaim_cap = cfg->reclaim_cap;
	}

	for (unsigned i = 0; i < cfg->n_apps; i++) {
		const struct sl_app_cfg *ac = &cfg->apps[i];
		struct sl_app *a = &e->apps[i];
		a->type = ac->type;
		a->name = ac->name;
		a->index = i;
		a->worker = ac->worker;
		a->params = ac->params;
		a->burst = cfg->burst;
		a->pool = e->pool;
		a->socket = e->workers[ac->worker].socket;
		a->epoch = e->epoch;
		a->epoch_w = e->workers[ac->worker].epoch_w;
		if (a->type->priv_size > 0) {
			a->priv = rte_zmalloc_socket("sl_app", a->type->priv_size,
						     RTE_CACHE_LINE_SIZE, a->socket);
			if (a->priv == NULL)
				return sl_errf(err, ENOMEM, "app '%s': out of memory", a->name);
		}
	}
	rc = create_links(e, err);
	if (rc == 0)
		rc = build_workers(e, err);
	if (rc == 0)
		rc = init_apps(e, err);
	return rc;
}

/* ---------------------------------------------------------------- stop */

static void free_mbuf(void *obj, void *arg)
{
	(void)arg;
	rte_pktmbuf_free(obj);
}

static uint64_t free_link_contents(struct sl_link *l)
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

static void teardown(struct engine *e)
{
	const struct sl_config *cfg = e->cfg;
	if (e->apps != NULL && e->links != NULL && e->workers != NULL &&
	    e->everyone.push != NULL) {
		/* Drain: deliver what is in flight.  Workers are stopped, so the
		 * control thread may run every app's push, publishing the
		 * interlinks between rounds so that what it transmits into
		 * them becomes visible to itself as their consumer. */
		uint64_t before = 0, after = 0;
		sl_worker_flush(&e->everyone);
		for (unsigned i = 0; i < cfg->n_links; i++)
			before += sl_link_count(&e->links[i]);
		for (unsigned r = 0; r < 64 && sl_worker_push(&e->everyone) > 0; r++)
			sl_worker_flush(&e->everyone);
		sl_worker_flush(&e->everyone);
		for (unsigned i = 0; i < cfg->n_links; i++)
			after += sl_link_count(&e->links[i]);
		e->drained = before > after ? before - after : 0;
	}
	if (e->apps != NULL)
		for (unsigned i = cfg->n_apps; i-- > 0;)
			if (e->apps[i].inited && e->apps[i].type->stop != NULL)
				e->apps[i].type->stop(&e->apps[i]);
	if (e->links != NULL)
		for (unsigned i = 0; i < cfg->n_links; i++)
			if (e->links[i].slots != NULL || e->links[i].il != NULL)
				e->freed_at_stop += free_link_contents(&e->links[i]);
	/* Every worker went offline when it left its loop: what is still
	 * retired can be freed now, before fini releases what the free
	 * functions return objects to (a flow table's ids). */
	if (e->epoch != NULL && sl_epoch_synchronize(e->epoch) == 0)
		e->epoch_drained = sl_epoch_drain(e->epoch);
	if (e->apps != NULL)
		for (unsigned i = cfg->n_apps; i-- > 0;)
			if (e->apps[i].inited && e->apps[i].type->fini != NULL)
				e->apps[i].type->fini(&e->apps[i]);
}

static void release(struct engine *e)
{
	const struct sl_config *cfg = e->cfg;
	if (e->links != NULL)
		for (unsigned i = 0; i < cfg->n_links; i++) {
			rte_free(e->links[i].slots);
			if (e->links[i].il != NULL) {
				sl_il_detach(e->links[i].il, SL_IL_PRODUCER);
				sl_il_detach(e->links[i].il, SL_IL_CONSUMER);
				sl_il_free(e->links[i].il);
			}
		}
	if (e->apps != NULL)
		for (unsigned i = 0; i < cfg->n_apps; i++)
			rte_free(e->apps[i].priv);
	if (e->workers != NULL)
		for (unsigned w = 0; w < cfg->n_workers; w++) {
			free(e->workers[w].pull);
			free(e->workers[w].push);
			free(e->workers[w].tick);
			free(e->workers[w].il_prod);
			free(e->workers[w].il_cons);
		}
	free(e->everyone.push);
	free(e->everyone.il_prod);
	free(e->everyone.il_cons);
	rte_free(e->links);
	rte_free(e->workers);
	free(e->apps);
	sl_epoch_free(e->epoch);
	rte_mempool_free(e->pool);
}

/* ---------------------------------------------------------------- stats */

struct snapshot {
	double t;
	uint64_t *in, *out, *drops;   /* per app */
	uint64_t link_drops;
};

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void take(const struct engine *e, struct snapshot *s, double t0)
{
	s->t = now_s() - t0;
	for (unsigned i = 0; i < e->cfg->n_apps; i++) {
		const struct sl_app *a = &e->apps[i];
		s->in[i] = sl_counter_read(&a->stats.in_packets);
		s->out[i] = sl_counter_read(&a->stats.out_packets);
		s->drops[i] = sl_counter_read(&a->stats.drops);
	}
	s->link_drops = 0;
	for (unsigned i = 0; i < e->cfg->n_links; i++)
		s->link_drops += sl_counter_read(&e->links[i].tx.drops);
}

static void fmt_rate(char *buf, size_t len, double pps)
{
	if (pps >= 1e6)
		snprintf(buf, len, "%.2f Mpps", pps / 1e6);
	else if (pps >= 1e3)
		snprintf(buf, len, "%.1f kpps", pps / 1e3);
	else
		snprintf(buf, len, "%.0f pps", pps);
}

/* One line: every app with outside traffic, its rates, then all drops. */
static void stats_line(const struct engine *e, const struct snapshot *a,
		       const struct snapshot *b)
{
	double dt = b->t - a->t;
	char line[1024], r[32];
	int len = snprintf(line, sizeof(line), "[%7.1fs]", b->t);
	uint64_t drops = b->link_drops;
	for (unsigned i = 0; i < e->cfg->n_apps; i++) {
		drops += b->drops[i];
		if (b->in[i] == 0 && b->out[i] == 0)
			continue;
		len += snprintf(line + len, sizeof(line) - (size_t)len, " %s", e->apps[i].name);
		if (b->in[i] > 0 && len < (int)sizeof(line)) {
			fmt_rate(r, sizeof(r), (double)(b->in[i] - a->in[i]) / dt);
			len += snprintf(line + len, sizeof(line) - (size_t)len, " in %s", r);
		}
		if (b->out[i] > 0 && len < (int)sizeof(line)) {
			fmt_rate(r, sizeof(r), (double)(b->out[i] - a->out[i]) / dt);
			len += snprintf(line + len, sizeof(line) - (size_t)len, " out %s", r);
		}
		if (len < (int)sizeof(line))
			len += snprintf(line + len, sizeof(line) - (size_t)len, " |");
	}
	if (len < (int)sizeof(line))
		snprintf(line + len, sizeof(line) - (size_t)len, " drops %" PRIu64, drops);
	printf("%s\n", line);
	fflush(stdout);
}

/* Retire-to-free latency (ns and breaths of the retiring worker) and grace
 * periods, merged over the workers. */
static void epoch_latency_line(const struct engine *e)
{
	struct sl_hist *h = e->epoch != NULL ? malloc(3 * sizeof(*h)) : NULL;
	if (h == NULL)
		return;
	for (unsigned k = 0; k < 3; k++) {
		sl_hist_init(&h[k]);
		for (unsigned w = 0; w < e->cfg->n_workers; w++)
			sl_hist_merge(&h[k], sl_epoch_hist(e->epoch, w, (enum sl_epoch_hist)k));
	}
	const struct sl_hist *ns = &h[SL_EPOCH_HIST_FREE_NS], *br = &h[SL_EPOCH_HIST_FREE_BREATHS];
	const struct sl_hist *gp = &h[SL_EPOCH_HIST_GRACE_NS];
	if (sl_hist_count(ns) > 0)
		printf("epoch retire->free: p50 %" PRIu64 " p99 %" PRIu64 " max %" PRIu64
		       " ns; p50 %" PRIu64 " p99 %" PRIu64 " max %" PRIu64
		       " breaths; grace period p50 %" PRIu64 " p99 %" PRIu64 " ns\n",
		       sl_hist_percentile(ns, 0.5), sl_hist_percentile(ns, 0.99), sl_hist_max(ns),
		       sl_hist_percentile(br, 0.5), sl_hist_percentile(br, 0.99), sl_hist_max(br),
		       sl_hist_percentile(gp, 0.5), sl_hist_percentile(gp, 0.99));
	free(h);
}

static void summary(const struct engine *e, double elapsed)
{
	const struct sl_config *cfg = e->cfg;
	printf("\napps (in = from outside or generated, out = to outside or consumed):\n");
	printf("  %-16s %-13s %-10s %14s %16s %14s %16s %12s\n", "app", "type", "worker",
	       "in_packets", "in_bytes", "out_packets", "out_bytes", "drops");
	for (unsigned i = 0; i < cfg->n_apps; i++) {
		const struct sl_app *a = &e->apps[i];
		printf("  %-16s %-13s %-10s %14" PRIu64 " %16" PRIu64 " %14" PRIu64
		       " %16" PRIu64 " %12" PRIu64 "\n",
		       a->name, a->type->name, cfg->workers[a->worker].name,
		       sl_counter_read(&a->stats.in_packets), sl_counter_read(&a->stats.in_bytes),
		       sl_counter_read(&a->stats.out_packets), sl_counter_read(&a->stats.out_bytes),
		       sl_counter_read(&a->stats.drops));
	}
	printf("links (interlinks: occupancy high-water in slots, sampled sojourn p50/p99 in ns):\n"
	       "  %-40s %-9s %14s %16s %12s %9s %9s %9s\n", "link", "kind", "packets", "bytes",
	       "drops", "occ_hwm", "soj_p50", "soj_p99");
	for (unsigned i = 0; i < cfg->n_links; i++) {
		struct sl_link_stats s;
		sl_link_stats_read(&e->links[i], &s);
		printf("  %-40s %-9s %14" PRIu64 " %16" PRIu64 " %12" PRIu64,
		       e->links[i].name, e->links[i].il ? "interlink" : "local", s.tx_packets,
		       s.rx_bytes, s.drops);
		if (e->links[i].il != NULL) {
			struct sl_il_stats is;
			sl_il_stats_read(e->links[i].il, &is);
			printf(" %9u %9" PRIu64 " %9" PRIu64, is.occupancy_hwm,
			       sl_il_sojourn_quantile_ns(&is, 0.5),
			       sl_il_sojourn_quantile_ns(&is, 0.99));
		}
		printf("\n");
	}
	printf("workers:\n  %-16s %5s %6s %14s\n", "worker", "cpu", "lcore", "breaths");
	for (unsigned w = 0; w < cfg->n_workers; w++)
		printf("  %-16s %5d %6u %14" PRIu64 "\n", e->workers[w].name, e->workers[w].cpu,
		       e->workers[w].lcore, sl_counter_read(&e->workers[w].breaths));
	const struct sl_pool *sp = sl_pool_of(e->pool);
	if (sp != NULL) {
		struct sl_pool_stats ps;
		sl_pool_stats(sp, &ps);
		printf("pool tiers: workers %" PRIu64 ", l3 %" PRIu64 ", global %" PRIu64
		       ", shared %" PRIu64 " (chunk %u); rebalances %" PRIu64 ", reclaims %" PRIu64
		       ", empty %" PRIu64 ", full %" PRIu64 "; step p99.9: rebalance %" PRIu64
		       " ns, reclaim %" PRIu64 " ns\n",
		       ps.counts.workers, ps.counts.l3, ps.counts.global, ps.counts.shared,
		       cfg->pool.chunk, ps.sum.rebalances, ps.sum.reclaims, ps.sum.empty,
		       ps.sum.full, sl_pool_hist_quantile(&ps.sum.rebalance_ns, 0.999),
		       sl_pool_hist_quantile(&ps.sum.reclaim_ns, 0.999));
	}
	struct sl_epoch_stats es;
	if (e->epoch != NULL && sl_epoch_stats(e->epoch, -1, &es) == 0)
		printf("epoch (%s, cap %u per breath): retired %" PRIu64 ", freed %" PRIu64
		       " (%" PRIu64 " at stop), backlog high-water %" PRIu64 "\n",
		       sl_epoch_policy_name(cfg->epoch_policy), cfg->reclaim_cap, es.retired,
		       es.freed, e->epoch_drained, es.backlog_hwm);
	epoch_latency_line(e);
	printf("drained at stop: %" PRIu64 " packets delivered, %" PRIu64
	       " freed from links\n", e->drained, e->freed_at_stop);
	printf("elapsed: %.2f s\n", elapsed);
}

/* ---------------------------------------------------------------- run */

/* Name a worker that holds epoch reclamation up (online, behind, no
 * quiescent state for over SL_EPOCH_LAGGARD_NS), at most once a second per
 * worker.  warned[w] is when worker w was last named (run seconds). */
static void warn_laggard(struct engine *e, double t, double *warned)
{
	uint64_t now = sl_epoch_now_ns();
	int w = sl_epoch_laggard(e->epoch, now, 0);
	if (w < 0 || (warned[w] > 0 && t - warned[w] < 1.0))
		return;
	warned[w] = t;
	uint64_t last = sl_epoch_last_quiesce_ns(e->epoch, (unsigned)w);
	printf("sluice: warning: worker '%s' has held up epoch reclamation for %.1f ms "
	       "(no quiescent state; something in its breath blocks or runs long)\n",
	       e->workers[w].name, last > 0 && now > last ? (double)(now - last) / 1e6 : 0.0);
	fflush(stdout);
}

static int run_loop(struct engine *e)
{
	const struct sl_config *cfg = e->cfg;
	unsigned n = cfg->n_apps;
	uint64_t *mem = calloc(6 * (size_t)n + 1, sizeof(uint64_t));
	if (mem == NULL)
		return -ENOMEM;
	struct snapshot prev = { .in = mem, .out = mem + n, .drops = mem + 2 * n };
	struct snapshot cur = { .in = mem + 3 * n, .out = mem + 4 * n, .drops = mem + 5 * n };

	for (unsigned w = 0; w < cfg->n_workers; w++)
		rte_eal_remote_launch(sl_worker_main, &e->workers[w], e->workers[w].lcore);

	double t0 = now_s(), next = e->opts->stats;
	double *warned = calloc(cfg->n_workers, sizeof(double));   /* last laggard warning */
	take(e, &prev, t0);
	for (;;) {
		struct timespec nap = { 0, 20 * 1000 * 1000 };
		nanosleep(&nap, NULL);
		double t = now_s() - t0;
		if (warned != NULL)
			warn_laggard(e, t, warned);
		if (signalled) {
			printf("sluice: %s received, stopping\n",
			       signalled == SIGINT ? "SIGINT" : "SIGTERM");
			break;
		}
		if (e->opts->duration > 0 && t >= e->opts->duration)
			break;
		if (e->opts->stats > 0 && t >= next) {
			take(e, &cur, t0);
			stats_line(e, &prev, &cur);
			struct snapshot tmp = prev;
			prev = cur;
			cur = tmp;
			next += e->opts->stats;
		}
	}
	__atomic_store_n(&e->stop, true, __ATOMIC_RELEASE);
	rte_eal_mp_wait_lcore();
	double elapsed = now_s() - t0;
	free(warned);
	free(mem);
	return (int)(elapsed * 1000);
}

int sl_engine_run(const struct sl_config *cfg, const struct sl_topology *topo,
		  const struct sl_plan *plan, const struct sl_run_opts *opts,
		  struct sl_err *err)
{
	struct engine e = { .cfg = cfg, .opts = opts, .plan = plan };
	int rc;

	rc = sl_app_registry_check(err);
	if (rc < 0)
		return rc;
	if (topo->synthetic)
		return sl_errf(err, EINVAL, "cannot run on a described machine (%s); unset "
			       "HWLOC_SYNTHETIC and HWLOC_XMLFILE, or use 'sluice plan'",
			       topo->source);
	for (unsigned i = 0; i < e.plan->n_warnings; i++)
		printf("sluice: warning: %s\n", e.plan->warnings[i]);
	rc = eal_init(&e, err);
	if (rc < 0)
		return rc;

	struct sigaction sa = { .sa_handler = on_signal };
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	rc = setup(&e, topo, err);
	if (rc < 0)
		goto out_teardown;

	printf("sluice: running %u apps on %u workers (", cfg->n_apps, cfg->n_workers);
	for (unsigned w = 0; w < cfg->n_workers; w++)
		printf("%s%s on cpu %d", w ? ", " : "", e.workers[w].name, e.plan->cpus[w]);
	printf("); control thread on cpu %d\n", e.plan->main_cpu);
	fflush(stdout);

	int ms = run_loop(&e);
	if (ms < 0) {
		rc = sl_errf(err, -ms, "out of memory");
		goto out_teardown;
	}
	teardown(&e);
	if (!opts->quiet)
		summary(&e, ms / 1000.0);
	unsigned avail = rte_mempool_avail_count(e.pool);
	printf("pool: %u of %u mbufs back in the pool\n", avail, e.pool->size);
	if (avail != e.pool->size)
		rc = sl_errf(err, EFAULT, "pool: %u mbufs were not returned at stop",
			     e.pool->size - avail);
	goto out_release;

out_teardown:
	teardown(&e);
out_release:
	release(&e);
	rte_eal_cleanup();
	return rc;
}
