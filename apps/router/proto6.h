/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * proto6.h: the router's own IPv6 messages: neighbour discovery (RFC 4861:
 * solicitations and advertisements with their link-layer address options)
 * and ICMPv6 (RFC 4443: echo, time exceeded, destination unreachable,
 * packet too big), parsed from and written into frames.
 *
 * Parsers take the bytes of one message and its length and never read past
 * it; each outcome that is not OK names what was wrong (the router counts
 * it; tests/fuzz/fuzz_proto.c feeds them arbitrary bytes).  Addresses are
 * 16-byte arrays in network order.
 *
 * Threads: pure functions of their arguments, except the builders, which
 * allocate from the given mempool; any thread.
 */
#ifndef SL_ROUTER_PROTO6_H
#define SL_ROUTER_PROTO6_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_mbuf.h>

#define SL_IP6_HDR 40
#define SL_ICMP6_PROTO 58

/* ICMPv6 types the router sends or answers. */
#define SL_ICMP6_UNREACH 1        /* code 0: no route; 3: address unreachable */
#define SL_ICMP6_TOO_BIG 2
#define SL_ICMP6_TIME_EXCEEDED 3  /* code 0: hop limit exceeded in transit */
#define SL_ICMP6_ECHO 128
#define SL_ICMP6_ECHO_REPLY 129
#define SL_ND_NS 135
#define SL_ND_NA 136

#define SL_NA_ROUTER 0x80
#define SL_NA_SOLICITED 0x40
#define SL_NA_OVERRIDE 0x20

/* A solicitation or advertisement. */
struct sl_nd {
	uint8_t type;                /* SL_ND_NS or SL_ND_NA */
	uint8_t flags;               /* NA: SL_NA_* */
	uint8_t target[16];
	bool has_lladdr;             /* a source (NS) or target (NA) link-layer option */
	uint8_t lladdr[6];
};

enum sl_nd_result {
	SL_ND_OK = 0,
	SL_ND_SHORT,                 /* under 24 bytes, or an option cut short */
	SL_ND_NOT_ND,                /* another ICMPv6 type */
	SL_ND_BAD_CODE,              /* code not 0 */
	SL_ND_BAD_HOPS,              /* hop limit not 255: it crossed a router */
	SL_ND_BAD_TARGET,            /* a multicast target */
	SL_ND_BAD_OPTION,            /* an option of length 0 */
	SL_ND_BAD_CSUM,              /* the checksum over the message fails */
};

/* Parse the ND message of the IPv6 packet ip (its 40-byte header, then len
 * bytes of ICMPv6 at icmp, in one piece): hop limit, code, length, options
 * and checksum are checked. */
enum sl_nd_result sl_nd_parse(const uint8_t *ip, const uint8_t *icmp, uint32_t len,
			      struct sl_nd *out);

/* Is an ICMPv6 message of this type an error (never answered with
 * another)? */
static inline bool sl_icmp6_is_error(uint8_t type)
{
	return type < 128;
}

/* Multicast (ff00::/8), link-local unicast (fe80::/10), unspecified (::)? */
static inline bool sl_ip6_is_multicast(const uint8_t a[16])
{
	return a[0] == 0xff;
}
static inline bool sl_ip6_is_link_local(const uint8_t a[16])
{
	return a[0] == 0xfe && (a[1] & 0xc0) == 0x80;
}
bool sl_ip6_is_unspecified(const uint8_t a[16]);

/* The solicited-node multicast address of a (ff02::1:ffXX:XXXX) and its
 * Ethernet address (33:33:ff:XX:XX:XX). */
void sl_ip6_solicited(const uint8_t a[16], uint8_t group[16], uint8_t mac[6]);

/* The link-local address of an interface with this MAC (fe80::/64, the
 * modified EUI-64 of RFC 4291 appendix A). */
void sl_ip6_link_local(const uint8_t mac[6], uint8_t out[16]);

/* A solicitation for target from src (smac) to dst / dmac (the target's
 * solicited-node group, or the target itself when probing), with a source
 * link-layer option.  NULL when mp is empty. */
struct rte_mbuf *sl_nd_ns_frame(struct rte_mempool *mp, const uint8_t smac[6],
				const uint8_t src[16], const uint8_t dmac[6],
				const uint8_t dst[16], const uint8_t target[16]);

/* An advertisement of target (smac, with a target link-layer option) from
 * target to dst / dmac, with flags SL_NA_*.  NULL when mp is empty. */
struct rte_mbuf *sl_nd_na_frame(struct rte_mempool *mp, const uint8_t smac[6],
				const uint8_t dmac[6], const uint8_t dst[16],
				const uint8_t target[16], uint8_t flags);

/* Is the ICMPv6 message at icmp (len bytes, in one piece, after the IPv6
 * header ip) whole, with a good checksum?  *type receives its type. */
bool sl_icmp6_check(const uint8_t *ip, const uint8_t *icmp, uint32_t len, uint8_t *type);

/* Turn the echo request in m (its IPv6 header at l3, the message right
 * after it, all in the first segment, checked by the caller) into the
 * reply, in place: addresses swapped, hop limit 64, type 129, checksum
 * updated; the Ethernet source becomes smac and the destination the
 * request's source. */
void sl_icmp6_echo_to_reply(struct rte_mbuf *m, uint32_t l3, const uint8_t smac[6]);

/* An ICMPv6 error about the packet in orig (its IPv6 header at l3): a new
 * frame from mp, from src to the packet's source, with type, code and the
 * 32-bit field param (the MTU for packet too big); it quotes as much of the
 * packet as keeps the error within 1280 bytes (RFC 4443 2.4).  Ethernet:
 * smac to the packet's sender (its frame's source).  NULL when mp is empty
 * or orig is too short to quote. */
struct rte_mbuf *sl_icmp6_error(struct rte_mempool *mp, const struct rte_mbuf *orig,
				uint32_t l3, uint8_t type, uint8_t code, uint32_t param,
				const uint8_t src[16], const uint8_t smac[6]);

/* May the packet at l3 of m get an ICMPv6 error at all (RFC 4443 2.4 (e))?
 * Not when it is itself an ICMPv6 error (or ND), sent to a multicast
 * address (link or IP), from an unspecified or multicast source, or a
 * fragment other than the first (a fragment header right after the IPv6
 * header with a non-zero offset). */
bool sl_icmp6_may_answer(const struct rte_mbuf *m, uint32_t l3);

#endif /* SL_ROUTER_PROTO6_H */
