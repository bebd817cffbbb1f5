/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Epoch (quiescent-state) reclamation.
 *
 * What it is for.  A writer that unlinks an object from a structure that
 * workers read without locks (the flow cache) cannot free it at once: a
 * worker may still hold a pointer to it.  The writer retires the object
 * instead, and it is freed once every worker that could hold it has passed a
 * quiescent state, a point where it holds no such pointer (the top of a
 * breath).
 *
 * Model.  A global token only goes up.  Each worker reports a quiescent
 * state once per breath with sl_epoch_quiesce(), which publishes the token
 * it has seen.  A retired object is stamped with a token that the global
 * token reaches only after the retire; it is safe to free once every online
 * worker has published a token at least as large.  A worker that blocks goes offline first (sl_epoch_offline) and
 * online again after (sl_epoch_online); offline workers hold nothing up.
 * Workers start offline.
 *
 * Guarantee.  An object is freed only after every worker that was online when
 * it was retired has passed a quiescent state after the retire (or gone
 * offline).  A reader must not keep a pointer across sl_epoch_quiesce() or
 * sl_epoch_offline().
 *
 * Policies (chosen at creation):
 *   immediate  (default) a retire stamps the token it reads (after a
 *              barrier) plus one and asks for the token to get there; the
 *              next worker to quiesce moves it there (one shared update per
 *              grace period, not per retire).  Each sl_epoch_reclaim()
 *              frees, up to its cap, every object whose stamp all online
 *              workers have passed.  An object retired by
 *              worker w is freed by w's first reclaim after every online
 *              worker (w included) has quiesced once after the retire: with
 *              quiesce and then reclaim at the top of a breath, at the top
 *              of w's next breath if every other worker has begun a breath
 *              since the retire.
 *   batch      retires go into a bag of SL_EPOCH_BAG objects; a full bag is
 *              sealed with a fresh token.  Every SL_EPOCH_COLLECT_BREATHS
 *              breaths (quiesces) of the worker, its reclaim frees the
 *              objects of at most SL_EPOCH_COLLECT_BAGS sealed bags whose
 *              token has been passed (and at most cap objects).  Fewer token
 *              updates and scans, but up to SL_EPOCH_BAG - 1 objects wait
 *              in an open bag until more retires fill it (or drain).
 *   qsbr       DPDK's rte_rcu_qsbr for the counters and its defer queue
 *              (one per worker) for the retire lists; each retire also
 *              moves the token up by one, for the laggard check.  The defer
 *              queue needs DPDK's EAL (it allocates a ring from a memzone):
 *              without it sl_epoch_create() fails and says so.
 * Each policy is a const table of operations in epoch.c.
 *
 * Limits.  At most SL_EPOCH_MAX_WORKERS workers.  Each worker's retire list
 * holds ring_size entries, allocated at creation (a ring; under qsbr, DPDK's
 * defer queue, held to ring_size entries); it never grows.  When
 * it is full sl_epoch_retire() returns -ENOSPC and the caller still owns the
 * object (it may keep it linked, try again next breath, or have the control
 * thread synchronize and free it).
 *
 * Threads.  The worker whose handle it is calls sl_epoch_online, _offline,
 * _quiesce, _retire and _reclaim with that handle; no two threads use one
 * handle at a time.  A thread that retires but never reads (the control
 * thread) may have a handle of its own and stay offline.  The control thread
 * calls create, synchronize, drain and free.  Any thread may read the
 * metrics.  Nothing here blocks except sl_epoch_synchronize() and
 * sl_epoch_barrier().
 *
 * Clocks.  Everything here reads one clock per epoch state,
 * sl_epoch_now_ns(): the TSC scaled to ns when DPDK knew its rate at create
 * (one rdtsc: quiesce reads it every breath), else CLOCK_MONOTONIC (a vDSO
 * call; a state created before DPDK's EAL is up).  The last quiescent state,
 * the stalls, the laggard check, the synchronize durations and the
 * retire-to-free and grace-period histograms all use it.
 *
 * Errors follow engine/base/err.h.
 */
#ifndef SL_EPOCH_H
#define SL_EPOCH_H

#include <stdbool.h>
#include <stdint.h>

#include "base/err.h"
#include "base/histogram.h"

#define SL_EPOCH_MAX_WORKERS 128u
#define SL_EPOCH_RING_DEFAULT 4096u
#define SL_EPOCH_BAG 64u
#define SL_EPOCH_COLLECT_BREATHS 128u
#define SL_EPOCH_COLLECT_BAGS 8u
#define SL_EPOCH_LAGGARD_NS 10000000ull   /* 10 ms */

enum sl_epoch_policy {
	SL_EPOCH_IMMEDIATE = 0,
	SL_EPOCH_BATCH,
	SL_EPOCH_QSBR,
};

struct sl_epoch_conf {
	const char *name;             /* for messages and DPDK object names */
	unsigned n_workers;           /* 1..SL_EPOCH_MAX_WORKERS */
	unsigned ring_size;           /* per worker, a power of two >= SL_EPOCH_BAG;
				       * 0 means SL_EPOCH_RING_DEFAULT */
	enum sl_epoch_policy policy;
};

/* Frees one retired object; arg is what was passed to sl_epoch_retire.
 * Called on the thread that reclaims (or drains). */
typedef void sl_epoch_free_fn(void *obj, void *arg);

struct sl_epoch;
struct sl_epoch_worker;

/* Create the state for conf->n_workers workers (all offline).  Returns it,
 * or NULL with a sentence in err (may be NULL) and errno set: bad n_workers,
 * ring_size or policy (EINVAL), no memory (ENOMEM), or for the qsbr policy
 * DPDK's rte_errno (no EAL: ENODEV or ENOMEM).  Control thread. */
struct sl_epoch *sl_epoch_create(const struct sl_epoch_conf *conf, struct sl_err *err);

/* Release e.  Objects still retired are not freed: sl_epoch_synchronize() and
 * sl_epoch_drain() first.  NULL is a no-op.  Control thread, workers done. */
void sl_epoch_free(struct sl_epoch *e);

/* Handle of worker index i (< n_workers), or NULL if i is out of range. */
struct sl_epoch_worker *sl_epoch_worker(struct sl_epoch *e, unsigned i);

/* Name of the policy ("immediate", "batch", "qsbr"). */
const char *sl_epoch_policy_name(enum sl_epoch_policy p);

/* --- Worker thread, own handle only; none of these blocks. --------------- */

/* Become online: from now on w's pointers hold up reclamation.  Call before
 * reading shared objects, and after anything that blocked. */
void sl_epoch_online(struct sl_epoch_worker *w);

/* Become offline: w holds no pointer to shared objects and holds nothing
 * up.  Call before anything that may block. */
void sl_epoch_offline(struct sl_epoch_worker *w);

/* Report a quiescent state (once per breath): w holds no pointer obtained
 * before this call.  Also counts a breath.  Ignored while offline, except
 * for counting the breath. */
void sl_epoch_quiesce(struct sl_epoch *e, struct sl_epoch_worker *w);

/* Retire obj (already unlinked, so that no new reader can reach it): it will
 * be freed with free_fn(obj, arg) once the grace period has passed.  Returns
 * 0 (the epoch owns obj now) or -ENOSPC when w's retire list is full (the
 * caller still owns obj; the list does not grow).  w may be online or
 * offline. */
int sl_epoch_retire(struct sl_epoch *e, struct sl_epoch_worker *w, void *obj,
		    sl_epoch_free_fn *free_fn, void *arg);

/* Retire objs[0..n) at once, each to be freed with free_fn(obj, arg): as n
 * sl_epoch_retire() calls, but under the immediate policy with one stamp
 * for them all (one barrier and one read of the shared token instead of n,
 * each of which misses in the cache when another worker has just moved the
 * token): for a caller that unlinks many objects in one step and retires
 * them after the last unlink.  All or nothing: -ENOSPC, and nothing
 * retired, when w's retire list has room for fewer than n.  Returns 0
 * otherwise (also for n 0). */
int sl_epoch_retire_n(struct sl_epoch *e, struct sl_epoch_worker *w, void *const *objs,
		      unsigned n, sl_epoch_free_fn *free_fn, void *arg);

/* How many more sl_epoch_retire() calls on w would succeed now (its
 * retire list's free room).  Lets a caller check before it unlinks. */
unsigned sl_epoch_retire_room(const struct sl_epoch *e, const struct sl_epoch_worker *w);

/* Free at most cap of w's retired objects whose grace period has passed,
 * oldest first, calling their free functions on this thread.  Returns the
 * number freed.  Under the batch policy only every SL_EPOCH_COLLECT_BREATHS
 * breaths does anything. */
unsigned sl_epoch_reclaim(struct sl_epoch *e, struct sl_epoch_worker *w, unsigned cap);

/* --- Control thread. ----------------------------------------------------- */

/* Wait until every online worker has passed the current token or gone
 * offline; everything retired before the call may then be freed.  Blocks
 * (polls with sched_yield).  Never call it from an online worker's thread:
 * it would wait for itself.  Returns 0. */
int sl_epoch_synchronize(struct sl_epoch *e);

/* Wait until every worker online at the call has passed a quiescent state
 * after it began, or gone offline, or timeout_ns has passed: after it
 * returns 0 no worker still runs code it entered before the call (what a
 * caller needs after unlinking something workers call into, with nothing to
 * retire).  Moves the token up by one.  Any thread but an online worker's;
 * several may wait at once; records no metric.  Polls with sched_yield.
 * Returns 0, or -ETIMEDOUT with a worker still behind. */
int sl_epoch_barrier(struct sl_epoch *e, uint64_t timeout_ns);

/* Free every retired object of every worker, whatever its token (immediate,
 * batch; open bags included), or every one whose grace period has passed
 * (qsbr: DPDK's defer queue frees no other).  Call with no worker using the
 * epoch, after sl_epoch_synchronize() if any worker may still hold pointers.
 * Returns the number freed. */
uint64_t sl_epoch_drain(struct sl_epoch *e);

/* --- Metrics: any thread; each value is written by one thread. ----------- */

struct sl_epoch_stats {
	uint64_t retired;
	uint64_t freed;
	uint64_t backlog;       /* retired - freed */
	uint64_t backlog_hwm;   /* one worker: its high-water mark; all: the sum
				 * of theirs (an upper bound of the total's) */
	uint64_t breaths;       /* quiesce calls */
};

/* Counters of worker i, or of all workers when i < 0.  Returns 0, or
 * -EINVAL if i >= n_workers.  Read while workers run, retired is read after
 * freed so that backlog is never negative. */
int sl_epoch_stats(const struct sl_epoch *e, int i, struct sl_epoch_stats *out);

enum sl_epoch_hist {
	SL_EPOCH_HIST_FREE_NS,        /* retire -> free, ns */
	SL_EPOCH_HIST_FREE_BREATHS,   /* retire -> free, breaths of the retirer */
	SL_EPOCH_HIST_GRACE_NS,       /* grace periods as seen by the worker's
				       * reclaim (immediate, batch) */
};

/* Histogram `which` of worker i (written by that worker; see histogram.h
 * for reading one while it is written), or NULL if i or which is bad. */
const struct sl_hist *sl_epoch_hist(const struct sl_epoch *e, unsigned i,
				    enum sl_epoch_hist which);

/* Durations of sl_epoch_synchronize() calls, ns. */
const struct sl_hist *sl_epoch_sync_hist(const struct sl_epoch *e);

/* e's clock in ns (see Clocks above): the clock of
 * sl_epoch_last_quiesce_ns(), sl_epoch_last_stall(), sl_epoch_laggard()'s
 * now_ns and every histogram.  Compare its values only with each other.
 * Any thread. */
uint64_t sl_epoch_now_ns(const struct sl_epoch *e);

/* When worker i last quiesced (or went online), ns; 0 if never. */
uint64_t sl_epoch_last_quiesce_ns(const struct sl_epoch *e, unsigned i);

/* The same for the handle w: on a worker that quiesces at the top of each
 * breath, the time its breath began, without a clock read of its own (an
 * app's clock for the packets of a breath: the flow cache's).  Any thread. */
uint64_t sl_epoch_worker_last_ns(const struct sl_epoch_worker *w);

/* The last stall of worker i that has ended: a gap of more than
 * SL_EPOCH_LAGGARD_NS between two quiescent states while online, recorded by
 * the worker when it quiesces again (one compare per breath; two stores when
 * a stall ends).  *from_ns is the quiescent state the stall began after (the
 * value sl_epoch_last_quiesce_ns() returned during the stall) and *len_ns its
 * whole length.  Returns false (outputs untouched) if worker i has had no such
 * stall or i is out of range.  Any thread; a consistent pair. */
bool sl_epoch_last_stall(const struct sl_epoch *e, unsigned i, uint64_t *from_ns,
			 uint64_t *len_ns);

/* Whether worker i is online. */
bool sl_epoch_is_online(const struct sl_epoch *e, unsigned i);

/* The worker holding reclamation up: online, behind the current token, and
 * not quiesced for more than threshold_ns (0 means SL_EPOCH_LAGGARD_NS) at
 * now_ns.  Returns the index of the one that has waited longest, or -1. */
int sl_epoch_laggard(const struct sl_epoch *e, uint64_t now_ns, uint64_t threshold_ns);

#endif
