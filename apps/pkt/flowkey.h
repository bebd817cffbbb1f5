/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * flowkey.h: the 5-tuple that keys a flow, for IPv4 and IPv6.
 *
 * Layout: 40 bytes, no implicit padding, so that two keys compare with
 * memcmp and hash as five 64-bit words.  Whoever fills a key zeroes it first
 * (sl_flow_key_zero): unused address bytes must be zero.
 *
 * Fields:
 *   family  4 or 6
 *   proto   IPv4 protocol or IPv6 upper-layer protocol (after extension
 *           headers that the parser skips)
 *   sport, dport  transport ports in host order for TCP, UDP, SCTP and
 *           UDP-Lite; 0 for other protocols and for fragments other than the
 *           first (so all fragments of a datagram after the first share a
 *           3-tuple key)
 *   vlan    the VLAN id (12 bits) of the frame's outermost 802.1Q or
 *           802.1ad tag; 0 for an untagged or priority-tagged frame: one
 *           5-tuple on two VLANs is two flows
 *   src, dst  addresses in network order; IPv4 uses bytes 0..3, the other
 *           twelve bytes are zero
 *
 * No allocation, no state: include anywhere (no DPDK dependency).
 */
#ifndef SL_FLOWKEY_H
#define SL_FLOWKEY_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

struct sl_flow_key {
	uint8_t family;
	uint8_t proto;
	uint16_t sport;
	uint16_t dport;
	uint16_t vlan;       /* outer 802.1Q/802.1ad VLAN id; 0: none */
	uint8_t src[16];
	uint8_t dst[16];
};

_Static_assert(sizeof(struct sl_flow_key) == 40, "flow key must be 40 bytes, unpadded");

static inline void sl_flow_key_zero(struct sl_flow_key *k)
{
	memset(k, 0, sizeof(*k));
}

static inline bool sl_flow_key_eq(const struct sl_flow_key *a, const struct sl_flow_key *b)
{
	return memcmp(a, b, sizeof(*a)) == 0;
}

static inline uint64_t sl_flow_key_word(const struct sl_flow_key *k, unsigned i)
{
	uint64_t w;
	memcpy(&w, (const uint8_t *)k + 8 * i, sizeof(w));
	return w;
}

/* 32-bit hash of the key given as its five 8-byte words (as
 * sl_flow_key_word reads them), for a power-of-two table indexed by its low
 * bits (and a signature from its high bits).  On x86-64, CRC32C of the
 * five words (the SSE4.2 instruction DPDK requires too: 5 x 3 cycles of
 * latency; rte_hash hashes this way); elsewhere a multiply-xorshift mix of
 * them.  The same key hashes the same in every unit of one build.  Not
 * keyed, so not meant to resist chosen-collision traffic.  A caller that
 * holds the words in registers (an IPv4 key: words 2 and 4 are zero) hashes
 * without storing and reloading the key. */
#if defined(__x86_64__)
__attribute__((target("sse4.2"))) static inline uint32_t
sl_flow_key_hash_words(uint64_t w0, uint64_t w1, uint64_t w2, uint64_t w3, uint64_t w4)
{
	uint64_t c = 0xffffffffu;
	c = __builtin_ia32_crc32di(c, w0);
	c = __builtin_ia32_crc32di(c, w1);
	c = __builtin_ia32_crc32di(c, w2);
	c = __builtin_ia32_crc32di(c, w3);
	c = __builtin_ia32_crc32di(c, w4);
	return (uint32_t)c;
}
#else
static inline uint64_t sl_flow_key_mix(uint64_t h, uint64_t w)
{
	h ^= w;
	h *= 0xbf58476d1ce4e5b9ull;
	return h ^ (h >> 31);
}

static inline uint32_t sl_flow_key_hash_words(uint64_t w0, uint64_t w1, uint64_t w2,
					      uint64_t w3, uint64_t w4)
{
	uint64_t h = 0x9e3779b97f4a7c15ull;
	h = sl_flow_key_mix(h, w0);
	h = sl_flow_key_mix(h, w1);
	h = sl_flow_key_mix(h, w2);
	h = sl_flow_key_mix(h, w3);
	h = sl_flow_key_mix(h, w4);
	h *= 0x94d049bb133111ebull;
	h ^= h >> 29;
	return (uint32_t)(h ^ (h >> 32));
}
#endif

/* The hash of a key (sl_flow_key_hash_words of its words). */
static inline uint32_t sl_flow_key_hash(const struct sl_flow_key *k)
{
	return sl_flow_key_hash_words(sl_flow_key_word(k, 0), sl_flow_key_word(k, 1),
				      sl_flow_key_word(k, 2), sl_flow_key_word(k, 3),
				      sl_flow_key_word(k, 4));
}

/* "ipv4" or "ipv6" (for messages and flow records). */
static inline const char *sl_flow_family_name(const struct sl_flow_key *k)
{
	return k->family == 6 ? "ipv6" : "ipv4";
}

#endif
