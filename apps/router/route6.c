/* SPDX-License-Identifier: BSD-3-Clause */
/* The IPv6 route table: route6.h. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_lpm6.h>
#include <rte_malloc.h>

#include "apps/router/route.h"   /* enum sl_route_kind */
#include "apps/router/route6.h"
#include "apps/router/share.h"

struct sl_route6_table {
	struct rte_lpm6 *lpm;
	struct sl_nh6 *nh;            /* by the lpm's next hop index */
	bool has_static;              /* sl_route6_has_static */
	int def;                      /* the default route's (::/0, which rte_lpm6 does
				       * not take: depth 1..128), or -1 */
};

int sl_route6_parse_addr(const char *text, uint8_t a[16], struct sl_err *err)
{
	if (inet_pton(AF_INET6, text, a) != 1)
		return sl_errf(err, EINVAL, "'%s' is not an IPv6 address", text);
	return 0;
}

int sl_route6_parse_prefix(const char *text, uint8_t a[16], uint8_t *depth, struct sl_err *err)
{
	char buf[64];
	const char *slash = strchr(text, '/');
	char *end;
	if (slash == NULL || (size_t)(slash - text) >= sizeof(buf))
		return sl_errf(err, EINVAL, "prefix '%s' is not X:X::X/N with N in 0..128", text);
	memcpy(buf, text, (size_t)(slash - text));
	buf[slash - text] = '\0';
	unsigned long n = strtoul(slash + 1, &end, 10);
	if (inet_pton(AF_INET6, buf, a) != 1 || slash[1] == '\0' || *end != '\0' || n > 128)
		return sl_errf(err, EINVAL, "prefix '%s' is not X:X::X/N with N in 0..128", text);
	for (unsigned bit = (unsigned)n; bit < 128; bit++)
		if (a[bit / 8] & (0x80 >> (bit % 8)))
			return sl_errf(err, EINVAL, "prefix '%s' has host bits set", text);
	*depth = (uint8_t)n;
	return 0;
}

/* Route i's next hop as share.h's key: what sends a packet the same way
 * (a gateway and MACs only where they are used). */
#define NH6_KEY (SL_SHARE_HOP_KEY + 16)
_Static_assert(NH6_KEY <= SL_SHARE_KEY_MAX, "a next hop's key fits share.h's");
static void nh6_key(const void *ctx, unsigned i, uint8_t *k)
{
	const struct sl_nh6 *h = &((const struct sl_route6 *)ctx)[i].nh;
	sl_share_hop_key(k, h->output, h->kind, h->iface, h->set_dmac, h->dmac, h->set_smac,
			 h->smac);
	memset(k + SL_SHARE_HOP_KEY, 0, 16);
	if (h->kind == SL_NH_GATEWAY)
		memcpy(k + SL_SHARE_HOP_KEY, h->gateway, 16);
}

struct sl_route6_table *sl_route6_create(const char *name, const struct sl_route6 *routes,
					 unsigned n, int socket, struct sl_err *err)
{
	static _Atomic unsigned serial;
	struct sl_route6_table *t = calloc(1, sizeof(*t));
	if (t == NULL)
		return sl_errf_null(err, ENOMEM, "out of memory for an IPv6 route table");
	t->nh = calloc(n + 1, sizeof(*t->nh));
	char lname[RTE_LPM6_NAMESIZE];
	snprintf(lname, sizeof(lname), "r6_%.16s_%u", name, atomic_fetch_add(&serial, 1));
	/* A route of depth d > 24 takes at most one tbl8 group per byte past
	 * the first three (rte_lpm6's tbl24, then 8 bits a level). */
	unsigned tbl8s = 64;
	for (unsigned i = 0; i < n; i++)
		tbl8s += routes[i].depth > 24 ? (routes[i].depth - 24 + 7) / 8u : 0;
	struct rte_lpm6_config c = { .max_rules = n + 1, .number_tbl8s = tbl8s };
	if (t->nh != NULL)
		t->lpm = rte_lpm6_create(lname, socket, &c);
	if (t->lpm == NULL) {
		const char *why = t->nh == NULL ? "out of memory" : rte_strerror(rte_errno);
		sl_errf(err, ENOMEM, "cannot create an IPv6 route table of %u routes: %s (a table "
			"takes 64 MiB of DPDK's memory and more with its routes: see -m or the "
			"hugepages)", n, why);
		sl_route6_free(t);
		errno = ENOMEM;
		return NULL;
	}
	/* Equal next hops share an entry (share.h): a burst's lookups then
	 * read a few of them, not one a route. */
	unsigned *idx = malloc((n + 1) * sizeof(*idx)), *first = malloc((n + 1) * sizeof(*first));
	int k = idx != NULL && first != NULL
		? sl_share_index(n, NH6_KEY, nh6_key, routes, idx, first) : -ENOMEM;
	if (k < 0) {
		free(idx);
		free(first);
		sl_route6_free(t);
		return sl_errf_null(err, ENOMEM, "out of memory for an IPv6 route table");
	}
	for (unsigned h = 0; h < (unsigned)k; h++) {
		t->nh[h] = routes[first[h]].nh;
		t->has_static |= t->nh[h].kind == SL_NH_FORWARD && t->nh[h].set_dmac;
	}
	free(first);
	t->def = -1;
	for (unsigned i = 0; i < n; i++) {
		if (routes[i].depth == 0) {
			t->def = (int)idx[i];
			continue;
		}
		int rc = rte_lpm6_add(t->lpm, routes[i].prefix, routes[i].depth, idx[i]);
		if (rc < 0) {
			free(idx);
			sl_route6_free(t);
			return sl_errf_null(err, -rc, "cannot add IPv6 route %u: %s", i,
					    rte_strerror(-rc));
		}
	}
	free(idx);
	return t;
}

void sl_route6_free(struct sl_route6_table *t)
{
	if (t == NULL)
		return;
	rte_lpm6_free(t->lpm);
	free(t->nh);
	free(t);
}

void sl_route6_lookup_raw(const struct sl_route6_table *t, uint8_t (*dst)[16], int32_t *hop,
			  unsigned n)
{
	rte_lpm6_lookup_bulk_func(t->lpm, dst, hop, n);
}

const struct sl_nh6 *sl_route6_nh_of(const struct sl_route6_table *t, int32_t hop)
{
	return hop >= 0 ? &t->nh[hop] : t->def >= 0 ? &t->nh[t->def] : NULL;
}

void sl_route6_lookup_bulk(const struct sl_route6_table *t, uint8_t (*dst)[16],
			   const struct sl_nh6 **nh, unsigned n)
{
	int32_t hop[n];
	sl_route6_lookup_raw(t, dst, hop, n);
	for (unsigned i = 0; i < n; i++)
		nh[i] = sl_route6_nh_of(t, hop[i]);
}

bool sl_route6_has_static(const struct sl_route6_table *t)
{
	return t->has_static;
}

const struct sl_nh6 *sl_route6_lookup(const struct sl_route6_table *t, const uint8_t dst[16])
{
	uint32_t i;
	if (rte_lpm6_lookup(t->lpm, dst, &i) != 0)
		return t->def >= 0 ? &t->nh[t->def] : NULL;
	return &t->nh[i];
}
