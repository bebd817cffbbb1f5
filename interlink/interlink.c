/* SPDX-License-Identifier: BSD-3-Clause */
/* Interlink control side: memzone, attach/detach state machine, drain, stats. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_memzone.h>

#include "interlink/interlink.h"
#include "interlink/interlink_worker.h"

#define SL_IL_MZ_PREFIX "sl_il_"

_Static_assert(sizeof(SL_IL_MZ_PREFIX) - 1 + SL_IL_NAME_MAX < RTE_MEMZONE_NAMESIZE,
	       "memzone name fits DPDK's limit");

static uint32_t default_size = SL_IL_SIZE_DEFAULT;

static bool pow2_in(uint32_t v, uint32_t lo, uint32_t hi)
{
	return v >= lo && v <= hi && (v & (v - 1)) == 0;
}

static unsigned log2u(uint32_t v)
{
	return 31u - (unsigned)__builtin_clz(v);
}

int sl_il_set_default_size(uint32_t size)
{
	if (!pow2_in(size, 2, SL_IL_SIZE_MAX))
		return -EINVAL;
	default_size = size;
	return 0;
}

uint32_t sl_il_default_size(void)
{
	return default_size;
}

/* Writes "sl_il_<name>" into mz (RTE_MEMZONE_NAMESIZE bytes).  Returns 0,
 * or -EINVAL / -ENAMETOOLONG with a sentence naming the ring in *err. */
static int mz_name(char *mz, const char *name, struct sl_err *err)
{
	if (name == NULL || name[0] == '\0')
		return sl_errf(err, EINVAL, "interlink: the name is empty");
	if (strlen(name) > SL_IL_NAME_MAX)
		return sl_errf(err, ENAMETOOLONG, "interlink '%s': the name is longer than %u "
			       "characters", name, SL_IL_NAME_MAX);
	snprintf(mz, RTE_MEMZONE_NAMESIZE, SL_IL_MZ_PREFIX "%s", name);
	return 0;
}

static size_t stamp_count(uint32_t size, uint32_t sample_every)
{
	return sample_every >= size ? 1 : size / sample_every;
}

static size_t ring_bytes(uint32_t size, uint32_t sample_every)
{
	return sizeof(struct sl_il) +
	       RTE_ALIGN_CEIL((size_t)size * sizeof(void *), RTE_CACHE_LINE_SIZE) +
	       stamp_count(size, sample_every) * sizeof(struct sl_il_stamp);
}

/* The memzone for ring `name`, or NULL with errno set and a sentence. */
static const struct rte_memzone *reserve(const char *name, const char *mz, size_t len,
					 int socket, struct sl_err *err)
{
	const struct rte_memzone *z = rte_memzone_reserve_aligned(mz, len, socket, 0, SL_IL_BLOCK);
	if (z != NULL)
		return z;
	switch (rte_errno) {
	case EEXIST:
		return sl_errf_null(err, EEXIST, "interlink '%s': the memzone '%s' exists "
				    "already", name, mz);
	case EINVAL:
		return sl_errf_null(err, EINVAL, "interlink '%s': DPDK refused to reserve "
				    "memzone '%s' of %zu bytes on socket %d", name, mz, len,
				    socket);
	default: /* ENOMEM, ENOSPC (no free memzone) */
		return sl_errf_null(err, ENOMEM, "interlink '%s': cannot reserve memzone '%s' "
				    "of %zu bytes on socket %d: %s", name, mz, len, socket,
				    rte_strerror(rte_errno));
	}
}

struct sl_il *sl_il_create(const char *name, const struct sl_il_config *cfg,
			   struct sl_err *err)
{
	char mz[RTE_MEMZONE_NAMESIZE];
	int rc = mz_name(mz, name, err);
	if (rc != 0) {
		errno = -rc;
		return NULL;
	}
	uint32_t size = cfg != NULL && cfg->size != 0 ? cfg->size : default_size;
	uint32_t sample = cfg != NULL && cfg->sample_every != 0 ? cfg->sample_every
								 : SL_IL_SAMPLE_DEFAULT;
	int socket = cfg != NULL ? cfg->socket : SOCKET_ID_ANY;
	if (!pow2_in(size, 2, SL_IL_SIZE_MAX))
		return sl_errf_null(err, EINVAL, "interlink '%s': size must be a power of two "
				    "from 2 to %u, got %u", name, SL_IL_SIZE_MAX, size);
	if (!pow2_in(sample, 1, SL_IL_SAMPLE_MAX))
		return sl_errf_null(err, EINVAL, "interlink '%s': sample_every must be a power "
				    "of two from 1 to %u, got %u", name, SL_IL_SAMPLE_MAX, sample);
	if (rte_lcore_count() == 0) /* EAL not initialised */
		return sl_errf_null(err, ENODEV, "interlink '%s': DPDK's EAL is not "
				    "initialised", name);

	size_t len = ring_bytes(size, sample);
	const struct rte_memzone *z = reserve(name, mz, len, socket, err);
	if (z == NULL)
		return NULL;

	struct sl_il *il = z->addr;
	memset(il, 0, len);
	il->ctrl.struct_size = sizeof(struct sl_il);
	il->ctrl.size = size;
	il->ctrl.sample_every = sample;
	il->ctrl.socket = z->socket_id;
	il->ctrl.tsc_hz = rte_get_tsc_hz();
	snprintf(il->ctrl.name, sizeof(il->ctrl.name), "%s", name);
	il->cons.mask = il->prod.mask = size - 1;
	il->cons.sample_mask = il->prod.sample_mask = sample - 1;
	il->cons.stamp_shift = il->prod.stamp_shift = log2u(sample);
	/* Last, with release: a process that sees the magic sees the rest. */
	__atomic_store_n(&il->ctrl.magic, SL_IL_MAGIC, __ATOMIC_RELEASE);
	return il;
}

struct sl_il *sl_il_lookup(const char *name, struct sl_err *err)
{
	char mz[RTE_MEMZONE_NAMESIZE];
	int rc = mz_name(mz, name, err);
	if (rc != 0) {
		errno = -rc;
		return NULL;
	}
	const struct rte_memzone *z = rte_lcore_count() > 0 ? rte_memzone_lookup(mz) : NULL;
	if (z == NULL)
		return sl_errf_null(err, ENOENT, "interlink '%s': no memzone '%s'%s", name, mz,
				    rte_lcore_count() > 0 ? "" : " (DPDK's EAL is not initialised)");
	struct sl_il *il = z->addr;
	if (z->len < sizeof(struct sl_il) ||
	    __atomic_load_n(&il->ctrl.magic, __ATOMIC_ACQUIRE) != SL_IL_MAGIC ||
	    il->ctrl.struct_size != sizeof(struct sl_il) ||
	    z->len < ring_bytes(il->ctrl.size, il->ctrl.sample_every))
		return sl_errf_null(err, EPROTO, "interlink '%s': memzone '%s' does not hold "
				    "an interlink of this layout", name, mz);
	return il;
}

int sl_il_attach(struct sl_il *il, enum sl_il_end end)
{
	if (end != SL_IL_PRODUCER && end != SL_IL_CONSUMER)
		return -EINVAL;
	uint32_t st = SL_IL_DETACHED;
	/* Acquire: pairs with the release in sl_il_detach(), so this thread
	 * sees the private line as the last owner left it. */
	if (!__atomic_compare_exchange_n(&il->ctrl.state[end], &st, SL_IL_ATTACHED, false,
					 __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
		return st == SL_IL_DETACHING ? -EAGAIN : -EBUSY;
	__atomic_store_n(&il->ctrl.pid[end], (int32_t)getpid(), __ATOMIC_RELAXED);

	/* Continue from the published index (equal to the last owner's cursor,
	 * since detach publishes). */
	if (end == SL_IL_PRODUCER) {
		struct sl_il_prod *p = &il->prod;
		p->write = __atomic_load_n(&il->shared.write, __ATOMIC_RELAXED);
		p->write_pub = p->write;
		p->read_cache = __atomic_load_n(&il->shared.read, __ATOMIC_ACQUIRE);
	} else {
		struct sl_il_cons *c = &il->cons;
		c->read = __atomic_load_n(&il->shared.read, __ATOMIC_RELAXED);
		c->read_pub = c->read;
		c->write_cache = __atomic_load_n(&il->shared.write, __ATOMIC_ACQUIRE);
	}
	return 0;
}

int sl_il_detach(struct sl_il *il, enum sl_il_end end)
{
	if (end != SL_IL_PRODUCER && end != SL_IL_CONSUMER)
		return -EINVAL;
	uint32_t st = SL_IL_ATTACHED;
	if (!__atomic_compare_exchange_n(&il->ctrl.state[end], &st, SL_IL_DETACHING, false,
					 __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
		return -EINVAL;
	if (end == SL_IL_PRODUCER)
		sl_il_publish_producer(il);
	else
		sl_il_publish_consumer(il);
	__atomic_store_n(&il->ctrl.pid[end], 0, __ATOMIC_RELAXED);
	/* Release: the next owner's attach sees this end's private line. */
	__atomic_store_n(&il->ctrl.state[end], SL_IL_DETACHED, __ATOMIC_RELEASE);
	return 0;
}

enum sl_il_state sl_il_state(const struct sl_il *il, enum sl_il_end end)
{
	if (end != SL_IL_PRODUCER && end != SL_IL_CONSUMER)
		return SL_IL_DETACHED;
	return (enum sl_il_state)__atomic_load_n(&il->ctrl.state[end], __ATOMIC_ACQUIRE);
}

const char *sl_il_name(const struct sl_il *il)
{
	return il->ctrl.name;
}

uint32_t sl_il_size(const struct sl_il *il)
{
	return il->ctrl.size;
}

int sl_il_socket(const struct sl_il *il)
{
	return il->ctrl.socket;
}

unsigned sl_il_drain(struct sl_il *il, void (*free_fn)(void *obj, void *arg), void *arg)
{
	uint32_t mask = il->ctrl.size - 1;
	uint32_t r = il->cons.read;
	uint32_t w = il->prod.write;

	for (uint32_t i = r; i != w; i++)
		if (free_fn != NULL)
			free_fn(il->slot[i & mask], arg);

	il->cons.read = il->cons.read_pub = il->cons.write_cache = w;
	il->prod.write_pub = il->prod.read_cache = w;
	__atomic_store_n(&il->shared.write, w, __ATOMIC_RELEASE);
	__atomic_store_n(&il->shared.read, w, __ATOMIC_RELEASE);
	sl_counter_add(&il->ctrl.drained, w - r);
	return w - r;
}

/* Take both ends DETACHED -> DETACHING so that nobody attaches while the
 * ring is freed; undo on failure. */
static int claim_ends(struct sl_il *il)
{
	for (int e = 0; e < 2; e++) {
		uint32_t st = SL_IL_DETACHED;
		if (!__atomic_compare_exchange_n(&il->ctrl.state[e], &st, SL_IL_DETACHING, false,
						 __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
			if (e == 1)
				__atomic_store_n(&il->ctrl.state[0], SL_IL_DETACHED,
						 __ATOMIC_RELEASE);
			return -EBUSY;
		}
	}
	return 0;
}

static void release_ends(struct sl_il *il)
{
	for (int e = 0; e < 2; e++)
		__atomic_store_n(&il->ctrl.state[e], SL_IL_DETACHED, __ATOMIC_RELEASE);
}

int sl_il_free(struct sl_il *il)
{
	char mz[RTE_MEMZONE_NAMESIZE];
	int rc = claim_ends(il);
	if (rc != 0)
		return rc;
	if (il->prod.write != il->cons.read) {
		rc = -ENOTEMPTY;
		goto out_release_ends;
	}
	const struct rte_memzone *z = NULL;
	if (mz_name(mz, il->ctrl.name, NULL) == 0)
		z = rte_memzone_lookup(mz);
	if (z == NULL || z->addr != il) {
		rc = -EINVAL;
		goto out_release_ends;
	}
	__atomic_store_n(&il->ctrl.magic, 0, __ATOMIC_RELEASE);
	rc = rte_memzone_free(z);
	if (rc != 0) {
		__atomic_store_n(&il->ctrl.magic, SL_IL_MAGIC, __ATOMIC_RELEASE);
		goto out_release_ends;
	}
	return 0;

out_release_ends:
	release_ends(il);
	return rc;
}

void sl_il_stats_read(const struct sl_il *il, struct sl_il_stats *s)
{
	memset(s, 0, sizeof(*s));
	s->size = il->ctrl.size;
	s->sample_every = il->ctrl.sample_every;
	s->tsc_hz = il->ctrl.tsc_hz;
	s->packets = __atomic_load_n(&il->prod.packets, __ATOMIC_RELAXED);
	s->bytes = __atomic_load_n(&il->prod.bytes, __ATOMIC_RELAXED);
	s->refused = __atomic_load_n(&il->prod.refused, __ATOMIC_RELAXED);
	s->dequeued = __atomic_load_n(&il->cons.dequeued, __ATOMIC_RELAXED);
	s->drained = __atomic_load_n(&il->ctrl.drained, __ATOMIC_RELAXED);
	s->write_idx_moved = __atomic_load_n(&il->cons.idx_moved, __ATOMIC_RELAXED);
	s->read_idx_moved = __atomic_load_n(&il->prod.idx_moved, __ATOMIC_RELAXED);
	s->slot_lines = __atomic_load_n(&il->prod.slot_lines, __ATOMIC_RELAXED);
	uint32_t ph = __atomic_load_n(&il->prod.hwm, __ATOMIC_RELAXED);
	uint32_t ch = __atomic_load_n(&il->cons.hwm, __ATOMIC_RELAXED);
	s->occupancy_hwm = ph > ch ? ph : ch;
	/* read before write: the write index never falls behind the read. */
	uint32_t r = __atomic_load_n(&il->shared.read, __ATOMIC_ACQUIRE);
	uint32_t w = __atomic_load_n(&il->shared.write, __ATOMIC_ACQUIRE);
	s->occupancy = w - r <= il->ctrl.size ? w - r : il->ctrl.size;
	struct sl_hist_sums soj = { 0 };
	sl_hist_sums_merge(&soj, s->sojourn_hist, &il->hist.sums, il->hist.bucket,
			   SL_IL_HIST_SHAPE);
	s->sojourn_samples = soj.count;
	s->sojourn_sum = soj.sum;
	s->sojourn_max = soj.max;
	for (int e = 0; e < 2; e++) {
		s->state[e] = (enum sl_il_state)__atomic_load_n(&il->ctrl.state[e],
								 __ATOMIC_RELAXED);
		s->pid[e] = __atomic_load_n(&il->ctrl.pid[e], __ATOMIC_RELAXED);
	}
}

double sl_il_lines_per_packet(const struct sl_il_stats *before, const struct sl_il_stats *after)
{
	static const struct sl_il_stats zero;
	const struct sl_il_stats *a = before != NULL ? before : &zero;
	uint64_t pkts = after->dequeued - a->dequeued;
	uint64_t lines = sl_il_stats_lines(after) - sl_il_stats_lines(a);
	return pkts > 0 ? (double)lines / (double)pkts : 0;
}

uint64_t sl_il_hist_bucket_low(unsigned b)
{
	return sl_hist_lower_sub(b, SL_IL_HIST_SUB_BITS);
}

uint64_t sl_il_sojourn_quantile_ns(const struct sl_il_stats *s, double q)
{
	uint64_t total = sl_hist_shape_total(SL_IL_HIST_SHAPE, s->sojourn_hist);
	if (total == 0 || s->tsc_hz == 0 || !(q > 0))
		return 0;
	unsigned b = sl_hist_shape_quantile(SL_IL_HIST_SHAPE, s->sojourn_hist, total, q);
	if (b >= SL_IL_HIST_BUCKETS)   /* not with the total of these buckets */
		b = SL_IL_HIST_BUCKETS - 1;
	uint64_t lo = sl_il_hist_bucket_low(b);
	uint64_t hi = b + 1 < SL_IL_HIST_BUCKETS ? sl_il_hist_bucket_low(b + 1) : 2 * lo;
	double mid = (double)lo + (double)(hi - lo) / 2;
	return (uint64_t)(mid * 1e9 / (double)s->tsc_hz);
}
