/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Apps: the units of a pipeline.  An app type is a const table (struct
 * sl_app_type) in one file under apps/, ending in SL_APP_REGISTER(type).
 * Registration only appends to a list; names, ports and parameter tables are
 * checked when the engine starts (sl_app_registry_check), where an error can
 * be reported.
 *
 * Ports.  A type names its input and output ports.  A fixed port has a plain
 * name ("input"); a numbered family is written "output#" and matches output0,
 * output1, ... which must be connected from 0 without gaps.  An app with one
 * input and one output calls them "input" and "output".
 *
 * Life cycle, and which thread calls what:
 *   check(params, n_in, n_out, err)
 *                   optional, at config load (so `sluice check` runs it too;
 *                   no DPDK): values that their types alone cannot check (a
 *                   route's prefix, ids >= entries).  params is parallel to
 *                   the type's table; n_in and n_out are the highest
 *                   connected input and output index + 1.  Returns 0 or -EINVAL with a sentence; the
 *                   config prefixes "FILE:LINE:COL: app 'NAME': " (the place
 *                   the sentence starts with, if it starts with a list row's
 *                   `where`, else the app's) and the run exits with the
 *                   configuration status (2).
 *   init(app, err)  control thread, before any worker runs, after the links
 *                   are connected (app->in/out are valid).  May allocate,
 *                   probe devices, block.  Returns 0 or -errno with a sentence
 *                   in err (the engine prefixes "app 'NAME': ").  -EDOM says
 *                   that the configuration asks what the hardware cannot
 *                   give (more queues than the device has): the engine then
 *                   prefixes the app's FILE:LINE:COL and the run exits with
 *                   the configuration status (2).  The apps of a replicated
 *                   app (replica, n_replicas) are initialised in replica
 *                   order, one after the other.
 *   start(app, err) control thread, after every app's init succeeded and
 *                   before any worker runs: resolve references to other
 *                   apps' objects (a flowcache finds its router's table).
 *                   Same return convention as init.
 *   pull(app)       the app's worker, once per breath: bring packets in from
 *                   outside (a device's rx, a generator).  Must not block.
 *   push(app)       the app's worker, when at least one input link holds
 *                   packets: consume inputs, transmit on outputs.  Must not
 *                   block.
 *   take(app, in, pkts, n, bytes)
 *                   optional, the app's worker (the control thread while
 *                   the links drain at stop): a burst handed over in the
 *                   call that transmitted it on the app's input `in`, a
 *                   direct link (link.h; engine.direct_links).  The app owns
 *                   pkts[0..n) (n <= SL_BURST_MAX) as if push had received
 *                   them from that link, and must transmit or free each one
 *                   before it returns; it may rewrite the array itself
 *                   (the caller's).  bytes: their sum when the
 *                   transmitter added them up (sl_link_transmit_sized),
 *                   else SL_BYTES_UNKNOWN.  It adds the link's bytes
 *                   (sl_link_rx_bytes) as push does; the link's packet
 *                   counts are the engine's.  push must still take what
 *                   the link may hold (packets queued while it was not
 *                   direct, or moved into it by a reload).  Must not
 *                   block.
 *   tick(app)       the app's worker, once per breath after push: capped
 *                   housekeeping.  Must not block.
 *   stop(app)       control thread, after every worker has stopped: stop
 *                   devices, so that nothing more arrives.
 *   collect(app)    optional, control thread, after all stops and after the
 *                   links and the epoch have been drained, just before fini
 *                   (only for an app whose init succeeded): store the values
 *                   (counters' totals, gauges' levels) that live outside the
 *                   app's worker (a shared table's statistics, a
 *                   histogram's percentiles) with sl_app_ctr_set.  A fini that changes them (a table
 *                   closed, ending its live flows) stores them again.
 *   sample(app)     optional, the telemetry thread (engine/ops/telemetry.h)
 *                   while the workers run, one call at a time: store, as
 *                   collect does at stop, the values kept outside the
 *                   worker that can be read without a lock (a shared
 *                   table's statistics, a device's error counters), with
 *                   sl_app_ctr_set, into counters the worker never writes.
 *                   Must not block.
 *   reconfig(app, params, &state, err)
 *                   optional (needed by a type with `live` parameters),
 *                   control thread, while the workers run (a reload,
 *                   engine/ops/control.h): params is the new value of every
 *                   parameter, parallel to the type's table; only `live` ones
 *                   differ from app->params.  Build off the data path what
 *                   they need (a route table) into *state; must not touch
 *                   what the worker reads.  Returns 0 or -errno with a
 *                   sentence (the reload then fails and nothing changes).
 *   apply(app, state)
 *                   the app's worker, at a breath boundary, after every
 *                   reconfig of the reload succeeded: take state over (swap
 *                   pointers; retire what it replaces through app->epoch).
 *                   Leave what it replaces in state.  Must not block.
 *   release(app, state, applied)
 *                   control thread, once per successful reconfig: after the
 *                   apply (applied true; app->params now points at the new
 *                   values), retire what apply left in state through
 *                   sl_epoch_retire(app->epoch, app->control_epoch_w, ...)
 *                   where a worker may still read it; or instead of the
 *                   apply (applied false: another app's reconfig failed).
 *                   Then free state.
 *   fini(app)       control thread, after all stops and after the links have
 *                   been drained: free every packet and resource the app holds.
 *                   Must be safe after a failed init.
 *   table_read(app, live, offset, rows, max, &filled)
 *                   optional, with `table`: rows offset.. of what the app
 *                   knows beyond its counters (a router's neighbours), for
 *                   telemetry, `sluice stats` and the summary.  live: the
 *                   telemetry thread while the workers run (the app asks its
 *                   worker for a copy in tick and waits for it, at most
 *                   SL_TABLE_WAIT_MS); else the control thread with the
 *                   workers stopped (before fini).  Returns the number of
 *                   rows in all, >= 0, with *filled of them copied into rows
 *                   (at most max), or -errno with a sentence.
 *
 * Counters.  Every app has the common counters (sl_app_common_counters:
 * in/out packets and bytes, drops, in app->stats) and those its type
 * declares in `counters` (name, counter or gauge, one sentence of help;
 * engine/base/counter.h), kept by index in app->ctr: the app's worker adds
 * with sl_app_ctr_add (single writer); stop, collect and fini store values
 * kept elsewhere (a shared table's totals, a device's counters, a histogram's
 * percentiles) with sl_app_ctr_set.  The kind says what a value means, not
 * how it is kept: a total that only grows is a counter even when it is
 * stored at stop.  The engine reports them all (engine/ops/report.h);
 * apps print nothing.  Something a user should know at stop (a device that
 * lost frames) goes into sl_app_warn, which the report prints.
 *
 * Packets: an app owns the packets it received until it transmits or frees
 * them; it must not hold packets across breaths except in its own documented
 * queues, which fini frees.
 */
#ifndef SL_APP_H
#define SL_APP_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

#include <rte_common.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "base/counter.h"
#include "base/err.h"
#include "epoch/epoch.h"
#include "runtime/link.h"
#include "runtime/param.h"

#define SL_MAX_PORTS 16       /* per direction */
#define SL_BURST_MAX 256
#define SL_APP_COUNTERS_MAX 64    /* declared by one type, besides the common ones */
#define SL_APP_COMMON_COUNTERS 5
#define SL_APP_RUNTIME_COUNTERS 6
#define SL_APP_WARNING_MAX 768

struct sl_app;
struct sl_epoch;
struct sl_epoch_worker;
struct sl_topology;

/* A table an app keeps beyond its counters (table_read above): up to
 * SL_TABLE_S string columns and SL_TABLE_U number columns, named by the
 * spec (names NULL after the last). */
#define SL_TABLE_S 4
#define SL_TABLE_U 4
#define SL_TABLE_STR 40       /* bytes of a string cell, with its NUL */
#define SL_TABLE_WAIT_MS 1000 /* a live read waits for the worker this long */

struct sl_table_spec {
	const char *name;                 /* "neighbours": the key in summaries, telemetry */
	const char *doc;                  /* one sentence */
	const char *s_cols[SL_TABLE_S];
	const char *u_cols[SL_TABLE_U];
};

struct sl_table_row {
	char s[SL_TABLE_S][SL_TABLE_STR];
	uint64_t u[SL_TABLE_U];
};

struct sl_port_spec {
	const char *name;    /* "input", or "output#" for a numbered family */
	bool required;       /* must be connected (for a family: at least one) */
	const char *doc;
};

struct sl_app_type {
	const char *name;
	const char *doc;                       /* one line */
	const struct sl_param_spec *params;
	unsigned n_params;
	const struct sl_port_spec *inputs;
	unsigned n_inputs;
	const struct sl_port_spec *outputs;
	unsigned n_outputs;
	size_t priv_size;                      /* bytes at app->priv, zeroed */
	/* true for an app whose inputs never flow to its outputs: what it
	 * outputs comes from pull (a port: rx in pull, tx in push).  Links out
	 * of such an app do not constrain the push order and cannot close a
	 * cycle, so "nic.output -> fwd.input; fwd.output -> nic.input" is legal. */
	bool boundary;

	/* Optional placement hint, control thread, before EAL starts: the NUMA
	 * node the app's worker should run on (a NIC's node), or -1. */
	int (*numa)(const struct sl_param_value *params, const struct sl_topology *topo);

	/* The type's own counters, indexed by the app's enum (app->ctr[i]);
	 * at most SL_APP_COUNTERS_MAX, names unique and distinct from the
	 * common and runtime ones. */
	const struct sl_counter_spec *counters;
	unsigned n_counters;

	int (*check)(const struct sl_param_value *params, unsigned n_in, unsigned n_out,
		     struct sl_err *err);
	/* Optional, config time (`sluice plan`, no DPDK): one line on what
	 * replica `replica` of n_replicas (0: not replicated) will use, such
	 * as a port's queues, into buf. */
	void (*describe)(const struct sl_param_value *params, unsigned replica,
			 unsigned n_replicas, char *buf, size_t len);
	int (*init)(struct sl_app *app, struct sl_err *err);
	int (*start)(struct sl_app *app, struct sl_err *err);
	void (*pull)(struct sl_app *app);
	void (*push)(struct sl_app *app);
	void (*take)(struct sl_app *app, unsigned in, struct rte_mbuf **pkts, unsigned n,
		     uint64_t bytes);
	void (*tick)(struct sl_app *app);
	void (*stop)(struct sl_app *app);
	void (*collect)(struct sl_app *app);
	void (*sample)(struct sl_app *app);
	int (*reconfig)(struct sl_app *app, const struct sl_param_value *params, void **state,
			struct sl_err *err);
	void (*apply)(struct sl_app *app, void *state);
	void (*release)(struct sl_app *app, void *state, bool applied);
	void (*fini)(struct sl_app *app);
	/* Optional, control thread, after init: the Ethernet address of the
	 * device the app stands for (a port's), for an app that sends from
	 * it (a router's interface).  0, or -errno with a sentence. */
	int (*mac)(const struct sl_app *app, uint8_t mac[6], struct sl_err *err);
	/* Optional: the table table_read fills (see the life cycle above). */
	const struct sl_table_spec *table;
	int (*table_read)(struct sl_app *app, bool live, unsigned offset,
			  struct sl_table_row *rows, unsigned max, unsigned *filled,
			  struct sl_err *err);
};

/* Counters of packets crossing the app's boundary with the outside world
 * (a device, a generator, a sink).  Packets moved over links are counted on
 * the links.  Written only by the app's worker (and, once the workers have
 * stopped, by its stop).  In the order of sl_app_common_counters. */
struct sl_app_stats {
	uint64_t in_packets, in_bytes;    /* received from outside / generated */
	uint64_t out_packets, out_bytes;  /* sent to outside / consumed */
	uint64_t drops;                   /* dropped by the app, any reason */
};
_Static_assert(sizeof(struct sl_app_stats) == SL_APP_COMMON_COUNTERS * sizeof(uint64_t),
	       "one common counter spec per field of struct sl_app_stats");

/* The common counters of every app, in the order of struct sl_app_stats. */
extern const struct sl_counter_spec sl_app_common_counters[SL_APP_COMMON_COUNTERS];

/* Where an app's worker spends its cycles (VPP's `show runtime`): kept by
 * the worker around each pull and push call when engine.accounting is on
 * (engine/runtime/worker.h), all zero when it is off.  A call's packets are
 * for pull the app's in_packets that call added (what it brought in), for
 * push the packets it took from its input links.  Calls and packets are
 * exact; cycles are TSC cycles from the end of the previous call (or the
 * breath's start, for its first call, which so also carries the breath's
 * epoch step) to the end of the call, summed over the breaths the worker
 * times (one in SL_ACCT_SAMPLE): readers scale them to the worker's time
 * (sl_view_app_runtime, engine/ops/view.h).  In the order of
 * sl_app_runtime_counters. */
struct sl_app_runtime {
	uint64_t pull_calls, pull_packets, pull_cycles;
	uint64_t push_calls, push_packets, push_cycles;
};
_Static_assert(sizeof(struct sl_app_runtime) == SL_APP_RUNTIME_COUNTERS * sizeof(uint64_t),
	       "one runtime counter spec per field of struct sl_app_runtime");

extern const struct sl_counter_spec sl_app_runtime_counters[SL_APP_RUNTIME_COUNTERS];

/* Every runtime counter of app (any thread, relaxed loads), in table order;
 * the cycles as timed, unscaled (sl_view_app_runtime scales them). */
void sl_app_runtime_read(const struct sl_app *app, uint64_t *v);

struct sl_app {
	const struct sl_app_type *type;
	void *priv;                          /* type->priv_size bytes, zeroed */
	struct sl_link *in[SL_MAX_PORTS];    /* by port index (fixed) or number (#) */
	struct sl_link *out[SL_MAX_PORTS];
	unsigned n_in, n_out;                /* highest connected index + 1 */
	unsigned burst;                      /* engine-wide burst size (<= SL_BURST_MAX) */
	struct rte_mempool *pool;            /* mbufs for this app's worker */
	/* Deferred frees: from push or tick, an object unlinked from a shared
	 * structure is handed to sl_epoch_retire(app->epoch, app->epoch_w,
	 * obj, free_fn, arg) and freed once every worker has passed a
	 * quiescent state (engine/epoch/epoch.h). */
	struct sl_epoch *epoch;
	struct sl_epoch_worker *epoch_w;
	struct sl_epoch_worker *control_epoch_w;  /* the control thread's (never
						    * online): retires from release */
	int socket;                          /* NUMA node of the app's worker */
	uint64_t l3_bytes;                   /* its worker's L3 cache (hwloc); 0: unknown */
	struct sl_app_stats stats __rte_cache_aligned;
	uint64_t ctr[SL_APP_COUNTERS_MAX];   /* type->counters, by index */
	struct sl_app_runtime rt;            /* the worker's accounting */

	/* control data.  name, base, group and params point into the config
	 * the engine runs; after each reload they point into the new one
	 * (equal values, or the new live ones) and the config before it is
	 * freed.  So the control thread reads them, workers never do, and an
	 * app copies what it keeps of them (a name for a later message) or
	 * reads them again through app. */
	const char *name;
	unsigned index;                      /* position in the config */
	unsigned worker;                     /* index of its worker */
	/* An app on a worker group runs once per member (config.h): name is
	 * BASE@k; base is the name as written (NULL for an app that is not
	 * replicated), replica k, n_replicas the group's size (0 if not
	 * replicated).  Replicas of one app are consecutive in the config. */
	const char *base;
	const char *group;                   /* its worker group's name, or NULL */
	unsigned replica, n_replicas;
	struct sl_app *const *replicas;     /* n_replicas entries, replica 0
					     * first; NULL if not replicated
					     * (sl_app_replica) */
	const struct sl_param_value *params; /* parallel to type->params */
	bool inited;
	char warning[SL_APP_WARNING_MAX];    /* sl_app_warn; "" if none */
	/* The type's table as it was at stop (read before fini, for the
	 * report): table_n rows, owned by the engine (freed with the app). */
	struct sl_table_row *table_last;
	unsigned table_n;
};

/* Parameter access for init(): the spec must exist in the type's table with a
 * matching type (checked by assertion; a mismatch is a programming error). */
uint64_t sl_app_param_uint(const struct sl_app *app, const char *name);
bool sl_app_param_bool(const struct sl_app *app, const char *name);
const char *sl_app_param_str(const struct sl_app *app, const char *name);
const uint8_t *sl_app_param_mac(const struct sl_app *app, const char *name);
bool sl_app_param_is_set(const struct sl_app *app, const char *name);
/* A list parameter's rows (SL_PARAM_TABLE), in config order; *n_rows receives
 * their number (0: the result may be NULL).  Row i's value for field f is
 * rows[i].v[f], f indexing the spec's fields (sl_param_find on spec->fields);
 * rows[i].where ("FILE:LINE:COL") prefixes messages about the row.  The rows
 * belong to the config and live as long as the app. */
const struct sl_param_row *sl_app_param_table(const struct sl_app *app, const char *name,
					      unsigned *n_rows);

/* Input or output link by fixed port name; NULL if not connected. */
struct sl_link *sl_app_input(const struct sl_app *app, const char *port);
struct sl_link *sl_app_output(const struct sl_app *app, const char *port);

/* Count packets that crossed the app's outer boundary.  The _n forms take
 * totals, for callers that must read lengths before handing packets away (a
 * PMD's tx may free what it sent at once). */
static inline void sl_app_count_in_n(struct sl_app *app, uint64_t packets, uint64_t bytes)
{
	sl_counter_add(&app->stats.in_packets, packets);
	sl_counter_add(&app->stats.in_bytes, bytes);
}

static inline void sl_app_count_out_n(struct sl_app *app, uint64_t packets, uint64_t bytes)
{
	sl_counter_add(&app->stats.out_packets, packets);
	sl_counter_add(&app->stats.out_bytes, bytes);
}

static inline void sl_app_count_in(struct sl_app *app, struct rte_mbuf **p, unsigned n)
{
	sl_app_count_in_n(app, n, sl_pkts_bytes(p, n));
}

static inline void sl_app_count_out(struct sl_app *app, struct rte_mbuf **p, unsigned n)
{
	sl_app_count_out_n(app, n, sl_pkts_bytes(p, n));
}

/* Replica r of app's replicated app (r < n_replicas); for an app that is
 * not replicated, replica 0 is the app itself.  Apps are objects of their
 * own: reach a sibling replica only through this. */
static inline struct sl_app *sl_app_replica(const struct sl_app *app, unsigned r)
{
	return app->replicas != NULL ? app->replicas[r] : (struct sl_app *)(uintptr_t)app;
}

/* The app's clock on its worker: when the worker's current breath began
 * (on the epoch's clock, sl_epoch_now_ns: the breath's quiesce read it),
 * with no clock read of its own; a breath's bursts and its tick all see
 * this one time.  Outside the worker (init, start, collect, the drain at
 * stop) read sl_epoch_now_ns(app->epoch) instead. */
static inline uint64_t sl_app_breath_ns(const struct sl_app *app)
{
	return sl_epoch_worker_last_ns(app->epoch_w);
}

/* Add n to the type's counter i (the app's worker only). */
static inline void sl_app_ctr_add(struct sl_app *app, unsigned i, uint64_t n)
{
	sl_counter_add(&app->ctr[i], n);
}

/* Store v in the type's counter or gauge i (its one writer: the worker, or stop,
 * collect and fini on the control thread once the workers have stopped). */
static inline void sl_app_ctr_set(struct sl_app *app, unsigned i, uint64_t v)
{
	sl_counter_set(&app->ctr[i], v);
}

/* Every counter of app (any thread, relaxed loads): the common ones, then
 * the type's, in table order; v holds SL_APP_COMMON_COUNTERS +
 * type->n_counters values. */
void sl_app_counters_read(const struct sl_app *app, uint64_t *v);

/* Say something about the app that a user should know at stop (a device
 * that lost frames): control thread; the engine's report prints
 * "sluice: warning: app 'NAME': TEXT" and the JSON summary lists it.  A
 * second warning is appended after "; " (cut to SL_APP_WARNING_MAX). */
void sl_app_warn(struct sl_app *app, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Free pkts[0..n) and count them as the app's drops. */
static inline void sl_app_drop(struct sl_app *app, struct rte_mbuf **p, unsigned n)
{
	if (n == 0)
		return;
	sl_pkts_free(p, n);
	sl_counter_add(&app->stats.drops, n);
}

/* Registry.  The list node lives inside the registering file; appending
 * never allocates and never fails. */
struct sl_app_reg {
	const struct sl_app_type *type;
	struct sl_app_reg *next;
};

void sl_app_registry_append(struct sl_app_reg *reg);

/* Look up a type by name; NULL if unknown. */
const struct sl_app_type *sl_app_type_find(const char *name);

/* Registered types in name order: fills up to max pointers, returns the total. */
unsigned sl_app_types(const struct sl_app_type **out, unsigned max);

/* Check every registered type: unique names, well-formed port, parameter
 * and counter tables (snake_case names, unique, help given, at most
 * SL_APP_COUNTERS_MAX), defaults that parse.  Returns 0 or -EINVAL with a
 * sentence. */
int sl_app_registry_check(struct sl_err *err);

/* Does port name `port` belong to spec (exact, or a number for "name#";
 * the bare "name" of a family is its number 0, so that an app whose one
 * input became a family still takes links written to "input")?  On a
 * match, *number receives the family number (0 for a fixed port). */
bool sl_port_spec_match(const struct sl_port_spec *spec, const char *port,
			unsigned *number);

#define SL_APP_REGISTER(t)                                                   \
	static struct sl_app_reg sl_app_reg_##t = { .type = &(t) };          \
	__attribute__((constructor)) static void sl_app_register_##t(void)   \
	{                                                                    \
		sl_app_registry_append(&sl_app_reg_##t);                     \
	}

#define SL_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

#endif
