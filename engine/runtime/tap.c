/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_bpf.h>
#include <rte_cycles.h>
#include <rte_errno.h>

#include "base/counter.h"
#include "runtime/tap.h"

void sl_cap_burst(struct sl_cap_tap *t, struct rte_mbuf *const *pkts, unsigned n)
{
	uint64_t tsc = rte_rdtsc(), filtered = 0, dropped = 0;
	for (unsigned i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		if (t->bpf != NULL) {
			uint64_t pass = t->jit != NULL ? t->jit(m) : rte_bpf_exec(t->bpf, m);
			if (pass == 0) {
				filtered++;
				continue;
			}
		}
		uint32_t len = rte_pktmbuf_pkt_len(m);
		uint32_t caplen = len < t->snaplen ? len : t->snaplen;
		struct sl_capring_rec *rec = sl_capring_reserve(&t->ring, caplen);
		if (rec == NULL) {
			dropped++;
			continue;
		}
		rec->caplen = caplen;
		rec->origlen = len;
		rec->tag = t->tag;
		rec->tsc = tsc;
		const void *d = rte_pktmbuf_read(m, 0, caplen, rec->data);
		if (d != rec->data)
			memcpy(rec->data, d, caplen);
		sl_capring_commit(&t->ring, rec);
	}
	sl_counter_add(&t->ctr.seen, n);
	if (filtered != 0)
		sl_counter_add(&t->ctr.filtered, filtered);
	if (dropped != 0)
		sl_counter_add(&t->ctr.dropped, dropped);
}

void sl_cap_tap_free(void *obj, void *unused)
{
	(void)unused;
	struct sl_cap_tap *t = obj;
	if (t == NULL)
		return;
	if (t->bpf != NULL)
		rte_bpf_destroy(t->bpf);
	free(t->ring.buf);
	free(t);
}

int sl_cap_tap_new(uint32_t snaplen, uint32_t tag, const struct rte_bpf_prm *prm,
		   struct sl_cap_tap **tap, struct sl_err *err)
{
	*tap = NULL;
	struct sl_cap_tap *t = aligned_alloc(RTE_CACHE_LINE_SIZE,
					     RTE_ALIGN_CEIL(sizeof(*t), RTE_CACHE_LINE_SIZE));
	void *buf = aligned_alloc(RTE_CACHE_LINE_SIZE, SL_CAP_RING_BYTES);
	if (t == NULL || buf == NULL) {
		free(t);
		free(buf);
		return sl_errf(err, ENOMEM, "capture: out of memory");
	}
	memset(t, 0, sizeof(*t));
	sl_capring_init(&t->ring, buf, SL_CAP_RING_BYTES);
	t->snaplen = snaplen;
	t->tag = tag;
	if (prm != NULL) {
		t->bpf = rte_bpf_load(prm);
		if (t->bpf == NULL) {
			sl_cap_tap_free(t, NULL);
			return sl_errf(err, ENOTSUP, "capture: DPDK cannot load the filter: %s",
				       strerror(rte_errno));
		}
	}
	struct rte_bpf_jit jit = { 0 };
	if (t->bpf != NULL && rte_bpf_get_jit(t->bpf, &jit) == 0)
		t->jit = jit.func;
	*tap = t;
	return 0;
}
