/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Epoch reclamation: see epoch.h for the contract.
 *
 * Policies.  What differs between immediate, batch and qsbr is a const
 * struct epoch_ops (below): how a retire stores and stamps an object, what a
 * quiescent state, a reclaim, a synchronize and a drain add.  The rest (the
 * tokens published per worker, stalls, metrics) is common.
 *
 * Ordering.  A worker's `seen` is 0 while offline, else the token it last
 * read.  (Immediate policy: a retire stamps the token it reads, after a
 * barrier, plus one, and asks for the token to reach that stamp; the next
 * worker to quiesce moves it there with one compare-and-swap.)  quiesce
 * reads the token sequentially consistent (so its later reads see every
 * unlink that preceded the retires it covers) and publishes it with release
 * (so its earlier reads are done before a reclaimer can see it).  online
 * publishes with a sequentially consistent exchange, a full barrier: either
 * a reclaimer's scan sees it online, or its reads after going online see
 * the unlink.  The other half of that pairing: an immediate retire's
 * sequentially consistent barrier and token read, a batch retire's
 * sequentially consistent increment of the token, and reclaim's scan with
 * sequentially consistent loads.
 */
#define ALLOW_EXPERIMENTAL_API 1   /* rte_rcu_qsbr_dq_* */

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_rcu_qsbr.h>

#include "base/counter.h"
#include "epoch/epoch.h"

struct entry {
	void *obj;
	sl_epoch_free_fn *free_fn;
	void *arg;
	uint64_t token;          /* 0: in the open bag (batch) */
	uint64_t retire_ns;
	uint64_t retire_breath;
};
_Static_assert(sizeof(struct entry) % 4 == 0, "defer queue element size");

struct sl_epoch_worker {
	/* Read by every reclaimer and the laggard check. */
	uint64_t seen __rte_cache_aligned;
	uint64_t last_qs_ns;
	/* The last stall that ended (sl_epoch_last_stall): written by the
	 * worker only when a stall ends; stall_seq is odd while it writes. */
	uint64_t stall_seq;
	uint64_t stall_from_ns;
	uint64_t stall_ns;

	/* Metrics: single writer (the worker; the control thread in drain). */
	uint64_t retired __rte_cache_aligned;
	uint64_t freed;
	uint64_t backlog_hwm;
	uint64_t breaths;

	/* Private to the worker. */
	struct sl_epoch *e;
	unsigned index;
	struct entry *ring;
	uint32_t mask;
	uint32_t head;           /* next free slot */
	uint32_t tail;           /* oldest entry */
	uint32_t open;           /* entries in the open bag (batch) */
	uint64_t last_stamp;     /* newest token stamped by this worker */
	uint64_t last_collect;   /* breath of the last collect (batch) */
	bool gp_open;
	uint64_t gp_token;
	uint64_t gp_start_ns;
	uint64_t free_now_ns;    /* qsbr: `now` for the free callback */
	struct rte_rcu_qsbr_dq *dq;
	uint64_t fence_word;     /* immediate: target of the retire's barrier */

	struct sl_hist hist[3];
};

/* A reclamation policy.  Every hook is set (a policy with nothing to do
 * there has an empty one).  Each is called by the thread that called the API
 * function of the same name, with that function's rules. */
struct epoch_ops {
	const char *name;
	/* Per-worker retire storage, after the common state is set; 0 or
	 * -errno with a sentence in err (sl_epoch_free undoes a partial one). */
	int (*create)(struct sl_epoch *e, const char *name, struct sl_err *err);
	/* The policy's part of online, offline and quiesce (before the common
	 * part publishes w's token; quiesce: only while w is online). */
	void (*online)(struct sl_epoch *e, struct sl_epoch_worker *w);
	void (*offline)(struct sl_epoch *e, struct sl_epoch_worker *w);
	void (*quiesce)(struct sl_epoch *e, struct sl_epoch_worker *w);
	/* Store en (stamping it, and w->last_stamp, as the policy does): 0, or
	 * -ENOSPC when w's list is full (nothing stored). */
	int (*retire)(struct sl_epoch *e, struct sl_epoch_worker *w, struct entry *en);
	/* Store n entries, en with each of objs[0..n) as its object (w's list
	 * has room for them: sl_epoch_retire_n checked), and return how many
	 * went in; NULL: retire, n times. */
	unsigned (*retire_n)(struct sl_epoch *e, struct sl_epoch_worker *w, struct entry *en,
			     void *const *objs, unsigned n);
	/* Entries in w's retire list. */
	uint64_t (*used)(const struct sl_epoch_worker *w);
	/* Free at most cap entries whose grace period has passed; called only
	 * when w has some.  now: metric_ns(). */
	unsigned (*reclaim)(struct sl_epoch *e, struct sl_epoch_worker *w, unsigned cap,
			    uint64_t now);
	/* The policy's part of a synchronize, after the token covers every
	 * stamp and before the wait for the workers' tokens. */
	void (*synchronize)(struct sl_epoch *e);
	/* sl_epoch_drain for one worker; returns the number freed. */
	uint64_t (*drain)(struct sl_epoch *e, struct sl_epoch_worker *w, uint64_t now);
};

struct sl_epoch {
	/* Read by every worker on every call: kept off the lines that change. */
	const struct epoch_ops *ops;
	unsigned n;
	uint32_t ring_size;
	uint64_t tsc_mult;       /* ns per TSC cycle << 32; 0: use the clock */
	struct rte_rcu_qsbr *v;
	struct sl_epoch_worker *w;

	uint64_t token __rte_cache_aligned;
	/* immediate: the newest stamp a retire asked for; the next quiescing
	 * worker moves the token up to it (one update per grace period, not
	 * one per retire).  On the token's line: whoever reads one reads the
	 * other. */
	uint64_t want;

	struct sl_hist sync_hist __rte_cache_aligned;   /* control thread */
};

static uint64_t monotonic_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The epoch's clock: the TSC scaled to ns when DPDK knew its rate at create
 * (one rdtsc, no vDSO call: quiesce reads it every breath), else
 * CLOCK_MONOTONIC. */
static inline uint64_t metric_ns(const struct sl_epoch *e)
{
	if (e->tsc_mult == 0)
		return monotonic_ns();
	return (uint64_t)(((unsigned __int128)rte_rdtsc() * e->tsc_mult) >> 32);
}

uint64_t sl_epoch_now_ns(const struct sl_epoch *e)
{
	return metric_ns(e);
}

static void backlog_note(struct sl_epoch_worker *w)
{
	uint64_t b = sl_counter_read(&w->retired) - sl_counter_read(&w->freed);
	if (b > sl_counter_read(&w->backlog_hwm))
		__atomic_store_n(&w->backlog_hwm, b, __ATOMIC_RELAXED);
}

static void free_entry(struct sl_epoch_worker *w, const struct entry *en, uint64_t now)
{
	en->free_fn(en->obj, en->arg);
	sl_hist_record(&w->hist[SL_EPOCH_HIST_FREE_NS],
		       now > en->retire_ns ? now - en->retire_ns : 0);
	sl_hist_record(&w->hist[SL_EPOCH_HIST_FREE_BREATHS],
		       sl_counter_read(&w->breaths) - en->retire_breath);
	sl_counter_add(&w->freed, 1);
}

static uint64_t bump(struct sl_epoch *e)
{
	return __atomic_add_fetch(&e->token, 1, __ATOMIC_SEQ_CST);
}

/* Smallest token published by an online worker; UINT64_MAX if none. */
static uint64_t min_seen(const struct sl_epoch *e)
{
	uint64_t m = UINT64_MAX;
	for (unsigned i = 0; i < e->n; i++) {
		uint64_t s = __atomic_load_n(&e->w[i].seen, __ATOMIC_SEQ_CST);
		if (s != 0 && s < m)
			m = s;
	}
	return m;
}

static void grace_track(struct sl_epoch_worker *w, uint64_t min, uint64_t now)
{
	if (w->gp_open && min >= w->gp_token) {
		sl_hist_record(&w->hist[SL_EPOCH_HIST_GRACE_NS], now - w->gp_start_ns);
		w->gp_open = false;
	}
	if (!w->gp_open && w->last_stamp > min) {
		w->gp_open = true;
		w->gp_token = w->last_stamp;
		w->gp_start_ns = now;
	}
}

/* A hook with nothing to do under a policy. */
static void no_worker_hook(struct sl_epoch *e, struct sl_epoch_worker *w)
{
}

static void no_epoch_hook(struct sl_epoch *e)
{
}

/* ---- the retire ring (immediate, batch) --------------------------------- */

static int ring_create(struct sl_epoch *e, const char *name, struct sl_err *err)
{
	for (unsigned i = 0; i < e->n; i++) {
		e->w[i].ring = calloc(e->ring_size, sizeof(*e->w[i].ring));
		if (e->w[i].ring == NULL)
			return sl_errf(err, ENOMEM, "epoch '%s': no memory for %u workers' retire "
				       "lists of %u", name, e->n, e->ring_size);
	}
	return 0;
}

static uint64_t ring_used(const struct sl_epoch_worker *w)
{
	return (uint64_t)(w->head - w->tail);
}

/* Append en to w's ring; -ENOSPC when it is full. */
static int ring_push(struct sl_epoch_worker *w, const struct entry *en)
{
	if (w->head - w->tail > w->mask)
		return -ENOSPC;
	w->ring[w->head & w->mask] = *en;
	w->head++;
	return 0;
}

/* Free at most limit of w's oldest entries whose token every online worker
 * has passed (an open bag's entries, token 0, wait). */
static unsigned ring_collect(struct sl_epoch *e, struct sl_epoch_worker *w, uint64_t limit,
			     uint64_t now)
{
	uint64_t min = min_seen(e);
	grace_track(w, min, now);
	unsigned freed = 0;
	while (freed < limit && w->tail != w->head) {
		const struct entry *en = &w->ring[w->tail & w->mask];
		if (en->token == 0 || en->token > min)
			break;
		free_entry(w, en, now);
		w->tail++;
		freed++;
	}
	return freed;
}

static uint64_t ring_drain(struct sl_epoch *e, struct sl_epoch_worker *w, uint64_t now)
{
	uint64_t total = 0;
	for (; w->tail != w->head; w->tail++, total++)
		free_entry(w, &w->ring[w->tail & w->mask], now);
	w->open = 0;
	return total;
}

/* ---- immediate ------------------------------------------------------------ */

/* Move the token up to what retires asked for.  Losing the race is fine:
 * someone else moved it at least as far. */
static void immediate_quiesce(struct sl_epoch *e, struct sl_epoch_worker *w)
{
	uint64_t want = __atomic_load_n(&e->want, __ATOMIC_RELAXED);
	uint64_t tok = __atomic_load_n(&e->token, __ATOMIC_RELAXED);
	if (want > tok)
		__atomic_compare_exchange_n(&e->token, &tok, want, false, __ATOMIC_SEQ_CST,
					    __ATOMIC_RELAXED);
}

/* Stamp an object just unlinked.  The barrier orders the unlink before the
 * token is read (a locked operation on a line of the worker's own, so
 * nothing is shared); the stamp is one past the token read, so that it is
 * passed only by a worker that read a token moved up after this read, and so
 * after the unlink.  The request goes into `want` only when it is new, so
 * most retires write nothing shared. */
static uint64_t stamp_immediate(struct sl_epoch *e, struct sl_epoch_worker *w)
{
	__atomic_fetch_or(&w->fence_word, 0, __ATOMIC_SEQ_CST);
	uint64_t stamp = __atomic_load_n(&e->token, __ATOMIC_SEQ_CST) + 1;
	if (stamp <= w->last_stamp)
		return stamp;   /* this worker asked for it already */
	uint64_t want = __atomic_load_n(&e->want, __ATOMIC_RELAXED);
	while (want < stamp &&
	       !__atomic_compare_exchange_n(&e->want, &want, stamp, true, __ATOMIC_RELAXED,
					    __ATOMIC_RELAXED))
		;
	return stamp;
}

static int immediate_retire(struct sl_epoch *e, struct sl_epoch_worker *w, struct entry *en)
{
	if (w->head - w->tail > w->mask)
		return -ENOSPC;
	en->token = stamp_immediate(e, w);
	w->last_stamp = en->token;
	return ring_push(w, en);
}

/* n entries under one stamp, read after every unlink of the batch. */
static unsigned immediate_retire_n(struct sl_epoch *e, struct sl_epoch_worker *w,
				   struct entry *en, void *const *objs, unsigned n)
{
	en->token = stamp_immediate(e, w);
	w->last_stamp = en->token;
	unsigned done = 0;
	for (; done < n; done++) {
		en->obj = objs[done];
		if (ring_push(w, en) != 0)
			break;
	}
	return done;
}

static unsigned immediate_reclaim(struct sl_epoch *e, struct sl_epoch_worker *w, unsigned cap,
				  uint64_t now)
{
	if (w->head == w->tail)
		return 0;
	return ring_collect(e, w, cap, now);
}

/* ---- batch ---------------------------------------------------------------- */

/* The entry goes into the open bag (token 0); the retire that fills the bag
 * seals it with a fresh token. */
static int batch_retire(struct sl_epoch *e, struct sl_epoch_worker *w, struct entry *en)
{
	int rc = ring_push(w, en);
	if (rc != 0)
		return rc;
	if (++w->open == SL_EPOCH_BAG) {
		uint64_t t = bump(e);
		for (uint32_t i = w->head - SL_EPOCH_BAG; i != w->head; i++)
			w->ring[i & w->mask].token = t;
		w->last_stamp = t;
		w->open = 0;
	}
	return 0;
}

/* A collect every SL_EPOCH_COLLECT_BREATHS breaths, of at most
 * SL_EPOCH_COLLECT_BAGS bags. */
static unsigned batch_reclaim(struct sl_epoch *e, struct sl_epoch_worker *w, unsigned cap,
			      uint64_t now)
{
	if (w->head == w->tail)
		return 0;
	uint64_t b = sl_counter_read(&w->breaths);
	if (b - w->last_collect < SL_EPOCH_COLLECT_BREATHS)
		return 0;
	w->last_collect = b;
	uint64_t limit = cap;
	if (limit > SL_EPOCH_COLLECT_BAGS * SL_EPOCH_BAG)
		limit = SL_EPOCH_COLLECT_BAGS * SL_EPOCH_BAG;
	return ring_collect(e, w, limit, now);
}

/* ---- qsbr: DPDK's rte_rcu_qsbr and its defer queue ---------------------- */

/* The defer queue's callback: p is the worker, e its copy of n entries. */
static void dq_free(void *p, void *e, unsigned int n)
{
	struct sl_epoch_worker *w = p;
	const struct entry *en = e;
	for (unsigned i = 0; i < n; i++)
		free_entry(w, &en[i], w->free_now_ns);
}

static int qsbr_create(struct sl_epoch *e, const char *name, struct sl_err *err)
{
	size_t sz = rte_rcu_qsbr_get_memsize(e->n);
	e->v = aligned_alloc(RTE_CACHE_LINE_SIZE, RTE_ALIGN_CEIL(sz, RTE_CACHE_LINE_SIZE));
	if (e->v == NULL)
		return sl_errf(err, ENOMEM, "epoch '%s': no memory for the qsbr variable", name);
	if (rte_rcu_qsbr_init(e->v, e->n) != 0)
		return sl_errf(err, EINVAL, "epoch '%s': rte_rcu_qsbr_init failed", name);
	for (unsigned i = 0; i < e->n; i++) {
		struct sl_epoch_worker *w = &e->w[i];
		char dqname[RTE_RCU_QSBR_DQ_NAMESIZE];
		rte_rcu_qsbr_thread_register(e->v, i);
		snprintf(dqname, sizeof(dqname), "ep%p_%u", (void *)e, i);
		struct rte_rcu_qsbr_dq_parameters p = {
			.name = dqname,
			.flags = RTE_RCU_QSBR_DQ_MT_UNSAFE,
			.size = e->ring_size,
			.esize = sizeof(struct entry),
			.trigger_reclaim_limit = UINT32_MAX,   /* reclaim only when asked */
			.max_reclaim_size = 1,
			.free_fn = dq_free,
			.p = w,
			.v = e->v,
		};
		w->dq = rte_rcu_qsbr_dq_create(&p);
		if (w->dq == NULL)
			return sl_errf(err, rte_errno > 0 ? rte_errno : ENOMEM,
				       "epoch '%s': policy 'qsbr' cannot create the defer queue of "
				       "worker %u (it needs DPDK's EAL initialised): %s",
				       name, i, rte_strerror(rte_errno));
	}
	return 0;
}

static void qsbr_online(struct sl_epoch *e, struct sl_epoch_worker *w)
{
	rte_rcu_qsbr_thread_online(e->v, w->index);
}

static void qsbr_offline(struct sl_epoch *e, struct sl_epoch_worker *w)
{
	rte_rcu_qsbr_thread_offline(e->v, w->index);
}

static void qsbr_quiesce(struct sl_epoch *e, struct sl_epoch_worker *w)
{
	rte_rcu_qsbr_quiescent(e->v, w->index);
}

/* Entries retired and not yet freed (the defer queue's ring may be larger
 * than ring_size: this keeps ring_size exact). */
static uint64_t qsbr_used(const struct sl_epoch_worker *w)
{
	return sl_counter_read(&w->retired) - sl_counter_read(&w->freed);
}

static int qsbr_retire(struct sl_epoch *e, struct sl_epoch_worker *w, struct entry *en)
{
	if (qsbr_used(w) > w->mask || rte_rcu_qsbr_dq_enqueue(w->dq, en) != 0)
		return -ENOSPC;
	w->last_stamp = bump(e);   /* the laggard check's token */
	return 0;
}

static unsigned qsbr_reclaim(struct sl_epoch *e, struct sl_epoch_worker *w, unsigned cap,
			     uint64_t now)
{
	unsigned freed = 0, pending = 0, avail = 0;
	w->free_now_ns = now;
	if (cap > 0)
		rte_rcu_qsbr_dq_reclaim(w->dq, cap, &freed, &pending, &avail);
	return freed;
}

/* Start a grace period and wait for it (DPDK's own counters). */
static void qsbr_synchronize(struct sl_epoch *e)
{
	rte_rcu_qsbr_check(e->v, rte_rcu_qsbr_start(e->v), true);
}

/* Only what the defer queue deems safe: it frees no other. */
static uint64_t qsbr_drain(struct sl_epoch *e, struct sl_epoch_worker *w, uint64_t now)
{
	unsigned freed = 0, pending = 0, avail = 0;
	w->free_now_ns = now;
	rte_rcu_qsbr_dq_reclaim(w->dq, UINT32_MAX, &freed, &pending, &avail);
	return freed;
}

/* ---- the policies ---------------------------------------------------------- */

static const struct epoch_ops immediate_ops = {
	.name = "immediate",
	.create = ring_create,
	.online = no_worker_hook,
	.offline = no_worker_hook,
	.quiesce = immediate_quiesce,
	.retire = immediate_retire,
	.retire_n = immediate_retire_n,
	.used = ring_used,
	.reclaim = immediate_reclaim,
	.synchronize = no_epoch_hook,
	.drain = ring_drain,
};

static const struct epoch_ops batch_ops = {
	.name = "batch",
	.create = ring_create,
	.online = no_worker_hook,
	.offline = no_worker_hook,
	.quiesce = no_worker_hook,
	.retire = batch_retire,
	.used = ring_used,
	.reclaim = batch_reclaim,
	.synchronize = no_epoch_hook,
	.drain = ring_drain,
};

static const struct epoch_ops qsbr_ops = {
	.name = "qsbr",
	.create = qsbr_create,
	.online = qsbr_online,
	.offline = qsbr_offline,
	.quiesce = qsbr_quiesce,
	.retire = qsbr_retire,
	.used = qsbr_used,
	.reclaim = qsbr_reclaim,
	.synchronize = qsbr_synchronize,
	.drain = qsbr_drain,
};

static const struct epoch_ops *const policy_ops[] = {
	[SL_EPOCH_IMMEDIATE] = &immediate_ops,
	[SL_EPOCH_BATCH] = &batch_ops,
	[SL_EPOCH_QSBR] = &qsbr_ops,
};

/* The ops of policy p, or NULL if p is not one. */
static const struct epoch_ops *ops_of(enum sl_epoch_policy p)
{
	return (unsigned)p < RTE_DIM(policy_ops) ? policy_ops[p] : NULL;
}

const char *sl_epoch_policy_name(enum sl_epoch_policy p)
{
	const struct epoch_ops *ops = ops_of(p);
	return ops != NULL ? ops->name : "unknown";
}

/* ---- the API --------------------------------------------------------------- */

struct sl_epoch *sl_epoch_create(const struct sl_epoch_conf *conf, struct sl_err *err)
{
	const char *name = conf->name ? conf->name : "epoch";
	uint32_t rs = conf->ring_size ? conf->ring_size : SL_EPOCH_RING_DEFAULT;
	const struct epoch_ops *ops = ops_of(conf->policy);

	if (conf->n_workers == 0 || conf->n_workers > SL_EPOCH_MAX_WORKERS) {
		errno = -sl_errf(err, EINVAL, "epoch '%s': n_workers must be 1..%u, got %u",
				 name, SL_EPOCH_MAX_WORKERS, conf->n_workers);
		return NULL;
	}
	if (rs < SL_EPOCH_BAG || (rs & (rs - 1)) != 0 || rs > (1u << 30)) {
		errno = -sl_errf(err, EINVAL, "epoch '%s': ring_size must be a power of two "
				 "from %u to 2^30, got %u", name, SL_EPOCH_BAG, rs);
		return NULL;
	}
	if (ops == NULL) {
		errno = -sl_errf(err, EINVAL, "epoch '%s': unknown policy %d", name,
				 (int)conf->policy);
		return NULL;
	}

	struct sl_epoch *e = aligned_alloc(RTE_CACHE_LINE_SIZE,
					   RTE_ALIGN_CEIL(sizeof(*e), RTE_CACHE_LINE_SIZE));
	if (e == NULL)
		goto out_nomem;
	memset(e, 0, sizeof(*e));
	e->token = 1;
	e->ops = ops;
	e->n = conf->n_workers;
	e->ring_size = rs;
	uint64_t hz = rte_get_tsc_hz();   /* 0 before DPDK's EAL is up */
	e->tsc_mult = hz > 0 ? (UINT64_C(1000000000) << 32) / hz : 0;
	sl_hist_init(&e->sync_hist);
	size_t wsz = RTE_ALIGN_CEIL(sizeof(*e->w) * e->n, RTE_CACHE_LINE_SIZE);
	e->w = aligned_alloc(RTE_CACHE_LINE_SIZE, wsz);
	if (e->w == NULL)
		goto out_free_e;
	memset(e->w, 0, wsz);
	for (unsigned i = 0; i < e->n; i++) {
		struct sl_epoch_worker *w = &e->w[i];
		w->e = e;
		w->index = i;
		w->mask = rs - 1;
		for (unsigned h = 0; h < 3; h++)
			sl_hist_init(&w->hist[h]);
	}
	int rc = ops->create(e, name, err);
	if (rc != 0) {
		sl_epoch_free(e);
		errno = -rc;
		return NULL;
	}
	return e;

out_free_e:
	free(e);
out_nomem:
	errno = -sl_errf(err, ENOMEM, "epoch '%s': no memory for %u workers' retire lists of %u",
			 name, conf->n_workers, rs);
	return NULL;
}

void sl_epoch_free(struct sl_epoch *e)
{
	if (e == NULL)
		return;
	for (unsigned i = 0; i < e->n; i++) {
		if (e->w[i].dq != NULL)
			rte_rcu_qsbr_dq_delete(e->w[i].dq);
		free(e->w[i].ring);
	}
	free(e->v);
	free(e->w);
	free(e);
}

struct sl_epoch_worker *sl_epoch_worker(struct sl_epoch *e, unsigned i)
{
	return i < e->n ? &e->w[i] : NULL;
}

void sl_epoch_online(struct sl_epoch_worker *w)
{
	struct sl_epoch *e = w->e;
	e->ops->online(e, w);
	__atomic_store_n(&w->last_qs_ns, metric_ns(e), __ATOMIC_RELAXED);
	__atomic_exchange_n(&w->seen, __atomic_load_n(&e->token, __ATOMIC_SEQ_CST),
			    __ATOMIC_SEQ_CST);
	/* The worker's next reads are plain loads: order them after the
	 * publication for the C11 model too (x86's locked exchange already
	 * does), so that a reclaimer either sees it online or it sees the
	 * unlinks that reclaimer's retires followed.  (ThreadSanitizer does
	 * not model fences, and GCC refuses them under it.) */
#ifndef __SANITIZE_THREAD__
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
#endif
}

void sl_epoch_offline(struct sl_epoch_worker *w)
{
	w->e->ops->offline(w->e, w);
	__atomic_store_n(&w->seen, 0, __ATOMIC_RELEASE);
}

/* Record a stall that has just ended (a sequence lock with one writer). */
static void stall_ended(struct sl_epoch_worker *w, uint64_t from, uint64_t len)
{
	uint64_t seq = __atomic_load_n(&w->stall_seq, __ATOMIC_RELAXED);
	/* Release stores keep the odd mark ahead of the data, and the data
	 * ahead of the even mark; the reader's acquire loads mirror them (no
	 * fences, which ThreadSanitizer does not model). */
	__atomic_store_n(&w->stall_seq, seq + 1, __ATOMIC_RELAXED);
	__atomic_store_n(&w->stall_from_ns, from, __ATOMIC_RELEASE);
	__atomic_store_n(&w->stall_ns, len, __ATOMIC_RELEASE);
	__atomic_store_n(&w->stall_seq, seq + 2, __ATOMIC_RELEASE);
}

void sl_epoch_quiesce(struct sl_epoch *e, struct sl_epoch_worker *w)
{
	sl_counter_add(&w->breaths, 1);
	if (__atomic_load_n(&w->seen, __ATOMIC_RELAXED) == 0)
		return;
	e->ops->quiesce(e, w);
	uint64_t now = metric_ns(e);
	uint64_t prev = __atomic_load_n(&w->last_qs_ns, __ATOMIC_RELAXED);
	if (now > prev && now - prev > SL_EPOCH_LAGGARD_NS)
		stall_ended(w, prev, now - prev);
	__atomic_store_n(&w->last_qs_ns, now, __ATOMIC_RELAXED);
	__atomic_store_n(&w->seen, __atomic_load_n(&e->token, __ATOMIC_SEQ_CST),
			 __ATOMIC_RELEASE);
}

int sl_epoch_retire(struct sl_epoch *e, struct sl_epoch_worker *w, void *obj,
		    sl_epoch_free_fn *free_fn, void *arg)
{
	struct entry en = {
		.obj = obj, .free_fn = free_fn, .arg = arg,
		.retire_ns = metric_ns(e),
		.retire_breath = sl_counter_read(&w->breaths),
	};
	int rc = e->ops->retire(e, w, &en);
	if (rc != 0)
		return rc;
	sl_counter_add(&w->retired, 1);
	backlog_note(w);
	return 0;
}

int sl_epoch_retire_n(struct sl_epoch *e, struct sl_epoch_worker *w, void *const *objs,
		      unsigned n, sl_epoch_free_fn *free_fn, void *arg)
{
	if (n == 0)
		return 0;
	if (sl_epoch_retire_room(e, w) < n)
		return -ENOSPC;
	struct entry en = {
		.free_fn = free_fn, .arg = arg,
		.retire_ns = metric_ns(e),
		.retire_breath = sl_counter_read(&w->breaths),
	};
	unsigned done = 0;
	if (e->ops->retire_n != NULL) {
		done = e->ops->retire_n(e, w, &en, objs, n);
	} else {
		for (; done < n; done++) {
			en.obj = objs[done];
			if (e->ops->retire(e, w, &en) != 0)
				break;
		}
	}
	/* The room was checked and w has one retirer: nothing is refused.
	 * Were it, what went in is counted and the caller learns the rest
	 * is still its own only as an error; never free early. */
	sl_counter_add(&w->retired, done);
	backlog_note(w);
	return done == n ? 0 : -ENOSPC;
}

unsigned sl_epoch_retire_room(const struct sl_epoch *e, const struct sl_epoch_worker *w)
{
	uint64_t used = e->ops->used(w);
	return used > w->mask ? 0 : (unsigned)(w->mask + 1 - used);
}

unsigned sl_epoch_reclaim(struct sl_epoch *e, struct sl_epoch_worker *w, unsigned cap)
{
	if (sl_counter_read(&w->retired) == sl_counter_read(&w->freed))
		return 0;
	return e->ops->reclaim(e, w, cap, metric_ns(e));
}

int sl_epoch_synchronize(struct sl_epoch *e)
{
	uint64_t start = metric_ns(e);
	/* Wait for a token that covers every stamp given so far: immediate
	 * stamps run one ahead of the token until someone quiesces, so move
	 * it up to them first. */
	uint64_t t = __atomic_load_n(&e->token, __ATOMIC_SEQ_CST);
	uint64_t want = __atomic_load_n(&e->want, __ATOMIC_SEQ_CST);
	while (want > t &&
	       !__atomic_compare_exchange_n(&e->token, &t, want, false, __ATOMIC_SEQ_CST,
					    __ATOMIC_SEQ_CST))
		;
	if (want > t)
		t = want;

	e->ops->synchronize(e);
	for (unsigned i = 0; i < e->n; i++) {
		for (;;) {
			uint64_t s = __atomic_load_n(&e->w[i].seen, __ATOMIC_ACQUIRE);
			if (s == 0 || s >= t)
				break;
			sched_yield();
		}
	}
	sl_hist_record(&e->sync_hist, metric_ns(e) - start);
	return 0;
}

int sl_epoch_barrier(struct sl_epoch *e, uint64_t timeout_ns)
{
	uint64_t t = __atomic_add_fetch(&e->token, 1, __ATOMIC_SEQ_CST);
	uint64_t deadline = metric_ns(e) + timeout_ns;
	for (unsigned i = 0; i < e->n; i++) {
		for (;;) {
			uint64_t s = __atomic_load_n(&e->w[i].seen, __ATOMIC_ACQUIRE);
			if (s == 0 || s >= t)
				break;
			if (metric_ns(e) > deadline)
				return -ETIMEDOUT;
			sched_yield();
		}
	}
	return 0;
}

uint64_t sl_epoch_drain(struct sl_epoch *e)
{
	uint64_t total = 0, now = metric_ns(e);
	for (unsigned i = 0; i < e->n; i++)
		total += e->ops->drain(e, &e->w[i], now);
	return total;
}

int sl_epoch_stats(const struct sl_epoch *e, int i, struct sl_epoch_stats *out)
{
	if (i >= (int)e->n)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	unsigned lo = i < 0 ? 0 : (unsigned)i, hi = i < 0 ? e->n : (unsigned)i + 1;
	for (unsigned k = lo; k < hi; k++) {
		const struct sl_epoch_worker *w = &e->w[k];
		uint64_t freed = __atomic_load_n(&w->freed, __ATOMIC_ACQUIRE);
		uint64_t retired = __atomic_load_n(&w->retired, __ATOMIC_ACQUIRE);
		out->freed += freed;
		out->retired += retired;
		out->backlog += retired - freed;
		out->backlog_hwm += sl_counter_read(&w->backlog_hwm);
		out->breaths += sl_counter_read(&w->breaths);
	}
	return 0;
}

const struct sl_hist *sl_epoch_hist(const struct sl_epoch *e, unsigned i,
				    enum sl_epoch_hist which)
{
	if (i >= e->n || (unsigned)which > SL_EPOCH_HIST_GRACE_NS)
		return NULL;
	return &e->w[i].hist[which];
}

const struct sl_hist *sl_epoch_sync_hist(const struct sl_epoch *e)
{
	return &e->sync_hist;
}

uint64_t sl_epoch_last_quiesce_ns(const struct sl_epoch *e, unsigned i)
{
	return i < e->n ? sl_epoch_worker_last_ns(&e->w[i]) : 0;
}

uint64_t sl_epoch_worker_last_ns(const struct sl_epoch_worker *w)
{
	return __atomic_load_n(&w->last_qs_ns, __ATOMIC_RELAXED);
}

bool sl_epoch_last_stall(const struct sl_epoch *e, unsigned i, uint64_t *from_ns,
			 uint64_t *len_ns)
{
	if (i >= e->n)
		return false;
	const struct sl_epoch_worker *w = &e->w[i];
	for (;;) {
		uint64_t s0 = __atomic_load_n(&w->stall_seq, __ATOMIC_ACQUIRE);
		if (s0 == 0)
			return false;
		uint64_t from = __atomic_load_n(&w->stall_from_ns, __ATOMIC_ACQUIRE);
		uint64_t len = __atomic_load_n(&w->stall_ns, __ATOMIC_ACQUIRE);
		if ((s0 & 1) == 0 && __atomic_load_n(&w->stall_seq, __ATOMIC_RELAXED) == s0) {
			*from_ns = from;
			*len_ns = len;
			return true;
		}
		sched_yield();
	}
}

bool sl_epoch_is_online(const struct sl_epoch *e, unsigned i)
{
	return i < e->n && __atomic_load_n(&e->w[i].seen, __ATOMIC_ACQUIRE) != 0;
}

int sl_epoch_laggard(const struct sl_epoch *e, uint64_t now_ns, uint64_t threshold_ns)
{
	uint64_t t = __atomic_load_n(&e->token, __ATOMIC_ACQUIRE);
	uint64_t want = __atomic_load_n(&e->want, __ATOMIC_RELAXED);
	uint64_t worst = 0;
	int who = -1;

	if (want > t)
		t = want;   /* a stamp waits for the token to move */

	if (threshold_ns == 0)
		threshold_ns = SL_EPOCH_LAGGARD_NS;
	for (unsigned i = 0; i < e->n; i++) {
		uint64_t s = __atomic_load_n(&e->w[i].seen, __ATOMIC_ACQUIRE);
		uint64_t q = __atomic_load_n(&e->w[i].last_qs_ns, __ATOMIC_RELAXED);
		if (s == 0 || s >= t || now_ns <= q)
			continue;
		uint64_t lag = now_ns - q;
		if (lag > threshold_ns && lag > worst) {
			worst = lag;
			who = (int)i;
		}
	}
	return who;
}
