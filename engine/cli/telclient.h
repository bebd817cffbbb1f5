/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A client of a running engine's telemetry socket (docs/telemetry.md): the
 * one place outside the engine that knows its commands.  `sluice stats`,
 * `sluice top` and `sluice exporter` read a running engine through it.
 *
 * Finding the engine.  With a prefix: DPDK's runtime directory for it
 * (/var/run/dpdk/PREFIX as root, else $XDG_RUNTIME_DIR/dpdk/PREFIX),
 * socket dpdk_telemetry.v2.  Without: every such socket under those
 * directories that answers /sluice/info; exactly one must.
 *
 * Snapshots.  sl_telc_snapshot() asks every command and returns one JSON
 * object in the schema of the JSON summary (docs/summary.md), plus a "live"
 * object: {"prefix", "pid", "version", "state", "elapsed_ns", "tsc_hz"}.
 * In a live snapshot mbufs.back is the mbufs in the pool now, warnings and
 * pool.starved_s are empty and drained_at_stop is zero.
 *
 * Errors (struct sl_err, engine/base/err.h; the sentence names the prefix
 * and the socket):
 *   ENOENT        no engine is running (with that prefix)
 *   EACCES        the socket is not readable (it is root's: run as root)
 *   ENOTUNIQ      several engines run and no prefix was given (names them;
 *                 one that did not answer in time counts)
 *   ECANCELED     a signal ended a wait (struct sl_ctl_wait's cancel)
 *   ECONNRESET    the engine went away (stopped) during or before a call
 *   EPROTO        a reply that is not what docs/telemetry.md says
 *   EAGAIN        the engine is starting or stopping: nothing to read now
 *                 (one that is reloading is read: state "reloading")
 *   ETIMEDOUT     the engine did not take the connection, greet, or answer a
 *                 command in time (10 s each, or $SLUICE_TIMEOUT seconds:
 *                 engine/ops/control.h); the sentence names the prefix,
 *                 the socket and the limit
 *
 * Lists (apps, links, workers, a type's counters) are read page by page to
 * their end (docs/telemetry.md, "Columns and pages").
 *
 * Threads: a client is used by one thread at a time (a caller that shares
 * one between threads serialises its calls).
 */
#ifndef SL_TELCLIENT_H
#define SL_TELCLIENT_H

#include <jansson.h>

#include "ops/control.h"
#include "base/err.h"

struct sl_telc;

/* Connect to the engine running with DPDK file prefix `prefix`, or to the
 * only one running when prefix is NULL (one that does not answer in time
 * counts: with another, ENOTUNIQ names both), waiting as w says (its unset
 * waits 10 s: sl_ctl_wait_default; its cancel flag ends a wait on a
 * signal, ECANCELED).  NULL with errno and a sentence on failure. */
struct sl_telc *sl_telc_open(const char *prefix, const struct sl_ctl_wait *w,
			     struct sl_err *err);

void sl_telc_close(struct sl_telc *c);

/* DPDK's runtime directory for all file prefixes, as the EAL of a process
 * of this user would pick it (RUNTIME_DIRECTORY, /var/run for root,
 * XDG_RUNTIME_DIR, /tmp): "BASE/dpdk"; a prefix's is BASE/dpdk/PREFIX. */
void sl_telc_runtime_base(char *out, size_t len);

/* DPDK's runtime directory of the engine running with file prefix prefix,
 * or of the only one running (prefix NULL), where its control socket is
 * (engine/ops/control.h): 0, or -errno with a sentence. */
int sl_telc_engine_dir(const char *prefix, const struct sl_ctl_wait *w, char *dir, size_t len,
		       struct sl_err *err);

/* The file prefix of the engine c talks to. */
const char *sl_telc_prefix(const struct sl_telc *c);

/* Send one command ("/sluice/apps,0") and return the reply's value (a new
 * reference), or NULL with errno and a sentence.  A reply {"error": ...}
 * is returned as EAGAIN (engine not running its pipeline) or EINVAL. */
json_t *sl_telc_call(struct sl_telc *c, const char *cmd, struct sl_err *err);

/* One whole snapshot (see above): a new reference, or NULL with errno and a
 * sentence. */
json_t *sl_telc_snapshot(struct sl_telc *c, struct sl_err *err);

#endif
