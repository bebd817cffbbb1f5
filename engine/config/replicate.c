/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Replication of the apps on worker groups (config.h, sl_config_replicate):
 * the last step of loading a configuration, on a config that has passed
 * every other check.  It rewrites cfg->apps and cfg->links; the workers were
 * loaded as members already.
 *
 * Apps keep their order: an app on a group of n becomes n consecutive
 * replicas; the joins and splits inserted come after every app of the file,
 * in the order of the links that asked for them.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"

struct rep {
	const struct sl_config *cfg;
	struct sl_err *err;
	struct sl_app_cfg *apps;      /* the new apps */
	unsigned n_apps, cap_apps;
	struct sl_link_cfg *links;    /* the new links */
	unsigned n_links, cap_links;
	unsigned *first;              /* old app index -> its first new index */
};

static int fail(const struct rep *r, struct sl_mark m, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(const struct rep *r, struct sl_mark m, const char *fmt, ...)
{
	char msg[400];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return sl_errf(r->err, EINVAL, "%s:%u:%u: %s", r->cfg->path, m.line, m.col, msg);
}

static int nomem(const struct rep *r)
{
	return sl_errf(r->err, ENOMEM, "%s: out of memory", r->cfg->path);
}

/* The group an app runs on, or NULL; *n its size. */
static const struct sl_worker_cfg *group_of(const struct sl_config *cfg, unsigned app)
{
	const struct sl_worker_cfg *w = &cfg->workers[cfg->apps[app].worker];
	return w->group != NULL ? w : NULL;
}

static unsigned replicas_of(const struct sl_config *cfg, unsigned app)
{
	const struct sl_worker_cfg *w = group_of(cfg, app);
	return w != NULL ? w->n_members : 0;
}

static bool same_group(const struct sl_config *cfg, unsigned a, unsigned b)
{
	const struct sl_worker_cfg *x = group_of(cfg, a), *y = group_of(cfg, b);
	return x != NULL && y != NULL && strcmp(x->group, y->group) == 0;
}

static int find_app(const struct sl_config *cfg, const char *name)
{
	for (unsigned i = 0; i < cfg->n_apps; i++)
		if (strcmp(cfg->apps[i].name, name) == 0)
			return (int)i;
	return -1;
}

static struct sl_app_cfg *new_app(struct rep *r)
{
	if (r->n_apps == r->cap_apps) {
		unsigned cap = r->cap_apps * 2 + 8;
		struct sl_app_cfg *a = realloc(r->apps, cap * sizeof(*a));
		if (a == NULL)
			return NULL;
		r->apps = a;
		r->cap_apps = cap;
	}
	struct sl_app_cfg *a = &r->apps[r->n_apps++];
	memset(a, 0, sizeof(*a));
	return a;
}

/* Add the link from.app/from.port -> to.app/to.port (ports copied). */
static int new_link(struct rep *r, const struct sl_link_cfg *like, struct sl_endpoint from,
		    struct sl_endpoint to)
{
	if (r->n_links == r->cap_links) {
		unsigned cap = r->cap_links * 2 + 8;
		struct sl_link_cfg *l = realloc(r->links, cap * sizeof(*l));
		if (l == NULL)
			return nomem(r);
		r->links = l;
		r->cap_links = cap;
	}
	struct sl_link_cfg *l = &r->links[r->n_links];
	*l = (struct sl_link_cfg){ .from = from, .to = to, .size = like->size, .mark = like->mark };
	l->from.port = strdup(from.port);
	l->to.port = strdup(to.port);
	r->n_links++;
	if (l->from.port == NULL || l->to.port == NULL)
		return nomem(r);
	return 0;
}

/* Replica k of old app i: its name, member, a copy of its parameters with
 * references into its group turned into the same member's replicas. */
static int add_replica(struct rep *r, unsigned i, unsigned k, unsigned n)
{
	const struct sl_config *cfg = r->cfg;
	const struct sl_app_cfg *a = &cfg->apps[i];
	const struct sl_app_type *t = a->type;
	struct sl_app_cfg *x = new_app(r);
	if (x == NULL)
		return nomem(r);
	x->type = t;
	x->worker = a->worker + k;
	x->mark = a->mark;
	x->replica = k;
	x->n_replicas = n;
	size_t len = strlen(a->name) + 16;
	x->name = malloc(len);
	x->base = strdup(a->name);
	x->params = calloc(t->n_params > 0 ? t->n_params : 1, sizeof(*x->params));
	if (x->name == NULL || x->base == NULL || x->params == NULL)
		return nomem(r);
	snprintf(x->name, len, "%s@%u", a->name, k);
	for (unsigned p = 0; p < t->n_params; p++) {
		if (sl_param_value_copy(&x->params[p], &a->params[p]) < 0)
			return nomem(r);
		const char *ref = x->params[p].s;
		if (t->params[p].app_type == NULL || ref == NULL || strcmp(ref, "none") == 0)
			continue;
		int target = find_app(cfg, ref);
		if (target < 0 || replicas_of(cfg, (unsigned)target) == 0)
			continue;      /* a single app: every replica names it */
		char *name = malloc(strlen(ref) + 16);
		if (name == NULL)
			return nomem(r);
		sprintf(name, "%s@%u", ref, k);
		free(x->params[p].s);
		x->params[p].s = name;
	}
	return 0;
}

/* A parameter naming an app that runs on a group must come from an app on
 * the same group (its replica k then names replica k). */
static int check_refs_into_groups(const struct rep *r)
{
	const struct sl_config *cfg = r->cfg;
	for (unsigned i = 0; i < cfg->n_apps; i++) {
		const struct sl_app_cfg *a = &cfg->apps[i];
		for (unsigned p = 0; p < a->type->n_params; p++) {
			const char *ref = a->params[p].s;
			if (a->type->params[p].app_type == NULL || ref == NULL)
				continue;
			int target = find_app(cfg, ref);
			if (target < 0 || replicas_of(cfg, (unsigned)target) == 0 ||
			    same_group(cfg, i, (unsigned)target))
				continue;
			return fail(r, a->mark,
				    "app '%s': parameter '%s' names app '%s', which runs once per "
				    "member of group '%s'; only an app on that group can refer to it",
				    a->name, a->type->params[p].name, ref,
				    group_of(cfg, (unsigned)target)->group);
		}
	}
	return 0;
}

/* A join (into the single app `to` of link l) or a split (out of the single
 * app `from`), on that app's worker, for n replicas; its new index. */
static int add_fan(struct rep *r, const struct sl_link_cfg *l, bool join, unsigned n,
		   unsigned *index)
{
	const struct sl_config *cfg = r->cfg;
	const struct sl_endpoint *single = join ? &l->to : &l->from;
	const struct sl_app_cfg *s = &cfg->apps[single->app];
	const struct sl_app_type *t = sl_app_type_find(join ? "join" : "split");
	if (t == NULL)
		return sl_errf(r->err, EINVAL, "internal error: app type '%s' is not registered",
			       join ? "join" : "split");
	if (n > SL_MAX_PORTS)
		return fail(r, l->mark,
			    "link '%s.%s -> %s.%s': app '%s' runs on one worker and the other end "
			    "on a group of %u; a group linked to a single worker has at most %u members",
			    cfg->apps[l->from.app].name, l->from.port, cfg->apps[l->to.app].name,
			    l->to.port, s->name, n, SL_MAX_PORTS);
	struct sl_app_cfg *x = new_app(r);
	if (x == NULL)
		return nomem(r);
	*index = r->n_apps - 1;
	x->type = t;
	x->worker = s->worker;
	x->mark = l->mark;
	x->implicit = true;
	size_t len = strlen(s->name) + strlen(single->port) + 2;
	x->name = malloc(len);
	x->params = calloc(t->n_params > 0 ? t->n_params : 1, sizeof(*x->params));
	if (x->name == NULL || x->params == NULL)
		return nomem(r);
	snprintf(x->name, len, "%s@%s", s->name, single->port);
	unsigned missing;
	int rc = sl_param_defaults(t->params, t->n_params, x->params, &missing, r->err);
	if (rc < 0)
		return sl_errf(r->err, EINVAL, "internal error: app type '%s' has no usable defaults",
			       t->name);
	/* A split spreads by flow: a flow stays on one replica (its flow
	 * cache's), which is split's default mode. */
	return 0;
}

static int expand_link(struct rep *r, const struct sl_link_cfg *l)
{
	const struct sl_config *cfg = r->cfg;
	unsigned nf = replicas_of(cfg, l->from.app), nt = replicas_of(cfg, l->to.app);
	unsigned f0 = r->first[l->from.app], t0 = r->first[l->to.app];
	struct sl_endpoint from = l->from, to = l->to;
	char port[32];

	if (nf == 0 && nt == 0) {
		from.app = f0;
		to.app = t0;
		return new_link(r, l, from, to);
	}
	if (nf > 0 && nt > 0) {
		if (nf != nt)
			return fail(r, l->mark,
				    "link '%s.%s -> %s.%s' joins group '%s' (%u members) to group '%s' "
				    "(%u members); links between groups join member k to member k, so "
				    "the groups must be the same size",
				    cfg->apps[l->from.app].name, l->from.port,
				    cfg->apps[l->to.app].name, l->to.port,
				    group_of(cfg, l->from.app)->group, nf,
				    group_of(cfg, l->to.app)->group, nt);
		for (unsigned k = 0; k < nf; k++) {
			from.app = f0 + k;
			to.app = t0 + k;
			int rc = new_link(r, l, from, to);
			if (rc < 0)
				return rc;
		}
		return 0;
	}
	unsigned n = nf > 0 ? nf : nt;
	if (n == 1) {          /* a group of one: a plain link */
		from.app = f0;
		to.app = t0;
		return new_link(r, l, from, to);
	}
	unsigned fan = 0;
	int rc = add_fan(r, l, nf > 0, n, &fan);
	if (rc < 0)
		return rc;
	if (nf > 0) {          /* replicas -> join -> the single app */
		for (unsigned k = 0; k < n && rc == 0; k++) {
			snprintf(port, sizeof(port), "input%u", k);
			from.app = f0 + k;
			rc = new_link(r, l, from, (struct sl_endpoint){ fan, port, 0, k });
		}
		from = (struct sl_endpoint){ fan, (char *)"output", 0, 0 };
		to.app = t0;
		return rc < 0 ? rc : new_link(r, l, from, to);
	}
	from.app = f0;         /* the single app -> split -> replicas */
	rc = new_link(r, l, from, (struct sl_endpoint){ fan, (char *)"input", 0, 0 });
	for (unsigned k = 0; k < n && rc == 0; k++) {
		snprintf(port, sizeof(port), "output%u", k);
		to.app = t0 + k;
		rc = new_link(r, l, (struct sl_endpoint){ fan, port, 0, k }, to);
	}
	return rc;
}

static void free_apps(struct sl_app_cfg *apps, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		struct sl_app_cfg *a = &apps[i];
		if (a->params != NULL && a->type != NULL)
			for (unsigned p = 0; p < a->type->n_params; p++)
				sl_param_value_free(&a->params[p]);
		free(a->params);
		free(a->name);
		free(a->base);
	}
	free(apps);
}

static void free_links(struct sl_link_cfg *links, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		free(links[i].from.port);
		free(links[i].to.port);
	}
	free(links);
}

int sl_config_replicate(struct sl_config *cfg, struct sl_err *err)
{
	bool any = false;
	for (unsigned i = 0; i < cfg->n_apps && !any; i++)
		any = replicas_of(cfg, i) > 0;
	if (!any)
		return 0;

	struct rep r = { .cfg = cfg, .err = err };
	int rc = check_refs_into_groups(&r);
	if (rc < 0)
		return rc;
	r.first = calloc(cfg->n_apps, sizeof(*r.first));
	if (r.first == NULL)
		return nomem(&r);
	for (unsigned i = 0; i < cfg->n_apps && rc == 0; i++) {
		unsigned n = replicas_of(cfg, i);
		r.first[i] = r.n_apps;
		if (n == 0) {
			/* Moved as it is: the old array gives up its pointers below. */
			struct sl_app_cfg *x = new_app(&r);
			if (x == NULL) {
				rc = nomem(&r);
				break;
			}
			*x = cfg->apps[i];
			continue;
		}
		for (unsigned k = 0; k < n && rc == 0; k++)
			rc = add_replica(&r, i, k, n);
	}
	for (unsigned l = 0; l < cfg->n_links && rc == 0; l++)
		rc = expand_link(&r, &cfg->links[l]);
	if (rc < 0) {
		/* The apps moved unchanged still belong to cfg. */
		for (unsigned i = 0; i < cfg->n_apps; i++)
			if (replicas_of(cfg, i) == 0 && r.first[i] < r.n_apps)
				r.apps[r.first[i]] = (struct sl_app_cfg){ 0 };
		free_apps(r.apps, r.n_apps);
		free_links(r.links, r.n_links);
		free(r.first);
		return rc;
	}
	/* Free the replicated apps' originals (their replicas hold copies)
	 * and the old links. */
	struct sl_app_cfg *old = cfg->apps;
	unsigned n_old = cfg->n_apps;
	for (unsigned i = 0; i < n_old; i++)
		if (replicas_of(cfg, i) == 0)
			old[i] = (struct sl_app_cfg){ 0 };
	free_apps(old, n_old);
	free_links(cfg->links, cfg->n_links);
	cfg->apps = r.apps;
	cfg->n_apps = r.n_apps;
	cfg->links = r.links;
	cfg->n_links = r.n_links;
	free(r.first);
	return 0;
}
