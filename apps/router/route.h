/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * route.h: an IPv4 route table (DPDK's rte_lpm) and the per-packet route hint
 * that lets a flow cache hand a router its cached decision.
 *
 * A table is built by a router app's init from its `routes` (prefix, next
 * hop, output, MAC rewrite), is read-only from then on, and registered under
 * the router app's name so that a flowcache app (`route: NAME`) can look it
 * up in its start.  Lookups are lock-free and safe from any worker (rte_lpm
 * lookups only read).  The router app owns the table; it is freed in the
 * router's fini, after every worker has stopped.
 *
 * Next hops.  A next hop says which output the packet leaves by and what
 * the Ethernet header becomes.  Routes with equal next hops (the same
 * gateway, output and MAC rewrite) share one next-hop index (0..n_nh-1),
 * numbered in the order of their first route, as routers share an
 * adjacency: a table of 256k routes to a few neighbours keeps a few next
 * hops, which stay in cache, and the flow cache's hints (16 bits) can carry
 * them.
 *
 * Hint.  A dynamic mbuf field (registered once, "sluice_route_hint", 64
 * bits) carries (table id, next hop + 1, the destination it was looked up
 * for).  sl_route_hint_set stores a decision on a packet; a router reading a
 * hint for its own table and the packet's destination skips its LPM lookup.
 * A packet without a hint, or with one for another table or destination, is
 * looked up as usual.  DPDK does not reset dynamic fields when an mbuf is
 * allocated (only when its pool is created, to zero: no hint), so a stale
 * hint can ride on a reused mbuf; because a hint names its destination, a
 * stale one either matches (and gives the route the lookup would) or is
 * ignored.  Setters still set or clear the field on every packet they pass
 * towards the router, and the router clears its table's hint once it has
 * used it.  Table ids are 16 bits, unique among the tables created in a
 * process until 65535 have been created; a hint carries next hops
 * 0..65534 (sl_route_hint_set with a larger one clears the field instead).
 *
 * Threads: sl_route_table_create/_free/_register/_find, the parsers and
 * sl_route_hint_register on the control thread; lookups, next hops and hints
 * on any thread once the table is built.
 * Errors follow engine/base/err.h.
 */
#ifndef SL_ROUTE_H
#define SL_ROUTE_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_lpm.h>
#include <rte_mbuf.h>
#include <rte_mbuf_dyn.h>

#include "base/err.h"

/* What a next hop does with a packet (a router with interfaces; without,
 * every next hop is SL_NH_FORWARD). */
enum sl_route_kind {
	SL_NH_FORWARD = 0,       /* to output, MACs as given (dst_mac: a static neighbour) */
	SL_NH_GATEWAY,           /* to the neighbour `gateway` on interface iface */
	SL_NH_CONNECTED,         /* to the neighbour that is the destination itself */
	SL_NH_LOCAL,             /* to the router itself (one of its addresses) */
};

struct sl_route_nh {
	uint32_t gateway;        /* host order; 0: directly connected */
	uint16_t output;         /* the router's output number (output#) */
	bool set_dmac, set_smac;
	uint8_t dmac[6], smac[6];
	uint8_t kind;            /* enum sl_route_kind */
	uint8_t iface;           /* the router's interface index (kinds but FORWARD
				  * on a router with interfaces) */
};

struct sl_route {
	uint32_t prefix;         /* host order, host bits zero */
	uint8_t depth;           /* 0..32 */
	struct sl_route_nh nh;
};

struct sl_route_table;

/* Build a table of n routes for a router named name (n may be 0: every
 * lookup in that table misses; a router with IPv6 routes only has one);
 * socket is the NUMA node for the LPM.  Route i gets the index of the first route with an
 * equal next hop, counted in distinct next hops.  Duplicate prefixes (same
 * prefix and depth), host bits set and more than 2^24 routes are errors.
 * Returns the table, or NULL with errno set (EINVAL, EEXIST for a repeated
 * route, ENOMEM, or what DPDK's LPM reports) and a sentence in err. */
struct sl_route_table *sl_route_table_create(const char *name, const struct sl_route *routes,
					     unsigned n, int socket, struct sl_err *err);
void sl_route_table_free(struct sl_route_table *t);   /* NULL: no-op; unregisters */

/* Registry by router name (control thread).  Register: 0 (also when t is
 * registered already), or -EEXIST with a sentence when another table of that
 * name is.  Find: the table, or NULL. */
int sl_route_table_register(struct sl_route_table *t, struct sl_err *err);
struct sl_route_table *sl_route_table_find(const char *name);

/* Next-hop index for dst (host order), or -1 when no route matches (a
 * look-up: -1 is "no route", never an errno). */
int sl_route_lookup(const struct sl_route_table *t, uint32_t dst);

/* The same for n destinations at once (n <= SL_ROUTE_BULK_MAX): nh[i] for
 * dst[i].  The first-level entries are loaded in a loop of independent
 * loads, then the second level where one points there, so the cache misses
 * of a burst overlap instead of following one another (sl_route_lookup_raw
 * and sl_route_raw_nh below are its two halves). */
#define SL_ROUTE_BULK_MAX 256
void sl_route_lookup_bulk(const struct sl_route_table *t, const uint32_t *dst, int *nh,
			  unsigned n);

/* What the data path reads of a table inline (every table begins with it;
 * the rest is route.c's). */
struct sl_route_table_head {
	const struct sl_route_nh *nh;   /* by next-hop index */
	struct rte_lpm *lpm;            /* the table's LPM (owned by it) */
	int def_nh;                     /* the /0 route (rte_lpm has no depth 0), or -1 */
	uint16_t id;                    /* hint id, never 0 */
	uint8_t found;                  /* sl_route_table_find has returned it (a
					 * flow cache may hint for it); relaxed
					 * atomics: set on the control thread,
					 * read by workers */
	bool has_fast;                  /* a next hop the router's IPv4 fast path
					 * may take: SL_NH_FORWARD with a dst_mac,
					 * or SL_NH_GATEWAY (its neighbour's MAC);
					 * the fast path tries only such tables */
};

/* The head of t (route.c keeps it first in the table). */
static inline const struct sl_route_table_head *sl_route_head(const struct sl_route_table *t)
{
	return (const void *)t;
}

/* Whether sl_route_table_find has returned t: another app (a flow cache)
 * holds it, so the table cannot be replaced under it, and packets may carry
 * hints for it (only such a flow cache sets them: a router whose table
 * nobody has found can skip reading the field).  Any thread. */
static inline bool sl_route_table_found(const struct sl_route_table *t)
{
	return __atomic_load_n(&sl_route_head(t)->found, __ATOMIC_RELAXED) != 0;
}

/* sl_route_lookup_bulk in two halves, inline, for a caller that reads the
 * results in a loop of its own (the router's fast path): the LPM's raw
 * entries e[0..n) for dst[0..n) (n <= SL_ROUTE_BULK_MAX), then one entry's
 * next-hop index (the default route's where it found none; -1: no route). */
static inline void sl_route_lookup_raw(const struct sl_route_table *t, const uint32_t *dst,
				       uint32_t *e, unsigned n)
{
	/* rte_lpm's two levels (rte_lpm.h's public layout) read as
	 * rte_lpm_lookup_bulk does, without its array of indices: every
	 * first-level entry in a loop of independent loads, then the second
	 * level for the few that point to one. */
	const struct rte_lpm *lpm = sl_route_head(t)->lpm;
	const uint32_t *l1 = (const uint32_t *)(const void *)lpm->tbl24;
	const uint32_t *l2 = (const uint32_t *)(const void *)lpm->tbl8;
	const uint32_t ext = RTE_LPM_VALID_EXT_ENTRY_BITMASK;
	for (unsigned i = 0; i < n; i++)
		e[i] = l1[dst[i] >> 8];
	for (unsigned i = 0; i < n; i++)
		if (unlikely((e[i] & ext) == ext))
			e[i] = l2[(e[i] & 0x00ffffffu) * RTE_LPM_TBL8_GROUP_NUM_ENTRIES +
				  (uint8_t)dst[i]];
}

static inline int sl_route_raw_nh(const struct sl_route_table *t, uint32_t e)
{
	return (e & RTE_LPM_LOOKUP_SUCCESS) ? (int)(e & 0x00ffffff) : sl_route_head(t)->def_nh;
}

/* Whether raw entries a and b surely give the same next hop for
 * sl_route_raw_nh: both found with one hop index, or both not found (the
 * default route's; an entry not found keeps no index that matters, so
 * false does not say they differ). */
static inline bool sl_route_raw_same_nh(uint32_t a, uint32_t b)
{
	return ((a ^ b) & (RTE_LPM_LOOKUP_SUCCESS | 0x00ffffff)) == 0;
}

/* Next hop by index (0 <= nh < number of next hops). */
static inline const struct sl_route_nh *sl_route_nh(const struct sl_route_table *t, unsigned nh)
{
	return &sl_route_head(t)->nh[nh];
}

/* Number of distinct next hops in t, and the router name it was built for. */
unsigned sl_route_n_nh(const struct sl_route_table *t);
const char *sl_route_table_name(const struct sl_route_table *t);

/* Find a repeated (prefix, depth) in routes[0..n): 0 when every route is
 * distinct; -EEXIST with *first < *again the indices of the repeat whose
 * second occurrence comes first; -ENOMEM.  Control thread. */
int sl_route_find_repeat(const struct sl_route *routes, unsigned n, unsigned *first,
			 unsigned *again);

/* Parse "A.B.C.D/N" (decimal, N in 0..32, host bits zero) into *prefix (host
 * order) and *depth; parse "A.B.C.D" into *addr.  0, or -EINVAL with a
 * sentence in err that quotes the text ("prefix '10.0.0.1/8' has host bits
 * set (10.0.0.0/8 would keep them zero)"). */
int sl_route_parse_prefix(const char *text, uint32_t *prefix, uint8_t *depth,
			  struct sl_err *err);
int sl_route_parse_addr(const char *text, uint32_t *addr, struct sl_err *err);

/* Hints.  Register the dynamic field (idempotent; control thread); 0 or
 * -errno with a sentence.  sl_route_hint_off: the field's offset, -1 until
 * registered (written once, before any worker runs). */
extern int sl_route_hint_off;
int sl_route_hint_register(struct sl_err *err);
/* Store nh (a next hop of t, looked up for destination dst, host order) on
 * m; nh < 0 clears the field. */
void sl_route_hint_set(struct rte_mbuf *m, const struct sl_route_table *t, int nh, uint32_t dst);
/* The next hop hinted for t and destination dst, or -1 when m carries no
 * hint for that table and destination (a look-up: -1 is "no hint", never an
 * errno). */
static inline int sl_route_hint_get(const struct rte_mbuf *m, const struct sl_route_table *t,
				    uint32_t dst)
{
	if (sl_route_hint_off < 0)
		return -1;
	uint64_t h = *RTE_MBUF_DYNFIELD(m, sl_route_hint_off, const uint64_t *);
	if (h >> 48 != sl_route_head(t)->id || (uint32_t)h != dst || (h >> 32 & 0xffff) == 0)
		return -1;
	return (int)(h >> 32 & 0xffff) - 1;
}
static inline void sl_route_hint_clear(struct rte_mbuf *m)
{
	if (sl_route_hint_off >= 0)
		*RTE_MBUF_DYNFIELD(m, sl_route_hint_off, uint64_t *) = 0;
}

#endif
