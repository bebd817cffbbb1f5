/* SPDX-License-Identifier: BSD-3-Clause */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <libgen.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_telemetry.h>

#include "ops/telemetry.h"
#include "ops/view.h"

/* DPDK 22.11's reply buffer is 16 KiB (lib/telemetry MAX_OUTPUT_LEN); a
 * list is cut so that its estimated JSON stays under this. */
#define TEL_BUDGET (16384 - 1024)
#define TEL_MAX_ROWS RTE_TEL_MAX_ARRAY_ENTRIES
#define TEL_MAX_STR 4                        /* string columns of a list */
#define TEL_MAX_U64 (SL_APP_COMMON_COUNTERS + SL_APP_RUNTIME_COUNTERS + SL_APP_COUNTERS_MAX)
_Static_assert(TEL_MAX_STR + TEL_MAX_U64 + 8 <= RTE_TEL_MAX_DICT_ENTRIES,
	       "a list's columns and header fit in one telemetry dict");

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct sl_tel_view view;              /* under lock */
static const char *state = "starting";       /* under lock */
static bool reloading;                       /* under lock: sl_tel_reloading */
static uint64_t t0_ns;                       /* under lock: the first attach */
static bool paused;                          /* control thread: it holds lock */
static char config_path[512];
static char prefix[128];

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int reply_error(struct rte_tel_data *d, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int reply_error(struct rte_tel_data *d, const char *fmt, ...)
{
	char msg[RTE_TEL_MAX_STRING_LEN];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "error", msg);
	return 0;
}

/* The objects, or an error reply when there are none (under lock). */
static bool attached(struct rte_tel_data *d)
{
	if (view.cfg != NULL)
		return true;
	reply_error(d, "the engine is %s: no pipeline to read", state);
	rte_tel_data_add_dict_string(d, "state", state);   /* a client waits, then */
	return false;
}

/* ---------------------------------------------------------------- lists */

/* One row of a list: its string cells, then its numbers. */
struct row {
	const char *s[TEL_MAX_STR];
	uint64_t u[TEL_MAX_U64];
};

/* A list's columns: n_s string columns, then n_u number columns. */
struct list {
	const char *s_keys[TEL_MAX_STR];
	unsigned n_s;
	const char *u_keys[TEL_MAX_U64];
	unsigned n_u;
};

static void list_add_u(struct list *l, const struct sl_counter_spec *specs, unsigned n)
{
	for (unsigned i = 0; i < n && l->n_u < TEL_MAX_U64; i++)
		l->u_keys[l->n_u++] = specs[i].name;
}

static size_t digits(uint64_t v)
{
	size_t n = 1;
	while (v >= 10) {
		v /= 10;
		n++;
	}
	return n;
}

/* Parse a list's parameter: empty or NULL (0), or a decimal offset. */
static bool parse_offset(const char *params, unsigned *offset)
{
	*offset = 0;
	if (params == NULL || *params == '\0')
		return true;
	uint64_t v = 0;
	for (const char *p = params; *p != '\0'; p++) {
		if (!isdigit((unsigned char)*p) || v > UINT32_MAX / 10)
			return false;
		v = v * 10 + (uint64_t)(*p - '0');
	}
	if (v > UINT32_MAX)
		return false;
	*offset = (unsigned)v;
	return true;
}

/* Reply with rows [offset, total) of a list, as many as fit: rows[k] is
 * row offset + k.  Cut between rows, saying where to go on. */
static int reply_list(struct rte_tel_data *d, const char *cmd, const struct list *l,
		      const struct row *rows, unsigned offset, unsigned n_rows, unsigned total)
{
	size_t used = strlen(cmd) + 160;     /* {"CMD": {total, offset, count, next, cut}} */
	for (unsigned c = 0; c < l->n_s; c++)
		used += strlen(l->s_keys[c]) + 6;
	for (unsigned c = 0; c < l->n_u; c++)
		used += strlen(l->u_keys[c]) + 6;
	unsigned count = 0;
	for (; count < n_rows && count < TEL_MAX_ROWS; count++) {
		size_t row = 0;
		for (unsigned c = 0; c < l->n_s; c++)
			row += strlen(rows[count].s[c]) + 3;
		for (unsigned c = 0; c < l->n_u; c++)
			row += digits(rows[count].u[c]) + 1;
		if (used + row > TEL_BUDGET)
			break;
		used += row;
	}
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_u64(d, "total", total);
	rte_tel_data_add_dict_u64(d, "offset", offset);
	rte_tel_data_add_dict_u64(d, "count", count);
	if (offset + count < total) {
		char cut[RTE_TEL_MAX_STRING_LEN];
		snprintf(cut, sizeof(cut), "rows %u..%u of %u fit in one reply; ask for %s,%u next",
			 offset, offset + count - (count > 0), total, cmd, offset + count);
		rte_tel_data_add_dict_u64(d, "next", offset + count);
		rte_tel_data_add_dict_string(d, "cut", cut);
	}
	for (unsigned c = 0; c < l->n_s + l->n_u; c++) {
		struct rte_tel_data *col = rte_tel_data_alloc();
		if (col == NULL)
			return -ENOMEM;
		bool str = c < l->n_s;
		rte_tel_data_start_array(col, str ? RTE_TEL_STRING_VAL : RTE_TEL_U64_VAL);
		for (unsigned r = 0; r < count; r++) {
			if (str)
				rte_tel_data_add_array_string(col, rows[r].s[c]);
			else
				rte_tel_data_add_array_u64(col, rows[r].u[c - l->n_s]);
		}
		const char *key = str ? l->s_keys[c] : l->u_keys[c - l->n_s];
		if (rte_tel_data_add_dict_container(d, key, col, 0) < 0) {
			rte_tel_data_free(col);
			return -ENOMEM;
		}
	}
	return 0;
}

/* Rows of a list: offset checked against total, at most TEL_MAX_ROWS
 * allocated (the reply holds no more).  NULL with an error reply made. */
static struct row *list_rows(struct rte_tel_data *d, const char *params, unsigned total,
			     unsigned *offset, unsigned *n)
{
	if (!parse_offset(params, offset)) {
		reply_error(d, "bad parameter '%.40s': an offset (a row number) was expected",
			    params);
		return NULL;
	}
	if (*offset > total || (*offset == total && total > 0)) {
		reply_error(d, "offset %u is past the last row (%u rows)", *offset, total);
		return NULL;
	}
	*n = total - *offset < TEL_MAX_ROWS ? total - *offset : TEL_MAX_ROWS;
	struct row *rows = calloc(*n + 1, sizeof(*rows));
	if (rows == NULL)
		reply_error(d, "out of memory");
	return rows;
}

/* ---------------------------------------------------------------- commands */

/* An app's values kept outside its worker, stored by its type's sample
 * hook (app.h) before they are read (under lock: one sample at a time). */
static void sample(const struct sl_app *a)
{
	if (a->type->sample != NULL && a->inited)
		a->type->sample((struct sl_app *)a);
}

/* An absent value (a local link's interlink-only ones) reads 0 here; the
 * link's kind says which exist (docs/telemetry.md). */
static void copy_values(uint64_t *dst, const struct sl_values *v, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		dst[i] = (v->absent >> i & 1) ? 0 : v->v[i];
}

static int cmd_info(const char *cmd, const char *params, struct rte_tel_data *d)
{
	pthread_mutex_lock(&lock);
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "version", SL_VERSION);
	rte_tel_data_add_dict_u64(d, "pid", (uint64_t)getpid());
	rte_tel_data_add_dict_string(d, "prefix", prefix);
	rte_tel_data_add_dict_string(d, "config", config_path);
	rte_tel_data_add_dict_string(d, "state", state);
	rte_tel_data_add_dict_u64(d, "tsc_hz", rte_get_tsc_hz());
	if (view.cfg != NULL) {
		const struct sl_config *cfg = view.cfg;
		rte_tel_data_add_dict_u64(d, "elapsed_ns", now_ns() - t0_ns);
		rte_tel_data_add_dict_u64(d, "control_cpu", (uint64_t)view.control_cpu);
		rte_tel_data_add_dict_u64(d, "accounting", cfg->accounting);
		rte_tel_data_add_dict_u64(d, "idle_sleep_ns", cfg->idle_sleep_ns);
		rte_tel_data_add_dict_u64(d, "apps", cfg->n_apps);
		rte_tel_data_add_dict_u64(d, "links", cfg->n_links);
		rte_tel_data_add_dict_u64(d, "workers", cfg->n_workers);
		rte_tel_data_add_dict_u64(d, "reloads", view.reloads == NULL ? 0 :
					  __atomic_load_n(view.reloads, __ATOMIC_RELAXED));
		rte_tel_data_add_dict_u64(d, "freed_by_reload", view.freed_by_reload == NULL ? 0 :
					  __atomic_load_n(view.freed_by_reload, __ATOMIC_RELAXED));
		rte_tel_data_add_dict_u64(d, "last_reload_ns", view.last_reload_ns == NULL ? 0 :
					  __atomic_load_n(view.last_reload_ns, __ATOMIC_RELAXED));
		struct rte_tel_data *types = rte_tel_data_alloc();
		if (types != NULL) {
			rte_tel_data_start_array(types, RTE_TEL_STRING_VAL);
			for (unsigned i = 0; i < cfg->n_apps; i++) {
				const struct sl_app_type *t = view.apps[i]->type;
				bool seen = t->n_counters == 0;
				for (unsigned j = 0; j < i && !seen; j++)
					seen = view.apps[j]->type == t;
				if (!seen)
					rte_tel_data_add_array_string(types, t->name);
			}
			if (rte_tel_data_add_dict_container(d, "types", types, 0) < 0)
				rte_tel_data_free(types);
		}
	}
	pthread_mutex_unlock(&lock);
	return 0;
}

static int cmd_apps(const char *cmd, const char *params, struct rte_tel_data *d)
{
	int rc = 0;
	pthread_mutex_lock(&lock);
	if (!attached(d))
		goto out;
	const struct sl_config *cfg = view.cfg;
	unsigned offset, n;
	struct row *rows = list_rows(d, params, cfg->n_apps, &offset, &n);
	if (rows == NULL)
		goto out;
	struct list l = { .s_keys = { "name", "type", "worker" }, .n_s = 3 };
	list_add_u(&l, sl_app_common_counters, SL_APP_COMMON_COUNTERS);
	list_add_u(&l, sl_app_runtime_counters, SL_APP_RUNTIME_COUNTERS);
	uint64_t v[SL_APP_COMMON_COUNTERS + SL_APP_COUNTERS_MAX];
	for (unsigned k = 0; k < n; k++) {
		const struct sl_app *a = view.apps[offset + k];
		rows[k].s[0] = a->name;
		rows[k].s[1] = a->type->name;
		rows[k].s[2] = cfg->workers[a->worker].name;
		sample(a);
		sl_app_counters_read(a, v);
		memcpy(rows[k].u, v, SL_APP_COMMON_COUNTERS * sizeof(uint64_t));
		struct sl_values rt;
		sl_view_app_runtime(a, &view.workers[a->worker], &rt);
		copy_values(rows[k].u + SL_APP_COMMON_COUNTERS, &rt, SL_APP_RUNTIME_COUNTERS);
	}
	rc = reply_list(d, cmd, &l, rows, offset, n, cfg->n_apps);
	free(rows);
out:
	pthread_mutex_unlock(&lock);
	return rc;
}

/* /sluice/replicated: each app on a worker group, its common counters
 * summed over its replicas (sl_view_replicated). */
static int cmd_replicated(const char *cmd, const char *params, struct rte_tel_data *d)
{
	int rc = 0;
	pthread_mutex_lock(&lock);
	if (!attached(d))
		goto out;
	const struct sl_config *cfg = view.cfg;
	unsigned total = 0, offset, n;
	for (unsigned i = 0; i < cfg->n_apps; i++)
		total += view.apps[i]->n_replicas > 0 && view.apps[i]->replica == 0;
	struct row *rows = list_rows(d, params, total, &offset, &n);
	if (rows == NULL)
		goto out;
	struct list l = { .s_keys = { "name", "type", "group" }, .n_s = 3,
			  .u_keys = { "replicas" }, .n_u = 1 };
	list_add_u(&l, sl_app_common_counters, SL_APP_COMMON_COUNTERS);
	unsigned row = 0, k = 0;
	for (unsigned i = 0; i < cfg->n_apps && k < n; i++) {
		const struct sl_app *a = view.apps[i];
		if (a->n_replicas == 0 || a->replica != 0 || row++ < offset)
			continue;
		for (unsigned r = 0; r < a->n_replicas; r++)
			sample(sl_app_replica(a, r));
		struct sl_values v;
		sl_view_replicated(a, &v);
		rows[k].s[0] = a->base;
		rows[k].s[1] = a->type->name;
		rows[k].s[2] = cfg->workers[a->worker].group;
		rows[k].u[0] = a->n_replicas;
		memcpy(rows[k].u + 1, v.v, SL_APP_COMMON_COUNTERS * sizeof(uint64_t));
		k++;
	}
	rc = reply_list(d, cmd, &l, rows, offset, n, total);
	free(rows);
out:
	pthread_mutex_unlock(&lock);
	return rc;
}

/* /sluice/TYPE,APP: one app's own counters. */
static int type_one(struct rte_tel_data *d, const struct sl_app_type *t, const char *name)
{
	for (unsigned i = 0; i < view.cfg->n_apps; i++) {
		const struct sl_app *a = view.apps[i];
		if (strcmp(a->name, name) != 0)
			continue;
		if (a->type != t)
			return reply_error(d, "app '%.64s' is a %s, not a %s", name, a->type->name,
					   t->name);
		uint64_t v[SL_APP_COMMON_COUNTERS + SL_APP_COUNTERS_MAX];
		sample(a);
		sl_app_counters_read(a, v);
		rte_tel_data_start_dict(d);
		rte_tel_data_add_dict_string(d, "name", a->name);
		for (unsigned c = 0; c < t->n_counters; c++)
			rte_tel_data_add_dict_u64(d, t->counters[c].name,
						  v[SL_APP_COMMON_COUNTERS + c]);
		return 0;
	}
	return reply_error(d, "no app '%.64s' in the pipeline", name);
}

static int cmd_type(const char *cmd, const char *params, struct rte_tel_data *d)
{
	int rc = 0;
	const struct sl_app_type *t = sl_app_type_find(cmd + strlen("/sluice/"));
	pthread_mutex_lock(&lock);
	if (!attached(d))
		goto out;
	if (t == NULL) {
		reply_error(d, "no app type '%.64s'", cmd);
		goto out;
	}
	if (params != NULL && isalpha((unsigned char)params[0])) {
		rc = type_one(d, t, params);
		goto out;
	}
	/* The list of this type's apps. */
	unsigned total = 0, offset, n;
	for (unsigned i = 0; i < view.cfg->n_apps; i++)
		total += view.apps[i]->type == t;
	struct row *rows = list_rows(d, params, total, &offset, &n);
	if (rows == NULL)
		goto out;
	struct list l = { .s_keys = { "name" }, .n_s = 1 };
	list_add_u(&l, t->counters, t->n_counters);
	uint64_t v[SL_APP_COMMON_COUNTERS + SL_APP_COUNTERS_MAX];
	unsigned seen = 0, k = 0;
	for (unsigned i = 0; i < view.cfg->n_apps && k < n; i++) {
		const struct sl_app *a = view.apps[i];
		if (a->type != t || seen++ < offset)
			continue;
		rows[k].s[0] = a->name;
		sample(a);
		sl_app_counters_read(a, v);
		memcpy(rows[k].u, v + SL_APP_COMMON_COUNTERS, t->n_counters * sizeof(uint64_t));
		k++;
	}
	rc = reply_list(d, cmd, &l, rows, offset, n, total);
	free(rows);
out:
	pthread_mutex_unlock(&lock);
	return rc;
}


/* /sluice/TABLE,APP[,OFFSET]: rows of one app's table (app.h, table_read),
 * as columns, read from its worker. */
static int cmd_table(const char *cmd, const char *params, struct rte_tel_data *d)
{
	const char *tname = cmd + strlen("/sluice/");
	char name[64] = "";
	const char *comma = params != NULL ? strchr(params, ',') : NULL;
	size_t len = params == NULL ? 0 : comma != NULL ? (size_t)(comma - params) : strlen(params);
	if (len == 0 || len >= sizeof(name))
		return reply_error(d, "%s takes an app's name (and a row offset: APP,OFFSET)", cmd);
	memcpy(name, params, len);
	int rc = 0;
	pthread_mutex_lock(&lock);
	if (!attached(d))
		goto out;
	struct sl_app *a = NULL;
	for (unsigned i = 0; i < view.cfg->n_apps && a == NULL; i++)
		if (strcmp(view.apps[i]->name, name) == 0)
			a = view.apps[i];
	if (a == NULL) {
		reply_error(d, "no app '%.64s' in the pipeline", name);
		goto out;
	}
	if (a->type->table == NULL || strcmp(a->type->table->name, tname) != 0 || !a->inited) {
		reply_error(d, "app '%.64s' (%s) keeps no %s", name, a->type->name, tname);
		goto out;
	}
	unsigned offset;
	if (!parse_offset(comma != NULL ? comma + 1 : NULL, &offset)) {
		reply_error(d, "bad parameter '%.40s': an offset (a row number) was expected",
			    comma + 1);
		goto out;
	}
	struct sl_table_row *cells = calloc(TEL_MAX_ROWS, sizeof(*cells));
	struct row *rows = calloc(TEL_MAX_ROWS, sizeof(*rows));
	struct sl_err err;
	unsigned n = 0;
	int total = cells != NULL && rows != NULL ?
		a->type->table_read(a, true, offset, cells, TEL_MAX_ROWS, &n, &err) :
		sl_errf(&err, ENOMEM, "out of memory");
	if (total < 0) {
		reply_error(d, "app '%.64s': %s", name, err.msg);
	} else if (offset > 0 && offset >= (unsigned)total) {
		reply_error(d, "offset %u is past the last row (%d rows)", offset, total);
	} else {
		const struct sl_table_spec *t = a->type->table;
		struct list l = { .n_s = 0 };
		for (unsigned c = 0; c < SL_TABLE_S && t->s_cols[c] != NULL; c++)
			l.s_keys[l.n_s++] = t->s_cols[c];
		for (unsigned c = 0; c < SL_TABLE_U && t->u_cols[c] != NULL; c++)
			l.u_keys[l.n_u++] = t->u_cols[c];
		for (unsigned r = 0; r < n; r++) {
			for (unsigned c = 0; c < l.n_s; c++)
				rows[r].s[c] = cells[r].s[c];
			memcpy(rows[r].u, cells[r].u, l.n_u * sizeof(uint64_t));
		}
		char again[160];   /* what a client asks for the next page */
		snprintf(again, sizeof(again), "%s,%s", cmd, name);
		rc = reply_list(d, again, &l, rows, offset, n, (unsigned)total);
	}
	free(rows);
	free(cells);
out:
	pthread_mutex_unlock(&lock);
	return rc;
}

static int cmd_links(const char *cmd, const char *params, struct rte_tel_data *d)
{
	int rc = 0;
	pthread_mutex_lock(&lock);
	if (!attached(d))
		goto out;
	unsigned offset, n;
	struct row *rows = list_rows(d, params, view.cfg->n_links, &offset, &n);
	if (rows == NULL)
		goto out;
	/* "app.port" ends, kept for the reply's life */
	char (*ends)[2][160] = calloc(n + 1, sizeof(*ends));
	if (ends == NULL) {
		free(rows);
		reply_error(d, "out of memory");
		goto out;
	}
	struct list l = { .s_keys = { "name", "from", "to", "kind" }, .n_s = 4 };
	list_add_u(&l, sl_link_counters, SL_LINK_N_COUNTERS);
	for (unsigned k = 0; k < n; k++) {
		const struct sl_link *lk = view.links[offset + k];
		struct sl_values v;
		sl_view_link(lk, &v);
		snprintf(ends[k][0], sizeof(ends[k][0]), "%s.%s", lk->from->name, lk->from_port);
		snprintf(ends[k][1], sizeof(ends[k][1]), "%s.%s", lk->to->name, lk->to_port);
		rows[k].s[0] = lk->name;
		rows[k].s[1] = ends[k][0];
		rows[k].s[2] = ends[k][1];
		rows[k].s[3] = sl_link_kind(lk);
		copy_values(rows[k].u, &v, SL_LINK_N_COUNTERS);
	}
	rc = reply_list(d, cmd, &l, rows, offset, n, view.cfg->n_links);
	free(ends);
	free(rows);
out:
	pthread_mutex_unlock(&lock);
	return rc;
}

static int cmd_workers(const char *cmd, const char *params, struct rte_tel_data *d)
{
	int rc = 0;
	pthread_mutex_lock(&lock);
	if (!attached(d))
		goto out;
	unsigned offset, n;
	struct row *rows = list_rows(d, params, view.cfg->n_workers, &offset, &n);
	if (rows == NULL)
		goto out;
	struct list l = { .s_keys = { "name" }, .n_s = 1 };
	list_add_u(&l, sl_worker_counters, SL_WORKER_N_COUNTERS);
	for (unsigned k = 0; k < n; k++) {
		struct sl_values v;
		sl_view_worker(&view.workers[offset + k], &v);
		rows[k].s[0] = view.workers[offset + k].name;
		copy_values(rows[k].u, &v, SL_WORKER_N_COUNTERS);
	}
	rc = reply_list(d, cmd, &l, rows, offset, n, view.cfg->n_workers);
	free(rows);
out:
	pthread_mutex_unlock(&lock);
	return rc;
}

static void add_table(struct rte_tel_data *d, const struct sl_counter_spec *specs, unsigned n,
		      const struct sl_values *v)
{
	for (unsigned i = 0; i < n; i++)
		rte_tel_data_add_dict_u64(d, specs[i].name, (v->absent >> i & 1) ? 0 : v->v[i]);
}

static int cmd_pool(const char *cmd, const char *params, struct rte_tel_data *d)
{
	pthread_mutex_lock(&lock);
	if (attached(d)) {
		struct sl_values tiers, events;
		bool ours = sl_view_pool(view.pool, &tiers, &events);
		rte_tel_data_start_dict(d);
		rte_tel_data_add_dict_string(d, "ops", ours ? "sluice" : "dpdk");
		rte_tel_data_add_dict_u64(d, "mbufs", view.pool->size);
		rte_tel_data_add_dict_u64(d, "available", rte_mempool_avail_count(view.pool));
		if (ours) {
			rte_tel_data_add_dict_u64(d, "chunk", view.cfg->pool.chunk);
			add_table(d, sl_pool_tier_counters, SL_POOL_N_TIER_COUNTERS, &tiers);
			add_table(d, sl_pool_event_counters, SL_POOL_N_EVENT_COUNTERS, &events);
		}
	}
	pthread_mutex_unlock(&lock);
	return 0;
}

static int cmd_epoch(const char *cmd, const char *params, struct rte_tel_data *d)
{
	pthread_mutex_lock(&lock);
	struct sl_values v;
	if (!attached(d)) {
		/* replied */
	} else if (!sl_view_epoch(view.epoch, view.cfg->n_workers, 0, &v)) {
		reply_error(d, "the pipeline runs without an epoch");
	} else {
		rte_tel_data_start_dict(d);
		rte_tel_data_add_dict_string(d, "policy",
					     sl_epoch_policy_name(view.cfg->epoch_policy));
		rte_tel_data_add_dict_u64(d, "reclaim_cap", view.cfg->reclaim_cap);
		add_table(d, sl_epoch_counters, SL_EPOCH_N_COUNTERS, &v);
	}
	pthread_mutex_unlock(&lock);
	return 0;
}

/* ---------------------------------------------------------------- life */

int sl_tel_register(const char *path, struct sl_err *err)
{
	static const struct {
		const char *cmd;
		telemetry_cb fn;
		const char *help;
	} cmds[] = {
		{ "/sluice/info", cmd_info, "Sluice: version, state, pid, config, elapsed time. No parameters." },
		{ "/sluice/apps", cmd_apps, "Sluice: every app's counters, as columns. Parameter: a row offset." },
		{ "/sluice/replicated", cmd_replicated, "Sluice: every app on a worker group, its counters summed over its replicas, as columns. Parameter: a row offset." },
		{ "/sluice/links", cmd_links, "Sluice: every link's counters, as columns. Parameter: a row offset." },
		{ "/sluice/workers", cmd_workers, "Sluice: every worker's counters, as columns. Parameter: a row offset." },
		{ "/sluice/pool", cmd_pool, "Sluice: the mbuf pool's tiers and events. No parameters." },
		{ "/sluice/epoch", cmd_epoch, "Sluice: epoch reclamation's counters. No parameters." },
	};
	const char *dir = rte_eal_get_runtime_dir();
	const char *slash = strrchr(dir, '/');
	snprintf(prefix, sizeof(prefix), "%s", slash != NULL ? slash + 1 : dir);
	snprintf(config_path, sizeof(config_path), "%s", path != NULL ? path : "");
	for (unsigned i = 0; i < SL_ARRAY_LEN(cmds); i++) {
		int rc = rte_telemetry_register_cmd(cmds[i].cmd, cmds[i].fn, cmds[i].help);
		if (rc < 0)
			return sl_errf(err, -rc, "telemetry: cannot register %s: %s", cmds[i].cmd,
				       strerror(-rc));
	}
	const struct sl_app_type *types[128];
	unsigned n = sl_app_types(types, SL_ARRAY_LEN(types));
	for (unsigned i = 0; i < n && i < SL_ARRAY_LEN(types); i++) {
		if (types[i]->n_counters == 0)
			continue;
		char cmd[64], help[RTE_TEL_MAX_STRING_LEN];
		snprintf(cmd, sizeof(cmd), "/sluice/%s", types[i]->name);
		snprintf(help, sizeof(help), "Sluice: the own counters of every %s app, as columns "
			 "(parameter: a row offset), or of one (parameter: its name).",
			 types[i]->name);
		int rc = rte_telemetry_register_cmd(cmd, cmd_type, help);
		if (rc < 0)
			return sl_errf(err, -rc, "telemetry: cannot register %s: %s", cmd,
				       strerror(-rc));
	}
	for (unsigned i = 0; i < n && i < SL_ARRAY_LEN(types); i++) {
		const struct sl_table_spec *t = types[i]->table;
		bool again = false;
		for (unsigned j = 0; j < i && t != NULL; j++)
			again |= types[j]->table != NULL && strcmp(types[j]->table->name, t->name) == 0;
		if (t == NULL || again)
			continue;
		char cmd[64], help[RTE_TEL_MAX_STRING_LEN];
		snprintf(cmd, sizeof(cmd), "/sluice/%s", t->name);
		snprintf(help, sizeof(help), "Sluice: %s Parameter: an app's name, and a row "
			 "offset after a comma.", t->doc);
		int rc = rte_telemetry_register_cmd(cmd, cmd_table, help);
		if (rc < 0)
			return sl_errf(err, -rc, "telemetry: cannot register %s: %s", cmd,
				       strerror(-rc));
	}
	return 0;
}

/* The lock, unless the control thread holds it already (sl_tel_pause). */
static void take(void)
{
	if (!paused)
		pthread_mutex_lock(&lock);
	paused = false;
}

void sl_tel_attach(const struct sl_tel_view *v)
{
	take();
	view = *v;
	state = reloading ? "reloading" : "running";
	if (t0_ns == 0)
		t0_ns = now_ns();
	pthread_mutex_unlock(&lock);
}

void sl_tel_pause(void)
{
	if (!paused)
		pthread_mutex_lock(&lock);
	paused = true;
}

void sl_tel_reloading(bool on)
{
	bool held = paused;
	if (!held)
		pthread_mutex_lock(&lock);
	reloading = on;
	if (view.cfg != NULL)
		state = on ? "reloading" : "running";
	if (!held)
		pthread_mutex_unlock(&lock);
}

void sl_tel_detach(void)
{
	take();
	memset(&view, 0, sizeof(view));
	state = "stopping";
	pthread_mutex_unlock(&lock);
}
