/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tee: sends every input packet to each of output0, output1, ...
 * output0 gets the original mbufs; every other output gets a deep copy
 * (rte_pktmbuf_copy from the app's pool), so apps downstream of different
 * outputs may modify their packets in place independently.  Zero-length
 * frames are copied too.  A copy that cannot be allocated is counted as a
 * drop of this app; the other outputs still get the packet.
 */
#include "runtime/app.h"

#define TEE_ROUNDS 4

/* A deep copy of m from pool, or NULL when the pool is empty.
 * rte_pktmbuf_copy refuses an empty packet (offset 0 is not below its
 * length of 0), so an empty one gets a fresh mbuf with m's metadata, as
 * rte_pktmbuf_copy would have set it. */
static struct rte_mbuf *tee_copy(const struct rte_mbuf *m, struct rte_mempool *pool)
{
	if (m->pkt_len > 0)
		return rte_pktmbuf_copy(m, pool, 0, UINT32_MAX);
	struct rte_mbuf *c = rte_pktmbuf_alloc(pool);
	if (c == NULL)
		return NULL;
	__rte_pktmbuf_copy_hdr(c, m);
	c->ol_flags = m->ol_flags & ~(RTE_MBUF_F_INDIRECT | RTE_MBUF_F_EXTERNAL);
	return c;
}

static void tee_push(struct sl_app *app)
{
	struct rte_mbuf *pkts[SL_BURST_MAX];
	struct rte_mbuf *copies[SL_BURST_MAX];
	struct sl_link *in = app->in[0];

	if (in == NULL)
		return;
	for (unsigned r = 0; r < TEE_ROUNDS; r++) {
		unsigned n = sl_link_receive(in, pkts, app->burst);
		if (n == 0)
			break;
		/* Copies first: transmitting the originals hands them over. */
		for (unsigned o = 1; o < app->n_out; o++) {
			unsigned nc = 0;
			for (unsigned i = 0; i < n; i++) {
				struct rte_mbuf *c = tee_copy(pkts[i], app->pool);
				if (c != NULL)
					copies[nc++] = c;
			}
			if (nc < n)
				sl_counter_add(&app->stats.drops, n - nc);
			if (app->out[o] != NULL)
				sl_link_transmit(app->out[o], copies, nc);
			else
				sl_app_drop(app, copies, nc);
		}
		if (app->out[0] != NULL)
			sl_link_transmit(app->out[0], pkts, n);
		else
			sl_app_drop(app, pkts, n);
		if (n < app->burst)
			break;
	}
}

static const struct sl_port_spec tee_inputs[] = {
	{ .name = "input", .required = true, .doc = "packets to duplicate" },
};

static const struct sl_port_spec tee_outputs[] = {
	{ .name = "output#", .required = true,
	  .doc = "output0 gets the originals, the others deep copies" },
};

static const struct sl_app_type tee_app = {
	.name = "tee",
	.doc = "Send every packet to all outputs (deep copies beyond output0)",
	.inputs = tee_inputs,
	.n_inputs = SL_ARRAY_LEN(tee_inputs),
	.outputs = tee_outputs,
	.n_outputs = SL_ARRAY_LEN(tee_outputs),
	.push = tee_push,
};

SL_APP_REGISTER(tee_app)
