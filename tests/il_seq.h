/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * For the interlink tests that hand an end to another thread or process and
 * take it back: finish a numbered sequence in this thread, as both producer
 * and consumer.  Objects are the numbers themselves (1..total).
 */
#ifndef SL_TEST_IL_SEQ_H
#define SL_TEST_IL_SEQ_H

#include <stdint.h>

#include <rte_cycles.h>

#include "check.h"
#include "interlink/interlink_worker.h"

/* Enqueue next_in..total and dequeue expecting next_out..total, in bursts of
 * up to 32, until done or the TSC passes deadline.  A number out of order is
 * a CHECK failure naming `who`.  Returns one past the last number received
 * in order (total + 1 when everything arrived). */
static inline uintptr_t il_seq_finish(struct sl_il *il, uintptr_t next_in, uintptr_t next_out,
				      uintptr_t total, uint64_t deadline, const char *who)
{
	void *in[32], *out[32];
	while (next_out <= total && rte_rdtsc() < deadline) {
		if (next_in <= total) {
			unsigned b = total - next_in + 1 < 32 ? (unsigned)(total - next_in + 1) : 32;
			for (unsigned k = 0; k < b; k++)
				in[k] = (void *)(next_in + k);
			next_in += sl_il_enqueue_burst_publish(il, in, b);
		}
		unsigned n = sl_il_dequeue_burst_publish(il, out, 32);
		for (unsigned k = 0; k < n; k++, next_out++)
			if ((uintptr_t)out[k] != next_out) {
				CHECK(0, "%s: expected %lu, got %lu", who, (unsigned long)next_out,
				      (unsigned long)(uintptr_t)out[k]);
				return next_out;
			}
	}
	return next_out;
}

#endif
