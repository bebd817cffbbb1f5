/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the files of the configuration loader share (config.c and
 * config_*.c, one per part of the document): the walk's context, the
 * schema's key indexes, and the helpers and section parsers one file
 * defines and another calls.  Private to engine/config/.
 *
 * The shared functions and tables keep their short names in these files
 * and link as sl_cfg_NAME (the macros below), so that no short name is a
 * global symbol.
 */
#ifndef SL_CONFIG_PRIVATE_H
#define SL_CONFIG_PRIVATE_H

#include <stdbool.h>
#include <stdint.h>

#include <yaml.h>

#include "base/err.h"
#include "runtime/param.h"

struct sl_config;

#define alloc_ports sl_cfg_alloc_ports
#define check_apps sl_cfg_check_apps
#define check_exclusive sl_cfg_check_exclusive
#define check_keys sl_cfg_check_keys
#define check_ports sl_cfg_check_ports
#define check_refs sl_cfg_check_refs
#define cmp_name_ref sl_cfg_cmp_name_ref
#define config_warn sl_cfg_config_warn
#define fail_at sl_cfg_fail_at
#define find_app sl_cfg_find_app
#define find_ref sl_cfg_find_ref
#define is_null sl_cfg_is_null
#define join_names sl_cfg_join_names
#define kind_name sl_cfg_kind_name
#define n_items sl_cfg_n_items
#define n_pairs sl_cfg_n_pairs
#define node_at sl_cfg_node_at
#define node_mark sl_cfg_node_mark
#define out_of_memory sl_cfg_out_of_memory
#define parse_apps sl_cfg_parse_apps
#define parse_dpdk sl_cfg_parse_dpdk
#define parse_engine sl_cfg_parse_engine
#define parse_links sl_cfg_parse_links
#define parse_pool sl_cfg_parse_pool
#define parse_topology sl_cfg_parse_topology
#define parse_workers sl_cfg_parse_workers
#define pool_keys sl_cfg_pool_keys
#define pool_warnings sl_cfg_pool_warnings
#define port_word sl_cfg_port_word
#define section_absent sl_cfg_section_absent
#define sections sl_cfg_sections
#define text_of sl_cfg_text_of
#define topology_keys sl_cfg_topology_keys
#define unknown_key sl_cfg_unknown_key
#define valid_name sl_cfg_valid_name
#define without_param_lead sl_cfg_without_param_lead
#define worker_keys sl_cfg_worker_keys
#define worker_list sl_cfg_worker_list

#define NAME_LIST_MAX 400     /* bytes of "a, b, c" lists in messages */

/* A name and its index, for lookups by binary search. */
struct name_ref {
	const char *name;
	unsigned idx;
};

/* What the walk needs at hand: the file name for messages, the document, the
 * config being filled and where to write the error; and what keeps checking
 * O(n log n): sorted name indexes, the connected port numbers of every app
 * (bit k of a word: number k of one port spec), which worker took each core,
 * and a bound on the list rows that YAML aliases can multiply. */
struct ctx {
	const char *name;
	yaml_document_t *doc;
	struct sl_config *cfg;
	struct sl_err *err;
	struct name_ref *workers_by_name;   /* n_worker_refs, sorted by name: a worker's
					     * name, or a group's (its first member) */
	unsigned n_worker_refs;
	struct name_ref *apps_by_name;      /* n_apps, sorted by name */
	uint64_t *ports_used;               /* per app: inputs' words, then outputs' */
	unsigned *ports_base;               /* per app: index of its first word */
	int *core_owner;                    /* CPU_SETSIZE: worker index + 1, or 0 */
	uint64_t rows, rows_max;            /* list rows built, and the bound */
	struct sl_mark pool_mark;           /* pool.chunk, pool.high or the section */
};

/* The schema's key indexes (config_schema.c). */
enum pool_key {
	POOL_MBUFS, POOL_CACHE, POOL_DATA_ROOM, POOL_OPS, POOL_CHUNK, POOL_HIGH,
	POOL_L3_TIER, POOL_L3_CHUNKS, POOL_ORDER, POOL_N
};

enum engine_key {
	ENGINE_BURST, ENGINE_LINK_SIZE, ENGINE_LINK_IMPL, ENGINE_EPOCH, ENGINE_RECLAIM_CAP, ENGINE_EPOCH_RING, ENGINE_STOP_TIMEOUT,
	ENGINE_ACCOUNTING, ENGINE_IDLE_SLEEP, ENGINE_DIRECT_LINKS, ENGINE_N
};

/* Indexes into sections[], in the order parse_root reads them. */
enum section_id { SEC_DPDK, SEC_POOL, SEC_ENGINE, SEC_WORKERS, SEC_APPS, SEC_LINKS,
		  SEC_TOPOLOGY, SEC_N };

#define SL_GROUP_MAX 256         /* members of a worker group at most */
#define TOPOLOGY_N 1             /* topology_keys */
#define WORKER_N 3               /* worker_keys: core, cores, count */

/* config.c */
struct sl_mark node_mark(const yaml_node_t *n);
__attribute__((format(printf, 3, 4)))
int fail_at(struct ctx *c, struct sl_mark m, const char *fmt, ...);
int out_of_memory(struct ctx *c);
__attribute__((format(printf, 3, 4)))
int config_warn(struct ctx *c, struct sl_mark m, const char *fmt, ...);
yaml_node_t *node_at(const struct ctx *c, int id);
const char *text_of(const yaml_node_t *n);
const char *kind_name(const yaml_node_t *n);
bool is_null(const yaml_node_t *n);
unsigned n_pairs(const yaml_node_t *map);
unsigned n_items(const yaml_node_t *seq);
bool valid_name(const char *s);
const char *join_names(const char *const *words, unsigned n, char *buf, size_t len);
int cmp_name_ref(const void *a, const void *b);
int find_ref(const struct name_ref *refs, unsigned n, const char *name);
int check_keys(struct ctx *c, const yaml_node_t *map, const char *what,
	       const char *owner);
int unknown_key(struct ctx *c, const yaml_node_t *k, const char *owner,
		const char *what, const char *const *known, unsigned n);
bool section_absent(const yaml_node_t *n);

/* config_schema.c */
extern const struct sl_param_spec pool_keys[POOL_N];
extern const struct sl_param_spec topology_keys[TOPOLOGY_N];
extern const struct sl_param_spec worker_keys[WORKER_N];
extern const struct sl_config_section sections[SEC_N];

/* config_engine.c */
const char *without_param_lead(const char *msg, const char *name);
int parse_pool(struct ctx *c, const yaml_node_t *n);
int parse_engine(struct ctx *c, const yaml_node_t *n);
int parse_topology(struct ctx *c, const yaml_node_t *n);
int parse_dpdk(struct ctx *c, const yaml_node_t *n);

/* config_workers.c */
int parse_workers(struct ctx *c, const yaml_node_t *n);
int pool_warnings(struct ctx *c);
const char *worker_list(const struct sl_config *cfg, char *buf, size_t len);

/* config_apps.c */
int find_app(const struct ctx *c, const char *name);
int parse_apps(struct ctx *c, const yaml_node_t *n, const yaml_node_t *root);
int check_apps(struct ctx *c);
int check_refs(struct ctx *c);
int check_exclusive(struct ctx *c);

/* config_links.c */
uint64_t *port_word(const struct ctx *c, const struct sl_endpoint *e, bool output);
int alloc_ports(struct ctx *c);
int parse_links(struct ctx *c, const yaml_node_t *n);
int check_ports(struct ctx *c);

#endif
