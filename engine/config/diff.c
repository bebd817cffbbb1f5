/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/diff.h"
#include "config/lookup.h"

const char *sl_diff_kind_name(enum sl_diff_kind k)
{
	switch (k) {
	case SL_DIFF_REMOVE_LINK: return "remove link";
	case SL_DIFF_STOP_APP: return "stop app";
	case SL_DIFF_REMOVE_WORKER: return "remove worker";
	case SL_DIFF_ADD_WORKER: return "add worker";
	case SL_DIFF_MOVE_APP: return "move app";
	case SL_DIFF_RESTART_APP: return "restart app";
	case SL_DIFF_START_APP: return "start app";
	case SL_DIFF_RECONFIG_APP: return "reconfigure app";
	case SL_DIFF_ADD_LINK: return "add link";
	case SL_DIFF_KINDS: break;
	}
	return "unknown";
}

void sl_diff_format(const struct sl_diff_action *a, char *buf, size_t len)
{
	snprintf(buf, len, "%s '%s'%s%s", sl_diff_kind_name(a->kind), a->name,
		 a->detail[0] != '\0' ? ": " : "", a->detail);
}

void sl_diff_free(struct sl_diff *d)
{
	free(d->actions);
	d->actions = NULL;
	d->n = 0;
}

/* ------------------------------------------------------------ values */

bool sl_param_value_equal(const struct sl_param_spec *spec, const struct sl_param_value *a,
			  const struct sl_param_value *b)
{
	switch (spec->type) {
	case SL_PARAM_UINT:
	case SL_PARAM_BOOL:
	case SL_PARAM_ENUM:
	case SL_PARAM_DURATION:
		return a->u == b->u;
	case SL_PARAM_STRING:
		return (a->s == NULL) == (b->s == NULL) && (a->s == NULL || strcmp(a->s, b->s) == 0);
	case SL_PARAM_MAC:
		return memcmp(a->mac, b->mac, sizeof(a->mac)) == 0;
	case SL_PARAM_TABLE:
		if (a->n_rows != b->n_rows)
			return false;
		for (unsigned r = 0; r < a->n_rows; r++)
			for (unsigned f = 0; f < spec->n_fields; f++)
				if (!sl_param_value_equal(&spec->fields[f], &a->rows[r].v[f],
							  &b->rows[r].v[f]))
					return false;
		return true;
	}
	return false;
}

/* v as the config would write it, for a detail. */
static void value_text(const struct sl_param_spec *spec, const struct sl_param_value *v,
		       char *buf, size_t len)
{
	switch (spec->type) {
	case SL_PARAM_UINT:
		snprintf(buf, len, "%" PRIu64, v->u);
		return;
	case SL_PARAM_BOOL:
		snprintf(buf, len, "%s", v->u ? "true" : "false");
		return;
	case SL_PARAM_ENUM:
	case SL_PARAM_STRING:
		snprintf(buf, len, "%s", v->s != NULL ? v->s : "");
		return;
	case SL_PARAM_MAC:
		snprintf(buf, len, "%02x:%02x:%02x:%02x:%02x:%02x", v->mac[0], v->mac[1],
			 v->mac[2], v->mac[3], v->mac[4], v->mac[5]);
		return;
	case SL_PARAM_DURATION: {
		static const struct { uint64_t ns; const char *unit; } units[] = {
			{ 1000000000, "s" }, { 1000000, "ms" }, { 1000, "us" }, { 1, "ns" },
		};
		for (unsigned i = 0; i < 4; i++)
			if (v->u % units[i].ns == 0 || units[i].ns == 1) {
				snprintf(buf, len, "%" PRIu64 "%s", v->u / units[i].ns,
					 units[i].unit);
				return;
			}
		return;
	}
	case SL_PARAM_TABLE:
		snprintf(buf, len, "%u row%s", v->n_rows, v->n_rows == 1 ? "" : "s");
		return;
	}
	snprintf(buf, len, "?");
}

/* "name a -> b" appended to detail, "; "-separated. */
static void note_change(char *detail, size_t len, const struct sl_param_spec *spec,
			const struct sl_param_value *a, const struct sl_param_value *b)
{
	char va[64], vb[64];
	size_t used = strlen(detail);
	if (used + 1 >= len)
		return;
	value_text(spec, a, va, sizeof(va));
	value_text(spec, b, vb, sizeof(vb));
	if (spec->type == SL_PARAM_TABLE && a->n_rows == b->n_rows)
		snprintf(detail + used, len - used, "%s%s changed (%s)", used ? "; " : "",
			 spec->name, vb);
	else
		snprintf(detail + used, len - used, "%s%s %s -> %s", used ? "; " : "", spec->name,
			 va, vb);
}

/* ------------------------------------------------------------ settings */

static int frozen(struct sl_err *err, const char *key, const char *from, const char *to)
{
	return sl_errf(err, EPERM, "%s cannot change while running (%s -> %s); restart Sluice",
		       key, from, to);
}

/* Setting `key` ("engine.epoch") of value v as a config file writes it: an
 * enum's choice ("qsbr"), a bool's true or false, else the number. */
static void setting_text(const char *key, uint64_t v, char *buf, size_t len)
{
	unsigned n;
	const struct sl_config_section *sec = sl_config_sections(&n);
	const char *dot = strchr(key, '.');
	snprintf(buf, len, "%" PRIu64, v);
	for (unsigned i = 0; dot != NULL && i < n; i++) {
		if (strlen(sec[i].name) != (size_t)(dot - key) ||
		    strncmp(sec[i].name, key, (size_t)(dot - key)) != 0)
			continue;
		for (unsigned k = 0; k < sec[i].n_keys; k++) {
			const struct sl_param_spec *ks = &sec[i].keys[k];
			if (strcmp(ks->name, dot + 1) != 0)
				continue;
			if (ks->type == SL_PARAM_BOOL) {
				snprintf(buf, len, "%s", v ? "true" : "false");
			} else if (ks->type == SL_PARAM_ENUM) {
				const char *c = ks->choices;
				for (uint64_t j = 0; j < v && c != NULL; j++)
					c = strchr(c, '|') ? strchr(c, '|') + 1 : NULL;
				if (c != NULL)
					snprintf(buf, len, "%.*s", (int)strcspn(c, "|"), c);
			}
		}
	}
}

static int frozen_u(struct sl_err *err, const char *key, uint64_t a, uint64_t b)
{
	char sa[64], sb[64];
	setting_text(key, a, sa, sizeof(sa));
	setting_text(key, b, sb, sizeof(sb));
	return frozen(err, key, sa, sb);
}

static bool str_eq(const char *a, const char *b)
{
	return (a == NULL) == (b == NULL) && (a == NULL || strcmp(a, b) == 0);
}

static int settings(const struct sl_config *o, const struct sl_config *n, struct sl_err *err)
{
	bool args_eq = o->n_eal_args == n->n_eal_args;
	for (unsigned i = 0; args_eq && i < o->n_eal_args; i++)
		args_eq = strcmp(o->eal_args[i], n->eal_args[i]) == 0;
	if (!args_eq)
		return sl_errf(err, EPERM, "dpdk.args cannot change while running; restart Sluice");
	static const struct {
		const char *key;
		size_t off;
		size_t size;
	} fields[] = {
#define F(key, s, f) { key, offsetof(struct s, f), sizeof(((struct s *)0)->f) }
		F("pool.mbufs", sl_config, pool.mbufs),
		F("pool.cache", sl_config, pool.cache),
		F("pool.data_room", sl_config, pool.data_room),
		F("pool.ops", sl_config, pool.ops),
		F("pool.chunk", sl_config, pool.chunk),
		F("pool.high", sl_config, pool.high),
		F("pool.l3_tier", sl_config, pool.l3_tier),
		F("pool.l3_chunks", sl_config, pool.l3_chunks),
		F("pool.order", sl_config, pool.shuffle),
		F("engine.burst", sl_config, burst),
		F("engine.link_size", sl_config, link_size),
		F("engine.link_impl", sl_config, link_impl),
		F("engine.epoch", sl_config, epoch_policy),
		F("engine.reclaim_cap", sl_config, reclaim_cap),
		F("engine.epoch_ring", sl_config, epoch_ring),
		F("engine.stop_timeout", sl_config, stop_timeout_ns),
		F("engine.accounting", sl_config, accounting),
		F("engine.idle_sleep", sl_config, idle_sleep_ns),
		F("engine.direct_links", sl_config, direct_links),
#undef F
	};
	for (unsigned i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		uint64_t a = 0, b = 0;
		memcpy(&a, (const char *)o + fields[i].off, fields[i].size);
		memcpy(&b, (const char *)n + fields[i].off, fields[i].size);
		if (a != b)
			return frozen_u(err, fields[i].key, a, b);
	}
	if (!str_eq(o->c2c_path, n->c2c_path))
		return frozen(err, "topology.c2c", o->c2c_path ? o->c2c_path : "none",
			      n->c2c_path ? n->c2c_path : "none");
	return 0;
}

/* ------------------------------------------------------------ matching */

static int find_worker(const struct sl_config *c, const char *name)
{
	for (unsigned i = 0; i < c->n_workers; i++)
		if (strcmp(c->workers[i].name, name) == 0)
			return (int)i;
	return -1;
}

struct list {
	struct sl_diff_action *a;
	unsigned n, cap;
	bool oom;
};

static struct sl_diff_action *add(struct list *l, enum sl_diff_kind k, int old_index,
				  int new_index, const char *name)
{
	if (l->n == l->cap) {
		unsigned cap = l->cap ? 2 * l->cap : 16;
		struct sl_diff_action *a = realloc(l->a, cap * sizeof(*a));
		if (a == NULL) {
			l->oom = true;
			return NULL;
		}
		l->a = a;
		l->cap = cap;
	}
	struct sl_diff_action *a = &l->a[l->n++];
	memset(a, 0, sizeof(*a));
	a->kind = k;
	a->old_index = old_index;
	a->new_index = new_index;
	snprintf(a->name, sizeof(a->name), "%s", name);
	return a;
}

static int by_kind_then_name(const void *pa, const void *pb)
{
	const struct sl_diff_action *a = pa, *b = pb;
	if (a->kind != b->kind)
		return (int)a->kind - (int)b->kind;
	return strcmp(a->name, b->name);
}

/* What happens to app oi of o, which is app ni of n: nothing, reconfigure
 * or restart, and whether it moves.  Adds the actions. */
static void diff_app(struct list *l, const struct sl_config *o, unsigned oi,
		     const struct sl_config *n, unsigned ni, bool *restarted, bool *moved)
{
	const struct sl_app_cfg *a = &o->apps[oi], *b = &n->apps[ni];
	const char *wa = o->workers[a->worker].name, *wb = n->workers[b->worker].name;
	*restarted = false;
	*moved = strcmp(wa, wb) != 0;
	if (*moved) {
		struct sl_diff_action *x = add(l, SL_DIFF_MOVE_APP, (int)oi, (int)ni, b->name);
		if (x != NULL)
			snprintf(x->detail, sizeof(x->detail),
				 "worker %s -> %s (its queued packets carried over)", wa, wb);
	}
	if (a->type != b->type) {
		struct sl_diff_action *x = add(l, SL_DIFF_RESTART_APP, (int)oi, (int)ni, b->name);
		if (x != NULL)
			snprintf(x->detail, sizeof(x->detail), "type %s -> %s", a->type->name,
				 b->type->name);
		*restarted = true;
		return;
	}
	char live[256] = "", fixed[256] = "";
	const struct sl_app_type *t = a->type;
	for (unsigned p = 0; p < t->n_params; p++) {
		if (sl_param_value_equal(&t->params[p], &a->params[p], &b->params[p]))
			continue;
		bool can = t->params[p].live && t->reconfig != NULL;
		note_change(can ? live : fixed, sizeof(live), &t->params[p], &a->params[p],
			    &b->params[p]);
	}
	if (fixed[0] != '\0') {
		struct sl_diff_action *x = add(l, SL_DIFF_RESTART_APP, (int)oi, (int)ni, b->name);
		if (x != NULL)
			snprintf(x->detail, sizeof(x->detail), "%s (%s cannot change it live)%s%s",
				 fixed, t->name, live[0] ? "; " : "", live);
		*restarted = true;
	} else if (live[0] != '\0') {
		struct sl_diff_action *x = add(l, SL_DIFF_RECONFIG_APP, (int)oi, (int)ni, b->name);
		if (x != NULL)
			snprintf(x->detail, sizeof(x->detail), "%s", live);
	}
}

/* A worker's core cannot change while running: -EPERM naming the first
 * worker (in old's order) whose core did. */
static int frozen_cores(const struct sl_config *o, const struct sl_config *n,
			struct sl_err *err)
{
	for (unsigned i = 0; i < o->n_workers; i++) {
		int j = find_worker(n, o->workers[i].name);
		if (j >= 0 && n->workers[j].core != o->workers[i].core) {
			char key[160], a[16], b[16];
			snprintf(key, sizeof(key), "worker '%s': core", o->workers[i].name);
			snprintf(a, sizeof(a), o->workers[i].core < 0 ? "auto" : "%d",
				 o->workers[i].core);
			snprintf(b, sizeof(b), n->workers[j].core < 0 ? "auto" : "%d",
				 n->workers[j].core);
			return frozen(err, key, a, b);
		}
	}
	return 0;
}

/* Workers only in o (remove) or only in n (add). */
static void diff_workers(struct list *l, const struct sl_config *o, const struct sl_config *n)
{
	for (unsigned i = 0; i < o->n_workers; i++)
		if (find_worker(n, o->workers[i].name) < 0)
			add(l, SL_DIFF_REMOVE_WORKER, (int)i, -1, o->workers[i].name);
	for (unsigned j = 0; j < n->n_workers; j++)
		if (find_worker(o, n->workers[j].name) < 0) {
			struct sl_diff_action *x = add(l, SL_DIFF_ADD_WORKER, -1, (int)j,
						       n->workers[j].name);
			if (x != NULL)
				snprintf(x->detail, sizeof(x->detail),
					 n->workers[j].core < 0 ? "core auto" : "core %d",
					 n->workers[j].core);
		}
}

/* Apps only in o (stop), only in n (start), or in both (diff_app, which
 * sets redone[j] and moved[j] for new app j). */
static void diff_apps(struct list *l, const struct sl_config *o, const struct sl_config *n,
		      bool *redone, bool *moved)
{
	for (unsigned i = 0; i < o->n_apps; i++)
		if (sl_config_find_app(n, o->apps[i].name) < 0) {
			struct sl_diff_action *x = add(l, SL_DIFF_STOP_APP, (int)i, -1,
						       o->apps[i].name);
			if (x != NULL)
				snprintf(x->detail, sizeof(x->detail), "%s", o->apps[i].type->name);
		}
	for (unsigned j = 0; j < n->n_apps; j++) {
		int i = sl_config_find_app(o, n->apps[j].name);
		if (i < 0) {
			struct sl_diff_action *x = add(l, SL_DIFF_START_APP, -1, (int)j,
						       n->apps[j].name);
			if (x != NULL)
				snprintf(x->detail, sizeof(x->detail), "%s on worker %s",
					 n->apps[j].type->name,
					 n->workers[n->apps[j].worker].name);
			continue;
		}
		diff_app(l, o, (unsigned)i, n, j, &redone[j], &moved[j]);
	}
}

/* Links only in o (remove), only in n (add), or in both but to be rebuilt
 * (remove and add): another size, ends no longer on the same worker or no
 * longer on different ones, or a cross-worker link with a moved end. */
static void diff_links(struct list *l, const struct sl_config *o, const struct sl_config *n,
		       const bool *moved)
{
	char name[128];
	for (unsigned i = 0; i < o->n_links; i++) {
		const struct sl_link_cfg *lo = &o->links[i];
		sl_config_link_name(o, i, name, sizeof(name));
		int j = sl_config_find_link(n, name);
		bool keep = j >= 0;
		if (keep) {
			const struct sl_link_cfg *ln = &n->links[j];
			uint32_t so = lo->size ? lo->size : o->link_size;
			uint32_t sn = ln->size ? ln->size : n->link_size;
			bool local_o = o->apps[lo->from.app].worker == o->apps[lo->to.app].worker;
			bool local_n = n->apps[ln->from.app].worker == n->apps[ln->to.app].worker;
			bool ends_moved = moved[ln->from.app] || moved[ln->to.app];
			keep = so == sn && local_o == local_n && !(ends_moved && !local_n);
		}
		if (!keep) {
			add(l, SL_DIFF_REMOVE_LINK, (int)i, -1, name);
			if (j >= 0) {
				struct sl_diff_action *x = add(l, SL_DIFF_ADD_LINK, -1, j, name);
				if (x != NULL)
					snprintf(x->detail, sizeof(x->detail), "rebuilt");
			}
		}
	}
	for (unsigned j = 0; j < n->n_links; j++) {
		sl_config_link_name(n, j, name, sizeof(name));
		if (sl_config_find_link(o, name) < 0)
			add(l, SL_DIFF_ADD_LINK, -1, (int)j, name);
	}
}

int sl_config_diff(const struct sl_config *o, const struct sl_config *n, struct sl_diff *out,
		   struct sl_err *err)
{
	out->actions = NULL;
	out->n = 0;
	int rc = settings(o, n, err);
	if (rc == 0)
		rc = frozen_cores(o, n, err);
	if (rc < 0)
		return rc;

	struct list l = { 0 };
	bool *moved = calloc(n->n_apps + 1, sizeof(bool));
	bool *redone = calloc(n->n_apps + 1, sizeof(bool));
	if (moved == NULL || redone == NULL) {
		free(moved);
		free(redone);
		return sl_errf(err, ENOMEM, "out of memory");
	}
	diff_workers(&l, o, n);
	diff_apps(&l, o, n, redone, moved);
	diff_links(&l, o, n, moved);
	free(moved);
	free(redone);
	if (l.oom) {
		free(l.a);
		return sl_errf(err, ENOMEM, "out of memory");
	}
	if (l.n > 1)
		qsort(l.a, l.n, sizeof(*l.a), by_kind_then_name);
	out->actions = l.a;
	out->n = l.n;
	return 0;
}
