/* SPDX-License-Identifier: BSD-3-Clause */
/* Neighbour discovery and ICMPv6: proto6.h. */
#include <string.h>

#include <rte_ether.h>
#include <rte_ip.h>

#include "apps/router/proto6.h"

static const uint8_t zero16[16];

bool sl_ip6_is_unspecified(const uint8_t a[16])
{
	return memcmp(a, zero16, 16) == 0;
}

void sl_ip6_solicited(const uint8_t a[16], uint8_t group[16], uint8_t mac[6])
{
	static const uint8_t pre[13] = { 0xff, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0xff };
	memcpy(group, pre, 13);
	memcpy(group + 13, a + 13, 3);
	mac[0] = 0x33;
	mac[1] = 0x33;
	memcpy(mac + 2, group + 12, 4);
}

void sl_ip6_link_local(const uint8_t mac[6], uint8_t out[16])
{
	memset(out, 0, 16);
	out[0] = 0xfe;
	out[1] = 0x80;
	out[8] = mac[0] ^ 0x02;
	out[9] = mac[1];
	out[10] = mac[2];
	out[11] = 0xff;
	out[12] = 0xfe;
	out[13] = mac[3];
	out[14] = mac[4];
	out[15] = mac[5];
}

/* The ICMPv6 sum (RFC 4443 2.3) of len bytes at msg behind the IPv6 header
 * ip, folded, in native order: 0xffff over a message with a good checksum. */
static uint16_t sum6(const uint8_t *ip, const uint8_t *msg, uint32_t len)
{
	const uint8_t tail[8] = { (uint8_t)(len >> 24), (uint8_t)(len >> 16), (uint8_t)(len >> 8),
				  (uint8_t)len, 0, 0, 0, SL_ICMP6_PROTO };
	uint32_t s = __rte_raw_cksum(ip + 8, 32, 0);
	s = __rte_raw_cksum(tail, sizeof(tail), s);
	s = __rte_raw_cksum(msg, len, s);
	return __rte_raw_cksum_reduce(s);
}

static void set_sum6(const uint8_t *ip, uint8_t *msg, uint32_t len)
{
	msg[2] = msg[3] = 0;
	uint16_t ck = (uint16_t)~sum6(ip, msg, len);
	if (ck == 0)
		ck = 0xffff;
	memcpy(msg + 2, &ck, sizeof(ck));
}

bool sl_icmp6_check(const uint8_t *ip, const uint8_t *icmp, uint32_t len, uint8_t *type)
{
	if (len < 8 || sum6(ip, icmp, len) != 0xffff)
		return false;
	*type = icmp[0];
	return true;
}

enum sl_nd_result sl_nd_parse(const uint8_t *ip, const uint8_t *icmp, uint32_t len,
			      struct sl_nd *out)
{
	memset(out, 0, sizeof(*out));
	if (len < 24)
		return SL_ND_SHORT;
	if (icmp[0] != SL_ND_NS && icmp[0] != SL_ND_NA)
		return SL_ND_NOT_ND;
	if (icmp[1] != 0)
		return SL_ND_BAD_CODE;
	if (ip[7] != 255)
		return SL_ND_BAD_HOPS;
	out->type = icmp[0];
	out->flags = out->type == SL_ND_NA ? icmp[4] & 0xe0 : 0;
	memcpy(out->target, icmp + 8, 16);
	if (sl_ip6_is_multicast(out->target))
		return SL_ND_BAD_TARGET;
	uint8_t want = out->type == SL_ND_NS ? 1 : 2;   /* source / target link-layer */
	for (uint32_t off = 24; off < len;) {
		if (len - off < 2)
			return SL_ND_SHORT;
		uint32_t olen = (uint32_t)icmp[off + 1] * 8;
		if (olen == 0)
			return SL_ND_BAD_OPTION;
		if (olen > len - off)
			return SL_ND_SHORT;
		if (icmp[off] == want && olen >= 8) {
			out->has_lladdr = true;
			memcpy(out->lladdr, icmp + off + 2, 6);
		}
		off += olen;
	}
	if (sum6(ip, icmp, len) != 0xffff)
		return SL_ND_BAD_CSUM;
	return SL_ND_OK;
}

/* A frame of an ICMPv6 message of len bytes from mp: Ethernet and IPv6
 * headers written, *ip and the message's first byte returned (zeroed). */
static uint8_t *frame6(struct rte_mempool *mp, struct rte_mbuf **mo, const uint8_t dmac[6],
		       const uint8_t smac[6], const uint8_t src[16], const uint8_t dst[16],
		       uint8_t hops, uint32_t len, uint8_t **ip)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(mp);
	if (m == NULL)
		return NULL;
	uint8_t *f = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)(RTE_ETHER_HDR_LEN +
								 SL_IP6_HDR + len));
	if (f == NULL) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	memcpy(f, dmac, 6);
	memcpy(f + 6, smac, 6);
	f[12] = RTE_ETHER_TYPE_IPV6 >> 8;
	f[13] = RTE_ETHER_TYPE_IPV6 & 0xff;
	uint8_t *h = f + RTE_ETHER_HDR_LEN;
	memset(h, 0, SL_IP6_HDR + len);
	h[0] = 0x60;
	h[4] = (uint8_t)(len >> 8);
	h[5] = (uint8_t)len;
	h[6] = SL_ICMP6_PROTO;
	h[7] = hops;
	memcpy(h + 8, src, 16);
	memcpy(h + 24, dst, 16);
	*ip = h;
	*mo = m;
	return h + SL_IP6_HDR;
}

/* A solicitation or advertisement (type) of target with flags, from src
 * (smac) to dst / dmac, with a link-layer option (source for a
 * solicitation, target for an advertisement) holding smac. */
static struct rte_mbuf *nd_frame(struct rte_mempool *mp, uint8_t type, uint8_t flags,
				 const uint8_t smac[6], const uint8_t src[16],
				 const uint8_t dmac[6], const uint8_t dst[16],
				 const uint8_t target[16])
{
	struct rte_mbuf *m;
	uint8_t *ip;
	uint8_t *p = frame6(mp, &m, dmac, smac, src, dst, 255, 32, &ip);
	if (p == NULL)
		return NULL;
	p[0] = type;
	p[4] = flags;
	memcpy(p + 8, target, 16);
	p[24] = type == SL_ND_NS ? 1 : 2;   /* the option, 8 bytes */
	p[25] = 1;
	memcpy(p + 26, smac, 6);
	set_sum6(ip, p, 32);
	return m;
}

struct rte_mbuf *sl_nd_ns_frame(struct rte_mempool *mp, const uint8_t smac[6],
				const uint8_t src[16], const uint8_t dmac[6],
				const uint8_t dst[16], const uint8_t target[16])
{
	return nd_frame(mp, SL_ND_NS, 0, smac, src, dmac, dst, target);
}

struct rte_mbuf *sl_nd_na_frame(struct rte_mempool *mp, const uint8_t smac[6],
				const uint8_t dmac[6], const uint8_t dst[16],
				const uint8_t target[16], uint8_t flags)
{
	return nd_frame(mp, SL_ND_NA, flags, smac, target, dmac, dst, target);
}

void sl_icmp6_echo_to_reply(struct rte_mbuf *m, uint32_t l3, const uint8_t smac[6])
{
	uint8_t *f = rte_pktmbuf_mtod(m, uint8_t *);
	uint8_t *ip = f + l3;
	uint8_t a[16];
	memcpy(f, f + 6, 6);
	memcpy(f + 6, smac, 6);
	memcpy(a, ip + 8, 16);
	memcpy(ip + 8, ip + 24, 16);
	memcpy(ip + 24, a, 16);
	ip[7] = 64;
	uint32_t len = (uint32_t)ip[4] << 8 | ip[5];
	uint8_t *icmp = ip + SL_IP6_HDR;
	icmp[0] = SL_ICMP6_ECHO_REPLY;
	set_sum6(ip, icmp, len);
}

struct rte_mbuf *sl_icmp6_error(struct rte_mempool *mp, const struct rte_mbuf *orig,
				uint32_t l3, uint8_t type, uint8_t code, uint32_t param,
				const uint8_t src[16], const uint8_t smac[6])
{
	uint8_t tmp[SL_IP6_HDR];
	const uint8_t *oip = rte_pktmbuf_read(orig, l3, SL_IP6_HDR, tmp);
	if (oip == NULL)
		return NULL;
	uint32_t avail = rte_pktmbuf_pkt_len(orig) - l3;
	uint32_t total = SL_IP6_HDR + ((uint32_t)oip[4] << 8 | oip[5]);
	if (total < avail)
		avail = total;                     /* leave Ethernet padding out */
	uint32_t quote = avail < 1280 - 48 ? avail : 1280 - 48;
	uint8_t omac[6], odst[16];
	const uint8_t *oe = rte_pktmbuf_read(orig, 6, 6, omac);   /* its sender's MAC */
	memcpy(odst, oip + 8, 16);                               /* its source */
	struct rte_mbuf *m;
	uint8_t *ip;
	uint8_t *p = frame6(mp, &m, oe, smac, src, odst, 64, 8 + quote, &ip);
	if (p == NULL)
		return NULL;
	p[0] = type;
	p[1] = code;
	p[4] = (uint8_t)(param >> 24);
	p[5] = (uint8_t)(param >> 16);
	p[6] = (uint8_t)(param >> 8);
	p[7] = (uint8_t)param;
	const uint8_t *q = rte_pktmbuf_read(orig, l3, quote, p + 8);
	if (q != p + 8)
		memcpy(p + 8, q, quote);
	set_sum6(ip, p, 8 + quote);
	return m;
}

bool sl_icmp6_may_answer(const struct rte_mbuf *m, uint32_t l3)
{
	uint8_t tmp[SL_IP6_HDR + 1], e;
	const uint8_t *ip = rte_pktmbuf_read(m, l3, SL_IP6_HDR + 1, tmp);
	const uint8_t *eh = rte_pktmbuf_read(m, 0, 1, &e);
	if (ip == NULL || eh == NULL || (eh[0] & 1) != 0)
		return false;
	if (sl_ip6_is_multicast(ip + 24) || sl_ip6_is_multicast(ip + 8) ||
	    sl_ip6_is_unspecified(ip + 8))
		return false;
	uint8_t t = ip[SL_IP6_HDR];
	if (ip[6] == SL_ICMP6_PROTO && (sl_icmp6_is_error(t) || (t >= 133 && t <= 137)))
		return false;
	if (ip[6] == 44) {   /* a fragment header first: not about a non-first fragment */
		uint8_t fb[8];
		const uint8_t *fh = rte_pktmbuf_read(m, l3 + SL_IP6_HDR, 8, fb);
		if (fh == NULL || ((fh[2] << 8 | fh[3]) & 0xfff8) != 0)
			return false;
	}
	return true;
}
