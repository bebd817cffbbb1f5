/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Reading a snapshot of a running engine (engine/cli/telclient.h) for
 * people: the values `sluice stats` and `sluice top` show, derived the same
 * way in both.
 *
 * A snapshot may lack any field (an engine from before a field existed, a
 * local link's interlink-only values, a pool with `ops: dpdk`): every reader
 * here says whether the value was there, and the formatters print "-" for a
 * value that was not.  Nothing here prints or allocates; nothing keeps a
 * reference to the snapshot.
 */
#ifndef SL_SNAPVIEW_H
#define SL_SNAPVIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

/* The value at obj's path of keys (NULL-terminated; keys may hold spaces
 * and dots), or NULL when obj is NULL or a key is missing.  Borrowed. */
json_t *sl_snap_get(const json_t *obj, ...) __attribute__((sentinel));

/* A number at v (an integer or a real, not negative for u64): true and
 * *out, or false when v is NULL, null or not such a number. */
bool sl_snap_u64(const json_t *v, uint64_t *out);
bool sl_snap_num(const json_t *v, double *out);

/* A string at v, or def when v is not a string. */
const char *sl_snap_str(const json_t *v, const char *def);

/* apps.NAME.runtime: the breath's accounting of one app's pull and push. */
struct sl_snap_runtime {
	bool ok;   /* every field below was in the snapshot */
	uint64_t pull_calls, pull_packets, pull_cycles;
	uint64_t push_calls, push_packets, push_cycles;
};

/* workers.NAME: the worker's breaths and cycles, busy (the breath moved at
 * least one packet) or idle. */
struct sl_snap_worker {
	bool ok;   /* breaths and the four busy/idle fields were there */
	uint64_t breaths, busy_breaths, idle_breaths, busy_cycles, idle_cycles;
};

/* Read the runtime of app (the object apps.NAME) or the values of worker
 * (workers.NAME); ->ok false when a field is missing. */
void sl_snap_app_runtime(const json_t *app, struct sl_snap_runtime *rt);
void sl_snap_worker_read(const json_t *worker, struct sl_snap_worker *w);

/* Derived values over the interval from a to b (pass a zeroed a, ->ok true,
 * for the totals since the start).  Each returns false, leaving *out alone,
 * when a value is missing, a counter went backwards (another engine under
 * the same prefix) or the denominator is zero.
 *   cycles per packet  (pull_cycles + push_cycles) / (pull_packets + push_packets)
 *   packets per call   (pull_packets + push_packets) / (pull_calls + push_calls)
 *   busy %             100 * busy_cycles / (busy_cycles + idle_cycles) */
bool sl_snap_cycles_per_packet(const struct sl_snap_runtime *a, const struct sl_snap_runtime *b,
			       double *out);
bool sl_snap_packets_per_call(const struct sl_snap_runtime *a, const struct sl_snap_runtime *b,
			      double *out);
bool sl_snap_busy_pct(const struct sl_snap_worker *a, const struct sl_snap_worker *b,
		      double *out);
/* Packets the app's pull and push moved from a to b. */
bool sl_snap_moved(const struct sl_snap_runtime *a, const struct sl_snap_runtime *b,
		   uint64_t *out);

/* (b - a) / dt_s for two counters: false when either is missing, b < a or
 * dt_s <= 0. */
bool sl_snap_rate(const json_t *a, const json_t *b, double dt_s, double *out);

/* Write printf-style fmt of v into buf, or "-" when ok is false. */
void sl_snap_fmt(char *buf, size_t len, bool ok, const char *fmt, double v);
/* An unsigned counter into buf, or "-" when v is missing. */
void sl_snap_fmt_u64(char *buf, size_t len, const json_t *v);

#endif
