/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The bridge's MAC table (mactable.h): buckets of ways read without locks,
 * a spinlock per bucket for writers, an id stack for entries, the epoch for
 * what writers unlink.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>

#include "base/counter.h"
#include "base/spin.h"
#include "apps/bridge/mactable.h"

struct sl_mt {
	struct sl_mt_head head;        /* first: sl_mt_lookup reads it */
	uint8_t *linked;               /* by id: 1 while in a way */
	unsigned capacity;
	unsigned member_limit;
	uint64_t aging_ns, refresh_ns, sweep_ns;
	char name[64];

	/* The id stack (free ids), under its lock. */
	uint32_t ids_lock;
	uint32_t *ids;
	unsigned n_ids;

	/* Shared counts (atomics). */
	uint64_t entries, statics, freed;
	uint64_t member_entries[SL_MT_MEMBERS];
};

static uint32_t id_get(struct sl_mt *t)
{
	uint32_t id = 0;
	sl_spin_lock(&t->ids_lock);
	if (t->n_ids > 0)
		id = t->ids[--t->n_ids];
	sl_spin_unlock(&t->ids_lock);
	return id;
}

static void id_put(struct sl_mt *t, uint32_t id)
{
	sl_spin_lock(&t->ids_lock);
	t->ids[t->n_ids++] = id;
	sl_spin_unlock(&t->ids_lock);
}

struct sl_mt *sl_mt_create(const struct sl_mt_conf *conf, struct sl_err *err)
{
	if (conf->capacity == 0 || conf->capacity > SL_MT_CAPACITY_MAX || conf->aging_ns == 0) {
		sl_errf(err, EINVAL, "MAC table '%s': capacity must be 1..%u and aging above 0",
			conf->name, SL_MT_CAPACITY_MAX);
		errno = EINVAL;
		return NULL;
	}
	struct sl_mt *t = calloc(1, sizeof(*t));
	if (t == NULL)
		goto nomem;
	unsigned buckets = 1;
	while (buckets < conf->capacity / 4 + 1)
		buckets <<= 1;
	t->head.mask = buckets - 1;
	t->head.buckets = aligned_alloc(64, (size_t)buckets * sizeof(struct sl_mt_bucket));
	t->head.entries = aligned_alloc(64, RTE_ALIGN_CEIL(((size_t)conf->capacity + 1) *
							   sizeof(struct sl_mt_entry), 64));
	t->linked = calloc((size_t)conf->capacity + 1, 1);
	t->ids = malloc((size_t)conf->capacity * sizeof(*t->ids));
	if (t->head.buckets == NULL || t->head.entries == NULL || t->linked == NULL ||
	    t->ids == NULL) {
		sl_mt_free(t);
		goto nomem;
	}
	memset(t->head.buckets, 0, (size_t)buckets * sizeof(struct sl_mt_bucket));
	memset(t->head.entries, 0, ((size_t)conf->capacity + 1) * sizeof(struct sl_mt_entry));
	t->capacity = conf->capacity;
	t->member_limit = conf->member_limit;
	t->aging_ns = conf->aging_ns;
	t->refresh_ns = RTE_MIN(conf->aging_ns / 64, (uint64_t)1000000000);
	t->head.refresh_ns = t->refresh_ns;
	t->sweep_ns = RTE_MAX(conf->aging_ns / 8, (uint64_t)1000000);
	snprintf(t->name, sizeof(t->name), "%s", conf->name);
	/* Ids handed out from 1 up (the stack's top is its end). */
	for (unsigned i = 0; i < conf->capacity; i++)
		t->ids[i] = conf->capacity - i;
	t->n_ids = conf->capacity;
	return t;
nomem:
	sl_errf(err, ENOMEM, "MAC table '%s': no memory for %u entries", conf->name,
		conf->capacity);
	errno = ENOMEM;
	return NULL;
}

void sl_mt_free(struct sl_mt *t)
{
	if (t == NULL)
		return;
	free(t->head.buckets);
	free(t->head.entries);
	free(t->linked);
	free(t->ids);
	free(t);
}

uint64_t sl_mt_refresh_ns(const struct sl_mt *t)
{
	return t->refresh_ns;
}

uint64_t sl_mt_sweep_ns(const struct sl_mt *t)
{
	return t->sweep_ns;
}

uint64_t sl_mt_bound_ns(const struct sl_mt *t)
{
	return t->aging_ns + t->refresh_ns + t->sweep_ns;
}

unsigned sl_mt_buckets(const struct sl_mt *t)
{
	return t->head.mask + 1;
}

unsigned sl_mt_capacity(const struct sl_mt *t)
{
	return t->capacity;
}

/* Way of key in bucket b (its lock held, or the control thread), or -1. */
static int way_of(const struct sl_mt *t, const struct sl_mt_bucket *b, uint64_t key)
{
	for (unsigned w = 0; w < SL_MT_WAYS; w++)
		if (b->id[w] != 0 && t->head.entries[b->id[w]].key == key)
			return (int)w;
	return -1;
}

static int free_way(const struct sl_mt_bucket *b)
{
	for (unsigned w = 0; w < SL_MT_WAYS; w++)
		if (b->id[w] == 0)
			return (int)w;
	return -1;
}

/* Fill entry id and publish it in way w of b (lock held). */
static void link_entry(struct sl_mt *t, struct sl_mt_bucket *b, unsigned w, uint32_t id,
		       uint64_t key, uint16_t sig, unsigned member, bool is_static, uint64_t now)
{
	struct sl_mt_entry *en = &t->head.entries[id];
	/* relaxed stores: a listing (sl_mt_entry_read) may read the entry on
	 * another thread at any time; the release below publishes them */
	__atomic_store_n(&en->key, key, __ATOMIC_RELAXED);
	__atomic_store_n(&en->member, (uint16_t)member, __ATOMIC_RELAXED);
	__atomic_store_n(&en->is_static, (uint8_t)is_static, __ATOMIC_RELAXED);
	__atomic_store_n(&en->learned_ns, now, __ATOMIC_RELAXED);
	__atomic_store_n(&en->last_ns, now, __ATOMIC_RELAXED);
	__atomic_store_n(&t->linked[id], 1, __ATOMIC_RELAXED);
	if (b->sig[w] != sig) {
		/* the way is empty (id 0): its signature may change first */
		__atomic_store_n(&b->sig[w], sig, __ATOMIC_RELAXED);
	}
	__atomic_store_n(&b->id[w], id, __ATOMIC_RELEASE);
	__atomic_fetch_add(&t->entries, 1, __ATOMIC_RELAXED);
	if (!is_static && member < SL_MT_MEMBERS)
		__atomic_fetch_add(&t->member_entries[member], 1, __ATOMIC_RELAXED);
}

/* What an unlinked entry leaves behind (lock held): the counts. */
static void unlinked(struct sl_mt *t, uint32_t id)
{
	const struct sl_mt_entry *en = &t->head.entries[id];
	__atomic_store_n(&t->linked[id], 0, __ATOMIC_RELAXED);
	__atomic_fetch_sub(&t->entries, 1, __ATOMIC_RELAXED);
	if (!en->is_static && en->member < SL_MT_MEMBERS)
		__atomic_fetch_sub(&t->member_entries[en->member], 1, __ATOMIC_RELAXED);
}

/* The epoch's free function: the id goes back on the stack. */
static void entry_free(void *obj, void *arg)
{
	struct sl_mt *t = arg;
	uint32_t id = (uint32_t)((struct sl_mt_entry *)obj - t->head.entries);
	__atomic_fetch_add(&t->freed, 1, __ATOMIC_RELAXED);
	id_put(t, id);
}

static bool over_limit(const struct sl_mt *t, unsigned member)
{
	return t->member_limit != 0 && member < SL_MT_MEMBERS &&
	       __atomic_load_n(&t->member_entries[member], __ATOMIC_RELAXED) >= t->member_limit;
}

enum sl_mt_learn sl_mt_learn_slow(struct sl_mt *t, struct sl_epoch *e, struct sl_epoch_worker *ew,
				  uint64_t key, uint32_t hash, unsigned member, uint64_t now)
{
	const struct sl_mt_entry *seen = sl_mt_lookup(t, key, hash);
	if (seen != NULL) {
		if (seen->member == member) {
			uint64_t last = __atomic_load_n(&seen->last_ns, __ATOMIC_RELAXED);
			if (now > last && now - last >= t->refresh_ns)
				__atomic_store_n((uint64_t *)(uintptr_t)&seen->last_ns, now,
						 __ATOMIC_RELAXED);
			return SL_MT_KNOWN;
		}
		if (seen->is_static)
			return SL_MT_STATIC;
	}
	if (over_limit(t, member))
		return SL_MT_LIMITED;
	struct sl_mt_bucket *b = &t->head.buckets[hash & t->head.mask];
	uint16_t sig = (uint16_t)(hash >> 16);
	enum sl_mt_learn rc;
	uint32_t old = 0;
	sl_spin_lock(&b->lock);
	int w = way_of(t, b, key);
	if (w >= 0) {
		const struct sl_mt_entry *cur = &t->head.entries[b->id[w]];
		if (cur->member == member) {          /* another worker was first */
			sl_spin_unlock(&b->lock);
			return SL_MT_KNOWN;
		}
		if (cur->is_static) {
			sl_spin_unlock(&b->lock);
			return SL_MT_STATIC;
		}
		if (sl_epoch_retire_room(e, ew) == 0) {
			sl_spin_unlock(&b->lock);
			return SL_MT_NO_ROOM;
		}
		old = b->id[w];
		rc = SL_MT_MOVED;
	} else {
		w = free_way(b);
		rc = SL_MT_LEARNED;
	}
	uint32_t id = w >= 0 ? id_get(t) : 0;
	if (id == 0) {
		sl_spin_unlock(&b->lock);
		return SL_MT_FULL;
	}
	if (old != 0)
		unlinked(t, old);
	link_entry(t, b, (unsigned)w, id, key, sig, member, false, now);
	sl_spin_unlock(&b->lock);
	if (old != 0 && sl_epoch_retire(e, ew, &t->head.entries[old], entry_free, t) != 0)
		entry_free(&t->head.entries[old], t);   /* not reached: room was checked */
	return rc;
}

int sl_mt_static_add(struct sl_mt *t, uint64_t key, unsigned member, struct sl_err *err)
{
	uint32_t hash = sl_mt_hash(key);
	struct sl_mt_bucket *b = &t->head.buckets[hash & t->head.mask];
	uint8_t mac[6];
	sl_mt_key_mac(key, mac);
	if (way_of(t, b, key) >= 0)
		return sl_errf(err, EEXIST,
			       "%02x:%02x:%02x:%02x:%02x:%02x on VLAN %u has a static entry already",
			       mac[0], mac[1], mac[2], mac[3], mac[4], mac[5], sl_mt_key_vlan(key));
	int w = free_way(b);
	uint32_t id = w >= 0 ? id_get(t) : 0;
	if (id == 0)
		return sl_errf(err, ENOSPC, "no room in MAC table '%s' (%u entries) for the static entries",
			       t->name, t->capacity);
	link_entry(t, b, (unsigned)w, id, key, (uint16_t)(hash >> 16), member, true, 0);
	__atomic_fetch_add(&t->statics, 1, __ATOMIC_RELAXED);
	return 0;
}

int sl_mt_static_set(struct sl_mt *t, struct sl_epoch *e, struct sl_epoch_worker *ew,
		     uint64_t key, unsigned member, struct sl_err *err)
{
	uint32_t hash = sl_mt_hash(key);
	struct sl_mt_bucket *b = &t->head.buckets[hash & t->head.mask];
	uint32_t old = 0, id = 0;
	bool was_static = false;
	sl_spin_lock(&b->lock);
	int w = way_of(t, b, key);
	if (w >= 0) {
		const struct sl_mt_entry *cur = &t->head.entries[b->id[w]];
		if (cur->is_static && cur->member == member) {
			sl_spin_unlock(&b->lock);
			return 0;
		}
		if (sl_epoch_retire_room(e, ew) == 0)
			goto full;
		old = b->id[w];
		was_static = cur->is_static;
	} else {
		w = free_way(b);
	}
	id = w >= 0 ? id_get(t) : 0;
	if (id == 0)
		goto full;
	if (old != 0)
		unlinked(t, old);
	link_entry(t, b, (unsigned)w, id, key, (uint16_t)(hash >> 16), member, true, 0);
	sl_spin_unlock(&b->lock);
	if (!was_static)
		__atomic_fetch_add(&t->statics, 1, __ATOMIC_RELAXED);
	if (old != 0 && sl_epoch_retire(e, ew, &t->head.entries[old], entry_free, t) != 0)
		entry_free(&t->head.entries[old], t);   /* not reached: room was checked */
	return 0;
full:
	sl_spin_unlock(&b->lock);
	return sl_errf(err, ENOSPC, "no room in MAC table '%s' (%u entries) for a static entry",
		       t->name, t->capacity);
}

int sl_mt_static_del(struct sl_mt *t, struct sl_epoch *e, struct sl_epoch_worker *ew,
		     uint64_t key)
{
	uint32_t hash = sl_mt_hash(key);
	struct sl_mt_bucket *b = &t->head.buckets[hash & t->head.mask];
	sl_spin_lock(&b->lock);
	int w = way_of(t, b, key);
	if (w < 0 || !t->head.entries[b->id[w]].is_static) {
		sl_spin_unlock(&b->lock);
		return 0;
	}
	if (sl_epoch_retire_room(e, ew) == 0) {
		sl_spin_unlock(&b->lock);
		return -ENOSPC;
	}
	uint32_t id = b->id[w];
	__atomic_store_n(&b->id[w], 0, __ATOMIC_RELEASE);
	unlinked(t, id);
	sl_spin_unlock(&b->lock);
	__atomic_fetch_sub(&t->statics, 1, __ATOMIC_RELAXED);
	if (sl_epoch_retire(e, ew, &t->head.entries[id], entry_free, t) != 0)
		entry_free(&t->head.entries[id], t);   /* not reached: room was checked */
	return 1;
}

void sl_mt_sweep_init(const struct sl_mt *t, struct sl_mt_sweep *s, unsigned k, unsigned n,
		      uint64_t now)
{
	uint64_t buckets = t->head.mask + 1u;
	if (n == 0)
		n = 1;
	s->lo = (uint32_t)(buckets * k / n);
	s->hi = (uint32_t)(buckets * (k + 1) / n);
	s->cursor = s->lo;
	s->last_ns = now;
	s->carry = 0;
	s->gap_max_ns = 0;
}

/* Unlink and retire the idle learned entries of bucket b; false when the
 * retire list filled up (the rest waits for the next call). */
static bool age_bucket(struct sl_mt *t, struct sl_mt_bucket *b, struct sl_epoch *e,
		       struct sl_epoch_worker *ew, uint64_t now, unsigned *aged, uint64_t *late_max)
{
	uint64_t limit = t->aging_ns + t->refresh_ns;
	bool due = false;
	for (unsigned w = 0; w < SL_MT_WAYS && !due; w++) {
		uint32_t id = __atomic_load_n(&b->id[w], __ATOMIC_ACQUIRE);
		if (id == 0)
			continue;
		const struct sl_mt_entry *en = &t->head.entries[id];
		uint64_t last = __atomic_load_n(&en->last_ns, __ATOMIC_RELAXED);
		due = !en->is_static && now > last && now - last > limit;
	}
	if (!due)
		return true;
	bool room = true;
	uint32_t gone[SL_MT_WAYS];
	unsigned n = 0;
	sl_spin_lock(&b->lock);
	for (unsigned w = 0; w < SL_MT_WAYS; w++) {
		uint32_t id = b->id[w];
		if (id == 0)
			continue;
		const struct sl_mt_entry *en = &t->head.entries[id];
		uint64_t last = __atomic_load_n(&en->last_ns, __ATOMIC_RELAXED);
		if (en->is_static || now <= last || now - last <= limit)
			continue;
		if (sl_epoch_retire_room(e, ew) <= n) {
			room = false;
			break;
		}
		__atomic_store_n(&b->id[w], 0, __ATOMIC_RELEASE);
		unlinked(t, id);
		gone[n++] = id;
		if (late_max != NULL && now - last - t->aging_ns > *late_max)
			*late_max = now - last - t->aging_ns;
	}
	sl_spin_unlock(&b->lock);
	for (unsigned i = 0; i < n; i++)
		if (sl_epoch_retire(e, ew, &t->head.entries[gone[i]], entry_free, t) != 0)
			entry_free(&t->head.entries[gone[i]], t);   /* not reached: room was checked */
	*aged += n;
	return room;
}

unsigned sl_mt_age(struct sl_mt *t, struct sl_mt_sweep *s, struct sl_epoch *e,
		   struct sl_epoch_worker *ew, uint64_t now, unsigned budget, uint64_t *late_max)
{
	uint64_t range = s->hi - s->lo;
	if (range == 0 || now <= s->last_ns)
		return 0;
	/* visits owed: range per sweep period, in 1/65536ths */
	uint64_t dt = now - s->last_ns;
	s->last_ns = now;
	if (dt > s->gap_max_ns)
		s->gap_max_ns = dt;
	if (dt > t->sweep_ns)
		dt = t->sweep_ns;
	s->carry += (uint64_t)((unsigned __int128)dt * range * 65536 / t->sweep_ns);
	uint64_t visits = s->carry >> 16;
	if (visits > budget)
		visits = budget;
	if (visits > range)
		visits = range;
	s->carry -= visits << 16;
	if (s->carry > (range << 16))
		s->carry = range << 16;   /* owed at most one pass */
	unsigned aged = 0;
	for (uint64_t i = 0; i < visits; i++) {
		if (!age_bucket(t, &t->head.buckets[s->cursor], e, ew, now, &aged, late_max))
			break;   /* the cursor stays: this bucket again next call */
		if (++s->cursor == s->hi)
			s->cursor = s->lo;
	}
	return aged;
}

void sl_mt_stats(const struct sl_mt *t, struct sl_mt_stats *out)
{
	out->entries = __atomic_load_n(&t->entries, __ATOMIC_RELAXED);
	out->statics = __atomic_load_n(&t->statics, __ATOMIC_RELAXED);
	out->freed = __atomic_load_n(&t->freed, __ATOMIC_RELAXED);
	for (unsigned m = 0; m < SL_MT_MEMBERS; m++)
		out->member_entries[m] = __atomic_load_n(&t->member_entries[m], __ATOMIC_RELAXED);
}

bool sl_mt_entry_read(const struct sl_mt *t, uint32_t id, struct sl_mt_entry *out)
{
	if (id == 0 || id > t->capacity || !__atomic_load_n(&t->linked[id], __ATOMIC_RELAXED))
		return false;
	const struct sl_mt_entry *en = &t->head.entries[id];
	out->key = __atomic_load_n(&en->key, __ATOMIC_RELAXED);
	out->last_ns = __atomic_load_n(&en->last_ns, __ATOMIC_RELAXED);
	out->member = __atomic_load_n(&en->member, __ATOMIC_RELAXED);
	out->is_static = __atomic_load_n(&en->is_static, __ATOMIC_RELAXED);
	out->learned_ns = __atomic_load_n(&en->learned_ns, __ATOMIC_RELAXED);
	return true;
}
