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
#include <arpa/inet.h>
#include <errno.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_udp.h>

#include "app.h"

#define SRC_SIZE_MAX 9000u
#define SRC_HDR_LEN 42u              /* Ethernet + IPv4 + UDP */
#define SRC_L3_OFF RTE_ETHER_HDR_LEN
#define SRC_L4_OFF (SRC_L3_OFF + 20u)
#define SRC_ADDRS_PER_PORT 4096u     /* source addresses cycled per port */
#define SRC_PORT_FIRST 1024u
#define SRC_DST_PORT 9u

_Static_assert(sizeof(struct rte_ether_hdr) + sizeof(struct rte_ipv4_hdr) +
	       sizeof(struct rte_udp_hdr) == SRC_HDR_LEN,
	       "template offsets assume packed 14 + 20 + 8 byte headers");

struct source_priv {
	uint32_t size;           /* frame bytes, without FCS */
	uint32_t seg_cap;        /* data bytes one mbuf of the pool holds */
	unsigned nseg;           /* segments per frame */
	unsigned max_pkts;       /* frames per pull, so that all segments fit */

	uint32_t flows;
	uint32_t flow;           /* index of the next frame's flow */
	uint32_t src_ip;         /* base source address, host order */
	uint32_t addr_off;       /* next frame: src_ip + addr_off ... */
	uint32_t port;           /* ... and this source port */

	uint64_t rate;           /* packets per second; 0: unlimited */
	uint64_t tsc_hz;
	uint64_t last_tsc;       /* 0 until the first pull */
	uint64_t credit;         /* packets x tsc_hz */
	uint64_t credit_max;

	uint64_t count;          /* 0: unlimited */
	uint64_t sent;

	uint8_t frame[SRC_SIZE_MAX];   /* template: headers, then zero payload */
};

static int parse_ipv4(const struct sl_app *app, const char *param, uint32_t *host,
		      struct sl_err *err)
{
	const char *text = sl_app_param_str(app, param);
	struct in_addr a;

	if (inet_pton(AF_INET, text, &a) != 1)
		return sl_errf(err, EINVAL,
			       "parameter '%s' must be an IPv4 address like 198.18.0.1, got '%s'",
			       param, text);
	*host = rte_be_to_cpu_32(a.s_addr);
	return 0;
}

static int source_init(struct sl_app *app, struct sl_err *err)
{
	struct source_priv *p = app->priv;
	uint32_t dst_ip;
	int rc;

	p->size = (uint32_t)sl_app_param_uint(app, "size");
	p->flows = (uint32_t)sl_app_param_uint(app, "flows");
	p->rate = sl_app_param_uint(app, "rate");
	p->count = sl_app_param_uint(app, "count");
	rc = parse_ipv4(app, "src_ip", &p->src_ip, err);
	if (rc == 0)
		rc = parse_ipv4(app, "dst_ip", &dst_ip, err);
	if (rc < 0)
		return rc;

	/* A fresh mbuf starts RTE_PKTMBUF_HEADROOM bytes (or its whole buffer,
	 * if smaller) into its data room. */
	uint32_t room = rte_pktmbuf_data_room_size(app->pool);
	p->seg_cap = room - RTE_MIN(room, (uint32_t)RTE_PKTMBUF_HEADROOM);
	if (p->seg_cap < SRC_HDR_LEN)
		return sl_errf(err, EINVAL,
			       "the pool's mbufs hold %u bytes after headroom; %u are needed",
			       p->seg_cap, SRC_HDR_LEN);
	p->nseg = (p->size + p->seg_cap - 1) / p->seg_cap;
	p->max_pkts = RTE_MIN(app->burst, SL_BURST_MAX / p->nseg);

	memset(p->frame, 0, sizeof(p->frame));
	struct rte_ether_hdr *eh = (struct rte_ether_hdr *)p->frame;
	memcpy(eh->dst_addr.addr_bytes, sl_app_param_mac(app, "dst_mac"), RTE_ETHER_ADDR_LEN);
	memcpy(eh->src_addr.addr_bytes, sl_app_param_mac(app, "src_mac"), RTE_ETHER_ADDR_LEN);
	eh->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);

	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(p->frame + SRC_L3_OFF);
	ip->version_ihl = RTE_IPV4_VHL_DEF;
	ip->total_length = rte_cpu_to_be_16((uint16_t)(p->size - SRC_L3_OFF));
	ip->time_to_live = 64;
	ip->next_proto_id = IPPROTO_UDP;
	ip->src_addr = rte_cpu_to_be_32(p->src_ip);
	ip->dst_addr = rte_cpu_to_be_32(dst_ip);

	struct rte_udp_hdr *udp = (struct rte_udp_hdr *)(p->frame + SRC_L4_OFF);
	udp->src_port = rte_cpu_to_be_16(SRC_PORT_FIRST);
	udp->dst_port = rte_cpu_to_be_16(SRC_DST_PORT);
	udp->dgram_len = rte_cpu_to_be_16((uint16_t)(p->size - SRC_L4_OFF));

	p->flow = 0;
	p->addr_off = 0;
	p->port = SRC_PORT_FIRST;

	p->tsc_hz = rte_get_tsc_hz();
	if (p->rate > 0) {
		/* 10 ms of packets: enough to make up for a preempted worker,
		 * little enough that an idle period ends in no large burst (and
		 * each pull sends at most max_pkts anyway). */
		uint64_t depth = RTE_MAX(UINT64_C(1), p->rate / 100);
		p->credit_max = depth * p->tsc_hz;
	}
	return 0;
}

/* How many frames the token bucket admits now (rate > 0). */
static unsigned admit(struct source_priv *p, unsigned want)
{
	uint64_t now = rte_rdtsc();

	if (unlikely(p->last_tsc == 0)) {
		p->last_tsc = now;
		p->credit = p->tsc_hz;          /* the first frame goes at once */
	} else {
		/* Capping the gap at one second keeps gap x rate in 64 bits. */
		uint64_t gap = RTE_MIN(now - p->last_tsc, p->tsc_hz);
		p->last_tsc = now;
		p->credit = RTE_MIN(p->credit + gap * p->rate, p->credit_max);
	}
	uint64_t n = p->credit / p->tsc_hz;
	return n < want ? (unsigned)n : want;
}

static void source_pull(struct sl_app *app)
{
	struct source_priv *p = app->priv;
	struct rte_mbuf *segs[SL_BURST_MAX];
	struct rte_mbuf *pkts[SL_BURST_MAX];
	struct sl_link *out = app->out[0];
	unsigned n = p->max_pkts;

	if (out == NULL)
		return;
	if (p->count > 0) {
		if (p->sent >= p->count)
			return;
		n = (unsigned)RTE_MIN((uint64_t)n, p->count - p->sent);
	}
	if (p->rate > 0)
		n = admit(p, n);
	if (n == 0)
		return;
	if (rte_pktmbuf_alloc_bulk(app->pool, segs, n * p->nseg) != 0)
		return;

	for (unsigned i = 0; i < n; i++) {
		struct rte_mbuf **chain = segs + i * p->nseg;
		struct rte_mbuf *m = chain[0];
		uint32_t off = 0;

		for (unsigned s = 0; s < p->nseg; s++) {
			uint32_t len = RTE_MIN(p->seg_cap, p->size - off);
			memcpy(rte_pktmbuf_mtod(chain[s], uint8_t *), p->frame + off, len);
			chain[s]->data_len = (uint16_t)len;
			if (s > 0)
				chain[s - 1]->next = chain[s];
			off += len;
		}
		m->nb_segs = (uint16_t)p->nseg;
		m->pkt_len = p->size;
		m->l2_len = RTE_ETHER_HDR_LEN;
		m->l3_len = sizeof(struct rte_ipv4_hdr);
		m->packet_type = RTE_PTYPE_L2_ETHER | RTE_PTYPE_L3_IPV4 | RTE_PTYPE_L4_UDP;

		uint8_t *d = rte_pktmbuf_mtod(m, uint8_t *);
		struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(d + SRC_L3_OFF);
		struct rte_udp_hdr *udp = (struct rte_udp_hdr *)(d + SRC_L4_OFF);
		ip->src_addr = rte_cpu_to_be_32(p->src_ip + p->addr_off);
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
		pkts[i] = m;
	}
	if (p->rate > 0)
		p->credit -= (uint64_t)n * p->tsc_hz;
	p->sent += n;
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
