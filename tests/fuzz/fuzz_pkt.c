/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_pkt: the frame parser and flow-key extraction (apps/pkt/pkt.h,
 * apps/pkt/flowkey.h) on arbitrary frames, in one segment and chained.
 *
 * Input: byte 0 chooses the layout: bits 0-1 the number of extra segments
 * (0..3), bit 2 appends 65536 zero bytes (a frame longer than 16-bit
 * lengths reach); bytes 1..3 place the segment cuts (each a fraction of the
 * frame, in 1/256ths); the rest is the frame.  Mbufs are built by hand, no
 * EAL or mempool: each segment's data sits in a buffer of exactly its size,
 * so that a read past a segment is caught by AddressSanitizer.
 *
 * Promises checked (pkt.h, flowkey.h): the chained frame parses exactly as
 * the same frame in one segment; the class and reason are in range and a
 * reason has a name; a malformed or non-IP frame has a zero key and no IP
 * offsets; an IP frame's family matches its ethertype, its offsets lie in the
 * frame (l3_off after the tags, l4_off past the fixed header, inside l3_len),
 * its addresses are the header's bytes, its ports the transport header's (0
 * for a later fragment) and the key's unused bytes are zero.
 */
#include <rte_mbuf.h>

#include "apps/pkt/flowkey.h"
#include "apps/pkt/pkt.h"

#include "fuzz.h"

#define MAX_SEGS 4
#define BIG_PAD 65536u
#define SEG_MAX 65535u     /* data_len is 16 bits */

struct chain {
	struct rte_mbuf m[MAX_SEGS + 2];
	uint8_t *buf[MAX_SEGS + 2];
	unsigned n;
};

static void chain_add(struct chain *c, const uint8_t *data, uint32_t len)
{
	fuzz_require(c->n < MAX_SEGS + 2, "too many segments");
	struct rte_mbuf *m = &c->m[c->n];
	uint8_t *b = malloc(len ? len : 1);
	fuzz_require(b != NULL, "out of memory");
	memcpy(b, data, len);
	memset(m, 0, sizeof(*m));
	m->buf_addr = b;
	m->buf_len = (uint16_t)len;
	m->data_off = 0;
	m->data_len = (uint16_t)len;
	m->nb_segs = 1;
	if (c->n > 0) {
		c->m[c->n - 1].next = m;
		c->m[0].nb_segs++;
	}
	c->buf[c->n++] = b;
}

/* Build frame[0..len) as segments cut at cuts[0..n_cuts) (sorted, within
 * len), splitting any piece longer than SEG_MAX. */
static void chain_build(struct chain *c, const uint8_t *frame, uint32_t len,
			const uint32_t *cuts, unsigned n_cuts)
{
	uint32_t at = 0;
	c->n = 0;
	for (unsigned i = 0; i <= n_cuts; i++) {
		uint32_t end = i < n_cuts ? cuts[i] : len;
		while (end - at > SEG_MAX) {
			chain_add(c, frame + at, SEG_MAX);
			at += SEG_MAX;
		}
		if (end > at || i == n_cuts)
			chain_add(c, frame + at, end - at);
		at = end;
	}
	c->m[0].pkt_len = len;
}

static void chain_free(struct chain *c)
{
	for (unsigned i = 0; i < c->n; i++)
		free(c->buf[i]);
	c->n = 0;
}

static uint16_t be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static bool has_ports(uint8_t proto)
{
	return proto == 6 || proto == 17 || proto == 132 || proto == 136;
}

static bool all_zero(const void *p, size_t n)
{
	const uint8_t *b = p;
	for (size_t i = 0; i < n; i++)
		if (b[i] != 0)
			return false;
	return true;
}

static void check_result(enum sl_pkt_class cls, const struct sl_flow_key *k,
			 const struct sl_pkt_info *in, const uint8_t *frame, uint32_t len)
{
	fuzz_require(cls <= SL_PKT_MALFORMED, "class %d", (int)cls);
	fuzz_require(in->reason < SL_PKT_R_COUNT, "reason %u", in->reason);
	fuzz_require(strcmp(sl_pkt_reason_name(in->reason), "?") != 0, "reason %u has no name",
		     in->reason);
	fuzz_require(in->vlans <= 2, "%u VLAN tags", in->vlans);
	fuzz_require(k->vlan <= 4095 && (in->vlans > 0 || k->vlan == 0), "key vlan %u with %u tags",
		     k->vlan, in->vlans);
	if (cls != SL_PKT_IP) {
		fuzz_require(all_zero(k, sizeof(*k)), "class %d with a non-zero key", (int)cls);
		fuzz_require(in->l4_off == 0 && in->l3_len == 0 && !in->fragment,
			     "class %d with IP fields", (int)cls);
		fuzz_require((cls == SL_PKT_MALFORMED) == (in->reason != SL_PKT_R_NONE),
			     "class %d with reason %u", (int)cls, in->reason);
		if (cls == SL_PKT_NOT_IP)
			fuzz_require(in->ethertype != 0x0800 && in->ethertype != 0x86dd,
				     "ethertype %#x classed as not IP", in->ethertype);
		return;
	}
	unsigned fixed = k->family == 4 ? 20 : 40;
	fuzz_require(in->reason == SL_PKT_R_NONE, "IP with reason %u", in->reason);
	fuzz_require((k->family == 4 && in->ethertype == 0x0800) ||
		     (k->family == 6 && in->ethertype == 0x86dd),
		     "family %u for ethertype %#x", k->family, in->ethertype);
	fuzz_require(in->l3_off == 14u + 4u * in->vlans, "l3_off %u after %u tags", in->l3_off,
		     in->vlans);
	fuzz_require((uint32_t)in->l3_off + in->l3_len <= len,
		     "l3_off %u + l3_len %u past the frame of %u bytes", in->l3_off, in->l3_len,
		     len);
	fuzz_require(in->l4_off >= in->l3_off + fixed &&
		     in->l4_off <= (uint32_t)in->l3_off + in->l3_len,
		     "l4_off %u outside the datagram at %u, %u bytes", in->l4_off, in->l3_off,
		     in->l3_len);
	fuzz_require(in->fragment || in->first_fragment, "not a fragment but not first either");
	if (k->family == 4) {
		fuzz_require(memcmp(k->src, frame + in->l3_off + 12, 4) == 0 &&
			     memcmp(k->dst, frame + in->l3_off + 16, 4) == 0,
			     "IPv4 addresses differ from the header");
		fuzz_require(all_zero(k->src + 4, 12) && all_zero(k->dst + 4, 12),
			     "IPv4 key with non-zero bytes past the address");
		fuzz_require(k->proto == frame[in->l3_off + 9], "IPv4 protocol");
	} else {
		fuzz_require(memcmp(k->src, frame + in->l3_off + 8, 16) == 0 &&
			     memcmp(k->dst, frame + in->l3_off + 24, 16) == 0,
			     "IPv6 addresses differ from the header");
	}
	if (in->first_fragment && has_ports(k->proto)) {
		fuzz_require(in->l4_off + 4u <= (uint32_t)in->l3_off + in->l3_len,
			     "ports past the datagram");
		fuzz_require(k->sport == be16(frame + in->l4_off) &&
			     k->dport == be16(frame + in->l4_off + 2),
			     "ports differ from the transport header");
	} else {
		fuzz_require(k->sport == 0 && k->dport == 0, "ports on a %s",
			     in->first_fragment ? "portless protocol" : "later fragment");
	}
}

/* Whether m is a simple frame (sl_pkt_ipv4_simple) with the raw words
 * addrs and rest. */
static bool same_flow(const struct rte_mbuf *m, uint64_t addrs, uint64_t rest)
{
	const uint8_t *h = sl_pkt_ipv4_simple(m);
	if (h == NULL)
		return false;
	uint64_t a, r;
	sl_pkt_ipv4_simple_raw(h, &a, &r);
	return a == addrs && r == rest;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 4)
		return 0;
	unsigned extra = data[0] & 3;
	bool big = (data[0] & 4) != 0;
	uint32_t len = (uint32_t)(size - 4) + (big ? BIG_PAD : 0);
	uint8_t *frame = calloc(len ? len : 1, 1);
	fuzz_require(frame != NULL, "out of memory");
	memcpy(frame, data + 4, size - 4);

	uint32_t cuts[3];
	for (unsigned i = 0; i < extra; i++)
		cuts[i] = (uint32_t)((uint64_t)len * data[1 + i] / 256);
	for (unsigned i = 1; i < extra; i++)   /* sort the (at most 3) cuts */
		for (unsigned j = i; j > 0 && cuts[j - 1] > cuts[j]; j--) {
			uint32_t t = cuts[j];
			cuts[j] = cuts[j - 1];
			cuts[j - 1] = t;
		}

	struct chain one, many;
	struct sl_flow_key k1, k2;
	struct sl_pkt_info i1, i2;
	chain_build(&one, frame, len, NULL, 0);
	chain_build(&many, frame, len, cuts, extra);

	enum sl_pkt_class c1 = sl_pkt_parse(&one.m[0], &k1, &i1);
	enum sl_pkt_class c2 = sl_pkt_parse(&many.m[0], &k2, &i2);
	check_result(c1, &k1, &i1, frame, len);
	fuzz_require(c1 == c2 && sl_flow_key_eq(&k1, &k2) && memcmp(&i1, &i2, sizeof(i1)) == 0,
		     "%u segments parse differently from one (class %d/%d, reason %s/%s)",
		     many.n, (int)c1, (int)c2, sl_pkt_reason_name(i1.reason),
		     sl_pkt_reason_name(i2.reason));

	struct sl_flow_key k3;
	struct sl_pkt_info i3;
	enum sl_pkt_class c3 = sl_pkt_parse_full(&one.m[0], &k3, &i3);
	fuzz_require(c1 == c3 && sl_flow_key_eq(&k1, &k3) && memcmp(&i1, &i3, sizeof(i1)) == 0,
		     "the inline parse differs from sl_pkt_parse_full (class %d/%d, reason %s/%s)",
		     (int)c1, (int)c3, sl_pkt_reason_name(i1.reason), sl_pkt_reason_name(i3.reason));

	fuzz_require(sl_pkt_ipv4_simple(&one.m[0]) == NULL ||
		     (c3 == SL_PKT_IP && k3.family == 4 && i3.l3_off == 14 && i3.l4_off == 34 &&
		      !i3.fragment && i3.vlans == 0),
		     "sl_pkt_ipv4_simple took a frame the full parse does not see as simple IPv4");

	const uint8_t *h = sl_pkt_ipv4_simple(&one.m[0]);
	if (h != NULL) {
		uint64_t addrs, rest;
		sl_pkt_ipv4_simple_raw(h, &addrs, &rest);
		fuzz_require(sl_flow_key_hash_v4(addrs, rest) == sl_flow_key_hash(&k3) &&
			     sl_flow_key_v4_w0(rest) == sl_flow_key_word(&k3, 0),
			     "a simple frame's raw words hash or key differently from its key");
		/* The run check against this frame: the same frame in its
		 * segments, and with one of its first 64 bytes flipped (the
		 * byte and the bits from the input's control bytes), is of
		 * its flow exactly when the check and the words say so. */
		struct sl_pkt_ipv4_run r;
		sl_pkt_ipv4_run_of(&r, rte_pktmbuf_mtod(&one.m[0], const uint8_t *));
		fuzz_require(sl_pkt_ipv4_run_at(&many.m[0], rte_pktmbuf_mtod(&many.m[0], const uint8_t *),
						&r) == same_flow(&many.m[0], addrs, rest),
			     "the run check differs from the check and the words (%u segments)",
			     many.n);
		uint32_t at = data[1] % (len < 64 ? len : 64);
		uint8_t bits = (uint8_t)(data[2] | 1);
		frame[at] ^= bits;
		struct chain flipped;
		chain_build(&flipped, frame, len, NULL, 0);
		fuzz_require(sl_pkt_ipv4_run_at(&flipped.m[0],
						rte_pktmbuf_mtod(&flipped.m[0], const uint8_t *), &r) ==
			     same_flow(&flipped.m[0], addrs, rest),
			     "the run check differs from the check and the words (byte %u ^ %#x)", at,
			     bits);
		chain_free(&flipped);
		frame[at] ^= bits;
	}

	struct sl_flow_key copy = k1;
	fuzz_require(sl_flow_key_hash(&copy) == sl_flow_key_hash(&k1), "hash not a function");
	fuzz_require(strcmp(sl_flow_family_name(&k1), k1.family == 6 ? "ipv6" : "ipv4") == 0,
		     "family name");

	chain_free(&one);
	chain_free(&many);
	free(frame);
	return 0;
}
