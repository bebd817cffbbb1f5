/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * probe_source: sends latency probes, Ethernet/IPv4/UDP frames of a fixed size
 * stamped with a stream id, a sequence number and the TSC (apps/probe/probe.h
 * describes the stamp), for a probe_sink to measure.
 *
 * Streams: every output is a stream of its own, with its own sequence numbers
 * from 0 and its own UDP source port (the stream id), so a sink can tell loss
 * and reordering on each path.  Each pull sends one burst, to the outputs in
 * turn (output0, output1, ..., output0, ...).
 *
 * Stamping: the frames of a burst are built first; then the TSC is read once
 * and written into every frame right before the burst is transmitted, so the
 * latency a sink measures starts when the frames enter their link.
 *
 * Pacing: with rate > 0 (packets per second, all outputs together) a token
 * bucket on the TSC admits packets; it holds at most 10 ms of packets (at
 * least 1), so a short stall of the worker is made up for and a long one is
 * not.  The source never sleeps.  With count > 0 it stops after that many
 * packets (all outputs together).  If mbufs cannot be allocated the breath
 * sends nothing and counts nothing; the next one tries again, with the same
 * sequence numbers.
 *
 * init refuses to start where the TSC is not invariant (apps/probe/probe.h).
 */
#include <string.h>

#include <rte_cycles.h>
#include <rte_ip.h>

#include "runtime/app.h"
#include "apps/pkt/gen.h"
#include "apps/probe/probe.h"

#define PSRC_SIZE_MAX SL_GEN_SIZE_MAX

_Static_assert(SL_GEN_HDR_LEN == SL_PROBE_OFF_MAGIC,
	       "the stamp follows packed 14 + 20 + 8 byte headers");
_Static_assert(SL_GEN_L4_OFF == SL_PROBE_OFF_SRC_PORT, "UDP header offset");

struct psrc_priv {
	unsigned next_out;       /* output of the next burst */

	uint16_t stream[SL_MAX_PORTS];   /* stream id of each output */
	uint64_t seq[SL_MAX_PORTS];      /* next sequence number of each output */

	struct sl_gen gen;       /* template (with magic), pacing, count */
};

static int psrc_init(struct sl_app *app, struct sl_err *err)
{
	struct psrc_priv *p = app->priv;
	int rc;

	rc = sl_probe_check_tsc(err);
	if (rc < 0)
		return rc;
	/* The stamp is written into the first segment, so it must hold it. */
	rc = sl_gen_init(&p->gen, app, 0, SL_PROBE_UDP_PORT, SL_PROBE_LEN, err);
	if (rc < 0)
		return rc;
	/* probe_sink reads every frame's stamp: its data lines cross back */
	p->gen.prefetchw_data = p->gen.prefetchw;

	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(p->gen.frame + SL_GEN_L3_OFF);
	ip->hdr_checksum = rte_ipv4_cksum(ip);   /* the same for every frame */
	uint16_t magic = SL_PROBE_MAGIC;
	memcpy(p->gen.frame + SL_PROBE_OFF_MAGIC, &magic, sizeof(magic));

	for (unsigned o = 0; o < SL_MAX_PORTS; o++) {
		p->stream[o] = (uint16_t)(app->index * SL_MAX_PORTS + o);
		p->seq[o] = 0;
	}
	p->next_out = 0;
	return 0;
}

static void psrc_pull(struct sl_app *app)
{
	struct psrc_priv *p = app->priv;
	struct rte_mbuf *pkts[SL_BURST_MAX];
	unsigned n;

	if (app->n_out == 0)
		return;
	n = sl_gen_want(&p->gen);
	if (n == 0)
		return;
	if (sl_gen_build(&p->gen, app->pool, pkts, n) == 0)
		return;

	unsigned o = p->next_out;
	p->next_out = o + 1 == app->n_out ? 0 : o + 1;
	uint16_t sport = rte_cpu_to_be_16(p->stream[o]);
	uint64_t seq = p->seq[o];

	for (unsigned i = 0; i < n; i++) {
		uint8_t *d = sl_gen_data(&p->gen, pkts[i]);
		memcpy(d + SL_PROBE_OFF_SRC_PORT, &sport, sizeof(sport));
		memcpy(d + SL_PROBE_OFF_SEQ, &seq, sizeof(seq));
		seq++;
	}
	p->seq[o] = seq;
	sl_gen_sent(&p->gen, n);
	sl_app_count_in_n(app, n, (uint64_t)n * p->gen.size);   /* not read back */

	uint64_t tsc = rte_rdtsc();
	for (unsigned i = 0; i < n; i++)
		memcpy(sl_gen_data(&p->gen, pkts[i]) + SL_PROBE_OFF_TSC, &tsc, sizeof(tsc));
	if (app->out[o] != NULL)
		sl_link_transmit(app->out[o], pkts, n);
	else
		sl_app_drop(app, pkts, n);
}

static const struct sl_param_spec psrc_params[] = {
	{ .name = "size", .type = SL_PARAM_UINT, .def = "64", .min = SL_PROBE_LEN,
	  .max = PSRC_SIZE_MAX, .doc = "frame size in bytes, without FCS" },
	{ .name = "rate", .type = SL_PARAM_UINT, .def = "0", .max = 1000000000,
	  .doc = "packets per second, all outputs together; 0 means as fast as possible" },
	{ .name = "count", .type = SL_PARAM_UINT, .def = "0",
	  .doc = "packets to send before stopping, all outputs together; 0 means no limit" },
	SL_GEN_ADDR_PARAMS("IPv4 source address"),
};

/* At config load: src_ip and dst_ip are IPv4 addresses. */
static int psrc_check(const struct sl_param_value *params, unsigned n_in,
				unsigned n_out, struct sl_err *err)
{
	(void)n_out;
	return sl_gen_check(psrc_params, SL_ARRAY_LEN(psrc_params), params, err);
}

static const struct sl_port_spec psrc_outputs[] = {
	{ .name = "output#", .required = true,
	  .doc = "stamped frames, one stream (own sequence numbers) per output" },
};

static const struct sl_app_type probe_source_app = {
	.name = "probe_source",
	.doc = "Send frames stamped with a stream, a sequence number and the TSC, for probe_sink",
	.params = psrc_params,
	.n_params = SL_ARRAY_LEN(psrc_params),
	.outputs = psrc_outputs,
	.n_outputs = SL_ARRAY_LEN(psrc_outputs),
	.priv_size = sizeof(struct psrc_priv),
	.check = psrc_check,
	.init = psrc_init,
	.pull = psrc_pull,
};

SL_APP_REGISTER(probe_source_app)
