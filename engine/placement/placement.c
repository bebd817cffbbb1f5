/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "placement/c2c.h"
#include "placement/placement.h"

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

/* Working state of one placement.  Every per-PU array is indexed by the PU's
 * index in topo->pus; domains (cores, L3) are indexed by their logical index
 * plus one, so that -1 ("absent") has a slot too.  The counters are kept up
 * to date as workers are placed and moved, so that the cost of a candidate
 * CPU is computed from a worker's links and O(1) counters, never by scanning
 * every worker or every PU. */
struct state {
	const struct sl_place_input *in;
	const struct sl_topology *topo;
	struct sl_plan *plan;
	bool *usable;       /* per PU */
	unsigned *load;     /* per PU: workers on it */
	unsigned *core_load;   /* per core: workers on its PUs */
	unsigned *core_busy;   /* per core: PUs of it with a worker */
	unsigned *l3_free;     /* per L3 domain: usable PUs with no worker */
	unsigned *adj_start;   /* per worker + 1: its links in adj_v/adj_w */
	unsigned *adj_v;       /* linked worker, ascending per worker */
	unsigned *adj_w;       /* number of links to it */
	unsigned *to_placed;   /* per worker: links to placed workers */
	unsigned *all;         /* per worker: links to other workers */
	int *numa;          /* per worker: wanted NUMA node, -1 none */
	int *pu_of;         /* per worker: PU index, -1 until placed */
	unsigned main_pu;   /* PU index of the control thread */
};

static unsigned pu_index(const struct sl_topology *t, int cpu)
{
	const struct sl_topo_pu *p = sl_topology_pu(t, cpu);
	return (unsigned)(p - t->pus);
}

static unsigned core_slot(const struct state *s, unsigned i)
{
	return (unsigned)(s->topo->pus[i].core + 1);
}

static unsigned l3_slot(const struct state *s, unsigned i)
{
	return (unsigned)(s->topo->pus[i].l3 + 1);
}

/* Put worker w on PU i, or take it off its PU, keeping the counters. */
static void put(struct state *s, unsigned w, unsigned i)
{
	if (s->load[i]++ == 0) {
		s->core_busy[core_slot(s, i)]++;
		if (s->usable[i])
			s->l3_free[l3_slot(s, i)]--;
	}
	s->core_load[core_slot(s, i)]++;
	s->pu_of[w] = (int)i;
	s->plan->cpus[w] = s->topo->pus[i].cpu;
}

static void take(struct state *s, unsigned w)
{
	unsigned i = (unsigned)s->pu_of[w];
	if (--s->load[i] == 0) {
		s->core_busy[core_slot(s, i)]--;
		if (s->usable[i])
			s->l3_free[l3_slot(s, i)]++;
	}
	s->core_load[core_slot(s, i)]--;
	s->pu_of[w] = -1;
}

/* Note that worker w is placed, for next_worker. */
static void placed(struct state *s, unsigned w)
{
	for (unsigned k = s->adj_start[w]; k < s->adj_start[w + 1]; k++)
		s->to_placed[s->adj_v[k]] += s->adj_w[k];
}

/* Busy neighbours of PU i: another worker on its core (an SMT sibling). */
static bool sibling_busy(const struct state *s, unsigned i)
{
	if (s->topo->pus[i].core < 0)
		return false;
	return s->core_busy[core_slot(s, i)] > (s->load[i] > 0 ? 1u : 0u);
}

/* Weighted hop cost of worker w's links if w ran on PU i, counting only
 * placed workers other than `except`; *linked tells whether there was one. */
static unsigned long link_cost(const struct state *s, unsigned w, unsigned i,
			       unsigned except, bool *linked)
{
	unsigned long c = 0;
	*linked = false;
	for (unsigned k = s->adj_start[w]; k < s->adj_start[w + 1]; k++) {
		unsigned v = s->adj_v[k];
		if (v == except || s->pu_of[v] < 0)
			continue;
		*linked = true;
		c += (unsigned long)s->adj_w[k] * hop_cost[sl_topology_hop_pus(s->topo, i, (unsigned)s->pu_of[v])];
	}
	return c;
}

/* Cost of putting worker w on PU i (lower is better). */
static unsigned long cost(const struct state *s, unsigned w, unsigned i)
{
	const struct sl_topology *t = s->topo;
	bool linked;
	unsigned long c = link_cost(s, w, i, ~0u, &linked);
	c *= 1000;
	/* Busy-poll workers must not share a CPU or a core while others are free. */
	c += (unsigned long)s->load[i] * 1000000UL;
	if (sibling_busy(s, i))
		c += 100000UL;
	if (s->numa[w] >= 0 && t->pus[i].numa != s->numa[w])
		c += 50000UL;
	if (i == s->main_pu)
		c += 20000UL;
	/* A worker that starts a new group prefers the roomiest L3 domain, so
	 * that the workers linked to it later fit beside it; one pushed out of
	 * its neighbours' full domain prefers the fullest domain with room, so
	 * that the overflow of one group stays together. */
	unsigned room = s->l3_free[l3_slot(s, i)];
	if (room > 999)
		room = 999;
	c += linked ? room : 999 - room;
	return c;
}

/* The part of the whole plan's cost (see improve) that depends on worker w
 * being on PU i, with w itself off its PU and worker `except` (if any) left
 * out too: w's weighted link hops, a CPU or a core shared with other
 * workers, a NUMA miss, sharing with the control thread.  The SMT count
 * assumes, as hwloc guarantees, that the PUs of a core share a NUMA node. */
static unsigned long local_cost(const struct state *s, unsigned w, unsigned i,
				unsigned except)
{
	const struct sl_topology *t = s->topo;
	bool linked;
	unsigned long c = link_cost(s, w, i, except, &linked) * 1000;
	c += (unsigned long)s->load[i] * 1000000UL;
	if (t->pus[i].core >= 0)
		c += (unsigned long)(s->core_load[core_slot(s, i)] - s->load[i]) * 100000UL;
	if (s->numa[w] >= 0 && t->pus[i].numa != s->numa[w])
		c += 50000UL;
	if (i == s->main_pu)
		c += 20000UL;
	return c;
}

/* Local search after the greedy pass: swap the CPUs of two auto workers, or
 * move one to a CPU no worker uses, while that lowers the cost of the whole
 * plan: the weighted hop cost of every pair of linked workers, plus the
 * penalties of cost() for shared CPUs and cores, NUMA misses and sharing
 * with the control thread.  A swap or a move changes only the terms of the
 * workers it moves, so each candidate is judged by the change of those
 * (local_cost) rather than by recomputing the whole.  This repairs what
 * greedy growth from the most-connected worker gets wrong (a long chain
 * split at both ends across domains).  Bounded passes. */
static void improve(struct state *s)
{
	const struct sl_place_input *in = s->in;
	const struct sl_topology *t = s->topo;
	unsigned n = in->n_workers;

	for (unsigned pass = 0; pass < 16; pass++) {
		bool better = false;
		for (unsigned w = 0; w < n; w++) {
			if (in->workers[w].core != SL_PLACE_AUTO)
				continue;
			for (unsigned v = w + 1; v < n; v++) {
				if (in->workers[v].core != SL_PLACE_AUTO)
					continue;
				unsigned pw = (unsigned)s->pu_of[w], pv = (unsigned)s->pu_of[v];
				if (pw == pv)
					continue;
				/* The pair's own term is the same either way round. */
				take(s, w);
				take(s, v);
				unsigned long now = local_cost(s, w, pw, v) + local_cost(s, v, pv, w);
				unsigned long swapped = local_cost(s, w, pv, v) + local_cost(s, v, pw, w);
				if (swapped < now) {
					put(s, w, pv);
					put(s, v, pw);
					better = true;
				} else {
					put(s, w, pw);
					put(s, v, pv);
				}
			}
			unsigned at = (unsigned)s->pu_of[w];
			take(s, w);
			unsigned long here = local_cost(s, w, at, ~0u);
			for (unsigned i = 0; i < t->n_pus; i++) {
				if (!s->usable[i] || s->load[i] > 0 || i == at)
					continue;
				unsigned long c = local_cost(s, w, i, ~0u);
				if (c < here) {
					here = c;
					at = i;
					better = true;
				}
			}
			put(s, w, at);
		}
		if (!better)
			break;
	}
}

static int worker_error(const struct sl_place_input *in, unsigned w, struct sl_err *err,
			const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static int worker_error(const struct sl_place_input *in, unsigned w, struct sl_err *err,
			const char *fmt, ...)
{
	char text[400];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	return sl_errf(err, EINVAL, "%s:%u:%u: worker '%s': %s", in->path,
		       in->workers[w].line, in->workers[w].col,
		       in->workers[w].name, text);
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
	const struct sl_place_input *in = s->in;
	char list[256];
	for (unsigned w = 0; w < in->n_workers; w++) {
		int core = in->workers[w].core;
		if (core == SL_PLACE_AUTO)
			continue;
		const struct sl_topo_pu *p = sl_topology_pu(s->topo, core);
		if (p == NULL) {
			cpu_list(s->topo, NULL, list, sizeof(list));
			return worker_error(in, w, err, "core %d does not exist (%s has CPUs %s)",
					    core, s->topo->synthetic ? "the described machine"
								     : "this machine", list);
		}
		if (!s->usable[p - s->topo->pus]) {
			cpu_list(s->topo, allowed, list, sizeof(list));
			return worker_error(in, w, err,
					    "core %d is not available to this process (available: %s)",
					    core, list);
		}
		for (unsigned v = 0; v < w; v++)
			if (in->workers[v].core == core)
				return worker_error(in, w, err,
						    "core %d is already used by worker '%s'", core,
						    in->workers[v].name);
		put(s, w, (unsigned)(p - s->topo->pus));
		placed(s, w);
	}
	return 0;
}

/* The worker to place next: most links to placed workers, then most links
 * overall, then declaration order. */
static int next_worker(const struct state *s)
{
	int best = -1;
	for (unsigned w = 0; w < s->in->n_workers; w++) {
		if (s->pu_of[w] >= 0)
			continue;
		if (best < 0 || s->to_placed[w] > s->to_placed[best] ||
		    (s->to_placed[w] == s->to_placed[best] && s->all[w] > s->all[best]))
			best = (int)w;
	}
	return best;
}

static void choose_main(struct state *s)
{
	const struct sl_topology *t = s->topo;
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
	s->main_pu = pu_index(t, s->plan->main_cpu);
}

static int cmp_edge(const void *a, const void *b)
{
	const unsigned *x = a, *y = b;
	if (x[0] != y[0])
		return x[0] < y[0] ? -1 : 1;
	return (x[1] > y[1]) - (x[1] < y[1]);
}

/* The links between workers as adjacency lists with link counts: each link
 * joining two workers adds one to both directions.  Members k and k + 1 of
 * a worker group count as linked once, so that a group is packed into as
 * few L3 domains as its links to other workers allow (its replicas share
 * the pool's L3 tier and, for a port, the device). */
static int build_adjacency(struct state *s)
{
	const struct sl_place_input *in = s->in;
	unsigned n = in->n_workers, n_edges = 0;
	size_t max_edges = 2 * ((size_t)in->n_links + n) + 1;
	unsigned (*edges)[2] = calloc(max_edges, sizeof(*edges));
	s->adj_start = calloc(n + 1, sizeof(*s->adj_start));
	s->adj_v = calloc(max_edges, sizeof(*s->adj_v));
	s->adj_w = calloc(max_edges, sizeof(*s->adj_w));
	if (edges == NULL || s->adj_start == NULL || s->adj_v == NULL || s->adj_w == NULL) {
		free(edges);
		return -ENOMEM;
	}
	for (unsigned l = 0; l < in->n_links; l++) {
		unsigned a = in->apps[in->links[l].from].worker;
		unsigned b = in->apps[in->links[l].to].worker;
		if (a != b) {
			edges[n_edges][0] = a;
			edges[n_edges++][1] = b;
			edges[n_edges][0] = b;
			edges[n_edges++][1] = a;
			s->plan->cross[l] = true;
		}
	}
	for (unsigned w = 0; w + 1 < n; w++)
		if (in->workers[w].n_members > 0 &&
		    in->workers[w].member + 1 < in->workers[w].n_members) {
			edges[n_edges][0] = w;
			edges[n_edges++][1] = w + 1;
			edges[n_edges][0] = w + 1;
			edges[n_edges++][1] = w;
		}
	qsort(edges, n_edges, sizeof(*edges), cmp_edge);
	unsigned k = 0;
	for (unsigned e = 0; e < n_edges; e++) {
		if (k > 0 && e > 0 && edges[e][0] == edges[e - 1][0] &&
		    edges[e][1] == edges[e - 1][1]) {
			s->adj_w[k - 1]++;
		} else {
			s->adj_v[k] = edges[e][1];
			s->adj_w[k++] = 1;
			s->adj_start[edges[e][0] + 1]++;
		}
		s->all[edges[e][0]]++;
	}
	for (unsigned w = 0; w < n; w++)
		s->adj_start[w + 1] += s->adj_start[w];
	free(edges);
	return 0;
}

static int fill_numa_hints(struct state *s)
{
	const struct sl_place_input *in = s->in;
	for (unsigned w = 0; w < in->n_workers; w++)
		s->numa[w] = -1;
	for (unsigned a = 0; a < in->n_apps; a++) {
		const struct sl_place_app *ap = &in->apps[a];
		if (ap->numa == NULL)
			continue;
		int node = ap->numa(ap->arg, s->topo);
		if (node >= 0)
			s->numa[ap->worker] = node;
	}
	return 0;
}

/* The plan's arrays and the search's, sized for in and topo (domain slots:
 * logical index + 1, 0 for "absent"), and the adjacency.  Returns 0 or
 * -ENOMEM; state_free() and sl_plan_free() undo a partial one. */
static int state_alloc(struct state *s)
{
	const struct sl_place_input *in = s->in;
	const struct sl_topology *topo = s->topo;
	struct sl_plan *plan = s->plan;
	unsigned n = in->n_workers, np = topo->n_pus;
	unsigned n_core = 1, n_l3 = 1;
	for (unsigned i = 0; i < np; i++) {
		if ((unsigned)(topo->pus[i].core + 1) >= n_core)
			n_core = (unsigned)topo->pus[i].core + 2;
		if ((unsigned)(topo->pus[i].l3 + 1) >= n_l3)
			n_l3 = (unsigned)topo->pus[i].l3 + 2;
	}
	plan->cpus = calloc(n + 1, sizeof(*plan->cpus));
	plan->hops = calloc(in->n_links + 1, sizeof(*plan->hops));
	plan->cross = calloc(in->n_links + 1, sizeof(*plan->cross));
	s->usable = calloc(np + 1, sizeof(*s->usable));
	s->load = calloc(np + 1, sizeof(*s->load));
	s->core_load = calloc(n_core, sizeof(*s->core_load));
	s->core_busy = calloc(n_core, sizeof(*s->core_busy));
	s->l3_free = calloc(n_l3, sizeof(*s->l3_free));
	s->to_placed = calloc(n + 1, sizeof(*s->to_placed));
	s->all = calloc(n + 1, sizeof(*s->all));
	s->numa = calloc(n + 1, sizeof(*s->numa));
	s->pu_of = calloc(n + 1, sizeof(*s->pu_of));
	if (!plan->cpus || !plan->hops || !plan->cross || !s->usable || !s->load ||
	    !s->core_load || !s->core_busy || !s->l3_free || !s->to_placed || !s->all ||
	    !s->numa || !s->pu_of)
		return -ENOMEM;
	return build_adjacency(s);
}

static void state_free(struct state *s)
{
	free(s->usable);
	free(s->load);
	free(s->core_load);
	free(s->core_busy);
	free(s->l3_free);
	free(s->adj_start);
	free(s->adj_v);
	free(s->adj_w);
	free(s->to_placed);
	free(s->all);
	free(s->numa);
	free(s->pu_of);
}

/* Mark the PUs in allowed (NULL: all) usable and count them per L3 domain.
 * Returns how many are usable. */
static unsigned mark_usable(struct state *s, const cpu_set_t *allowed)
{
	const struct sl_topology *topo = s->topo;
	unsigned n_usable = 0;
	for (unsigned i = 0; i < topo->n_pus; i++) {
		s->usable[i] = allowed == NULL || CPU_ISSET(topo->pus[i].cpu, allowed);
		n_usable += s->usable[i];
		if (s->usable[i])
			s->l3_free[l3_slot(s, i)]++;
	}
	return n_usable;
}

/* Greedy: each worker in next_worker's order goes to the usable PU of least
 * cost (the first of equal ones). */
static void place_greedy(struct state *s)
{
	for (int w; (w = next_worker(s)) >= 0;) {
		unsigned best = 0;
		unsigned long best_cost = ~0UL;
		for (unsigned i = 0; i < s->topo->n_pus; i++) {
			if (!s->usable[i])
				continue;
			unsigned long c = cost(s, (unsigned)w, i);
			if (c < best_cost) {
				best_cost = c;
				best = i;
			}
		}
		put(s, (unsigned)w, best);
		placed(s, (unsigned)w);
	}
}

/* Each link between workers: its hop class, and a warning when it crosses
 * L3 domains or NUMA nodes. */
static void note_links(struct state *s)
{
	const struct sl_place_input *in = s->in;
	struct sl_plan *plan = s->plan;
	for (unsigned l = 0; l < in->n_links; l++) {
		if (!plan->cross[l])
			continue;
		const struct sl_place_link *lc = &in->links[l];
		unsigned a = in->apps[lc->from].worker, b = in->apps[lc->to].worker;
		plan->hops[l] = sl_topology_hop_pus(s->topo, (unsigned)s->pu_of[a],
						    (unsigned)s->pu_of[b]);
		if (plan->hops[l] >= SL_HOP_CROSS_L3)
			warn(plan, "link %s.%s -> %s.%s crosses %s (workers '%s' on cpu %d, '%s' on cpu %d)",
			     in->apps[lc->from].name, lc->from_port, in->apps[lc->to].name,
			     lc->to_port, plan->hops[l] == SL_HOP_CROSS_L3 ? "L3 domains" : "NUMA nodes",
			     in->workers[a].name, plan->cpus[a], in->workers[b].name, plan->cpus[b]);
	}
}

/* Warnings per worker: a CPU or core shared with another worker, a NUMA
 * node other than its NIC's, a CPU shared with the control thread. */
static void note_workers(struct state *s)
{
	const struct sl_place_input *in = s->in;
	const struct sl_topology *topo = s->topo;
	struct sl_plan *plan = s->plan;
	for (unsigned w = 0; w < in->n_workers; w++) {
		for (unsigned v = 0; v < w; v++) {
			enum sl_hop h = sl_topology_hop_pus(topo, (unsigned)s->pu_of[w], (unsigned)s->pu_of[v]);
			if (h == SL_HOP_SAME_CPU)
				warn(plan, "workers '%s' and '%s' share cpu %d: both busy-poll, each gets about half of it",
				     in->workers[v].name, in->workers[w].name, plan->cpus[w]);
			else if (h == SL_HOP_SMT)
				warn(plan, "workers '%s' and '%s' are SMT siblings (cpus %d and %d) and share one core",
				     in->workers[v].name, in->workers[w].name, plan->cpus[v], plan->cpus[w]);
		}
		const struct sl_topo_pu *p = &topo->pus[s->pu_of[w]];
		if (s->numa[w] >= 0 && p->numa != s->numa[w])
			warn(plan, "worker '%s' runs on NUMA node %d but its NIC is on node %d",
			     in->workers[w].name, p->numa, s->numa[w]);
		if (plan->cpus[w] == plan->main_cpu)
			warn(plan, "the control thread shares cpu %d with worker '%s' (no free CPU left)",
			     plan->main_cpu, in->workers[w].name);
	}
}

int sl_place(const struct sl_place_input *in, const struct sl_topology *topo,
	     const cpu_set_t *allowed, struct sl_plan *plan, struct sl_err *err)
{
	struct state s = { .in = in, .topo = topo, .plan = plan };
	int rc;

	memset(plan, 0, sizeof(*plan));
	if (state_alloc(&s) < 0) {
		rc = sl_errf(err, ENOMEM, "out of memory");
		goto out;
	}
	for (unsigned w = 0; w < in->n_workers; w++)
		s.pu_of[w] = -1;
	if (mark_usable(&s, allowed) == 0) {
		rc = sl_errf(err, EINVAL, "no CPU of the topology is available to this process");
		goto out;
	}
	fill_numa_hints(&s);
	rc = check_explicit(&s, allowed, err);
	if (rc < 0)
		goto out;
	choose_main(&s);
	place_greedy(&s);
	improve(&s);
	note_links(&s);
	note_workers(&s);
	rc = 0;
out:
	state_free(&s);
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

void sl_plan_print(const struct sl_place_input *in, const struct sl_topology *topo,
		   const struct sl_plan *plan, FILE *out)
{
	fprintf(out, "machine: %s\n", topo->source);
	fprintf(out, "%-16s %5s %5s %4s %5s  %s\n", "worker", "cpu", "core", "l3", "numa", "apps");
	for (unsigned w = 0; w < in->n_workers; w++) {
		const struct sl_topo_pu *p = sl_topology_pu(topo, plan->cpus[w]);
		fprintf(out, "%-16s %5d %5d %4d %5d  %s", in->workers[w].name, p->cpu, p->core,
			p->l3, p->numa, in->workers[w].core == SL_PLACE_AUTO ? "" : "(explicit) ");
		bool first = true;
		for (unsigned a = 0; a < in->n_apps; a++)
			if (in->apps[a].worker == w) {
				fprintf(out, "%s%s", first ? "" : ", ", in->apps[a].name);
				first = false;
			}
		fprintf(out, "\n");
	}
	const struct sl_topo_pu *m = sl_topology_pu(topo, plan->main_cpu);
	fprintf(out, "%-16s %5d %5d %4d %5d\n", "(control)", m->cpu, m->core, m->l3, m->numa);
	bool head = false;
	for (unsigned a = 0; a < in->n_apps; a++) {
		const struct sl_place_app *ap = &in->apps[a];
		if (!ap->replicated)
			continue;
		if (!head)
			fprintf(out, "replicas:\n");
		head = true;
		fprintf(out, "  %-16s %-10s %-16s %s\n", ap->name, ap->type,
			in->workers[ap->worker].name, ap->note != NULL ? ap->note : "");
	}
	fprintf(out, "links:\n");
	for (unsigned l = 0; l < in->n_links; l++) {
		const struct sl_place_link *lc = &in->links[l];
		char name[128];
		snprintf(name, sizeof(name), "%s.%s -> %s.%s", in->apps[lc->from].name,
			 lc->from_port, in->apps[lc->to].name, lc->to_port);
		fprintf(out, "  %-44s %s\n", name,
			plan->cross[l] ? sl_hop_name(plan->hops[l]) :
			lc->direct ? "direct (same worker)" : "local (same worker)");
	}
	for (unsigned i = 0; i < plan->n_warnings; i++)
		fprintf(out, "warning: %s\n", plan->warnings[i]);
}

/* Where hwloc sees a single L3 domain and the input names a saved matrix,
 * the measured domains stand in.  Returns 0 (whether they did or not) or
 * -errno with a sentence in err. */
static int measured_domains(const struct sl_place_input *in, struct sl_topology *t,
			    struct sl_err *err)
{
	if (in->c2c_path == NULL || t->n_l3 > 1)
		return 0;
	struct sl_c2c *m = sl_c2c_load(in->c2c_path, err);
	if (m == NULL)
		return sl_err_prefix(err, errno, "%s:%u:%u: topology.c2c", in->path,
				     in->c2c_line, in->c2c_col);
	int rc = sl_topology_apply_domains(t, m, SL_C2C_DOMAIN_FACTOR, NULL);
	sl_c2c_free(m);
	if (rc == -EINVAL)
		return sl_errf(err, EINVAL, "%s:%u:%u: topology.c2c: '%s' covers no CPU of this "
			       "machine", in->path, in->c2c_line, in->c2c_col,
			       in->c2c_path);
	if (rc < 0)
		return sl_errf(err, -rc, "%s:%u:%u: topology.c2c: '%s': %s", in->path,
			       in->c2c_line, in->c2c_col, in->c2c_path,
			       strerror(-rc));
	return 0;
}

int sl_plan_here(const struct sl_place_input *in, struct sl_topology **topo,
		 struct sl_plan *plan, struct sl_err *err)
{
	cpu_set_t allowed;
	int rc;
	*topo = sl_topology_load(err);
	if (*topo == NULL)
		return -errno;
	unsigned hw_l3 = (*topo)->n_l3;
	rc = measured_domains(in, *topo, err);
	if (rc >= 0 && !(*topo)->synthetic &&
	    sched_getaffinity(0, sizeof(allowed), &allowed) != 0)
		rc = sl_errf(err, errno, "cannot read this process's CPU affinity: %s",
			     strerror(errno));
	if (rc >= 0)
		rc = sl_place(in, *topo, (*topo)->synthetic ? NULL : &allowed, plan, err);
	if (rc < 0) {
		sl_topology_free(*topo);
		*topo = NULL;
		return rc;
	}
	if (in->c2c_path != NULL && hw_l3 > 1)
		warn(plan, "topology.c2c ignored: hwloc reports %u L3 domains", hw_l3);
	return 0;
}
