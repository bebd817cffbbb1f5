/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Live reconfiguration of a running engine (docs/control.md): the config at
 * a path is loaded, checked, diffed against the one running
 * (engine/config/diff.h), planned (run/plan.h) and applied; the engine's
 * objects are made with build.h.  Control thread only.
 */
#ifndef SL_RUN_RELOAD_H
#define SL_RUN_RELOAD_H

#include <stdbool.h>

#include <jansson.h>

#include "run/engine_private.h"

/* Reload the config at path, or with dry_run only list its actions: the
 * control socket's reply to the verb "reload" (docs/control.md; status 2
 * for a config that does not load or cannot be applied to this engine, 1
 * for a failure while applying: nothing changed, unless the reply says
 * that the engine stops).  Telemetry says "reloading" meanwhile.  NULL:
 * out of memory. */
json_t *sl_eng_reload(struct engine *e, const char *path, bool dry_run);

/* SIGHUP: reload the file the run was started with, and say how it went
 * (a note, or a warning: nothing changed). */
void sl_eng_reload_on_hup(struct engine *e);

#endif
