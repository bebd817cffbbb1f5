/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "c2c.h"
#include "placement.h"

/* Relative cost of a link by hop class: sharing a CPU is worst for two busy
 * workers, then crossing NUMA, then crossing L3. */
static const unsigned hop_cost[] = {
	[SL_HOP_SAME_CPU] = 60, [SL_HOP_SMT] = 4, [SL_HOP_L3] = 1,
	[SL_HOP_CROSS_L3] = 10, [SL_HOP_CROSS_NUMA] = 30,
};

static void warn(struct sl_plan *plan, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void warn(struct sl_plan *plan, const char *fmt, ...)
{
	if (plan->n_warnings >= SL_PLAN_MAX_WARNINGS)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(plan->warnings[plan->n_warnings++], sizeof(plan->warnings[0]), fmt, ap);
	va_end(ap);
}

struct state {
	const struct sl_config *cfg;
	const struct sl_topology *topo;
	struct sl_plan *plan;
	bool *usable;       /* per topo PU index */
	unsigned *load;     /* workers per topo PU index */
	unsigned *weight;   /* n_workers x n_workers link counts */
	int *numa;          /* per worker: wanted NUMA node, -1 none */
	bool *placed;
};

static unsigned pu_index(const struct sl_topology *t, int cpu)
{
	const struct sl_topo_pu *p = sl_topology_pu(t, cpu);
	return (unsigned)(p - t->pus);
}

/* Busy neighbours of PU i: another worker on its core (an SMT sibling). */
static bool sibling_busy(const struct state *s, unsigned i)
{
	const struct sl_topology *t = s->topo;
	for (unsigned j = 0; j < t->n_pus; j++)
		if (j != i && s->load[j] > 0 && t->pus[j].core == t->pus[i].core &&
		    t->pus[j].core >= 0)
			return true;
	return false;
}

static unsigned free_in_l3(const struct state *s, int l3)
{
	unsigned n = 0;
	for (unsigned j = 0; j < s->topo->n_pus; j++)
		if (s->usable[j] && s->load[j] == 0 && s->topo->pus[j].l3 == l3)
			n++;
	return n;
}

/* Cost of putting worker w on PU i (lower is better). */
static unsigned long cost(const struct state *s, unsigned w, unsigned i)
{
	const struct sl_topology *t = s->topo;
	unsigned n = s->cfg->n_workers;
	unsigned long c = 0;
	bool linked = false;
	for (unsigned v = 0; v < n; v++) {
		if (!s->placed[v] || s->weight[w * n + v] == 0)
			continue;
		linked = true;
		enum sl_hop h = sl_topology_hop(t, t->pus[i].cpu, s->plan->cpus[v]);
		c += (unsigned long)s->weight[w * n + v] * hop_cost[h];
	}
	c *= 1000;
	/* Busy-poll workers must not share a CPU or a core while others are free. */
	c += (unsigned long)s->load[i] * 1000000UL;
	if (sibling_busy(s, i))
		c += 100000UL;
	if (s->numa[w] >= 0 && t->pus[i].numa != s->numa[w])
		c += 50000UL;
	if (i == pu_index(t, s->plan->main_cpu) && s->plan->main_cpu >= 0)
		c += 20000UL;
	/* A worker that starts a new group prefers the roomiest L3 domain, so
	 * that the workers linked to it later fit beside it; one pushed out of
	 * its neighbours' full domain prefers the fullest domain with room, so
	 * that the overflow of one group stays together. */
	unsigned room = free_in_l3(s, t->pus[i].l3);
	if (room > 999)
		room = 999;
	c += linked ? room : 999 - room;
	return c;
}

/* Cost of a whole plan: the weighted hop cost of every pair of linked
 * workers, plus the penalties of cost() for shared CPUs and cores, NUMA
 * misses and sharing with the control thread. */
static unsigned long total_cost(const struct state *s)
{
	const struct sl_topology *t = s->topo;
	const int *cpus = s->plan->cpus;
	unsigned n = s->cfg->n_workers;
	unsigned long c = 0;
	for (unsigned w = 0; w < n; w++) {
		const struct sl_topo_pu *p = sl_topology_pu(t, cpus[w]);
		for (unsigned v = 0; v < w; v++) {
			enum sl_hop h = sl_topology_hop(t, cpus[w], cpus[v]);
			c += (unsigned long)s->weight[w * n + v] * hop_cost[h] * 1000;
			if (h == SL_HOP_SAME_CPU)
				c += 1000000UL;
			else if (h == SL_HOP_SMT)
				c += 100000UL;
		}
		if (s->numa[w] >= 0 && p->numa != s->numa[w])
			c += 50000UL;
		if (cpus[w] == s->plan->main_cpu)
			c += 20000UL;
	}
	return c;
}

/* Local search after the greedy pass: swap the CPUs of two auto workers, or
 * move one to a CPU no worker uses, while that lowers the total cost.  This
 * repairs what greedy growth from the most-connected worker gets wrong (a
 * long chain split at both ends across domains).  Bounded passes. */
static void improve(struct state *s)
{
	const struct sl_config *cfg = s->cfg;
	const struct sl_topology *t = s->topo;
	int *cpus = s->plan->cpus;
	unsigned n = cfg->n_workers;
	unsigned long best = total_cost(s);

	for (unsigned pass = 0; pass < 16; pass++) {
		bool better = false;
		for (unsigned w = 0; w < n; w++) {
			if (cfg->workers[w].core != SL_CORE_AUTO)
				continue;
			for (unsigned v = w + 1; v < n; v++) {
				if (cfg->workers[v].core != SL_CORE_AUTO)
					continue;
				int a = cpus[w];
				cpus[w] = cpus[v];
				cpus[v] = a;
				unsigned long c = total_cost(s);
				if (c < best) {
					best = c;
					better = true;
				} else {
					cpus[v] = cpus[w];
					cpus[w] = a;
				}
			}
			for (unsigned i = 0; i < t->n_pus; i++) {
				if (!s->usable[i] || s->load[i] > 0)
					continue;
				int from = cpus[w];
				cpus[w] = t->pus[i].cpu;
				unsigned long c = total_cost(s);
				if (c < best) {
					best = c;
					better = true;
					s->load[pu_index(t, from)]--;
					s->load[i]++;
				} else {
					cpus[w] = from;
				}
			}
		}
		if (!better)
			break;
	}
}

static int worker_error(const struct sl_config *cfg, unsigned w, struct sl_err *err,
			const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static int worker_error(const struct sl_config *cfg, unsigned w, struct sl_err *err,
			const char *fmt, ...)
{
	char text[400];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	return sl_errf(err, EINVAL, "%s:%u:%u: worker '%s': %s", cfg->path,
		       cfg->workers[w].mark.line, cfg->workers[w].mark.col,
		       cfg->workers[w].name, text);
}

static void cpu_list(const struct sl_topology *t, const cpu_set_t *allowed, char *buf,
		     size_t len)
{
	size_t off = 0;
	int start = -1, prev = -2;
	buf[0] = '\0';
	for (unsigned i = 0; i <= t->n_pus; i++) {
		int c = i < t->n_pus ? t->pus[i].cpu : -10;
		if (c >= 0 && allowed != NULL && !CPU_ISSET(c, allowed))
			c = -10;
		if (c == prev + 1 && c >= 0) {
			prev = c;
			continue;
		}
		if (start >= 0 && off < len)
			off += (size_t)snprintf(buf + off, len - off, start == prev ? "%s%d" : "%s%d-%d",
						off ? "," : "", start, prev);
		start = c;
		prev = c;
	}
	if (off == 0)
		snprintf(buf, len, "none");
}

static int check_explicit(struct state *s, const cpu_set_t *allowed, struct sl_err *err)
{
	const struct sl_config *cfg = s->cfg;
	char list[256];
	for (unsigned w = 0; w < cfg->n_workers; w++) {
		int core = cfg->workers[w].core;
		if (core == SL_CORE_AUTO)
			continue;
		const struct sl_topo_pu *p = sl_topology_pu(s->topo, core);
		if (p == NULL) {
			cpu_list(s->topo, NULL, list, sizeof(list));
			return worker_error(cfg, w, err, "core %d does not exist (%s has CPUs %s)",
					    core, s->topo->synthetic ? "the described machine"
								     : "this machine", list);
		}
		if (!s->usable[p - s->topo->pus]) {
			cpu_list(s->topo, allowed, list, sizeof(list));
			return worker_error(cfg, w, err,
					    "core %d is not available to this process (available: %s)",
					    core, list);
		}
		for (unsigned v = 0; v < w; v++)
			if (cfg->workers[v].core == core)
				return worker_error(cfg, w, err,
						    "core %d is already used by worker '%s'", core,
						    cfg->workers[v].name);
		s->plan->cpus[w] = core;
		s->placed[w] = true;
		s->load[p - s->topo->pus]++;
	}
	return 0;
}

/* The worker to place next: most links to placed workers, then most links
 * overall, then declaration order. */
static int next_worker(const struct state *s)
{
	unsigned n = s->cfg->n_workers;
	int best = -1;
	unsigned best_to = 0, best_all = 0;
	for (unsigned w = 0; w < n; w++) {
		if (s->placed[w])
			continue;
		unsigned to = 0, all = 0;
		for (unsigned v = 0; v < n; v++) {
			all += s->weight[w * n + v];
			if (s->placed[v])
				to += s->weight[w * n + v];
		}
		if (best < 0 || to > best_to || (to == best_to && all > best_all)) {
			best = (int)w;
			best_to = to;
			best_all = all;
		}
	}
	return best;
}

static void choose_main(struct state *s, unsigned n_auto)
{
	const struct sl_topology *t = s->topo;
	unsigned free_cpus = 0;
	for (unsigned i = 0; i < t->n_pus; i++)
		if (s->usable[i] && s->load[i] == 0)
			free_cpus++;
	/* The first usable CPU no explicit worker uses; if auto workers will
	 * need every free CPU, the control thread shares the first one. */
	s->plan->main_cpu = -1;
	for (unsigned i = 0; i < t->n_pus && s->plan->main_cpu < 0; i++)
		if (s->usable[i] && s->load[i] == 0)
			s->plan->main_cpu = t->pus[i].cpu;
	if (s->plan->main_cpu < 0)
		for (unsigned i = 0; i < t->n_pus && s->plan->main_cpu < 0; i++)
			if (s->usable[i])
				s->plan->main_cpu = t->pus[i].cpu;
	(void)free_cpus;
	(void)n_auto;
}

static int fill_numa_hints(struct state *s)
{
	const struct sl_config *cfg = s->cfg;
	for (unsigned w = 0; w < cfg->n_workers; w++)
		s->numa[w] = -1;
	for (unsigned a = 0; a < cfg->n_apps; a++) {
		const struct sl_app_cfg *ac = &cfg->apps[a];
		if (ac->type->numa == NULL)
			continue;
		int node = ac->type->numa(ac->params, s->topo);
		if (node >= 0)
			s->numa[ac->worker] = node;
	}
	return 0;
}

int sl_place(const struct sl_config *cfg, const struct sl_topology *topo,
	     const cpu_set_t *allowed, struct sl_plan *plan, struct sl_err *err)
{
	unsigned n = cfg->n_workers, np = topo->n_pus;
	struct state s = { .cfg = cfg, .topo = topo, .plan = plan };
	int rc = -ENOMEM;

	memset(plan, 0, sizeof(*plan));
	plan->cpus = calloc(n, sizeof(*plan->cpus));
	plan->hops = calloc(cfg->n_links + 1, sizeof(*plan->hops));
	plan->cross = calloc(cfg->n_links + 1, sizeof(*plan->cross));
	s.usable = calloc(np + 1, sizeof(*s.usable));
	s.load = calloc(np + 1, sizeof(*s.load));
	s.weight = calloc((size_t)n * n, sizeof(*s.weight));
	s.numa = calloc(n, sizeof(*s.numa));
	s.placed = calloc(n, sizeof(*s.placed));
	if (!plan->cpus || !plan->hops || !plan->cross || !s.usable || !s.load || !s.weight ||
	    !s.numa || !s.placed) {
		sl_errf(err, ENOMEM, "out of memory");
		goto out;
	}
	unsigned n_usable = 0;
	for (unsigned i = 0; i < np; i++) {
		s.usable[i] = allowed == NULL || CPU_ISSET(topo->pus[i].cpu, allowed);
		n_usable += s.usable[i];
	}
	if (n_usable == 0) {
		rc = sl_errf(err, EINVAL, "no CPU of the topology is available to this process");
		goto out;
	}
	for (unsigned l = 0; l < cfg->n_links; l++) {
		unsigned a = cfg->apps[cfg->links[l].from.app].worker;
		unsigned b = cfg->apps[cfg->links[l].to.app].worker;
		if (a != b) {
			s.weight[a * n + b]++;
			s.weight[b * n + a]++;
			plan->cross[l] = true;
		}
	}
	fill_numa_hints(&s);
	rc = check_explicit(&s, allowed, err);
	if (rc < 0)
		goto out;

	unsigned n_auto = 0;
	for (unsigned w = 0; w < n; w++)
		n_auto += !s.placed[w];
	choose_main(&s, n_auto);

	for (int w; (w = next_worker(&s)) >= 0;) {
		unsigned best = 0;
		unsigned long best_cost = ~0UL;
		for (unsigned i = 0; i < np; i++) {
			if (!s.usable[i])
				continue;
			unsigned long c = cost(&s, (unsigned)w, i);
			if (c < best_cost) {
				best_cost = c;
				best = i;
			}
		}
		plan->cpus[w] = topo->pus[best].cpu;
		s.placed[w] = true;
		s.load[best]++;
	}

	improve(&s);

	/* Hop classes and warnings. */
	for (unsigned l = 0; l < cfg->n_links; l++) {
		if (!plan->cross[l])
			continue;
		const struct sl_link_cfg *lc = &cfg->links[l];
		unsigned a = cfg->apps[lc->from.app].worker, b = cfg->apps[lc->to.app].worker;
		plan->hops[l] = sl_topology_hop(topo, plan->cpus[a], plan->cpus[b]);
		if (plan->hops[l] >= SL_HOP_CROSS_L3)
			warn(plan, "link %s.%s -> %s.%s crosses %s (workers '%s' on cpu %d, '%s' on cpu %d)",
			     cfg->apps[lc->from.app].name, lc->from.port, cfg->apps[lc->to.app].name,
			     lc->to.port, plan->hops[l] == SL_HOP_CROSS_L3 ? "L3 domains" : "NUMA nodes",
			     cfg->workers[a].name, plan->cpus[a], cfg->workers[b].name, plan->cpus[b]);
	}
	for (unsigned w = 0; w < n; w++) {
		for (unsigned v = 0; v < w; v++) {
			enum sl_hop h = sl_topology_hop(topo, plan->cpus[w], plan->cpus[v]);
			if (h == SL_HOP_SAME_CPU)
				warn(plan, "workers '%s' and '%s' share cpu %d: both busy-poll, each gets about half of it",
				     cfg->workers[v].name, cfg->workers[w].name, plan->cpus[w]);
			else if (h == SL_HOP_SMT)
				warn(plan, "workers '%s' and '%s' are SMT siblings (cpus %d and %d) and share one core",
				     cfg->workers[v].name, cfg->workers[w].name, plan->cpus[v], plan->cpus[w]);
		}
		const struct sl_topo_pu *p = sl_topology_pu(topo, plan->cpus[w]);
		if (s.numa[w] >= 0 && p->numa != s.numa[w])
			warn(plan, "worker '%s' runs on NUMA node %d but its NIC is on node %d",
			     cfg->workers[w].name, p->numa, s.numa[w]);
		if (plan->cpus[w] == plan->main_cpu)
			warn(plan, "the control thread shares cpu %d with worker '%s' (no free CPU left)",
			     plan->main_cpu, cfg->workers[w].name);
	}
	rc = 0;
out:
	free(s.usable);
	free(s.load);
	free(s.weight);
	free(s.numa);
	free(s.placed);
	if (rc < 0)
		sl_plan_free(plan);
	return rc;
}

void sl_plan_free(struct sl_plan *plan)
{
	free(plan->cpus);
	free(plan->hops);
	free(plan->cross);
	plan->cpus = NULL;
	plan->hops = NULL;
	plan->cross = NULL;
}

void sl_plan_print(const struct sl_config *cfg, const struct sl_topology *topo,
		   const struct sl_plan *plan, FILE *out)
{
	fprintf(out, "machine: %s\n", topo->source);
	fprintf(out, "%-16s %5s %5s %4s %5s  %s\n", "worker", "cpu", "core", "l3", "numa", "apps");
	for (unsigned w = 0; w < cfg->n_workers; w++) {
		const struct sl_topo_pu *p = sl_topology_pu(topo, plan->cpus[w]);
		fprintf(out, "%-16s %5d %5d %4d %5d  %s", cfg->workers[w].name, p->cpu, p->core,
			p->l3, p->numa, cfg->workers[w].core == SL_CORE_AUTO ? "" : "(explicit) ");
		bool first = true;
		for (unsigned a = 0; a < cfg->n_apps; a++)
			if (cfg->apps[a].worker == w) {
				fprintf(out, "%s%s", first ? "" : ", ", cfg->apps[a].name);
				first = false;
			}
		fprintf(out, "\n");
	}
	const struct sl_topo_pu *m = sl_topology_pu(topo, plan->main_cpu);
	fprintf(out, "%-16s %5d %5d %4d %5d\n", "(control)", m->cpu, m->core, m->l3, m->numa);
	fprintf(out, "links:\n");
	for (unsigned l = 0; l < cfg->n_links; l++) {
		const struct sl_link_cfg *lc = &cfg->links[l];
		char name[128];
		snprintf(name, sizeof(name), "%s.%s -> %s.%s", cfg->apps[lc->from.app].name,
			 lc->from.port, cfg->apps[lc->to.app].name, lc->to.port);
		fprintf(out, "  %-44s %s\n", name,
			plan->cross[l] ? sl_hop_name(plan->hops[l]) : "local (same worker)");
	}
	for (unsigned i = 0; i < plan->n_warnings; i++)
		fprintf(out, "warning: %s\n", plan->warnings[i]);
}

/* Where hwloc sees a single L3 domain and the config names a saved matrix,
 * the measured domains stand in.  Returns 0, 1 if applied, or -errno. */
static int measured_domains(const struct sl_config *cfg, struct sl_topology *t,
			    struct sl_err *err)
{
	if (cfg->c2c_path == NULL || t->n_l3 > 1)
		return 0;
	struct sl_c2c *m = sl_c2c_load(cfg->c2c_path, err);
	if (m == NULL)
		return sl_err_prefix(err, EINVAL, "%s: topology.c2c", cfg->path);
	int rc = sl_topology_apply_domains(t, m, SL_C2C_DOMAIN_FACTOR);
	sl_c2c_free(m);
	if (rc < 0)
		return sl_errf(err, EINVAL, "%s: topology.c2c: '%s' covers no CPU of this machine",
			       cfg->path, cfg->c2c_path);
	return 1;
}

int sl_plan_here(const struct sl_config *cfg, struct sl_topology **topo,
		 struct sl_plan *plan, struct sl_err *err)
{
	cpu_set_t allowed;
	int rc;
	*topo = sl_topology_load(err);
	if (*topo == NULL)
		return -EINVAL;
	unsigned hw_l3 = (*topo)->n_l3;
	rc = measured_domains(cfg, *topo, err);
	if (rc >= 0 && !(*topo)->synthetic &&
	    sched_getaffinity(0, sizeof(allowed), &allowed) != 0)
		rc = sl_errf(err, errno, "cannot read this process's CPU affinity: %s",
			     strerror(errno));
	if (rc >= 0)
		rc = sl_place(cfg, *topo, (*topo)->synthetic ? NULL : &allowed, plan, err);
	if (rc < 0) {
		sl_topology_free(*topo);
		*topo = NULL;
		return rc;
	}
	if (cfg->c2c_path != NULL && hw_l3 > 1)
		warn(plan, "topology.c2c ignored: hwloc reports %u L3 domains", hw_l3);
	return 0;
}
