/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The pieces an engine is built of: app and link objects, the workers'
 * lists, the drain list and telemetry's view, made for the structure of a
 * config.  The engine's setup (engine.c) builds a run of them and a reload
 * (reload.c) the objects it adds; neither calls the other.  Control thread
 * only.
 */
#ifndef SL_RUN_BUILD_H
#define SL_RUN_BUILD_H

#include <stdint.h>

#include "base/err.h"
#include "config/config.h"
#include "run/engine_private.h"
#include "runtime/app.h"
#include "runtime/worker.h"

/* CLOCK_MONOTONIC, in seconds. */
double sl_eng_now_s(void);

/* An app object for cfg->apps[i], placed on its worker, links not yet
 * connected, not initialised.  NULL with a sentence. */
struct sl_app *sl_eng_new_app(struct engine *e, const struct sl_config *cfg, unsigned i,
			      struct sl_err *err);
/* Frees what sl_eng_new_app made (after fini, if it was initialised). */
void sl_eng_free_app(struct sl_app *a);
/* Where app a stands in cfg (index i): name, index, worker, params, ... */
void sl_eng_place_app(struct engine *e, const struct sl_config *cfg, unsigned i,
		      struct sl_app *a);

/* A link object for cfg->links[i] between apps[from] and apps[to] (a ring, or
 * an interlink when their workers differ); not connected to them.  NULL
 * with a sentence. */
struct sl_link *sl_eng_new_link(struct engine *e, const struct sl_config *cfg, unsigned i,
				struct sl_app *const *apps, struct sl_err *err);
void sl_eng_free_link(struct sl_link *l);
/* Make l, cfg->links[i] whose `to` is set, direct (link.h) where
 * sl_config_link_direct says so, else not; sets l->to_in.  Neither end's
 * worker may be running. */
void sl_eng_link_direct(struct engine *e, const struct sl_config *cfg, unsigned i,
			struct sl_link *l);
/* Free what l holds; returns how many. */
uint64_t sl_eng_free_link_contents(struct sl_link *l);

/* Point telemetry at e's current objects (its config, apps, links,
 * workers, pool, epoch and reload counters), and capture at those it reads
 * (config, links, epoch, control socket, stopping).  Control thread. */
void sl_eng_attach_view(struct engine *e);

/* Initialise app a (index i of cfg): 0 or -errno with a sentence
 * (-EDOM prefixed with FILE:LINE:COL). */
int sl_eng_init_app(const struct sl_config *cfg, unsigned i, struct sl_app *a,
		    struct sl_err *err);

/* Start app a (after sl_eng_init_app): 0 or -errno with a sentence. */
int sl_eng_start_app(struct sl_app *a, struct sl_err *err);

void sl_eng_push_entry(struct sl_push_entry *pe, struct sl_app *a);

/* The control thread's list of every app and interlink (the drain at stop),
 * for the structure running now.  0 or -ENOMEM. */
int sl_eng_rebuild_everyone(struct engine *e, struct sl_err *err);

#endif
