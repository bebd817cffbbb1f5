/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * neigh_view.h: a router's neighbour table as the engine's table rows
 * (runtime/app.h, table_read), for telemetry, `sluice stats` and the
 * summary: address, mac, state, interface; age_ms, held.
 *
 * The table belongs to the router's worker (neigh.h), so a reader on
 * another thread never walks it: it asks (sl_nbv_read), the worker makes a
 * copy at its next tick (sl_nbv_serve), and the reader copies out of that.
 * The copy is guarded by a mutex that the worker only ever tries: a worker
 * that finds it taken serves at a later tick, and never waits.
 *
 * A copy holds at most `cap` entries (the first in the table's hash order);
 * a table larger than that shows its first `cap`.
 * Errors follow engine/base/err.h.
 */
#ifndef SL_NEIGH_VIEW_H
#define SL_NEIGH_VIEW_H

#include <stdbool.h>

#include "base/err.h"
#include "runtime/app.h"
#include "apps/router/neigh.h"

#define SL_NBV_CAP 4096        /* rows a copy holds at most */
#define SL_NBV_IFNAME 32

extern const struct sl_table_spec sl_nbv_spec;

struct sl_nbv;

/* A view for copies of up to cap (<= SL_NBV_CAP) rows; names[i] is the
 * name of interface i (kept by the caller).  NULL with errno and a
 * sentence.  Control thread. */
struct sl_nbv *sl_nbv_create(unsigned cap, const char (*names)[SL_NBV_IFNAME],
			     struct sl_err *err);
void sl_nbv_free(struct sl_nbv *v);

/* Rows offset.. of t into rows (at most max), *filled of them; returns the
 * rows in all.  The thread that owns t (the worker; or any, the worker
 * stopped). */
unsigned sl_nbv_fill(const struct sl_nb_table *t, const char (*names)[SL_NBV_IFNAME],
		     unsigned offset, struct sl_table_row *rows, unsigned max,
		     unsigned *filled);

/* The worker, in tick: make the copy a reader asked for, if any.  Never
 * blocks. */
void sl_nbv_serve(struct sl_nbv *v, const struct sl_nb_table *t);

/* A reader while the worker runs: ask for a copy, wait for it (at most
 * SL_TABLE_WAIT_MS) and copy rows offset.. of it.  Returns the rows in
 * the copy, or -ETIMEDOUT with a sentence. */
int sl_nbv_read(struct sl_nbv *v, unsigned offset, struct sl_table_row *rows, unsigned max,
		unsigned *filled, struct sl_err *err);

#endif /* SL_NEIGH_VIEW_H */
