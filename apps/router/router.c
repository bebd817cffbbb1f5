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
 * Interfaces (docs/router.md).  A router with `interfaces` is a node of
 * the network: interface k leaves by outputN and takes what comes in by
 * inputN (the same N; `input` is input0); its addresses are the router's
 * own (/32 routes of kind local) and their prefixes are connected routes;
 * it answers ARP for them, resolves next hops (a route's via, or the
 * destination on a connected prefix) in its neighbour table
 * (apps/router/neigh.h), holding the packets that wait, and sends ICMP
 * (apps/router/proto.h): echo replies from its addresses, time exceeded,
 * net and host unreachable, fragmentation needed (an IPv4 packet larger
 * than the outgoing MTU with DF; one without DF is dropped as too_big: the
 * router does not fragment), at most icmp_rate a second (a token bucket of
 * icmp_burst).  Replies and errors leave by the interface the packet came
 * in by, to the MAC it came from.  A router without interfaces forwards as
 * above and nothing more.
 *
 * Packets are modified in place, so the router must own them exclusively
 * (as l2fwd).  Headers that span mbuf segments are handled, more slowly.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_ether.h>
#include <rte_ip.h>

#include "runtime/app.h"
#include "epoch/epoch.h"
#include "apps/pkt/pkt.h"
#include "apps/router/neigh.h"
#include "apps/router/neigh_view.h"
#include "apps/router/proto.h"
#include "apps/router/proto6.h"
#include "apps/router/route.h"
#include "apps/router/route6.h"

#define ROUTER_ROUNDS 4
#define IF_ADDR_MAX 8            /* IPv4 addresses per interface */
#define NO_IFACE 0xff            /* a route's next hop on no interface */

/* Fields of one row of `routes`, in the order of router_route_fields. */
enum { F_PREFIX, F_VIA, F_OUTPUT, F_DST_MAC, F_SRC_MAC, F_COUNT };
/* Fields of one row of `interfaces`, in the order of router_iface_fields. */
enum { I_NAME, I_OUTPUT, I_ADDRESS, I_MAC, I_MTU, I_VLAN, I_COUNT };

/* if_of_input[] of local_output's input: what the host's stack sends. */
#define LOCAL_IN (-2)
/* if_of_input[] of an input whose interfaces all have a VLAN: untagged
 * frames belong to none. */
#define TAGGED_ONLY (-3)

/* Output numbers of one burst are kept in bytes. */
_Static_assert(SL_MAX_PORTS <= UINT8_MAX + 1, "output number must fit in uint8_t");

struct iface {
	char name[32];
	unsigned output;               /* leaves by outputN, comes in by inputN */
	uint32_t addr[IF_ADDR_MAX];    /* host order */
	uint8_t plen[IF_ADDR_MAX];
	unsigned n_addr;
	uint8_t mac[6];
	bool mac_set;                  /* given, else read from the port at start */
	uint16_t mtu;
	uint16_t vlan;                 /* 802.1Q id, or 0: untagged */
	uint8_t addr6[IF_ADDR_MAX][16];
	uint8_t plen6[IF_ADDR_MAX];
	unsigned n_addr6;
	uint8_t ll6[16];               /* fe80::/64 from the MAC, with IPv6 (at start) */
};

_Static_assert(sizeof(((struct iface *)0)->name) == SL_NBV_IFNAME, "interface names fit the view's");

struct router_priv {
	struct sl_route_table *table;
	struct sl_route6_table *table6;        /* NULL: no IPv6 */
	unsigned n_if;                         /* 0: no interfaces (forwarding only) */
	uint64_t own6_bits;                    /* bit (last byte & 63) of each of the
						* interfaces' IPv6 addresses: a
						* destination without its bit is
						* not the router's (ipv6_fast) */
	struct iface ifs[SL_MAX_PORTS];
	int8_t if_of_input[SL_MAX_PORTS];      /* its untagged interface, LOCAL_IN,
						* TAGGED_ONLY, or -1 (none: forwarding) */
	uint8_t n_tagged[SL_MAX_PORTS];        /* VLAN interfaces of each input */
	struct { uint16_t vid; uint8_t k; } tagged[SL_MAX_PORTS][SL_MAX_PORTS];
	int local_out;                         /* local_output's N, or -1 */
	uint8_t local_mac[6];                  /* its port's (the host side's) MAC */
	struct sl_nb_table *nb;
	struct sl_nbv *nbv;                    /* copies of nb for readers (neigh_view.h) */
	char ifnames[SL_MAX_PORTS][SL_NBV_IFNAME];
	uint64_t tok, tok_max, tok_last;       /* ICMP errors: tokens x tsc_hz */
	uint64_t tok_rate;                     /* tokens per second */
	uint64_t next_age, age_every;          /* TSC */
	unsigned age_budget;
	bool announced;                        /* gratuitous ARP sent */
};

/* The app's counters, in the order of router_counters. */
enum { R_FORWARDED, R_NO_ROUTE, R_TTL_EXPIRED, R_MALFORMED, R_NOT_IPV4, R_HINTED,
       R_ARP_IN, R_ARP_REPLIED, R_ARP_REQUESTS, R_ARP_BAD, R_ARP_IGNORED, R_ECHO_REPLIED,
       R_ICMP_SENT, R_ICMP_LIMITED, R_LOCAL_DROPPED, R_TOO_BIG, R_NEIGH_HELD,
       R_NEIGH_DROPPED, R_NEIGH_FAILED, R_NEIGH_AGED, R_NEIGH_ENTRIES, R_PUNTED,
       R_NEIGH_LATE_US, R_VLAN_UNKNOWN, R_FORWARDED6, R_ND_IN, R_ND_REPLIED, R_ND_REQUESTS,
       R_ND_BAD, R_ND_IGNORED, R_FAST, R_N_COUNTERS };

static const struct sl_counter_spec router_counters[R_N_COUNTERS] = {
	[R_FORWARDED] = { "forwarded", SL_COUNTER, "Packets routed and handed to their route's output link." },
	[R_NO_ROUTE] = { "no_route", SL_COUNTER, "Packets dropped because no route matches their destination." },
	[R_TTL_EXPIRED] = { "ttl_expired", SL_COUNTER, "Packets dropped because they arrived with TTL 0 or 1." },
	[R_MALFORMED] = { "malformed", SL_COUNTER, "IPv4 frames cut short or inconsistent, dropped." },
	[R_NOT_IPV4] = { "not_ipv4", SL_COUNTER, "Frames that are not IPv4 (ARP, IPv6, other ethertypes), dropped." },
	[R_HINTED] = { "hinted", SL_COUNTER, "Forwarded packets whose next hop came from a flowcache's route hint, without a lookup." },
	[R_ARP_IN] = { "arp_in", SL_COUNTER, "ARP messages received on an interface." },
	[R_ARP_REPLIED] = { "arp_replied", SL_COUNTER, "ARP requests for the router's addresses, answered." },
	[R_ARP_REQUESTS] = { "arp_requests", SL_COUNTER, "ARP requests sent: resolutions, probes of stale neighbours and gratuitous ARP." },
	[R_ARP_BAD] = { "arp_bad", SL_COUNTER, "ARP messages malformed or of another kind than Ethernet/IPv4, dropped." },
	[R_ARP_IGNORED] = { "arp_ignored", SL_COUNTER, "ARP requests for other addresses and replies never asked for, dropped unlearned." },
	[R_ECHO_REPLIED] = { "echo_replied", SL_COUNTER, "ICMP echo requests to the router's addresses, answered." },
	[R_ICMP_SENT] = { "icmp_sent", SL_COUNTER, "ICMP errors sent (time exceeded, unreachable, fragmentation needed)." },
	[R_ICMP_LIMITED] = { "icmp_limited", SL_COUNTER, "ICMP errors not sent because of the rate limit (icmp_rate)." },
	[R_LOCAL_DROPPED] = { "local_dropped", SL_COUNTER, "Packets to the router's addresses it does not handle itself, dropped (no local_output)." },
	[R_TOO_BIG] = { "too_big", SL_COUNTER, "IPv4 packets larger than the outgoing interface's MTU, dropped (with DF: answered with fragmentation needed)." },
	[R_NEIGH_HELD] = { "neigh_held", SL_COUNTER, "Packets held while their next hop was resolved." },
	[R_NEIGH_DROPPED] = { "neigh_dropped", SL_COUNTER, "Packets dropped waiting for a next hop: its queue full, its entry evicted or no room for one." },
	[R_NEIGH_FAILED] = { "neigh_failed", SL_COUNTER, "Packets dropped because their next hop never answered (neigh_probes requests)." },
	[R_NEIGH_AGED] = { "neigh_aged", SL_COUNTER, "Neighbour entries removed after neigh_reachable + neigh_stale without confirmation." },
	[R_NEIGH_ENTRIES] = { "neigh_entries", SL_GAUGE, "Entries in the neighbour table." },
	[R_NEIGH_LATE_US] = { "neigh_aged_late_us", SL_GAUGE, "The most an aged-out neighbour entry outlived neigh_reachable + neigh_stale before aging removed it, microseconds." },
	[R_VLAN_UNKNOWN] = { "vlan_unknown", SL_COUNTER, "Frames on an interface's input whose VLAN tag, or lack of one, belongs to none of its interfaces, dropped." },
	[R_FORWARDED6] = { "forwarded6", SL_COUNTER, "IPv6 packets routed (also counted in forwarded)." },
	[R_ND_IN] = { "nd_in", SL_COUNTER, "Neighbour solicitations and advertisements received on an interface." },
	[R_ND_REPLIED] = { "nd_replied", SL_COUNTER, "Neighbour solicitations for the router's addresses, answered with an advertisement." },
	[R_ND_REQUESTS] = { "nd_requests", SL_COUNTER, "Neighbour solicitations sent (resolutions and probes), and unsolicited advertisements at start." },
	[R_ND_BAD] = { "nd_bad", SL_COUNTER, "Neighbour discovery messages malformed (hop limit, length, options, checksum), dropped." },
	[R_ND_IGNORED] = { "nd_ignored", SL_COUNTER, "Solicitations for other addresses, duplicate address detection, and advertisements never asked for: dropped unlearned." },
	[R_FAST] = { "fast", SL_COUNTER, "Forwarded packets that took the fast path: simple IPv4 or IPv6 frames to next hops with static MACs, in runs of a burst (docs/router.md, Speed); also in forwarded (and the IPv6 ones in forwarded6)." },
	[R_PUNTED] = { "punted", SL_COUNTER, "Packets to the router's addresses it does not handle itself, sent to the host's stack by local_output." },
};

static int route_error(struct sl_err *err, int rc, unsigned i, const struct sl_param_row *row)
{
	return sl_err_prefix(err, -rc, "%s: routes[%u]", row->where, i);
}

static bool on_prefix(uint32_t a, uint32_t net, uint8_t plen)
{
	uint32_t mask = plen == 0 ? 0 : ~0u << (32 - plen);
	return (a & mask) == (net & mask);
}

/* The interface whose connected prefixes hold a, or -1. */
static int iface_on(const struct iface *ifs, unsigned n_if, uint32_t a)
{
	for (unsigned k = 0; k < n_if; k++)
		for (unsigned j = 0; j < ifs[k].n_addr; j++)
			if (on_prefix(a, ifs[k].addr[j], ifs[k].plen[j]))
				return (int)k;
	return -1;
}

/* An interface address "ADDR/N" (form: "A.B.C.D/N" or "X:X::X/N"): ADDR
 * into buf (64 bytes), N (1..max) into *n, else -EINVAL with a sentence. */
static int split_if_addr(const char *text, const char *form, unsigned max, char *buf,
			 unsigned long *n, struct sl_err *err)
{
	const char *slash = strchr(text, '/');
	size_t len = slash != NULL ? (size_t)(slash - text) : 0;
	char *end;
	if (slash == NULL || len == 0 || len >= 64)
		return sl_errf(err, EINVAL, "address '%s' is not %s", text, form);
	memcpy(buf, text, len);
	buf[len] = '\0';
	*n = strtoul(slash + 1, &end, 10);
	if (slash[1] < '0' || slash[1] > '9' || *end != '\0' || *n < 1 || *n > max)
		return sl_errf(err, EINVAL, "address '%s': prefix length must be 1..%u", text, max);
	return 0;
}

/* One interface address "A.B.C.D/N" (N in 1..32; host bits are the
 * address's own). */
static int parse_if_addr(const char *text, uint32_t *addr, uint8_t *plen, struct sl_err *err)
{
	char buf[64];
	unsigned long n;
	const char *form = "A.B.C.D/N";
	int rc = split_if_addr(text, form, 32, buf, &n, err);
	if (rc < 0)
		return rc;
	if (sl_route_parse_addr(buf, addr, NULL) < 0)
		return sl_errf(err, EINVAL, "address '%s' is not %s: '%s' is not an IPv4 "
			       "address", text, form, buf);
	if (*addr == 0 || (*addr >> 28) >= 0xe || (*addr >> 24) == 127 ||
	    (n < 31 && (*addr == (*addr | ~(~0u << (32 - n))) ||
			(*addr & ~(~0u << (32 - n))) == 0)))
		return sl_errf(err, EINVAL, "address '%s' is not one host's (a network, broadcast, "
			       "loopback or multicast address)", text);
	*plen = (uint8_t)n;
	return 0;
}

/* "X:X::X/N" for an interface: a host's address (not multicast, loopback,
 * unspecified or link-local: that one comes from the MAC), N 1..128. */
static int parse_if_addr6(const char *text, uint8_t a[16], uint8_t *plen, struct sl_err *err)
{
	char buf[64];
	unsigned long n;
	const char *form = "X:X::X/N";
	int rc = split_if_addr(text, form, 128, buf, &n, err);
	if (rc < 0)
		return rc;
	if (sl_route6_parse_addr(buf, a, NULL) < 0)
		return sl_errf(err, EINVAL, "address '%s' is not %s: '%s' is not an IPv6 "
			       "address", text, form, buf);
	static const uint8_t loop[16] = { [15] = 1 };
	if (sl_ip6_is_multicast(a) || sl_ip6_is_unspecified(a) || memcmp(a, loop, 16) == 0)
		return sl_errf(err, EINVAL, "address '%s' is not one host's (unspecified, loopback "
			       "or multicast)", text);
	if (sl_ip6_is_link_local(a))
		return sl_errf(err, EINVAL, "address '%s' is link-local: each interface with IPv6 "
			       "has fe80::/64 from its MAC", text);
	*plen = (uint8_t)n;
	return 0;
}

static bool on_prefix6(const uint8_t a[16], const uint8_t net[16], unsigned plen)
{
	for (unsigned bit = 0; bit < plen; bit += 8) {
		uint8_t mask = plen - bit >= 8 ? 0xff : (uint8_t)(0xff << (8 - (plen - bit)));
		if ((a[bit / 8] & mask) != (net[bit / 8] & mask))
			return false;
	}
	return true;
}

static int iface_on6(const struct iface *ifs, unsigned n_if, const uint8_t a[16])
{
	for (unsigned k = 0; k < n_if; k++)
		for (unsigned j = 0; j < ifs[k].n_addr6; j++)
			if (on_prefix6(a, ifs[k].addr6[j], ifs[k].plen6[j]))
				return (int)k;
	return -1;
}

/* `interfaces` into ifs (at most n_out: one per connected output). */
static int parse_ifaces(const struct sl_param_row *rows, unsigned n, unsigned n_out,
			struct iface *ifs, struct sl_err *err)
{
	for (unsigned i = 0; i < n; i++) {
		const struct sl_param_value *v = rows[i].v;
		struct iface *f = &ifs[i];
		const char *w = rows[i].where;
		memset(f, 0, sizeof(*f));
		if (strlen(v[I_NAME].s) >= sizeof(f->name) || v[I_NAME].s[0] == '\0')
			return sl_errf(err, EINVAL, "%s: interfaces[%u]: name must be 1..%zu characters",
				       w, i, sizeof(f->name) - 1);
		snprintf(f->name, sizeof(f->name), "%s", v[I_NAME].s);
		if (v[I_OUTPUT].u >= n_out)
			return sl_errf(err, EINVAL, "%s: interface '%s': output %" PRIu64
				       " is not connected", w, f->name, v[I_OUTPUT].u);
		f->output = (unsigned)v[I_OUTPUT].u;
		f->mac_set = v[I_MAC].set;
		memcpy(f->mac, v[I_MAC].mac, 6);
		f->mtu = (uint16_t)v[I_MTU].u;
		if (v[I_VLAN].set && (v[I_VLAN].u < 1 || v[I_VLAN].u > 4094))
			return sl_errf(err, EINVAL, "%s: interface '%s': vlan %" PRIu64 " is outside "
				       "1..4094", w, f->name, v[I_VLAN].u);
		f->vlan = (uint16_t)v[I_VLAN].u;
		char list[512];
		snprintf(list, sizeof(list), "%s", v[I_ADDRESS].s);
		char *save = NULL;
		for (char *tok = strtok_r(list, ", ", &save); tok != NULL;
		     tok = strtok_r(NULL, ", ", &save)) {
			bool six = strchr(tok, ':') != NULL;
			if ((six ? f->n_addr6 : f->n_addr) == IF_ADDR_MAX)
				return sl_errf(err, EINVAL, "%s: interface '%s': more than %u "
					       "IPv%c addresses", w, f->name, IF_ADDR_MAX, six ? '6' : '4');
			int rc = six ? parse_if_addr6(tok, f->addr6[f->n_addr6], &f->plen6[f->n_addr6],
						      err)
				     : parse_if_addr(tok, &f->addr[f->n_addr], &f->plen[f->n_addr], err);
			if (rc < 0)
				return sl_err_prefix(err, -rc, "%s: interface '%s'", w, f->name);
			if (six)
				f->n_addr6++;
			else
				f->n_addr++;
		}
		if (f->n_addr + f->n_addr6 == 0)
			return sl_errf(err, EINVAL, "%s: interface '%s': address is empty", w, f->name);
		if (f->n_addr6 > 0 && f->mtu < 1280)
			return sl_errf(err, EINVAL, "%s: interface '%s': mtu %u is below IPv6's 1280",
				       w, f->name, f->mtu);
		for (unsigned k = 0; k < i; k++) {
			if (strcmp(ifs[k].name, f->name) == 0)
				return sl_errf(err, EINVAL, "%s: interface name '%s' repeats "
					       "interfaces[%u] (%s)", w, f->name, k, rows[k].where);
			if (ifs[k].output == f->output && ifs[k].vlan == f->vlan)
				return sl_errf(err, EINVAL, "%s: interface '%s': output %u%s is "
					       "interface '%s''s already", w, f->name, f->output,
					       f->vlan != 0 ? " with that vlan" : " (untagged)",
					       ifs[k].name);
			for (unsigned a = 0; a < f->n_addr6; a++)
				for (unsigned b = 0; b < ifs[k].n_addr6; b++)
					if (memcmp(ifs[k].addr6[b], f->addr6[a], 16) == 0)
						return sl_errf(err, EINVAL, "%s: interface '%s': an "
							       "IPv6 address is interface '%s''s too",
							       w, f->name, ifs[k].name);
			for (unsigned a = 0; a < f->n_addr; a++)
				for (unsigned b = 0; b < ifs[k].n_addr; b++)
					if (ifs[k].addr[b] == f->addr[a])
						return sl_errf(err, EINVAL, "%s: interface '%s': "
							       "address %u.%u.%u.%u is interface "
							       "'%s''s too", w, f->name,
							       f->addr[a] >> 24,
							       f->addr[a] >> 16 & 0xff,
							       f->addr[a] >> 8 & 0xff,
							       f->addr[a] & 0xff, ifs[k].name);
		}
	}
	return 0;
}

/* After routes[0..n), a connected route per interface prefix and a local
 * /32 per address; *n_total: all of them.  A route of the rows may not be
 * one of those. */
/* Row j of routes[] is routes[RI(j)] of the config (idx: the IPv4 rows'
 * places among all, or NULL when they are all). */
#define RI(j) (idx != NULL ? idx[j] : (j))

static int add_iface_routes(const struct sl_param_row *rows, const unsigned *idx, unsigned n,
			    const struct iface *ifs, unsigned n_if, struct sl_route *routes,
			    unsigned *n_total, struct sl_err *err)
{
	unsigned t = n;
	for (unsigned k = 0; k < n_if; k++)
		for (unsigned j = 0; j < ifs[k].n_addr; j++) {
			uint8_t plen = ifs[k].plen[j];
			uint32_t mask = ~0u << (32 - plen);
			struct sl_route c = { .prefix = ifs[k].addr[j] & mask, .depth = plen,
					      .nh = { .output = (uint16_t)ifs[k].output,
						      .kind = SL_NH_CONNECTED, .iface = (uint8_t)k } };
			struct sl_route l = { .prefix = ifs[k].addr[j], .depth = 32,
					      .nh = { .output = (uint16_t)ifs[k].output,
						      .kind = SL_NH_LOCAL, .iface = (uint8_t)k } };
			bool have_c = false;
			for (unsigned x = n; x < t; x++)
				if (routes[x].prefix == c.prefix && routes[x].depth == c.depth)
					have_c = true;
			for (unsigned x = 0; x < n; x++)
				if ((routes[x].prefix == c.prefix && routes[x].depth == c.depth) ||
				    (routes[x].prefix == l.prefix && routes[x].depth == 32))
					return sl_errf(err, EINVAL, "%s: routes[%u]: prefix %s is "
						       "interface '%s''s own (connected or local)",
						       rows[x].where, RI(x), rows[x].v[F_PREFIX].s,
						       ifs[k].name);
			if (!have_c && plen < 32)
				routes[t++] = c;
			routes[t++] = l;
		}
	*n_total = t;
	return 0;
}

/* routes[0..n) from the rows, then (with interfaces) a connected route per
 * interface prefix and a local /32 per address: *n_total routes in all
 * (room: n + 2 x SL_MAX_PORTS x IF_ADDR_MAX). */
static int build_routes(const struct sl_param_row *rows, const unsigned *idx, unsigned n,
			unsigned n_out,
			const struct iface *ifs, unsigned n_if, struct sl_route *routes,
			unsigned *n_total, struct sl_err *err)
{
	unsigned first, again;
	int rc;

	for (unsigned i = 0; i < n; i++) {
		const struct sl_param_value *v = rows[i].v;
		struct sl_route *r = &routes[i];

		rc = sl_route_parse_prefix(v[F_PREFIX].s, &r->prefix, &r->depth, err);
		if (rc < 0)
			return route_error(err, rc, RI(i), &rows[i]);
		if (strcmp(v[F_VIA].s, "none") != 0) {
			rc = sl_route_parse_addr(v[F_VIA].s, &r->nh.gateway, err);
			if (rc < 0)
				return sl_err_prefix(err, -rc, "%s: routes[%u]: via", rows[i].where,
						     RI(i));
		}
		unsigned out = (unsigned)v[F_OUTPUT].u;
		int k = -1;
		if (n_if > 0) {
			if (r->nh.gateway != 0) {
				k = iface_on(ifs, n_if, r->nh.gateway);
				if (k < 0 && !v[F_OUTPUT].set)
					return sl_errf(err, EINVAL, "%s: routes[%u]: via %s is on no "
						       "interface's prefix (give output)",
						       rows[i].where, RI(i), v[F_VIA].s);
			}
			if (v[F_OUTPUT].set || k < 0) {
				k = -1;
				for (unsigned j = 0; j < n_if; j++)
					if (ifs[j].output == out)
						k = (int)j;
			}
			if (k >= 0)
				out = ifs[k].output;
			else
				r->nh.iface = NO_IFACE;
		}
		if (out >= n_out) {
			if (n_out > 1)
				return sl_errf(err, EINVAL, "%s: routes[%u]: output %u"
					       " is not connected (outputs 0..%u are)", rows[i].where,
					       RI(i), out, n_out - 1);
			return sl_errf(err, EINVAL, "%s: routes[%u]: output %u"
				       " is not connected (only output 0 is)", rows[i].where, RI(i),
				       out);
		}
		r->nh.output = (uint16_t)out;
		r->nh.set_dmac = v[F_DST_MAC].set;
		memcpy(r->nh.dmac, v[F_DST_MAC].mac, sizeof(r->nh.dmac));
		r->nh.set_smac = v[F_SRC_MAC].set;
		memcpy(r->nh.smac, v[F_SRC_MAC].mac, sizeof(r->nh.smac));
		if (k >= 0) {
			/* on an interface: a static neighbour (dst_mac), the
			 * gateway, or the destination itself, from its MAC */
			r->nh.iface = (uint8_t)k;
			r->nh.kind = r->nh.set_dmac ? SL_NH_FORWARD
				     : r->nh.gateway != 0 ? SL_NH_GATEWAY : SL_NH_CONNECTED;
			if (!r->nh.set_smac && ifs[k].mac_set) {
				r->nh.set_smac = true;
				memcpy(r->nh.smac, ifs[k].mac, 6);
			}
		}
	}
	rc = add_iface_routes(rows, idx, n, ifs, n_if, routes, n_total, err);
	if (rc < 0)
		return rc;
	rc = sl_route_find_repeat(routes, n, &first, &again);
	if (rc == -EEXIST)
		return sl_errf(err, EINVAL, "%s: routes[%u]: prefix %s repeats routes[%u] (%s)",
			       rows[again].where, RI(again), rows[again].v[F_PREFIX].s, RI(first),
			       rows[first].where);
	if (rc < 0)
		return sl_errf(err, -rc, "out of memory");
	return 0;
}

#define EXTRA_ROUTES (2 * SL_MAX_PORTS * IF_ADDR_MAX)

/* The interfaces of params (a router's parameters), into ifs. */
static int params_ifaces(const struct sl_param_spec *specs, unsigned n_specs,
			 const struct sl_param_value *params, unsigned n_out, struct iface *ifs,
			 unsigned *n_if, struct sl_err *err)
{
	const struct sl_param_value *v = &params[sl_param_find(specs, n_specs, "interfaces")];
	*n_if = v->n_rows;
	return parse_ifaces(v->rows, v->n_rows, n_out, ifs, err);
}

/* local_output: -1 (none) or N, an output that is no interface's;
 * *out is set either way.  Returns 0 or -EINVAL with a sentence. */
static int params_local(const struct sl_param_spec *specs, unsigned n_specs,
			const struct sl_param_value *params, unsigned n_out,
			const struct iface *ifs, unsigned n_if, int *out, struct sl_err *err)
{
	const char *s = params[sl_param_find(specs, n_specs, "local_output")].s;
	char *end;
	*out = -1;
	if (strcmp(s, "none") == 0)
		return 0;
	errno = 0;
	unsigned long v = strtoul(s, &end, 10);
	if (errno != 0 || end == s || *end != '\0' || !isdigit((unsigned char)s[0]))
		return sl_errf(err, EINVAL, "local_output: '%s' is neither none nor an output "
			       "number", s);
	if (n_if == 0)
		return sl_errf(err, EINVAL, "local_output: needs interfaces (it takes what is "
			       "addressed to them)");
	if (v >= n_out)
		return sl_errf(err, EINVAL, "local_output: output %lu is not connected", v);
	for (unsigned k = 0; k < n_if; k++)
		if (ifs[k].output == v)
			return sl_errf(err, EINVAL, "local_output: output %lu is interface '%s''s",
				       v, ifs[k].name);
	*out = (int)v;
	return 0;
}

/* IPv6 routes of rows[0..n) (row j is routes[RI(j)] of the config), then a
 * connected route per interface prefix: *n_total in all (room: n +
 * SL_MAX_PORTS x IF_ADDR_MAX).  The router's own addresses are not routes:
 * the data path compares them first. */
static int build_routes6(const struct sl_param_row *rows, const unsigned *idx, unsigned n,
			 unsigned n_out, const struct iface *ifs, unsigned n_if,
			 struct sl_route6 *routes, unsigned *n_total, struct sl_err *err)
{
	static const uint8_t none[16];
	unsigned t = n;
	for (unsigned i = 0; i < n; i++) {
		const struct sl_param_value *v = rows[i].v;
		struct sl_route6 *r = &routes[i];
		int rc = sl_route6_parse_prefix(v[F_PREFIX].s, r->prefix, &r->depth, err);
		if (rc < 0)
			return route_error(err, rc, RI(i), &rows[i]);
		bool via = strcmp(v[F_VIA].s, "none") != 0;
		if (via && sl_route6_parse_addr(v[F_VIA].s, r->nh.gateway, err) < 0)
			return sl_err_prefix(err, EINVAL, "%s: routes[%u]: via", rows[i].where, RI(i));
		unsigned out = (unsigned)v[F_OUTPUT].u;
		int k = via ? iface_on6(ifs, n_if, r->nh.gateway) : -1;
		if (via && k < 0 && n_if > 0 && !v[F_OUTPUT].set)
			return sl_errf(err, EINVAL, "%s: routes[%u]: via %s is on no interface's "
				       "prefix (give output)", rows[i].where, RI(i), v[F_VIA].s);
		if (v[F_OUTPUT].set || k < 0) {
			k = -1;
			for (unsigned j = 0; j < n_if; j++)
				if (ifs[j].output == out && ifs[j].vlan == 0)
					k = (int)j;
		}
		if (k >= 0)
			out = ifs[k].output;
		if (out >= n_out)
			return sl_errf(err, EINVAL, "%s: routes[%u]: output %u is not connected",
				       rows[i].where, RI(i), out);
		r->nh.output = (uint16_t)out;
		r->nh.iface = k >= 0 ? (uint8_t)k : NO_IFACE;
		r->nh.set_dmac = v[F_DST_MAC].set;
		memcpy(r->nh.dmac, v[F_DST_MAC].mac, 6);
		r->nh.set_smac = v[F_SRC_MAC].set;
		memcpy(r->nh.smac, v[F_SRC_MAC].mac, 6);
		r->nh.kind = r->nh.set_dmac || k < 0 ? SL_NH_FORWARD
			     : via ? SL_NH_GATEWAY : SL_NH_CONNECTED;
		if (!via)
			memcpy(r->nh.gateway, none, 16);
		for (unsigned x = 0; x < i; x++)
			if (routes[x].depth == r->depth && memcmp(routes[x].prefix, r->prefix, 16) == 0)
				return sl_errf(err, EINVAL, "%s: routes[%u]: prefix %s repeats "
					       "routes[%u] (%s)", rows[i].where, RI(i), v[F_PREFIX].s,
					       RI(x), rows[x].where);
	}
	for (unsigned k = 0; k < n_if; k++)
		for (unsigned j = 0; j < ifs[k].n_addr6; j++) {
			struct sl_route6 c = { .depth = ifs[k].plen6[j],
					       .nh = { .output = (uint16_t)ifs[k].output,
						       .kind = SL_NH_CONNECTED, .iface = (uint8_t)k } };
			for (unsigned b = 0; b < 16; b++) {
				unsigned bits = c.depth > b * 8 ? c.depth - b * 8 : 0;
				c.prefix[b] = ifs[k].addr6[j][b] &
					      (bits >= 8 ? 0xff : (uint8_t)(0xff << (8 - bits)));
			}
			bool have = false;
			for (unsigned x = 0; x < t; x++) {
				if (routes[x].depth != c.depth || memcmp(routes[x].prefix, c.prefix, 16))
					continue;
				if (x < n)
					return sl_errf(err, EINVAL, "%s: routes[%u]: prefix %s is "
						       "interface '%s''s own (connected)",
						       rows[x].where, RI(x), rows[x].v[F_PREFIX].s,
						       ifs[k].name);
				have = true;
			}
			if (!have)
				routes[t++] = c;
		}
	*n_total = t;
	return 0;
}

/* The rows of each family: r4/i4 the IPv4 ones and their places among all
 * (NULL when all are), r6/i6 the IPv6 ones (a prefix with ':').  Free
 * *r4 (which holds all four arrays). */
struct split {
	struct sl_param_row *r4, *r6;
	unsigned *i4, *i6;
	unsigned n4, n6;
};

static int split_rows(const struct sl_param_row *rows, unsigned n, struct split *sp,
		      struct sl_err *err)
{
	memset(sp, 0, sizeof(*sp));
	char *mem = calloc(n + 1, 2 * sizeof(struct sl_param_row) + 2 * sizeof(unsigned));
	if (mem == NULL)
		return sl_errf(err, ENOMEM, "out of memory for %u routes", n);
	sp->r4 = (struct sl_param_row *)(void *)mem;
	sp->r6 = sp->r4 + n + 1;
	sp->i4 = (unsigned *)(void *)(sp->r6 + n + 1);
	sp->i6 = sp->i4 + n + 1;
	for (unsigned i = 0; i < n; i++) {
		if (strchr(rows[i].v[F_PREFIX].s, ':') != NULL) {
			sp->i6[sp->n6] = i;
			sp->r6[sp->n6++] = rows[i];
		} else {
			sp->i4[sp->n4] = i;
			sp->r4[sp->n4++] = rows[i];
		}
	}
	return 0;
}

/* The tables for the route rows and the router's interfaces: IPv4 (t4)
 * and IPv6 (t6; NULL when neither a route nor an interface has IPv6).
 * With app NULL, only check (config load). */
struct tables {
	struct sl_route_table *t4;
	struct sl_route6_table *t6;
};

static int make_tables(const char *name, int socket, const struct sl_param_row *rows,
		       unsigned n, unsigned n_out, const struct iface *ifs, unsigned n_if,
		       bool check_only, struct tables *out, struct sl_err *err)
{
	struct split sp;
	unsigned total4 = 0, total6 = 0, n_addr6 = 0;
	int rc = split_rows(rows, n, &sp, err);
	if (rc < 0)
		return rc;
	for (unsigned k = 0; k < n_if; k++)
		n_addr6 += ifs[k].n_addr6;
	struct sl_route *r4 = calloc(sp.n4 + EXTRA_ROUTES, sizeof(*r4));
	struct sl_route6 *r6 = calloc(sp.n6 + EXTRA_ROUTES, sizeof(*r6));
	memset(out, 0, sizeof(*out));
	if (r4 == NULL || r6 == NULL)
		rc = sl_errf(err, ENOMEM, "out of memory for %u routes", n);
	if (rc == 0)
		rc = build_routes(sp.r4, sp.n6 > 0 ? sp.i4 : NULL, sp.n4, n_out, ifs, n_if, r4,
				  &total4, err);
	if (rc == 0)
		rc = build_routes6(sp.r6, sp.i6, sp.n6, n_out, ifs, n_if, r6, &total6, err);
	if (rc == 0 && !check_only) {
		out->t4 = sl_route_table_create(name, r4, total4, socket, err);
		if (out->t4 == NULL)
			rc = -EINVAL;
	}
	if (rc == 0 && !check_only && total6 + n_addr6 > 0) {
		out->t6 = sl_route6_create(name, r6, total6, socket, err);
		if (out->t6 == NULL) {
			sl_route_table_free(out->t4);
			out->t4 = NULL;
			rc = -EINVAL;
		}
	}
	free(r4);
	free(r6);
	free(sp.r4);
	return rc;
}

static int router_init(struct sl_app *app, struct sl_err *err)
{
	struct router_priv *p = app->priv;
	const struct sl_param_row *rows;
	unsigned n;
	int rc;

	rc = params_ifaces(app->type->params, app->type->n_params, app->params, app->n_out,
			   p->ifs, &p->n_if, err);
	if (rc < 0)
		return rc;
	rc = params_local(app->type->params, app->type->n_params, app->params, app->n_out,
			  p->ifs, p->n_if, &p->local_out, err);
	if (rc < 0)
		return rc;
	memset(p->if_of_input, -1, sizeof(p->if_of_input));
	for (unsigned k = 0; k < p->n_if; k++) {
		unsigned o = p->ifs[k].output;
		if (p->ifs[k].vlan == 0) {
			p->if_of_input[o] = (int8_t)k;
			continue;
		}
		p->tagged[o][p->n_tagged[o]].vid = p->ifs[k].vlan;
		p->tagged[o][p->n_tagged[o]++].k = (uint8_t)k;
		if (p->if_of_input[o] == -1)
			p->if_of_input[o] = TAGGED_ONLY;
	}
	if (p->local_out >= 0 && (unsigned)p->local_out < app->n_in)
		p->if_of_input[p->local_out] = LOCAL_IN;
	rows = sl_app_param_table(app, "routes", &n);
	if (n == 0 && p->n_if == 0)
		return sl_errf(err, EINVAL, "parameter 'routes' must have at least 1 row, got 0 "
			       "(or give interfaces)");
	struct tables tb;
	rc = make_tables(app->name, app->socket, rows, n, app->n_out, p->ifs, p->n_if, false, &tb,
			 err);
	if (rc < 0)
		return rc;
	p->table = tb.t4;
	p->table6 = tb.t6;
	rc = sl_route_table_register(p->table, err);
	if (rc < 0)
		return rc;
	rc = sl_route_hint_register(err);
	if (rc < 0 || p->n_if == 0)
		return rc;

	struct sl_nb_conf nc = {
		.max = (unsigned)sl_app_param_uint(app, "neigh_entries"),
		.hold = (unsigned)sl_app_param_uint(app, "neigh_hold"),
		.reachable_ns = sl_app_param_uint(app, "neigh_reachable"),
		.stale_ns = sl_app_param_uint(app, "neigh_stale"),
		.retrans_ns = sl_app_param_uint(app, "neigh_retrans"),
		.probes = (unsigned)sl_app_param_uint(app, "neigh_probes"),
		.socket = app->socket,
	};
	p->nb = sl_nb_table_create(&nc, err);
	if (p->nb == NULL)
		return -errno;
	sl_nb_table_set_epoch(p->nb, app->epoch, app->epoch_w);
	for (unsigned k = 0; k < p->n_if; k++)
		memcpy(p->ifnames[k], p->ifs[k].name, sizeof(p->ifnames[k]));
	p->nbv = sl_nbv_create(nc.max, (const char (*)[SL_NBV_IFNAME])p->ifnames, err);
	if (p->nbv == NULL)
		return -errno;
	uint64_t hz = rte_get_tsc_hz();
	p->tok_rate = sl_app_param_uint(app, "icmp_rate");
	p->tok_max = sl_app_param_uint(app, "icmp_burst") * hz;
	p->tok = p->tok_max;
	p->tok_last = rte_rdtsc();
	/* aging: every millisecond, the whole table every SL_NB_PASS_MS */
	p->age_every = hz / 1000;
	p->age_budget = (sl_nb_buckets(p->nb) + SL_NB_PASS_MS - 1) / SL_NB_PASS_MS;
	return 0;
}

/* Interfaces without a mac take their port's (the app their output leads
 * to), read now that every app is initialised. */
static int router_start(struct sl_app *app, struct sl_err *err)
{
	struct router_priv *p = app->priv;
	for (unsigned k = 0; k < p->n_if; k++) {
		struct iface *f = &p->ifs[k];
		if (f->mac_set)
			continue;
		const struct sl_app *peer = app->out[f->output]->to;
		if (peer->type->mac == NULL)
			return sl_errf(err, EINVAL, "interface '%s': no mac given and output%u leads "
				       "to app '%s' (%s), which has no MAC address of its own: give "
				       "mac", f->name, f->output, peer->name, peer->type->name);
		int rc = peer->type->mac(peer, f->mac, err);
		if (rc < 0)
			return sl_err_prefix(err, -rc, "interface '%s'", f->name);
	}
	p->own6_bits = 0;
	for (unsigned k = 0; k < p->n_if; k++) {
		struct iface *f = &p->ifs[k];
		sl_ip6_link_local(f->mac, f->ll6);
		p->own6_bits |= UINT64_C(1) << (f->ll6[15] & 63);
		for (unsigned j = 0; j < f->n_addr6; j++)
			p->own6_bits |= UINT64_C(1) << (f->addr6[j][15] & 63);
	}
	if (p->local_out < 0)
		return 0;
	const struct sl_app *host = app->out[p->local_out]->to;
	if (host->type->mac == NULL) {   /* no MAC to write: broadcast to the host */
		memset(p->local_mac, 0xff, 6);
		return 0;
	}
	int rc = host->type->mac(host, p->local_mac, err);
	return rc < 0 ? sl_err_prefix(err, -rc, "local_output") : 0;
}

/* A reload that changes the routes: the table built for them, and the one
 * it replaced (set by apply). */
struct router_swap {
	struct tables next, old;
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
	if (sw == NULL)
		return sl_errf(err, ENOMEM, "out of memory for %u routes", v->n_rows);
	/* the interfaces are not live: a change restarts the app */
	int rc = make_tables(app->name, app->socket, v->rows, v->n_rows, app->n_out, p->ifs,
			     p->n_if, false, &sw->next, err);
	if (rc < 0) {
		free(sw);
		return rc;
	}
	*state = sw;
	return 0;
}

/* The worker, between two breaths: packets from here on see the new table. */
static void router_apply(struct sl_app *app, void *state)
{
	struct router_priv *p = app->priv;
	struct router_swap *sw = state;
	sw->old.t4 = p->table;
	sw->old.t6 = p->table6;
	p->table = sw->next.t4;
	p->table6 = sw->next.t6;
}

static void free_tables(struct tables *t)
{
	sl_route_table_free(t->t4);
	sl_route6_free(t->t6);
}

static void free_swap(void *obj, void *arg)
{
	(void)arg;
	free_tables(obj);
	free(obj);
}

/* The old table is retired through the epoch: freed once no worker can be
 * in a burst that read it. */
static void router_release(struct sl_app *app, void *state, bool applied)
{
	struct router_swap *sw = state;
	if (!applied) {
		free_tables(&sw->next);
		free(sw);
		return;
	}
	struct tables *old = malloc(sizeof(*old));
	if (old != NULL)
		*old = sw->old;
	if (old == NULL ||
	    sl_epoch_retire(app->epoch, app->control_epoch_w, old, free_swap, NULL) < 0) {
		/* no room to retire: waited instead */
		if (sl_epoch_synchronize(app->epoch) == 0)
			free_tables(&sw->old);
		free(old);
	}
	free(sw);
}

static inline uint16_t be16_at(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
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
			       unsigned n, const unsigned *count, uint64_t bytes)
{
	struct rte_mbuf *sorted[SL_BURST_MAX];
	unsigned start[SL_MAX_PORTS];
	if (n == 0)
		return;
	if (count[which[0]] == n) {   /* the common case: one output, already in order */
		sl_link_transmit_sized(app->out[which[0]], pkts, n, bytes);
		return;
	}
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

/* --- the router's own messages (routers with interfaces) --------------- */

static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };

static inline void send1(struct sl_app *app, unsigned output, struct rte_mbuf *m)
{
	sl_link_transmit(app->out[output], &m, 1);
}

/* m (its MACs written) on interface f: tagged with f's VLAN, if it has
 * one.  Consumes m (dropped when no tag can be added: a shared mbuf or no
 * headroom). */
static void send_if(struct sl_app *app, const struct iface *f, struct rte_mbuf *m)
{
	if (f->vlan != 0) {
		m->vlan_tci = f->vlan;
		if (rte_vlan_insert(&m) != 0) {
			sl_app_drop(app, &m, 1);
			return;
		}
	}
	send1(app, f->output, m);
}

/* A message the router made (m; NULL when the pool was empty), sent on
 * interface f and counted in counter c: false when there was none. */
static bool send_new(struct sl_app *app, const struct iface *f, struct rte_mbuf *m, unsigned c)
{
	if (m == NULL)
		return false;
	send_if(app, f, m);
	sl_app_ctr_add(app, c, 1);
	return true;
}

/* One token of the ICMP error bucket (icmp_rate a second, icmp_burst at
 * most); tokens are kept multiplied by the TSC rate. */
static bool take_token(struct router_priv *p)
{
	uint64_t hz = rte_get_tsc_hz(), now = rte_rdtsc();
	uint64_t dt = now - p->tok_last;
	p->tok_last = now;
	if (p->tok_rate == 0)
		return false;
	uint64_t add = dt > 60 * hz ? p->tok_max : dt * p->tok_rate;
	p->tok = p->tok_max - p->tok < add ? p->tok_max : p->tok + add;
	if (p->tok < hz)
		return false;
	p->tok -= hz;
	return true;
}

/* An ICMP error about m (its IPv4 header at l3), which came in by
 * interface k; m stays the caller's. */
static void send_error(struct sl_app *app, struct router_priv *p, const struct rte_mbuf *m,
		       uint32_t l3, unsigned k, uint8_t type, uint8_t code, uint16_t mtu)
{
	if (!sl_icmp_may_answer(m, l3))
		return;
	if (!take_token(p)) {
		sl_app_ctr_add(app, R_ICMP_LIMITED, 1);
		return;
	}
	const struct iface *f = &p->ifs[k];
	struct rte_mbuf *e = sl_icmp_error(app->pool, m, l3, type, code, mtu, f->addr[0], f->mac);
	send_new(app, f, e, R_ICMP_SENT);
}

/* The address of interface k to ask about a (one on a's prefix, else its
 * first). */
static uint32_t source_for(const struct iface *f, uint32_t a)
{
	for (unsigned j = 0; j < f->n_addr; j++)
		if (on_prefix(a, f->addr[j], f->plen[j]))
			return f->addr[j];
	return f->addr[0];
}

/* An ARP request for tpa on interface k: broadcast, or to dmac (a probe). */
static void send_request(struct sl_app *app, struct router_priv *p, unsigned k, uint32_t tpa,
			 const uint8_t *dmac)
{
	const struct iface *f = &p->ifs[k];
	struct sl_arp a = { .op = SL_ARP_REQUEST, .spa = source_for(f, tpa), .tpa = tpa };
	memcpy(a.sha, f->mac, 6);
	struct rte_mbuf *m = sl_arp_frame(app->pool, dmac != NULL ? dmac : bcast, &a);
	send_new(app, f, m, R_ARP_REQUESTS);
}

/* Gratuitous ARP: a request for each address from itself, broadcast. */
static void announce(struct sl_app *app, struct router_priv *p)
{
	for (unsigned k = 0; k < p->n_if; k++) {
		const struct iface *f = &p->ifs[k];
		for (unsigned j = 0; j < f->n_addr; j++) {
			struct sl_arp a = { .op = SL_ARP_REQUEST, .spa = f->addr[j],
					    .tpa = f->addr[j] };
			memcpy(a.sha, f->mac, 6);
			struct rte_mbuf *m = sl_arp_frame(app->pool, bcast, &a);
			if (!send_new(app, f, m, R_ARP_REQUESTS))
				return;
		}
	}
}

/* Send m (routed, TTL done) to neighbour e's MAC from interface k. */
static void to_neighbour(struct sl_app *app, const struct iface *f, const struct sl_nb *e,
			 struct rte_mbuf *m)
{
	uint8_t *eh = rte_pktmbuf_mtod(m, uint8_t *);
	memcpy(eh, e->mac, 6);
	memcpy(eh + 6, f->mac, 6);
	send_if(app, f, m);
}

/* e was confirmed with mac: the packets it held go. */
static void confirm(struct sl_app *app, struct router_priv *p, struct sl_nb *e,
		    const uint8_t *mac, uint64_t now)
{
	struct rte_mbuf *held[SL_NB_HOLD_MAX];
	unsigned n = sl_nb_confirm(p->nb, e, mac, now, held);
	for (unsigned i = 0; i < n; i++)
		to_neighbour(app, &p->ifs[e->iface], e, held[i]);
	sl_app_ctr_add(app, R_FORWARDED, n);
}

static bool is_mine(const struct iface *f, uint32_t a)
{
	for (unsigned j = 0; j < f->n_addr; j++)
		if (f->addr[j] == a)
			return true;
	return false;
}

/* An ARP frame (untagged) from interface k: answer a request for one of
 * k's addresses (and refresh the asker's entry, if it has one); learn a
 * reply only for an entry the router made (it asked).  Consumes m. */
static void arp_input(struct sl_app *app, struct router_priv *p, unsigned k, struct rte_mbuf *m)
{
	struct sl_arp a;
	const struct iface *f = &p->ifs[k];
	sl_app_ctr_add(app, R_ARP_IN, 1);
	if (rte_pktmbuf_data_len(m) < RTE_ETHER_HDR_LEN + SL_ARP_LEN ||
	    sl_arp_parse(rte_pktmbuf_mtod_offset(m, uint8_t *, RTE_ETHER_HDR_LEN),
			 rte_pktmbuf_data_len(m) - RTE_ETHER_HDR_LEN, &a) != SL_ARP_OK) {
		sl_app_ctr_add(app, R_ARP_BAD, 1);
		sl_app_drop(app, &m, 1);
		return;
	}
	uint64_t now = rte_rdtsc();
	struct sl_nb *e = a.spa != 0 ? sl_nb_find(p->nb, a.spa) : NULL;
	if (e != NULL && e->iface == k && (a.op == SL_ARP_REPLY || is_mine(f, a.tpa)))
		confirm(app, p, e, a.sha, now);
	if (a.op != SL_ARP_REQUEST || !is_mine(f, a.tpa)) {
		if (a.op == SL_ARP_REPLY && e != NULL && e->iface == k)
			rte_pktmbuf_free(m);   /* a reply to our request: learnt */
		else {
			sl_app_ctr_add(app, R_ARP_IGNORED, 1);
			sl_app_drop(app, &m, 1);
		}
		return;
	}
	/* the reply, in place */
	struct sl_arp r = { .op = SL_ARP_REPLY, .spa = a.tpa, .tpa = a.spa };
	memcpy(r.sha, f->mac, 6);
	memcpy(r.tha, a.sha, 6);
	uint8_t *eh = rte_pktmbuf_mtod(m, uint8_t *);
	memcpy(eh, a.sha, 6);
	memcpy(eh + 6, f->mac, 6);
	sl_arp_write(eh + RTE_ETHER_HDR_LEN, &r);
	send_if(app, f, m);
	sl_app_ctr_add(app, R_ARP_REPLIED, 1);
}

/* A packet to one of the router's addresses, from interface k (its IPv4
 * header at l3): an echo request is answered; anything else is dropped.
 * Consumes m. */
static void local_input(struct sl_app *app, struct router_priv *p, unsigned k,
			struct rte_mbuf *m, uint32_t l3)
{
	if (rte_pktmbuf_is_contiguous(m) == 0 && rte_pktmbuf_linearize(m) != 0)
		goto drop;
	const uint8_t *ip = rte_pktmbuf_mtod_offset(m, const uint8_t *, l3);
	uint32_t ihl = (uint32_t)(ip[0] & 0xf) * 4;
	uint32_t total = (uint32_t)ip[2] << 8 | ip[3];
	uint8_t type, code;
	if (rte_raw_cksum(ip, ihl) != 0xffff) {
		sl_app_ctr_add(app, R_MALFORMED, 1);
		sl_app_drop(app, &m, 1);
		return;
	}
	if (ip[9] != IPPROTO_ICMP || (((uint32_t)ip[6] << 8 | ip[7]) & 0x3fff) != 0 ||
	    sl_icmp_parse(ip + ihl, total - ihl, &type, &code) != SL_ICMP_OK ||
	    type != SL_ICMP_ECHO)
		goto other;
	sl_icmp_echo_to_reply(m, l3, p->ifs[k].mac);
	send_if(app, &p->ifs[k], m);
	sl_app_ctr_add(app, R_ECHO_REPLIED, 1);
	return;
other:
	if (p->local_out >= 0) {   /* to the host's stack, as it came but for the MAC */
		memcpy(rte_pktmbuf_mtod(m, uint8_t *), p->local_mac, 6);
		send1(app, (unsigned)p->local_out, m);
		sl_app_ctr_add(app, R_PUNTED, 1);
		return;
	}
drop:
	sl_app_ctr_add(app, R_LOCAL_DROPPED, 1);
	sl_app_drop(app, &m, 1);
}

/* An ARP frame from the host's stack (local_output's input): the router
 * is the stack's only neighbour there, so a request for any address but
 * the asker's own is answered with the first interface's MAC, and the
 * stack's packets come to the router to be routed.  Consumes m. */
static void local_arp(struct sl_app *app, struct router_priv *p, struct rte_mbuf *m)
{
	struct sl_arp a;
	sl_app_ctr_add(app, R_ARP_IN, 1);
	if (rte_pktmbuf_data_len(m) < RTE_ETHER_HDR_LEN + SL_ARP_LEN ||
	    sl_arp_parse(rte_pktmbuf_mtod_offset(m, uint8_t *, RTE_ETHER_HDR_LEN),
			 rte_pktmbuf_data_len(m) - RTE_ETHER_HDR_LEN, &a) != SL_ARP_OK) {
		sl_app_ctr_add(app, R_ARP_BAD, 1);
		sl_app_drop(app, &m, 1);
		return;
	}
	if (a.op != SL_ARP_REQUEST || a.tpa == a.spa) {
		sl_app_ctr_add(app, R_ARP_IGNORED, 1);
		sl_app_drop(app, &m, 1);
		return;
	}
	const uint8_t *mine = p->ifs[0].mac;
	struct sl_arp r = { .op = SL_ARP_REPLY, .spa = a.tpa, .tpa = a.spa };
	memcpy(r.sha, mine, 6);
	memcpy(r.tha, a.sha, 6);
	uint8_t *eh = rte_pktmbuf_mtod(m, uint8_t *);
	memcpy(eh, a.sha, 6);
	memcpy(eh + 6, mine, 6);
	sl_arp_write(eh + RTE_ETHER_HDR_LEN, &r);
	send1(app, (unsigned)p->local_out, m);
	sl_app_ctr_add(app, R_ARP_REPLIED, 1);
}

static void send_ns(struct sl_app *app, struct router_priv *p, unsigned k,
		    const uint8_t target[16], const uint8_t *dmac);

/* A request for neighbour a4 (IPv4, host order) or a6 (IPv6, when not
 * NULL) on interface k: ARP or a solicitation; to dmac (a probe) or
 * broadcast / the solicited-node group (dmac NULL). */
static void ask(struct sl_app *app, struct router_priv *p, unsigned k, uint32_t a4,
		const uint8_t *a6, const uint8_t *dmac)
{
	if (a6 != NULL)
		send_ns(app, p, k, a6, dmac);
	else
		send_request(app, p, k, a4, dmac);
}

/* Send m (routed, TTL or hop limit done) to neighbour a4 (IPv4) or a6
 * (IPv6, when not NULL) on interface k: now when its neighbour is known,
 * else held while it is resolved; now is the TSC (a burst reads it once).
 * Consumes m and returns false, except with may_list for a known neighbour
 * on an untagged interface: then m's MACs are written, true is returned,
 * and the caller adds m to its burst's lists for interface k's output (and
 * counts it forwarded there; forwarded6 is counted here). */
static bool resolve_nb_at(struct sl_app *app, struct router_priv *p, unsigned k, uint32_t a4,
			  const uint8_t *a6, struct rte_mbuf *m, uint64_t now, bool may_list)
{
	struct sl_nb *e = a6 != NULL ? sl_nb_find6(p->nb, a6) : sl_nb_find(p->nb, a4);
	if (likely(e != NULL && e->state != SL_NB_INCOMPLETE)) {
		if (sl_nb_use(p->nb, e, now))
			ask(app, p, k, a4, a6, e->mac);
		sl_app_ctr_add(app, R_FORWARDED6, a6 != NULL);
		if (may_list && p->ifs[k].vlan == 0) {
			uint8_t *eh = rte_pktmbuf_mtod(m, uint8_t *);
			memcpy(eh, e->mac, 6);
			memcpy(eh + 6, p->ifs[k].mac, 6);
			return true;
		}
		to_neighbour(app, &p->ifs[k], e, m);
		sl_app_ctr_add(app, R_FORWARDED, 1);
		return false;
	}
	if (e == NULL) {
		e = a6 != NULL ? sl_nb_create6(p->nb, a6, (uint8_t)k, now)
			       : sl_nb_create(p->nb, a4, (uint8_t)k, now);
		if (e != NULL)
			ask(app, p, k, a4, a6, NULL);
	}
	if (e != NULL && sl_nb_hold(p->nb, e, m)) {
		sl_app_ctr_add(app, R_NEIGH_HELD, 1);
		return false;
	}
	sl_app_ctr_add(app, R_NEIGH_DROPPED, 1);
	sl_app_drop(app, &m, 1);
	return false;
}

/* resolve_nb_at, now, for a packet on its own. */
static void resolve_nb(struct sl_app *app, struct router_priv *p, unsigned k, uint32_t a4,
		       const uint8_t *a6, struct rte_mbuf *m)
{
	resolve_nb_at(app, p, k, a4, a6, m, rte_rdtsc(), false);
}

/* --- IPv6 (routers with an IPv6 table) ---------------------------------- */

static const uint8_t all_nodes[16] = { 0xff, 0x02, [15] = 1 };
static const uint8_t all_nodes_mac[6] = { 0x33, 0x33, 0, 0, 0, 1 };

/* Is a one of interface f's IPv6 addresses (its link-local included)? */
static bool is_mine6(const struct iface *f, const uint8_t a[16])
{
	if (f->n_addr6 > 0 && memcmp(a, f->ll6, 16) == 0)
		return true;
	for (unsigned j = 0; j < f->n_addr6; j++)
		if (memcmp(a, f->addr6[j], 16) == 0)
			return true;
	return false;
}

/* The router's interface with address a, or -1. */
static int owner6(const struct router_priv *p, const uint8_t a[16])
{
	for (unsigned k = 0; k < p->n_if; k++)
		if (is_mine6(&p->ifs[k], a))
			return (int)k;
	return -1;
}

/* Interface f's address to talk to a from: one on a's prefix, else the
 * first global one; the link-local one for a link-local a. */
static const uint8_t *source6(const struct iface *f, const uint8_t a[16])
{
	if (sl_ip6_is_link_local(a) || f->n_addr6 == 0)
		return f->ll6;
	for (unsigned j = 0; j < f->n_addr6; j++)
		if (on_prefix6(a, f->addr6[j], f->plen6[j]))
			return f->addr6[j];
	return f->addr6[0];
}

/* A solicitation for target on interface k: to its solicited-node group,
 * or to dmac (a probe of a known neighbour). */
static void send_ns(struct sl_app *app, struct router_priv *p, unsigned k,
		    const uint8_t target[16], const uint8_t *dmac)
{
	const struct iface *f = &p->ifs[k];
	uint8_t group[16], gmac[6];
	sl_ip6_solicited(target, group, gmac);
	struct rte_mbuf *m = sl_nd_ns_frame(app->pool, f->mac, source6(f, target),
					    dmac != NULL ? dmac : gmac, dmac != NULL ? target : group,
					    target);
	send_new(app, f, m, R_ND_REQUESTS);
}

/* Unsolicited advertisements of each IPv6 address (and the link-local
 * one), to all nodes. */
static void announce6(struct sl_app *app, struct router_priv *p)
{
	for (unsigned k = 0; k < p->n_if; k++) {
		const struct iface *f = &p->ifs[k];
		for (unsigned j = 0; f->n_addr6 > 0 && j <= f->n_addr6; j++) {
			const uint8_t *a = j < f->n_addr6 ? f->addr6[j] : f->ll6;
			struct rte_mbuf *m = sl_nd_na_frame(app->pool, f->mac, all_nodes_mac,
							    all_nodes, a,
							    SL_NA_ROUTER | SL_NA_OVERRIDE);
			if (!send_new(app, f, m, R_ND_REQUESTS))
				return;
		}
	}
}

/* An ICMPv6 error about m (its IPv6 header at l3), which came in by
 * interface k; m stays the caller's. */
static void send_error6(struct sl_app *app, struct router_priv *p, const struct rte_mbuf *m,
			uint32_t l3, unsigned k, uint8_t type, uint8_t code, uint32_t param)
{
	const struct iface *f = &p->ifs[k];
	if (f->n_addr6 == 0 || !sl_icmp6_may_answer(m, l3))
		return;
	if (!take_token(p)) {
		sl_app_ctr_add(app, R_ICMP_LIMITED, 1);
		return;
	}
	uint8_t tmp[16];
	const uint8_t *src = rte_pktmbuf_read(m, l3 + 8, 16, tmp);
	struct rte_mbuf *e = sl_icmp6_error(app->pool, m, l3, type, code, param,
					    source6(f, src), f->mac);
	send_new(app, f, e, R_ICMP_SENT);
}

/* A solicitation or advertisement (ip: its IPv6 header, icmp: the
 * message, in m's first segment) from interface k.  A solicitation for
 * one of k's addresses is answered (refreshing the asker's entry, if it
 * has one); an advertisement is learnt only for an entry the router made
 * (it asked).  Consumes m. */
static void nd_input(struct sl_app *app, struct router_priv *p, unsigned k, struct rte_mbuf *m,
		     const uint8_t *ip, const uint8_t *icmp, uint32_t len)
{
	const struct iface *f = &p->ifs[k];
	struct sl_nd nd;
	sl_app_ctr_add(app, R_ND_IN, 1);
	if (sl_nd_parse(ip, icmp, len, &nd) != SL_ND_OK) {
		sl_app_ctr_add(app, R_ND_BAD, 1);
		sl_app_drop(app, &m, 1);
		return;
	}
	uint64_t now = rte_rdtsc();
	const uint8_t *src = ip + 8;
	const uint8_t *smac = rte_pktmbuf_mtod_offset(m, const uint8_t *, 6);
	if (nd.type == SL_ND_NA) {
		struct sl_nb *e = sl_nb_find6(p->nb, nd.target);
		if (e != NULL && e->iface == k) {
			confirm(app, p, e, nd.has_lladdr ? nd.lladdr : smac, now);
			rte_pktmbuf_free(m);
		} else {
			sl_app_ctr_add(app, R_ND_IGNORED, 1);
			sl_app_drop(app, &m, 1);
		}
		return;
	}
	if (!is_mine6(f, nd.target) || sl_ip6_is_unspecified(src)) {   /* not ours; DAD */
		sl_app_ctr_add(app, R_ND_IGNORED, 1);
		sl_app_drop(app, &m, 1);
		return;
	}
	struct sl_nb *e = sl_nb_find6(p->nb, src);
	if (e != NULL && e->iface == k && nd.has_lladdr)
		confirm(app, p, e, nd.lladdr, now);
	uint8_t dmac[6], target[16], dst[16];
	memcpy(dmac, nd.has_lladdr ? nd.lladdr : smac, 6);
	memcpy(target, nd.target, 16);
	memcpy(dst, src, 16);
	rte_pktmbuf_free(m);
	struct rte_mbuf *r = sl_nd_na_frame(app->pool, f->mac, dmac, dst, target,
					    SL_NA_ROUTER | SL_NA_SOLICITED | SL_NA_OVERRIDE);
	send_new(app, f, r, R_ND_REPLIED);
}

/* Send m (routed, hop limit done) to IPv6 addr on interface k (as
 * resolve).  Consumes m. */
static void resolve6(struct sl_app *app, struct router_priv *p, unsigned k,
		     const uint8_t addr[16], struct rte_mbuf *m)
{
	resolve_nb(app, p, k, 0, addr, m);
}

/* An IPv6 packet to one of the router's addresses, from interface k: an
 * echo request is answered; the rest goes to local_output, or is dropped.
 * Consumes m. */
static void local6(struct sl_app *app, struct router_priv *p, unsigned k, struct rte_mbuf *m,
		   uint32_t l3, const uint8_t *ip, uint32_t plen)
{
	uint8_t type;
	if (ip[6] == SL_ICMP6_PROTO && rte_pktmbuf_data_len(m) >= l3 + SL_IP6_HDR + plen &&
	    sl_icmp6_check(ip, ip + SL_IP6_HDR, plen, &type) && type == SL_ICMP6_ECHO) {
		sl_icmp6_echo_to_reply(m, l3, p->ifs[k].mac);
		send_if(app, &p->ifs[k], m);
		sl_app_ctr_add(app, R_ECHO_REPLIED, 1);
		return;
	}
	if (p->local_out >= 0) {
		memcpy(rte_pktmbuf_mtod(m, uint8_t *), p->local_mac, 6);
		send1(app, (unsigned)p->local_out, m);
		sl_app_ctr_add(app, R_PUNTED, 1);
		return;
	}
	sl_app_ctr_add(app, R_LOCAL_DROPPED, 1);
	sl_app_drop(app, &m, 1);
}

/* One IPv6 packet (its header at l3) from interface k (-1: none; or
 * LOCAL_IN), in the order RFC 8200 and 4861 ask: neighbour discovery, the
 * router's own addresses, what is never forwarded, hop limit, route, MTU.
 * Not batched: IPv6 takes this path packet by packet.  Consumes m. */
static void route6(struct sl_app *app, struct router_priv *p, int k, struct rte_mbuf *m,
		   uint32_t l3)
{
	if (rte_pktmbuf_is_contiguous(m) == 0 && rte_pktmbuf_linearize(m) != 0)
		goto not_routed;
	uint8_t *ip = rte_pktmbuf_mtod_offset(m, uint8_t *, l3);
	uint32_t plen = (uint32_t)ip[4] << 8 | ip[5];
	const uint8_t *dst = ip + 24;
	if (k >= 0 && ip[6] == SL_ICMP6_PROTO && rte_pktmbuf_data_len(m) >= l3 + 64 &&
	    (ip[SL_IP6_HDR] == SL_ND_NS || ip[SL_IP6_HDR] == SL_ND_NA)) {
		nd_input(app, p, (unsigned)k, m, ip, ip + SL_IP6_HDR,
			 RTE_MIN(plen, rte_pktmbuf_data_len(m) - l3 - SL_IP6_HDR));
		return;
	}
	if (sl_ip6_is_multicast(dst) || sl_ip6_is_link_local(dst) ||
	    sl_ip6_is_link_local(ip + 8) || sl_ip6_is_unspecified(ip + 8)) {
		int own = k >= 0 ? owner6(p, dst) : -1;
		if (own >= 0 && own == k) {
			local6(app, p, (unsigned)k, m, l3, ip, plen);
			return;
		}
		goto not_routed;   /* multicast (MLD, RS), link-local: not forwarded */
	}
	if (k >= 0 && owner6(p, dst) >= 0) {
		local6(app, p, (unsigned)k, m, l3, ip, plen);
		return;
	}
	if (ip[7] <= 1) {
		sl_app_ctr_add(app, R_TTL_EXPIRED, 1);
		if (k >= 0)
			send_error6(app, p, m, l3, (unsigned)k, SL_ICMP6_TIME_EXCEEDED, 0, 0);
		sl_app_drop(app, &m, 1);
		return;
	}
	const struct sl_nh6 *nh = sl_route6_lookup(p->table6, dst);
	if (nh == NULL) {
		sl_app_ctr_add(app, R_NO_ROUTE, 1);
		if (k >= 0)
			send_error6(app, p, m, l3, (unsigned)k, SL_ICMP6_UNREACH, 0, 0);
		sl_app_drop(app, &m, 1);
		return;
	}
	if (nh->iface != NO_IFACE && SL_IP6_HDR + plen > p->ifs[nh->iface].mtu) {
		sl_app_ctr_add(app, R_TOO_BIG, 1);
		if (k >= 0)
			send_error6(app, p, m, l3, (unsigned)k, SL_ICMP6_TOO_BIG, 0,
				    p->ifs[nh->iface].mtu);
		sl_app_drop(app, &m, 1);
		return;
	}
	ip[7]--;
	if (nh->kind == SL_NH_GATEWAY || nh->kind == SL_NH_CONNECTED) {
		resolve6(app, p, nh->iface, nh->kind == SL_NH_GATEWAY ? nh->gateway : dst, m);
		return;
	}
	uint8_t *eh = rte_pktmbuf_mtod(m, uint8_t *);
	if (nh->set_dmac)
		memcpy(eh, nh->dmac, 6);
	if (nh->set_smac)
		memcpy(eh + 6, nh->smac, 6);
	sl_app_ctr_add(app, R_FORWARDED, 1);
	sl_app_ctr_add(app, R_FORWARDED6, 1);
	if (nh->iface != NO_IFACE) {
		if (!nh->set_smac)
			memcpy(eh + 6, p->ifs[nh->iface].mac, 6);
		send_if(app, &p->ifs[nh->iface], m);
	} else {
		send1(app, nh->output, m);
	}
	return;
not_routed:
	sl_app_ctr_add(app, R_NOT_IPV4, 1);
	sl_app_drop(app, &m, 1);
}

/* The IPv6 header of m if m is an untagged IPv6 frame that routing may
 * forward as it is: unicast, not link-local, from a source that is neither
 * link-local nor unspecified, hop limit over 1, not to one of the
 * router's addresses.  Everything else (ND, errors to send, what is the
 * router's) takes route6. */
static inline uint8_t *ipv6_fast(const struct router_priv *p, struct rte_mbuf *m)
{
	if (unlikely(rte_pktmbuf_data_len(m) < RTE_ETHER_HDR_LEN + SL_IP6_HDR))
		return NULL;
	uint8_t *f = rte_pktmbuf_mtod(m, uint8_t *);
	uint8_t *ip = f + RTE_ETHER_HDR_LEN;
	if (f[12] != 0x86 || f[13] != 0xdd || (ip[0] >> 4) != 6 || ip[7] <= 1 ||
	    ip[24] == 0xff || sl_ip6_is_link_local(ip + 24) || sl_ip6_is_link_local(ip + 8) ||
	    (ip[8] == 0 && sl_ip6_is_unspecified(ip + 8)))
		return NULL;
	return p->n_if == 0 || (p->own6_bits >> (ip[24 + 15] & 63) & 1) == 0 ||
	       owner6(p, ip + 24) < 0 ? ip : NULL;
}

/* The IPv6 packets of a burst that ipv6_fast took, m[0..n) from interface
 * k[i], their headers ip[i]: looked up together, then each dropped (no
 * route, too big: with the error sent), resolved, or added to the burst's
 * transmit lists (pkts, which, count; *n_fw), which the caller counts as
 * forwarded (here: forwarded6, and forwarded for those sent alone). */
static void route6_burst(struct sl_app *app, struct router_priv *p, struct rte_mbuf **m,
			 uint8_t **ip, const int8_t *k, unsigned n, struct rte_mbuf **pkts,
			 uint8_t *which, unsigned *count, unsigned *n_fw)
{
	uint8_t dst[SL_BURST_MAX][16];
	const struct sl_nh6 *nh[SL_BURST_MAX];
	unsigned fw = 0, alone = 0, no_route = 0, too_big = 0;
	uint64_t now = 0;   /* the TSC, read once for the burst's resolutions */
	for (unsigned i = 0; i < n; i++)
		memcpy(dst[i], ip[i] + 24, 16);
	sl_route6_lookup_bulk(p->table6, dst, nh, n);
	for (unsigned i = 0; i < n; i++) {
		const struct sl_nh6 *h = nh[i];
		uint32_t l3 = RTE_ETHER_HDR_LEN;
		if (unlikely(h == NULL)) {
			no_route++;
			if (k[i] >= 0)
				send_error6(app, p, m[i], l3, (unsigned)k[i], SL_ICMP6_UNREACH, 0, 0);
			sl_app_drop(app, &m[i], 1);
			continue;
		}
		uint32_t len = SL_IP6_HDR + ((uint32_t)ip[i][4] << 8 | ip[i][5]);
		if (unlikely(h->iface != NO_IFACE && len > p->ifs[h->iface].mtu)) {
			too_big++;
			if (k[i] >= 0)
				send_error6(app, p, m[i], l3, (unsigned)k[i], SL_ICMP6_TOO_BIG, 0,
					    p->ifs[h->iface].mtu);
			sl_app_drop(app, &m[i], 1);
			continue;
		}
		ip[i][7]--;
		if (h->kind == SL_NH_GATEWAY || h->kind == SL_NH_CONNECTED) {
			if (now == 0)
				now = rte_rdtsc();
			if (resolve_nb_at(app, p, h->iface, 0,
					  h->kind == SL_NH_GATEWAY ? h->gateway : dst[i], m[i], now,
					  true)) {
				unsigned o = p->ifs[h->iface].output;
				which[*n_fw] = (uint8_t)o;
				pkts[(*n_fw)++] = m[i];
				count[o]++;
			}
			continue;
		}
		uint8_t *eh = rte_pktmbuf_mtod(m[i], uint8_t *);
		if (h->set_dmac)
			memcpy(eh, h->dmac, 6);
		if (h->set_smac)
			memcpy(eh + 6, h->smac, 6);
		fw++;
		if (h->iface != NO_IFACE) {
			if (!h->set_smac)
				memcpy(eh + 6, p->ifs[h->iface].mac, 6);
			if (p->ifs[h->iface].vlan != 0) {
				send_if(app, &p->ifs[h->iface], m[i]);
				alone++;
				continue;
			}
		}
		which[*n_fw] = (uint8_t)h->output;
		pkts[(*n_fw)++] = m[i];
		count[h->output]++;
	}
	/* forwarded: the caller counts what it transmits from the lists;
	 * here only what left alone (tagged) */
	sl_app_ctr_add(app, R_FORWARDED, alone);
	sl_app_ctr_add(app, R_FORWARDED6, fw);
	sl_app_ctr_add(app, R_NO_ROUTE, no_route);
	sl_app_ctr_add(app, R_TOO_BIG, too_big);
}

/* The interface of frame m on input in_idx, which belongs to interfaces:
 * a tagged frame's (its tag stripped), or the untagged one; TAGGED_ONLY
 * when none takes it. */
static int vlan_of(const struct router_priv *p, unsigned in_idx, struct rte_mbuf *m)
{
	if (m->ol_flags & RTE_MBUF_F_RX_VLAN_STRIPPED) {   /* the device took the tag */
		for (unsigned j = 0; j < p->n_tagged[in_idx]; j++)
			if (p->tagged[in_idx][j].vid == (m->vlan_tci & 0xfff)) {
				m->ol_flags &= ~(RTE_MBUF_F_RX_VLAN | RTE_MBUF_F_RX_VLAN_STRIPPED);
				return p->tagged[in_idx][j].k;
			}
		return TAGGED_ONLY;
	}
	const struct rte_ether_hdr *eh = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
	if (rte_pktmbuf_data_len(m) < RTE_ETHER_HDR_LEN + 4 ||
	    eh->ether_type != RTE_BE16(RTE_ETHER_TYPE_VLAN))
		return p->if_of_input[in_idx];   /* untagged, or TAGGED_ONLY */
	const struct rte_vlan_hdr *vh = (const struct rte_vlan_hdr *)(eh + 1);
	uint16_t vid = rte_be_to_cpu_16(vh->vlan_tci) & 0xfff;
	for (unsigned j = 0; j < p->n_tagged[in_idx]; j++)
		if (p->tagged[in_idx][j].vid == vid)
			return rte_vlan_strip(m) == 0 ? p->tagged[in_idx][j].k : TAGGED_ONLY;
	return TAGGED_ONLY;
}

/* What the full parse makes of a frame that is not the simple kind. */
enum slow {
	S_IPV4,       /* IPv4: *dst (network order) and *l3 set */
	S_TAKEN,      /* ARP on an interface: handled, no longer the caller's */
	S_MALFORMED,  /* drop it */
	S_NOT_IPV4,   /* drop it (IPv6, another ethertype, ARP off an interface) */
	S_VLAN_UNKNOWN, /* drop it: its tag (or none) is no interface's */
	S_IPV6,       /* IPv6: *l3 set; route6() takes it */
	S_SIX,        /* IPv6 for the burst's batch (ipv6_fast) */
};

/* Frame m from input in_idx (its interface *k on entry: the input's; on
 * return: the frame's, after its VLAN tag). */
static inline enum slow parse_slow(struct sl_app *app, struct router_priv *p, unsigned in_idx,
				   int *kp, struct rte_mbuf *m, uint32_t *dst, uint16_t *l3)
{
	struct sl_flow_key key;
	struct sl_pkt_info info;
	if (*kp >= 0 || *kp == TAGGED_ONLY)
		*kp = vlan_of(p, in_idx, m);
	int k = *kp;
	if (unlikely(k == TAGGED_ONLY)) {
		sl_route_hint_clear(m);
		return S_VLAN_UNKNOWN;
	}
	enum sl_pkt_class c = sl_pkt_parse_full(m, &key, &info);
	if (likely(c == SL_PKT_IP && key.family == 4)) {
		memcpy(dst, key.dst, sizeof(*dst));
		*l3 = info.l3_off;
		return S_IPV4;
	}
	if (c == SL_PKT_IP && key.family == 6 && p->table6 != NULL) {
		sl_route_hint_clear(m);
		*l3 = info.l3_off;
		return S_IPV6;
	}
	sl_route_hint_clear(m);
	if (k != -1 && c == SL_PKT_NOT_IP && info.vlans == 0 &&
	    info.ethertype == RTE_ETHER_TYPE_ARP) {
		if (k == LOCAL_IN)
			local_arp(app, p, m);
		else
			arp_input(app, p, (unsigned)k, m);
		return S_TAKEN;
	}
	return c == SL_PKT_MALFORMED && info.ethertype != RTE_ETHER_TYPE_IPV6 ? S_MALFORMED
									       : S_NOT_IPV4;
}

/* A frame that is not the simple IPv4 kind: IPv6 for the batch (S_SIX,
 * *ip6 set), IPv4 to route (S_IPV4), handled here (S_TAKEN: ARP, ND, the
 * rest of IPv6), or to drop (the other outcomes). */
static inline enum slow slow_in(struct sl_app *app, struct router_priv *p, unsigned in_idx,
				int *k, struct rte_mbuf *m, uint32_t *dst, uint16_t *l3,
				uint8_t **ip6)
{
	if (p->table6 != NULL && *k != TAGGED_ONLY && (*ip6 = ipv6_fast(p, m)) != NULL) {
		sl_route_hint_clear(m);
		return S_SIX;
	}
	enum slow v = parse_slow(app, p, in_idx, k, m, dst, l3);
	if (v == S_IPV6) {
		route6(app, p, *k, m, *l3);
		return S_TAKEN;
	}
	return v;
}

/* What a router with interfaces does before forwarding a routed packet. */
enum verdict {
	V_ROUTE,      /* forward it */
	V_TAKEN,      /* handled (to the router itself): no longer the caller's */
	V_EXPIRED,    /* drop it: TTL ran out (time exceeded sent) */
	V_TOO_BIG,    /* drop it: over the outgoing MTU (fragmentation needed sent with DF) */
};

/* m came in by interface k (-1: none) and routes by hop; ttl is its TTL on
 * arrival, its IPv4 header at l3. */
static inline enum verdict iface_checks(struct sl_app *app, struct router_priv *p, int k,
					struct rte_mbuf *m, uint32_t l3,
					const struct sl_route_nh *hop, uint8_t ttl)
{
	if (k >= 0 && unlikely(hop->kind == SL_NH_LOCAL)) {
		local_input(app, p, (unsigned)k, m, l3);
		return V_TAKEN;
	}
	if (k >= 0 && unlikely(ttl <= 1)) {
		send_error(app, p, m, l3, (unsigned)k, SL_ICMP_TIME_EXCEEDED, 0, 0);
		return V_EXPIRED;
	}
	if (hop->iface == NO_IFACE ||
	    likely(rte_pktmbuf_pkt_len(m) - l3 <= p->ifs[hop->iface].mtu))
		return V_ROUTE;
	uint8_t b[6];   /* total length, id, flags */
	const uint8_t *ipf = rte_pktmbuf_read(m, l3 + 2, 6, b);
	uint32_t total = (uint32_t)ipf[0] << 8 | ipf[1];
	if (total <= p->ifs[hop->iface].mtu)
		return V_ROUTE;   /* Ethernet padding, not the datagram */
	sl_app_ctr_add(app, R_TOO_BIG, 1);
	if (k >= 0 && (ipf[4] & 0x40) != 0)   /* DF */
		send_error(app, p, m, l3, (unsigned)k, SL_ICMP_UNREACH, 4, p->ifs[hop->iface].mtu);
	return V_TOO_BIG;
}

/* TTL - 1 and the header checksum (RFC 1624) in w, the TTL's 16-bit word
 * and the checksum of m's IPv4 header at l3; copied back when w was a
 * copy (the header spans segments). */
static inline void ttl_dec(struct rte_mbuf *m, uint32_t l3, uint8_t *w, bool copy)
{
	uint16_t old = be16_at(w);
	uint16_t new = (uint16_t)(old - 0x100);      /* TTL - 1, protocol kept */
	uint16_t sum = sl_csum_replace16(be16_at(w + 2), old, new);
	w[0] = (uint8_t)(new >> 8);
	w[2] = (uint8_t)(sum >> 8);
	w[3] = (uint8_t)sum;
	if (unlikely(copy))
		write_at(m, l3 + 8u, w, 4);
}

/* The MACs of m for a route to a MAC (static: dst_mac, or kept), from an
 * interface's MAC where the route sets none.  False when m has gone
 * already (on a VLAN interface: tagged and sent alone, counted); true when
 * the caller sends it with the burst. */
static inline bool to_hop(struct sl_app *app, struct router_priv *p,
			  const struct sl_route_nh *hop, struct rte_mbuf *m)
{
	rewrite_macs(m, hop);
	if (p->n_if == 0 || hop->iface == NO_IFACE)
		return true;
	const struct iface *f = &p->ifs[hop->iface];
	if (!hop->set_smac)
		write_at(m, RTE_ETHER_ADDR_LEN, f->mac, RTE_ETHER_ADDR_LEN);
	if (likely(f->vlan == 0))
		return true;
	send_if(app, f, m);
	sl_app_ctr_add(app, R_FORWARDED, 1);
	return false;
}

/* One burst of route_input between its phases.  The counters and the
 * per-output counts come first: they are zeroed for each burst. */
struct burst {
	unsigned n_ok, n_lk, n_fw, n_drop, n_six;
	unsigned not_ipv4, malformed, ttl_expired, no_route, hinted, vlan_unknown;
	unsigned count[SL_MAX_PORTS];          /* routed packets per output */
	struct rte_mbuf *pkts[SL_BURST_MAX];   /* received; then routable; then routed */
	struct rte_mbuf *drop[SL_BURST_MAX];
	uint8_t which[SL_BURST_MAX];           /* each routed packet's output */
	uint8_t *word[SL_BURST_MAX];           /* the TTL's 16-bit word and the checksum */
	uint8_t tmp[SL_BURST_MAX][4];          /* where the word is not contiguous */
	uint32_t l3[SL_BURST_MAX];
	uint32_t dsts[SL_BURST_MAX];           /* host order */
	int nh[SL_BURST_MAX];                  /* next hop, -1: no route */
	int8_t kk[SL_BURST_MAX];               /* each packet's interface */
	struct rte_mbuf *six[SL_BURST_MAX];    /* IPv6 packets for route6_burst */
	uint8_t *six_ip[SL_BURST_MAX];
	int8_t six_k[SL_BURST_MAX];
	uint32_t lk_dst[SL_BURST_MAX];         /* destinations without a hint */
	int lk_nh[SL_BURST_MAX];
	uint8_t lk_at[SL_BURST_MAX];           /* their positions among the routable */
};

_Static_assert(SL_BURST_MAX <= SL_ROUTE_BULK_MAX, "a burst fits one bulk lookup");
_Static_assert(SL_BURST_MAX <= UINT8_MAX + 1, "burst positions fit in uint8_t");

/* Phases 1 and 2 of b's n packets from input in_idx (interface k_in):
 * parse, drop what cannot be routed, take hints, then look up the
 * destinations left all at once (their table entries are fetched together:
 * sl_route_lookup_bulk).  Leaves b->pkts[0..n_ok) routable with their next
 * hops, the IPv6 ones in b->six. */
static inline void parse_burst(struct sl_app *app, struct router_priv *p,
			       const struct sl_route_table *t, unsigned in_idx, int k_in,
			       struct burst *b, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		struct rte_mbuf *m = b->pkts[i];
		/* the commonest frame needs only its destination: no key */
		const uint8_t *ip = sl_pkt_ipv4_simple(m);
		uint32_t dst;
		uint16_t l3_off = RTE_ETHER_HDR_LEN; /* the simple frame's */
		int k = k_in;
		if (likely(ip != NULL && k != TAGGED_ONLY)) {
			memcpy(&dst, ip + offsetof(struct rte_ipv4_hdr, dst_addr), sizeof(dst));
		} else {
			uint8_t *ip6;
			enum slow v = slow_in(app, p, in_idx, &k, m, &dst, &l3_off, &ip6);
			if (v == S_SIX) {
				b->six[b->n_six] = m;
				b->six_ip[b->n_six] = ip6;
				b->six_k[b->n_six++] = (int8_t)k;
				continue;
			}
			if (unlikely(v != S_IPV4)) {
				b->malformed += v == S_MALFORMED;
				b->not_ipv4 += v == S_NOT_IPV4;
				b->vlan_unknown += v == S_VLAN_UNKNOWN;
				if (v != S_TAKEN)
					b->drop[b->n_drop++] = m;
				continue;
			}
		}
		uint8_t *w = ttl_word(m, l3_off, b->tmp[b->n_ok]);
		if (unlikely(w[0] <= 1) && k < 0) {
			b->ttl_expired++;
			sl_route_hint_clear(m);
			b->drop[b->n_drop++] = m;
			continue;
		}
		dst = rte_be_to_cpu_32(dst);
		int h = sl_route_hint_get(m, t, dst);
		if (h >= 0) {
			sl_route_hint_clear(m);
			b->hinted++;
		} else {
			b->lk_dst[b->n_lk] = dst;
			b->lk_at[b->n_lk++] = (uint8_t)b->n_ok;
		}
		unsigned j = b->n_ok++;   /* j <= i: overwrites only what was read */
		b->pkts[j] = m;
		b->kk[j] = (int8_t)k;
		b->word[j] = w;
		b->l3[j] = l3_off;
		b->dsts[j] = dst;
		b->nh[j] = h;
	}
	if (b->n_lk > 0) {
		sl_route_lookup_bulk(t, b->lk_dst, b->lk_nh, b->n_lk);
		for (unsigned j = 0; j < b->n_lk; j++)
			b->nh[b->lk_at[j]] = b->lk_nh[j];
	}
}

/* Phase 3: TTL, checksum and MACs of the routable packets that have a
 * route, each counted for its output; the others dropped (with their ICMP
 * error), resolved or taken. */
static inline void rewrite_burst(struct sl_app *app, struct router_priv *p,
				 const struct sl_route_table *t, struct burst *b)
{
	uint64_t now = 0;   /* the TSC, read once for the burst's resolutions */
	for (unsigned i = 0; i < b->n_ok; i++) {
		struct rte_mbuf *m = b->pkts[i];
		if (unlikely(b->nh[i] < 0)) {
			b->no_route++;
			sl_route_hint_clear(m);
			if (b->kk[i] >= 0)
				send_error(app, p, m, b->l3[i], (unsigned)b->kk[i], SL_ICMP_UNREACH,
					   0, 0);
			b->drop[b->n_drop++] = m;
			continue;
		}
		const struct sl_route_nh *hop = sl_route_nh(t, (unsigned)b->nh[i]);
		uint8_t *w = b->word[i];
		if (p->n_if > 0) {
			enum verdict v = iface_checks(app, p, b->kk[i], m, b->l3[i], hop, w[0]);
			if (unlikely(v != V_ROUTE)) {
				b->ttl_expired += v == V_EXPIRED;
				if (v != V_TAKEN)
					b->drop[b->n_drop++] = m;
				continue;
			}
		}
		ttl_dec(m, b->l3[i], w, w == b->tmp[i]);
		if (hop->kind == SL_NH_GATEWAY || hop->kind == SL_NH_CONNECTED) {
			/* A known neighbour's packet joins the burst's lists;
			 * the rest is sent, held or dropped by resolve_nb_at. */
			if (now == 0)
				now = rte_rdtsc();
			if (!resolve_nb_at(app, p, hop->iface,
					   hop->kind == SL_NH_GATEWAY ? hop->gateway : b->dsts[i],
					   NULL, m, now, true))
				continue;
			unsigned o = p->ifs[hop->iface].output;
			b->which[b->n_fw] = (uint8_t)o;
			b->pkts[b->n_fw++] = m;   /* n_fw <= i */
			b->count[o]++;
			continue;
		}
		if (unlikely(!to_hop(app, p, hop, m)))
			continue;
		b->which[b->n_fw] = (uint8_t)hop->output;
		b->pkts[b->n_fw++] = m;   /* n_fw <= i */
		b->count[hop->output]++;
	}
}

/* TTL - 1 and the header checksum in w (bytes 8..11 of an IPv4 header, in
 * place), with the TTL known to be above 1: ttl_dec's RFC 1624 update
 * (eqn. 3), where ~old + new is always 0xfeff.  On a little-endian CPU the
 * checksum's two bytes loaded as they lie are its byte swap, in which that
 * update is "add 1, and 1 more when the sum reaches 0xfffe or 0xffff"
 * (one's complement sums commute with the swap): one load and one store
 * for the four bytes. */
static inline void ttl_dec_fast(uint8_t *w)
{
#if RTE_BYTE_ORDER == RTE_LITTLE_ENDIAN
	/* x: the TTL in its low byte, the swapped checksum c in its high
	 * half.  TTL - 1 cannot borrow (TTL >= 2), and the high half's sum
	 * wraps modulo 2^16 as c's: x - 1 + (1 + (c >= 0xfffe)) << 16. */
	uint32_t x;
	memcpy(&x, w, sizeof(x));
	x += 0xffffu + ((uint32_t)(x >= 0xfffe0000u) << 16);
	memcpy(w, &x, sizeof(x));
#else
	uint32_t s = (uint16_t)~be16_at(w + 2) + 0xfeffu;
	s = (s & 0xffff) + (s >> 16);
	uint16_t sum = (uint16_t)~s;
	w[0]--;
	w[2] = (uint8_t)(sum >> 8);
	w[3] = (uint8_t)sum;
#endif
}

/* The commonest burst in two passes and one lookup, without the arrays of
 * parse_burst and rewrite_burst: simple IPv4 frames (sl_pkt_ipv4_simple)
 * with a TTL above 1, from an input of no interface or of one untagged
 * interface (k_in), to next hops of static MACs (SL_NH_FORWARD with a
 * dst_mac) or to gateways whose neighbour is known (fast_gateway), on an
 * interface an untagged one and the frame within its MTU, on a table no
 * flow cache hints for (sl_route_table_found); the caller tries it only on
 * a table that has such next hops at all (has_fast: else a burst's first
 * packets would be checked and looked up twice).  Rewrites the
 * longest prefix of pkts[0..n) that is all of that kind, notes each one's
 * output in which[] and count[], and returns its length; nothing after the
 * prefix is written, and the caller routes the rest the usual way after
 * the prefix, so that each output keeps the order of arrival.  The same
 * outcome, packet for packet, as parse_burst and rewrite_burst.  Also sums
 * into *bytes the lengths of pkts[0..*summed), the packets its first pass
 * read. */
#define FAST_AHEAD 4   /* frames whose first line the first pass asks for ahead */

/* The fast paths' values of a static next hop, taken into registers when
 * the hop changes (the frames' stores may alias anything to the compiler,
 * which would read the hop's fields again for every packet). */
struct fast_hop {
	uint64_t mac8;               /* the frame's first 12 bytes to be */
	uint32_t mac4;
	bool both;                   /* write both MACs (else the destination's) */
	const struct iface *f;       /* the hop's interface (its MTU), or none */
	uint8_t out;                 /* its output */
};

/* v for a hop to output `out` by interface f (or none) with destination MAC
 * dmac, and smac as the source's when set_smac, else f's MAC, else none. */
static inline void fast_hop_take(struct fast_hop *v, const uint8_t *dmac, bool set_smac,
				 const uint8_t *smac, const struct iface *f, uint16_t out)
{
	static const uint8_t none[RTE_ETHER_ADDR_LEN];
	uint8_t m[2 * RTE_ETHER_ADDR_LEN];
	memcpy(m, dmac, RTE_ETHER_ADDR_LEN);
	memcpy(m + RTE_ETHER_ADDR_LEN, set_smac ? smac : f != NULL ? f->mac : none,
	       RTE_ETHER_ADDR_LEN);
	uint64_t m8;   /* no field's address taken: v stays in registers */
	uint32_t m4;
	memcpy(&m8, m, sizeof(m8));
	memcpy(&m4, m + sizeof(m8), sizeof(m4));
	v->mac8 = m8;
	v->mac4 = m4;
	v->both = set_smac || f != NULL;
	v->f = f;
	v->out = (uint8_t)out;
}

/* Write v's MACs into the frame starting at eh. */
static inline void fast_hop_write(const struct fast_hop *v, uint8_t *eh)
{
	const uint64_t m8 = v->mac8;
	const uint32_t m4 = v->mac4;
	if (likely(v->both)) {
		memcpy(eh, &m8, sizeof(m8));
		memcpy(eh + sizeof(m8), &m4, sizeof(m4));
	} else {
#if RTE_BYTE_ORDER == RTE_LITTLE_ENDIAN
		/* 4 + 2 bytes from the register (6 would go through memory) */
		const uint32_t lo = (uint32_t)m8;
		const uint16_t hi = (uint16_t)(m8 >> 32);
		memcpy(eh, &lo, sizeof(lo));
		memcpy(eh + sizeof(lo), &hi, sizeof(hi));
#else
		memcpy(eh, &m8, RTE_ETHER_ADDR_LEN);
#endif
	}
}

/* The outputs of a fast path's run, noted when the output changes (at a
 * hop change, which most bursts have once), instead of an output and a
 * count written for every packet: run k is packets [start[k], start[k+1])
 * (the last one up to the run's end) to output out[k]. */
struct fast_runs {
	unsigned n;
	uint8_t start[SL_BURST_MAX];
	uint8_t out[SL_BURST_MAX];
};

/* Packet i begins a hop of output out: a new run unless the last one has
 * that output. */
static inline void fast_runs_note(struct fast_runs *r, unsigned i, uint8_t out)
{
	if (r->n == 0 || r->out[r->n - 1] != out) {
		r->start[r->n] = (uint8_t)i;
		r->out[r->n] = out;
		r->n++;
	}
}

/* The runs of a prefix of length len as each packet's output in which[]
 * and the outputs' counts added to count[]. */
static inline void fast_runs_end(const struct fast_runs *r, unsigned len, uint8_t *which,
				 unsigned *count)
{
	for (unsigned k = 0; k < r->n; k++) {
		const unsigned s = r->start[k];
		const unsigned e = k + 1 < r->n ? r->start[k + 1] : len;
		if (e > s) {
			memset(which + s, r->out[k], e - s);
			count[r->out[k]] += e - s;
		}
	}
}

/* fast_prefix's check of one frame m, starting at f: a simple IPv4 frame
 * with a TTL above 1; then its destination (host order) in *dst and its
 * length added to *bytes. */
static inline bool fast_check(const struct rte_mbuf *m, const uint8_t *f, uint32_t *dst,
			      uint64_t *bytes)
{
	const uint8_t *ip = sl_pkt_ipv4_simple_at(m, f);
	if (ip == NULL || ip[offsetof(struct rte_ipv4_hdr, time_to_live)] <= 1)
		return false;
	uint32_t d, len = rte_pktmbuf_pkt_len(m);   /* read by the check already;
						     * before the store below, which
						     * may alias it to the compiler */
	memcpy(&d, ip + offsetof(struct rte_ipv4_hdr, dst_addr), sizeof(d));
	*dst = rte_be_to_cpu_32(d);
	*bytes += len;
	return true;
}

/* For fast_prefix: v for hop, a gateway on untagged interface f, when its
 * neighbour is known (not incomplete), as resolve_nb_at would write it
 * (the neighbour's MAC from f's): the use noted at *now (read here first,
 * once a burst), a request sent when the entry asks for one.  False for
 * the full path (which resolves, holds or drops). */
static __attribute__((noinline)) bool fast_gateway(struct sl_app *app, struct router_priv *p,
						   const struct sl_route_nh *hop,
						   const struct iface *f, struct fast_hop *v,
						   uint64_t *now)
{
	struct sl_nb *e = p->nb != NULL ? sl_nb_find(p->nb, hop->gateway) : NULL;
	if (e == NULL || e->state == SL_NB_INCOMPLETE)
		return false;
	if (*now == 0)
		*now = rte_rdtsc();
	if (sl_nb_use(p->nb, e, *now))
		ask(app, p, hop->iface, hop->gateway, NULL, e->mac);
	fast_hop_take(v, e->mac, false, NULL, f, f->output);
	return true;
}

static inline unsigned fast_prefix(struct sl_app *app, struct router_priv *p,
				   const struct sl_route_table *t, int k_in,
				   struct rte_mbuf **pkts, unsigned n, uint8_t *which,
				   unsigned *count, unsigned *summed, uint64_t *bytes)
{
	uint32_t dst[SL_BURST_MAX], ent[SL_BURST_MAX];
	uint8_t *ehs[SL_BURST_MAX];   /* each frame's first byte */
	uint64_t b = 0;
	unsigned j;

	*summed = 0;
	*bytes = 0;
	if ((k_in < 0 && k_in != -1) || sl_route_table_found(t))
		return 0;
	/* each frame's start, found as its first line is asked for */
	for (unsigned i = 0; i < n && i < FAST_AHEAD; i++) {
		ehs[i] = rte_pktmbuf_mtod(pkts[i], uint8_t *);
		rte_prefetch0(ehs[i]);
	}
	/* in two loops, so that the first asks for a frame ahead without a
	 * test of the burst's end */
	const unsigned ahead = n > FAST_AHEAD ? n - FAST_AHEAD : 0;
	for (j = 0; j < ahead; j++) {
		ehs[j + FAST_AHEAD] = rte_pktmbuf_mtod(pkts[j + FAST_AHEAD], uint8_t *);
		rte_prefetch0(ehs[j + FAST_AHEAD]);
		if (!fast_check(pkts[j], ehs[j], &dst[j], &b))
			goto checked;
	}
	for (; j < n; j++)
		if (!fast_check(pkts[j], ehs[j], &dst[j], &b))
			break;
checked:
	*summed = j;
	*bytes = b;
	if (j == 0)
		return 0;
	sl_route_lookup_raw(t, dst, ent, j);
	/* Read once: the frames' stores below may alias anything to the
	 * compiler.  What a next hop writes is taken from it, into registers,
	 * at the start of each run of packets whose LPM entries carry the same
	 * hop bits (most bursts have one or a few; entries of one hop by
	 * different routes start runs of their own, taking the hop again). */
	const struct sl_route_nh *const nhs = sl_route_nh(t, 0);
	const bool has_if = p->n_if > 0;
	struct fast_hop v = { 0 };
	struct fast_runs runs;
	uint64_t now = 0;   /* the TSC for the neighbours' use, read once */
	unsigned i;
	runs.n = 0;
	/* a hop's values taken, then its run of packets in a loop of its own
	 * (few values live: the compiler keeps them all in registers) */
	for (i = 0; i < j;) {
		const uint32_t e = ent[i];
		const int h = sl_route_raw_nh(t, e);
		if (h < 0)
			break;
		const struct sl_route_nh *hop = &nhs[h];
		const bool stat = hop->kind == SL_NH_FORWARD && hop->set_dmac;
		if (!stat && hop->kind != SL_NH_GATEWAY)
			break;
		const struct iface *f =
			has_if && hop->iface != NO_IFACE ? &p->ifs[hop->iface] : NULL;
		if (f != NULL && f->vlan != 0)
			break;
		if (stat) {
			fast_hop_take(&v, hop->dmac, hop->set_smac, hop->smac, f, hop->output);
		} else {
			struct fast_hop g;   /* v's address not taken: v stays in registers */
			if (f == NULL || !fast_gateway(app, p, hop, f, &g, &now))
				break;
			v = g;
		}
		fast_runs_note(&runs, i, v.out);
		do {
			if (unlikely(v.f != NULL) &&
			    rte_pktmbuf_pkt_len(pkts[i]) - RTE_ETHER_HDR_LEN > v.f->mtu)
				goto done;
			uint8_t *eh = ehs[i];
			fast_hop_write(&v, eh);
			ttl_dec_fast(eh + RTE_ETHER_HDR_LEN +
				     offsetof(struct rte_ipv4_hdr, time_to_live));
			i++;
		} while (i < j && sl_route_raw_same_nh(ent[i], e));
	}
done:
	fast_runs_end(&runs, i, which, count);
	return i;
}

/* The IPv6 counterpart of fast_prefix: the longest prefix of pkts[0..n)
 * that is all frames ipv6_fast takes (untagged, unicast, hop limit over 1,
 * not the router's), from an input of no interface or of one untagged
 * interface, to next hops of static MACs (SL_NH_FORWARD with a dst_mac; on
 * an interface: an untagged one, the packet within its MTU), rewritten as
 * route6_burst would (the destination MAC; the source MAC when the hop or
 * its interface has one; hop limit - 1), with each one's output in which[]
 * and count[]; returns its length.  Like fast_prefix it writes nothing
 * after the prefix, sums into *bytes the lengths of the packets its first
 * pass read (*summed), and leaves tables that a flow cache may hint for to
 * the full path (which clears the hints of IPv6 packets); an IPv6 table
 * without such next hops is not tried (its packets would be checked and
 * looked up twice).  The run leaves before the rest of its burst, in the
 * order of arrival (the full path puts a burst's IPv6 packets after its
 * IPv4 ones on each output). */
static inline unsigned fast6_prefix(const struct router_priv *p, const struct sl_route_table *t,
				    int k_in, struct rte_mbuf **pkts, unsigned n, uint8_t *which,
				    unsigned *count, unsigned *summed, uint64_t *bytes)
{
	uint8_t dst[SL_BURST_MAX][16];
	int32_t hop[SL_BURST_MAX];
	uint8_t *ips[SL_BURST_MAX];
	uint64_t b = 0;
	unsigned j;

	*summed = 0;
	*bytes = 0;
	if ((k_in < 0 && k_in != -1) || p->table6 == NULL || !sl_route6_has_static(p->table6) ||
	    sl_route_table_found(t))
		return 0;
	for (j = 0; j < n; j++) {
		uint8_t *ip = ipv6_fast(p, pkts[j]);
		if (ip == NULL)
			break;
		ips[j] = ip;
		memcpy(dst[j], ip + 24, 16);
		b += rte_pktmbuf_pkt_len(pkts[j]);
	}
	*summed = j;
	*bytes = b;
	if (j == 0)
		return 0;
	sl_route6_lookup_raw(p->table6, dst, hop, j);
	/* What a next hop writes, taken into registers when the hop changes
	 * (equal next hops share an entry: most bursts have one or a few). */
	int64_t last = INT64_MIN;   /* no lookup's result */
	struct fast_hop v = { 0 };
	struct fast_runs runs;
	unsigned i;
	runs.n = 0;
	for (i = 0; i < j; i++) {
		if (hop[i] != last) {
			const struct sl_nh6 *h = sl_route6_nh_of(p->table6, hop[i]);
			if (h == NULL || h->kind != SL_NH_FORWARD || !h->set_dmac)
				break;
			const struct iface *f = h->iface != NO_IFACE ? &p->ifs[h->iface] : NULL;
			if (f != NULL && f->vlan != 0)
				break;
			fast_hop_take(&v, h->dmac, h->set_smac, h->smac, f, h->output);
			fast_runs_note(&runs, i, v.out);
			last = hop[i];
		}
		if (unlikely(v.f != NULL) &&
		    SL_IP6_HDR + ((uint32_t)ips[i][4] << 8 | ips[i][5]) > v.f->mtu)
			break;
		fast_hop_write(&v, ips[i] - RTE_ETHER_HDR_LEN);
		ips[i][7]--;
	}
	fast_runs_end(&runs, i, which, count);
	return i;
}

/* The packets of a burst the fast path left, pkts[0..n) from input in_idx
 * (interface k_in), in four phases: parse and check every packet and look
 * up the destinations together (parse_burst), rewrite and sort the routed
 * packets by output (rewrite_burst), route the IPv6 ones together
 * (route6_burst), then drop, transmit and count.  Packets keep their order
 * on each output.  Input `in_idx` belongs to the interfaces of output
 * in_idx (a packet's interface k: the untagged one, or the one of its VLAN
 * tag, which is stripped), to local_output, or to none (k -1: forwarding
 * only).  Packets that need the router's own messages (ARP, to its
 * addresses, an ICMP error, a next hop to resolve) leave the burst for the
 * functions above.  Out of line: the fast path's callers keep their frames
 * small without its arrays. */
static __attribute__((noinline)) void route_rest(struct sl_app *app, struct router_priv *p,
						 const struct sl_route_table *t, unsigned in_idx,
						 int k_in, struct rte_mbuf *const *pkts, unsigned n)
{
	struct burst b;

	memset(&b, 0, offsetof(struct burst, pkts));
	memcpy(b.pkts, pkts, n * sizeof(b.pkts[0]));
	parse_burst(app, p, t, in_idx, k_in, &b, n);
	rewrite_burst(app, p, t, &b);
	if (b.n_six > 0)   /* after the IPv4 ones on each output */
		route6_burst(app, p, b.six, b.six_ip, b.six_k, b.n_six, b.pkts, b.which,
			     b.count, &b.n_fw);
	sl_app_drop(app, b.drop, b.n_drop);
	transmit_by_output(app, b.pkts, b.which, b.n_fw, b.count, SL_BYTES_UNKNOWN);

	sl_app_ctr_add(app, R_FORWARDED, b.n_fw);
	sl_app_ctr_add(app, R_NOT_IPV4, b.not_ipv4);
	sl_app_ctr_add(app, R_MALFORMED, b.malformed);
	sl_app_ctr_add(app, R_TTL_EXPIRED, b.ttl_expired);
	sl_app_ctr_add(app, R_NO_ROUTE, b.no_route);
	sl_app_ctr_add(app, R_HINTED, b.hinted);
	sl_app_ctr_add(app, R_VLAN_UNKNOWN, b.vlan_unknown);
}

/* One burst pkts[0..n) (the router's now; the array may be rewritten)
 * from input in_idx, link `in`: its longest prefix that fast_prefix takes
 * (or, when the burst begins with no simple IPv4 frame, fast6_prefix), the
 * rest by route_rest, after it on each output. */
static inline void route_burst(struct sl_app *app, struct router_priv *p, struct sl_link *in,
			       unsigned in_idx, struct rte_mbuf **pkts, unsigned n)
{
	const int k_in = p->if_of_input[in_idx];
	const struct sl_route_table *t = p->table;
	uint8_t which[SL_BURST_MAX];
	unsigned count[SL_MAX_PORTS] = { 0 };   /* a few stores, no call */
	/* The link's bytes: those the fast path's check read, then the rest
	 * of the burst. */
	unsigned summed = 0;
	uint64_t bytes = 0;
	unsigned f = sl_route_head(t)->has_fast
		? fast_prefix(app, p, t, k_in, pkts, n, which, count, &summed, &bytes) : 0;
	bool six = false;
	if (summed == 0) {   /* the first frame is no simple IPv4 one */
		f = fast6_prefix(p, t, k_in, pkts, n, which, count, &summed, &bytes);
		six = f > 0;
	}
	sl_link_rx_bytes(in, bytes + sl_pkts_bytes(pkts + summed, n - summed));
	if (f > 0) {
		/* rewrites pkts[0..f) at most: the rest is still ours; their
		 * bytes are known when the check read no more than them */
		transmit_by_output(app, pkts, which, f, count,
				   f == summed ? bytes : SL_BYTES_UNKNOWN);
		sl_app_ctr_add(app, R_FORWARDED, f);
		sl_app_ctr_add(app, R_FAST, f);
		if (six)
			sl_app_ctr_add(app, R_FORWARDED6, f);
	}
	if (f < n)
		route_rest(app, p, t, in_idx, k_in, pkts + f, n - f);
}

/* Up to ROUTER_ROUNDS bursts of input in_idx, while it gives full ones. */
static void route_input(struct sl_app *app, struct sl_link *in, unsigned in_idx)
{
	struct router_priv *p = app->priv;
	struct rte_mbuf *pkts[SL_BURST_MAX];

	for (unsigned r = 0; r < ROUTER_ROUNDS; r++) {
		unsigned n = sl_link_receive_raw(in, pkts, app->burst);
		if (n == 0)
			break;
		route_burst(app, p, in, in_idx, pkts, n);
		if (n < app->burst)
			break;
	}
}

static void router_push(struct sl_app *app)
{
	struct router_priv *p = app->priv;
	if (p->table == NULL)
		return;
	for (unsigned i = 0; i < app->n_in; i++)
		if (app->in[i] != NULL)
			route_input(app, app->in[i], i);
}

/* A burst from a direct link (app.h): the same as one of route_input's. */
static void router_take(struct sl_app *app, unsigned in, struct rte_mbuf **pkts, unsigned n,
			uint64_t bytes)
{
	(void)bytes;   /* the fast path's check reads every length anyway */
	struct router_priv *p = app->priv;
	if (unlikely(p->table == NULL)) {   /* not initialised: nothing routes */
		sl_link_rx_bytes(app->in[in], sl_pkts_bytes(pkts, n));
		sl_app_drop(app, pkts, n);
		return;
	}
	route_burst(app, p, app->in[in], in, pkts, n);
}

/* Aging's requests: a probe of e (unicast when it has a MAC). */
static void age_probe(void *arg, const struct sl_nb *e)
{
	struct sl_app *app = arg;
	ask(app, app->priv, e->iface, e->addr, e->v6 ? e->addr6 : NULL,
	    e->state == SL_NB_INCOMPLETE ? NULL : e->mac);
}

/* A packet e held when it failed: host unreachable to its sender, then
 * dropped.  Its Ethernet header is the router's now, so the error goes to
 * the sender's address as the route back finds it: by the interface the
 * packet came in by is not known here; the error is sent only when the
 * sender is on a connected prefix whose neighbour is known. */
static void age_fail(void *arg, const struct sl_nb *e, struct rte_mbuf *m)
{
	(void)e;
	struct sl_app *app = arg;
	sl_app_ctr_add(app, R_NEIGH_FAILED, 1);
	sl_app_drop(app, &m, 1);
}

static void router_tick(struct sl_app *app)
{
	struct router_priv *p = app->priv;
	if (p->nb == NULL)
		return;
	sl_nbv_serve(p->nbv, p->nb);
	uint64_t now = rte_rdtsc();
	if (now < p->next_age)
		return;
	p->next_age = now + p->age_every;
	if (unlikely(!p->announced)) {
		p->announced = true;
		announce(app, p);
		announce6(app, p);
	}
	const struct sl_nb_ops ops = { .probe = age_probe, .fail = age_fail, .arg = app };
	uint64_t aged = sl_nb_stats(p->nb)->removed_aged;
	sl_nb_age(p->nb, now, p->age_budget, &ops);
	const struct sl_nb_stats *st = sl_nb_stats(p->nb);
	if (st->removed_aged != aged) {
		sl_app_ctr_add(app, R_NEIGH_AGED, st->removed_aged - aged);
		sl_app_ctr_set(app, R_NEIGH_LATE_US, st->aged_late_max * 1000000 / rte_get_tsc_hz());
	}
	sl_app_ctr_set(app, R_NEIGH_ENTRIES, sl_nb_count(p->nb));
}

static void router_fini(struct sl_app *app)
{
	struct router_priv *p = app->priv;

	sl_route_table_free(p->table);    /* unregisters it */
	p->table = NULL;
	sl_route6_free(p->table6);
	p->table6 = NULL;
	sl_nb_table_free(p->nb);           /* and the packets its entries held */
	p->nb = NULL;
	sl_nbv_free(p->nbv);
	p->nbv = NULL;
}

/* The neighbour table (neigh_view.h); a router without interfaces has none
 * (0 rows). */
static int router_table_read(struct sl_app *app, bool live, unsigned offset,
			     struct sl_table_row *rows, unsigned max, unsigned *filled,
			     struct sl_err *err)
{
	struct router_priv *p = app->priv;
	*filled = 0;
	if (p->nb == NULL || p->nbv == NULL)
		return 0;
	if (live)
		return sl_nbv_read(p->nbv, offset, rows, max, filled, err);
	return (int)sl_nbv_fill(p->nb, (const char (*)[SL_NBV_IFNAME])p->ifnames, offset, rows,
				max, filled);
}

static const struct sl_param_spec router_route_fields[] = {
	[F_PREFIX] = { .name = "prefix", .type = SL_PARAM_STRING,
		       .doc = "destinations, A.B.C.D/N or X:X::X/N (quoted in YAML) with the host bits zero; 0.0.0.0/0 and ::/0 are the default routes" },
	[F_VIA] = { .name = "via", .type = SL_PARAM_STRING, .def = "none",
		    .doc = "next-hop gateway A.B.C.D or X:X::X, of the prefix's family (with interfaces: resolved by ARP or ND, and it picks the output); none: directly connected" },
	[F_OUTPUT] = { .name = "output", .type = SL_PARAM_UINT, .def = "0", .max = SL_MAX_PORTS - 1,
		       .doc = "the output the packets leave by (N of outputN); must be connected; with interfaces, via's interface when not given" },
	[F_DST_MAC] = { .name = "dst_mac", .type = SL_PARAM_MAC, .def = "00:00:00:00:00:00",
			.doc = "destination MAC written on the way out (with interfaces: a static neighbour); not given: kept, or resolved" },
	[F_SRC_MAC] = { .name = "src_mac", .type = SL_PARAM_MAC, .def = "00:00:00:00:00:00",
			.doc = "source MAC written on the way out; not given: kept (with interfaces: the interface's)" },
};
_Static_assert(SL_ARRAY_LEN(router_route_fields) == F_COUNT, "one spec per route field");

static const struct sl_param_spec router_iface_fields[] = {
	[I_NAME] = { .name = "name", .type = SL_PARAM_STRING,
		     .doc = "the interface's name, unique in the router" },
	[I_OUTPUT] = { .name = "output", .type = SL_PARAM_UINT, .max = SL_MAX_PORTS - 1,
		       .doc = "N: the interface leaves by outputN and takes what inputN brings" },
	[I_ADDRESS] = { .name = "address", .type = SL_PARAM_STRING,
			.doc = "its addresses, A.B.C.D/N and X:X::X/N, separated by commas or spaces (at most 8 of each family; an interface with IPv6 also has fe80::/64 from its MAC)" },
	[I_MAC] = { .name = "mac", .type = SL_PARAM_MAC, .def = "00:00:00:00:00:00",
		    .doc = "its MAC address; not given: that of the port its output leads to" },
	[I_MTU] = { .name = "mtu", .type = SL_PARAM_UINT, .def = "1500", .min = 68, .max = 9000,
		    .doc = "the largest IP packet it sends, in bytes (at least 1280 with IPv6)" },
	[I_VLAN] = { .name = "vlan", .type = SL_PARAM_UINT, .def = "0", .max = 65535,
		     .doc = "an 802.1Q VLAN id, 1..4094: the interface takes the frames inputN brings with that tag and tags what it sends; not given: untagged frames" },
};
_Static_assert(SL_ARRAY_LEN(router_iface_fields) == I_COUNT, "one spec per interface field");

static const struct sl_param_spec router_params[] = {
	{ .name = "routes", .type = SL_PARAM_TABLE, .min = 1,
	  .fields = router_route_fields, .n_fields = SL_ARRAY_LEN(router_route_fields),
	  .live = true, .doc = "IPv4 and IPv6 routes, longest prefix wins: prefix, output, and optionally via, dst_mac, src_mac" },
	{ .name = "interfaces", .type = SL_PARAM_TABLE, .def = "[]", .max = SL_MAX_PORTS,
	  .fields = router_iface_fields, .n_fields = SL_ARRAY_LEN(router_iface_fields),
	  .doc = "the router's interfaces: name, output, address, and optionally mac, mtu; none: forwarding only (docs/router.md)" },
	{ .name = "icmp_rate", .type = SL_PARAM_UINT, .def = "1000", .max = 1000000,
	  .doc = "ICMP errors sent a second at most; 0: none" },
	{ .name = "icmp_burst", .type = SL_PARAM_UINT, .def = "50", .min = 1, .max = 1000000,
	  .doc = "ICMP errors sent at once at most (the bucket of icmp_rate)" },
	{ .name = "neigh_entries", .type = SL_PARAM_UINT, .def = "1024", .min = 1, .max = 1048576,
	  .doc = "neighbour table entries at most" },
	{ .name = "neigh_hold", .type = SL_PARAM_UINT, .def = "8", .max = SL_NB_HOLD_MAX,
	  .doc = "packets held per neighbour being resolved" },
	{ .name = "neigh_reachable", .type = SL_PARAM_DURATION, .def = "30s",
	  .doc = "how long a confirmed neighbour is reachable before it is stale" },
	{ .name = "neigh_stale", .type = SL_PARAM_DURATION, .def = "60s",
	  .doc = "how long a stale neighbour is kept without a confirmation" },
	{ .name = "neigh_retrans", .type = SL_PARAM_DURATION, .def = "1s",
	  .doc = "time between two requests for a neighbour" },
	{ .name = "neigh_probes", .type = SL_PARAM_UINT, .def = "3", .min = 1, .max = 20,
	  .doc = "requests without a reply before a neighbour being resolved fails" },
	{ .name = "local_output", .type = SL_PARAM_STRING, .def = "none",
	  .doc = "N: packets to the router's addresses that it does not answer itself (TCP, UDP, ...) leave by outputN, to the host's stack (a tap port), and what inputN brings from it is routed; none: they are dropped (docs/router.md)" },
};

/* At config load: the interfaces and routes parse, name connected outputs
 * and do not repeat (init builds the same lists again for the table). */
static int router_check(const struct sl_param_value *params, unsigned n_in,
				unsigned n_out, struct sl_err *err)
{
	struct iface ifs[SL_MAX_PORTS];
	unsigned n_if;
	int rc = params_ifaces(router_params, SL_ARRAY_LEN(router_params), params, n_out, ifs,
			       &n_if, err);
	int local;
	if (rc == 0)
		rc = params_local(router_params, SL_ARRAY_LEN(router_params), params, n_out, ifs,
				  n_if, &local, err);
	if (rc < 0)
		return rc;
	const struct sl_param_value *v =
		&params[sl_param_find(router_params, SL_ARRAY_LEN(router_params), "routes")];
	if (v->n_rows == 0)
		return 0;   /* the list's own minimum is checked by the config */
	struct tables tb;
	return make_tables(NULL, 0, v->rows, v->n_rows, n_out, ifs, n_if, true, &tb, err);
}

static const struct sl_port_spec router_inputs[] = {
	{ .name = "input#", .required = true,
	  .doc = "input0 (or input), input1, ...: Ethernet frames; with interfaces, inputN is the interface of outputN" },
};

static const struct sl_port_spec router_outputs[] = {
	{ .name = "output#", .required = true,
	  .doc = "output0, output1, ...: routed packets, by their route's output" },
};

static const struct sl_app_type router_app = {
	.name = "router",
	.doc = "Route IPv4 and IPv6 by longest-prefix match; with interfaces, answer ARP, ND and ping, resolve next hops, send ICMP errors",
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
	.start = router_start,
	.push = router_push,
	.take = router_take,
	.tick = router_tick,
	.reconfig = router_reconfig,
	.apply = router_apply,
	.release = router_release,
	.fini = router_fini,
	.table = &sl_nbv_spec,
	.table_read = router_table_read,
};

SL_APP_REGISTER(router_app)
