/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The regime of a benchmark's pair of CPUs, from its measured one-way
 * core-to-core latency (c2c): "near" below BENCH_FAR_NS (the same L3 domain
 * or a close one: a cache line moves in tens of ns), "far" at or above it
 * (another CCD or socket: 100-250 ns).  Virtual CPUs land on near or far
 * physical cores from one hour to the next, so every result names its
 * regime; where two measurements of one run disagree the run is "mixed".
 */
#ifndef BENCH_REGIME_H
#define BENCH_REGIME_H

#define BENCH_FAR_NS 100.0

static inline const char *bench_regime(double c2c_ns)
{
	return c2c_ns < BENCH_FAR_NS ? "near" : "far";
}

/* The regime of a run whose pair measured a and b ns (before and after). */
static inline const char *bench_regime2(double a, double b)
{
	return (a < BENCH_FAR_NS) == (b < BENCH_FAR_NS) ? bench_regime(a) : "mixed";
}

#endif
