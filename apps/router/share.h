/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * share.h: equal items share one index (the route tables' next hops: a
 * table of many routes to a few next hops keeps a few, so that a burst's
 * lookups read a few lines of them, not one a route).
 *
 * sl_share_index gives items 0..n) an index each, equal items one index,
 * numbered in the order of their first item: idx[i] for item i, and
 * first[k] (first may be NULL) the first item of index k.  hash(ctx, i)
 * and eq(ctx, i, j) read the caller's items (equal items must hash
 * equally).  Returns the number of indices (at most n), or -ENOMEM; it
 * keeps nothing.  Any thread; O(n) expected.
 */
#ifndef SL_SHARE_H
#define SL_SHARE_H

#include <stdbool.h>
#include <stdint.h>

int sl_share_index(unsigned n, uint32_t (*hash)(const void *ctx, unsigned i),
		   bool (*eq)(const void *ctx, unsigned i, unsigned j), const void *ctx,
		   unsigned *idx, unsigned *first);

#endif
