/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The regime of a benchmark's pair of CPUs, from its measured one-way
 * core-to-core latency (c2c): sl_c2c_regime and sl_c2c_regime2
 * (placement/c2c.h), the threshold the engine's own benchmark uses too.
 *
 * Also what every bench of a pair shares: the pair's c2c measured
 * (bench_pair_c2c), each run's regime from the c2c around it and the
 * regime they share (bench_run_regimes, bench_common_regime), the values of
 * one regime's runs (bench_pick, bench_pick_c2c) and their medians
 * (bench_median).
 */
#ifndef BENCH_REGIME_H
#define BENCH_REGIME_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "placement/c2c.h"

/* The regimes of n runs (or rounds) measured at[r] ns before run r and
 * at[r + 1] after it (at[0..n], each boundary measured once) into
 * reg[0..n). */
static inline void bench_run_regimes(const double *at, unsigned n, const char **reg)
{
	for (unsigned r = 0; r < n; r++)
		reg[r] = sl_c2c_regime2(at[r], at[r + 1]);
}

/* The regime every one of reg[0..n) has (n >= 1), or "mixed". */
static inline const char *bench_common_regime(const char *const *reg, unsigned n)
{
	for (unsigned r = 1; r < n; r++)
		if (strcmp(reg[r], reg[0]) != 0)
			return "mixed";
	return reg[0];
}

/* v[r] of every run r of regime `name` (reg[r]) into out, in order;
 * returns how many. */
static inline unsigned bench_pick(const char *const *reg, unsigned n, const char *name,
				  const double *v, double *out)
{
	unsigned k = 0;
	for (unsigned r = 0; r < n; r++)
		if (strcmp(reg[r], name) == 0)
			out[k++] = v[r];
	return k;
}

/* The c2c measured around every run of regime `name` (at[r] and at[r + 1],
 * as for bench_run_regimes) into out; returns how many (two a run). */
static inline unsigned bench_pick_c2c(const char *const *reg, unsigned n, const char *name,
				      const double *at, double *out)
{
	unsigned k = 0;
	for (unsigned r = 0; r < n; r++)
		if (strcmp(reg[r], name) == 0) {
			out[k++] = at[r];
			out[k++] = at[r + 1];
		}
	return k;
}

/* qsort's order of doubles, ascending. */
static inline int bench_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* The median of v[0..n) (n >= 1; v is left as it is), and its smallest and
 * largest values into *lo and *hi where not NULL. */
static inline double bench_median(const double *v, unsigned n, double *lo, double *hi)
{
	double *s = malloc(n * sizeof(*s));
	if (s == NULL) {
		fprintf(stderr, "bench: out of memory\n");
		exit(1);
	}
	memcpy(s, v, n * sizeof(*s));
	qsort(s, n, sizeof(*s), bench_cmp_double);
	double m = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
	if (lo != NULL)
		*lo = s[0];
	if (hi != NULL)
		*hi = s[n - 1];
	free(s);
	return m;
}

/* The one-way core-to-core latency (median ns) between CPUs a and b; on
 * failure "BENCH: the reason" and exit 1. */
static inline double bench_pair_c2c(const char *bench, int a, int b)
{
	struct sl_err err = { "" };
	double ns = sl_c2c_pair(a, b, &err);
	if (ns < 0) {
		fprintf(stderr, "%s: %s\n", bench, err.msg);
		exit(1);
	}
	return ns;
}

#endif
