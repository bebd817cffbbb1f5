/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A configuration as placement reads it: the struct sl_place_input of
 * placement/placement.h built from a checked struct sl_config (its workers
 * with their requested CPUs and groups, its apps with their workers, NUMA
 * wishes and replica notes, its links, topology.c2c), and placement's entry
 * points taking the configuration.  Messages are those of placement, with
 * the configuration's file name and positions.
 *
 * Thread: control thread.  Ownership: an input borrows cfg's strings (cfg
 * must outlive it) and is freed with sl_config_place_input_free.
 */
#ifndef SL_CONFIG_PLACE_H
#define SL_CONFIG_PLACE_H

#include <sched.h>
#include <stdio.h>

#include "base/err.h"
#include "config/config.h"
#include "placement/placement.h"
#include "placement/topology.h"

/* The placement input of cfg; NULL (errno ENOMEM) when out of memory. */
struct sl_place_input *sl_config_place_input(const struct sl_config *cfg);

void sl_config_place_input_free(struct sl_place_input *in);

/* sl_place, sl_plan_here and sl_plan_print for cfg: the same results and
 * messages, or -ENOMEM ("out of memory" in err; nothing printed) where the
 * input cannot be built. */
int sl_config_place(const struct sl_config *cfg, const struct sl_topology *topo,
		    const cpu_set_t *allowed, struct sl_plan *plan, struct sl_err *err);
int sl_config_plan_here(const struct sl_config *cfg, struct sl_topology **topo,
			struct sl_plan *plan, struct sl_err *err);
int sl_config_plan_print(const struct sl_config *cfg, const struct sl_topology *topo,
			 const struct sl_plan *plan, FILE *out);

#endif
