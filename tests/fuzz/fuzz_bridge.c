/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_bridge: the bridge's handling of one frame at its members
 * (apps/bridge/frame.h): the VLAN found on the way in, with the tag taken
 * off, and the tag put on for the way out, on arbitrary frames and member
 * settings.
 *
 * Input: byte 0: bit 0 the ingress member a trunk, bit 1 the egress member
 * a trunk, bit 2 the tag already taken off by the device (its TCI from
 * bytes 5-6), bits 3-7 the mbuf's headroom (0..30 bytes, even:
 * the headers are 2-byte aligned types); bytes 1-2 and 3-4:
 * the ingress and egress members' VLAN (an access port's, or a trunk's
 * native; 0..4095 kept as given, so invalid ones are tried too); bytes 7-10
 * and 11-14: two VLANs of each trunk; the rest is the frame, in a buffer of
 * exactly headroom + its size, so that AddressSanitizer catches a read or
 * write outside it.
 *
 * Promises checked (frame.h): a frame shorter than an Ethernet header, or
 * tagged and shorter than the tag, is a runt, and nothing else is; an
 * accepted frame's VLAN is one its member carries (an access member's own,
 * for an untagged or priority-tagged frame on either kind), in 1..4094, in
 * the TCI's low bits; the frame left is the original without its tag (the
 * MACs and everything after the tag the same bytes); on the way out a
 * member that tags the VLAN gets exactly that frame with a tag of the VLAN
 * and the original priority bits after the MACs, or a refusal with the
 * frame unchanged when there is no headroom; a member that does not tag
 * gets it unchanged.
 */
#include <rte_mbuf.h>

#include "apps/bridge/frame.h"

#include "fuzz.h"

static void member(struct sl_br_member *m, bool trunk, const uint8_t *vlan, const uint8_t *two)
{
	memset(m, 0, sizeof(*m));
	m->mode = trunk ? SL_BR_TRUNK : SL_BR_ACCESS;
	m->vlan = (uint16_t)((vlan[0] << 8 | vlan[1]) & 0xfff);
	if (trunk) {
		for (unsigned i = 0; i < 2; i++) {
			unsigned v = (unsigned)(two[2 * i] << 8 | two[2 * i + 1]) & 0xfff;
			if (v >= 1 && v <= 4094)
				sl_br_vlan_set(m->vlans, v);
		}
	}
	if (m->vlan >= 1 && m->vlan <= 4094)
		sl_br_vlan_set(m->vlans, m->vlan);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 15 || size > 15 + 9000)
		return 0;
	const uint8_t *f = data + 15;
	/* even: DPDK's Ethernet and VLAN headers are 2-byte aligned types */
	uint32_t len = (uint32_t)(size - 15), head = (data[0] >> 3) & ~1u;
	bool stripped = data[0] & 4;
	struct sl_br_member in, out;
	member(&in, data[0] & 1, data + 1, data + 7);
	member(&out, data[0] & 2, data + 3, data + 11);

	uint8_t *buf = malloc(head + len + 1);
	fuzz_require(buf != NULL, "out of memory");
	memcpy(buf + head, f, len);
	struct rte_mbuf mb;
	memset(&mb, 0, sizeof(mb));
	mb.buf_addr = buf;
	mb.buf_len = (uint16_t)(head + len);
	mb.data_off = (uint16_t)head;
	mb.data_len = (uint16_t)len;
	mb.pkt_len = len;
	mb.nb_segs = 1;
	rte_mbuf_refcnt_set(&mb, 1);
	if (stripped) {
		mb.ol_flags = RTE_MBUF_F_RX_VLAN | RTE_MBUF_F_RX_VLAN_STRIPPED;
		mb.vlan_tci = (uint16_t)(data[5] << 8 | data[6]);
	}
	uint16_t dev_tci = mb.vlan_tci;
	bool in_data = !stripped && len >= 14 && f[12] == 0x81 && f[13] == 0x00;

	enum sl_br_drop why = 0;
	struct rte_mbuf *m = &mb;
	unsigned vid = sl_br_ingress(&in, m, &why);
	bool runt = len < 14 || (in_data && len < 18);
	fuzz_require((vid == 0 && why == SL_BR_RUNT) == runt, "runt %d, outcome vid %u why %d",
		     runt, vid, why);
	if (vid == 0) {
		fuzz_require(why == SL_BR_RUNT || why == SL_BR_VLAN, "a drop without a reason");
		free(buf);
		return 0;
	}
	fuzz_require(vid >= 1 && vid <= 4094 && sl_br_carries(&in, vid), "VLAN %u not carried", vid);
	fuzz_require((m->vlan_tci & 0xfff) == vid, "TCI %#x for VLAN %u", m->vlan_tci, vid);
	unsigned tag_vid = stripped ? dev_tci & 0xfffu : in_data ? (unsigned)(f[14] << 8 | f[15]) & 0xfff : 0;
	uint16_t pcp = stripped ? dev_tci & 0xf000 : in_data ? (uint16_t)((f[14] << 8) & 0xf000) : 0;
	if (tag_vid == 0)
		fuzz_require(vid == in.vlan, "untagged: VLAN %u, the member's is %u", vid, in.vlan);
	else
		fuzz_require(in.mode == SL_BR_TRUNK && vid == tag_vid && vid != in.vlan,
			     "tagged %u accepted as %u on a %s", tag_vid, vid,
			     in.mode == SL_BR_TRUNK ? "trunk" : "access port");
	fuzz_require((m->vlan_tci & 0xf000) == pcp, "priority bits lost");
	fuzz_require(!(m->ol_flags & (RTE_MBUF_F_RX_VLAN | RTE_MBUF_F_RX_VLAN_STRIPPED)),
		     "VLAN flags left on the mbuf");
	/* the frame without its tag */
	uint32_t plain_len = in_data ? len - 4 : len;
	uint8_t *plain = malloc(plain_len + 1);
	fuzz_require(plain != NULL, "out of memory");
	memcpy(plain, f, 12);
	memcpy(plain + 12, f + (in_data ? 16 : 12), plain_len - 12);
	fuzz_require(m->data_len == plain_len && m->pkt_len == plain_len &&
		     memcmp(rte_pktmbuf_mtod(m, uint8_t *), plain, plain_len) == 0,
		     "the frame after the tag was taken off");

	if (sl_br_carries(&out, vid)) {
		uint16_t before_off = m->data_off;
		int rc = sl_br_egress(&out, vid, &m);
		const uint8_t *got = rte_pktmbuf_mtod(m, const uint8_t *);
		if (!sl_br_tags(&out, vid)) {
			fuzz_require(rc == 0 && m->data_len == plain_len &&
				     memcmp(got, plain, plain_len) == 0, "untagged egress changed the frame");
		} else if (rc != 0) {
			fuzz_require(before_off < 4 && m->data_off == before_off && m->data_len == plain_len &&
				     memcmp(got, plain, plain_len) == 0,
				     "a refused tag: headroom %u, frame changed", before_off);
		} else {
			uint16_t tci = (uint16_t)(got[14] << 8 | got[15]);
			fuzz_require(m->data_len == plain_len + 4 && memcmp(got, plain, 12) == 0 &&
				     got[12] == 0x81 && got[13] == 0x00 && tci == (pcp | vid) &&
				     memcmp(got + 16, plain + 12, plain_len - 12) == 0,
				     "the tagged frame: tci %#x for VLAN %u", tci, vid);
		}
	}
	free(plain);
	free(buf);
	return 0;
}
