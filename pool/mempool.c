/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The DPDK mempool ops driver "sluice" and the pktmbuf pool constructor
 * (contract in pool.h).  DPDK calls the ops without per-thread state, so the
 * tier is chosen from rte_lcore_id() through a table built when the pool is
 * allocated: lcore -> worker handle, NULL for everything else.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_mbuf_pool_ops.h>
#include <rte_memzone.h>
#include <rte_mempool.h>

#include "base/rand.h"
#include "pool/pool.h"

_Static_assert(SL_POOL_CACHE_LINE == RTE_CACHE_LINE_SIZE,
	       "the pool's cache-line size matches DPDK's");

struct mbuf_pool {
	struct sl_pool *pool;
	struct sl_pool_worker *by_lcore[RTE_MAX_LCORE];   /* NULL: not a worker */
};

/* The lcores of opts->workers: distinct EAL lcore ids below RTE_MAX_LCORE.
 * Returns 0 or -EINVAL with a sentence naming the pool in *err (may be NULL). */
static int check_workers(const char *name, const struct sl_pool_opts *o, struct sl_err *err)
{
	if (o == NULL || o->n_workers == 0)
		return 0;
	if (o->workers == NULL)
		return sl_errf(err, EINVAL, "pool '%s': %u workers but no table of their lcores",
			       name, o->n_workers);
	if (o->n_workers > RTE_MAX_LCORE)
		return sl_errf(err, EINVAL, "pool '%s': %u workers, more than RTE_MAX_LCORE (%u)",
			       name, o->n_workers, (unsigned)RTE_MAX_LCORE);
	for (unsigned w = 0; w < o->n_workers; w++) {
		if (o->workers[w].lcore >= RTE_MAX_LCORE)
			return sl_errf(err, EINVAL, "pool '%s': worker %u's lcore %u is not below "
				       "RTE_MAX_LCORE (%u)", name, w, o->workers[w].lcore,
				       (unsigned)RTE_MAX_LCORE);
		for (unsigned v = 0; v < w; v++)
			if (o->workers[v].lcore == o->workers[w].lcore)
				return sl_errf(err, EINVAL, "pool '%s': workers %u and %u have the "
					       "same lcore (%u)", name, v, w, o->workers[w].lcore);
	}
	return 0;
}

/*
 * The workers' front caches: when the creator asked for a DPDK cache
 * (sl_pool_mbuf_create does when there are workers), a worker lcore's cache
 * holds up to the pool's high mark (at most what DPDK's cache array takes,
 * 2 x RTE_MEMPOOL_CACHE_MAX_SIZE, and at most the pool) and is refilled to
 * the chunk (at most RTE_MEMPOOL_CACHE_MAX_SIZE); the freelist behind it
 * keeps the rest of the high mark, at least chunk - 1 (what a refill or
 * flush leaves over once whole chunks have moved).
 * Every other lcore's cache is switched off (size and threshold 0: its gets
 * and puts go straight to the ops, as without a cache).  DPDK's cache code
 * reads both fields on every call, so they may differ per lcore.
 */
static void set_fronts(struct rte_mempool *mp, struct mbuf_pool *d)
{
	unsigned high = sl_pool_high(d->pool);
	unsigned size = mp->cache_size;
	unsigned thresh = RTE_MIN(high, 2u * RTE_MEMPOOL_CACHE_MAX_SIZE);
	thresh = RTE_MIN(thresh, mp->size);
	for (unsigned l = 0; l < RTE_MAX_LCORE; l++) {
		struct rte_mempool_cache *c = &mp->local_cache[l];
		c->len = 0;
		c->size = d->by_lcore[l] != NULL ? size : 0;
		c->flushthresh = d->by_lcore[l] != NULL ? thresh : 0;
		if (d->by_lcore[l] != NULL)
			sl_pool_worker_set_front(d->by_lcore[l], &c->len,
						 high > thresh ? high - thresh : 0);
	}
}

/* Options for a pool whose creator gave none (a DPDK program that chose
 * the ops by name, such as `dpdk-testpmd -d PLUGIN --mbuf-pool-ops-name
 * sluice`): a worker freelist for every enabled EAL lcore, all in one
 * domain, and a chunk that lets each of them hold two: a power of two from
 * SL_POOL_CHUNK_MIN to the default.  *table receives the workers' table
 * (free it with free()); NULL and 0 workers when it cannot be had. */
static struct sl_pool_opts lcore_opts(unsigned capacity, struct sl_pool_worker_cfg **table)
{
	struct sl_pool_opts o = { 0 };
	unsigned n = 0, l;
	*table = calloc(RTE_MAX_LCORE, sizeof(**table));
	if (*table == NULL)
		return o;
	RTE_LCORE_FOREACH(l)
		(*table)[n++] = (struct sl_pool_worker_cfg){ .lcore = l, .l3 = 0 };
	unsigned chunk = SL_POOL_CHUNK_DEFAULT;
	while (chunk > SL_POOL_CHUNK_MIN && (uint64_t)chunk * 2 * n > capacity)
		chunk /= 2;
	o.chunk = chunk;
	o.n_workers = n;
	o.workers = *table;
	return o;
}

/* mp->pool_config is the caller's struct sl_pool_opts, or NULL: then, when
 * the creator asked for a per-lcore cache, every EAL lcore gets a worker
 * freelist behind it (lcore_opts); a creator that asked for no cache
 * expects a freed object to be available to every lcore at once (DPDK's
 * mbuf_autotest frees on one lcore what another allocates next), and gets
 * the shared tier only. */
static int ops_alloc(struct rte_mempool *mp)
{
	const struct sl_pool_opts *o = mp->pool_config;
	int rc = check_workers(mp->name, o, NULL);
	if (rc < 0)
		return rc;
	struct sl_pool_worker_cfg *table = NULL;
	struct sl_pool_opts opts = { 0 };
	if (o != NULL)
		opts = *o;
	else if (mp->cache_size > 0)
		opts = lcore_opts(mp->size, &table);
	if (opts.tsc_hz == 0)
		opts.tsc_hz = rte_get_tsc_hz();
	struct mbuf_pool *d = rte_zmalloc_socket("sl_pool", sizeof(*d), RTE_CACHE_LINE_SIZE,
						 mp->socket_id);
	if (d == NULL) {
		free(table);
		return -ENOMEM;
	}
	d->pool = sl_pool_create(mp->name, mp->size, &opts, NULL);
	if (d->pool == NULL) {
		rc = errno > 0 ? -errno : -ENOMEM;
		free(table);
		rte_free(d);
		return rc;
	}
	for (unsigned w = 0; w < opts.n_workers; w++)
		d->by_lcore[opts.workers[w].lcore] = sl_pool_worker(d->pool, w);
	/* The engine's pools: DPDK's cache is the workers' front.  A pool
	 * made without options keeps the cache its creator asked for. */
	if (o != NULL && mp->cache_size > 0 && opts.n_workers > 0)
		set_fronts(mp, d);
	free(table);
	mp->pool_data = d;
	return 0;
}

static void ops_free(struct rte_mempool *mp)
{
	struct mbuf_pool *d = mp->pool_data;
	if (d == NULL)
		return;
	sl_pool_free(d->pool);
	rte_free(d);
	mp->pool_data = NULL;
}

static inline struct sl_pool_worker *caller(const struct mbuf_pool *d)
{
	unsigned lcore = rte_lcore_id();
	return lcore < RTE_MAX_LCORE ? d->by_lcore[lcore] : NULL;
}

static int ops_enqueue(struct rte_mempool *mp, void *const *objs, unsigned n)
{
	struct mbuf_pool *d = mp->pool_data;
	return sl_pool_put(d->pool, caller(d), objs, n);
}

static int ops_dequeue(struct rte_mempool *mp, void **objs, unsigned n)
{
	struct mbuf_pool *d = mp->pool_data;
	return sl_pool_get(d->pool, caller(d), objs, n);
}

/* DPDK adds what its per-lcore caches hold: leave out the workers' fronts. */
static unsigned ops_get_count(const struct rte_mempool *mp)
{
	const struct mbuf_pool *d = mp->pool_data;
	struct sl_pool_counts c;
	sl_pool_count(d->pool, &c);
	uint64_t own = c.total - c.cached;
	return own > mp->size ? mp->size : (unsigned)own;
}

static const struct rte_mempool_ops sl_pool_ops = {
	.name = SL_POOL_OPS_NAME,
	.alloc = ops_alloc,
	.free = ops_free,
	.enqueue = ops_enqueue,
	.dequeue = ops_dequeue,
	.get_count = ops_get_count,
};

int sl_pool_ops_register(void)
{
	for (unsigned i = 0; i < rte_mempool_ops_table.num_ops; i++)
		if (strcmp(rte_mempool_ops_table.ops[i].name, SL_POOL_OPS_NAME) == 0)
			return 0;
	return rte_mempool_register_ops(&sl_pool_ops) < 0 ? -ENOSPC : 0;
}

#ifdef SL_POOL_PLUGIN
/* Loaded with -d by a DPDK program: registered as the EAL loads it. */
RTE_MEMPOOL_REGISTER_OPS(sl_pool_ops);
#endif

struct sl_pool *sl_pool_of(const struct rte_mempool *mp)
{
	if (mp == NULL || mp->pool_data == NULL ||
	    strcmp(rte_mempool_get_ops(mp->ops_index)->name, SL_POOL_OPS_NAME) != 0)
		return NULL;
	return ((const struct mbuf_pool *)mp->pool_data)->pool;
}

unsigned sl_mempool_flags(void)
{
	return !rte_eal_has_hugepages() && rte_eal_iova_mode() == RTE_IOVA_VA ?
		RTE_MEMPOOL_F_NO_IOVA_CONTIG : 0;
}

/* rte_mempool_free's callback for a packed population's memzone. */
static void packed_free(struct rte_mempool_memhdr *memhdr, void *opaque)
{
	(void)memhdr;
	rte_memzone_free(opaque);
}

/* Populate mp: packed in one memzone where its flags allow it (pool.h,
 * sl_mempool_flags), DPDK's placement otherwise.  The objects added, or a
 * negative errno. */
static int populate(struct rte_mempool *mp)
{
	if ((mp->flags & RTE_MEMPOOL_F_NO_IOVA_CONTIG) == 0 || sl_mempool_flags() == 0)
		return rte_mempool_populate_default(mp);
	/* DPDK's own name for a mempool's first memzone (what
	 * rte_mempool_populate_default would reserve): it fits whatever
	 * name the mempool has. */
	char mz_name[RTE_MEMZONE_NAMESIZE];
	snprintf(mz_name, sizeof(mz_name), RTE_MEMPOOL_MZ_FORMAT "_0", mp->name);
	size_t len = (size_t)mp->size * (mp->header_size + mp->elt_size + mp->trailer_size);
	const struct rte_memzone *mz = rte_memzone_reserve_aligned(mz_name, len, mp->socket_id, 0,
								   RTE_CACHE_LINE_SIZE);
	if (mz == NULL && mp->socket_id != SOCKET_ID_ANY)
		mz = rte_memzone_reserve_aligned(mz_name, len, SOCKET_ID_ANY, 0,
						 RTE_CACHE_LINE_SIZE);
	if (mz == NULL)
		return rte_errno == ENOSPC || rte_errno == 0 ? -ENOMEM : -rte_errno;
	/* IOVA as VA: the zone's IOVA is its address, and so contiguous across
	 * its pages; each object's IOVA is the zone's plus its offset. */
	int rc = rte_mempool_populate_iova(mp, mz->addr, mz->iova, mz->len, packed_free,
					   (void *)(uintptr_t)mz);
	if (rc < 0)
		rte_memzone_free(mz);
	else if (mp->populated_size < mp->size)
		return -ENOMEM;   /* freed with the mempool (packed_free) */
	return rc;
}

/* An empty pktmbuf mempool of n mbufs (data_room bytes each, no private
 * area, a per-lcore cache of `cache`), with the flags of sl_mempool_flags:
 * the first step of both constructors.  NULL with rte_errno set. */
static struct rte_mempool *mbuf_mempool_empty(const char *name, unsigned n, uint16_t data_room,
					      unsigned cache, int socket)
{
	struct rte_mempool *mp = rte_mempool_create_empty(name, n,
		sizeof(struct rte_mbuf) + data_room, cache,
		sizeof(struct rte_pktmbuf_pool_private), socket, sl_mempool_flags());
	if (mp != NULL) {
		struct rte_pktmbuf_pool_private priv = { .mbuf_data_room_size = data_room };
		rte_pktmbuf_pool_init(mp, &priv);
	}
	return mp;
}

/* The last step of both constructors, once mp has its ops: populate it and
 * make every object an mbuf.  0 or a negative errno.  DPDK reserves memzones
 * for the objects, halving the size it asks for while memory is short, and
 * fails with ENOBUFS when a zone it did get holds no whole object: memory ran
 * out (whether a run out of memory ends in ENOMEM or in ENOBUFS depends on
 * how the last free areas are laid out), so that is said as ENOMEM. */
static int mbuf_mempool_fill(struct rte_mempool *mp)
{
	int rc = populate(mp);
	if (rc < 0)
		return rc == -ENOBUFS ? -ENOMEM : rc;
	rte_mempool_obj_iter(mp, rte_pktmbuf_init, NULL);
	return 0;
}

struct rte_mempool *sl_mempool_pktmbuf_create(const char *name, unsigned n, unsigned cache,
					      uint16_t data_room, int socket)
{
	struct rte_mempool *mp = mbuf_mempool_empty(name, n, data_room, cache, socket);
	if (mp == NULL)
		return NULL;
	int rc = rte_mempool_set_ops_byname(mp, rte_mbuf_best_mempool_ops(), NULL);
	if (rc == 0)
		rc = mbuf_mempool_fill(mp);
	if (rc < 0) {
		rte_mempool_free(mp);
		rte_errno = -rc;
		return NULL;
	}
	return mp;
}

/* Take every object of a freshly populated pool back on this (the control)
 * thread, put them in a random order (Fisher-Yates over a fixed-seed
 * sl_rand64: the same order every run), and give them back: the order they
 * leave the pool in (pool.h, "The order the mbufs first leave the pool
 * in").  0 or a negative errno: -ENOMEM without the array (nothing taken),
 * or the get's error (all or nothing: nothing taken either); the put of
 * what the get took cannot go above the pool's capacity. */
static int shuffle(struct rte_mempool *mp)
{
	struct mbuf_pool *d = mp->pool_data;
	unsigned n = mp->size;
	void **objs = malloc((size_t)n * sizeof(*objs));
	if (objs == NULL)
		return -ENOMEM;
	int rc = sl_pool_get(d->pool, NULL, objs, n);
	if (rc == 0) {
		uint64_t seed = 0;
		for (unsigned i = n - 1; i > 0; i--) {
			unsigned j = (unsigned)sl_rand_below(&seed, i + 1);
			void *t = objs[i];
			objs[i] = objs[j];
			objs[j] = t;
		}
		rc = sl_pool_put(d->pool, NULL, objs, n);
	}
	free(objs);
	return rc;
}

struct rte_mempool *sl_pool_mbuf_create(const char *name, unsigned n,
					unsigned data_room, int socket,
					const struct sl_pool_opts *opts, struct sl_err *err)
{
	/* The ops' alloc creates the pool with these options and can only
	 * return an errno to DPDK: check them here, where a sentence can say
	 * what is wrong. */
	int rc = sl_pool_check(name, n, opts, err);
	if (rc == 0 && sl_pool_ops_register() < 0)
		rc = sl_errf(err, ENOSYS, "pool '%s': the mempool ops '%s' cannot be registered "
			     "(DPDK's table of mempool ops is full)", name, SL_POOL_OPS_NAME);
	if (rc == 0 && data_room > UINT16_MAX)
		rc = sl_errf(err, EINVAL, "pool '%s': data_room must be at most %u, got %u", name,
			     (unsigned)UINT16_MAX, data_room);
	if (rc == 0)
		rc = check_workers(name, opts, err);
	if (rc < 0) {
		errno = -rc;
		return NULL;
	}

	/* With workers, DPDK's per-lcore cache is their front (set_fronts):
	 * sized to the chunk, within what DPDK accepts for n objects. */
	unsigned cache = 0;
	if (opts != NULL && opts->n_workers > 0) {
		cache = opts->chunk ? opts->chunk : SL_POOL_CHUNK_DEFAULT;
		cache = RTE_MIN(cache, RTE_MEMPOOL_CACHE_MAX_SIZE);
		cache = RTE_MIN(cache, n * 2 / 3);
	}
	struct rte_mempool *mp = mbuf_mempool_empty(name, n, (uint16_t)data_room, cache, socket);
	if (mp == NULL) {
		int e = rte_errno ? rte_errno : ENOMEM;
		return sl_errf_null(err, e, "pool '%s': cannot create a mempool of %u mbufs of "
				    "%u bytes on socket %d: %s", name, n, data_room, socket,
				    rte_strerror(e));
	}
	/* The ops read the options only while populating (their alloc). */
	if (rte_mempool_set_ops_byname(mp, SL_POOL_OPS_NAME, (void *)(uintptr_t)opts) != 0) {
		rc = sl_errf(err, ENOSYS, "pool '%s': the mempool ops '%s' are not registered "
			     "(DPDK's table of mempool ops was full)", name, SL_POOL_OPS_NAME);
		goto out_free_mempool;
	}
	rc = mbuf_mempool_fill(mp);
	mp->pool_config = NULL;
	if (rc == 0 && opts != NULL && opts->shuffle)
		rc = shuffle(mp);
	if (rc < 0) {
		rc = sl_errf(err, -rc, "pool '%s': cannot populate %u mbufs of %u bytes on "
			     "socket %d: %s", name, n, data_room, socket, rte_strerror(-rc));
		goto out_free_mempool;
	}
	return mp;

out_free_mempool:
	mp->pool_config = NULL;
	rte_mempool_free(mp);
	errno = -rc;
	return NULL;
}
