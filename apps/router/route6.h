/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * route6.h: a router's IPv6 route table: DPDK's rte_lpm6 from prefixes to
 * next hops, built whole from a list and then read only (a reload builds
 * another and retires this one through the epoch, as for IPv4: route.h).
 *
 * Threads: create and free on the control thread; lookups from the router's
 * worker.  Errors follow engine/base/err.h.
 */
#ifndef SL_ROUTE6_H
#define SL_ROUTE6_H

#include <stdbool.h>
#include <stdint.h>

#include "base/err.h"

/* What a route leads to (the kinds of route.h's struct sl_route_nh). */
struct sl_nh6 {
	uint16_t output;
	uint8_t kind;                /* SL_NH_FORWARD, _GATEWAY, _CONNECTED */
	uint8_t iface;               /* the router's interface, or 0xff */
	uint8_t gateway[16];         /* _GATEWAY: resolved by ND */
	bool set_dmac;               /* _FORWARD: a static neighbour */
	bool set_smac;               /* _FORWARD: the source MAC to write */
	uint8_t dmac[6], smac[6];
};

struct sl_route6 {
	uint8_t prefix[16];
	uint8_t depth;               /* 0..128 */
	struct sl_nh6 nh;
};

struct sl_route6_table;

/* "X:X::X/N" with N in 0..128 and the host bits zero, into a and depth.
 * 0 or -EINVAL with a sentence naming the text. */
int sl_route6_parse_prefix(const char *text, uint8_t a[16], uint8_t *depth, struct sl_err *err);

/* An IPv6 address "X:X::X".  0 or -EINVAL with a sentence. */
int sl_route6_parse_addr(const char *text, uint8_t a[16], struct sl_err *err);

/* A table of routes[0..n) (n may be 0), named after `name` (an app) for
 * DPDK; NULL with errno and a sentence.  Repeated prefixes are the
 * caller's to refuse.  Routes with equal next hops share one (share.h):
 * lookups that find them return the same pointer. */
struct sl_route6_table *sl_route6_create(const char *name, const struct sl_route6 *routes,
					 unsigned n, int socket, struct sl_err *err);
void sl_route6_free(struct sl_route6_table *t);

/* Whether any route of t has a static next hop (SL_NH_FORWARD with a
 * dst_mac): the router's IPv6 fast path tries only such tables. */
bool sl_route6_has_static(const struct sl_route6_table *t);

/* The next hop for dst, or NULL when no route matches. */
const struct sl_nh6 *sl_route6_lookup(const struct sl_route6_table *t, const uint8_t dst[16]);

/* The same for n destinations at once (rte_lpm6's bulk lookup): nh[i] for
 * dst[i]. */
void sl_route6_lookup_bulk(const struct sl_route6_table *t, uint8_t (*dst)[16],
			   const struct sl_nh6 **nh, unsigned n);

/* Its two halves, for a caller that takes a next hop only where it
 * changes: hop[i], the raw result for dst[i] (equal values give one next
 * hop; -1, no route matched, gives the default route's, as does that
 * route's own index), then sl_route6_nh_of(t, hop[i]), the next hop (NULL:
 * no route). */
void sl_route6_lookup_raw(const struct sl_route6_table *t, uint8_t (*dst)[16], int32_t *hop,
			  unsigned n);
const struct sl_nh6 *sl_route6_nh_of(const struct sl_route6_table *t, int32_t hop);

#endif /* SL_ROUTE6_H */
