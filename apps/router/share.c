/* SPDX-License-Identifier: BSD-3-Clause */
/* Equal items share one index: share.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_hash_crc.h>

#include "apps/router/share.h"

int sl_share_index(unsigned n, size_t size, void (*key)(const void *ctx, unsigned i, uint8_t *out),
		   const void *ctx, unsigned *idx, unsigned *first)
{
	if (size > SL_SHARE_KEY_MAX)
		return -EINVAL;
	unsigned cap = 2;
	while (cap < 2 * n)
		cap <<= 1;
	/* open addressing: the first item of an index + 1; 0: empty */
	uint32_t *slot = calloc(cap, sizeof(*slot));
	if (slot == NULL)
		return -ENOMEM;
	unsigned distinct = 0;
	for (unsigned i = 0; i < n; i++) {
		uint8_t k[SL_SHARE_KEY_MAX], other[SL_SHARE_KEY_MAX];
		key(ctx, i, k);
		unsigned s = rte_hash_crc(k, (uint32_t)size, 0) & (cap - 1);
		for (; slot[s] != 0; s = (s + 1) & (cap - 1)) {
			key(ctx, slot[s] - 1, other);
			if (memcmp(k, other, size) == 0)
				break;
		}
		if (slot[s] == 0) {
			slot[s] = i + 1;
			if (first != NULL)
				first[distinct] = i;
			idx[i] = distinct++;
		} else {
			idx[i] = idx[slot[s] - 1];
		}
	}
	free(slot);
	return (int)distinct;
}

void sl_share_hop_key(uint8_t *k, uint16_t output, uint8_t kind, uint8_t iface, bool set_dmac,
		      const uint8_t dmac[6], bool set_smac, const uint8_t smac[6])
{
	memset(k, 0, SL_SHARE_HOP_KEY);
	memcpy(k, &output, 2);
	k[2] = kind;
	k[3] = iface;
	k[4] = set_dmac;
	k[5] = set_smac;
	if (set_dmac)
		memcpy(k + 6, dmac, 6);
	if (set_smac)
		memcpy(k + 12, smac, 6);
}
