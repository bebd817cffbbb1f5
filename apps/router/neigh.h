/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * neigh.h: a router's neighbour table: IPv4 entries (ARP) and IPv6 entries
 * (neighbour discovery) in one table, the same states and aging for both.
 *
 * States (RFC 4861's, as Linux keeps them for ARP too):
 *   incomplete  created when a packet needs a neighbour that has no entry; a
 *               request has been sent and up to `hold` packets wait in the
 *               entry's queue.  A request is sent again every `retrans`;
 *               after `probes` requests with no reply the entry is removed
 *               and the packets it held are handed to the caller's on_fail
 *               (the router answers each with an ICMP host unreachable and
 *               frees it).
 *   reachable   a reply (or a request from it to us) confirmed the MAC less
 *               than `reachable` ago.
 *   stale       confirmed longer ago; still used to forward.  The first use
 *               of a stale entry in each `retrans` asks the caller to probe
 *               it again (a unicast request); a reply makes it reachable.  An
 *               entry `stale` past its reachable time without a confirmation
 *               is removed (aged out).
 *   static      a route's dst_mac: never ages (kept in the route, not here).
 *
 * Aging.  sl_nb_age() visits at most `budget` buckets from where the last
 * call stopped, so a full pass over the table takes buckets / budget calls;
 * the router calls it once per millisecond (tick) with a budget that covers
 * the table in SL_NB_PASS_MS.  An entry is so removed at most SL_NB_PASS_MS
 * after its time is up, plus the epoch's grace period before its memory is
 * freed (docs/router.md gives the measured bound).
 *
 * Capacity.  At most `max` entries.  A new entry when the table is full
 * evicts the oldest incomplete one (a flood of unknown neighbours only
 * replaces its own kind); with none incomplete, nothing is created.
 *
 * Memory.  An entry that is removed is unlinked at once and retired through
 * the engine's epoch (engine/epoch/epoch.h), so a reader that found it in
 * the same breath never sees freed memory.  Held packets are owned by the
 * entry until they are handed back (sl_nb_confirm, on_fail) or freed (a
 * full queue, eviction, sl_nb_table_free).
 *
 * Threads: one table per router, used by the router's worker only (create
 * and free on the control thread, workers stopped).  Errors follow
 * engine/base/err.h.
 */
#ifndef SL_NEIGH_H
#define SL_NEIGH_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_mbuf.h>

#include "base/err.h"

#define SL_NB_HOLD_MAX 64     /* packets an incomplete entry may hold at most */
#define SL_NB_PASS_MS 16      /* a full aging pass takes this long at most */

enum sl_nb_state { SL_NB_INCOMPLETE, SL_NB_REACHABLE, SL_NB_STALE };

struct sl_nb {
	struct sl_nb *next;                 /* hash chain */
	struct sl_nb *older, *newer;        /* the incomplete list, oldest first */
	uint32_t addr;                      /* IPv4, host order (0 for IPv6) */
	uint8_t addr6[16];                  /* IPv6, when v6 */
	bool v6;
	uint8_t iface;                      /* the router's interface index */
	uint8_t state;                      /* enum sl_nb_state */
	uint8_t probes;                     /* requests sent since the last confirmation */
	uint8_t mac[6];
	uint64_t confirmed;                 /* TSC: last confirmation (creation while incomplete) */
	uint64_t next_probe;                /* TSC: the next request may go */
	uint16_t n_held;
	struct rte_mbuf *held[];            /* the table's `hold` slots */
};

struct sl_nb_conf {
	unsigned max;                       /* entries, >= 1 */
	unsigned hold;                      /* packets held per incomplete entry, 0..SL_NB_HOLD_MAX */
	uint64_t reachable_ns, stale_ns, retrans_ns;
	unsigned probes;                    /* requests before an incomplete entry fails, >= 1 */
	int socket;
};

/* The table's own counters (the router shows them). */
struct sl_nb_stats {
	uint64_t created, removed_aged, removed_failed, evicted, full;
	uint64_t held, hold_drops;
	uint64_t aged_late_max;             /* TSC: the most an aged entry outlived its time */
};

struct sl_nb_table;
struct sl_epoch;
struct sl_epoch_worker;

/* Create a table; NULL with errno and a sentence in err.  Control thread. */
struct sl_nb_table *sl_nb_table_create(const struct sl_nb_conf *conf, struct sl_err *err);
/* Free every entry and the packets they hold.  NULL: no-op.  Control
 * thread, the router's worker stopped. */
void sl_nb_table_free(struct sl_nb_table *t);
/* Where removed entries are retired (the router's worker's epoch handle);
 * without one they are freed at once.  Before the worker runs. */
void sl_nb_table_set_epoch(struct sl_nb_table *t, struct sl_epoch *e, struct sl_epoch_worker *w);

/* The entry for addr (IPv4, host order; or IPv6), or NULL. */
struct sl_nb *sl_nb_find(const struct sl_nb_table *t, uint32_t addr);
struct sl_nb *sl_nb_find6(const struct sl_nb_table *t, const uint8_t addr[16]);

/* A new incomplete entry for addr on iface (none may exist), made at TSC
 * now; NULL when the table is full and holds no incomplete entry to evict. */
struct sl_nb *sl_nb_create(struct sl_nb_table *t, uint32_t addr, uint8_t iface, uint64_t now);
struct sl_nb *sl_nb_create6(struct sl_nb_table *t, const uint8_t addr[16], uint8_t iface,
			    uint64_t now);

/* Hold m on an incomplete entry: true, or false when its queue is full (the
 * caller frees m; counted in hold_drops). */
bool sl_nb_hold(struct sl_nb_table *t, struct sl_nb *e, struct rte_mbuf *m);

/* A confirmation of e's MAC at TSC now: reachable, probes reset.  Packets
 * it held are moved to out (room for SL_NB_HOLD_MAX); returns their number. */
unsigned sl_nb_confirm(struct sl_nb_table *t, struct sl_nb *e, const uint8_t mac[6],
		       uint64_t now, struct rte_mbuf **out);

/* A use of e to forward at TSC now: true when the caller should send it a
 * request (a stale entry, not probed in the last retrans). */
bool sl_nb_use(struct sl_nb_table *t, struct sl_nb *e, uint64_t now);

/* What aging asks of the router: probe (send a request for e; unicast when
 * e has a MAC) and fail (a packet e held when it failed: the router owns
 * it). */
struct sl_nb_ops {
	void (*probe)(void *arg, const struct sl_nb *e);
	void (*fail)(void *arg, const struct sl_nb *e, struct rte_mbuf *m);
	void *arg;
};

/* Age at most budget buckets at TSC now (see above). */
void sl_nb_age(struct sl_nb_table *t, uint64_t now, unsigned budget, const struct sl_nb_ops *ops);

/* Buckets in the table (for the aging budget), entries now, counters. */
unsigned sl_nb_buckets(const struct sl_nb_table *t);
unsigned sl_nb_count(const struct sl_nb_table *t);
const struct sl_nb_stats *sl_nb_stats(const struct sl_nb_table *t);

/* Visit every entry (control thread, the worker stopped; or the worker). */
void sl_nb_walk(const struct sl_nb_table *t, void (*fn)(void *arg, const struct sl_nb *e),
		void *arg);

const char *sl_nb_state_name(unsigned state);   /* "incomplete", ... */

#endif
