/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <hwloc.h>

#include "placement/topology.h"

static int ancestor_index(hwloc_topology_t topo, hwloc_obj_type_t type, hwloc_obj_t pu)
{
	hwloc_obj_t o = hwloc_get_ancestor_obj_by_type(topo, type, pu);
	return o != NULL ? (int)o->logical_index : -1;
}

/* The logical index of the first NUMA node that set meets, or -1 when none
 * does (the "unknown node" of struct sl_topo_pu and sl_topo_pci). */
static int numa_of_cpuset(hwloc_topology_t topo, hwloc_const_cpuset_t set)
{
	int n = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE);
	for (int i = 0; i < n; i++) {
		hwloc_obj_t node = hwloc_get_obj_by_type(topo, HWLOC_OBJ_NUMANODE, (unsigned)i);
		if (hwloc_bitmap_intersects(node->cpuset, set))
			return (int)node->logical_index;
	}
	return -1;
}

static int count(hwloc_topology_t topo, hwloc_obj_type_t type)
{
	int n = hwloc_get_nbobjs_by_type(topo, type);
	return n > 0 ? n : 0;
}

static int cmp_pu(const void *a, const void *b)
{
	return ((const struct sl_topo_pu *)a)->cpu - ((const struct sl_topo_pu *)b)->cpu;
}

static int load_pci(struct sl_topology *t, hwloc_topology_t topo)
{
	unsigned n = 0;
	for (hwloc_obj_t o = hwloc_get_next_pcidev(topo, NULL); o != NULL;
	     o = hwloc_get_next_pcidev(topo, o))
		n++;
	if (n == 0)
		return 0;
	t->pci = calloc(n, sizeof(*t->pci));
	if (t->pci == NULL)
		return -ENOMEM;
	for (hwloc_obj_t o = hwloc_get_next_pcidev(topo, NULL); o != NULL;
	     o = hwloc_get_next_pcidev(topo, o)) {
		struct sl_topo_pci *p = &t->pci[t->n_pci++];
		const struct hwloc_pcidev_attr_s *a = &o->attr->pcidev;
		snprintf(p->addr, sizeof(p->addr), "%04x:%02x:%02x.%x", a->domain, a->bus,
			 a->dev, a->func);
		hwloc_obj_t local = hwloc_get_non_io_ancestor_obj(topo, o);
		p->numa = local != NULL && local->cpuset != NULL
				  ? numa_of_cpuset(topo, local->cpuset) : -1;
		const char *name = o->io_first_child != NULL ? o->io_first_child->name : NULL;
		snprintf(p->name, sizeof(p->name), "%s",
			 name != NULL ? name : (o->subtype != NULL ? o->subtype : "-"));
	}
	return 0;
}

struct sl_topology *sl_topology_load(struct sl_err *err)
{
	hwloc_topology_t topo;
	struct sl_topology *t = calloc(1, sizeof(*t));
	if (t == NULL)
		return sl_errf_null(err, ENOMEM, "topology: out of memory for the topology");
	if (hwloc_topology_init(&topo) < 0) {
		free(t);
		return sl_errf_null(err, ENOMEM, "topology: hwloc cannot initialise a topology");
	}
	hwloc_topology_set_io_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
	const char *syn = getenv("HWLOC_SYNTHETIC");
	const char *xml = getenv("HWLOC_XMLFILE");
	int e = 0;      /* the errno to fail with, 0 while all is well */
	if (syn != NULL && syn[0] != '\0') {
		snprintf(t->source, sizeof(t->source), "synthetic: %s", syn);
		t->synthetic = true;
		if (hwloc_topology_set_synthetic(topo, syn) < 0)
			e = -sl_errf(err, EINVAL, "topology: HWLOC_SYNTHETIC='%s' is not a valid "
				     "hwloc synthetic description (e.g. \"pack:1 l3:4 core:6 "
				     "pu:1\")", syn);
	} else if (xml != NULL && xml[0] != '\0') {
		snprintf(t->source, sizeof(t->source), "xml: %s", xml);
		t->synthetic = true;
		if (hwloc_topology_set_xml(topo, xml) < 0)
			e = -sl_errf(err, EINVAL, "topology: HWLOC_XMLFILE='%s': cannot read it as "
				     "an hwloc XML export: %s", xml, strerror(errno));
	} else {
		snprintf(t->source, sizeof(t->source), "this machine");
	}
	if (e == 0 && hwloc_topology_load(topo) < 0)
		e = -sl_errf(err, EIO, "topology: hwloc cannot load the topology (%s): %s",
			     t->source, strerror(errno));
	if (e != 0)
		goto out_destroy;

	int n = count(topo, HWLOC_OBJ_PU);
	t->pus = calloc((size_t)n + 1, sizeof(*t->pus));
	if (t->pus == NULL) {
		e = -sl_errf(err, ENOMEM, "topology: out of memory for %d processing units", n);
		goto out_destroy;
	}
	for (int i = 0; i < n; i++) {
		hwloc_obj_t pu = hwloc_get_obj_by_type(topo, HWLOC_OBJ_PU, (unsigned)i);
		struct sl_topo_pu *p = &t->pus[t->n_pus++];
		p->cpu = (int)pu->os_index;
		p->core = ancestor_index(topo, HWLOC_OBJ_CORE, pu);
		p->l2 = ancestor_index(topo, HWLOC_OBJ_L2CACHE, pu);
		hwloc_obj_t l3 = hwloc_get_ancestor_obj_by_type(topo, HWLOC_OBJ_L3CACHE, pu);
		p->l3 = l3 != NULL ? (int)l3->logical_index : -1;
		p->l3_bytes = l3 != NULL && l3->attr != NULL ? l3->attr->cache.size : 0;
		p->package = ancestor_index(topo, HWLOC_OBJ_PACKAGE, pu);
		p->numa = numa_of_cpuset(topo, pu->cpuset);
	}
	qsort(t->pus, t->n_pus, sizeof(*t->pus), cmp_pu);
	t->n_cores = (unsigned)count(topo, HWLOC_OBJ_CORE);
	t->n_l2 = (unsigned)count(topo, HWLOC_OBJ_L2CACHE);
	t->n_l3 = (unsigned)count(topo, HWLOC_OBJ_L3CACHE);
	t->n_numa = (unsigned)count(topo, HWLOC_OBJ_NUMANODE);
	t->n_packages = (unsigned)count(topo, HWLOC_OBJ_PACKAGE);
	int rc = load_pci(t, topo);
	if (rc < 0) {
		e = -sl_errf(err, -rc, "topology: out of memory for the PCI devices");
		goto out_destroy;
	}
	hwloc_topology_destroy(topo);
	return t;

out_destroy:
	hwloc_topology_destroy(topo);
	sl_topology_free(t);
	errno = e;
	return NULL;
}

void sl_topology_free(struct sl_topology *t)
{
	if (t == NULL)
		return;
	free(t->pus);
	free(t->pci);
	free(t);
}

const struct sl_topo_pu *sl_topology_pu(const struct sl_topology *t, int cpu)
{
	/* t->pus is sorted by cpu (sl_topology_load sorts it). */
	unsigned lo = 0, hi = t->n_pus;
	while (lo < hi) {
		unsigned mid = lo + (hi - lo) / 2;
		if (t->pus[mid].cpu < cpu)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < t->n_pus && t->pus[lo].cpu == cpu ? &t->pus[lo] : NULL;
}

static enum sl_hop hop(const struct sl_topo_pu *x, const struct sl_topo_pu *y)
{
	if (x == NULL || y == NULL || x == y)
		return SL_HOP_SAME_CPU;
	if (x->numa != y->numa)
		return SL_HOP_CROSS_NUMA;
	if (x->core == y->core && x->core >= 0)
		return SL_HOP_SMT;
	if (x->l3 == y->l3)
		return SL_HOP_L3;
	return SL_HOP_CROSS_L3;
}

enum sl_hop sl_topology_hop(const struct sl_topology *t, int a, int b)
{
	return hop(sl_topology_pu(t, a), sl_topology_pu(t, b));
}

enum sl_hop sl_topology_hop_pus(const struct sl_topology *t, unsigned i, unsigned j)
{
	return hop(&t->pus[i], &t->pus[j]);
}

const char *sl_hop_name(enum sl_hop h)
{
	static const char *const names[] = { "same-cpu", "smt-sibling", "same-l3", "cross-l3",
					     "cross-numa" };
	return (unsigned)h < sizeof(names) / sizeof(names[0]) ? names[h] : "?";
}

int sl_topology_pci_numa(const struct sl_topology *t, const char *addr)
{
	char full[32];
	if (strlen(addr) == 7)          /* "03:00.0" */
		snprintf(full, sizeof(full), "0000:%s", addr);
	else
		snprintf(full, sizeof(full), "%s", addr);
	for (unsigned i = 0; i < t->n_pci; i++)
		if (strcasecmp(t->pci[i].addr, full) == 0)
			return t->pci[i].numa;
	return -1;
}

void sl_topology_print(const struct sl_topology *t, FILE *out)
{
	fprintf(out, "topology (%s): %u packages, %u NUMA nodes, %u L3 domains, "
		"%u L2 domains, %u cores, %u PUs\n", t->source, t->n_packages, t->n_numa,
		t->n_l3, t->n_l2, t->n_cores, t->n_pus);
	fprintf(out, "%5s %5s %4s %4s %7s %4s %7s  %s\n", "cpu", "core", "l2", "l3", "l3 size",
		"numa", "package", "smt siblings");
	for (unsigned i = 0; i < t->n_pus; i++) {
		const struct sl_topo_pu *p = &t->pus[i];
		char sib[128] = "";
		size_t off = 0;
		for (unsigned j = 0; j < t->n_pus; j++)
			if (j != i && t->pus[j].core == p->core && t->pus[j].package == p->package &&
			    off < sizeof(sib))
				off += (size_t)snprintf(sib + off, sizeof(sib) - off, "%s%d",
							off ? "," : "", t->pus[j].cpu);
		char l3[16] = "-";
		if (p->l3_bytes >= 1024 * 1024)
			snprintf(l3, sizeof(l3), "%" PRIu64 "M", p->l3_bytes >> 20);
		else if (p->l3_bytes > 0)
			snprintf(l3, sizeof(l3), "%" PRIu64 "K", p->l3_bytes >> 10);
		fprintf(out, "%5d %5d %4d %4d %7s %4d %7d  %s\n", p->cpu, p->core, p->l2, p->l3,
			l3, p->numa, p->package, off ? sib : "-");
	}
	if (t->n_pci > 0) {
		fprintf(out, "pci devices:\n%14s %5s  %s\n", "address", "numa", "name");
		for (unsigned i = 0; i < t->n_pci; i++)
			fprintf(out, "%14s %5d  %s\n", t->pci[i].addr, t->pci[i].numa,
				t->pci[i].name);
	}
}
