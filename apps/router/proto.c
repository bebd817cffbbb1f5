/* SPDX-License-Identifier: BSD-3-Clause */
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_ip.h>

#include "apps/router/proto.h"

static inline uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static inline void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static inline void put32(uint8_t *p, uint32_t v)
{
	put16(p, (uint16_t)(v >> 16));
	put16(p + 2, (uint16_t)v);
}

static bool mac_is_host(const uint8_t *mac)
{
	static const uint8_t zero[6];
	return (mac[0] & 1) == 0 && memcmp(mac, zero, 6) != 0;
}

enum sl_arp_result sl_arp_parse(const uint8_t *p, uint32_t len, struct sl_arp *out)
{
	if (len < SL_ARP_LEN)
		return SL_ARP_SHORT;
	if (get16(p) != 1 || get16(p + 2) != RTE_ETHER_TYPE_IPV4 || p[4] != 6 || p[5] != 4)
		return SL_ARP_NOT_ETH_IPV4;
	out->op = get16(p + 6);
	if (out->op != SL_ARP_REQUEST && out->op != SL_ARP_REPLY)
		return SL_ARP_BAD_OP;
	memcpy(out->sha, p + 8, 6);
	out->spa = get32(p + 14);
	memcpy(out->tha, p + 18, 6);
	out->tpa = get32(p + 24);
	if (!mac_is_host(out->sha))
		return SL_ARP_BAD_SENDER;
	return SL_ARP_OK;
}

void sl_arp_write(uint8_t *p, const struct sl_arp *a)
{
	put16(p, 1);
	put16(p + 2, RTE_ETHER_TYPE_IPV4);
	p[4] = 6;
	p[5] = 4;
	put16(p + 6, a->op);
	memcpy(p + 8, a->sha, 6);
	put32(p + 14, a->spa);
	memcpy(p + 18, a->tha, 6);
	put32(p + 24, a->tpa);
}

struct rte_mbuf *sl_arp_frame(struct rte_mempool *mp, const uint8_t dmac[6],
			      const struct sl_arp *a)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(mp);
	if (m == NULL)
		return NULL;
	uint8_t *f = (uint8_t *)rte_pktmbuf_append(m, RTE_ETHER_MIN_LEN - RTE_ETHER_CRC_LEN);
	if (f == NULL) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	memset(f, 0, RTE_ETHER_MIN_LEN - RTE_ETHER_CRC_LEN);
	memcpy(f, dmac, 6);
	memcpy(f + 6, a->sha, 6);
	put16(f + 12, RTE_ETHER_TYPE_ARP);
	sl_arp_write(f + RTE_ETHER_HDR_LEN, a);
	return m;
}

bool sl_icmp_is_error(uint8_t type)
{
	/* unreachable, source quench, redirect, time exceeded, parameter problem */
	return type == 3 || type == 4 || type == 5 || type == 11 || type == 12;
}

enum sl_icmp_result sl_icmp_parse(const uint8_t *p, uint32_t len, uint8_t *type, uint8_t *code)
{
	if (len < 8)
		return SL_ICMP_SHORT;
	*type = p[0];
	*code = p[1];
	if (rte_raw_cksum(p, len) != 0xffff)
		return SL_ICMP_BAD_CSUM;
	return SL_ICMP_OK;
}

void sl_icmp_echo_to_reply(struct rte_mbuf *m, uint32_t l3, const uint8_t smac[6])
{
	uint8_t *f = rte_pktmbuf_mtod(m, uint8_t *);
	memcpy(f, f + 6, 6);
	memcpy(f + 6, smac, 6);
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(f + l3);
	uint32_t a = ip->src_addr;
	ip->src_addr = ip->dst_addr;
	ip->dst_addr = a;
	ip->time_to_live = 64;
	ip->hdr_checksum = 0;
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	uint8_t *icmp = f + l3 + rte_ipv4_hdr_len(ip);
	uint16_t old = get16(icmp);
	icmp[0] = SL_ICMP_ECHO_REPLY;
	put16(icmp + 2, sl_csum_replace16(get16(icmp + 2), old, get16(icmp)));
}

bool sl_icmp_may_answer(const struct rte_mbuf *m, uint32_t l3)
{
	uint8_t hdr[24];
	const uint8_t *e = rte_pktmbuf_read(m, 0, 6, hdr);
	if (e == NULL || (e[0] & 1) != 0)          /* link broadcast or multicast */
		return false;
	const uint8_t *ip = rte_pktmbuf_read(m, l3, 20, hdr);
	if (ip == NULL)
		return false;
	uint32_t src = get32(ip + 12), dst = get32(ip + 16);
	if ((get16(ip + 6) & RTE_IPV4_HDR_OFFSET_MASK) != 0)   /* not the first fragment */
		return false;
	if (dst == 0xffffffffu || (dst >> 28) == 0xe)
		return false;
	if (src == 0 || src == 0xffffffffu || (src >> 28) == 0xe || (src >> 24) == 127)
		return false;
	if (ip[9] == IPPROTO_ICMP) {
		uint32_t ihl = (uint32_t)(ip[0] & 0xf) * 4;
		uint8_t type[1];
		const uint8_t *t = rte_pktmbuf_read(m, l3 + ihl, 1, type);
		if (t == NULL || sl_icmp_is_error(t[0]))
			return false;
	}
	return true;
}

struct rte_mbuf *sl_icmp_error(struct rte_mempool *mp, const struct rte_mbuf *orig, uint32_t l3,
			       uint8_t type, uint8_t code, uint16_t next_mtu, uint32_t src,
			       const uint8_t smac[6])
{
	uint8_t tmp[20];
	const uint8_t *oip = rte_pktmbuf_read(orig, l3, 20, tmp);
	if (oip == NULL)
		return NULL;
	uint32_t avail = rte_pktmbuf_pkt_len(orig) - l3;
	uint32_t total = get16(oip + 2);
	if (total < avail)
		avail = total;                     /* leave Ethernet padding out */
	uint32_t quote = avail < 576 - 28 ? avail : 576 - 28;
	struct rte_mbuf *m = rte_pktmbuf_alloc(mp);
	if (m == NULL)
		return NULL;
	uint32_t len = RTE_ETHER_HDR_LEN + 28 + quote;
	uint8_t *f = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)len);
	if (f == NULL) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	const uint8_t *oe = rte_pktmbuf_read(orig, 6, 6, tmp);   /* its sender's MAC */
	memcpy(f, oe, 6);
	memcpy(f + 6, smac, 6);
	put16(f + 12, RTE_ETHER_TYPE_IPV4);
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(f + RTE_ETHER_HDR_LEN);
	memset(ip, 0, sizeof(*ip));
	ip->version_ihl = RTE_IPV4_VHL_DEF;
	ip->total_length = rte_cpu_to_be_16((uint16_t)(28 + quote));
	ip->time_to_live = 64;
	ip->next_proto_id = IPPROTO_ICMP;
	ip->src_addr = rte_cpu_to_be_32(src);
	memcpy(&ip->dst_addr, oip + 12, 4);
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	uint8_t *icmp = (uint8_t *)(ip + 1);
	icmp[0] = type;
	icmp[1] = code;
	put16(icmp + 2, 0);
	put16(icmp + 4, 0);
	put16(icmp + 6, next_mtu);
	const uint8_t *q = rte_pktmbuf_read(orig, l3, quote, icmp + 8);
	if (q != icmp + 8)
		memcpy(icmp + 8, q, quote);   /* in place in orig's first segment */
	/* rte_raw_cksum sums native 16-bit words: its complement is stored
	 * as it is, not byte-swapped */
	uint16_t ck = (uint16_t)~rte_raw_cksum(icmp, 8 + quote);
	memcpy(icmp + 2, &ck, sizeof(ck));
	return m;
}
