/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The control socket's verbs (docs/control.md), as a table of {verb,
 * handler, help}: info, reload (reload.h), capture (engine/ops/capture.h).
 * Control thread only.
 */
#ifndef SL_RUN_VERBS_H
#define SL_RUN_VERBS_H

#include <jansson.h>

#include "ops/control.h"

/* The control socket's handler (sl_ctl_handler; arg: the struct engine):
 * the verb's reply, or an error reply naming the verbs it knows. */
json_t *sl_eng_control(void *arg, const char *verb, json_t *req);

#endif
