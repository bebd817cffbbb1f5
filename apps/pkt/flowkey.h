/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * flowkey.h: the 5-tuple that keys a flow, for IPv4 and IPv6.
 *
 * Layout: 40 bytes, no implicit padding, so that two keys compare with
 * memcmp and read as five 64-bit words (an IPv6 key hashes as those five,
 * an IPv4 key as two words made from them: sl_flow_key_hash below).
 * Whoever fills a key zeroes it first (sl_flow_key_zero): unused address
 * bytes must be zero.
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

/* 32-bit hash of a flow key, for a power-of-two table indexed by its low
 * bits (and a signature from its high bits).  The same key hashes the same
 * in every unit of one build.  Not keyed, so not meant to resist
 * chosen-collision traffic.
 *
 * An IPv4 key (family 4) hashes as two 8-byte words in the byte order of
 * the headers (sl_flow_key_hash_v4): its addresses, as a little-endian load
 * of the IPv4 header's eight address bytes gives them (the source in the
 * low half), and its ports in network order (the low half, as a load of
 * the transport header's first four bytes gives them), protocol and VLAN
 * above.  A caller holding a simple frame's header hashes it from two
 * loads, without building the key (the flow cache does, for every new
 * flow of a burst); sl_flow_key_hash_words gives the same value from the
 * key's words.  Any other key hashes as its five words.  On x86-64 the
 * mix is CRC32C (the SSE4.2 instruction DPDK requires too; rte_hash hashes
 * this way: 3 cycles of latency a word); elsewhere a multiply-xorshift
 * mix. */
#if defined(__x86_64__)
__attribute__((target("sse4.2"))) static inline uint32_t sl_flow_key_hash_v4(uint64_t addrs,
									     uint64_t rest)
{
	return (uint32_t)__builtin_ia32_crc32di(__builtin_ia32_crc32di(0xffffffffu, addrs), rest);
}

__attribute__((target("sse4.2"))) static inline uint32_t
sl_flow_key_hash5(uint64_t w0, uint64_t w1, uint64_t w2, uint64_t w3, uint64_t w4)
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

static inline uint32_t sl_flow_key_mix_end(uint64_t h)
{
	h *= 0x94d049bb133111ebull;
	h ^= h >> 29;
	return (uint32_t)(h ^ (h >> 32));
}

static inline uint32_t sl_flow_key_hash_v4(uint64_t addrs, uint64_t rest)
{
	return sl_flow_key_mix_end(sl_flow_key_mix(sl_flow_key_mix(0x9e3779b97f4a7c15ull, addrs),
						   rest));
}

static inline uint32_t sl_flow_key_hash5(uint64_t w0, uint64_t w1, uint64_t w2, uint64_t w3,
					 uint64_t w4)
{
	uint64_t h = 0x9e3779b97f4a7c15ull;
	h = sl_flow_key_mix(h, w0);
	h = sl_flow_key_mix(h, w1);
	h = sl_flow_key_mix(h, w2);
	h = sl_flow_key_mix(h, w3);
	h = sl_flow_key_mix(h, w4);
	return sl_flow_key_mix_end(h);
}
#endif

/* The word of an IPv4 key's ports in network order (a little-endian load
 * of the transport header's first four bytes), protocol and VLAN, from its
 * word 0 (family, protocol, ports in host order, VLAN): the second word
 * sl_flow_key_hash_v4 takes. */
static inline uint64_t sl_flow_key_v4_rest(uint64_t w0)
{
	/* the ports' four bytes b1 b0 b3 b2 (host order) -> b0 b1 b2 b3 */
	uint32_t p = (uint32_t)(w0 >> 16);
	p = __builtin_bswap32(p << 16 | p >> 16);
	return p | (w0 >> 8 & 0xff) << 32 | (w0 >> 48) << 40;
}

/* The inverse: an IPv4 key's word 0 from the word sl_flow_key_v4_rest
 * makes of it. */
static inline uint64_t sl_flow_key_v4_w0(uint64_t rest)
{
	uint32_t p = __builtin_bswap32((uint32_t)rest);
	p = p << 16 | p >> 16;
	return 4u | (rest >> 32 & 0xff) << 8 | (uint64_t)p << 16 | (rest >> 40 & 0xffff) << 48;
}

/* An IPv4 key's five words (as sl_flow_key_word reads them; VLAN from
 * rest) from the two sl_flow_key_hash_v4 takes: the one place that says how
 * a header's raw words become a key. */
static inline void sl_flow_key_v4_words(uint64_t addrs, uint64_t rest, uint64_t w[5])
{
	w[0] = sl_flow_key_v4_w0(rest);
	w[1] = addrs & UINT32_MAX;
	w[2] = 0;
	w[3] = addrs >> 32;
	w[4] = 0;
}

/* The hash of a key given as its five 8-byte words (as sl_flow_key_word
 * reads them): on a little-endian CPU an IPv4 key's words 1 and 3 hold its
 * addresses in their low four bytes (the rest zero, as words 2 and 4), and
 * its family is word 0's low byte.  (A big-endian build hashes every key
 * as five words: it has no header fast path to agree with.) */
#if !defined(__BYTE_ORDER__)
#error "flowkey.h needs __BYTE_ORDER__: the key's words and the header's raw words must hash alike"
#endif
static inline uint32_t sl_flow_key_hash_words(uint64_t w0, uint64_t w1, uint64_t w2,
					      uint64_t w3, uint64_t w4)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	if ((uint8_t)w0 == 4)
		return sl_flow_key_hash_v4(w1 | w3 << 32, sl_flow_key_v4_rest(w0));
#endif
	return sl_flow_key_hash5(w0, w1, w2, w3, w4);
}

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
