/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sluice reload CONFIG [--prefix P] [--dry-run]: ask a running engine (found
 * by its DPDK file prefix, or the only one running) to apply CONFIG, over its
 * control socket (engine/ops/control.h, docs/control.md).  Prints each
 * action; exits 0 when applied (or, with --dry-run, when it could be), 2
 * when CONFIG does not load or cannot be applied to that engine (nothing
 * changed), 1 when the engine cannot be reached or failed to apply it.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "ops/control.h"
#include "base/err.h"
#include "cli/commands.h"
#include "cli/snapview.h"
#include "cli/telclient.h"

/* How long an engine may take to take the connection, and to load, check
 * and apply a config ($SLUICE_TIMEOUT replaces both: control.h). */
#define CONNECT_TIMEOUT_MS 10000
#define RELOAD_TIMEOUT_MS 30000

/* A busy engine: said once, while the reload is tried again. */
static void busy_note(const char *sentence)
{
	fprintf(stderr, "sluice: reload: %s\n", sentence);
}

int sl_cmd_reload(const struct sl_command *cmd, int argc, char **argv,
		  const struct sl_ctl_wait *env_wait)
{
	const char *prefix = NULL;
	bool dry_run = false;
	const struct sl_opt opts[] = {
		{ .name = "--dry-run", .type = SL_OPT_FLAG, .dst = &dry_run },
		{ .name = "--prefix", .type = SL_OPT_STR, .dst = &prefix, .nonempty = true },
	};
	struct sl_args args = { .cmd = cmd, .opts = opts, .n_opts = SL_OPTS_LEN(opts),
			     .max_args = 1, .arg_name = "CONFIG" };
	int arc = sl_opts_parse(&args, argc, argv);
	if (arc >= 0)
		return arc;
	if (args.n_args == 0)
		return sl_usage_error(cmd, "no CONFIG given");
	const char *config = args.args[0];
	/* The engine reads the file itself, from its own working directory. */
	char path[PATH_MAX];
	if (realpath(config, path) == NULL) {
		fprintf(stderr, "sluice: reload: cannot open '%s': %s\n", config, strerror(errno));
		return SL_EXIT_CONFIG;
	}

	struct sl_err err = { "" };
	char dir[PATH_MAX + 160];
	struct sl_ctl_wait wait = *env_wait;
	if (sl_telc_engine_dir(prefix, &wait, dir, sizeof(dir), &err) < 0) {
		fprintf(stderr, "sluice: reload: %s\n", err.msg);
		return SL_EXIT_RUNTIME;
	}
	sl_ctl_wait_default(&wait, CONNECT_TIMEOUT_MS, RELOAD_TIMEOUT_MS);
	wait.on_busy = busy_note;

	json_t *req = json_pack("{sssssb}", "verb", "reload", "config", path, "dry_run", dry_run);
	json_t *ans = req != NULL ? sl_ctl_call(dir, req, &wait, &err) : NULL;
	json_decref(req);
	if (ans == NULL) {
		fprintf(stderr, "sluice: reload: %s\n", req == NULL ? "out of memory" : err.msg);
		return SL_EXIT_RUNTIME;
	}
	int status = SL_EXIT_OK;
	if (!json_is_true(json_object_get(ans, "ok"))) {
		status = sl_ctl_error_status(ans);
		fprintf(stderr, "sluice: %s\n", sl_snap_str(json_object_get(ans, "error"),
							   "the engine failed the reload"));
		json_decref(ans);
		return status;
	}
	json_t *acts = json_object_get(ans, "actions");
	size_t i;
	json_t *a;
	json_array_foreach(acts, i, a) {
		const char *detail = sl_snap_str(json_object_get(a, "detail"), "");
		printf("%s%s '%s'%s%s\n", dry_run ? "would " : "",
		       sl_snap_str(json_object_get(a, "action"), "?"),
		       sl_snap_str(json_object_get(a, "name"), "?"), detail[0] ? ": " : "", detail);
	}
	if (dry_run)
		printf("reload: %zu action%s (dry run: nothing changed)\n", json_array_size(acts),
		       json_array_size(acts) == 1 ? "" : "s");
	else
		printf("reload: %zu action%s applied to engine '%s'\n", json_array_size(acts),
		       json_array_size(acts) == 1 ? "" : "s", strrchr(dir, '/') + 1);
	json_decref(ans);
	return status;
}
