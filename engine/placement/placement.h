/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Worker placement: which CPU each worker and the control thread run on.
 *
 * Rules, in order of strength:
 *  1. An explicit `core:` is honoured.  It must be a CPU of the topology and,
 *     unless the topology describes another machine (HWLOC_SYNTHETIC or
 *     HWLOC_XMLFILE), one this process may run on; two workers may not name
 *     the same core.  Breaking these is a configuration error.
 *  2. `auto` workers never share a CPU, nor the two hardware threads of one
 *     core, with another worker while a free core remains.
 *  3. Workers joined by links share an L3 domain where possible, weighted by
 *     the number of links between them: each auto worker, most-connected
 *     first, takes the free CPU that minimises the weighted hop cost to the
 *     workers already placed (same L3 < cross L3 < cross NUMA).
 *  4. A worker running a port app goes to its NIC's NUMA node (the app type's
 *     numa() hint) where a CPU there is free.
 *  5. The control thread takes a CPU no worker uses where one remains (it
 *     mostly sleeps; when CPUs run out it shares with an auto worker).
 * Poor outcomes (shared CPUs, SMT siblings, cross-L3 or cross-NUMA links, a
 * port worker off its NIC's node) are reported as warnings, not errors.
 *
 * Thread: control thread.  Pure: reads its input (struct sl_place_input,
 * which the configuration side builds: config/place.h) and the topology
 * only, so placements for synthetic machines are unit-testable.
 */
#ifndef SL_PLACEMENT_H
#define SL_PLACEMENT_H

#include <sched.h>
#include <stdio.h>

#include "base/err.h"
#include "placement/topology.h"

#define SL_PLAN_MAX_WARNINGS 32

/* A worker's requested CPU when it names none. */
#define SL_PLACE_AUTO (-1)

/* What placement reads of a configuration.  Strings and arrays are
 * borrowed (the builder's to keep alive while placing and printing). */
struct sl_place_worker {
	const char *name;
	int core;                /* requested CPU, or SL_PLACE_AUTO */
	unsigned line, col;      /* where it is declared, for messages */
	unsigned member;         /* in a worker group: its member number */
	unsigned n_members;      /* the group's size; 0 for a worker of its own */
};

struct sl_place_app {
	const char *name;
	const char *type;        /* the app type's name (the replicas table) */
	unsigned worker;         /* index into workers */
	/* The NUMA node the app wants its worker on (a port app's NIC) on
	 * topo, or -1; numa NULL: no wish.  arg is numa's. */
	int (*numa)(const void *arg, const struct sl_topology *topo);
	const void *arg;
	/* A replica, or a join/split inserted between a group and a single
	 * worker: listed under "replicas:" by sl_plan_print with this note. */
	bool replicated;
	const char *note;
};

struct sl_place_link {
	unsigned from, to;           /* indices into apps */
	const char *from_port, *to_port;
	bool direct;                 /* sl_config_link_direct: a direct link
				      * (runtime/link.h) */
};

struct sl_place_input {
	const char *path;            /* the configuration's name, for messages */
	const struct sl_place_worker *workers;
	unsigned n_workers;
	const struct sl_place_app *apps;
	unsigned n_apps;
	const struct sl_place_link *links;
	unsigned n_links;
	const char *c2c_path;        /* a saved core-to-core matrix, or NULL */
	unsigned c2c_line, c2c_col;  /* where it is named */
};

struct sl_plan {
	int main_cpu;
	int *cpus;                 /* per worker */
	enum sl_hop *hops;         /* per link; only meaningful when cross[i] */
	bool *cross;               /* per link: joins two workers */
	char warnings[SL_PLAN_MAX_WARNINGS][200];
	unsigned n_warnings;
};

/* Compute a plan for in on topo.  allowed: the CPUs this process may use
 * (NULL: every CPU of topo, e.g. for a synthetic machine).  Returns 0, or
 * -EINVAL with a sentence ("FILE:LINE:COL: worker 'rx': core 64 ...").
 * On success the caller frees the plan with sl_plan_free. */
int sl_place(const struct sl_place_input *in, const struct sl_topology *topo,
	     const cpu_set_t *allowed, struct sl_plan *plan, struct sl_err *err);

void sl_plan_free(struct sl_plan *plan);

/* Load the topology (sl_topology_load) and plan for this process: the CPUs
 * allowed are its affinity, unless the topology describes another machine
 * (then every CPU of it).  Returns 0, and *topo is the caller's to free; or
 * -errno with a sentence in err (and *topo NULL). */
int sl_plan_here(const struct sl_place_input *in, struct sl_topology **topo,
		 struct sl_plan *plan, struct sl_err *err);

/* Print the plan as `sluice plan` does: workers (cpu, core, L3, NUMA, apps),
 * links with their hop class, the control thread, and the warnings. */
void sl_plan_print(const struct sl_place_input *in, const struct sl_topology *topo,
		   const struct sl_plan *plan, FILE *out);

#endif
