/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pkt.h: parse an Ethernet frame far enough to classify it and key its flow.
 *
 * What it accepts.  Ethernet II, then up to two VLAN tags (0x8100, 0x88a8 or
 * 0x9100), then IPv4 or IPv6.  IPv6 extension headers hop-by-hop, routing,
 * destination options and fragment are skipped (at most SL_PKT_IPV6_EXT of
 * them).  Headers may span the segments of a chained mbuf (they are read with
 * rte_pktmbuf_read).
 *
 * Outcome (the return value):
 *   SL_PKT_IP         a complete, consistent IPv4 or IPv6 header; *key is
 *                     filled (flowkey.h) and *info describes the frame.
 *   SL_PKT_NOT_IP     a well-formed Ethernet frame that is not IP (ARP,
 *                     LLDP, an unknown ethertype): *info->ethertype says
 *                     which; *key is zeroed.
 *   SL_PKT_MALFORMED  truncated or inconsistent; info->reason says why;
 *                     *key is zeroed.
 *
 * IPv4 checks: version 4; IHL >= 5 and the header fits in the frame; total
 * length >= IHL * 4 and <= the bytes after the L2 header (Ethernet padding
 * after the datagram is allowed); for the first fragment (or an unfragmented
 * datagram) of TCP/UDP/SCTP/UDP-Lite, the 4 port bytes must be present.
 * IPv6 checks: version 6; payload length fits; the extension header chain
 * fits; ports present as for IPv4.  The IPv4 header checksum is not verified
 * (the router recomputes it incrementally; see router.c).
 *
 * Fragments: info->fragment is set for an IPv4 datagram with MF or a
 * non-zero offset and for an IPv6 fragment header; only the first fragment
 * (offset 0) carries ports, the others key with ports 0.
 *
 * Threads: pure function of the frame; any thread.  No allocation.
 */
#ifndef SL_PKT_H
#define SL_PKT_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <netinet/in.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>

#include "apps/pkt/flowkey.h"

#define SL_PKT_IPV6_EXT 4     /* extension headers skipped at most */

enum sl_pkt_class {
	SL_PKT_IP = 0,
	SL_PKT_NOT_IP,
	SL_PKT_MALFORMED,
};

enum sl_pkt_reason {
	SL_PKT_R_NONE = 0,
	SL_PKT_R_SHORT_L2,        /* shorter than the Ethernet header and tags */
	SL_PKT_R_VLAN_DEPTH,      /* more than two VLAN tags */
	SL_PKT_R_SHORT_L3,        /* IP header cut short */
	SL_PKT_R_BAD_VERSION,     /* IP version does not match the ethertype */
	SL_PKT_R_BAD_IHL,         /* IPv4 IHL < 5 */
	SL_PKT_R_BAD_LEN,         /* IPv4 total length / IPv6 payload length
				   * inconsistent with the header or the frame */
	SL_PKT_R_BAD_EXT,         /* IPv6 extension chain too long or cut short */
	SL_PKT_R_SHORT_L4,        /* ports missing from a first fragment */
	SL_PKT_R_COUNT
};

struct sl_pkt_info {
	uint16_t ethertype;      /* after VLAN tags, host order */
	uint8_t vlans;           /* tags skipped, 0..2 */
	uint8_t reason;          /* enum sl_pkt_reason; NONE unless MALFORMED */
	uint16_t l3_off;         /* offset of the IP header (valid for SL_PKT_IP) */
	bool fragment;           /* any fragment, first included */
	bool first_fragment;     /* offset 0 (also true when not a fragment) */
	/* 32 bits: behind an IPv6 header with a 65535-byte payload (a chained
	 * frame) these pass 65535. */
	uint32_t l4_off;         /* offset of the transport header (SL_PKT_IP) */
	uint32_t l3_len;         /* IPv4 total length or 40 + IPv6 payload length */
};

/* The general parser: classify m and fill key and info (both required).
 * Returns enum sl_pkt_class. */
enum sl_pkt_class sl_pkt_parse_full(const struct rte_mbuf *m, struct sl_flow_key *key,
				    struct sl_pkt_info *info);

#define SL_IPPROTO_UDPLITE 136  /* not in every libc's netinet/in.h */

/* Does the transport protocol carry 16-bit source and destination ports
 * first (TCP, UDP, SCTP, UDP-Lite)? */
static inline bool sl_pkt_has_ports(uint8_t proto)
{
	return proto == IPPROTO_TCP || proto == IPPROTO_UDP || proto == IPPROTO_SCTP ||
	       proto == SL_IPPROTO_UDPLITE;
}

/* The lengths sl_pkt_ipv4_simple asks of frame m (f: its first byte): the
 * first segment holds the IPv4 header without options and the ports after
 * it, and the header's total length covers them and fits in the frame.
 * The one place that says so (sl_pkt_ipv4_simple_at, sl_pkt_ipv4_run_at). */
static inline bool sl_pkt_ipv4_simple_lengths(const struct rte_mbuf *m, const uint8_t *f)
{
	const uint32_t l3 = RTE_ETHER_HDR_LEN, l4 = l3 + sizeof(struct rte_ipv4_hdr);
	if (unlikely(rte_pktmbuf_data_len(m) < l4 + 4))
		return false;
	uint16_t total;
	memcpy(&total, f + l3 + offsetof(struct rte_ipv4_hdr, total_length), sizeof(total));
	total = rte_be_to_cpu_16(total);
	return total >= l4 - l3 + 4 && total <= rte_pktmbuf_pkt_len(m) - l3;
}

/* The IPv4 header of m if m is the commonest frame: untagged IPv4 without
 * options or fragmentation, carrying TCP, UDP, SCTP or UDP-Lite, total
 * length consistent with the frame, headers and ports in the first
 * segment; NULL for any other frame (which may still be IP: ask
 * sl_pkt_parse).  For such a frame sl_pkt_parse returns SL_PKT_IP, family
 * 4, l3_off 14, l4_off 34.  Little-endian builds only (NULL elsewhere).
 * sl_pkt_ipv4_simple_at: the same with m's first byte f
 * (rte_pktmbuf_mtod(m)) already in hand. */
static inline const uint8_t *sl_pkt_ipv4_simple_at(const struct rte_mbuf *m, const uint8_t *f)
{
#if RTE_BYTE_ORDER == RTE_LITTLE_ENDIAN
	if (likely(sl_pkt_ipv4_simple_lengths(m, f))) {
		const struct rte_ipv4_hdr *ip = (const struct rte_ipv4_hdr *)(f + RTE_ETHER_HDR_LEN);
		uint16_t type;
		memcpy(&type, f + 12, sizeof(type));
		if (type == RTE_BE16(RTE_ETHER_TYPE_IPV4) &&
		    ip->version_ihl == RTE_IPV4_VHL_DEF &&
		    (ip->fragment_offset &
		     RTE_BE16(RTE_IPV4_HDR_MF_FLAG | RTE_IPV4_HDR_OFFSET_MASK)) == 0 &&
		    sl_pkt_has_ports(ip->next_proto_id))
			return f + RTE_ETHER_HDR_LEN;
	}
#else
	(void)m;
	(void)f;
#endif
	return NULL;
}

static inline const uint8_t *sl_pkt_ipv4_simple(const struct rte_mbuf *m)
{
	return sl_pkt_ipv4_simple_at(m, rte_pktmbuf_mtod(m, const uint8_t *));
}

/* The flow key of a frame sl_pkt_ipv4_simple accepted (h: the header it
 * returned), as the five 8-byte words sl_flow_key_word reads: an IPv4 key's
 * words 2 and 4 are zero (sl_pkt_ipv4_simple_raw below gives the two words
 * it hashes as, with less work). */
static inline void sl_pkt_ipv4_simple_raw(const uint8_t *h, uint64_t *addrs, uint64_t *rest);

static inline void sl_pkt_ipv4_simple_words(const uint8_t *h, uint64_t w[5])
{
	uint64_t addrs, rest;
	sl_pkt_ipv4_simple_raw(h, &addrs, &rest);
	sl_flow_key_v4_words(addrs, rest, w);
}

/* The two words sl_flow_key_hash_v4 takes for the flow of a frame
 * sl_pkt_ipv4_simple accepted (h: the header it returned), read from the
 * header as they stand: its address bytes, then its port bytes with the
 * protocol above them (VLAN 0).  Two frames of one flow have the same two
 * words, and sl_flow_key_hash_v4 of them is sl_flow_key_hash of the key
 * sl_pkt_parse makes (test_pkt checks); sl_flow_key_v4_w0(*rest) is that
 * key's word 0.  Little-endian, as sl_pkt_ipv4_simple. */
static inline void sl_pkt_ipv4_simple_raw(const uint8_t *h, uint64_t *addrs, uint64_t *rest)
{
	uint32_t ports;
	memcpy(addrs, h + offsetof(struct rte_ipv4_hdr, src_addr), sizeof(*addrs));
	memcpy(&ports, h + sizeof(struct rte_ipv4_hdr), sizeof(ports));
	*rest = ports | (uint64_t)h[offsetof(struct rte_ipv4_hdr, next_proto_id)] << 32;
}

/* Whether the bytes of frames f and p (their first bytes, at least 38 of
 * each) that sl_pkt_ipv4_simple checks and sl_pkt_ipv4_simple_raw reads are
 * equal where they must be: EtherType, version and IHL, the MF and offset
 * bits, protocol, addresses and ports (bytes 12-14, 20-21, 23, 26-37; the
 * DF and reserved bits of byte 20 are not checked).  _scalar compares them
 * one by one, the other (SSE2 where the build has it: two masked 16-byte
 * compares, bytes 12-27 and 22-37) at once, sl_pkt_ipv4_run_bytes below;
 * test_pkt holds the two to each other. */
static inline bool sl_pkt_ipv4_same_bytes_scalar(const uint8_t *f, const uint8_t *p)
{
	return memcmp(f + 12, p + 12, 3) == 0 && ((f[20] ^ p[20]) & 0x3f) == 0 && f[21] == p[21] &&
	       f[23] == p[23] && memcmp(f + 26, p + 26, 12) == 0;
}

/* The bytes of frame p those compare, kept by sl_pkt_ipv4_run_of (masked
 * into two vectors where the build has SSE2; else p itself), so that the
 * frames of a run are compared with them without reading p again: the
 * caller's stores between two frames (a flag a frame) could alias p's
 * bytes, and the compiler would load them again for every frame. */
struct sl_pkt_ipv4_run {
#if defined(__SSE2__)
	__m128i a, b;   /* bytes 12-27 and 22-37, masked */
#else
	const uint8_t *p;
#endif
};

#if defined(__SSE2__)
/* The bytes kept of 12-27 and of 22-37. */
static inline __m128i sl_pkt_ipv4_keep_a(void)
{
	return _mm_setr_epi8(-1, -1, -1, 0, 0, 0, 0, 0, 0x3f, -1, 0, -1, 0, 0, 0, 0);
}

static inline __m128i sl_pkt_ipv4_keep_b(void)
{
	return _mm_setr_epi8(0, 0, 0, 0, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1);
}
#endif

static inline void sl_pkt_ipv4_run_of(struct sl_pkt_ipv4_run *r, const uint8_t *p)
{
#if defined(__SSE2__)
	r->a = _mm_and_si128(_mm_loadu_si128((const __m128i *)(const void *)(p + 12)),
			     sl_pkt_ipv4_keep_a());
	r->b = _mm_and_si128(_mm_loadu_si128((const __m128i *)(const void *)(p + 22)),
			     sl_pkt_ipv4_keep_b());
#else
	r->p = p;
#endif
}

/* Whether frame f's bytes are p's where the two compares above look, for
 * the p of r. */
static inline bool sl_pkt_ipv4_run_bytes(const struct sl_pkt_ipv4_run *r, const uint8_t *f)
{
#if defined(__SSE2__)
	__m128i a = _mm_xor_si128(_mm_and_si128(_mm_loadu_si128((const __m128i *)(const void *)(f + 12)),
						sl_pkt_ipv4_keep_a()), r->a);
	__m128i b = _mm_xor_si128(_mm_and_si128(_mm_loadu_si128((const __m128i *)(const void *)(f + 22)),
						sl_pkt_ipv4_keep_b()), r->b);
	return _mm_movemask_epi8(_mm_cmpeq_epi8(_mm_or_si128(a, b), _mm_setzero_si128())) == 0xffff;
#else
	return sl_pkt_ipv4_same_bytes_scalar(f, r->p);
#endif
}

/* Whether frame m (f: its first byte) is one sl_pkt_ipv4_simple accepts,
 * of the same flow (the same two words of sl_pkt_ipv4_simple_raw) as the
 * frame p whose bytes r keeps (sl_pkt_ipv4_run_of), which
 * sl_pkt_ipv4_simple accepted: m's lengths checked, then its bytes compared
 * with p's at once (sl_pkt_ipv4_run_bytes): less work than the check and
 * the words for the frames of a run of one flow.  test_pkt and fuzz_pkt
 * hold it to the check and the words.  Little-endian, as
 * sl_pkt_ipv4_simple. */
static inline bool sl_pkt_ipv4_run_at(const struct rte_mbuf *m, const uint8_t *f,
				      const struct sl_pkt_ipv4_run *r)
{
#if RTE_BYTE_ORDER == RTE_LITTLE_ENDIAN
	return sl_pkt_ipv4_simple_lengths(m, f) && sl_pkt_ipv4_run_bytes(r, f);
#else
	(void)m;
	(void)f;
	(void)r;
	return false;
#endif
}

/* sl_pkt_parse_full, with the frames of sl_pkt_ipv4_simple parsed inline:
 * the key is then written as five 8-byte words (a hash that reads it in
 * words finds each in the store buffer).  Every other frame goes to
 * sl_pkt_parse_full; the result is the same either way (test_pkt and
 * fuzz_pkt compare them). */
static inline enum sl_pkt_class sl_pkt_parse(const struct rte_mbuf *m, struct sl_flow_key *key,
					     struct sl_pkt_info *info)
{
	const uint8_t *h = sl_pkt_ipv4_simple(m);
	if (likely(h != NULL)) {
		const struct rte_ipv4_hdr *ip = (const struct rte_ipv4_hdr *)h;
		uint64_t w[5];
		sl_pkt_ipv4_simple_words(h, w);
		memcpy(key, w, sizeof(w));
		*info = (struct sl_pkt_info){
			.ethertype = RTE_ETHER_TYPE_IPV4, .l3_off = RTE_ETHER_HDR_LEN,
			.first_fragment = true,
			.l4_off = RTE_ETHER_HDR_LEN + sizeof(struct rte_ipv4_hdr),
			.l3_len = rte_be_to_cpu_16(ip->total_length),
		};
		return SL_PKT_IP;
	}
	return sl_pkt_parse_full(m, key, info);
}

/* Compute the TCP or UDP checksum of m in place, from scratch: for frames
 * from a Linux veth or tap whose sender left it to offload (the packet
 * socket hands them over with only the pseudo-header's sum in the field).
 * Only an IPv4 or IPv6 (no extension header) frame that is not a fragment,
 * with the whole datagram in the first segment; returns whether it filled
 * one.  Any thread; no allocation. */
bool sl_pkt_fill_l4_csum(struct rte_mbuf *m);

/* Short name of a reason ("short_l3", "bad_ihl", ...), for counters and
 * messages; "none" for SL_PKT_R_NONE, "?" when out of range. */
const char *sl_pkt_reason_name(unsigned reason);

#endif
