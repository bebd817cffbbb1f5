/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * join: merges input0, input1, ... into one output.  Each round takes one
 * burst from every input in port order, so a busy input cannot starve the
 * others; packets from one input keep their order.
 */
#include "runtime/app.h"

#define JOIN_ROUNDS 4

static void join_push(struct sl_app *app)
{
	struct rte_mbuf *pkts[SL_BURST_MAX];
	struct sl_link *out = app->out[0];

	for (unsigned r = 0; r < JOIN_ROUNDS; r++) {
		unsigned moved = 0;
		for (unsigned i = 0; i < app->n_in; i++) {
			struct sl_link *in = app->in[i];
			if (in == NULL)
				continue;
			unsigned n = sl_link_receive(in, pkts, app->burst);
			if (n == 0)
				continue;
			if (out != NULL)
				sl_link_transmit(out, pkts, n);
			else
				sl_app_drop(app, pkts, n);
			moved += n;
		}
		if (moved == 0)
			break;
	}
}

static const struct sl_port_spec join_inputs[] = {
	{ .name = "input#", .required = true,
	  .doc = "packets to merge (input0, input1, ...)" },
};

static const struct sl_port_spec join_outputs[] = {
	{ .name = "output", .required = true, .doc = "all packets from every input" },
};

static const struct sl_app_type join_app = {
	.name = "join",
	.doc = "Merge several inputs into one output, one burst per input in turn",
	.inputs = join_inputs,
	.n_inputs = SL_ARRAY_LEN(join_inputs),
	.outputs = join_outputs,
	.n_outputs = SL_ARRAY_LEN(join_outputs),
	.push = join_push,
};

SL_APP_REGISTER(join_app)
