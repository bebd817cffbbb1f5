/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdio.h>
#include <string.h>

#include "config/lookup.h"

int sl_config_find_app(const struct sl_config *c, const char *name)
{
	for (unsigned i = 0; i < c->n_apps; i++)
		if (strcmp(c->apps[i].name, name) == 0)
			return (int)i;
	return -1;
}

bool sl_config_link_direct(const struct sl_config *c, unsigned i)
{
	const struct sl_link_cfg *l = &c->links[i];
	return c->direct_links && c->apps[l->to.app].type->take != NULL &&
	       c->apps[l->from.app].worker == c->apps[l->to.app].worker;
}

void sl_config_link_name(const struct sl_config *c, unsigned i, char *buf, size_t len)
{
	const struct sl_link_cfg *l = &c->links[i];
	snprintf(buf, len, "%s.%s -> %s.%s", c->apps[l->from.app].name, l->from.port,
		 c->apps[l->to.app].name, l->to.port);
}

int sl_config_find_link(const struct sl_config *c, const char *name)
{
	char buf[128];
	for (unsigned i = 0; i < c->n_links; i++) {
		sl_config_link_name(c, i, buf, sizeof(buf));
		if (strcmp(buf, name) == 0)
			return (int)i;
	}
	return -1;
}
