/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * flowtable.h: the flow cache's table.  Keyed by the 5-tuple (flowkey.h),
 * read without locks from any worker, written under per-bucket locks, with a
 * bounded number of live entries, idle and active timeouts, capped expiry
 * work, and entries released through the epoch module (epoch.h) so that
 * nothing is freed while a reader may hold it.
 *
 * Layout.  The number of buckets is a power of two, at least capacity / 2,
 * so that a full table fills about a quarter of the ways; a bucket is one cache line with a
 * spinlock and SL_FT_WAYS ways (16-bit signature + entry index).  A key lives
 * only in bucket hash & (buckets - 1).  Entries (64 bytes: key and counters)
 * live in an array indexed by flow id, their metas (hash, times, cookie,
 * links) in a second array with the same index; the id pool (`ids` ids,
 * >= capacity) hands them out.  An entry's memory and its id are one thing:
 * both are released together, when the grace period of its retirement ends.
 *
 * Readers.  sl_ft_lookup() takes no lock and writes nothing; the entry it
 * returns stays valid (its memory is not reused) until the calling worker's
 * next quiescent state, even if another worker unlinks it meanwhile.
 * sl_ft_touch() updates its counters with atomic adds, so counts are exact
 * when several workers see one flow (sl_ft_touch_n, for a table of one
 * handle, uses plain stores); a packet counted on an entry that a
 * writer (another worker, or an insert later in the same burst) has just
 * unlinked is missing from that flow's record.  last_ns is a relaxed
 * "store if later": two workers touching one flow at the same moment may
 * leave it short of the later time, by up to the gap between the two
 * workers' times (flowcache's: each its breath's start, microseconds).
 *
 * Writers.  Insert, expiry, eviction and flush take the lock of the bucket
 * they change (never two at once).  An unlinked entry is handed to a record
 * callback at once (the flow record) and then retired: by an insert or an
 * eviction with sl_epoch_retire() at once, by an expiry or flush step with
 * the step's others at its end (sl_epoch_retire_n, one stamp for them
 * all); its free function returns the id to the pool.  A writer
 * first checks that its epoch retire list has room (sl_epoch_retire_room);
 * when it has none it unlinks nothing: expiry waits for the next step, and
 * an insert that needed a victim fails (SL_FT_NO_ROOM).
 *
 * Capacity.  At most `capacity` entries are live.  An insert into a table at
 * capacity evicts the least recently seen entry of its own bucket (or, when
 * that bucket is empty, of the nearest non-empty bucket after it); an insert
 * into a bucket whose ways are all taken evicts that bucket's least recently
 * seen entry even below capacity.  Both are counted as evictions.  Workers
 * inserting at the same moment may exceed capacity by one entry each, until
 * their own evictions complete.
 *
 * Expiry.  An entry expires when it has not been seen for idle_ns (0: never)
 * or was created active_ns ago (0: never).  One sl_ft_expire() unlinks at
 * most `expiry_cap` entries and visits at most `scan` buckets (scan mode) or
 * wheel entries and slots (wheel mode), so the work per call is bounded.  Two ways to
 * find expired entries, chosen at creation:
 *   SL_FT_SCAN   each handle sweeps its share of the buckets (handle k of
 *                n_handles the k-th of n equal ranges) with a cursor, paced
 *                to one sweep per 7/8 of the step min(idle_ns, active_ns)
 *                / 8 (and at most `scan` buckets per step): an expired
 *                entry is unlinked within the step after its deadline
 *                (plus the longest gap between steps), while `scan` and
 *                the cap keep up; the eighth of the step left over is the
 *                sweep's room to catch up after a gap.  The scan reads the bucket
 *                lines in order and an entry only when its way's stamp
 *                (below) says its deadline may have come: at many flows it
 *                streams through memory instead of waiting on a miss for
 *                every live entry.  Nothing per packet.
 *   SL_FT_WHEEL  each handle has a timer wheel of SL_FT_WHEEL_SLOTS slots
 *                for the entries it inserted (an intrusive list per slot,
 *                under the handle's wheel lock), ticking at
 *                min(idle_ns, active_ns) / 256 (at least 1 us).  An insert
 *                files the entry at its deadline; when its slot comes due
 *                the entry is unlinked if expired, else filed again at its
 *                new deadline (packets never touch the wheel).  An expired
 *                entry is unlinked within a tick of its deadline while the
 *                cap and `scan` keep up: in this mode `scan` bounds the
 *                entries taken out of slots plus the empty slots passed per
 *                call.  Unlinking an entry (any writer) removes it from its
 *                owner's wheel: lock order bucket, then wheel.
 *
 * Time is whatever the caller passes as `now` (ns, never going back, one
 * clock per table): flowcache passes the epoch's clock (the TSC in ns) as
 * its worker's breath began, tests their own clock.
 *
 * Handles.  Each app instance that uses a table (one per worker at most)
 * opens a handle: it binds the table to that worker's epoch handle and keeps
 * a small cache of free ids.  A handle is used by one thread at a time.
 *
 * Threads.  Create, open, close, free and ids_free on the control thread;
 * lookup, prefetch and touch on any worker, concurrently with everything on
 * other threads; insert, expire, flush and count_lookups on the handle's
 * worker; stats, live, conf and the memory functions on any thread.  Each
 * function below says which.  Nothing a worker calls blocks: the bucket,
 * wheel and id-pool locks are spinlocks held for a few stores.
 *
 * Ownership.  The caller of sl_ft_create owns the table until sl_ft_free;
 * the table owns its handles, buckets, entries and ids.  Callers never free
 * an entry: a pointer to one (from lookup or insert) is borrowed, valid as
 * the epoch allows (Readers above): until the calling worker's next
 * sl_epoch_quiesce() or sl_epoch_offline(), and only while that worker is
 * online in the epoch its handles were opened with.
 *
 * Errors follow engine/base/err.h.
 */
#ifndef SL_FLOWTABLE_H
#define SL_FLOWTABLE_H

#include <stdbool.h>
#include <stdint.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "epoch/epoch.h"
#include "base/err.h"
#include "apps/pkt/flowkey.h"

#define SL_FT_WAYS 8u
#define SL_FT_MAX_HANDLES 64u
#define SL_FT_ID_CACHE 64u          /* ids a handle caches at most */
#define SL_FT_WHEEL_SLOTS 1024u

enum sl_ft_expiry {
	SL_FT_SCAN = 0,
	SL_FT_WHEEL,
};

/* Why an entry left the table. */
enum sl_ft_reason {
	SL_FT_IDLE = 0,       /* idle timeout */
	SL_FT_ACTIVE,         /* active timeout */
	SL_FT_EVICTED,        /* capacity or a full bucket */
	SL_FT_FLUSHED,        /* sl_ft_flush: invalidated on request */
	SL_FT_STOPPED,        /* still live when the table was closed */
	SL_FT_REASONS
};

/* An entry is two parts with one index (its flow id): the entry proper,
 * one cache line that is all a hit reads (lookup) and writes (touch), and
 * its meta, in an array of its own, that only inserts, writers and callers
 * of the accessors below read.  At many flows a hit thus brings in one line
 * of the entries' array, and the lines it brings in are all hot ones. */
struct sl_flow_entry {
	struct sl_flow_key key;
	uint64_t packets;         /* sl_ft_touch */
	uint64_t bytes;
	uint64_t last_ns;         /* relaxed stores (sl_ft_touch) */
} __attribute__((aligned(64)));

_Static_assert(sizeof(struct sl_flow_entry) == 64, "a hit touches one cache line of its entry");

/* The rest of an entry: set at insert, read by writers (and the cookie and
 * linked flag by callers, through sl_ft_entry_cookie and sl_ft_linked). */
struct sl_flow_meta {
	uint32_t hash;
	uint32_t handle;          /* handle that inserted it */
	uint64_t first_ns;        /* set at insert */
	uint64_t cookie;          /* the caller's cached decision, set at insert */
	uint32_t linked;          /* 1 while reachable from a bucket (bucket lock) */
	/* wheel mode: the owner's wheel list (ids + 1), under its wheel lock */
	uint32_t w_next, w_prev;
	uint32_t w_slot;
	uint32_t w_state;         /* 0 not filed, 1 in a slot, 2 taken out to fire */
} __attribute__((aligned(64)));

/* A flow record: what the table reports for an entry it unlinks. */
struct sl_flow_record {
	struct sl_flow_key key;
	uint32_t id;
	enum sl_ft_reason reason;
	uint64_t packets, bytes;
	uint64_t first_ns, last_ns;
	uint64_t cookie;          /* as inserted */
};

/* Called on the unlinking thread (the handle's worker; the control thread in
 * sl_ft_close) for every entry the table unlinks, before the entry is
 * retired.  rec is the table's, valid during the call only; the entry is no
 * longer reachable by a new lookup.  It runs inside the writer's call (no
 * lock held): it must not block, nor call that handle's insert, expire or
 * flush. */
typedef void sl_ft_record_fn(const struct sl_flow_record *rec, void *arg);

struct sl_flowtable_conf {
	const char *name;
	uint32_t capacity;        /* live entries at most, >= 1 */
	uint32_t ids;             /* id pool size; 0: capacity + max(capacity / 4, 1024) */
	uint64_t idle_ns;         /* 0: no idle timeout */
	uint64_t active_ns;       /* 0: no active timeout */
	unsigned expiry_cap;      /* entries unlinked per sl_ft_expire, >= 1 */
	unsigned scan;            /* buckets (scan), or entries and slots
				   * (wheel), visited per sl_ft_expire;
				   * 0: 4 x expiry_cap */
	enum sl_ft_expiry expiry; /* SL_FT_SCAN or SL_FT_WHEEL */
	unsigned n_handles;       /* handles that will be opened, 1..SL_FT_MAX_HANDLES */
	int socket;               /* NUMA node for the memory; -1: any */
};

struct sl_flowtable;
struct sl_ft_handle;

/* The table's layout as far as the inline readers below need it (nothing
 * else may read or write these).  A bucket: its lock, and per way a 16-bit
 * signature (hash >> 16) and the entry's id + 1 (0: empty), written under
 * the lock; readers load sig relaxed and idx with acquire, so an entry's
 * fields are complete once its idx is seen.  For the expiry scan alone (no
 * reader looks at them): `stamp`, a byte a way, each a lower bound of its
 * entry's deadline in the table's stamp units (mod 256), written under the
 * lock by insert and by the scan; `visit`, the unit of the scan's last
 * whole visit of the bucket (the scanning handle's alone).  struct
 * sl_ft_index is the first member of struct sl_flowtable. */
struct sl_ft_bucket {
	uint32_t lock;
	uint32_t visit;
	uint64_t stamp;
	uint16_t sig[SL_FT_WAYS];
	uint32_t idx[SL_FT_WAYS];
} __attribute__((aligned(64)));

_Static_assert(sizeof(struct sl_ft_bucket) == 64, "a bucket is one cache line");

struct sl_ft_index {
	struct sl_ft_bucket *b;
	struct sl_flow_entry *ent;
	struct sl_flow_meta *meta;  /* meta[i] goes with ent[i] */
	uint32_t mask;            /* buckets - 1 */
};

/* Create a table (no handle open yet).  NULL with a sentence in err, and
 * errno set, on a bad conf (EINVAL) or no memory (ENOMEM; checked with
 * sl_ft_mem_check before anything is allocated).  Buckets and entries are
 * anonymous mappings, bound to conf->socket with libnuma (when >= 0) and
 * faulted in here, on the calling thread, so that no worker takes a page
 * fault on them.  Control thread; may take long for a large table (it
 * touches every page).  conf is copied (its name too): the caller keeps it.
 * The caller owns the table and frees it with sl_ft_free(). */
struct sl_flowtable *sl_ft_create(const struct sl_flowtable_conf *conf, struct sl_err *err);

/* Bytes a table of conf takes (buckets, entries, id pool, handles); conf as
 * for sl_ft_create (n_handles 0 counts as 1).  No allocation, no DPDK; any
 * thread. */
uint64_t sl_ft_mem_bytes(const struct sl_flowtable_conf *conf);

/* Bytes this process can still allocate and touch: the least of
 * MemAvailable (/proc/meminfo; sysinfo's free memory without it), the room
 * under the memory limit of its cgroup and the cgroups above (v2
 * memory.max, v1 memory.limit_in_bytes), and the room under RLIMIT_AS and
 * RLIMIT_DATA.  Reads a few files under /proc and /sys; no DPDK; any thread.
 * *what (if not NULL) names the one that set the figure, a static string,
 * for messages.  UINT64_MAX if none can be read. */
uint64_t sl_ft_mem_available(const char **what);

/* Does a table of conf fit in avail bytes?  0, or -ENOMEM with "a flow table
 * of N entries (M ids) needs X of memory, but this process can get Y (bound by WHAT);
 * ..." in err.  sl_ft_create runs it with sl_ft_mem_available() before it
 * allocates anything; flowcache runs it at config load.  Any thread. */
int sl_ft_mem_check(const struct sl_flowtable_conf *conf, uint64_t avail, const char *what,
		    struct sl_err *err);

/* Open handle number k (0 <= k < n_handles; each once) for the worker whose
 * epoch handle is ew; records go to record(rec, arg) (NULL: none).  NULL
 * with a sentence, and errno set, on a bad k or no epoch (EINVAL) or a
 * reused k (EBUSY).  Control thread, before any worker uses the table.  The
 * table owns the handle (freed with it); e, ew and arg must outlive the
 * table's use.  From then on only ew's worker uses the handle (insert,
 * expire, flush, count_lookups), and the entries it unlinks are retired
 * into ew. */
struct sl_ft_handle *sl_ft_open(struct sl_flowtable *t, unsigned k, struct sl_epoch *e,
				struct sl_epoch_worker *ew, sl_ft_record_fn *record,
				void *arg, struct sl_err *err);

/* Control thread, workers stopped, nothing of this table still retired (the
 * engine synchronizes and drains the epoch first): unlink every live entry
 * of h's range with reason SL_FT_STOPPED (records are emitted, on this
 * thread) and free them at once, without the epoch.  Returns the number.
 * The handle stays usable for stats.  No entry pointer of h's range may be
 * used afterwards. */
uint64_t sl_ft_close(struct sl_ft_handle *h);

/* Free the table (all handles with it; every entry pointer becomes
 * invalid).  NULL: no-op.  Control thread, no worker using the table, and
 * no entry of it still retired in an epoch (synchronize and drain first):
 * a retired entry's free function returns its id to the table. */
void sl_ft_free(struct sl_flowtable *t);

/* Live expiry settings (a reload).  sl_ft_check_expiry, control thread:
 * whether t can take these (-EINVAL: expiry_cap 0; -EPERM: new timeouts for
 * a wheel, whose slots are sized by them), with a sentence.
 * sl_ft_set_expiry, any thread, while workers use t: store them (relaxed;
 * a lookup or expiry step running meanwhile may use old and new values
 * together).  An entry's deadline follows the timeouts in force when it is
 * next looked at; the scan's pace follows the shortest timeout as at
 * create; `scan` (buckets per step) stays as created. */
int sl_ft_check_expiry(const struct sl_flowtable *t, uint64_t idle_ns, uint64_t active_ns,
		       unsigned expiry_cap, struct sl_err *err);
void sl_ft_set_expiry(struct sl_flowtable *t, uint64_t idle_ns, uint64_t active_ns,
		      unsigned expiry_cap);

/* The reason's name ("idle", "active", "evicted", "flushed", "stopped"; "?"
 * for another value), a static string.  Any thread. */
const char *sl_ft_reason_name(enum sl_ft_reason r);

/* The table's configuration with its defaults filled in (ids, scan).  Owned
 * by the table, valid until sl_ft_free; never changes.  Any thread. */
const struct sl_flowtable_conf *sl_ft_conf(const struct sl_flowtable *t);

/* --- Workers. ------------------------------------------------------------ */

/* The ways of hash's bucket whose signature matches hash's: way w is bit
 * 2w (a racing writer's signature only filters: lookups compare the key).
 * Lock-free, reads the bucket's line; any worker online in the epoch. */
static inline unsigned sl_ft_match(const struct sl_flowtable *t, uint32_t hash)
{
	const struct sl_ft_index *ix = (const struct sl_ft_index *)t;
	const struct sl_ft_bucket *b = &ix->b[hash & ix->mask];
	uint16_t sig = (uint16_t)(hash >> 16);
#if defined(__SSE2__) && !defined(__SANITIZE_THREAD__)
	/* the eight 16-bit signatures compared at once, two mask bits a way */
	__m128i got = _mm_loadu_si128((const __m128i *)(const void *)&b->sig[0]);
	return (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi16(got, _mm_set1_epi16((short)sig))) &
	       0x5555u;
#else
	unsigned ways = 0;
	for (unsigned w = 0; w < SL_FT_WAYS; w++)
		if (__atomic_load_n(&b->sig[w], __ATOMIC_RELAXED) == sig)
			ways |= 1u << (2 * w);
	return ways;
#endif
}

/* sl_ft_match, and a prefetch of the entry of its first matching way (the
 * one a lookup of a live key almost always finds): the middle stage of a
 * burst's lookups (sl_ft_prefetch, then this, then sl_ft_lookup_ways), so
 * that the burst's bucket lines and then its entry lines are all on their
 * way before the first is needed.  Any worker. */
static inline unsigned sl_ft_match_prefetch(const struct sl_flowtable *t, uint32_t hash)
{
	const struct sl_ft_index *ix = (const struct sl_ft_index *)t;
	unsigned ways = sl_ft_match(t, hash);
	if (ways != 0) {
		const struct sl_ft_bucket *b = &ix->b[hash & ix->mask];
		uint32_t id1 = __atomic_load_n(&b->idx[__builtin_ctz(ways) / 2], __ATOMIC_RELAXED);
		if (id1 != 0)
			__builtin_prefetch(&ix->ent[id1 - 1], 0, 3);
	}
	return ways;
}

/* The lookups below, by a key's words: with all5 false, words 2 and 4 are
 * not compared (an IPv4 key's, sl_ft_lookup_ways_v4). */
static inline struct sl_flow_entry *sl_ft_priv_lookup_ways(const struct sl_flowtable *t,
							   uint64_t w0, uint64_t w1, uint64_t w2,
							   uint64_t w3, uint64_t w4, uint32_t hash,
							   unsigned ways, bool all5)
{
	const struct sl_ft_index *ix = (const struct sl_ft_index *)t;
	const struct sl_ft_bucket *b = &ix->b[hash & ix->mask];
	while (ways != 0) {
		unsigned w = (unsigned)__builtin_ctz(ways) / 2;
		ways &= ways - 1;
		uint32_t id1 = __atomic_load_n(&b->idx[w], __ATOMIC_ACQUIRE);
		if (id1 == 0)
			continue;
		/* the key alone: the entry's hash is in its meta */
		struct sl_flow_entry *e = &ix->ent[id1 - 1];
		const struct sl_flow_key *k = &e->key;
		uint64_t d = (sl_flow_key_word(k, 0) ^ w0) | (sl_flow_key_word(k, 1) ^ w1) |
			     (sl_flow_key_word(k, 3) ^ w3);
		if (all5)
			d |= (sl_flow_key_word(k, 2) ^ w2) | (sl_flow_key_word(k, 4) ^ w4);
		if (d == 0)
			return e;
	}
	return NULL;
}

/* The live entry among ways (from sl_ft_match or sl_ft_match_prefetch of
 * hash, at any earlier moment of the caller's current quiescent period)
 * whose key's five 8-byte words (sl_flow_key_word) are w0..w4, or NULL:
 * compared with each candidate's key word by word, so that a caller that
 * built the key in registers need not store it.  Same rules as
 * sl_ft_lookup. */
static inline struct sl_flow_entry *
sl_ft_lookup_ways_words(const struct sl_flowtable *t, uint64_t w0, uint64_t w1, uint64_t w2,
			uint64_t w3, uint64_t w4, uint32_t hash, unsigned ways)
{
	return sl_ft_priv_lookup_ways(t, w0, w1, w2, w3, w4, hash, ways, true);
}

/* sl_ft_lookup_ways_words for an IPv4 key (w0's family byte 4): its words
 * 2 and 4 are zero in every IPv4 key (sl_flow_key_v4_words; an IPv4 key
 * hashes by words 0, 1 and 3 alone, sl_flow_key_hash_words), and an entry
 * whose word 0 is w0 has such a key, so only words 0, 1 and 3 are
 * compared.  Same rules. */
static inline struct sl_flow_entry *sl_ft_lookup_ways_v4(const struct sl_flowtable *t,
							 uint64_t w0, uint64_t w1, uint64_t w3,
							 uint32_t hash, unsigned ways)
{
	return sl_ft_priv_lookup_ways(t, w0, w1, 0, w3, 0, hash, ways, false);
}

/* sl_ft_lookup_ways_words for the key k.  Same rules. */
static inline struct sl_flow_entry *sl_ft_lookup_ways(const struct sl_flowtable *t,
						      const struct sl_flow_key *k, uint32_t hash,
						      unsigned ways)
{
	return sl_ft_lookup_ways_words(t, sl_flow_key_word(k, 0), sl_flow_key_word(k, 1),
				       sl_flow_key_word(k, 2), sl_flow_key_word(k, 3),
				       sl_flow_key_word(k, 4), hash, ways);
}

/* The live entry for k (hash = sl_flow_key_hash(k)), or NULL.  Lock-free,
 * writes nothing.  Any worker that is online in the table's epoch,
 * concurrently with every other call on other threads.  The entry is the
 * table's, borrowed: its memory stays the entry of k until the caller's next
 * sl_epoch_quiesce() or sl_epoch_offline(), even if a writer unlinks it
 * meanwhile (then a later lookup misses it, and what sl_ft_touch adds is
 * not in its record).  Read its key (and its id, cookie and linked flag
 * with the accessors below); change it only with sl_ft_touch.  A key's
 * way can change between sl_ft_match and the acquire load of its index (an
 * entry unlinked and its way reused): the match is then a miss, or a hit on
 * the newer entry of k, as a lookup a moment later would be. */
static inline struct sl_flow_entry *sl_ft_lookup(const struct sl_flowtable *t,
						 const struct sl_flow_key *k, uint32_t hash)
{
	return sl_ft_lookup_ways(t, k, hash, sl_ft_match(t, hash));
}

/* An entry's flow id (also its index), its cookie (as inserted), and
 * whether it is still reachable from its bucket (a relaxed read: an entry
 * found by a lookup may be unlinked by a writer at any moment).  e is an
 * entry of t, borrowed by the rules of sl_ft_lookup.  Any worker. */
static inline uint32_t sl_ft_entry_id(const struct sl_flowtable *t, const struct sl_flow_entry *e)
{
	return (uint32_t)(e - ((const struct sl_ft_index *)t)->ent);
}

/* e's meta (the table's own; callers read it through the two below). */
static inline struct sl_flow_meta *sl_ft_meta(const struct sl_flowtable *t,
					      const struct sl_flow_entry *e)
{
	return &((const struct sl_ft_index *)t)->meta[sl_ft_entry_id(t, e)];
}

static inline uint64_t sl_ft_entry_cookie(const struct sl_flowtable *t,
					  const struct sl_flow_entry *e)
{
	return sl_ft_meta(t, e)->cookie;
}

static inline bool sl_ft_linked(const struct sl_flowtable *t, const struct sl_flow_entry *e)
{
	return __atomic_load_n(&sl_ft_meta(t, e)->linked, __ATOMIC_RELAXED) != 0;
}

/* Prefetch the bucket of hash (before a lookup later in the burst).  Any
 * worker; a hint only, nothing kept. */
static inline void sl_ft_prefetch(const struct sl_flowtable *t, uint32_t hash)
{
	const struct sl_ft_index *ix = (const struct sl_ft_index *)t;
	__builtin_prefetch(&ix->b[hash & ix->mask], 0, 3);
}

/* After a lookup of hash missed: prefetch what an insert will read to choose
 * a victim (the entries of its bucket, when the table is at capacity or the
 * bucket full), so that a burst's inserts do not wait on them one by one.
 * Any worker; reads without locks, a hint only. */
void sl_ft_prefetch_insert(const struct sl_flowtable *t, uint32_t hash);

/* Count a run of packets (bytes in all, the last seen at now) on e, an
 * entry from sl_ft_lookup or sl_ft_insert still valid by their rules, as
 * that many sl_ft_touch calls.  sole false: any worker, concurrently with
 * other touches of e (atomic adds) and with writers.  sole true: the table
 * has a single handle (sl_ft_conf(t)->n_handles == 1) and only its worker
 * touches the entries; the counts are then plain loads and stores (relaxed
 * atomics, which other threads may read) instead of atomic
 * read-modify-writes, which cost a locked instruction each. */
static inline void sl_ft_touch_n(struct sl_flow_entry *e, uint64_t packets, uint64_t bytes,
				 uint64_t now, bool sole)
{
	if (sole) {
		__atomic_store_n(&e->packets, __atomic_load_n(&e->packets, __ATOMIC_RELAXED) + packets,
				 __ATOMIC_RELAXED);
		__atomic_store_n(&e->bytes, __atomic_load_n(&e->bytes, __ATOMIC_RELAXED) + bytes,
				 __ATOMIC_RELAXED);
	} else {
		__atomic_fetch_add(&e->packets, packets, __ATOMIC_RELAXED);
		__atomic_fetch_add(&e->bytes, bytes, __ATOMIC_RELAXED);
	}
	if (__atomic_load_n(&e->last_ns, __ATOMIC_RELAXED) < now)
		__atomic_store_n(&e->last_ns, now, __ATOMIC_RELAXED);
}

/* Count one packet of len bytes seen at now on e: sl_ft_touch_n(e, 1, len,
 * now, false). */
static inline void sl_ft_touch(struct sl_flow_entry *e, uint32_t len, uint64_t now)
{
	sl_ft_touch_n(e, 1, len, now, false);
}

enum sl_ft_insert_status {
	SL_FT_INSERTED = 0,   /* a new entry */
	SL_FT_FOUND,          /* another writer inserted the key first */
	SL_FT_NO_ID,          /* the id pool is empty (ids still in grace) */
	SL_FT_NO_ROOM,        /* a victim was needed and the retire list is full */
};

/* Insert k with counters zero, first/last seen now and the given cookie (or
 * find it).  May evict (see Capacity): the victims' records are emitted on
 * this thread and the victims retired into h's epoch handle.  Returns the
 * entry, borrowed as from sl_ft_lookup (valid until the caller's next
 * quiescent state; another worker may unlink it at once), with *status
 * SL_FT_INSERTED or SL_FT_FOUND; or NULL with *status saying why not.  h's
 * worker, online, concurrently with lookups, touches and other handles'
 * writers. */
struct sl_flow_entry *sl_ft_insert(struct sl_ft_handle *h, const struct sl_flow_key *k,
				   uint32_t hash, uint64_t now, uint64_t cookie,
				   enum sl_ft_insert_status *status);

/* One capped expiry step of h's range at now (see Expiry): unlinked entries'
 * records are emitted on this thread and the entries retired into h's epoch
 * handle.  Returns entries unlinked.  h's worker, concurrently with every
 * other handle's calls and with lookups. */
unsigned sl_ft_expire(struct sl_ft_handle *h, uint64_t now);

/* Unlink (reason SL_FT_FLUSHED) at most cap live entries of h's range,
 * continuing where the last call stopped, records and retires as
 * sl_ft_expire.  Returns the number unlinked; 0 once the range is empty (or
 * the retire list is full).  h's worker. */
unsigned sl_ft_flush(struct sl_ft_handle *h, unsigned cap);

/* --- Metrics. ------------------------------------------------------------ */

struct sl_ft_stats {
	uint64_t lookups, hits, misses;        /* counted by the caller's handle */
	uint64_t inserted;
	uint64_t insert_races;                 /* SL_FT_FOUND */
	uint64_t no_id, no_room;
	uint64_t unlinked[SL_FT_REASONS];      /* by reason */
	uint64_t freed;                        /* entries whose grace ended */
	uint64_t scanned;                      /* buckets (scan) or entries and slots
						* (wheel) visited by expiry */
	uint64_t checked;                      /* scan: entries read by expiry (their
						* stamp had come due, or their bucket's
						* stamps were stale) */
	uint64_t refiled;                      /* wheel: entries filed again */
	uint64_t step_gap_ns;                  /* the longest time between two
						* sl_ft_expire calls of this handle */
	uint64_t live;                         /* table-wide (same for every handle) */
	/* Expiries by this handle (idle and active): how far past its deadline
	 * each entry was unlinked, in ns (percentiles within 1/64 of the value,
	 * engine/base/histogram.h; 0 while there is none). */
	uint64_t late_count, late_p50_ns, late_p99_ns, late_max_ns;
};

/* Counters of handle h into *out (a snapshot; each counter read atomically,
 * not all at one instant, while h's worker runs).  Any thread; allocates a
 * histogram's copy (about 15 KiB) for the late_* percentiles, which stay 0
 * when that fails. */
void sl_ft_handle_stats(const struct sl_ft_handle *h, struct sl_ft_stats *out);

/* The step of t's expiry, in ns: the scan's sweep period (the shorter
 * timeout / 8) or the wheel's tick.  While the cap and `scan` keep up and
 * the handle's worker calls sl_ft_expire every breath, an entry is unlinked
 * within this step (plus the longest gap between two calls) of its
 * deadline: sl_ft_stats' late_* measure it, step_gap_ns the longest gap.
 * Any thread. */
uint64_t sl_ft_expiry_step_ns(const struct sl_flowtable *t);

/* Lookup accounting for handles whose caller counts hits and misses.  h's
 * worker (single writer of h's counters). */
void sl_ft_count_lookups(struct sl_ft_handle *h, uint64_t hits, uint64_t misses);

/* Ids free right now (global pool plus every handle's cache).  Control
 * thread, workers stopped, for checks. */
uint32_t sl_ft_ids_free(const struct sl_flowtable *t);

/* Live entries (table-wide; a relaxed read while workers run).  Any thread. */
uint64_t sl_ft_live(const struct sl_flowtable *t);

/* The table's lines a hit reads: its bucket's and its entry's. */
#define SL_FT_HIT_BYTES (sizeof(struct sl_ft_bucket) + sizeof(struct sl_flow_entry))
/* The cache sl_ft_outgrows assumes where its size is not known. */
#define SL_FT_CACHE_GUESS (16ull << 20)

/* Whether the lines the hits of `live` flows read (SL_FT_HIT_BYTES each)
 * outgrow a cache of cache_bytes (0: unknown, SL_FT_CACHE_GUESS): its
 * lookups then miss to memory, and a caller that overlaps a batch's
 * misses wants a batch of its own (sl_ft_batch; flowcache's `batch`).
 * Any thread. */
static inline bool sl_ft_outgrows(uint64_t live, uint64_t cache_bytes)
{
	return live * SL_FT_HIT_BYTES > (cache_bytes != 0 ? cache_bytes : SL_FT_CACHE_GUESS);
}

/* The lookups a caller that overlaps a batch's misses (flowcache) takes at
 * once once the table outgrows the cache: enough in flight to keep the
 * core's misses to memory overlapped, few enough that a batch's lines are
 * still in the L1 when they are used (as measured; above 128 they are
 * not: 256 lookups' 512 lines, at random sets, evict each other).
 * bench_flowtable at 1M flows, cycles a lookup: 33.2 in batches of 64,
 * 26.1 of 96, 23.7 of 128, 24.0 of 160, 26.1 of 256; at 16M 40.7 of 128,
 * 45.6 of 256. */
#define SL_FT_MEMORY_BATCH 128u

/* Up to this many live flows, a batch's lookups are one pass after the
 * buckets' prefetch (sl_ft_match, then the key; the table's lines are in
 * the core's caches: 8192 flows take 512 KiB of entries and buckets at
 * most, the L2 of the CPUs measured); above, the signatures are matched
 * and the entries prefetched in a pass of their own first
 * (sl_ft_match_prefetch).  Measured in the flow cache: 4 cycles a packet
 * less at 1024 flows; in bench_flowtable, level at 1024 flows. */
#define SL_FT_STAGED_FLOWS 8192

/* Whether t's lookups take the staged form (SL_FT_STAGED_FLOWS).  Any
 * thread (a relaxed read of the live count). */
static inline bool sl_ft_staged(const struct sl_flowtable *t)
{
	return sl_ft_live(t) > SL_FT_STAGED_FLOWS;
}

/* The batch for `live` flows and a cache of cache_bytes (as
 * sl_ft_outgrows) of a caller whose burst is `burst`: the burst while the
 * hits' lines fit, SL_FT_MEMORY_BATCH once they do not (also when that is
 * smaller than the burst).  Any thread. */
static inline unsigned sl_ft_batch(uint64_t live, uint64_t cache_bytes, unsigned burst)
{
	return sl_ft_outgrows(live, cache_bytes) ? SL_FT_MEMORY_BATCH : burst;
}

#endif
