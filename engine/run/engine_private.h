/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The state of one run, which the engine's run (engine.c), the pieces that
 * build it (build.h), its live reconfiguration (reload.h) and the control
 * verbs (verbs.h) share.  Control thread only; not part of any contract
 * outside engine/run.
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
#include "epoch/epoch.h"
#include "placement/placement.h"
#include "placement/topology.h"
#include "runtime/worker.h"

struct sl_run_opts;   /* run/engine.h */

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

#endif
