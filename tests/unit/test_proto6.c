/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The router's IPv6 messages (apps/router/proto6.h) and IPv6 route table
 * (apps/router/route6.h) on a real EAL: link-local and solicited-node
 * addresses against RFC 4291's examples, solicitations and advertisements
 * built and parsed back, each bad kind of ND message named, the echo reply
 * and an error's quote and checksum, which errors may be sent, and longest
 * prefix match over IPv6 routes with their parse errors.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "apps/router/proto6.h"
#include "apps/router/route.h"   /* enum sl_route_kind */
#include "apps/router/route6.h"

#include "eal_fixture.h"

#define N_MBUFS 63u

static struct rte_mempool *pool;
static const uint8_t mac[6] = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 };
static const uint8_t peer_mac[6] = { 0x02, 0, 0, 0, 0, 2 };

static void a6(const char *text, uint8_t out[16])
{
	CHECK(inet_pton(AF_INET6, text, out) == 1, "address %s", text);
}

static uint8_t *l3_of(struct rte_mbuf *m)
{
	return rte_pktmbuf_mtod_offset(m, uint8_t *, RTE_ETHER_HDR_LEN);
}

static void test_addresses(void)
{
	uint8_t ll[16], want[16], group[16], gmac[6], a[16];
	sl_ip6_link_local(mac, ll);
	a6("fe80::5054:ff:fe12:3456", want);
	CHECK(memcmp(ll, want, 16) == 0, "link-local of 52:54:00:12:34:56");
	a6("2001:db8::1:2:3", a);
	sl_ip6_solicited(a, group, gmac);
	a6("ff02::1:ff02:3", want);
	CHECK(memcmp(group, want, 16) == 0, "solicited-node group of 2001:db8::1:2:3");
	const uint8_t want_mac[6] = { 0x33, 0x33, 0xff, 0x02, 0x00, 0x03 };
	CHECK(memcmp(gmac, want_mac, 6) == 0, "its MAC %02x:%02x:%02x:%02x:%02x:%02x", gmac[0],
	      gmac[1], gmac[2], gmac[3], gmac[4], gmac[5]);
	CHECK(sl_ip6_is_link_local(ll) && !sl_ip6_is_link_local(a), "link-local test");
	CHECK(sl_ip6_is_multicast(group) && !sl_ip6_is_multicast(a), "multicast test");
}

static void test_nd_roundtrip(void)
{
	uint8_t src[16], target[16], group[16], gmac[6];
	a6("2001:db8:1::1", src);
	a6("2001:db8:1::2", target);
	sl_ip6_solicited(target, group, gmac);
	struct rte_mbuf *m = sl_nd_ns_frame(pool, mac, src, gmac, group, target);
	CHECK(m != NULL, "NS frame");
	uint8_t *ip = l3_of(m);
	struct sl_nd nd;
	CHECK(sl_nd_parse(ip, ip + SL_IP6_HDR, 32, &nd) == SL_ND_OK, "NS parses back");
	CHECK(nd.type == SL_ND_NS && memcmp(nd.target, target, 16) == 0 && nd.has_lladdr &&
	      memcmp(nd.lladdr, mac, 6) == 0, "NS: type, target and source link-layer address");
	CHECK(ip[7] == 255 && memcmp(ip + 24, group, 16) == 0, "NS: hop limit 255, to the group");

	/* each fault named */
	ip[SL_IP6_HDR + 30] ^= 1;
	CHECK(sl_nd_parse(ip, ip + SL_IP6_HDR, 32, &nd) == SL_ND_BAD_CSUM, "a flipped bit: BAD_CSUM");
	ip[SL_IP6_HDR + 30] ^= 1;
	ip[7] = 64;
	CHECK(sl_nd_parse(ip, ip + SL_IP6_HDR, 32, &nd) == SL_ND_BAD_HOPS, "hop limit 64: BAD_HOPS");
	ip[7] = 255;
	CHECK(sl_nd_parse(ip, ip + SL_IP6_HDR, 23, &nd) == SL_ND_SHORT, "23 bytes: SHORT");
	CHECK(sl_nd_parse(ip, ip + SL_IP6_HDR, 30, &nd) == SL_ND_SHORT, "an option cut: SHORT");
	ip[SL_IP6_HDR + 25] = 0;
	CHECK(sl_nd_parse(ip, ip + SL_IP6_HDR, 32, &nd) == SL_ND_BAD_OPTION, "option length 0");
	ip[SL_IP6_HDR + 25] = 1;
	ip[SL_IP6_HDR + 1] = 1;
	CHECK(sl_nd_parse(ip, ip + SL_IP6_HDR, 32, &nd) == SL_ND_BAD_CODE, "code 1: BAD_CODE");
	ip[SL_IP6_HDR + 1] = 0;
	ip[SL_IP6_HDR] = SL_ICMP6_ECHO;
	CHECK(sl_nd_parse(ip, ip + SL_IP6_HDR, 32, &nd) == SL_ND_NOT_ND, "an echo: NOT_ND");
	ip[SL_IP6_HDR] = SL_ND_NS;
	ip[SL_IP6_HDR + 8] = 0xff;
	CHECK(sl_nd_parse(ip, ip + SL_IP6_HDR, 32, &nd) == SL_ND_BAD_TARGET, "multicast target");
	rte_pktmbuf_free(m);

	m = sl_nd_na_frame(pool, mac, peer_mac, target, src,
			   SL_NA_ROUTER | SL_NA_SOLICITED | SL_NA_OVERRIDE);
	CHECK(m != NULL, "NA frame");
	ip = l3_of(m);
	CHECK(sl_nd_parse(ip, ip + SL_IP6_HDR, 32, &nd) == SL_ND_OK, "NA parses back");
	CHECK(nd.type == SL_ND_NA && nd.flags == 0xe0 && memcmp(nd.target, src, 16) == 0 &&
	      nd.has_lladdr && memcmp(nd.lladdr, mac, 6) == 0, "NA: flags R S O, target, lladdr");
	CHECK(memcmp(rte_pktmbuf_mtod(m, uint8_t *), peer_mac, 6) == 0 &&
	      memcmp(ip + 8, src, 16) == 0 && memcmp(ip + 24, target, 16) == 0,
	      "NA: from the target, to the asker");
	rte_pktmbuf_free(m);
}

/* A frame: Ethernet from peer_mac to mac, IPv6 from src to dst with hop
 * limit hops, next header nh, then len bytes of payload (an echo request
 * with a good checksum when nh is ICMPv6). */
static struct rte_mbuf *packet(const char *src, const char *dst, uint8_t hops, uint8_t nh,
			       uint16_t len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	CHECK(m != NULL, "alloc");
	uint8_t *f = (uint8_t *)rte_pktmbuf_append(m, RTE_ETHER_HDR_LEN + SL_IP6_HDR + len);
	CHECK(f != NULL, "append %u bytes", len);
	if (f == NULL)
		return m;
	memset(f, 0, RTE_ETHER_HDR_LEN + SL_IP6_HDR + len);
	memcpy(f, mac, 6);
	memcpy(f + 6, peer_mac, 6);
	f[12] = 0x86;
	f[13] = 0xdd;
	uint8_t *ip = f + RTE_ETHER_HDR_LEN;
	ip[0] = 0x60;
	ip[4] = (uint8_t)(len >> 8);
	ip[5] = (uint8_t)len;
	ip[6] = nh;
	ip[7] = hops;
	a6(src, ip + 8);
	a6(dst, ip + 24);
	for (unsigned i = 8; i < len; i++)
		ip[SL_IP6_HDR + i] = (uint8_t)i;
	if (nh == SL_ICMP6_PROTO) {
		ip[SL_IP6_HDR] = SL_ICMP6_ECHO;
		uint16_t ck = rte_ipv6_udptcp_cksum((struct rte_ipv6_hdr *)ip, ip + SL_IP6_HDR);
		memcpy(ip + SL_IP6_HDR + 2, &ck, 2);
	}
	return m;
}

static void test_echo_and_errors(void)
{
	uint8_t type;
	struct rte_mbuf *m = packet("2001:db8:1::2", "2001:db8:1::1", 64, SL_ICMP6_PROTO, 64);
	uint8_t *ip = l3_of(m);
	CHECK(sl_icmp6_check(ip, ip + SL_IP6_HDR, 64, &type) && type == SL_ICMP6_ECHO,
	      "the request checks");
	sl_icmp6_echo_to_reply(m, RTE_ETHER_HDR_LEN, mac);
	CHECK(sl_icmp6_check(ip, ip + SL_IP6_HDR, 64, &type) && type == SL_ICMP6_ECHO_REPLY,
	      "the reply checks, type 129");
	uint8_t want[16];
	a6("2001:db8:1::1", want);
	CHECK(memcmp(ip + 8, want, 16) == 0 && ip[7] == 64, "the reply from the router, hops 64");
	CHECK(memcmp(rte_pktmbuf_mtod(m, uint8_t *), peer_mac, 6) == 0, "to the asker's MAC");
	rte_pktmbuf_free(m);

	uint8_t src[16];
	a6("2001:db8:1::1", src);
	m = packet("2001:db8:1::2", "2001:db8:2::2", 1, 17, 1400);
	CHECK(sl_icmp6_may_answer(m, RTE_ETHER_HDR_LEN), "a UDP packet may get an error");
	struct rte_mbuf *e = sl_icmp6_error(pool, m, RTE_ETHER_HDR_LEN, SL_ICMP6_TOO_BIG, 0, 1280,
					    src, mac);
	CHECK(e != NULL, "the error");
	ip = l3_of(e);
	uint32_t plen = (uint32_t)ip[4] << 8 | ip[5];
	CHECK(SL_IP6_HDR + plen == 1280, "the error fills 1280 bytes, not more: %u",
	      SL_IP6_HDR + plen);
	CHECK(sl_icmp6_check(ip, ip + SL_IP6_HDR, plen, &type) && type == SL_ICMP6_TOO_BIG,
	      "its checksum and type");
	CHECK(ip[SL_IP6_HDR + 6] == 0x05 && ip[SL_IP6_HDR + 7] == 0x00, "MTU 1280 in the message");
	CHECK(memcmp(ip + SL_IP6_HDR + 8, l3_of(m), 40) == 0, "it quotes the packet's header");
	CHECK(memcmp(ip + 8, src, 16) == 0 && memcmp(ip + 24, l3_of(m) + 8, 16) == 0,
	      "from the router to the packet's source");
	rte_pktmbuf_free(e);
	rte_pktmbuf_free(m);

	m = packet("2001:db8:1::2", "2001:db8:2::2", 1, 44, 16);   /* a fragment header */
	l3_of(m)[SL_IP6_HDR + 2] = 0x05;                           /* offset 1280: not the first */
	CHECK(!sl_icmp6_may_answer(m, RTE_ETHER_HDR_LEN), "not about a non-first fragment");
	l3_of(m)[SL_IP6_HDR + 2] = 0;
	l3_of(m)[SL_IP6_HDR + 3] = 1;                              /* offset 0, more fragments */
	CHECK(sl_icmp6_may_answer(m, RTE_ETHER_HDR_LEN), "about a first fragment");
	rte_pktmbuf_free(m);
	m = packet("2001:db8:1::2", "ff02::1", 1, 17, 16);
	CHECK(!sl_icmp6_may_answer(m, RTE_ETHER_HDR_LEN), "not about a multicast packet");
	rte_pktmbuf_free(m);
	m = packet("::", "2001:db8:2::2", 1, 17, 16);
	CHECK(!sl_icmp6_may_answer(m, RTE_ETHER_HDR_LEN), "not to the unspecified address");
	rte_pktmbuf_free(m);
	m = packet("2001:db8:1::2", "2001:db8:2::2", 1, SL_ICMP6_PROTO, 16);
	l3_of(m)[SL_IP6_HDR] = SL_ICMP6_UNREACH;
	CHECK(!sl_icmp6_may_answer(m, RTE_ETHER_HDR_LEN), "not about an ICMPv6 error");
	rte_pktmbuf_free(m);
}

static void test_route6(void)
{
	struct sl_err err;
	uint8_t a[16], depth;
	CHECK(sl_route6_parse_prefix("2001:db8::/32", a, &depth, &err) == 0 && depth == 32,
	      "2001:db8::/32");
	CHECK(sl_route6_parse_prefix("2001:db8::1/64", a, &depth, &err) == -EINVAL &&
	      strcmp(err.msg, "prefix '2001:db8::1/64' has host bits set") == 0, "%s", err.msg);
	CHECK(sl_route6_parse_prefix("2001:db8::/129", a, &depth, &err) == -EINVAL &&
	      strcmp(err.msg, "prefix '2001:db8::/129' is not X:X::X/N with N in 0..128") == 0,
	      "%s", err.msg);
	struct sl_route6 r[3] = { 0 };
	sl_route6_parse_prefix("::/0", r[0].prefix, &r[0].depth, NULL);
	r[0].nh.output = 0;
	sl_route6_parse_prefix("2001:db8::/32", r[1].prefix, &r[1].depth, NULL);
	r[1].nh.output = 1;
	sl_route6_parse_prefix("2001:db8:5::/48", r[2].prefix, &r[2].depth, NULL);
	r[2].nh.output = 2;
	struct sl_route6_table *t = sl_route6_create("t6", r, 3, SOCKET_ID_ANY, &err);
	CHECK(t != NULL, "table: %s", err.msg);
	if (t == NULL)
		return;
	const struct { const char *dst; unsigned out; } cases[] = {
		{ "2001:db8:5::1", 2 }, { "2001:db8:6::1", 1 }, { "2001:db9::1", 0 },
	};
	for (unsigned i = 0; i < 3; i++) {
		a6(cases[i].dst, a);
		const struct sl_nh6 *nh = sl_route6_lookup(t, a);
		CHECK(nh != NULL && nh->output == cases[i].out, "%s: output %d, want %u",
		      cases[i].dst, nh != NULL ? nh->output : -1, cases[i].out);
	}
	CHECK(!sl_route6_has_static(t), "no route with a dst_mac: no static next hop");
	sl_route6_free(t);

	/* Equal next hops share one entry (the default route's too); a hop
	 * that differs in its gateway or a MAC has its own. */
	struct sl_route6 s[5] = { 0 };
	const char *px[5] = { "::/0", "2001:db8:1::/48", "2001:db8:2::/48", "2001:db8:3::/48",
			      "2001:db8:4::/48" };
	for (unsigned i = 0; i < 5; i++) {
		sl_route6_parse_prefix(px[i], s[i].prefix, &s[i].depth, NULL);
		s[i].nh.output = 1;
		s[i].nh.kind = SL_NH_FORWARD;
		s[i].nh.iface = 0xff;
		s[i].nh.set_dmac = true;
		s[i].nh.dmac[5] = 7;
	}
	s[2].nh.dmac[5] = 8;                      /* another MAC */
	s[3].nh.kind = s[4].nh.kind = SL_NH_GATEWAY;
	s[3].nh.set_dmac = s[4].nh.set_dmac = false;
	a6("2001:db8::a", s[3].nh.gateway);
	a6("2001:db8::b", s[4].nh.gateway);      /* another gateway */
	t = sl_route6_create("t6s", s, 5, SOCKET_ID_ANY, &err);
	CHECK(t != NULL, "shared table: %s", err.msg);
	if (t == NULL)
		return;
	const struct sl_nh6 *h[6];
	const char *to[6] = { "2001:db9::1", "2001:db8:1::1", "2001:db8:2::1", "2001:db8:3::1",
			      "2001:db8:4::1", "2001:db8:4::2" };
	for (unsigned i = 0; i < 6; i++) {
		a6(to[i], a);
		h[i] = sl_route6_lookup(t, a);
	}
	CHECK(h[0] != NULL && h[0] == h[1] && h[1]->dmac[5] == 7,
	      "the default route and 2001:db8:1::/48 share their next hop");
	CHECK(h[2] != NULL && h[2] != h[1] && h[2]->dmac[5] == 8, "another MAC, another next hop");
	CHECK(h[3] != NULL && h[4] != NULL && h[3] != h[4] && h[3]->gateway[15] == 0xa &&
	      h[4]->gateway[15] == 0xb && h[4] == h[5], "two gateways, two next hops");
	CHECK(sl_route6_has_static(t), "routes with a dst_mac: static next hops");
	sl_route6_free(t);
	t = sl_route6_create("t6e", NULL, 0, SOCKET_ID_ANY, &err);
	CHECK(t != NULL, "an empty table: %s", err.msg);
	if (t == NULL)
		return;
	a6("2001:db8::1", a);
	CHECK(sl_route6_lookup(t, a) == NULL, "no route in an empty table");
	sl_route6_free(t);
}

static int setup(void)
{
	return sl_test_eal_pool("tp6", 256, N_MBUFS, &pool);
}

static void teardown(void)
{
	sl_test_eal_end(pool, N_MBUFS);
}

static const struct sl_test_case cases[] = {
	SL_CASE(test_addresses),
	SL_CASE(test_nd_roundtrip),
	SL_CASE(test_echo_and_errors),
	SL_CASE(test_route6),
};

int main(int argc, char **argv)
{
	return sl_test_main_fixture(argc, argv, cases, SL_NCASES(cases), setup, teardown);
}
