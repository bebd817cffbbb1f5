/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A capture tap: what a link's producer runs per burst while the link is
 * under capture (engine/ops/capture.h runs the sessions; docs/capture.md).
 *
 * A tap holds a filter, a snap length and an SPSC ring of records
 * (capring.h) towards the control thread.  The filter comes to it compiled:
 * an eBPF program (struct rte_bpf_prm: capture converts libpcap's code with
 * rte_bpf_convert), which sl_cap_tap_new loads with rte_bpf_load and
 * JIT-compiles where DPDK can.  The runtime neither parses nor compiles
 * filters: no object of the runtime (or of an app) calls libpcap, and the
 * runtime's library does not depend on it.
 *
 * The data path.  sl_link_transmit() (link.h) loads the link's tap pointer
 * once per burst; when it is NULL (no capture) that is the whole cost.  When
 * it is set the producer calls sl_cap_burst() before queuing the burst: each
 * packet the filter passes (the native code when DPDK JIT-compiled it, else
 * rte_bpf_exec) has its first snaplen bytes copied into the ring with the
 * burst's TSC; the packet itself goes on unchanged (never the mbuf: a
 * copy).  A full ring drops the copy and counts it; the worker never waits.
 *
 * Threads: sl_cap_burst on the link's producer (one thread at a time);
 * sl_cap_tap_new and sl_cap_tap_free on the control thread (free only once
 * no producer can still be inside sl_cap_burst with the tap: after an
 * epoch's grace period, or once the workers have stopped).  The counters
 * may be read by any thread (relaxed loads).  Errors follow
 * engine/base/err.h.
 */
#ifndef SL_TAP_H
#define SL_TAP_H

#include <stdint.h>

#include <rte_common.h>
#include <rte_mbuf.h>

#include "base/err.h"
#include "runtime/capring.h"

#define SL_CAP_RING_BYTES (4u << 20)   /* of ring, per tap */

struct rte_bpf;
struct rte_bpf_prm;

/* One link under capture.  The producer writes ring (as producer) and ctr;
 * everything else is fixed while the tap is attached. */
struct sl_cap_tap {
	struct sl_capring ring;
	struct rte_bpf *bpf;            /* NULL: every packet */
	uint64_t (*jit)(void *);        /* bpf's native code, or NULL */
	uint32_t snaplen;
	uint32_t tag;                   /* the record's tag (capture: its interface) */
	struct {
		uint64_t seen;          /* packets that reached the tap */
		uint64_t filtered;      /* of those, refused by the filter */
		uint64_t dropped;       /* of those, no room in the ring */
	} ctr __rte_cache_aligned;
};

/* The producer's side: copy what the tap's filter passes of pkts[0..n) into
 * its ring.  Never blocks; pkts are not changed. */
void sl_cap_burst(struct sl_cap_tap *t, struct rte_mbuf *const *pkts, unsigned n);

/* A tap with an empty ring of SL_CAP_RING_BYTES, its filter loaded from prm
 * (NULL: none; prm is not kept), into *tap: 0, or -ENOMEM or -ENOTSUP
 * ("capture: DPDK cannot load the filter: ...") with a sentence. */
int sl_cap_tap_new(uint32_t snaplen, uint32_t tag, const struct rte_bpf_prm *prm,
		   struct sl_cap_tap **tap, struct sl_err *err);

/* Free t (NULL: no-op).  The signature of an epoch retire callback. */
void sl_cap_tap_free(void *t, void *unused);

#endif
