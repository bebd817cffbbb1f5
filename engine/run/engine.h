/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The engine: turns a checked struct sl_config into running workers and back.
 *
 *   sl_engine_run()  given a placement (engine/placement/placement.h) of cfg on topo,
 *                    initialises DPDK's EAL with an lcore map built from it, creates the mbuf
 *                    pool, builds the links, initialises every app (config
 *                    order), launches one DPDK lcore per worker, prints a stats
 *                    line every opts->stats seconds, and stops on SIGINT,
 *                    SIGTERM or after opts->duration seconds.  Stopping: the
 *                    workers leave their loops; the control thread pushes what
 *                    is still in the links through the pipeline (drain), stops
 *                    the apps, frees what is left in the links, collects the
 *                    apps' values kept outside their workers, finalises the
 *                    apps, prints a summary (engine/ops/report.h), writes the JSON summary to
 *                    opts->summary_json if set, and checks that every mbuf is
 *                    back in its pool.  The JSON summary is written only for
 *                    a run whose workers ran and stopped (by a signal or the
 *                    duration), also when mbufs are missing; a failed setup,
 *                    a worker that could not start or one that did not stop
 *                    writes none.
 *
 * Stopping is bounded (docs/architecture.md, "Stopping"): workers that have
 * not left their loops opts->stop_timeout seconds after the stop (or at a
 * second signal) are named with the app and step each is in; a signal during
 * setup stops it between steps, and a step that does not end within
 * stop_timeout (or a second signal) ends the process from the signal handler
 * (_exit(1), with a message on stderr).  The engine owns SIGINT, SIGTERM and
 * SIGALRM while it runs.
 *
 * Thread: the process's main thread, once per process (DPDK's EAL can be
 * initialised once).  Returns 0, or -errno with a sentence in err: EBUSY (the
 * DPDK file prefix is in use by another process, named), another EAL failure,
 * an app's init failure (EDOM: the configuration asks what a device cannot
 * give; the sentence starts with the app's FILE:LINE:COL), EINTR (a signal during setup; nothing ran), mbufs
 * missing at the end (EFAULT), the summary file not written (its errno,
 * named in the sentence), or ETIMEDOUT: a worker did not stop.  After
 * ETIMEDOUT that worker's thread still runs and may read cfg, topo and plan:
 * the caller must end the process at once without freeing them (nothing was
 * torn down): _exit(), as exit() would flush every stdio stream and so wait
 * for the lock of one the thread may be blocked in.
 */
#ifndef SL_ENGINE_H
#define SL_ENGINE_H

#include <stdbool.h>

#include "config/config.h"
#include "base/err.h"
#include "placement/placement.h"
#include "placement/topology.h"

struct sl_run_opts {
	double duration;        /* seconds; 0 = until a signal */
	double stats;           /* seconds between stats lines; 0 = none */
	char **eal_args;        /* extra EAL arguments (after `--` on the CLI) */
	unsigned n_eal_args;
	bool quiet;             /* no summary tables */
	const char *summary_json; /* write the JSON summary (docs/summary.md) to
				 * this file at stop; NULL: none */
	double stop_timeout;    /* seconds a stop may take: the workers leaving
				 * their loops, or a setup or clean-up step after a
				 * signal (rounded up to whole seconds there);
				 * 0: none (the sluice CLI's default is 5) */
};

int sl_engine_run(const struct sl_config *cfg, const struct sl_topology *topo,
		  const struct sl_plan *plan, const struct sl_run_opts *opts,
		  struct sl_err *err);

#endif
