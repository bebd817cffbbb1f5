/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdlib.h>

#include "config/lookup.h"
#include "config/place.h"

#define NOTE_MAX 160

/* The input and what it points to (in first, so that the input's address
 * is the block's). */
struct input_block {
	struct sl_place_input in;
	struct sl_place_worker *workers;
	struct sl_place_app *apps;
	struct sl_place_link *links;
	char (*notes)[NOTE_MAX];
};

/* An app's NUMA wish: its type's hint on its parameters. */
static int app_numa(const void *arg, const struct sl_topology *topo)
{
	const struct sl_app_cfg *ac = arg;
	return ac->type->numa(ac->params, topo);
}

static void fill_app(struct sl_place_app *ap, char *note, const struct sl_app_cfg *ac)
{
	*ap = (struct sl_place_app){
		.name = ac->name, .type = ac->type->name, .worker = ac->worker,
		.numa = ac->type->numa != NULL ? app_numa : NULL, .arg = ac,
		.replicated = ac->n_replicas > 0 || ac->implicit, .note = note,
	};
	note[0] = '\0';
	if (ac->implicit)
		snprintf(note, NOTE_MAX, "inserted between a group and a single worker");
	else if (ap->replicated && ac->type->describe != NULL)
		ac->type->describe(ac->params, ac->replica, ac->n_replicas, note, NOTE_MAX);
}

void sl_config_place_input_free(struct sl_place_input *in)
{
	struct input_block *b = (struct input_block *)in;
	if (b == NULL)
		return;
	free(b->workers);
	free(b->apps);
	free(b->links);
	free(b->notes);
	free(b);
}

struct sl_place_input *sl_config_place_input(const struct sl_config *cfg)
{
	struct input_block *b = calloc(1, sizeof(*b));
	if (b == NULL)
		return NULL;
	b->workers = calloc(cfg->n_workers + 1, sizeof(*b->workers));
	b->apps = calloc(cfg->n_apps + 1, sizeof(*b->apps));
	b->links = calloc(cfg->n_links + 1, sizeof(*b->links));
	b->notes = calloc(cfg->n_apps + 1, sizeof(*b->notes));
	if (b->workers == NULL || b->apps == NULL || b->links == NULL || b->notes == NULL) {
		sl_config_place_input_free(&b->in);
		errno = ENOMEM;
		return NULL;
	}
	for (unsigned w = 0; w < cfg->n_workers; w++) {
		const struct sl_worker_cfg *wc = &cfg->workers[w];
		b->workers[w] = (struct sl_place_worker){
			.name = wc->name,
			.core = wc->core == SL_CORE_AUTO ? SL_PLACE_AUTO : wc->core,
			.line = wc->mark.line, .col = wc->mark.col,
			.member = wc->member, .n_members = wc->group != NULL ? wc->n_members : 0,
		};
	}
	for (unsigned a = 0; a < cfg->n_apps; a++)
		fill_app(&b->apps[a], b->notes[a], &cfg->apps[a]);
	for (unsigned l = 0; l < cfg->n_links; l++) {
		const struct sl_link_cfg *lc = &cfg->links[l];
		b->links[l] = (struct sl_place_link){
			.from = lc->from.app, .to = lc->to.app,
			.from_port = lc->from.port, .to_port = lc->to.port,
			.direct = sl_config_link_direct(cfg, l),
		};
	}
	b->in = (struct sl_place_input){
		.path = cfg->path,
		.workers = b->workers, .n_workers = cfg->n_workers,
		.apps = b->apps, .n_apps = cfg->n_apps,
		.links = b->links, .n_links = cfg->n_links,
		.c2c_path = cfg->c2c_path,
		.c2c_line = cfg->c2c_mark.line, .c2c_col = cfg->c2c_mark.col,
	};
	return &b->in;
}

int sl_config_place(const struct sl_config *cfg, const struct sl_topology *topo,
		    const cpu_set_t *allowed, struct sl_plan *plan, struct sl_err *err)
{
	struct sl_place_input *in = sl_config_place_input(cfg);
	if (in == NULL)
		return sl_errf(err, ENOMEM, "out of memory");
	int rc = sl_place(in, topo, allowed, plan, err);
	sl_config_place_input_free(in);
	return rc;
}

int sl_config_plan_here(const struct sl_config *cfg, struct sl_topology **topo,
			struct sl_plan *plan, struct sl_err *err)
{
	struct sl_place_input *in = sl_config_place_input(cfg);
	if (in == NULL) {
		*topo = NULL;
		return sl_errf(err, ENOMEM, "out of memory");
	}
	int rc = sl_plan_here(in, topo, plan, err);
	sl_config_place_input_free(in);
	return rc;
}

int sl_config_plan_print(const struct sl_config *cfg, const struct sl_topology *topo,
			 const struct sl_plan *plan, FILE *out)
{
	struct sl_place_input *in = sl_config_place_input(cfg);
	if (in == NULL)
		return -ENOMEM;
	sl_plan_print(in, topo, plan, out);
	sl_config_place_input_free(in);
	return 0;
}
