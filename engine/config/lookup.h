/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Look-ups in a checked configuration by name: apps, and links by their two
 * endpoints ("a.output -> b.input"), as the diff (config/diff.h), reload,
 * the engine's link names and capture points use them.
 *
 * Thread: any; reads c only.  Cost: O(n) in the apps or links.
 */
#ifndef SL_CONFIG_LOOKUP_H
#define SL_CONFIG_LOOKUP_H

#include <stdbool.h>
#include <stddef.h>

#include "config/config.h"

/* By name in c: the index of app `name`, or of the link
 * "a.output -> b.input"; -1 if none.  sl_config_link_name writes link i's
 * name so. */
int sl_config_find_app(const struct sl_config *c, const char *name);
int sl_config_find_link(const struct sl_config *c, const char *name);
void sl_config_link_name(const struct sl_config *c, unsigned i, char *buf, size_t len);

/* Is link i of c direct (runtime/link.h): both ends on one worker,
 * engine.direct_links on, and a consumer whose type has take()?  The one
 * rule the plan and the engine's links both follow. */
bool sl_config_link_direct(const struct sl_config *c, unsigned i);

#endif
