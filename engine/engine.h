/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The engine: turns a checked struct sl_config into running workers and back.
 *
 *   sl_engine_run()  given a placement (engine/placement.h) of cfg on topo,
 *                    initialises DPDK's EAL with an lcore map built from it, creates the mbuf
 *                    pool, builds the links, initialises every app (config
 *                    order), launches one DPDK lcore per worker, prints a stats
 *                    line every opts->stats seconds, and stops on SIGINT,
 *                    SIGTERM or after opts->duration seconds.  Stopping: the
 *                    workers leave their loops; the control thread pushes what
 *                    is still in the links through the pipeline (drain), stops
 *                    the apps, frees what is left in the links, finalises the
 *                    apps, prints a summary, and checks that every mbuf is
 *                    back in its pool.
 *
 * Thread: the process's main thread, once per process (DPDK's EAL can be
 * initialised once).  Returns 0, or -errno with a sentence in err (EAL failure,
 * an app's init failure, mbufs missing at the end).
 */
#ifndef SL_ENGINE_H
#define SL_ENGINE_H

#include <stdbool.h>

#include "config.h"
#include "err.h"
#include "placement.h"
#include "topology.h"

struct sl_run_opts {
	double duration;        /* seconds; 0 = until a signal */
	double stats;           /* seconds between stats lines; 0 = none */
	char **eal_args;        /* extra EAL arguments (after `--` on the CLI) */
	unsigned n_eal_args;
	bool quiet;             /* no summary tables */
};

int sl_engine_run(const struct sl_config *cfg, const struct sl_topology *topo,
		  const struct sl_plan *plan, const struct sl_run_opts *opts,
		  struct sl_err *err);

#endif
