/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The Prometheus exporter (`sluice exporter`, docs/operations.md): a
 * separate process that reads a running engine through its telemetry
 * socket (telclient.h) at each scrape and serves the values in Prometheus's
 * text format 0.0.4 on GET /metrics.
 *
 * promtext.c turns one snapshot into that text; it does no I/O, so that a
 * test can feed it a snapshot of its own.  exporter.c is the command: the
 * HTTP server (libmicrohttpd) and the telemetry connection.
 *
 * Names.  Every value of a snapshot is declared once in a counter table
 * (engine/base/counter.h); the metric's name, `# TYPE` and `# HELP` come
 * from that declaration:
 *   sluice_<object>_<name>[_total]      object: app, link, worker, pool,
 *                                       epoch; an app type's own counters
 *                                       are sluice_<type>_<name>
 *   _total                              on counters (kind SL_COUNTER) only
 *   ns -> seconds                       a name with an "ns" word loses it
 *                                       and ends in _seconds, its value
 *                                       scaled (and "in ns" in its help
 *                                       reads "in seconds"); cycles of the
 *                                       runtime accounting are seconds too
 *                                       (cycles / tsc_hz)
 * Objects are labels: app (with type and worker on the common counters),
 * link (with kind), worker, tier, phase (pull/push), state (busy/idle).
 * Values that several declarations split by one of those labels (the
 * pool's tiers, busy and idle, pull and push) are one family whose help
 * joins the declarations' sentences; busy and idle breaths are
 * sluice_worker_state_breaths_total, apart from all breaths, so that a sum
 * counts each breath once.  Percentiles stay gauges of their own
 * (sluice_link_sojourn_p99_seconds: one declared sentence each; promtool
 * allows a quantile label on summaries only).  A JSON null (a local
 * link's sojourn, the runtime counters with engine.accounting off) is left
 * out, not written as 0.  Values that no table declares (sluice_up, the
 * info gauges, the uptime, the pool's size and available mbufs) have
 * their help in promtext.c.
 */
#ifndef SL_PROMTEXT_H
#define SL_PROMTEXT_H

#include <stddef.h>

#include <jansson.h>

/* What the exporter says of itself, at every scrape. */
struct sl_prom_self {
	const char *version;   /* the exporter's (sluice_exporter_info) */
	const char *prefix;    /* the file prefix asked for, or NULL */
};

/* The first sentence of the help of every cycles family turned into
 * seconds (the rest is the declared help of the counters it holds). */
extern const char sl_prom_cycles_help[];

/* The text of one scrape: sluice_up (1 when snap is a snapshot, 0 when it
 * is NULL: no engine to read), sluice_exporter_info, and with a snapshot
 * every value in it (telclient.h: the JSON summary's schema plus "live").
 * Returns a NUL-terminated string of *len bytes that the caller frees, or
 * NULL with errno ENOMEM.  Any thread; nothing shared. */
char *sl_prom_text(const json_t *snap, const struct sl_prom_self *self, size_t *len);

/* `sluice exporter [--listen ADDR:PORT] [--prefix P]` (exporter.c):
 * serves until SIGINT or SIGTERM.  Returns the exit status: 0 after a
 * signal, 1 when it cannot listen (naming the address), 2 for a usage
 * error. */
int sl_exporter_main(int argc, char **argv, const char *version);

#endif
