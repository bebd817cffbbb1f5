/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_jhash.h>
#include <rte_malloc.h>

#include "epoch/epoch.h"
#include "apps/router/neigh.h"

struct sl_nb_table {
	struct sl_nb **bucket;
	uint32_t mask;
	unsigned n, max, hold, probes;
	uint64_t reachable, stale, retrans;   /* TSC cycles */
	struct sl_nb *inc_old, *inc_new;      /* incomplete entries, oldest first */
	unsigned cursor;                      /* the next bucket to age */
	struct sl_epoch *epoch;
	struct sl_epoch_worker *ew;
	int socket;
	struct sl_nb_stats st;
};

static uint64_t ns_to_tsc(uint64_t ns)
{
	return (uint64_t)((double)ns * (double)rte_get_tsc_hz() / 1e9);
}

struct sl_nb_table *sl_nb_table_create(const struct sl_nb_conf *conf, struct sl_err *err)
{
	if (conf->max == 0 || conf->hold > SL_NB_HOLD_MAX || conf->probes == 0) {
		errno = EINVAL;
		return sl_errf_null(err, EINVAL, "neighbour table: bad size, hold or probes");
	}
	struct sl_nb_table *t = rte_zmalloc_socket("sl_nb_table", sizeof(*t), 0, conf->socket);
	if (t == NULL) {
		errno = ENOMEM;
		return sl_errf_null(err, ENOMEM, "out of memory for the neighbour table");
	}
	unsigned nb = 16;
	while (nb < conf->max * 2u && nb < (1u << 24))
		nb <<= 1;
	t->bucket = rte_zmalloc_socket("sl_nb_buckets", nb * sizeof(*t->bucket), 0, conf->socket);
	if (t->bucket == NULL) {
		rte_free(t);
		errno = ENOMEM;
		return sl_errf_null(err, ENOMEM, "out of memory for %u neighbour buckets", nb);
	}
	t->mask = nb - 1;
	t->max = conf->max;
	t->hold = conf->hold;
	t->probes = conf->probes;
	t->reachable = ns_to_tsc(conf->reachable_ns);
	t->stale = ns_to_tsc(conf->stale_ns);
	t->retrans = ns_to_tsc(conf->retrans_ns);
	t->socket = conf->socket;
	return t;
}

static void free_entry(void *obj, void *arg)
{
	(void)arg;
	rte_free(obj);
}

void sl_nb_table_free(struct sl_nb_table *t)
{
	if (t == NULL)
		return;
	for (unsigned b = 0; b <= t->mask; b++) {
		struct sl_nb *e = t->bucket[b];
		while (e != NULL) {
			struct sl_nb *next = e->next;
			rte_pktmbuf_free_bulk(e->held, e->n_held);
			rte_free(e);
			e = next;
		}
	}
	rte_free(t->bucket);
	rte_free(t);
}

void sl_nb_table_set_epoch(struct sl_nb_table *t, struct sl_epoch *e, struct sl_epoch_worker *w)
{
	t->epoch = e;
	t->ew = w;
}

static inline unsigned bucket_of(const struct sl_nb_table *t, uint32_t addr)
{
	return rte_jhash_1word(addr, 0x5eed) & t->mask;
}

static inline unsigned bucket_of6(const struct sl_nb_table *t, const uint8_t a[16])
{
	uint32_t w[4];   /* a may sit anywhere in a frame: rte_jhash reads words */
	memcpy(w, a, sizeof(w));
	return rte_jhash_32b(w, 4, 0x5eed6) & t->mask;
}

static inline unsigned bucket_of_entry(const struct sl_nb_table *t, const struct sl_nb *e)
{
	return e->v6 ? bucket_of6(t, e->addr6) : bucket_of(t, e->addr);
}

struct sl_nb *sl_nb_find(const struct sl_nb_table *t, uint32_t addr)
{
	for (struct sl_nb *e = t->bucket[bucket_of(t, addr)]; e != NULL; e = e->next)
		if (e->addr == addr && !e->v6)
			return e;
	return NULL;
}

struct sl_nb *sl_nb_find6(const struct sl_nb_table *t, const uint8_t addr[16])
{
	for (struct sl_nb *e = t->bucket[bucket_of6(t, addr)]; e != NULL; e = e->next)
		if (e->v6 && memcmp(e->addr6, addr, 16) == 0)
			return e;
	return NULL;
}

static void inc_unlink(struct sl_nb_table *t, struct sl_nb *e)
{
	if (e->older != NULL)
		e->older->newer = e->newer;
	else
		t->inc_old = e->newer;
	if (e->newer != NULL)
		e->newer->older = e->older;
	else
		t->inc_new = e->older;
	e->older = e->newer = NULL;
}

/* Unlink e from its chain (and the incomplete list) and retire it.  Its
 * held packets must have been handed away or freed. */
static void remove_entry(struct sl_nb_table *t, struct sl_nb *e)
{
	struct sl_nb **pp = &t->bucket[bucket_of_entry(t, e)];
	while (*pp != e)
		pp = &(*pp)->next;
	*pp = e->next;
	if (e->state == SL_NB_INCOMPLETE)
		inc_unlink(t, e);
	t->n--;
	if (t->epoch == NULL || sl_epoch_retire(t->epoch, t->ew, e, free_entry, NULL) < 0)
		rte_free(e);   /* only this worker reads the table: safe at once */
}

static struct sl_nb *create(struct sl_nb_table *t, uint32_t addr, const uint8_t *addr6,
			    uint8_t iface, uint64_t now)
{
	if (t->n >= t->max) {
		struct sl_nb *victim = t->inc_old;
		if (victim == NULL) {
			t->st.full++;
			return NULL;
		}
		t->st.hold_drops += victim->n_held;
		rte_pktmbuf_free_bulk(victim->held, victim->n_held);
		victim->n_held = 0;
		remove_entry(t, victim);
		t->st.evicted++;
	}
	struct sl_nb *e = rte_zmalloc_socket("sl_nb", sizeof(*e) + t->hold * sizeof(e->held[0]), 0,
					     t->socket);
	if (e == NULL) {
		t->st.full++;
		return NULL;
	}
	e->addr = addr;
	if (addr6 != NULL) {
		e->v6 = true;
		memcpy(e->addr6, addr6, 16);
	}
	e->iface = iface;
	e->state = SL_NB_INCOMPLETE;
	e->confirmed = now;
	e->probes = 1;                 /* the caller sends the first request */
	e->next_probe = now + t->retrans;
	unsigned b = bucket_of_entry(t, e);
	e->next = t->bucket[b];
	t->bucket[b] = e;
	e->older = t->inc_new;
	if (t->inc_new != NULL)
		t->inc_new->newer = e;
	else
		t->inc_old = e;
	t->inc_new = e;
	t->n++;
	t->st.created++;
	return e;
}

struct sl_nb *sl_nb_create(struct sl_nb_table *t, uint32_t addr, uint8_t iface, uint64_t now)
{
	return create(t, addr, NULL, iface, now);
}

struct sl_nb *sl_nb_create6(struct sl_nb_table *t, const uint8_t addr[16], uint8_t iface,
			    uint64_t now)
{
	return create(t, 0, addr, iface, now);
}

bool sl_nb_hold(struct sl_nb_table *t, struct sl_nb *e, struct rte_mbuf *m)
{
	if (e->n_held >= t->hold) {
		t->st.hold_drops++;
		return false;
	}
	e->held[e->n_held++] = m;
	t->st.held++;
	return true;
}

unsigned sl_nb_confirm(struct sl_nb_table *t, struct sl_nb *e, const uint8_t mac[6],
		       uint64_t now, struct rte_mbuf **out)
{
	if (e->state == SL_NB_INCOMPLETE)
		inc_unlink(t, e);
	memcpy(e->mac, mac, sizeof(e->mac));
	e->state = SL_NB_REACHABLE;
	e->confirmed = now;
	e->probes = 0;
	e->next_probe = now;
	unsigned n = e->n_held;
	memcpy(out, e->held, n * sizeof(*out));
	e->n_held = 0;
	return n;
}

bool sl_nb_use(struct sl_nb_table *t, struct sl_nb *e, uint64_t now)
{
	if (likely(e->state != SL_NB_STALE) || now < e->next_probe)
		return false;
	e->next_probe = now + t->retrans;
	if (e->probes < UINT8_MAX)
		e->probes++;
	return true;
}

/* One entry's timers; true when it was removed. */
static bool age_entry(struct sl_nb_table *t, struct sl_nb *e, uint64_t now,
		      const struct sl_nb_ops *ops)
{
	switch (e->state) {
	case SL_NB_INCOMPLETE:
		if (now < e->next_probe)
			return false;
		if (e->probes >= t->probes) {
			for (unsigned i = 0; i < e->n_held; i++)
				ops->fail(ops->arg, e, e->held[i]);
			e->n_held = 0;
			t->st.removed_failed++;
			remove_entry(t, e);
			return true;
		}
		e->probes++;
		e->next_probe = now + t->retrans;
		ops->probe(ops->arg, e);
		return false;
	case SL_NB_REACHABLE:
		if (now - e->confirmed >= t->reachable)
			e->state = SL_NB_STALE;
		return false;
	default:   /* stale */
		if (now - e->confirmed < t->reachable + t->stale)
			return false;
		t->st.removed_aged++;
		if (now - e->confirmed - t->reachable - t->stale > t->st.aged_late_max)
			t->st.aged_late_max = now - e->confirmed - t->reachable - t->stale;
		remove_entry(t, e);
		return true;
	}
}

void sl_nb_age(struct sl_nb_table *t, uint64_t now, unsigned budget, const struct sl_nb_ops *ops)
{
	for (unsigned k = 0; k < budget; k++) {
		unsigned b = t->cursor;
		t->cursor = (b + 1) & t->mask;
		struct sl_nb *e = t->bucket[b];
		while (e != NULL) {
			struct sl_nb *next = e->next;   /* e may be retired */
			age_entry(t, e, now, ops);
			e = next;
		}
	}
}

unsigned sl_nb_buckets(const struct sl_nb_table *t)
{
	return t->mask + 1;
}

unsigned sl_nb_count(const struct sl_nb_table *t)
{
	return t->n;
}

const struct sl_nb_stats *sl_nb_stats(const struct sl_nb_table *t)
{
	return &t->st;
}

void sl_nb_walk(const struct sl_nb_table *t, void (*fn)(void *arg, const struct sl_nb *e),
		void *arg)
{
	for (unsigned b = 0; b <= t->mask; b++)
		for (const struct sl_nb *e = t->bucket[b]; e != NULL; e = e->next)
			fn(arg, e);
}

const char *sl_nb_state_name(unsigned state)
{
	switch (state) {
	case SL_NB_INCOMPLETE: return "incomplete";
	case SL_NB_REACHABLE: return "reachable";
	case SL_NB_STALE: return "stale";
	}
	return "?";
}
