/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Frame parser (pkt.h).  Each header is fetched with rte_pktmbuf_read: in
 * place when it lies in the first segment (the common case, one compare),
 * copied into a small stack buffer when it spans segments, NULL when the
 * frame ends first.  Multi-byte fields are loaded with memcpy, so nothing
 * here assumes alignment.
 */
#include <string.h>

#include <netinet/in.h>

#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_ip.h>

#include "apps/pkt/pkt.h"

#define ETHER_TYPE_VLAN_9100 0x9100
#define IPV4_HDR_MIN 20
#define IPV6_HDR_LEN 40
#define IPV6_EXT_MIN 8        /* every extension header is 8 bytes or more */

static const char *const reason_names[SL_PKT_R_COUNT] = {
	[SL_PKT_R_NONE] = "none",
	[SL_PKT_R_SHORT_L2] = "short_l2",
	[SL_PKT_R_VLAN_DEPTH] = "vlan_depth",
	[SL_PKT_R_SHORT_L3] = "short_l3",
	[SL_PKT_R_BAD_VERSION] = "bad_version",
	[SL_PKT_R_BAD_IHL] = "bad_ihl",
	[SL_PKT_R_BAD_LEN] = "bad_len",
	[SL_PKT_R_BAD_EXT] = "bad_ext",
	[SL_PKT_R_SHORT_L4] = "short_l4",
};

const char *sl_pkt_reason_name(unsigned reason)
{
	return reason < SL_PKT_R_COUNT ? reason_names[reason] : "?";
}

static inline uint16_t be16_at(const uint8_t *p)
{
	uint16_t v;
	memcpy(&v, p, sizeof(v));
	return rte_be_to_cpu_16(v);
}

static inline bool is_vlan_tpid(uint16_t type)
{
	return type == RTE_ETHER_TYPE_VLAN || type == RTE_ETHER_TYPE_QINQ ||
	       type == ETHER_TYPE_VLAN_9100;
}

static inline bool is_ipv6_ext(uint8_t nh)
{
	return nh == IPPROTO_HOPOPTS || nh == IPPROTO_ROUTING || nh == IPPROTO_DSTOPTS ||
	       nh == IPPROTO_FRAGMENT;
}

/* Mark the frame malformed: the key and the IP fields go back to zero. */
static enum sl_pkt_class malformed(struct sl_flow_key *key, struct sl_pkt_info *info,
				   enum sl_pkt_reason reason)
{
	sl_flow_key_zero(key);
	info->reason = (uint8_t)reason;
	info->l3_off = info->l4_off = info->l3_len = 0;
	info->fragment = info->first_fragment = false;
	return SL_PKT_MALFORMED;
}

/* Ports of a first fragment at l4 (the datagram ends at end). */
static enum sl_pkt_class take_ports(const struct rte_mbuf *m, struct sl_flow_key *key,
				    struct sl_pkt_info *info, uint32_t l4, uint32_t end)
{
	uint8_t buf[4];
	const uint8_t *p;

	if (!info->first_fragment || !sl_pkt_has_ports(key->proto))
		return SL_PKT_IP;
	if (l4 + 4 > end)
		return malformed(key, info, SL_PKT_R_SHORT_L4);
	p = rte_pktmbuf_read(m, l4, 4, buf);
	if (p == NULL)   /* cannot happen: end is inside the frame */
		return malformed(key, info, SL_PKT_R_SHORT_L4);
	key->sport = be16_at(p);
	key->dport = be16_at(p + 2);
	return SL_PKT_IP;
}

static enum sl_pkt_class parse_ipv4(const struct rte_mbuf *m, uint32_t off, uint32_t frame,
				    struct sl_flow_key *key, struct sl_pkt_info *info)
{
	uint8_t buf[IPV4_HDR_MIN];
	const uint8_t *h = rte_pktmbuf_read(m, off, IPV4_HDR_MIN, buf);
	uint32_t avail = frame - off;
	uint32_t ihl, total;
	uint16_t frag;

	if (h == NULL)
		return malformed(key, info, SL_PKT_R_SHORT_L3);
	if (h[0] >> 4 != 4)
		return malformed(key, info, SL_PKT_R_BAD_VERSION);
	ihl = (uint32_t)(h[0] & 0x0f) * 4;
	if (ihl < IPV4_HDR_MIN)
		return malformed(key, info, SL_PKT_R_BAD_IHL);
	if (ihl > avail)
		return malformed(key, info, SL_PKT_R_SHORT_L3);
	total = be16_at(h + 2);
	if (total < ihl || total > avail)
		return malformed(key, info, SL_PKT_R_BAD_LEN);

	frag = be16_at(h + 6);
	info->fragment = (frag & (RTE_IPV4_HDR_MF_FLAG | RTE_IPV4_HDR_OFFSET_MASK)) != 0;
	info->first_fragment = (frag & RTE_IPV4_HDR_OFFSET_MASK) == 0;
	info->l4_off = off + ihl;
	info->l3_len = total;
	key->family = 4;
	key->proto = h[9];
	memcpy(key->src, h + 12, 4);
	memcpy(key->dst, h + 16, 4);
	return take_ports(m, key, info, off + ihl, off + total);
}

static enum sl_pkt_class parse_ipv6(const struct rte_mbuf *m, uint32_t off, uint32_t frame,
				    struct sl_flow_key *key, struct sl_pkt_info *info)
{
	uint8_t buf[IPV6_HDR_LEN];
	const uint8_t *h = rte_pktmbuf_read(m, off, IPV6_HDR_LEN, buf);
	uint32_t pos, end;
	uint8_t nh;

	if (h == NULL)
		return malformed(key, info, SL_PKT_R_SHORT_L3);
	if (h[0] >> 4 != 6)
		return malformed(key, info, SL_PKT_R_BAD_VERSION);
	end = off + IPV6_HDR_LEN + be16_at(h + 4);
	if (end > frame)
		return malformed(key, info, SL_PKT_R_BAD_LEN);
	key->family = 6;
	memcpy(key->src, h + 8, 16);
	memcpy(key->dst, h + 24, 16);
	nh = h[6];
	info->first_fragment = true;

	/* h points into buf or the mbuf; from here only the extension headers
	 * are read, into ext. */
	pos = off + IPV6_HDR_LEN;
	for (unsigned i = 0; is_ipv6_ext(nh); i++) {
		uint8_t ext[IPV6_EXT_MIN];
		const uint8_t *e;

		if (i == SL_PKT_IPV6_EXT || pos + IPV6_EXT_MIN > end)
			return malformed(key, info, SL_PKT_R_BAD_EXT);
		e = rte_pktmbuf_read(m, pos, IPV6_EXT_MIN, ext);
		if (e == NULL)
			return malformed(key, info, SL_PKT_R_BAD_EXT);
		if (nh == IPPROTO_FRAGMENT) {
			uint16_t offm = be16_at(e + 2);    /* offset << 3 | res | M */
			info->fragment = true;
			info->first_fragment = (offm >> 3) == 0;
			nh = e[0];
			pos += IPV6_EXT_MIN;
			/* What follows a later fragment's header is the middle
			 * of the datagram, not another header. */
			if (!info->first_fragment)
				break;
		} else {
			uint32_t len = ((uint32_t)e[1] + 1) * 8;
			if (pos + len > end)
				return malformed(key, info, SL_PKT_R_BAD_EXT);
			nh = e[0];
			pos += len;
		}
	}
	key->proto = nh;
	info->l4_off = pos;
	info->l3_len = end - off;
	return take_ports(m, key, info, pos, end);
}

enum sl_pkt_class sl_pkt_parse_full(const struct rte_mbuf *m, struct sl_flow_key *key,
				    struct sl_pkt_info *info)
{
	uint32_t frame = rte_pktmbuf_pkt_len(m);
	uint8_t buf[RTE_ETHER_HDR_LEN];
	const uint8_t *p;
	uint32_t off = RTE_ETHER_HDR_LEN;
	uint16_t type;

	sl_flow_key_zero(key);
	memset(info, 0, sizeof(*info));
	p = rte_pktmbuf_read(m, 0, RTE_ETHER_HDR_LEN, buf);
	if (p == NULL)
		return malformed(key, info, SL_PKT_R_SHORT_L2);
	type = be16_at(p + 12);
	uint16_t outer_vid = 0;
	while (is_vlan_tpid(type)) {
		uint8_t tag[4];
		if (info->vlans == 2)
			return malformed(key, info, SL_PKT_R_VLAN_DEPTH);
		p = rte_pktmbuf_read(m, off, sizeof(tag), tag);
		if (p == NULL)
			return malformed(key, info, SL_PKT_R_SHORT_L2);
		if (info->vlans == 0)
			outer_vid = be16_at(p) & 0x0fff;
		type = be16_at(p + 2);
		off += sizeof(tag);
		info->vlans++;
	}
	info->ethertype = type;

	/* the VLAN goes in the key of an IP frame only (a malformed one's key
	 * is zeroed again) */
	if (type == RTE_ETHER_TYPE_IPV4) {
		info->l3_off = (uint16_t)off;
		key->vlan = outer_vid;
		return parse_ipv4(m, off, frame, key, info);
	}
	if (type == RTE_ETHER_TYPE_IPV6) {
		info->l3_off = (uint16_t)off;
		key->vlan = outer_vid;
		return parse_ipv6(m, off, frame, key, info);
	}
	return SL_PKT_NOT_IP;
}

bool sl_pkt_fill_l4_csum(struct rte_mbuf *m)
{
	struct sl_flow_key key;
	struct sl_pkt_info info;
	if (sl_pkt_parse(m, &key, &info) != SL_PKT_IP || info.fragment ||
	    (key.proto != IPPROTO_TCP && key.proto != IPPROTO_UDP) ||
	    info.l3_off + info.l3_len > rte_pktmbuf_data_len(m))
		return false;
	uint8_t *l3 = rte_pktmbuf_mtod_offset(m, uint8_t *, info.l3_off);
	uint8_t *l4 = rte_pktmbuf_mtod_offset(m, uint8_t *, info.l4_off);
	uint32_t l4_len = info.l3_len - (info.l4_off - info.l3_off);
	uint32_t field = key.proto == IPPROTO_TCP ? 16 : 6;   /* the checksum's offset */
	if (l4_len < field + 2 || (key.proto == IPPROTO_TCP && l4_len < 20) ||
	    (key.family == 6 && info.l4_off != info.l3_off + sizeof(struct rte_ipv6_hdr)))
		return false;   /* cut short, or IPv6 extension headers: not summed here */
	l4[field] = l4[field + 1] = 0;
	uint16_t ck = key.family == 4
		? rte_ipv4_udptcp_cksum((const struct rte_ipv4_hdr *)l3, l4)
		: rte_ipv6_udptcp_cksum((const struct rte_ipv6_hdr *)l3, l4);
	memcpy(l4 + field, &ck, sizeof(ck));
	return true;
}
