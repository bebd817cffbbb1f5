/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Links: one-way carriers of mbuf pointers from one app's output port to
 * another app's input port.  Apps see only this burst API; the engine decides
 * what is behind it:
 *
 *  - both apps on one worker: a plain ring in the worker's memory, no atomics;
 *  - both apps on one worker, the consumer's type with take() (app.h) and
 *    engine.direct_links on (the default): a direct link.  transmit hands
 *    the burst to the consumer's take() in the same call, depth first, as
 *    a monolithic loop (DPDK's l3fwd) would: no queue between the two
 *    apps, the packets still in the caller's hands and caches.  It queues
 *    as a plain ring instead while the ring holds packets (moved into it
 *    by a reload), so that the consumer's push sees them first and each
 *    link keeps its order.  Links form no cycle outside boundary apps
 *    (config_order.c) and a boundary app's take() transmits nothing, so
 *    the calls nest at most as deep as the worker's chain of apps;
 *  - apps on different workers: an interlink (interlink/), an SPSC ring in a
 *    DPDK memzone on the consumer's node whose indices each worker publishes
 *    once per breath (sl_worker_breathe's flush step): packets transmitted
 *    in a breath become visible to the consumer at the end of that breath;
 *  - apps on different workers with engine.link_impl: ring: DPDK's rte_ring
 *    in SP/SC mode, which publishes in every burst call.  Kept for A/B
 *    measurements against the interlink (scripts/bench-link); it has no
 *    sojourn sampling and no occupancy high-water mark.
 *
 * Ownership: sl_link_transmit() always takes every packet it is given.  What
 * fits is queued (or taken by a direct link's consumer); the rest is freed
 * at once and counted in `drops` (the same rule as Snabb's link.transmit).
 * The array itself may be rewritten before transmit returns (a direct
 * consumer uses it): the caller reads nothing of it after.
 * sl_link_receive() hands ownership of the returned packets to the caller.
 *
 * Capture: a link may have a tap (tap.h); transmit hands it the burst
 * first, before queuing (a tap sees what is transmitted, also what the link
 * then drops).
 *
 * Threads: transmit is called only by the worker that runs the producing app,
 * receive only by the worker that runs the consuming app.  The counters may be
 * read by any thread at any time (relaxed loads: a reader may see a value a
 * few packets old, never a torn one).
 */
#ifndef SL_LINK_H
#define SL_LINK_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <rte_branch_prediction.h>
#include <rte_common.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "interlink/interlink_worker.h"

#include "base/counter.h"
#include "runtime/tap.h"

/* Copy n packet pointers from src to dst (not overlapping): whole blocks
 * of 8 inline (each 64 bytes, a few vector moves at DPDK's -march), the
 * rest, if any, by memcpy.  A burst of 32 is no call at all; a plain loop
 * is not vectorised at that -march, and a call to memcpy per run costs
 * more than the copy (docs/benchmarks.md, "The router's fast path"). */
static inline void sl_ptrs_copy(struct rte_mbuf **dst, struct rte_mbuf *const *src, unsigned n)
{
	unsigned i = 0;
	for (; i + 8 <= n; i += 8)
		memcpy(dst + i, src + i, 8 * sizeof(*dst));
	if (i < n)
		memcpy(dst + i, src + i, (n - i) * sizeof(*dst));
}

/* Sum of pkt_len over p[0..n). */
static inline uint64_t sl_pkts_bytes(struct rte_mbuf *const *p, unsigned n)
{
	uint64_t bytes = 0;
	for (unsigned i = 0; i < n; i++)
		bytes += rte_pktmbuf_pkt_len(p[i]);
	return bytes;
}

/*
 * Free pkts[0..n) like rte_pktmbuf_free_bulk(), reading only each packet's
 * first cache line when it can.  A single-segment direct mbuf whose
 * reference count is 1 (refcnt, nb_segs, ol_flags and pool are all in the
 * first line) goes straight back to its pool; anything else (chains, clones,
 * shared or external buffers) takes rte_pktmbuf_free().  This relies on
 * DPDK's invariant for a valid packet (rte_mbuf_check): nb_segs is the
 * length of the chain, so a packet of one segment has next == NULL, which
 * is what a free mbuf must have.  The point: the mbuf's second line (next,
 * tx_offload) is not read, so a packet freed on another CPU than the one
 * that allocates it next leaves that line in the allocating CPU's cache,
 * and the allocation's writes to it (rte_pktmbuf_reset) need no transfer
 * between the two.
 */
static inline void sl_pkts_free(struct rte_mbuf **pkts, unsigned n)
{
	void *run[64];
	unsigned k = 0;
	struct rte_mempool *mp = NULL;

	for (unsigned i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		__rte_mbuf_sanity_check(m, 1);   /* debug builds of DPDK: next too */
		if (unlikely(rte_mbuf_refcnt_read(m) != 1 || m->nb_segs != 1 ||
			     !RTE_MBUF_DIRECT(m))) {   /* DIRECT: neither indirect nor external */
			rte_pktmbuf_free(m);
			continue;
		}
		if (m->pool != mp || k == RTE_DIM(run)) {
			if (k > 0)
				rte_mempool_put_bulk(mp, run, k);
			mp = m->pool;
			k = 0;
		}
		run[k++] = m;
	}
	if (k > 0)
		rte_mempool_put_bulk(mp, run, k);
}

struct sl_app;
struct sl_worker;

struct sl_link_stats {
	uint64_t tx_packets;  /* accepted by transmit (producer side) */
	uint64_t drops;       /* freed by transmit because the link was full */
	uint64_t rx_packets;  /* handed to the consumer by receive */
	uint64_t rx_bytes;    /* bytes of those (counted by the consumer, which
			       * touches the packets next anyway) */
};

struct sl_link {
	/* Read by both ends of a same-worker link, so all on one line. */
	struct rte_mbuf **slots;    /* same-worker ring, size mask + 1 */
	struct sl_il *il;           /* cross-worker: an interlink, else NULL */
	struct rte_ring *ring;      /* cross-worker, link_impl ring: else NULL */
	uint32_t mask;
	uint32_t read;              /* same-worker consumer cursor */
	uint32_t write;             /* same-worker producer cursor */
	/* The most packets the consumer takes at once, 0: the engine's
	 * burst (sl_link_batch). */
	uint32_t batch;
	/* A capture's tap (tap.h), or NULL: set and cleared by the control
	 * thread (engine/ops/capture.c), loaded once per burst by the producer. */
	struct sl_cap_tap *cap;
	/* A direct link: the consumer's take() and worker, else NULL (set by
	 * the control thread while neither end runs: engine/run/build.c). */
	void (*take)(struct sl_app *app, unsigned in, struct rte_mbuf **pkts, unsigned n,
		     uint64_t bytes);
	struct sl_worker *take_w;

	/* Producer counters and consumer counter on separate lines so that the
	 * two ends of a cross-worker link do not share a written cache line. */
	struct {
		uint64_t packets, drops;
	} tx __rte_cache_aligned;
	struct {
		uint64_t packets, bytes;
	} rx __rte_cache_aligned;

	/* Control data, written at build time only. */
	struct sl_app *from, *to __rte_cache_aligned;
	const char *from_port, *to_port;
	unsigned index;             /* position in the config's links list */
	unsigned to_in;             /* the input of `to` it feeds */
	char name[96];              /* "a.output -> b.input" */
};

/* Whether l is a direct link: its consumer takes each burst in the
 * transmit call (while no reload has queued packets on it). */
static inline bool sl_link_direct(const struct sl_link *l)
{
	return l->take != NULL;
}

/* The consumer's batch: how many packets it would take at once (a flow
 * cache whose table has outgrown the caches takes more, so that more of
 * its lookups overlap), or burst when it has not said.  A direct link's
 * producer sizes the bursts it hands over by it (a port's rx).  Set by the
 * consumer's worker (its app's tick), or by the control thread before the
 * workers run; read by the producer's worker, which for a direct link is
 * the same one.  n: 0 (the engine's burst) up to SL_BURST_MAX (app.h). */
static inline unsigned sl_link_batch(const struct sl_link *l, unsigned burst)
{
	unsigned b = __atomic_load_n(&l->batch, __ATOMIC_RELAXED);
	return b != 0 ? b : burst;
}

static inline void sl_link_set_batch(struct sl_link *l, unsigned n)
{
	__atomic_store_n(&l->batch, n, __ATOMIC_RELAXED);
}

/* Packets the consumer can take now: for an interlink, what the producer has
 * published.  Consumer side. */
static inline unsigned sl_link_count(struct sl_link *l)
{
	if (l->il != NULL) {
		sl_il_empty_hint(l->il);
		return sl_il_count_cached(l->il);
	}
	if (unlikely(l->ring != NULL))
		return rte_ring_count(l->ring);
	return l->write - l->read;
}

/* Does l cross workers (an interlink or a ring)?  Then the packets it
 * hands over were last written on another core: a consumer that reads
 * them gains by prefetching a burst's lines before it reads the first.
 * Either side; never changes after the build. */
static inline bool sl_link_cross_worker(const struct sl_link *l)
{
	return l->il != NULL || l->ring != NULL;
}

/* Consumer side: nothing to receive now (reads the producer's published
 * index only when the cached copy says empty). */
static inline bool sl_link_empty(struct sl_link *l)
{
	if (l->il != NULL)
		return sl_il_empty_hint(l->il);
	if (unlikely(l->ring != NULL))
		return rte_ring_empty(l->ring);
	return l->write == l->read;
}

/* sl_link_receive_raw and sl_link_receive_fill: from an interlink, the
 * plain dequeue or the one that fills (fill, a constant at each call). */
static inline unsigned sl_link_priv_receive(struct sl_link *l, struct rte_mbuf **pkts,
					    unsigned max, bool fill)
{
	unsigned n;
	if (l->il != NULL) {
		n = fill ? sl_il_dequeue_burst_fill(l->il, (void **)pkts, max)
			 : sl_il_dequeue_burst(l->il, (void **)pkts, max);
	} else if (unlikely(l->ring != NULL)) {
		n = rte_ring_sc_dequeue_burst(l->ring, (void **)pkts, max, NULL);
	} else {
		n = l->write - l->read;
		if (n > max)
			n = max;
		if (n == 0)
			return 0;
		/* at most two runs of the ring, each one memcpy (the second is
		 * rare: bursts of a size that divides the ring's never wrap) */
		unsigned at = l->read & l->mask, run = RTE_MIN(n, l->mask + 1 - at);
		sl_ptrs_copy(pkts, &l->slots[at], run);
		if (unlikely(run < n))
			sl_ptrs_copy(pkts + run, l->slots, n - run);
		l->read += n;
	}
	sl_counter_add(&l->rx.packets, n);
	return n;
}

/* Take up to max packets from l into pkts without reading them, for a
 * consumer that reads every packet's length anyway: it then adds their
 * bytes with sl_link_rx_bytes() (the link's byte counter is the sum of
 * what it adds).  Returns the number taken (0..max); the caller owns
 * them. */
static inline unsigned sl_link_receive_raw(struct sl_link *l, struct rte_mbuf **pkts,
					   unsigned max)
{
	return sl_link_priv_receive(l, pkts, max, false);
}

/* sl_link_receive_raw, but from an interlink max whenever the producer has
 * published that many, also when this end's cached view of it holds fewer
 * (sl_il_dequeue_burst_fill: one more read of the producer's index line a
 * take that would come out short).  For a consumer that takes batches
 * larger than the engine's burst because its cost a packet falls with the
 * batch (the flow cache's, sl_link_batch). */
static inline unsigned sl_link_receive_fill(struct sl_link *l, struct rte_mbuf **pkts,
					    unsigned max)
{
	return sl_link_priv_receive(l, pkts, max, true);
}

/* Add the bytes of packets taken by sl_link_receive_raw() or
 * sl_link_receive_fill(). */
static inline void sl_link_rx_bytes(struct sl_link *l, uint64_t bytes)
{
	sl_counter_add(&l->rx.bytes, bytes);
}

/* Take up to max packets from l into pkts and add their bytes to *bytes.
 * Returns the number taken (0..max); the caller owns them.  For callers that
 * need the byte count themselves (a port's tx counters): the packets are
 * read once. */
static inline unsigned sl_link_receive_sum(struct sl_link *l, struct rte_mbuf **pkts,
					   unsigned max, uint64_t *bytes)
{
	unsigned n = sl_link_receive_raw(l, pkts, max);
	uint64_t b = sl_pkts_bytes(pkts, n);
	sl_link_rx_bytes(l, b);
	*bytes += b;
	return n;
}

/* Take up to max packets from l into pkts.  Returns the number taken
 * (0..max); the caller owns them. */
static inline unsigned sl_link_receive(struct sl_link *l, struct rte_mbuf **pkts,
				       unsigned max)
{
	uint64_t bytes = 0;
	return sl_link_receive_sum(l, pkts, max, &bytes);
}

/* The bytes of a burst its transmitter did not add up. */
#define SL_BYTES_UNKNOWN UINT64_MAX

/* A direct link's delivery (runtime/worker.c): counts pkts[0..n) as
 * transmitted and received on l and calls the consumer's take() with
 * them (and bytes, their sum or SL_BYTES_UNKNOWN), charged to the
 * consumer when its worker accounts. */
void sl_worker_take(struct sl_link *l, struct rte_mbuf **pkts, unsigned n, uint64_t bytes);

/* Queue pkts[0..n) on l, also a direct one (no take, no capture): what
 * does not fit is freed and counted as drops.  For moving packets from
 * one link into another (a reload); the producer's side. */
static inline void sl_link_enqueue(struct sl_link *l, struct rte_mbuf **pkts, unsigned n)
{
	unsigned sent;
	if (l->il != NULL) {
		sent = sl_il_enqueue_burst(l->il, (void *const *)pkts, n);
	} else if (unlikely(l->ring != NULL)) {
		sent = rte_ring_sp_enqueue_burst(l->ring, (void *const *)pkts, n, NULL);
	} else {
		unsigned room = l->mask + 1 - (l->write - l->read);
		sent = n < room ? n : room;
		unsigned at = l->write & l->mask, run = RTE_MIN(sent, l->mask + 1 - at);
		sl_ptrs_copy(&l->slots[at], pkts, run);
		if (unlikely(run < sent))
			sl_ptrs_copy(l->slots, pkts + run, sent - run);
		l->write += sent;
	}
	if (unlikely(sent < n)) {
		sl_pkts_free(pkts + sent, n - sent);
		sl_counter_add(&l->tx.drops, n - sent);
	}
	sl_counter_add(&l->tx.packets, sent);
}

/* sl_link_transmit of a burst whose bytes the caller has added up (bytes:
 * the sum of pkt_len over pkts[0..n)), so that a direct link's consumer
 * need not read them again; a queue ignores it. */
static inline void sl_link_transmit_sized(struct sl_link *l, struct rte_mbuf **pkts,
					  unsigned n, uint64_t bytes)
{
	struct sl_cap_tap *cap = __atomic_load_n(&l->cap, __ATOMIC_ACQUIRE);

	if (unlikely(cap != NULL))
		sl_cap_burst(cap, pkts, n);
	if (sl_link_direct(l) && l->write == l->read) {
		if (n > 0)
			sl_worker_take(l, pkts, n, bytes);
		return;
	}
	sl_link_enqueue(l, pkts, n);
}

/* Queue pkts[0..n) on l, or on a direct link hand them to its consumer.
 * Always consumes all n packets: those that do not fit are freed and counted
 * as drops.  pkts[0..n) may be rewritten by the time it returns. */
static inline void sl_link_transmit(struct sl_link *l, struct rte_mbuf **pkts,
				    unsigned n)
{
	sl_link_transmit_sized(l, pkts, n, SL_BYTES_UNKNOWN);
}

/* The link's kind as reports name it: "interlink", "ring", "direct" or
 * "local". */
static inline const char *sl_link_kind(const struct sl_link *l)
{
	return l->il != NULL ? "interlink" : l->ring != NULL ? "ring" :
	       sl_link_direct(l) ? "direct" : "local";
}

/* Snapshot of the counters (any thread). */
static inline void sl_link_stats_read(const struct sl_link *l, struct sl_link_stats *s)
{
	s->tx_packets = sl_counter_read(&l->tx.packets);
	s->drops = sl_counter_read(&l->tx.drops);
	s->rx_packets = sl_counter_read(&l->rx.packets);
	s->rx_bytes = sl_counter_read(&l->rx.bytes);
}

#endif
