/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The apps section: each app's type, worker and parameters (list
 * parameters as tables of rows), and the checks that need every app and
 * link: each type's own checks, references between apps, exclusive
 * resources.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "config/config.h"
#include "config/config_private.h"

static int find_worker(const struct ctx *c, const char *name)
{
	return find_ref(c->workers_by_name, c->n_worker_refs, name);
}

/* Once every app is parsed (apps_by_name is filled at the end of parse_apps). */
int find_app(const struct ctx *c, const char *name)
{
	return find_ref(c->apps_by_name, c->cfg->n_apps, name);
}

static int unknown_type(struct ctx *c, const yaml_node_t *v, const char *app)
{
	const struct sl_app_type *small[64], **types = small;
	unsigned n = sl_app_types(small, SL_ARRAY_LEN(small));
	const char **names;
	char list[NAME_LIST_MAX];
	int rc;

	if (n > SL_ARRAY_LEN(small)) {
		types = calloc(n, sizeof(*types));
		if (types == NULL)
			return out_of_memory(c);
		sl_app_types(types, n);
	}
	names = calloc(n + 1, sizeof(*names));
	if (names == NULL) {
		rc = out_of_memory(c);
		goto out_free_types;
	}
	for (unsigned i = 0; i < n; i++)
		names[i] = types[i]->name;
	const char *guess = sl_did_you_mean(text_of(v), names, n);
	if (guess != NULL)
		rc = fail_at(c, node_mark(v), "app '%s': unknown type '%s' (did you mean '%s'?)",
			     app, text_of(v), guess);
	else
		rc = fail_at(c, node_mark(v), "app '%s': unknown type '%s' (known types: %s)",
			     app, text_of(v), join_names(names, n, list, sizeof(list)));
	free(names);
out_free_types:
	if (types != small)
		free(types);
	return rc;
}

static int unknown_param(struct ctx *c, const yaml_node_t *k, const struct sl_app_cfg *a)
{
	const struct sl_app_type *t = a->type;
	const char **names = calloc(t->n_params + 2, sizeof(*names));
	char list[NAME_LIST_MAX];
	int rc;

	if (names == NULL)
		return out_of_memory(c);
	for (unsigned i = 0; i < t->n_params; i++)
		names[i] = t->params[i].name;
	names[t->n_params] = "type";
	names[t->n_params + 1] = "worker";
	const char *guess = sl_did_you_mean(text_of(k), names, t->n_params + 2);
	if (guess != NULL)
		rc = fail_at(c, node_mark(k), "app '%s': unknown parameter '%s' (did you mean '%s'?)",
			     a->name, text_of(k), guess);
	else if (t->n_params == 0)
		rc = fail_at(c, node_mark(k),
			     "app '%s': unknown parameter '%s' (type %s takes no parameters)",
			     a->name, text_of(k), t->name);
	else
		rc = fail_at(c, node_mark(k),
			     "app '%s': unknown parameter '%s' (type %s takes: %s)",
			     a->name, text_of(k), t->name,
			     join_names(names, t->n_params, list, sizeof(list)));
	free(names);
	return rc;
}

static const yaml_node_t *lookup(const struct ctx *c, const yaml_node_t *map,
				 const char *key, const yaml_node_t **key_node)
{
	for (const yaml_node_pair_t *p = map->data.mapping.pairs.start;
	     p < map->data.mapping.pairs.top; p++) {
		const yaml_node_t *k = node_at(c, p->key);
		if (strcmp(text_of(k), key) == 0) {
			if (key_node != NULL)
				*key_node = k;
			return node_at(c, p->value);
		}
	}
	return NULL;
}

static int app_type(struct ctx *c, struct sl_app_cfg *a, const yaml_node_t *k,
		    const yaml_node_t *v)
{
	const yaml_node_t *t = lookup(c, v, "type", NULL);

	if (t == NULL)
		return fail_at(c, node_mark(k), "app '%s': missing 'type'", a->name);
	if (t->type != YAML_SCALAR_NODE)
		return fail_at(c, node_mark(t), "app '%s': 'type' must be a type name, got %s",
			       a->name, kind_name(t));
	a->type = sl_app_type_find(text_of(t));
	if (a->type == NULL)
		return unknown_type(c, t, a->name);
	return 0;
}

static int app_worker(struct ctx *c, struct sl_app_cfg *a, const yaml_node_t *v)
{
	const struct sl_config *cfg = c->cfg;
	const yaml_node_t *w = lookup(c, v, "worker", NULL);
	char list[NAME_LIST_MAX];

	if (w == NULL || is_null(w)) {
		if (cfg->n_workers != 1)
			return fail_at(c, a->mark,
				       "app '%s': no worker given and there are %u workers (%s)",
				       a->name, cfg->n_workers,
				       worker_list(cfg, list, sizeof(list)));
		a->worker = 0;
		return 0;
	}
	if (w->type != YAML_SCALAR_NODE)
		return fail_at(c, node_mark(w), "app '%s': 'worker' must be a worker name, got %s",
			       a->name, kind_name(w));
	int idx = find_worker(c, text_of(w));
	if (idx >= 0) {
		a->worker = (unsigned)idx;
		return 0;
	}

	const char *names[64];
	unsigned n = cfg->n_workers < SL_ARRAY_LEN(names) ? cfg->n_workers : SL_ARRAY_LEN(names);
	for (unsigned i = 0; i < n; i++)
		names[i] = cfg->workers[i].name;
	const char *guess = sl_did_you_mean(text_of(w), names, n);
	if (guess != NULL)
		return fail_at(c, node_mark(w), "app '%s': no worker named '%s' (did you mean '%s'?)",
			       a->name, text_of(w), guess);
	return fail_at(c, node_mark(w), "app '%s': no worker named '%s' (workers: %s)",
		       a->name, text_of(w), worker_list(cfg, list, sizeof(list)));
}

/* ---- list parameters ---------------------------------------------------- */

/* The shape of a node, in the words of list messages ("got a scalar"). */
static const char *shape_name(const yaml_node_t *n)
{
	if (n->type == YAML_SCALAR_NODE)
		return is_null(n) ? "nothing" : "a scalar";
	return kind_name(n);
}

/* One value of a row: the field's scalar, parsed for the field.  sl_param_parse
 * speaks of "parameter 'output' ..."; in a row that is "field 'output' ...". */
static int parse_field(struct ctx *c, const char *owner, const struct sl_param_spec *fs,
		       const yaml_node_t *v, struct sl_param_value *out)
{
	struct sl_err perr = { "" };

	if (v->type != YAML_SCALAR_NODE)
		return fail_at(c, node_mark(v), "%sfield '%s' must be a single value, got %s",
			       owner, fs->name, kind_name(v));
	int rc = sl_param_parse(fs, text_of(v), out, &perr);
	if (rc == -ENOMEM)
		return out_of_memory(c);
	if (rc < 0)
		return fail_at(c, node_mark(v), "%sfield '%s' %s", owner, fs->name,
			       without_param_lead(perr.msg, fs->name));
	return 0;
}

/* One row: a mapping of field names to values, checked against spec->fields;
 * fields not given take their defaults (.set false). */
static int parse_row(struct ctx *c, const struct sl_app_cfg *a,
		     const struct sl_param_spec *spec, unsigned index,
		     const yaml_node_t *row, struct sl_param_row *out)
{
	struct sl_mark m = node_mark(row);
	char owner[256], where[256];
	int rc;

	if (row->type != YAML_MAPPING_NODE)
		return fail_at(c, m, "app '%s': %s[%u] must be a mapping of fields, got %s",
			       a->name, spec->name, index, shape_name(row));
	snprintf(where, sizeof(where), "%s:%u:%u", c->name, m.line, m.col);
	out->where = strdup(where);
	out->v = calloc(spec->n_fields, sizeof(*out->v));
	if (out->where == NULL || out->v == NULL)
		return out_of_memory(c);

	snprintf(owner, sizeof(owner), "app '%s': %s[%u]: ", a->name, spec->name, index);
	rc = check_keys(c, row, "field", owner);
	if (rc < 0)
		return rc;
	for (const yaml_node_pair_t *p = row->data.mapping.pairs.start;
	     p < row->data.mapping.pairs.top; p++) {
		const yaml_node_t *fk = node_at(c, p->key), *fv = node_at(c, p->value);
		int idx = sl_param_find(spec->fields, spec->n_fields, text_of(fk));
		if (idx < 0) {
			const char **names = calloc(spec->n_fields, sizeof(*names));
			if (names == NULL)
				return out_of_memory(c);
			for (unsigned f = 0; f < spec->n_fields; f++)
				names[f] = spec->fields[f].name;
			rc = unknown_key(c, fk, owner, "field", names, spec->n_fields);
			free(names);
			return rc;
		}
		rc = parse_field(c, owner, &spec->fields[idx], fv, &out->v[idx]);
		if (rc < 0)
			return rc;
	}
	unsigned missing;
	rc = sl_param_defaults(spec->fields, spec->n_fields, out->v, &missing, c->err);
	if (rc == -ENOENT)
		return fail_at(c, m, "%smissing required field '%s'", owner,
			       spec->fields[missing].name);
	if (rc < 0)
		return sl_err_prefix(c->err, EINVAL, "%s: %stype %s has a bad default",
				     where, owner, a->type->name);
	return 0;
}

/* A list parameter (SL_PARAM_TABLE): a sequence of rows.  Rows are counted in
 * *out as soon as they are allocated, so that whatever was built when an
 * error stops the walk is freed with the config. */
static int parse_table(struct ctx *c, const struct sl_app_cfg *a,
		       const struct sl_param_spec *spec, const yaml_node_t *seq,
		       struct sl_param_value *out)
{
	struct sl_mark m = node_mark(seq);

	if (seq->type != YAML_SEQUENCE_NODE)
		return fail_at(c, m, "app '%s': parameter '%s' must be a list of mappings, got %s",
			       a->name, spec->name, shape_name(seq));
	unsigned n = n_items(seq);
	if (sl_param_rows_check(spec, n, c->err) < 0)
		return sl_err_prefix(c->err, EINVAL, "%s:%u:%u: app '%s'", c->name, m.line,
				     m.col, a->name);
	/* Without aliases every row is text of its own; with them a list can
	 * be named again and again, and its rows built each time. */
	c->rows += n;
	if (c->rows > c->rows_max)
		return fail_at(c, m, "app '%s': parameter '%s': YAML aliases make this "
			       "configuration expand to more than %" PRIu64 " list rows; write "
			       "the lists out", a->name, spec->name, c->rows_max);
	out->n_fields = spec->n_fields;
	out->set = true;
	if (n == 0)
		return 0;
	out->rows = calloc(n, sizeof(*out->rows));
	if (out->rows == NULL)
		return out_of_memory(c);
	for (unsigned i = 0; i < n; i++) {
		out->n_rows = i + 1;
		int rc = parse_row(c, a, spec, i, node_at(c, seq->data.sequence.items.start[i]),
				   &out->rows[i]);
		if (rc < 0)
			return rc;
	}
	return 0;
}

static int parse_app(struct ctx *c, const yaml_node_t *k, const yaml_node_t *v)
{
	struct sl_config *cfg = c->cfg;
	struct sl_app_cfg *a = &cfg->apps[cfg->n_apps];
	char owner[160];
	int rc;

	if (!valid_name(text_of(k)))
		return fail_at(c, node_mark(k),
			       "app name '%s' is not valid: use letters, digits, '_' and '-', starting with a letter",
			       text_of(k));
	a->name = strdup(text_of(k));
	if (a->name == NULL)
		return out_of_memory(c);
	a->mark = node_mark(k);
	cfg->n_apps++;

	if (v->type != YAML_MAPPING_NODE)
		return fail_at(c, node_mark(v),
			       "app '%s' must be a mapping with 'type' and its parameters, got %s",
			       a->name, kind_name(v));
	snprintf(owner, sizeof(owner), "app '%s': ", a->name);
	rc = check_keys(c, v, "key", owner);
	if (rc == 0)
		rc = app_type(c, a, k, v);
	if (rc == 0)
		rc = app_worker(c, a, v);
	if (rc < 0)
		return rc;

	const struct sl_app_type *t = a->type;
	a->params = calloc(t->n_params > 0 ? t->n_params : 1, sizeof(*a->params));
	if (a->params == NULL)
		return out_of_memory(c);
	for (const yaml_node_pair_t *p = v->data.mapping.pairs.start;
	     p < v->data.mapping.pairs.top; p++) {
		const yaml_node_t *pk = node_at(c, p->key), *pv = node_at(c, p->value);
		const char *key = text_of(pk);
		if (strcmp(key, "type") == 0 || strcmp(key, "worker") == 0)
			continue;
		int idx = sl_param_find(t->params, t->n_params, key);
		if (idx < 0)
			return unknown_param(c, pk, a);
		if (t->params[idx].type == SL_PARAM_TABLE) {
			rc = parse_table(c, a, &t->params[idx], pv, &a->params[idx]);
			if (rc < 0)
				return rc;
			continue;
		}
		if (pv->type != YAML_SCALAR_NODE)
			return fail_at(c, node_mark(pv),
				       "app '%s': parameter '%s' must be a single value, got %s",
				       a->name, key, kind_name(pv));
		if (sl_param_parse(&t->params[idx], text_of(pv), &a->params[idx], c->err) < 0)
			return sl_err_prefix(c->err, EINVAL, "%s:%u:%u: app '%s'", c->name,
					     node_mark(pv).line, node_mark(pv).col, a->name);
	}
	unsigned missing;
	rc = sl_param_defaults(t->params, t->n_params, a->params, &missing, c->err);
	if (rc == -ENOENT)
		return fail_at(c, a->mark, "app '%s': missing required parameter '%s'",
			       a->name, t->params[missing].name);
	if (rc < 0)
		return sl_err_prefix(c->err, EINVAL, "%s:%u:%u: app '%s': type %s has a bad default",
				     c->name, a->mark.line, a->mark.col, a->name, t->name);
	return 0;
}

int parse_apps(struct ctx *c, const yaml_node_t *n, const yaml_node_t *root)
{
	struct sl_config *cfg = c->cfg;
	int rc;

	if (n == NULL)
		return fail_at(c, node_mark(root),
			       "no 'apps' section: at least one app is required");
	if (is_null(n) || (n->type == YAML_MAPPING_NODE && n_pairs(n) == 0))
		return fail_at(c, node_mark(n), "'apps' is empty: at least one app is required");
	if (n->type != YAML_MAPPING_NODE)
		return fail_at(c, node_mark(n),
			       "'apps' must be a mapping of app names to their settings, got %s",
			       kind_name(n));
	rc = check_keys(c, n, "app", "");
	if (rc < 0)
		return rc;
	cfg->apps = calloc(n_pairs(n), sizeof(*cfg->apps));
	if (cfg->apps == NULL)
		return out_of_memory(c);
	for (const yaml_node_pair_t *p = n->data.mapping.pairs.start;
	     p < n->data.mapping.pairs.top; p++) {
		rc = parse_app(c, node_at(c, p->key), node_at(c, p->value));
		if (rc < 0)
			return rc;
	}
	c->apps_by_name = calloc(cfg->n_apps, sizeof(*c->apps_by_name));
	bool *busy = calloc(cfg->n_workers, sizeof(*busy));
	if (c->apps_by_name == NULL || busy == NULL) {
		free(busy);
		return out_of_memory(c);
	}
	for (unsigned i = 0; i < cfg->n_apps; i++) {
		c->apps_by_name[i] = (struct name_ref){ cfg->apps[i].name, i };
		const struct sl_worker_cfg *w = &cfg->workers[cfg->apps[i].worker];
		for (unsigned m = 0; m < (w->n_members > 0 ? w->n_members : 1); m++)
			busy[cfg->apps[i].worker + m] = true;
	}
	qsort(c->apps_by_name, cfg->n_apps, sizeof(*c->apps_by_name), cmp_name_ref);
	rc = 0;
	for (unsigned w = 0; w < cfg->n_workers && rc == 0; w++)
		if (!busy[w])
			rc = fail_at(c, cfg->workers[w].mark, "worker '%s' has no apps",
				     cfg->workers[w].group != NULL ? cfg->workers[w].group
							       : cfg->workers[w].name);
	free(busy);
	return rc;
}

/* Highest connected output (output true) or input index + 1 of app a (as
 * the engine numbers them: the family number for "name#" ports, the port's
 * place otherwise). */
static unsigned ports_connected(const struct ctx *c, unsigned a, bool output)
{
	const struct sl_app_type *t = c->cfg->apps[a].type;
	const struct sl_port_spec *specs = output ? t->outputs : t->inputs;
	unsigned n = 0;
	for (unsigned s = 0; s < (output ? t->n_outputs : t->n_inputs); s++) {
		uint64_t used = port_word(c, &(struct sl_endpoint){ .app = a, .spec = s }, output)[0];
		if (used == 0)
			continue;
		const char *name = specs[s].name;
		unsigned idx = name[strlen(name) - 1] == '#' ? 63u - (unsigned)__builtin_clzll(used) : s;
		if (idx + 1 > n)
			n = idx + 1;
	}
	return n;
}

/* Each app type's own checks of its values (sl_app_type.check). */
int check_apps(struct ctx *c)
{
	const struct sl_config *cfg = c->cfg;
	for (unsigned i = 0; i < cfg->n_apps; i++) {
		const struct sl_app_cfg *a = &cfg->apps[i];
		if (a->type->check == NULL)
			continue;
		struct sl_err e = { "" };
		if (a->type->check(a->params, ports_connected(c, i, false),
				    ports_connected(c, i, true), &e) == 0)
			continue;
		/* A sentence that starts with a place of this file ("FILE:L:C: ",
		 * a list row's where) points there; any other, at the app. */
		size_t nl = strlen(c->name);
		unsigned line, col;
		int used = 0;
		if (strncmp(e.msg, c->name, nl) == 0 &&
		    sscanf(e.msg + nl, ":%u:%u: %n", &line, &col, &used) == 2 && used > 0)
			return fail_at(c, (struct sl_mark){ line, col }, "app '%s': %s", a->name,
				       e.msg + nl + used);
		return fail_at(c, a->mark, "app '%s': %s", a->name, e.msg);
	}
	return 0;
}

/* Do two values of one spec hold the same setting? */
static bool same_value(const struct sl_param_spec *spec, const struct sl_param_value *x,
		       const struct sl_param_value *y)
{
	switch (spec->type) {
	case SL_PARAM_STRING:
		return strcmp(x->s, y->s) == 0;
	case SL_PARAM_MAC:
		return memcmp(x->mac, y->mac, sizeof(x->mac)) == 0;
	case SL_PARAM_TABLE:
		return x->n_rows == 0 && y->n_rows == 0;
	default:
		return x->u == y->u;
	}
}

/* "a|b|c" as "a, b and c". */
static const char *and_list(const char *bars, char *buf, size_t len)
{
	size_t used = 0;
	const char *last = strrchr(bars, '|');

	buf[0] = '\0';
	for (const char *p = bars; *p != '\0' && used + 6 < len; p++) {
		if (*p != '|') {
			buf[used++] = *p;
		} else if (p == last) {
			memcpy(buf + used, " and ", 5);
			used += 5;
		} else {
			memcpy(buf + used, ", ", 2);
			used += 2;
		}
	}
	buf[used] = '\0';
	return buf;
}

/* App a's STRING parameters that name another app (spec.app_type) or a
 * shared object (spec.share_agree; `shared` lists the apps of a's type that
 * give a value other than `none`, sorted by that value). */
static int check_app_refs(struct ctx *c, unsigned ai, unsigned p, const struct name_ref *shared,
			  unsigned n_shared)
{
	const struct sl_config *cfg = c->cfg;
	const struct sl_app_cfg *a = &cfg->apps[ai];
	const struct sl_param_spec *spec = &a->type->params[p];
	const char *v = a->params[p].s;

	if (strcmp(v, "none") == 0)
		return 0;
	if (spec->app_type != NULL) {
		int j = find_app(c, v);
		if (j < 0)
			return fail_at(c, a->mark, "app '%s': parameter '%s': no %s app named '%s'",
				       a->name, spec->name, spec->app_type, v);
		if (strcmp(cfg->apps[j].type->name, spec->app_type) != 0)
			return fail_at(c, a->mark,
				       "app '%s': parameter '%s': app '%s' is a %s, not a %s",
				       a->name, spec->name, v, cfg->apps[j].type->name,
				       spec->app_type);
	}
	if (spec->share_agree == NULL)
		return 0;
	int j = find_app(c, v);
	if (j >= 0 && cfg->apps[j].type == a->type && strcmp(cfg->apps[j].params[p].s, "none") == 0)
		return fail_at(c, a->mark,
			       "app '%s': %s '%s' is the private %s of app '%s'; to share a %s, "
			       "every app that uses it names it with '%s:'", a->name, spec->name, v,
			       spec->name, v, spec->name, spec->name);
	/* The first app (in the file) of the run of equal values in shared. */
	unsigned lo = 0, hi = n_shared;
	while (lo < hi) {
		unsigned mid = lo + (hi - lo) / 2;
		if (strcmp(shared[mid].name, v) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	const struct sl_app_cfg *f = &cfg->apps[shared[lo].idx];
	if (f == a)
		return 0;
	char keys[256], list[320];
	snprintf(keys, sizeof(keys), "%s", spec->share_agree);
	for (char *save = NULL, *k = strtok_r(keys, "|", &save); k != NULL;
	     k = strtok_r(NULL, "|", &save)) {
		int q = sl_param_find(a->type->params, a->type->n_params, k);
		if (q < 0 || same_value(&a->type->params[q], &a->params[q], &f->params[q]))
			continue;
		return fail_at(c, a->mark,
			       "app '%s': %s '%s' is shared with app '%s', which sets a different "
			       "'%s'; apps sharing a %s must agree on %s", a->name, spec->name, v,
			       f->name, k, spec->name, and_list(spec->share_agree, list, sizeof(list)));
	}
	return 0;
}

/* The apps of one type that give one shared-object parameter a value other
 * than `none`, sorted by that value (file order within a value). */
struct share_index {
	const struct sl_app_type *type;
	unsigned param;
	struct name_ref *refs;
	unsigned n;
};

#define SHARE_INDEXES_MAX 64     /* distinct (type, parameter) pairs with share_agree */

static struct share_index *share_index_of(struct ctx *c, struct share_index *idx, unsigned *n_idx,
					  const struct sl_app_type *t, unsigned p)
{
	const struct sl_config *cfg = c->cfg;

	for (unsigned k = 0; k < *n_idx; k++)
		if (idx[k].type == t && idx[k].param == p)
			return &idx[k];
	if (*n_idx == SHARE_INDEXES_MAX)
		return NULL;
	struct share_index *x = &idx[(*n_idx)++];
	*x = (struct share_index){ .type = t, .param = p };
	x->refs = calloc(cfg->n_apps + 1, sizeof(*x->refs));
	if (x->refs == NULL)
		return NULL;
	for (unsigned j = 0; j < cfg->n_apps; j++)
		if (cfg->apps[j].type == t && strcmp(cfg->apps[j].params[p].s, "none") != 0)
			x->refs[x->n++] = (struct name_ref){ cfg->apps[j].params[p].s, j };
	qsort(x->refs, x->n, sizeof(*x->refs), cmp_name_ref);
	return x;
}

/* References between apps that the schema declares (sl_param_spec.app_type,
 * .share_agree), reported in file order.  O(n log n). */
int check_refs(struct ctx *c)
{
	const struct sl_config *cfg = c->cfg;
	struct share_index idx[SHARE_INDEXES_MAX];
	unsigned n_idx = 0;
	int rc = 0;

	for (unsigned i = 0; i < cfg->n_apps && rc == 0; i++) {
		const struct sl_app_type *t = cfg->apps[i].type;
		for (unsigned p = 0; p < t->n_params && rc == 0; p++) {
			const struct sl_param_spec *spec = &t->params[p];
			struct share_index *x = NULL;
			if (spec->type != SL_PARAM_STRING ||
			    (spec->app_type == NULL && spec->share_agree == NULL))
				continue;
			if (spec->share_agree != NULL) {
				x = share_index_of(c, idx, &n_idx, t, p);
				if (x == NULL || x->refs == NULL) {
					rc = out_of_memory(c);
					break;
				}
			}
			rc = check_app_refs(c, i, p, x != NULL ? x->refs : NULL,
					    x != NULL ? x->n : 0);
		}
	}
	for (unsigned k = 0; k < n_idx; k++)
		free(idx[k].refs);
	return rc;
}

/* Resources one app alone may hold (sl_param_spec.exclusive: a port's
 * device): sorted by type, parameter and value up to its first comma, so
 * that two apps asking for one are neighbours. */
struct claim {
	const char *type, *param, *value;
	size_t len;
	unsigned app;
};

static int cmp_claim(const void *x, const void *y)
{
	const struct claim *a = x, *b = y;
	int d = strcmp(a->type, b->type);
	if (d == 0)
		d = strcmp(a->param, b->param);
	if (d == 0)
		d = strncmp(a->value, b->value, a->len < b->len ? a->len : b->len);
	if (d == 0)
		d = a->len < b->len ? -1 : a->len > b->len;
	if (d == 0)
		d = a->app < b->app ? -1 : a->app > b->app;
	return d;
}

int check_exclusive(struct ctx *c)
{
	const struct sl_config *cfg = c->cfg;
	unsigned n = 0;
	for (unsigned i = 0; i < cfg->n_apps; i++)
		for (unsigned p = 0; p < cfg->apps[i].type->n_params; p++)
			n += cfg->apps[i].type->params[p].exclusive;
	if (n < 2)
		return 0;
	struct claim *cl = calloc(n, sizeof(*cl));
	if (cl == NULL)
		return out_of_memory(c);
	n = 0;
	for (unsigned i = 0; i < cfg->n_apps; i++) {
		const struct sl_app_cfg *a = &cfg->apps[i];
		for (unsigned p = 0; p < a->type->n_params; p++) {
			const char *v = a->params[p].s;
			if (!a->type->params[p].exclusive || v == NULL)
				continue;
			cl[n++] = (struct claim){ a->type->name, a->type->params[p].name, v,
						  strcspn(v, ","), i };
		}
	}
	qsort(cl, n, sizeof(*cl), cmp_claim);
	int rc = 0;
	for (unsigned i = 1; i < n && rc == 0; i++) {
		const struct claim *x = &cl[i - 1], *y = &cl[i];
		if (strcmp(x->type, y->type) != 0 || strcmp(x->param, y->param) != 0 ||
		    x->len != y->len || strncmp(x->value, y->value, x->len) != 0)
			continue;
		const struct sl_app_cfg *first = &cfg->apps[x->app], *second = &cfg->apps[y->app];
		rc = fail_at(c, second->mark,
			     "app '%s': %s '%.*s' is already served by app '%s' (line %u); one %s app "
			     "serves a %s: to spread it over several workers, run that app on a "
			     "worker group ({ cores: [...] })", second->name, x->param, (int)x->len,
			     x->value, first->name, first->mark.line, x->type, x->param);
	}
	free(cl);
	return rc;
}
