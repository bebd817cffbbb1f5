/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * frame.h: what the bridge does to one frame at a member (docs/bridge.md),
 * apart from the MAC table: the VLAN a frame belongs to on the way in (its
 * tag taken off), and the tag it gets on the way out.  Inline, on one mbuf;
 * no state beyond the member's settings (fuzz_bridge exercises both on
 * arbitrary frames).
 *
 * A member is an access port (untagged frames of `vlan`) or a trunk (tagged
 * frames of its `vlans`, untagged ones of its native VLAN `vlan`, 0 for
 * none); `vlans` includes an access port's VLAN and a trunk's native one.
 */
#ifndef SL_BRIDGE_FRAME_H
#define SL_BRIDGE_FRAME_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <rte_ether.h>
#include <rte_mbuf.h>

#define SL_BR_VLAN_WORDS (4096 / 64)

enum { SL_BR_ACCESS, SL_BR_TRUNK };   /* order of the members' mode choices */

struct sl_br_member {
	unsigned port;                      /* N of inputN / outputN */
	unsigned mode;                      /* SL_BR_ACCESS or SL_BR_TRUNK */
	uint16_t vlan;                      /* access: its VLAN; trunk: native, 0 if none */
	uint64_t vlans[SL_BR_VLAN_WORDS];   /* every VLAN it carries */
};

/* Why a frame is dropped on the way in. */
enum sl_br_drop {
	SL_BR_RUNT = 1,       /* shorter than an Ethernet header, or its tag cut short */
	SL_BR_VLAN,           /* a VLAN the member does not carry */
};

static inline bool sl_br_carries(const struct sl_br_member *m, unsigned vid)
{
	return vid < 4096 && ((m->vlans[vid / 64] >> (vid % 64)) & 1);
}

static inline void sl_br_vlan_set(uint64_t *words, unsigned vid)
{
	words[vid / 64] |= 1ull << (vid % 64);
}

/* The VLAN (1..4094) of frame m arriving from member mi, with a tag in the
 * frame taken off (its priority bits kept in m->vlan_tci with the VLAN id;
 * a tag the device already took off, RTE_MBUF_F_RX_VLAN_STRIPPED, read
 * from m->vlan_tci); or 0 with *why set, the frame unchanged but for a
 * tag already taken off.  Priority-tagged frames (VLAN id 0) are the
 * member's untagged VLAN.  Reads only the first segment. */
static inline unsigned sl_br_ingress(const struct sl_br_member *mi, struct rte_mbuf *m,
				     enum sl_br_drop *why)
{
	unsigned vid = 0;
	bool tagged = false;
	if (unlikely(rte_pktmbuf_data_len(m) < RTE_ETHER_HDR_LEN)) {
		*why = SL_BR_RUNT;
		return 0;
	}
	if (m->ol_flags & RTE_MBUF_F_RX_VLAN_STRIPPED) {   /* the device took it */
		vid = m->vlan_tci & 0xfff;
		tagged = true;
	} else {
		uint16_t type;
		memcpy(&type, rte_pktmbuf_mtod_offset(m, const uint8_t *, 2 * RTE_ETHER_ADDR_LEN),
		       sizeof(type));
		if (type == RTE_BE16(RTE_ETHER_TYPE_VLAN)) {
			if (rte_pktmbuf_data_len(m) < RTE_ETHER_HDR_LEN + sizeof(struct rte_vlan_hdr) ||
			    rte_vlan_strip(m) != 0) {
				*why = SL_BR_RUNT;
				return 0;
			}
			vid = m->vlan_tci & 0xfff;
			tagged = true;
		} else {
			m->vlan_tci = 0;
		}
	}
	m->ol_flags &= ~(RTE_MBUF_F_RX_VLAN | RTE_MBUF_F_RX_VLAN_STRIPPED);
	if (vid == 0) {   /* untagged, or priority-tagged */
		if (!sl_br_carries(mi, mi->vlan) || mi->vlan == 0) {
			*why = SL_BR_VLAN;
			return 0;
		}
		m->vlan_tci = (uint16_t)((m->vlan_tci & 0xf000) | mi->vlan);
		return mi->vlan;
	}
	if (mi->mode == SL_BR_TRUNK && tagged && vid != mi->vlan && sl_br_carries(mi, vid))
		return vid;
	*why = SL_BR_VLAN;
	return 0;
}

/* Does member mo send VLAN vid's frames tagged? */
static inline bool sl_br_tags(const struct sl_br_member *mo, unsigned vid)
{
	return mo->mode == SL_BR_TRUNK && vid != mo->vlan;
}

/* Make frame m (untagged, as sl_br_ingress leaves it; m->vlan_tci's
 * priority bits kept) ready to leave by member mo on VLAN vid: tagged when
 * mo tags vid.  Returns 0, or -1 when the tag cannot be added (a shared or
 * indirect mbuf, no headroom): m is then unchanged. */
static inline int sl_br_egress(const struct sl_br_member *mo, unsigned vid, struct rte_mbuf **m)
{
	if (!sl_br_tags(mo, vid))
		return 0;
	(*m)->vlan_tci = (uint16_t)(((*m)->vlan_tci & 0xf000) | vid);
	return rte_vlan_insert(m) == 0 ? 0 : -1;
}

#endif
