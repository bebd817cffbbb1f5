/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_config: what `sluice check FILE` does, on arbitrary bytes.  The bytes
 * become a file (fuzz.h), sl_config_load reads and checks it against the
 * registered app types (apps_lib is linked whole), and an accepted config is
 * placed with sl_config_place on a fixed synthetic machine loaded once
 * (HWLOC_SYNTHETIC, two L3 domains, so that a topology.c2c path is never
 * opened: fuzz_c2c covers that loader) and its plan printed to /dev/null.
 *
 * Promises checked: a rejected config has a message that starts with
 * FILE:LINE:COL (the file is always readable here); an accepted one has
 * every index in range (apps, workers, ports, links), a push order that is a
 * permutation of the apps, a burst in 1..SL_BURST_MAX, every integer
 * parameter and list within its schema's range; a plan puts every worker on
 * a CPU of the machine.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>

#include "config/config.h"
#include "config/place.h"
#include "placement/topology.h"

#include "fuzz.h"

#define FUZZ_MACHINE "pack:2 l3:2 core:4 pu:2"

static struct sl_topology *topo;
static FILE *devnull;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct sl_err err = { "" };

	setenv("HWLOC_SYNTHETIC", FUZZ_MACHINE, 1);
	fuzz_require(sl_app_registry_check(&err) == 0, "app registry: %s", err.msg);
	topo = sl_topology_load(&err);
	fuzz_require(topo != NULL, "topology '%s': %s", FUZZ_MACHINE, err.msg);
	devnull = fopen("/dev/null", "w");
	fuzz_require(devnull != NULL, "cannot open /dev/null");
	return 0;
}

static void check_params(const struct sl_app_cfg *a)
{
	for (unsigned p = 0; p < a->type->n_params; p++) {
		const struct sl_param_spec *s = &a->type->params[p];
		const struct sl_param_value *v = &a->params[p];
		if (s->type == SL_PARAM_UINT)
			fuzz_require(v->u >= s->min && (s->max == 0 || v->u <= s->max),
				     "app '%s': parameter '%s' = %llu outside %llu..%llu", a->name,
				     s->name, (unsigned long long)v->u, (unsigned long long)s->min,
				     (unsigned long long)s->max);
		if (s->type == SL_PARAM_TABLE)
			fuzz_require(v->n_rows >= s->min && (s->max == 0 || v->n_rows <= s->max),
				     "app '%s': list '%s' has %u rows outside %llu..%llu", a->name,
				     s->name, v->n_rows, (unsigned long long)s->min,
				     (unsigned long long)s->max);
	}
}

static void check_endpoint(const struct sl_config *cfg, const struct sl_endpoint *e, bool out)
{
	fuzz_require(e->app < cfg->n_apps, "link endpoint app %u of %u", e->app, cfg->n_apps);
	const struct sl_app_type *t = cfg->apps[e->app].type;
	fuzz_require(e->spec < (out ? t->n_outputs : t->n_inputs),
		     "link endpoint '%s.%s': port spec %u out of range", cfg->apps[e->app].name,
		     e->port, e->spec);
	fuzz_require(e->port != NULL && e->port[0] != '\0', "link endpoint without a port name");
}

static void check_config(const struct sl_config *cfg)
{
	fuzz_require(cfg->burst >= 1 && cfg->burst <= SL_BURST_MAX, "burst %u", cfg->burst);
	fuzz_require(cfg->n_apps == 0 || cfg->order != NULL, "no push order");
	bool *seen = calloc(cfg->n_apps + 1, sizeof(*seen));
	fuzz_require(seen != NULL, "out of memory");
	for (unsigned k = 0; k < cfg->n_apps; k++) {
		unsigned i = cfg->order[k];
		fuzz_require(i < cfg->n_apps && !seen[i], "push order is not a permutation");
		seen[i] = true;
	}
	free(seen);
	for (unsigned i = 0; i < cfg->n_apps; i++) {
		const struct sl_app_cfg *a = &cfg->apps[i];
		fuzz_require(a->name != NULL && a->name[0] != '\0', "app %u has no name", i);
		fuzz_require(a->type != NULL, "app '%s' has no type", a->name);
		fuzz_require(a->worker < cfg->n_workers, "app '%s': worker %u of %u", a->name,
			     a->worker, cfg->n_workers);
		fuzz_require(a->type->n_params == 0 || a->params != NULL,
			     "app '%s' has no parameter values", a->name);
		check_params(a);
	}
	for (unsigned l = 0; l < cfg->n_links; l++) {
		check_endpoint(cfg, &cfg->links[l].from, true);
		check_endpoint(cfg, &cfg->links[l].to, false);
	}
}

/* Does msg start with "PATH:LINE:COL:"? */
static bool has_file_line_col(const char *msg, const char *path)
{
	size_t n = strlen(path);
	if (strncmp(msg, path, n) != 0 || msg[n] != ':')
		return false;
	const char *p = msg + n + 1;
	for (int field = 0; field < 2; field++) {
		if (!isdigit((unsigned char)*p))
			return false;
		while (isdigit((unsigned char)*p))
			p++;
		if (*p++ != ':')
			return false;
	}
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_file(data, size);
	struct sl_err err = { "" };
	struct sl_config *cfg = sl_config_load(path, &err);
	int load_errno = errno;

	if (cfg == NULL) {
		fuzz_require(load_errno > 0, "a rejected config with errno %d", load_errno);
		fuzz_require(fuzz_has_message(err.msg, sizeof(err.msg)),
			     "a rejected config without a message");
		fuzz_require(has_file_line_col(err.msg, path),
			     "message does not start with FILE:LINE:COL: %s", err.msg);
		return 0;
	}
	check_config(cfg);

	struct sl_plan plan;
	memset(err.msg, 0, sizeof(err.msg));
	if (sl_config_place(cfg, topo, NULL, &plan, &err) == 0) {
		for (unsigned w = 0; w < cfg->n_workers; w++)
			fuzz_require(sl_topology_pu(topo, plan.cpus[w]) != NULL,
				     "worker '%s' placed on cpu %d, not a CPU of the machine",
				     cfg->workers[w].name, plan.cpus[w]);
		fuzz_require(plan.n_warnings <= SL_PLAN_MAX_WARNINGS, "%u warnings",
			     plan.n_warnings);
		sl_config_plan_print(cfg, topo, &plan, devnull);
		sl_plan_free(&plan);
	} else {
		fuzz_require(fuzz_has_message(err.msg, sizeof(err.msg)),
			     "a placement refused without a message");
	}
	sl_config_free(cfg);
	return 0;
}
