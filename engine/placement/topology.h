/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The machine as hwloc sees it: processing units (PUs, i.e. hardware
 * threads), their cores, L2 and L3 cache domains, NUMA nodes and packages,
 * and the NUMA locality of PCI devices.  Honours hwloc's HWLOC_SYNTHETIC and
 * HWLOC_XMLFILE environment variables, so placement can be planned and tested
 * for machines other than this one ("pack:1 l3:4 core:6 pu:1" is an EPYC-like
 * 24 cores in four L3 domains).
 *
 * Indices: every domain number (core, l2, l3, numa, package) is hwloc's
 * logical index, dense from 0.  PUs are named by their OS index (the CPU
 * number the kernel, taskset and DPDK's --lcores use).
 *
 * Thread: control thread.  The returned topology is immutable and owned by
 * the caller (sl_topology_free).
 */
#ifndef SL_TOPOLOGY_H
#define SL_TOPOLOGY_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "base/err.h"

struct sl_topo_pu {
	int cpu;         /* OS index */
	int core, l2, l3, numa, package;   /* logical indices; -1 if absent */
	uint64_t l3_bytes;                 /* size of its L3 cache; 0 if absent or
					    * unknown (a synthetic topology's
					    * unless it gives one) */
};

struct sl_topo_pci {
	char addr[16];   /* "0000:03:00.0" */
	int numa;        /* -1 if unknown */
	char name[32];   /* class name or OS device name, for display */
};

enum sl_hop {
	SL_HOP_SAME_CPU,     /* one PU */
	SL_HOP_SMT,          /* sibling hardware threads of one core */
	SL_HOP_L3,           /* different cores sharing an L3 cache */
	SL_HOP_CROSS_L3,     /* same NUMA node, different L3 domains */
	SL_HOP_CROSS_NUMA,   /* different NUMA nodes */
};

struct sl_topology {
	struct sl_topo_pu *pus;   /* sorted by cpu */
	unsigned n_pus;
	unsigned n_cores, n_l2, n_l3, n_numa, n_packages;
	struct sl_topo_pci *pci;
	unsigned n_pci;
	bool synthetic;           /* from HWLOC_SYNTHETIC or HWLOC_XMLFILE */
	char source[128];         /* "this machine", "synthetic: ...", "xml: ..." */
};

/* Load this machine's topology, or the one HWLOC_SYNTHETIC or HWLOC_XMLFILE
 * describes.  Returns it (free with sl_topology_free), or NULL with errno set
 * (EINVAL for a description hwloc refuses, EIO when hwloc cannot load it,
 * ENOMEM) and a sentence starting "topology: " in err.  Control thread. */
struct sl_topology *sl_topology_load(struct sl_err *err);
void sl_topology_free(struct sl_topology *t);

/* The PU with OS index cpu, or NULL.  O(log n_pus). */
const struct sl_topo_pu *sl_topology_pu(const struct sl_topology *t, int cpu);

/* Hop class between two CPUs (both must exist in t). */
enum sl_hop sl_topology_hop(const struct sl_topology *t, int a, int b);
/* The same between two PUs given by their indices in t->pus[]. */
enum sl_hop sl_topology_hop_pus(const struct sl_topology *t, unsigned i, unsigned j);
const char *sl_hop_name(enum sl_hop h);

/* NUMA node of a PCI device given as "0000:03:00.0" or "03:00.0", or -1 if the
 * device is unknown or has no locality (-1 means "no node", never an error:
 * this look-up cannot fail). */
int sl_topology_pci_numa(const struct sl_topology *t, const char *addr);

/* Print the topology as a table (one row per PU, then PCI devices). */
void sl_topology_print(const struct sl_topology *t, FILE *out);

#endif
