/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What a flow table lookup costs on this CPU, with no packets around it,
 * and what the memory alone would let any table cost: for each flow count
 * F, a flow table sized as scripts/bench-flowcache-scale sizes the flow
 * cache's (131072 entries up to 65536 flows, 2097152 up to 1048576, F
 * above) holding F IPv4 flows, then --lookups lookups of flows drawn at
 * random, in batches of each --batch size, on one thread:
 *
 *   table   the flow cache's lookup of a hit: each key's hash and its
 *           bucket asked for, then each bucket's signatures matched and the
 *           entry asked for (sl_ft_match_prefetch), then each key compared
 *           (sl_ft_lookup_ways_v4) and its counters added to (sl_ft_touch_n)
 *   lines2  the same two lines a lookup reads and nothing else: a random
 *           bucket of the table's, then (depending on a word read from it)
 *           a random entry, written to, in the same three passes
 *   lines1  one random entry line alone, written to, in two passes: what a
 *           table whose key and counters lay in the line the hash names
 *           (one line a lookup) would wait for at best
 *
 * Cycles are TSC cycles per lookup (the engine's runtime accounting's
 * unit).  The lines rows bound what any table of that many lines a lookup
 * can cost here: docs/benchmarks.md ("The flow table alone, and the
 * memory's bound") compares them with the flow cache's cycles per packet.
 *
 * usage: bench_flowtable [--flows LIST] [--batch LIST] [--lookups N] (--help)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_cycles.h>

#include "apps/flowcache/flowtable.h"
#include "apps/pkt/flowkey.h"
#include "epoch/epoch.h"

#define MAX_LIST 16
#define MAX_BATCH 256

static unsigned parse_list(const char *s, uint64_t *out, const char *what)
{
	unsigned n = 0;
	char *copy = strdup(s), *save = NULL;
	if (copy == NULL) {
		fprintf(stderr, "bench_flowtable: out of memory\n");
		exit(1);
	}
	for (char *tok = strtok_r(copy, ",", &save); tok != NULL; tok = strtok_r(NULL, ",", &save)) {
		char *end;
		errno = 0;
		unsigned long long v = strtoull(tok, &end, 0);
		if (errno != 0 || *end != '\0' || v == 0 || n == MAX_LIST) {
			fprintf(stderr, "bench_flowtable: bad %s '%s' (a list of at most %d positive numbers)\n",
				what, tok, MAX_LIST);
			exit(2);
		}
		out[n++] = v;
	}
	free(copy);
	return n;
}

/* Flow i's two raw words (sl_pkt_ipv4_simple_raw's form): UDP from
 * 198.18.0.0 + i (low 17 bits) port 1024 + (i >> 17) to 198.19.255.1:53. */
static inline void flow_raw(uint64_t i, uint64_t *addrs, uint64_t *rest)
{
	uint32_t src = rte_cpu_to_be_32(0xc6120000u + (uint32_t)(i & 0x1ffff));
	uint32_t dst = rte_cpu_to_be_32(0xc613ff01u);
	uint16_t sport = rte_cpu_to_be_16((uint16_t)(1024 + (i >> 17)));
	uint16_t dport = rte_cpu_to_be_16(53);
	*addrs = src | (uint64_t)dst << 32;
	*rest = (sport | (uint32_t)dport << 16) | (uint64_t)17 << 32;
}

/* The r-th random number of a run: a counter mixed (no chain from one to
 * the next, so that drawing them costs no latency the lookups would wait
 * behind). */
static inline uint64_t rnd(uint64_t r)
{
	r *= 0x9e3779b97f4a7c15ull;
	return r ^ (r >> 29);
}

/* The r-th random index below n. */
static inline uint64_t below(uint64_t r, uint64_t n)
{
	return (uint64_t)(((unsigned __int128)rnd(r) * n) >> 64);
}

/* The table's lookups of random flows of the f inserted: cycles each.
 * Staged (the signatures matched and the entries asked for in a pass of
 * their own) when the flow cache's would be (sl_ft_staged). */
static double run_table(const struct sl_flowtable *t, uint64_t f, unsigned batch, uint64_t n)
{
	const bool staged = sl_ft_staged(t);
	uint64_t addrs[MAX_BATCH], rest[MAX_BATCH];
	uint32_t hash[MAX_BATCH];
	unsigned ways[MAX_BATCH], missed = 0;
	uint64_t t0 = rte_rdtsc();
	for (uint64_t done = 0; done < n; done += batch) {
		for (unsigned i = 0; i < batch; i++) {
			flow_raw(below(done + i, f), &addrs[i], &rest[i]);
			hash[i] = sl_flow_key_hash_v4(addrs[i], rest[i]);
			sl_ft_prefetch(t, hash[i]);
		}
		if (staged)
			for (unsigned i = 0; i < batch; i++)
				ways[i] = sl_ft_match_prefetch(t, hash[i]);
		for (unsigned i = 0; i < batch; i++) {
			uint64_t w[5];
			sl_flow_key_v4_words(addrs[i], rest[i], w);
			struct sl_flow_entry *e = sl_ft_lookup_ways_v4(
				t, w[0], w[1], w[3], hash[i], staged ? ways[i] : sl_ft_match(t, hash[i]));
			if (e == NULL)
				missed++;
			else
				sl_ft_touch_n(e, 1, 64, done, true);
		}
	}
	uint64_t t1 = rte_rdtsc();
	if (missed > 0) {
		fprintf(stderr, "bench_flowtable: %u lookups of inserted flows missed\n", missed);
		exit(1);
	}
	return (double)(t1 - t0) / (double)n;
}

/* Random lines of the table's memory, as many as f flows occupy (f
 * buckets, at most the table's, and f entries): a bucket then an entry
 * (two), or an entry alone (one); cycles a lookup. */
static double run_lines(const struct sl_flowtable *t, uint64_t f, unsigned batch, uint64_t n,
			bool two)
{
	const struct sl_ft_index *ix = (const struct sl_ft_index *)t;
	uint64_t bmask = 1;
	while (bmask < f)
		bmask <<= 1;
	bmask = RTE_MIN(bmask - 1, (uint64_t)ix->mask);
	const struct sl_ft_bucket *b[MAX_BATCH];
	struct sl_flow_entry *e[MAX_BATCH];
	uint64_t t0 = rte_rdtsc();
	for (uint64_t done = 0; done < n; done += batch) {
		if (two) {
			for (unsigned i = 0; i < batch; i++) {
				b[i] = &ix->b[rnd(done + i) & bmask];
				__builtin_prefetch(b[i], 0, 3);
			}
			/* the entry's index depends on the bucket's word (its
			 * lock, 0 here): as a lookup's id is read from it */
			for (unsigned i = 0; i < batch; i++) {
				uint32_t dep = __atomic_load_n(&b[i]->lock, __ATOMIC_RELAXED);
				e[i] = &ix->ent[below(~(done + i), f) + dep];
				__builtin_prefetch(e[i], 1, 3);
			}
		} else {
			for (unsigned i = 0; i < batch; i++) {
				e[i] = &ix->ent[below(~(done + i), f)];
				__builtin_prefetch(e[i], 1, 3);
			}
		}
		for (unsigned i = 0; i < batch; i++)
			__atomic_store_n(&e[i]->bytes, e[i]->bytes + 64, __ATOMIC_RELAXED);
	}
	uint64_t t1 = rte_rdtsc();
	return (double)(t1 - t0) / (double)n;
}

int main(int argc, char **argv)
{
	uint64_t flows[MAX_LIST] = { 1, 1024, 65536, 1048576 }, batches[MAX_LIST] = { 32, 128 };
	unsigned n_flows = 4, n_batches = 2;
	uint64_t lookups = 20000000;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--flows") == 0 && i + 1 < argc) {
			n_flows = parse_list(argv[++i], flows, "flow count");
		} else if (strcmp(argv[i], "--batch") == 0 && i + 1 < argc) {
			n_batches = parse_list(argv[++i], batches, "batch");
		} else if (strcmp(argv[i], "--lookups") == 0 && i + 1 < argc) {
			uint64_t v[MAX_LIST];
			if (parse_list(argv[++i], v, "lookup count") != 1) {
				fprintf(stderr, "bench_flowtable: --lookups takes one number\n");
				return 2;
			}
			lookups = v[0];
		} else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			printf("usage: bench_flowtable [--flows LIST] [--batch LIST] [--lookups N]\n"
			       "  --flows LIST   flow counts (default 1,1024,65536,1048576)\n"
			       "  --batch LIST   lookups a batch, 1..%d (default 32,128)\n"
			       "  --lookups N    lookups a row, rounded up to whole batches "
			       "(default 20000000)\n", MAX_BATCH);
			return 0;
		} else {
			fprintf(stderr, "bench_flowtable: unknown argument '%s' (--help)\n", argv[i]);
			return 2;
		}
	}
	for (unsigned k = 0; k < n_batches; k++)
		if (batches[k] > MAX_BATCH) {
			fprintf(stderr, "bench_flowtable: batch %llu is above %d\n",
				(unsigned long long)batches[k], MAX_BATCH);
			return 2;
		}
	for (unsigned k = 0; k < n_flows; k++)
		if (flows[k] > UINT32_MAX / 2) {
			fprintf(stderr, "bench_flowtable: %llu flows is more than a table takes\n",
				(unsigned long long)flows[k]);
			return 2;
		}

	struct sl_err err = { "" };
	struct sl_epoch_conf ec = { .name = "bench", .n_workers = 1,
				    .policy = SL_EPOCH_IMMEDIATE };
	struct sl_epoch *ep = sl_epoch_create(&ec, &err);
	if (ep == NULL) {
		fprintf(stderr, "bench_flowtable: epoch: %s\n", err.msg);
		return 1;
	}
	struct sl_epoch_worker *ew = sl_epoch_worker(ep, 0);
	sl_epoch_online(ew);
	printf("lookups=%llu a row (TSC cycles a lookup; lines2, lines1: the memory alone)\n",
	       (unsigned long long)lookups);
	for (unsigned k = 0; k < n_flows; k++) {
		uint64_t f = flows[k];
		uint32_t entries = f <= 65536 ? 131072 : f <= 1048576 ? 2097152 : (uint32_t)f;
		struct sl_flowtable_conf fc = {
			.name = "bench", .capacity = entries, .idle_ns = 0, .expiry_cap = 64,
			.expiry = SL_FT_SCAN, .n_handles = 1, .socket = -1,
		};
		struct sl_flowtable *t = sl_ft_create(&fc, &err);
		struct sl_ft_handle *h = t != NULL ? sl_ft_open(t, 0, ep, ew, NULL, NULL, &err) : NULL;
		if (h == NULL) {
			fprintf(stderr, "bench_flowtable: table of %u entries: %s\n", entries, err.msg);
			return 1;
		}
		for (uint64_t i = 0; i < f; i++) {
			uint64_t addrs, rest, w[5];
			struct sl_flow_key key;
			enum sl_ft_insert_status st;
			flow_raw(i, &addrs, &rest);
			sl_flow_key_v4_words(addrs, rest, w);
			memcpy(&key, w, sizeof(key));
			if (sl_ft_insert(h, &key, sl_flow_key_hash_v4(addrs, rest), 1, 0, &st) == NULL) {
				fprintf(stderr, "bench_flowtable: insert %llu of %llu failed (%d)\n",
					(unsigned long long)i, (unsigned long long)f, (int)st);
				return 1;
			}
		}
		for (unsigned j = 0; j < n_batches; j++) {
			unsigned bt = (unsigned)batches[j];
			/* whole batches: the runs divide by what they did */
			uint64_t n = (lookups + bt - 1) / bt * bt;
			run_table(t, f, bt, n / 10 / bt * bt + bt);   /* warm: lines and TLB */
			double tc = run_table(t, f, bt, n);
			double l2 = run_lines(t, f, bt, n, true);
			double l1 = run_lines(t, f, bt, n, false);
			printf("flows=%llu entries=%u table_bytes=%llu batch=%u table=%.2f lines2=%.2f "
			       "lines1=%.2f\n", (unsigned long long)f, entries,
			       (unsigned long long)sl_ft_mem_bytes(&fc), bt, tc, l2, l1);
			fflush(stdout);
		}
		sl_epoch_offline(ew);
		sl_epoch_synchronize(ep);
		sl_epoch_drain(ep);
		sl_ft_close(h);
		sl_ft_free(t);
		sl_epoch_online(ew);
	}
	sl_epoch_offline(ew);
	sl_epoch_free(ep);
	return 0;
}
