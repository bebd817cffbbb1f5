/* SPDX-License-Identifier: BSD-3-Clause */
/* dpdk-dumpcap support and its removal guard: see pdump.h. */
#include <dlfcn.h>
#include <pthread.h>
#include <errno.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_pdump.h>

#include "config/config.h"
#include "epoch/epoch.h"
#include "ops/pdump.h"
#include "ops/report.h"
#include "base/note.h"

/* How long a removal waits for the workers: a worker that has not passed a
 * quiescent state in this long is stalled, and the wait gives up with a
 * warning rather than hold the multi-process thread (and the secondary's
 * request, which times out after 5 s) any longer. */
#define GUARD_TIMEOUT_NS (2ull * 1000 * 1000 * 1000)

static pthread_mutex_t guard_lock = PTHREAD_MUTEX_INITIALIZER;
static struct sl_epoch *guard_epoch;   /* under guard_lock */

bool sl_pdump_start(const struct sl_config *cfg, char *const *extra, unsigned n_extra)
{
	if (!rte_eal_has_hugepages())
		return false;
	for (unsigned i = 0; i < cfg->n_eal_args + n_extra; i++) {
		const char *a = i < cfg->n_eal_args ? cfg->eal_args[i] : extra[i - cfg->n_eal_args];
		if (strcmp(a, "--in-memory") == 0 || strcmp(a, "--no-shconf") == 0)
			return false;
	}
	if (rte_pdump_init() < 0) {
		sl_warn("dpdk-dumpcap cannot attach: rte_pdump_init failed: %s",
			       rte_strerror(rte_errno));
		return false;
	}
	sl_note("dpdk-dumpcap can attach to the ports (file prefix %s)",
		       strrchr(rte_eal_get_runtime_dir(), '/') + 1);
	return true;
}

void sl_pdump_guard(struct sl_epoch *epoch)
{
	pthread_mutex_lock(&guard_lock);
	guard_epoch = epoch;
	pthread_mutex_unlock(&guard_lock);
}

void sl_pdump_stop(bool started)
{
	if (started)
		rte_pdump_uninit();
}

/* After a callback left a port's list: wait until no worker can be in it. */
static void guard_wait(uint16_t port, uint16_t queue, const char *dir)
{
	pthread_mutex_lock(&guard_lock);
	if (guard_epoch != NULL && sl_epoch_barrier(guard_epoch, GUARD_TIMEOUT_NS) < 0)
		sl_warn("port %u %s queue %u: a worker has not passed a quiescent state "
			       "within 2 s of a callback's removal; a capture client that frees "
			       "its buffers now may be written to",
			       port, dir, queue);
	pthread_mutex_unlock(&guard_lock);
}

typedef int remove_fn(uint16_t, uint16_t, const struct rte_eth_rxtx_callback *);

/* DPDK's own function of that name (the next definition after this
 * binary's), then the wait. */
static int guarded_remove(remove_fn **next, const char *name, const char *dir, uint16_t port,
			  uint16_t queue, const struct rte_eth_rxtx_callback *cb)
{
	remove_fn *f = __atomic_load_n(next, __ATOMIC_ACQUIRE);
	if (f == NULL) {
		f = (remove_fn *)dlsym(RTLD_NEXT, name);
		if (f == NULL) {   /* cannot happen with ethdev linked */
			sl_warn("%s: no definition after Sluice's own", name);
			return -ENOTSUP;
		}
		__atomic_store_n(next, f, __ATOMIC_RELEASE);
	}
	int rc = f(port, queue, cb);
	if (rc == 0)
		guard_wait(port, queue, dir);
	return rc;
}

int rte_eth_remove_rx_callback(uint16_t port_id, uint16_t queue_id,
			       const struct rte_eth_rxtx_callback *user_cb)
{
	static remove_fn *next;
	return guarded_remove(&next, __func__, "rx", port_id, queue_id, user_cb);
}

int rte_eth_remove_tx_callback(uint16_t port_id, uint16_t queue_id,
			       const struct rte_eth_rxtx_callback *user_cb)
{
	static remove_fn *next;
	return guarded_remove(&next, __func__, "tx", port_id, queue_id, user_cb);
}
