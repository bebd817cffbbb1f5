/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "ops/control.h"
#include "ops/pdump.h"
#include "placement/topology.h"
#include "run/engine.h"
#include "run/engine_private.h"
#include "run/build.h"
#include "run/plan.h"
#include "run/reload.h"
#include "run/signals.h"
#include "run/verbs.h"
#include "epoch/epoch.h"
#include "interlink/interlink.h"
#include "ops/notify.h"
#include "placement/placement.h"
#include "pool/pool.h"
#include "ops/report.h"
#include "ops/telemetry.h"
#include "runtime/worker.h"
#include "base/note.h"

/* ---------------------------------------------------------------- EAL */

static int eal_init(struct engine *e, struct sl_err *err)
{
	const struct sl_config *cfg = e->cfg;
	unsigned argc = 0, max = cfg->n_eal_args + e->opts->n_eal_args + 4;
	char **argv = calloc(max, sizeof(*argv));
	/* "0@CPU" then ",LCORE@CPU" per worker: at most 24 bytes each */
	size_t lcores_size = 24 * ((size_t)cfg->n_workers + 1), len = 0;
	char *lcores = malloc(lcores_size);
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
	lcores[0] = '\0';
	sl_appendf(lcores, lcores_size, &len, "0@%d", e->plan->main_cpu);
	for (unsigned w = 0; w < cfg->n_workers; w++)
		sl_appendf(lcores, lcores_size, &len, ",%u@%d", w + 1, e->plan->cpus[w]);
	argv[argc++] = (char *)"--lcores";
	argv[argc++] = lcores;

	int rc = rte_eal_init((int)argc, argv);
	int saved = rte_errno;
	free(argv);
	free(lcores);
	if (rc >= 0)
		return 0;
	/* A primary process holds a lock on its runtime directory's config
	 * file for as long as it runs; the EAL reports a taken lock without
	 * setting rte_errno.  Name the process that holds it. */
	char path[PATH_MAX];
	pid_t holder = 0;
	snprintf(path, sizeof(path), "%s/config", rte_eal_get_runtime_dir());
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
		if (fcntl(fd, F_GETLK, &fl) == 0 && fl.l_type != F_UNLCK)
			holder = fl.l_pid;
		close(fd);
	}
	if (holder > 0 && holder != getpid())
		return sl_errf(err, EBUSY,
			       "cannot initialise DPDK: its file prefix is in use by process %ld "
			       "(runtime directory %s); stop that process or give this run "
			       "another --file-prefix (in dpdk.args or after --)",
			       (long)holder, rte_eal_get_runtime_dir());
	if (saved != 0)
		return sl_errf(err, saved,
			       "cannot initialise DPDK (EAL arguments in dpdk.args or after --): %s",
			       rte_strerror(saved));
	return sl_errf(err, EINVAL,
		       "cannot initialise DPDK (EAL arguments in dpdk.args or after --); the "
		       "EAL's messages above say why");
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
		e->pool = sl_mempool_pktmbuf_create("sluice_mbufs", p->mbufs, p->cache, room,
						    socket);
		if (e->pool == NULL && socket != SOCKET_ID_ANY)
			e->pool = sl_mempool_pktmbuf_create("sluice_mbufs", p->mbufs, p->cache,
							    room, SOCKET_ID_ANY);
		if (e->pool == NULL)
			return sl_errf(err, rte_errno > 0 ? rte_errno : ENOMEM,
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
				  .l3_chunks = p->l3_chunks, .shuffle = p->shuffle,
				  .n_workers = n, .workers = ws };
	struct sl_err perr = { "" };
	e->pool = sl_pool_mbuf_create("sluice_mbufs", p->mbufs, room, socket, &o, &perr);
	int rc = e->pool == NULL ? errno : 0;
	if (e->pool == NULL && rc == ENOMEM && socket != SOCKET_ID_ANY) {
		e->pool = sl_pool_mbuf_create("sluice_mbufs", p->mbufs, room, SOCKET_ID_ANY, &o,
					      &perr);
		rc = e->pool == NULL ? errno : 0;
	}
	free(ws);
	if (e->pool == NULL)
		return sl_errf(err, rc > 0 ? rc : ENOMEM,
			       "pool: cannot create %u mbufs of %u bytes (chunk %u): %s%s",
			       p->mbufs, p->data_room, p->chunk, perr.msg,
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
		e->links[i] = sl_eng_new_link(e, cfg, i, e->apps, err);
		if (e->links[i] == NULL)
			return -(errno > 0 ? errno : ENOMEM);
		struct sl_app *from = e->apps[lc->from.app], *to = e->apps[lc->to.app];
		unsigned oi, ii;
		sl_reload_link_ports(cfg, i, &oi, &ii);
		from->out[oi] = e->links[i];
		if (oi + 1 > from->n_out)
			from->n_out = oi + 1;
		to->in[ii] = e->links[i];
		if (ii + 1 > to->n_in)
			to->n_in = ii + 1;
	}
	return 0;
}

/* Fill each worker's pull, push and tick lists in push order, and the
 * control thread's list of every app (for the drain). */
static int build_workers(struct engine *e, struct sl_err *err)
{
	const struct sl_config *cfg = e->cfg;
	unsigned n = cfg->n_apps;
	unsigned nl = cfg->n_links + 1;
	for (unsigned w = 0; w < cfg->n_workers; w++) {
		struct sl_worker *wk = &e->workers[w];
		wk->pull = calloc(n, sizeof(*wk->pull));
		wk->push = calloc(n, sizeof(*wk->push));
		wk->tick = calloc(n, sizeof(*wk->tick));
		wk->il_prod = calloc(nl, sizeof(struct sl_il *));
		wk->il_cons = calloc(nl, sizeof(struct sl_il *));
		if (wk->pull == NULL || wk->push == NULL || wk->tick == NULL ||
		    wk->il_prod == NULL || wk->il_cons == NULL)
			return sl_errf(err, ENOMEM, "out of memory");
	}
	for (unsigned i = 0; i < cfg->n_links; i++) {
		struct sl_link *l = e->links[i];
		if (l->il == NULL)
			continue;
		struct sl_worker *from = &e->workers[l->from->worker];
		struct sl_worker *to = &e->workers[l->to->worker];
		from->il_prod[from->n_il_prod++] = l->il;
		to->il_cons[to->n_il_cons++] = l->il;
	}
	for (unsigned k = 0; k < n; k++) {
		struct sl_app *a = e->apps[cfg->order[k]];
		struct sl_worker *wk = &e->workers[a->worker];
		if (a->type->pull != NULL)
			wk->pull[wk->n_pull++] = a;
		if (a->type->tick != NULL)
			wk->tick[wk->n_tick++] = a;
		if (a->type->push != NULL)
			sl_eng_push_entry(&wk->push[wk->n_push++], a);
	}
	return sl_eng_rebuild_everyone(e, err);
}

static int init_apps(struct engine *e, struct sl_err *err)
{
	const struct sl_config *cfg = e->cfg;
	for (unsigned i = 0; i < cfg->n_apps; i++) {
		int rc = sl_eng_init_app(cfg, i, e->apps[i], err);
		if (rc < 0)
			return rc;
	}
	for (unsigned i = 0; i < cfg->n_apps; i++) {
		int rc = sl_eng_start_app(e->apps[i], err);
		if (rc < 0)
			return rc;
	}
	return 0;
}

static int setup(struct engine *e, const struct sl_topology *topo, struct sl_err *err)
{
	const struct sl_config *cfg = e->cfg;
	int rc = sl_step_to(err, "allocating the engine's tables");
	if (rc < 0)
		return rc;

	e->apps = calloc(cfg->n_apps + 1, sizeof(*e->apps));
	e->links = calloc(cfg->n_links + 1, sizeof(*e->links));
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
		const struct sl_topo_pu *pu = topo != NULL ? sl_topology_pu(topo, wk->cpu) : NULL;
		wk->l3_bytes = pu != NULL ? pu->l3_bytes : 0;
		wk->stop = &e->stop;
	}
	rc = sl_step_to(err, "creating the pool of %u mbufs", cfg->pool.mbufs);
	if (rc == 0)
		rc = create_pool(e, topo, err);
	if (rc == 0)
		rc = sl_step_to(err, "creating the epoch state");
	if (rc < 0)
		return rc;
	/* One handle per worker, and the control thread's (never online; it
	 * retires what reloads replace). */
	struct sl_epoch_conf ec = { .name = "sluice", .n_workers = cfg->n_workers + 1,
				    .ring_size = cfg->epoch_ring, .policy = cfg->epoch_policy };
	e->epoch = sl_epoch_create(&ec, err);
	if (e->epoch == NULL)
		return sl_err_prefix(err, errno > 0 ? errno : ENOMEM, "engine.epoch");
	e->ctl_epoch_w = sl_epoch_worker(e->epoch, cfg->n_workers);
	sl_pdump_guard(e->epoch);   /* dpdk-dumpcap's detach waits for the workers */
	for (unsigned w = 0; w < cfg->n_workers; w++) {
		e->workers[w].epoch = e->epoch;
		e->workers[w].epoch_w = sl_epoch_worker(e->epoch, w);
		e->workers[w].reclaim_cap = cfg->reclaim_cap;
		e->workers[w].accounting = cfg->accounting;
		e->workers[w].idle_sleep_ns = cfg->idle_sleep_ns;
	}

	for (unsigned i = 0; i < cfg->n_apps; i++) {
		e->apps[i] = sl_eng_new_app(e, cfg, i, err);
		if (e->apps[i] == NULL)
			return -ENOMEM;
	}
	/* Replicas (consecutive in the config) share one list of themselves,
	 * owned by replica 0. */
	for (unsigned i = 0; i < cfg->n_apps; i++) {
		struct sl_app *a = e->apps[i];
		if (a->n_replicas == 0 || a->replica != 0)
			continue;
		struct sl_app **list = calloc(a->n_replicas, sizeof(*list));
		if (list == NULL)
			return sl_errf(err, ENOMEM, "out of memory");
		for (unsigned k = 0; k < a->n_replicas; k++)
			list[k] = e->apps[i + k];
		for (unsigned k = 0; k < a->n_replicas; k++)
			e->apps[i + k]->replicas = list;
	}
	rc = sl_step_to(err, "creating %u links", cfg->n_links);
	if (rc == 0)
		rc = create_links(e, err);
	if (rc == 0)
		rc = build_workers(e, err);
	if (rc == 0)
		rc = init_apps(e, err);
	if (rc == 0)
		rc = sl_step_to(err, "launching the workers");
	return rc;
}

/* ---------------------------------------------------------------- stop */

/* The app's table as it is at stop, kept for the report (app.h); an app
 * whose table cannot be read reports none, with a warning. */
static void keep_table(struct sl_app *a)
{
	if (a == NULL || !a->inited || a->type->table_read == NULL)
		return;
	struct sl_err err;
	unsigned n;
	int total = a->type->table_read(a, false, 0, NULL, 0, &n, &err);
	if (total > 0) {
		a->table_last = calloc((size_t)total, sizeof(*a->table_last));
		if (a->table_last == NULL)
			total = sl_errf(&err, ENOMEM, "out of memory for %d rows", total);
		else
			total = a->type->table_read(a, false, 0, a->table_last, (unsigned)total,
						    &a->table_n, &err);
	}
	if (total < 0)
		sl_app_warn(a, "its %s at stop cannot be read: %s", a->type->table->name, err.msg);
}

static void teardown(struct engine *e)
{
	const struct sl_config *cfg = e->cfg;
	sl_step_to(NULL, "draining the links");
	if (e->apps != NULL && e->links != NULL && e->workers != NULL &&
	    e->everyone.push != NULL) {
		/* Drain: deliver what is in flight.  Workers are stopped, so the
		 * control thread may run every app's push, publishing the
		 * interlinks between rounds so that what it transmits into
		 * them becomes visible to itself as their consumer. */
		uint64_t before = 0, after = 0;
		sl_worker_flush(&e->everyone);
		for (unsigned i = 0; i < cfg->n_links; i++)
			before += sl_link_count(e->links[i]);
		for (unsigned r = 0; r < 64 && sl_worker_push(&e->everyone) > 0; r++)
			sl_worker_flush(&e->everyone);
		sl_worker_flush(&e->everyone);
		for (unsigned i = 0; i < cfg->n_links; i++)
			after += sl_link_count(e->links[i]);
		e->drained = before > after ? before - after : 0;
	}
	if (e->apps != NULL)
		for (unsigned i = cfg->n_apps; i-- > 0;)
			if (e->apps[i] != NULL && e->apps[i]->inited &&
			    e->apps[i]->type->stop != NULL) {
				sl_step_to(NULL, "stopping app '%s' (%s)", e->apps[i]->name,
					e->apps[i]->type->name);
				e->apps[i]->type->stop(e->apps[i]);
			}
	if (e->links != NULL)
		for (unsigned i = 0; i < cfg->n_links; i++)
			if (e->links[i] != NULL)
				e->freed_at_stop += sl_eng_free_link_contents(e->links[i]);
	/* Every worker went offline when it left its loop: what is still
	 * retired can be freed now, before fini releases what the free
	 * functions return objects to (a flow table's ids). */
	sl_step_to(NULL, "freeing what the apps retired");
	if (e->epoch != NULL && sl_epoch_synchronize(e->epoch) == 0)
		e->epoch_drained = sl_epoch_drain(e->epoch);
	if (e->apps != NULL && e->ran)
		for (unsigned i = cfg->n_apps; i-- > 0;)
			if (e->apps[i] != NULL && e->apps[i]->type->collect != NULL)
				e->apps[i]->type->collect(e->apps[i]);
	if (e->apps != NULL && e->ran)
		for (unsigned i = 0; i < cfg->n_apps; i++)
			keep_table(e->apps[i]);
	if (e->apps != NULL)
		for (unsigned i = cfg->n_apps; i-- > 0;)
			if (e->apps[i] != NULL && e->apps[i]->inited &&
			    e->apps[i]->type->fini != NULL) {
				sl_step_to(NULL, "finishing app '%s' (%s)", e->apps[i]->name,
					e->apps[i]->type->name);
				e->apps[i]->type->fini(e->apps[i]);
			}
}

static void release(struct engine *e)
{
	const struct sl_config *cfg = e->cfg;
	if (e->links != NULL)
		for (unsigned i = 0; i < cfg->n_links; i++)
			sl_eng_free_link(e->links[i]);
	if (e->apps != NULL)
		for (unsigned i = 0; i < cfg->n_apps; i++)
			sl_eng_free_app(e->apps[i]);
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
	free(e->links);
	rte_free(e->workers);
	free(e->apps);
	sl_pdump_guard(NULL);
	sl_epoch_free(e->epoch);
	rte_mempool_free(e->pool);
	for (unsigned i = 0; i < e->n_loaded; i++)
		sl_config_free(e->loaded[i]);
	free(e->loaded);
}

/* ---------------------------------------------------------------- stats */

static void take(const struct engine *e, struct sl_report_snapshot *s, double t0)
{
	sl_report_take(e->cfg, e->apps, e->links, s, sl_eng_now_s() - t0);
}

/* ---------------------------------------------------------------- run */

/* What the control thread watches while the workers run. */
struct watch {
	/* Epoch laggards, per worker: when last named (run seconds, 0: never),
	 * and the quiescent state the stall began after (0: none named). */
	double *warned;
	uint64_t *stall_from;
	/* The pool (ops: sluice), sampled once a second: per worker the
	 * objects got and the failed gets at the last sample, and the seconds
	 * it spent asking for buffers and getting none while the pool's
	 * buffers sat unused on freelists. */
	double pool_t;
	uint64_t *gets, *fails;
	double *starved_s;
	bool pool_warned;
};

/* Name a worker that holds epoch reclamation up (online, behind, no
 * quiescent state for over SL_EPOCH_LAGGARD_NS), at most once a second per
 * worker while the stall lasts; when a named stall has ended, say so with its
 * whole length (measured by the worker: from its last quiescent state before
 * the stall to its first after). */
static void watch_laggards(struct engine *e, struct watch *wt, double t, bool name_new)
{
	uint64_t now = sl_epoch_now_ns(e->epoch);
	for (unsigned w = 0; w < e->cfg->n_workers; w++) {
		uint64_t from, len;
		if (wt->stall_from[w] == 0 ||
		    sl_epoch_last_quiesce_ns(e->epoch, w) == wt->stall_from[w])
			continue;
		if (sl_epoch_last_stall(e->epoch, w, &from, &len) && from == wt->stall_from[w])
			sl_note("worker '%s' held up epoch reclamation for %.1f ms (ended)",
				       e->workers[w].name, (double)len / 1e6);
		else   /* it stalled again before this thread looked */
			sl_note("worker '%s' held up epoch reclamation for at least %.1f ms "
				       "(ended)", e->workers[w].name,
				       (double)(now - wt->stall_from[w]) / 1e6);
		wt->stall_from[w] = 0;
		wt->warned[w] = 0;
	}
	int w = name_new ? sl_epoch_laggard(e->epoch, now, 0) : -1;
	if (w < 0 || (wt->warned[w] > 0 && t - wt->warned[w] < 1.0))
		return;
	uint64_t last = sl_epoch_last_quiesce_ns(e->epoch, (unsigned)w);
	if (last >= now || now - last < SL_EPOCH_LAGGARD_NS)
		return;   /* it quiesced after sl_epoch_laggard looked: no stall */
	wt->warned[w] = t;
	wt->stall_from[w] = last;
	sl_warn("worker '%s' has held up epoch reclamation for %.1f ms (no quiescent "
		       "state; something in its breath blocks or runs long)", e->workers[w].name,
		       (double)(now - last) / 1e6);
}

static unsigned pool_high(const struct sl_pool_cfg *p)
{
	return p->high != 0 ? p->high : p->chunk * 3 / 2;
}

/* A pool that stays empty for a worker while its buffers sit unused on
 * freelists: a worker's freelist stays at or below its high mark and gives
 * nothing back, and a worker takes buffers from the shared tiers only a whole
 * chunk at a time.  Once a second: a worker that asked (failed gets) and got
 * nothing during the whole second, while the shared queues held no chunk
 * and at least half the pool sat on the other freelists, is starved; the
 * first time, name the freelist that holds the most. */
static void watch_pool(struct engine *e, struct watch *wt, double t)
{
	struct sl_pool *p = sl_pool_of(e->pool);
	if (p == NULL || t - wt->pool_t < 1.0)
		return;
	double dt = t - wt->pool_t;
	wt->pool_t = t;
	unsigned n = e->cfg->n_workers;
	struct sl_pool_tier_stats *ts = malloc(sizeof(*ts));
	uint64_t *depth = calloc(n + 1, sizeof(*depth));
	if (ts == NULL || depth == NULL) {
		free(ts);
		free(depth);
		return;
	}
	int starved = -1;
	uint64_t idle = 0;
	for (unsigned w = 0; w <= n; w++) {
		if (sl_pool_tier_stats(p, w < n ? w : SL_POOL_NONWORKER, ts) < 0)
			continue;
		depth[w] = ts->depth;
		idle += ts->depth;
		if (w == n)
			break;
		bool asked = ts->get_fails > wt->fails[w], got = ts->gets > wt->gets[w];
		wt->fails[w] = ts->get_fails;
		wt->gets[w] = ts->gets;
		if (asked && !got && (starved < 0 || depth[w] < depth[starved]))
			starved = (int)w;
	}
	struct sl_pool_counts c;
	sl_pool_count(p, &c);
	unsigned cap = sl_pool_capacity(p), chunk = sl_pool_chunk(p);
	if (starved >= 0 && c.global + c.l3 < chunk && 2 * (idle - depth[starved]) >= cap) {
		wt->starved_s[starved] += dt;
		unsigned holder = n;   /* the non-worker freelist */
		for (unsigned w = 0; w < n; w++)
			if (depth[w] > depth[holder])
				holder = w;
		if (!wt->pool_warned) {
			wt->pool_warned = true;
			const struct sl_pool_cfg *pc = &e->cfg->pool;
			if (holder < n)
				sl_warn("pool: worker '%s' has found the pool empty for "
					       "%.1f s while %" PRIu64 " of its %u mbufs sit unused on the "
					       "freelist of worker '%s', at or below its high mark (%u): a "
					       "freelist gives nothing back below its high mark; raise "
					       "pool.mbufs or lower pool.high",
					       e->workers[starved].name, dt, depth[holder], cap,
					       e->workers[holder].name, pool_high(pc));
			else
				sl_warn("pool: worker '%s' has found the pool empty for "
					       "%.1f s while %" PRIu64 " of its %u mbufs sit unused in the "
					       "non-worker freelist, less than the chunk (%u) a worker takes at "
					       "a time; raise pool.mbufs or lower pool.chunk",
					       e->workers[starved].name, dt, depth[holder], cap, chunk);
		}
	}
	free(depth);
	free(ts);
}

/* Whether worker w's lcore has left sl_worker_main. */
static bool worker_done(const struct engine *e, unsigned w)
{
	return rte_eal_get_lcore_state(e->workers[w].lcore) == WAIT;
}

/* Wait for the launched workers (the first n) to leave their loops: at most
 * stop_timeout seconds (0: no limit), or until a second signal.  Returns 0 when every one
 * has, else -ETIMEDOUT with the workers that have not named in err, with
 * what each is in. */
static int wait_workers(struct engine *e, unsigned n, const uint64_t *breaths_at_stop,
			struct sl_err *err)
{
	double t0 = sl_eng_now_s(), limit = e->opts->stop_timeout;
	int signals_at_stop = sl_sig_count();
	for (;;) {
		unsigned running = 0;
		for (unsigned w = 0; w < n; w++)
			running += !worker_done(e, w);
		if (running == 0) {
			rte_eal_mp_wait_lcore();
			return 0;
		}
		bool again = sl_sig_count() > signals_at_stop && sl_sig_count() > 1;
		if (again || (limit > 0 && sl_eng_now_s() - t0 >= limit))
			break;
		struct timespec nap = { 0, 5 * 1000 * 1000 };
		nanosleep(&nap, NULL);
	}
	char m[512];
	size_t len = 0, size = sizeof(m);
	unsigned stuck = 0;
	m[0] = '\0';
	for (unsigned w = 0; w < n; w++) {
		if (worker_done(e, w))
			continue;
		const struct sl_worker *wk = &e->workers[w];
		unsigned app;
		enum sl_worker_step st = sl_worker_where(wk, &app);
		uint64_t b = sl_counter_read(&wk->breaths) - breaths_at_stop[w];
		sl_appendf(m, size, &len, "%sworker '%s' (cpu %d, lcore %u) ", stuck++ ? "; " : "",
			   wk->name, wk->cpu, wk->lcore);
		if (st == SL_STEP_PULL || st == SL_STEP_PUSH || st == SL_STEP_TICK)
			sl_appendf(m, size, &len, "is in app '%s' (%s), step %s",
				   e->apps[app]->name, e->apps[app]->type->name,
				   sl_worker_step_name(st));
		else
			sl_appendf(m, size, &len, "is in step %s", sl_worker_step_name(st));
		if (b == 0)
			sl_appendf(m, size, &len, ", no breath ended since the stop");
		else
			sl_appendf(m, size, &len, ", %" PRIu64 " breaths since the stop", b);
	}
	bool second = sl_sig_count() > signals_at_stop && sl_sig_count() > 1;
	sl_errf(err, ETIMEDOUT, "%u of %u workers did not stop %s %.1f s: %s; exiting without "
		"the clean-up that would wait for %s (apps not stopped, links not drained, "
		"mbufs not counted)", stuck, n,
		second ? "(a second signal came) after" : "within", sl_eng_now_s() - t0, m,
		stuck > 1 ? "them" : "it");
	return -ETIMEDOUT;
}

/* The watch's per-worker arrays: 0 or -ENOMEM. */
static int watch_alloc(struct watch *wt, unsigned nw)
{
	wt->warned = calloc(nw, sizeof(double));
	wt->stall_from = calloc(nw, sizeof(uint64_t));
	wt->gets = calloc(nw, sizeof(uint64_t));
	wt->fails = calloc(nw, sizeof(uint64_t));
	wt->starved_s = calloc(nw, sizeof(double));
	return wt->warned == NULL || wt->stall_from == NULL || wt->gets == NULL ||
	       wt->fails == NULL || wt->starved_s == NULL ? -ENOMEM : 0;
}

static void watch_free(struct watch *wt)
{
	free(wt->warned);
	free(wt->stall_from);
	free(wt->gets);
	free(wt->fails);
	free(wt->starved_s);
}

/* ---------------------------------------------------------------- loop */

/* The control thread's state while the workers run. */
struct loop {
	struct engine *e;
	struct watch *wt;
	double t0, t;                 /* the run's start; seconds since, now */
	unsigned generation;          /* e->generation the snapshots are of */
	uint64_t *mem;                /* the snapshots' arrays */
	struct sl_report_snapshot prev, cur;
};

/* The stats lines' two snapshots, sized for the apps running now; the
 * first taken.  false: out of memory (those before stay). */
static bool snapshots(struct loop *l)
{
	unsigned n = l->e->cfg->n_apps;
	uint64_t *m = calloc(6 * (size_t)n + 1, sizeof(uint64_t));
	if (m == NULL)
		return false;
	free(l->mem);
	l->mem = m;
	l->prev = (struct sl_report_snapshot){ .in = m, .out = m + n, .drops = m + 2 * n };
	l->cur = (struct sl_report_snapshot){ .in = m + 3 * n, .out = m + 4 * n,
					      .drops = m + 5 * n };
	return true;
}

/* The control loop's duties, in the order of a turn; each returns true to
 * stop the run. */
struct duty {
	const char *name;
	double period;   /* seconds: 0 every turn; > 0 at each multiple of it
			  * in the run; < 0 never */
	bool (*fn)(struct loop *l);
};

/* Serve the control socket and the captures (a capture drains its rings
 * every millisecond), or nap. */
static bool duty_control(struct loop *l)
{
	struct engine *e = l->e;
	if (e->ctl != NULL) {
		sl_ctl_poll(e->ctl, e->capturing ? 1 : 20);
		e->capturing = sl_cap_service();
	} else {
		struct timespec nap = { 0, 20 * 1000 * 1000 };
		nanosleep(&nap, NULL);
	}
	return false;
}

static bool duty_hup(struct loop *l)
{
	if (sl_sig_take_hup())
		sl_eng_reload_on_hup(l->e);
	return false;
}

/* A reload changed the apps: the stats lines start again from a snapshot
 * of the new ones. */
static bool duty_generation(struct loop *l)
{
	if (l->e->generation != l->generation) {
		l->generation = l->e->generation;
		if (snapshots(l))
			take(l->e, &l->prev, l->t0);
	}
	return false;
}

static bool duty_reload_stopped(struct loop *l)
{
	if (l->e->reload_stopped)
		sl_note("stopping: a reload could not start an app it restarted");
	return l->e->reload_stopped;
}

static bool duty_reclaim(struct loop *l)
{
	sl_epoch_reclaim(l->e->epoch, l->e->ctl_epoch_w, l->e->cfg->reclaim_cap);
	return false;
}

static bool duty_watchdog(struct loop *l)
{
	sl_notify_watchdog_tick(l->t);
	return false;
}

static bool duty_laggards(struct loop *l)
{
	watch_laggards(l->e, l->wt, l->t, true);
	return false;
}

static bool duty_pool(struct loop *l)
{
	watch_pool(l->e, l->wt, l->t);
	return false;
}

static bool duty_signal(struct loop *l)
{
	if (sl_sig_first() == 0)
		return false;
	sl_note("%s received, stopping (a second signal, or %.1f s without every worker "
		"stopped, ends the process)", sl_sig_name(sl_sig_first()),
		l->e->opts->stop_timeout);
	return true;
}

static bool duty_duration(struct loop *l)
{
	return l->e->opts->duration > 0 && l->t >= l->e->opts->duration;
}

static bool duty_stats(struct loop *l)
{
	take(l->e, &l->cur, l->t0);
	sl_report_stats_line(l->e->cfg, l->e->apps, &l->prev, &l->cur);
	struct sl_report_snapshot tmp = l->prev;
	l->prev = l->cur;
	l->cur = tmp;
	return false;
}

/* Launch the workers: 0, or -errno (the first that could not start; those
 * before it run).  *launched: how many run. */
static int launch(struct engine *e, unsigned *launched, struct sl_err *err)
{
	for (*launched = 0; *launched < e->cfg->n_workers; (*launched)++) {
		struct sl_worker *wk = &e->workers[*launched];
		int rc = rte_eal_remote_launch(sl_worker_main, wk, wk->lcore);
		if (rc < 0)
			return sl_errf(err, -rc, "worker '%s': cannot start on lcore %u (cpu %d): %s",
				       wk->name, wk->lcore, wk->cpu, strerror(-rc));
	}
	return 0;
}

/* Stop the launched workers (bounded: wait_workers; breaths: room for
 * each worker's count) and the captures. */
static int stop_workers(struct engine *e, struct watch *wt, unsigned launched,
			uint64_t *breaths, double t0, struct sl_err *err)
{
	fflush(stdout);
	sl_notify_stopping();
	sl_ctl_close(e->ctl);   /* no reload from here on */
	e->ctl = NULL;
	sl_tel_detach();   /* telemetry reads nothing from here on */
	for (unsigned w = 0; w < e->cfg->n_workers; w++)
		breaths[w] = sl_counter_read(&e->workers[w].breaths);
	__atomic_store_n(&e->stop, true, __ATOMIC_RELEASE);
	int rc = wait_workers(e, launched, breaths, err);
	if (rc == 0)   /* captures get what their rings hold, and their counts */
		sl_cap_close_all("the engine stopped");
	/* The last word on a stall that ended while stopping. */
	watch_laggards(e, wt, sl_eng_now_s() - t0, false);
	return rc;
}

/* Launch the workers, do the duties until one stops the run (a signal, the
 * duration, a failed reload), stop the workers (bounded: wait_workers).
 * Returns 0 with the run's length in *elapsed, -ENOMEM, -ETIMEDOUT (a
 * worker did not stop: its thread still runs) or another -errno (a worker
 * could not be launched; the others are stopped). */
static int run_loop(struct engine *e, struct watch *wt, double *elapsed, struct sl_err *err)
{
	const struct sl_run_opts *o = e->opts;
	const struct duty duties[] = {
		{ "serve the control socket and captures", 0, duty_control },
		{ "reload on SIGHUP", 0, duty_hup },
		{ "follow a reload's apps", 0, duty_generation },
		{ "stop after a failed reload", 0, duty_reload_stopped },
		{ "reclaim what reloads retired", 0, duty_reclaim },
		{ "the systemd watchdog", 0, duty_watchdog },
		{ "name epoch laggards", 0, duty_laggards },
		{ "watch the pool (once a second)", 0, duty_pool },
		{ "stop at a signal", 0, duty_signal },
		{ "stop after the duration", 0, duty_duration },
		{ "a stats line", o->stats > 0 ? o->stats : -1, duty_stats },
	};
	enum { N_DUTIES = sizeof(duties) / sizeof(duties[0]) };
	double next[N_DUTIES];
	unsigned nw = e->cfg->n_workers, launched = 0;
	struct loop l = { .e = e, .wt = wt, .generation = e->generation };
	uint64_t *breaths = calloc(nw + 1, sizeof(uint64_t));
	if (breaths == NULL || !snapshots(&l) || watch_alloc(wt, nw) < 0) {
		free(breaths);
		free(l.mem);
		return sl_errf(err, ENOMEM, "out of memory");
	}
	int rc = launch(e, &launched, err);
	/* A signal since the last setup step armed the setup alarm: the loop
	 * below stops at once instead. */
	sl_sig_phase(SL_PHASE_RUN);
	alarm(0);
	if (rc == 0) {
		char status[64];
		snprintf(status, sizeof(status), "running %u apps on %u workers",
			 e->cfg->n_apps, nw);
		sl_notify_ready(status);
	}
	l.t0 = sl_eng_now_s();
	take(e, &l.prev, l.t0);
	for (unsigned k = 0; k < N_DUTIES; k++)
		next[k] = duties[k].period;
	for (bool stop = rc != 0; !stop;)
		for (unsigned k = 0; k < N_DUTIES && !stop; k++) {
			const struct duty *d = &duties[k];
			l.t = sl_eng_now_s() - l.t0;
			if (d->period < 0 || (d->period > 0 && l.t < next[k]))
				continue;
			if (d->period > 0)
				next[k] += d->period;
			stop = d->fn(&l);
		}
	struct sl_err werr = { "" };
	int wrc = stop_workers(e, wt, launched, breaths, l.t0, &werr);
	if (wrc < 0) {   /* a thread still runs: that decides what the caller does */
		*err = werr;
		rc = wrc;
	}
	*elapsed = sl_eng_now_s() - l.t0;
	free(breaths);
	free(l.mem);
	return rc;
}

/* The end of a successful run: the report, and the JSON summary if asked
 * for.  Returns 0, -EFAULT (mbufs missing) or -errno (the summary could
 * not be written), with a sentence. */
static int report(const struct engine *e, const struct watch *wt, double elapsed,
		  struct sl_err *err)
{
	struct sl_report r = {
		.cfg = e->cfg, .apps = e->apps, .links = e->links, .workers = e->workers,
		.pool = e->pool, .epoch = e->epoch, .epoch_drained = e->epoch_drained,
		.drained = e->drained, .freed_at_stop = e->freed_at_stop,
		.reloads = e->reloads, .freed_by_reload = e->freed_by_reload,
		.last_reload_ns = e->last_reload_ns,
		.starved_s = wt->starved_s, .elapsed = elapsed, .control_cpu = e->plan->main_cpu,
		.mbufs_total = e->pool->size, .mbufs_back = rte_mempool_avail_count(e->pool),
	};
	sl_report_summary(&r, e->opts->quiet);
	int rc = 0;
	if (e->opts->summary_json != NULL)
		rc = sl_report_json(&r, e->opts->summary_json, err);
	if (r.mbufs_back != r.mbufs_total) {
		if (rc < 0 && err != NULL)   /* the less important failure: say it */
			sl_warn_err("%s", err->msg);
		rc = sl_errf(err, EFAULT, "pool: %u mbufs were not returned at stop",
			     r.mbufs_total - r.mbufs_back);
	}
	return rc;
}

int sl_engine_run(const struct sl_config *cfg, const struct sl_topology *topo,
		  const struct sl_plan *plan, const struct sl_run_opts *opts,
		  struct sl_err *err)
{
	struct engine e = { .cfg = cfg, .opts = opts, .plan = plan, .topo = topo };
	struct watch wt = { 0 };
	double elapsed = 0;
	int rc;

	rc = sl_app_registry_check(err);
	if (rc < 0)
		return rc;
	if (topo->synthetic)
		return sl_errf(err, EINVAL, "cannot run on a described machine (%s); unset "
			       "HWLOC_SYNTHETIC and HWLOC_XMLFILE, or use 'sluice plan'",
			       topo->source);
	for (unsigned i = 0; i < e.plan->n_warnings; i++)
		sl_warn("%s", e.plan->warnings[i]);
	/* Blocked here, so that DPDK's threads inherit the mask; unblocked on
	 * this thread (the control thread) once the handlers are installed. */
	sigset_t sigs, old_mask;
	sl_sig_set(&sigs);
	pthread_sigmask(SIG_BLOCK, &sigs, &old_mask);
	rc = eal_init(&e, err);
	if (rc < 0) {
		pthread_sigmask(SIG_SETMASK, &old_mask, NULL);
		return rc;
	}
	bool pdump = sl_pdump_start(cfg, e.opts->eal_args, e.opts->n_eal_args);
	struct sl_err terr = { "" };
	if (sl_tel_register(cfg->path, &terr) < 0)   /* the run goes on without */
		sl_warn("%s", terr.msg);

	sl_step_to(NULL, "installing the signal handlers");
	sl_sig_phase(SL_PHASE_SETUP);
	rc = sl_sig_install(opts->stop_timeout, err);
	pthread_sigmask(SIG_UNBLOCK, &sigs, NULL);   /* one that came meanwhile is taken now */
	if (rc == 0)
		rc = setup(&e, topo, err);
	alarm(0);
	if (rc < 0 && rc != -EINTR && sl_sig_first() != 0) {
		/* The signal interrupted the step's system call (the handlers
		 * do not restart them), and the step failed of it. */
		char why[sizeof(err->msg)];
		memcpy(why, err->msg, sizeof(why));
		rc = sl_errf(err, EINTR, "%s received during setup, while %s: stopped before "
			     "running (the step failed: %.300s)", sl_sig_name(sl_sig_first()),
			     sl_sig_step(), why);
	}
	if (rc < 0)
		goto out_teardown;

	/* Telemetry answers from here (so a client that saw the start line
	 * finds the pipeline) until the stop begins (run_loop). */
	sl_eng_attach_view(&e);
	e.running = cfg;
	e.start_path = cfg->path;
	struct sl_err cerr = { "" };
	e.ctl = sl_ctl_open(rte_eal_get_runtime_dir(), sl_eng_control, &e, &cerr);
	if (e.ctl == NULL)   /* the run goes on without reloads */
		sl_warn("%s; `sluice reload` cannot reach this engine", cerr.msg);
	sl_report_start(cfg, e.workers, e.plan->main_cpu);

	rc = run_loop(&e, &wt, &elapsed, err);
	if (rc == -ETIMEDOUT) {
		/* A worker thread still runs the apps, links and pool and may
		 * use cfg: tear nothing down.  The caller exits at once. */
		watch_free(&wt);
		return rc;
	}
	if (rc < 0)
		goto out_teardown;
	sl_sig_enter_cleanup();
	e.ran = true;
	teardown(&e);
	rc = report(&e, &wt, elapsed, err);
	if (rc == 0 && e.reload_stopped)
		rc = sl_errf(err, ECANCELED, "a reload could not start an app it had restarted, "
			     "and stopped the engine (the warning above names it)");
	goto out_release;

out_teardown:
	sl_sig_enter_cleanup();
	teardown(&e);
	sl_report_app_warnings(e.apps, e.cfg->n_apps);
out_release:
	sl_step_to(NULL, "releasing memory");
	release(&e);
	sl_step_to(NULL, "cleaning up DPDK");
	sl_pdump_stop(pdump);
	rte_eal_cleanup();
	alarm(0);
	sl_sig_phase(SL_PHASE_QUIET);
	pthread_sigmask(SIG_SETMASK, &old_mask, NULL);
	watch_free(&wt);
	return rc;
}
