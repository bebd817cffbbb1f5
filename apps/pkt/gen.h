/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gen.h: the frame generator that the source apps share.
 *
 * What it does: builds an Ethernet/IPv4/UDP template of a fixed size from the
 * params size, src_mac, dst_mac, src_ip and dst_ip (payload zero, UDP and
 * IPv4 checksums 0); works out how the frame fits the app's pool (bytes per
 * segment, segments per frame, frames per pull); paces with a token bucket on
 * the TSC (param rate, packets per second, 0: unlimited; the bucket holds at
 * most 10 ms of packets, at least 1) and stops after param count frames
 * (0: no limit).  Patching each frame (addresses, ports, checksums, stamps)
 * is the app's own business.
 *
 * Threads: sl_gen_init runs in the app's init (control thread); want, build
 * and sent run in the app's pull, on its one worker, and touch nothing but
 * the struct sl_gen and the pool.  A pull calls want, then build for at most
 * that many frames, patches them, then calls sent with the number it passes
 * on.
 *
 * Ownership: the mbufs sl_gen_build allocates belong to the caller, which
 * must transmit or free every one of them.  On failure it allocates nothing.
 */
#ifndef SL_APPS_GEN_H
#define SL_APPS_GEN_H

#include <arpa/inet.h>
#include <errno.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_memcpy.h>
#include <rte_udp.h>

#include "base/prefetch.h"
#include "runtime/app.h"

#define SL_GEN_SIZE_MAX 9000u
#define SL_GEN_HDR_LEN 42u             /* Ethernet + IPv4 + UDP */
#define SL_GEN_L3_OFF RTE_ETHER_HDR_LEN
#define SL_GEN_L4_OFF (SL_GEN_L3_OFF + 20u)
/* Every frame's packet type, and its l2_len and l3_len as tx_offload has
 * them. */
#define SL_GEN_PTYPE (RTE_PTYPE_L2_ETHER | RTE_PTYPE_L3_IPV4 | RTE_PTYPE_L4_UDP)
#define SL_GEN_TX_OFFLOAD \
	rte_mbuf_tx_offload(RTE_ETHER_HDR_LEN, sizeof(struct rte_ipv4_hdr), 0, 0, 0, 0, 0)

_Static_assert(sizeof(struct rte_ether_hdr) + sizeof(struct rte_ipv4_hdr) +
	       sizeof(struct rte_udp_hdr) == SL_GEN_HDR_LEN,
	       "template offsets assume packed 14 + 20 + 8 byte headers");

struct sl_gen {
	uint32_t size;           /* frame bytes, without FCS */
	uint32_t seg_cap;        /* data bytes one mbuf of the pool holds */
	unsigned nseg;           /* segments per frame */
	unsigned max_pkts;       /* frames per pull, so that all segments fit */

	uint64_t rate;           /* packets per second; 0: unlimited */
	uint64_t tsc_hz;
	uint64_t last_tsc;       /* 0 until the first pull */
	uint64_t credit;         /* packets x tsc_hz */
	uint64_t credit_max;

	uint64_t count;          /* 0: unlimited */
	uint64_t sent;

	uint32_t src_ip_host;    /* param src_ip, host order */
	bool prefetchw;          /* sl_prefetchw_supported(), at init */
	bool prefetchw_data;     /* also the next frames' data lines (set by an
				  * app whose frames a consumer reads: see
				  * sl_gen_prefetch_next_read); false at init */
	bool plain_pool;         /* the pool's mbufs own their buffers (not
				  * pinned external ones): see sl_gen_data */
	uint16_t data_off;       /* a fresh mbuf's data offset */
	uint32_t data_at;        /* where a fresh mbuf's data starts, from the
				  * mbuf (plain pools) */

	uint8_t frame[SL_GEN_SIZE_MAX];   /* template: headers, then zero payload */
};

/* text as an IPv4 address A.B.C.D (host order into *host, when not NULL).
 * Returns 0, or -EINVAL with "parameter 'PARAM' must be an IPv4 address
 * ..." in err.  No DPDK: the apps' config-load checks call it too. */
static inline int sl_gen_ipv4(const char *param, const char *text, uint32_t *host,
			      struct sl_err *err)
{
	struct in_addr a;

	if (text == NULL || inet_pton(AF_INET, text, &a) != 1)
		return sl_errf(err, EINVAL,
			       "parameter '%s' must be an IPv4 address like 198.18.0.1, got '%s'",
			       param, text != NULL ? text : "");
	if (host != NULL)
		*host = ntohl(a.s_addr);
	return 0;
}

/* The generators' address parameters, in their tables' order: src_mac,
 * dst_mac, src_ip (with the generator's own doc: a source adds flows to it)
 * and dst_ip; sl_gen_check checks the two IPv4 addresses. */
#define SL_GEN_ADDR_PARAMS(src_ip_doc)                                           \
	{ .name = "src_mac", .type = SL_PARAM_MAC, .def = "02:00:00:00:00:01",     \
	  .doc = "Ethernet source address" },                                     \
	{ .name = "dst_mac", .type = SL_PARAM_MAC, .def = "02:00:00:00:00:02",     \
	  .doc = "Ethernet destination address" },                                \
	{ .name = "src_ip", .type = SL_PARAM_STRING, .def = "198.18.0.1",          \
	  .doc = src_ip_doc },                                                    \
	{ .name = "dst_ip", .type = SL_PARAM_STRING, .def = "198.19.0.1",          \
	  .doc = "IPv4 destination address" }

/* At config load (sl_app_type.check): the generator's src_ip and dst_ip in
 * params, parallel to specs[0..n). */
static inline int sl_gen_check(const struct sl_param_spec *specs, unsigned n,
			       const struct sl_param_value *params, struct sl_err *err)
{
	static const char *const names[] = { "src_ip", "dst_ip" };

	for (unsigned i = 0; i < 2; i++) {
		int k = sl_param_find(specs, n, names[i]);
		int rc = sl_gen_ipv4(names[i], params[k].s, NULL, err);
		if (rc < 0)
			return rc;
	}
	return 0;
}

static inline int sl_gen_parse_ipv4(const struct sl_app *app, const char *param,
				    uint32_t *host, struct sl_err *err)
{
	return sl_gen_ipv4(param, sl_app_param_str(app, param), host, err);
}

/* How g->size bytes fit mp's mbufs, for bursts of at most burst frames:
 * seg_cap, nseg, max_pkts, and what sl_gen_build and sl_gen_data need to
 * know of the pool.  Returns 0, or -EINVAL with err set when a first segment
 * would hold fewer than first_seg_min bytes.  Called by sl_gen_init (and on
 * its own by the unit tests). */
static inline int sl_gen_fit(struct sl_gen *g, struct rte_mempool *mp, unsigned burst,
			     uint32_t first_seg_min, struct sl_err *err)
{
	/* A fresh mbuf starts RTE_PKTMBUF_HEADROOM bytes (or its whole buffer,
	 * if smaller) into its data room. */
	uint32_t room = rte_pktmbuf_data_room_size(mp);
	g->seg_cap = room - RTE_MIN(room, (uint32_t)RTE_PKTMBUF_HEADROOM);
	g->data_off = (uint16_t)RTE_MIN(room, (uint32_t)RTE_PKTMBUF_HEADROOM);
	g->data_at = (uint32_t)sizeof(struct rte_mbuf) + rte_pktmbuf_priv_size(mp) + g->data_off;
	g->plain_pool = (rte_pktmbuf_priv_flags(mp) & RTE_PKTMBUF_POOL_F_PINNED_EXT_BUF) == 0;
	g->prefetchw = sl_prefetchw_supported();
	g->prefetchw_data = false;   /* an app that wants it sets it after init */
	if (g->seg_cap < first_seg_min)
		return sl_errf(err, EINVAL,
			       "the pool's mbufs hold %u bytes after headroom; %u are needed",
			       g->seg_cap, first_seg_min);
	g->nseg = (g->size + g->seg_cap - 1) / g->seg_cap;
	g->max_pkts = RTE_MIN(burst, SL_BURST_MAX / g->nseg);
	return 0;
}

/* Reads the params; first_seg_min is how many bytes of the frame the first
 * segment must hold.  Returns 0 or a negative errno with err set. */
static inline int sl_gen_init(struct sl_gen *g, const struct sl_app *app,
			      uint16_t udp_src_port, uint16_t udp_dst_port,
			      uint32_t first_seg_min, struct sl_err *err)
{
	uint32_t dst_ip = 0;
	int rc;

	g->size = (uint32_t)sl_app_param_uint(app, "size");
	g->rate = sl_app_param_uint(app, "rate");
	g->count = sl_app_param_uint(app, "count");
	g->sent = 0;
	g->last_tsc = 0;
	g->credit = 0;
	g->credit_max = 0;
	g->src_ip_host = 0;
	rc = sl_gen_parse_ipv4(app, "src_ip", &g->src_ip_host, err);
	if (rc == 0)
		rc = sl_gen_parse_ipv4(app, "dst_ip", &dst_ip, err);
	if (rc < 0)
		return rc;

	rc = sl_gen_fit(g, app->pool, app->burst, first_seg_min, err);
	if (rc < 0)
		return rc;

	memset(g->frame, 0, sizeof(g->frame));
	struct rte_ether_hdr *eh = (struct rte_ether_hdr *)g->frame;
	memcpy(eh->dst_addr.addr_bytes, sl_app_param_mac(app, "dst_mac"), RTE_ETHER_ADDR_LEN);
	memcpy(eh->src_addr.addr_bytes, sl_app_param_mac(app, "src_mac"), RTE_ETHER_ADDR_LEN);
	eh->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);

	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(g->frame + SL_GEN_L3_OFF);
	ip->version_ihl = RTE_IPV4_VHL_DEF;
	ip->total_length = rte_cpu_to_be_16((uint16_t)(g->size - SL_GEN_L3_OFF));
	ip->time_to_live = 64;
	ip->next_proto_id = IPPROTO_UDP;
	ip->src_addr = rte_cpu_to_be_32(g->src_ip_host);
	ip->dst_addr = rte_cpu_to_be_32(dst_ip);

	struct rte_udp_hdr *udp = (struct rte_udp_hdr *)(g->frame + SL_GEN_L4_OFF);
	udp->src_port = rte_cpu_to_be_16(udp_src_port);
	udp->dst_port = rte_cpu_to_be_16(udp_dst_port);
	udp->dgram_len = rte_cpu_to_be_16((uint16_t)(g->size - SL_GEN_L4_OFF));

	g->tsc_hz = rte_get_tsc_hz();
	if (g->rate > 0) {
		/* 10 ms of packets: enough to make up for a preempted worker,
		 * little enough that an idle period ends in no large burst (and
		 * each pull sends at most max_pkts anyway). */
		uint64_t depth = RTE_MAX(UINT64_C(1), g->rate / 100);
		g->credit_max = depth * g->tsc_hz;
	}
	return 0;
}

/* Let the bucket hold `ns` of packets (at least 1) instead of 10 ms: the
 * longest stall of the worker the pacing makes up for.  After sl_gen_init;
 * ns <= 1 s (so that depth x tsc_hz stays in 64 bits). */
static inline void sl_gen_catch_up(struct sl_gen *g, uint64_t ns)
{
	if (g->rate == 0)
		return;
	uint64_t depth = RTE_MAX(UINT64_C(1), g->rate * ns / UINT64_C(1000000000));
	g->credit_max = depth * g->tsc_hz;
}

/* A new rate (packets per second, 0: unlimited) with its bucket of
 * catch_up_ns, from now on: what the bucket holds beyond the new depth is
 * dropped, and a generator that was unpaced starts with one frame's credit.
 * The generator's worker (a live reconfiguration's apply). */
static inline void sl_gen_set_rate(struct sl_gen *g, uint64_t rate, uint64_t catch_up_ns)
{
	if (g->rate == 0)
		g->last_tsc = 0;
	g->rate = rate;
	g->credit_max = 0;
	sl_gen_catch_up(g, catch_up_ns);
	if (g->credit > g->credit_max)
		g->credit = g->credit_max;
}

/* How many frames count and rate allow now, 0..max_pkts.  With rate > 0 this
 * reads the TSC and refills the bucket, but charges nothing. */
static inline unsigned sl_gen_want(struct sl_gen *g)
{
	unsigned n = g->max_pkts;

	if (g->count > 0) {
		if (g->sent >= g->count)
			return 0;
		n = (unsigned)RTE_MIN((uint64_t)n, g->count - g->sent);
	}
	if (g->rate == 0)
		return n;

	uint64_t now = rte_rdtsc();

	if (unlikely(g->last_tsc == 0)) {
		g->last_tsc = now;
		g->credit = g->tsc_hz;          /* the first frame goes at once */
	} else {
		/* Capping the gap at one second keeps gap x rate in 64 bits. */
		uint64_t gap = RTE_MIN(now - g->last_tsc, g->tsc_hz);
		g->last_tsc = now;
		g->credit = RTE_MIN(g->credit + gap * g->rate, g->credit_max);
	}
	uint64_t admitted = g->credit / g->tsc_hz;
	return admitted < n ? (unsigned)admitted : n;
}

/* The mbufs that the next allocation of up to n from mp on this lcore will
 * take first, as DPDK's cache hands them out (from the top down): *k of
 * them (0 when the lcore has no cache), the first of which is returned
 * last.  A hint: a put in between changes the top. */
static inline void *const *sl_gen_next_alloc(struct rte_mempool *mp, unsigned n, unsigned *k)
{
	struct rte_mempool_cache *c = rte_mempool_default_cache(mp, rte_lcore_id());

	*k = c != NULL ? RTE_MIN(c->len, n) : 0;
	return c != NULL ? &c->objs[c->len - *k] : NULL;
}

/* A frame's head fields (its first segment's), stores only. */
static inline void sl_gen_head(const struct sl_gen *g, struct rte_mbuf *m)
{
	m->nb_segs = (uint16_t)g->nseg;
	m->pkt_len = g->size;
	m->tx_offload = SL_GEN_TX_OFFLOAD;
	m->packet_type = SL_GEN_PTYPE;
}

/* Prefetch for writing the first line of the mbuf the next allocation takes
 * j-th (next and n_next from sl_gen_next_alloc), where the CPU has
 * PREFETCHW (the chained path, which resets every mbuf). */
static inline void sl_gen_prefetch_next(const struct sl_gen *g, void *const *next,
					unsigned n_next, unsigned j)
{
	if (g->prefetchw && j < n_next)
		sl_prefetchw(next[n_next - 1 - j]);
}

/* Store v in the lvalue f only where it differs: a line that holds the
 * right values already stays clean (and shared, where another CPU reads
 * it), as DPDK's rte_pktmbuf_prefree_seg does for next and nb_segs. */
#define SL_GEN_SET(f, v) do { if ((f) != (v)) (f) = (v); } while (0)

/* The fields of a one-segment frame's mbuf fresh from the pool (what
 * rte_pktmbuf_reset and sl_gen_head give), each stored only where it
 * differs: an mbuf that held a frame of this generator is not written. */
static inline void sl_gen_fields_one(const struct sl_gen *g, struct rte_mbuf *m)
{
	SL_GEN_SET(m->data_off, g->data_off);
	SL_GEN_SET(m->port, RTE_MBUF_PORT_INVALID);
	SL_GEN_SET(m->ol_flags, 0);
	SL_GEN_SET(m->data_len, (uint16_t)g->size);
	SL_GEN_SET(m->vlan_tci, 0);
	SL_GEN_SET(m->vlan_tci_outer, 0);
	SL_GEN_SET(m->next, NULL);
	SL_GEN_SET(m->nb_segs, (uint16_t)g->nseg);
	SL_GEN_SET(m->pkt_len, g->size);
	SL_GEN_SET(m->tx_offload, SL_GEN_TX_OFFLOAD);
	SL_GEN_SET(m->packet_type, SL_GEN_PTYPE);
}

/* Prefetch for reading the first line of the mbuf the next allocation takes
 * j-th (the one-segment path, which writes it only where it differs), and,
 * where g->prefetchw_data, for writing its frame's first data line (at
 * data_at in a plain pool, so no read of the mbuf is needed to find it).
 * For frames a consumer on another CPU reads (probe_source's stamps): that
 * consumer read the line last, and the write prefetch a whole pull ahead
 * starts taking it back before the copy's stores need it (docs/benchmarks.md,
 * "The pool between a pair that moves").  Frames nobody reads gain nothing
 * from it and pay an instruction and an early fill a frame, hence opt-in. */
static inline void sl_gen_prefetch_next_read(const struct sl_gen *g, void *const *next,
					     unsigned n_next, unsigned j)
{
	if (j < n_next) {
		rte_prefetch0(next[n_next - 1 - j]);
		if (g->prefetchw_data)
			sl_prefetchw((const uint8_t *)next[n_next - 1 - j] + g->data_at);
	}
}

/* Allocates n frames (n <= max_pkts) from mp as copies of the template,
 * chained into nseg segments, with nb_segs, pkt_len, l2_len, l3_len and
 * packet_type set, into pkts[0..n).  Returns n, or 0 (allocating nothing) if
 * the pool has too few mbufs.
 *
 * One pass per frame (fields, copy: each mbuf's lines are handled while
 * they are at hand), and beside each mbuf a prefetch of the first line of
 * the mbuf the next call will take in its place, a whole pull ahead.  One
 * segment from a plain pool: fields stored only where they differ, so the
 * first line of a recycled mbuf is read, not written, and the prefetch is a
 * read.  Chains (and pools of pinned external buffers) take DPDK's reset and
 * a write prefetch: when the frames cross to another worker, that line was
 * last read there, and the prefetch starts taking it back before the
 * stores need it (docs/benchmarks.md, "The floor under the cliff"). */
static inline unsigned sl_gen_build(const struct sl_gen *g, struct rte_mempool *mp,
				    struct rte_mbuf **pkts, unsigned n)
{
	struct rte_mbuf *segs[SL_BURST_MAX];
	unsigned n_segs = n * g->nseg, n_next = 0;

	if (n == 0 || rte_mempool_get_bulk(mp, (void **)segs, n_segs) != 0)
		return 0;
	void *const *next = sl_gen_next_alloc(mp, n_segs, &n_next);

	if (g->nseg == 1 && g->plain_pool) {
		/* The common case: the mbuf's fields are stored only where they
		 * differ from what the frame needs, and the data at its fixed
		 * place, with no call.  An mbuf back from a packet of this
		 * source holds those values already, so its first line is not
		 * written: a consumer on another CPU that read it (pkt_len,
		 * refcnt, pool) keeps its copy, and this CPU needs no ownership
		 * of a line that line's reader still shares (docs/architecture.md,
		 * "Packets and ownership").  Hence a read prefetch ahead, not a
		 * write one. */
		for (unsigned i = 0; i < n; i++) {
			struct rte_mbuf *m = segs[i];
			sl_gen_prefetch_next_read(g, next, n_next, i);
			__rte_mbuf_raw_sanity_check(m);   /* refcnt 1: the pool's */
			sl_gen_fields_one(g, m);
			rte_memcpy((uint8_t *)m + g->data_at, g->frame, g->size);
			pkts[i] = m;
		}
		return n;
	}
	for (unsigned i = 0; i < n; i++) {
		struct rte_mbuf **chain = segs + i * g->nseg;
		uint32_t off = 0;

		for (unsigned s = 0; s < g->nseg; s++) {
			sl_gen_prefetch_next(g, next, n_next, i * g->nseg + s);
			__rte_mbuf_raw_sanity_check(chain[s]);
			rte_pktmbuf_reset(chain[s]);
			uint32_t len = RTE_MIN(g->seg_cap, g->size - off);
			memcpy(rte_pktmbuf_mtod(chain[s], uint8_t *), g->frame + off, len);
			chain[s]->data_len = (uint16_t)len;
			if (s > 0)
				chain[s - 1]->next = chain[s];
			off += len;
		}
		sl_gen_head(g, chain[0]);
		pkts[i] = chain[0];
	}
	return n;
}

/* The data of a frame sl_gen_build made from mp (its first segment's),
 * without reading the mbuf where the pool is plain. */
static inline uint8_t *sl_gen_data(const struct sl_gen *g, struct rte_mbuf *m)
{
	return g->plain_pool ? (uint8_t *)m + g->data_at : rte_pktmbuf_mtod(m, uint8_t *);
}

/* Charges n frames to the bucket and the count. */
static inline void sl_gen_sent(struct sl_gen *g, unsigned n)
{
	if (g->rate > 0)
		g->credit -= (uint64_t)n * g->tsc_hz;
	g->sent += n;
}

#endif /* SL_APPS_GEN_H */
