/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bridge: a learning Ethernet bridge with VLANs (docs/bridge.md).
 *
 * Members.  Each row of `members` names a port number N: the member's
 * frames come in on inputN and leave by outputN.  A member is an access
 * port (untagged frames, one VLAN) or a trunk (tagged frames of a list of
 * VLANs, and untagged ones of its native VLAN if it has one).
 *
 * A frame from member i: its VLAN is found (a tag is taken off; frames of
 * a VLAN i does not carry, and frames shorter than an Ethernet header, are
 * dropped and counted); its source (VLAN, MAC) is learned on i unless it
 * is a group or all-zero address; a unicast destination known on member o
 * goes to o alone (dropped, as filtered, when o is i), any other
 * destination is flooded to every other member of the VLAN.  On the way
 * out each copy is tagged as its member says: untagged on an access port
 * and for a trunk's native VLAN, tagged otherwise.  Each output keeps the
 * order of arrival.
 *
 * The MAC table (mactable.h) is shared by the replicas of a bridge on a
 * worker group: replica 0 makes it, each replica ages its share of it.
 * Flooded frames are copied (deep copies from the worker's pool: each
 * member may need its own tag).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_ether.h>
#include <rte_mbuf.h>

#include "apps/bridge/frame.h"
#include "apps/bridge/mactable.h"
#include "runtime/app.h"

#define BRIDGE_ROUNDS 4
#define AGE_BUDGET 1024      /* buckets a tick visits at most (one line each) */


/* Fields of a members row, and of a static row. */
enum { M_PORT, M_MODE, M_VLAN, M_VLANS, M_NATIVE, M_COUNT };
enum { S_MAC, S_VLAN, S_PORT, S_COUNT };

enum {
	B_FORWARDED, B_FLOODED, B_FLOOD_COPIES, B_LEARNED, B_MOVED, B_AGED, B_STATIC_KEPT,
	B_LEARN_LIMITED, B_LEARN_FULL, B_LEARN_DEFERRED, B_NOT_LEARNED, B_FILTERED, B_DROP_RUNT,
	B_DROP_VLAN, B_DROP_NO_COPY, B_DROP_NO_TAG, B_AGED_LATE_US, B_TICK_GAP_US, B_AGING_BOUND_US,
	B_ENTRIES, B_ENTRIES_STATIC,
	B_N_COUNTERS
};

static const struct sl_counter_spec bridge_counters[] = {
	[B_FORWARDED] = { "forwarded", SL_COUNTER, "Frames to a known unicast address, sent to its one member." },
	[B_FLOODED] = { "flooded", SL_COUNTER, "Frames flooded (broadcast, multicast, unknown unicast), counted once each." },
	[B_FLOOD_COPIES] = { "flood_copies", SL_COUNTER, "Frames sent by floods: one per member reached." },
	[B_LEARNED] = { "learned", SL_COUNTER, "Source addresses learned (new entries)." },
	[B_MOVED] = { "moved", SL_COUNTER, "Source addresses seen on another member than their entry's: the entry moved." },
	[B_AGED] = { "aged", SL_COUNTER, "Learned entries removed after aging without a frame from them (by this app's sweeps)." },
	[B_STATIC_KEPT] = { "static_kept", SL_COUNTER, "Frames from an address with a static entry on another member: the entry kept." },
	[B_LEARN_LIMITED] = { "learn_limited", SL_COUNTER, "Source addresses not learned: their member holds member_limit entries." },
	[B_LEARN_FULL] = { "learn_full", SL_COUNTER, "Source addresses not learned: the table (or the address's bucket) is full." },
	[B_LEARN_DEFERRED] = { "learn_deferred", SL_COUNTER, "Moves not made because the epoch's retire list was full (made by a later frame)." },
	[B_NOT_LEARNED] = { "not_learned", SL_COUNTER, "Frames whose source is a group or all-zero address, never learned." },
	[B_FILTERED] = { "filtered", SL_COUNTER, "Frames to an address known on the member they came from, dropped." },
	[B_DROP_RUNT] = { "drop_runt", SL_COUNTER, "Frames shorter than an Ethernet header (or a VLAN tag cut short), dropped." },
	[B_DROP_VLAN] = { "drop_vlan", SL_COUNTER, "Frames of a VLAN their member does not carry (or untagged on a trunk without a native VLAN), dropped." },
	[B_DROP_NO_COPY] = { "drop_no_copy", SL_COUNTER, "Flood copies not made: the pool had no mbuf." },
	[B_DROP_NO_TAG] = { "drop_no_tag", SL_COUNTER, "Frames not sent because a VLAN tag could not be added (no headroom, or a shared mbuf)." },
	[B_AGED_LATE_US] = { "aged_late_us", SL_GAUGE, "The most an aged entry outlived aging after its last frame, in microseconds (docs/bridge.md: bounded)." },
	[B_TICK_GAP_US] = { "tick_gap_us", SL_GAUGE, "The longest time between two of this app's aging sweeps, in microseconds: a worker kept off its CPU delays aging by as much." },
	[B_AGING_BOUND_US] = { "aging_bound_us", SL_GAUGE, "How long past aging an idle entry may live when sweeps come often: the refresh step plus the sweep period, in microseconds (add tick_gap_us for the bound in general)." },
	[B_ENTRIES] = { "entries", SL_GAUGE, "Entries in the MAC table, static ones included (the table replicas share)." },
	[B_ENTRIES_STATIC] = { "entries_static", SL_GAUGE, "Static entries in the MAC table." },
};
_Static_assert(SL_ARRAY_LEN(bridge_counters) == B_N_COUNTERS, "one spec per counter");

struct bridge_priv {
	struct sl_mt *table;        /* replica 0's; owned by replica 0 */
	bool owner;
	struct sl_br_member members[SL_MAX_PORTS];
	unsigned n_members;
	int member_of_port[SL_MAX_PORTS];   /* index in members, or -1 */
	struct sl_mt_sweep sweep;
	uint64_t late_max_ns;
	/* One burst's frames per output, in arrival order. */
	struct rte_mbuf *list[SL_MAX_PORTS][SL_BURST_MAX];
	unsigned n_list[SL_MAX_PORTS];
};

/* --- configuration ----------------------------------------------------- */

static const struct sl_param_spec member_fields[] = {
	[M_PORT] = { .name = "port", .type = SL_PARAM_UINT, .max = SL_MAX_PORTS - 1,
		     .doc = "the member's port number N: its frames come in on inputN and leave by outputN" },
	[M_MODE] = { .name = "mode", .type = SL_PARAM_ENUM, .def = "access", .choices = "access|trunk",
		     .doc = "access: untagged frames of one VLAN (vlan); trunk: tagged frames of vlans, untagged ones of native" },
	[M_VLAN] = { .name = "vlan", .type = SL_PARAM_UINT, .def = "1", .min = 1, .max = 4094,
		     .doc = "an access member's VLAN" },
	[M_VLANS] = { .name = "vlans", .type = SL_PARAM_STRING, .def = "none",
		      .doc = "a trunk's VLANs, tagged: ids and ranges, \"10,20,30-39\"; none: only native" },
	[M_NATIVE] = { .name = "native", .type = SL_PARAM_UINT, .def = "0", .max = 4094,
		       .doc = "a trunk's native VLAN, whose frames it carries untagged; 0: none (untagged frames dropped)" },
};
_Static_assert(SL_ARRAY_LEN(member_fields) == M_COUNT, "one spec per member field");

static const struct sl_param_spec static_fields[] = {
	[S_MAC] = { .name = "mac", .type = SL_PARAM_MAC, .doc = "a unicast MAC address" },
	[S_VLAN] = { .name = "vlan", .type = SL_PARAM_UINT, .def = "1", .min = 1, .max = 4094,
		     .doc = "its VLAN, one its member carries" },
	[S_PORT] = { .name = "port", .type = SL_PARAM_UINT, .max = SL_MAX_PORTS - 1,
		     .doc = "the member (its port number) frames to it go to" },
};
_Static_assert(SL_ARRAY_LEN(static_fields) == S_COUNT, "one spec per static field");

static const struct sl_param_spec bridge_params[] = {
	{ .name = "members", .type = SL_PARAM_TABLE, .min = 1, .max = SL_MAX_PORTS,
	  .fields = member_fields, .n_fields = M_COUNT, .live = true,
	  .doc = "the bridge's ports: port, and mode access (vlan) or trunk (vlans, native)" },
	{ .name = "static", .type = SL_PARAM_TABLE, .def = "[]",
	  .fields = static_fields, .n_fields = S_COUNT, .live = true,
	  .doc = "entries that never age or move: mac, vlan, port" },
	{ .name = "aging", .type = SL_PARAM_DURATION, .def = "300s", .min = 1000000,
	  .doc = "a learned address not seen as a source for this long is removed (docs/bridge.md: within a bound after)" },
	{ .name = "entries", .type = SL_PARAM_UINT, .def = "65536", .min = 1, .max = SL_MT_CAPACITY_MAX,
	  .doc = "the MAC table's size, static entries included; when full, new addresses are not learned (and are flooded)" },
	{ .name = "member_limit", .type = SL_PARAM_UINT, .def = "0", .max = SL_MT_CAPACITY_MAX,
	  .doc = "learned addresses one member may hold; beyond it new ones are not learned (and are flooded); 0: entries / number of members" },
};

static unsigned param_idx(const char *name)
{
	int i = sl_param_find(bridge_params, SL_ARRAY_LEN(bridge_params), name);
	return (unsigned)i;
}

/* Parse "10,20,30-39" into words; 0 or -EINVAL with a sentence. */
static int parse_vlans(const char *text, uint64_t *words, unsigned *n, struct sl_err *err)
{
	const char *s = strcmp(text, "none") == 0 ? "" : text;
	*n = 0;
	while (*s != '\0') {
		char *end;
		unsigned long a = strtoul(s, &end, 10), b = a;
		if (end == s)
			goto bad;
		s = end;
		if (*s == '-') {
			const char *from = ++s;
			b = strtoul(from, &end, 10);
			if (end == from)
				goto bad;
			s = end;
		}
		if (a < 1 || b > 4094 || b < a)
			return sl_errf(err, EINVAL, "VLAN ids must be 1..4094 (a range low-high), got '%s'",
				       text);
		for (unsigned long v = a; v <= b; v++) {
			sl_br_vlan_set(words, (unsigned)v);
			(*n)++;
		}
		while (*s == ' ')
			s++;
		if (*s == ',') {
			s++;
			while (*s == ' ')
				s++;
			if (*s == '\0')
				goto bad;
		} else if (*s != '\0') {
			goto bad;
		}
	}
	return 0;
bad:
	return sl_errf(err, EINVAL, "vlans must be VLAN ids and ranges separated by commas (\"10,20,30-39\"), got '%s'",
		       text);
}

/* The members and their VLANs from params; n_in, n_out the connected
 * ports, checked against the members unless links is false (a reload: the
 * new file was checked with its links).  Sentences start with the row's
 * place. */
static int make_members(const struct sl_param_value *params, bool links, unsigned n_in,
			unsigned n_out, struct sl_br_member *ms, unsigned *n_ms, int *member_of_port,
			struct sl_err *err)
{
	const struct sl_param_value *v = &params[param_idx("members")];
	*n_ms = 0;
	for (unsigned p = 0; p < SL_MAX_PORTS; p++)
		member_of_port[p] = -1;
	for (unsigned r = 0; r < v->n_rows; r++) {
		const struct sl_param_row *row = &v->rows[r];
		const struct sl_param_value *f = row->v;
		struct sl_br_member *m = &ms[r];
		memset(m, 0, sizeof(*m));
		m->port = (unsigned)f[M_PORT].u;
		m->mode = (unsigned)f[M_MODE].u;
		if (member_of_port[m->port] >= 0)
			return sl_errf(err, EINVAL, "%s: port %u is a member twice (rows %d and %u)",
				       row->where, m->port, member_of_port[m->port] + 1, r + 1);
		if (links && (m->port >= n_in || m->port >= n_out))
			return sl_errf(err, EINVAL, "%s: member port %u is not connected: link both input%u and output%u",
				       row->where, m->port, m->port, m->port);
		if (m->mode == SL_BR_ACCESS) {
			if (f[M_VLANS].set || f[M_NATIVE].set)
				return sl_errf(err, EINVAL, "%s: member port %u is an access port: vlans and native are a trunk's (mode: trunk)",
					       row->where, m->port);
			m->vlan = (uint16_t)f[M_VLAN].u;
			sl_br_vlan_set(m->vlans, m->vlan);
		} else {
			if (f[M_VLAN].set)
				return sl_errf(err, EINVAL, "%s: member port %u is a trunk: its VLANs are vlans (and native), not vlan",
					       row->where, m->port);
			unsigned n;
			struct sl_err e = { "" };
			if (parse_vlans(f[M_VLANS].s, m->vlans, &n, &e) < 0)
				return sl_errf(err, EINVAL, "%s: member port %u: %s", row->where, m->port,
					       e.msg);
			m->vlan = (uint16_t)f[M_NATIVE].u;
			if (n == 0 && m->vlan == 0)
				return sl_errf(err, EINVAL, "%s: trunk port %u carries no VLAN: give vlans, native or both",
					       row->where, m->port);
			if (m->vlan != 0 && sl_br_carries(m, m->vlan))
				return sl_errf(err, EINVAL, "%s: trunk port %u has VLAN %u both native (untagged) and in vlans (tagged)",
					       row->where, m->port, m->vlan);
			if (m->vlan != 0)
				sl_br_vlan_set(m->vlans, m->vlan);
		}
		member_of_port[m->port] = (int)r;
		(*n_ms)++;
	}
	for (unsigned p = 0; links && p < SL_MAX_PORTS; p++)
		if ((p < n_in || p < n_out) && member_of_port[p] < 0)
			return sl_errf(err, EINVAL, "%s%u is connected but no member has port %u",
				       p < n_in ? "input" : "output", p, p);
	return 0;
}

/* A static or reloaded row's table key. */
static uint64_t row_key(const struct sl_param_row *r)
{
	return sl_mt_key((uint16_t)r->v[S_VLAN].u, r->v[S_MAC].mac);
}

/* The static rows, checked against the members. */
static int check_statics(const struct sl_param_value *params, const struct sl_br_member *ms,
			 const int *member_of_port, struct sl_err *err)
{
	const struct sl_param_value *v = &params[param_idx("static")];
	for (unsigned r = 0; r < v->n_rows; r++) {
		const struct sl_param_row *row = &v->rows[r];
		const uint8_t *mac = row->v[S_MAC].mac;
		unsigned port = (unsigned)row->v[S_PORT].u, vid = (unsigned)row->v[S_VLAN].u;
		uint64_t key = row_key(row);
		if (!sl_mt_key_unicast(key))
			return sl_errf(err, EINVAL, "%s: static MAC %02x:%02x:%02x:%02x:%02x:%02x is not a unicast address",
				       row->where, mac[0], mac[1], mac[2], mac[3], mac[4], mac[5]);
		if (member_of_port[port] < 0)
			return sl_errf(err, EINVAL, "%s: static entry on port %u, which is no member",
				       row->where, port);
		if (!sl_br_carries(&ms[member_of_port[port]], vid))
			return sl_errf(err, EINVAL, "%s: static entry on VLAN %u, which member port %u does not carry",
				       row->where, vid, port);
		for (unsigned q = 0; q < r; q++)
			if (row_key(&v->rows[q]) == key)
				return sl_errf(err, EINVAL, "%s: a second static entry for %02x:%02x:%02x:%02x:%02x:%02x on VLAN %u",
					       row->where, mac[0], mac[1], mac[2], mac[3], mac[4], mac[5], vid);
	}
	return 0;
}

static int bridge_check(const struct sl_param_value *params, unsigned n_in, unsigned n_out,
			struct sl_err *err)
{
	struct sl_br_member ms[SL_MAX_PORTS];
	int member_of_port[SL_MAX_PORTS];
	unsigned n;
	int rc = make_members(params, true, n_in, n_out, ms, &n, member_of_port, err);
	if (rc == 0)
		rc = check_statics(params, ms, member_of_port, err);
	if (rc == 0 && params[param_idx("member_limit")].u > params[param_idx("entries")].u)
		rc = sl_errf(err, EINVAL, "member_limit %llu is above entries %llu",
			     (unsigned long long)params[param_idx("member_limit")].u,
			     (unsigned long long)params[param_idx("entries")].u);
	if (rc == 0 && params[param_idx("static")].n_rows > params[param_idx("entries")].u)
		rc = sl_errf(err, EINVAL, "%u static entries do not fit in entries %llu",
			     params[param_idx("static")].n_rows,
			     (unsigned long long)params[param_idx("entries")].u);
	return rc;
}

static int bridge_init(struct sl_app *app, struct sl_err *err)
{
	struct bridge_priv *p = app->priv;
	int rc = make_members(app->params, true, app->n_in, app->n_out, p->members, &p->n_members,
			      p->member_of_port, err);
	if (rc < 0)
		return rc;
	uint64_t now = sl_epoch_now_ns(app->epoch);
	if (app->replicas != NULL && app->replica > 0) {
		const struct bridge_priv *p0 = sl_app_replica(app, 0)->priv;
		p->table = p0->table;
	} else {
		unsigned entries = (unsigned)sl_app_param_uint(app, "entries");
		unsigned limit = (unsigned)sl_app_param_uint(app, "member_limit");
		struct sl_mt_conf conf = {
			.name = app->base != NULL ? app->base : app->name,
			.capacity = entries,
			.member_limit = limit != 0 ? limit : RTE_MAX(entries / p->n_members, 1u),
			.aging_ns = sl_app_param_uint(app, "aging"),
			.socket = app->socket,
		};
		p->table = sl_mt_create(&conf, err);
		if (p->table == NULL)
			return -errno;
		p->owner = true;
		unsigned n_static;
		const struct sl_param_row *rows = sl_app_param_table(app, "static", &n_static);
		for (unsigned r = 0; r < n_static; r++) {
			rc = sl_mt_static_add(p->table, row_key(&rows[r]), (unsigned)rows[r].v[S_PORT].u,
					      err);
			if (rc < 0)
				return rc;
		}
	}
	sl_mt_sweep_init(p->table, &p->sweep, app->replica,
			 app->n_replicas > 0 ? app->n_replicas : 1, now);
	sl_app_ctr_set(app, B_AGING_BOUND_US,
		       (sl_mt_refresh_ns(p->table) + sl_mt_sweep_ns(p->table)) / 1000);
	return 0;
}

/* --- reload ------------------------------------------------------------ */

struct static_diff {
	uint64_t *del;           /* keys whose static entry goes */
	unsigned n_del;
	uint64_t *add;           /* keys made static (again) ... */
	uint16_t *add_port;      /* ... on these members */
	unsigned n_add;
};

struct bridge_state {
	struct sl_br_member members[SL_MAX_PORTS];
	unsigned n_members;
	int member_of_port[SL_MAX_PORTS];
	struct static_diff st;
};

/* The static rows of `now` against those of `was`: what goes, and what is
 * new or on another member. */
static int diff_statics(const struct sl_param_value *was, const struct sl_param_value *now,
			struct static_diff *d, struct sl_err *err)
{
	d->del = calloc(was->n_rows + 1, sizeof(*d->del));
	d->add = calloc(now->n_rows + 1, sizeof(*d->add));
	d->add_port = calloc(now->n_rows + 1, sizeof(*d->add_port));
	if (d->del == NULL || d->add == NULL || d->add_port == NULL)
		return sl_errf(err, ENOMEM, "out of memory for %u static entries", now->n_rows);
	for (unsigned i = 0; i < was->n_rows; i++) {
		uint64_t k = row_key(&was->rows[i]);
		bool kept = false;
		for (unsigned j = 0; j < now->n_rows && !kept; j++)
			kept = row_key(&now->rows[j]) == k;
		if (!kept)
			d->del[d->n_del++] = k;
	}
	for (unsigned j = 0; j < now->n_rows; j++) {
		uint64_t k = row_key(&now->rows[j]);
		unsigned port = (unsigned)now->rows[j].v[S_PORT].u;
		bool same = false;
		for (unsigned i = 0; i < was->n_rows && !same; i++)
			same = row_key(&was->rows[i]) == k && was->rows[i].v[S_PORT].u == port;
		if (!same) {
			d->add[d->n_add] = k;
			d->add_port[d->n_add++] = (uint16_t)port;
		}
	}
	return 0;
}

static void state_free(struct bridge_state *st)
{
	free(st->st.del);
	free(st->st.add);
	free(st->st.add_port);
	free(st);
}

/* Control thread: the new members (the new file was checked with its
 * links by the config loader; the links a reload adds are in place before
 * apply) and the static entries' changes. */
static int bridge_reconfig(struct sl_app *app, const struct sl_param_value *params, void **state,
			   struct sl_err *err)
{
	struct bridge_state *st = calloc(1, sizeof(*st));
	if (st == NULL)
		return sl_errf(err, ENOMEM, "out of memory");
	int rc = make_members(params, false, 0, 0, st->members, &st->n_members,
			      st->member_of_port, err);
	if (rc == 0)
		rc = diff_statics(&app->params[param_idx("static")], &params[param_idx("static")],
				  &st->st, err);
	if (rc < 0) {
		state_free(st);
		return rc;
	}
	*state = st;
	return 0;
}

/* The worker, between two breaths: the new members from here on. */
static void bridge_apply(struct sl_app *app, void *state)
{
	struct bridge_priv *p = app->priv;
	const struct bridge_state *st = state;
	memcpy(p->members, st->members, sizeof(p->members));
	memcpy(p->member_of_port, st->member_of_port, sizeof(p->member_of_port));
	p->n_members = st->n_members;
}

/* Control thread, after the apply: the static entries change in the table
 * (replica 0, which owns it), the replaced ones retired through the epoch.
 * Learned entries of members the reload left alone stay. */
static void bridge_release(struct sl_app *app, void *state, bool applied)
{
	struct bridge_priv *p = app->priv;
	struct bridge_state *st = state;
	if (applied && p->owner) {
		struct sl_err err = { "" };
		for (unsigned i = 0; i < st->st.n_del; i++)
			if (sl_mt_static_del(p->table, app->epoch, app->control_epoch_w,
					     st->st.del[i]) < 0 &&
			    sl_epoch_synchronize(app->epoch) == 0)
				sl_mt_static_del(p->table, app->epoch, app->control_epoch_w,
						 st->st.del[i]);
		for (unsigned i = 0; i < st->st.n_add; i++)
			if (sl_mt_static_set(p->table, app->epoch, app->control_epoch_w, st->st.add[i],
					     st->st.add_port[i], &err) < 0)
				sl_app_warn(app, "a reload's static entry was not added: %s", err.msg);
	}
	state_free(st);
}

static void bridge_fini(struct sl_app *app)
{
	struct bridge_priv *p = app->priv;
	if (p->owner)
		sl_mt_free(p->table);
	p->table = NULL;
}

/* --- the data path ----------------------------------------------------- */

/* Queue m for member mo (tagged as mo's mode says for VLAN vid). */
static inline void queue_out(struct sl_app *app, struct bridge_priv *p,
			     const struct sl_br_member *mo, unsigned vid, struct rte_mbuf *m)
{
	if (sl_br_egress(mo, vid, &m) != 0) {
		sl_app_drop(app, &m, 1);
		sl_app_ctr_add(app, B_DROP_NO_TAG, 1);
		return;
	}
	p->list[mo->port][p->n_list[mo->port]++] = m;
}

/* Flood m (VLAN vid, from member index in) to every other member of vid. */
static void flood(struct sl_app *app, struct bridge_priv *p, unsigned in, unsigned vid,
		  struct rte_mbuf *m)
{
	int last = -1;
	for (unsigned k = 0; k < p->n_members; k++)
		if (k != in && sl_br_carries(&p->members[k], vid))
			last = (int)k;
	sl_app_ctr_add(app, B_FLOODED, 1);
	if (last < 0) {   /* nobody else on the VLAN */
		sl_app_drop(app, &m, 1);
		return;
	}
	unsigned copies = 0;
	for (unsigned k = 0; k < (unsigned)last; k++) {
		if (k == in || !sl_br_carries(&p->members[k], vid))
			continue;
		struct rte_mbuf *c = rte_pktmbuf_copy(m, app->pool, 0, UINT32_MAX);
		if (c == NULL) {
			sl_app_ctr_add(app, B_DROP_NO_COPY, 1);
			sl_counter_add(&app->stats.drops, 1);
			continue;
		}
		c->vlan_tci = m->vlan_tci;
		queue_out(app, p, &p->members[k], vid, c);
		copies++;
	}
	queue_out(app, p, &p->members[last], vid, m);
	sl_app_ctr_add(app, B_FLOOD_COPIES, copies + 1);
}

static const unsigned learn_ctr[] = {
	[SL_MT_KNOWN] = B_N_COUNTERS, [SL_MT_LEARNED] = B_LEARNED, [SL_MT_MOVED] = B_MOVED,
	[SL_MT_STATIC] = B_STATIC_KEPT, [SL_MT_LIMITED] = B_LEARN_LIMITED,
	[SL_MT_FULL] = B_LEARN_FULL, [SL_MT_NO_ROOM] = B_LEARN_DEFERRED,
};

#define TO_FLOOD 0xfe   /* which[]: flood the frame */
#define TO_DROP 0xff    /* which[]: its destination is on its own member */

/* One burst from member index in, in passes: the first finds each frame's
 * VLAN and keys and asks for both keys' buckets (the misses of a burst
 * overlap), the second learns the sources, the third looks up the
 * destinations into which[], and the last sends: the whole burst in one
 * transmit when every frame goes, untagged, to one member (the common
 * case), else frame by frame into the outputs' lists.  Few values live in
 * each loop, and no count in memory is bumped every frame. */
static void bridge_burst(struct sl_app *app, struct bridge_priv *p, unsigned in,
			 struct rte_mbuf **pkts, unsigned n, uint64_t now)
{
	const struct sl_br_member *mi = &p->members[in];
	uint64_t why_n[B_N_COUNTERS + 1] = { 0 };
	uint64_t skey[SL_BURST_MAX], dkey[SL_BURST_MAX];
	uint32_t shash[SL_BURST_MAX], dhash[SL_BURST_MAX];
	uint8_t which[SL_BURST_MAX];
	unsigned k = 0;
	for (unsigned i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		enum sl_br_drop why;
		unsigned vid = sl_br_ingress(mi, m, &why);
		if (vid == 0) {
			sl_app_drop(app, &m, 1);
			why_n[why == SL_BR_RUNT ? B_DROP_RUNT : B_DROP_VLAN]++;
			continue;
		}
		/* at least 14 bytes: both 8-byte loads stay in the frame */
		const uint8_t *eh = rte_pktmbuf_mtod(m, const uint8_t *);
		dkey[k] = sl_mt_key_at((uint16_t)vid, eh);
		skey[k] = sl_mt_key_at((uint16_t)vid, eh + RTE_ETHER_ADDR_LEN);
		dhash[k] = sl_mt_hash(dkey[k]);
		shash[k] = sl_mt_hash(skey[k]);
		sl_mt_prefetch(p->table, shash[k]);
		sl_mt_prefetch(p->table, dhash[k]);
		pkts[k++] = m;
	}
	/* (a source or destination the same as the frame before's is not
	 * looked up again: a burst of one conversation costs one lookup each) */
	for (unsigned i = 0; i < k; i++) {
		if (unlikely(!sl_mt_key_unicast(skey[i]))) {
			why_n[B_NOT_LEARNED]++;
			continue;
		}
		if (i > 0 && skey[i] == skey[i - 1])
			continue;
		enum sl_mt_learn lr = sl_mt_learn(p->table, app->epoch, app->epoch_w, skey[i],
						  shash[i], mi->port, now);
		if (unlikely(lr != SL_MT_KNOWN))
			why_n[learn_ctr[lr]]++;
	}
	unsigned diff = 0;
	for (unsigned i = 0; i < k; i++) {
		if (i > 0 && dkey[i] == dkey[i - 1]) {
			which[i] = which[i - 1];
			diff |= (unsigned)which[i] ^ which[0];
			continue;
		}
		const struct sl_mt_entry *en = (dkey[i] >> 40) & 1 ? NULL :
			sl_mt_lookup(p->table, dkey[i], dhash[i]);
		unsigned w = TO_FLOOD;
		if (en != NULL) {
			int o = p->member_of_port[en->member];
			if (en->member == mi->port)
				w = TO_DROP;
			else if (o >= 0 && sl_br_carries(&p->members[o], sl_mt_key_vlan(dkey[i])))
				w = en->member;   /* else a stale entry: flood */
		}
		which[i] = (uint8_t)w;
		diff |= w ^ which[0];
	}
	if (k > 0 && diff == 0 && which[0] < SL_MAX_PORTS &&
	    p->members[p->member_of_port[which[0]]].mode == SL_BR_ACCESS &&
	    app->out[which[0]] != NULL) {
		sl_link_transmit(app->out[which[0]], pkts, k);
		why_n[B_FORWARDED] += k;
	} else {
		for (unsigned i = 0; i < k; i++) {
			struct rte_mbuf *m = pkts[i];
			unsigned vid = sl_mt_key_vlan(dkey[i]);
			if (which[i] == TO_FLOOD) {
				flood(app, p, in, vid, m);
			} else if (which[i] == TO_DROP) {
				sl_app_drop(app, &m, 1);
				why_n[B_FILTERED]++;
			} else {
				queue_out(app, p, &p->members[p->member_of_port[which[i]]], vid, m);
				why_n[B_FORWARDED]++;
			}
		}
	}
	for (unsigned c = 0; c < B_N_COUNTERS; c++)
		if (why_n[c] != 0)
			sl_app_ctr_add(app, c, why_n[c]);
}

static void bridge_push(struct sl_app *app)
{
	struct bridge_priv *p = app->priv;
	struct rte_mbuf *pkts[SL_BURST_MAX];
	const uint64_t now = sl_app_breath_ns(app);
	for (unsigned k = 0; k < p->n_members; k++) {
		struct sl_link *in = app->in[p->members[k].port];
		if (in == NULL)
			continue;
		for (unsigned r = 0; r < BRIDGE_ROUNDS; r++) {
			unsigned n = sl_link_receive(in, pkts, app->burst);
			if (n == 0)
				break;
			bridge_burst(app, p, k, pkts, n, now);
			/* sent per burst: a flood's copies may fill the lists */
			for (unsigned o = 0; o < p->n_members; o++) {
				unsigned port = p->members[o].port;
				if (p->n_list[port] == 0)
					continue;
				if (app->out[port] != NULL)
					sl_link_transmit(app->out[port], p->list[port], p->n_list[port]);
				else   /* a member whose link a reload removed, not yet its list */
					sl_app_drop(app, p->list[port], p->n_list[port]);
				p->n_list[port] = 0;
			}
			if (n < app->burst)
				break;
		}
	}
}

static void bridge_tick(struct sl_app *app)
{
	struct bridge_priv *p = app->priv;
	uint64_t now = sl_app_breath_ns(app);
	uint64_t late = 0;
	uint64_t gap = p->sweep.gap_max_ns;
	unsigned aged = sl_mt_age(p->table, &p->sweep, app->epoch, app->epoch_w, now, AGE_BUDGET,
				  &late);
	if (p->sweep.gap_max_ns > gap)
		sl_app_ctr_set(app, B_TICK_GAP_US, p->sweep.gap_max_ns / 1000);
	if (aged > 0) {
		sl_app_ctr_add(app, B_AGED, aged);
		if (late > p->late_max_ns) {
			p->late_max_ns = late;
			sl_app_ctr_set(app, B_AGED_LATE_US, late / 1000);
		}
	}
}

/* The table's gauges (any thread). */
static void bridge_sample(struct sl_app *app)
{
	const struct bridge_priv *p = app->priv;
	struct sl_mt_stats s;
	if (p->table == NULL)
		return;
	sl_mt_stats(p->table, &s);
	sl_app_ctr_set(app, B_ENTRIES, s.entries);
	sl_app_ctr_set(app, B_ENTRIES_STATIC, s.statics);
}

static const struct sl_table_spec bridge_table = {
	.name = "macs",
	.doc = "The bridge's MAC table: address, learned or static, VLAN, member port, ms since the address was last seen as a source (0 for static entries).",
	.s_cols = { "mac", "type" },
	.u_cols = { "vlan", "port", "age_ms" },
};

/* Rows offset.. of the table, in entry order (replica 0 lists the shared
 * table; other replicas list nothing, so a table is listed once). */
static int bridge_table_read(struct sl_app *app, bool live, unsigned offset,
			     struct sl_table_row *rows, unsigned max, unsigned *filled,
			     struct sl_err *err)
{
	const struct bridge_priv *p = app->priv;
	(void)live;
	(void)err;
	*filled = 0;
	if (p->table == NULL || !p->owner)
		return 0;
	uint64_t now = sl_epoch_now_ns(app->epoch);
	unsigned total = 0, cap = sl_mt_capacity(p->table);
	for (uint32_t id = 1; id <= cap; id++) {
		struct sl_mt_entry e;
		if (!sl_mt_entry_read(p->table, id, &e))
			continue;
		if (total++ < offset || *filled >= max)
			continue;
		struct sl_table_row *row = &rows[(*filled)++];
		memset(row, 0, sizeof(*row));
		uint8_t mac[6];
		sl_mt_key_mac(e.key, mac);
		snprintf(row->s[0], SL_TABLE_STR, "%02x:%02x:%02x:%02x:%02x:%02x", mac[0], mac[1],
			 mac[2], mac[3], mac[4], mac[5]);
		snprintf(row->s[1], SL_TABLE_STR, "%s", e.is_static ? "static" : "learned");
		row->u[0] = sl_mt_key_vlan(e.key);
		row->u[1] = e.member;
		row->u[2] = e.is_static || now < e.last_ns ? 0 : (now - e.last_ns) / 1000000;
	}
	return (int)total;
}

static const struct sl_port_spec bridge_inputs[] = {
	{ .name = "input#", .required = true,
	  .doc = "input0 (or input), input1, ...: frames from the member with that port number" },
};

static const struct sl_port_spec bridge_outputs[] = {
	{ .name = "output#", .required = true,
	  .doc = "output0, output1, ...: frames to the member with that port number" },
};

static const struct sl_app_type bridge_app = {
	.name = "bridge",
	.doc = "Learning Ethernet bridge with access and trunk VLAN members, aging and static entries",
	.params = bridge_params,
	.n_params = SL_ARRAY_LEN(bridge_params),
	.inputs = bridge_inputs,
	.n_inputs = SL_ARRAY_LEN(bridge_inputs),
	.outputs = bridge_outputs,
	.n_outputs = SL_ARRAY_LEN(bridge_outputs),
	.priv_size = sizeof(struct bridge_priv),
	.counters = bridge_counters,
	.n_counters = B_N_COUNTERS,
	.check = bridge_check,
	.init = bridge_init,
	.push = bridge_push,
	.tick = bridge_tick,
	.collect = bridge_sample,
	.sample = bridge_sample,
	.reconfig = bridge_reconfig,
	.apply = bridge_apply,
	.release = bridge_release,
	.fini = bridge_fini,
	.table = &bridge_table,
	.table_read = bridge_table_read,
};

SL_APP_REGISTER(bridge_app)
