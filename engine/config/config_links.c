/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The links section: "a.output -> b.input" or { link: ..., size: N }, each
 * end resolved to an app's port, each port connected once, required ports
 * connected and numbered ports without gaps.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "config/config.h"
#include "config/config_private.h"

/* Cut "app.port" out of [s, e) after trimming blanks; false if malformed. */
static bool split_endpoint(const char *s, const char *e, char *app, char *port, size_t len)
{
	while (s < e && isspace((unsigned char)*s))
		s++;
	while (e > s && isspace((unsigned char)e[-1]))
		e--;
	const char *dot = memchr(s, '.', (size_t)(e - s));
	if (dot == NULL || dot == s || dot + 1 == e)
		return false;
	size_t al = (size_t)(dot - s), pl = (size_t)(e - dot - 1);
	if (al >= len || pl >= len)
		return false;
	memcpy(app, s, al);
	app[al] = '\0';
	memcpy(port, dot + 1, pl);
	port[pl] = '\0';
	if (!valid_name(app))
		return false;
	for (const char *p = port; *p != '\0'; p++)
		if (!isalnum((unsigned char)*p) && *p != '_')
			return false;
	return true;
}

static const char *dir_name(bool output)
{
	return output ? "output" : "input";
}

/* "app 'a' (type source) has no output port 'out' (did you mean 'output'?)" */
static int unknown_port(struct ctx *c, const yaml_node_t *ln, const struct sl_app_cfg *a,
			bool output, const char *port)
{
	const struct sl_app_type *t = a->type;
	const struct sl_port_spec *specs = output ? t->outputs : t->inputs;
	unsigned n = output ? t->n_outputs : t->n_inputs;
	char names[SL_MAX_PORTS][48];
	const char *cands[SL_MAX_PORTS] = { NULL };
	char list[NAME_LIST_MAX];
	const char *text = text_of(ln);

	if (n > SL_MAX_PORTS)
		n = SL_MAX_PORTS;
	for (unsigned i = 0; i < n; i++) {
		size_t len = strlen(specs[i].name);
		if (len > 0 && specs[i].name[len - 1] == '#') {
			/* A family port with a number past the limit: say so. */
			if (strncmp(port, specs[i].name, len - 1) == 0 &&
			    isdigit((unsigned char)port[len - 1]))
				return fail_at(c, node_mark(ln),
					       "link '%s': app '%s' (type %s) has no %s port '%s' (numbered ports go from %.*s0 to %.*s%u)",
					       text, a->name, t->name, dir_name(output), port,
					       (int)(len - 1), specs[i].name, (int)(len - 1),
					       specs[i].name, SL_MAX_PORTS - 1);
			snprintf(names[i], sizeof(names[i]), "%.*s0", (int)(len - 1), specs[i].name);
		} else {
			snprintf(names[i], sizeof(names[i]), "%s", specs[i].name);
		}
		cands[i] = names[i];
	}
	const char *guess = sl_did_you_mean(port, cands, n);
	if (guess != NULL)
		return fail_at(c, node_mark(ln),
			       "link '%s': app '%s' (type %s) has no %s port '%s' (did you mean '%s'?)",
			       text, a->name, t->name, dir_name(output), port, guess);
	if (n == 0)
		return fail_at(c, node_mark(ln),
			       "link '%s': app '%s' (type %s) has no %s port '%s' (it has no %s ports)",
			       text, a->name, t->name, dir_name(output), port, dir_name(output));
	return fail_at(c, node_mark(ln),
		       "link '%s': app '%s' (type %s) has no %s port '%s' (%s ports: %s)",
		       text, a->name, t->name, dir_name(output), port, dir_name(output),
		       join_names(cands, n, list, sizeof(list)));
}

static int resolve_endpoint(struct ctx *c, const yaml_node_t *ln, const char *app,
			    const char *port, bool output, struct sl_endpoint *ep)
{
	const struct sl_config *cfg = c->cfg;
	const char *text = text_of(ln);
	int idx = find_app(c, app);

	if (idx < 0) {
		const char **names = calloc(cfg->n_apps + 1, sizeof(*names));
		if (names == NULL)
			return out_of_memory(c);
		for (unsigned i = 0; i < cfg->n_apps; i++)
			names[i] = cfg->apps[i].name;
		const char *guess = sl_did_you_mean(app, names, cfg->n_apps);
		int rc = guess != NULL ?
			fail_at(c, node_mark(ln), "link '%s': no app named '%s' (did you mean '%s'?)",
				text, app, guess) :
			fail_at(c, node_mark(ln), "link '%s': no app named '%s'", text, app);
		free(names);
		return rc;
	}

	const struct sl_app_cfg *a = &cfg->apps[idx];
	const struct sl_port_spec *specs = output ? a->type->outputs : a->type->inputs;
	unsigned n = output ? a->type->n_outputs : a->type->n_inputs;
	for (unsigned s = 0; s < n; s++) {
		unsigned number;
		if (sl_port_spec_match(&specs[s], port, &number)) {
			ep->app = (unsigned)idx;
			ep->spec = s;
			ep->number = number;
			ep->port = strdup(port);
			return ep->port != NULL ? 0 : out_of_memory(c);
		}
	}
	return unknown_port(c, ln, a, output, port);
}

static bool same_port(const struct sl_endpoint *x, const struct sl_endpoint *y)
{
	return x->app == y->app && x->spec == y->spec && x->number == y->number;
}

/* The word of connected numbers of an endpoint's port spec. */
uint64_t *port_word(const struct ctx *c, const struct sl_endpoint *e, bool output)
{
	const struct sl_app_cfg *a = &c->cfg->apps[e->app];
	return &c->ports_used[c->ports_base[e->app] + (output ? a->type->n_inputs : 0) + e->spec];
}

/* One word per port spec of every app, all zero. */
int alloc_ports(struct ctx *c)
{
	const struct sl_config *cfg = c->cfg;
	size_t words = 0;

	c->ports_base = calloc(cfg->n_apps + 1, sizeof(*c->ports_base));
	if (c->ports_base == NULL)
		return out_of_memory(c);
	for (unsigned i = 0; i < cfg->n_apps; i++) {
		c->ports_base[i] = (unsigned)words;
		words += cfg->apps[i].type->n_inputs + cfg->apps[i].type->n_outputs;
	}
	c->ports_used = calloc(words + 1, sizeof(*c->ports_used));
	return c->ports_used != NULL ? 0 : out_of_memory(c);
}

/* A link item in mapping form: { link: "a.out -> b.in", size: N }.  Returns
 * the node of the link text in *text_node and the size (0: engine.link_size). */
static int parse_link_map(struct ctx *c, const yaml_node_t *ln, const yaml_node_t **text_node,
			  uint32_t *size)
{
	static const char *const known[] = { "link", "size" };
	static const struct sl_param_spec size_spec = {
		.name = "size", .type = SL_PARAM_UINT, .min = 2, .max = 1u << 24 };
	*text_node = NULL;
	int rc = check_keys(c, ln, "key", "link: ");
	if (rc < 0)
		return rc;
	for (const yaml_node_pair_t *p = ln->data.mapping.pairs.start;
	     p < ln->data.mapping.pairs.top; p++) {
		const yaml_node_t *k = node_at(c, p->key), *v = node_at(c, p->value);
		if (strcmp(text_of(k), "link") == 0) {
			*text_node = v;
		} else if (strcmp(text_of(k), "size") == 0) {
			struct sl_param_value val;
			if (v->type != YAML_SCALAR_NODE ||
			    sl_param_parse(&size_spec, text_of(v), &val, NULL) < 0 ||
			    (val.u & (val.u - 1)) != 0)
				return fail_at(c, node_mark(v),
					       "link size must be a power of two in 2..16777216, got '%s'",
					       v->type == YAML_SCALAR_NODE ? text_of(v) : kind_name(v));
			*size = (uint32_t)val.u;
		} else {
			return unknown_key(c, k, "link: ", "key", known, SL_ARRAY_LEN(known));
		}
	}
	if (*text_node == NULL)
		return fail_at(c, node_mark(ln),
			       "a link given as a mapping needs 'link: \"app.port -> app.port\"'");
	return 0;
}

static int parse_link(struct ctx *c, const yaml_node_t *ln)
{
	struct sl_config *cfg = c->cfg;
	char from_app[128], from_port[128], to_app[128], to_port[128];
	uint32_t size = 0;

	if (ln->type == YAML_MAPPING_NODE) {
		int rc = parse_link_map(c, ln, &ln, &size);
		if (rc < 0)
			return rc;
	}
	if (ln->type != YAML_SCALAR_NODE)
		return fail_at(c, node_mark(ln),
			       "each link must be a string like \"app.port -> app.port\" or "
			       "{ link: \"app.port -> app.port\", size: N }, got %s",
			       kind_name(ln));
	const char *text = text_of(ln);
	const char *arrow = strstr(text, "->");
	if (arrow == NULL ||
	    !split_endpoint(text, arrow, from_app, from_port, sizeof(from_app)) ||
	    !split_endpoint(arrow + 2, text + strlen(text), to_app, to_port, sizeof(to_app)))
		return fail_at(c, node_mark(ln), "link '%s' must look like 'app.port -> app.port'",
			       text);

	struct sl_link_cfg *l = &cfg->links[cfg->n_links];
	l->mark = node_mark(ln);
	l->size = size;
	cfg->n_links++;
	int rc = resolve_endpoint(c, ln, from_app, from_port, true, &l->from);
	if (rc == 0)
		rc = resolve_endpoint(c, ln, to_app, to_port, false, &l->to);
	if (rc < 0)
		return rc;
	uint64_t *from_word = port_word(c, &l->from, true), *to_word = port_word(c, &l->to, false);
	uint64_t from_bit = UINT64_C(1) << l->from.number, to_bit = UINT64_C(1) << l->to.number;
	if ((*from_word & from_bit) || (*to_word & to_bit)) {
		/* Taken: find the link that took it (once, on the way out). */
		bool out_side = (*from_word & from_bit) != 0;
		unsigned j = 0;
		while (j + 1 < cfg->n_links &&
		       !(out_side ? same_port(&cfg->links[j].from, &l->from)
				  : same_port(&cfg->links[j].to, &l->to)))
			j++;
		return fail_at(c, l->mark, "link '%s': port '%s.%s' is already connected (line %u)",
			       text, out_side ? from_app : to_app, out_side ? from_port : to_port,
			       cfg->links[j].mark.line);
	}
	*from_word |= from_bit;
	*to_word |= to_bit;
	return 0;
}

int parse_links(struct ctx *c, const yaml_node_t *n)
{
	struct sl_config *cfg = c->cfg;

	if (section_absent(n))
		return 0;
	if (n->type != YAML_SEQUENCE_NODE)
		return fail_at(c, node_mark(n),
			       "'links' must be a sequence of \"app.port -> app.port\" strings, got %s",
			       kind_name(n));
	cfg->links = calloc(n_items(n) + 1, sizeof(*cfg->links));
	if (cfg->links == NULL)
		return out_of_memory(c);
	for (const yaml_node_item_t *i = n->data.sequence.items.start;
	     i < n->data.sequence.items.top; i++) {
		int rc = parse_link(c, node_at(c, *i));
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* Required ports connected; numbered families from 0 without gaps. */
static int check_app_ports(struct ctx *c, unsigned app, bool output)
{
	const struct sl_config *cfg = c->cfg;
	const struct sl_app_cfg *a = &cfg->apps[app];
	const struct sl_port_spec *specs = output ? a->type->outputs : a->type->inputs;
	unsigned n = output ? a->type->n_outputs : a->type->n_inputs;

	for (unsigned s = 0; s < n; s++) {
		/* bit k: number k connected (k < SL_MAX_PORTS) */
		uint64_t used = port_word(c, &(struct sl_endpoint){ .app = app, .spec = s }, output)[0];
		size_t len = strlen(specs[s].name);
		bool family = len > 0 && specs[s].name[len - 1] == '#';
		int base = (int)(family ? len - 1 : len);
		for (unsigned k = 0; family && k < 64 && (used >> k) != 0; k++) {
			if (used & (UINT64_C(1) << k))
				continue;
			unsigned next = k + 1;
			while (!(used & (UINT64_C(1) << next)))
				next++;
			return fail_at(c, a->mark,
				       "app '%s': %.*s%u is not connected but %.*s%u is; number ports from %.*s0 without gaps",
				       a->name, base, specs[s].name, k, base, specs[s].name, next,
				       base, specs[s].name);
		}
		if (specs[s].required && used == 0)
			return fail_at(c, a->mark, "app '%s': %s '%.*s%s' is not connected",
				       a->name, dir_name(output), base, specs[s].name,
				       family ? "0" : "");
	}
	return 0;
}

int check_ports(struct ctx *c)
{
	for (unsigned i = 0; i < c->cfg->n_apps; i++) {
		int rc = check_app_ports(c, i, false);
		if (rc == 0)
			rc = check_app_ports(c, i, true);
		if (rc < 0)
			return rc;
	}
	return 0;
}
