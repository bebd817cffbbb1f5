/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * split: distributes input packets over output0, output1, ...
 *
 *   hash         by flow: a CRC32 of the 5-tuple of IPv4/IPv6 TCP, UDP and
 *                SCTP packets (addresses and protocol only for fragments and
 *                other protocols), of the Ethernet addresses and type for
 *                non-IP frames.  VLAN/QinQ tags are skipped.  A flow always
 *                maps to the same output for a given number of outputs.
 *   round-robin  packet i goes to output i mod n, counted across bursts.
 *
 * Parsing reads only the first segment and never past its data_len: a short
 * or malformed packet hashes on what is there.  Order is kept within each
 * output.
 */
#include <stdint.h>
#include <string.h>
#include <netinet/in.h>

#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_hash_crc.h>
#include <rte_ip.h>

#include "runtime/app.h"

enum split_mode { SPLIT_HASH, SPLIT_ROUND_ROBIN };   /* order of "choices" */

struct split_priv {
	enum split_mode mode;
	unsigned next;             /* round-robin: output of the next packet */
};

/* Output indices of one burst are kept in bytes. */
_Static_assert(SL_MAX_PORTS <= UINT8_MAX + 1, "output index must fit in uint8_t");

#define SPLIT_ROUNDS 4
#define SPLIT_SEED 0x5117c3e5u
#define IPV6_MAX_EXT_HDRS 4

/* What is hashed; unused bytes stay zero so that equal tuples hash equally. */
struct flow_key {
	_Alignas(uint64_t) uint8_t src[16];   /* aligned for the CRC's 8-byte loads */
	uint8_t dst[16];
	uint8_t ports[4];          /* source and destination port, wire order */
	uint8_t proto;
	uint8_t pad[3];
};

static inline uint16_t load_be16(const uint8_t *p)
{
	uint16_t v;
	memcpy(&v, p, sizeof(v));
	return rte_be_to_cpu_16(v);
}

static inline bool has_ports(uint8_t proto)
{
	return proto == IPPROTO_TCP || proto == IPPROTO_UDP || proto == IPPROTO_SCTP;
}

/* Fill key->ports from the L4 header at off when it is wholly inside len. */
static inline void take_ports(struct flow_key *key, const uint8_t *d, uint32_t off,
			      uint32_t len)
{
	if (has_ports(key->proto) && off + 4 <= len)
		memcpy(key->ports, d + off, 4);
}

static void key_ipv4(struct flow_key *key, const uint8_t *d, uint32_t off, uint32_t len)
{
	uint32_t ihl = (uint32_t)(d[off] & 0x0f) * 4;

	memcpy(key->src, d + off + 12, 4);
	memcpy(key->dst, d + off + 16, 4);
	key->proto = d[off + 9];
	/* More-fragments flag or a fragment offset: no ports in this packet. */
	if ((load_be16(d + off + 6) & 0x3fff) != 0 || ihl < 20)
		return;
	take_ports(key, d, off + ihl, len);
}

static void key_ipv6(struct flow_key *key, const uint8_t *d, uint32_t off, uint32_t len)
{
	uint8_t next = d[off + 6];

	memcpy(key->src, d + off + 8, 16);
	memcpy(key->dst, d + off + 24, 16);
	off += 40;
	/* Walk a few extension headers to the transport header. */
	for (int i = 0; i < IPV6_MAX_EXT_HDRS && off + 8 <= len; i++) {
		if (next == IPPROTO_HOPOPTS || next == IPPROTO_ROUTING ||
		    next == IPPROTO_DSTOPTS) {
			next = d[off];
			off += ((uint32_t)d[off + 1] + 1) * 8;
		} else if (next == IPPROTO_FRAGMENT) {
			next = d[off];
			if ((load_be16(d + off + 2) & 0xfff9) != 0) {
				key->proto = next;   /* a real fragment: no ports */
				return;
			}
			off += 8;
		} else {
			break;
		}
	}
	key->proto = next;
	take_ports(key, d, off, len);
}

static uint32_t flow_hash(const struct rte_mbuf *m)
{
	const uint8_t *d = rte_pktmbuf_mtod(m, const uint8_t *);
	uint32_t len = rte_pktmbuf_data_len(m);
	struct flow_key key;
	uint32_t off = RTE_ETHER_HDR_LEN;
	uint16_t type;

	memset(&key, 0, sizeof(key));
	if (unlikely(len < RTE_ETHER_HDR_LEN)) {
		/* Runt: what there is (also keeps the CRC's loads aligned). */
		memcpy(key.src, d, len);
		key.proto = (uint8_t)len;
		return rte_hash_crc(&key, sizeof(key), SPLIT_SEED);
	}
	type = load_be16(d + 12);
	while ((type == RTE_ETHER_TYPE_VLAN || type == RTE_ETHER_TYPE_QINQ) &&
	       off + 4 <= len) {
		type = load_be16(d + off + 2);
		off += 4;
	}
	if (type == RTE_ETHER_TYPE_IPV4 && off + 20 <= len) {
		key_ipv4(&key, d, off, len);
	} else if (type == RTE_ETHER_TYPE_IPV6 && off + 40 <= len) {
		key_ipv6(&key, d, off, len);
	} else {
		/* Not IP (or truncated): destination, source and type. */
		memcpy(key.src, d, 2 * RTE_ETHER_ADDR_LEN);
		key.ports[0] = (uint8_t)(type >> 8);
		key.ports[1] = (uint8_t)type;
	}
	return rte_hash_crc(&key, sizeof(key), SPLIT_SEED);
}

static int split_init(struct sl_app *app, struct sl_err *err)
{
	struct split_priv *p = app->priv;

	p->mode = sl_app_param_uint(app, "mode") == 0 ? SPLIT_HASH : SPLIT_ROUND_ROBIN;
	p->next = 0;
	return 0;
}

static void split_push(struct sl_app *app)
{
	struct split_priv *p = app->priv;
	struct rte_mbuf *pkts[SL_BURST_MAX];
	struct rte_mbuf *sorted[SL_BURST_MAX];
	uint8_t which[SL_BURST_MAX];
	struct sl_link *in = app->in[0];
	/* A required family has at least output0 once the engine has checked
	 * the graph; treat 0 as 1 (and drop) rather than index out of range. */
	unsigned n_out = app->n_out > 0 ? app->n_out : 1;

	if (in == NULL)
		return;
	for (unsigned r = 0; r < SPLIT_ROUNDS; r++) {
		unsigned n = sl_link_receive(in, pkts, app->burst);
		unsigned count[SL_MAX_PORTS] = { 0 };
		unsigned start[SL_MAX_PORTS];

		if (n == 0)
			break;
		if (p->mode == SPLIT_HASH) {
			for (unsigned i = 0; i < n; i++) {
				/* Multiply-high maps the 32-bit hash onto 0..n_out-1. */
				uint32_t h = flow_hash(pkts[i]);
				which[i] = (uint8_t)(((uint64_t)h * n_out) >> 32);
			}
		} else {
			unsigned next = p->next;
			for (unsigned i = 0; i < n; i++) {
				which[i] = (uint8_t)next;
				if (++next == n_out)
					next = 0;
			}
			p->next = next;
		}
		/* Counting sort by output keeps each output's packets in order and
		 * gives one transmit per output. */
		for (unsigned i = 0; i < n; i++)
			count[which[i]]++;
		for (unsigned o = 0, s = 0; o < n_out; o++) {
			start[o] = s;
			s += count[o];
		}
		for (unsigned i = 0; i < n; i++)
			sorted[start[which[i]]++] = pkts[i];
		for (unsigned o = 0; o < n_out; o++) {
			if (count[o] == 0)
				continue;
			/* start[o] now points one past output o's packets. */
			unsigned s = start[o] - count[o];
			if (app->out[o] != NULL)
				sl_link_transmit(app->out[o], sorted + s, count[o]);
			else
				sl_app_drop(app, sorted + s, count[o]);
		}
		if (n < app->burst)
			break;
	}
}

static const struct sl_param_spec split_params[] = {
	{ .name = "mode", .type = SL_PARAM_ENUM, .def = "hash", .choices = "hash|round-robin",
	  .doc = "hash: by 5-tuple, one flow to one output; round-robin: packet by packet" },
};

static const struct sl_port_spec split_inputs[] = {
	{ .name = "input", .required = true, .doc = "packets to distribute" },
};

static const struct sl_port_spec split_outputs[] = {
	{ .name = "output#", .required = true, .doc = "output0, output1, ..." },
};

static const struct sl_app_type split_app = {
	.name = "split",
	.doc = "Distribute packets over several outputs by flow hash or round-robin",
	.params = split_params,
	.n_params = SL_ARRAY_LEN(split_params),
	.inputs = split_inputs,
	.n_inputs = SL_ARRAY_LEN(split_inputs),
	.outputs = split_outputs,
	.n_outputs = SL_ARRAY_LEN(split_outputs),
	.priv_size = sizeof(struct split_priv),
	.init = split_init,
	.push = split_push,
};

SL_APP_REGISTER(split_app)
