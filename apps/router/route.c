/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Route tables (route.h): an rte_lpm whose next hop for route i is i, the
 * routes' next hops in an array beside it, and a registry by router name.
 * rte_lpm takes depths 1..32 only: a /0 route is kept beside it and answers
 * its misses.
 *
 * The hint is one 64-bit dynamic mbuf field: table id in bits 63..48, next
 * hop + 1 in bits 47..32, the destination it was looked up for in bits
 * 31..0.  Table ids start at 1 and are never 0, so a field that was zeroed
 * (every mbuf when its pool is created) holds no hint; and a hint is used
 * only for the destination it was made for, so a stale one (an mbuf freed
 * with a hint and allocated again) cannot send a packet by another's route.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_lpm.h>
#include <rte_mbuf_dyn.h>

#include "apps/router/route.h"
#include "apps/router/share.h"

#define HINT_NAME "sluice_route_hint"
#define HINT_NH_MAX 0xfffeu       /* next hops a hint can carry (nh + 1 in 16 bits) */
#define ROUTES_MAX (1u << 24)     /* rte_lpm next hops are 24 bits */

struct sl_route_table {
	struct sl_route_table_head head;   /* first: route.h's inline readers */
	char *name;                     /* the router's */
	struct sl_route_table *next;    /* registry */
	bool registered;
	uint16_t id;                    /* hint id, never 0 (also in head) */
	unsigned n_nh;
	struct sl_route_nh nh[];        /* by next-hop index; routes share equal ones */
};
_Static_assert(offsetof(struct sl_route_table, head) == 0,
	       "the head first: route.h's sl_route_head");

/* Control thread only. */
static struct sl_route_table *registry;
static uint16_t last_id;
static unsigned lpm_serial;

/* Offset of the hint field; written once on the control thread before any
 * worker starts, read by workers. */
int sl_route_hint_off = -1;

static uint32_t depth_mask(uint8_t depth)
{
	return depth == 0 ? 0 : ~0u << (32 - depth);
}

/* Route i's next hop as share.h's key: what sends a packet the same way
 * (MACs only where they are written). */
#define NH_KEY (SL_SHARE_HOP_KEY + 4)
_Static_assert(NH_KEY <= SL_SHARE_KEY_MAX, "a next hop's key fits share.h's");
static void nh_key(const void *ctx, unsigned i, uint8_t *k)
{
	const struct sl_route_nh *h = &((const struct sl_route *)ctx)[i].nh;
	sl_share_hop_key(k, h->output, h->kind, h->iface, h->set_dmac, h->dmac, h->set_smac,
			 h->smac);
	memcpy(k + SL_SHARE_HOP_KEY, &h->gateway, 4);
}

/* Give every route a next-hop index, equal next hops one index, numbered in
 * the order of their first route (share.h): t->nh[0..t->n_nh) and idx[i]
 * for route i.  0, or -ENOMEM. */
static int share_next_hops(struct sl_route_table *t, const struct sl_route *routes, unsigned n,
			   unsigned *idx)
{
	unsigned *first = malloc((n + 1) * sizeof(*first));
	int k = first != NULL ? sl_share_index(n, NH_KEY, nh_key, routes, idx, first)
			      : -ENOMEM;
	if (k >= 0) {
		t->n_nh = (unsigned)k;
		for (unsigned h = 0; h < t->n_nh; h++)
			t->nh[h] = routes[first[h]].nh;
	}
	free(first);
	return k < 0 ? k : 0;
}

/* "a.b.c.d" into buf (at least 16 bytes). */
static const char *addr_str(uint32_t a, char *buf, size_t len)
{
	snprintf(buf, len, "%u.%u.%u.%u", a >> 24, (a >> 16) & 0xff, (a >> 8) & 0xff, a & 0xff);
	return buf;
}

/* Decimal 0..max with 1 to 3 digits, no sign, no leading zero but "0".
 * Advances *p; false when the text is not such a number. */
static bool parse_small(const char **p, unsigned max, unsigned *out)
{
	const char *s = *p;
	unsigned v = 0, digits = 0;

	while (*s >= '0' && *s <= '9' && digits < 4) {
		v = v * 10 + (unsigned)(*s - '0');
		s++;
		digits++;
	}
	if (digits == 0 || digits > 3 || v > max || (digits > 1 && **p == '0'))
		return false;
	*p = s;
	*out = v;
	return true;
}

static bool parse_quad(const char **p, uint32_t *addr)
{
	uint32_t a = 0;

	for (int i = 0; i < 4; i++) {
		unsigned octet;
		if (i > 0 && *(*p)++ != '.')
			return false;
		if (!parse_small(p, 255, &octet))
			return false;
		a = a << 8 | octet;
	}
	*addr = a;
	return true;
}

int sl_route_parse_addr(const char *text, uint32_t *addr, struct sl_err *err)
{
	const char *p = text;

	if (!parse_quad(&p, addr) || *p != '\0')
		return sl_errf(err, EINVAL, "address '%s' is not an IPv4 address A.B.C.D", text);
	return 0;
}

int sl_route_parse_prefix(const char *text, uint32_t *prefix, uint8_t *depth,
			  struct sl_err *err)
{
	const char *p = text;
	uint32_t a;
	unsigned d;

	if (!parse_quad(&p, &a) || *p++ != '/' || !parse_small(&p, 32, &d) || *p != '\0')
		return sl_errf(err, EINVAL, "prefix '%s' is not A.B.C.D/N with N in 0..32", text);
	if ((a & ~depth_mask((uint8_t)d)) != 0) {
		char buf[16];
		return sl_errf(err, EINVAL, "prefix '%s' has host bits set (%s/%u would keep "
			       "them zero)", text, addr_str(a & depth_mask((uint8_t)d), buf,
							    sizeof(buf)), d);
	}
	*prefix = a;
	*depth = (uint8_t)d;
	return 0;
}

static int cmp_route_index(const void *a, const void *b, void *arg)
{
	const struct sl_route *routes = arg;
	unsigned i = *(const unsigned *)a, j = *(const unsigned *)b;
	const struct sl_route *x = &routes[i], *y = &routes[j];

	if (x->prefix != y->prefix)
		return x->prefix < y->prefix ? -1 : 1;
	if (x->depth != y->depth)
		return x->depth < y->depth ? -1 : 1;
	return i < j ? -1 : i > j;
}

int sl_route_find_repeat(const struct sl_route *routes, unsigned n, unsigned *first,
			 unsigned *again)
{
	unsigned *idx;
	bool found = false;

	if (n < 2)
		return 0;
	idx = malloc(n * sizeof(*idx));
	if (idx == NULL)
		return -ENOMEM;
	for (unsigned i = 0; i < n; i++)
		idx[i] = i;
	qsort_r(idx, n, sizeof(*idx), cmp_route_index, (void *)(uintptr_t)routes);
	/* Equal routes sit together in index order: the first two of a run are
	 * the first occurrence and its first repeat. */
	for (unsigned k = 1; k < n; k++) {
		const struct sl_route *x = &routes[idx[k - 1]], *y = &routes[idx[k]];
		if (x->prefix != y->prefix || x->depth != y->depth)
			continue;
		if (k >= 2 && routes[idx[k - 2]].prefix == y->prefix &&
		    routes[idx[k - 2]].depth == y->depth)
			continue;     /* a third occurrence: the run's second is earlier */
		if (!found || idx[k] < *again) {
			*first = idx[k - 1];
			*again = idx[k];
			found = true;
		}
	}
	free(idx);
	return found ? -EEXIST : 0;
}

struct sl_route_table *sl_route_table_create(const char *name, const struct sl_route *routes,
					     unsigned n, int socket, struct sl_err *err)
{
	struct sl_route_table *t;
	struct rte_lpm_config conf = { 0 };
	char lpm_name[RTE_LPM_NAMESIZE];
	unsigned first, again, deep = 0, *idx = NULL;
	int rc, e;

	if (n > ROUTES_MAX)
		return sl_errf_null(err, EINVAL, "route table '%s': %u routes, at most %u", name,
				    n, ROUTES_MAX);
	for (unsigned i = 0; i < n; i++) {
		char buf[16];
		if (routes[i].depth > 32 ||
		    (routes[i].prefix & ~depth_mask(routes[i].depth)) != 0)
			return sl_errf_null(err, EINVAL, "route table '%s': route %u (%s/%u) is "
					    "not a prefix with host bits zero", name, i,
					    addr_str(routes[i].prefix, buf, sizeof(buf)),
					    routes[i].depth);
		if (routes[i].depth > 24)
			deep++;
	}
	rc = sl_route_find_repeat(routes, n, &first, &again);
	if (rc == -ENOMEM)
		return sl_errf_null(err, ENOMEM, "route table '%s': out of memory", name);
	if (rc < 0) {
		char buf[16];
		return sl_errf_null(err, EEXIST, "route table '%s': route %u repeats route %u "
				    "(%s/%u)", name, again, first,
				    addr_str(routes[again].prefix, buf, sizeof(buf)),
				    routes[again].depth);
	}

	t = calloc(1, sizeof(*t) + n * sizeof(t->nh[0]));
	idx = malloc((n + 1) * sizeof(*idx));
	if (t == NULL || idx == NULL || (t->name = strdup(name)) == NULL ||
	    share_next_hops(t, routes, n, idx) < 0) {
		if (t != NULL)
			free(t->name);
		free(t);
		free(idx);
		return sl_errf_null(err, ENOMEM, "route table '%s': out of memory", name);
	}
	t->head.def_nh = -1;
	if (++last_id == 0)
		last_id = 1;
	t->id = last_id;
	t->head.id = t->id;
	t->head.nh = t->nh;
	for (unsigned h = 0; h < t->n_nh; h++)
		t->head.has_fast |= (t->nh[h].kind == SL_NH_FORWARD && t->nh[h].set_dmac) ||
				    t->nh[h].kind == SL_NH_GATEWAY;

	/* One rule per route, so max_rules is n (a power of two leaves room
	 * for nothing we need); each route longer than /24 needs
	 * at most one tbl8 group of its own. */
	conf.max_rules = n > 0 ? n : 1;   /* rte_lpm wants at least one */
	conf.number_tbl8s = deep + 1;
	snprintf(lpm_name, sizeof(lpm_name), "sl_rt%u", lpm_serial++);
	t->head.lpm = rte_lpm_create(lpm_name, socket, &conf);
	if (t->head.lpm == NULL) {
		e = -sl_errf(err, rte_errno > 0 ? rte_errno : ENOMEM,
			     "route table '%s': cannot create an LPM of %u routes: %s", name, n,
			     rte_strerror(rte_errno));
		goto out_free;
	}
	for (unsigned i = 0; i < n; i++) {
		if (routes[i].depth == 0) {
			t->head.def_nh = (int)idx[i];
			continue;
		}
		rc = rte_lpm_add(t->head.lpm, routes[i].prefix, routes[i].depth, idx[i]);
		if (rc < 0) {
			char buf[16];
			e = -sl_errf(err, -rc, "route table '%s': cannot add route %u (%s/%u): %s",
				     name, i, addr_str(routes[i].prefix, buf, sizeof(buf)),
				     routes[i].depth, strerror(-rc));
			goto out_free;
		}
	}
	free(idx);
	return t;

out_free:
	free(idx);
	sl_route_table_free(t);
	errno = e;
	return NULL;
}

void sl_route_table_free(struct sl_route_table *t)
{
	if (t == NULL)
		return;
	if (t->registered) {
		for (struct sl_route_table **pp = &registry; *pp != NULL; pp = &(*pp)->next) {
			if (*pp == t) {
				*pp = t->next;
				break;
			}
		}
	}
	rte_lpm_free(t->head.lpm);
	free(t->name);
	free(t);
}

int sl_route_table_register(struct sl_route_table *t, struct sl_err *err)
{
	if (t->registered)
		return 0;
	if (sl_route_table_find(t->name) != NULL)
		return sl_errf(err, EEXIST, "route table '%s' is already registered", t->name);
	t->next = registry;
	registry = t;
	t->registered = true;
	return 0;
}

struct sl_route_table *sl_route_table_find(const char *name)
{
	for (struct sl_route_table *t = registry; t != NULL; t = t->next)
		if (strcmp(t->name, name) == 0) {
			__atomic_store_n(&t->head.found, 1, __ATOMIC_RELAXED);
			return t;
		}
	return NULL;
}

unsigned sl_route_n_nh(const struct sl_route_table *t)
{
	return t->n_nh;
}

const char *sl_route_table_name(const struct sl_route_table *t)
{
	return t->name;
}

int sl_route_lookup(const struct sl_route_table *t, uint32_t dst)
{
	uint32_t nh;

	if (rte_lpm_lookup(t->head.lpm, dst, &nh) != 0)
		return t->head.def_nh;
	return (int)nh;
}

void sl_route_lookup_bulk(const struct sl_route_table *t, const uint32_t *dst, int *nh,
			  unsigned n)
{
	uint32_t got[SL_ROUTE_BULK_MAX];
	sl_route_lookup_raw(t, dst, got, n);
	for (unsigned i = 0; i < n; i++)
		nh[i] = sl_route_raw_nh(t, got[i]);
}


int sl_route_hint_register(struct sl_err *err)
{
	static const struct rte_mbuf_dynfield desc = {
		.name = HINT_NAME,
		.size = sizeof(uint64_t),
		.align = __alignof__(uint64_t),
	};
	int off;

	if (sl_route_hint_off >= 0)
		return 0;
	off = rte_mbuf_dynfield_register(&desc);
	if (off < 0)
		return sl_errf(err, rte_errno > 0 ? rte_errno : EINVAL,
			       "cannot register the mbuf field '%s': %s", HINT_NAME,
			       rte_strerror(rte_errno));
	sl_route_hint_off = off;
	return 0;
}

void sl_route_hint_set(struct rte_mbuf *m, const struct sl_route_table *t, int nh, uint32_t dst)
{
	uint64_t h = 0;     /* a next hop a hint cannot carry: no hint */

	if (sl_route_hint_off < 0)
		return;
	if (nh >= 0 && (unsigned)nh < t->n_nh && (unsigned)nh <= HINT_NH_MAX)
		h = (uint64_t)t->id << 48 | (uint64_t)(nh + 1) << 32 | dst;
	*RTE_MBUF_DYNFIELD(m, sl_route_hint_off, uint64_t *) = h;
}


