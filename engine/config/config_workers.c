/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The workers section: workers of their own and worker groups (their
 * members, each core claimed once), and the pool warnings that depend on
 * the number of workers.
 */
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "config/config.h"
#include "config/config_private.h"

/* Room for n more workers. */
static int grow_workers(struct ctx *c, unsigned n)
{
	struct sl_config *cfg = c->cfg;
	struct sl_worker_cfg *w = realloc(cfg->workers, (cfg->n_workers + n) * sizeof(*w));
	if (w == NULL)
		return out_of_memory(c);
	memset(w + cfg->n_workers, 0, n * sizeof(*w));
	cfg->workers = w;
	return 0;
}

static int add_worker(struct ctx *c, const char *name, int core, struct sl_mark mark)
{
	struct sl_config *cfg = c->cfg;
	int rc = grow_workers(c, 1);
	if (rc < 0)
		return rc;
	struct sl_worker_cfg *w = &cfg->workers[cfg->n_workers];
	w->name = strdup(name);
	if (w->name == NULL)
		return out_of_memory(c);
	w->core = core;
	w->mark = mark;
	cfg->n_workers++;
	c->workers_by_name[c->n_worker_refs++] = (struct name_ref){ w->name, cfg->n_workers - 1 };
	return 0;
}

/* Take CPU cpu for worker `name` (the config's index `owner`), unless another
 * worker has it. */
static int claim_core(struct ctx *c, const yaml_node_t *at, const char *name, uint64_t cpu,
		      unsigned owner)
{
	int owner_idx = c->core_owner[cpu] - 1;
	if (owner_idx >= 0)
		return fail_at(c, node_mark(at),
			       "worker '%s': core %" PRIu64 " is already used by worker '%s'",
			       name, cpu, c->cfg->workers[owner_idx].name);
	c->core_owner[cpu] = (int)owner + 1;
	return 0;
}

/* A CPU number of worker `name` written at n (any number parses; the range
 * is checked in words that name the CPU set). */
static int parse_cpu(struct ctx *c, const char *name, const char *what, const yaml_node_t *n,
		     uint64_t *cpu)
{
	struct sl_param_spec any_cpu = worker_keys[0];
	struct sl_param_value val;
	any_cpu.max = 0;
	if (n->type != YAML_SCALAR_NODE || sl_param_parse(&any_cpu, text_of(n), &val, NULL) < 0)
		return fail_at(c, node_mark(n), "worker '%s': %s must be a CPU number%s, got %s%s%s",
			       name, what, strcmp(what, "core") == 0 ? " or 'auto'" : "",
			       n->type == YAML_SCALAR_NODE ? "'" : "",
			       n->type == YAML_SCALAR_NODE ? text_of(n) : kind_name(n),
			       n->type == YAML_SCALAR_NODE ? "'" : "");
	/* Whether the core exists and may be used is the placement's question
	 * (engine/placement/placement.c): it depends on the machine, not on the file. */
	if (val.u > worker_keys[0].max)
		return fail_at(c, node_mark(n), "worker '%s': %s must be below %" PRIu64 ", got %" PRIu64,
			       name, what, worker_keys[0].max + 1, val.u);
	*cpu = val.u;
	return 0;
}

/* A group: `cores: [N, ...]` (one member per CPU) or `count: N` (members
 * placed as core: auto).  Members are workers NAME@0, NAME@1, ...; the name
 * itself refers to the group (its first member, n_members of them). */
static int parse_group(struct ctx *c, const yaml_node_t *k, const yaml_node_t *cores,
		       const yaml_node_t *count)
{
	struct sl_config *cfg = c->cfg;
	const char *name = text_of(k);
	const yaml_node_t *at = cores != NULL ? cores : count;
	unsigned n;
	if (cores != NULL && count != NULL)
		return fail_at(c, node_mark(count),
			       "worker '%s': give either cores (a list of CPUs) or count, not both",
			       name);
	if (cores != NULL) {
		if (cores->type != YAML_SEQUENCE_NODE)
			return fail_at(c, node_mark(cores),
				       "worker '%s': cores must be a list of CPU numbers like [2, 3], got %s",
				       name, kind_name(cores));
		n = n_items(cores);
		if (n == 0)
			return fail_at(c, node_mark(cores),
				       "worker '%s': cores is empty; a group needs at least one core",
				       name);
	} else {
		struct sl_param_value val;
		struct sl_err perr;
		if (count->type != YAML_SCALAR_NODE ||
		    sl_param_parse(&worker_keys[2], text_of(count), &val, &perr) < 0 || val.u == 0)
			return fail_at(c, node_mark(count),
				       "worker '%s': count must be a number of members from 1 to %u, got %s%s%s",
				       name, (unsigned)SL_GROUP_MAX, count->type == YAML_SCALAR_NODE ? "'" : "",
				       count->type == YAML_SCALAR_NODE ? text_of(count) : kind_name(count),
				       count->type == YAML_SCALAR_NODE ? "'" : "");
		n = (unsigned)val.u;
	}
	if (n > SL_GROUP_MAX)
		return fail_at(c, node_mark(at), "worker '%s': a group has at most %u members, got %u",
			       name, (unsigned)SL_GROUP_MAX, n);
	unsigned first = cfg->n_workers;
	int rc = grow_workers(c, n);
	if (rc < 0)
		return rc;
	for (unsigned m = 0; m < n; m++) {
		struct sl_worker_cfg *w = &cfg->workers[first + m];
		uint64_t cpu = 0;
		w->core = SL_CORE_AUTO;
		if (cores != NULL) {
			const yaml_node_t *cn = node_at(c, cores->data.sequence.items.start[m]);
			rc = parse_cpu(c, name, "each of cores", cn, &cpu);
			if (rc == 0)
				rc = claim_core(c, cn, name, cpu, first + m);
			if (rc < 0)
				return rc;
			w->core = (int)cpu;
		}
		char member[160];
		snprintf(member, sizeof(member), "%s@%u", name, m);
		w->name = strdup(member);
		w->group = strdup(name);
		if (w->name == NULL || w->group == NULL)
			return out_of_memory(c);
		w->member = m;
		w->n_members = n;
		w->mark = node_mark(k);
		cfg->n_workers++;
	}
	c->workers_by_name[c->n_worker_refs++] = (struct name_ref){ cfg->workers[first].group, first };
	return 0;
}

/* The value of one worker: `auto`, a CPU number, { core: ... }, or a group:
 * { cores: [...] } or { count: N }. */
static int parse_worker(struct ctx *c, const yaml_node_t *k, const yaml_node_t *v)
{
	static const char *const known[] = { "core", "cores", "count" };
	const struct sl_param_spec *core_spec = &worker_keys[0];
	const char *name = text_of(k);
	const yaml_node_t *core = v, *cores = NULL, *count = NULL;
	char owner[128];
	int rc;

	snprintf(owner, sizeof(owner), "worker '%s': ", name);
	if (!valid_name(name))
		return fail_at(c, node_mark(k),
			       "worker name '%s' is not valid: use letters, digits, '_' and '-', starting with a letter",
			       name);
	if (v->type == YAML_MAPPING_NODE) {
		core = NULL;
		rc = check_keys(c, v, "key", owner);
		if (rc < 0)
			return rc;
		for (const yaml_node_pair_t *p = v->data.mapping.pairs.start;
		     p < v->data.mapping.pairs.top; p++) {
			const yaml_node_t *key = node_at(c, p->key);
			const yaml_node_t **slot = strcmp(text_of(key), "core") == 0 ? &core :
						   strcmp(text_of(key), "cores") == 0 ? &cores :
						   strcmp(text_of(key), "count") == 0 ? &count : NULL;
			if (slot == NULL)
				return unknown_key(c, key, owner, "key", known, SL_ARRAY_LEN(known));
			*slot = node_at(c, p->value);
		}
		if ((cores != NULL || count != NULL) && core != NULL)
			return fail_at(c, node_mark(core),
				       "worker '%s': core names one CPU for one worker; a group gives cores or count instead",
				       name);
		if (cores != NULL || count != NULL)
			return parse_group(c, k, cores, count);
	} else if (v->type != YAML_SCALAR_NODE) {
		return fail_at(c, node_mark(v),
			       "worker '%s' must be a core number, 'auto', { core: N | auto }, { cores: [N, ...] } or { count: N }, got %s",
			       name, kind_name(v));
	}

	/* The default, core_spec->def, is read as if it had been written. */
	if (core == NULL || is_null(core) ||
	    (core->type == YAML_SCALAR_NODE && strcmp(text_of(core), core_spec->def) == 0))
		return add_worker(c, name, SL_CORE_AUTO, node_mark(k));
	uint64_t cpu;
	rc = parse_cpu(c, name, "core", core, &cpu);
	if (rc == 0)
		rc = claim_core(c, core, name, cpu, c->cfg->n_workers);
	if (rc < 0)
		return rc;
	return add_worker(c, name, (int)cpu, node_mark(k));
}

int parse_workers(struct ctx *c, const yaml_node_t *n)
{
	unsigned count = 1;
	int rc;

	if (!section_absent(n)) {
		if (n->type != YAML_MAPPING_NODE)
			return fail_at(c, node_mark(n),
				       "'workers' must be a mapping of worker names to { core: N | auto }, got %s",
				       kind_name(n));
		count = n_pairs(n);
		if (count == 0)
			return fail_at(c, node_mark(n),
				       "'workers' names no worker; leave it out to run every app on one worker");
	}
	c->workers_by_name = calloc(count, sizeof(*c->workers_by_name));
	c->core_owner = calloc(CPU_SETSIZE, sizeof(*c->core_owner));
	if (c->workers_by_name == NULL || c->core_owner == NULL)
		return out_of_memory(c);
	if (section_absent(n)) {
		rc = add_worker(c, "main", SL_CORE_AUTO, (struct sl_mark){ 1, 1 });
	} else {
		rc = check_keys(c, n, "worker", "");
		for (const yaml_node_pair_t *p = n->data.mapping.pairs.start;
		     rc == 0 && p < n->data.mapping.pairs.top; p++)
			rc = parse_worker(c, node_at(c, p->key), node_at(c, p->value));
	}
	if (rc < 0)
		return rc;
	qsort(c->workers_by_name, c->n_worker_refs, sizeof(*c->workers_by_name), cmp_name_ref);
	return 0;
}

/* Workers x (chunk or high mark) against the pool: warn where the workers'
 * freelists can hold every buffer (a worker then finds the pool empty while
 * buffers sit on the others' freelists).  A warning, not an error: traffic
 * that does not go everywhere at once may never strand them. */
int pool_warnings(struct ctx *c)
{
	const struct sl_config *cfg = c->cfg;
	const struct sl_pool_cfg *pc = &cfg->pool;
	uint64_t w = cfg->n_workers;
	uint64_t high = pc->high != 0 ? pc->high : (uint64_t)pc->chunk * 3 / 2;

	if (pc->ops != SL_POOL_OPS_SLUICE || w < 2)
		return 0;
	if (w * pc->chunk > pc->mbufs)
		return config_warn(c, c->pool_mark,
				   "pool: %u workers x pool.chunk %u = %" PRIu64 " buffers, more than "
				   "pool.mbufs (%u): buffers move between workers in whole chunks, so "
				   "a worker can find the pool empty while the others hold every "
				   "buffer; raise pool.mbufs or lower pool.chunk",
				   cfg->n_workers, pc->chunk, w * pc->chunk, pc->mbufs);
	if (w * high >= pc->mbufs)
		return config_warn(c, c->pool_mark,
				   "pool: %u workers x a freelist high mark of %" PRIu64 " = %" PRIu64
				   " buffers, at least pool.mbufs (%u): the workers' freelists can "
				   "hold every buffer, so a worker can find the pool empty while the "
				   "others hold them; raise pool.mbufs or lower pool.high",
				   cfg->n_workers, high, w * high, pc->mbufs);
	return 0;
}

const char *worker_list(const struct sl_config *cfg, char *buf, size_t len)
{
	const char *names[64];
	unsigned n = cfg->n_workers < SL_ARRAY_LEN(names) ? cfg->n_workers : SL_ARRAY_LEN(names);

	for (unsigned i = 0; i < n; i++)
		names[i] = cfg->workers[i].name;
	return join_names(names, n, buf, len);
}
