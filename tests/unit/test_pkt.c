/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The frame parser (apps/pkt/pkt.h) on frames built byte by byte in mbufs of a
 * real EAL (--no-huge): IPv4 TCP/UDP/ICMP and options, IPv6 with extension
 * headers, VLAN tags, fragments, non-IP frames, every malformed reason (short
 * frames cut at every length), Ethernet padding, and chained mbufs split at
 * every offset, which must parse exactly as the same frame in one segment.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "apps/pkt/pkt.h"

#include "eal_fixture.h"

#define N_MBUFS 511u

static struct rte_mempool *pool;

/* A frame under construction. */
struct frame {
	uint8_t b[512];
	unsigned len;
};

static void put(struct frame *f, const void *p, unsigned n)
{
	memcpy(f->b + f->len, p, n);
	f->len += n;
}

static void put8(struct frame *f, uint8_t v)
{
	put(f, &v, 1);
}

static void put16(struct frame *f, uint16_t v)
{
	uint8_t b[2] = { (uint8_t)(v >> 8), (uint8_t)v };
	put(f, b, 2);
}

static void put32(struct frame *f, uint32_t v)
{
	put16(f, (uint16_t)(v >> 16));
	put16(f, (uint16_t)v);
}

static void set16(struct frame *f, unsigned off, uint16_t v)
{
	f->b[off] = (uint8_t)(v >> 8);
	f->b[off + 1] = (uint8_t)v;
}

static void eth(struct frame *f, uint16_t type)
{
	static const uint8_t macs[12] = { 2, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 2 };
	f->len = 0;
	put(f, macs, sizeof(macs));
	put16(f, type);
}

static void vlan(struct frame *f, uint16_t tci, uint16_t next)
{
	put16(f, tci);
	put16(f, next);
}

/* An IPv4 header of ihl words (options zero) for a payload of plen bytes.
 * Returns the header's offset. */
static unsigned ipv4(struct frame *f, unsigned ihl, uint8_t proto, uint16_t frag,
		     unsigned plen)
{
	unsigned off = f->len;
	put8(f, (uint8_t)(0x40 | ihl));
	put8(f, 0);
	put16(f, (uint16_t)(ihl * 4 + plen));
	put16(f, 0x1234);
	put16(f, frag);
	put8(f, 64);
	put8(f, proto);
	put16(f, 0);
	put32(f, 0x0a000001);   /* 10.0.0.1 */
	put32(f, 0xc0a80102);   /* 192.168.1.2 */
	for (unsigned i = 5; i < ihl; i++)
		put32(f, 0x01010101);
	return off;
}

static unsigned ipv6(struct frame *f, uint8_t next, unsigned plen)
{
	unsigned off = f->len;
	put32(f, 0x60000000);
	put16(f, (uint16_t)plen);
	put8(f, next);
	put8(f, 64);
	for (int i = 0; i < 16; i++)
		put8(f, (uint8_t)(0x20 + i));
	for (int i = 0; i < 16; i++)
		put8(f, (uint8_t)(0x40 + i));
	return off;
}

/* An extension header of (hlen8 + 1) * 8 bytes. */
static void ext(struct frame *f, uint8_t next, uint8_t hlen8)
{
	put8(f, next);
	put8(f, hlen8);
	for (unsigned i = 2; i < (hlen8 + 1u) * 8; i++)
		put8(f, 0);
}

static void frag6(struct frame *f, uint8_t next, uint16_t offset, bool more)
{
	put8(f, next);
	put8(f, 0);
	put16(f, (uint16_t)(offset << 3 | (more ? 1 : 0)));
	put32(f, 0xabcdef01);
}

static void l4(struct frame *f, uint16_t sport, uint16_t dport, unsigned len)
{
	put16(f, sport);
	put16(f, dport);
	for (unsigned i = 4; i < len; i++)
		put8(f, (uint8_t)i);
}

static void pad_to(struct frame *f, unsigned len)
{
	while (f->len < len)
		put8(f, 0);
}

/* The frame in segments cut at cuts[0..ncut) (increasing, inside the frame). */
static struct rte_mbuf *mbuf_of(const uint8_t *b, unsigned len, const unsigned *cuts,
				unsigned ncut)
{
	struct rte_mbuf *head = NULL;
	unsigned from = 0;

	for (unsigned s = 0; s <= ncut; s++) {
		unsigned to = s < ncut ? cuts[s] : len;
		struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
		if (m == NULL) {
			rte_pktmbuf_free(head);
			return NULL;
		}
		char *d = rte_pktmbuf_append(m, (uint16_t)(to - from));
		if (to > from)
			memcpy(d, b + from, to - from);
		if (head == NULL)
			head = m;
		else if (rte_pktmbuf_chain(head, m) != 0) {
			rte_pktmbuf_free(m);
			rte_pktmbuf_free(head);
			return NULL;
		}
		from = to;
	}
	return head;
}

static enum sl_pkt_class parse_bytes(const uint8_t *b, unsigned len, struct sl_flow_key *k,
				     struct sl_pkt_info *info)
{
	struct rte_mbuf *m = mbuf_of(b, len, NULL, 0);
	enum sl_pkt_class c;

	if (m == NULL) {
		CHECK(0, "cannot build an mbuf");
		return SL_PKT_MALFORMED;
	}
	/* Garbage in, to see that the parser writes every field. */
	memset(k, 0xa5, sizeof(*k));
	memset(info, 0xa5, sizeof(*info));
	c = sl_pkt_parse(m, k, info);
	rte_pktmbuf_free(m);
	return c;
}

static enum sl_pkt_class parse(const struct frame *f, struct sl_flow_key *k,
			       struct sl_pkt_info *info)
{
	return parse_bytes(f->b, f->len, k, info);
}

static bool key_is_zero(const struct sl_flow_key *k)
{
	struct sl_flow_key z;
	sl_flow_key_zero(&z);
	return sl_flow_key_eq(k, &z);
}

/* Expect MALFORMED with reason r (and a zero key). */
static void expect_bad(const struct frame *f, enum sl_pkt_reason r, const char *what)
{
	struct sl_flow_key k;
	struct sl_pkt_info info;
	enum sl_pkt_class c = parse(f, &k, &info);

	CHECK(c == SL_PKT_MALFORMED, "%s: class %d, want MALFORMED", what, c);
	CHECK(info.reason == r, "%s: reason %s, want %s", what, sl_pkt_reason_name(info.reason),
	      sl_pkt_reason_name(r));
	CHECK(key_is_zero(&k), "%s: key not zeroed", what);
}

static void check_v4_key(const struct sl_flow_key *k, uint8_t proto, uint16_t sport,
			 uint16_t dport, const char *what)
{
	static const uint8_t src[16] = { 10, 0, 0, 1 }, dst[16] = { 192, 168, 1, 2 };
	CHECK(k->family == 4, "%s: family %u", what, k->family);
	CHECK(k->proto == proto, "%s: proto %u, want %u", what, k->proto, proto);
	CHECK(k->sport == sport && k->dport == dport, "%s: ports %u %u, want %u %u", what,
	      k->sport, k->dport, sport, dport);
	CHECK(memcmp(k->src, src, 16) == 0 && memcmp(k->dst, dst, 16) == 0,
	      "%s: addresses", what);
}

/* Cut f at every length below its own: no Ethernet header below 14 bytes,
 * no IP header below l3_end, then the IP length says more than there is. */
static void cut_everywhere(const struct frame *f, unsigned l3_end, const char *name)
{
	for (unsigned n = 0; n < f->len; n++) {
		struct frame g = *f;
		char what[32];
		g.len = n;
		snprintf(what, sizeof(what), "%s cut at %u", name, n);
		expect_bad(&g, n < 14 ? SL_PKT_R_SHORT_L2 : n < l3_end ? SL_PKT_R_SHORT_L3 :
			   SL_PKT_R_BAD_LEN, what);
	}
}

static void test_ipv4(void)
{
	struct frame f;
	struct sl_flow_key k;
	struct sl_pkt_info info;
	enum sl_pkt_class c;

	eth(&f, 0x0800);
	ipv4(&f, 5, 17, 0, 30);
	l4(&f, 1234, 53, 30);
	c = parse(&f, &k, &info);
	CHECK(c == SL_PKT_IP, "udp: class %d", c);
	check_v4_key(&k, 17, 1234, 53, "udp");
	CHECK(info.ethertype == 0x0800 && info.vlans == 0 && info.reason == SL_PKT_R_NONE,
	      "udp: ethertype %#x vlans %u reason %u", info.ethertype, info.vlans, info.reason);
	CHECK(info.l3_off == 14 && info.l4_off == 34 && info.l3_len == 50,
	      "udp: offsets %u %u len %u", info.l3_off, info.l4_off, info.l3_len);
	CHECK(!info.fragment && info.first_fragment, "udp: fragment flags %d %d",
	      info.fragment, info.first_fragment);

	eth(&f, 0x0800);
	ipv4(&f, 5, 6, 0x4000, 20);    /* DF is not a fragment */
	l4(&f, 40000, 443, 20);
	c = parse(&f, &k, &info);
	CHECK(c == SL_PKT_IP, "tcp: class %d", c);
	check_v4_key(&k, 6, 40000, 443, "tcp");
	CHECK(!info.fragment && info.first_fragment, "tcp DF: not a fragment");

	eth(&f, 0x0800);
	ipv4(&f, 5, 1, 0, 8);
	l4(&f, 0x0800, 0x1234, 8);      /* echo request: no ports */
	c = parse(&f, &k, &info);
	CHECK(c == SL_PKT_IP, "icmp: class %d", c);
	check_v4_key(&k, 1, 0, 0, "icmp");
	CHECK(info.l4_off == 34 && info.l3_len == 28, "icmp: l4 %u len %u", info.l4_off,
	      info.l3_len);

	/* SCTP and UDP-Lite carry ports too. */
	eth(&f, 0x0800);
	ipv4(&f, 5, 132, 0, 12);
	l4(&f, 7, 8, 12);
	c = parse(&f, &k, &info);
	CHECK(c == SL_PKT_IP, "sctp: class %d", c);
	check_v4_key(&k, 132, 7, 8, "sctp");
	eth(&f, 0x0800);
	ipv4(&f, 5, 136, 0, 8);
	l4(&f, 9, 10, 8);
	c = parse(&f, &k, &info);
	check_v4_key(&k, 136, 9, 10, "udp-lite");

	/* Options: IHL 7. */
	eth(&f, 0x0800);
	ipv4(&f, 7, 17, 0, 8);
	l4(&f, 5, 6, 8);
	c = parse(&f, &k, &info);
	CHECK(c == SL_PKT_IP, "options: class %d", c);
	check_v4_key(&k, 17, 5, 6, "options");
	CHECK(info.l4_off == 14 + 28 && info.l3_len == 36, "options: l4 %u len %u",
	      info.l4_off, info.l3_len);

	/* Ethernet padding after a short datagram. */
	eth(&f, 0x0800);
	ipv4(&f, 5, 17, 0, 8);
	l4(&f, 11, 12, 8);
	pad_to(&f, 60);
	c = parse(&f, &k, &info);
	CHECK(c == SL_PKT_IP, "padded: class %d", c);
	check_v4_key(&k, 17, 11, 12, "padded");
	CHECK(info.l3_len == 28, "padded: l3_len %u", info.l3_len);

	/* Ports in the padding, not in the datagram. */
	eth(&f, 0x0800);
	ipv4(&f, 5, 17, 0, 2);
	put16(&f, 99);
	pad_to(&f, 60);
	expect_bad(&f, SL_PKT_R_SHORT_L4, "ports past the total length");
	/* ... and past the frame. */
	eth(&f, 0x0800);
	ipv4(&f, 5, 6, 0, 3);
	put16(&f, 1);
	put8(&f, 2);
	expect_bad(&f, SL_PKT_R_SHORT_L4, "3 bytes of tcp");
	/* A protocol without ports needs none. */
	eth(&f, 0x0800);
	ipv4(&f, 5, 47, 0, 0);
	c = parse(&f, &k, &info);
	CHECK(c == SL_PKT_IP && k.proto == 47 && info.l4_off == 34 && info.l3_len == 20,
	      "gre, empty: class %d", c);
}

static void test_ipv4_bad(void)
{
	struct frame f;

	eth(&f, 0x0800);
	ipv4(&f, 5, 17, 0, 8);
	l4(&f, 1, 2, 8);
	f.b[14] = 0x44;          /* IHL 4 */
	expect_bad(&f, SL_PKT_R_BAD_IHL, "ihl 4");
	f.b[14] = 0x40;
	expect_bad(&f, SL_PKT_R_BAD_IHL, "ihl 0");
	f.b[14] = 0x4f;          /* 60 bytes of header, 28 there */
	expect_bad(&f, SL_PKT_R_SHORT_L3, "ihl 15 in 28 bytes");
	f.b[14] = 0x65;
	expect_bad(&f, SL_PKT_R_BAD_VERSION, "version 6 under 0x0800");
	f.b[14] = 0x45;
	set16(&f, 16, 29);       /* one byte more than the frame */
	expect_bad(&f, SL_PKT_R_BAD_LEN, "total length 29 of 28");
	set16(&f, 16, 0xffff);
	expect_bad(&f, SL_PKT_R_BAD_LEN, "total length 65535");
	set16(&f, 16, 19);       /* less than the header */
	expect_bad(&f, SL_PKT_R_BAD_LEN, "total length 19");
	set16(&f, 16, 0);
	expect_bad(&f, SL_PKT_R_BAD_LEN, "total length 0");
	f.b[14] = 0x46;          /* IHL 6, total 20 */
	set16(&f, 16, 20);
	expect_bad(&f, SL_PKT_R_BAD_LEN, "total length 20 < IHL 24");

	/* Cut a UDP frame at every length: no Ethernet header below 14, no
	 * IPv4 header below 34, then the total length says more than there is. */
	eth(&f, 0x0800);
	ipv4(&f, 5, 17, 0, 8);
	l4(&f, 1, 2, 8);
	cut_everywhere(&f, 34, "ipv4");
}

/* f: an IPv6 UDP frame from sport to dport with len bytes of UDP, parsed. */
static enum sl_pkt_class parse_udp6(struct frame *f, uint16_t sport, uint16_t dport,
				    unsigned len, struct sl_flow_key *k, struct sl_pkt_info *info)
{
	eth(f, 0x86dd);
	ipv6(f, 17, len);
	l4(f, sport, dport, len);
	return parse(f, k, info);
}

static void test_ipv6(void)
{
	static const uint8_t src[16] = { 0x20, 0x21, 0x22, 0x23, 0x24, 0x25, 0x26, 0x27, 0x28,
					 0x29, 0x2a, 0x2b, 0x2c, 0x2d, 0x2e, 0x2f };
	struct frame f;
	struct sl_flow_key k;
	struct sl_pkt_info info;
	enum sl_pkt_class c = parse_udp6(&f, 5353, 5354, 16, &k, &info);

	CHECK(c == SL_PKT_IP, "ipv6 udp: class %d reason %s", c, sl_pkt_reason_name(info.reason));
	CHECK(k.family == 6 && k.proto == 17 && k.sport == 5353 && k.dport == 5354,
	      "ipv6 udp: key %u %u %u %u", k.family, k.proto, k.sport, k.dport);
	CHECK(memcmp(k.src, src, 16) == 0 && k.dst[0] == 0x40 && k.dst[15] == 0x4f,
	      "ipv6 udp: addresses");
	CHECK(info.ethertype == 0x86dd && info.l3_off == 14 && info.l4_off == 54 &&
	      info.l3_len == 56, "ipv6 udp: offsets %u %u len %u", info.l3_off, info.l4_off,
	      info.l3_len);
	CHECK(!info.fragment && info.first_fragment, "ipv6 udp: not a fragment");

	/* Hop-by-hop (8), routing (24), destination options (16), then TCP. */
	eth(&f, 0x86dd);
	ipv6(&f, 0, 8 + 24 + 16 + 20);
	ext(&f, 43, 0);
	ext(&f, 60, 2);
	ext(&f, 6, 1);
	l4(&f, 80, 8080, 20);
	c = parse(&f, &k, &info);
	CHECK(c == SL_PKT_IP, "ipv6 ext: class %d reason %s", c, sl_pkt_reason_name(info.reason));
	CHECK(k.proto == 6 && k.sport == 80 && k.dport == 8080, "ipv6 ext: proto %u ports %u %u",
	      k.proto, k.sport, k.dport);
	CHECK(info.l4_off == 54 + 48, "ipv6 ext: l4_off %u", info.l4_off);

	/* Four extension headers is the limit; five is too many. */
	eth(&f, 0x86dd);
	ipv6(&f, 0, 4 * 8 + 8);
	ext(&f, 60, 0);
	ext(&f, 60, 0);
	ext(&f, 60, 0);
	ext(&f, 17, 0);
	l4(&f, 1, 2, 8);
	c = parse(&f, &k, &info);
	CHECK(c == SL_PKT_IP && k.proto == 17 && k.sport == 1, "four ext headers: class %d", c);
	eth(&f, 0x86dd);
	ipv6(&f, 0, 5 * 8 + 8);
	ext(&f, 60, 0);
	ext(&f, 60, 0);
	ext(&f, 60, 0);
	ext(&f, 60, 0);
	ext(&f, 17, 0);
	l4(&f, 1, 2, 8);
	expect_bad(&f, SL_PKT_R_BAD_EXT, "five ext headers");

	/* An extension header longer than the payload. */
	eth(&f, 0x86dd);
	ipv6(&f, 0, 16);
	ext(&f, 17, 2);          /* 24 bytes */
	expect_bad(&f, SL_PKT_R_BAD_EXT, "ext past the payload");
	/* Fewer than 8 bytes left for the next one. */
	eth(&f, 0x86dd);
	ipv6(&f, 60, 4);
	put32(&f, 0x11000000);
	expect_bad(&f, SL_PKT_R_BAD_EXT, "ext of 4 bytes");
	/* No next header: nothing to key but addresses. */
	eth(&f, 0x86dd);
	ipv6(&f, 59, 0);
	c = parse(&f, &k, &info);
	CHECK(c == SL_PKT_IP && k.proto == 59 && k.sport == 0, "no next header: class %d", c);

	eth(&f, 0x86dd);
	ipv6(&f, 17, 8);
	l4(&f, 1, 2, 8);
	f.b[14] = 0x45;
	expect_bad(&f, SL_PKT_R_BAD_VERSION, "version 4 under 0x86dd");
	f.b[14] = 0x60;
	set16(&f, 18, 9);
	expect_bad(&f, SL_PKT_R_BAD_LEN, "payload length 9 of 8");
	set16(&f, 18, 2);
	expect_bad(&f, SL_PKT_R_SHORT_L4, "payload length 2 for udp");
	set16(&f, 18, 8);
	pad_to(&f, 80);
	c = parse(&f, &k, &info);
	CHECK(c == SL_PKT_IP && info.l3_len == 48, "ipv6 padded: class %d len %u", c,
	      info.l3_len);

	/* Cut at every length. */
	eth(&f, 0x86dd);
	ipv6(&f, 17, 8);
	l4(&f, 1, 2, 8);
	cut_everywhere(&f, 54, "ipv6");
}

static void test_fragments(void)
{
	struct frame f;
	struct sl_flow_key k;
	struct sl_pkt_info info;
	enum sl_pkt_class c;

	eth(&f, 0x0800);
	ipv4(&f, 5, 17, 0x2000, 16);      /* MF, offset 0 */
	l4(&f, 100, 200, 16);
	c = parse(&f, &k, &info);
	CHECK(c == SL_PKT_IP, "first fragment: class %d", c);
	check_v4_key(&k, 17, 100, 200, "first fragment");
	CHECK(info.fragment && info.first_fragment, "first fragment: flags %d %d",
	      info.fragment, info.first_fragment);

	eth(&f, 0x0800);
	ipv4(&f, 5, 17, 0x2000 | 2, 16);  /* MF, offset 16 bytes */
	l4(&f, 100, 200, 16);
	c = parse(&f, &k, &info);
	CHECK(c == SL_PKT_IP, "middle fragment: class %d", c);
	check_v4_key(&k, 17, 0, 0, "middle fragment");
	CHECK(info.fragment && !info.first_fragment, "middle fragment: flags");

	eth(&f, 0x0800);
	ipv4(&f, 5, 6, 185, 2);           /* last: no MF, offset 1480; 2 bytes */
	put16(&f, 0xffff);
	c = parse(&f, &k, &info);
	CHECK(c == SL_PKT_IP, "last fragment of 2 bytes: class %d reason %s", c,
	      sl_pkt_reason_name(info.reason));
	check_v4_key(&k, 6, 0, 0, "last fragment");
	CHECK(info.fragment && !info.first_fragment, "last fragment: flags");

	/* A first fragment still needs its ports. */
	eth(&f, 0x0800);
	ipv4(&f, 5, 17, 0x2000, 2);
	put16(&f, 1);
	expect_bad(&f, SL_PKT_R_SHORT_L4, "first fragment of 2 bytes");

	/* IPv6: fragment header, offset 0, then UDP. */
	eth(&f, 0x86dd);
	ipv6(&f, 44, 8 + 12);
	frag6(&f, 17, 0, true);
	l4(&f, 300, 400, 12);
	c = parse(&f, &k, &info);
	CHECK(c == SL_PKT_IP, "ipv6 first fragment: class %d reason %s", c,
	      sl_pkt_reason_name(info.reason));
	CHECK(k.proto == 17 && k.sport == 300 && k.dport == 400, "ipv6 first fragment: key");
	CHECK(info.fragment && info.first_fragment && info.l4_off == 62,
	      "ipv6 first fragment: flags %d %d l4 %u", info.fragment, info.first_fragment,
	      info.l4_off);

	/* A later fragment: no ports, and what follows is not parsed (here it
	 * would look like a routing header running past the end). */
	eth(&f, 0x86dd);
	ipv6(&f, 44, 8 + 4);
	frag6(&f, 43, 10, false);
	put32(&f, 0x11ff0000);
	c = parse(&f, &k, &info);
	CHECK(c == SL_PKT_IP, "ipv6 later fragment: class %d reason %s", c,
	      sl_pkt_reason_name(info.reason));
	CHECK(k.proto == 43 && k.sport == 0 && k.dport == 0, "ipv6 later fragment: key %u %u",
	      k.proto, k.sport);
	CHECK(info.fragment && !info.first_fragment, "ipv6 later fragment: flags");

	/* A fragment header cut short. */
	eth(&f, 0x86dd);
	ipv6(&f, 44, 4);
	put32(&f, 0x11000000);
	expect_bad(&f, SL_PKT_R_BAD_EXT, "ipv6 fragment header of 4 bytes");
}

static void test_vlan_and_l2(void)
{
	struct frame f;
	struct sl_flow_key k;
	struct sl_pkt_info info;
	enum sl_pkt_class c;

	eth(&f, 0x8100);
	vlan(&f, 100, 0x0800);
	ipv4(&f, 5, 17, 0, 8);
	l4(&f, 1, 2, 8);
	c = parse(&f, &k, &info);
	CHECK(c == SL_PKT_IP && info.vlans == 1 && info.l3_off == 18 && info.l4_off == 38,
	      "one tag: class %d vlans %u l3 %u", c, info.vlans, info.l3_off);
	check_v4_key(&k, 17, 1, 2, "one tag");
	CHECK(k.vlan == 100, "one tag: key vlan %u, want 100", k.vlan);

	/* the key's VLAN: the id without the tag's priority bits; a priority
	 * tag is no VLAN; untagged (both parsers) 0 */
	static const struct {
		int tci;                  /* -1: untagged */
		unsigned want;
		const char *what;
	} vt[] = {
		{ 0xe064, 100, "pcp 7 vid 100" }, { 0xa000, 0, "priority tag" }, { -1, 0, "untagged" },
	};
	for (unsigned i = 0; i < sizeof(vt) / sizeof(vt[0]); i++) {
		eth(&f, vt[i].tci < 0 ? 0x0800 : 0x8100);
		if (vt[i].tci >= 0)
			vlan(&f, (uint16_t)vt[i].tci, 0x0800);
		ipv4(&f, 5, 17, 0, 8);
		l4(&f, 1, 2, 8);
		c = parse(&f, &k, &info);
		CHECK(c == SL_PKT_IP && k.vlan == vt[i].want && info.vlans == (vt[i].tci >= 0 ? 1 : 0),
		      "%s: class %d key vlan %u (want %u), %u tags", vt[i].what, c, k.vlan, vt[i].want,
		      info.vlans);
	}

	eth(&f, 0x88a8);
	vlan(&f, 10, 0x8100);
	vlan(&f, 20, 0x86dd);
	ipv6(&f, 17, 8);
	l4(&f, 3, 4, 8);
	c = parse(&f, &k, &info);
	CHECK(c == SL_PKT_IP && info.vlans == 2 && info.l3_off == 22 &&
	      info.ethertype == 0x86dd && k.sport == 3, "two tags: class %d vlans %u l3 %u",
	      c, info.vlans, info.l3_off);
	CHECK(k.vlan == 10, "two tags: key vlan %u, want the outer 10", k.vlan);

	eth(&f, 0x9100);
	vlan(&f, 10, 0x0806);
	pad_to(&f, 60);
	c = parse(&f, &k, &info);
	CHECK(c == SL_PKT_NOT_IP && info.vlans == 1 && info.ethertype == 0x0806,
	      "0x9100 then arp: class %d vlans %u type %#x", c, info.vlans, info.ethertype);
	CHECK(key_is_zero(&k), "0x9100 then arp: the key is not zero (a VLAN in a non-IP key)");

	eth(&f, 0x8100);
	vlan(&f, 1, 0x88a8);
	vlan(&f, 2, 0x8100);
	vlan(&f, 3, 0x0800);
	ipv4(&f, 5, 17, 0, 8);
	l4(&f, 1, 2, 8);
	expect_bad(&f, SL_PKT_R_VLAN_DEPTH, "three tags");

	/* Cut inside the tags. */
	eth(&f, 0x8100);
	vlan(&f, 1, 0x8100);
	vlan(&f, 2, 0x0800);
	for (unsigned n = 14; n < f.len; n++) {
		struct frame g = f;
		char what[32];
		g.len = n;
		snprintf(what, sizeof(what), "tags cut at %u", n);
		expect_bad(&g, SL_PKT_R_SHORT_L2, what);
	}
	/* Two whole tags and nothing after: an IPv4 header is missing. */
	expect_bad(&f, SL_PKT_R_SHORT_L3, "two tags, no IPv4 header");

	/* ARP and an unknown type: well-formed, not IP. */
	eth(&f, 0x0806);
	put16(&f, 1);
	put16(&f, 0x0800);
	pad_to(&f, 60);
	c = parse(&f, &k, &info);
	CHECK(c == SL_PKT_NOT_IP && info.ethertype == 0x0806 && info.vlans == 0 &&
	      info.reason == SL_PKT_R_NONE && key_is_zero(&k), "arp: class %d type %#x", c,
	      info.ethertype);
	eth(&f, 0x88b5);
	c = parse(&f, &k, &info);
	CHECK(c == SL_PKT_NOT_IP && info.ethertype == 0x88b5 && key_is_zero(&k),
	      "unknown type, header only: class %d type %#x", c, info.ethertype);
}

/* The frame split over 2 and 3 segments at every offset parses as in one. */
static void same_in_chains(const struct frame *f, const char *what)
{
	struct sl_flow_key k1, k2;
	struct sl_pkt_info i1, i2;
	enum sl_pkt_class c1 = parse(f, &k1, &i1);
	unsigned bad = 0;

	for (unsigned a = 0; a <= f->len; a++) {
		for (unsigned b = a; b <= f->len; b += (b < a + 8 ? 1 : 7)) {
			unsigned cuts[2] = { a, b };
			struct rte_mbuf *m = mbuf_of(f->b, f->len, cuts, a == b ? 1 : 2);
			if (m == NULL) {
				CHECK(0, "%s: cannot build a chain", what);
				return;
			}
			memset(&k2, 0x5a, sizeof(k2));
			memset(&i2, 0x5a, sizeof(i2));
			enum sl_pkt_class c2 = sl_pkt_parse(m, &k2, &i2);
			rte_pktmbuf_free(m);
			if (c2 != c1 || !sl_flow_key_eq(&k1, &k2) ||
			    memcmp(&i1, &i2, sizeof(i1)) != 0) {
				if (bad++ == 0)
					CHECK(0, "%s: cut at %u and %u: class %d (want %d), "
					      "reason %s (want %s)", what, a, b, c2, c1,
					      sl_pkt_reason_name(i2.reason),
					      sl_pkt_reason_name(i1.reason));
			}
		}
	}
	CHECK(bad == 0, "%s: %u chains differ from one segment", what, bad);
}

static void test_chains(void)
{
	struct frame f;

	eth(&f, 0x8100);
	vlan(&f, 7, 0x0800);
	ipv4(&f, 6, 17, 0, 12);
	l4(&f, 4000, 4001, 12);
	same_in_chains(&f, "vlan ipv4 options udp");

	eth(&f, 0x86dd);
	ipv6(&f, 0, 8 + 8 + 12);
	ext(&f, 44, 0);
	frag6(&f, 17, 0, true);
	l4(&f, 10, 20, 12);
	same_in_chains(&f, "ipv6 hop-by-hop fragment udp");

	eth(&f, 0x0800);
	ipv4(&f, 5, 6, 0, 2);
	put16(&f, 1);
	same_in_chains(&f, "short tcp");
}

/* The chain test compares infos with memcmp: no padding bytes allowed. */
_Static_assert(sizeof(struct sl_pkt_info) == 16, "sl_pkt_info grew: check the chain test");

static void test_names(void)
{
	CHECK(strcmp(sl_pkt_reason_name(SL_PKT_R_NONE), "none") == 0, "none");
	CHECK(strcmp(sl_pkt_reason_name(SL_PKT_R_SHORT_L2), "short_l2") == 0, "short_l2");
	CHECK(strcmp(sl_pkt_reason_name(SL_PKT_R_VLAN_DEPTH), "vlan_depth") == 0, "vlan_depth");
	CHECK(strcmp(sl_pkt_reason_name(SL_PKT_R_SHORT_L3), "short_l3") == 0, "short_l3");
	CHECK(strcmp(sl_pkt_reason_name(SL_PKT_R_BAD_VERSION), "bad_version") == 0, "bad_version");
	CHECK(strcmp(sl_pkt_reason_name(SL_PKT_R_BAD_IHL), "bad_ihl") == 0, "bad_ihl");
	CHECK(strcmp(sl_pkt_reason_name(SL_PKT_R_BAD_LEN), "bad_len") == 0, "bad_len");
	CHECK(strcmp(sl_pkt_reason_name(SL_PKT_R_BAD_EXT), "bad_ext") == 0, "bad_ext");
	CHECK(strcmp(sl_pkt_reason_name(SL_PKT_R_SHORT_L4), "short_l4") == 0, "short_l4");
	CHECK(strcmp(sl_pkt_reason_name(SL_PKT_R_COUNT), "?") == 0, "out of range");
	CHECK(strcmp(sl_pkt_reason_name(1000), "?") == 0, "far out of range");
}

/* sl_pkt_fill_l4_csum: a UDP and a TCP datagram over IPv4 and a UDP one
 * over IPv6, their checksum fields garbled, come out verifying; a fragment,
 * an ICMP datagram, IPv6 with an extension header and a chained frame are
 * left alone. */
static void test_fill_l4(void)
{
	static const struct { bool v6; uint8_t proto; unsigned len; bool ext, frag, chain, fills; }
	cases[] = {
		{ false, IPPROTO_UDP, 8 + 37, false, false, false, true },
		{ false, IPPROTO_TCP, 20 + 100, false, false, false, true },
		{ true, IPPROTO_UDP, 8 + 64, false, false, false, true },
		{ false, IPPROTO_UDP, 8 + 37, false, true, false, false },
		{ false, IPPROTO_ICMP, 8 + 8, false, false, false, false },
		{ true, IPPROTO_UDP, 8 + 16, true, false, false, false },
		{ false, IPPROTO_TCP, 20 + 100, false, false, true, false },
	};
	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct frame f = { .len = 0 };
		unsigned l3;
		eth(&f, cases[i].v6 ? RTE_ETHER_TYPE_IPV6 : RTE_ETHER_TYPE_IPV4);
		if (cases[i].v6) {
			l3 = ipv6(&f, cases[i].ext ? 0 : cases[i].proto,
				  cases[i].len + (cases[i].ext ? 8 : 0));
			if (cases[i].ext)
				ext(&f, cases[i].proto, 0);
		} else {
			l3 = ipv4(&f, 5, cases[i].proto, cases[i].frag ? 0x2000 : 0, cases[i].len);
			struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(f.b + l3);
			ip->hdr_checksum = rte_ipv4_cksum(ip);
		}
		unsigned l4_off = f.len;
		l4(&f, 40000, 53, cases[i].len);
		if (cases[i].proto == IPPROTO_UDP)   /* its length field */
			set16(&f, l4_off + 4, (uint16_t)cases[i].len);
		unsigned field = l4_off + (cases[i].proto == IPPROTO_TCP ? 16 : 6);
		set16(&f, field, 0xbeef);   /* garbled, as a veth leaves it partial */
		unsigned cut[] = { l4_off + 10 };
		struct rte_mbuf *m = mbuf_of(f.b, f.len, cut, cases[i].chain ? 1 : 0);
		CHECK(m != NULL, "case %u: no mbuf", i);
		if (m == NULL)
			return;
		bool filled = sl_pkt_fill_l4_csum(m);
		CHECK(filled == cases[i].fills, "case %u: filled %d, expected %d", i, filled,
		      cases[i].fills);
		const uint8_t *d = rte_pktmbuf_mtod(m, const uint8_t *);
		if (cases[i].fills) {
			/* the pseudo-header and the datagram, checksum included,
			 * sum to all ones (RFC 768, RFC 793) */
			uint32_t sum = cases[i].v6
				? rte_ipv6_phdr_cksum((const struct rte_ipv6_hdr *)(d + l3), 0)
				: rte_ipv4_phdr_cksum((const struct rte_ipv4_hdr *)(d + l3), 0);
			sum += rte_raw_cksum(d + l4_off, cases[i].len);
			sum = (sum & 0xffff) + (sum >> 16);
			sum = (sum & 0xffff) + (sum >> 16);
			CHECK(sum == 0xffff, "case %u: the filled checksum does not verify (%#x)", i,
			      sum);
		} else {
			uint8_t tmp[2];
			const uint8_t *c = rte_pktmbuf_read(m, field, 2, tmp);
			CHECK(c != NULL && c[0] == 0xbe && c[1] == 0xef,
			      "case %u: a frame left alone was changed", i);
		}
		rte_pktmbuf_free(m);
	}
}

/* The flow hash (apps/pkt/flowkey.h): a simple IPv4 frame hashes from its
 * header's address and port bytes (the flow cache's light path) as its key
 * does (every other path); the word it hashes ports, protocol and VLAN in
 * maps back to the key's word 0; a key differing in one field hashes
 * differently; an IPv6 key hashes as its five words. */
static void test_hash(void)
{
	static const struct { uint8_t proto; uint16_t sport, dport; uint32_t src; } v[] = {
		{ 17, 1234, 53, 0x0a000001 }, { 6, 40000, 443, 0x0a000001 },
		{ 17, 53, 1234, 0x0a000001 }, { 132, 1234, 53, 0x0a000001 },
		{ 17, 1234, 53, 0x0a000002 }, { 136, 0x0102, 0xfffe, 0xc6120001 },
	};
	uint32_t seen[sizeof(v) / sizeof(v[0])];
	for (unsigned i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		struct frame f;
		struct sl_flow_key k;
		struct sl_pkt_info info;
		eth(&f, 0x0800);
		unsigned l3 = ipv4(&f, 5, v[i].proto, 0, 8);
		f.b[l3 + 12] = (uint8_t)(v[i].src >> 24);
		f.b[l3 + 13] = (uint8_t)(v[i].src >> 16);
		f.b[l3 + 14] = (uint8_t)(v[i].src >> 8);
		f.b[l3 + 15] = (uint8_t)v[i].src;
		l4(&f, v[i].sport, v[i].dport, 8);
		CHECK(parse(&f, &k, &info) == SL_PKT_IP, "hash %u: not IP", i);
		uint64_t addrs, rest, w0 = sl_flow_key_word(&k, 0);
		sl_pkt_ipv4_simple_raw(f.b + l3, &addrs, &rest);
		CHECK(sl_flow_key_v4_rest(w0) == rest && sl_flow_key_v4_w0(rest) == w0,
		      "hash %u: words %#llx / %#llx against %#llx", i,
		      (unsigned long long)sl_flow_key_v4_rest(w0),
		      (unsigned long long)sl_flow_key_v4_w0(rest), (unsigned long long)rest);
		seen[i] = sl_flow_key_hash(&k);
		CHECK(seen[i] == sl_flow_key_hash_v4(addrs, rest),
		      "hash %u: the key hashes %#x, its header %#x", i, seen[i],
		      sl_flow_key_hash_v4(addrs, rest));
		for (unsigned j = 0; j < i; j++)
			CHECK(seen[j] != seen[i], "hash %u: same as flow %u's (%#x)", i, j, seen[i]);
		/* a VLAN id goes into the word and the hash */
		struct sl_flow_key t = k;
		t.vlan = 100;
		uint64_t tw0 = sl_flow_key_word(&t, 0);
		CHECK(sl_flow_key_v4_w0(sl_flow_key_v4_rest(tw0)) == tw0 &&
		      sl_flow_key_hash(&t) != seen[i], "hash %u: VLAN 100 lost", i);
	}

	/* The same 5-tuple in frames the full parse takes (IP options, a
	 * priority tag) hashes as the simple frame's header does; a VLAN id
	 * makes it another flow. */
	struct frame f;
	struct sl_flow_key k;
	struct sl_pkt_info info;
	eth(&f, 0x0800);
	unsigned l3 = ipv4(&f, 5, 17, 0, 8);
	l4(&f, 1234, 53, 8);
	uint64_t addrs, rest;
	sl_pkt_ipv4_simple_raw(f.b + l3, &addrs, &rest);
	const uint32_t simple = sl_flow_key_hash_v4(addrs, rest);
	static const struct { int tci; unsigned ihl; bool same; const char *what; } other[] = {
		{ -1, 6, true, "options" }, { 0xa000, 5, true, "priority tag" },
		{ 0x0064, 5, false, "vid 100" }, { 0x2064, 6, false, "vid 100, options" },
	};
	for (unsigned i = 0; i < sizeof(other) / sizeof(other[0]); i++) {
		eth(&f, other[i].tci >= 0 ? 0x8100 : 0x0800);
		if (other[i].tci >= 0)
			vlan(&f, (uint16_t)other[i].tci, 0x0800);
		ipv4(&f, other[i].ihl, 17, 0, 8);
		l4(&f, 1234, 53, 8);
		CHECK(parse(&f, &k, &info) == SL_PKT_IP, "%s: not IP", other[i].what);
		CHECK((sl_flow_key_hash(&k) == simple) == other[i].same,
		      "%s: hashes %#x, the simple frame %#x", other[i].what, sl_flow_key_hash(&k),
		      simple);
	}

	CHECK(parse_udp6(&f, 1234, 53, 8, &k, &info) == SL_PKT_IP && k.family == 6,
	      "ipv6: not parsed");
	CHECK(sl_flow_key_hash(&k) == sl_flow_key_hash5(sl_flow_key_word(&k, 0),
							sl_flow_key_word(&k, 1),
							sl_flow_key_word(&k, 2),
							sl_flow_key_word(&k, 3),
							sl_flow_key_word(&k, 4)),
	      "ipv6: not hashed as five words");
}

/* sl_pkt_ipv4_run_at(m, f, r), r kept of frame p once (sl_pkt_ipv4_run_of)
 * as a run keeps its first frame's, is exactly "sl_pkt_ipv4_simple accepts
 * m, with p's two raw words": every byte of the first 64 flipped in a few ways
 * (the ones the check or the words read, and the ones neither does: the
 * TTL, the checksum, the IP id, DF), for TCP and UDP, the build's byte
 * compare held to the scalar one as well; frames cut short of
 * their headers in the first segment, a total length past the frame, the
 * frame in two segments. */
static bool same_want(const struct rte_mbuf *m, const uint8_t *p)
{
	const uint8_t *h = sl_pkt_ipv4_simple(m);
	if (h == NULL)
		return false;
	uint64_t a1, r1, a2, r2;
	sl_pkt_ipv4_simple_raw(h, &a1, &r1);
	sl_pkt_ipv4_simple_raw(p + RTE_ETHER_HDR_LEN, &a2, &r2);
	return a1 == a2 && r1 == r2;
}

static void test_same_flow(void)
{
	static const uint8_t flips[] = { 0x01, 0x20, 0x40, 0x80, 0xff };
	unsigned n_same = 0, n_other = 0;
	for (unsigned proto = 0; proto < 2; proto++) {
		struct frame f;
		eth(&f, 0x0800);
		ipv4(&f, 5, proto ? 6 : 17, 0x4000, 8);   /* DF */
		l4(&f, 1234, 53, 8);
		pad_to(&f, 64);
		struct rte_mbuf *pm = mbuf_of(f.b, f.len, NULL, 0);
		CHECK(pm != NULL && sl_pkt_ipv4_simple(pm) != NULL, "same: the base frame");
		const uint8_t *p = rte_pktmbuf_mtod(pm, const uint8_t *);
		struct sl_pkt_ipv4_run r;
		sl_pkt_ipv4_run_of(&r, p);
		for (unsigned off = 0; off < 64; off++)
			for (unsigned k = 0; k < sizeof(flips); k++) {
				struct frame g = f;
				g.b[off] ^= flips[k];
				struct rte_mbuf *m = mbuf_of(g.b, g.len, NULL, 0);
				CHECK(m != NULL, "same: no mbuf");
				bool want = same_want(m, p);
				bool got = sl_pkt_ipv4_run_at(m, rte_pktmbuf_mtod(m, const uint8_t *), &r);
				CHECK(got == want, "same: byte %u ^ %#x: %d, the check and words say %d",
				      off, flips[k], got, want);
				/* the build's compare (SSE2 here) and the scalar one
				 * other builds use agree on every flip */
				const uint8_t *gb = rte_pktmbuf_mtod(m, const uint8_t *);
				CHECK(sl_pkt_ipv4_run_bytes(&r, gb) ==
				      sl_pkt_ipv4_same_bytes_scalar(gb, p),
				      "same: byte %u ^ %#x: the two compares differ", off, flips[k]);
				want ? n_same++ : n_other++;
				rte_pktmbuf_free(m);
			}
		/* lengths: the frame cut inside its ports or just after them in
		 * one segment, its total length past the frame, two segments */
		for (unsigned len = 30; len <= 43; len++) {
			struct rte_mbuf *m = mbuf_of(f.b, len, NULL, 0);
			CHECK(m != NULL, "same: no mbuf");
			CHECK(sl_pkt_ipv4_run_at(m, rte_pktmbuf_mtod(m, const uint8_t *), &r) ==
			      same_want(m, p), "same: %u bytes", len);
			rte_pktmbuf_free(m);
		}
		/* total lengths at the edges: 23 and 24 (the ports' end), and
		 * the frame's IP bytes and one more */
		const unsigned totals[] = { 23, 24, f.len - 14, f.len - 13 };
		for (unsigned t = 0; t < sizeof(totals) / sizeof(totals[0]); t++) {
			struct frame g = f;
			set16(&g, 16, (uint16_t)totals[t]);
			struct rte_mbuf *m = mbuf_of(g.b, g.len, NULL, 0);
			CHECK(m != NULL, "same: no mbuf");
			bool want = same_want(m, p);
			CHECK(want == (totals[t] >= 24 && totals[t] <= f.len - 14),
			      "same: total %u: the check says %d", totals[t], want);
			CHECK(sl_pkt_ipv4_run_at(m, rte_pktmbuf_mtod(m, const uint8_t *), &r) == want,
			      "same: total %u", totals[t]);
			rte_pktmbuf_free(m);
		}
		static const unsigned cuts[][1] = { { 20 }, { 37 }, { 38 }, { 42 } };
		for (unsigned c = 0; c < sizeof(cuts) / sizeof(cuts[0]); c++) {
			struct rte_mbuf *m = mbuf_of(f.b, f.len, cuts[c], 1);
			CHECK(m != NULL, "same: no mbuf");
			bool want = same_want(m, p);
			CHECK(sl_pkt_ipv4_run_at(m, rte_pktmbuf_mtod(m, const uint8_t *), &r) == want,
			      "same: cut at %u (want %d)", cuts[c][0], want);
			rte_pktmbuf_free(m);
		}
		rte_pktmbuf_free(pm);
	}
	/* both kinds were met: the bytes the flow does not depend on kept it
	 * the same, the others made another flow or no simple frame */
	CHECK(n_same > 300 && n_other > 150, "same: %u same, %u other", n_same, n_other);
}

static int setup(void)
{
	return sl_test_eal_pool("tpkt", 512, N_MBUFS, &pool);
}

static void teardown(void)
{
	sl_test_eal_end(pool, N_MBUFS);
}

static const struct sl_test_case cases[] = {
	SL_CASE(test_ipv4),
	SL_CASE(test_ipv4_bad),
	SL_CASE(test_ipv6),
	SL_CASE(test_fragments),
	SL_CASE(test_vlan_and_l2),
	SL_CASE(test_chains),
	SL_CASE(test_names),
	SL_CASE(test_fill_l4),
	SL_CASE(test_hash),
	SL_CASE(test_same_flow),
};

int main(int argc, char **argv)
{
	return sl_test_main_fixture(argc, argv, cases, SL_NCASES(cases), setup, teardown);
}
