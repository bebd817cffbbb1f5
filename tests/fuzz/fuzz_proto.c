/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_proto: the router's ARP and ICMP parsers (apps/router/proto.h) and
 * its neighbour discovery and ICMPv6 parsers (apps/router/proto6.h) on
 * arbitrary bytes.
 *
 * Input: byte 0 chooses the parser (mod 3: 0 ARP, 1 ICMP, 2 ND and
 * ICMPv6); the rest is the message (for ND: a 40-byte IPv6 header, then the
 * message), copied into a buffer of exactly its size so that a read past it
 * is caught by AddressSanitizer.
 *
 * Promises checked (proto.h): the outcome is one of the enum's values; a
 * message under its minimum length is SHORT; an ARP message that parses is
 * a request or a reply from a host's MAC (not multicast, not zero) and
 * writes back to the same 28 bytes; an ICMP message that parses has a
 * checksum that sums to all ones, and type and code are its first bytes;
 * an ND message that parses is a solicitation or advertisement of code 0
 * and hop limit 255, for a target that is not multicast, whose checksum
 * over the pseudo-header sums to all ones (summed here independently).
 */
#include <rte_ip.h>

#include "apps/router/proto.h"
#include "apps/router/proto6.h"

#include "fuzz.h"

/* The ICMPv6 sum over the pseudo-header of ip and the n bytes at msg. */
static uint16_t pseudo_sum(const uint8_t *ip, const uint8_t *msg, uint32_t n)
{
	uint8_t *b = malloc(40 + n);
	fuzz_require(b != NULL, "out of memory");
	memcpy(b, ip + 8, 32);
	const uint8_t tail[8] = { (uint8_t)(n >> 24), (uint8_t)(n >> 16), (uint8_t)(n >> 8),
				  (uint8_t)n, 0, 0, 0, 58 };
	memcpy(b + 32, tail, 8);
	memcpy(b + 40, msg, n);
	uint16_t s = rte_raw_cksum(b, 40 + n);
	free(b);
	return s;
}

static void fuzz_nd(const uint8_t *p, size_t len)
{
	if (len < SL_IP6_HDR)
		return;
	const uint8_t *ip = p, *msg = p + SL_IP6_HDR;
	uint32_t n = (uint32_t)(len - SL_IP6_HDR);
	struct sl_nd nd;
	enum sl_nd_result r = sl_nd_parse(ip, msg, n, &nd);
	fuzz_require(r <= SL_ND_BAD_CSUM, "ND outcome %d out of range", r);
	fuzz_require(n >= 24 || r == SL_ND_SHORT, "ND: %u bytes, outcome %d", n, r);
	if (r == SL_ND_OK) {
		fuzz_require((nd.type == SL_ND_NS || nd.type == SL_ND_NA) && nd.type == msg[0] &&
			     msg[1] == 0 && ip[7] == 255, "ND: accepted type %u code %u hops %u",
			     msg[0], msg[1], ip[7]);
		fuzz_require(!sl_ip6_is_multicast(nd.target) && memcmp(nd.target, msg + 8, 16) == 0,
			     "ND: a multicast or misread target");
		fuzz_require(pseudo_sum(ip, msg, n) == 0xffff, "ND: accepted with a bad checksum");
	}
	uint8_t type;
	if (sl_icmp6_check(ip, msg, n, &type))
		fuzz_require(n >= 8 && type == msg[0] && pseudo_sum(ip, msg, n) == 0xffff,
			     "ICMPv6: accepted with a bad checksum");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1 || size > 4096)
		return 0;
	size_t len = size - 1;
	uint8_t *p = malloc(len > 0 ? len : 1);
	fuzz_require(p != NULL, "out of memory");
	memcpy(p, data + 1, len);
	if (data[0] % 3 == 2) {
		fuzz_nd(p, len);
	} else if (data[0] % 3 == 0) {
		struct sl_arp a;
		enum sl_arp_result r = sl_arp_parse(p, (uint32_t)len, &a);
		fuzz_require(r <= SL_ARP_BAD_SENDER, "ARP outcome %d out of range", r);
		fuzz_require((len < SL_ARP_LEN) == (r == SL_ARP_SHORT), "ARP: %zu bytes, outcome %d",
			     len, r);
		if (r == SL_ARP_OK) {
			static const uint8_t zero[6];
			fuzz_require(a.op == SL_ARP_REQUEST || a.op == SL_ARP_REPLY, "ARP op %u", a.op);
			fuzz_require((a.sha[0] & 1) == 0 && memcmp(a.sha, zero, 6) != 0,
				     "ARP sender MAC is not a host's");
			uint8_t back[SL_ARP_LEN];
			sl_arp_write(back, &a);
			fuzz_require(memcmp(back, p, SL_ARP_LEN) == 0, "ARP: written back differs");
		}
	} else {
		uint8_t type = 0, code = 0;
		enum sl_icmp_result r = sl_icmp_parse(p, (uint32_t)len, &type, &code);
		fuzz_require(r <= SL_ICMP_BAD_CSUM, "ICMP outcome %d out of range", r);
		fuzz_require((len < 8) == (r == SL_ICMP_SHORT), "ICMP: %zu bytes, outcome %d", len, r);
		if (r == SL_ICMP_OK)
			fuzz_require(type == p[0] && code == p[1] && rte_raw_cksum(p, len) == 0xffff,
				     "ICMP: accepted with a bad checksum or type");
		if (r != SL_ICMP_SHORT)
			(void)sl_icmp_is_error(type);
	}
	free(p);
	return 0;
}
