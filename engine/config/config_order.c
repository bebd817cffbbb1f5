/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The push order: Kahn's algorithm over the links that order their ends,
 * taking among the ready apps the one declared first; a cycle is named.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "config/config.h"
#include "config/config_private.h"

/* Does link l order its ends?  Links out of a boundary app (a port: its
 * outputs come from pull, not from its inputs) do not. */
static bool link_orders(const struct sl_config *cfg, unsigned l)
{
	return !cfg->apps[cfg->links[l].from.app].type->boundary;
}

/* The ordering links grouped by app, in file order within each app: those
 * of app a are list[first[a] .. first[a + 1]).  By the from end (out) or
 * the to end (in).  NULL when out of memory. */
static unsigned *links_by_app(const struct sl_config *cfg, bool out, unsigned **first_out)
{
	unsigned n = cfg->n_apps;
	unsigned *first = calloc(n + 2, sizeof(*first));
	unsigned *list = calloc(cfg->n_links + 1, sizeof(*list));

	if (first == NULL || list == NULL) {
		free(first);
		free(list);
		return NULL;
	}
	for (unsigned l = 0; l < cfg->n_links; l++)
		if (link_orders(cfg, l))
			first[(out ? cfg->links[l].from.app : cfg->links[l].to.app) + 2]++;
	for (unsigned a = 0; a < n; a++)
		first[a + 2] += first[a + 1];
	/* first[a + 1] is now where app a's links start; it moves as they are
	 * filed, ending where app a + 1's start. */
	for (unsigned l = 0; l < cfg->n_links; l++)
		if (link_orders(cfg, l))
			list[first[(out ? cfg->links[l].from.app : cfg->links[l].to.app) + 1]++] = l;
	*first_out = first;
	return list;
}

/* Called with the apps Kahn's algorithm could not place (left[i] true): each
 * has a predecessor among them.  Walk predecessors from the first such app
 * (each time by its first link in the file from such an app) until one
 * repeats; that closes a cycle.  Report it starting from its link that comes
 * first in the file.  O(apps + links). */
static int report_cycle(const struct sl_config *cfg, const bool *left, struct sl_err *err)
{
	unsigned n = cfg->n_apps;
	int *seen = calloc(n + 1, sizeof(*seen));       /* step at which an app was met */
	unsigned *via = calloc(n + 1, sizeof(*via));    /* link taken from step k */
	unsigned *first = NULL;
	unsigned *in = links_by_app(cfg, false, &first);
	char text[sizeof(err->msg)];
	size_t used = 0;
	unsigned cur = 0, steps = 0;
	int rc;

	if (seen == NULL || via == NULL || in == NULL) {
		rc = sl_errf(err, ENOMEM, "%s: out of memory", cfg->path);
		goto out;
	}
	for (unsigned i = 0; i < n; i++)
		seen[i] = -1;
	while (!left[cur])
		cur++;
	while (seen[cur] < 0) {
		seen[cur] = (int)steps;
		unsigned k = first[cur];
		while (!left[cfg->links[in[k]].from.app])
			k++;
		via[steps++] = in[k];
		cur = cfg->links[in[k]].from.app;
	}

	/* The cycle's links are via[s .. steps): via[k] enters the app of step
	 * k from the app of step k + 1, so in the direction of the links the
	 * one after via[k] is via[k - 1] (via[steps - 1] after via[s]). */
	unsigned s = (unsigned)seen[cur], at = s;
	for (unsigned k = s; k < steps; k++)
		if (via[k] < via[at])
			at = k;
	unsigned start = via[at];
	do {
		const struct sl_link_cfg *lk = &cfg->links[via[at]];
		int w = snprintf(text + used, sizeof(text) - used, "%s -> ",
				 cfg->apps[lk->from.app].name);
		if (w > 0 && (size_t)w < sizeof(text) - used)
			used += (size_t)w;
		at = at > s ? at - 1 : steps - 1;
	} while (via[at] != start);
	snprintf(text + used, sizeof(text) - used, "%s", cfg->apps[cfg->links[start].from.app].name);

	rc = sl_errf(err, EINVAL, "%s:%u:%u: links form a cycle: %s", cfg->path,
		     cfg->links[start].mark.line, cfg->links[start].mark.col, text);
out:
	free(seen);
	free(via);
	free(first);
	free(in);
	return rc;
}

/* A binary min-heap of app indices: among the ready apps, the one declared
 * first goes next. */
static void heap_push(unsigned *h, unsigned *n, unsigned v)
{
	unsigned i = (*n)++;
	while (i > 0 && h[(i - 1) / 2] > v) {
		h[i] = h[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h[i] = v;
}

static unsigned heap_pop(unsigned *h, unsigned *n)
{
	unsigned top = h[0], v = h[--(*n)], i = 0;
	for (;;) {
		unsigned k = 2 * i + 1;
		if (k >= *n)
			break;
		if (k + 1 < *n && h[k + 1] < h[k])
			k++;
		if (h[k] >= v)
			break;
		h[i] = h[k];
		i = k;
	}
	h[i] = v;
	return top;
}

int sl_config_order(struct sl_config *cfg, struct sl_err *err)
{
	unsigned n = cfg->n_apps;
	unsigned *order = calloc(n + 1, sizeof(*order));
	unsigned *indeg = calloc(n + 1, sizeof(*indeg));
	unsigned *heap = calloc(n + 1, sizeof(*heap));
	bool *left = calloc(n + 1, sizeof(*left));
	unsigned *first = NULL;
	unsigned *out = links_by_app(cfg, true, &first);
	unsigned placed = 0, n_heap = 0;
	int rc = 0;

	if (order == NULL || indeg == NULL || heap == NULL || left == NULL || out == NULL) {
		rc = sl_errf(err, ENOMEM, "%s: out of memory", cfg->path);
		goto out;
	}
	for (unsigned l = 0; l < cfg->n_links; l++)
		if (link_orders(cfg, l))
			indeg[cfg->links[l].to.app]++;
	for (unsigned i = 0; i < n; i++) {
		left[i] = true;
		if (indeg[i] == 0)
			heap_push(heap, &n_heap, i);
	}
	while (n_heap > 0) {
		unsigned pick = heap_pop(heap, &n_heap);
		left[pick] = false;
		order[placed++] = pick;
		for (unsigned k = first[pick]; k < first[pick + 1]; k++) {
			unsigned to = cfg->links[out[k]].to.app;
			if (--indeg[to] == 0)
				heap_push(heap, &n_heap, to);
		}
	}
	if (placed < n) {
		rc = report_cycle(cfg, left, err);
		goto out;
	}
	free(cfg->order);
	cfg->order = order;
	order = NULL;
out:
	free(order);
	free(indeg);
	free(heap);
	free(left);
	free(first);
	free(out);
	return rc;
}
