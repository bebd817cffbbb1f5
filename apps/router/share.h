/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * share.h: equal items share one index (the route tables' next hops: a
 * table of many routes to a few next hops keeps a few, so that a burst's
 * lookups read a few lines of them, not one a route).
 *
 * sl_share_index gives items 0..n) an index each, equal items one index,
 * numbered in the order of their first item: idx[i] for item i, and
 * first[k] (first may be NULL) the first item of index k.  Items are equal
 * when their keys are: key(ctx, i, out) writes item i's key, every one of
 * its `size` bytes (at most SL_SHARE_KEY_MAX), so that the caller says once
 * what makes two items equal and the hash follows from it.  Returns the
 * number of indices (at most n), or -ENOMEM; it keeps nothing.  Any
 * thread; O(n) expected.
 */
#ifndef SL_SHARE_H
#define SL_SHARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SL_SHARE_KEY_MAX 64u

int sl_share_index(unsigned n, size_t size, void (*key)(const void *ctx, unsigned i, uint8_t *out),
		   const void *ctx, unsigned *idx, unsigned *first);

/* The part of a next hop's key that both families share, SL_SHARE_HOP_KEY
 * bytes at k: output, kind, interface, which MACs are written and those
 * MACs (a MAC not written is zero in the key: it sends no packet another
 * way). */
#define SL_SHARE_HOP_KEY 18u
void sl_share_hop_key(uint8_t *k, uint16_t output, uint8_t kind, uint8_t iface, bool set_dmac,
		      const uint8_t dmac[6], bool set_smac, const uint8_t smac[6]);

#endif
