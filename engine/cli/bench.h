/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * `sluice bench`: benchmarks made of real pipelines.
 *
 *   sluice bench latency [--out DIR] [--duration S] [--loads LIST]
 *                        [--receivers N] [--ops LIST] [--size BYTES]
 *                        [--quick] [--dry-run]
 *
 * latency: one-way latency and throughput between workers, for every hop
 * class this machine offers (the same worker, SMT siblings, one L3 domain,
 * two L3 domains, two NUMA nodes) and for one transmitter feeding 1..N
 * receivers, at several offered loads, with each pool (ops sluice, dpdk).
 * Every run is a pipeline of probe_source and probe_sink apps on explicit
 * cores, run by a child process (`sluice run`), because DPDK's EAL can be
 * initialised once per process.  Writes DIR/results.csv, DIR/results.json,
 * DIR/machine.xml (hwloc) and DIR/runs/ (each run's config, log and the
 * sinks' reports).  docs/benchmarks.md ("Latency between workers") describes the runs and the files.
 *
 * Thread: the process's main thread; forks one child per run and waits for
 * it.  Returns the process's exit status: 0 success, 1 a run failed (named,
 * with the end of its log), 2 a usage error.
 */
#ifndef SL_BENCH_H
#define SL_BENCH_H

/* argv[0] is the benchmark's name ("latency"). */
int sl_bench_main(int argc, char **argv);

#endif
