/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The difference between a running configuration and a new one, as the
 * actions that turn one into the other (Snabb's compute_config_actions): a
 * pure function of two checked configs, used by reload (engine/ops/control.h)
 * and by `sluice reload --dry-run`.
 *
 * Objects are matched by name: apps, workers, and links by their two
 * endpoints ("a.output -> b.input").  For each:
 *
 *   only in the old config   stop app, remove link, remove worker
 *   only in the new config   start app, add link, add worker
 *   in both, changed         an app of another type, or with a parameter its
 *                            type cannot change live (sl_param_spec.live):
 *                            restart app.  Only live parameters changed:
 *                            reconfigure app (in place).  Another worker:
 *                            move app (with restart or reconfigure too when
 *                            those apply).  A link whose size changed, or
 *                            whose ends are no longer on the same worker or
 *                            no longer on different ones: remove and add.
 *
 * Settings that cannot change while an engine runs (dpdk.args, every pool
 * key, every engine key, topology.c2c, and a worker's core) fail the whole diff with -EPERM and a
 * sentence naming the key ("pool.mbufs cannot change while running (16383 ->
 * 8191); restart Sluice").
 *
 * Order: by kind, in the order of enum sl_diff_kind (which is an order in
 * which they can be applied: links out before the apps they join, apps
 * started before links into them), then by name.  Deterministic.
 *
 * Thread: any; touches nothing but its arguments and what it allocates.
 * Ownership: the actions belong to the caller (sl_diff_free).
 */
#ifndef SL_DIFF_H
#define SL_DIFF_H

#include "config/config.h"
#include "base/err.h"

enum sl_diff_kind {
	SL_DIFF_REMOVE_LINK,
	SL_DIFF_STOP_APP,
	SL_DIFF_REMOVE_WORKER,
	SL_DIFF_ADD_WORKER,
	SL_DIFF_MOVE_APP,
	SL_DIFF_RESTART_APP,
	SL_DIFF_START_APP,
	SL_DIFF_RECONFIG_APP,
	SL_DIFF_ADD_LINK,
	SL_DIFF_KINDS
};

struct sl_diff_action {
	enum sl_diff_kind kind;
	/* The object's index in the old and in the new config (apps, links or
	 * workers, as the kind says); -1 where it has none. */
	int old_index, new_index;
	char name[128];          /* the app, worker or link ("a.output -> b.input") */
	char detail[256];        /* what changed: "rate 500000 -> 100000"; may be "" */
};

struct sl_diff {
	struct sl_diff_action *actions;
	unsigned n;
};

/* The actions from old to new, into *out (n = 0: nothing to do).  Returns 0,
 * -EPERM (a setting that cannot change while running; the sentence names
 * it, and *out is empty) or -ENOMEM. */
int sl_config_diff(const struct sl_config *old, const struct sl_config *new,
		   struct sl_diff *out, struct sl_err *err);

void sl_diff_free(struct sl_diff *d);

/* "remove link", "stop app", ..., as `sluice reload --dry-run` prints them. */
const char *sl_diff_kind_name(enum sl_diff_kind k);

/* One line for action a: "reconfigure app 'src': rate 500000 -> 100000". */
void sl_diff_format(const struct sl_diff_action *a, char *buf, size_t len);

/* Whether two values of a parameter of this spec are equal (tables row by
 * row, field by field; whether a value was written or defaulted does not
 * count). */
bool sl_param_value_equal(const struct sl_param_spec *spec, const struct sl_param_value *a,
			  const struct sl_param_value *b);

#endif
