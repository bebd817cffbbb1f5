/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Telemetry: the engine's answers on DPDK's telemetry socket (lib/telemetry,
 * the v2 socket the EAL opens in its runtime directory).  The commands and
 * their replies are specified in docs/telemetry.md: /sluice/info, /sluice/apps,
 * /sluice/links, /sluice/workers, /sluice/pool, /sluice/epoch and one
 * /sluice/TYPE per app type that declares counters.  Every value is read
 * through engine/ops/view.h or the apps' counter tables, by name from the
 * declared tables.
 *
 * Threads.  DPDK runs each client's requests on a thread of its own; the
 * callbacks here serialise on one mutex, which only sl_tel_attach() and
 * sl_tel_detach() (control thread) also take.  Workers never take it: a
 * reply is relaxed loads of single-writer counters.
 *
 * DPDK 22.11's limits are handled, not hit: names are values, never keys
 * (keys only [A-Za-z0-9_/]); a list is cut between rows before a reply would
 * pass 16 KiB, 512 array entries or 256 keys, and then says where to go on
 * (`next`, `cut`); 64-bit values are u64.
 */
#ifndef SL_TELEMETRY_H
#define SL_TELEMETRY_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_mempool.h>

#include "runtime/app.h"
#include "config/config.h"
#include "epoch/epoch.h"
#include "base/err.h"
#include "runtime/link.h"
#include "runtime/worker.h"

/* The objects of a running pipeline, as the callbacks read them.  They
 * must stay valid from sl_tel_attach() until sl_tel_detach() returns. */
struct sl_tel_view {
	const struct sl_config *cfg;
	struct sl_app *const *apps;        /* cfg->n_apps, one each */
	struct sl_link *const *links;      /* cfg->n_links, one each */
	const struct sl_worker *workers;   /* cfg->n_workers */
	struct rte_mempool *pool;
	struct sl_epoch *epoch;            /* NULL: none */
	int control_cpu;
	/* Reloads applied, and the packets of removed links they freed: the
	 * control thread's, read with relaxed loads; NULL: none. */
	const unsigned *reloads;
	const uint64_t *freed_by_reload;
	/* When the last reload was applied: Unix time in nanoseconds (0:
	 * none yet); read like reloads. */
	const uint64_t *last_reload_ns;
};

/* Register the commands (after the EAL is up; once per process: DPDK keeps
 * commands for the process's life).  config_path is copied for
 * /sluice/info.  Returns 0, or -errno with a sentence (a command that DPDK
 * refused). */
int sl_tel_register(const char *config_path, struct sl_err *err);

/* Make v readable (state "running", or "reloading" within
 * sl_tel_reloading(true)); ends a pause.  Elapsed time counts from the first
 * attach of the process: a reload's attach does not reset it.  Control
 * thread.  v is copied; the objects it points to are not. */
void sl_tel_attach(const struct sl_tel_view *v);

/* Hold the callbacks off while a reload changes the objects: returns once
 * no callback reads them; callbacks that come meanwhile wait (they are not
 * told "no pipeline") until sl_tel_attach gives them the new objects.
 * Control thread; the pause must be short (the switch of a reload). */
void sl_tel_pause(void);

/* A reload is being handled (on) or is over (off): /sluice/info says state
 * "reloading" meanwhile, and every command answers as while "running"
 * (clients count it as up).  Control thread. */
void sl_tel_reloading(bool on);

/* Stop reading the objects (state "stopping"): returns once no callback
 * reads them any more; ends a pause.  Control thread; call before tearing
 * them down.  Harmless when not attached. */
void sl_tel_detach(void);

#endif
