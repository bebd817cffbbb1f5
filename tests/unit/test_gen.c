/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The frame generator's build (apps/pkt/gen.h) on a real EAL (--no-huge) and
 * a pool with a per-lcore cache: every field of a built mbuf is what
 * rte_pktmbuf_alloc() and the template make of it, whatever the mbuf held
 * before it went back to the pool; the one-segment path stores a field only
 * where it differs (an mbuf that already holds the values is not written:
 * checked on a read-only page); sl_gen_data() is the mbuf's data; sl_gen_next_alloc()
 * names the mbufs the next allocation takes, in the order it takes them;
 * frames larger than a buffer come as chains; every mbuf back at the end.
 */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "apps/pkt/gen.h"

#include "eal_fixture.h"

#define N_MBUFS 511u
#define CACHE 64u

static struct rte_mempool *pool;

/* A generator of size-byte frames whose template is a byte pattern. */
static void gen_setup(struct sl_gen *g, uint32_t size)
{
	struct sl_err err = { "" };

	memset(g, 0, sizeof(*g));
	g->size = size;
	CHECK(sl_gen_fit(g, pool, SL_BURST_MAX, SL_GEN_HDR_LEN, &err) == 0, "fit: %s", err.msg);
	for (uint32_t i = 0; i < size; i++)
		g->frame[i] = (uint8_t)(i * 7 + 1);
}

/* Put what a used packet leaves behind into n mbufs, and free them. */
static void dirty(unsigned n)
{
	struct rte_mbuf *m[SL_BURST_MAX];

	CHECK(rte_pktmbuf_alloc_bulk(pool, m, n) == 0, "alloc %u", n);
	for (unsigned i = 0; i < n; i++) {
		m[i]->ol_flags = RTE_MBUF_F_RX_VLAN | RTE_MBUF_F_RX_IP_CKSUM_BAD;
		m[i]->vlan_tci = 5;
		m[i]->vlan_tci_outer = 6;
		m[i]->port = 3;
		m[i]->packet_type = RTE_PTYPE_L2_ETHER_ARP;
		m[i]->tx_offload = ~0ull;
		m[i]->data_off = 7;
		m[i]->pkt_len = m[i]->data_len = 99;
	}
	rte_pktmbuf_free_bulk(m, n);
}

/* The frames and fields of a burst of g. */
static void fields_once(const struct sl_gen *g)
{
	struct rte_mbuf *m[SL_BURST_MAX];

	CHECK(g->nseg == 1 && g->plain_pool, "64 bytes: one segment of a plain pool");
	dirty(32);
	CHECK(sl_gen_build(g, pool, m, 32) == 32, "32 built");
	for (unsigned i = 0; i < 32; i++) {
		const struct rte_mbuf *x = m[i];
		CHECK(x->data_off == RTE_PKTMBUF_HEADROOM && rte_mbuf_refcnt_read(x) == 1 &&
		      x->nb_segs == 1 && x->port == RTE_MBUF_PORT_INVALID && x->ol_flags == 0 &&
		      x->vlan_tci == 0 && x->vlan_tci_outer == 0 && x->next == NULL,
		      "mbuf %u: reset fields (data_off %u, port %u, ol_flags %#llx)", i,
		      x->data_off, x->port, (unsigned long long)x->ol_flags);
		CHECK(x->packet_type == (RTE_PTYPE_L2_ETHER | RTE_PTYPE_L3_IPV4 | RTE_PTYPE_L4_UDP) &&
		      x->pkt_len == 64 && x->data_len == 64 && x->l2_len == RTE_ETHER_HDR_LEN &&
		      x->l3_len == sizeof(struct rte_ipv4_hdr) && x->l4_len == 0 &&
		      x->tso_segsz == 0 && x->outer_l2_len == 0 && x->outer_l3_len == 0,
		      "mbuf %u: frame fields (pkt_len %u, l2 %u, l3 %u)", i, x->pkt_len,
		      (unsigned)x->l2_len, (unsigned)x->l3_len);
		CHECK(sl_gen_data(g, m[i]) == rte_pktmbuf_mtod(m[i], uint8_t *),
		      "mbuf %u: sl_gen_data is the mbuf's data", i);
		CHECK(memcmp(rte_pktmbuf_mtod(m[i], uint8_t *), g->frame, 64) == 0,
		      "mbuf %u: the template's bytes", i);
	}
	rte_pktmbuf_free_bulk(m, 32);
}

/* The same without and with the write prefetch of the next frames' data
 * lines (prefetchw_data: a hint, which changes nothing the frames hold);
 * sl_gen_fit turns it off, whatever it was, so that only an app that asks
 * for it after init has it. */
static void test_fields(void)
{
	for (int data = 0; data < 2; data++) {
		struct sl_gen g;
		struct sl_err err = { "" };
		gen_setup(&g, 64);
		g.prefetchw_data = true;
		CHECK(sl_gen_fit(&g, pool, SL_BURST_MAX, SL_GEN_HDR_LEN, &err) == 0, "fit: %s", err.msg);
		CHECK(!g.prefetchw_data, "fit leaves the data lines' write prefetch off");
		g.prefetchw_data = data && g.prefetchw;
		fields_once(&g);
	}
}

/* sl_gen_fields_one on an mbuf header that holds every value already, on a
 * page made read-only: a store would fault.  Then one field off: written. */
static void test_fields_unchanged(void)
{
	struct sl_gen g;
	struct rte_mbuf *m[1] = { NULL };
	long page = sysconf(_SC_PAGESIZE);

	gen_setup(&g, 64);
	CHECK(sl_gen_build(&g, pool, m, 1) == 1, "1 built");
	struct rte_mbuf *ro = mmap(NULL, (size_t)page, PROT_READ | PROT_WRITE,
				   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(ro != MAP_FAILED, "mmap a page");
	memcpy(ro, m[0], sizeof(*ro));
	CHECK(mprotect(ro, (size_t)page, PROT_READ) == 0, "page read-only");
	sl_gen_fields_one(&g, ro);   /* faults if it stores anything */
	CHECK(memcmp(ro, m[0], sizeof(*ro)) == 0, "nothing changed");
	CHECK(mprotect(ro, (size_t)page, PROT_READ | PROT_WRITE) == 0, "page writable");
	ro->pkt_len = 99;
	ro->ol_flags = RTE_MBUF_F_RX_VLAN;
	sl_gen_fields_one(&g, ro);
	CHECK(ro->pkt_len == 64 && ro->ol_flags == 0, "the differing fields written (pkt_len %u)",
	      ro->pkt_len);
	CHECK(memcmp(ro, m[0], sizeof(*ro)) == 0, "the same header as a built mbuf's");
	munmap(ro, (size_t)page);
	rte_pktmbuf_free(m[0]);
}

static void test_next_alloc(void)
{
	struct rte_mbuf *m[8];
	unsigned k;

	dirty(16);   /* leaves the lcore's cache holding at least 16 */
	void *const *next = sl_gen_next_alloc(pool, 8, &k);
	CHECK(k == 8, "8 named, got %u", k);
	void *want[8];
	for (unsigned j = 0; j < 8; j++)
		want[j] = next[k - 1 - j];
	CHECK(rte_mempool_get_bulk(pool, (void **)m, 8) == 0, "get 8");
	for (unsigned j = 0; j < 8; j++)
		CHECK(m[j] == want[j], "allocation %u is the one named", j);
	rte_mempool_put_bulk(pool, (void **)m, 8);
}

static void test_chain(void)
{
	struct sl_gen g;
	struct rte_mbuf *m[4];

	gen_setup(&g, 5000);
	CHECK(g.nseg == 3, "5000 bytes in 2048-byte buffers: 3 segments, got %u", g.nseg);
	dirty(12);
	CHECK(sl_gen_build(&g, pool, m, 4) == 4, "4 built");
	for (unsigned i = 0; i < 4; i++) {
		uint32_t off = 0, segs = 0;
		CHECK(m[i]->nb_segs == 3 && m[i]->pkt_len == 5000 && m[i]->ol_flags == 0 &&
		      m[i]->packet_type == (RTE_PTYPE_L2_ETHER | RTE_PTYPE_L3_IPV4 | RTE_PTYPE_L4_UDP),
		      "frame %u: head fields", i);
		for (struct rte_mbuf *s = m[i]; s != NULL; s = s->next, segs++) {
			CHECK(s->data_off == RTE_PKTMBUF_HEADROOM && s->port == RTE_MBUF_PORT_INVALID,
			      "frame %u segment %u: reset", i, segs);
			CHECK(memcmp(rte_pktmbuf_mtod(s, uint8_t *), g.frame + off, s->data_len) == 0,
			      "frame %u segment %u: the template's bytes", i, segs);
			off += s->data_len;
		}
		CHECK(segs == 3 && off == 5000, "frame %u: 3 segments of 5000 bytes, got %u, %u", i,
		      segs, off);
		CHECK(sl_gen_data(&g, m[i]) == rte_pktmbuf_mtod(m[i], uint8_t *),
		      "frame %u: sl_gen_data is the first segment's data", i);
	}
	rte_pktmbuf_free_bulk(m, 4);
}

static int setup(void)
{
	return sl_test_eal_pool_cache("tgen", 256, N_MBUFS, CACHE, &pool);
}

static void teardown(void)
{
	sl_test_eal_end(pool, N_MBUFS);
}

static const struct sl_test_case cases[] = {
	SL_CASE(test_fields),
	SL_CASE(test_fields_unchanged),
	SL_CASE(test_next_alloc),
	SL_CASE(test_chain),
};

int main(int argc, char **argv)
{
	return sl_test_main_fixture(argc, argv, cases, SL_NCASES(cases), setup, teardown);
}
