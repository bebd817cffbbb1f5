/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_c2c: the core-to-core matrix loader (engine/placement/c2c.h) on arbitrary
 * bytes, then what a loaded matrix goes through: `sluice topology --load`
 * (print, domains), a save and reload, and the path of `topology: { c2c: }`
 * in a config (the measured domains applied to a one-L3 synthetic machine,
 * then placement of a fixed four-worker pipeline on it).
 *
 * Promises checked (the matrix's own last, so that one that breaks them
 * still goes through the rest): a rejection has a message naming the file;
 * an accepted matrix has at least one CPU, distinct non-negative CPU ids and
 * finite non-negative latencies; the domains number 1..n with every CPU in
 * one; a saved matrix loads again unchanged; a plan puts every worker on a
 * CPU of the machine.
 */
#include <errno.h>
#include <math.h>

#include "placement/c2c.h"
#include "config/config.h"
#include "config/place.h"
#include "placement/topology.h"

#include "fuzz.h"

#define FUZZ_MACHINE "pack:1 l3:1 core:4 pu:2"

static const char pipeline[] =
	"workers: { a: { core: auto }, b: { core: auto }, c: { core: auto }, d: { core: auto } }\n"
	"apps:\n"
	"  s1: { type: source, worker: a }\n"
	"  f1: { type: l2fwd, worker: b }\n"
	"  s2: { type: source, worker: c }\n"
	"  k:  { type: sink, worker: d }\n"
	"  k2: { type: sink, worker: b }\n"
	"links: [ s1.output -> f1.input, f1.output -> k.input, s2.output -> k2.input ]\n";

static struct sl_topology *machine;
static struct sl_config *cfg;
static FILE *devnull;
static char save_path[64];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct sl_err err = { "" };

	setenv("HWLOC_SYNTHETIC", FUZZ_MACHINE, 1);
	fuzz_require(sl_app_registry_check(&err) == 0, "app registry: %s", err.msg);
	machine = sl_topology_load(&err);
	fuzz_require(machine != NULL, "topology '%s': %s", FUZZ_MACHINE, err.msg);
	cfg = sl_config_parse("pipeline", pipeline, sizeof(pipeline) - 1, &err);
	fuzz_require(cfg != NULL, "pipeline: %s", err.msg);
	devnull = fopen("/dev/null", "w");
	fuzz_require(devnull != NULL, "cannot open /dev/null");
	int fd = memfd_create("sluice-fuzz-save", 0);
	fuzz_require(fd >= 0, "memfd_create failed");
	snprintf(save_path, sizeof(save_path), "/proc/self/fd/%d", fd);
	return 0;
}

/* A copy of machine that sl_topology_apply_domains may change. */
static struct sl_topology *machine_copy(void)
{
	struct sl_topology *t = malloc(sizeof(*t));
	fuzz_require(t != NULL, "out of memory");
	*t = *machine;
	t->pus = malloc(machine->n_pus * sizeof(*t->pus) + 1);
	t->pci = malloc(machine->n_pci * sizeof(*t->pci) + 1);
	fuzz_require(t->pus != NULL && t->pci != NULL, "out of memory");
	if (machine->n_pus > 0)
		memcpy(t->pus, machine->pus, machine->n_pus * sizeof(*t->pus));
	if (machine->n_pci > 0)
		memcpy(t->pci, machine->pci, machine->n_pci * sizeof(*t->pci));
	return t;
}

static void check_matrix(const struct sl_c2c *m)
{
	fuzz_require(m->n >= 1, "a matrix of %u CPUs", m->n);
	for (unsigned i = 0; i < m->n; i++) {
		fuzz_require(m->cpus[i] >= 0, "cpu id %d accepted", m->cpus[i]);
		for (unsigned j = 0; j < i; j++)
			fuzz_require(m->cpus[j] != m->cpus[i], "cpu %d accepted twice", m->cpus[i]);
		for (unsigned j = 0; j < m->n; j++) {
			double v = m->ns[i * m->n + j];
			fuzz_require(isfinite(v) && v >= 0, "latency %g accepted (cpu %d to %d)", v,
				     m->cpus[i], m->cpus[j]);
		}
	}
}

static void check_reload(const struct sl_c2c *m)
{
	struct sl_err err = { "" };
	fuzz_require(sl_c2c_save(m, save_path, &err) == 0, "save: %s", err.msg);
	struct sl_c2c *again = sl_c2c_load(save_path, &err);
	fuzz_require(again != NULL, "a saved matrix of %u CPUs does not load: %s", m->n,
		     err.msg);
	fuzz_require(again->n == m->n && memcmp(again->cpus, m->cpus, m->n * sizeof(int)) == 0,
		     "a saved matrix loads with other CPUs");
	/* Saved with one decimal; NaN and infinities (which check_matrix
	 * refuses) come back as themselves. */
	for (unsigned k = 0; k < m->n * m->n; k++) {
		double a = m->ns[k], b = again->ns[k];
		fuzz_require(a == b || (isnan(a) && isnan(b)) || fabs(a - b) <= 0.05 + 1e-9 * fabs(a),
			     "a saved latency %g loads as %g", a, b);
	}
	sl_c2c_free(again);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_file(data, size);
	struct sl_err err = { "" };
	struct sl_c2c *m = sl_c2c_load(path, &err);
	int load_errno = errno;

	if (m == NULL) {
		fuzz_require(load_errno > 0, "a rejected matrix with errno %d", load_errno);
		fuzz_require(fuzz_has_message(err.msg, sizeof(err.msg)),
			     "a rejected matrix without a message");
		fuzz_require(strstr(err.msg, path) != NULL,
			     "message does not name the file: %s", err.msg);
		return 0;
	}
	sl_c2c_print(m, devnull);

	int *dom = calloc(m->n + 1, sizeof(*dom));
	fuzz_require(dom != NULL, "out of memory");
	unsigned nd = sl_c2c_domains(m, SL_C2C_DOMAIN_FACTOR, dom);
	fuzz_require(nd >= 1 && nd <= m->n, "%u domains for %u CPUs", nd, m->n);
	for (unsigned i = 0; i < m->n; i++)
		fuzz_require(dom[i] >= 0 && (unsigned)dom[i] < nd, "cpu %d in domain %d of %u",
			     m->cpus[i], dom[i], nd);
	free(dom);

	check_reload(m);

	struct sl_topology *t = machine_copy();
	int rc = sl_topology_apply_domains(t, m, SL_C2C_DOMAIN_FACTOR, NULL);
	if (rc == 0) {
		for (unsigned k = 0; k < t->n_pus; k++)
			fuzz_require(t->pus[k].l3 >= 0 && (unsigned)t->pus[k].l3 < t->n_l3,
				     "cpu %d in L3 %d of %u", t->pus[k].cpu, t->pus[k].l3, t->n_l3);
		struct sl_plan plan;
		if (sl_config_place(cfg, t, NULL, &plan, &err) == 0) {
			for (unsigned w = 0; w < cfg->n_workers; w++)
				fuzz_require(sl_topology_pu(t, plan.cpus[w]) != NULL,
					     "worker placed on cpu %d", plan.cpus[w]);
			sl_config_plan_print(cfg, t, &plan, devnull);
			sl_plan_free(&plan);
		} else {
			fuzz_require(fuzz_has_message(err.msg, sizeof(err.msg)),
				     "a placement refused without a message");
		}
	}
	sl_topology_free(t);
	/* Last, so that a matrix breaking a promise still goes through all the
	 * above under the sanitizers. */
	check_matrix(m);
	sl_c2c_free(m);
	return 0;
}
