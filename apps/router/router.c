/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * router: forwards IPv4 by longest-prefix match over its `routes`, each of
 * which names the output (output0, output1, ...) its packets leave by and,
 * optionally, the MAC addresses they get.
 *
 * Per packet, in this order (apps/pkt/pkt.h parses):
 *   not_ipv4     not IPv4 after up to two VLAN tags (ARP, IPv6, any other
 *                ethertype; an IPv6 frame counts here even when malformed):
 *                dropped;
 *   malformed    cut short or inconsistent (apps/pkt/pkt.h's reasons: short
 *                Ethernet or IPv4 header, more than two tags, IHL < 5, total
 *                length beyond the frame or below the header, ports missing):
 *                dropped.  IPv4 options are fine; the header checksum is not
 *                verified;
 *   ttl_expired  TTL 0 or 1 on arrival: dropped.  No ICMP time-exceeded is
 *                sent (the router has no address of its own to send from);
 *   no_route     no route matches the destination: dropped;
 *   forwarded    TTL decremented with the header checksum updated
 *                incrementally (RFC 1624: a packet that arrived with a wrong
 *                checksum leaves with one wrong by the same amount), the
 *                route's dst_mac then src_mac written where given, and sent
 *                on the route's output.  VLAN tags and everything past the
 *                IPv4 header are kept; fragments are forwarded like any
 *                packet.
 * Dropped packets also count in the app's drops.  Each outcome is one of
 * the app's counters (router_counters, plus hinted); forwarded counts
 * packets handed to an output link (a full link's drops are the link's).
 *
 * Routes are checked at init, each error naming the route by its index in
 * the list (from 0) and its place in the config: a prefix must be A.B.C.D/N
 * with the host bits zero; output must be connected; (prefix, length) must
 * not repeat.  0.0.0.0/0 is the default route.
 *
 * Route hints.  The table is registered under the router's name
 * (apps/router/route.h), so that a flowcache (`route: NAME`) can look up a new
 * flow's next hop once and mark its packets with it; a packet carrying a hint
 * for this router's table skips the lookup, any other is looked up.  The
 * router clears the hint of every packet it drops and the hint for its own
 * table on every packet it forwards, so that mbufs do not go back to the pool
 * with hints (DPDK does not reset the field on allocation).
 *
 * Packets are modified in place, so the router must own them exclusively
 * (as l2fwd).  Headers that span mbuf segments are handled, more slowly.
 */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_ip.h>

#include "runtime/app.h"
#include "epoch/epoch.h"
#include "apps/pkt/pkt.h"
#include "apps/router/route.h"

#define ROUTER_ROUNDS 4

/* Fields of one row of `routes`, in the order of router_route_fields. */
enum { F_PREFIX, F_VIA, F_OUTPUT, F_DST_MAC, F_SRC_MAC, F_COUNT };

/* Output numbers of one burst are kept in bytes. */
_Static_assert(SL_MAX_PORTS <= UINT8_MAX + 1, "output number must fit in uint8_t");

struct router_priv {
	struct sl_route_table *table;
};

/* The app's counters, in the order of router_counters. */
enum { R_FORWARDED, R_NO_ROUTE, R_TTL_EXPIRED, R_MALFORMED, R_NOT_IPV4, R_HINTED, R_N_COUNTERS };

static const struct sl_counter_spec router_counters[R_N_COUNTERS] = {
	[R_FORWARDED] = { "forwarded", SL_COUNTER, "Packets routed and handed to their route's output link." },
	[R_NO_ROUTE] = { "no_route", SL_COUNTER, "Packets dropped because no route matches their destination." },
	[R_TTL_EXPIRED] = { "ttl_expired", SL_COUNTER, "Packets dropped because they arrived with TTL 0 or 1." },
	[R_MALFORMED] = { "malformed", SL_COUNTER, "IPv4 frames cut short or inconsistent, dropped." },
	[R_NOT_IPV4] = { "not_ipv4", SL_COUNTER, "Frames that are not IPv4 (ARP, IPv6, other ethertypes), dropped." },
	[R_HINTED] = { "hinted", SL_COUNTER, "Forwarded packets whose next hop came from a flowcache's route hint, without a lookup." },
};

static int route_error(struct sl_err *err, int rc, unsigned i, const struct sl_param_row *row)
{
	return sl_err_prefix(err, -rc, "%s: routes[%u]", row->where, i);
}

static int build_routes(const struct sl_param_row *rows, unsigned n, unsigned n_out,
			struct sl_route *routes, struct sl_err *err)
{
	unsigned first, again;
	int rc;

	for (unsigned i = 0; i < n; i++) {
		const struct sl_param_value *v = rows[i].v;
		struct sl_route *r = &routes[i];

		rc = sl_route_parse_prefix(v[F_PREFIX].s, &r->prefix, &r->depth, err);
		if (rc < 0)
			return route_error(err, rc, i, &rows[i]);
		if (strcmp(v[F_VIA].s, "none") != 0) {
			rc = sl_route_parse_addr(v[F_VIA].s, &r->nh.gateway, err);
			if (rc < 0)
				return sl_err_prefix(err, -rc, "%s: routes[%u]: via", rows[i].where,
						     i);
		}
		if (v[F_OUTPUT].u >= n_out) {
			if (n_out > 1)
				return sl_errf(err, EINVAL, "%s: routes[%u]: output %" PRIu64
					       " is not connected (outputs 0..%u are)", rows[i].where,
					       i, v[F_OUTPUT].u, n_out - 1);
			return sl_errf(err, EINVAL, "%s: routes[%u]: output %" PRIu64
				       " is not connected (only output 0 is)", rows[i].where, i,
				       v[F_OUTPUT].u);
		}
		r->nh.output = (uint16_t)v[F_OUTPUT].u;
		r->nh.set_dmac = v[F_DST_MAC].set;
		memcpy(r->nh.dmac, v[F_DST_MAC].mac, sizeof(r->nh.dmac));
		r->nh.set_smac = v[F_SRC_MAC].set;
		memcpy(r->nh.smac, v[F_SRC_MAC].mac, sizeof(r->nh.smac));
	}
	rc = sl_route_find_repeat(routes, n, &first, &again);
	if (rc == -EEXIST)
		return sl_errf(err, EINVAL, "%s: routes[%u]: prefix %s repeats routes[%u] (%s)",
			       rows[again].where, again, rows[again].v[F_PREFIX].s, first,
			       rows[first].where);
	if (rc < 0)
		return sl_errf(err, -rc, "out of memory");
	return 0;
}

static int router_init(struct sl_app *app, struct sl_err *err)
{
	struct router_priv *p = app->priv;
	const struct sl_param_row *rows;
	struct sl_route *routes;
	unsigned n;
	int rc;

	rows = sl_app_param_table(app, "routes", &n);
	if (n == 0)
		return sl_errf(err, EINVAL, "parameter 'routes' must have at least 1 row, got 0");
	routes = calloc(n, sizeof(*routes));
	if (routes == NULL)
		return sl_errf(err, ENOMEM, "out of memory for %u routes", n);
	rc = build_routes(rows, n, app->n_out, routes, err);
	if (rc < 0)
		goto out_free_routes;
	p->table = sl_route_table_create(app->name, routes, n, app->socket, err);
	if (p->table == NULL) {
		rc = -EINVAL;
		goto out_free_routes;
	}
	rc = sl_route_table_register(p->table, err);
	if (rc < 0)
		goto out_free_routes;
	rc = sl_route_hint_register(err);
	if (rc < 0)
		goto out_free_routes;
	/* The table holds the next hops; the list is no longer needed. */
out_free_routes:
	free(routes);
	return rc;
}

/* A reload that changes the routes: the table built for them, and the one
 * it replaced (set by apply). */
struct router_swap {
	struct sl_route_table *next, *old;
};

static int router_reconfig(struct sl_app *app, const struct sl_param_value *params,
			   void **state, struct sl_err *err)
{
	struct router_priv *p = app->priv;
	if (sl_route_table_found(p->table))
		return sl_errf(err, EBUSY, "parameter 'routes' cannot change while running: a "
			       "flowcache caches this router's routes (route: %s); restart Sluice",
			       app->name);
	int i = sl_param_find(app->type->params, app->type->n_params, "routes");
	const struct sl_param_value *v = &params[i];
	struct router_swap *sw = calloc(1, sizeof(*sw));
	struct sl_route *routes = calloc(v->n_rows + 1, sizeof(*routes));
	int rc = 0;
	if (sw == NULL || routes == NULL) {
		rc = sl_errf(err, ENOMEM, "out of memory for %u routes", v->n_rows);
		goto out_free;
	}
	rc = build_routes(v->rows, v->n_rows, app->n_out, routes, err);
	if (rc < 0)
		goto out_free;
	sw->next = sl_route_table_create(app->name, routes, v->n_rows, app->socket, err);
	if (sw->next == NULL) {
		rc = -EINVAL;
		goto out_free;
	}
	free(routes);
	*state = sw;
	return 0;
out_free:
	free(routes);
	free(sw);
	return rc;
}

/* The worker, between two breaths: packets from here on see the new table. */
static void router_apply(struct sl_app *app, void *state)
{
	struct router_priv *p = app->priv;
	struct router_swap *sw = state;
	sw->old = p->table;
	p->table = sw->next;
}

static void free_table(void *obj, void *arg)
{
	(void)arg;
	sl_route_table_free(obj);
}

/* The old table is retired through the epoch: freed once no worker can be
 * in a burst that read it. */
static void router_release(struct sl_app *app, void *state, bool applied)
{
	struct router_swap *sw = state;
	if (!applied)
		sl_route_table_free(sw->next);
	else if (sl_epoch_retire(app->epoch, app->control_epoch_w, sw->old, free_table, NULL) < 0
		 && sl_epoch_synchronize(app->epoch) == 0)
		sl_route_table_free(sw->old);   /* no room to retire: waited instead */
	free(sw);
}

static inline uint16_t be16_at(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/* RFC 1624, eqn. 3: the checksum hc after one 16-bit word of the summed data
 * changes from old to new: HC' = ~(~HC + ~m + m'). */
static inline uint16_t csum_replace16(uint16_t hc, uint16_t old, uint16_t new)
{
	uint32_t s = (uint32_t)(uint16_t)~hc + (uint16_t)~old + new;
	s = (s & 0xffff) + (s >> 16);
	s = (s & 0xffff) + (s >> 16);
	return (uint16_t)~s;
}

/* Copy len bytes to offset off of m's data, which may span segments (the
 * slow path for headers that are not in the first segment). */
static void write_at(struct rte_mbuf *m, uint32_t off, const uint8_t *src, uint32_t len)
{
	for (struct rte_mbuf *s = m; s != NULL && len > 0; s = s->next) {
		uint32_t dl = rte_pktmbuf_data_len(s);
		if (off >= dl) {
			off -= dl;
			continue;
		}
		uint32_t k = dl - off < len ? dl - off : len;
		memcpy(rte_pktmbuf_mtod_offset(s, uint8_t *, off), src, k);
		src += k;
		len -= k;
		off = 0;
	}
}

/* Bytes 8..11 of the IPv4 header (TTL, protocol, checksum): in place, or
 * copied into tmp when they are not in the first segment. */
static inline uint8_t *ttl_word(struct rte_mbuf *m, uint32_t l3, uint8_t *tmp)
{
	if (likely(l3 + 12 <= rte_pktmbuf_data_len(m)))
		return rte_pktmbuf_mtod_offset(m, uint8_t *, l3 + 8);
	/* The parser saw the whole header, so the read cannot fail. */
	const uint8_t *r = rte_pktmbuf_read(m, l3 + 8, 4, tmp);
	if (r != tmp)
		memcpy(tmp, r, 4);
	return tmp;
}

static inline void rewrite_macs(struct rte_mbuf *m, const struct sl_route_nh *nh)
{
	if (likely(rte_pktmbuf_data_len(m) >= 2 * RTE_ETHER_ADDR_LEN)) {
		uint8_t *eh = rte_pktmbuf_mtod(m, uint8_t *);
		if (nh->set_dmac)
			memcpy(eh, nh->dmac, RTE_ETHER_ADDR_LEN);
		if (nh->set_smac)
			memcpy(eh + RTE_ETHER_ADDR_LEN, nh->smac, RTE_ETHER_ADDR_LEN);
		return;
	}
	if (nh->set_dmac)
		write_at(m, 0, nh->dmac, RTE_ETHER_ADDR_LEN);
	if (nh->set_smac)
		write_at(m, RTE_ETHER_ADDR_LEN, nh->smac, RTE_ETHER_ADDR_LEN);
}

/* Hand pkts[0..n) to their outputs (which[i]; count[o] packets for output
 * o): sorted by output, each output's packets in arrival order, one
 * transmit per output. */
static void transmit_by_output(struct sl_app *app, struct rte_mbuf **pkts, const uint8_t *which,
			       unsigned n, const unsigned *count)
{
	struct rte_mbuf *sorted[SL_BURST_MAX];
	unsigned start[SL_MAX_PORTS];
	for (unsigned o = 0, s = 0; o < app->n_out; o++) {
		start[o] = s;
		s += count[o];
	}
	for (unsigned i = 0; i < n; i++)
		sorted[start[which[i]]++] = pkts[i];
	for (unsigned o = 0; o < app->n_out; o++) {
		if (count[o] == 0)
			continue;
		/* start[o] now points one past output o's packets. */
		sl_link_transmit(app->out[o], sorted + start[o] - count[o], count[o]);
	}
}

/* A burst in three passes: parse and check every packet (and take route
 * hints), look up all the destinations left at once (their table entries
 * are fetched together: sl_route_lookup_bulk), then rewrite and sort the
 * routed packets by output; a fourth step drops, transmits and counts.
 * Packets keep their order on each output.  Up to ROUTER_ROUNDS bursts per
 * push, while the input gives full ones.  A data-path function, over 100
 * lines: its phases are numbered below. */
static void router_push(struct sl_app *app)
{
	struct router_priv *p = app->priv;
	const struct sl_route_table *t = p->table;
	struct rte_mbuf *pkts[SL_BURST_MAX];
	struct rte_mbuf *drop[SL_BURST_MAX];
	uint8_t which[SL_BURST_MAX];
	uint8_t *word[SL_BURST_MAX];           /* the TTL's 16-bit word and the checksum */
	uint8_t tmp[SL_BURST_MAX][4];          /* where the word is not contiguous */
	uint32_t l3[SL_BURST_MAX];
	int nh[SL_BURST_MAX];
	uint32_t lk_dst[SL_BURST_MAX];
	int lk_nh[SL_BURST_MAX];
	uint8_t lk_at[SL_BURST_MAX];
	struct sl_link *in = app->in[0];

	_Static_assert(SL_BURST_MAX <= SL_ROUTE_BULK_MAX, "a burst fits one bulk lookup");
	_Static_assert(SL_BURST_MAX <= UINT8_MAX + 1, "burst positions fit in uint8_t");
	if (in == NULL || t == NULL)
		return;
	for (unsigned r = 0; r < ROUTER_ROUNDS; r++) {
		unsigned n = sl_link_receive(in, pkts, app->burst);
		unsigned count[SL_MAX_PORTS] = { 0 };
		unsigned n_ok = 0, n_lk = 0, n_fw = 0, n_drop = 0;
		unsigned not_ipv4 = 0, malformed = 0, ttl_expired = 0, no_route = 0, hinted = 0;

		if (n == 0)
			break;
		/* 1: parse; drop what cannot be routed; hints, or a lookup to do. */
		for (unsigned i = 0; i < n; i++) {
			struct rte_mbuf *m = pkts[i];
			/* the commonest frame needs only its destination: no key */
			const uint8_t *ip = sl_pkt_ipv4_simple(m);
			uint32_t dst;
			uint16_t l3_off = RTE_ETHER_HDR_LEN; /* the simple frame's */
			if (likely(ip != NULL)) {
				memcpy(&dst, ip + offsetof(struct rte_ipv4_hdr, dst_addr),
				       sizeof(dst));
			} else {
				struct sl_flow_key key;
				struct sl_pkt_info info;
				enum sl_pkt_class c = sl_pkt_parse_full(m, &key, &info);
				if (unlikely(c != SL_PKT_IP || key.family != 4)) {
					if (c == SL_PKT_MALFORMED &&
					    info.ethertype != RTE_ETHER_TYPE_IPV6)
						malformed++;
					else
						not_ipv4++;
					sl_route_hint_clear(m);
					drop[n_drop++] = m;
					continue;
				}
				memcpy(&dst, key.dst, sizeof(dst));
				l3_off = info.l3_off;
			}
			uint8_t *w = ttl_word(m, l3_off, tmp[n_ok]);
			if (unlikely(w[0] <= 1)) {
				ttl_expired++;
				sl_route_hint_clear(m);
				drop[n_drop++] = m;
				continue;
			}
			dst = rte_be_to_cpu_32(dst);
			int h = sl_route_hint_get(m, t, dst);
			if (h >= 0) {
				sl_route_hint_clear(m);
				hinted++;
			} else {
				lk_dst[n_lk] = dst;
				lk_at[n_lk++] = (uint8_t)n_ok;
			}
			pkts[n_ok] = m;      /* n_ok <= i: overwrites only what was read */
			word[n_ok] = w;
			l3[n_ok] = l3_off;
			nh[n_ok++] = h;
		}
		/* 2: the lookups, together. */
		if (n_lk > 0) {
			sl_route_lookup_bulk(t, lk_dst, lk_nh, n_lk);
			for (unsigned k = 0; k < n_lk; k++)
				nh[lk_at[k]] = lk_nh[k];
		}
		/* 3: TTL, checksum and MACs of what has a route. */
		for (unsigned i = 0; i < n_ok; i++) {
			struct rte_mbuf *m = pkts[i];
			if (unlikely(nh[i] < 0)) {
				no_route++;
				sl_route_hint_clear(m);
				drop[n_drop++] = m;
				continue;
			}
			const struct sl_route_nh *hop = sl_route_nh(t, (unsigned)nh[i]);
			uint8_t *w = word[i];
			uint16_t old = be16_at(w);
			uint16_t new = (uint16_t)(old - 0x100);      /* TTL - 1, protocol kept */
			uint16_t sum = csum_replace16(be16_at(w + 2), old, new);
			w[0] = (uint8_t)(new >> 8);
			w[2] = (uint8_t)(sum >> 8);
			w[3] = (uint8_t)sum;
			if (unlikely(w == tmp[i]))
				write_at(m, l3[i] + 8u, w, 4);
			rewrite_macs(m, hop);

			which[n_fw] = (uint8_t)hop->output;
			pkts[n_fw++] = m;   /* n_fw <= i */
			count[hop->output]++;
		}
		/* 4: drops, one transmit per output, the burst's counters. */
		sl_app_drop(app, drop, n_drop);
		transmit_by_output(app, pkts, which, n_fw, count);

		sl_app_ctr_add(app, R_FORWARDED, n_fw);
		sl_app_ctr_add(app, R_NOT_IPV4, not_ipv4);
		sl_app_ctr_add(app, R_MALFORMED, malformed);
		sl_app_ctr_add(app, R_TTL_EXPIRED, ttl_expired);
		sl_app_ctr_add(app, R_NO_ROUTE, no_route);
		sl_app_ctr_add(app, R_HINTED, hinted);
		if (n < app->burst)
			break;
	}
}

static void router_fini(struct sl_app *app)
{
	struct router_priv *p = app->priv;

	sl_route_table_free(p->table);    /* unregisters it */
	p->table = NULL;
}

static const struct sl_param_spec router_route_fields[] = {
	[F_PREFIX] = { .name = "prefix", .type = SL_PARAM_STRING,
		       .doc = "destinations, A.B.C.D/N with the host bits zero; 0.0.0.0/0 is the default route" },
	[F_VIA] = { .name = "via", .type = SL_PARAM_STRING, .def = "none",
		    .doc = "next-hop gateway A.B.C.D, for information; none: directly connected" },
	[F_OUTPUT] = { .name = "output", .type = SL_PARAM_UINT, .max = SL_MAX_PORTS - 1,
		       .doc = "the output the packets leave by (N of outputN); must be connected" },
	[F_DST_MAC] = { .name = "dst_mac", .type = SL_PARAM_MAC, .def = "00:00:00:00:00:00",
			.doc = "destination MAC written on the way out; not given: kept" },
	[F_SRC_MAC] = { .name = "src_mac", .type = SL_PARAM_MAC, .def = "00:00:00:00:00:00",
			.doc = "source MAC written on the way out; not given: kept" },
};
_Static_assert(SL_ARRAY_LEN(router_route_fields) == F_COUNT, "one spec per route field");

static const struct sl_param_spec router_params[] = {
	{ .name = "routes", .type = SL_PARAM_TABLE, .min = 1,
	  .fields = router_route_fields, .n_fields = SL_ARRAY_LEN(router_route_fields),
	  .live = true, .doc = "IPv4 routes, longest prefix wins: prefix, output, and optionally via, dst_mac, src_mac" },
};

/* At config load: the routes parse, name connected outputs and do not
 * repeat (init builds the same list again for the table). */
static int router_check(const struct sl_param_value *params, unsigned n_out, struct sl_err *err)
{
	const struct sl_param_value *v =
		&params[sl_param_find(router_params, SL_ARRAY_LEN(router_params), "routes")];
	if (v->n_rows == 0)
		return 0;   /* the list's own minimum is checked by the config */
	struct sl_route *routes = calloc(v->n_rows, sizeof(*routes));
	if (routes == NULL)
		return sl_errf(err, ENOMEM, "out of memory for %u routes", v->n_rows);
	int rc = build_routes(v->rows, v->n_rows, n_out, routes, err);
	free(routes);
	return rc;
}

static const struct sl_port_spec router_inputs[] = {
	{ .name = "input", .required = true, .doc = "Ethernet frames" },
};

static const struct sl_port_spec router_outputs[] = {
	{ .name = "output#", .required = true,
	  .doc = "output0, output1, ...: routed IPv4 packets, by their route's output" },
};

static const struct sl_app_type router_app = {
	.name = "router",
	.doc = "Forward IPv4 by longest-prefix match: TTL decrement, MAC rewrite, one output per route",
	.params = router_params,
	.n_params = SL_ARRAY_LEN(router_params),
	.inputs = router_inputs,
	.n_inputs = SL_ARRAY_LEN(router_inputs),
	.outputs = router_outputs,
	.n_outputs = SL_ARRAY_LEN(router_outputs),
	.priv_size = sizeof(struct router_priv),
	.counters = router_counters,
	.n_counters = R_N_COUNTERS,
	.check = router_check,
	.init = router_init,
	.push = router_push,
	.reconfig = router_reconfig,
	.apply = router_apply,
	.release = router_release,
	.fini = router_fini,
};

SL_APP_REGISTER(router_app)
