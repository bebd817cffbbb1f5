/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The flow table: see flowtable.h for the contract.
 *
 * Ordering.  A writer fills an entry, then stores the way's signature and
 * publishes its index with release; a reader loads the index with acquire
 * before it reads the entry, so it sees a complete entry.  Unlinking stores
 * index 0 (release).  An id (and so the entry's memory) is reused only after
 * the epoch grace period of its retirement, so a reader that loaded an index
 * before the unlink reads an unchanged entry until its next quiescent state.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/sysinfo.h>
#include <unistd.h>

#include <numa.h>
#include <numaif.h>
#include <rte_pause.h>

#include "base/counter.h"
#include "base/histogram.h"
#include "base/spin.h"
#include "apps/flowcache/flowtable.h"

_Static_assert(sizeof(struct sl_ft_stats) % sizeof(uint64_t) == 0, "stats are words");

#define ID_BATCH (SL_FT_ID_CACHE / 2)   /* ids moved per cache refill/spill */

/* Entries an expiry step retires at once, at most. */
#define SL_FT_RETIRE_BATCH 64u

struct sl_ft_handle {
	struct sl_flowtable *t;
	unsigned k;
	bool opened;
	struct sl_epoch *e;
	struct sl_epoch_worker *ew;
	sl_ft_record_fn *record;
	void *arg;
	uint32_t lo, hi;                     /* bucket range [lo, hi) */
	uint32_t cursor, flush_cursor;
	uint64_t scan_ns;                    /* scan mode: time of the last step */
	uint64_t expire_ns;                  /* time of the last sl_ft_expire */
	double scan_credit;                  /* buckets the pacing allows now */
	uint32_t stamp_gen;                  /* the table's stamp_gen last seen */
	uint32_t full_left;                  /* buckets to visit reading every
					      * entry (the stamps' units or the
					      * timeouts changed) */
	uint32_t n_cache;
	uint32_t cache[SL_FT_ID_CACHE];
	/* Entries an expiry or flush step has unlinked, retired together at
	 * its end (sl_epoch_retire_n: one stamp for them all). */
	uint32_t n_later;
	void *later[SL_FT_RETIRE_BATCH];
	struct sl_ft_stats st;               /* single writer: the handle's thread */
	struct sl_hist late;                 /* expiries: ns past the deadline (same writer) */

	/* Wheel mode.  The lists (w_head and the entries' w_next, w_prev,
	 * w_slot) change under w_lock: the owner files and takes slots out,
	 * any writer that unlinks an entry of this handle removes it.  The
	 * cursor is the owner's alone. */
	uint32_t w_lock __attribute__((aligned(64)));
	uint32_t *w_head;                    /* SL_FT_WHEEL_SLOTS heads, id + 1 */
	uint64_t w_cursor;                   /* next tick to fire */
	bool w_started;
} __attribute__((aligned(64)));

struct sl_flowtable {
	struct sl_ft_index ix;               /* first: the inline lookups read it */
	struct sl_flowtable_conf conf;
	char name[64];
	uint32_t n_buckets;
	uint32_t n_ids;
	uint64_t tick_ns;                    /* wheel mode: one slot */
	uint64_t sweep_ns;                   /* scan mode: one sweep of a range */
	/* The scan's stamps (struct sl_ft_bucket): a unit is 2^stamp_shift ns;
	 * stamp_gen goes up when the unit or a timeout changes (stamps written
	 * before may then be too late), and each handle's scan then reads
	 * every entry of its range once.  sl_ft_set_expiry writes both. */
	uint32_t stamp_shift;
	uint32_t stamp_gen;
	uint32_t *id_stack;
	size_t b_bytes, ent_bytes, meta_bytes;

	uint64_t live __attribute__((aligned(64)));

	struct {
		uint32_t lock;
		uint32_t n;                  /* ids on id_stack */
	} ids __attribute__((aligned(64)));

	struct sl_ft_handle h[];
};

/* ------------------------------------------------------------------ memory */

#define HUGE_2M (UINT64_C(2) << 20)

/* Bytes an allocation of `bytes` maps: whole 2 MB pages from 2 MB on. */
static size_t map_len(size_t bytes)
{
	return bytes >= HUGE_2M ? (bytes + HUGE_2M - 1) & ~(HUGE_2M - 1) : bytes;
}

/* Zeroed, page-aligned memory on socket (when >= 0 and libnuma works).
 * From 2 MB on, 2 MB aligned and advised as transparent huge pages: at
 * many flows every lookup lands on a random line of a table of hundreds of
 * MB, and with 4 kB pages nearly every one also missed the TLB (a page
 * walk per bucket and per entry, and the prefetches of a burst waited for
 * them).  Where the kernel gives no huge pages (THP off, memory
 * fragmented), 4 kB pages, as before. */
static void *alloc_on(size_t bytes, int socket)
{
	size_t len = map_len(bytes);
	size_t extra = len >= HUGE_2M ? HUGE_2M : 0;
	uint8_t *raw = mmap(NULL, len + extra, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			    -1, 0);
	if (raw == MAP_FAILED)
		return NULL;
	uint8_t *p = raw;
	if (extra != 0) {
		/* keep the 2 MB-aligned part, give the rest back */
		p = (uint8_t *)(((uintptr_t)raw + HUGE_2M - 1) & ~(uintptr_t)(HUGE_2M - 1));
		if (p > raw)
			munmap(raw, (size_t)(p - raw));
		if (p + len < raw + len + extra)
			munmap(p + len, (size_t)(raw + len + extra - (p + len)));
#ifdef MADV_HUGEPAGE
		madvise(p, len, MADV_HUGEPAGE);
#endif
	}
	if (socket >= 0 && numa_available() >= 0 && socket <= numa_max_node())
		numa_tonode_memory(p, len, socket);
	/* Fault every page in now, on the control thread, so that no worker
	 * stalls on a page fault (and holds reclamation up) mid-run. */
	memset(p, 0, len);
	return p;
}

static void free_on(void *p, size_t bytes)
{
	if (p != NULL)
		munmap(p, map_len(bytes));
}

/* ------------------------------------------------------------------ ids */

static bool id_get(struct sl_ft_handle *h, uint32_t *id)
{
	if (h->n_cache == 0) {
		struct sl_flowtable *t = h->t;
		sl_spin_lock(&t->ids.lock);
		uint32_t n = t->ids.n < ID_BATCH ? t->ids.n : ID_BATCH;
		t->ids.n -= n;
		memcpy(h->cache, &t->id_stack[t->ids.n], n * sizeof(uint32_t));
		sl_spin_unlock(&t->ids.lock);
		h->n_cache = n;
		if (n == 0)
			return false;
	}
	*id = h->cache[--h->n_cache];
	return true;
}

static void id_put(struct sl_ft_handle *h, uint32_t id)
{
	if (h->n_cache == SL_FT_ID_CACHE) {
		struct sl_flowtable *t = h->t;
		sl_spin_lock(&t->ids.lock);
		h->n_cache -= ID_BATCH;
		memcpy(&t->id_stack[t->ids.n], &h->cache[h->n_cache], ID_BATCH * sizeof(uint32_t));
		t->ids.n += ID_BATCH;
		sl_spin_unlock(&t->ids.lock);
	}
	h->cache[h->n_cache++] = id;
}

/* ------------------------------------------------------------------ life */

const char *sl_ft_reason_name(enum sl_ft_reason r)
{
	static const char *const names[SL_FT_REASONS] = {
		[SL_FT_IDLE] = "idle", [SL_FT_ACTIVE] = "active", [SL_FT_EVICTED] = "evicted",
		[SL_FT_FLUSHED] = "flushed", [SL_FT_STOPPED] = "stopped",
	};
	return (unsigned)r < SL_FT_REASONS ? names[r] : "?";
}

static uint32_t pow2_at_least(uint64_t v)
{
	uint32_t p = 1;
	while (p < v && p < (1u << 31))
		p <<= 1;
	return p;
}

/* ------------------------------------------------------------------ sizing */

/* The id pool size conf asks for (ids 0: capacity + max(capacity / 4, 1024)). */
static uint64_t conf_ids(const struct sl_flowtable_conf *conf)
{
	if (conf->ids != 0)
		return conf->ids;
	return (uint64_t)conf->capacity + (conf->capacity / 4 > 1024 ? conf->capacity / 4 : 1024);
}

static uint32_t conf_buckets(const struct sl_flowtable_conf *conf)
{
	return pow2_at_least(conf->capacity / 2 > 0 ? conf->capacity / 2 : 1);
}

uint64_t sl_ft_mem_bytes(const struct sl_flowtable_conf *conf)
{
	uint64_t ids = conf_ids(conf);
	uint64_t handles = conf->n_handles > 0 ? conf->n_handles : 1;
	uint64_t bytes = map_len((uint64_t)conf_buckets(conf) * sizeof(struct sl_ft_bucket)) +
			 map_len(ids * sizeof(struct sl_flow_entry)) +
			 map_len(ids * sizeof(struct sl_flow_meta)) + ids * sizeof(uint32_t) +
			 sizeof(struct sl_flowtable) + handles * sizeof(struct sl_ft_handle);
	if (conf->expiry == SL_FT_WHEEL)
		bytes += handles * SL_FT_WHEEL_SLOTS * sizeof(uint32_t);
	return bytes;
}

static uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

/* The number after `key` in a "Key:   N kB" line of /proc/meminfo, in bytes;
 * UINT64_MAX if absent. */
static uint64_t meminfo_bytes(const char *key)
{
	FILE *f = fopen("/proc/meminfo", "r");
	char line[256];
	uint64_t v = UINT64_MAX;
	size_t klen = strlen(key);

	if (f == NULL)
		return UINT64_MAX;
	while (fgets(line, sizeof(line), f) != NULL) {
		unsigned long long kb;
		if (strncmp(line, key, klen) == 0 && line[klen] == ':' &&
		    sscanf(line + klen + 1, "%llu kB", &kb) == 1 && kb <= UINT64_MAX / 1024) {
			v = (uint64_t)kb * 1024;
			break;
		}
	}
	fclose(f);
	return v;
}

/* A cgroup file holding one number ("max": none); UINT64_MAX if unreadable. */
static uint64_t cgroup_number(const char *root, const char *dir, const char *file)
{
	char path[4200];
	char text[64] = "";
	unsigned long long v;

	snprintf(path, sizeof(path), "%s%s/%s", root, dir, file);
	FILE *f = fopen(path, "r");
	if (f == NULL)
		return UINT64_MAX;
	bool got = fgets(text, sizeof(text), f) != NULL;
	fclose(f);
	if (!got || sscanf(text, "%llu", &v) != 1)
		return UINT64_MAX;
	return v;
}

/* One "key value" line of a cgroup's memory.stat; 0 if absent. */
static uint64_t cgroup_stat(const char *root, const char *dir, const char *key)
{
	char path[4200], line[256];
	size_t klen = strlen(key);
	unsigned long long v;
	uint64_t got = 0;

	snprintf(path, sizeof(path), "%s%s/memory.stat", root, dir);
	FILE *f = fopen(path, "r");
	if (f == NULL)
		return 0;
	while (fgets(line, sizeof(line), f) != NULL)
		if (strncmp(line, key, klen) == 0 && line[klen] == ' ' &&
		    sscanf(line + klen + 1, "%llu", &v) == 1) {
			got = v;
			break;
		}
	fclose(f);
	return got;
}

/* Room left under the memory limit of the cgroup dir and of each cgroup
 * above it (files limit and usage under root).  The usage counts the page
 * cache; its inactive part (stat key inactive) is reclaimed before the
 * limit bites, so it counts as room. */
static uint64_t cgroup_dir_room(const char *root, char *dir, const char *limit,
				const char *usage, const char *inactive)
{
	uint64_t room = UINT64_MAX;

	for (;;) {
		uint64_t max = cgroup_number(root, dir, limit);
		uint64_t cur = cgroup_number(root, dir, usage);
		if (cur != UINT64_MAX)
			cur -= min_u64(cur, cgroup_stat(root, dir, inactive));
		if (max != UINT64_MAX && cur != UINT64_MAX)
			room = min_u64(room, max > cur ? max - cur : 0);
		char *slash = strrchr(dir, '/');
		if (slash == NULL || slash == dir)
			break;
		*slash = '\0';
	}
	return room;
}

/* Room left under the memory limits of this process's cgroups: v2
 * (memory.max) and v1 (the memory controller's memory.limit_in_bytes). */
static uint64_t cgroup_room(void)
{
	FILE *f = fopen("/proc/self/cgroup", "r");
	char line[4096];
	uint64_t room = UINT64_MAX;

	if (f == NULL)
		return UINT64_MAX;
	while (fgets(line, sizeof(line), f) != NULL) {
		line[strcspn(line, "\n")] = '\0';
		char *ctrl = strchr(line, ':');
		char *dir = ctrl != NULL ? strchr(ctrl + 1, ':') : NULL;
		if (dir == NULL || dir[1] != '/')
			continue;
		*dir++ = '\0';
		ctrl++;
		if (ctrl[0] == '\0')
			room = min_u64(room, cgroup_dir_room("/sys/fs/cgroup", dir, "memory.max",
							     "memory.current", "inactive_file"));
		else if (strcmp(ctrl, "memory") == 0 || strstr(ctrl, "memory,") != NULL ||
			 (strlen(ctrl) > 7 && strcmp(ctrl + strlen(ctrl) - 7, ",memory") == 0))
			room = min_u64(room, cgroup_dir_room("/sys/fs/cgroup/memory", dir,
							     "memory.limit_in_bytes",
							     "memory.usage_in_bytes",
							     "total_inactive_file"));
	}
	fclose(f);
	return room;
}

/* Room left under a resource limit, given the pages now used against it. */
static uint64_t rlimit_room(int resource, uint64_t used)
{
	struct rlimit rl;

	if (getrlimit(resource, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
		return UINT64_MAX;
	return rl.rlim_cur > used ? rl.rlim_cur - used : 0;
}

uint64_t sl_ft_mem_available(const char **what)
{
	const char *why = "MemAvailable in /proc/meminfo";
	uint64_t avail = meminfo_bytes("MemAvailable");

	if (avail == UINT64_MAX) {
		struct sysinfo si;
		if (sysinfo(&si) == 0) {
			avail = ((uint64_t)si.freeram + si.bufferram) * si.mem_unit;
			why = "free memory from sysinfo";
		}
	}
	uint64_t cg = cgroup_room();
	if (cg < avail) {
		avail = cg;
		why = "the memory limit of its cgroup";
	}
	unsigned long long size = 0, rss = 0, shared = 0, text = 0, lib = 0, data = 0;
	FILE *f = fopen("/proc/self/statm", "r");
	if (f != NULL) {
		if (fscanf(f, "%llu %llu %llu %llu %llu %llu", &size, &rss, &shared, &text, &lib,
			   &data) != 6)
			size = data = 0;
		fclose(f);
	}
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	uint64_t as = rlimit_room(RLIMIT_AS, size * page);
	if (as < avail) {
		avail = as;
		why = "the address space limit, ulimit -v";
	}
	uint64_t ds = rlimit_room(RLIMIT_DATA, data * page);
	if (ds < avail) {
		avail = ds;
		why = "the data size limit, ulimit -d";
	}
	if (what != NULL)
		*what = why;
	return avail;
}

/* "1.5 GiB", "300 MiB", "12 KiB". */
static const char *fmt_bytes(char *buf, size_t len, uint64_t b)
{
	if (b >= (UINT64_C(1) << 30))
		snprintf(buf, len, "%.1f GiB", (double)b / (double)(UINT64_C(1) << 30));
	else if (b >= (UINT64_C(1) << 20))
		snprintf(buf, len, "%.1f MiB", (double)b / (double)(UINT64_C(1) << 20));
	else
		snprintf(buf, len, "%" PRIu64 " KiB", (b + 1023) / 1024);
	return buf;
}

int sl_ft_mem_check(const struct sl_flowtable_conf *conf, uint64_t avail, const char *what,
		    struct sl_err *err)
{
	uint64_t need = sl_ft_mem_bytes(conf);
	char nb[32], ab[32];

	if (need <= avail)
		return 0;
	return sl_errf(err, ENOMEM,
		       "a flow table of %" PRIu32 " entries (%" PRIu64 " ids) needs %s of memory, "
		       "but this process can get %s (bound by %s); lower 'entries' or 'ids'",
		       conf->capacity, conf_ids(conf), fmt_bytes(nb, sizeof(nb), need),
		       fmt_bytes(ab, sizeof(ab), avail), what != NULL ? what : "available memory");
}

/* The limits of conf, named by name.  Returns 0, or -EINVAL with a sentence
 * in err. */
static int check_conf(const struct sl_flowtable_conf *conf, const char *name,
		      struct sl_err *err)
{
	if (conf->capacity == 0 || conf->capacity > (1u << 28))
		return sl_errf(err, EINVAL, "table '%s': capacity must be 1..%u, got %u", name,
			       1u << 28, conf->capacity);
	uint64_t ids = conf_ids(conf);
	if (ids < conf->capacity || ids > (1u << 30))
		return sl_errf(err, EINVAL, "table '%s': ids must be at least the capacity (%u) "
			       "and at most %u, got %u", name, conf->capacity, 1u << 30, conf->ids);
	if (conf->expiry_cap == 0)
		return sl_errf(err, EINVAL, "table '%s': expiry_cap must be at least 1", name);
	if (conf->expiry != SL_FT_SCAN && conf->expiry != SL_FT_WHEEL)
		return sl_errf(err, EINVAL, "table '%s': expiry must be scan or wheel", name);
	if (conf->n_handles == 0 || conf->n_handles > SL_FT_MAX_HANDLES)
		return sl_errf(err, EINVAL, "table '%s': it can be shared by 1..%u apps, got %u",
			       name, SL_FT_MAX_HANDLES, conf->n_handles);
	return 0;
}

/* Buckets, entries (faulted in on conf->socket) and the id pool, full, ids
 * handed out from 0 up.  Returns 0 or -ENOMEM with a sentence in err (the
 * caller frees t). */
static int alloc_storage(struct sl_flowtable *t, const char *name, struct sl_err *err)
{
	t->b_bytes = (size_t)t->n_buckets * sizeof(struct sl_ft_bucket);
	t->ent_bytes = (size_t)t->n_ids * sizeof(struct sl_flow_entry);
	t->meta_bytes = (size_t)t->n_ids * sizeof(struct sl_flow_meta);
	t->ix.b = alloc_on(t->b_bytes, t->conf.socket);
	t->ix.ent = alloc_on(t->ent_bytes, t->conf.socket);
	t->ix.meta = alloc_on(t->meta_bytes, t->conf.socket);
	t->id_stack = malloc((size_t)t->n_ids * sizeof(uint32_t));
	if (t->ix.b == NULL || t->ix.ent == NULL || t->ix.meta == NULL || t->id_stack == NULL) {
		char nb[32];
		return sl_errf(err, ENOMEM, "table '%s': out of memory for %" PRIu32 " ids and "
			       "their entries (%s in all)", name, t->n_ids,
			       fmt_bytes(nb, sizeof(nb), sl_ft_mem_bytes(&t->conf)));
	}
	/* Highest id at the bottom, so that ids are handed out from 0 up. */
	for (uint32_t i = 0; i < t->n_ids; i++)
		t->id_stack[i] = t->n_ids - 1 - i;
	t->ids.n = t->n_ids;
	return 0;
}

/* Each handle's share of the buckets (handle k of n the k-th of n equal
 * ranges) and, in wheel mode, its wheel.  Returns 0 or -ENOMEM. */
static int init_handles(struct sl_flowtable *t)
{
	uint32_t n = t->conf.n_handles;
	for (uint32_t k = 0; k < n; k++) {
		struct sl_ft_handle *h = &t->h[k];
		if (t->conf.expiry == SL_FT_WHEEL) {
			h->w_head = calloc(SL_FT_WHEEL_SLOTS, sizeof(uint32_t));
			if (h->w_head == NULL)
				return -ENOMEM;
		}
		h->t = t;
		h->k = k;
		sl_hist_init(&h->late);
		h->lo = (uint32_t)((uint64_t)t->n_buckets * k / n);
		h->hi = (uint32_t)((uint64_t)t->n_buckets * (k + 1) / n);
		h->cursor = h->lo;
		h->flush_cursor = h->lo;
	}
	return 0;
}

static uint64_t shortest_timeout(uint64_t idle_ns, uint64_t active_ns)
{
	uint64_t shortest = idle_ns;
	if (active_ns != 0 && (shortest == 0 || active_ns < shortest))
		shortest = active_ns;
	return shortest;
}

static uint64_t sweep_of(uint64_t shortest)
{
	return shortest / 8 > 1 ? shortest / 8 : 1;
}

/* The stamps' unit for a shortest timeout: 2^shift ns, the smallest power
 * of two (at least 1 us) of which the timeout is at most 64.  A deadline
 * is then never more than 65 units ahead of now, and the scan visits each
 * bucket every 3.5 to 7 units (the sweep is 7/8 of an eighth of the
 * timeout; fewer below 64 us, where the unit stays 1 us). */
static uint32_t stamp_shift_of(uint64_t shortest)
{
	uint32_t shift = 10;
	while (shift < 48 && (UINT64_C(64) << shift) < shortest)
		shift++;
	return shift;
}

int sl_ft_check_expiry(const struct sl_flowtable *t, uint64_t idle_ns, uint64_t active_ns,
		       unsigned expiry_cap, struct sl_err *err)
{
	if (expiry_cap == 0)
		return sl_errf(err, EINVAL, "table '%s': expiry_cap must be at least 1", t->name);
	if (t->conf.expiry == SL_FT_WHEEL &&
	    (idle_ns != __atomic_load_n(&t->conf.idle_ns, __ATOMIC_RELAXED) ||
	     active_ns != __atomic_load_n(&t->conf.active_ns, __ATOMIC_RELAXED)))
		return sl_errf(err, EPERM, "table '%s': the timeouts of a table with expiry wheel "
			       "cannot change while running (its slots are sized by them); restart "
			       "Sluice, or use expiry scan", t->name);
	return 0;
}

void sl_ft_set_expiry(struct sl_flowtable *t, uint64_t idle_ns, uint64_t active_ns,
		      unsigned expiry_cap)
{
	bool changed = idle_ns != __atomic_load_n(&t->conf.idle_ns, __ATOMIC_RELAXED) ||
		       active_ns != __atomic_load_n(&t->conf.active_ns, __ATOMIC_RELAXED);
	__atomic_store_n(&t->conf.idle_ns, idle_ns, __ATOMIC_RELAXED);
	__atomic_store_n(&t->conf.active_ns, active_ns, __ATOMIC_RELAXED);
	__atomic_store_n(&t->conf.expiry_cap, expiry_cap, __ATOMIC_RELAXED);
	__atomic_store_n(&t->sweep_ns, sweep_of(shortest_timeout(idle_ns, active_ns)),
			 __ATOMIC_RELAXED);
	if (changed) {
		/* Stamps written with the old timeouts may be later than the
		 * deadlines now: each scan reads all its entries once (the
		 * release orders the timeouts and the unit before the gen). */
		__atomic_store_n(&t->stamp_shift,
				 stamp_shift_of(shortest_timeout(idle_ns, active_ns)),
				 __ATOMIC_RELAXED);
		__atomic_fetch_add(&t->stamp_gen, 1, __ATOMIC_RELEASE);
	}
}

struct sl_flowtable *sl_ft_create(const struct sl_flowtable_conf *conf, struct sl_err *err)
{
	const char *name = conf->name != NULL ? conf->name : "flowtable";
	int rc = check_conf(conf, name, err);
	if (rc < 0) {
		errno = -rc;
		return NULL;
	}
	/* Refuse at once what cannot fit, rather than fault pages in for
	 * minutes and then fail (or be killed). */
	const char *what;
	uint64_t avail = sl_ft_mem_available(&what);
	if (sl_ft_mem_check(conf, avail, what, err) < 0) {
		sl_err_prefix(err, ENOMEM, "table '%s'", name);
		errno = ENOMEM;
		return NULL;
	}

	size_t bytes = sizeof(struct sl_flowtable) + conf->n_handles * sizeof(struct sl_ft_handle);
	struct sl_flowtable *t = aligned_alloc(64, (bytes + 63) / 64 * 64);
	if (t == NULL) {
		sl_errf(err, ENOMEM, "table '%s': out of memory", name);
		errno = ENOMEM;
		return NULL;
	}
	memset(t, 0, bytes);
	t->conf = *conf;
	snprintf(t->name, sizeof(t->name), "%s", name);
	t->conf.name = t->name;
	t->conf.ids = (uint32_t)conf_ids(conf);
	if (t->conf.scan == 0)
		t->conf.scan = 4 * conf->expiry_cap;
	t->n_ids = t->conf.ids;
	t->n_buckets = conf_buckets(conf);
	t->ix.mask = t->n_buckets - 1;

	uint64_t shortest = shortest_timeout(conf->idle_ns, conf->active_ns);
	t->tick_ns = shortest / 256 > 1000 ? shortest / 256 : 1000;
	t->sweep_ns = sweep_of(shortest);
	t->stamp_shift = stamp_shift_of(shortest);

	rc = alloc_storage(t, name, err);
	if (rc == 0 && (rc = init_handles(t)) < 0)
		sl_errf(err, -rc, "table '%s': out of memory", name);
	if (rc < 0) {
		sl_ft_free(t);
		errno = -rc;
		return NULL;
	}
	return t;
}

struct sl_ft_handle *sl_ft_open(struct sl_flowtable *t, unsigned k, struct sl_epoch *e,
				struct sl_epoch_worker *ew, sl_ft_record_fn *record,
				void *arg, struct sl_err *err)
{
	if (k >= t->conf.n_handles) {
		sl_errf(err, EINVAL, "table '%s': handle %u of %u", t->name, k, t->conf.n_handles);
		errno = EINVAL;
		return NULL;
	}
	struct sl_ft_handle *h = &t->h[k];
	if (h->opened) {
		sl_errf(err, EBUSY, "table '%s': handle %u is already open", t->name, k);
		errno = EBUSY;
		return NULL;
	}
	if (e == NULL || ew == NULL) {
		sl_errf(err, EINVAL, "table '%s': needs the engine's epoch", t->name);
		errno = EINVAL;
		return NULL;
	}
	h->opened = true;
	h->e = e;
	h->ew = ew;
	h->record = record;
	h->arg = arg;
	return h;
}

void sl_ft_free(struct sl_flowtable *t)
{
	if (t == NULL)
		return;
	free_on(t->ix.b, t->b_bytes);
	free_on(t->ix.ent, t->ent_bytes);
	free_on(t->ix.meta, t->meta_bytes);
	free(t->id_stack);
	for (unsigned k = 0; k < t->conf.n_handles; k++)
		free(t->h[k].w_head);
	free(t);
}

const struct sl_flowtable_conf *sl_ft_conf(const struct sl_flowtable *t)
{
	return &t->conf;
}

/* ------------------------------------------------------------------ readers */

void sl_ft_prefetch_insert(const struct sl_flowtable *t, uint32_t hash)
{
	const struct sl_ft_bucket *b = &t->ix.b[hash & t->ix.mask];
	uint32_t ix[SL_FT_WAYS];
	unsigned used = 0;
	for (unsigned w = 0; w < SL_FT_WAYS; w++) {
		ix[w] = __atomic_load_n(&b->idx[w], __ATOMIC_RELAXED);
		used += ix[w] != 0;
	}
	/* a victim will be chosen by the ways' last-seen times */
	if (used < SL_FT_WAYS &&
	    __atomic_load_n(&t->live, __ATOMIC_RELAXED) < t->conf.capacity)
		return;
	for (unsigned w = 0; w < SL_FT_WAYS; w++)
		if (ix[w] != 0) {
			/* the choice reads last_ns, the unlink the key and the meta */
			__builtin_prefetch(&t->ix.ent[ix[w] - 1], 0, 3);
			__builtin_prefetch(&t->ix.meta[ix[w] - 1], 0, 3);
		}
}

/* ------------------------------------------------------------------ writers */

static void free_entry(void *obj, void *arg)
{
	struct sl_flow_entry *e = obj;
	struct sl_ft_handle *h = arg;
	id_put(h, sl_ft_entry_id(h->t, e));
	sl_counter_add(&h->st.freed, 1);
}

/* ------------------------------------------------------------------ wheel */

/* The settings sl_ft_set_expiry may change while workers run: relaxed
 * loads (each a value the table had; one call may mix old and new). */
static inline uint64_t idle_of(const struct sl_flowtable *t)
{
	return __atomic_load_n(&t->conf.idle_ns, __ATOMIC_RELAXED);
}

static inline uint64_t active_of(const struct sl_flowtable *t)
{
	return __atomic_load_n(&t->conf.active_ns, __ATOMIC_RELAXED);
}

static uint64_t deadline_of(const struct sl_flowtable *t, const struct sl_flow_entry *e)
{
	uint64_t d = UINT64_MAX, idle = idle_of(t), active = active_of(t);
	if (idle != 0)
		d = __atomic_load_n(&e->last_ns, __ATOMIC_RELAXED) + idle;
	if (active != 0 && sl_ft_meta(t, e)->first_ns + active < d)
		d = sl_ft_meta(t, e)->first_ns + active;
	return d;
}

/* ------------------------------------------------------------------ stamps */

/* now's unit of the scan's stamps (struct sl_ft_bucket). */
static inline uint32_t stamp_unit(const struct sl_flowtable *t, uint64_t ns)
{
	return (uint32_t)(ns >> __atomic_load_n(&t->stamp_shift, __ATOMIC_RELAXED));
}

/* Stamp way w of b with the unit of deadline d, rounded down (b's lock
 * held; the scan reads the stamps without it). */
static void stamp_set(const struct sl_flowtable *t, struct sl_ft_bucket *b, unsigned w, uint64_t d)
{
	unsigned sh = 8 * w;
	uint64_t st = __atomic_load_n(&b->stamp, __ATOMIC_RELAXED);
	st = (st & ~(UINT64_C(0xff) << sh)) | (uint64_t)(uint8_t)stamp_unit(t, d) << sh;
	__atomic_store_n(&b->stamp, st, __ATOMIC_RELAXED);
}

/* A stamp is read as a signed byte against now's unit.  No stamp is
 * written more than 65 units ahead of its writer's now (a deadline is at
 * most the shorter timeout away), so one that reads further ahead than
 * STAMP_AHEAD_MAX is one from the past that wrapped (an insert on a worker
 * that was away for long): due.  Past stamps are thus exact while less
 * than 256 - STAMP_AHEAD_MAX units behind; a bucket not visited whole for
 * STAMP_STALE units may hold older ones, and the scan then reads all its
 * entries.  `visit` is written only when it is STAMP_VISIT_EVERY units old
 * (a lower bound of the last whole visit, which is all the check needs),
 * so that a sweep reads the bucket lines without writing each back. */
#define STAMP_AHEAD_MAX 72
#define STAMP_STALE 96u
#define STAMP_VISIT_EVERY 32u

/* The scan asks for the entries of the bucket this many ahead. */
#define SCAN_AHEAD 2u

/* The live ways of b that the scan reads at unit now_u: those whose stamp
 * has come, or all of them (`all`, or stale stamps).  Every stamp is a
 * lower bound of its entry's deadline (set at insert from its first
 * deadline, and by the scan from the deadline it read; a touch only moves
 * a deadline later), so a way whose stamp is still ahead has not expired.
 * Relaxed loads of the handle's own view; take_way looks again under the
 * lock. */
static unsigned due_ways(const struct sl_ft_bucket *b, uint32_t now_u, bool all)
{
	all = all || now_u - b->visit >= STAMP_STALE;
	uint64_t st = __atomic_load_n(&b->stamp, __ATOMIC_RELAXED);
	unsigned ways = 0;
	for (unsigned w = 0; w < SL_FT_WAYS; w++) {
		if (__atomic_load_n(&b->idx[w], __ATOMIC_RELAXED) == 0)
			continue;
		int8_t ahead = (int8_t)(uint8_t)((uint8_t)(st >> (8 * w)) - (uint8_t)now_u);
		if (all || ahead <= 0 || ahead > STAMP_AHEAD_MAX)
			ways |= 1u << w;
	}
	return ways;
}

/* Ask for the entry and meta lines of b's due ways (a bucket the scan
 * reaches a few steps later). */
static void due_prefetch(const struct sl_flowtable *t, const struct sl_ft_bucket *b,
			 uint32_t now_u, bool all)
{
	unsigned ways = due_ways(b, now_u, all);
	while (ways != 0) {
		unsigned w = (unsigned)__builtin_ctz(ways);
		ways &= ways - 1;
		uint32_t ix = __atomic_load_n(&b->idx[w], __ATOMIC_RELAXED);
		if (ix != 0) {
			__builtin_prefetch(&t->ix.ent[ix - 1], 0, 3);
			__builtin_prefetch(&t->ix.meta[ix - 1], 0, 3);
		}
	}
}

static bool wheel_used(const struct sl_flowtable *t)
{
	return t->conf.expiry == SL_FT_WHEEL && (idle_of(t) != 0 || active_of(t) != 0);
}

/* File e in its owner o's wheel at its deadline (o's thread; the entry's
 * bucket lock held), but not before tick cursor + after (after is 1 for an
 * entry filed again while the cursor's slot is being fired, so that it does
 * not land in the slot about to be passed).  A deadline already past fires
 * at that tick; one beyond the wheel's span is filed at its far end and
 * filed again then. */
static void wheel_add(struct sl_ft_handle *o, struct sl_flow_entry *e, uint64_t now,
		      unsigned after)
{
	struct sl_flowtable *t = o->t;
	if (!o->w_started) {
		o->w_cursor = now / t->tick_ns;
		o->w_started = true;
	}
	uint64_t tick = deadline_of(t, e) / t->tick_ns;
	if (tick < o->w_cursor + after)
		tick = o->w_cursor + after;
	if (tick >= o->w_cursor + SL_FT_WHEEL_SLOTS)
		tick = o->w_cursor + SL_FT_WHEEL_SLOTS - 1;
	uint32_t slot = (uint32_t)(tick & (SL_FT_WHEEL_SLOTS - 1));
	uint32_t ix = sl_ft_entry_id(t, e) + 1;
	struct sl_flow_meta *m = sl_ft_meta(t, e);
	sl_spin_lock(&o->w_lock);
	m->w_slot = slot;
	m->w_prev = 0;
	m->w_next = o->w_head[slot];
	if (m->w_next != 0)
		t->ix.meta[m->w_next - 1].w_prev = ix;
	o->w_head[slot] = ix;
	__atomic_store_n(&m->w_state, 1, __ATOMIC_RELAXED);
	sl_spin_unlock(&o->w_lock);
}

/* Take e out of its owner's wheel if it is filed (the entry's bucket lock
 * held).  An entry the owner has taken out to fire is left to the owner,
 * which finds it unlinked. */
static void wheel_remove(struct sl_flowtable *t, struct sl_flow_entry *e)
{
	struct sl_flow_meta *m = sl_ft_meta(t, e);
	struct sl_ft_handle *o = &t->h[m->handle];
	sl_spin_lock(&o->w_lock);
	if (__atomic_load_n(&m->w_state, __ATOMIC_RELAXED) == 1) {
		if (m->w_prev != 0)
			t->ix.meta[m->w_prev - 1].w_next = m->w_next;
		else
			o->w_head[m->w_slot] = m->w_next;
		if (m->w_next != 0)
			t->ix.meta[m->w_next - 1].w_prev = m->w_prev;
		__atomic_store_n(&m->w_state, 0, __ATOMIC_RELAXED);
	}
	sl_spin_unlock(&o->w_lock);
}

/* Clear way w of b (lock held) and describe its entry in rec. */
static struct sl_flow_entry *unlink_way(struct sl_flowtable *t, struct sl_ft_bucket *b, unsigned w,
					enum sl_ft_reason reason, struct sl_flow_record *rec)
{
	uint32_t ix = b->idx[w];
	struct sl_flow_entry *e = &t->ix.ent[ix - 1];
	__atomic_store_n(&b->idx[w], 0, __ATOMIC_RELEASE);
	__atomic_store_n(&b->sig[w], 0, __ATOMIC_RELAXED);
	__atomic_store_n(&sl_ft_meta(t, e)->linked, 0, __ATOMIC_RELAXED);
	__atomic_fetch_sub(&t->live, 1, __ATOMIC_RELAXED);
	if (wheel_used(t))
		wheel_remove(t, e);
	rec->key = e->key;
	rec->id = sl_ft_entry_id(t, e);
	rec->reason = reason;
	rec->packets = __atomic_load_n(&e->packets, __ATOMIC_RELAXED);
	rec->bytes = __atomic_load_n(&e->bytes, __ATOMIC_RELAXED);
	rec->first_ns = sl_ft_meta(t, e)->first_ns;
	rec->last_ns = __atomic_load_n(&e->last_ns, __ATOMIC_RELAXED);
	rec->cookie = sl_ft_meta(t, e)->cookie;
	return e;
}

/* After the bucket lock is released: count and report an unlinked entry. */
static void report_unlink(struct sl_ft_handle *h, const struct sl_flow_record *rec)
{
	sl_counter_add(&h->st.unlinked[rec->reason], 1);
	if (h->record != NULL)
		h->record(rec, h->arg);
}

/* Report and retire an unlinked entry (inserts and evictions). */
static void finish_unlink(struct sl_ft_handle *h, struct sl_flow_entry *e,
			  const struct sl_flow_record *rec)
{
	report_unlink(h, rec);
	/* The caller checked the room; a failure would mean a second retirer
	 * on this epoch handle.  Never free early: keep the id out of use. */
	(void)sl_epoch_retire(h->e, h->ew, e, free_entry, h);
}

/* Retire the entries a step has put aside.  Their room was checked when
 * the step began (its cap is at most the room then). */
static void retire_later(struct sl_ft_handle *h)
{
	if (h->n_later == 0)
		return;
	(void)sl_epoch_retire_n(h->e, h->ew, h->later, h->n_later, free_entry, h);
	h->n_later = 0;
}

/* Report an unlinked entry and put it aside, to be retired with the
 * step's others (expiry and flush steps, which end with retire_later). */
static void finish_unlink_later(struct sl_ft_handle *h, struct sl_flow_entry *e,
				const struct sl_flow_record *rec)
{
	report_unlink(h, rec);
	if (h->n_later == SL_FT_RETIRE_BATCH)
		retire_later(h);
	h->later[h->n_later++] = e;
}

/* The way of b's least recently seen entry, or -1 if b is empty (lock held). */
static int oldest_way(const struct sl_flowtable *t, const struct sl_ft_bucket *b)
{
	int best = -1;
	uint64_t best_ns = UINT64_MAX;
	for (unsigned w = 0; w < SL_FT_WAYS; w++) {
		uint32_t ix = b->idx[w];
		if (ix == 0)
			continue;
		uint64_t ns = __atomic_load_n(&t->ix.ent[ix - 1].last_ns, __ATOMIC_RELAXED);
		if (ns < best_ns) {
			best_ns = ns;
			best = (int)w;
		}
	}
	return best;
}

/* Evict the least recently seen entry of the first non-empty bucket after
 * `from` (capacity eviction when the inserting bucket was empty). */
static void evict_elsewhere(struct sl_ft_handle *h, uint32_t from)
{
	struct sl_flowtable *t = h->t;
	for (uint32_t i = 1; i < t->n_buckets; i++) {
		struct sl_ft_bucket *b = &t->ix.b[(from + i) & t->ix.mask];
		sl_spin_lock(&b->lock);
		int w = oldest_way(t, b);
		if (w < 0) {
			sl_spin_unlock(&b->lock);
			continue;
		}
		struct sl_flow_record rec;
		struct sl_flow_entry *e = unlink_way(t, b, (unsigned)w, SL_FT_EVICTED, &rec);
		sl_spin_unlock(&b->lock);
		finish_unlink(h, e, &rec);
		return;
	}
}

struct sl_flow_entry *sl_ft_insert(struct sl_ft_handle *h, const struct sl_flow_key *k,
				   uint32_t hash, uint64_t now, uint64_t cookie,
				   enum sl_ft_insert_status *status)
{
	struct sl_flowtable *t = h->t;
	uint32_t bi = hash & t->ix.mask;
	struct sl_ft_bucket *b = &t->ix.b[bi];
	uint16_t sig = (uint16_t)(hash >> 16);
	bool room = sl_epoch_retire_room(h->e, h->ew) > 0;
	uint32_t id = 0;
	bool got_id = id_get(h, &id);

	sl_spin_lock(&b->lock);
	int free_way = -1;
	unsigned used = 0;
	for (unsigned w = 0; w < SL_FT_WAYS; w++) {
		uint32_t ix = b->idx[w];
		if (ix == 0) {
			if (free_way < 0)
				free_way = (int)w;
			continue;
		}
		used++;
		if (b->sig[w] != sig)
			continue;
		struct sl_flow_entry *o = &t->ix.ent[ix - 1];
		if (sl_ft_meta(t, o)->hash == hash && sl_flow_key_eq(&o->key, k)) {
			sl_spin_unlock(&b->lock);
			if (got_id)
				id_put(h, id);
			sl_counter_add(&h->st.insert_races, 1);
			*status = SL_FT_FOUND;
			return o;
		}
	}
	/* Reserve a place among the live entries: whoever reserves beyond the
	 * capacity evicts one, so that concurrent inserters cannot leave the
	 * table above capacity for good. */
	bool at_cap = __atomic_fetch_add(&t->live, 1, __ATOMIC_RELAXED) >= t->conf.capacity;
	bool victim_here = free_way < 0 || (at_cap && used > 0);
	if ((victim_here || at_cap) && !room) {
		__atomic_fetch_sub(&t->live, 1, __ATOMIC_RELAXED);
		sl_spin_unlock(&b->lock);
		if (got_id)
			id_put(h, id);
		sl_counter_add(&h->st.no_room, 1);
		*status = SL_FT_NO_ROOM;
		return NULL;
	}
	struct sl_flow_entry *victim = NULL;
	struct sl_flow_record rec;
	if (victim_here) {
		int w = oldest_way(t, b);
		victim = unlink_way(t, b, (unsigned)w, SL_FT_EVICTED, &rec);
		free_way = w;
	}
	if (!got_id) {
		/* Every id is live or in its grace period.  The eviction (if
		 * one was due) still happens, so that its id comes back. */
		__atomic_fetch_sub(&t->live, 1, __ATOMIC_RELAXED);
		sl_spin_unlock(&b->lock);
		if (victim != NULL)
			finish_unlink(h, victim, &rec);
		else if (at_cap)
			evict_elsewhere(h, bi);
		sl_counter_add(&h->st.no_id, 1);
		*status = SL_FT_NO_ID;
		return NULL;
	}

	struct sl_flow_entry *e = &t->ix.ent[id];
	struct sl_flow_meta *m = &t->ix.meta[id];
	e->key = *k;
	__atomic_store_n(&e->packets, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&e->bytes, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&e->last_ns, now, __ATOMIC_RELAXED);
	m->hash = hash;
	m->first_ns = now;
	m->cookie = cookie;
	m->handle = h->k;
	__atomic_store_n(&m->linked, 1, __ATOMIC_RELAXED);
	/* its first deadline, from timeouts read under the lock: a scan that
	 * reads every entry after sl_ft_set_expiry takes this lock first
	 * (sl_ft_expire) */
	stamp_set(t, b, (unsigned)free_way, deadline_of(t, e));
	if (wheel_used(t))
		wheel_add(h, e, now, 0);
	__atomic_store_n(&b->sig[free_way], sig, __ATOMIC_RELAXED);
	__atomic_store_n(&b->idx[free_way], id + 1, __ATOMIC_RELEASE);
	sl_spin_unlock(&b->lock);

	sl_counter_add(&h->st.inserted, 1);
	if (victim != NULL)
		finish_unlink(h, victim, &rec);
	else if (at_cap)
		evict_elsewhere(h, bi);
	*status = SL_FT_INSERTED;
	return e;
}

/* Whether e has expired at now; if so, *why says which timeout it reached. */
/* Is e expired at now?  Then *why says which timeout, and *late (when not
 * NULL) how far past that deadline now is, in ns. */
static bool expired(const struct sl_flowtable *t, const struct sl_flow_entry *e, uint64_t now,
		    enum sl_ft_reason *why, uint64_t *late)
{
	uint64_t idle = idle_of(t), active = active_of(t);
	uint64_t last = __atomic_load_n(&e->last_ns, __ATOMIC_RELAXED);
	if (idle != 0 && now >= last && now - last >= idle) {
		*why = SL_FT_IDLE;
		if (late != NULL)
			*late = now - last - idle;
		return true;
	}
	uint64_t first = sl_ft_meta(t, e)->first_ns;
	if (active != 0 && now >= first && now - first >= active) {
		*why = SL_FT_ACTIVE;
		if (late != NULL)
			*late = now - first - active;
		return true;
	}
	return false;
}

/* Unlink, report and retire way w of b if it still holds ix and (reason < 0)
 * is expired at now (if not, stamp the way with the deadline it has now),
 * or unconditionally with `reason`.  Returns 1 if it did. */
static unsigned take_way(struct sl_ft_handle *h, struct sl_ft_bucket *b, unsigned w, uint32_t ix,
			 int reason, uint64_t now)
{
	struct sl_flowtable *t = h->t;
	sl_spin_lock(&b->lock);
	if (b->idx[w] != ix) {
		sl_spin_unlock(&b->lock);
		return 0;
	}
	enum sl_ft_reason r = (enum sl_ft_reason)reason;
	uint64_t late;
	if (reason < 0 && !expired(t, &t->ix.ent[ix - 1], now, &r, &late)) {
		stamp_set(t, b, w, deadline_of(t, &t->ix.ent[ix - 1]));
		sl_spin_unlock(&b->lock);
		return 0;
	}
	if (reason < 0)
		sl_hist_record(&h->late, late);
	struct sl_flow_record rec;
	struct sl_flow_entry *e = unlink_way(t, b, w, r, &rec);
	sl_spin_unlock(&b->lock);
	finish_unlink_later(h, e, &rec);
	return 1;
}

/* A wheel entry whose slot came due, taken out by its owner h: unlink it if
 * it is expired (and may_unlink), else file it again.  Returns 1 if it was
 * unlinked. */
static unsigned wheel_fire(struct sl_ft_handle *h, struct sl_flow_entry *e, uint64_t now,
			   bool may_unlink)
{
	struct sl_flowtable *t = h->t;
	struct sl_flow_meta *m = sl_ft_meta(t, e);
	struct sl_ft_bucket *b = &t->ix.b[m->hash & t->ix.mask];
	sl_spin_lock(&b->lock);
	if (__atomic_load_n(&m->linked, __ATOMIC_RELAXED) == 0) {
		/* another writer unlinked it meanwhile (and left it to us) */
		__atomic_store_n(&m->w_state, 0, __ATOMIC_RELAXED);
		sl_spin_unlock(&b->lock);
		return 0;
	}
	enum sl_ft_reason r;
	uint64_t late;
	if (may_unlink && expired(t, e, now, &r, &late)) {
		sl_hist_record(&h->late, late);
		uint32_t ix = sl_ft_entry_id(t, e) + 1;
		for (unsigned w = 0; w < SL_FT_WAYS; w++) {
			if (b->idx[w] != ix)
				continue;
			struct sl_flow_record rec;
			unlink_way(t, b, w, r, &rec);
			__atomic_store_n(&m->w_state, 0, __ATOMIC_RELAXED);
			sl_spin_unlock(&b->lock);
			finish_unlink_later(h, e, &rec);
			return 1;
		}
	}
	wheel_add(h, e, now, may_unlink ? 1 : 0);
	sl_spin_unlock(&b->lock);
	sl_counter_add(&h->st.refiled, 1);
	return 0;
}

/* Fire due slots.  The work per call is bounded by `scan`: each empty slot
 * passed and each entry taken out counts one; a slot's entries are taken
 * off its front at most that many at a time (the rest stay filed, and the
 * cursor stays on the slot until it is empty). */
static unsigned wheel_expire(struct sl_ft_handle *h, uint64_t now, unsigned cap)
{
	struct sl_flowtable *t = h->t;
	if (!h->w_started)
		return 0;   /* nothing filed yet */
	uint64_t target = now / t->tick_ns;
	unsigned done = 0, budget = t->conf.scan, visited = 0;
	while (h->w_cursor <= target && budget > 0 && done < cap) {
		uint32_t slot = (uint32_t)(h->w_cursor & (SL_FT_WHEEL_SLOTS - 1));
		uint32_t n = 0, last = 0;
		sl_spin_lock(&h->w_lock);
		uint32_t list = h->w_head[slot], ix = list;
		while (ix != 0 && n < budget) {
			struct sl_flow_meta *m = &t->ix.meta[ix - 1];
			__atomic_store_n(&m->w_state, 2, __ATOMIC_RELAXED);
			last = ix;
			ix = m->w_next;
			n++;
		}
		h->w_head[slot] = ix;          /* what is left stays filed */
		if (ix != 0)
			t->ix.meta[ix - 1].w_prev = 0;
		if (last != 0)
			t->ix.meta[last - 1].w_next = 0;
		sl_spin_unlock(&h->w_lock);
		budget -= n > 0 ? n : 1;
		visited += n > 0 ? n : 1;
		for (ix = list; n > 0 && ix != 0;) {
			struct sl_flow_entry *e = &t->ix.ent[ix - 1];
			ix = t->ix.meta[ix - 1].w_next;
			/* past the cap: filed again, into this slot if due */
			done += wheel_fire(h, e, now, done < cap);
		}
		sl_spin_lock(&h->w_lock);
		bool empty = h->w_head[slot] == 0;
		sl_spin_unlock(&h->w_lock);
		if (empty)
			h->w_cursor++;
	}
	sl_counter_add(&h->st.scanned, visited);
	return done;
}

unsigned sl_ft_expire(struct sl_ft_handle *h, uint64_t now)
{
	struct sl_flowtable *t = h->t;
	if (h->expire_ns != 0 && now > h->expire_ns)
		sl_counter_max(&h->st.step_gap_ns, now - h->expire_ns);
	h->expire_ns = now;
	if (idle_of(t) == 0 && active_of(t) == 0)
		return 0;
	unsigned room = sl_epoch_retire_room(h->e, h->ew);
	unsigned ecap = __atomic_load_n(&t->conf.expiry_cap, __ATOMIC_RELAXED);
	unsigned cap = ecap < room ? ecap : room;
	if (t->conf.expiry == SL_FT_WHEEL) {
		unsigned n = wheel_expire(h, now, cap);
		retire_later(h);
		return n;
	}
	if (h->hi == h->lo)
		return 0;
	/* Pace the sweep: one range per 7/8 of sweep_ns, never more than
	 * `scan` buckets per step.  What a step could not visit (the cap, or
	 * a long gap since the last step) stays owed, up to one whole range,
	 * and is worked off by the next steps, `scan` at a time: a sweep
	 * slowed by a burst of expiries or a slow breath catches up instead of
	 * falling behind for good.  The eighth of the step left over is the
	 * room for that catching up: an entry still ends within sweep_ns of
	 * its deadline (plus the gap) while the catching up after a gap takes
	 * less than it. */
	uint64_t dt = now > h->scan_ns ? now - h->scan_ns : 0;
	uint64_t sweep = __atomic_load_n(&t->sweep_ns, __ATOMIC_RELAXED);
	uint64_t pace = sweep - sweep / 8;
	if (dt > pace || h->scan_ns == 0)
		dt = pace;
	h->scan_ns = now;
	h->scan_credit += (double)dt * (h->hi - h->lo) / (double)pace;
	if (h->scan_credit > (double)(h->hi - h->lo))
		h->scan_credit = (double)(h->hi - h->lo);
	unsigned allowed = h->scan_credit < t->conf.scan ? (unsigned)h->scan_credit : t->conf.scan;
	uint32_t gen = __atomic_load_n(&t->stamp_gen, __ATOMIC_ACQUIRE);
	if (gen != h->stamp_gen) {
		h->stamp_gen = gen;
		h->full_left = h->hi - h->lo;
	}
	uint32_t now_u = stamp_unit(t, now);
	unsigned done = 0, visited = 0, checked = 0;
	while (visited < allowed && done < cap) {
		struct sl_ft_bucket *b = &t->ix.b[h->cursor];
		bool all = h->full_left > 0;
		if (all) {
			/* an insert that read the old timeouts holds this lock
			 * until its stamp is written: wait for it */
			sl_spin_lock(&b->lock);
			sl_spin_unlock(&b->lock);
		}
		uint32_t ahead = h->cursor + SCAN_AHEAD;
		while (ahead >= h->hi)
			ahead -= h->hi - h->lo;
		due_prefetch(t, &t->ix.b[ahead], now_u, all);
		unsigned ways = due_ways(b, now_u, all);
		while (ways != 0 && done < cap) {
			unsigned w = (unsigned)__builtin_ctz(ways);
			ways &= ways - 1;
			uint32_t ix = __atomic_load_n(&b->idx[w], __ATOMIC_ACQUIRE);
			if (ix == 0)
				continue;
			checked++;
			done += take_way(h, b, w, ix, -1, now);
		}
		/* the cap reached before the bucket's last due way: the next
		 * step starts on this bucket again (else its remaining expired
		 * entries would wait a whole sweep) */
		if (ways != 0)
			break;
		if (now_u - b->visit >= STAMP_VISIT_EVERY)
			b->visit = now_u;
		if (h->full_left > 0)
			h->full_left--;
		visited++;
		if (++h->cursor == h->hi)
			h->cursor = h->lo;
	}
	h->scan_credit -= visited;
	sl_counter_add(&h->st.scanned, visited);
	sl_counter_add(&h->st.checked, checked);
	retire_later(h);
	return done;
}

unsigned sl_ft_flush(struct sl_ft_handle *h, unsigned cap)
{
	struct sl_flowtable *t = h->t;
	unsigned room = sl_epoch_retire_room(h->e, h->ew);
	if (cap > room)
		cap = room;
	unsigned done = 0;
	while (done < cap && h->flush_cursor < h->hi) {
		struct sl_ft_bucket *b = &t->ix.b[h->flush_cursor];
		bool left = false;
		for (unsigned w = 0; w < SL_FT_WAYS; w++) {
			uint32_t ix = __atomic_load_n(&b->idx[w], __ATOMIC_ACQUIRE);
			if (ix == 0)
				continue;
			if (done == cap) {
				left = true;
				break;
			}
			done += take_way(h, b, w, ix, SL_FT_FLUSHED, 0);
		}
		if (!left)
			h->flush_cursor++;
	}
	if (h->flush_cursor >= h->hi && done == 0)
		h->flush_cursor = h->lo;   /* next flush starts over */
	retire_later(h);
	return done;
}

uint64_t sl_ft_close(struct sl_ft_handle *h)
{
	struct sl_flowtable *t = h->t;
	uint64_t n = 0;
	for (uint32_t i = h->lo; i < h->hi; i++) {
		struct sl_ft_bucket *b = &t->ix.b[i];
		for (unsigned w = 0; w < SL_FT_WAYS; w++) {
			if (b->idx[w] == 0)
				continue;
			struct sl_flow_record rec;
			struct sl_flow_entry *e = unlink_way(t, b, w, SL_FT_STOPPED, &rec);
			sl_counter_add(&h->st.unlinked[SL_FT_STOPPED], 1);
			if (h->record != NULL)
				h->record(&rec, h->arg);
			free_entry(e, h);
			n++;
		}
	}
	h->w_started = false;
	return n;
}

/* ------------------------------------------------------------------ metrics */

void sl_ft_count_lookups(struct sl_ft_handle *h, uint64_t hits, uint64_t misses)
{
	sl_counter_add(&h->st.lookups, hits + misses);
	sl_counter_add(&h->st.hits, hits);
	sl_counter_add(&h->st.misses, misses);
}

void sl_ft_handle_stats(const struct sl_ft_handle *h, struct sl_ft_stats *out)
{
	const uint64_t *src = (const uint64_t *)&h->st;
	uint64_t *dst = (uint64_t *)out;
	for (size_t i = 0; i < sizeof(*out) / sizeof(uint64_t); i++)
		dst[i] = sl_counter_read(&src[i]);
	out->live = sl_ft_live(h->t);
	/* a private copy of the lateness, for percentiles of one moment */
	struct sl_hist *late = malloc(sizeof(*late));
	if (late != NULL) {
		sl_hist_init(late);
		sl_hist_merge(late, &h->late);
		out->late_count = sl_hist_count(late);
		out->late_p50_ns = out->late_count ? sl_hist_percentile(late, 0.5) : 0;
		out->late_p99_ns = out->late_count ? sl_hist_percentile(late, 0.99) : 0;
		out->late_max_ns = out->late_count ? sl_hist_max(late) : 0;
		free(late);
	}
}

uint64_t sl_ft_expiry_step_ns(const struct sl_flowtable *t)
{
	if (t->conf.expiry == SL_FT_WHEEL)
		return t->tick_ns;
	return __atomic_load_n(&t->sweep_ns, __ATOMIC_RELAXED);
}

uint32_t sl_ft_ids_free(const struct sl_flowtable *t)
{
	uint32_t n = t->ids.n;
	for (unsigned k = 0; k < t->conf.n_handles; k++)
		n += t->h[k].n_cache;
	return n;
}

uint64_t sl_ft_live(const struct sl_flowtable *t)
{
	return __atomic_load_n(&t->live, __ATOMIC_RELAXED);
}
