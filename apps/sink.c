/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sink: consumes every packet on its input.  Consumed packets are counted as
 * the app's out_packets/out_bytes (they leave the pipeline here), then freed.
 */
#include "runtime/app.h"

/* Bursts taken per push, so that a producer on another worker that keeps the
 * link full cannot hold this worker here. */
#define SINK_ROUNDS 8

static void sink_push(struct sl_app *app)
{
	struct rte_mbuf *pkts[SL_BURST_MAX];
	struct sl_link *in = app->in[0];

	if (in == NULL)
		return;
	for (unsigned r = 0; r < SINK_ROUNDS; r++) {
		uint64_t bytes = 0;
		unsigned n = sl_link_receive_sum(in, pkts, app->burst, &bytes);
		if (n == 0)
			break;
		sl_app_count_out_n(app, n, bytes);   /* the packets are read once */
		sl_pkts_free(pkts, n);
		if (n < app->burst)
			break;
	}
}

static const struct sl_port_spec sink_inputs[] = {
	{ .name = "input", .required = true, .doc = "packets to consume" },
};

static const struct sl_app_type sink_app = {
	.name = "sink",
	.doc = "Consume and free every packet (counted as out_packets)",
	.inputs = sink_inputs,
	.n_inputs = SL_ARRAY_LEN(sink_inputs),
	.push = sink_push,
};

SL_APP_REGISTER(sink_app)
