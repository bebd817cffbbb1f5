/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Placement on hwloc synthetic machines: chosen CPUs, hop classes, warnings,
 * and the messages of impossible placements.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "config/place.h"
#include "placement/placement.h"
#include "placement/topology.h"

#include "check.h"

static struct sl_topology *machine(const char *desc)
{
	struct sl_err err;
	setenv("HWLOC_SYNTHETIC", desc, 1);
	struct sl_topology *t = sl_topology_load(&err);
	if (t == NULL) {
		printf("FAIL: topology '%s': %s\n", desc, err.msg);
		exit(1);
	}
	return t;
}

/* A chain of n workers w0 -> w1 -> ... with one app each (source, l2fwd..., sink). */
static struct sl_config *chain(unsigned n, const char *extra_workers, const char *pins[])
{
	char text[4096];
	size_t off = 0;
	off += (size_t)snprintf(text + off, sizeof(text) - off, "workers:\n");
	for (unsigned i = 0; i < n; i++)
		off += (size_t)snprintf(text + off, sizeof(text) - off, "  w%u: %s\n", i,
					pins && pins[i] ? pins[i] : "auto");
	off += (size_t)snprintf(text + off, sizeof(text) - off, "%sapps:\n", extra_workers);
	for (unsigned i = 0; i < n; i++)
		off += (size_t)snprintf(text + off, sizeof(text) - off, "  a%u: { type: %s, worker: w%u }\n",
					i, i == 0 ? "source" : (i + 1 == n ? "sink" : "l2fwd"), i);
	off += (size_t)snprintf(text + off, sizeof(text) - off, "links:\n");
	for (unsigned i = 0; i + 1 < n; i++)
		off += (size_t)snprintf(text + off, sizeof(text) - off, "  - a%u.output -> a%u.input\n",
					i, i + 1);
	struct sl_err err;
	struct sl_config *cfg = sl_config_parse("p.yaml", text, strlen(text), &err);
	if (cfg == NULL) {
		printf("FAIL: config: %s\n%s", err.msg, text);
		exit(1);
	}
	return cfg;
}

static unsigned count_hops(const struct sl_config *cfg, const struct sl_plan *p, enum sl_hop h)
{
	unsigned n = 0;
	for (unsigned l = 0; l < cfg->n_links; l++)
		n += p->cross[l] && p->hops[l] == h;
	return n;
}

static bool warned(const struct sl_plan *p, const char *text)
{
	for (unsigned i = 0; i < p->n_warnings; i++)
		if (strstr(p->warnings[i], text) != NULL)
			return true;
	return false;
}

/* EPYC-like: 24 cores in four L3 domains of 6. */
static void test_epyc(void)
{
	struct sl_topology *t = machine("pack:1 l3:4 core:6 pu:1");
	struct sl_err err;
	struct sl_plan p;

	/* A chain of 4 fits one L3 domain beside the control thread. */
	struct sl_config *cfg = chain(4, "", NULL);
	CHECK(sl_config_place(cfg, t, NULL, &p, &err) == 0, "%s", err.msg);
	CHECK(p.main_cpu == 0, "control thread on cpu %d", p.main_cpu);
	for (unsigned w = 0; w < 4; w++) {
		CHECK(p.cpus[w] >= 1 && p.cpus[w] <= 5, "w%u on cpu %d, expected 1..5", w, p.cpus[w]);
		for (unsigned v = 0; v < w; v++)
			CHECK(p.cpus[w] != p.cpus[v], "w%u and w%u share cpu %d", w, v, p.cpus[w]);
	}
	CHECK(count_hops(cfg, &p, SL_HOP_L3) == 3, "%u same-l3 hops of 3",
	      count_hops(cfg, &p, SL_HOP_L3));
	CHECK(p.n_warnings == 0, "unexpected warning: %s", p.warnings[0]);
	sl_plan_free(&p);
	sl_config_free(cfg);

	/* A chain of 7 cannot fit one domain (6 CPUs, one of them the control
	 * thread's): exactly one link crosses L3, with a warning, and no two
	 * workers share a CPU. */
	cfg = chain(7, "", NULL);
	CHECK(sl_config_place(cfg, t, NULL, &p, &err) == 0, "%s", err.msg);
	CHECK(count_hops(cfg, &p, SL_HOP_CROSS_L3) == 1, "%u cross-l3 hops, expected 1",
	      count_hops(cfg, &p, SL_HOP_CROSS_L3));
	CHECK(count_hops(cfg, &p, SL_HOP_L3) == 5, "%u same-l3 hops, expected 5",
	      count_hops(cfg, &p, SL_HOP_L3));
	CHECK(warned(&p, "crosses L3 domains"), "no cross-L3 warning");
	for (unsigned w = 0; w < 7; w++)
		CHECK(p.cpus[w] != p.main_cpu, "w%u shares the control thread's cpu", w);
	sl_plan_free(&p);
	sl_config_free(cfg);

	/* An explicit core is honoured, and its neighbour joins its domain. */
	const char *pins[] = { "13", NULL, NULL };
	cfg = chain(3, "", pins);
	CHECK(sl_config_place(cfg, t, NULL, &p, &err) == 0, "%s", err.msg);
	CHECK(p.cpus[0] == 13, "pinned worker on cpu %d", p.cpus[0]);
	CHECK(p.cpus[1] >= 12 && p.cpus[1] <= 17 && p.cpus[2] >= 12 && p.cpus[2] <= 17,
	      "neighbours on cpus %d and %d, expected L3 domain 2 (12..17)", p.cpus[1], p.cpus[2]);
	CHECK(count_hops(cfg, &p, SL_HOP_L3) == 2, "hops not same-l3");
	sl_plan_free(&p);
	sl_config_free(cfg);

	/* A core the machine does not have. */
	const char *bad[] = { NULL, "30" };
	cfg = chain(2, "", bad);
	CHECK(sl_config_place(cfg, t, NULL, &p, &err) == -EINVAL, "core 30 accepted");
	CHECK(strcmp(err.msg, "p.yaml:3:3: worker 'w1': core 30 does not exist "
			      "(the described machine has CPUs 0-23)") == 0, "message: %s", err.msg);
	sl_config_free(cfg);

	/* A core this process may not use. */
	cpu_set_t allowed;
	CPU_ZERO(&allowed);
	for (int c = 0; c < 12; c++)
		CPU_SET(c, &allowed);
	const char *far[] = { "20", NULL };
	cfg = chain(2, "", far);
	CHECK(sl_config_place(cfg, t, &allowed, &p, &err) == -EINVAL, "core 20 accepted");
	CHECK(strcmp(err.msg, "p.yaml:2:3: worker 'w0': core 20 is not available to this "
			      "process (available: 0-11)") == 0, "message: %s", err.msg);
	sl_config_free(cfg);
	sl_topology_free(t);
}

/* Two sockets, one NUMA node and one L3 each. */
static void test_two_sockets(void)
{
	struct sl_topology *t = machine("pack:2 l3:1 core:4 pu:1");
	struct sl_err err;
	struct sl_plan p;
	CHECK(t->n_numa == 2 || t->n_numa == 1, "numa nodes %u", t->n_numa);

	struct sl_config *cfg = chain(3, "", NULL);
	CHECK(sl_config_place(cfg, t, NULL, &p, &err) == 0, "%s", err.msg);
	CHECK(count_hops(cfg, &p, SL_HOP_L3) == 2, "chain of 3 not kept in one socket");
	sl_plan_free(&p);
	sl_config_free(cfg);

	/* Pinned across sockets: the hop is reported and warned about. */
	const char *pins[] = { "1", "5" };
	cfg = chain(2, "", pins);
	CHECK(sl_config_place(cfg, t, NULL, &p, &err) == 0, "%s", err.msg);
	enum sl_hop want = t->n_numa == 2 ? SL_HOP_CROSS_NUMA : SL_HOP_CROSS_L3;
	CHECK(p.hops[0] == want, "hop %s, expected %s", sl_hop_name(p.hops[0]), sl_hop_name(want));
	CHECK(warned(&p, "crosses"), "no warning for a cross-socket link");
	sl_plan_free(&p);
	sl_config_free(cfg);
	sl_topology_free(t);
}

/* Two NUMA nodes declared explicitly. */
static void test_numa(void)
{
	struct sl_topology *t = machine("pack:2 numa:1 l3:2 core:4 pu:1");
	struct sl_err err;
	struct sl_plan p;
	CHECK(t->n_numa == 2, "numa nodes %u, expected 2", t->n_numa);
	CHECK(t->n_l3 == 4, "l3 domains %u, expected 4", t->n_l3);
	CHECK(sl_topology_hop(t, 0, 9) == SL_HOP_CROSS_NUMA, "0-9 is %s",
	      sl_hop_name(sl_topology_hop(t, 0, 9)));
	CHECK(sl_topology_hop(t, 0, 5) == SL_HOP_CROSS_L3, "0-5 is %s",
	      sl_hop_name(sl_topology_hop(t, 0, 5)));
	CHECK(sl_topology_hop(t, 1, 2) == SL_HOP_L3, "1-2 is %s",
	      sl_hop_name(sl_topology_hop(t, 1, 2)));
	struct sl_config *cfg = chain(4, "", NULL);
	CHECK(sl_config_place(cfg, t, NULL, &p, &err) == 0, "%s", err.msg);
	CHECK(count_hops(cfg, &p, SL_HOP_CROSS_NUMA) == 0, "a chain of 4 crossed NUMA nodes");
	sl_plan_free(&p);
	sl_config_free(cfg);
	sl_topology_free(t);
}

/* A flat 16-core machine: no L3 objects; workers still get distinct CPUs. */
static void test_flat(void)
{
	struct sl_topology *t = machine("pack:1 core:16 pu:1");
	struct sl_err err;
	struct sl_plan p;
	struct sl_config *cfg = chain(4, "", NULL);
	CHECK(sl_config_place(cfg, t, NULL, &p, &err) == 0, "%s", err.msg);
	unsigned seen = 0;
	for (unsigned w = 0; w < 4; w++) {
		CHECK(p.cpus[w] >= 1 && p.cpus[w] <= 4, "w%u on cpu %d, expected 1..4", w, p.cpus[w]);
		seen |= 1u << p.cpus[w];
	}
	CHECK(seen == 0x1e, "workers share CPUs on a flat machine (mask %#x)", seen);
	CHECK(count_hops(cfg, &p, SL_HOP_CROSS_L3) == 0, "cross-l3 on a flat machine");
	sl_plan_free(&p);
	sl_config_free(cfg);
	sl_topology_free(t);
}

/* Worker groups: two groups of five on four L3 domains of six cores: each
 * group packed into one domain, none shared by the two. */
static void test_groups(void)
{
	struct sl_topology *t = machine("pack:1 l3:4 core:6 pu:1");
	static const char text[] =
		"workers:\n  a: { count: 5 }\n  b: { count: 5 }\n"
		"apps:\n  g: { type: source, worker: a }\n  s: { type: sink, worker: a }\n"
		"  g2: { type: source, worker: b }\n  s2: { type: sink, worker: b }\n"
		"links: [g.output -> s.input, g2.output -> s2.input]\n";
	struct sl_err err;
	struct sl_plan p;
	struct sl_config *cfg = sl_config_parse("groups.yaml", text, strlen(text), &err);
	CHECK(cfg != NULL, "%s", err.msg);
	if (cfg == NULL)
		return;
	CHECK(cfg->n_workers == 10, "%u workers, expected 10 members", cfg->n_workers);
	CHECK(sl_config_place(cfg, t, NULL, &p, &err) == 0, "%s", err.msg);
	int l3[2] = { -1, -1 };
	for (unsigned w = 0; w < cfg->n_workers; w++) {
		int d = sl_topology_pu(t, p.cpus[w])->l3;
		unsigned g = w / 5;
		if (l3[g] < 0)
			l3[g] = d;
		CHECK(d == l3[g], "%s in L3 domain %d, its group's first member in %d",
		      cfg->workers[w].name, d, l3[g]);
	}
	CHECK(l3[0] != l3[1], "both groups in L3 domain %d", l3[0]);
	sl_plan_free(&p);
	sl_config_free(cfg);
	sl_topology_free(t);
}

/* SMT: two hardware threads per core; busy workers avoid sharing a core. */
static void test_smt(void)
{
	struct sl_topology *t = machine("pack:1 l3:1 core:4 pu:2");
	struct sl_err err;
	struct sl_plan p;
	CHECK(sl_topology_hop(t, 0, 1) == SL_HOP_SMT, "0-1 is %s",
	      sl_hop_name(sl_topology_hop(t, 0, 1)));
	struct sl_config *cfg = chain(3, "", NULL);
	CHECK(sl_config_place(cfg, t, NULL, &p, &err) == 0, "%s", err.msg);
	for (unsigned w = 0; w < 3; w++)
		for (unsigned v = 0; v < w; v++)
			CHECK(sl_topology_pu(t, p.cpus[w])->core != sl_topology_pu(t, p.cpus[v])->core,
			      "w%u (cpu %d) and w%u (cpu %d) share a core", w, p.cpus[w], v, p.cpus[v]);
	CHECK(!warned(&p, "SMT"), "SMT warning with free cores left");
	sl_plan_free(&p);
	sl_config_free(cfg);

	/* Five workers on four cores: someone must share a core, and is told. */
	cfg = chain(5, "", NULL);
	CHECK(sl_config_place(cfg, t, NULL, &p, &err) == 0, "%s", err.msg);
	CHECK(warned(&p, "SMT siblings"), "no SMT warning with 5 workers on 4 cores");
	sl_plan_free(&p);
	sl_config_free(cfg);

	/* Pinned SMT siblings are honoured (asked for) but warned about. */
	const char *pins[] = { "2", "3" };
	cfg = chain(2, "", pins);
	CHECK(sl_config_place(cfg, t, NULL, &p, &err) == 0, "%s", err.msg);
	CHECK(p.cpus[0] == 2 && p.cpus[1] == 3, "pins not honoured");
	CHECK(p.hops[0] == SL_HOP_SMT, "hop %s", sl_hop_name(p.hops[0]));
	CHECK(warned(&p, "SMT siblings"), "no SMT warning for pinned siblings");
	sl_plan_free(&p);
	sl_config_free(cfg);
	sl_topology_free(t);
}

/* Two workers on a 2-CPU machine: the control thread must share. */
static void test_tiny(void)
{
	struct sl_topology *t = machine("pack:1 l3:2 core:1 pu:1");
	struct sl_err err;
	struct sl_plan p;
	struct sl_config *cfg = chain(2, "", NULL);
	CHECK(sl_config_place(cfg, t, NULL, &p, &err) == 0, "%s", err.msg);
	CHECK(p.cpus[0] != p.cpus[1], "workers share a CPU with one free");
	CHECK(warned(&p, "control thread shares"), "no warning for the shared control thread");
	sl_plan_free(&p);
	sl_config_free(cfg);
	sl_topology_free(t);
}

/* n_chains chains of len workers each, one app per worker, as above. */
static struct sl_config *chains(unsigned n_chains, unsigned len)
{
	size_t cap = (size_t)n_chains * len * 128 + 64, off = 0;
	char *text = malloc(cap);
	unsigned n = n_chains * len;
	off += (size_t)snprintf(text + off, cap - off, "workers:\n");
	for (unsigned i = 0; i < n; i++)
		off += (size_t)snprintf(text + off, cap - off, "  w%u: auto\n", i);
	off += (size_t)snprintf(text + off, cap - off, "apps:\n");
	for (unsigned i = 0; i < n; i++)
		off += (size_t)snprintf(text + off, cap - off, "  a%u: { type: %s, worker: w%u }\n", i,
					i % len == 0 ? "source" : (i % len == len - 1 ? "sink" : "l2fwd"),
					i);
	off += (size_t)snprintf(text + off, cap - off, "links:\n");
	for (unsigned i = 0; i + 1 < n; i++)
		if (i % len != len - 1)
			off += (size_t)snprintf(text + off, cap - off,
						"  - a%u.output -> a%u.input\n", i, i + 1);
	struct sl_err err;
	struct sl_config *cfg = sl_config_parse("p.yaml", text, off, &err);
	if (cfg == NULL) {
		printf("FAIL: config: %s\n", err.msg);
		exit(1);
	}
	free(text);
	return cfg;
}

/* Placement at scale: 256 auto workers on 1024 PUs (two NUMA nodes, 32 L3
 * domains of 16 two-thread cores).  The plan keeps the rules: no two workers
 * on one core, the control thread on a CPU of its own, every chain of 8
 * inside one L3 domain, a chain of 256 split across the fewest domains. */
static void test_scale(void)
{
	struct sl_topology *t = machine("pack:2 numa:1 l3:16 core:16 pu:2");
	struct sl_err err;
	struct sl_plan p;
	CHECK(t->n_pus == 1024 && t->n_l3 == 32 && t->n_numa == 2,
	      "topology: %u PUs, %u L3, %u NUMA", t->n_pus, t->n_l3, t->n_numa);

	struct sl_config *cfg = chains(32, 8);
	CHECK(sl_config_place(cfg, t, NULL, &p, &err) == 0, "%s", err.msg);
	bool *core_used = calloc(t->n_cores, sizeof(*core_used));
	unsigned shared = 0, on_main = 0;
	for (unsigned w = 0; w < cfg->n_workers; w++) {
		const struct sl_topo_pu *pu = sl_topology_pu(t, p.cpus[w]);
		CHECK(pu != NULL, "w%u on cpu %d, not in the topology", w, p.cpus[w]);
		if (pu == NULL)
			continue;
		shared += core_used[pu->core];
		core_used[pu->core] = true;
		on_main += p.cpus[w] == p.main_cpu;
	}
	free(core_used);
	CHECK(shared == 0, "%u workers share a core with another", shared);
	CHECK(on_main == 0, "%u workers on the control thread's cpu %d", on_main, p.main_cpu);
	CHECK(count_hops(cfg, &p, SL_HOP_L3) == 32 * 7, "%u same-l3 hops of %u",
	      count_hops(cfg, &p, SL_HOP_L3), 32 * 7);
	CHECK(p.n_warnings == 0, "%u warnings, the first: %s", p.n_warnings, p.warnings[0]);
	sl_plan_free(&p);
	sl_config_free(cfg);

	/* One chain of 256 needs 16 domains of 16 cores: 15 crossings at
	 * least; the control thread's CPU may cost one more.  Never a NUMA
	 * crossing beyond the one between the halves, never a shared core. */
	cfg = chains(1, 256);
	CHECK(sl_config_place(cfg, t, NULL, &p, &err) == 0, "%s", err.msg);
	unsigned cross = count_hops(cfg, &p, SL_HOP_CROSS_L3),
		 numa = count_hops(cfg, &p, SL_HOP_CROSS_NUMA);
	CHECK(cross + numa >= 15 && cross + numa <= 16, "%u cross-l3 and %u cross-numa hops, "
	      "expected 15 or 16 in all", cross, numa);
	CHECK(numa <= 1, "%u cross-numa hops", numa);
	CHECK(count_hops(cfg, &p, SL_HOP_SMT) == 0 && count_hops(cfg, &p, SL_HOP_SAME_CPU) == 0,
	      "a chain of 256 on 512 cores shares a core");
	CHECK(!warned(&p, "share cpu") && !warned(&p, "SMT") && !warned(&p, "control thread"),
	      "unexpected warning: %s", p.warnings[0]);
	sl_plan_free(&p);
	sl_config_free(cfg);

	/* 640 workers on 512 cores: 128 cores take two, no CPU takes two,
	 * the control thread keeps its own CPU. */
	cfg = chains(80, 8);
	CHECK(sl_config_place(cfg, t, NULL, &p, &err) == 0, "%s", err.msg);
	unsigned *on_cpu = calloc(1024, sizeof(*on_cpu));
	unsigned twice = 0;
	on_main = 0;
	for (unsigned w = 0; w < cfg->n_workers; w++) {
		twice += on_cpu[p.cpus[w]]++ > 0;
		on_main += p.cpus[w] == p.main_cpu;
	}
	free(on_cpu);
	CHECK(twice == 0, "%u workers share a CPU with another", twice);
	CHECK(on_main == 0, "%u workers on the control thread's cpu", on_main);
	CHECK(warned(&p, "SMT siblings"), "no SMT warning with 640 workers on 512 cores");
	sl_plan_free(&p);
	sl_config_free(cfg);
	sl_topology_free(t);
}

/* A machine description hwloc refuses: NULL, errno EINVAL, a sentence
 * naming the topology and quoting the description. */
static void test_bad_descriptions(void)
{
	struct sl_err err = { "" };
	setenv("HWLOC_SYNTHETIC", "pack:1 bogus:3", 1);
	errno = 0;
	struct sl_topology *t = sl_topology_load(&err);
	CHECK(t == NULL && errno == EINVAL &&
	      strcmp(err.msg, "topology: HWLOC_SYNTHETIC='pack:1 bogus:3' is not a valid hwloc "
		     "synthetic description (e.g. \"pack:1 l3:4 core:6 pu:1\")") == 0,
	      "bad synthetic: errno %d, '%s'", errno, err.msg);
	sl_topology_free(t);
	unsetenv("HWLOC_SYNTHETIC");

	setenv("HWLOC_XMLFILE", "/nonexistent/topo.xml", 1);
	errno = 0;
	t = sl_topology_load(&err);
	CHECK(t == NULL && errno == EINVAL &&
	      strstr(err.msg, "topology: HWLOC_XMLFILE='/nonexistent/topo.xml': cannot read it "
		     "as an hwloc XML export: ") == err.msg,
	      "bad XML file: errno %d, '%s'", errno, err.msg);
	sl_topology_free(t);
	unsetenv("HWLOC_XMLFILE");
}

/* Placement on its own input, with no configuration: an explicit core is
 * kept, the linked auto worker joins its L3 domain, a NUMA wish is asked
 * of the app's callback, and errors name the input's path and position. */
static int numa_wish(const void *arg, const struct sl_topology *topo)
{
	(void)topo;
	return *(const int *)arg;
}

static void test_input_alone(void)
{
	struct sl_topology *t = machine("pack:2 numa:1 l3:2 core:4 pu:1");
	const int node = 1;
	struct sl_place_worker workers[] = {
		{ .name = "rx", .core = 9, .line = 3, .col = 5 },
		{ .name = "tx", .core = SL_PLACE_AUTO, .line = 4, .col = 5 },
		{ .name = "nic", .core = SL_PLACE_AUTO, .line = 5, .col = 5 },
	};
	struct sl_place_app apps[] = {
		{ .name = "a", .type = "source", .worker = 0 },
		{ .name = "b", .type = "sink", .worker = 1 },
		{ .name = "c", .type = "sink", .worker = 2, .numa = numa_wish, .arg = &node },
	};
	struct sl_place_link links[] = {
		{ .from = 0, .to = 1, .from_port = "output", .to_port = "input" },
	};
	struct sl_place_input in = {
		.path = "in.yaml", .workers = workers, .n_workers = 3, .apps = apps, .n_apps = 3,
		.links = links, .n_links = 1,
	};
	struct sl_err err = { "" };
	struct sl_plan p;
	CHECK(sl_place(&in, t, NULL, &p, &err) == 0, "%s", err.msg);
	if (p.cpus != NULL) {
		CHECK(p.cpus[0] == 9, "rx on cpu %d, not its core 9", p.cpus[0]);
		CHECK(sl_topology_pu(t, p.cpus[1])->l3 == sl_topology_pu(t, 9)->l3,
		      "tx on cpu %d, not in rx's L3 domain", p.cpus[1]);
		CHECK(sl_topology_pu(t, p.cpus[2])->numa == 1, "nic on cpu %d, off node 1",
		      p.cpus[2]);
		CHECK(p.cross[0] && p.hops[0] == SL_HOP_L3, "link a -> b: hop %d", (int)p.hops[0]);
	}
	sl_plan_free(&p);

	workers[1].core = 9;
	CHECK(sl_place(&in, t, NULL, &p, &err) == -EINVAL &&
	      strcmp(err.msg, "in.yaml:4:5: worker 'tx': core 9 is already used by worker 'rx'") == 0,
	      "'%s'", err.msg);
	sl_topology_free(t);
}

static const struct sl_test_case cases[] = {
	SL_CASE(test_epyc),
	SL_CASE(test_two_sockets),
	SL_CASE(test_numa),
	SL_CASE(test_flat),
	SL_CASE(test_groups),
	SL_CASE(test_smt),
	SL_CASE(test_tiny),
	SL_CASE(test_scale),
	SL_CASE(test_input_alone),
	SL_CASE(test_bad_descriptions),
};

int main(int argc, char **argv)
{
	int rc = sl_test_main(argc, argv, cases, SL_NCASES(cases));
	unsetenv("HWLOC_SYNTHETIC");
	return rc;
}
