/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Pipeline configuration: a YAML file (parsed with libyaml) turned into a
 * checked, immutable struct sl_config.
 *
 *   dpdk:    { args: [EAL arguments...] }
 *   pool:    { KEY: VALUE ... }
 *   engine:  { KEY: VALUE ... }
 *   workers: { NAME: { core: N | auto } | { cores: [N, ...] } | { count: N } ... }
 *   apps:    { NAME: { type: T, worker: W, PARAM: VALUE ... } ... }
 *   links:   [ "a.output -> b.input", { link: "b.output -> c.input", size: N }, ... ]
 *   topology: { c2c: FILE | none }
 *
 * The keys of the pool, engine, topology and workers sections are declared
 * once, as sl_param_spec tables (sl_config_sections), like an app type's
 * parameters: they give every default, type and range the parser applies,
 * and `sluice config` prints them (docs/config.md is its output).
 *
 * sl_config_load checks everything that can be checked without hardware:
 * syntax, unknown keys (with "did you mean"), types and ranges of every
 * parameter against the app's schema, each app type's own checks
 * (sl_app_type.check), references between apps declared by the schema
 * (sl_param_spec.app_type, .share_agree), unknown apps, duplicate names,
 * links to missing apps or ports, ports connected twice, required ports left
 * unconnected, numbered ports with gaps, cycles, pool settings that cannot
 * work, and worker cores that this process may not use.  Every error is one
 * sentence that starts with FILE:LINE:COLUMN and names the object.
 *
 * Cost: O(n log n) time in the number of apps, links and keys; memory
 * bounded by the text (list rows that YAML aliases would multiply beyond the
 * text's size are refused).  Any bytes are safe input.
 *
 * Thread: control thread.  Ownership: the returned config owns all its
 * strings; free it with sl_config_free.
 */
#ifndef SL_CONFIG_H
#define SL_CONFIG_H

#include <stdbool.h>
#include <stdint.h>

#include "runtime/app.h"
#include "epoch/epoch.h"
#include "base/err.h"
#include "runtime/param.h"

#define SL_CORE_AUTO (-1)

struct sl_mark {
	unsigned line, col;      /* 1-based */
};

/* A worker group ({ cores: [...] } or { count: N }) is loaded as its members,
 * consecutive workers named GROUP@0, GROUP@1, ...; an app placed on the group
 * runs once per member (see sl_config_replicate below). */
struct sl_worker_cfg {
	char *name;
	int core;                /* CPU number, or SL_CORE_AUTO */
	struct sl_mark mark;
	char *group;             /* a member's group name; NULL for a worker of its own */
	unsigned member;         /* a member's number in its group, 0.. */
	unsigned n_members;      /* the group's size; 0 for a worker of its own */
};

struct sl_app_cfg {
	char *name;
	const struct sl_app_type *type;
	unsigned worker;         /* index into workers */
	struct sl_param_value *params;  /* parallel to type->params */
	struct sl_mark mark;
	/* Replication: an app on a worker group becomes one replica per member,
	 * named BASE@k and placed on member k.  base is the name as written
	 * (NULL for an app that is not replicated); replica is k; n_replicas
	 * the group's size (0 for an app that is not replicated).  implicit
	 * marks a join or split that replication inserted between a group and
	 * a single worker (named DEST@PORT or SRC@PORT); mark is then its
	 * link's. */
	char *base;
	unsigned replica, n_replicas;
	bool implicit;
};

struct sl_endpoint {
	unsigned app;            /* index into apps */
	char *port;              /* "output", "output2", ... */
	unsigned spec;           /* index into the type's inputs/outputs */
	unsigned number;         /* family number (0 for a fixed port) */
};

struct sl_link_cfg {
	struct sl_endpoint from, to;
	uint32_t size;           /* slots; 0: engine.link_size */
	struct sl_mark mark;
};

enum sl_pool_ops {
	SL_POOL_OPS_SLUICE,      /* pool/: per-worker freelists + chunk queue, no DPDK cache */
	SL_POOL_OPS_DPDK,        /* DPDK's ring_mp_mc with its per-lcore cache */
};

struct sl_pool_cfg {
	uint32_t mbufs;          /* buffers in the pool */
	uint32_t cache;          /* DPDK per-lcore cache size (ops: dpdk) */
	uint32_t data_room;      /* bytes of packet data per mbuf, headroom excluded */
	enum sl_pool_ops ops;
	uint32_t chunk;          /* buffers per chunk (ops: sluice) */
	uint32_t high;           /* freelist high mark; 0: the pool's default */
	bool l3_tier;            /* per-L3-domain tier */
	uint32_t l3_chunks;      /* chunks per L3 queue; 0: the pool's default */
	bool shuffle;            /* order: shuffled (once); false: address (DPDK's) */
};

/* How a link between two workers is carried (engine.link_impl). */
enum sl_link_impl {
	SL_LINK_INTERLINK = 0,   /* interlink/: published once per breath */
	SL_LINK_RING,            /* DPDK's rte_ring SP/SC, for A/B comparison */
};

struct sl_config {
	char *path;
	char **eal_args;         /* from dpdk.args */
	unsigned n_eal_args;
	struct sl_pool_cfg pool;
	unsigned burst;          /* packets per burst, 1..SL_BURST_MAX */
	unsigned link_size;      /* same-worker and cross-worker ring size */
	enum sl_link_impl link_impl;         /* engine.link_impl */
	enum sl_epoch_policy epoch_policy;   /* engine.epoch */
	unsigned reclaim_cap;    /* engine.reclaim_cap: frees per breath per worker */
	unsigned epoch_ring;     /* engine.epoch_ring: retired objects waiting, per worker */
	uint64_t stop_timeout_ns; /* engine.stop_timeout: 0 = no limit */
	bool accounting;         /* engine.accounting */
	bool direct_links;       /* engine.direct_links */
	uint64_t idle_sleep_ns;  /* engine.idle_sleep (or SLUICE_IDLE_SLEEP); 0: poll */
	struct sl_worker_cfg *workers;
	unsigned n_workers;
	struct sl_app_cfg *apps;
	unsigned n_apps;
	struct sl_link_cfg *links;
	unsigned n_links;
	unsigned *order;         /* app indices in topological (push) order */
	char *c2c_path;          /* topology.c2c: saved core-to-core matrix, or NULL */
	struct sl_mark c2c_mark; /* where topology.c2c's value is */
	/* Settings that are allowed but may not work as meant (a pool the
	 * workers' freelists can drain): "FILE:LINE:COL: sentence" each, for
	 * the caller to print.  Owned. */
	char **warnings;
	unsigned n_warnings;
};

/* One top-level section of a configuration, as the schema describes it. */
struct sl_config_section {
	const char *name;        /* the top-level key: "engine" */
	const char *summary;     /* one line */
	/* Its keys, n_keys of them, with their defaults (`def`), types, ranges
	 * and docs: the section is a mapping of these keys, or, where entry is
	 * set ("worker"), a mapping of names to entries of these keys.  NULL/0:
	 * a section of a shape of its own (apps, links), which doc describes. */
	const struct sl_param_spec *keys;
	unsigned n_keys;
	const char *entry;
	const char *doc;         /* Markdown paragraphs that follow the keys; may be NULL */
};

/* The schema: every top-level section, in the order documents list them.
 * *n receives their number.  Static data: any thread, never fails. */
const struct sl_config_section *sl_config_sections(unsigned *n);

/* Markdown paragraphs that introduce the configuration file (docs/config.md
 * opens with them).  Static data. */
const char *sl_config_doc_intro(void);

/* The largest configuration file sl_config_load reads. */
#define SL_CONFIG_MAX_BYTES (16 << 20)

/* Load and check the file at path: a regular file of at most
 * SL_CONFIG_MAX_BYTES (anything else, or one whose size says more, is
 * refused before it is read).  The file is read to its end, whatever size
 * it reports (a pseudo-file under /proc reports 0), and refused (EFBIG) once
 * it passes SL_CONFIG_MAX_BYTES.  NULL on error, with the reason in err. */
struct sl_config *sl_config_load(const char *path, struct sl_err *err);

/* The same from a string (tests); `name` stands for the file name in messages. */
struct sl_config *sl_config_parse(const char *name, const char *text, size_t len,
				  struct sl_err *err);

void sl_config_free(struct sl_config *cfg);

/* Replace every app on a worker group by one replica per member, and every
 * link by the links between replicas: within a group (or between groups of
 * the same size) member k to member k; from a group to a single worker
 * through a join inserted on that worker; from a single worker into a group
 * through a split (hash: a flow stays on one replica) inserted on that
 * worker.  A parameter naming another app (spec->app_type) names, in a
 * replica, the same member's replica of that app.  Called by
 * sl_config_load after every other check, before the push order; a config
 * without groups is left as it is.  Returns 0, or -EINVAL (-ENOMEM) with a
 * FILE:LINE:COL sentence in err (a link between groups of different sizes,
 * a reference into a group from outside it, more than SL_MAX_PORTS
 * members behind one join or split). */
int sl_config_replicate(struct sl_config *cfg, struct sl_err *err);

/* Compute the deterministic push order of cfg's apps: Kahn's algorithm, taking
 * among the ready apps the one declared first.  Fills cfg->order.  Returns 0, or
 * -EINVAL with the apps of one cycle named in err ("a -> b -> a"). */
int sl_config_order(struct sl_config *cfg, struct sl_err *err);

/* True if the EAL argument a chooses lcores: -l LIST, -lLIST, -c MASK,
 * -cMASK, --lcores[=]..., --main-lcore[=]..., or an abbreviation getopt_long
 * accepts for the long ones (--lc..., --mai...).  The engine builds the lcore
 * map from the workers section, so these are refused both in dpdk.args and
 * after -- on the command line. */
bool sl_eal_arg_reserved(const char *a);

#endif
