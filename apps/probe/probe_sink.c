/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * probe_sink: measures the latency, loss and reordering of the probes of
 * probe_source (apps/probe/probe.h describes the stamp) arriving on input0,
 * input1, ..., and consumes every packet.
 *
 * Per packet: a frame that is not a probe (shorter than 60 bytes in its first
 * segment, not IPv4/UDP to the probe port, or without the magic) is counted
 * as `foreign`.  A probe's latency is the TSC when its burst was received
 * here minus its stamp, in ns (rounded down; 0 if the stamp is ahead of the
 * clock), recorded in a log-linear histogram (engine/core/histogram.h).  Its
 * sequence number is checked on its stream as apps/probe/probe.h defines (lost,
 * reordered).  Up to PSINK_STREAMS streams are tracked; probes of further
 * streams count as foreign.  Every packet, probe or not, is freed and counted
 * as the app's out_packets/out_bytes (consumed).
 *
 * What counts where:
 *  - sequence checks (lost, reordered) see every probe;
 *  - the histogram and `packets` leave out the first `warmup` probes, and
 *    probes delivered by the engine's drain at stop (push on the control
 *    thread, after the workers stopped: their latency includes the stop);
 *  - duration_s is the time from the first to the last recorded probe, and
 *    mpps = packets / duration_s / 1e6 (0 if duration_s is 0).
 *
 * At fini the sink prints one line to stdout
 *   probe_sink 'NAME': N packets, lost N, reordered N, p50 N ns, p99 N ns, p99.9 N ns, max N ns
 * and, with `report` set, writes a JSON object to that file (opened, and
 * truncated, at init so that a bad path stops the start):
 *   {"packets": N, "lost": N, "reordered": N, "foreign": N,
 *    "duration_s": X, "mpps": X, "min_ns": N, "p50_ns": N, "p90_ns": N,
 *    "p99_ns": N, "p999_ns": N, "max_ns": N,
 *    "histogram": [[lower_ns, upper_ns, count], ...]}
 * histogram lists the non-empty buckets in increasing order, each holding
 * the values v with lower_ns <= v < upper_ns.  Percentiles are within 1/64 of
 * the exact value (engine/core/histogram.h); min_ns and max_ns are exact.  With no
 * packets every number is 0 and histogram is [].
 *
 * init refuses to start where the TSC is not invariant (apps/probe/probe.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <netinet/in.h>

#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_ether.h>
#include <rte_lcore.h>

#include "app.h"
#include "histogram.h"
#include "probe.h"

#define PSINK_ROUNDS 8       /* bursts per input per push */
#define PSINK_STREAMS 64

struct psink_priv {
	struct sl_hist hist;          /* ns */
	uint64_t ns_mult;             /* ns = cycles x ns_mult >> 32 */
	uint64_t warmup;              /* probes still to leave out */
	uint64_t foreign;
	uint64_t first_tsc, last_tsc; /* receive TSC of the first and last recorded */
	unsigned main_lcore;          /* the control thread (drain at stop) */
	unsigned n_streams;
	bool ready;                   /* init succeeded: fini reports */
	FILE *report;                 /* NULL: no report */
	char *report_path;
	uint8_t slot[1u << 16];       /* stream id -> index into streams + 1; 0: none */
	struct sl_seq streams[PSINK_STREAMS];
};

static int psink_init(struct sl_app *app, struct sl_err *err)
{
	struct psink_priv *p = app->priv;
	int rc;

	rc = sl_probe_check_tsc(err);
	if (rc < 0)
		return rc;
	sl_hist_init(&p->hist);
	p->warmup = sl_app_param_uint(app, "warmup");
	p->main_lcore = rte_get_main_lcore();
	/* 10^9 x 2^32 fits in 62 bits; truncating the multiplier errs by less
	 * than one part in 10^9 for a TSC up to 4 GHz. */
	uint64_t hz = rte_get_tsc_hz();
	if (hz == 0)
		return sl_errf(err, EINVAL, "the TSC frequency is unknown");
	p->ns_mult = (UINT64_C(1000000000) << 32) / hz;

	const char *path = sl_app_param_str(app, "report");
	if (strcmp(path, "none") != 0) {
		p->report_path = strdup(path);
		if (p->report_path == NULL)
			return sl_errf(err, ENOMEM, "out of memory");
		p->report = fopen(path, "w");
		if (p->report == NULL)
			return sl_errf(err, errno, "parameter 'report': cannot open '%s' for writing: %s",
				       path, strerror(errno));
	}
	p->ready = true;
	return 0;
}

static inline uint64_t cycles_to_ns(const struct psink_priv *p, uint64_t cycles)
{
	return (uint64_t)(((unsigned __int128)cycles * p->ns_mult) >> 32);
}

/* The sequence state of stream id, or NULL if the table is full. */
static inline struct sl_seq *stream_of(struct psink_priv *p, uint16_t id)
{
	unsigned s = p->slot[id];

	if (likely(s != 0))
		return &p->streams[s - 1];
	if (p->n_streams == PSINK_STREAMS)
		return NULL;
	struct sl_seq *q = &p->streams[p->n_streams++];
	sl_seq_init(q, 0);
	p->slot[id] = (uint8_t)p->n_streams;
	return q;
}

static void take(struct sl_app *app, struct rte_mbuf **pkts, unsigned n, bool record)
{
	struct psink_priv *p = app->priv;
	uint64_t now = rte_rdtsc();
	bool recorded = false;

	for (unsigned i = 0; i < n; i++) {
		const uint8_t *d = rte_pktmbuf_mtod(pkts[i], const uint8_t *);
		uint16_t type, dport, magic, id;
		uint64_t seq, tsc;

		if (unlikely(rte_pktmbuf_data_len(pkts[i]) < SL_PROBE_LEN)) {
			p->foreign++;
			continue;
		}
		memcpy(&type, d + 12, 2);
		memcpy(&dport, d + SL_PROBE_OFF_DST_PORT, 2);
		memcpy(&magic, d + SL_PROBE_OFF_MAGIC, 2);
		if (unlikely(type != rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4) ||
			     d[14] != 0x45 || d[23] != IPPROTO_UDP ||
			     dport != rte_cpu_to_be_16(SL_PROBE_UDP_PORT) ||
			     magic != SL_PROBE_MAGIC)) {
			p->foreign++;
			continue;
		}
		memcpy(&id, d + SL_PROBE_OFF_SRC_PORT, 2);
		struct sl_seq *st = stream_of(p, rte_be_to_cpu_16(id));
		if (unlikely(st == NULL)) {
			p->foreign++;
			continue;
		}
		memcpy(&seq, d + SL_PROBE_OFF_SEQ, 8);
		memcpy(&tsc, d + SL_PROBE_OFF_TSC, 8);
		sl_seq_check(st, seq);
		if (unlikely(p->warmup > 0)) {
			p->warmup--;
			continue;
		}
		if (!record)
			continue;
		uint64_t cycles = (int64_t)(now - tsc) > 0 ? now - tsc : 0;
		sl_hist_record(&p->hist, cycles_to_ns(p, cycles));
		recorded = true;
	}
	if (recorded) {
		if (p->first_tsc == 0)
			p->first_tsc = now;
		p->last_tsc = now;
	}
}

static void psink_push(struct sl_app *app)
{
	struct psink_priv *p = app->priv;
	struct rte_mbuf *pkts[SL_BURST_MAX];
	/* At stop the engine drains the links by running push on the control
	 * thread; those probes waited for the stop and are not recorded. */
	bool record = rte_lcore_id() != p->main_lcore;

	for (unsigned i = 0; i < app->n_in; i++) {
		struct sl_link *in = app->in[i];
		if (in == NULL)
			continue;
		for (unsigned r = 0; r < PSINK_ROUNDS; r++) {
			unsigned n = sl_link_receive(in, pkts, app->burst);
			if (n == 0)
				break;
			take(app, pkts, n, record);
			sl_app_count_out(app, pkts, n);
			rte_pktmbuf_free_bulk(pkts, n);
			if (n < app->burst)
				break;
		}
	}
}

struct psink_result {
	uint64_t packets, lost, reordered, foreign;
	double duration_s, mpps;
	uint64_t min, p50, p90, p99, p999, max;
};

static void result(const struct sl_app *app, struct psink_result *r)
{
	const struct psink_priv *p = app->priv;

	memset(r, 0, sizeof(*r));
	for (unsigned s = 0; s < p->n_streams; s++) {
		r->lost += p->streams[s].lost;
		r->reordered += p->streams[s].reordered;
	}
	r->foreign = p->foreign;
	r->packets = sl_hist_count(&p->hist);
	if (r->packets > 0) {
		uint64_t hz = rte_get_tsc_hz();
		r->duration_s = hz > 0 ? (double)(p->last_tsc - p->first_tsc) / (double)hz : 0;
		r->mpps = r->duration_s > 0 ? (double)r->packets / r->duration_s / 1e6 : 0;
		r->min = sl_hist_min(&p->hist);
		r->p50 = sl_hist_percentile(&p->hist, 0.50);
		r->p90 = sl_hist_percentile(&p->hist, 0.90);
		r->p99 = sl_hist_percentile(&p->hist, 0.99);
		r->p999 = sl_hist_percentile(&p->hist, 0.999);
		r->max = sl_hist_max(&p->hist);
	}
}

static int write_report(const struct sl_app *app, const struct psink_result *r, FILE *f)
{
	const struct psink_priv *p = app->priv;
	struct sl_hist_bucket b;
	const char *sep = "";

	fprintf(f, "{\"packets\": %" PRIu64 ", \"lost\": %" PRIu64 ", \"reordered\": %" PRIu64
		", \"foreign\": %" PRIu64 ", \"duration_s\": %.9f, \"mpps\": %.6f, "
		"\"min_ns\": %" PRIu64 ", \"p50_ns\": %" PRIu64 ", \"p90_ns\": %" PRIu64
		", \"p99_ns\": %" PRIu64 ", \"p999_ns\": %" PRIu64 ", \"max_ns\": %" PRIu64
		", \"histogram\": [",
		r->packets, r->lost, r->reordered, r->foreign, r->duration_s, r->mpps,
		r->min, r->p50, r->p90, r->p99, r->p999, r->max);
	for (unsigned i = sl_hist_next(&p->hist, 0, &b); i < SL_HIST_BUCKETS;
	     i = sl_hist_next(&p->hist, i + 1, &b)) {
		fprintf(f, "%s[%" PRIu64 ", %" PRIu64 ", %" PRIu64 "]", sep, b.lower, b.upper,
			b.count);
		sep = ", ";
	}
	fprintf(f, "]}\n");
	return ferror(f) ? -EIO : 0;
}

static void psink_fini(struct sl_app *app)
{
	struct psink_priv *p = app->priv;
	struct psink_result r = { 0 };

	if (p->ready) {
		result(app, &r);
		printf("probe_sink '%s': %" PRIu64 " packets, lost %" PRIu64 ", reordered %" PRIu64
		       ", p50 %" PRIu64 " ns, p99 %" PRIu64 " ns, p99.9 %" PRIu64 " ns, max %" PRIu64
		       " ns\n", app->name, r.packets, r.lost, r.reordered, r.p50, r.p99, r.p999,
		       r.max);
		fflush(stdout);
	}
	if (p->report != NULL) {
		int rc = p->ready ? write_report(app, &r, p->report) : 0;
		if (fclose(p->report) != 0 && rc == 0)
			rc = -errno;
		p->report = NULL;
		/* fini cannot fail: say so, and the reader finds no report. */
		if (rc < 0)
			fprintf(stderr, "probe_sink '%s': cannot write the report %s: %s\n",
				app->name, p->report_path, strerror(-rc));
	}
	free(p->report_path);
	p->report_path = NULL;
	p->ready = false;
}

static const struct sl_param_spec psink_params[] = {
	{ .name = "report", .type = SL_PARAM_STRING, .def = "none",
	  .doc = "file to write a JSON report to at stop; none: no report" },
	{ .name = "warmup", .type = SL_PARAM_UINT, .def = "0",
	  .doc = "probes left out of the histogram at the start (still sequence-checked)" },
};

static const struct sl_port_spec psink_inputs[] = {
	{ .name = "input#", .required = true, .doc = "probes to measure (input0, input1, ...)" },
};

static const struct sl_app_type probe_sink_app = {
	.name = "probe_sink",
	.doc = "Measure probe_source latency (histogram, percentiles), loss and reordering; consume",
	.params = psink_params,
	.n_params = SL_ARRAY_LEN(psink_params),
	.inputs = psink_inputs,
	.n_inputs = SL_ARRAY_LEN(psink_inputs),
	.priv_size = sizeof(struct psink_priv),
	.init = psink_init,
	.push = psink_push,
	.fini = psink_fini,
};

SL_APP_REGISTER(probe_sink_app)
