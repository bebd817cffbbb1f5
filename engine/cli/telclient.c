/* SPDX-License-Identifier: BSD-3-Clause */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "runtime/app.h"
#include "ops/control.h"
#include "cli/telclient.h"
#include "ops/view.h"

#define SOCKET_NAME "dpdk_telemetry.v2"
#define REPLY_MAX (64 * 1024)       /* DPDK 22.11 sends at most 16 KiB */
#define TIMEOUT_MS 10000            /* to connect, and for each reply */

struct sl_telc {
	int fd;
	struct sl_ctl_wait wait;    /* SLUICE_TIMEOUT, or TIMEOUT_MS */
	char prefix[128];
	char path[PATH_MAX];
	char *buf;
};

/* DPDK's runtime directory for all prefixes, as its EAL picks it. */
void sl_telc_runtime_base(char *out, size_t len)
{
	const char *dir = getenv("RUNTIME_DIRECTORY");
	if (dir == NULL || *dir == '\0') {
		if (getuid() == 0)
			dir = "/var/run";
		else if ((dir = getenv("XDG_RUNTIME_DIR")) == NULL || *dir == '\0')
			dir = "/tmp";
	}
	snprintf(out, len, "%s/dpdk", dir);
}

/* Receive one message by end (ms, sl_ctl_now_ms): a whole JSON document,
 * NUL-terminated in c->buf.  A signal that interrupts the wait (a terminal
 * resized under sluice top) does not end it, the reply being on its way,
 * unless it set the wait's cancel flag (ECANCELED). */
static ssize_t recv_reply(struct sl_telc *c, int64_t end)
{
	struct pollfd p = { .fd = c->fd, .events = POLLIN };
	int rc;
	do {
		if (c->wait.cancel != NULL && *c->wait.cancel) {
			errno = ECANCELED;
			return -1;
		}
		int64_t left = end - sl_ctl_now_ms();
		rc = poll(&p, 1, left > 0 ? (int)left : 0);
	} while (rc < 0 && errno == EINTR);
	if (rc == 0) {
		errno = ETIMEDOUT;
		return -1;
	}
	if (rc < 0)
		return -1;
	ssize_t n;
	do
		n = recv(c->fd, c->buf, REPLY_MAX - 1, 0);
	while (n < 0 && errno == EINTR);
	if (n == 0) {
		errno = ECONNRESET;
		return -1;
	}
	if (n > 0)
		c->buf[n] = '\0';
	return n;
}

/* Connect to path and read DPDK's greeting, within the connect wait (a
 * telemetry thread that no longer accepts leaves a full listen queue, or a
 * connection that gets no greeting).  0 or -errno (ETIMEDOUT). */
static int connect_to(struct sl_telc *c, const char *path)
{
	int64_t end = sl_ctl_now_ms() + c->wait.connect_ms;
	c->fd = sl_ctl_connect_path(path, end, c->wait.cancel);
	if (c->fd < 0) {
		int e = -c->fd;
		c->fd = -1;
		return -e;
	}
	if (recv_reply(c, end) < 0) {
		int e = errno;
		close(c->fd);
		c->fd = -1;
		return -e;
	}
	snprintf(c->path, sizeof(c->path), "%s", path);
	return 0;
}

static struct sl_telc *telc_new(const struct sl_ctl_wait *w)
{
	struct sl_telc *c = calloc(1, sizeof(*c));
	if (c == NULL || (c->buf = malloc(REPLY_MAX)) == NULL) {
		free(c);
		return NULL;
	}
	c->fd = -1;
	c->wait = *w;
	sl_ctl_wait_default(&c->wait, TIMEOUT_MS, TIMEOUT_MS);
	return c;
}

void sl_telc_close(struct sl_telc *c)
{
	if (c == NULL)
		return;
	if (c->fd >= 0)
		close(c->fd);
	free(c->buf);
	free(c);
}

const char *sl_telc_prefix(const struct sl_telc *c)
{
	return c->prefix;
}

int sl_telc_engine_dir(const char *prefix, const struct sl_ctl_wait *w, char *dir, size_t len,
		       struct sl_err *err)
{
	struct sl_telc *tc = sl_telc_open(prefix, w, err);
	if (tc == NULL)
		return -(errno != 0 ? errno : ENOENT);
	char base[PATH_MAX];
	sl_telc_runtime_base(base, sizeof(base));
	int n = snprintf(dir, len, "%s/%s", base, sl_telc_prefix(tc));
	sl_telc_close(tc);
	if (n < 0 || (size_t)n >= len)
		return sl_errf(err, ENAMETOOLONG, "runtime directory %s/... is too long", base);
	return 0;
}

/* Does the engine at c answer /sluice/info?  When it does not, errno says
 * why (ETIMEDOUT: no answer in time, err says so). */
static bool is_sluice(struct sl_telc *c, struct sl_err *err)
{
	json_t *info = sl_telc_call(c, "/sluice/info", err);
	bool ok = info != NULL && json_is_object(info);
	if (info != NULL && !ok)
		errno = EPROTO;
	json_decref(info);
	return ok;
}

static struct sl_telc *open_prefix(const char *base, const char *prefix,
				     const struct sl_ctl_wait *w, struct sl_err *err)
{
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/%s/%s", base, prefix, SOCKET_NAME);
	struct sl_telc *c = telc_new(w);
	if (c == NULL)
		return sl_errf_null(err, ENOMEM, "out of memory");
	snprintf(c->prefix, sizeof(c->prefix), "%s", prefix);
	int rc = connect_to(c, path);
	double limit_s = c->wait.connect_ms / 1000.0;
	if (rc == 0) {
		struct sl_err e = { "" };
		if (is_sluice(c, &e))
			return c;
		int why = errno;
		sl_telc_close(c);
		if (why == ETIMEDOUT || why == ECANCELED) {   /* e names the prefix (and the limit) */
			if (err != NULL)
				*err = e;
			errno = why;
			return NULL;
		}
		return sl_errf_null(err, ENOENT, "the DPDK process with file prefix '%s' (%s) is "
				    "not a Sluice engine, or it has no pipeline", prefix, path);
	}
	sl_telc_close(c);
	if (rc == -EACCES || rc == -EPERM)
		return sl_errf_null(err, EACCES, "cannot read the telemetry socket %s of the engine "
				    "with file prefix '%s': it is root's; run as root", path, prefix);
	if (rc == -ENOENT || rc == -ECONNREFUSED)
		return sl_errf_null(err, ENOENT, "no engine is running with file prefix '%s' "
				    "(no telemetry socket answers at %s)", prefix, path);
	if (rc == -ECANCELED)
		return sl_errf_null(err, ECANCELED, "interrupted while connecting to the engine "
				    "with file prefix '%s' (%s)", prefix, path);
	if (rc == -ETIMEDOUT)
		return sl_errf_null(err, ETIMEDOUT, "the engine with file prefix '%s' did not "
				    "answer on its telemetry socket %s within %.1f s (%s sets the "
				    "limit)", prefix, path, limit_s, SL_CTL_TIMEOUT_ENV);
	return sl_errf_null(err, -rc, "cannot connect to the telemetry socket %s of file prefix "
			    "'%s': %s", path, prefix, strerror(-rc));
}

/* For a user who is not root and found nothing in its own runtime
 * directory: is there a root's engine (prefix, or any when NULL) it cannot
 * read?  Then say so. */
static struct sl_telc *roots_engine(const char *prefix, struct sl_err *err)
{
	static const char root_base[] = "/var/run/dpdk";
	char path[PATH_MAX];
	struct stat st;
	int saved = errno;
	if (getuid() == 0)
		return NULL;
	if (prefix != NULL) {
		snprintf(path, sizeof(path), "%s/%s/%s", root_base, prefix, SOCKET_NAME);
		if (stat(path, &st) == 0 || errno == EACCES)
			return sl_errf_null(err, EACCES, "cannot read the telemetry socket %s of the "
					    "engine with file prefix '%s': it is root's; run as root",
					    path, prefix);
	} else if (stat(root_base, &st) == 0 && access(root_base, R_OK | X_OK) < 0) {
		return sl_errf_null(err, EACCES, "cannot look for engines run by root in %s: it "
				    "is root's; run as root", root_base);
	}
	errno = saved;
	return NULL;
}

struct sl_telc *sl_telc_open(const char *prefix, const struct sl_ctl_wait *w, struct sl_err *err)
{
	char base[PATH_MAX / 2];
	sl_telc_runtime_base(base, sizeof(base));
	struct sl_telc *c = prefix != NULL ? open_prefix(base, prefix, w, err) : NULL;
	if (prefix != NULL) {
		if (c == NULL && errno == ENOENT)
			(void)roots_engine(prefix, err);   /* a better sentence, if root's */
		return c;
	}

	/* The only engine running: every prefix whose socket answers. */
	DIR *d = opendir(base);
	if (d == NULL) {
		if (errno == EACCES)
			return sl_errf_null(err, EACCES, "cannot read %s, where running engines are "
					    "found: it is root's; run as root", base);
		sl_errf_null(err, ENOENT, "no engine is running (nothing in %s)", base);
		return roots_engine(NULL, err);
	}
	/* An engine that did not answer in time is one too: with another that
	 * answers, which one is meant is not known (a reload must not go to the
	 * wrong one). */
	struct sl_telc *found = NULL;
	char names[512] = "", silent_names[512] = "";
	size_t len = 0, slen = 0;
	unsigned n_found = 0, n_denied = 0, n_silent = 0;
	struct sl_err silent = { "" };   /* an engine that did not answer in time */
	struct dirent *de;
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		char path[PATH_MAX];
		struct stat st;
		snprintf(path, sizeof(path), "%s/%s/%s", base, de->d_name, SOCKET_NAME);
		if (stat(path, &st) < 0 || !S_ISSOCK(st.st_mode))
			continue;
		struct sl_err e;
		struct sl_telc *c = open_prefix(base, de->d_name, w, &e);
		if (c == NULL && errno == ECANCELED) {
			closedir(d);
			sl_telc_close(found);
			if (err != NULL)
				*err = e;
			errno = ECANCELED;
			return NULL;
		}
		if (c == NULL) {
			n_denied += errno == EACCES;
			if (errno == ETIMEDOUT) {
				if (n_silent++ == 0)
					silent = e;
				sl_appendf(silent_names, sizeof(silent_names), &slen, "%s'%s'",
					   slen ? ", " : "", de->d_name);
			}
			continue;
		}
		n_found++;
		sl_appendf(names, sizeof(names), &len, "%s'%s'", len ? ", " : "", c->prefix);
		if (found == NULL)
			found = c;
		else
			sl_telc_close(c);
	}
	closedir(d);
	if (n_found == 1 && n_silent == 0)
		return found;
	sl_telc_close(found);
	if (n_found > 1 && n_silent == 0)
		return sl_errf_null(err, ENOTUNIQ, "%u engines are running (file prefixes %s); "
				    "say which with --prefix", n_found, names);
	if (n_found > 0)
		return sl_errf_null(err, ENOTUNIQ, "%u engines are running (file prefixes %s, "
				    "and %s, which did not answer in time); say which with "
				    "--prefix", n_found + n_silent, names, silent_names);
	if (n_silent > 0) {
		if (err != NULL)
			*err = silent;
		errno = ETIMEDOUT;
		return NULL;
	}
	if (n_denied > 0)
		return sl_errf_null(err, EACCES, "cannot read the telemetry sockets in %s: they are "
				    "root's; run as root", base);
	sl_errf_null(err, ENOENT, "no engine is running (no telemetry socket in %s answers "
		     "/sluice/info)", base);
	return roots_engine(NULL, err);
}

json_t *sl_telc_call(struct sl_telc *c, const char *cmd, struct sl_err *err)
{
	if (c->fd < 0)
		return sl_errf_null(err, ECONNRESET, "the engine with file prefix '%s' has gone",
				    c->prefix);
	ssize_t sent;
	do
		sent = send(c->fd, cmd, strlen(cmd), MSG_NOSIGNAL);
	while (sent < 0 && errno == EINTR);
	if (sent < 0 || recv_reply(c, sl_ctl_now_ms() + c->wait.reply_ms) < 0) {
		int e = errno == EPIPE || errno == ECONNREFUSED ? ECONNRESET : errno;
		close(c->fd);
		c->fd = -1;
		if (e == ECONNRESET)
			return sl_errf_null(err, e, "the engine with file prefix '%s' stopped "
					    "(its telemetry socket closed)", c->prefix);
		if (e == ECANCELED)
			return sl_errf_null(err, e, "interrupted while waiting for the engine with "
					    "file prefix '%s' to answer %s", c->prefix, cmd);
		if (e == ETIMEDOUT)
			return sl_errf_null(err, e, "the engine with file prefix '%s' did not "
					    "answer %s within %.1f s on its telemetry socket %s (%s "
					    "sets the limit)", c->prefix, cmd,
					    c->wait.reply_ms / 1000.0, c->path, SL_CTL_TIMEOUT_ENV);
		return sl_errf_null(err, e, "telemetry socket %s: %s: %s", c->path, cmd,
				    strerror(e));
	}
	json_error_t je;
	json_t *root = json_loads(c->buf, 0, &je);
	if (root == NULL)
		return sl_errf_null(err, EPROTO, "telemetry socket %s: the reply to %s is not "
				    "JSON: %s", c->path, cmd, je.text);
	/* {"CMD": VALUE}: the command is echoed without its parameter */
	char key[128];
	snprintf(key, sizeof(key), "%s", cmd);
	char *comma = strchr(key, ',');
	if (comma != NULL)
		*comma = '\0';
	json_t *v = json_object_get(root, key);
	if (v == NULL || json_is_null(v)) {
		json_decref(root);
		return sl_errf_null(err, EPROTO, "telemetry socket %s: no reply to %s (is the "
				    "engine a Sluice of this version?)", c->path, cmd);
	}
	json_incref(v);
	json_decref(root);
	json_t *e = json_is_object(v) ? json_object_get(v, "error") : NULL;
	if (e != NULL) {
		const char *msg = json_string_value(e);
		bool idle = json_object_get(v, "state") != NULL;   /* starting or stopping */
		sl_errf(err, idle ? EAGAIN : EINVAL, "engine '%s': %s: %s", c->prefix, cmd,
			msg != NULL ? msg : "error");
		json_decref(v);
		errno = idle ? EAGAIN : EINVAL;
		return NULL;
	}
	return v;
}

/* ---------------------------------------------------------------- snapshot */

/* Every page of a list command, as one object of whole columns. */
static json_t *call_list(struct sl_telc *c, const char *cmd, struct sl_err *err)
{
	json_t *all = NULL;
	uint64_t offset = 0;
	for (;;) {
		char full[160];
		snprintf(full, sizeof(full), "%s,%llu", cmd, (unsigned long long)offset);
		json_t *page = sl_telc_call(c, offset == 0 ? cmd : full, err);
		if (page == NULL) {
			json_decref(all);
			return NULL;
		}
		/* Where to go on is this page's own "next" (the merged
		 * object keeps the first page's keys only). */
		json_t *next = json_object_get(page, "next");
		bool more = next != NULL;
		uint64_t n = more ? (uint64_t)json_integer_value(next) : 0;
		if (all == NULL) {
			all = page;
		} else {
			const char *k;
			json_t *col;
			json_object_foreach(page, k, col) {
				json_t *into = json_object_get(all, k);
				if (json_is_array(col) && json_is_array(into))
					json_array_extend(into, col);
			}
			json_decref(page);
		}
		json_object_del(all, "next");
		json_object_del(all, "cut");
		if (!more)
			break;
		if (n <= offset) {
			json_decref(all);
			return sl_errf_null(err, EPROTO, "engine '%s': %s does not advance past row "
					    "%llu", c->prefix, cmd, (unsigned long long)offset);
		}
		offset = n;
	}
	json_object_del(all, "offset");
	json_object_set_new(all, "count", json_incref(json_object_get(all, "total")));
	return all;
}

/* Row i of a columns object, as {key: value} for keys[0..n). */
static json_t *row_of(json_t *cols, size_t i, const struct sl_counter_spec *specs, unsigned n,
		      uint64_t absent)
{
	json_t *o = json_object();
	for (unsigned k = 0; o != NULL && k < n; k++) {
		json_t *v = json_array_get(json_object_get(cols, specs[k].name), i);
		json_object_set_new(o, specs[k].name,
				    (absent >> k & 1) || v == NULL ? json_null() : json_incref(v));
	}
	return o;
}

static const char *col_str(json_t *cols, const char *key, size_t i)
{
	const char *s = json_string_value(json_array_get(json_object_get(cols, key), i));
	return s != NULL ? s : "";
}

/* An app's table (app.h) as an array of row objects, read page by page;
 * null when the engine could not give it (its worker made no copy in
 * time). */
static json_t *snap_table(struct sl_telc *c, const struct sl_table_spec *t, const char *app)
{
	char cmd[128];
	struct sl_err err;
	snprintf(cmd, sizeof(cmd), "/sluice/%s,%s", t->name, app);
	json_t *cols = call_list(c, cmd, &err);
	if (cols == NULL)
		return json_null();
	json_t *arr = json_array();
	const char *first = t->s_cols[0] != NULL ? t->s_cols[0] : t->u_cols[0];
	size_t n = json_array_size(json_object_get(cols, first));
	for (size_t i = 0; i < n; i++) {
		json_t *row = json_object();
		for (unsigned k = 0; k < SL_TABLE_S && t->s_cols[k] != NULL; k++)
			json_object_set(row, t->s_cols[k],
					json_array_get(json_object_get(cols, t->s_cols[k]), i));
		for (unsigned k = 0; k < SL_TABLE_U && t->u_cols[k] != NULL; k++)
			json_object_set(row, t->u_cols[k],
					json_array_get(json_object_get(cols, t->u_cols[k]), i));
		json_array_append_new(arr, row);
	}
	json_decref(cols);
	return arr;
}

static int snap_apps(struct sl_telc *c, json_t *root, json_t *info, struct sl_err *err)
{
	json_t *cols = call_list(c, "/sluice/apps", err);
	if (cols == NULL)
		return -errno;
	/* each type's own counters, by app name */
	json_t *own = json_object();
	size_t i;
	json_t *t;
	json_array_foreach(json_object_get(info, "types"), i, t) {
		const struct sl_app_type *type = sl_app_type_find(json_string_value(t));
		if (type == NULL)
			continue;   /* a type this client does not know: left out */
		char cmd[96];
		snprintf(cmd, sizeof(cmd), "/sluice/%s", type->name);
		json_t *tc = call_list(c, cmd, err);
		if (tc == NULL) {
			json_decref(own);
			json_decref(cols);
			return -errno;
		}
		size_t n = json_array_size(json_object_get(tc, "name"));
		for (size_t r = 0; r < n; r++)
			json_object_set_new(own, col_str(tc, "name", r),
					    row_of(tc, r, type->counters, type->n_counters, 0));
		json_decref(tc);
	}
	bool acct = json_integer_value(json_object_get(info, "accounting")) != 0;
	json_t *apps = json_object();
	size_t n = json_array_size(json_object_get(cols, "name"));
	for (size_t r = 0; r < n; r++) {
		json_t *a = json_object();
		json_object_set_new(a, "type", json_string(col_str(cols, "type", r)));
		json_object_set_new(a, "worker", json_string(col_str(cols, "worker", r)));
		json_t *ctr = row_of(cols, r, sl_app_common_counters, SL_APP_COMMON_COUNTERS, 0);
		json_object_update(ctr, json_object_get(own, col_str(cols, "name", r)));
		json_object_set_new(a, "counters", ctr);
		json_object_set_new(a, "runtime",
				    row_of(cols, r, sl_app_runtime_counters, SL_APP_RUNTIME_COUNTERS,
					   acct ? 0 : (UINT64_C(1) << SL_APP_RUNTIME_COUNTERS) - 1));
		const struct sl_app_type *type = sl_app_type_find(col_str(cols, "type", r));
		if (type != NULL && type->table != NULL)
			json_object_set_new(a, type->table->name,
					    snap_table(c, type->table, col_str(cols, "name", r)));
		json_object_set_new(apps, col_str(cols, "name", r), a);
	}
	json_object_set_new(root, "apps", apps);
	json_decref(own);
	json_decref(cols);
	return 0;
}

/* "replicated", as the summary has it: the apps /sluice/replicated names,
 * their counters summed over the replicas' in root's apps (the common and
 * the type's own, gauges left out), so that the totals and the replicas
 * come from one reading. */
static int snap_replicated(struct sl_telc *c, json_t *root, struct sl_err *err)
{
	json_t *cols = call_list(c, "/sluice/replicated", err);
	if (cols == NULL)
		return -errno;
	json_t *rep = json_object(), *apps = json_object_get(root, "apps");
	size_t n = json_array_size(json_object_get(cols, "name"));
	for (size_t r = 0; r < n; r++) {
		const char *base = col_str(cols, "name", r);
		const struct sl_app_type *type = sl_app_type_find(col_str(cols, "type", r));
		json_int_t count = json_integer_value(json_array_get(json_object_get(cols, "replicas"), r));
		json_t *o = json_object(), *names = json_array();
		json_t *sum = json_object();
		json_object_set_new(o, "type", json_string(col_str(cols, "type", r)));
		json_object_set_new(o, "group", json_string(col_str(cols, "group", r)));
		for (json_int_t k = 0; k < count; k++) {
			char name[160];
			snprintf(name, sizeof(name), "%s@%lld", base, (long long)k);
			json_array_append_new(names, json_string(name));
			json_t *ctr = json_object_get(json_object_get(apps, name), "counters");
			unsigned n_own = type != NULL ? type->n_counters : 0;
			for (unsigned i = 0; i < SL_APP_COMMON_COUNTERS + n_own; i++) {
				const struct sl_counter_spec *spec = i < SL_APP_COMMON_COUNTERS ?
					&sl_app_common_counters[i] :
					&type->counters[i - SL_APP_COMMON_COUNTERS];
				const char *key = spec->name;
				if (spec->kind == SL_GAUGE)
					continue;
				json_int_t v = json_integer_value(json_object_get(sum, key)) +
					       json_integer_value(json_object_get(ctr, key));
				json_object_set_new(sum, key, json_integer(v));
			}
		}
		json_object_set_new(o, "replicas", names);
		json_object_set_new(o, "counters", sum);
		json_object_set_new(rep, base, o);
	}
	json_object_set_new(root, "replicated", rep);
	json_decref(cols);
	return 0;
}

static int snap_links_workers(struct sl_telc *c, json_t *root, json_t *info, struct sl_err *err)
{
	json_t *cols = call_list(c, "/sluice/links", err);
	if (cols == NULL)
		return -errno;
	json_t *links = json_object();
	size_t n = json_array_size(json_object_get(cols, "name"));
	const uint64_t il_only = UINT64_C(1) << SL_LINK_OCCUPANCY_HWM |
				 UINT64_C(1) << SL_LINK_SOJOURN_P50_NS |
				 UINT64_C(1) << SL_LINK_SOJOURN_P99_NS |
				 UINT64_C(1) << SL_LINK_LINES;
	for (size_t r = 0; r < n; r++) {
		bool il = strcmp(col_str(cols, "kind", r), "interlink") == 0;
		json_t *l = json_object();
		json_object_set_new(l, "from", json_string(col_str(cols, "from", r)));
		json_object_set_new(l, "to", json_string(col_str(cols, "to", r)));
		json_object_set_new(l, "kind", json_string(col_str(cols, "kind", r)));
		json_object_update_new(l, row_of(cols, r, sl_link_counters, SL_LINK_N_COUNTERS,
						 il ? 0 : il_only));
		json_object_set_new(links, col_str(cols, "name", r), l);
	}
	json_object_set_new(root, "links", links);
	json_decref(cols);

	if ((cols = call_list(c, "/sluice/workers", err)) == NULL)
		return -errno;
	bool acct = json_integer_value(json_object_get(info, "accounting")) != 0;
	const uint64_t acct_only = UINT64_C(1) << SL_WORKER_BUSY_BREATHS |
				   UINT64_C(1) << SL_WORKER_IDLE_BREATHS |
				   UINT64_C(1) << SL_WORKER_BUSY_CYCLES |
				   UINT64_C(1) << SL_WORKER_IDLE_CYCLES;
	/* naps: absent where idle_sleep is 0 (or the engine predates it) */
	bool napping = json_integer_value(json_object_get(info, "idle_sleep_ns")) != 0;
	const uint64_t absent = (acct ? 0 : acct_only) |
				(napping ? 0 : UINT64_C(1) << SL_WORKER_NAPS);
	json_t *workers = json_object();
	n = json_array_size(json_object_get(cols, "name"));
	for (size_t r = 0; r < n; r++)
		json_object_set_new(workers, col_str(cols, "name", r),
				    row_of(cols, r, sl_worker_counters, SL_WORKER_N_COUNTERS,
					   absent));
	json_object_set_new(root, "workers", workers);
	json_decref(cols);
	return 0;
}

/* Keys of specs[0..n) taken from a flat reply. */
static json_t *pick(json_t *from, const struct sl_counter_spec *specs, unsigned n, uint64_t absent)
{
	json_t *o = json_object();
	for (unsigned k = 0; o != NULL && k < n; k++) {
		json_t *v = json_object_get(from, specs[k].name);
		json_object_set_new(o, specs[k].name,
				    (absent >> k & 1) || v == NULL ? json_null() : json_incref(v));
	}
	return o;
}

static int snap_pool_epoch(struct sl_telc *c, json_t *root, json_t *info, struct sl_err *err)
{
	json_t *p = sl_telc_call(c, "/sluice/pool", err);
	if (p == NULL)
		return -errno;
	json_t *pool = json_object();
	const char *ops = json_string_value(json_object_get(p, "ops"));
	bool ours = ops != NULL && strcmp(ops, "sluice") == 0;
	json_object_set_new(pool, "ops", json_string(ops != NULL ? ops : ""));
	json_object_set_new(pool, "chunk", ours ? json_incref(json_object_get(p, "chunk"))
						: json_null());
	json_object_set_new(pool, "tiers", ours ? pick(p, sl_pool_tier_counters,
						       SL_POOL_N_TIER_COUNTERS, 0) : json_null());
	json_object_set_new(pool, "events", ours ? pick(p, sl_pool_event_counters,
							SL_POOL_N_EVENT_COUNTERS, 0) : json_null());
	json_object_set_new(pool, "starved_s", json_object());
	json_object_set_new(root, "pool", pool);
	json_t *mbufs = json_object();
	json_object_set_new(mbufs, "total", json_incref(json_object_get(p, "mbufs")));
	json_object_set_new(mbufs, "back", json_incref(json_object_get(p, "available")));
	json_decref(p);

	json_t *e = sl_telc_call(c, "/sluice/epoch", err);
	if (e == NULL && errno == EINVAL) {
		json_object_set_new(root, "epoch", json_null());   /* no epoch */
	} else if (e == NULL) {
		json_decref(mbufs);
		return -errno;
	} else {
		bool none = json_integer_value(json_object_get(e, "freed")) == 0;
		uint64_t lat = 0;
		for (unsigned k = SL_EPOCH_FREE_NS_P50; k < SL_EPOCH_N_COUNTERS; k++)
			lat |= UINT64_C(1) << k;
		json_t *epoch = json_object();
		json_object_set_new(epoch, "policy", json_incref(json_object_get(e, "policy")));
		json_object_set_new(epoch, "reclaim_cap",
				    json_incref(json_object_get(e, "reclaim_cap")));
		json_object_update_new(epoch, pick(e, sl_epoch_counters, SL_EPOCH_N_COUNTERS,
						   none ? lat : 0));
		json_object_set_new(root, "epoch", epoch);
		json_decref(e);
	}
	json_t *drained = json_object();
	json_object_set_new(drained, "delivered", json_integer(0));
	json_object_set_new(drained, "freed", json_integer(0));
	json_object_set_new(root, "drained_at_stop", drained);
	json_object_set_new(root, "reload", json_pack("{sOsOsf}", "applied",
						      json_object_get(info, "reloads"), "freed",
						      json_object_get(info, "freed_by_reload"),
						      "last_unix_s", (double)json_integer_value(
							      json_object_get(info, "last_reload_ns")) / 1e9));
	json_object_set_new(root, "warnings", json_array());
	json_object_set_new(root, "mbufs", mbufs);
	return 0;
}

json_t *sl_telc_snapshot(struct sl_telc *c, struct sl_err *err)
{
	json_t *info = sl_telc_call(c, "/sluice/info", err);
	if (info == NULL)
		return NULL;
	/* A reload in progress leaves the pipeline readable. */
	const char *st = json_string_value(json_object_get(info, "state"));
	if (st == NULL || (strcmp(st, "running") != 0 && strcmp(st, "reloading") != 0)) {
		sl_errf(err, EAGAIN, "engine '%s' is %s: no pipeline to read", c->prefix,
			st != NULL ? st : "in an unknown state");
		json_decref(info);   /* st is info's */
		errno = EAGAIN;
		return NULL;
	}
	json_t *root = json_object(), *live = json_object();
	json_int_t elapsed = json_integer_value(json_object_get(info, "elapsed_ns"));
	json_object_set_new(root, "schema", json_integer(1));
	json_object_set_new(root, "elapsed_s", json_real((double)elapsed / 1e9));
	json_object_set_new(root, "control_cpu", json_incref(json_object_get(info, "control_cpu")));
	json_object_set_new(root, "tsc_hz", json_incref(json_object_get(info, "tsc_hz")));
	const char *keys[] = { "prefix", "pid", "version", "state", "elapsed_ns", "tsc_hz", "config" };
	for (unsigned k = 0; k < SL_ARRAY_LEN(keys); k++)
		json_object_set(live, keys[k], json_object_get(info, keys[k]));
	int rc = snap_apps(c, root, info, err);
	if (rc == 0)
		rc = snap_replicated(c, root, err);
	if (rc == 0)
		rc = snap_links_workers(c, root, info, err);
	if (rc == 0)
		rc = snap_pool_epoch(c, root, info, err);
	json_object_set_new(root, "live", live);
	json_decref(info);
	if (rc < 0) {
		json_decref(root);
		errno = -rc;
		return NULL;
	}
	return root;
}
