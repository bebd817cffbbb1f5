/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The worker loop.  One worker runs on one DPDK lcore and repeats a breath:
 *
 *   quiesce report a quiescent state to the epoch module (nothing of the
 *          last breath is held any more), then free at most reclaim_cap
 *          retired objects whose grace period has passed (sl_epoch_reclaim):
 *          at the top of the breath, so that what the last breath retired
 *          is freed before this one retires more;
 *   pull   every app on the worker that has pull(), in push order;
 *   push   apps with packets on an input link, in topological order, in
 *          rounds until no input link of this worker's apps holds packets or
 *          SL_PUSH_ROUNDS rounds have run;
 *   flush  publish the indices of every interlink the worker feeds or drains
 *          (one release store each, once per breath, not per packet);
 *   house  the pool's capped housekeeping (sl_pool_house: retry a chunk move
 *          that found every queue full), then every app that has tick().
 *
 * No step blocks.  The loop ends when *stop becomes true.
 *
 * Idle sleep (engine.idle_sleep, 0 by default: the worker polls without
 * pause, as a DPDK worker does).  Set, a worker that has had SL_IDLE_SPIN
 * idle breaths in a row (no pull brought a packet in, no push had one to
 * take) sleeps idle_sleep_ns between breaths, offline to the epoch for the
 * nap, until a breath finds work again; each nap is counted in naps.  A
 * worker with nothing to do then takes a few percent of its CPU instead of
 * all of it, at the price of up to idle_sleep of latency for the first
 * packet after a quiet spell (VPP's poll-sleep-usec and DPDK's l3fwd-power
 * make the same trade).  With accounting, a nap after a timed breath is
 * timed with it, as idle cycles, so the busy and idle split stays a fair
 * sample of the worker's time.
 *
 * Accounting (engine.accounting, on by default): the breath charges each
 * pull and push call and the packets it moved to its app (struct
 * sl_app_runtime, app.h), and counts the worker's busy breaths (a pull
 * brought a packet in or a push took one from a link).  Cycles are timed
 * on one breath in SL_ACCT_SAMPLE, with an rdtsc at its start and after
 * each call: each app's cycles, and the breath's as the worker's busy or
 * idle cycles, are the sums of those timed intervals.  Readers scale them
 * (sl_worker_cycles) by the worker's whole time over its timed breaths'
 * (the TSC read at each timed breath's start gives the whole), so that a
 * worker's cycles add up to its time; the split between apps and between
 * busy and idle is a ratio estimate from a systematic 1-in-16 sample (exact
 * on average over many breaths, not per breath), while calls, packets and
 * breaths are exact.  (Timed breaths are slower than the others, as they
 * read the TSC after every call: multiplying by SL_ACCT_SAMPLE instead
 * overstated an idle worker's time by a quarter.)
 * Timing every breath cost 5.6% of forwarding, the sample well under 1%
 * (docs/benchmarks.md, "Accounting").
 * A direct link's take (link.h) runs inside the call that transmitted:
 * it is charged to its own app as a push call with its packets, and on a
 * timed breath with its cycles, which the calling app is not charged.
 * Off, only breaths are counted.
 *
 * Ownership: a worker does not own its apps or links, it only runs them; the
 * engine creates and destroys both on the control thread while no worker runs.
 */
#ifndef SL_WORKER_H
#define SL_WORKER_H

#include <stdbool.h>
#include <stdint.h>

#include "runtime/app.h"
#include "epoch/epoch.h"
#include "pool/pool.h"

#define SL_PUSH_ROUNDS 8
#define SL_ACCT_SAMPLE 16     /* accounting times one breath in 16 (a power of two) */
#define SL_IDLE_SPIN 1024     /* idle breaths in a row before the first nap */

/* Where a worker is in its loop, for the engine's report of a worker that
 * does not stop (a step, and the app it runs when the step runs apps). */
enum sl_worker_step {
	SL_STEP_START,    /* launched, not yet breathing */
	SL_STEP_EPOCH,    /* quiesce and reclaim */
	SL_STEP_PULL,
	SL_STEP_PUSH,
	SL_STEP_FLUSH,
	SL_STEP_HOUSE,
	SL_STEP_TICK,
	SL_STEP_DONE,     /* left its loop */
};

struct sl_push_entry {
	struct sl_app *app;
	struct sl_link *in[SL_MAX_PORTS];   /* connected inputs only */
	unsigned n_in;
};

/* A reload's part for one worker: apps that take new state at a breath
 * boundary (sl_app_type.apply).  Built and owned by the control thread. */
struct sl_worker_reconf {
	/* hold: after the items, the worker says held (release store) and
	 * waits, between two breaths, until the control thread says released
	 * (release store): meanwhile the control thread may change anything
	 * the worker reads (its lists, its apps' links). */
	bool hold;
	uint32_t held, released;
	unsigned n;
	struct sl_worker_reconf_item {
		struct sl_app *app;
		void *state;
	} item[];
};

struct sl_worker {
	uint64_t breaths __rte_cache_aligned;   /* single-writer counters */
	uint64_t busy_breaths, busy_cycles, idle_cycles;   /* accounting only;
						* idle breaths = breaths - busy;
						* cycles as timed (sl_worker_cycles) */
	uint64_t at;                           /* sl_worker_at(): step << 32 | app
						* index; single writer, relaxed */
	uint64_t naps;                         /* idle sleeps (engine.idle_sleep) */
	/* Direct links (sl_worker_take): what the breath under way accounts
	 * (the worker's enum acct; 0, none, outside a breath), and the cycles
	 * of takes timed inside the call being timed, which its app is not
	 * charged.  Worker only (the control thread while none runs). */
	unsigned acct_now;
	uint64_t nested;

	struct sl_app **pull;
	unsigned n_pull;
	struct sl_push_entry *push;            /* topological order */
	unsigned n_push;
	struct sl_app **tick;
	unsigned n_tick;
	const bool *stop;                      /* read with acquire */
	struct sl_pool_worker *pool;           /* this worker's freelist, or NULL
						* (ops: dpdk) */
	struct sl_epoch *epoch;                /* NULL: no epoch reporting (drain) */
	struct sl_epoch_worker *epoch_w;
	unsigned reclaim_cap;                  /* frees per breath at most */
	bool accounting;                       /* engine.accounting */
	uint64_t idle_sleep_ns;                /* engine.idle_sleep; 0: never nap */
	unsigned idle_streak;                  /* idle breaths in a row (worker only) */
	uint64_t timed_cycles, span_cycles;    /* accounting: the timed breaths'
						* cycles, and the cycles from the
						* first timed breath's start to the
						* last's (sl_worker_cycles) */
	uint64_t win_start;                    /* the last timed breath's start
						* (worker only) */
	/* Live reconfiguration: the control thread stores a reconf here
	 * (release) while the worker runs; the worker, between two breaths,
	 * calls each item's apply, stores NULL (release) and counts it in
	 * reconfs.  The control thread waits for the NULL and then owns the
	 * reconf again.  One at a time.  (With hold, see above, it waits
	 * for held first.) */
	struct sl_worker_reconf *reconf;
	uint64_t reconfs;
	struct sl_il **il_prod;                /* interlinks this worker feeds */
	unsigned n_il_prod;
	struct sl_il **il_cons;                /* interlinks this worker drains */
	unsigned n_il_cons;

	const char *name;
	unsigned index;
	unsigned lcore;
	int cpu;
	int socket;
	uint64_t l3_bytes;                     /* its CPU's L3 cache (hwloc); 0: unknown */
};

/* Record where w is: a relaxed store on the worker's own cache line (the
 * one its breath counter dirties anyway), made before every app call of
 * the loop (a direct link's take runs within its caller's step). */
static inline void sl_worker_at(struct sl_worker *w, enum sl_worker_step step, unsigned app)
{
	__atomic_store_n(&w->at, (uint64_t)step << 32 | app, __ATOMIC_RELAXED);
}

/* Read what sl_worker_at() stored last.  *app is the app's index in the
 * configuration (meaningful for pull, push and tick).  Any thread; a recent
 * value. */
static inline enum sl_worker_step sl_worker_where(const struct sl_worker *w, unsigned *app)
{
	uint64_t at = __atomic_load_n(&w->at, __ATOMIC_RELAXED);
	*app = (unsigned)at;
	return (enum sl_worker_step)(at >> 32);
}

/* Cycles timed on w's sampled breaths (raw), scaled to w's whole time:
 * raw x span_cycles / timed_cycles (0 before two timed breaths).  Any
 * thread; relaxed loads. */
static inline uint64_t sl_worker_cycles(const struct sl_worker *w, uint64_t raw)
{
	uint64_t timed = sl_counter_read(&w->timed_cycles);
	uint64_t span = sl_counter_read(&w->span_cycles);
	if (timed == 0)
		return 0;
	return (uint64_t)((unsigned __int128)raw * span / timed);
}

/* "pull", "push", ... */
const char *sl_worker_step_name(enum sl_worker_step step);

/* One breath; returns true if any app was pushed.  Worker thread only. */
bool sl_worker_breathe(struct sl_worker *w);

/* Push every app of w in rounds until no input holds packets (or the round
 * limit); returns the number of rounds with work.  Used by the loop and, with
 * workers stopped, by the control thread to drain the links. */
unsigned sl_worker_push(struct sl_worker *w);

/* Publish w's interlink indices (the flush step).  The thread that runs w. */
void sl_worker_flush(struct sl_worker *w);

/* The lcore entry point: binds the thread's memory policy to w->socket
 * (libnuma), goes online in the epoch module, breathes until *w->stop
 * (taking a reconf, when one is stored, between two breaths), then goes
 * offline.  arg is a struct sl_worker. */
int sl_worker_main(void *arg);

#endif
