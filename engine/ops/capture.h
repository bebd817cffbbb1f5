/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Packet capture at links (docs/capture.md): `sluice capture` asks the
 * running engine, over its control socket, to copy the packets crossing one
 * or more capture points into a pcapng stream.
 *
 * A point is a link ("a.output -> b.input") or an app's port ("a.output",
 * "b.input": the links on it; for an app on a worker group, the links of
 * every replica).  Each link under capture gets a tap (engine/runtime/tap.h:
 * the producer's per-burst hook): a filter (libpcap syntax, compiled by
 * libpcap here, converted to eBPF by rte_bpf_convert and given to the tap,
 * which loads it with rte_bpf_load, JIT-compiled where DPDK can), a snap
 * length and an SPSC ring of records (capring.h) to the control thread.
 *
 * Data path (tap.h).  sl_link_transmit() loads the link's tap pointer once
 * per burst; when it is NULL (no capture) that is the whole cost.  When it
 * is set the producing worker calls sl_cap_burst() before queuing the
 * burst: each packet the filter passes has its first snaplen bytes copied
 * into the ring with the burst's TSC; the packet itself goes on unchanged
 * (never the mbuf: a copy).  A full ring drops the copy and counts it; the
 * worker never waits.  What a tap sees is what the producer transmits on
 * the link, including packets the link then drops because it is full
 * (counted on the link).
 *
 * Control thread.  Capture reads the engine only through the view that
 * sl_cap_attach() gives it (struct sl_cap_view: the configuration running
 * now, its links, the epoch, the control socket, whether the engine stops),
 * as telemetry does (telemetry.h).  A capture is a session on a connection
 * the control socket handed over (sl_ctl_detach).  A filter (checked
 * against the bounds below first) is compiled by libpcap on a thread of its
 * own, so that the control thread goes on serving requests (info, reload,
 * other captures) and pinging the service manager's watchdog meanwhile;
 * the session answers the request once it is compiled (a reload that
 * removes one of its links meanwhile, or the engine stopping, refuses it
 * then).  sl_cap_service() moves records into enhanced packet blocks with
 * nanosecond timestamps (the TSC scaled, from a realtime base taken at the
 * start) and sends them to the client in messages that it sends without
 * waiting: when the client does not keep up, the session keeps its message
 * and stops draining, the rings fill and the workers count drops.  A
 * session ends when the client asks (the `capture-stop` verb), when COUNT
 * packets were sent, when the client goes away, when a reload removes or
 * rebuilds one of its links, or when the engine stops; its last message is
 * a JSON object with the counts (what the client wrote is the client's to
 * count).
 * Taps are attached with a release store and detached by storing NULL;
 * a detached tap is freed through the epoch (the control thread's handle)
 * once every worker has passed a quiescent state.
 *
 * Threads: sl_cap_burst on the link's producer (one thread at a time); a
 * filter's compile on a thread of its own (signals blocked), started and
 * collected by the control thread; sl_cap_filter_check,
 * sl_cap_filter_compile and sl_cap_resolve on any thread; all the rest on
 * the engine's control thread.  Errors follow engine/base/err.h.
 */
#ifndef SL_CAPTURE_H
#define SL_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "base/err.h"
#include "config/config.h"
#include "epoch/epoch.h"
#include "runtime/link.h"
#include "runtime/tap.h"

#define SL_CAP_SNAPLEN_MAX 65535u      /* and the default */
#define SL_CAP_SESSIONS 4              /* captures at once */
#define SL_CAP_MSG_MAX (128u << 10)    /* one data message to the client */
#define SL_CAP_DATA_TAG 0              /* first byte of a data message */

struct sl_ctl;
struct bpf_program;

/* What capture reads of the engine.  The objects must stay valid from
 * sl_cap_attach() until the next attach (a reload's), or until
 * sl_cap_close_all() returns. */
struct sl_cap_view {
	const struct sl_config *cfg;      /* running now: points are resolved in it */
	struct sl_link *const *links;     /* cfg->n_links, one each, in cfg's order */
	struct sl_epoch *epoch;           /* detached taps are freed through it */
	struct sl_epoch_worker *epoch_w;  /* the control thread's handle on epoch */
	/* The control socket, whose request's connection a capture takes over
	 * (read at each capture: it may open after the attach). */
	struct sl_ctl *const *ctl;
	const bool *stopping;             /* set: the engine stops, no capture starts */
};

/* Capture reads v's objects from now on (v is copied, the objects it
 * points to are not); a reload attaches its new objects, after calling
 * sl_cap_link_gone for each link it frees.  Control thread. */
void sl_cap_attach(const struct sl_cap_view *v);

/* The links (indices into v->links) that point p names, into idx (room for
 * v->cfg->n_links); returns how many (at least 1), or -EINVAL with one of
 * "capture: no link 'P' in the running configuration (sluice plan lists
 * the links)", "capture: 'P' is not a capture point (...)", "capture: no
 * app 'A' in the running configuration (point 'P')" or "capture: app 'A'
 * has no link on port 'PORT' (point 'P'; ...)".  Spaces in p do not count;
 * an app's name is its own or, for a replica, its base name (all replicas).
 * Pure: reads v->cfg only. */
int sl_cap_resolve(const struct sl_cap_view *v, const char *p, unsigned *idx,
		   struct sl_err *err);

/* Filters are bounded: libpcap's optimizer takes time that grows faster
 * than the square of a filter's terms (the primitives joined by and/or: 64
 * "portrange" terms, the costliest, take about 0.3 s; 400 "host" terms 6 s),
 * and it runs on one thread.  Both sluice capture and the engine refuse a
 * longer filter before compiling it. */
#define SL_CAP_FILTER_MAX_TERMS 64
#define SL_CAP_FILTER_MAX_BYTES 4096
/* Room for any sentence of sl_cap_filter_compile about a filter within the
 * bounds. */
#define SL_CAP_FILTER_MSG_MAX (SL_CAP_FILTER_MAX_BYTES + 512)

/* Whether filter is within those bounds: 0, or -E2BIG with "capture: filter
 * has N terms ...; at most 64 ..." (or "... is N bytes long ...").  Terms
 * are counted as 1 + the operators and, or, && and || (as whole words,
 * case-insensitive).  Pure: any thread. */
int sl_cap_filter_check(const char *filter, struct sl_err *err);

/* Compile filter with libpcap for Ethernet frames of at most snaplen
 * bytes, optimized, into *prog (pcap_freecode frees it): 0, or -EINVAL
 * (libpcap refused it: "capture: filter 'F': libpcap's reason") or -ENOMEM
 * ("capture: filter 'F': out of memory") with the sentence in msg (len
 * bytes; SL_CAP_FILTER_MSG_MAX hold it whole).  Unbounded time for a filter
 * over the bounds (check first); a host name is looked up.  Any thread. */
int sl_cap_filter_compile(const char *filter, uint32_t snaplen, struct bpf_program *prog,
			  char *msg, size_t len);

/* The control socket's `capture` verb, on the attached view: check req
 * (points, snaplen, count, filter), take the connection over, start the
 * filter's compile, and (at once without a filter, else once it compiled:
 * sl_cap_service) attach the taps and answer on the connection.  Returns
 * NULL when it took the connection over (the answer, or a refusal found
 * later, goes on it), else the error reply for the server to send (nothing
 * taken over, nothing left behind). */
json_t *sl_cap_open(json_t *req);

/* Serve every capture: start those whose filter has compiled, answer
 * stops, move records, send.  Returns true while any capture runs or
 * compiles (the control loop then polls sooner). */
bool sl_cap_service(void);

/* A reload is about to free link l: end the capture that has a tap on it. */
void sl_cap_link_gone(const struct sl_link *l);

/* The workers have stopped: end every capture (why: the reason its client
 * is given), sending what the rings hold, waiting at most about a second
 * per capture for a slow client. */
void sl_cap_close_all(const char *why);

#endif
