/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The control socket's verbs (verbs.h): one table, which the handler walks.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/err.h"
#include "ops/capture.h"
#include "run/engine_private.h"
#include "run/reload.h"
#include "run/verbs.h"

static json_t *verb_info(struct engine *e, json_t *req)
{
	(void)req;
	return json_pack("{sbsIsssIsI}", "ok", 1, "pid", (json_int_t)getpid(), "config",
			 e->start_path, "reloads", (json_int_t)e->reloads,
			 "freed_by_reload", (json_int_t)e->freed_by_reload);
}

static json_t *verb_reload(struct engine *e, json_t *req)
{
	json_t *p = json_object_get(req, "config"), *dry = json_object_get(req, "dry_run");
	if (!json_is_string(p))
		return sl_ctl_error(SL_EXIT_CONFIG,
				    "reload: \"config\" must be a string (the file's path)");
	if (dry != NULL && !json_is_boolean(dry))
		return sl_ctl_error(SL_EXIT_CONFIG, "reload: \"dry_run\" must be true or false");
	if (e->reload_stopped)
		return sl_ctl_error(SL_EXIT_RUNTIME, "reload: the engine is stopping");
	return sl_eng_reload(e, json_string_value(p), json_is_true(dry));
}

static json_t *verb_capture(struct engine *e, json_t *req)
{
	return sl_cap_open(req);
}

static const struct verb {
	const char *verb;
	json_t *(*handler)(struct engine *e, json_t *req);
	const char *help;
} verbs[] = {
	{ "info", verb_info, "the engine's pid, the config it started with, and its reloads" },
	{ "reload", verb_reload, "apply the config at \"config\" (\"dry_run\": list its "
				 "actions only)" },
	{ "capture", verb_capture, "copy the packets of a link to this connection "
				   "(docs/capture.md)" },
};

json_t *sl_eng_control(void *arg, const char *verb, json_t *req)
{
	for (size_t i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++)
		if (strcmp(verb, verbs[i].verb) == 0)
			return verbs[i].handler(arg, req);
	char known[64] = "";
	size_t len = 0;
	for (size_t i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++)
		sl_appendf(known, sizeof(known), &len, "%s%s", i ? ", " : "", verbs[i].verb);
	char m[160];
	snprintf(m, sizeof(m), "unknown verb '%.64s' (known: %s)", verb, known);
	return sl_ctl_error(SL_EXIT_CONFIG, m);
}
