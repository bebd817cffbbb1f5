/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dpdk-dumpcap on the engine's ethdev ports (docs/capture.md, "dpdk-dumpcap").
 *
 * dpdk-dumpcap attaches as a secondary process; the primary's librte_pdump
 * adds rx and tx callbacks to the ports that copy packets into the
 * secondary's mempool and ring.  DPDK 22.11 removes those callbacks without
 * waiting for a worker that is inside one, and the secondary frees its pool
 * and ring as soon as the removal is acknowledged: a worker preempted in the
 * callback then writes into freed memory (seen on one CPU, where preemption
 * inside the callback is likely).  This module closes that window: Sluice's
 * binary interposes rte_eth_remove_rx_callback and rte_eth_remove_tx_callback
 * (the dynamic linker resolves librte_pdump's calls to them here first) and,
 * after DPDK's own removal, waits for a grace period of the engine's epoch
 * (every online worker past a quiescent state, sl_epoch_barrier) before it
 * returns, so that the acknowledgement reaches the secondary only when no
 * worker can still be in the callback.  Ethdev's documentation of these two
 * functions leaves that wait to the application.
 *
 * Threads: sl_pdump_start and sl_pdump_stop on the control thread; the
 * interposed functions on any thread (librte_pdump calls them on the EAL's
 * multi-process thread).  Never from a worker: it would wait for itself.
 */
#ifndef SL_PDUMP_H
#define SL_PDUMP_H

#include <stdbool.h>

struct sl_config;
struct sl_epoch;

/* Call rte_pdump_init() when a secondary process can attach: hugepages, and
 * neither --in-memory nor --no-shconf among the EAL arguments (cfg's, then
 * the n_extra of extra; rte_pdump_init returns 0 also where secondaries
 * cannot attach, so the arguments decide).  Says so in a note, or why not in
 * a warning when rte_pdump_init fails.  Returns whether it was called. */
bool sl_pdump_start(const struct sl_config *cfg, char *const *extra, unsigned n_extra);

/* The epoch whose workers run the ports' bursts (NULL: none, no wait).  Set
 * it once workers exist; clear it before the epoch is freed (waits for a
 * removal in progress). */
void sl_pdump_guard(struct sl_epoch *epoch);

/* rte_pdump_uninit() if sl_pdump_start called rte_pdump_init. */
void sl_pdump_stop(bool started);

#endif
