/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * l2fwd: rewrites Ethernet addresses in place and forwards.
 *   swap  exchanges source and destination MAC addresses;
 *   set   writes dst_mac then src_mac.
 * Packets whose first segment is shorter than an Ethernet header are
 * dropped.  Packets are modified in place, so the app must own them
 * exclusively (tee hands out deep copies for this reason).
 */
#include <string.h>

#include <rte_ether.h>

#include "runtime/app.h"

enum l2fwd_mode { L2FWD_SWAP, L2FWD_SET };

struct l2fwd_priv {
	enum l2fwd_mode mode;
	struct rte_ether_addr dst, src;   /* for set */
};

#define L2FWD_ROUNDS 4

static int l2fwd_init(struct sl_app *app, struct sl_err *err)
{
	struct l2fwd_priv *p = app->priv;

	p->mode = sl_app_param_uint(app, "mode") == 0 ? L2FWD_SWAP : L2FWD_SET;
	memcpy(p->dst.addr_bytes, sl_app_param_mac(app, "dst_mac"), RTE_ETHER_ADDR_LEN);
	memcpy(p->src.addr_bytes, sl_app_param_mac(app, "src_mac"), RTE_ETHER_ADDR_LEN);
	return 0;
}

static void l2fwd_push(struct sl_app *app)
{
	const struct l2fwd_priv *p = app->priv;
	struct rte_mbuf *pkts[SL_BURST_MAX];
	struct rte_mbuf *bad[SL_BURST_MAX];
	struct sl_link *in = app->in[0];
	struct sl_link *out = app->out[0];

	if (in == NULL)
		return;
	for (unsigned r = 0; r < L2FWD_ROUNDS; r++) {
		unsigned n = sl_link_receive(in, pkts, app->burst);
		unsigned ok = 0, nbad = 0;

		if (n == 0)
			break;
		for (unsigned i = 0; i < n; i++) {
			struct rte_mbuf *m = pkts[i];
			if (unlikely(rte_pktmbuf_data_len(m) < RTE_ETHER_HDR_LEN)) {
				bad[nbad++] = m;
				continue;
			}
			struct rte_ether_hdr *eh = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
			if (p->mode == L2FWD_SWAP) {
				struct rte_ether_addr t = eh->dst_addr;
				eh->dst_addr = eh->src_addr;
				eh->src_addr = t;
			} else {
				eh->dst_addr = p->dst;
				eh->src_addr = p->src;
			}
			pkts[ok++] = m;
		}
		sl_app_drop(app, bad, nbad);
		if (out != NULL)
			sl_link_transmit(out, pkts, ok);
		else
			sl_app_drop(app, pkts, ok);
		if (n < app->burst)
			break;
	}
}

static const struct sl_param_spec l2fwd_params[] = {
	{ .name = "mode", .type = SL_PARAM_ENUM, .def = "swap", .choices = "swap|set",
	  .doc = "swap source and destination MACs, or set both from src_mac/dst_mac" },
	{ .name = "src_mac", .type = SL_PARAM_MAC, .def = "02:00:00:00:00:01",
	  .doc = "source MAC written in set mode" },
	{ .name = "dst_mac", .type = SL_PARAM_MAC, .def = "02:00:00:00:00:02",
	  .doc = "destination MAC written in set mode" },
};

static const struct sl_port_spec l2fwd_inputs[] = {
	{ .name = "input", .required = true, .doc = "Ethernet frames" },
};

static const struct sl_port_spec l2fwd_outputs[] = {
	{ .name = "output", .required = true, .doc = "frames with rewritten MACs" },
};

static const struct sl_app_type l2fwd_app = {
	.name = "l2fwd",
	.doc = "Rewrite Ethernet addresses (swap or set) and forward",
	.params = l2fwd_params,
	.n_params = SL_ARRAY_LEN(l2fwd_params),
	.inputs = l2fwd_inputs,
	.n_inputs = SL_ARRAY_LEN(l2fwd_inputs),
	.outputs = l2fwd_outputs,
	.n_outputs = SL_ARRAY_LEN(l2fwd_outputs),
	.priv_size = sizeof(struct l2fwd_priv),
	.init = l2fwd_init,
	.push = l2fwd_push,
};

SL_APP_REGISTER(l2fwd_app)
