/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * probe_sink: measures the latency, loss and reordering of the probes of
 * probe_source (apps/probe/probe.h describes the stamp) arriving on input0,
 * input1, ..., and consumes every packet.
 *
 * A push takes up to 8 bursts of an input, and asks for the stamp lines of
 * the next burst before it takes the one in hand, so that on a far pair the
 * lines of two bursts are on their way at once (docs/benchmarks.md, "The
 * cliff far: the pool's order and the sink's stamps a burst ahead").
 *
 * Per packet: a frame that is not a probe (shorter than 60 bytes in its first
 * segment, not IPv4/UDP to the probe port, or without the magic) is counted
 * as `foreign`.  A probe's latency is the TSC when its burst was received
 * here minus its stamp, in ns (rounded down; 0 if the stamp is ahead of the
 * clock), recorded in a log-linear histogram (engine/base/histogram.h).  Its
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
 * The results are the app's counters (psink_counters: packets, lost,
 * reordered, foreign, the percentiles; stored at stop) in the
 * engine's summaries.  With `report` set, fini also writes a JSON object to
 * that file (opened, and truncated, at init so that a bad path stops the
 * start; a failed write is the app's warning in the summary):
 *   {"packets": N, "lost": N, "reordered": N, "foreign": N,
 *    "duration_s": X, "mpps": X, "min_ns": N, "p50_ns": N, "p90_ns": N,
 *    "p99_ns": N, "p999_ns": N, "max_ns": N,
 *    "histogram": [[lower_ns, upper_ns, count], ...]}
 * histogram lists the non-empty buckets in increasing order, each holding
 * the values v with lower_ns <= v < upper_ns.  Percentiles are within 1/64 of
 * the exact value (engine/base/histogram.h); min_ns and max_ns are exact.  With no
 * packets every number is 0 and histogram is [].
 *
 * init refuses to start where the TSC is not invariant (apps/probe/probe.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include <netinet/in.h>

#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_ether.h>
#include <rte_lcore.h>

#include "runtime/app.h"
#include "base/histogram.h"
#include "apps/probe/probe.h"

#define PSINK_ROUNDS 8       /* bursts per input per push */
#define PSINK_STREAMS 64

/* The app's counters, in the order of psink_counters. */
enum {
	PS_PACKETS, PS_LOST, PS_REORDERED, PS_FOREIGN, PS_DURATION_NS,
	PS_MIN_NS, PS_P50_NS, PS_P90_NS, PS_P99_NS, PS_P999_NS, PS_MAX_NS,
	PS_N_COUNTERS
};

static const struct sl_counter_spec psink_counters[PS_N_COUNTERS] = {
	[PS_PACKETS] = { "packets", SL_COUNTER, "Probes recorded in the latency histogram (not the warmup, not those drained at stop)." },
	[PS_LOST] = { "lost", SL_COUNTER, "Probes missing from their stream's sequence, all streams." },
	[PS_REORDERED] = { "reordered", SL_COUNTER, "Probes that arrived after a later one of their stream." },
	[PS_FOREIGN] = { "foreign", SL_COUNTER, "Frames that are not probes, or probes of a stream beyond the tracked ones." },
	[PS_DURATION_NS] = { "duration_ns", SL_GAUGE, "Time from the first to the last recorded probe, in ns." },
	[PS_MIN_NS] = { "min_ns", SL_GAUGE, "Lowest latency recorded, in ns." },
	[PS_P50_NS] = { "p50_ns", SL_GAUGE, "Median latency, in ns (within 1/64)." },
	[PS_P90_NS] = { "p90_ns", SL_GAUGE, "90th percentile latency, in ns." },
	[PS_P99_NS] = { "p99_ns", SL_GAUGE, "99th percentile latency, in ns." },
	[PS_P999_NS] = { "p999_ns", SL_GAUGE, "99.9th percentile latency, in ns." },
	[PS_MAX_NS] = { "max_ns", SL_GAUGE, "Highest latency recorded, in ns." },
};

struct psink_priv {
	struct sl_hist hist;          /* ns */
	uint64_t ns_mult;             /* ns = cycles x ns_mult >> 32 */
	uint64_t warmup;              /* probes still to leave out */
	uint64_t first_tsc, last_tsc; /* receive TSC of the first and last recorded */
	unsigned main_lcore;          /* the control thread (drain at stop) */
	unsigned n_streams;
	bool ready;                   /* init succeeded: fini writes the report */
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

/* A burst taken from an input: its packets, their data, and the TSC when
 * it was received. */
struct psink_burst {
	struct rte_mbuf *pkts[SL_BURST_MAX];
	const uint8_t *data[SL_BURST_MAX];
	unsigned n;
	uint64_t now;
};

/* Receive up to max packets from in into b, stamp the receipt, and ask for
 * each one's first data line (the stamp's). */
static inline void receive(struct sl_link *in, struct psink_burst *b, unsigned max)
{
	b->n = max > 0 ? sl_link_receive(in, b->pkts, max) : 0;
	if (b->n == 0)
		return;
	b->now = rte_rdtsc();
	for (unsigned i = 0; i < b->n; i++) {
		b->data[i] = rte_pktmbuf_mtod(b->pkts[i], const uint8_t *);
		rte_prefetch0(b->data[i]);
	}
}

/* Check and record b's packets (their stamp lines asked for: receive). */
static __rte_noinline void take(struct sl_app *app, const struct psink_burst *b, bool record)
{
	struct psink_priv *p = app->priv;
	struct rte_mbuf *const *pkts = b->pkts;
	const uint8_t *const *data = b->data;
	unsigned n = b->n;
	uint64_t now = b->now;
	bool recorded = false;

	for (unsigned i = 0; i < n; i++) {
		const uint8_t *d = data[i];
		uint16_t type, dport, magic, id;
		uint64_t seq, tsc;

		if (unlikely(rte_pktmbuf_data_len(pkts[i]) < SL_PROBE_LEN)) {
			sl_app_ctr_add(app, PS_FOREIGN, 1);
			continue;
		}
		memcpy(&type, d + 12, 2);
		memcpy(&dport, d + SL_PROBE_OFF_DST_PORT, 2);
		memcpy(&magic, d + SL_PROBE_OFF_MAGIC, 2);
		if (unlikely(type != rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4) ||
			     d[14] != 0x45 || d[23] != IPPROTO_UDP ||
			     dport != rte_cpu_to_be_16(SL_PROBE_UDP_PORT) ||
			     magic != SL_PROBE_MAGIC)) {
			sl_app_ctr_add(app, PS_FOREIGN, 1);
			continue;
		}
		memcpy(&id, d + SL_PROBE_OFF_SRC_PORT, 2);
		struct sl_seq *st = stream_of(p, rte_be_to_cpu_16(id));
		if (unlikely(st == NULL)) {
			sl_app_ctr_add(app, PS_FOREIGN, 1);
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
	struct psink_burst b[2];
	/* At stop the engine drains the links by running push on the control
	 * thread; those probes waited for the stop and are not recorded. */
	bool record = rte_lcore_id() != p->main_lcore;

	/* A burst's stamp lines are asked for before the burst before it is
	 * taken: from another worker each is a transfer from that CPU's cache,
	 * and those of two bursts overlap with the work on one (on a far pair
	 * a burst's lines take longer to come than the work on the burst
	 * before; docs/benchmarks.md, "The cliff far: the pool's order and the
	 * sink's stamps a burst ahead"). */
	for (unsigned i = 0; i < app->n_in; i++) {
		struct sl_link *in = app->in[i];
		if (in == NULL)
			continue;
		unsigned cur = 0;
		receive(in, &b[0], app->burst);
		for (unsigned r = 1; b[cur].n > 0; r++, cur ^= 1) {
			/* the next burst, while this one came full */
			receive(in, &b[cur ^ 1],
				b[cur].n == app->burst && r < PSINK_ROUNDS ? app->burst : 0);
			take(app, &b[cur], record);
			sl_app_count_out(app, b[cur].pkts, b[cur].n);
			sl_pkts_free(b[cur].pkts, b[cur].n);
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
	r->foreign = sl_counter_read(&app->ctr[PS_FOREIGN]);
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
	json_t *hist = json_array();
	json_t *o = json_pack("{s:I, s:I, s:I, s:I, s:f, s:f, s:I, s:I, s:I, s:I, s:I, s:I, s:o}",
			      "packets", (json_int_t)r->packets, "lost", (json_int_t)r->lost,
			      "reordered", (json_int_t)r->reordered,
			      "foreign", (json_int_t)r->foreign, "duration_s", r->duration_s,
			      "mpps", r->mpps, "min_ns", (json_int_t)r->min,
			      "p50_ns", (json_int_t)r->p50, "p90_ns", (json_int_t)r->p90,
			      "p99_ns", (json_int_t)r->p99, "p999_ns", (json_int_t)r->p999,
			      "max_ns", (json_int_t)r->max, "histogram", hist);
	if (o == NULL)
		return -ENOMEM;
	for (unsigned i = sl_hist_next(&p->hist, 0, &b); i < SL_HIST_BUCKETS;
	     i = sl_hist_next(&p->hist, i + 1, &b))
		if (json_array_append_new(hist, json_pack("[I, I, I]", (json_int_t)b.lower,
							  (json_int_t)b.upper,
							  (json_int_t)b.count)) < 0) {
			json_decref(o);
			return -ENOMEM;
		}
	int rc = json_dumpf(o, f, JSON_PRESERVE_ORDER);
	json_decref(o);
	if (rc == 0 && fputc('\n', f) == EOF)
		rc = -1;
	return rc < 0 || ferror(f) ? -EIO : 0;
}

/* The results as the app's counters and gauges. */
static void psink_collect(struct sl_app *app)
{
	struct psink_result r;
	result(app, &r);
	const uint64_t v[] = {
		[PS_PACKETS] = r.packets, [PS_LOST] = r.lost, [PS_REORDERED] = r.reordered,
		[PS_DURATION_NS] = (uint64_t)(r.duration_s * 1e9), [PS_MIN_NS] = r.min,
		[PS_P50_NS] = r.p50, [PS_P90_NS] = r.p90, [PS_P99_NS] = r.p99,
		[PS_P999_NS] = r.p999, [PS_MAX_NS] = r.max,
	};
	for (unsigned i = 0; i < SL_ARRAY_LEN(v); i++)
		if (i != PS_FOREIGN)
			sl_app_ctr_set(app, i, v[i]);
}

static void psink_fini(struct sl_app *app)
{
	struct psink_priv *p = app->priv;
	struct psink_result r = { 0 };

	if (p->report != NULL) {
		int rc = 0;
		if (p->ready) {
			result(app, &r);
			rc = write_report(app, &r, p->report);
		}
		if (fclose(p->report) != 0 && rc == 0)
			rc = -errno;
		p->report = NULL;
		/* fini cannot fail: the summary says so, and the reader finds
		 * no report. */
		if (rc < 0)
			sl_app_warn(app, "cannot write the report '%s': %s", p->report_path,
				    strerror(-rc));
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
	.counters = psink_counters,
	.n_counters = PS_N_COUNTERS,
	.init = psink_init,
	.push = psink_push,
	.collect = psink_collect,
	.fini = psink_fini,
};

SL_APP_REGISTER(probe_sink_app)
