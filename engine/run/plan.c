/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A reload's plan (plan.h): a pure function of the structure running, the
 * config to apply and their diff.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/lookup.h"
#include "run/plan.h"

void sl_reload_link_ports(const struct sl_config *cfg, unsigned i, unsigned *out,
			  unsigned *in)
{
	/* Fixed ports are indexed by their place in the type's list,
	 * numbered families by their number. */
	const struct sl_link_cfg *lc = &cfg->links[i];
	const struct sl_app_type *ft = cfg->apps[lc->from.app].type;
	const struct sl_app_type *tt = cfg->apps[lc->to.app].type;
	size_t fl = strlen(ft->outputs[lc->from.spec].name);
	size_t tl = strlen(tt->inputs[lc->to.spec].name);
	*out = ft->outputs[lc->from.spec].name[fl - 1] == '#' ? lc->from.number : lc->from.spec;
	*in = tt->inputs[lc->to.spec].name[tl - 1] == '#' ? lc->to.number : lc->to.spec;
}

static bool has_action(const struct sl_diff *d, enum sl_diff_kind k, const char *name)
{
	for (unsigned i = 0; i < d->n; i++)
		if (d->actions[i].kind == k && strcmp(d->actions[i].name, name) == 0)
			return true;
	return false;
}

/* ------------------------------------------------------------ refusals */

/* Whether the structure step can take action a, and why not. */
static int supported_action(const struct sl_config *old, const struct sl_config *new,
			    const struct sl_diff_action *a, char *why, size_t len)
{
	char line[512];
	sl_diff_format(a, line, sizeof(line));
	switch (a->kind) {
	case SL_DIFF_ADD_WORKER:
	case SL_DIFF_REMOVE_WORKER:
		snprintf(why, len, "cannot %s while running: a running engine's workers are "
			 "fixed (DPDK's lcores are set when it starts)", line);
		return -EPERM;
	case SL_DIFF_STOP_APP:
	case SL_DIFF_START_APP:
	case SL_DIFF_RESTART_APP:
	case SL_DIFF_MOVE_APP: {
		const struct sl_app_cfg *ac = NULL, *bc = NULL;
		int i = a->old_index >= 0 ? sl_config_find_app(old, a->name) : -1;
		if (i >= 0)
			ac = &old->apps[i];
		if (a->new_index >= 0)
			bc = &new->apps[a->new_index];
		ac = ac != NULL ? ac : bc;
		bc = bc != NULL ? bc : ac;
		if (ac == NULL)
			return 0;
		if (ac->n_replicas > 0 || ac->implicit || bc->n_replicas > 0 || bc->implicit) {
			snprintf(why, len, "cannot %s while running: it is a replica on a "
				 "worker group, or a join or split inserted for one", line);
			return -EPERM;
		}
		if (a->kind != SL_DIFF_START_APP && strcmp(ac->type->name, "flowcache") == 0) {
			snprintf(why, len, "cannot %s while running: a flowcache's flows are "
				 "reclaimed through its worker's epoch state", line);
			return -EPERM;
		}
		return 0;
	}
	default:
		return 0;
	}
}

/* Whether new lists the workers the engine runs in another order (their
 * lcores and CPUs are fixed by their place when the engine starts): checked
 * for every reload, whatever else it changes. */
static int reordered(const struct sl_config *old, const struct sl_config *new, char *why,
		     size_t len)
{
	for (unsigned w = 0; w < new->n_workers && w < old->n_workers; w++)
		if (strcmp(new->workers[w].name, old->workers[w].name) != 0) {
			snprintf(why, len, "cannot reorder the workers while running (worker %u is "
				 "'%s', was '%s')", w, new->workers[w].name, old->workers[w].name);
			return -EPERM;
		}
	return 0;
}

static int refusal(const struct sl_config *old, const struct sl_config *new,
		   const struct sl_diff *d, struct sl_reload_plan *p)
{
	for (unsigned i = 0; i < d->n; i++)
		p->structural |= d->actions[i].kind != SL_DIFF_RECONFIG_APP;
	for (unsigned i = 0; p->structural && i < d->n; i++)
		if (supported_action(old, new, &d->actions[i], p->why, sizeof(p->why)) < 0)
			return -EPERM;
	return reordered(old, new, p->why, sizeof(p->why));
}

/* ------------------------------------------------------------ structure */

/* Every app's links in c. */
static void connect_ports(const struct sl_config *c, struct sl_reload_ports *ports)
{
	for (unsigned a = 0; a < c->n_apps; a++)
		for (unsigned q = 0; q < SL_MAX_PORTS; q++)
			ports[a].in[q] = ports[a].out[q] = -1;
	for (unsigned j = 0; j < c->n_links; j++) {
		const struct sl_link_cfg *lc = &c->links[j];
		unsigned oi, ii;
		sl_reload_link_ports(c, j, &oi, &ii);
		struct sl_reload_ports *f = &ports[lc->from.app], *t = &ports[lc->to.app];
		f->out[oi] = (int)j;
		if (oi + 1 > f->n_out)
			f->n_out = oi + 1;
		t->in[ii] = (int)j;
		if (ii + 1 > t->n_in)
			t->n_in = ii + 1;
	}
}

/* How objects are told apart when two structures are compared: an old app
 * or link by its old index, a fresh one of new by its index past old's. */
struct idents {
	const struct sl_config *c;
	const struct sl_reload_ports *ports;
	const int *app_from, *link_from;   /* NULL: c is old */
	unsigned base_app, base_link;
};

static int app_id(const struct idents *x, unsigned j)
{
	if (x->app_from == NULL)
		return (int)j;
	return x->app_from[j] >= 0 ? x->app_from[j] : (int)(x->base_app + j);
}

static int link_id(const struct idents *x, int j)
{
	if (j < 0 || x->link_from == NULL)
		return j;
	return x->link_from[j] >= 0 ? x->link_from[j] : (int)(x->base_link + (unsigned)j);
}

/* The most a worker's lists written by program() take. */
static size_t program_len(const struct sl_config *c)
{
	return 5 + 2 * (size_t)c->n_links + (size_t)c->n_apps * (4 + SL_MAX_PORTS);
}

/* Worker w's lists as the engine builds them from x->c, written
 * into buf as identities: its interlinks' producer and consumer ends (link
 * order), the apps it pulls and ticks (push order), and those it pushes
 * with their inputs, each list after its length.  Returns the length. */
static size_t program(const struct idents *x, unsigned w, int *buf)
{
	const struct sl_config *c = x->c;
	size_t n = 0;
	for (int end = 0; end < 2; end++) {
		size_t at = n++;
		for (unsigned i = 0; i < c->n_links; i++) {
			const struct sl_link_cfg *lc = &c->links[i];
			unsigned wf = c->apps[lc->from.app].worker, wt = c->apps[lc->to.app].worker;
			if (wf != wt && c->link_impl != SL_LINK_RING && (end == 0 ? wf : wt) == w)
				buf[n++] = link_id(x, (int)i);
		}
		buf[at] = (int)(n - at - 1);
	}
	for (int list = 0; list < 3; list++) {
		size_t at = n++;
		unsigned count = 0;
		for (unsigned k = 0; k < c->n_apps; k++) {
			unsigned j = c->order[k];
			const struct sl_app_type *t = c->apps[j].type;
			bool on = list == 0 ? t->pull != NULL : list == 1 ? t->tick != NULL
								       : t->push != NULL;
			if (c->apps[j].worker != w || !on)
				continue;
			count++;
			buf[n++] = app_id(x, j);
			if (list < 2)
				continue;
			size_t in_at = n++;
			for (unsigned q = 0; q < x->ports[j].n_in; q++)
				if (x->ports[j].in[q] >= 0)
					buf[n++] = link_id(x, x->ports[j].in[q]);
			buf[in_at] = (int)(n - in_at - 1);
		}
		buf[at] = (int)count;
	}
	return n;
}

static bool same_ports(const struct idents *o, unsigned i, const struct idents *x, unsigned j)
{
	const struct sl_reload_ports *a = &o->ports[i], *b = &x->ports[j];
	if (a->n_in != b->n_in || a->n_out != b->n_out)
		return false;
	for (unsigned q = 0; q < SL_MAX_PORTS; q++)
		if (link_id(o, a->in[q]) != link_id(x, b->in[q]) ||
		    link_id(o, a->out[q]) != link_id(x, b->out[q]))
			return false;
	return true;
}

/* Which workers the switch holds (plan.h). */
static int affected(const struct sl_config *old, const struct sl_config *new,
		    struct sl_reload_plan *p, struct sl_err *err)
{
	struct sl_reload_ports *old_ports = calloc(old->n_apps + 1, sizeof(*old_ports));
	int *a = malloc(program_len(old) * sizeof(int));
	int *b = malloc(program_len(new) * sizeof(int));
	if (old_ports == NULL || a == NULL || b == NULL) {
		free(old_ports);
		free(a);
		free(b);
		return sl_errf(err, ENOMEM, "out of memory");
	}
	connect_ports(old, old_ports);
	struct idents o = { old, old_ports, NULL, NULL, 0, 0 };
	struct idents x = { new, p->ports, p->app_from, p->link_from, old->n_apps, old->n_links };
	for (unsigned w = 0; w < p->n_workers; w++) {
		size_t na = program(&o, w, a), nb = program(&x, w, b);
		p->affected[w] = na != nb || memcmp(a, b, na * sizeof(int)) != 0;
	}
	/* A kept app whose links or place change holds its old and new worker. */
	for (unsigned j = 0; j < new->n_apps; j++) {
		int i = p->app_from[j];
		if (i < 0)
			continue;
		unsigned ow = old->apps[i].worker, nw = new->apps[j].worker;
		if (!same_ports(&o, (unsigned)i, &x, j) || (unsigned)i != j || ow != nw)
			p->affected[ow] = p->affected[nw] = true;
	}
	/* A kept link whose ends change (a restarted app) holds both workers. */
	for (unsigned j = 0; j < new->n_links; j++) {
		int i = p->link_from[j];
		if (i < 0)
			continue;
		const struct sl_link_cfg *ol = &old->links[i], *nl = &new->links[j];
		if ((int)ol->from.app != app_id(&x, nl->from.app) ||
		    (int)ol->to.app != app_id(&x, nl->to.app)) {
			p->affected[new->apps[nl->from.app].worker] = true;
			p->affected[new->apps[nl->to.app].worker] = true;
		}
	}
	free(old_ports);
	free(a);
	free(b);
	return 0;
}

/* Kept, fresh and restarted apps; kept and fresh links. */
static void match(const struct sl_config *old, const struct sl_config *new,
		  const struct sl_diff *d, struct sl_reload_plan *p)
{
	for (unsigned j = 0; j < new->n_apps; j++) {
		int i = sl_config_find_app(old, new->apps[j].name);
		bool restart = i >= 0 && has_action(d, SL_DIFF_RESTART_APP, new->apps[j].name);
		p->app_from[j] = restart ? -1 : i;
		p->restarted[j] = restart;
		if (i >= 0 && !restart)
			p->old_app_kept[i] = true;
	}
	for (unsigned i = 0; i < old->n_links; i++)
		p->into[i] = -1;
	char name[128];
	for (unsigned j = 0; j < new->n_links; j++) {
		sl_config_link_name(new, j, name, sizeof(name));
		int i = sl_config_find_link(old, name);
		bool kept = i >= 0 && !has_action(d, SL_DIFF_REMOVE_LINK, name);
		p->link_from[j] = kept ? i : -1;
		if (kept)
			p->old_link_kept[i] = true;
		else if (i >= 0)
			p->into[i] = (int)j;   /* rebuilt: its packets move over */
	}
}

static int reconfigured(const struct sl_config *old, const struct sl_diff *d,
			struct sl_reload_plan *p, struct sl_err *err)
{
	p->reconf = calloc(d->n + 1, sizeof(*p->reconf));
	if (p->reconf == NULL)
		return sl_errf(err, ENOMEM, "out of memory");
	for (unsigned i = 0; i < d->n; i++) {
		const struct sl_diff_action *a = &d->actions[i];
		if (a->kind == SL_DIFF_RECONFIG_APP)
			p->reconf[p->n_reconf++] = (struct sl_reload_reconf){
				sl_config_find_app(old, a->name), a->new_index, a->name };
	}
	return 0;
}

int sl_reload_plan(const struct sl_config *old, const struct sl_config *new,
		   const struct sl_diff *d, struct sl_reload_plan *p, struct sl_err *err)
{
	memset(p, 0, sizeof(*p));
	p->n_apps = new->n_apps;
	p->n_links = new->n_links;
	p->n_old_apps = old->n_apps;
	p->n_old_links = old->n_links;
	p->n_workers = old->n_workers;
	p->refused = refusal(old, new, d, p);
	if (p->refused < 0)
		return 0;
	int rc = reconfigured(old, d, p, err);
	if (rc < 0 || !p->structural)
		return rc;
	p->app_from = malloc((new->n_apps + 1) * sizeof(int));
	p->restarted = calloc(new->n_apps + 1, sizeof(bool));
	p->ports = calloc(new->n_apps + 1, sizeof(*p->ports));
	p->link_from = malloc((new->n_links + 1) * sizeof(int));
	p->old_app_kept = calloc(old->n_apps + 1, sizeof(bool));
	p->old_link_kept = calloc(old->n_links + 1, sizeof(bool));
	p->into = malloc((old->n_links + 1) * sizeof(int));
	p->affected = calloc(old->n_workers + 1, sizeof(bool));
	if (p->app_from == NULL || p->restarted == NULL || p->ports == NULL ||
	    p->link_from == NULL || p->old_app_kept == NULL || p->old_link_kept == NULL ||
	    p->into == NULL || p->affected == NULL)
		return sl_errf(err, ENOMEM, "out of memory");
	match(old, new, d, p);
	connect_ports(new, p->ports);
	return affected(old, new, p, err);
}

void sl_reload_plan_free(struct sl_reload_plan *p)
{
	free(p->app_from);
	free(p->restarted);
	free(p->ports);
	free(p->link_from);
	free(p->old_app_kept);
	free(p->old_link_kept);
	free(p->into);
	free(p->affected);
	free(p->reconf);
	memset(p, 0, sizeof(*p));
}
