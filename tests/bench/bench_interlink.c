/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Interlink against DPDK's rte_ring (single producer, single consumer) on the
 * same two cores, in one run:
 *
 *  c2c         core-to-core latency of the pair: two threads bounce one cache
 *              line; a one-way hop is half a round trip (median of blocks of
 *              64 round trips).  This is the floor for any one-way handoff.
 *  throughput  the producer enqueues bursts of --burst pointers as fast as it
 *              can, the consumer dequeues bursts, for --seconds.  The consumer
 *              stamps the TSC every 2^16 objects; the result is the median
 *              rate over those windows (a window in which a thread was
 *              switched out is slow, and the median ignores a minority of
 *              them).  The interlink publishes after every --batch bursts on
 *              each side (default 1: after each burst, what a worker doing one
 *              burst per breath does), and is measured a second time
 *              publishing every --batch-alt bursts (default 4; 0 skips it), as
 *              a worker does that moves several bursts per breath.
 *  latency     the producer sends one object every --interval-us, holding its
 *              TSC stamp; the consumer polls and records the TSC on arrival
 *              (after a fence) minus the stamp; p50 and p99 in ns.
 *
 * Each of --runs rounds measures everything once, alternating which ring goes
 * first.  Other processes may share the machine: the bench counts the
 * measurements during which either thread was switched out
 * (getrusage(RUSAGE_THREAD)), and with --tries N repeats such a measurement up
 * to N times.
 * Reported: every run, then the median and range over runs, then
 *   summary: throughput_ratio=X latency_p50_ns=Y c2c_ns=Z latency_ratio=W regime=R
 * where throughput_ratio is the median over runs of interlink Mpps / rte_ring
 * Mpps (each run's pair measured back to back), latency_p50_ns the median of
 * the interlink's p50, c2c_ns the median one-way hop (over the measurements
 * before the first run and after each), latency_ratio Y / Z, and R the
 * regime every run had, or mixed when the runs' regimes differ
 * (tests/bench/regime.h).  To measure the far regime on purpose, pick a
 * distant pair from `sluice topology --measure` and pass it as --cores A,B.
 *
 * Each run's regime: the pair's c2c is measured before the first run and
 * after each (the one after a run is the one before the next; virtual CPUs
 * move between near and far cores within seconds), and a run is near
 * (both measurements around it under 100 ns) or far (both at or above it, and
 * the interlink's latency p50 at least 100 ns too: a sample crosses the
 * pair, so on a far pair it cannot take less; a run with no clean latency
 * sample has no such witness and is not far) only then; else mixed.  Before
 * the summary, a line for the far runs and one for the near runs, where
 * there are any:
 *   far runs (K): throughput_ratio=X batched_ratio=B latency_p50_ns=Y c2c_ns=Z latency_ratio=W
 * (the summary's medians over those runs alone), so that a goal of one
 * regime can be read from an invocation in which the pair moved.
 *
 * With --data DIR it also writes DIR/throughput.dat (run, interlink Mpps,
 * rte_ring Mpps, the c2c before the run, the interlink at --batch-alt) and
 * DIR/latency.dat (percentile, interlink ns, rte_ring ns, over all runs'
 * samples) for scripts/bench-interlink to plot.
 */
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <sched.h>
#include <stdalign.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_pause.h>
#include <rte_ring.h>

#include "interlink/interlink.h"
#include "interlink/interlink_worker.h"
#include "regime.h"

#define MAX_BURST 256
#define MAX_RUNS 101
#define WINDOW (1u << 16)  /* objects per throughput window */
#define MAX_MARKS (1u << 16)

enum kind { IL, RING, N_KINDS };
static const char *const kind_name[N_KINDS] = { "interlink", "rte_ring" };

static struct {
	int core[2];
	unsigned runs;
	double seconds;
	uint32_t size;
	unsigned burst;
	unsigned batch;
	unsigned batch_alt;
	unsigned samples;
	double interval_us;
	unsigned tries;
	uint32_t sample;
	const char *data;
} opt = {
	.core = { 0, 1 },
	.runs = 11,
	.seconds = 0.2,
	.size = 1024,
	.burst = 32,
	.batch = 1,
	.batch_alt = 4,
	.samples = 5000,
	.interval_us = 10,
	.tries = 1,
};

static uint64_t hz;

/* Shared between the two threads of a measurement, each on its own line. */
static struct {
	alignas(128) int go;
	alignas(128) int stop;
	alignas(128) uint64_t *marks;    /* consumer: TSC at every WINDOW objects */
	unsigned n_marks;
	alignas(128) uint64_t ping;      /* c2c */
	alignas(128) int ready;
} sh;

struct pair {
	enum kind kind;
	struct sl_il *il;
	struct rte_ring *ring;
	uint64_t *lat;          /* latency samples, cycles (warm-up included) */
	uint8_t *prod_bad;      /* sample i was disturbed on the producer's side */
	uint8_t *cons_bad;      /* ... on the consumer's side */
	double *c2c_blocks;     /* c2c: one-way ns per block */
	unsigned n_blocks;
	unsigned batch;         /* interlink: bursts per publish */
	long switches[2];       /* context switches of each thread while measuring */
	/* rte_ring throughput: the lines it made cross, by the model of
	 * struct sl_il_stats (a tail read that found the other end's tail moved,
	 * each slot line the producer wrote), and the objects dequeued; counted
	 * only in a run of its own (count_lines), since the extra reads of the
	 * other end's tail slow the ring (near: by about a fifth) */
	bool count_lines;
	uint64_t ring_lines[2];
	uint64_t ring_objs;
};

/* Cache lines that slots [at, at + n) of a ring of `size` pointers span
 * (the slots start a line; n may wrap around the end). */
static uint64_t slot_lines(uint32_t at, unsigned n, uint32_t size)
{
	enum { PER_LINE = RTE_CACHE_LINE_SIZE / sizeof(void *) };
	uint64_t lines = 0;
	while (n > 0) {
		unsigned k = size - at < n ? size - at : n;
		lines += (at + k - 1) / PER_LINE - at / PER_LINE + 1;
		n -= k;
		at = 0;
	}
	return lines;
}

/* A tail of the other end read before a call: 1 when it moved since the
 * last read (the model's line brought over). */
static inline uint64_t moved(const volatile uint32_t *tail, uint32_t *last)
{
	uint32_t v = __atomic_load_n(tail, __ATOMIC_RELAXED);
	uint64_t m = v != *last;
	*last = v;
	return m;
}

static long thread_switches(void)
{
	struct rusage ru;
	getrusage(RUSAGE_THREAD, &ru);
	return ru.ru_nvcsw + ru.ru_nivcsw;
}

/* Wait for the start; returns the thread's context switches so far. */
static long wait_go(void)
{
	__atomic_add_fetch(&sh.ready, 1, __ATOMIC_ACQ_REL);
	while (!__atomic_load_n(&sh.go, __ATOMIC_ACQUIRE))
		rte_pause();
	return thread_switches();
}

/* Record the context switches of thread `side` since `start`. */
static void done(struct pair *p, int side, long start)
{
	p->switches[side] = thread_switches() - start;
}

/* Run a(arg) on core[0] and b(arg) on core[1]; `go` is raised once both are
 * running.  If `timed`, the main thread measures the consumer's count over
 * opt.seconds (after a 0.1 s warm-up), raises `stop`, and returns Mpps. */
static double run_pair(void *(*a)(void *), void *(*b)(void *), void *arg, bool timed)
{
	pthread_t t[2];
	void *(*fn[2])(void *) = { a, b };
	__atomic_store_n(&sh.go, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&sh.stop, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&sh.ready, 0, __ATOMIC_RELAXED);
	sh.n_marks = 0;
	__atomic_store_n(&sh.ping, 0, __ATOMIC_RELAXED);
	struct pair *p = arg;
	p->switches[0] = p->switches[1] = 0;
	for (int i = 0; i < 2; i++) {
		pthread_attr_t at;
		cpu_set_t cs;
		CPU_ZERO(&cs);
		CPU_SET(opt.core[i], &cs);
		pthread_attr_init(&at);
		pthread_attr_setaffinity_np(&at, sizeof(cs), &cs);
		if (pthread_create(&t[i], &at, fn[i], arg) != 0) {
			fprintf(stderr, "bench_interlink: cannot start a thread on core %d\n",
				opt.core[i]);
			exit(1);
		}
		pthread_attr_destroy(&at);
	}
	while (__atomic_load_n(&sh.ready, __ATOMIC_ACQUIRE) < 2)
		usleep(100);
	__atomic_store_n(&sh.go, 1, __ATOMIC_RELEASE);
	if (timed) {
		usleep((useconds_t)(0.05 * 1e6 + opt.seconds * 1e6));
		__atomic_store_n(&sh.stop, 1, __ATOMIC_RELEASE);
	}
	pthread_join(t[0], NULL);
	pthread_join(t[1], NULL);
	if (!timed)
		return 0;

	/* Median rate over the windows, leaving out the first tenth (warm-up). */
	static double rate[MAX_MARKS];
	unsigned n = 0;
	for (unsigned i = sh.n_marks / 10 + 1; i < sh.n_marks; i++)
		rate[n++] = (double)WINDOW / ((double)(sh.marks[i] - sh.marks[i - 1]) / (double)hz) / 1e6;
	if (n == 0)
		return 0;
	qsort(rate, n, sizeof(double), bench_cmp_double);
	return rate[n / 2];
}

/* c2c */

#define C2C_BLOCK 64

static void *c2c_a(void *arg)
{
	struct pair *p = arg;
	uint64_t v = 0;
	long sw = wait_go();
	for (unsigned blk = 0; blk < p->n_blocks + 16; blk++) {
		uint64_t t0 = rte_rdtsc();
		for (unsigned i = 0; i < C2C_BLOCK; i++) {
			__atomic_store_n(&sh.ping, ++v, __ATOMIC_RELEASE);
			while (__atomic_load_n(&sh.ping, __ATOMIC_ACQUIRE) != v + 1)
				;
			v++;
		}
		uint64_t t1 = rte_rdtsc();
		if (blk >= 16) /* warm-up blocks are not kept */
			p->c2c_blocks[blk - 16] =
				(double)(t1 - t0) * 1e9 / (double)hz / C2C_BLOCK / 2;
	}
	done(p, 0, sw);
	return NULL;
}

static void *c2c_b(void *arg)
{
	struct pair *p = arg;
	uint64_t v = 1, end = 2ull * C2C_BLOCK * (p->n_blocks + 16);
	long sw = wait_go();
	while (v < end) {
		while (__atomic_load_n(&sh.ping, __ATOMIC_ACQUIRE) != v)
			;
		__atomic_store_n(&sh.ping, ++v, __ATOMIC_RELEASE);
		v++;
	}
	done(p, 1, sw);
	return NULL;
}

/* throughput */

static void *thr_producer(void *arg)
{
	struct pair *p = arg;
	void *objs[MAX_BURST];
	for (unsigned i = 0; i < opt.burst; i++)
		objs[i] = (void *)(uintptr_t)(i + 1);
	long sw = wait_go();
	if (p->kind == IL) {
		unsigned left = p->batch;
		while (!__atomic_load_n(&sh.stop, __ATOMIC_RELAXED))
			for (unsigned i = 0; i < 64; i++) {
				sl_il_enqueue_burst(p->il, objs, opt.burst);
				if (--left == 0) {
					sl_il_publish_producer(p->il);
					left = p->batch;
				}
			}
		sl_il_publish_producer(p->il);
	} else if (!p->count_lines) {
		while (!__atomic_load_n(&sh.stop, __ATOMIC_RELAXED))
			for (unsigned i = 0; i < 64; i++)
				rte_ring_sp_enqueue_burst(p->ring, objs, opt.burst, NULL);
	} else {
		struct rte_ring *ring = p->ring;
		uint64_t lines = 0;
		uint32_t last = ring->cons.tail;
		while (!__atomic_load_n(&sh.stop, __ATOMIC_RELAXED))
			for (unsigned i = 0; i < 64; i++) {
				uint32_t at = ring->prod.head & ring->mask;
				lines += moved(&ring->cons.tail, &last);
				unsigned n = rte_ring_sp_enqueue_burst(ring, objs, opt.burst, NULL);
				lines += slot_lines(at, n, ring->size);
			}
		p->ring_lines[0] += lines;
	}
	done(p, 0, sw);
	return NULL;
}

static inline void mark(uint64_t got, uint64_t *next_mark)
{
	if (got >= *next_mark && sh.n_marks < MAX_MARKS) {
		sh.marks[sh.n_marks++] = rte_rdtsc();
		*next_mark += WINDOW;
	}
}

static void *thr_consumer(void *arg)
{
	struct pair *p = arg;
	void *objs[MAX_BURST];
	uint64_t got = 0, next_mark = WINDOW;
	long sw = wait_go();
	if (p->kind == IL) {
		unsigned left = p->batch;
		while (!__atomic_load_n(&sh.stop, __ATOMIC_RELAXED)) {
			got += sl_il_dequeue_burst(p->il, objs, opt.burst);
			if (--left == 0) {
				sl_il_publish_consumer(p->il);
				left = p->batch;
			}
			mark(got, &next_mark);
		}
		sl_il_publish_consumer(p->il);
	} else if (!p->count_lines) {
		while (!__atomic_load_n(&sh.stop, __ATOMIC_RELAXED)) {
			got += rte_ring_sc_dequeue_burst(p->ring, objs, opt.burst, NULL);
			mark(got, &next_mark);
		}
	} else {
		uint64_t lines = 0;
		uint32_t last = p->ring->prod.tail;
		while (!__atomic_load_n(&sh.stop, __ATOMIC_RELAXED)) {
			lines += moved(&p->ring->prod.tail, &last);
			got += rte_ring_sc_dequeue_burst(p->ring, objs, opt.burst, NULL);
			mark(got, &next_mark);
		}
		p->ring_lines[1] += lines;
		p->ring_objs += got;
	}
	done(p, 1, sw);
	return NULL;
}

/* Main thread, after a measurement's threads were joined: empty both rings. */
static void empty_rings(struct pair *p)
{
	void *objs[MAX_BURST];
	while (sl_il_dequeue_burst_publish(p->il, objs, MAX_BURST) > 0)
		;
	while (rte_ring_sc_dequeue_burst(p->ring, objs, MAX_BURST, NULL) > 0)
		;
}

/* Run a measurement until neither thread was switched out while it ran, at
 * most opt.tries times; counts attempts and measurements kept disturbed. */
static unsigned n_attempts, n_measurements, n_disturbed;

static double measure(void *(*a)(void *), void *(*b)(void *), struct pair *p, bool timed)
{
	double v = 0;
	n_measurements++;
	for (unsigned t = 0; t < opt.tries; t++) {
		n_attempts++;
		v = run_pair(a, b, p, timed);
		if (timed)
			empty_rings(p);
		if (p->switches[0] == 0 && p->switches[1] == 0)
			return v;
	}
	n_disturbed++;
	return v;
}

/* latency */

/* A thread that was off its CPU makes a sample meaningless (it measures the
 * scheduler), so each side flags such samples and they are left out: the
 * producer when stamping-to-published took longer than GAP_US; the consumer
 * unless the object arrived alone, in a poll that followed an empty poll, with
 * no gap of more than GAP_US in its polling (objects that piled up while the
 * consumer was away arrive together, or without an empty poll before them). */
#define GAP_US 5

static void *lat_producer(void *arg)
{
	struct pair *p = arg;
	uint64_t interval = (uint64_t)(opt.interval_us * 1e-6 * (double)hz);
	uint64_t gap = (uint64_t)(GAP_US * 1e-6 * (double)hz);
	unsigned total = opt.samples + opt.samples / 10;
	long sw = wait_go();
	uint64_t next = rte_rdtsc() + interval;
	for (unsigned i = 0; i < total; i++) {
		uint64_t now;
		while ((now = rte_rdtsc()) < next)
			rte_pause();
		/* Late (switched out)?  Start the pace again rather than send a
		 * catch-up burst. */
		next = now - next > interval ? now + interval : next + interval;
		uint64_t stamp = rte_rdtsc();
		void *obj = (void *)(uintptr_t)stamp;
		if (p->kind == IL)
			while (sl_il_enqueue_burst_publish(p->il, &obj, 1) == 0)
				;
		else
			while (rte_ring_sp_enqueue_burst(p->ring, &obj, 1, NULL) == 0)
				;
		p->prod_bad[i] = rte_rdtsc() - stamp > gap;
	}
	done(p, 0, sw);
	return NULL;
}

static void *lat_consumer(void *arg)
{
	struct pair *p = arg;
	unsigned total = opt.samples + opt.samples / 10;
	uint64_t gap = (uint64_t)(GAP_US * 1e-6 * (double)hz);
	void *objs[MAX_BURST];
	long sw = wait_go();
	uint64_t seen = rte_rdtsc(); /* TSC at a recent empty poll (every 16th) */
	unsigned polls = 0;
	bool was_empty = false;
	for (unsigned got = 0; got < total;) {
		unsigned n;
		if (p->kind == IL)
			n = sl_il_dequeue_burst_publish(p->il, objs, MAX_BURST);
		else
			n = rte_ring_sc_dequeue_burst(p->ring, objs, MAX_BURST, NULL);
		if (n == 0) {
			if ((++polls & 15) == 0)
				seen = rte_rdtsc();
			was_empty = true;
			continue;
		}
		uint64_t now = rte_rdtsc_precise();
		bool bad = n > 1 || !was_empty || now - seen > gap;
		for (unsigned k = 0; k < n && got < total; k++, got++) {
			p->lat[got] = now - (uint64_t)(uintptr_t)objs[k];
			p->cons_bad[got] = bad;
		}
		was_empty = false;
		seen = rte_rdtsc();
	}
	done(p, 1, sw);
	return NULL;
}

/* After a latency measurement: move the clean samples after the warm-up
 * (the first tenth) to dst; returns how many. */
static unsigned keep_clean(const struct pair *p, uint64_t *dst)
{
	unsigned total = opt.samples + opt.samples / 10, n = 0;
	for (unsigned i = opt.samples / 10; i < total; i++)
		if (!p->prod_bad[i] && !p->cons_bad[i])
			dst[n++] = p->lat[i];
	return n;
}

/* statistics */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* q-quantile of sorted v[0..n), nearest rank. */
static double quantile_u64(const uint64_t *v, size_t n, double q)
{
	size_t i = (size_t)(q * (double)n);
	if (i >= n)
		i = n - 1;
	return (double)v[i];
}

static double cyc_ns(double c)
{
	return c * 1e9 / (double)hz;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: bench_interlink [--cores A,B] [--runs N] [--seconds S] [--size N]\n"
		"                       [--burst N] [--batch N] [--batch-alt N] [--samples N]\n"
		"                       [--interval-us U]"
		"                       [--tries N] [--sample-every N] [--data DIR]\n"
		"Compares an interlink with an SP/SC rte_ring on cores A (producer) and B\n"
		"(consumer); see the comment at the top of tests/bench/bench_interlink.c.\n");
}

static int parse(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "cores", required_argument, NULL, 'c' },
		{ "runs", required_argument, NULL, 'r' },
		{ "seconds", required_argument, NULL, 's' },
		{ "size", required_argument, NULL, 'z' },
		{ "burst", required_argument, NULL, 'b' },
		{ "batch", required_argument, NULL, 'B' },
		{ "batch-alt", required_argument, NULL, 'A' },
		{ "samples", required_argument, NULL, 'n' },
		{ "interval-us", required_argument, NULL, 'i' },
		{ "tries", required_argument, NULL, 't' },
		{ "sample-every", required_argument, NULL, 'S' },
		{ "data", required_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'c':
			if (sscanf(optarg, "%d,%d", &opt.core[0], &opt.core[1]) != 2 ||
			    opt.core[0] < 0 || opt.core[1] < 0 || opt.core[0] == opt.core[1]) {
				fprintf(stderr, "bench_interlink: --cores wants two different "
						"CPUs A,B, got '%s'\n", optarg);
				return -EINVAL;
			}
			break;
		case 'r':
			opt.runs = (unsigned)atoi(optarg);
			break;
		case 's':
			opt.seconds = atof(optarg);
			break;
		case 'z':
			opt.size = (uint32_t)atol(optarg);
			break;
		case 'b':
			opt.burst = (unsigned)atoi(optarg);
			break;
		case 'B':
			opt.batch = (unsigned)atoi(optarg);
			break;
		case 'A':
			opt.batch_alt = (unsigned)atoi(optarg);
			break;
		case 'n':
			opt.samples = (unsigned)atoi(optarg);
			break;
		case 'i':
			opt.interval_us = atof(optarg);
			break;
		case 't':
			opt.tries = (unsigned)atoi(optarg);
			break;
		case 'S':
			opt.sample = (uint32_t)atol(optarg);
			break;
		case 'd':
			opt.data = optarg;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			return -EINVAL;
		}
	}
	if (opt.runs < 1 || opt.runs > MAX_RUNS || opt.seconds <= 0 || opt.burst < 1 ||
	    opt.burst > MAX_BURST || opt.batch < 1 || opt.samples < 100 || opt.interval_us <= 0 ||
	    opt.tries < 1) {
		fprintf(stderr, "bench_interlink: --runs must be 1..%d, --burst 1..%d, --batch >= 1, "
				"--samples >= 100, --tries >= 1, --seconds and --interval-us > 0\n",
			MAX_RUNS, MAX_BURST);
		return -EINVAL;
	}
	return 0;
}

static void cpu_model(char *buf, size_t len)
{
	snprintf(buf, len, "unknown CPU");
	FILE *f = fopen("/proc/cpuinfo", "r");
	if (f == NULL)
		return;
	char line[256];
	while (fgets(line, sizeof(line), f) != NULL) {
		char *c = strchr(line, ':');
		if (strncmp(line, "model name", 10) == 0 && c != NULL) {
			snprintf(buf, len, "%s", c + 2);
			buf[strcspn(buf, "\n")] = '\0';
			break;
		}
	}
	fclose(f);
}

/* One c2c measurement of the pair: the median one-way hop, ns. */
static double pair_c2c(struct pair *p)
{
	measure(c2c_a, c2c_b, p, false);
	qsort(p->c2c_blocks, p->n_blocks, sizeof(double), bench_cmp_double);
	return p->c2c_blocks[p->n_blocks / 2];
}

/* "NAME runs (K): ..." with the medians over the runs of regime NAME, if
 * any: ratio (and batched, where measured), the interlink's p50, the c2c
 * around those runs (c2c_at as for bench_run_regimes). */
static void regime_line(const char *name, const char *const *run_regime, unsigned runs,
			const double *ratio, const double *ratio_alt, const double *il_p50,
			const double *c2c_at)
{
	double v[MAX_RUNS], c[2 * MAX_RUNS];
	unsigned k = bench_pick(run_regime, runs, name, ratio, v);
	if (k == 0)
		return;
	printf("%s runs (%u): throughput_ratio=%.2f", name, k, bench_median(v, k, NULL, NULL));
	if (ratio_alt != NULL) {
		bench_pick(run_regime, runs, name, ratio_alt, v);
		printf(" batched_ratio=%.2f", bench_median(v, k, NULL, NULL));
	}
	bench_pick(run_regime, runs, name, il_p50, v);
	double lat = bench_median(v, k, NULL, NULL);
	double hop = bench_median(c, bench_pick_c2c(run_regime, runs, name, c2c_at, c), NULL, NULL);
	printf(" latency_p50_ns=%.0f c2c_ns=%.1f latency_ratio=%.2f\n", lat, hop, lat / hop);
}

int main(int argc, char **argv)
{
	if (parse(argc, argv) != 0)
		return 2;
	cpu_set_t all;
	sched_getaffinity(0, sizeof(all), &all);
	for (int i = 0; i < 2; i++)
		if (!CPU_ISSET(opt.core[i], &all)) {
			fprintf(stderr, "bench_interlink: CPU %d is not available to this process\n",
				opt.core[i]);
			return 2;
		}

	char prefix[32], lcore[16];
	snprintf(prefix, sizeof(prefix), "bil%d", (int)getpid());
	snprintf(lcore, sizeof(lcore), "%d", opt.core[0]);
	char *eal[] = { "bench_interlink", "--no-huge", "--no-pci", "-m", "512", "--file-prefix",
			prefix, "--log-level", "lib.eal:error", "-l", lcore, NULL };
	if (rte_eal_init(11, eal) < 0) {
		fprintf(stderr, "bench_interlink: cannot initialise DPDK's EAL\n");
		return 1;
	}
	/* The EAL pinned this thread to core A; it only sleeps, but let it run
	 * anywhere so that it never delays the producer. */
	sched_setaffinity(0, sizeof(all), &all);
	hz = rte_get_tsc_hz();

	struct sl_err err = { "" };
	struct sl_il *il = sl_il_create("bench", &(struct sl_il_config){ .size = opt.size,
			.socket = SOCKET_ID_ANY, .sample_every = opt.sample }, &err);
	/* RING_F_EXACT_SZ: usable capacity opt.size, as the interlink's. */
	struct rte_ring *ring = rte_ring_create("bench_ring", opt.size, SOCKET_ID_ANY,
					       RING_F_SP_ENQ | RING_F_SC_DEQ | RING_F_EXACT_SZ);
	if (il == NULL || ring == NULL || sl_il_attach(il, SL_IL_PRODUCER) != 0 ||
	    sl_il_attach(il, SL_IL_CONSUMER) != 0) {
		fprintf(stderr, "bench_interlink: cannot create the rings (%s)\n",
			il == NULL ? err.msg : "interlink created");
		return 1;
	}

	char model[128];
	cpu_model(model, sizeof(model));
	struct sl_il_stats st0;
	sl_il_stats_read(il, &st0);
	printf("machine: %s; %ld CPUs online; TSC %.0f MHz\n", model, sysconf(_SC_NPROCESSORS_ONLN),
	       (double)hz / 1e6);
	/* What the stamps themselves add to a latency sample: an rdtsc, then a
	 * fenced rdtsc, on one core. */
	uint64_t tov[1001];
	for (unsigned i = 0; i < 1001; i++) {
		uint64_t t0 = rte_rdtsc();
		tov[i] = rte_rdtsc_precise() - t0;
	}
	qsort(tov, 1001, sizeof(uint64_t), cmp_u64);
	printf("timer: a latency sample includes about %.0f ns of its own stamping "
	       "(rdtsc, then fence and rdtsc, on one core)\n", cyc_ns((double)tov[500]));
	printf("config: cores %d -> %d, %u runs, %.2f s per throughput run, ring size %u, "
	       "burst %u, publish every %u burst(s) (and %u), sojourn sampling 1 in %u, "
	       "%u latency samples at %.1f us\n",
	       opt.core[0], opt.core[1], opt.runs, opt.seconds, opt.size, opt.burst, opt.batch,
	       opt.batch_alt, st0.sample_every, opt.samples, opt.interval_us);

	double c2c_at[MAX_RUNS + 1];   /* before run r: [r]; after it: [r + 1] */
	double mpps[3][MAX_RUNS], ratio[MAX_RUNS], ratio_alt[MAX_RUNS];
	const char *run_regime[MAX_RUNS];
	double p50[N_KINDS][MAX_RUNS], p99[N_KINDS][MAX_RUNS];
	double lpp[N_KINDS][MAX_RUNS];   /* lines per packet at --batch */
	struct pair p = { .il = il, .ring = ring, .n_blocks = 2000 };
	uint64_t *pool[N_KINDS];   /* clean latency samples of all runs */
	size_t n_pool[N_KINDS] = { 0, 0 }, n_dropped = 0;
	size_t pooled = (size_t)opt.samples * opt.runs;
	unsigned total_samples = opt.samples + opt.samples / 10;
	for (int k = 0; k < N_KINDS; k++)
		pool[k] = calloc(pooled, sizeof(uint64_t));
	p.lat = calloc(total_samples, sizeof(uint64_t));
	p.prod_bad = calloc(total_samples, 1);
	p.cons_bad = calloc(total_samples, 1);
	p.c2c_blocks = calloc(p.n_blocks, sizeof(double));
	sh.marks = calloc(MAX_MARKS, sizeof(uint64_t));
	if (pool[IL] == NULL || pool[RING] == NULL || p.c2c_blocks == NULL || sh.marks == NULL ||
	    p.lat == NULL || p.prod_bad == NULL || p.cons_bad == NULL) {
		fprintf(stderr, "bench_interlink: out of memory\n");
		return 1;
	}

	/* Throughput series: the interlink at --batch, rte_ring, the interlink at
	 * --batch-alt; measured back to back in an order that rotates. */
	enum { T_IL, T_RING, T_ALT, N_T };
	unsigned n_t = opt.batch_alt > 0 ? N_T : 2;
	c2c_at[0] = pair_c2c(&p);
	for (unsigned r = 0; r < opt.runs; r++) {

		for (unsigned j = 0; j < n_t; j++) {
			unsigned t = (j + r) % n_t;
			p.kind = t == T_RING ? RING : IL;
			p.batch = t == T_ALT ? opt.batch_alt : opt.batch;
			struct sl_il_stats a, b;
			sl_il_stats_read(il, &a);
			mpps[t][r] = measure(thr_producer, thr_consumer, &p, true);
			sl_il_stats_read(il, &b);
			if (t == T_IL)
				lpp[IL][r] = sl_il_lines_per_packet(&a, &b);
		}
		/* rte_ring's lines, in a run of their own (its rate is not kept) */
		p.kind = RING;
		p.count_lines = true;
		p.ring_lines[0] = p.ring_lines[1] = p.ring_objs = 0;
		measure(thr_producer, thr_consumer, &p, true);
		p.count_lines = false;
		lpp[RING][r] = p.ring_objs ? (double)(p.ring_lines[0] + p.ring_lines[1]) /
						 (double)p.ring_objs : 0;
		ratio[r] = mpps[T_IL][r] / mpps[T_RING][r];
		ratio_alt[r] = n_t == N_T ? mpps[T_ALT][r] / mpps[T_RING][r] : 0;
		for (int j = 0; j < N_KINDS; j++) {
			enum kind k = (enum kind)((j + (int)r) % N_KINDS);
			p.kind = k;
			measure(lat_producer, lat_consumer, &p, false);
			uint64_t *kept = pool[k] + n_pool[k];
			unsigned n = keep_clean(&p, kept);
			n_pool[k] += n;
			n_dropped += opt.samples - n;
			if (n == 0) {
				p50[k][r] = p99[k][r] = 0;
				continue;
			}
			qsort(kept, n, sizeof(uint64_t), cmp_u64);
			p50[k][r] = cyc_ns(quantile_u64(kept, n, 0.50));
			p99[k][r] = cyc_ns(quantile_u64(kept, n, 0.99));
		}
		c2c_at[r + 1] = pair_c2c(&p);
		run_regime[r] = sl_c2c_regime2(c2c_at[r], c2c_at[r + 1]);
		if (strcmp(run_regime[r], "far") == 0 && p50[IL][r] < SL_C2C_FAR_NS)
			run_regime[r] = "mixed";   /* a far pair cannot hand over in less
						    * (0: no clean sample, no witness) */
		printf("run %u: c2c %.1f/%.1f ns (%s) | throughput interlink %.1f Mpps, rte_ring "
		       "%.1f Mpps (x%.2f)", r + 1, c2c_at[r], c2c_at[r + 1], run_regime[r],
		       mpps[T_IL][r], mpps[T_RING][r], ratio[r]);
		if (n_t == N_T)
			printf(", interlink publishing every %u bursts %.1f Mpps (x%.2f)", opt.batch_alt,
			       mpps[T_ALT][r], ratio_alt[r]);
		printf(" | latency p50/p99 interlink %.0f/%.0f ns, rte_ring %.0f/%.0f ns"
		       " | lines per packet interlink %.3f, rte_ring %.3f\n",
		       p50[IL][r], p99[IL][r], p50[RING][r], p99[RING][r], lpp[IL][r],
		       lpp[RING][r]);
		fflush(stdout);
	}

	printf("measurements: %u in %u attempts; a thread was switched out during %u of the "
	       "measurements kept (--tries %u); latency samples left out because a thread "
	       "was off its CPU: %zu of %zu\n",
	       n_measurements, n_attempts, n_disturbed, opt.tries, n_dropped,
	       (size_t)opt.samples * opt.runs * N_KINDS);
	double lo, hi, m;
	printf("median (min..max) over %u runs:\n", opt.runs);
	m = bench_median(c2c_at, opt.runs + 1, &lo, &hi);
	printf("  %-36s %8.1f ns    (%.1f..%.1f; before the first run and after each)\n",
	       "c2c one-way hop", m, lo, hi);
	double c2c_med = m;
	const char *regime = bench_common_regime(run_regime, opt.runs);
	for (unsigned t = 0; t < n_t; t++) {
		char label[64];
		if (t == T_RING)
			snprintf(label, sizeof(label), "throughput rte_ring");
		else
			snprintf(label, sizeof(label), "throughput interlink, batch %u",
				 t == T_IL ? opt.batch : opt.batch_alt);
		m = bench_median(mpps[t], opt.runs, &lo, &hi);
		printf("  %-36s %8.1f Mpps  (%.1f..%.1f)\n", label, m, lo, hi);
	}
	double thr_ratio = bench_median(ratio, opt.runs, &lo, &hi);
	printf("  %-36s %8.2f       (%.2f..%.2f)\n", "throughput ratio", thr_ratio, lo, hi);
	double alt_ratio = 0;
	if (n_t == N_T) {
		char label[64];
		snprintf(label, sizeof(label), "throughput ratio, batch %u", opt.batch_alt);
		alt_ratio = bench_median(ratio_alt, opt.runs, &lo, &hi);
		printf("  %-36s %8.2f       (%.2f..%.2f)\n", label, alt_ratio, lo, hi);
	}
	double il_p50 = 0;
	for (int k = 0; k < N_KINDS; k++) {
		char label[64];
		snprintf(label, sizeof(label), "latency p50 %s", kind_name[k]);
		m = bench_median(p50[k], opt.runs, &lo, &hi);
		if (k == IL)
			il_p50 = m;
		printf("  %-36s %8.0f ns    (%.0f..%.0f)\n", label, m, lo, hi);
		snprintf(label, sizeof(label), "latency p99 %s", kind_name[k]);
		m = bench_median(p99[k], opt.runs, &lo, &hi);
		printf("  %-36s %8.0f ns    (%.0f..%.0f)\n", label, m, lo, hi);
	}

	struct sl_il_stats s;
	sl_il_stats_read(il, &s);
	printf("interlink counters: %lu objects, %lu refused while full, high-water %u of %u, "
	       "sampled sojourn p50 %lu ns p99 %lu ns (%lu samples, all phases)\n",
	       (unsigned long)s.packets, (unsigned long)s.refused, s.occupancy_hwm, s.size,
	       (unsigned long)sl_il_sojourn_quantile_ns(&s, 0.5),
	       (unsigned long)sl_il_sojourn_quantile_ns(&s, 0.99),
	       (unsigned long)s.sojourn_samples);

	if (opt.data != NULL) {
		char path[4096];
		snprintf(path, sizeof(path), "%s/throughput.dat", opt.data);
		FILE *f = fopen(path, "w");
		if (f != NULL) {
			fprintf(f, "# run interlink_mpps rte_ring_mpps c2c_ns interlink_batch%u_mpps\n",
				opt.batch_alt);
			for (unsigned r = 0; r < opt.runs; r++)
				fprintf(f, "%u %.2f %.2f %.2f %.2f\n", r + 1, mpps[T_IL][r],
					mpps[T_RING][r], c2c_at[r], n_t == N_T ? mpps[T_ALT][r] : 0);
			fclose(f);
		}
		snprintf(path, sizeof(path), "%s/latency.dat", opt.data);
		f = fopen(path, "w");
		if (f != NULL) {
			for (int k = 0; k < N_KINDS; k++)
				qsort(pool[k], n_pool[k], sizeof(uint64_t), cmp_u64);
			fprintf(f, "# percentile interlink_ns rte_ring_ns (all runs' clean samples: "
				   "%zu and %zu)\n", n_pool[IL], n_pool[RING]);
			static const double qs[] = { 1, 5, 10, 20, 30, 40, 50, 60, 70, 80, 90, 95,
						     97, 99, 99.5, 99.9 };
			for (size_t i = 0; i < sizeof(qs) / sizeof(qs[0]); i++)
				fprintf(f, "%.1f %.1f %.1f\n", qs[i],
					n_pool[IL] ? cyc_ns(quantile_u64(pool[IL], n_pool[IL],
									  qs[i] / 100)) : 0,
					n_pool[RING] ? cyc_ns(quantile_u64(pool[RING], n_pool[RING],
									    qs[i] / 100)) : 0);
			fclose(f);
		}
		if (f == NULL)
			fprintf(stderr, "bench_interlink: cannot write %s\n", path);
	}

	double il_lpp = bench_median(lpp[IL], opt.runs, &lo, &hi);
	double ring_lpp = bench_median(lpp[RING], opt.runs, &lo, &hi);
	printf("lines: lines_per_packet=%.3f ring_lines_per_packet=%.3f (cache lines made to cross "
	       "per packet at one publish per %u burst(s), median over runs; interlink from its "
	       "counters, rte_ring from its tails and slots)\n", il_lpp, ring_lpp, opt.batch);
	if (n_t == N_T)
		printf("batched: publishing every %u bursts, throughput_ratio=%.2f\n", opt.batch_alt,
		       alt_ratio);
	for (int g = 0; g < 2; g++)
		regime_line(g == 0 ? "far" : "near", run_regime, opt.runs, ratio,
			    n_t == N_T ? ratio_alt : NULL, p50[IL], c2c_at);
	printf("summary: throughput_ratio=%.2f latency_p50_ns=%.0f c2c_ns=%.1f latency_ratio=%.2f "
	       "regime=%s\n", thr_ratio, il_p50, c2c_med, il_p50 / c2c_med, regime);

	sl_il_detach(il, SL_IL_PRODUCER);
	sl_il_detach(il, SL_IL_CONSUMER);
	sl_il_drain(il, NULL, NULL);
	sl_il_free(il);
	rte_ring_free(ring);
	for (int k = 0; k < N_KINDS; k++)
		free(pool[k]);
	free(p.c2c_blocks);
	free(p.lat);
	free(p.prod_bad);
	free(p.cons_bad);
	free(sh.marks);
	rte_eal_cleanup();
	return 0;
}
