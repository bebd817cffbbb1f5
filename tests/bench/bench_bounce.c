/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bench_bounce: what one shared cache line per packet costs between two
 * CPUs, with no engine, no mbuf and no pool: the floor under the engine's
 * cliff (docs/benchmarks.md, "The floor under the cliff").
 *
 * A pool of --objects objects, --stride bytes apart, is cycled through in a
 * fixed order (--order shuffled, the default: a random cycle, as buffers come
 * back from a pool; sequential: one the hardware prefetchers can follow); an
 * object is reused --objects objects after its last use.  A producer thread
 * on CPU A writes each object, a burst at a time, and publishes how many it
 * has written: --stores 8-byte words of its first line and, with --footprint
 * mbuf (the default), what a source filling an mbuf also does (a
 * read-modify-write of the first line, two stores to the second, a 64-byte
 * frame copied into a data line four lines on).  A consumer thread on CPU B
 * takes what is published and publishes how many it has taken, so that the
 * producer never rewrites an object the consumer has not had.  The two
 * indices live on lines of their own, each with one writer, refreshed only
 * when a side's cached view runs out (the interlink's discipline).
 * Scenarios, alternated within every run:
 *
 *   index   the consumer does not read the objects: only the indices
 *           cross (the floor of any ring)
 *   read    the consumer reads one word of each object's first line, as a
 *           sink reads an mbuf's length: that line crosses to B, and the
 *           producer's next write of it must take it back
 *   pfw     read, and the producer issues PREFETCHW (the instruction: the
 *           build's -march=corei7 makes __builtin_prefetch's write hint a
 *           plain PREFETCHT0) for the first line of the object --distance
 *           objects ahead of the one it writes
 *   local   read, with both sides on CPU A in turns (a burst written, then
 *           read): the same work with no line crossing
 *
 * Output: one line per scenario and run (ns per object, Mobjects/s, the c2c
 * measured just before), then
 *
 *   summary: read_over_local=X pfw_over_read=Y index_over_local=Z c2c_ns=C regime=R
 *
 * medians over runs.  X is what the cliff's goal asks of the engine
 * (>= 0.9): how fast one shared line per packet can go against none.
 */
#include <getopt.h>
#include <pthread.h>
#include <sched.h>
#include <stdalign.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "regime.h"

enum { SC_INDEX, SC_READ, SC_PFW, SC_LOCAL, SC_N };
static const char *const sc_names[SC_N] = { "index", "read", "pfw", "local" };

#define MAX_RUNS 64

struct opts {
	int cpu[2];
	unsigned objects, stride, stores, burst, distance, runs;
	double seconds;
	bool shuffled;   /* --order shuffled: objects cycle in a random order */
	bool mbuf;       /* --footprint mbuf: each write touches an mbuf's lines */
};

static struct {
	alignas(128) uint64_t head;     /* objects written: producer's line */
	alignas(128) uint64_t tail;     /* objects taken: consumer's line */
	alignas(128) volatile int stop;
	int scenario;
	uint8_t *objs;
	uint32_t *order;                /* the cycle's order of objects */
	uint64_t sum;                   /* the consumer's reads, kept live */
} sh;

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static char g_frame[64];   /* the frame template a source copies */
static inline uint64_t *obj(const struct opts *o, uint64_t i)
{
	return (uint64_t *)(sh.objs + (size_t)sh.order[i % o->objects] * o->stride);
}

static inline void write_obj(const struct opts *o, uint64_t i)
{
	uint64_t *w = obj(o, i);

	if (o->mbuf) {
		/* as the source resets and fills an mbuf: a read-modify-write
		 * of the first line (ol_flags), stores to the second (next,
		 * tx_offload), the frame copied into a data line and patched */
		w[3] &= 1ull << 61;
		w[8] = 0;
		w[9] = 0;
		memcpy((char *)w + 256, g_frame, sizeof(g_frame));
		((uint32_t *)w)[64 + 7] = (uint32_t)i;
	}
	for (unsigned k = 0; k < o->stores; k++)
		w[k] = i + k;
}

static void pin(int cpu)
{
	cpu_set_t s;

	CPU_ZERO(&s);
	CPU_SET(cpu, &s);
	pthread_setaffinity_np(pthread_self(), sizeof(s), &s);
}

static const struct opts *g_o;
static uint64_t g_done;   /* objects the producer wrote in the timed window */

static void *producer(void *arg)
{
	const struct opts *o = g_o;
	uint64_t head = 0, tail_seen = 0;
	bool pfw = sh.scenario == SC_PFW;
	double end;

	(void)arg;
	pin(o->cpu[0]);
	end = now_s() + o->seconds;
	while (!sh.stop) {
		if (head + o->burst - tail_seen > o->objects) {
			tail_seen = __atomic_load_n(&sh.tail, __ATOMIC_ACQUIRE);
			if (head + o->burst - tail_seen > o->objects)
				continue;
		}
		for (unsigned j = 0; j < o->burst; j++) {
			if (pfw)
				__asm__ volatile("prefetchw %0"
						 : : "m"(*(char *)obj(o, head + j + o->distance)));
			write_obj(o, head + j);
		}
		head += o->burst;
		__atomic_store_n(&sh.head, head, __ATOMIC_RELEASE);
		if ((head & 4095) == 0 && now_s() >= end)
			break;
	}
	g_done = head;
	sh.stop = 1;
	return NULL;
}

static void *consumer(void *arg)
{
	const struct opts *o = g_o;
	uint64_t tail = 0, head_seen = 0, sum = 0;
	bool read = sh.scenario != SC_INDEX;

	(void)arg;
	pin(o->cpu[1]);
	while (!sh.stop) {
		if (tail == head_seen) {
			head_seen = __atomic_load_n(&sh.head, __ATOMIC_ACQUIRE);
			if (tail == head_seen)
				continue;
		}
		if (read)
			for (uint64_t i = tail; i < head_seen; i++)
				sum += *obj(o, i);
		tail = head_seen;
		__atomic_store_n(&sh.tail, tail, __ATOMIC_RELEASE);
	}
	sh.sum += sum;
	return NULL;
}

/* Both sides on one CPU, a burst written then read: no line crosses. */
static double run_local(const struct opts *o)
{
	uint64_t i = 0, sum = 0;
	double t0 = now_s(), end = t0 + o->seconds;

	pin(o->cpu[0]);
	for (;;) {
		for (unsigned j = 0; j < o->burst; j++)
			write_obj(o, i + j);
		for (unsigned j = 0; j < o->burst; j++)
			sum += *obj(o, i + j);
		i += o->burst;
		if ((i & 4095) == 0 && now_s() >= end)
			break;
	}
	sh.sum += sum;
	return (now_s() - t0) * 1e9 / (double)i;
}

static double run_pair(const struct opts *o, int scenario)
{
	pthread_t tp, tc;
	double t0;

	sh.head = sh.tail = 0;
	sh.stop = 0;
	sh.scenario = scenario;
	memset(sh.objs, 0, (size_t)o->objects * o->stride);
	t0 = now_s();
	if (pthread_create(&tc, NULL, consumer, NULL) != 0 ||
	    pthread_create(&tp, NULL, producer, NULL) != 0) {
		fprintf(stderr, "bench_bounce: cannot start a thread\n");
		exit(1);
	}
	pthread_join(tp, NULL);
	pthread_join(tc, NULL);
	return (now_s() - t0) * 1e9 / (double)g_done;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: bench_bounce [--cores A,B] [--runs N] [--seconds S] [--objects N]\n"
		"                    [--stride BYTES] [--stores K] [--burst N] [--distance D]\n"
		"What one shared cache line per packet costs between two CPUs, against\n"
		"none and against one CPU (the source's header comment says more).\n"
		"  --cores A,B     producer and consumer CPUs (default 0,1)\n"
		"  --runs N        runs, each of every scenario (default 3, at most %d)\n"
		"  --seconds S     seconds per scenario and run (default 0.5)\n"
		"  --objects N     objects cycled through (default 16384)\n"
		"  --stride BYTES  bytes between objects, a multiple of 64 (default 2432,\n"
		"                  an mbuf of the engine's pool)\n"
		"  --stores K      8-byte words written per object, 1..8 (default 6)\n"
		"  --burst N       objects per publish (default 32)\n"
		"  --distance D    PREFETCHW distance in objects for pfw (default 32)\n"
		"  --order O       shuffled (default: a random cycle, as a pool hands\n"
		"                  buffers back) or sequential (the hardware prefetchers\n"
		"                  can follow it)\n"
		"  --footprint F   mbuf (default: each write also touches a second line\n"
		"                  and a data line, as a source filling an mbuf does) or\n"
		"                  line (the first line only)\n",
		MAX_RUNS);
}

static unsigned long num(const char *opt, const char *s, unsigned long lo, unsigned long hi)
{
	char *end;
	unsigned long v = strtoul(s, &end, 10);

	if (*s == '\0' || *end != '\0' || v < lo || v > hi) {
		fprintf(stderr, "bench_bounce: %s must be a number %lu..%lu, got '%s'\n", opt,
			lo, hi, s);
		exit(2);
	}
	return v;
}

static void parse(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
		{ "cores", 1, 0, 'c' }, { "runs", 1, 0, 'r' },    { "seconds", 1, 0, 's' },
		{ "objects", 1, 0, 'o' }, { "stride", 1, 0, 'S' }, { "stores", 1, 0, 'k' },
		{ "burst", 1, 0, 'b' },  { "distance", 1, 0, 'd' }, { "order", 1, 0, 'O' },
		{ "footprint", 1, 0, 'f' }, { "help", 0, 0, 'h' },
		{ 0, 0, 0, 0 },
	};
	int c;

	*o = (struct opts){ .cpu = { 0, 1 }, .objects = 16384, .stride = 2432, .stores = 6,
			    .burst = 32, .distance = 32, .runs = 3, .seconds = 0.5,
			    .shuffled = true, .mbuf = true };
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		char *end;

		switch (c) {
		case 'c':
			if (sscanf(optarg, "%d,%d", &o->cpu[0], &o->cpu[1]) != 2 ||
			    o->cpu[0] == o->cpu[1] || o->cpu[0] < 0 || o->cpu[1] < 0) {
				fprintf(stderr, "bench_bounce: --cores must be two different CPUs A,B, got '%s'\n",
					optarg);
				exit(2);
			}
			break;
		case 'r': o->runs = num("--runs", optarg, 1, MAX_RUNS); break;
		case 's':
			o->seconds = strtod(optarg, &end);
			if (*end != '\0' || !(o->seconds >= 0.05 && o->seconds <= 60)) {
				fprintf(stderr, "bench_bounce: --seconds must be 0.05..60, got '%s'\n",
					optarg);
				exit(2);
			}
			break;
		case 'o': o->objects = num("--objects", optarg, 1024, 1u << 22); break;
		case 'S': o->stride = num("--stride", optarg, 64, 65536); break;
		case 'k': o->stores = num("--stores", optarg, 1, 8); break;
		case 'b': o->burst = num("--burst", optarg, 1, 256); break;
		case 'd': o->distance = num("--distance", optarg, 0, 4096); break;
		case 'O':
			if (strcmp(optarg, "shuffled") != 0 && strcmp(optarg, "sequential") != 0) {
				fprintf(stderr, "bench_bounce: --order must be shuffled or sequential, got '%s'\n",
					optarg);
				exit(2);
			}
			o->shuffled = optarg[0] == 's' && optarg[1] == 'h';
			break;
		case 'f':
			if (strcmp(optarg, "mbuf") != 0 && strcmp(optarg, "line") != 0) {
				fprintf(stderr, "bench_bounce: --footprint must be mbuf or line, got '%s'\n",
					optarg);
				exit(2);
			}
			o->mbuf = optarg[0] == 'm';
			break;
		case 'h': usage(stdout); exit(0);
		default: usage(stderr); exit(2);
		}
	}
	if (optind < argc) {
		fprintf(stderr, "bench_bounce: unexpected argument '%s'\n", argv[optind]);
		exit(2);
	}
	if (o->stride % 64 != 0 || (o->mbuf && o->stride < 384)) {
		fprintf(stderr, "bench_bounce: --stride must be a multiple of 64%s, got %u\n",
			o->mbuf ? ", at least 384 with --footprint mbuf" : "", o->stride);
		exit(2);
	}
	if (o->objects % o->burst != 0 || o->objects < 2 * o->burst) {
		fprintf(stderr, "bench_bounce: --objects (%u) must be a multiple of --burst (%u), at least two bursts\n",
			o->objects, o->burst);
		exit(2);
	}
}

int main(int argc, char **argv)
{
	struct opts o;
	double ns[SC_N][MAX_RUNS], c2c[MAX_RUNS], r_read[MAX_RUNS], r_pfw[MAX_RUNS],
		r_index[MAX_RUNS];

	parse(argc, argv, &o);
	g_o = &o;
	if (posix_memalign((void **)&sh.objs, 4096, (size_t)o.objects * o.stride) != 0) {
		fprintf(stderr, "bench_bounce: cannot allocate %u objects of %u bytes\n", o.objects,
			o.stride);
		return 1;
	}
	sh.order = malloc(o.objects * sizeof(*sh.order));
	for (unsigned i = 0; i < o.objects; i++)
		sh.order[i] = i;
	if (o.shuffled)
		for (unsigned i = o.objects - 1; i > 0; i--) {
			unsigned j = (unsigned)random() % (i + 1), t = sh.order[i];
			sh.order[i] = sh.order[j];
			sh.order[j] = t;
		}
	printf("bench_bounce: cpus %d -> %d, %u objects %u bytes apart in %s order, footprint %s, %u stores each, bursts of %u, pfw distance %u, %u runs of %.2f s per scenario\n",
	       o.cpu[0], o.cpu[1], o.objects, o.stride, o.shuffled ? "shuffled" : "sequential",
	       o.mbuf ? "mbuf" : "line", o.stores, o.burst, o.distance, o.runs, o.seconds);
	for (unsigned r = 0; r < o.runs; r++) {
		c2c[r] = bench_pair_c2c("bench_bounce", o.cpu[0], o.cpu[1]);
		for (int k = 0; k < SC_N; k++) {
			int s = (k + (int)r) % SC_N;   /* a different order each run */
			ns[s][r] = s == SC_LOCAL ? run_local(&o) : run_pair(&o, s);
		}
		for (int s = 0; s < SC_N; s++)
			printf("run %u %-5s %7.2f ns/object %7.2f Mobj/s   c2c %.1f ns (%s)\n", r + 1,
			       sc_names[s], ns[s][r], 1e3 / ns[s][r], c2c[r],
			       sl_c2c_regime(c2c[r]));
		r_read[r] = ns[SC_LOCAL][r] / ns[SC_READ][r];
		r_pfw[r] = ns[SC_READ][r] / ns[SC_PFW][r];
		r_index[r] = ns[SC_LOCAL][r] / ns[SC_INDEX][r];
	}
	double lo = c2c[0], hi = c2c[0];
	for (unsigned r = 1; r < o.runs; r++) {
		lo = c2c[r] < lo ? c2c[r] : lo;
		hi = c2c[r] > hi ? c2c[r] : hi;
	}
	printf("summary: read_over_local=%.3f pfw_over_read=%.3f index_over_local=%.3f c2c_ns=%.1f regime=%s\n",
	       bench_median(r_read, o.runs, NULL, NULL), bench_median(r_pfw, o.runs, NULL, NULL),
	       bench_median(r_index, o.runs, NULL, NULL), bench_median(c2c, o.runs, NULL, NULL),
	       sl_c2c_regime2(lo, hi));
	fprintf(stderr, "(checksum %llu)\n", (unsigned long long)sh.sum);
	free(sh.objs);
	return 0;
}
