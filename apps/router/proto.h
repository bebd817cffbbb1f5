/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * proto.h: the router's own IPv4 messages: ARP (RFC 826) and ICMP (RFC 792,
 * RFC 1812 section 4.3), parsed from and written into frames.
 *
 * Parsers take the bytes of one header and its length and never read past
 * it; each outcome that is not OK names what was wrong (the router counts
 * it, tests/fuzz/fuzz_proto.c feeds them arbitrary bytes).
 *
 * Threads: pure functions of their arguments, except the builders, which
 * allocate from the given mempool; any thread.
 */
#ifndef SL_ROUTER_PROTO_H
#define SL_ROUTER_PROTO_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_mbuf.h>

/* RFC 1624, eqn. 3: a checksum hc after one 16-bit word of the summed data
 * changes from old to new (all in host order): HC' = ~(~HC + ~m + m'). */
static inline uint16_t sl_csum_replace16(uint16_t hc, uint16_t old, uint16_t new)
{
	uint32_t s = (uint32_t)(uint16_t)~hc + (uint16_t)~old + new;
	s = (s & 0xffff) + (s >> 16);
	s = (s & 0xffff) + (s >> 16);
	return (uint16_t)~s;
}

#define SL_ARP_LEN 28            /* Ethernet/IPv4 ARP: the only kind handled */
#define SL_ARP_REQUEST 1
#define SL_ARP_REPLY 2

struct sl_arp {
	uint16_t op;                 /* SL_ARP_REQUEST or SL_ARP_REPLY */
	uint8_t sha[6], tha[6];
	uint32_t spa, tpa;           /* host order */
};

enum sl_arp_result {
	SL_ARP_OK = 0,
	SL_ARP_SHORT,                /* fewer than SL_ARP_LEN bytes */
	SL_ARP_NOT_ETH_IPV4,         /* hardware 1 / length 6, protocol 0x0800 / length 4 only */
	SL_ARP_BAD_OP,               /* neither request nor reply */
	SL_ARP_BAD_SENDER,           /* sender MAC multicast, broadcast or zero */
};

/* Parse the ARP message at p (len bytes after the Ethernet header). */
enum sl_arp_result sl_arp_parse(const uint8_t *p, uint32_t len, struct sl_arp *out);
/* Write a as SL_ARP_LEN bytes at p. */
void sl_arp_write(uint8_t *p, const struct sl_arp *a);

/* A whole ARP frame (Ethernet header, message, padded to 60 bytes) from mp:
 * to dmac (the broadcast address for a request that does not know it).
 * NULL when mp is empty. */
struct rte_mbuf *sl_arp_frame(struct rte_mempool *mp, const uint8_t dmac[6],
			      const struct sl_arp *a);

/* ICMP types the router sends or answers. */
#define SL_ICMP_ECHO_REPLY 0
#define SL_ICMP_UNREACH 3        /* codes: 0 net, 1 host, 4 fragmentation needed */
#define SL_ICMP_ECHO 8
#define SL_ICMP_TIME_EXCEEDED 11 /* code 0: TTL exceeded in transit */

enum sl_icmp_result {
	SL_ICMP_OK = 0,
	SL_ICMP_SHORT,               /* under 8 bytes */
	SL_ICMP_BAD_CSUM,            /* the checksum over the message fails */
};

/* Is an ICMP message of this type an error (never answered with another)? */
bool sl_icmp_is_error(uint8_t type);

/* Check the ICMP message at p (len bytes: the IPv4 payload, in one piece):
 * length and checksum; *type and *code receive its first two bytes. */
enum sl_icmp_result sl_icmp_parse(const uint8_t *p, uint32_t len, uint8_t *type, uint8_t *code);

/* Turn the echo request in m (its IPv4 header at l3, headers and message in
 * the first segment, checked by the caller) into the reply, in place: the
 * addresses swapped (the reply from the address it was sent to), TTL 64,
 * type 0, both checksums updated; the Ethernet source becomes smac and the
 * destination the request's source. */
void sl_icmp_echo_to_reply(struct rte_mbuf *m, uint32_t l3, const uint8_t smac[6]);

/* An ICMP error about the IPv4 datagram in orig (its header at l3): a new
 * frame from mp, from src (host order) to the datagram's source, with type,
 * code and, for fragmentation needed, next_mtu; it quotes the datagram's
 * header and as much of its data as keeps the error within 576 bytes
 * (RFC 1812 4.3.2.3).  Ethernet: smac to the datagram's sender (its
 * frame's source).  NULL when mp is empty or orig is too short to quote. */
struct rte_mbuf *sl_icmp_error(struct rte_mempool *mp, const struct rte_mbuf *orig, uint32_t l3,
			       uint8_t type, uint8_t code, uint16_t next_mtu, uint32_t src,
			       const uint8_t smac[6]);

/* May the datagram at l3 of m get an ICMP error at all (RFC 1812
 * 4.3.2.7)?  Not when it is itself an ICMP error, a non-first fragment,
 * sent to a broadcast or multicast address (link or IP), or from an
 * address that is not one host's (0, loopback, multicast, broadcast). */
bool sl_icmp_may_answer(const struct rte_mbuf *m, uint32_t l3);

#endif
