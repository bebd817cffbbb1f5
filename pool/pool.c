/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The pool's control functions and slow paths: creation, rebalance and
 * reclaim steps, the non-worker tier, accounting and telemetry.  The contract
 * is in pool.h; the fast path is inline in pool_worker.h.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include <rte_cycles.h>
#include <rte_pause.h>

#include "pool/chunkq.h"
#include "pool/pool.h"

/* The freelist of threads that are not workers, behind a spinlock.  Workers
 * only ever try the lock (when they find nothing anywhere else). */
struct sl_pool_shared {
	alignas(SL_POOL_CACHE_LINE) atomic_bool locked;
	_Atomic uint32_t depth;
	void **objs;                       /* capacity slots */
	uint64_t gets, puts;               /* base/counter.h */
	struct sl_pool_live_stats st;
};

struct sl_pool {
	char name[SL_POOL_NAME_MAX + 1];
	uint32_t capacity;
	uint32_t chunk;
	uint32_t high;
	uint32_t n_workers;
	uint32_t n_domains;                /* L3 queues; 0 when the tier is off */
	double ns_per_tick;
	struct sl_pool_worker *workers;    /* n_workers handles */
	struct sl_chunkq *domains;         /* n_domains queues, or NULL */
	struct sl_chunkq global;
	struct sl_pool_shared shared;
};

/* ------------------------------------------------------------ time */

static double measured_ns_per_tick;
static pthread_once_t measure_once = PTHREAD_ONCE_INIT;

static double now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void measure_tsc(void)
{
	double t0 = now_ns();
	uint64_t c0 = rte_rdtsc();
	struct timespec nap = { 0, 10 * 1000 * 1000 };
	nanosleep(&nap, NULL);
	double t1 = now_ns();
	uint64_t c1 = rte_rdtsc();
	measured_ns_per_tick = c1 > c0 ? (t1 - t0) / (double)(c1 - c0) : 1.0;
}

static uint64_t sl_pool_ticks(void)
{
	return rte_rdtsc();
}

/* ------------------------------------------------------------ histograms */

unsigned sl_pool_hist_bucket(uint64_t ns)
{
	return sl_hist_shape_index(SL_POOL_HIST_SHAPE, ns);
}

uint64_t sl_pool_hist_lower(unsigned i)
{
	return sl_hist_lower_sub(i, SL_POOL_HIST_SUB_BITS);
}

uint64_t sl_pool_hist_quantile(const struct sl_pool_hist *h, double q)
{
	if (h->sums.count == 0)
		return 0;
	unsigned i = sl_hist_shape_quantile(SL_POOL_HIST_SHAPE, h->bucket, h->sums.count, q);
	if (i == SL_POOL_HIST_BUCKETS)
		return h->sums.max;
	uint64_t upper = sl_pool_hist_lower(i + 1);
	return upper < h->sums.max ? upper : h->sums.max;
}

void sl_pool_hist_add(struct sl_pool_hist *a, const struct sl_pool_hist *b)
{
	sl_hist_sums_merge(&a->sums, a->bucket, &b->sums, b->bucket, SL_POOL_HIST_SHAPE);
}

static void hist_record(struct sl_pool_hist *h, uint64_t ns)
{
	sl_hist_sums_record(&h->sums, h->bucket, SL_POOL_HIST_SHAPE, ns);
}

static inline uint64_t step_ns(const struct sl_pool *p, uint64_t t0)
{
	return (uint64_t)((double)(sl_pool_ticks() - t0) * p->ns_per_tick);
}

/* ------------------------------------------------------------ non-worker lock */

static void shared_lock(struct sl_pool_shared *s)
{
	unsigned spins = 0;
	while (atomic_exchange_explicit(&s->locked, true, memory_order_acquire)) {
		while (atomic_load_explicit(&s->locked, memory_order_relaxed)) {
			/* Non-workers may share a CPU with the holder: let it run. */
			if (++spins % 1024 == 0)
				sched_yield();
			else
				rte_pause();
		}
	}
}

static bool shared_trylock(struct sl_pool_shared *s)
{
	return !atomic_load_explicit(&s->locked, memory_order_relaxed) &&
	       !atomic_exchange_explicit(&s->locked, true, memory_order_acquire);
}

static void shared_unlock(struct sl_pool_shared *s)
{
	atomic_store_explicit(&s->locked, false, memory_order_release);
}

/* ------------------------------------------------------------ steps */

static inline unsigned chunks_for(unsigned n, unsigned chunk)
{
	return n <= chunk ? 1 : (n + chunk - 1) / chunk;
}

/* Pop one chunk from a domain queue other than `skip` (a worker's own, which
 * it has tried already; pass n_domains to try all), going round from skip. */
static bool pop_other_domain(struct sl_pool *p, unsigned skip, void **dst)
{
	unsigned start = skip < p->n_domains ? skip + 1 : 0;
	for (unsigned i = 0; i < p->n_domains; i++) {
		unsigned d = (start + i) % p->n_domains;
		if (d != skip && sl_chunkq_pop(&p->domains[d], dst) == 0)
			return true;
	}
	return false;
}

/*
 * One reclaim step for worker w: bring one chunk into dst, from (in order) its
 * own L3 queue, the global queue, another domain's queue, or at most one
 * chunk's worth from the non-worker freelist if its lock is free.  Returns the
 * number of objects brought in (0: found nothing).
 */
static unsigned reclaim_one(struct sl_pool *p, struct sl_pool_worker *w, void **dst,
			    struct sl_chunkq **from)
{
	unsigned c = p->chunk;
	if (w->home != NULL && sl_chunkq_pop(w->home, dst) == 0) {
		sl_counter_add(&w->st.reclaims_l3, 1);
		*from = w->home;
		return c;
	}
	if (sl_chunkq_pop(&p->global, dst) == 0) {
		*from = &p->global;
		return c;
	}
	if (p->n_domains > 0 && pop_other_domain(p, w->domain, dst)) {
		sl_counter_add(&w->st.reclaims_remote, 1);
		*from = NULL;
		return c;
	}
	struct sl_pool_shared *s = &p->shared;
	*from = NULL;
	if (atomic_load_explicit(&s->depth, memory_order_relaxed) == 0 || !shared_trylock(s))
		return 0;
	uint32_t have = atomic_load_explicit(&s->depth, memory_order_relaxed);
	unsigned k = have < c ? have : c;
	memcpy(dst, s->objs + have - k, k * sizeof(void *));
	atomic_store_explicit(&s->depth, have - k, memory_order_relaxed);
	shared_unlock(s);
	if (k > 0)
		sl_counter_add(&w->st.reclaims_shared, 1);
	return k;
}

/* One timed reclaim step for worker w into dst (room for a chunk).  Returns
 * the number of objects brought in; 0 is counted as an empty event. */
static unsigned reclaim_step(struct sl_pool *p, struct sl_pool_worker *w, void **dst,
			     struct sl_chunkq **from)
{
	uint64_t t0 = sl_pool_ticks();
	unsigned k = reclaim_one(p, w, dst, from);
	hist_record(&w->st.reclaim_ns, step_ns(p, t0));
	if (k == 0)
		sl_counter_add(&w->st.empty, 1);
	else
		sl_counter_add(&w->st.reclaims, 1);
	return k;
}

int sl_pool_worker_get_slow(struct sl_pool_worker *w, void **objs, unsigned n)
{
	struct sl_pool *p = w->pool;
	uint32_t d = atomic_load_explicit(&w->depth, memory_order_relaxed);
	unsigned steps = chunks_for(n - d, p->chunk), s = 0;
	struct sl_chunkq *from = NULL;
	bool dry = false;
	/* While the caller still needs a whole chunk beyond the freelist,
	 * chunks go straight into objs (a large get, or the refill of a front
	 * cache): one copy instead of two. */
	unsigned got = 0;
	while (s < steps && n - got >= (uint64_t)d + p->chunk) {
		s++;
		unsigned k = reclaim_step(p, w, objs + got, &from);
		if (k == 0) {
			dry = true;
			break;
		}
		got += k;
	}
	for (; !dry && s < steps && d < n - got; s++) {
		if ((uint64_t)d + p->chunk > w->capacity)
			break;   /* only if objects from outside were put in */
		unsigned k = reclaim_step(p, w, w->objs + d, &from);
		if (k == 0)
			break;
		d += k;
	}
	/* The next reclaim will most likely read the next slot of the same
	 * queue, filled long ago by another CPU: start moving it here now, so
	 * that the misses overlap with the work until then. */
	if (from != NULL)
		sl_chunkq_prefetch_pop(from);
	if (d < n - got) {
		/* All or nothing: what came straight in joins the freelist. */
		memcpy(w->objs + d, objs, got * sizeof(void *));
		atomic_store_explicit(&w->depth, d + got, memory_order_relaxed);
		sl_counter_add(&w->st.get_fails, 1);
		return -ENOBUFS;
	}
	d -= n - got;
	memcpy(objs + got, w->objs + d, (n - got) * sizeof(void *));
	atomic_store_explicit(&w->depth, d, memory_order_relaxed);
	sl_counter_add(&w->gets, n);
	return 0;
}

/* Give a whole chunk (the top of the freelist) to the non-worker freelist,
 * if its lock is free: the last resort of a rebalance step. */
static bool push_shared(struct sl_pool *p, void *const *objs)
{
	struct sl_pool_shared *s = &p->shared;
	if (!shared_trylock(s))
		return false;
	uint32_t have = atomic_load_explicit(&s->depth, memory_order_relaxed);
	bool fits = (uint64_t)have + p->chunk <= p->capacity;
	if (fits) {
		memcpy(s->objs + have, objs, p->chunk * sizeof(void *));
		atomic_store_explicit(&s->depth, have + p->chunk, memory_order_relaxed);
	}
	shared_unlock(s);
	return fits;
}

/* One timed rebalance step for worker w: move the chunk at src to the
 * worker's L3 queue, else the global queue, else (both looked full: a
 * consumer was still copying out the slot) the non-worker freelist.
 * Returns whether it moved; false is counted as a full event. */
static bool rebalance_step(struct sl_pool *p, struct sl_pool_worker *w, void *const *src)
{
	uint64_t t0 = sl_pool_ticks();
	bool moved = (w->home != NULL && sl_chunkq_push(w->home, src) == 0) ||
		     sl_chunkq_push(&p->global, src) == 0;
	if (!moved && push_shared(p, src)) {
		moved = true;
		sl_counter_add(&w->st.rebalances_shared, 1);
	}
	hist_record(&w->st.rebalance_ns, step_ns(p, t0));
	if (moved)
		sl_counter_add(&w->st.rebalances, 1);
	else
		sl_counter_add(&w->st.full, 1);
	return moved;
}

/*
 * Up to `steps` rebalance steps for worker w whose freelist holds d objects:
 * while above the high mark, move the top chunk out.  A chunk that finds
 * nowhere to go stays, above the mark; the next put or sl_pool_house() tries
 * again.  Returns the new depth.
 */
static uint32_t rebalance(struct sl_pool *p, struct sl_pool_worker *w, uint32_t d,
			  unsigned steps)
{
	for (unsigned s = 0; s < steps && d > w->high; s++) {
		if (!rebalance_step(p, w, w->objs + d - p->chunk))
			break;
		d -= p->chunk;
	}
	return d;
}

int sl_pool_worker_put_slow(struct sl_pool_worker *w, void *const *objs, unsigned n)
{
	struct sl_pool *p = w->pool;
	uint32_t d = atomic_load_explicit(&w->depth, memory_order_relaxed);
	if ((uint64_t)d + n > w->capacity)
		return -ENOSPC;
	unsigned steps = chunks_for(n, p->chunk);
	/* While what is left would still take the freelist above its mark,
	 * whole chunks go straight from objs (a large put, or the flush of a
	 * front cache): one copy instead of two. */
	unsigned i = 0;
	while (steps > 0 && n - i >= p->chunk && d + (n - i) > w->high) {
		steps--;
		if (!rebalance_step(p, w, objs + i)) {
			steps = 0;   /* nowhere to go: no more tries in this call */
			break;
		}
		i += p->chunk;
	}
	memcpy(w->objs + d, objs + i, (n - i) * sizeof(void *));
	d += n - i;
	sl_counter_add(&w->puts, n);
	d = rebalance(p, w, d, steps);
	atomic_store_explicit(&w->depth, d, memory_order_relaxed);
	return 0;
}

int sl_pool_worker_house_slow(struct sl_pool_worker *w)
{
	uint32_t d = atomic_load_explicit(&w->depth, memory_order_relaxed);
	d = rebalance(w->pool, w, d, 1);
	atomic_store_explicit(&w->depth, d, memory_order_relaxed);
	return d > w->high ? -ENOSPC : 0;
}

int sl_pool_shared_get(struct sl_pool *p, void **objs, unsigned n)
{
	struct sl_pool_shared *s = &p->shared;
	shared_lock(s);
	uint32_t d = atomic_load_explicit(&s->depth, memory_order_relaxed);
	unsigned steps = d < n ? chunks_for(n - d, p->chunk) : 0;
	for (unsigned i = 0; i < steps && d < n; i++) {
		if ((uint64_t)d + p->chunk > p->capacity)
			break;
		uint64_t t0 = sl_pool_ticks();
		bool got = sl_chunkq_pop(&p->global, s->objs + d) == 0;
		bool remote = !got && p->n_domains > 0 &&
			      pop_other_domain(p, p->n_domains, s->objs + d);
		hist_record(&s->st.reclaim_ns, step_ns(p, t0));
		if (!got && !remote) {
			sl_counter_add(&s->st.empty, 1);
			break;
		}
		if (remote)
			sl_counter_add(&s->st.reclaims_remote, 1);
		d += p->chunk;
		sl_counter_add(&s->st.reclaims, 1);
	}
	int rc = 0;
	if (d < n) {
		sl_counter_add(&s->st.get_fails, 1);
		rc = -ENOBUFS;
	} else {
		d -= n;
		memcpy(objs, s->objs + d, n * sizeof(void *));
		sl_counter_add(&s->gets, n);
	}
	atomic_store_explicit(&s->depth, d, memory_order_relaxed);
	shared_unlock(s);
	return rc;
}

int sl_pool_shared_put(struct sl_pool *p, void *const *objs, unsigned n)
{
	struct sl_pool_shared *s = &p->shared;
	shared_lock(s);
	uint32_t d = atomic_load_explicit(&s->depth, memory_order_relaxed);
	if ((uint64_t)d + n > p->capacity) {
		shared_unlock(s);
		return -ENOSPC;
	}
	memcpy(s->objs + d, objs, n * sizeof(void *));
	d += n;
	sl_counter_add(&s->puts, n);
	/* Keep less than a chunk here: whole chunks go where workers find them. */
	unsigned steps = chunks_for(n, p->chunk);
	for (unsigned i = 0; i < steps && d >= p->chunk; i++) {
		uint64_t t0 = sl_pool_ticks();
		bool moved = sl_chunkq_push(&p->global, s->objs + d - p->chunk) == 0;
		hist_record(&s->st.rebalance_ns, step_ns(p, t0));
		if (!moved) {
			sl_counter_add(&s->st.full, 1);
			break;
		}
		d -= p->chunk;
		sl_counter_add(&s->st.rebalances, 1);
	}
	atomic_store_explicit(&s->depth, d, memory_order_relaxed);
	shared_unlock(s);
	return 0;
}

/* ------------------------------------------------------------ lifecycle */

static void **freelist_alloc(unsigned capacity)
{
	/* Reserve room for every object; pages are touched (and placed on the
	 * owner's node) only as deep as the freelist actually grows. */
	void *m = mmap(NULL, (size_t)capacity * sizeof(void *), PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	return m == MAP_FAILED ? NULL : m;
}

static void freelist_free(void **objs, unsigned capacity)
{
	if (objs != NULL)
		munmap(objs, (size_t)capacity * sizeof(void *));
}

static unsigned pow2_at_least(uint64_t n)
{
	unsigned v = 2;
	while (v < n)
		v *= 2;
	return v;
}

static bool is_pow2(unsigned v)
{
	return v >= 2 && (v & (v - 1)) == 0;
}

static void release(struct sl_pool *p)
{
	if (p->workers != NULL)
		for (unsigned w = 0; w < p->n_workers; w++)
			freelist_free(p->workers[w].objs, p->capacity);
	free(p->workers);
	if (p->domains != NULL)
		for (unsigned d = 0; d < p->n_domains; d++)
			sl_chunkq_fini(&p->domains[d]);
	free(p->domains);
	sl_chunkq_fini(&p->global);
	freelist_free(p->shared.objs, p->capacity);
	free(p);
}

static const struct sl_pool_opts no_opts;

int sl_pool_check(const char *name, unsigned capacity, const struct sl_pool_opts *opts,
		  struct sl_err *err)
{
	if (opts == NULL)
		opts = &no_opts;
	unsigned chunk = opts->chunk ? opts->chunk : SL_POOL_CHUNK_DEFAULT;
	unsigned high = opts->high ? opts->high : chunk + chunk / 2;
	unsigned l3_slots = opts->l3_chunks ? opts->l3_chunks : SL_POOL_L3_CHUNKS_DEFAULT;
	if (name == NULL || name[0] == '\0')
		return sl_errf(err, EINVAL, "pool: the name is empty");
	if (strlen(name) > SL_POOL_NAME_MAX)
		return sl_errf(err, EINVAL, "pool '%s': the name is longer than %u characters",
			       name, SL_POOL_NAME_MAX);
	if (capacity == 0 || capacity > SL_POOL_CAPACITY_MAX)
		return sl_errf(err, EINVAL, "pool '%s': capacity must be 1..%u, got %u", name,
			       SL_POOL_CAPACITY_MAX, capacity);
	if (chunk < SL_POOL_CHUNK_MIN || chunk > SL_POOL_CHUNK_MAX)
		return sl_errf(err, EINVAL, "pool '%s': chunk must be %u..%u, got %u", name,
			       SL_POOL_CHUNK_MIN, SL_POOL_CHUNK_MAX, chunk);
	if (high < chunk)
		return sl_errf(err, EINVAL, "pool '%s': high must be at least the chunk (%u), "
			       "got %u", name, chunk, high);
	if (!is_pow2(l3_slots))
		return sl_errf(err, EINVAL, "pool '%s': l3_chunks must be a power of two >= 2, "
			       "got %u", name, l3_slots);
	if (opts->global_chunks != 0 && !is_pow2(opts->global_chunks))
		return sl_errf(err, EINVAL, "pool '%s': global_chunks must be a power of two "
			       ">= 2, got %u", name, opts->global_chunks);
	if (opts->n_workers > SL_POOL_WORKERS_MAX)
		return sl_errf(err, EINVAL, "pool '%s': n_workers must be at most %u, got %u",
			       name, SL_POOL_WORKERS_MAX, opts->n_workers);
	return 0;
}

/* The new pool's name, sizes and step clock, from checked options. */
static void init_head(struct sl_pool *p, const char *name, unsigned capacity,
		      const struct sl_pool_opts *opts)
{
	memset(p, 0, sizeof(*p));
	strcpy(p->name, name);
	p->capacity = capacity;
	p->chunk = opts->chunk ? opts->chunk : SL_POOL_CHUNK_DEFAULT;
	p->high = opts->high ? opts->high : p->chunk + p->chunk / 2;
	p->n_workers = opts->n_workers;
	if (opts->tsc_hz != 0) {
		p->ns_per_tick = 1e9 / (double)opts->tsc_hz;
	} else {
		pthread_once(&measure_once, measure_tsc);
		p->ns_per_tick = measured_ns_per_tick;
	}
}

/* The worker handles and their freelists, and dense L3 domain numbers in order
 * of first appearance (their count in *n_domains).  Returns 0 or -ENOMEM. */
static int init_workers(struct sl_pool *p, const struct sl_pool_opts *opts,
			unsigned *n_domains, struct sl_err *err)
{
	unsigned n_workers = p->n_workers;
	*n_domains = 0;
	if (n_workers == 0)
		return 0;
	p->workers = aligned_alloc(SL_POOL_CACHE_LINE, n_workers * sizeof(*p->workers));
	if (p->workers == NULL)
		return sl_errf(err, ENOMEM, "pool '%s': no memory for %u worker handles",
			       p->name, n_workers);
	memset(p->workers, 0, n_workers * sizeof(*p->workers));
	for (unsigned w = 0; w < n_workers; w++) {
		struct sl_pool_worker *h = &p->workers[w];
		h->pool = p;
		h->index = w;
		h->chunk = p->chunk;
		h->high = p->high;
		h->capacity = p->capacity;
		h->domain = *n_domains;
		unsigned l3 = opts->workers ? opts->workers[w].l3 : 0;
		for (unsigned v = 0; v < w; v++)
			if ((opts->workers ? opts->workers[v].l3 : 0) == l3) {
				h->domain = p->workers[v].domain;
				break;
			}
		if (h->domain == *n_domains)
			(*n_domains)++;
		h->objs = freelist_alloc(p->capacity);
		if (h->objs == NULL)
			return sl_errf(err, ENOMEM, "pool '%s': no memory for the freelist of "
				       "worker %u (%u objects)", p->name, w, p->capacity);
	}
	return 0;
}

/* One queue of l3_slots chunks per L3 domain, and each worker's home queue.
 * Returns 0 or -ENOMEM. */
static int init_domains(struct sl_pool *p, unsigned n_domains, unsigned l3_slots,
			uint64_t first_pos, struct sl_err *err)
{
	p->domains = calloc(n_domains, sizeof(*p->domains));
	if (p->domains == NULL)
		return sl_errf(err, ENOMEM, "pool '%s': no memory for %u L3 queues", p->name,
			       n_domains);
	for (unsigned d = 0; d < n_domains; d++) {
		int rc = sl_chunkq_init(&p->domains[d], l3_slots, p->chunk, first_pos);
		if (rc < 0)
			return sl_errf(err, -rc, "pool '%s': cannot set up the queue of L3 "
				       "domain %u (%u chunks): %s", p->name, d, l3_slots,
				       strerror(-rc));
		p->n_domains = d + 1;
	}
	for (unsigned w = 0; w < p->n_workers; w++)
		p->workers[w].home = &p->domains[p->workers[w].domain];
	return 0;
}

struct sl_pool *sl_pool_create_at(const char *name, unsigned capacity,
				  const struct sl_pool_opts *opts, uint64_t first_pos,
				  struct sl_err *err)
{
	if (opts == NULL)
		opts = &no_opts;
	int rc = sl_pool_check(name, capacity, opts, err);
	if (rc < 0) {
		errno = -rc;
		return NULL;
	}
	struct sl_pool *p = aligned_alloc(SL_POOL_CACHE_LINE, sizeof(*p));
	if (p == NULL)
		return sl_errf_null(err, ENOMEM, "pool '%s': no memory for the pool", name);
	init_head(p, name, capacity, opts);

	/* Twice the chunks the pool can make: a producer can then only find the
	 * next slot still occupied if a consumer stalled in the middle of its
	 * copy while a whole pool's worth of chunks went by. */
	unsigned global_slots = opts->global_chunks ? opts->global_chunks
						    : pow2_at_least(2 * ((uint64_t)capacity / p->chunk + 1));
	rc = sl_chunkq_init(&p->global, global_slots, p->chunk, first_pos);
	if (rc < 0) {
		free(p);
		return sl_errf_null(err, -rc, "pool '%s': cannot set up the global queue (%u "
				    "chunks): %s", name, global_slots, strerror(-rc));
	}
	p->shared.objs = freelist_alloc(capacity);
	if (p->shared.objs == NULL)
		rc = sl_errf(err, ENOMEM, "pool '%s': no memory for the non-worker freelist "
			     "(%u objects)", name, capacity);
	unsigned n_domains = 0;
	if (rc == 0)
		rc = init_workers(p, opts, &n_domains, err);
	if (rc == 0 && opts->l3_tier && n_domains > 0)
		rc = init_domains(p, n_domains,
				  opts->l3_chunks ? opts->l3_chunks : SL_POOL_L3_CHUNKS_DEFAULT,
				  first_pos, err);
	if (rc < 0) {
		release(p);
		errno = -rc;
		return NULL;
	}
	return p;
}

struct sl_pool *sl_pool_create(const char *name, unsigned capacity,
			       const struct sl_pool_opts *opts, struct sl_err *err)
{
	return sl_pool_create_at(name, capacity, opts, 0, err);
}

void sl_pool_free(struct sl_pool *p)
{
	if (p != NULL)
		release(p);
}

struct sl_pool_worker *sl_pool_worker(struct sl_pool *p, unsigned w)
{
	return w < p->n_workers ? &p->workers[w] : NULL;
}

unsigned sl_pool_capacity(const struct sl_pool *p)
{
	return p->capacity;
}

unsigned sl_pool_chunk(const struct sl_pool *p)
{
	return p->chunk;
}

unsigned sl_pool_handoff_lines(const struct sl_pool *p)
{
	return 2 + sl_chunkq_data_lines(p->chunk);
}

unsigned sl_pool_high(const struct sl_pool *p)
{
	return p->high;
}

unsigned sl_pool_n_workers(const struct sl_pool *p)
{
	return p->n_workers;
}

void sl_pool_worker_set_front(struct sl_pool_worker *w, const uint32_t *len, unsigned high)
{
	w->front = len;
	w->high = high > w->chunk - 1 ? high : w->chunk - 1;
}

/* ------------------------------------------------------------ accounting */

/* The fill of worker w's front cache (0 without one): a recent value, read
 * while its own thread may be changing it. */
static uint32_t front_len(const struct sl_pool_worker *w)
{
	return w->front != NULL ? __atomic_load_n(w->front, __ATOMIC_RELAXED) : 0;
}

void sl_pool_count(const struct sl_pool *p, struct sl_pool_counts *c)
{
	memset(c, 0, sizeof(*c));
	for (unsigned w = 0; w < p->n_workers; w++) {
		uint32_t f = front_len(&p->workers[w]);
		c->cached += f;
		c->workers += atomic_load_explicit(&p->workers[w].depth, memory_order_relaxed) + f;
	}
	for (unsigned d = 0; d < p->n_domains; d++)
		c->l3 += sl_chunkq_count(&p->domains[d]) * p->chunk;
	c->global = sl_chunkq_count(&p->global) * p->chunk;
	c->shared = atomic_load_explicit(&p->shared.depth, memory_order_relaxed);
	c->total = c->workers + c->l3 + c->global + c->shared;
}

unsigned sl_pool_avail(const struct sl_pool *p)
{
	struct sl_pool_counts c;
	sl_pool_count(p, &c);
	return c.total > p->capacity ? p->capacity : (unsigned)c.total;
}

static unsigned snapshot_queue(const struct sl_chunkq *q, void **out)
{
	unsigned n = 0;
	uint64_t tail = atomic_load_explicit(&q->tail, memory_order_acquire);
	uint64_t head = atomic_load_explicit(&q->head, memory_order_acquire);
	for (uint64_t pos = tail; pos != head; pos++) {
		sl_chunkq_read_at(q, pos, out + n);
		n += q->chunk;
	}
	return n;
}

unsigned sl_pool_snapshot(const struct sl_pool *p, void **out)
{
	unsigned n = 0;
	for (unsigned w = 0; w < p->n_workers; w++) {
		uint32_t d = atomic_load_explicit(&p->workers[w].depth, memory_order_acquire);
		memcpy(out + n, p->workers[w].objs, d * sizeof(void *));
		n += d;
	}
	for (unsigned d = 0; d < p->n_domains; d++)
		n += snapshot_queue(&p->domains[d], out + n);
	n += snapshot_queue(&p->global, out + n);
	uint32_t d = atomic_load_explicit(&p->shared.depth, memory_order_acquire);
	memcpy(out + n, p->shared.objs, d * sizeof(void *));
	return n + d;
}

/* ------------------------------------------------------------ telemetry */

static uint64_t ld(const uint64_t *c)
{
	return sl_counter_read(c);
}

static void live_read(const struct sl_pool_live_stats *st, struct sl_pool_tier_stats *o)
{
	o->get_fails = ld(&st->get_fails);
	o->rebalances = ld(&st->rebalances);
	o->reclaims = ld(&st->reclaims);
	o->reclaims_l3 = ld(&st->reclaims_l3);
	o->reclaims_remote = ld(&st->reclaims_remote);
	o->reclaims_shared = ld(&st->reclaims_shared);
	o->rebalances_shared = ld(&st->rebalances_shared);
	o->empty = ld(&st->empty);
	o->full = ld(&st->full);
	memset(&o->rebalance_ns, 0, sizeof(o->rebalance_ns));
	memset(&o->reclaim_ns, 0, sizeof(o->reclaim_ns));
	sl_pool_hist_add(&o->rebalance_ns, &st->rebalance_ns);
	sl_pool_hist_add(&o->reclaim_ns, &st->reclaim_ns);
}

int sl_pool_tier_stats(const struct sl_pool *p, unsigned w, struct sl_pool_tier_stats *out)
{
	if (w == SL_POOL_NONWORKER) {
		const struct sl_pool_shared *s = &p->shared;
		live_read(&s->st, out);
		out->gets = sl_counter_read(&s->gets);
		out->puts = sl_counter_read(&s->puts);
		out->depth = atomic_load_explicit(&s->depth, memory_order_relaxed);
		return 0;
	}
	if (w >= p->n_workers)
		return -EINVAL;
	const struct sl_pool_worker *h = &p->workers[w];
	live_read(&h->st, out);
	out->gets = sl_counter_read(&h->gets);
	out->puts = sl_counter_read(&h->puts);
	out->depth = atomic_load_explicit(&h->depth, memory_order_relaxed) + front_len(h);
	return 0;
}

static void tier_add(struct sl_pool_tier_stats *a, const struct sl_pool_tier_stats *b)
{
	a->gets += b->gets;
	a->puts += b->puts;
	a->get_fails += b->get_fails;
	a->rebalances += b->rebalances;
	a->reclaims += b->reclaims;
	a->reclaims_l3 += b->reclaims_l3;
	a->reclaims_remote += b->reclaims_remote;
	a->reclaims_shared += b->reclaims_shared;
	a->rebalances_shared += b->rebalances_shared;
	a->empty += b->empty;
	a->full += b->full;
	a->depth += b->depth;
	sl_pool_hist_add(&a->rebalance_ns, &b->rebalance_ns);
	sl_pool_hist_add(&a->reclaim_ns, &b->reclaim_ns);
}

void sl_pool_stats(const struct sl_pool *p, struct sl_pool_stats *out)
{
	memset(out, 0, sizeof(*out));
	struct sl_pool_tier_stats t;
	for (unsigned w = 0; w <= p->n_workers; w++) {
		sl_pool_tier_stats(p, w == p->n_workers ? SL_POOL_NONWORKER : w, &t);
		tier_add(&out->sum, &t);
	}
	sl_pool_count(p, &out->counts);
	out->global_chunks = sl_chunkq_count(&p->global);
	out->global_slots = sl_chunkq_slots(&p->global);
	out->unpacked = sl_chunkq_unpacked(&p->global);
	out->l3_domains = p->n_domains;
	for (unsigned d = 0; d < p->n_domains; d++) {
		out->l3_chunks += sl_chunkq_count(&p->domains[d]);
		out->unpacked += sl_chunkq_unpacked(&p->domains[d]);
	}
	out->l3_slots = p->n_domains ? sl_chunkq_slots(&p->domains[0]) : 0;
}

void sl_pool_hold_shared_lock(struct sl_pool *pool, bool taken)
{
	atomic_store(&pool->shared.locked, taken);
}

uint64_t sl_pool_global_head(const struct sl_pool *pool)
{
	return atomic_load(&pool->global.head);
}
