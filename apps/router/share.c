/* SPDX-License-Identifier: BSD-3-Clause */
/* Equal items share one index: share.h. */
#include <errno.h>
#include <stdlib.h>

#include "apps/router/share.h"

int sl_share_index(unsigned n, uint32_t (*hash)(const void *ctx, unsigned i),
		   bool (*eq)(const void *ctx, unsigned i, unsigned j), const void *ctx,
		   unsigned *idx, unsigned *first)
{
	unsigned size = 2;
	while (size < 2 * n)
		size <<= 1;
	/* open addressing: the first item of an index + 1; 0: empty */
	uint32_t *slot = calloc(size, sizeof(*slot));
	if (slot == NULL)
		return -ENOMEM;
	unsigned distinct = 0;
	for (unsigned i = 0; i < n; i++) {
		unsigned k = hash(ctx, i) & (size - 1);
		while (slot[k] != 0 && !eq(ctx, slot[k] - 1, i))
			k = (k + 1) & (size - 1);
		if (slot[k] == 0) {
			slot[k] = i + 1;
			if (first != NULL)
				first[distinct] = i;
			idx[i] = distinct++;
		} else {
			idx[i] = idx[slot[k] - 1];
		}
	}
	free(slot);
	return (int)distinct;
}
