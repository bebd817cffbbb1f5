/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Packet capture at links (docs/capture.md): `sluice capture` asks the
 * running engine, over its control socket, to copy the packets crossing one
 * or more capture points into a pcapng stream.
 *
 * A point is a link ("a.output -> b.input") or an app's port ("a.output",
 * "b.input": the links on it; for an app on a worker group, the links of
 * every replica).  Each link under capture gets a tap: a filter (libpcap
 * syntax, compiled by libpcap, converted to eBPF by rte_bpf_convert and
 * loaded by rte_bpf_load, JIT-compiled where DPDK can), a snap length and an
 * SPSC ring of records (capring.h) to the control thread.
 *
 * Data path.  sl_link_transmit() loads the link's tap pointer once per
 * burst; when it is NULL (no capture) that is the whole cost.  When it is
 * set the producing worker calls sl_cap_burst() before queuing the burst:
 * each packet the filter passes has its first snaplen bytes copied into the
 * ring with the burst's TSC; the packet itself goes on unchanged (never the
 * mbuf: a copy).  A full ring drops the copy and counts it; the worker never
 * waits.  What a tap sees is what the producer transmits on the link,
 * including packets the link then drops because it is full (counted on the
 * link).
 *
 * Control thread.  A capture is a session on a connection the control
 * socket handed over (sl_ctl_detach).  sl_cap_service() moves records into
 * enhanced packet blocks with nanosecond timestamps (the TSC scaled, from a
 * realtime base taken at the start) and sends them to the client in
 * messages that it sends without waiting: when the client does not keep
 * up, the session keeps its message and stops draining, the rings fill and
 * the workers count drops.  A session ends when the client asks (the
 * `capture-stop` verb), when COUNT packets were written, when the client
 * goes away, when a reload removes or rebuilds one of its links, or when
 * the engine stops; its last message is a JSON object with the counts.
 * Taps are attached with a release store and detached by storing NULL;
 * a detached tap is freed through the epoch (the control thread's handle)
 * once every worker has passed a quiescent state.
 *
 * Threads: sl_cap_burst on the link's producer (one thread at a time); all
 * the rest on the engine's control thread.  Errors follow engine/err/err.h.
 */
#ifndef SL_CAPTURE_H
#define SL_CAPTURE_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>
#include <rte_common.h>
#include <rte_mbuf.h>

#include "capring.h"
#include "err.h"
#include "link.h"

#define SL_CAP_SNAPLEN_MAX 65535u      /* and the default */
#define SL_CAP_RING_BYTES (4u << 20)   /* per tap */
#define SL_CAP_SESSIONS 4              /* captures at once */
#define SL_CAP_MSG_MAX (128u << 10)    /* one data message to the client */
#define SL_CAP_DATA_TAG 0              /* first byte of a data message */

struct rte_bpf;

/* One link under capture.  The worker writes ring (as producer) and ctr;
 * everything else is fixed while the tap is attached. */
struct sl_cap_tap {
	struct sl_capring ring;
	struct rte_bpf *bpf;            /* NULL: every packet */
	uint64_t (*jit)(void *);        /* bpf's native code, or NULL */
	uint32_t snaplen;
	uint32_t tag;                   /* the session's interface number */
	struct {
		uint64_t seen;          /* packets that reached the tap */
		uint64_t filtered;      /* of those, refused by the filter */
		uint64_t dropped;       /* of those, no room in the ring */
	} ctr __rte_cache_aligned;
};

/* sl_cap_burst(tap, pkts, n), the producer's side, is declared in link.h. */

/* Compile FILTER (libpcap syntax, for Ethernet frames of at most snaplen
 * bytes) and load it: 0 and *bpf (NULL for an empty filter), or -EINVAL with
 * "filter 'F': libpcap's message" (-ENOTSUP where DPDK cannot convert it). */
int sl_cap_filter_load(const char *filter, uint32_t snaplen, struct rte_bpf **bpf,
		       struct sl_err *err);

struct engine;
struct sl_cap_session;

/* The control socket's `capture` verb: check req (points, snaplen, count,
 * filter), attach the taps, take the connection over and answer on it.
 * Returns NULL when it answered itself (the capture runs), else the error
 * reply for the server to send. */
json_t *sl_cap_open(struct engine *e, json_t *req);

/* Serve every capture: answer stops, move records, send.  Returns true while
 * any capture runs (the control loop then polls sooner). */
bool sl_cap_service(struct engine *e);

/* A reload is about to free link l: end the capture that has a tap on it. */
void sl_cap_link_gone(struct engine *e, struct sl_link *l);

/* The workers have stopped: end every capture (why: the reason its client
 * is given), sending what the rings hold, waiting at most about a second
 * per capture for a slow client. */
void sl_cap_close_all(struct engine *e, const char *why);

#endif
