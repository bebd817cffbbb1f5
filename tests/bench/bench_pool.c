/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Sluice's buffer pool against rte_mempool, in one run, on the same cores.
 * Three mempools of --mbufs pktmbufs, all used through rte_mempool_get_bulk /
 * rte_mempool_put_bulk (DPDK's allocator path, as PMDs use it):
 *
 *   sluice      the "sluice" ops (sl_pool_mbuf_create: each bench thread a
 *               worker, DPDK's cache of its lcore sized to the chunk in front;
 *               as the engine makes it by default, a queue of --tier chunks
 *               in front of the global queue, all threads in one domain)
 *   ring+cache  ring_mp_mc with a 256-entry per-lcore cache (DPDK's default)
 *   stack+cache the "stack" ops with a 256-entry per-lcore cache
 *   no pool     a get copies a fixed burst, a put does nothing: what the
 *               scenario's links cost alone, the floor under the others
 *
 * Scenarios (ns per object = ns per get+put of one buffer, in bursts of
 * --burst; median and range over --runs rounds, pools interleaved in each):
 *
 *   same-worker  one thread on the first CPU gets a burst and puts it back
 *   one-way      A (first CPU) gets bursts and passes them through an SPSC
 *                link (cached indices, like Sluice's interlinks) to B (second
 *                CPU), which puts them: every buffer travels back from B to A
 *                through the pool.  B waits --backoff-ns when its link is
 *                empty, as a worker with other work in its breath would.
 *   fan-out      A passes bursts round-robin to --fanout consumers; with fewer
 *                CPUs than threads the result is printed but marked: threads
 *                sharing a CPU make the timing meaningless
 *
 * On a shared machine, a measurement during which any of its threads got
 * less than --min-cpu of the wall time as CPU time (another process ran on
 * its CPU) is repeated, at most --retries times; the counts are printed.
 *
 * Step times: one extra one-way round per pool times every call and keeps
 * the calls that went past the fast path (a refill or flush of the lcore's
 * cache: Sluice's ops then move whole chunks, rebalance or reclaim steps;
 * DPDK's ring or stack is read or written), plus
 * Sluice's own step histograms (its telemetry).
 *
 * L3 tier (--l3): two one-way pipelines, A0 -> B0 in L3 domain 0 and
 * A1 -> B1 in domain 1, on Sluice's pool API (no mempool), with the tier off
 * and on.  Buffers carry the domain that freed them; "locality" is the share
 * of gets that return a buffer freed in the getter's own domain.  By default
 * the domains are synthetic: each of the two CPUs stands for one domain, and
 * one thread per CPU runs both roles of its domain's pipeline, so "same
 * domain" means "same core" (private L1/L2) on a machine with one L3.
 * --l3-cpus a,b,c,d puts A0, B0, A1, B1 on four CPUs of your choice (on a
 * machine with several L3 caches: A0, B0 in one, A1, B1 in another).
 *
 * The pair's one-way core-to-core latency (c2c, engine/placement/c2c.h) is
 * measured between the first two CPUs before the rounds, after each of them
 * and once more at the end (after the step-time rounds), and names each
 * round's regime from the c2c before and after it: near (both under 100
 * ns), far (both at or above), or mixed (tests/bench/regime.h); virtual
 * CPUs move between near and far cores within seconds.  With the one-way
 * scenario, a line for the far rounds and one for the near rounds, where
 * there are any, give the ratios over those rounds alone:
 *   far rounds (K): oneway_speedup=X pool_only_ratio=P c2c_ns=C oneway_bound=B
 * (B: the median per-round ring+cache over the no-pool floor, an estimate
 * of the speedup of a pool that cost nothing, within the rounds' noise).
 * The summary's regime is the rounds' common one, mixed if they differ or
 * if the last measurement disagrees.  To measure the far regime on purpose,
 * pick a distant pair from `sluice topology --measure` and pass --cores A,B.
 *
 * Before the summary, with the one-way scenario, a line
 *   lines: lines_per_buffer=L ring_lines_per_buffer=M (...)
 * the cache lines made to cross per buffer by Sluice's pool (its chunk
 * handoffs, from its reclaim counter) and by ring+cache (its slots, and a
 * tail line per refill and flush), by the model of docs/interlink.md.
 * Ends with
 *   summary: oneway_speedup=X same_worker_ratio=Y step_p999_ns=Z
 *            pool_only_ratio=P c2c_ns=C regime=R
 * X = median over rounds of (ring+cache one-way time / sluice one-way time),
 * Y = the same for sluice / ring+cache in the same-worker scenario (each
 * round measures the pools back to back, so a ratio within a round is less
 * exposed to a shared machine's drifts), Z = p99.9 of Sluice's step times
 * (rebalance and reclaim together, one-way rounds, the pool's telemetry),
 * P = what ring+cache adds to the no-pool floor over what Sluice's pool adds
 * (one-way medians; inf when Sluice's pool adds nothing measurable, its
 * median at or under the floor's, and nan when neither pool does), C = the
 * largest of the c2c measurements, R = the regime above.
 * With --data DIR it writes the distributions for scripts/plot-pool.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <getopt.h>
#include <pthread.h>
#include <sched.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_pause.h>
#include <rte_version.h>

#include "pool/pool.h"
#include "regime.h"

#define MAX_BURST 256
#define MAX_FANOUT 8
#define MAX_RUNS 101
#define LINK_SIZE 1024

/* NONE: no pool at all (a get copies a fixed burst, a put does nothing): the
 * cost of the scenario's links alone, the floor under the others. */
enum kind { SLUICE, RING, STACK, NONE, N_KINDS };
#define N_POOLS NONE
static const char *const kind_name[N_KINDS] = { "sluice", "ring+cache", "stack+cache",
						"no pool" };
static const char *const kind_ops[N_POOLS] = { SL_POOL_OPS_NAME, "ring_mp_mc", "stack" };
static void *fixed_burst[MAX_BURST];

enum scen { SAME, ONEWAY, FANOUT, N_SCENS };
static const char *const scen_name[N_SCENS] = { "same-worker", "one-way", "fan-out" };

static struct {
	int cpu[16];
	unsigned n_cpus;
	unsigned runs;
	unsigned mbufs;
	unsigned burst;
	unsigned chunk;
	unsigned fanout;
	uint64_t objects;
	bool l3;
	int l3_cpu[4];
	unsigned n_l3_cpus;
	const char *data;
	unsigned scen_mask;
	double min_cpu;
	unsigned retries;
	unsigned backoff_ns;
	unsigned tier_chunks;   /* Sluice's L3 queue, chunks; 0: none */
} opt = {
	.backoff_ns = 200, .tier_chunks = SL_POOL_L3_CHUNKS_DEFAULT,
	.scen_mask = 7, .min_cpu = 0.97, .retries = 20,
	.runs = 5, .mbufs = 16383, .burst = 32, .chunk = SL_POOL_CHUNK_DEFAULT, .fanout = 3,
	.objects = 4000000,
};

static double tsc_ns;   /* ns per TSC tick */
static uint64_t backoff_ticks;

/* Wall and thread CPU clocks, to see whether another process took our CPU. */
static double clock_s(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void die(const char *what)
{
	fprintf(stderr, "bench_pool: %s\n", what);
	exit(1);
}

static void pin(int cpu)
{
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (pthread_setaffinity_np(pthread_self(), sizeof(set), &set) != 0)
		die("cannot pin a thread (pthread_setaffinity_np)");
}

static void hist_put(struct sl_pool_hist *h, uint64_t ns)
{
	sl_hist_sums_record(&h->sums, h->bucket, SL_POOL_HIST_SHAPE, ns);
}

/* a += (after - before), bucket by bucket; max is the top bucket's bound. */
static void hist_add_diff(struct sl_pool_hist *a, const struct sl_pool_hist *after,
			  const struct sl_pool_hist *before)
{
	a->sums.count += after->sums.count - before->sums.count;
	a->sums.sum += after->sums.sum - before->sums.sum;
	for (unsigned i = 0; i < SL_POOL_HIST_BUCKETS; i++) {
		uint64_t d = after->bucket[i] - before->bucket[i];
		a->bucket[i] += d;
		if (d > 0) {
			uint64_t top = sl_pool_hist_lower(i + 1);
			uint64_t m = top < after->sums.max ? top : after->sums.max;
			a->sums.max = m > a->sums.max ? m : a->sums.max;
		}
	}
}

static double vmin(const double *v, unsigned n)
{
	double m = v[0];
	for (unsigned i = 1; i < n; i++)
		m = v[i] < m ? v[i] : m;
	return m;
}

static double vmax(const double *v, unsigned n)
{
	double m = v[0];
	for (unsigned i = 1; i < n; i++)
		m = v[i] > m ? v[i] : m;
	return m;
}

/* ------------------------------------------------------------ pools */

static struct rte_mempool *make_pool(enum kind k)
{
	char name[32];
	snprintf(name, sizeof(name), "bp_%s", kind_ops[k]);
	if (k == SLUICE) {
		/* lcores 1.. are the bench's threads: each one a worker. */
		struct sl_pool_worker_cfg ws[MAX_FANOUT + 1];
		for (unsigned i = 0; i <= MAX_FANOUT; i++)
			ws[i] = (struct sl_pool_worker_cfg){ .lcore = i + 1, .l3 = 0 };
		/* the engine's defaults (pool.l3_tier, pool.l3_chunks): the
		 * bench's threads all in one domain, so one short queue */
		struct sl_pool_opts o = { .chunk = opt.chunk, .n_workers = MAX_FANOUT + 1,
					  .workers = ws, .l3_tier = opt.tier_chunks != 0,
					  .l3_chunks = opt.tier_chunks };
		struct sl_err err = { "" };
		struct rte_mempool *mp = sl_pool_mbuf_create(name, opt.mbufs,
							     RTE_MBUF_DEFAULT_BUF_SIZE,
							     SOCKET_ID_ANY, &o, &err);
		if (mp == NULL) {
			fprintf(stderr, "bench_pool: %s\n", err.msg);
			exit(1);
		}
		return mp;
	}
	struct rte_mempool *mp = rte_pktmbuf_pool_create_by_ops(name, opt.mbufs, 256, 0,
								RTE_MBUF_DEFAULT_BUF_SIZE,
								SOCKET_ID_ANY, kind_ops[k]);
	if (mp == NULL) {
		fprintf(stderr, "bench_pool: %s pool: %s\n", kind_name[k], rte_strerror(rte_errno));
		exit(1);
	}
	return mp;
}

/*
 * Whether the call about to be made will leave the fast path: for every pool
 * (Sluice's too: DPDK's cache of a worker's lcore is its front) that is a
 * refill or flush of the calling lcore's cache, the only time the ops are
 * called.  Without a cache every call reaches the ops.
 */
static bool get_is_step(struct rte_mempool *mp, unsigned n)
{
	struct rte_mempool_cache *c = rte_mempool_default_cache(mp, rte_lcore_id());
	return c == NULL || c->len < n;
}

static bool put_is_step(struct rte_mempool *mp, unsigned n)
{
	struct rte_mempool_cache *c = rte_mempool_default_cache(mp, rte_lcore_id());
	return c == NULL || c->len + n > c->flushthresh;
}

/* ------------------------------------------------------------ links */

/*
 * The A -> B link: an SPSC ring in the shape of Sluice's interlinks (each side
 * keeps a cached copy of the other side's index and reads the shared one only
 * when the cached copy says full or empty), so that the link costs little and
 * the same for every pool.
 */
struct link {
	alignas(64) _Atomic uint32_t head;   /* written by the producer */
	alignas(64) _Atomic uint32_t tail;   /* written by the consumer */
	alignas(64) uint32_t p_head, p_tail; /* producer's private copies */
	alignas(64) uint32_t c_tail, c_head; /* consumer's private copies */
	alignas(64) void *slot[LINK_SIZE];
};

static struct link *link_new(void)
{
	struct link *l = aligned_alloc(64, sizeof(*l));
	if (l == NULL)
		die("out of memory");
	memset(l, 0, sizeof(*l));
	return l;
}

/* Enqueue all n or nothing; returns whether it did. */
static bool link_put(struct link *l, void *const *b, unsigned n)
{
	if (LINK_SIZE - (l->p_head - l->p_tail) < n) {
		l->p_tail = atomic_load_explicit(&l->tail, memory_order_acquire);
		if (LINK_SIZE - (l->p_head - l->p_tail) < n)
			return false;
	}
	for (unsigned i = 0; i < n; i++)
		l->slot[(l->p_head + i) % LINK_SIZE] = b[i];
	l->p_head += n;
	atomic_store_explicit(&l->head, l->p_head, memory_order_release);
	return true;
}

static unsigned link_get(struct link *l, void **b, unsigned max)
{
	if (l->c_head == l->c_tail) {
		l->c_head = atomic_load_explicit(&l->head, memory_order_acquire);
		if (l->c_head == l->c_tail)
			return 0;
	}
	unsigned n = l->c_head - l->c_tail;
	n = n < max ? n : max;
	for (unsigned i = 0; i < n; i++)
		b[i] = l->slot[(l->c_tail + i) % LINK_SIZE];
	l->c_tail += n;
	atomic_store_explicit(&l->tail, l->c_tail, memory_order_release);
	return n;
}

static bool link_empty(struct link *l)
{
	return atomic_load_explicit(&l->head, memory_order_acquire) == l->c_tail;
}

/* ------------------------------------------------------------ scenarios */

enum role { R_SAME, R_PRODUCER, R_CONSUMER };

struct job {
	enum role role;
	enum kind kind;
	struct rte_mempool *mp;
	int cpu;
	struct link *out[MAX_FANOUT];
	unsigned n_out;
	struct link *in;
	uint64_t objects;
	bool timed;
	struct sl_pool_hist *get_steps, *put_steps;   /* timed runs only */
	uint64_t t0, t1, fails;
	double cpu_share;   /* thread CPU time / wall time while measuring */
};

static _Atomic bool go;
static _Atomic unsigned ready, finished;
static _Atomic bool producer_done;

static inline int do_get(struct job *j, void **b, unsigned n)
{
	if (j->kind == NONE) {
		memcpy(b, fixed_burst, n * sizeof(void *));
		return 0;
	}
	if (!j->timed)
		return rte_mempool_get_bulk(j->mp, b, n);
	bool step = get_is_step(j->mp, n);
	uint64_t t = rte_rdtsc();
	int rc = rte_mempool_get_bulk(j->mp, b, n);
	if (step && rc == 0)
		hist_put(j->get_steps, (uint64_t)((double)(rte_rdtsc() - t) * tsc_ns));
	return rc;
}

static inline void do_put(struct job *j, void **b, unsigned n)
{
	if (j->kind == NONE)
		return;
	if (!j->timed) {
		rte_mempool_put_bulk(j->mp, b, n);
		return;
	}
	bool step = put_is_step(j->mp, n);
	uint64_t t = rte_rdtsc();
	rte_mempool_put_bulk(j->mp, b, n);
	if (step)
		hist_put(j->put_steps, (uint64_t)((double)(rte_rdtsc() - t) * tsc_ns));
}

static int job_main(void *arg)
{
	struct job *j = arg;
	void *b[MAX_BURST];
	unsigned burst = opt.burst;
	pin(j->cpu);
	atomic_fetch_add(&ready, 1);
	while (!atomic_load_explicit(&go, memory_order_acquire))
		rte_pause();
	j->t0 = rte_rdtsc();
	double wall0 = clock_s(CLOCK_MONOTONIC), cpu0 = clock_s(CLOCK_THREAD_CPUTIME_ID);
	switch (j->role) {
	case R_SAME:
		for (uint64_t i = 0; i < j->objects; i += burst) {
			while (do_get(j, b, burst) != 0)
				j->fails++;
			do_put(j, b, burst);
		}
		break;
	case R_PRODUCER: {
		unsigned r = 0;
		for (uint64_t sent = 0; sent < j->objects; sent += burst) {
			while (do_get(j, b, burst) != 0) {
				j->fails++;
				rte_pause();
			}
			struct link *l = j->out[r++ % j->n_out];
			while (!link_put(l, b, burst))
				rte_pause();
		}
		atomic_store_explicit(&producer_done, true, memory_order_release);
		break;
	}
	case R_CONSUMER:
		for (;;) {
			bool done = atomic_load_explicit(&producer_done, memory_order_acquire);
			unsigned n = link_get(j->in, b, burst);
			if (n > 0) {
				do_put(j, b, n);
			} else if (done) {
				break;
			} else {
				/* Nothing came: wait a little, as a worker with other
				 * work in its breath would, instead of pulling the
				 * producer's index line back and forth. */
				uint64_t until = rte_rdtsc() + backoff_ticks;
				while (rte_rdtsc() < until)
					rte_pause();
			}
		}
		break;
	}
	j->t1 = rte_rdtsc();
	double wall = clock_s(CLOCK_MONOTONIC) - wall0;
	j->cpu_share = wall > 0 ? (clock_s(CLOCK_THREAD_CPUTIME_ID) - cpu0) / wall : 1;
	atomic_fetch_add(&finished, 1);
	return 0;
}

/* Run one scenario on one pool; returns ns per object. */
static double run(enum scen s, enum kind k, struct rte_mempool *mp, bool timed,
		  struct sl_pool_hist *get_steps, struct sl_pool_hist *put_steps, double *share)
{
	struct job jobs[MAX_FANOUT + 1];
	struct link *rings[MAX_FANOUT] = { 0 };
	unsigned n_jobs = s == SAME ? 1 : s == ONEWAY ? 2 : 1 + opt.fanout;
	unsigned n_links = n_jobs - 1;
	uint64_t objects = opt.objects;
	if (s == SAME)
		objects *= 10;   /* a fast path only: make the run long enough */
	if (s == FANOUT && opt.n_cpus < n_jobs)
		objects /= 50;   /* threads share CPUs: spinning, not a timing */
	if (timed)
		objects /= 4;
	objects = objects / opt.burst * opt.burst;
	for (unsigned i = 0; i < n_links; i++)
		rings[i] = link_new();
	memset(jobs, 0, sizeof(jobs));
	for (unsigned i = 0; i < n_jobs; i++) {
		struct job *j = &jobs[i];
		j->kind = k;
		j->mp = mp;
		j->timed = timed;
		j->get_steps = get_steps;
		j->put_steps = put_steps;
		j->objects = objects;
		if (i == 0) {
			j->role = s == SAME ? R_SAME : R_PRODUCER;
			j->cpu = opt.cpu[0];
			for (unsigned l = 0; l < n_links; l++)
				j->out[l] = rings[l];
			j->n_out = n_links;
		} else {
			j->role = R_CONSUMER;
			j->in = rings[i - 1];
			j->cpu = opt.cpu[opt.n_cpus > 1 ? 1 + (i - 1) % (opt.n_cpus - 1) : 0];
		}
	}
	atomic_store(&go, false);
	atomic_store(&ready, 0);
	atomic_store(&finished, 0);
	atomic_store(&producer_done, false);
	for (unsigned i = 0; i < n_jobs; i++)
		if (rte_eal_remote_launch(job_main, &jobs[i], i + 1) != 0)
			die("cannot launch a lcore");
	while (atomic_load(&ready) < n_jobs)
		usleep(100);
	atomic_store_explicit(&go, true, memory_order_release);
	/* Sleep, not spin: the main lcore shares the CPUs. */
	while (atomic_load(&finished) < n_jobs)
		usleep(1000);
	rte_eal_mp_wait_lcore();
	uint64_t t0 = jobs[0].t0, t1 = 0;
	*share = 1;
	for (unsigned i = 0; i < n_jobs; i++) {
		t0 = jobs[i].t0 < t0 ? jobs[i].t0 : t0;
		t1 = jobs[i].t1 > t1 ? jobs[i].t1 : t1;
		*share = jobs[i].cpu_share < *share ? jobs[i].cpu_share : *share;
	}
	for (unsigned i = 0; i < n_links; i++)
		free(rings[i]);
	if (mp != NULL && rte_mempool_avail_count(mp) != mp->size) {
		fprintf(stderr, "bench_pool: %s: %u of %u buffers back\n", kind_name[k],
			rte_mempool_avail_count(mp), mp->size);
		exit(1);
	}
	return (double)(t1 - t0) * tsc_ns / (double)objects;
}

/* ------------------------------------------------------------ L3 tier */

struct l3obj {
	alignas(64) uint32_t freed_in;
	uint32_t touched;
};

struct l3role {
	bool producer;
	unsigned domain;
	struct sl_pool_worker *w;
	struct link *link;
	uint64_t left;      /* producer: objects still to send */
	uint64_t local, total;
};

struct l3thread {
	int cpu;
	struct l3role *roles[2];
	unsigned n_roles;
	uint64_t t0, t1;
	double cpu_share;
};

static struct sl_pool *l3pool;
static _Atomic unsigned l3_producers_left;

/* One burst of work for a role; returns whether it did anything. */
static bool l3_step(struct l3role *r)
{
	void *b[MAX_BURST];
	unsigned burst = opt.burst;
	if (r->producer) {
		if (r->left == 0)
			return false;
		if (LINK_SIZE - (r->link->p_head - r->link->p_tail) < burst) {
			r->link->p_tail = atomic_load_explicit(&r->link->tail, memory_order_acquire);
			if (LINK_SIZE - (r->link->p_head - r->link->p_tail) < burst)
				return false;
		}
		if (sl_pool_get(l3pool, r->w, b, burst) != 0)
			return false;
		for (unsigned i = 0; i < burst; i++) {
			struct l3obj *o = b[i];
			r->local += o->freed_in == r->domain;
			o->touched++;
		}
		r->total += burst;
		link_put(r->link, b, burst);   /* room checked above */
		r->left -= burst;
		if (r->left == 0)
			atomic_fetch_sub(&l3_producers_left, 1);
		return true;
	}
	unsigned n = link_get(r->link, b, burst);
	for (unsigned i = 0; i < n; i++)
		((struct l3obj *)b[i])->freed_in = r->domain;
	if (n > 0)
		sl_pool_put(l3pool, r->w, b, n);
	else
		sl_pool_house(r->w);   /* once per idle breath, as a worker does */
	return n > 0;
}

static void *l3_thread(void *arg)
{
	struct l3thread *t = arg;
	pin(t->cpu);
	atomic_fetch_add(&ready, 1);
	while (!atomic_load_explicit(&go, memory_order_acquire))
		rte_pause();
	t->t0 = rte_rdtsc();
	double wall0 = clock_s(CLOCK_MONOTONIC), cpu0 = clock_s(CLOCK_THREAD_CPUTIME_ID);
	for (;;) {
		bool any = false;
		for (unsigned i = 0; i < t->n_roles; i++)
			any |= l3_step(t->roles[i]);
		if (!any) {
			bool empty = true;
			for (unsigned i = 0; i < t->n_roles; i++)
				if (!t->roles[i]->producer && !link_empty(t->roles[i]->link))
					empty = false;
			if (empty && atomic_load(&l3_producers_left) == 0)
				break;
			rte_pause();
		}
	}
	t->t1 = rte_rdtsc();
	double wall = clock_s(CLOCK_MONOTONIC) - wall0;
	t->cpu_share = wall > 0 ? (clock_s(CLOCK_THREAD_CPUTIME_ID) - cpu0) / wall : 1;
	return NULL;
}

struct l3result {
	double ns, locality, share;
	uint64_t reclaims, reclaims_l3, reclaims_remote;
};

static struct l3result l3_run(bool tier, struct l3obj *objs)
{
	/* Workers: 0 = A0, 1 = B0 (domain 0); 2 = A1, 3 = B1 (domain 1). */
	const struct sl_pool_worker_cfg ws[4] = { { 0, 0 }, { 0, 0 }, { 0, 1 }, { 0, 1 } };
	struct sl_pool_opts o = { .chunk = opt.chunk, .l3_tier = tier, .n_workers = 4,
				  .workers = ws, .tsc_hz = rte_get_tsc_hz() };
	struct sl_err err = { "" };
	l3pool = sl_pool_create("bench_l3", opt.mbufs, &o, &err);
	if (l3pool == NULL)
		die(err.msg);
	for (unsigned i = 0; i < opt.mbufs; i++) {
		objs[i].freed_in = ~0u;
		void *p = &objs[i];
		sl_pool_put(l3pool, NULL, &p, 1);
	}
	struct link *links[2] = { link_new(), link_new() };
	uint64_t per = opt.objects / 2 / opt.burst * opt.burst;
	struct l3role roles[4];
	for (unsigned i = 0; i < 4; i++)
		roles[i] = (struct l3role){ .producer = i % 2 == 0, .domain = i / 2,
					    .w = sl_pool_worker(l3pool, i), .link = links[i / 2],
					    .left = i % 2 == 0 ? per : 0 };
	struct l3thread th[4];
	unsigned n_th;
	if (opt.n_l3_cpus == 4) {
		n_th = 4;
		for (unsigned i = 0; i < 4; i++)
			th[i] = (struct l3thread){ .cpu = opt.l3_cpu[i], .roles = { &roles[i] },
						   .n_roles = 1 };
	} else {
		/* Two CPUs stand for two domains: one thread per CPU runs both
		 * roles of that domain's pipeline. */
		n_th = 2;
		th[0] = (struct l3thread){ .cpu = opt.cpu[0], .roles = { &roles[0], &roles[1] },
					   .n_roles = 2 };
		th[1] = (struct l3thread){ .cpu = opt.cpu[opt.n_cpus > 1],
					   .roles = { &roles[2], &roles[3] }, .n_roles = 2 };
	}
	atomic_store(&l3_producers_left, 2);
	atomic_store(&go, false);
	atomic_store(&ready, 0);
	pthread_t tid[4];
	for (unsigned i = 0; i < n_th; i++)
		pthread_create(&tid[i], NULL, l3_thread, &th[i]);
	while (atomic_load(&ready) < n_th)
		usleep(100);
	atomic_store_explicit(&go, true, memory_order_release);
	/* Watch for a stall: no buffer moved for 10 s means a bug; say where
	 * every buffer is and stop. */
	uint64_t last = 0;
	for (unsigned quiet = 0; atomic_load(&l3_producers_left) > 0; ) {
		usleep(100000);
		uint64_t moved = roles[0].total + roles[2].total;
		quiet = moved == last ? quiet + 1 : 0;
		last = moved;
		if (quiet < 100)
			continue;
		struct sl_pool_stats s;
		sl_pool_stats(l3pool, &s);
		fprintf(stderr, "bench_pool: the L3 run (tier %s) stalled: left %lu/%lu; tiers: "
			"freelists %lu, l3 %lu, global %lu, shared %lu; links %u/%u\n",
			tier ? "on" : "off", (unsigned long)roles[0].left,
			(unsigned long)roles[2].left, (unsigned long)s.counts.workers,
			(unsigned long)s.counts.l3, (unsigned long)s.counts.global,
			(unsigned long)s.counts.shared,
			atomic_load(&links[0]->head) - atomic_load(&links[0]->tail),
			atomic_load(&links[1]->head) - atomic_load(&links[1]->tail));
		for (unsigned w = 0; w < 4; w++) {
			struct sl_pool_tier_stats t;
			sl_pool_tier_stats(l3pool, w, &t);
			fprintf(stderr, "  worker %u: depth %lu gets %lu puts %lu reclaims %lu "
				"rebalances %lu empty %lu full %lu\n", w, (unsigned long)t.depth,
				(unsigned long)t.gets, (unsigned long)t.puts,
				(unsigned long)t.reclaims, (unsigned long)t.rebalances,
				(unsigned long)t.empty, (unsigned long)t.full);
		}
		abort();
	}
	for (unsigned i = 0; i < n_th; i++)
		pthread_join(tid[i], NULL);
	uint64_t t0 = th[0].t0, t1 = 0;
	for (unsigned i = 0; i < n_th; i++) {
		t0 = th[i].t0 < t0 ? th[i].t0 : t0;
		t1 = th[i].t1 > t1 ? th[i].t1 : t1;
	}
	struct l3result r = { 0 };
	r.share = 1;
	for (unsigned i = 0; i < n_th; i++)
		r.share = th[i].cpu_share < r.share ? th[i].cpu_share : r.share;
	uint64_t local = roles[0].local + roles[2].local;
	uint64_t total = roles[0].total + roles[2].total;
	r.ns = (double)(t1 - t0) * tsc_ns / (double)total;
	r.locality = (double)local / (double)total;
	struct sl_pool_stats s;
	sl_pool_stats(l3pool, &s);
	r.reclaims = s.sum.reclaims;
	r.reclaims_l3 = s.sum.reclaims_l3;
	r.reclaims_remote = s.sum.reclaims_remote;
	if (s.counts.total != opt.mbufs)
		die("L3 run: buffers missing at the end");
	for (unsigned i = 0; i < 2; i++)
		free(links[i]);
	sl_pool_free(l3pool);
	return r;
}

/* ------------------------------------------------------------ output */

static void write_hist(const char *file, const struct sl_pool_hist *h)
{
	if (opt.data == NULL)
		return;
	char path[512];
	snprintf(path, sizeof(path), "%s/%s", opt.data, file);
	FILE *f = fopen(path, "w");
	if (f == NULL)
		die("cannot write into --data");
	fprintf(f, "# lower_ns upper_ns count fraction fraction_above\n");
	uint64_t seen = 0;
	for (unsigned i = 0; i < SL_POOL_HIST_BUCKETS && h->sums.count > 0; i++) {
		if (h->bucket[i] == 0)
			continue;
		seen += h->bucket[i];
		fprintf(f, "%lu %lu %lu %.6g %.6g\n", (unsigned long)sl_pool_hist_lower(i),
			(unsigned long)sl_pool_hist_lower(i + 1), (unsigned long)h->bucket[i],
			(double)h->bucket[i] / (double)h->sums.count,
			(double)(h->sums.count - seen) / (double)h->sums.count);
	}
	fclose(f);
}

static void print_hist(const char *what, const struct sl_pool_hist *h)
{
	printf("  %-34s %9lu steps  p50 %6lu  p99 %6lu  p99.9 %6lu  max %7lu ns\n", what,
	       (unsigned long)h->sums.count, (unsigned long)sl_pool_hist_quantile(h, 0.5),
	       (unsigned long)sl_pool_hist_quantile(h, 0.99),
	       (unsigned long)sl_pool_hist_quantile(h, 0.999), (unsigned long)h->sums.max);
}

static void parse_cpus(const char *s, int *out, unsigned *n, unsigned max)
{
	*n = 0;
	for (const char *p = s; *p != '\0' && *n < max;) {
		char *end;
		long v = strtol(p, &end, 10);
		if (end == p || v < 0)
			die("CPU lists are comma-separated numbers");
		out[(*n)++] = (int)v;
		p = *end == ',' ? end + 1 : end;
	}
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: bench_pool [--cores A,B[,...]] [--runs N] [--objects N] [--burst N]\n"
		"                  [--mbufs N] [--chunk N] [--fanout N] [--l3] [--l3-cpus a,b,c,d]\n"
		"                  [--data DIR] [--tier K]\n"
		"  --cores     CPUs: A (and same-worker) on the first, consumers on the others\n"
		"              (default: the first two CPUs this process may use; --cpus is\n"
		"              the same option)\n"
		"  --runs      rounds; medians and ranges over them (default 5)\n"
		"  --objects   buffers per measurement (default 4000000; same-worker: 10x)\n"
		"  --burst     get/put burst (default 32)\n"
		"  --mbufs     buffers per pool (default 16383)\n"
		"  --chunk     Sluice's chunk size (default: the pool's default, 512)\n"
		"  --fanout    consumers in the fan-out scenario (default 3)\n"
		"  --l3        also measure the L3-domain tier (off and on)\n"
		"  --l3-cpus   CPUs of A0,B0,A1,B1 for --l3 (default: two threads on --cpus)\n"
		"  --data DIR  write step-time distributions for scripts/plot-pool\n"
		"  --only LIST scenarios to run, e.g. one-way,same-worker (default: all;\n"
		"              the summary needs both of these)\n"
		"  --min-cpu F repeat a measurement in which a thread ran less than this share\n"
		"              of the wall time (another process had its CPU; default 0.97)\n"
		"  --retries N repeat at most N times (default 20)\n"
		"  --backoff-ns N  how long a consumer waits when its link is empty, as a\n"
		"              worker with other work in its breath would (default 200)\n"
		"  --tier K    chunks in Sluice's queue in front of the global one, as the\n"
		"              engine's pool.l3_tier and pool.l3_chunks: 0 (none) or a power\n"
		"              of two 2..65536 (default 4, the engine's)\n");
}

/* What ring+cache adds to the no-pool floor over what Sluice's pool adds to
 * it (ns a buffer, medians): the pool-only ratio.  +inf when Sluice's pool
 * adds nothing measurable (its rounds at or under the floor's) while
 * ring+cache adds something; nan when neither does. */
static double pool_only_of(double ring, double sluice, double none)
{
	const double r = ring - none, s = sluice - none;
	if (s > 0)
		return r / s;
	return r > 0 ? INFINITY : NAN;
}

/* "NAME rounds (K): ..." over the one-way rounds of regime NAME, if any:
 * the median of their per-round ratios (ring+cache / sluice), what each pool
 * adds to the no-pool floor compared (their medians), the median of the
 * c2c measured around them, and oneway_bound: the median per-round ratio of
 * ring+cache to the no-pool floor, the one-way speedup a pool that cost
 * nothing at all would show in those rounds. */
static void regime_rounds(const char *name, const char *const *round_regime, unsigned runs,
			  double ow[N_KINDS][MAX_RUNS], const double *c2c_round)
{
	double ratio[MAX_RUNS], bound[MAX_RUNS], v[MAX_RUNS], m[N_KINDS], c[2 * MAX_RUNS];
	for (unsigned r = 0; r < runs; r++) {
		ratio[r] = ow[RING][r] / ow[SLUICE][r];
		bound[r] = ow[RING][r] / ow[NONE][r];
	}
	unsigned n = bench_pick(round_regime, runs, name, ratio, v);
	if (n == 0)
		return;
	double speedup = bench_median(v, n, NULL, NULL);
	bench_pick(round_regime, runs, name, bound, v);
	double zero_cost = bench_median(v, n, NULL, NULL);
	for (unsigned k = 0; k < N_KINDS; k++) {
		bench_pick(round_regime, runs, name, ow[k], v);
		m[k] = bench_median(v, n, NULL, NULL);
	}
	unsigned nc = bench_pick_c2c(round_regime, runs, name, c2c_round, c);
	printf("%s rounds (%u): oneway_speedup=%.2f pool_only_ratio=%.2f c2c_ns=%.1f "
	       "oneway_bound=%.2f\n", name, n, speedup, pool_only_of(m[RING], m[SLUICE], m[NONE]),
	       bench_median(c, nc, NULL, NULL), zero_cost);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "cpus", required_argument, NULL, 'c' },
		{ "cores", required_argument, NULL, 'c' },
		{ "runs", required_argument, NULL, 'r' },
		{ "objects", required_argument, NULL, 'o' },
		{ "burst", required_argument, NULL, 'b' },
		{ "mbufs", required_argument, NULL, 'm' },
		{ "chunk", required_argument, NULL, 'k' },
		{ "fanout", required_argument, NULL, 'f' },
		{ "l3", no_argument, NULL, 'l' },
		{ "l3-cpus", required_argument, NULL, 'L' },
		{ "data", required_argument, NULL, 'd' },
		{ "only", required_argument, NULL, 's' },
		{ "min-cpu", required_argument, NULL, 'C' },
		{ "retries", required_argument, NULL, 'R' },
		{ "backoff-ns", required_argument, NULL, 'B' },
		{ "tier", required_argument, NULL, 'T' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'c': parse_cpus(optarg, opt.cpu, &opt.n_cpus, 16); break;
		case 'r': opt.runs = (unsigned)atoi(optarg); break;
		case 'o': opt.objects = strtoull(optarg, NULL, 10); break;
		case 'b': opt.burst = (unsigned)atoi(optarg); break;
		case 'm': opt.mbufs = (unsigned)atoi(optarg); break;
		case 'k': opt.chunk = (unsigned)atoi(optarg); break;
		case 'f': opt.fanout = (unsigned)atoi(optarg); break;
		case 'l': opt.l3 = true; break;
		case 'L': parse_cpus(optarg, opt.l3_cpu, &opt.n_l3_cpus, 4); break;
		case 'd': opt.data = optarg; break;
		case 'C': opt.min_cpu = atof(optarg); break;
		case 'R': opt.retries = (unsigned)atoi(optarg); break;
		case 'B': opt.backoff_ns = (unsigned)atoi(optarg); break;
		case 'T': {
			char *end;
			unsigned long v = strtoul(optarg, &end, 10);
			if (!isdigit((unsigned char)optarg[0]) || *end != '\0' || v > 65536 ||
			    (v != 0 && (v < 2 || (v & (v - 1)) != 0))) {
				fprintf(stderr, "bench_pool: --tier must be 0 or a power of two "
					"from 2 to 65536, got '%s'\n", optarg);
				return 2;
			}
			opt.tier_chunks = (unsigned)v;
			break;
		}
		case 's':
			opt.scen_mask = 0;
			for (unsigned i = 0; i < N_SCENS; i++)
				if (strstr(optarg, scen_name[i]) != NULL)
					opt.scen_mask |= 1u << i;
			break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (opt.scen_mask == 0 || opt.runs < 1 || opt.runs > MAX_RUNS || opt.burst < 1 || opt.burst > MAX_BURST ||
	    opt.fanout < 1 || opt.fanout > MAX_FANOUT || opt.objects < 1000 ||
	    opt.mbufs < 2048 || (opt.n_l3_cpus != 0 && opt.n_l3_cpus != 4)) {
		usage(stderr);
		return 2;
	}
	if (opt.n_cpus == 0) {
		cpu_set_t set;
		sched_getaffinity(0, sizeof(set), &set);
		for (int i = 0; i < CPU_SETSIZE && opt.n_cpus < 2; i++)
			if (CPU_ISSET(i, &set))
				opt.cpu[opt.n_cpus++] = i;
	}

	/* EAL: lcores 0..MAX_FANOUT+1 may run on any of the CPUs; every bench
	 * thread pins itself to its scenario's CPU. */
	char prefix[32], lcores[256];
	snprintf(prefix, sizeof(prefix), "bench_pool%d", (int)getpid());
	int len = snprintf(lcores, sizeof(lcores), "(0-%u)@(", MAX_FANOUT + 1);
	for (unsigned i = 0; i < opt.n_cpus; i++)
		len += snprintf(lcores + len, sizeof(lcores) - len, "%s%d", i ? "," : "", opt.cpu[i]);
	snprintf(lcores + len, sizeof(lcores) - len, ")");
	char *eal[] = { argv[0], "--no-huge", "--no-pci", "-m", "512", "--file-prefix", prefix,
			"--log-level", "lib.eal:error", "--lcores", lcores, NULL };
	if (rte_eal_init(11, eal) < 0)
		die("cannot initialise DPDK's EAL");
	if (sl_pool_ops_register() < 0)
		die("cannot register the sluice mempool ops");
	tsc_ns = 1e9 / (double)rte_get_tsc_hz();
	backoff_ticks = (uint64_t)(opt.backoff_ns / tsc_ns);

	printf("bench_pool: %s; cpus", rte_version());
	for (unsigned i = 0; i < opt.n_cpus; i++)
		printf(" %d", opt.cpu[i]);
	printf("; %u mbufs per pool, burst %u, sluice chunk %u, %lu buffers per measurement, "
	       "%u runs, consumer back-off %u ns\n", opt.mbufs, opt.burst, opt.chunk,
	       (unsigned long)opt.objects, opt.runs, opt.backoff_ns);
	bool fan_shared = opt.n_cpus < opt.fanout + 1;
	double c2c_before =
		opt.n_cpus > 1 ? bench_pair_c2c("bench_pool", opt.cpu[0], opt.cpu[1]) : 0;
	if (opt.n_cpus > 1)
		printf("c2c of cpus %d and %d before the rounds: %.1f ns (%s)\n", opt.cpu[0],
		       opt.cpu[1], c2c_before, sl_c2c_regime(c2c_before));

	struct rte_mempool *pools[N_KINDS] = { NULL };
	for (unsigned k = 0; k < N_POOLS; k++)
		pools[k] = make_pool((enum kind)k);

	static double ns[N_SCENS][N_KINDS][MAX_RUNS];
	double oneway_pool_only = 0;   /* for the summary */
	/* Sluice's step telemetry of the one-way rounds only. */
	static struct sl_pool_stats before, after;
	static struct sl_pool_hist ow_rebalance, ow_reclaim;
	uint64_t ow_steps[4] = { 0 };   /* rebalances, reclaims, empty, full */
	uint64_t ow_unpacked = 0;       /* chunks the queues took as pointers */
	uint64_t ow_objects = 0;         /* buffers through those rounds, retries included */
	unsigned repeated = 0, noisy = 0;
	double c2c_round[MAX_RUNS + 1];   /* before round r: [r]; after it: [r + 1] */
	c2c_round[0] = c2c_before;
	printf("\n%-12s %-12s", "scenario", "pool");
	for (unsigned r = 0; r < opt.runs; r++)
		printf("  run%-4u", r + 1);
	printf("\n");
	for (unsigned r = 0; r < opt.runs; r++) {
		for (unsigned s = 0; s < N_SCENS; s++)
			for (unsigned i = 0; i < N_KINDS && (opt.scen_mask >> s & 1); i++) {
				/* rotate which pool goes first */
				unsigned k = (i + r) % N_KINDS;
				bool telemetry = s == ONEWAY && k == SLUICE;
				/* Repeat a measurement during which another process
				 * took CPU time from one of its threads. */
				bool check = !(s == FANOUT && fan_shared);
				double share = 0;
				for (unsigned a = 0; a <= opt.retries; a++) {
					if (telemetry)
						sl_pool_stats(sl_pool_of(pools[k]), &before);
					ns[s][k][r] = run((enum scen)s, (enum kind)k, pools[k], false,
							  NULL, NULL, &share);
					if (telemetry)
						ow_objects += opt.objects;
					if (!check || share >= opt.min_cpu)
						break;
					repeated++;
				}
				if (check && share < opt.min_cpu)
					noisy++;
				if (telemetry) {
					sl_pool_stats(sl_pool_of(pools[k]), &after);
					hist_add_diff(&ow_rebalance, &after.sum.rebalance_ns,
						      &before.sum.rebalance_ns);
					hist_add_diff(&ow_reclaim, &after.sum.reclaim_ns,
						      &before.sum.reclaim_ns);
					ow_steps[0] += after.sum.rebalances - before.sum.rebalances;
					ow_steps[1] += after.sum.reclaims - before.sum.reclaims;
					ow_steps[2] += after.sum.empty - before.sum.empty;
					ow_steps[3] += after.sum.full - before.sum.full;
					ow_unpacked += after.unpacked - before.unpacked;
				}
			}
		c2c_round[r + 1] = opt.n_cpus > 1 ? bench_pair_c2c("bench_pool", opt.cpu[0],
								   opt.cpu[1]) : 0;
	}
	const char *round_regime[MAX_RUNS];
	if (opt.n_cpus > 1)
		bench_run_regimes(c2c_round, opt.runs, round_regime);
	else
		for (unsigned r = 0; r < opt.runs; r++)
			round_regime[r] = "none";
	for (unsigned s = 0; s < N_SCENS; s++)
		for (unsigned k = 0; k < N_KINDS && (opt.scen_mask >> s & 1); k++) {
			printf("%-12s %-12s", scen_name[s], kind_name[k]);
			for (unsigned r = 0; r < opt.runs; r++)
				printf("  %7.2f", ns[s][k][r]);
			printf("\n");
		}
	if (opt.n_cpus > 1) {
		printf("%-12s %-12s", "c2c", "after (ns)");
		for (unsigned r = 0; r < opt.runs; r++)
			printf("  %7.1f", c2c_round[r + 1]);
		printf("\n%-12s %-12s", "regime", "");
		for (unsigned r = 0; r < opt.runs; r++)
			printf("  %7s", round_regime[r]);
		printf("\n");
	}

	printf("(%u measurements repeated because another process took more than %.0f%% of a "
	       "thread's CPU time; %u still disturbed after %u tries)\n", repeated,
	       100 * (1 - opt.min_cpu), noisy, opt.retries);

	/* Per-round ratios: each round measures the pools back to back, so a
	 * ratio within a round is less exposed to drifts of a shared machine. */
	printf("\nns per buffer (get + put), median [min, max] of %u runs; ratio = ring+cache / "
	       "sluice, median [min, max] of the per-round ratios:\n", opt.runs);
	printf("%-14s", "");
	for (unsigned k = 0; k < N_KINDS; k++)
		printf("  %-26s", kind_name[k]);
	printf("  ratio                pool-only ratio\n");
	double med[N_SCENS][N_KINDS] = { { 0 } }, ratio[N_SCENS][MAX_RUNS], med_ratio[N_SCENS] = { 0 };
	for (unsigned s = 0; s < N_SCENS; s++) {
		if (!(opt.scen_mask >> s & 1))
			continue;
		char label[32];
		if (s == FANOUT)
			snprintf(label, sizeof(label), "fan-out 1->%u", opt.fanout);
		else
			snprintf(label, sizeof(label), "%s", scen_name[s]);
		printf("%-14s", label);
		for (unsigned k = 0; k < N_KINDS; k++) {
			med[s][k] = bench_median(ns[s][k], opt.runs, NULL, NULL);
			char cell[64];
			snprintf(cell, sizeof(cell), "%.2f [%.2f, %.2f]", med[s][k],
				 vmin(ns[s][k], opt.runs), vmax(ns[s][k], opt.runs));
			printf("  %-26s", cell);
		}
		for (unsigned r = 0; r < opt.runs; r++)
			ratio[s][r] = ns[s][RING][r] / ns[s][SLUICE][r];
		med_ratio[s] = bench_median(ratio[s], opt.runs, NULL, NULL);
		/* what the pools add to the floor, compared */
		double pool_only = pool_only_of(med[s][RING], med[s][SLUICE], med[s][NONE]);
		if (s == ONEWAY)
			oneway_pool_only = pool_only;
		printf("  %.2f [%.2f, %.2f]     %.2f%s\n", med_ratio[s], vmin(ratio[s], opt.runs),
		       vmax(ratio[s], opt.runs), pool_only,
		       s == FANOUT && fan_shared ? "   (threads share CPUs: not a timing)" : "");
	}
	if (opt.data != NULL) {
		char path[512];
		snprintf(path, sizeof(path), "%s/ns.dat", opt.data);
		FILE *f = fopen(path, "w");
		if (f == NULL)
			die("cannot write into --data");
		fprintf(f, "# scenario sluice ring+cache stack+cache no-pool (median ns per buffer)\n");
		for (unsigned s = 0; s < N_SCENS; s++)
			if (opt.scen_mask >> s & 1)
				fprintf(f, "%s %.3f %.3f %.3f %.3f\n",
					s == FANOUT && fan_shared ? "fan-out(CPUs-shared:no-timing)"
								  : scen_name[s],
					med[s][SLUICE], med[s][RING], med[s][STACK], med[s][NONE]);
		fclose(f);
	}

	/* Step times: one timed one-way round per pool. */
	printf("\nsteps in the one-way scenario (calls past the fast path, timed by the bench):\n");
	static struct sl_pool_hist gets[N_POOLS], puts[N_POOLS];
	for (unsigned k = 0; k < N_POOLS && (opt.scen_mask >> ONEWAY & 1); k++) {
		double share = 0;
		for (unsigned a = 0; a <= opt.retries; a++) {
			memset(&gets[k], 0, sizeof(gets[k]));
			memset(&puts[k], 0, sizeof(puts[k]));
			run(ONEWAY, (enum kind)k, pools[k], true, &gets[k], &puts[k], &share);
			if (share >= opt.min_cpu)
				break;
		}
		char what[64];
		snprintf(what, sizeof(what), "%s get (A: %s)", kind_name[k],
			 k == SLUICE ? "cache refill, reclaims" : "cache refill");
		print_hist(what, &gets[k]);
		snprintf(what, sizeof(what), "%s put (B: %s)", kind_name[k],
			 k == SLUICE ? "cache flush, rebalances" : "cache flush");
		print_hist(what, &puts[k]);
		char file[64];
		snprintf(file, sizeof(file), "calls-get-%s.dat", kind_ops[k]);
		write_hist(file, &gets[k]);
		snprintf(file, sizeof(file), "calls-put-%s.dat", kind_ops[k]);
		write_hist(file, &puts[k]);
	}
	/* Lines per buffer (the model of docs/interlink.md, "Lines per packet":
	 * a line written by one side and then read by the other crosses once).
	 * Sluice: each chunk handoff is the slot's sequence line and its packed
	 * lines (32-bit deltas, 16 a line) to the consumer, and the sequence line
	 * back to the next producer (sl_pool_handoff_lines); handoffs from its
	 * reclaim counter, those of a chunk the queue took as pointers (8 a
	 * line) from its unpacked counter.  ring+cache: each pointer goes
	 * through the ring's slots (8 a line), and each flush and refill makes the
	 * other side read the tail it stored; from the timed round's steps. */
	if ((opt.scen_mask >> ONEWAY & 1) && ow_objects > 0) {
		unsigned handoff_lines = sl_pool_handoff_lines(sl_pool_of(pools[SLUICE]));
		unsigned chunk_lines = handoff_lines - 2;
		unsigned unpacked_lines = 2 + (opt.chunk * (unsigned)sizeof(void *) + 63) / 64;
		uint64_t packed = ow_steps[1] > ow_unpacked ? ow_steps[1] - ow_unpacked : 0;
		double sl_lpb = ((double)packed * handoff_lines + (double)ow_unpacked * unpacked_lines) /
				(double)ow_objects;
		double ring_lpb = ((double)opt.objects / 8 + (double)gets[RING].sums.count +
				   (double)puts[RING].sums.count) / (double)opt.objects;
		printf("\nlines: lines_per_buffer=%.3f ring_lines_per_buffer=%.3f (one-way: cache lines "
		       "made to cross per buffer; sluice: %lu chunk handoffs of %u + 2 lines, %lu of "
		       "them as pointers, from its reclaim and unpacked counters; ring+cache: a slot "
		       "line per 8 pointers and a tail line per refill and flush, from the timed "
		       "round's %lu and %lu)\n", sl_lpb,
		       ring_lpb, (unsigned long)ow_steps[1], chunk_lines, (unsigned long)ow_unpacked,
		       (unsigned long)gets[RING].sums.count, (unsigned long)puts[RING].sums.count);
	}
	/* Sluice's own telemetry, one-way rounds. */
	static struct sl_pool_hist both;
	both = ow_rebalance;
	sl_pool_hist_add(&both, &ow_reclaim);
	printf("\nsluice step telemetry (its histograms; the %u untimed one-way rounds): "
	       "%lu rebalances, %lu reclaims, %lu empty, %lu full\n", opt.runs,
	       (unsigned long)ow_steps[0], (unsigned long)ow_steps[1], (unsigned long)ow_steps[2],
	       (unsigned long)ow_steps[3]);
	print_hist("rebalance", &ow_rebalance);
	print_hist("reclaim", &ow_reclaim);
	print_hist("rebalance + reclaim", &both);
	write_hist("steps-rebalance.dat", &ow_rebalance);
	write_hist("steps-reclaim.dat", &ow_reclaim);

	if (opt.l3) {
		struct l3obj *objs = aligned_alloc(64, opt.mbufs * sizeof(*objs));
		if (objs == NULL)
			die("out of memory");
		double l3ns[2][MAX_RUNS], loc[2][MAX_RUNS];
		struct l3result last[2];
		for (unsigned r = 0; r < opt.runs; r++)
			for (unsigned i = 0; i < 2; i++) {
				unsigned t = (i + r) % 2;
				for (unsigned a = 0; a <= opt.retries; a++) {
					last[t] = l3_run(t == 1, objs);
					if (last[t].share >= opt.min_cpu)
						break;
				}
				l3ns[t][r] = last[t].ns;
				loc[t][r] = last[t].locality;
			}
		printf("\nL3 tier: two one-way pipelines, A0 -> B0 in domain 0, A1 -> B1 in domain 1 (%s)\n",
		       opt.n_l3_cpus == 4 ? "four threads on --l3-cpus"
					  : "synthetic domains: domain d = CPU d, one thread per CPU runs its pipeline");
		for (unsigned t = 0; t < 2; t++)
			printf("  tier %-3s  ns per buffer %.2f [%.2f, %.2f]  locality %.1f%% "
			       "[%.1f, %.1f]  (last run: %lu reclaims, %lu from own domain, %lu from the other)\n",
			       t ? "on" : "off", bench_median(l3ns[t], opt.runs, NULL, NULL),
			       vmin(l3ns[t], opt.runs),
			       vmax(l3ns[t], opt.runs), 100 * bench_median(loc[t], opt.runs, NULL, NULL),
			       100 * vmin(loc[t], opt.runs), 100 * vmax(loc[t], opt.runs),
			       (unsigned long)last[t].reclaims, (unsigned long)last[t].reclaims_l3,
			       (unsigned long)last[t].reclaims_remote);
		free(objs);
	}

	for (unsigned k = 0; k < N_POOLS; k++)
		rte_mempool_free(pools[k]);
	double c2c_after =
		opt.n_cpus > 1 ? bench_pair_c2c("bench_pool", opt.cpu[0], opt.cpu[1]) : 0;
	if (opt.n_cpus > 1)
		printf("\nc2c of cpus %d and %d after the rounds: %.1f ns (%s)\n", opt.cpu[0],
		       opt.cpu[1], c2c_after, sl_c2c_regime(c2c_after));
	/* the rounds' common regime, unless the last measurement disagrees */
	const char *regime = bench_common_regime(round_regime, opt.runs);
	if (opt.n_cpus > 1 && strcmp(sl_c2c_regime(c2c_after), regime) != 0)
		regime = "mixed";
	double c2c_max = c2c_after;
	for (unsigned r = 0; r <= opt.runs; r++)
		if (c2c_round[r] > c2c_max)
			c2c_max = c2c_round[r];
	if (opt.scen_mask >> ONEWAY & 1)
		for (int g = 0; g < 2 && opt.n_cpus > 1; g++)
			regime_rounds(g == 0 ? "far" : "near", round_regime, opt.runs, ns[ONEWAY],
				      c2c_round);
	/* speedup: ring+cache / sluice; ratio: sluice / ring+cache (per-round medians) */
	printf("\nsummary: oneway_speedup=%.2f same_worker_ratio=%.2f step_p999_ns=%lu "
	       "pool_only_ratio=%.2f c2c_ns=%.1f regime=%s\n",
	       med_ratio[ONEWAY], med_ratio[SAME] > 0 ? 1 / med_ratio[SAME] : 0.0,
	       (unsigned long)sl_pool_hist_quantile(&both, 0.999), oneway_pool_only,
	       c2c_max, regime);
	rte_eal_cleanup();
	return 0;
}
