/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_proto: the router's ARP and ICMP parsers (apps/router/proto.h) on
 * arbitrary bytes.
 *
 * Input: byte 0 chooses the parser (even: ARP, odd: ICMP); the rest is the
 * message, copied into a buffer of exactly its size so that a read past it
 * is caught by AddressSanitizer.
 *
 * Promises checked (proto.h): the outcome is one of the enum's values; a
 * message under its minimum length is SHORT; an ARP message that parses is
 * a request or a reply from a host's MAC (not multicast, not zero) and
 * writes back to the same 28 bytes; an ICMP message that parses has a
 * checksum that sums to all ones, and type and code are its first bytes.
 */
#include <rte_ip.h>

#include "apps/router/proto.h"

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1 || size > 4096)
		return 0;
	size_t len = size - 1;
	uint8_t *p = malloc(len > 0 ? len : 1);
	fuzz_require(p != NULL, "out of memory");
	memcpy(p, data + 1, len);
	if ((data[0] & 1) == 0) {
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
