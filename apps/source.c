/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * source: generates Ethernet/IPv4/UDP frames of a fixed size.
 *
 * Flows: flow f (0 <= f < flows) has source address src_ip + (f mod 4096)
 * and UDP source port 1024 + f / 4096; packets cycle through the flows in
 * order, so both address-only and 5-tuple hashes spread them.  Destination
 * is dst_ip, UDP port 9.  The payload is zero, the UDP checksum 0 (none),
 * the IPv4 checksum correct.
 *
 * Pacing: with rate > 0 a token bucket on the TSC admits packets; it holds
 * at most 10 ms of packets (at least 1), so a short stall of the worker is
 * made up for and a long one is not.  The source never sleeps.  With
 * count > 0 it stops after that many packets.
 *
 * A frame larger than one buffer of the app's pool is sent as a chain of
 * segments.  If mbufs cannot be allocated the breath sends nothing; nothing
 * is counted, and the next breath tries again.
 */
#include <rte_ip.h>
#include <rte_udp.h>

#include "app.h"
#include "gen.h"

#define SRC_SIZE_MAX SL_GEN_SIZE_MAX
#define SRC_ADDRS_PER_PORT 4096u     /* source addresses cycled per port */
#define SRC_PORT_FIRST 1024u
#define SRC_DST_PORT 9u

struct source_priv {
	uint32_t flows;
	uint32_t flow;           /* index of the next frame's flow */
	uint32_t addr_off;       /* next frame: src_ip + addr_off ... */
	uint32_t port;           /* ... and this source port */

	struct sl_gen gen;       /* template (IPv4 checksum 0), pacing, count */
};

static int source_init(struct sl_app *app, struct sl_err *err)
{
	struct source_priv *p = app->priv;
	int rc;

	p->flows = (uint32_t)sl_app_param_uint(app, "flows");
	rc = sl_gen_init(&p->gen, app, SRC_PORT_FIRST, SRC_DST_PORT, SL_GEN_HDR_LEN, err);
	if (rc < 0)
		return rc;

	p->flow = 0;
	p->addr_off = 0;
	p->port = SRC_PORT_FIRST;
	return 0;
}

static void source_pull(struct sl_app *app)
{
	struct source_priv *p = app->priv;
	struct rte_mbuf *pkts[SL_BURST_MAX];
	struct sl_link *out = app->out[0];
	unsigned n;

	if (out == NULL)
		return;
	n = sl_gen_want(&p->gen);
	if (n == 0)
		return;
	if (sl_gen_build(&p->gen, app->pool, pkts, n) == 0)
		return;

	for (unsigned i = 0; i < n; i++) {
		uint8_t *d = rte_pktmbuf_mtod(pkts[i], uint8_t *);
		struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(d + SL_GEN_L3_OFF);
		struct rte_udp_hdr *udp = (struct rte_udp_hdr *)(d + SL_GEN_L4_OFF);
		ip->src_addr = rte_cpu_to_be_32(p->gen.src_ip_host + p->addr_off);
		ip->hdr_checksum = rte_ipv4_cksum(ip);
		udp->src_port = rte_cpu_to_be_16((uint16_t)p->port);

		/* Next flow, without a division per frame. */
		if (++p->flow == p->flows) {
			p->flow = 0;
			p->addr_off = 0;
			p->port = SRC_PORT_FIRST;
		} else if (++p->addr_off == SRC_ADDRS_PER_PORT) {
			p->addr_off = 0;
			p->port++;
		}
	}
	sl_gen_sent(&p->gen, n);
	sl_app_count_in(app, pkts, n);
	sl_link_transmit(out, pkts, n);
}

static const struct sl_param_spec source_params[] = {
	{ .name = "size", .type = SL_PARAM_UINT, .def = "64", .min = 60, .max = SRC_SIZE_MAX,
	  .doc = "frame size in bytes, without FCS" },
	{ .name = "flows", .type = SL_PARAM_UINT, .def = "1", .min = 1, .max = 16777216,
	  .doc = "number of flows (source address and UDP source port vary)" },
	{ .name = "rate", .type = SL_PARAM_UINT, .def = "0", .max = 1000000000,
	  .doc = "packets per second; 0 means as fast as possible" },
	{ .name = "count", .type = SL_PARAM_UINT, .def = "0",
	  .doc = "packets to send before stopping; 0 means no limit" },
	{ .name = "src_mac", .type = SL_PARAM_MAC, .def = "02:00:00:00:00:01",
	  .doc = "Ethernet source address" },
	{ .name = "dst_mac", .type = SL_PARAM_MAC, .def = "02:00:00:00:00:02",
	  .doc = "Ethernet destination address" },
	{ .name = "src_ip", .type = SL_PARAM_STRING, .def = "198.18.0.1",
	  .doc = "first IPv4 source address (flows add to it)" },
	{ .name = "dst_ip", .type = SL_PARAM_STRING, .def = "198.19.0.1",
	  .doc = "IPv4 destination address" },
};

static const struct sl_port_spec source_outputs[] = {
	{ .name = "output", .required = true, .doc = "generated frames" },
};

static const struct sl_app_type source_app = {
	.name = "source",
	.doc = "Generate Ethernet/IPv4/UDP frames over a number of flows, optionally paced",
	.params = source_params,
	.n_params = SL_ARRAY_LEN(source_params),
	.outputs = source_outputs,
	.n_outputs = SL_ARRAY_LEN(source_outputs),
	.priv_size = sizeof(struct source_priv),
	.init = source_init,
	.pull = source_pull,
};

SL_APP_REGISTER(source_app)
