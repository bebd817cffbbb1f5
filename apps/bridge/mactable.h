/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mactable.h: the bridge's MAC table.  Keyed by (VLAN, MAC), each entry
 * says which member of the bridge the address was last seen on.  Read
 * without locks from any worker, written under per-bucket locks, with a
 * bounded number of entries, a per-member limit on learned ones, aging,
 * and removed or replaced entries released through the epoch module
 * (epoch.h), so that nothing is reused while a reader may hold it.
 *
 * Layout.  Buckets are one cache line each: a spinlock and SL_MT_WAYS ways
 * (a 16-bit signature and an entry id; id 0 is an empty way).  A key lives
 * only in bucket hash & (buckets - 1); the number of buckets is a power of
 * two, at least capacity / 4, so a full table fills at most 40% of the
 * ways.  Entries (32 bytes) live in an array indexed by id (1..capacity);
 * free ids wait on a stack under a spinlock.
 *
 * Entries do not change once published: a MAC seen on another member (a
 * move) gets a new entry, stored in the old one's way, and the old one is
 * retired.  So a reader sees a consistent (key, member) pair, and an entry
 * it found stays valid (its id is not reused) until its worker's next
 * quiescent state.  The one field written after publication is last_ns,
 * the time the address was last seen as a source (relaxed stores, only
 * when it has moved on by more than the table's refresh step, so that a
 * busy address does not bounce its line between workers).
 *
 * Aging.  A learned entry whose last_ns is older than aging + refresh step
 * is unlinked by a sweep (sl_mt_age) that visits at most `budget` buckets a
 * call and paces itself to one pass over its range per sweep period
 * (aging / 8): an address is removed between `aging` and
 * sl_mt_bound_ns() after its last frame, while the budget keeps up and
 * the sweeps are called often: in general no later than aging + refresh
 * step + sweep period + the longest time between two calls of the sweep
 * (sl_mt_sweep.gap_max_ns), while each call's budget covers the buckets
 * owed.
 * Static entries never age and never move.
 *
 * Limits.  At most `capacity` entries (static ones included); a learn that
 * finds no free id, or a bucket with every way taken, is refused
 * (SL_MT_FULL): nothing is evicted, so a flood of new addresses cannot
 * push out the ones already learned.  Each member may hold at most
 * `member_limit` learned entries (0: no limit); beyond it a learn is
 * refused (SL_MT_LIMITED).  The count of a member's entries is exact for
 * one writer at a time; writers learning for one member at the same
 * moment may pass the limit by one entry each.
 *
 * Writers retire through the epoch handle they pass in; a writer checks
 * its retire list's room first and, when it is full, unlinks nothing (a
 * move is refused with SL_MT_NO_ROOM, a sweep stops early and is taken up
 * again next call).
 *
 * Threads.  create, static_add, free on the control thread (static_add
 * before any worker runs); static_set and static_del on any one thread at
 * a time, with its epoch handle; lookup, hash and prefetch on any worker;
 * learn and age on workers, each with its own epoch handle; stats and
 * entry_read on any thread (entry_read gives a snapshot that may be torn
 * by a concurrent writer: for listings).  Nothing a worker calls blocks:
 * the bucket and id locks are spinlocks held for a few stores.
 *
 * Ownership.  The caller of sl_mt_create owns the table until sl_mt_free
 * (after the workers have stopped and the epoch has been drained); entries
 * returned by lookup are borrowed.  Errors follow engine/base/err.h.
 */
#ifndef SL_MACTABLE_H
#define SL_MACTABLE_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_hash_crc.h>
#include <rte_prefetch.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "base/err.h"
#include "epoch/epoch.h"

#define SL_MT_WAYS 10u
#define SL_MT_MEMBERS 16u            /* members a table counts entries for */
#define SL_MT_CAPACITY_MAX (1u << 24)

/* A key: the VLAN id (0..4095) above the 48-bit MAC (first byte highest). */
static inline uint64_t sl_mt_key(uint16_t vlan, const uint8_t mac[6])
{
	uint64_t k = vlan;
	for (unsigned i = 0; i < 6; i++)
		k = k << 8 | mac[i];
	return k;
}

/* The key of the MAC at mac (6 bytes, and 2 more that may be read) on
 * VLAN vlan: one 8-byte load. */
static inline uint64_t sl_mt_key_at(uint16_t vlan, const uint8_t *mac)
{
	uint64_t x;
	memcpy(&x, mac, sizeof(x));
	return (uint64_t)vlan << 48 | rte_be_to_cpu_64(x) >> 16;
}

/* Is the key's MAC a host's: not a group address, not all zeros? */
static inline bool sl_mt_key_unicast(uint64_t key)
{
	return ((key >> 40) & 1) == 0 && (key & 0xffffffffffffull) != 0;
}

static inline uint16_t sl_mt_key_vlan(uint64_t key)
{
	return (uint16_t)(key >> 48);
}

static inline void sl_mt_key_mac(uint64_t key, uint8_t mac[6])
{
	for (unsigned i = 0; i < 6; i++)
		mac[i] = (uint8_t)(key >> (8 * (5 - i)));
}

static inline uint32_t sl_mt_hash(uint64_t key)
{
	return rte_hash_crc_8byte(key, 0x6d616374u);
}

struct sl_mt_entry {
	uint64_t key;
	uint64_t last_ns;        /* last seen as a source; relaxed atomics */
	uint16_t member;
	uint8_t is_static;
	uint8_t pad[5];
	uint64_t learned_ns;     /* when this entry was made */
};
_Static_assert(sizeof(struct sl_mt_entry) == 32, "two entries a line");

struct sl_mt_bucket {
	uint32_t lock;                 /* sl_spin_lock (base/spin.h) */
	uint16_t sig[SL_MT_WAYS];
	uint32_t id[SL_MT_WAYS];       /* 0: empty */
} __attribute__((aligned(64)));
_Static_assert(sizeof(struct sl_mt_bucket) == 64, "a bucket is one line");

/* The table's head, read by lookups (the rest is in mactable.c). */
struct sl_mt_head {
	struct sl_mt_bucket *buckets;
	struct sl_mt_entry *entries;   /* by id; entries[0] unused */
	uint32_t mask;                 /* buckets - 1 */
	uint64_t refresh_ns;           /* sl_mt_refresh_ns */
};

struct sl_mt;

struct sl_mt_conf {
	const char *name;         /* for messages */
	unsigned capacity;        /* 1..SL_MT_CAPACITY_MAX entries */
	unsigned member_limit;    /* learned entries per member, 0: no limit */
	uint64_t aging_ns;        /* > 0 */
	int socket;               /* NUMA node of the memory, or -1 */
};

/* Returns the table, or NULL with errno (EINVAL, ENOMEM) and a sentence. */
struct sl_mt *sl_mt_create(const struct sl_mt_conf *conf, struct sl_err *err);
/* Control thread, workers stopped, epoch drained. */
void sl_mt_free(struct sl_mt *t);

/* How long after its last frame an idle learned entry is gone at the
 * latest, while the sweeps' budget keeps up: aging + refresh step + sweep
 * period. */
uint64_t sl_mt_bound_ns(const struct sl_mt *t);
uint64_t sl_mt_refresh_ns(const struct sl_mt *t);
uint64_t sl_mt_sweep_ns(const struct sl_mt *t);
unsigned sl_mt_buckets(const struct sl_mt *t);

static inline void sl_mt_prefetch(const struct sl_mt *t, uint32_t hash)
{
	const struct sl_mt_head *h = (const struct sl_mt_head *)(const void *)t;
	rte_prefetch0(&h->buckets[hash & h->mask]);
}

/* The entry of key (hash: sl_mt_hash(key)), or NULL.  Any worker, no lock;
 * the entry stays valid until the caller's next quiescent state. */
static inline const struct sl_mt_entry *sl_mt_lookup(const struct sl_mt *t, uint64_t key,
						     uint32_t hash)
{
	const struct sl_mt_head *h = (const struct sl_mt_head *)(const void *)t;
	const struct sl_mt_bucket *b = &h->buckets[hash & h->mask];
	uint16_t sig = (uint16_t)(hash >> 16);
#if defined(__SSE2__) && !defined(__SANITIZE_THREAD__)
	/* the ten signatures compared at once: ways 0-7, then 2-9 (a racing
	 * writer's signature only filters: the key is compared below) */
	__m128i want = _mm_set1_epi16((short)sig);
	unsigned lo = (unsigned)_mm_movemask_epi8(
		_mm_cmpeq_epi16(_mm_loadu_si128((const __m128i *)(const void *)&b->sig[0]), want));
	unsigned hi = (unsigned)_mm_movemask_epi8(
		_mm_cmpeq_epi16(_mm_loadu_si128((const __m128i *)(const void *)&b->sig[2]), want));
	/* two bits a 16-bit lane: way w at bit 2w (ways 8 and 9 are lanes 6
	 * and 7 of the second load, bits 12 and 14, moved up to 16 and 18) */
	unsigned ways = (lo & 0x5555u) | (hi & 0x5000u) << 4;
	while (ways != 0) {
		unsigned w = (unsigned)__builtin_ctz(ways) / 2;
		ways &= ways - 1;
		uint32_t id = __atomic_load_n(&b->id[w], __ATOMIC_ACQUIRE);
		if (id != 0 && h->entries[id].key == key)
			return &h->entries[id];
	}
#else
	for (unsigned w = 0; w < SL_MT_WAYS; w++) {
		if (__atomic_load_n(&b->sig[w], __ATOMIC_RELAXED) != sig)
			continue;
		uint32_t id = __atomic_load_n(&b->id[w], __ATOMIC_ACQUIRE);
		if (id != 0 && h->entries[id].key == key)
			return &h->entries[id];
	}
#endif
	return NULL;
}

enum sl_mt_learn {
	SL_MT_KNOWN = 0,      /* already there on this member (refreshed) */
	SL_MT_LEARNED,        /* a new entry */
	SL_MT_MOVED,          /* was on another member: replaced */
	SL_MT_STATIC,         /* a static entry for another member: kept */
	SL_MT_LIMITED,        /* the member is at its limit: not learned */
	SL_MT_FULL,           /* no free entry, or the bucket is full */
	SL_MT_NO_ROOM,        /* the epoch's retire list is full: not moved */
};

/* sl_mt_learn past its common case (the key known on that member). */
enum sl_mt_learn sl_mt_learn_slow(struct sl_mt *t, struct sl_epoch *e, struct sl_epoch_worker *ew,
				  uint64_t key, uint32_t hash, unsigned member, uint64_t now);

/* The table's refresh step (ns), read inline by sl_mt_learn. */
static inline uint64_t sl_mt_head_refresh(const struct sl_mt *t)
{
	return ((const struct sl_mt_head *)(const void *)t)->refresh_ns;
}

/* Note that key was seen as a source on member at now (ns, one clock per
 * table, never going back).  e, ew: the calling worker's epoch and handle
 * (for the entry a move replaces).  Any worker.  Inline for the common
 * case, an address already known on that member: one lookup and, once
 * per refresh step, one relaxed store. */
static inline enum sl_mt_learn sl_mt_learn(struct sl_mt *t, struct sl_epoch *e,
					   struct sl_epoch_worker *ew, uint64_t key,
					   uint32_t hash, unsigned member, uint64_t now)
{
	const struct sl_mt_entry *seen = sl_mt_lookup(t, key, hash);
	if (likely(seen != NULL && seen->member == member)) {
		uint64_t last = __atomic_load_n(&seen->last_ns, __ATOMIC_RELAXED);
		if (unlikely(now > last && now - last >= sl_mt_head_refresh(t)))
			__atomic_store_n((uint64_t *)(uintptr_t)&seen->last_ns, now, __ATOMIC_RELAXED);
		return SL_MT_KNOWN;
	}
	return sl_mt_learn_slow(t, e, ew, key, hash, member, now);
}

/* Add a static entry (control thread, before the workers run).  Returns 0,
 * or -EEXIST (key already there), -ENOSPC (table or bucket full) with a
 * sentence. */
int sl_mt_static_add(struct sl_mt *t, uint64_t key, unsigned member, struct sl_err *err);

/* Make key a static entry of member (control thread or a worker, while
 * the workers run: a reload), replacing a learned entry or a static one
 * of another member (retired through e/ew).  Returns 0, or -ENOSPC (no
 * free entry, a full bucket, or the retire list full) with a sentence. */
int sl_mt_static_set(struct sl_mt *t, struct sl_epoch *e, struct sl_epoch_worker *ew,
		     uint64_t key, unsigned member, struct sl_err *err);

/* Remove key's static entry, if it has one (retired through e/ew).
 * Returns 1 if removed, 0 if there was none, -ENOSPC if the retire list
 * is full (nothing removed). */
int sl_mt_static_del(struct sl_mt *t, struct sl_epoch *e, struct sl_epoch_worker *ew,
		     uint64_t key);

/* One worker's share of aging: buckets [lo, hi) of the table, with a
 * cursor.  Zeroed, then set with sl_mt_sweep_init. */
struct sl_mt_sweep {
	uint32_t lo, hi, cursor;
	uint64_t last_ns;      /* previous call */
	uint64_t carry;        /* bucket visits owed, scaled by 2^16 */
	uint64_t gap_max_ns;   /* the longest time between two calls */
};

/* Share k of n (n >= 1) of the buckets. */
void sl_mt_sweep_init(const struct sl_mt *t, struct sl_mt_sweep *s, unsigned k, unsigned n,
		      uint64_t now);

/* Visit the buckets now due in s's range (at most budget) and unlink the
 * learned entries idle for longer than aging + refresh step, retiring each
 * through e/ew.  Returns the number aged; *late_max (if not NULL) is raised
 * to the most any of them outlived aging after its last_ns.  The worker
 * that owns s. */
unsigned sl_mt_age(struct sl_mt *t, struct sl_mt_sweep *s, struct sl_epoch *e,
		   struct sl_epoch_worker *ew, uint64_t now, unsigned budget, uint64_t *late_max);

struct sl_mt_stats {
	uint64_t entries;           /* live, static ones included */
	uint64_t statics;
	uint64_t member_entries[SL_MT_MEMBERS];   /* learned, live */
	uint64_t freed;             /* entries whose grace period ended */
};

/* Any thread: relaxed reads. */
void sl_mt_stats(const struct sl_mt *t, struct sl_mt_stats *out);

/* A copy of entry id (1..capacity) if it is linked now: true and *out set.
 * Any thread; the copy may be torn by a concurrent writer (listings). */
bool sl_mt_entry_read(const struct sl_mt *t, uint32_t id, struct sl_mt_entry *out);
unsigned sl_mt_capacity(const struct sl_mt *t);

#endif
