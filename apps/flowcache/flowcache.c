/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * flowcache: keeps a table of the flows passing through (apps/flowcache/flowtable.h)
 * and reports each flow when it ends.
 *
 * Per packet: the frame is parsed (apps/pkt/pkt.h); an IPv4 or IPv6 packet is
 * looked up by its 5-tuple without locks, a new flow is inserted (evicting
 * the least recently seen flow of its bucket when the table is full), and
 * the flow's packets, bytes and last-seen time are updated.  Then the packet
 * goes to `output`.  Frames that are not IP (ARP, LLDP, ...) pass uncounted
 * by the table; malformed IP frames (truncated, bad IHL, bad length) are
 * dropped and counted by reason.  Fragments after the first carry no ports
 * and are counted under the datagram's 3-tuple (ports 0).
 *
 * Ending flows.  Each breath (tick) a capped expiry step unlinks flows idle
 * for idle_timeout or alive for active_timeout (at most expiry_cap flows,
 * `scan` buckets or wheel slots visited), found by an incremental scan of
 * the app's share of the buckets (expiry: scan) or by a timer wheel of the
 * flows the app inserted (expiry: wheel); see apps/flowcache/flowtable.h.  Whatever unlinks a flow (expiry, eviction) emits
 * its record at once and retires the entry; its memory and flow id return
 * to the table when the epoch grace period ends (engine.epoch).
 *
 * Records.  `records: PATH` appends one JSON object per line to a file: the
 * worker queues the lines in a 256 KiB buffer and writes it, offline in the
 * epoch, about once a second or when it is half full (a record that finds
 * it full is lost, and counted), and at stop; an app whose
 * `records` output is connected also sends each record as an Ethernet frame
 * of ethertype 0x88b5 (local experimental) carrying the same JSON line, to
 * 02:00:00:00:00:00 from 02:00:00:00:00:01.  Fields: table, flow_id,
 * family, proto, src, sport, dst, dport, packets, bytes, start, end (Unix
 * time, seconds with nanoseconds), reason (idle, active, evicted, stopped).
 * At stop the flows still live are reported with reason "stopped" to the
 * file only (the links are closed by then).
 *
 * Sharing.  Apps naming the same `table` share one table (one handle each;
 * put them on different workers, fed by split or RSS, so each sees its own
 * flows).  They must agree on entries, ids, the timeouts, the expiry
 * settings and route, and each must name the table (an app's private table
 * cannot be joined); each one scans its share of the buckets for expiry.
 *
 * Route caching.  With `route: R` (a router app), a new IPv4 flow's next hop
 * is looked up in R's table once and kept in the entry; every packet of the
 * flow then carries it as a route hint (apps/router/route.h), so R skips its own
 * lookup.
 *
 * Counters: fc_counters below (`sluice apps flowcache` lists them).  The
 * table's (lookups ... checked) are the app's handle's statistics, which
 * telemetry samples while running and the engine collects at stop; the
 * rest are counted by the app's worker.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_ether.h>

#include "runtime/app.h"
#include "apps/flowcache/flowtable.h"
#include "apps/flowcache/ipfix.h"
#include "apps/pkt/pkt.h"
#include "apps/router/route.h"

#define FC_RECORD_ETHERTYPE 0x88b5
#define FC_RECORD_MAX 512             /* bytes of one JSON line */
#define FC_FLUSH_NS 1000000000ull
#define FC_FILE_BUF (256u * 1024u)     /* records waiting for the file */
#define FC_IPFIX_QUEUE 16384u          /* records waiting for the IPFIX exporter */
/* The app's counters, in the order of fc_counters. */
enum {
	FC_LOOKUPS, FC_HITS, FC_MISSES, FC_INSERTED, FC_RACES, FC_NO_ID, FC_NO_ROOM,
	FC_IDLE, FC_ACTIVE, FC_EVICTED, FC_STOPPED, FC_FREED, FC_VISITED, FC_REFILED,
	FC_CHECKED,
	FC_NOT_IP, FC_MALFORMED,
	FC_MALFORMED_R,                   /* + reason - 1, for reasons 1.. */
	FC_RECORDS = FC_MALFORMED_R + SL_PKT_R_COUNT - 1,
	FC_RECORDS_LOST,
	FC_IPFIX_SENT, FC_IPFIX_LOST, FC_IPFIX_MESSAGES, FC_IPFIX_CONNECTS,
	FC_LIVE, FC_TABLE_BYTES,
	FC_LATE_P50, FC_LATE_P99, FC_LATE_MAX, FC_EXPIRY_STEP, FC_TICK_GAP,
	FC_BATCH,
	FC_N_COUNTERS
};

static const struct sl_counter_spec fc_counters[FC_N_COUNTERS] = {
	[FC_LOOKUPS] = { "lookups", SL_COUNTER, "Table lookups by this app (hits plus misses)." },
	[FC_HITS] = { "hits", SL_COUNTER, "Lookups that found the packet's flow." },
	[FC_MISSES] = { "misses", SL_COUNTER, "Lookups that found no flow (a new flow, or one that just ended)." },
	[FC_INSERTED] = { "inserted", SL_COUNTER, "Flows this app inserted." },
	[FC_RACES] = { "races", SL_COUNTER, "Inserts that found the flow inserted meanwhile by another app sharing the table." },
	[FC_NO_ID] = { "no_id", SL_COUNTER, "Inserts refused because no flow id was free (ids still in their grace period)." },
	[FC_NO_ROOM] = { "no_room", SL_COUNTER, "Inserts refused because the bucket was full and nothing could be evicted." },
	[FC_IDLE] = { "idle", SL_COUNTER, "Flows ended by the idle timeout." },
	[FC_ACTIVE] = { "active", SL_COUNTER, "Flows ended by the active timeout." },
	[FC_EVICTED] = { "evicted", SL_COUNTER, "Flows evicted to make room for a new flow." },
	[FC_STOPPED] = { "stopped", SL_COUNTER, "Flows still live at stop, ended with reason stopped." },
	[FC_FREED] = { "freed", SL_COUNTER, "Ended flows whose entry and id went back to the table after the grace period." },
	[FC_VISITED] = { "visited", SL_COUNTER, "Buckets (expiry scan) or entries and slots (expiry wheel) visited by expiry." },
	[FC_REFILED] = { "refiled", SL_COUNTER, "Entries the timer wheel filed again (seen since they were filed)." },
	[FC_CHECKED] = { "checked", SL_COUNTER, "Entries the expiry scan read: their bucket's stamp said their deadline may have come." },
	[FC_NOT_IP] = { "not_ip", SL_COUNTER, "Frames that are not IPv4 or IPv6 (ARP, LLDP, ...), passed on uncounted by the table." },
	[FC_MALFORMED] = { "malformed", SL_COUNTER, "Malformed IP frames, dropped (all reasons; the malformed_* counters split them)." },
	[FC_MALFORMED_R + SL_PKT_R_SHORT_L2 - 1] = { "malformed_short_l2", SL_COUNTER, "Dropped: shorter than the Ethernet header and its tags." },
	[FC_MALFORMED_R + SL_PKT_R_VLAN_DEPTH - 1] = { "malformed_vlan_depth", SL_COUNTER, "Dropped: more than two VLAN tags." },
	[FC_MALFORMED_R + SL_PKT_R_SHORT_L3 - 1] = { "malformed_short_l3", SL_COUNTER, "Dropped: IP header cut short." },
	[FC_MALFORMED_R + SL_PKT_R_BAD_VERSION - 1] = { "malformed_bad_version", SL_COUNTER, "Dropped: IP version does not match the ethertype." },
	[FC_MALFORMED_R + SL_PKT_R_BAD_IHL - 1] = { "malformed_bad_ihl", SL_COUNTER, "Dropped: IPv4 IHL below 5." },
	[FC_MALFORMED_R + SL_PKT_R_BAD_LEN - 1] = { "malformed_bad_len", SL_COUNTER, "Dropped: IP length beyond the frame or below the header." },
	[FC_MALFORMED_R + SL_PKT_R_BAD_EXT - 1] = { "malformed_bad_ext", SL_COUNTER, "Dropped: IPv6 extension header chain too long or cut short." },
	[FC_MALFORMED_R + SL_PKT_R_SHORT_L4 - 1] = { "malformed_short_l4", SL_COUNTER, "Dropped: ports missing from a first fragment." },
	[FC_RECORDS] = { "records", SL_COUNTER, "Flow records every destination (file, records output) took." },
	[FC_RECORDS_LOST] = { "records_lost", SL_COUNTER, "Flow records lost: the file buffer was full, a write failed, no mbuf for the frame, or the IPFIX exporter's queue was full." },
	[FC_IPFIX_SENT] = { "ipfix_sent", SL_COUNTER, "Flow records the IPFIX exporter sent in messages the socket took." },
	[FC_IPFIX_LOST] = { "ipfix_lost", SL_COUNTER, "Flow records in IPFIX messages that could not be sent (no collector: ICMP port unreachable)." },
	[FC_IPFIX_MESSAGES] = { "ipfix_messages", SL_COUNTER, "IPFIX messages sent, template sets included." },
	[FC_IPFIX_CONNECTS] = { "ipfix_connects", SL_COUNTER, "TCP connections the IPFIX exporter made to its collector (ipfix+tcp://)." },
	[FC_LIVE] = { "live", SL_GAUGE, "Flows in the table now (the whole table: apps sharing it show the same)." },
	[FC_TABLE_BYTES] = { "table_bytes", SL_GAUGE, "Memory of the table (buckets, entries, ids), allocated and touched at start: divided by entries, the cost of a flow." },
	[FC_LATE_P50] = { "expiry_late_us_p50", SL_GAUGE, "Flows this app ended by a timeout: the median time past the deadline (last packet + idle_timeout, or start + active_timeout) at which each left the table, in microseconds." },
	[FC_LATE_P99] = { "expiry_late_us_p99", SL_GAUGE, "The same, 99th percentile." },
	[FC_LATE_MAX] = { "expiry_late_us_max", SL_GAUGE, "The same, the largest (docs/flowcache.md: at most expiry_step_us plus the longest gap between two breaths, while expiry keeps up)." },
	[FC_EXPIRY_STEP] = { "expiry_step_us", SL_GAUGE, "The expiry's step: the scan's sweep period (the shorter timeout / 8) or the wheel's tick, in microseconds." },
	[FC_TICK_GAP] = { "tick_gap_us", SL_GAUGE, "The longest time between two of this app's expiry steps (its worker's breaths), in microseconds: a worker kept off its CPU delays expiry by as much." },
	[FC_BATCH] = { "batch", SL_GAUGE, "Packets the app takes from its input at once at most, now: the parameter batch, or with batch 0 the engine's burst while the live flows' table lines fit in its worker's L3 cache and 128 once they do not." },
};
_Static_assert(SL_PKT_R_COUNT == 9, "one malformed_* counter per reason of apps/pkt/pkt.h");

struct fc_share;

struct fc_priv {
	struct fc_share *share;
	struct sl_flowtable *t;           /* shared; owned by the share */
	struct sl_ft_handle *h;
	bool sole;                        /* the table's only handle (sl_ft_touch_n) */
	const struct sl_route_table *route;
	FILE *file;                       /* unbuffered: rbuf is the buffer */
	char *rbuf;                       /* records not yet written */
	size_t rlen;
	uint64_t rlines;
	bool closing;                     /* fini: write when rbuf fills */
	struct sl_link *rec_out;
	struct sl_ipfix *ipfix;           /* records: ipfix://HOST:PORT */
	uint64_t real_off_ns;             /* CLOCK_REALTIME - the epoch's clock */
	uint64_t last_flush_ns;
	unsigned batch_set;               /* the parameter batch: 0 auto (the batch
					   * itself is the input link's, sl_link_batch) */

	/* per-burst record frames (records output) */
	struct rte_mbuf *rec_pkts[SL_BURST_MAX];
	unsigned n_rec;
};

/* Apps sharing one table: a registry on the control thread. */
struct fc_share {
	char name[64];
	char route[64];                   /* the sharers' `route` (cookies mean its hops) */
	bool private;                     /* an app's own table: nobody may join */
	struct sl_flowtable_conf conf;
	char *first_app;                  /* a copy: a reload may free the config's */
	unsigned n_apps, n_opened, refs;
	struct sl_flowtable *t;
	struct fc_share *next;
};

static struct fc_share *shares;

/* ------------------------------------------------------------------ records */

/* An entry's cookie: bits 0..31 the router's next hop + 1 (0: none, or no
 * route table), bits 32..47 the DPDK port of the flow's first packet + 1
 * (0: not known, as for generated frames). */
static inline int cookie_hop(uint64_t c)
{
	return (int)(uint32_t)c - 1;
}

static inline uint32_t cookie_port(uint64_t c)
{
	return (uint32_t)(c >> 32 & 0xffff);
}

static void fmt_addr(char *buf, size_t len, const struct sl_flow_key *k, const uint8_t *a)
{
	if (inet_ntop(k->family == 6 ? AF_INET6 : AF_INET, a, buf, (socklen_t)len) == NULL)
		snprintf(buf, len, "?");
}

static int fmt_record(const struct sl_flow_record *r, const char *table, uint64_t off,
		      char *buf, size_t len)
{
	char src[INET6_ADDRSTRLEN], dst[INET6_ADDRSTRLEN];
	fmt_addr(src, sizeof(src), &r->key, r->key.src);
	fmt_addr(dst, sizeof(dst), &r->key, r->key.dst);
	uint64_t s = r->first_ns + off, e = r->last_ns + off;
	char port[8] = "null";
	if (cookie_port(r->cookie) != 0)
		snprintf(port, sizeof(port), "%u", cookie_port(r->cookie) - 1);
	return snprintf(buf, len,
			"{\"table\":\"%s\",\"flow_id\":%" PRIu32 ",\"family\":\"%s\",\"proto\":%u,"
			"\"src\":\"%s\",\"sport\":%u,\"dst\":\"%s\",\"dport\":%u,"
			"\"vlan\":%u,\"in_port\":%s,"
			"\"packets\":%" PRIu64 ",\"bytes\":%" PRIu64 ","
			"\"start\":%" PRIu64 ".%09" PRIu64 ",\"end\":%" PRIu64 ".%09" PRIu64 ","
			"\"reason\":\"%s\"}\n",
			table, r->id, sl_flow_family_name(&r->key), r->key.proto, src, r->key.sport,
			dst, r->key.dport, r->key.vlan, port, r->packets, r->bytes, s / UINT64_C(1000000000),
			s % UINT64_C(1000000000), e / UINT64_C(1000000000), e % UINT64_C(1000000000),
			sl_ft_reason_name(r->reason));
}

static void rec_flush_link(struct sl_app *app)
{
	struct fc_priv *p = app->priv;
	if (p->n_rec > 0) {
		sl_link_transmit(p->rec_out, p->rec_pkts, p->n_rec);
		p->n_rec = 0;
	}
}

static bool rec_to_link(struct sl_app *app, const char *line, int n)
{
	struct fc_priv *p = app->priv;
	struct rte_mbuf *m = rte_pktmbuf_alloc(app->pool);
	char *d = m != NULL ? rte_pktmbuf_append(m, (uint16_t)(RTE_ETHER_HDR_LEN + n)) : NULL;
	if (d == NULL) {
		rte_pktmbuf_free(m);
		return false;
	}
	struct rte_ether_hdr *eh = (struct rte_ether_hdr *)d;
	static const struct rte_ether_addr dst = { { 0x02, 0, 0, 0, 0, 0 } };
	static const struct rte_ether_addr src = { { 0x02, 0, 0, 0, 0, 1 } };
	eh->dst_addr = dst;
	eh->src_addr = src;
	eh->ether_type = rte_cpu_to_be_16(FC_RECORD_ETHERTYPE);
	memcpy(d + RTE_ETHER_HDR_LEN, line, (size_t)n);
	p->rec_pkts[p->n_rec++] = m;
	if (p->n_rec == SL_BURST_MAX)
		rec_flush_link(app);
	return true;
}

/* Write the buffered records to the file (one write(2)).  May block: a
 * worker calls it offline in the epoch.  Lines that cannot be written are
 * counted as lost. */
static void rec_write_file(struct sl_app *app, struct fc_priv *p)
{
	if (p->rlen > 0 && fwrite(p->rbuf, 1, p->rlen, p->file) != p->rlen)
		sl_app_ctr_add(app, FC_RECORDS_LOST, p->rlines);
	p->rlen = 0;
	p->rlines = 0;
}

/* Queue a record line for the file: false if the buffer is full (while
 * running: the worker may not write here, it is online). */
static bool rec_to_file(struct sl_app *app, struct fc_priv *p, const char *line, int n)
{
	if (p->rlen + (size_t)n > FC_FILE_BUF) {
		if (!p->closing)
			return false;
		rec_write_file(app, p);
	}
	memcpy(p->rbuf + p->rlen, line, (size_t)n);
	p->rlen += (size_t)n;
	p->rlines++;
	return true;
}

/* A record to the IPFIX exporter's queue: false if it is full. */
static bool rec_to_ipfix(struct fc_priv *p, const struct sl_flow_record *r)
{
	static const uint8_t reason[SL_FT_REASONS] = {
		[SL_FT_IDLE] = SL_IPFIX_IDLE, [SL_FT_ACTIVE] = SL_IPFIX_ACTIVE,
		[SL_FT_EVICTED] = SL_IPFIX_LACK_OF_RESOURCES, [SL_FT_FLUSHED] = SL_IPFIX_FORCED,
		[SL_FT_STOPPED] = SL_IPFIX_FORCED,
	};
	const uint64_t l2 = RTE_ETHER_HDR_LEN + (r->key.vlan != 0 ? RTE_VLAN_HLEN : 0);
	struct sl_ipfix_rec x = {
		.family = r->key.family, .proto = r->key.proto,
		.reason = r->reason < SL_FT_REASONS ? reason[r->reason] : SL_IPFIX_FORCED,
		.sport = r->key.sport, .dport = r->key.dport,
		/* octetDeltaCount is IP octets: the frames' less an Ethernet
		 * header each, with its tag on a VLAN (docs/flowcache.md, IPFIX) */
		.packets = r->packets,
		.bytes = r->bytes > r->packets * l2 ? r->bytes - r->packets * l2 : 0,
		.vlan = r->key.vlan,
		.ingress = cookie_port(r->cookie),
		.start_ms = (r->first_ns + p->real_off_ns) / 1000000,
		.end_ms = (r->last_ns + p->real_off_ns) / 1000000,
	};
	memcpy(x.src, r->key.src, sizeof(x.src));
	memcpy(x.dst, r->key.dst, sizeof(x.dst));
	return sl_ipfix_put(p->ipfix, &x);
}

/* The table's record callback: arg is the app.  A record counts as written
 * when every destination took it, else as lost. */
static void on_record(const struct sl_flow_record *r, void *arg)
{
	struct sl_app *app = arg;
	struct fc_priv *p = app->priv;
	bool to_link = p->rec_out != NULL && r->reason != SL_FT_STOPPED;
	char line[FC_RECORD_MAX];

	if (p->ipfix != NULL) {
		sl_app_ctr_add(app, rec_to_ipfix(p, r) ? FC_RECORDS : FC_RECORDS_LOST, 1);
		return;
	}
	if (p->file == NULL && !to_link)
		return;
	int n = fmt_record(r, p->share->name, p->real_off_ns, line, sizeof(line));
	bool ok = n > 0 && n < (int)sizeof(line);
	if (ok && p->file != NULL)
		ok = rec_to_file(app, p, line, n);
	if (n > 0 && n < (int)sizeof(line) && to_link)
		ok = rec_to_link(app, line, n) && ok;
	sl_app_ctr_add(app, ok ? FC_RECORDS : FC_RECORDS_LOST, 1);
}

/* ------------------------------------------------------------------ data path */

/* The table's clock is the epoch's (sl_epoch_now_ns: the TSC in ns).  A
 * burst and a tick take the time their worker's breath began
 * (sl_app_breath_ns), so that a breath's bursts and tick cost no clock
 * read (an rdtsc a burst was 0.7 of the 30 cycles a packet at one flow).  A packet's time is then its breath's
 * start: earlier than its processing by at most the breath (microseconds;
 * a worker descheduled within a breath, longer); an expiry is at most a
 * breath later than a clock read in the tick would find it. */

/* IPv4 destination of a key, host order (0 for IPv6). */
static inline uint32_t key_dst4(const struct sl_flow_key *k)
{
	uint32_t dst;
	memcpy(&dst, k->dst, sizeof(dst));
	return k->family == 4 ? rte_be_to_cpu_32(dst) : 0;
}

/* Consecutive packets of one flow in a burst, counted on its entry at once
 * (with one flow in a burst: one update instead of one per packet). */
struct fc_run {
	struct sl_flow_entry *e;          /* NULL: none */
	uint64_t packets, bytes;
};

static inline void fc_run_flush(struct fc_run *r, uint64_t now, bool sole)
{
	if (r->e != NULL)
		sl_ft_touch_n(r->e, r->packets, r->bytes, now, sole);
	r->e = NULL;
}

/* An IPv4 frame's raw addresses, and ports and protocol, as they came (h:
 * the header sl_pkt_ipv4_simple returned): the two words its flow hashes
 * as (sl_pkt_ipv4_simple_raw), equal for two frames of one flow. */
struct fc_raw {
	uint64_t addrs, rest;
};

static inline struct fc_raw fc_raw_of(const uint8_t *h)
{
	struct fc_raw r;
	sl_pkt_ipv4_simple_raw(h, &r.addrs, &r.rest);
	return r;
}

static inline bool fc_raw_eq(struct fc_raw a, struct fc_raw b)
{
	return a.addrs == b.addrs && a.rest == b.rest;
}

static inline uint32_t fc_raw_hash(struct fc_raw r)
{
	return sl_flow_key_hash_v4(r.addrs, r.rest);
}

/* A burst's keys and what the stages below learn of them. */
struct fc_burst {
	struct sl_flow_key keys[SL_BURST_MAX];
	uint32_t hash[SL_BURST_MAX];
	uint16_t ways[SL_BURST_MAX];      /* sl_ft_match_prefetch */
	uint8_t cls[SL_BURST_MAX];        /* enum sl_pkt_class */
	uint8_t same[SL_BURST_MAX];       /* the key of the IP frame before it */
};

/* The first stage: classify pkts[0..n) with their keys, counting the
 * malformed (by reason) and the frames that are not IP; hash each IP key
 * and prefetch its bucket, unless the key is the previous IP frame's (a
 * run of one flow: same[i], found once for the run).  The commonest frame
 * (sl_pkt_ipv4_simple) is compared with the previous one by its raw
 * addresses, ports and protocol (a frame of a run stores no key), else
 * hashed from those two raw words, and its key's words made from them and
 * stored whole, for the lookup's compare and an insert.  Other
 * frames go through sl_pkt_parse_full, and their hash reads the key back
 * (after the stores of its fields: no store forwarding, but rare).
 * Returns the number of malformed frames. */
static inline unsigned fc_classify(struct sl_app *app, const struct sl_flowtable *t,
				   struct rte_mbuf **pkts, unsigned n, struct fc_burst *b)
{
	unsigned n_bad = 0;
	struct fc_raw q = { 0, 0 };     /* the previous simple frame's */
	bool prev_simple = false;
	uint32_t prev_hash = 0;
	for (unsigned i = 0; i < n; i++) {
		const uint8_t *h = sl_pkt_ipv4_simple(pkts[i]);
		if (likely(h != NULL)) {
			/* The previous frame's flow when its addresses, ports
			 * and protocol are the same bytes: no key to build or
			 * store (the main loop takes the run's). */
			const struct fc_raw r = fc_raw_of(h);
			b->cls[i] = SL_PKT_IP;
			if (prev_simple && fc_raw_eq(r, q)) {
				b->same[i] = 1;
				b->hash[i] = prev_hash;
				continue;
			}
			uint64_t w[5];
			sl_flow_key_v4_words(r.addrs, r.rest, w);
			memcpy(&b->keys[i], w, sizeof(w));
			b->same[i] = 0;
			prev_hash = b->hash[i] = fc_raw_hash(r);
			sl_ft_prefetch(t, prev_hash);
			q = r;
			prev_simple = true;
			continue;
		}
		struct sl_pkt_info info;
		prev_simple = false;
		b->same[i] = 0;
		b->cls[i] = (uint8_t)sl_pkt_parse_full(pkts[i], &b->keys[i], &info);
		if (b->cls[i] == SL_PKT_IP) {
			b->hash[i] = sl_flow_key_hash(&b->keys[i]);
			sl_ft_prefetch(t, b->hash[i]);
		} else if (b->cls[i] == SL_PKT_MALFORMED) {
			n_bad++;
			sl_app_ctr_add(app, FC_MALFORMED, 1);
			if (info.reason > SL_PKT_R_NONE && info.reason < SL_PKT_R_COUNT)
				sl_app_ctr_add(app, FC_MALFORMED_R + info.reason - 1u, 1);
		} else {
			sl_app_ctr_add(app, FC_NOT_IP, 1);
		}
	}
	return n_bad;
}

/* Insert the flow of key (a miss; its first packet came in by DPDK port
 * `port`), with the router's next hop in its cookie when the cache has a
 * route table.  What the run counted goes in first: an insert may choose a
 * victim by last_ns, or unlink the run's entry.  Returns the entry, or NULL
 * (no room, no id). */
static inline struct sl_flow_entry *fc_insert(struct fc_priv *p, struct fc_run *run,
					      const struct sl_flow_key *key, uint32_t hash,
					      uint64_t now, uint16_t port)
{
	fc_run_flush(run, now, p->sole);
	uint64_t cookie = port != RTE_MBUF_PORT_INVALID ? (uint64_t)(port + 1u) << 32 : 0;
	if (p->route != NULL && key->family == 4)
		cookie |= (uint32_t)(sl_route_lookup(p->route, key_dst4(key)) + 1);
	enum sl_ft_insert_status st;
	return sl_ft_insert(p->h, key, hash, now, cookie, &st);
}

/* The middle stages: each IP frame's entry (or NULL) into ent[], but for
 * the frames of a run (same[]).  Above SL_FT_STAGED_FLOWS, every bucket's
 * signatures matched and the matching entry prefetched, then the keys
 * compared; a table in the core's caches in one pass, no stage to wait
 * for.  A miss prefetches what its insert will read. */
static inline void fc_lookup(const struct sl_flowtable *t, struct fc_burst *b, unsigned n,
			     struct sl_flow_entry **ent)
{
	bool staged = sl_ft_staged(t);
	if (staged)
		for (unsigned i = 0; i < n; i++)
			if (b->cls[i] == SL_PKT_IP && !b->same[i])
				b->ways[i] = (uint16_t)sl_ft_match_prefetch(t, b->hash[i]);
	for (unsigned i = 0; i < n; i++) {
		if (b->cls[i] != SL_PKT_IP || b->same[i])
			continue;
		ent[i] = staged ? sl_ft_lookup_ways(t, &b->keys[i], b->hash[i], b->ways[i])
				: sl_ft_lookup(t, &b->keys[i], b->hash[i]);
		if (ent[i] == NULL)
			sl_ft_prefetch_insert(t, b->hash[i]);
	}
}

/* Frames from another core: every mbuf's first line, then every frame's
 * headers, asked for before the first is read (one core-to-core latency a
 * burst instead of two a packet). */
static inline void fc_prefetch_burst(struct rte_mbuf *const *pkts, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		rte_prefetch0(pkts[i]);
	for (unsigned i = 0; i < n; i++)
		rte_prefetch0(rte_pktmbuf_mtod(pkts[i], void *));
}

/* A burst's end: its bytes on the input link, then the malformed
 * (bad[0..n_bad)) dropped and the rest (pass[0..n_pass), or, with none
 * malformed, pkts[0..n) as it came, of in_bytes) sent on, records out. */
static inline void fc_burst_out(struct sl_app *app, struct sl_link *in, struct rte_mbuf **pkts,
				unsigned n, uint64_t in_bytes, struct rte_mbuf **bad, unsigned n_bad,
				struct rte_mbuf **pass, unsigned n_pass)
{
	const struct fc_priv *p = app->priv;
	sl_link_rx_bytes(in, in_bytes);
	if (n_bad > 0) {
		sl_app_drop(app, bad, n_bad);
		sl_link_transmit(app->out[0], pass, n_pass);
	} else {
		sl_link_transmit_sized(app->out[0], pkts, n, in_bytes);
	}
	if (p->rec_out != NULL)
		rec_flush_link(app);
}

/* fc_fast_prefix's lookup of a frame by its two raw words, its hash and
 * its bucket's matching ways wy: its entry, or NULL. */
static inline struct sl_flow_entry *fc_fast_find(const struct sl_flowtable *t, uint64_t addrs,
						 uint64_t rest, uint32_t hash, unsigned wy)
{
	uint64_t w[5];
	sl_flow_key_v4_words(addrs, rest, w);
	return sl_ft_lookup_ways_v4(t, w[0], w[1], w[3], hash, wy);
}

/* The frames of a run from pkts[i] on (i <= n) while they are of the run
 * whose first frame's bytes rb keeps (sl_pkt_ipv4_run_at): the index of
 * the first that is not (n when all are), their lengths added to *bytes. */
static inline unsigned fc_run_more(struct rte_mbuf *const *pkts, unsigned i, unsigned n,
				   const struct sl_pkt_ipv4_run *rb, uint64_t *bytes)
{
	uint64_t add = 0;
	for (; i < n; i++) {
		const struct rte_mbuf *m = pkts[i];
		if (!sl_pkt_ipv4_run_at(m, rte_pktmbuf_mtod(m, const uint8_t *), rb))
			break;
		add += rte_pktmbuf_pkt_len(m);
	}
	*bytes += add;
	return i;
}

/* The commonest burst with no route hints to set: the longest prefix of
 * pkts[0..n) that is simple IPv4 frames (sl_pkt_ipv4_simple) of flows the
 * table has, in light passes: each frame checked (from a run's third frame
 * on, compared with the run's first at once in a loop of their own,
 * fc_run_more, the first's bytes kept from the run's second frame on), and,
 * unless its raw addresses, ports and protocol are the previous frame's (a
 * run of one flow), hashed from those two raw words
 * (sl_pkt_ipv4_simple_raw: no key built) with its bucket asked for; above
 * SL_FT_STAGED_FLOWS, each such bucket's signatures matched and the entry
 * asked for (a pass of its own); then each looked up (the key's words made
 * from the raw ones) and counted on its entry by runs.  Between passes a frame keeps its two raw words,
 * its hash, way and same-flow flag: fc_burst_rest's stages also store
 * every whole key, class and entry, which these frames do not need.
 * (Reading the header again in the last pass instead of keeping the key's
 * words, as an earlier form of this path kept them, cost 2 cycles a packet
 * at 1024 flows, 6 at 65536.)  Stops
 * at the first frame of another kind or of a flow the table lacks (an
 * insert), the rest of the burst left to fc_burst_rest after it, so that
 * each flow's packets are counted in order.  A prefix of one flow is one
 * lookup and one update, counted with the lengths the first pass read
 * (no last pass over its frames).  Returns the prefix's length, its bytes
 * in *bytes. */
static inline unsigned fc_fast_prefix(const struct fc_priv *p, struct rte_mbuf *const *pkts,
				      unsigned n, uint64_t now, uint64_t *bytes)
{
	const struct sl_flowtable *t = p->t;
	uint64_t addrs[SL_BURST_MAX], rest[SL_BURST_MAX];   /* the two words it hashes */
	uint32_t hash[SL_BURST_MAX];
	uint16_t ways[SL_BURST_MAX];
	uint8_t same[SL_BURST_MAX];        /* frame i is frame i - 1's flow */
	struct fc_raw q = { 0, 0 };
	const uint8_t *qf = NULL;   /* the first byte of the frame q is of */
	struct sl_pkt_ipv4_run rb;   /* qf's bytes, in a run of its flow */
	unsigned i, n_simple, heads = 0;   /* frames not of the previous one's flow */
	uint64_t all = 0;   /* the bytes of the frames not heads (each length
			     * read by its check) */

	for (i = 0; i < n; i++) {
		const uint8_t *f = rte_pktmbuf_mtod(pkts[i], const uint8_t *);
		const uint8_t *h = sl_pkt_ipv4_simple_at(pkts[i], f);
		if (unlikely(h == NULL))
			break;
		const struct fc_raw r = fc_raw_of(h);
		same[i] = i > 0 && fc_raw_eq(r, q);
		if (same[i]) {
			/* A run of one flow begins (most frames of an elephant
			 * flow): its first frame's bytes kept, and the frames
			 * after this one compared with them at once, in a loop
			 * of their own, while they match. */
			all += rte_pktmbuf_pkt_len(pkts[i]);
			sl_pkt_ipv4_run_of(&rb, qf);
			unsigned j = fc_run_more(pkts, i + 1, n, &rb, &all);
			memset(&same[i + 1], 1, j - (i + 1));
			i = j - 1;
			continue;
		}
		heads++;
		addrs[i] = r.addrs;
		rest[i] = r.rest;
		hash[i] = fc_raw_hash(r);
		sl_ft_prefetch(t, hash[i]);
		q = r;
		qf = f;
	}
	n_simple = i;
	/* A prefix of one flow (an elephant's burst): one lookup, and the
	 * lengths the first pass read counted at once. */
	if (heads == 1) {
		struct sl_flow_entry *e =
			fc_fast_find(t, addrs[0], rest[0], hash[0], sl_ft_match(t, hash[0]));
		if (unlikely(e == NULL)) {
			*bytes = 0;
			return 0;
		}
		all += rte_pktmbuf_pkt_len(pkts[0]);
		sl_ft_touch_n(e, n_simple, all, now, p->sole);
		*bytes = all;
		return n_simple;
	}
	const bool staged = sl_ft_staged(t);
	if (staged)
		for (i = 0; i < n_simple; i++)
			if (!same[i])
				ways[i] = (uint16_t)sl_ft_match_prefetch(t, hash[i]);

	struct fc_run run = { NULL, 0, 0 };
	uint64_t sum = 0;
	for (i = 0; i < n_simple; i++) {
		const struct rte_mbuf *m = pkts[i];
		if (!same[i]) {
			struct sl_flow_entry *e =
				fc_fast_find(t, addrs[i], rest[i], hash[i],
					     staged ? ways[i] : sl_ft_match(t, hash[i]));
			if (unlikely(e == NULL))
				break;
			if (e != run.e) {
				fc_run_flush(&run, now, p->sole);
				run = (struct fc_run){ e, 0, 0 };
			}
		}
		const uint32_t len = rte_pktmbuf_pkt_len(m);
		run.packets++;
		run.bytes += len;
		sum += len;
	}
	fc_run_flush(&run, now, p->sole);
	*bytes = sum;
	return i;
}

/* The rest of a burst after fc_fast_prefix's k packets (of kbytes; k may
 * be 0), pkts[k..n), in stages, each over those packets so that its memory
 * accesses overlap (one memory latency a burst, not one or two a packet):
 * classify, key, hash and prefetch each flow's bucket (fc_classify); match
 * the signatures in each bucket and prefetch the matching entry; compare
 * the keys (prefetching for the inserts the misses will need) (the two
 * middle stages in one pass for a table of at most SL_FT_STAGED_FLOWS); then count
 * each packet on its flow, inserting the misses, and sort the burst into
 * drops and passes; last, flush and send the whole burst.  A run of
 * packets of one flow is looked up once. */
static void fc_burst_rest(struct sl_app *app, struct sl_link *in, struct rte_mbuf **pkts,
			  unsigned n, unsigned k, uint64_t kbytes, uint64_t now)
{
	struct fc_priv *p = app->priv;
	const struct sl_flowtable *t = p->t;
	struct rte_mbuf *pass[SL_BURST_MAX], *bad[SL_BURST_MAX];
	struct sl_flow_entry *ent[SL_BURST_MAX];
	struct fc_burst b;
	unsigned n_pass = 0, n_bad = 0;
	uint64_t hits = k, misses = 0;
	uint64_t inserted_buckets = 0;   /* low 6 bits of buckets inserted into */
	struct fc_run run = { NULL, 0, 0 };
	struct rte_mbuf **rest = pkts + k;   /* b's index i is rest[i] */
	const unsigned n_rest = n - k;

	bool any_bad = fc_classify(app, t, rest, n_rest, &b) != 0;
	fc_lookup(t, &b, n_rest, ent);
	/* Count each packet on its flow (runs of one flow at once), insert
	 * the misses, set route hints; malformed packets to drop, the rest to
	 * pass on (the burst as it came when none is malformed). */
	struct sl_flow_entry *last = NULL;   /* the previous IP packet's entry */
	const struct sl_flow_key *lastkey = NULL;   /* and its key (a frame of a
						     * run has none of its own) */
	uint64_t in_bytes = kbytes;
	/* no hints to set and the burst passed on as it came */
	const bool plain = p->route == NULL && !any_bad;
	if (any_bad)   /* the prefix passes on */
		for (; n_pass < k; n_pass++)
			pass[n_pass] = pkts[n_pass];
	for (unsigned i = 0; i < n_rest; i++) {
		struct rte_mbuf *m = rest[i];
		uint32_t len = rte_pktmbuf_pkt_len(m);
		in_bytes += len;
		/* The commonest packet of a run: the previous packet's flow,
		 * which that packet found (the run counts on it), before this
		 * burst inserted anything; what the rest of the loop would do
		 * with it, in short. */
		if (likely(b.same[i] & (last != NULL) & (misses == 0) & plain)) {
			hits++;
			run.packets++;
			run.bytes += len;
			continue;
		}
		if (b.cls[i] != SL_PKT_IP) {
			if (b.cls[i] == SL_PKT_MALFORMED) {
				bad[n_bad++] = m;
			} else {
				if (p->route != NULL)
					sl_route_hint_clear(m);
				if (any_bad)
					pass[n_pass++] = m;
			}
			continue;
		}
		/* the previous packet's flow: its entry as that packet found or
		 * inserted it */
		struct sl_flow_entry *e = b.same[i] ? last : ent[i];
		const struct sl_flow_key *key = b.same[i] ? lastkey : &b.keys[i];
		lastkey = key;
		/* An insert earlier in this burst may have evicted the entry
		 * found above (its packets would then be missing from every
		 * record): once this burst has inserted, a hit on an unlinked
		 * entry looks again, and inserts the flow anew if it is gone. */
		if (unlikely(misses != 0) && e != NULL && !sl_ft_linked(t, e))
			e = sl_ft_lookup(t, key, b.hash[i]);
		/* An earlier packet of this burst may have inserted the flow:
		 * look again where an insert went into a bucket like this. */
		else if (e == NULL && (inserted_buckets >> (b.hash[i] & 63) & 1))
			e = sl_ft_lookup(t, key, b.hash[i]);
		if (e != NULL) {
			hits++;
		} else {
			misses++;
			e = fc_insert(p, &run, key, b.hash[i], now, m->port);
			inserted_buckets |= UINT64_C(1) << (b.hash[i] & 63);
		}
		last = e;
		if (e != NULL) {
			if (e != run.e) {
				fc_run_flush(&run, now, p->sole);
				run = (struct fc_run){ e, 0, 0 };
			}
			run.packets++;
			run.bytes += len;
		}
		/* Set or clear: a recycled mbuf may carry an old hint. */
		if (p->route != NULL)
			sl_route_hint_set(m, p->route, e != NULL ? cookie_hop(sl_ft_entry_cookie(t, e)) : -1,
					  key_dst4(key));
		if (any_bad)
			pass[n_pass++] = m;
	}
	fc_run_flush(&run, now, p->sole);
	sl_ft_count_lookups(p->h, hits, misses);
	fc_burst_out(app, in, pkts, n, in_bytes, bad, n_bad, pass, n_pass);
}

/* One burst pkts[0..n) from the input link `in` (the app's now; the array
 * may be rewritten): classify, look up, count, insert, pass on.  With no
 * route hints to set, fc_fast_prefix first (at any table size); what it
 * leaves (or the whole burst) to fc_burst_rest. */
static void fc_burst_in(struct sl_app *app, struct sl_link *in, struct rte_mbuf **pkts,
			unsigned n)
{
	struct fc_priv *p = app->priv;
	uint64_t now = sl_app_breath_ns(app);
	if (sl_link_cross_worker(in))
		fc_prefetch_burst(pkts, n);
	unsigned k = 0;
	uint64_t kbytes = 0;
	if (p->route == NULL) {
		k = fc_fast_prefix(p, pkts, n, now, &kbytes);
		if (likely(k == n)) {
			sl_ft_count_lookups(p->h, n, 0);
			fc_burst_out(app, in, pkts, n, kbytes, NULL, 0, NULL, 0);
			return;
		}
	}
	fc_burst_rest(app, in, pkts, n, k, kbytes, now);
}

static void fc_push(struct sl_app *app)
{
	struct rte_mbuf *pkts[SL_BURST_MAX];
	struct sl_link *in = app->in[0];
	const unsigned batch = sl_link_batch(in, app->burst);
	/* a batch above the burst comes full when the producer has published
	 * that many (from an interlink the plain take stops at what this end
	 * last saw published: 112 packets a take of 128 on average at 1M
	 * flows from the generator, 43-77 in the host's slow phases) */
	unsigned n = batch > app->burst ? sl_link_receive_fill(in, pkts, batch)
					: sl_link_receive_raw(in, pkts, batch);
	if (n > 0)
		fc_burst_in(app, in, pkts, n);
}

/* A burst from a direct link (app.h): the same as a push's. */
static void fc_take(struct sl_app *app, unsigned in, struct rte_mbuf **pkts, unsigned n,
		    uint64_t bytes)
{
	(void)bytes;   /* the loop reads every length anyway */
	fc_burst_in(app, app->in[in], pkts, n);
}

/* The batch for the table as it is now (batch 0): the engine's burst while
 * the live flows' lines fit in the L3 cache (its misses are L3 hits, which
 * the stages of a burst of 32 already overlap); SL_FT_MEMORY_BATCH (128)
 * once they do not, so that more of a batch's misses to memory overlap
 * (sl_ft_batch; docs/flowcache.md, "Batches").  It is kept on the input link, which
 * the push reads it from and a direct link's producer sizes its bursts by
 * (a port's rx); a link a reload made has none yet and gets it here. */
_Static_assert(SL_FT_MEMORY_BATCH <= SL_BURST_MAX, "a memory batch fits a burst's arrays");

static void fc_batch_update(struct sl_app *app, const struct fc_priv *p)
{
	unsigned want = p->batch_set;
	if (want == 0)
		want = sl_ft_batch(sl_ft_live(p->t), app->l3_bytes, app->burst);
	if (sl_link_batch(app->in[0], 0) != want) {
		sl_link_set_batch(app->in[0], want);
		sl_app_ctr_set(app, FC_BATCH, want);
	}
}

static void fc_tick(struct sl_app *app)
{
	struct fc_priv *p = app->priv;
	if (p->h == NULL)
		return;
	fc_batch_update(app, p);
	uint64_t now = sl_app_breath_ns(app);
	sl_ft_expire(p->h, now);
	if (p->rec_out != NULL)
		rec_flush_link(app);
	if (p->file != NULL && p->rlen > 0 &&
	    (now - p->last_flush_ns >= FC_FLUSH_NS || p->rlen >= FC_FILE_BUF / 2)) {
		/* write(2) to a file: may block on a slow disk or a full pipe,
		 * so hold no reclamation up meanwhile (this app holds no
		 * entry pointers here). */
		sl_epoch_offline(app->epoch_w);
		rec_write_file(app, p);
		sl_epoch_online(app->epoch_w);
		p->last_flush_ns = now;
	}
}

/* ------------------------------------------------------------------ life */

/* CLOCK_REALTIME minus the table's clock, for the records' Unix times. */
static uint64_t realtime_offset(const struct sl_epoch *e)
{
	struct timespec r;
	clock_gettime(CLOCK_REALTIME, &r);
	return ((uint64_t)r.tv_sec * UINT64_C(1000000000) + (uint64_t)r.tv_nsec) -
	       sl_epoch_now_ns(e);
}

static struct fc_share *share_find(const char *name)
{
	for (struct fc_share *s = shares; s != NULL; s = s->next)
		if (strcmp(s->name, name) == 0)
			return s;
	return NULL;
}

static void share_put(struct fc_share *s)
{
	if (s == NULL || --s->refs > 0)
		return;
	for (struct fc_share **pp = &shares; *pp != NULL; pp = &(*pp)->next)
		if (*pp == s) {
			*pp = s->next;
			break;
		}
	sl_ft_free(s->t);
	free(s->first_app);
	free(s);
}

/* The settings sharers must agree on, compared one by one for the message. */
static int share_check(const struct fc_share *s, const struct sl_flowtable_conf *c,
		       const char *route, struct sl_err *err)
{
	const char *what = NULL;
	if (s->conf.capacity != c->capacity)
		what = "entries";
	else if (s->conf.ids != c->ids)
		what = "ids";
	else if (s->conf.idle_ns != c->idle_ns)
		what = "idle_timeout";
	else if (s->conf.active_ns != c->active_ns)
		what = "active_timeout";
	else if (s->conf.expiry_cap != c->expiry_cap)
		what = "expiry_cap";
	else if (s->conf.scan != c->scan)
		what = "scan";
	else if (s->conf.expiry != c->expiry)
		what = "expiry";
	else if (strcmp(s->route, route) != 0)
		what = "route";
	if (what == NULL)
		return 0;
	return sl_errf(err, EINVAL,
		       "table '%s' is shared with app '%s', which sets a different '%s'; apps "
		       "sharing a table must agree on entries, ids, idle_timeout, active_timeout, "
		       "expiry_cap, scan, expiry and route", s->name, s->first_app, what);
}

static int fc_init(struct sl_app *app, struct sl_err *err)
{
	struct fc_priv *p = app->priv;
	struct sl_flowtable_conf c = {
		.capacity = (uint32_t)sl_app_param_uint(app, "entries"),
		.ids = (uint32_t)sl_app_param_uint(app, "ids"),
		.idle_ns = sl_app_param_uint(app, "idle_timeout"),
		.active_ns = sl_app_param_uint(app, "active_timeout"),
		.expiry_cap = (unsigned)sl_app_param_uint(app, "expiry_cap"),
		.scan = (unsigned)sl_app_param_uint(app, "scan"),
		.expiry = strcmp(sl_app_param_str(app, "expiry"), "wheel") == 0 ? SL_FT_WHEEL
										: SL_FT_SCAN,
		.socket = app->socket,
	};
	const char *table = sl_app_param_str(app, "table");
	bool shared = strcmp(table, "none") != 0;
	const char *name = shared ? table : app->name;
	if (strlen(name) >= sizeof(((struct fc_share *)0)->name))
		return sl_errf(err, EINVAL, "parameter 'table': name '%s' is too long", name);

	const char *route = sl_app_param_str(app, "route");
	if (strlen(route) >= sizeof(((struct fc_share *)0)->route))
		return sl_errf(err, EINVAL, "parameter 'route': name '%s' is too long", route);
	struct fc_share *s = share_find(name);
	if (s != NULL) {
		if (!shared || s->private)
			return sl_errf(err, EINVAL, "table '%s' is the private table of app '%s'; "
				       "to share a table, every app that uses it names it with "
				       "'table:'", name, s->first_app);
		int rc = share_check(s, &c, route, err);
		if (rc < 0)
			return rc;
	} else {
		s = calloc(1, sizeof(*s));
		if (s != NULL && (s->first_app = strdup(app->name)) == NULL) {
			free(s);
			s = NULL;
		}
		if (s == NULL)
			return sl_errf(err, ENOMEM, "out of memory");
		snprintf(s->name, sizeof(s->name), "%s", name);
		snprintf(s->route, sizeof(s->route), "%s", route);
		s->private = !shared;
		s->conf = c;
		s->next = shares;
		shares = s;
	}
	s->n_apps++;
	s->refs++;
	p->share = s;
	p->rec_out = sl_app_output(app, "records");
	p->real_off_ns = realtime_offset(app->epoch);

	const char *path = sl_app_param_str(app, "records");
	struct sl_ipfix_conf xc = {
		.name = app->name, .domain = (uint32_t)sl_app_param_uint(app, "ipfix_domain"),
		.point = app->replica, .refresh_ns = sl_app_param_uint(app, "ipfix_refresh"),
		.queue = FC_IPFIX_QUEUE,
	};
	int url = sl_ipfix_parse(path, &xc, err);
	if (url < 0)
		return url;
	if (url > 0) {
		p->ipfix = sl_ipfix_open(&xc, err);
		if (p->ipfix == NULL)
			return -errno;
	} else if (strcmp(path, "none") != 0) {
		p->file = fopen(path, "a");
		if (p->file == NULL)
			return sl_errf(err, errno, "cannot open the records file '%s': %s", path,
				       strerror(errno));
		setvbuf(p->file, NULL, _IONBF, 0);
		p->rbuf = malloc(FC_FILE_BUF);
		if (p->rbuf == NULL)
			return sl_errf(err, ENOMEM, "out of memory");
	}
	return sl_route_hint_register(err);
}

/* After every app's init: the table (now that the sharers are counted) and
 * the router. */
static int fc_start(struct sl_app *app, struct sl_err *err)
{
	struct fc_priv *p = app->priv;
	struct fc_share *s = p->share;

	if (s->t == NULL) {
		struct sl_flowtable_conf c = s->conf;
		c.name = s->name;
		c.n_handles = s->n_apps;
		s->t = sl_ft_create(&c, err);
		if (s->t == NULL)
			return errno > 0 ? -errno : -ENOMEM;
	}
	p->t = s->t;
	p->sole = sl_ft_conf(s->t)->n_handles == 1;
	p->h = sl_ft_open(s->t, s->n_opened++, app->epoch, app->epoch_w, on_record, app, err);
	if (p->h == NULL)
		return errno > 0 ? -errno : -EINVAL;

	const char *route = s->route;
	if (strcmp(route, "none") != 0) {
		p->route = sl_route_table_find(route);
		if (p->route == NULL)
			return sl_errf(err, ENOENT, "parameter 'route': no router app named '%s'",
				       route);
	}
	p->last_flush_ns = sl_epoch_now_ns(app->epoch);
	p->batch_set = (unsigned)sl_app_param_uint(app, "batch");
	fc_batch_update(app, p);
	return 0;
}

/* The table's statistics of this app's handle, as the app's counters. */
static void fc_collect(struct sl_app *app)
{
	struct fc_priv *p = app->priv;
	struct sl_ft_stats s;
	if (p->h == NULL)
		return;
	sl_ft_handle_stats(p->h, &s);
	const uint64_t v[] = {
		[FC_LOOKUPS] = s.lookups, [FC_HITS] = s.hits, [FC_MISSES] = s.misses,
		[FC_INSERTED] = s.inserted, [FC_RACES] = s.insert_races, [FC_NO_ID] = s.no_id,
		[FC_NO_ROOM] = s.no_room, [FC_IDLE] = s.unlinked[SL_FT_IDLE],
		[FC_ACTIVE] = s.unlinked[SL_FT_ACTIVE], [FC_EVICTED] = s.unlinked[SL_FT_EVICTED],
		[FC_STOPPED] = s.unlinked[SL_FT_STOPPED], [FC_FREED] = s.freed,
		[FC_VISITED] = s.scanned, [FC_REFILED] = s.refiled, [FC_CHECKED] = s.checked,
	};
	/* the table's counters (the worker counts not_ip, malformed, records) */
	_Static_assert(SL_ARRAY_LEN(v) == FC_NOT_IP, "v: the counters before not_ip");
	for (unsigned i = 0; i < SL_ARRAY_LEN(v); i++)
		sl_app_ctr_set(app, i, v[i]);
	sl_app_ctr_set(app, FC_LIVE, s.live);
	sl_app_ctr_set(app, FC_TABLE_BYTES, sl_ft_mem_bytes(sl_ft_conf(p->t)));
	sl_app_ctr_set(app, FC_LATE_P50, s.late_p50_ns / 1000);
	sl_app_ctr_set(app, FC_LATE_P99, s.late_p99_ns / 1000);
	sl_app_ctr_set(app, FC_LATE_MAX, s.late_max_ns / 1000);
	sl_app_ctr_set(app, FC_EXPIRY_STEP, sl_ft_expiry_step_ns(p->t) / 1000);
	sl_app_ctr_set(app, FC_TICK_GAP, s.step_gap_ns / 1000);
	if (p->ipfix != NULL) {
		struct sl_ipfix_stats x;
		sl_ipfix_stats(p->ipfix, &x);
		sl_app_ctr_set(app, FC_IPFIX_SENT, x.sent);
		sl_app_ctr_set(app, FC_IPFIX_LOST, x.lost);
		sl_app_ctr_set(app, FC_IPFIX_MESSAGES, x.messages);
		sl_app_ctr_set(app, FC_IPFIX_CONNECTS, x.connects);
	}
}

static void fc_fini(struct sl_app *app)
{
	struct fc_priv *p = app->priv;
	p->closing = true;
	if (p->h != NULL) {
		sl_ft_close(p->h);
		if (p->file != NULL)
			rec_write_file(app, p);
		fc_collect(app);   /* the flows closed here: stopped, freed */
	}
	if (p->ipfix != NULL) {
		/* the stopped flows are queued by now: send them, then count */
		struct sl_ipfix_stats x;
		struct sl_ipfix *ex = p->ipfix;
		sl_ipfix_close_wait(ex, &x);
		sl_app_ctr_set(app, FC_IPFIX_SENT, x.sent);
		sl_app_ctr_set(app, FC_IPFIX_LOST, x.lost);
		sl_app_ctr_set(app, FC_IPFIX_MESSAGES, x.messages);
		sl_app_ctr_set(app, FC_IPFIX_CONNECTS, x.connects);
		p->ipfix = NULL;
		sl_ipfix_close(ex);
	}
	for (unsigned i = 0; i < p->n_rec; i++)
		rte_pktmbuf_free(p->rec_pkts[i]);
	p->n_rec = 0;
	if (p->file != NULL) {
		rec_write_file(app, p);
		if (fclose(p->file) != 0)
			sl_app_warn(app, "cannot write the records file '%s': %s",
				    sl_app_param_str(app, "records"), strerror(errno));
		p->file = NULL;
	}
	free(p->rbuf);
	p->rbuf = NULL;
	share_put(p->share);
	p->share = NULL;
}

/* A reload that changes the expiry settings: the new ones, which the
 * worker stores into the table (sharers of a table get the same values: the
 * config loader makes them agree). */
struct fc_expiry {
	uint64_t idle_ns, active_ns;
	unsigned cap;
};

static int fc_reconfig(struct sl_app *app, const struct sl_param_value *params, void **state,
		       struct sl_err *err)
{
	struct fc_priv *p = app->priv;
	const struct sl_param_spec *t = app->type->params;
	unsigned n = app->type->n_params;
	struct fc_expiry x = {
		.idle_ns = params[sl_param_find(t, n, "idle_timeout")].u,
		.active_ns = params[sl_param_find(t, n, "active_timeout")].u,
		.cap = (unsigned)params[sl_param_find(t, n, "expiry_cap")].u,
	};
	int rc = sl_ft_check_expiry(p->t, x.idle_ns, x.active_ns, x.cap, err);
	if (rc < 0)
		return rc;
	struct fc_expiry *s = malloc(sizeof(*s));
	if (s == NULL)
		return sl_errf(err, ENOMEM, "out of memory");
	*s = x;
	*state = s;
	return 0;
}

static void fc_apply(struct sl_app *app, void *state)
{
	struct fc_priv *p = app->priv;
	const struct fc_expiry *x = state;
	sl_ft_set_expiry(p->t, x->idle_ns, x->active_ns, x->cap);
}

static void fc_release(struct sl_app *app, void *state, bool applied)
{
	struct fc_priv *p = app->priv;
	const struct fc_expiry *x = state;
	if (applied) {   /* what later sharers' settings are checked against */
		p->share->conf.idle_ns = x->idle_ns;
		p->share->conf.active_ns = x->active_ns;
		p->share->conf.expiry_cap = x->cap;
	}
	free(state);
}

static const struct sl_param_spec fc_params[] = {
	{ .name = "entries", .type = SL_PARAM_UINT, .def = "65536", .min = 1, .max = 1u << 28,
	  .doc = "capacity: flows kept at most; a new flow beyond it evicts the least recently seen of its bucket" },
	{ .name = "ids", .type = SL_PARAM_UINT, .def = "0", .max = 1u << 30,
	  .doc = "flow ids (and entries) in the table's pool, >= entries; 0 means entries + max(entries/4, 1024)" },
	{ .name = "idle_timeout", .type = SL_PARAM_DURATION, .def = "30s",
	  .live = true, .doc = "a flow not seen for this long ends (reason idle); 0 means never" },
	{ .name = "active_timeout", .type = SL_PARAM_DURATION, .def = "0",
	  .live = true,
	  .doc = "a flow alive this long ends (reason active) and restarts with its next packet; 0 means never" },
	{ .name = "expiry_cap", .type = SL_PARAM_UINT, .def = "32", .min = 1, .max = 65536,
	  .live = true, .doc = "flows ended by expiry per breath at most" },
	{ .name = "expiry", .type = SL_PARAM_ENUM, .def = "scan", .choices = "scan|wheel",
	  .doc = "how expired flows are found: an incremental scan of the buckets, or a timer wheel per app" },
	{ .name = "scan", .type = SL_PARAM_UINT, .def = "0", .max = 1u << 24,
	  .doc = "buckets (scan) or wheel slots (wheel) visited per breath at most; 0 means 4 x expiry_cap" },
	{ .name = "table", .type = SL_PARAM_STRING, .def = "none",
	  .doc = "name of a table to share with other flowcache apps; none: a private table",
	  .share_agree = "entries|ids|idle_timeout|active_timeout|expiry_cap|scan|expiry|route" },
	{ .name = "records", .type = SL_PARAM_STRING, .def = "none",
	  .doc = "file to append flow records to, one JSON object per line; or ipfix://HOST:PORT, an IPFIX collector over UDP (ipfix+tcp://HOST:PORT: over TCP; docs/flowcache.md); none: neither" },
	{ .name = "ipfix_domain", .type = SL_PARAM_UINT, .def = "1", .max = UINT32_MAX,
	  .doc = "the IPFIX messages' observation domain id (records: ipfix://...)" },
	{ .name = "ipfix_refresh", .type = SL_PARAM_DURATION, .def = "60s", .min = 1000000,
	  .doc = "how often the IPFIX templates are sent again over UDP" },
	{ .name = "batch", .type = SL_PARAM_UINT, .def = "0", .max = SL_BURST_MAX,
	  .doc = "packets taken from the input at once at most; 0 means the engine's burst while the live flows' table lines fit in the L3 cache of the app's worker, 128 once they do not" },
	{ .name = "route", .type = SL_PARAM_STRING, .def = "none",
	  .doc = "router app whose next hop is cached per flow and passed on as a route hint; none: no caching",
	  .app_type = "router" },
};

/* At config load: ids, when given, at least entries; the names of table and
 * route fit; the table fits in the memory this process can get.  (Whether
 * route names a router and sharers agree is the config loader's check, from
 * the schema's app_type and share_agree.) */
static int fc_check(const struct sl_param_value *params, unsigned n_in,
				unsigned n_out, struct sl_err *err)
{
	(void)n_out;
	const struct sl_param_value *v[SL_ARRAY_LEN(fc_params)];
	static const char *const names[] = { "entries", "ids", "idle_timeout", "active_timeout",
					     "expiry_cap", "scan", "expiry", "table", "route" };
	for (unsigned i = 0; i < SL_ARRAY_LEN(names); i++)
		v[i] = &params[sl_param_find(fc_params, SL_ARRAY_LEN(fc_params), names[i])];
	uint64_t entries = v[0]->u, ids = v[1]->u;
	if (ids != 0 && ids < entries)
		return sl_errf(err, EINVAL, "parameter 'ids' (%" PRIu64 ") must be at least "
			       "'entries' (%" PRIu64 ")", ids, entries);
	for (unsigned i = 7; i < 9; i++)
		if (strlen(v[i]->s) >= sizeof(((struct fc_share *)0)->name))
			return sl_errf(err, EINVAL, "parameter '%s': name '%s' is too long",
				       names[i], v[i]->s);
	struct sl_flowtable_conf c = {
		.capacity = (uint32_t)entries, .ids = (uint32_t)ids,
		.idle_ns = v[2]->u, .active_ns = v[3]->u, .expiry_cap = (unsigned)v[4]->u,
		.scan = (unsigned)v[5]->u,
		.expiry = strcmp(v[6]->s, "wheel") == 0 ? SL_FT_WHEEL : SL_FT_SCAN,
		.n_handles = 1, .socket = -1,
	};
	const struct sl_param_value *rec =
		&params[sl_param_find(fc_params, SL_ARRAY_LEN(fc_params), "records")];
	struct sl_ipfix_conf xc = { .name = "" };
	int url = sl_ipfix_parse(rec->s, &xc, err);
	if (url < 0 || (url > 0 && sl_ipfix_resolve(&xc, err) < 0))
		return -EINVAL;
	const char *what;
	uint64_t avail = sl_ft_mem_available(&what);
	return sl_ft_mem_check(&c, avail, what, err) < 0 ? -EINVAL : 0;
}

static const struct sl_port_spec fc_inputs[] = {
	{ .name = "input", .required = true, .doc = "packets" },
};

static const struct sl_port_spec fc_outputs[] = {
	{ .name = "output", .required = true, .doc = "every packet except malformed IP ones" },
	{ .name = "records", .required = false,
	  .doc = "flow records as Ethernet frames (ethertype 0x88b5, a JSON line as payload)" },
};

static const struct sl_app_type flowcache_app = {
	.name = "flowcache",
	.doc = "Track 5-tuple flows (IPv4, IPv6) with idle/active timeouts and capacity eviction; emit flow records",
	.params = fc_params,
	.n_params = SL_ARRAY_LEN(fc_params),
	.inputs = fc_inputs,
	.n_inputs = SL_ARRAY_LEN(fc_inputs),
	.outputs = fc_outputs,
	.n_outputs = SL_ARRAY_LEN(fc_outputs),
	.priv_size = sizeof(struct fc_priv),
	.counters = fc_counters,
	.n_counters = FC_N_COUNTERS,
	.check = fc_check,
	.init = fc_init,
	.start = fc_start,
	.push = fc_push,
	.take = fc_take,
	.tick = fc_tick,
	.collect = fc_collect,
	.sample = fc_collect,      /* the handle's statistics: any thread */
	.reconfig = fc_reconfig,
	.apply = fc_apply,
	.release = fc_release,
	.fini = fc_fini,
};

SL_APP_REGISTER(flowcache_app)
