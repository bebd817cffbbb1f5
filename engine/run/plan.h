/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A reload's plan: what applying a config diff (engine/config/diff.h) to a
 * running engine keeps, builds anew and holds, decided from the two configs
 * and their diff alone.  reload.c carries it out.
 *
 *   old    the structure the engine runs (its app and link objects, and
 *          the workers' lists, were built from it)
 *   new    the config to apply
 *   diff   the actions from the config last applied to new (its names are
 *          looked up in old, which runs the same apps and links)
 *
 * Each app of new is kept (the running object of the same name goes on),
 * fresh (a new object: started) or restarted (a new object that replaces a
 * running one of the same name: initialised once the old one has stopped).
 * Each link of new is kept, or fresh; an old link rebuilt (removed and
 * added under the same name) gives its packets to the fresh one.  A worker
 * is affected when its lists change (the apps it pulls, ticks or pushes, in
 * push order, their inputs, its interlinks' ends), when a kept app on it
 * moves, changes its place or its links, or when a kept link into or out of
 * it gets a new end: the executor holds exactly those workers.
 *
 * Refusals (the whole reload is refused; nothing changes): adding or
 * removing a worker, starting, stopping, restarting or moving a replica on
 * a worker group (or a join or split inserted for one), stopping,
 * restarting or moving a flowcache, and listing the workers in another
 * order.  The sentence says which (plan.why).
 *
 * Pure: no engine, no DPDK, no I/O; touches nothing but its arguments and
 * what it allocates.  Thread: any.
 */
#ifndef SL_RUN_PLAN_H
#define SL_RUN_PLAN_H

#include <stdbool.h>

#include "base/err.h"
#include "config/config.h"
#include "config/diff.h"
#include "runtime/app.h"

/* An app's links in the new structure: the new config's link index at each
 * input and output port, -1 where none; n_in, n_out one past the highest
 * port used. */
struct sl_reload_ports {
	int in[SL_MAX_PORTS], out[SL_MAX_PORTS];
	unsigned n_in, n_out;
};

/* A live reconfiguration: the app old->apps[old_index] takes the
 * parameters of new->apps[new_index]; old_index is -1 when old runs no app
 * of that name (the reload then fails). */
struct sl_reload_reconf {
	int old_index, new_index;
	const char *name;
};

struct sl_reload_plan {
	/* 0, or -EPERM: refused, why says so ("cannot remove worker 'b' while
	 * running: ..."); the rest of the plan is then empty. */
	int refused;
	char why[640];
	bool structural;                 /* an action other than reconfigure */
	unsigned n_apps, n_links;        /* new's */
	unsigned n_old_apps, n_old_links, n_workers;   /* old's */
	/* Per app of new: the old app it keeps (an index into old->apps), or
	 * -1 (fresh); restarted: a fresh one that replaces a running app. */
	int *app_from;
	bool *restarted;
	struct sl_reload_ports *ports;
	/* Per link of new: the old link it keeps, or -1 (fresh). */
	int *link_from;
	/* Per app and link of old: kept; and for an old link not kept, the new
	 * link its packets move into (rebuilt under its name), or -1 (its
	 * packets are freed). */
	bool *old_app_kept, *old_link_kept;
	int *into;
	/* Per worker (old's, which new has too): held during the switch. */
	bool *affected;
	struct sl_reload_reconf *reconf;
	unsigned n_reconf;
};

/* The plan for applying d (old's running config to new) to an engine that
 * runs old, into *p.  Returns 0 (p->refused says whether it may go on) or
 * -ENOMEM with a sentence.  *p is the caller's: sl_reload_plan_free, also
 * after a failure. */
int sl_reload_plan(const struct sl_config *old, const struct sl_config *new,
		   const struct sl_diff *d, struct sl_reload_plan *p, struct sl_err *err);

void sl_reload_plan_free(struct sl_reload_plan *p);

/* The output and input port index that link i of cfg takes on its two apps
 * (a fixed port: its place in the type's list; a numbered family's: its
 * number). */
void sl_reload_link_ports(const struct sl_config *cfg, unsigned i, unsigned *out,
			  unsigned *in);

#endif
