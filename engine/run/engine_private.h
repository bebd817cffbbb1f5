/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the engine's run (engine.c) and its live reconfiguration (reload.c)
 * share: the state of one run and the pieces that build it.  Control thread
 * only; not part of any contract outside engine/core.
 */
#ifndef SL_ENGINE_PRIVATE_H
#define SL_ENGINE_PRIVATE_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>
#include <rte_mempool.h>

#include "ops/capture.h"
#include "config/config.h"
#include "ops/control.h"
#include "run/engine.h"
#include "epoch/epoch.h"
#include "placement/placement.h"
#include "placement/topology.h"
#include "runtime/worker.h"

/* Everything one run owns; torn down in reverse order of setup.  Apps and
 * links are objects of their own (a reload keeps the ones it does not
 * change where they are, since workers hold pointers to them); apps[] and
 * links[] are parallel to cfg's. */
struct engine {
	const struct sl_config *cfg;    /* the structure running now: the
					 * caller's, or a reload's */
	const struct sl_run_opts *opts;
	struct rte_mempool *pool;
	struct sl_app **apps;           /* cfg->n_apps */
	struct sl_link **links;         /* cfg->n_links */
	struct sl_worker *workers;      /* cfg->n_workers (fixed for the run) */
	struct sl_worker everyone;      /* all apps, for the drain on stop */
	struct sl_epoch *epoch;
	uint64_t epoch_drained;
	const struct sl_plan *plan;
	const struct sl_topology *topo;  /* the machine (reloads check placement) */
	bool stop;
	bool ran;                       /* the workers ran: collect the apps' values */
	/* Reload (engine/ops/control.h): the config last applied (cfg, or a
	 * reload's whose strings and params the apps now use), the configs
	 * reloads loaded that are still in use (cfg and running at most, once
	 * a reload is over: it frees those it replaced; the rest at the end),
	 * the control socket, the control thread's epoch handle, and what
	 * reloads did. */
	const struct sl_config *running;
	const char *start_path;         /* the file the run was started with (SIGHUP) */
	struct sl_config **loaded;
	unsigned n_loaded, reloads;
	uint64_t last_reload_ns;        /* Unix time of the last reload applied; 0: none */
	struct sl_ctl *ctl;
	struct sl_epoch_worker *ctl_epoch_w;
	unsigned generation;            /* bumped when apps or links change */
	unsigned il_serial;             /* names of interlinks made so far */
	uint64_t freed_by_reload;       /* packets of removed links, freed */
	bool reload_stopped;            /* a reload failed half-way: stopping */
	/* Captures (capture.h, which reads the engine through the view
	 * sl_eng_attach_view gives it), served by the control loop. */
	bool capturing;
	uint64_t drained, freed_at_stop;
};

double sl_eng_now_s(void);

/* An app object for cfg->apps[i], placed on its worker, links not yet
 * connected, not initialised.  NULL with a sentence. */
struct sl_app *sl_eng_new_app(struct engine *e, const struct sl_config *cfg, unsigned i,
			      struct sl_err *err);
/* Frees what sl_eng_new_app made (after fini, if it was initialised). */
void sl_eng_free_app(struct sl_app *a);
/* Where app a stands in cfg (index i): name, index, worker, params, ... */
void sl_eng_place_app(struct engine *e, const struct sl_config *cfg, unsigned i,
		      struct sl_app *a);

/* A link object for cfg->links[i] between apps[from] and apps[to] (a ring, or
 * an interlink when their workers differ); not connected to them.  NULL
 * with a sentence. */
struct sl_link *sl_eng_new_link(struct engine *e, const struct sl_config *cfg, unsigned i,
				struct sl_app *const *apps, struct sl_err *err);
void sl_eng_free_link(struct sl_link *l);
/* The output and input index cfg->links[i] takes on its two apps. */
void sl_eng_link_ports(const struct sl_config *cfg, unsigned i, unsigned *out, unsigned *in);
/* Free what l holds; returns how many. */
uint64_t sl_eng_free_link_contents(struct sl_link *l);

/* Point telemetry at e's current objects (its config, apps, links,
 * workers, pool, epoch and reload counters), and capture at those it reads
 * (config, links, epoch, control socket, stopping).  Control thread. */
void sl_eng_attach_view(struct engine *e);

/* Initialise and start app a (index i of cfg): 0 or -errno with a sentence
 * (-EDOM prefixed with FILE:LINE:COL). */
int sl_eng_init_app(const struct sl_config *cfg, unsigned i, struct sl_app *a,
		    struct sl_err *err);

void sl_eng_push_entry(struct sl_push_entry *pe, struct sl_app *a);

/* The control thread's list of every app and interlink (the drain at stop),
 * for the structure running now.  0 or -ENOMEM. */
int sl_eng_rebuild_everyone(struct engine *e, struct sl_err *err);

/* The control socket's handler and SIGHUP (reload.c). */
json_t *sl_eng_control(void *arg, const char *verb, json_t *req);
void sl_eng_reload_on_hup(struct engine *e);

#endif
