/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Measured core-to-core latency: two threads pinned to CPUs a and b pass a
 * token back and forth through one cache line; the one-way latency is half
 * the round trip.  The median of several samples is kept, per pair.
 *
 * Where hwloc reports a single L3 domain (virtual machines often do), a saved
 * matrix stands in: sl_c2c_domains() groups CPUs whose mutual latency is
 * close to the fastest pair's into measured "L3" domains, which
 * sl_topology_apply_domains() writes into a topology for placement.
 *
 * Thread: control thread.  sl_c2c_measure starts and joins two threads per
 * pair and blocks for about (pairs x samples x round trips) x latency.
 */
#ifndef SL_C2C_H
#define SL_C2C_H

#include <stdio.h>

#include "base/err.h"
#include "placement/topology.h"

/* CPUs within this factor of the fastest pair's latency share a domain. */
#define SL_C2C_DOMAIN_FACTOR 1.5

/* A pair's regime from its one-way latency: "near" below SL_C2C_FAR_NS (the
 * same L3 domain or a close one: a cache line moves in tens of ns), "far"
 * at or above it (another CCD or socket: 100-250 ns).  Virtual CPUs land on
 * near or far physical cores from one hour to the next, so benchmarks name
 * the regime of every result. */
#define SL_C2C_FAR_NS 100.0

static inline const char *sl_c2c_regime(double ns)
{
	return ns < SL_C2C_FAR_NS ? "near" : "far";
}

/* The regime of a run whose pair measured a and b ns (before and after):
 * "mixed" where the two disagree. */
static inline const char *sl_c2c_regime2(double a, double b)
{
	return (a < SL_C2C_FAR_NS) == (b < SL_C2C_FAR_NS) ? sl_c2c_regime(a) : "mixed";
}

/* The median of v[0..n) (n >= 1; the mean of the middle two for an even
 * n), which it sorts in place.  Any thread. */
double sl_c2c_median(double *v, unsigned n);

struct sl_c2c {
	unsigned n;          /* CPUs */
	int *cpus;           /* OS indices, n of them */
	double *ns;          /* n x n one-way latency in ns; 0 on the diagonal */
};

/* Measure every pair of the given CPUs.  round_trips per sample (e.g. 20000),
 * samples per pair (e.g. 5; the median is kept).  NULL on error, with errno set
 * (EINVAL for fewer than 2 CPUs, no samples or a CPU this process cannot run
 * a thread on, ENOMEM) and a
 * sentence in err. */
struct sl_c2c *sl_c2c_measure(const int *cpus, unsigned n, unsigned round_trips,
			      unsigned samples, struct sl_err *err);

/* The one-way latency (ns, the median of 5 samples of 20000 round trips)
 * between CPUs a and b: what benchmarks print beside their results.
 * Returns it, or -1 with errno set and a sentence in err (as
 * sl_c2c_measure). */
double sl_c2c_pair(int a, int b, struct sl_err *err);

/* Save as CSV: a header row "cpu,<cpu>,<cpu>..." then one row per CPU.
 * Returns 0 or -errno with a sentence. */
int sl_c2c_save(const struct sl_c2c *m, const char *path, struct sl_err *err);

/* Load a matrix saved by sl_c2c_save.  NULL on error, with errno set (the
 * errno of fopen or a read error, ENOMEM, or EINVAL for a malformed file) and
 * a sentence naming the file and line ("FILE:LINE: ...") and quoting the
 * offending text.  The
 * header's CPUs are distinct numbers in 0..CPU_SETSIZE-1; each row starts
 * with its CPU, in header order, and holds one finite latency >= 0 per CPU;
 * blank lines are skipped; a line may not exceed 1 MiB. */
struct sl_c2c *sl_c2c_load(const char *path, struct sl_err *err);

void sl_c2c_print(const struct sl_c2c *m, FILE *out);
void sl_c2c_free(struct sl_c2c *m);

/* Group the CPUs into domains: CPUs a and b share a domain when their latency
 * is at most `factor` times the fastest pair's (e.g. 1.5).  Fills domain[i]
 * for each CPU index i (0-based, dense) and returns the number of domains. */
unsigned sl_c2c_domains(const struct sl_c2c *m, double factor, int *domain);

/* Replace the L3 domains of t by the measured ones for every CPU that m
 * covers, and store their number in *n_domains (may be NULL).  Returns 0,
 * -EINVAL if m covers no CPU of t (t is then unchanged), or -ENOMEM. */
int sl_topology_apply_domains(struct sl_topology *t, const struct sl_c2c *m, double factor,
			      unsigned *n_domains);

#endif
