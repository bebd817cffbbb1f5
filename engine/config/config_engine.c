/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The sections of keys (pool, engine, topology) and dpdk: each key parsed
 * against its spec in the schema (config_schema.c), the pool's own checks,
 * and the EAL arguments.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "config/config.h"
#include "config/config_private.h"

/* sl_param_parse's sentence without its "parameter 'NAME' " lead, for
 * callers that name the value their own way ("pool.mbufs ...", "field
 * 'output' ..."). */
const char *without_param_lead(const char *msg, const char *name)
{
	char lead[160];

	snprintf(lead, sizeof(lead), "parameter '%s' ", name);
	return strncmp(msg, lead, strlen(lead)) == 0 ? msg + strlen(lead) : msg;
}

/* What a non-scalar value of spec should have been, for "KEY must be ...". */
static const char *value_shape(const struct sl_param_spec *spec, char *buf, size_t len)
{
	switch (spec->type) {
	case SL_PARAM_BOOL: return "true or false";
	case SL_PARAM_ENUM:
		snprintf(buf, len, "one of %s", spec->choices);
		return buf;
	case SL_PARAM_STRING: return spec->doc;
	case SL_PARAM_MAC: return "a MAC address";
	case SL_PARAM_DURATION: return "a duration like 30s or 250ms";
	default: return "a number";
	}
}

/* One key's value: a scalar parsed for spec into *out.  sl_param_parse speaks
 * of "parameter 'mbufs' ..."; here that is "pool.mbufs ...". */
static int parse_key(struct ctx *c, const char *section, const struct sl_param_spec *spec,
		     const yaml_node_t *v, struct sl_param_value *out)
{
	struct sl_err perr = { "" };
	char shape[128];

	if (v->type != YAML_SCALAR_NODE)
		return fail_at(c, node_mark(v), "%s.%s must be %s, got %s", section, spec->name,
			       value_shape(spec, shape, sizeof(shape)), kind_name(v));
	if (spec->type == SL_PARAM_STRING && text_of(v)[0] == '\0')
		return fail_at(c, node_mark(v), "%s.%s must be %s, got an empty value", section,
			       spec->name, value_shape(spec, shape, sizeof(shape)));
	int rc = sl_param_parse(spec, text_of(v), out, &perr);
	if (rc == -ENOMEM)
		return out_of_memory(c);
	if (rc < 0)
		return fail_at(c, node_mark(v), "%s.%s %s", section, spec->name,
			       without_param_lead(perr.msg, spec->name));
	return 0;
}

/* A section of keys, s->keys: absent, or a key with no value, gives every
 * default; otherwise a mapping whose keys are checked and parsed against the
 * schema.  vals[i] receives the value of s->keys[i], the default where the
 * key is not given (.set false), and marks[i] where it was given ({0, 0}:
 * not given).  The caller frees vals with sl_param_value_free. */
static int parse_keys(struct ctx *c, const yaml_node_t *n, const struct sl_config_section *s,
		      struct sl_param_value *vals, struct sl_mark *marks)
{
	const char *known[16];
	unsigned n_known = s->n_keys < SL_ARRAY_LEN(known) ? s->n_keys : SL_ARRAY_LEN(known);
	char owner[32], list[NAME_LIST_MAX];
	unsigned missing;
	int rc;

	for (unsigned i = 0; i < n_known; i++)
		known[i] = s->keys[i].name;
	snprintf(owner, sizeof(owner), "%s: ", s->name);
	if (!section_absent(n)) {
		if (n->type != YAML_MAPPING_NODE)
			return fail_at(c, node_mark(n), "'%s' must be a mapping with key%s %s, got %s",
				       s->name, n_known == 1 ? "" : "s",
				       join_names(known, n_known, list, sizeof(list)), kind_name(n));
		rc = check_keys(c, n, "key", owner);
		if (rc < 0)
			return rc;
		for (const yaml_node_pair_t *p = n->data.mapping.pairs.start;
		     p < n->data.mapping.pairs.top; p++) {
			const yaml_node_t *k = node_at(c, p->key), *v = node_at(c, p->value);
			int idx = sl_param_find(s->keys, s->n_keys, text_of(k));
			if (idx < 0)
				return unknown_key(c, k, owner, "key", known, n_known);
			rc = parse_key(c, s->name, &s->keys[idx], v, &vals[idx]);
			if (rc < 0)
				return rc;
			marks[idx] = node_mark(v);
		}
	}
	rc = sl_param_defaults(s->keys, s->n_keys, vals, &missing, c->err);
	if (rc == -ENOENT)
		return fail_at(c, section_absent(n) ? (struct sl_mark){ 1, 1 } : node_mark(n),
			       "%s: missing required key '%s'", s->name, s->keys[missing].name);
	if (rc < 0)
		return sl_err_prefix(c->err, EINVAL, "%s: %s: bad default", c->name, s->name);
	return 0;
}

static void free_values(struct sl_param_value *vals, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		sl_param_value_free(&vals[i]);
}

/* What the pool's keys must agree on with each other. */
static int check_pool(struct ctx *c, const struct sl_mark *marks)
{
	const struct sl_pool_cfg *pc = &c->cfg->pool;

	if (pc->ops == SL_POOL_OPS_SLUICE && marks[POOL_CACHE].line != 0)
		return fail_at(c, marks[POOL_CACHE], "pool.cache applies to ops: dpdk only (Sluice's pool "
			       "has per-worker freelists instead; see pool.chunk and pool.high)");
	if (pc->ops == SL_POOL_OPS_DPDK) {
		for (unsigned i = POOL_CHUNK; i <= POOL_ORDER; i++)
			if (marks[i].line != 0)
				return fail_at(c, marks[i], "pool.%s applies to ops: sluice only",
					       pool_keys[i].name);
	}
	if (pc->ops == SL_POOL_OPS_SLUICE && pc->chunk > pc->mbufs)
		return fail_at(c, marks[POOL_CHUNK].line != 0 ? marks[POOL_CHUNK] : marks[POOL_MBUFS],
			       "pool.chunk (%u) must be at most pool.mbufs (%u): buffers move "
			       "between workers in whole chunks, and the pool could make none",
			       pc->chunk, pc->mbufs);
	if (pc->high != 0 && pc->high < pc->chunk)
		return fail_at(c, marks[POOL_HIGH], "pool.high must be at least pool.chunk (%u), got %u",
			       pc->chunk, pc->high);
	if (pc->high > pc->mbufs)
		return fail_at(c, marks[POOL_HIGH], "pool.high (%u) must be at most pool.mbufs (%u): one "
			       "worker's freelist could keep every buffer from the others",
			       pc->high, pc->mbufs);
	if (pc->l3_chunks != 0 && (pc->l3_chunks < 2 || (pc->l3_chunks & (pc->l3_chunks - 1))))
		return fail_at(c, marks[POOL_L3_CHUNKS],
			       "pool.l3_chunks must be a power of two of at least 2, got %u",
			       pc->l3_chunks);
	return 0;
}

int parse_pool(struct ctx *c, const yaml_node_t *n)
{
	struct sl_param_value v[POOL_N] = { { 0 } };
	struct sl_mark marks[POOL_N] = { { 0, 0 } };
	struct sl_pool_cfg *pc = &c->cfg->pool;
	int rc = parse_keys(c, n, &sections[SEC_POOL], v, marks);

	if (rc == 0) {
		pc->mbufs = (uint32_t)v[POOL_MBUFS].u;
		pc->cache = (uint32_t)v[POOL_CACHE].u;
		pc->data_room = (uint32_t)v[POOL_DATA_ROOM].u;
		pc->ops = (enum sl_pool_ops)v[POOL_OPS].u;
		pc->chunk = (uint32_t)v[POOL_CHUNK].u;
		pc->high = (uint32_t)v[POOL_HIGH].u;
		pc->l3_tier = v[POOL_L3_TIER].u != 0;
		pc->l3_chunks = (uint32_t)v[POOL_L3_CHUNKS].u;
		pc->shuffle = v[POOL_ORDER].u != 0;
	}
	free_values(v, POOL_N);
	if (rc < 0)
		return rc;
	/* Where a pool warning points: chunk, high, or the section. */
	if (marks[POOL_CHUNK].line != 0)
		c->pool_mark = marks[POOL_CHUNK];
	else if (marks[POOL_HIGH].line != 0)
		c->pool_mark = marks[POOL_HIGH];
	else if (!section_absent(n))
		c->pool_mark = node_mark(n);
	return check_pool(c, marks);
}

/* engine.idle_sleep where the file leaves it out: SLUICE_IDLE_SLEEP, if set
 * and not empty, read as the key would be. */
static int idle_sleep_env(struct ctx *c)
{
	const char *text = getenv("SLUICE_IDLE_SLEEP");
	if (text == NULL || text[0] == '\0')
		return 0;
	struct sl_param_value v = { 0 };
	struct sl_err perr = { { 0 } };
	if (sl_param_parse(&sections[SEC_ENGINE].keys[ENGINE_IDLE_SLEEP], text, &v, &perr) < 0)
		return sl_errf(c->err, EINVAL,
			       "%s: the environment's SLUICE_IDLE_SLEEP (the default of "
			       "engine.idle_sleep): %s", c->name, perr.msg);
	c->cfg->idle_sleep_ns = v.u;
	return 0;
}

int parse_engine(struct ctx *c, const yaml_node_t *n)
{
	struct sl_param_value v[ENGINE_N] = { { 0 } };
	struct sl_mark marks[ENGINE_N] = { { 0, 0 } };
	struct sl_config *cfg = c->cfg;
	int rc = parse_keys(c, n, &sections[SEC_ENGINE], v, marks);

	if (rc == 0) {
		cfg->burst = (unsigned)v[ENGINE_BURST].u;
		cfg->link_size = (unsigned)v[ENGINE_LINK_SIZE].u;
		cfg->link_impl = (enum sl_link_impl)v[ENGINE_LINK_IMPL].u;
		cfg->epoch_policy = (enum sl_epoch_policy)v[ENGINE_EPOCH].u;
		cfg->reclaim_cap = (unsigned)v[ENGINE_RECLAIM_CAP].u;
		cfg->epoch_ring = (unsigned)v[ENGINE_EPOCH_RING].u;
		cfg->stop_timeout_ns = v[ENGINE_STOP_TIMEOUT].u;
		cfg->accounting = v[ENGINE_ACCOUNTING].u != 0;
		cfg->idle_sleep_ns = v[ENGINE_IDLE_SLEEP].u;
		cfg->direct_links = v[ENGINE_DIRECT_LINKS].u != 0;
	}
	free_values(v, ENGINE_N);
	if (rc < 0)
		return rc;
	if (marks[ENGINE_IDLE_SLEEP].line == 0 && (rc = idle_sleep_env(c)) < 0)
		return rc;
	if ((cfg->link_size & (cfg->link_size - 1)) != 0)
		return fail_at(c, marks[ENGINE_LINK_SIZE],
			       "engine.link_size must be a power of two, got %u", cfg->link_size);
	if ((cfg->epoch_ring & (cfg->epoch_ring - 1)) != 0)
		return fail_at(c, marks[ENGINE_EPOCH_RING],
			       "engine.epoch_ring must be a power of two, got %u", cfg->epoch_ring);
	return 0;
}

/* topology: { c2c: FILE }: a core-to-core latency matrix saved by
 * `sluice topology --measure --save FILE`, used where hwloc reports a single
 * L3 domain; `none`: no matrix. */
int parse_topology(struct ctx *c, const yaml_node_t *n)
{
	struct sl_param_value v[SL_ARRAY_LEN(topology_keys)] = { { 0 } };
	struct sl_mark marks[SL_ARRAY_LEN(topology_keys)] = { { 0, 0 } };
	int rc = parse_keys(c, n, &sections[SEC_TOPOLOGY], v, marks);

	if (rc == 0 && strcmp(v[0].s, "none") != 0) {
		c->cfg->c2c_path = strdup(v[0].s);
		if (c->cfg->c2c_path == NULL)
			rc = out_of_memory(c);
		c->cfg->c2c_mark = marks[0];
	}
	free_values(v, SL_ARRAY_LEN(topology_keys));
	return rc;
}

/* ---- dpdk --------------------------------------------------------------- */

bool sl_eal_arg_reserved(const char *a)
{
	if (a[0] == '-' && (a[1] == 'l' || a[1] == 'c'))
		return true;     /* -l LIST, -lLIST, -c MASK, -cMASK */
	if (a[0] != '-' || a[1] != '-')
		return false;
	const char *name = a + 2;
	size_t n = strcspn(name, "=");
	return (n >= 2 && n <= 6 && strncmp(name, "lcores", n) == 0) ||
	       (n >= 3 && n <= 10 && strncmp(name, "main-lcore", n) == 0);
}

int parse_dpdk(struct ctx *c, const yaml_node_t *n)
{
	static const char *const known[] = { "args" };
	struct sl_config *cfg = c->cfg;
	const yaml_node_t *args = NULL;
	int rc;

	if (section_absent(n))
		return 0;
	if (n->type != YAML_MAPPING_NODE)
		return fail_at(c, node_mark(n), "'dpdk' must be a mapping with 'args', got %s",
			       kind_name(n));
	rc = check_keys(c, n, "key", "dpdk: ");
	if (rc < 0)
		return rc;
	for (const yaml_node_pair_t *p = n->data.mapping.pairs.start;
	     p < n->data.mapping.pairs.top; p++) {
		const yaml_node_t *k = node_at(c, p->key);
		if (strcmp(text_of(k), "args") != 0)
			return unknown_key(c, k, "dpdk: ", "key", known, 1);
		args = node_at(c, p->value);
	}
	if (args == NULL || is_null(args))
		return 0;
	if (args->type != YAML_SEQUENCE_NODE)
		return fail_at(c, node_mark(args),
			       "dpdk.args must be a sequence of strings like [--no-huge, -m, \"512\"], got %s",
			       kind_name(args));

	cfg->eal_args = calloc(n_items(args) + 1, sizeof(*cfg->eal_args));
	if (cfg->eal_args == NULL)
		return out_of_memory(c);
	for (const yaml_node_item_t *i = args->data.sequence.items.start;
	     i < args->data.sequence.items.top; i++) {
		const yaml_node_t *a = node_at(c, *i);
		if (a->type != YAML_SCALAR_NODE)
			return fail_at(c, node_mark(a),
				       "dpdk.args must be a sequence of strings, got %s as an item",
				       kind_name(a));
		if (sl_eal_arg_reserved(text_of(a)))
			return fail_at(c, node_mark(a),
				       "dpdk.args: '%s' is not allowed: Sluice assigns lcores from the workers section",
				       text_of(a));
		cfg->eal_args[cfg->n_eal_args] = strdup(text_of(a));
		if (cfg->eal_args[cfg->n_eal_args] == NULL)
			return out_of_memory(c);
		cfg->n_eal_args++;
	}
	return 0;
}
