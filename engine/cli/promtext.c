/* SPDX-License-Identifier: BSD-3-Clause */
/* One snapshot as Prometheus text 0.0.4 (promtext.h). */
#include <errno.h>
#include <stdint.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/app.h"
#include "base/counter.h"
#include "cli/promtext.h"
#include "ops/view.h"


/* A metric family: one # HELP, one # TYPE, its samples in the order
 * they were added. */
struct fam {
	char *name;
	const char *type;
	char *help;
	FILE *f;               /* the samples' lines, into buf */
	char *buf;
	size_t len;
};

struct prom {
	struct fam *fams;
	unsigned n, cap;
	bool failed;           /* out of memory somewhere: the text is not whole */
};

/* A growable string (labels, names, help). */
struct str {
	char *s;
	size_t len, cap;
	bool failed;
};

static void str_addn(struct str *b, const char *s, size_t n)
{
	if (b->failed || n > SIZE_MAX / 4 || b->len > SIZE_MAX / 4) {
		b->failed = true;
		return;
	}
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 64;
		while (cap < b->len + n + 1)
			cap *= 2;
		char *s2 = realloc(b->s, cap);
		if (s2 == NULL) {
			b->failed = true;
			return;
		}
		b->s = s2;
		b->cap = cap;
	}
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

static void str_add(struct str *b, const char *s)
{
	str_addn(b, s, strlen(s));
}

/* s with backslash and newline escaped (and the double quote, in a label
 * value), as the text format wants. */
static void str_add_escaped(struct str *b, const char *s, bool quote)
{
	for (; *s != '\0'; s++) {
		if (*s == '\\')
			str_add(b, "\\\\");
		else if (*s == '\n')
			str_add(b, "\\n");
		else if (*s == '"' && quote)
			str_add(b, "\\\"");
		else
			str_addn(b, s, 1);
	}
}

/* Append name="value" to a label set (without braces). */
static void label(struct str *b, const char *name, const char *value)
{
	if (b->len > 0)
		str_add(b, ",");
	str_add(b, name);
	str_add(b, "=\"");
	str_add_escaped(b, value, true);
	str_add(b, "\"");
}

/* A copy of a label set, to add to. */
static struct str labels_copy(const struct str *b)
{
	struct str c = { 0 };
	if (b->len > 0)
		str_addn(&c, b->s, b->len);
	c.failed = c.failed || b->failed;
	return c;
}

static struct fam *family(struct prom *p, const char *name, const char *type, const char *help)
{
	for (unsigned i = 0; i < p->n; i++)
		if (strcmp(p->fams[i].name, name) == 0)
			return &p->fams[i];
	if (p->n == p->cap) {
		unsigned cap = p->cap ? 2 * p->cap : 64;
		struct fam *f = realloc(p->fams, cap * sizeof(*f));
		if (f == NULL)
			goto out_fail;
		p->fams = f;
		p->cap = cap;
	}
	struct fam *f = &p->fams[p->n];
	*f = (struct fam){ .type = type };
	f->name = strdup(name);
	f->help = strdup(help);
	f->f = open_memstream(&f->buf, &f->len);
	if (f->name == NULL || f->help == NULL || f->f == NULL)
		goto out_free;
	p->n++;
	return f;

out_free:
	if (f->f != NULL)
		fclose(f->f);
	free(f->buf);
	free(f->name);
	free(f->help);
out_fail:
	p->failed = true;
	return NULL;
}

static void sample_text(struct prom *p, struct fam *f, const struct str *labels, const char *value)
{
	if (f == NULL)
		return;
	if (labels->failed) {
		p->failed = true;
		return;
	}
	if (labels->len > 0)
		fprintf(f->f, "%s{%s} %s\n", f->name, labels->s, value);
	else
		fprintf(f->f, "%s %s\n", f->name, value);
}

/* A JSON number scaled by scale (1: as it is; an integer stays exact). */
static bool value_text(const json_t *v, double scale, char *buf, size_t size)
{
	if (json_is_integer(v) && scale == 1.0)
		snprintf(buf, size, "%lld", (long long)json_integer_value(v));
	else if (json_is_number(v))
		snprintf(buf, size, "%.15g", json_number_value(v) * scale);
	else
		return false;   /* null (not known) or not a number: left out */
	return true;
}

static void sample(struct prom *p, struct fam *f, const struct str *labels, const json_t *v,
		   double scale)
{
	char buf[64];
	if (value_text(v, scale, buf, sizeof(buf)))
		sample_text(p, f, labels, buf);
}

/* ------------------------------------------------------------ names */

/* The metric name of a declared value: prefix + its name with an "ns"
 * word moved to the end as "seconds" (*scale 1e-9), + "_total" for a
 * counter.  Characters a metric name cannot hold become '_'. */
static void metric_name(struct str *out, const char *prefix, const char *name,
			enum sl_counter_kind kind, double *scale)
{
	str_add(out, prefix);
	*scale = 1.0;
	bool first = true;
	for (const char *w = name; *w != '\0';) {
		size_t n = strcspn(w, "_");
		if (n == 2 && strncmp(w, "ns", 2) == 0) {
			*scale = 1e-9;
		} else if (n > 0) {
			if (!first)
				str_add(out, "_");
			for (size_t i = 0; i < n; i++) {
				char c = w[i];
				bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
					  (c >= '0' && c <= '9');
				str_addn(out, ok ? &c : "_", 1);
			}
			first = false;
		}
		w += n;
		if (*w == '_')
			w++;
	}
	if (*scale != 1.0)
		str_add(out, "_seconds");
	if (kind == SL_COUNTER)
		str_add(out, "_total");
}

/* A declared help sentence, "in ns" reading "in seconds" when the value
 * was scaled. */
static void help_text(struct str *out, const char *help, double scale)
{
	const char *ns = scale != 1.0 ? strstr(help, "in ns") : NULL;
	if (ns == NULL) {
		str_add(out, help);
		return;
	}
	str_addn(out, help, (size_t)(ns - help));
	str_add(out, "in seconds");
	str_add(out, ns + strlen("in ns"));
}

/* One declared value of obj (absent or null: nothing) as sample labels of
 * family prefix + name. */
static void emit_spec(struct prom *p, const char *prefix, const struct sl_counter_spec *spec,
		      const json_t *obj, const struct str *labels)
{
	const json_t *v = json_object_get(obj, spec->name);
	if (v == NULL || json_is_null(v))
		return;
	struct str name = { 0 }, help = { 0 };
	double scale;
	metric_name(&name, prefix, spec->name, spec->kind, &scale);
	help_text(&help, spec->help, scale);
	if (name.failed || help.failed) {
		p->failed = true;
	} else {
		struct fam *f = family(p, name.s, sl_counter_kind_name(spec->kind), help.s);
		sample(p, f, labels, v, scale);
	}
	free(name.s);
	free(help.s);
}

static void emit_table(struct prom *p, const char *prefix, const struct sl_counter_spec *specs,
		       unsigned n, const json_t *obj, const struct str *labels)
{
	for (unsigned i = 0; i < n; i++)
		emit_spec(p, prefix, &specs[i], obj, labels);
}

static const struct sl_counter_spec *spec_find(const struct sl_counter_spec *specs, unsigned n,
					       const char *name)
{
	for (unsigned i = 0; i < n; i++)
		if (strcmp(specs[i].name, name) == 0)
			return &specs[i];
	return NULL;
}

/* Values that declarations split by one label: field parts[i].field of
 * obj is the sample with label key = parts[i].value of family `name`,
 * scaled by scale.  Its type is the first declared field's kind, its help
 * help_head (or nothing) then the declared sentences joined ("key=value:
 * sentence ...").  A field its table does not declare is left out. */
struct split {
	const char *field;
	const char *value;
};

static void emit_split(struct prom *p, const char *name, const char *key,
		       const struct sl_counter_spec *specs, unsigned n_specs,
		       const struct split *parts, unsigned n_parts, const json_t *obj,
		       const struct str *labels, double scale, const char *help_head)
{
	struct str help = { 0 };
	const struct sl_counter_spec *first = NULL;
	if (help_head != NULL)
		str_add(&help, help_head);
	for (unsigned i = 0; i < n_parts; i++) {
		const struct sl_counter_spec *s = spec_find(specs, n_specs, parts[i].field);
		if (s == NULL)
			continue;
		if (first == NULL)
			first = s;
		if (help.len > 0)
			str_add(&help, " ");
		str_add(&help, key);
		str_add(&help, "=");
		str_add(&help, parts[i].value);
		str_add(&help, ": ");
		str_add(&help, s->help);
	}
	if (first == NULL)
		return;
	if (help.failed) {
		p->failed = true;
		free(help.s);
		return;
	}
	struct fam *f = NULL;
	for (unsigned i = 0; i < n_parts; i++) {
		const json_t *v = json_object_get(obj, parts[i].field);
		if (v == NULL || json_is_null(v) || spec_find(specs, n_specs, parts[i].field) == NULL)
			continue;
		if (f == NULL)
			f = family(p, name, sl_counter_kind_name(first->kind), help.s);
		struct str l = labels_copy(labels);
		label(&l, key, parts[i].value);
		sample(p, f, &l, v, scale);
		free(l.s);
	}
	free(help.s);
}

/* ------------------------------------------------------------ objects */

static const char *string_of(const json_t *obj, const char *key)
{
	const char *s = json_string_value(json_object_get(obj, key));
	return s != NULL ? s : "";
}

/* Cycles as seconds: the help says so before the declared sentences. */
const char sl_prom_cycles_help[] = "In seconds: TSC cycles / the TSC's frequency (tsc_hz).";

static void emit_apps(struct prom *p, const json_t *apps, double tsc_hz)
{
	static const struct split calls[] = { { "pull_calls", "pull" }, { "push_calls", "push" } };
	static const struct split pkts[] = { { "pull_packets", "pull" }, { "push_packets", "push" } };
	static const struct split cycles[] = { { "pull_cycles", "pull" }, { "push_cycles", "push" } };
	const char *name;
	const json_t *app;
	json_object_foreach((json_t *)apps, name, app) {
		const json_t *ctr = json_object_get(app, "counters");
		const char *type = string_of(app, "type");
		struct str l = { 0 };
		label(&l, "app", name);
		label(&l, "type", type);
		label(&l, "worker", string_of(app, "worker"));
		emit_table(p, "sluice_app_", sl_app_common_counters, SL_APP_COMMON_COUNTERS, ctr, &l);
		free(l.s);
	}
	/* Where the cycles go (engine.accounting; null when it is off). */
	json_object_foreach((json_t *)apps, name, app) {
		const json_t *rt = json_object_get(app, "runtime");
		struct str l = { 0 };
		label(&l, "app", name);
		emit_split(p, "sluice_app_calls_total", "phase", sl_app_runtime_counters,
			   SL_APP_RUNTIME_COUNTERS, calls, SL_ARRAY_LEN(calls), rt, &l, 1.0, NULL);
		emit_split(p, "sluice_app_call_packets_total", "phase", sl_app_runtime_counters,
			   SL_APP_RUNTIME_COUNTERS, pkts, SL_ARRAY_LEN(pkts), rt, &l, 1.0, NULL);
		if (tsc_hz > 0)
			emit_split(p, "sluice_app_cpu_seconds_total", "phase", sl_app_runtime_counters,
				   SL_APP_RUNTIME_COUNTERS, cycles, SL_ARRAY_LEN(cycles), rt, &l,
				   1.0 / tsc_hz, sl_prom_cycles_help);
		free(l.s);
	}
	/* The types' own counters, after the common ones: sluice_TYPE_NAME. */
	json_object_foreach((json_t *)apps, name, app) {
		const char *type_name = string_of(app, "type");
		const struct sl_app_type *type = sl_app_type_find(type_name);
		if (type == NULL || type->n_counters == 0)
			continue;   /* a type this binary does not know */
		struct str prefix = { 0 }, l = { 0 };
		double unused;
		metric_name(&prefix, "sluice_", type_name, SL_GAUGE, &unused);
		str_add(&prefix, "_");
		label(&l, "app", name);
		if (prefix.failed)
			p->failed = true;
		else
			emit_table(p, prefix.s, type->counters, type->n_counters,
				   json_object_get(app, "counters"), &l);
		free(prefix.s);
		free(l.s);
	}
}

static void emit_links(struct prom *p, const json_t *links)
{
	const char *name;
	const json_t *link;
	json_object_foreach((json_t *)links, name, link) {
		struct str l = { 0 };
		label(&l, "link", name);
		label(&l, "kind", string_of(link, "kind"));
		emit_table(p, "sluice_link_", sl_link_counters, SL_LINK_N_COUNTERS, link, &l);
		free(l.s);
	}
}

static void emit_workers(struct prom *p, const json_t *workers, double tsc_hz)
{
	static const struct split breaths[] = { { "busy_breaths", "busy" }, { "idle_breaths", "idle" } };
	static const struct split cycles[] = { { "busy_cycles", "busy" }, { "idle_cycles", "idle" } };
	const char *name;
	const json_t *w;
	json_object_foreach((json_t *)workers, name, w) {
		char cpu[32], lcore[32];
		struct str l = { 0 };
		label(&l, "worker", name);
		/* Where it runs: labels of one info sample, not values. */
		if (value_text(json_object_get(w, "cpu"), 1.0, cpu, sizeof(cpu)) &&
		    value_text(json_object_get(w, "lcore"), 1.0, lcore, sizeof(lcore))) {
			struct str info = labels_copy(&l), help = { 0 };
			label(&info, "cpu", cpu);
			label(&info, "lcore", lcore);
			str_add(&help, "1 for each worker; cpu: ");
			str_add(&help, sl_worker_counters[SL_WORKER_CPU].help);
			str_add(&help, " lcore: ");
			str_add(&help, sl_worker_counters[SL_WORKER_LCORE].help);
			if (help.failed)
				p->failed = true;
			else
				sample_text(p, family(p, "sluice_worker_info", "gauge", help.s), &info, "1");
			free(info.s);
			free(help.s);
		}
		emit_spec(p, "sluice_worker_", &sl_worker_counters[SL_WORKER_BREATHS], w, &l);
		emit_spec(p, "sluice_worker_", &sl_worker_counters[SL_WORKER_NAPS], w, &l);
		/* Busy and idle (engine.accounting): a family of their own, so that
		 * a sum over state does not count the breaths twice. */
		emit_split(p, "sluice_worker_state_breaths_total", "state", sl_worker_counters,
			   SL_WORKER_N_COUNTERS, breaths, SL_ARRAY_LEN(breaths), w, &l, 1.0, NULL);
		if (tsc_hz > 0)
			emit_split(p, "sluice_worker_cpu_seconds_total", "state", sl_worker_counters,
				   SL_WORKER_N_COUNTERS, cycles, SL_ARRAY_LEN(cycles), w, &l,
				   1.0 / tsc_hz, sl_prom_cycles_help);
		free(l.s);
	}
}

static void emit_pool(struct prom *p, const json_t *pool, const json_t *mbufs)
{
	static const struct split tiers[] = {
		{ "workers", "workers" }, { "l3", "l3" }, { "global", "global" }, { "shared", "shared" },
	};
	struct str none = { 0 };
	/* The pool's size and what is in it now: /sluice/pool's mbufs and
	 * available, which no counter table declares. */
	sample(p, family(p, "sluice_pool_mbufs", "gauge", "Mbufs in the pool."), &none,
	       json_object_get(mbufs, "total"), 1.0);
	sample(p, family(p, "sluice_pool_available_mbufs", "gauge",
			 "Mbufs in the pool now, not in use (on its freelists and tiers)."),
	       &none, json_object_get(mbufs, "back"), 1.0);
	emit_split(p, "sluice_pool_tier_mbufs", "tier", sl_pool_tier_counters,
		   SL_POOL_N_TIER_COUNTERS, tiers, SL_ARRAY_LEN(tiers), json_object_get(pool, "tiers"),
		   &none, 1.0, NULL);
	emit_table(p, "sluice_pool_", sl_pool_event_counters, SL_POOL_N_EVENT_COUNTERS,
		   json_object_get(pool, "events"), &none);
}

static void emit_epoch(struct prom *p, const json_t *epoch)
{
	struct str none = { 0 };
	emit_table(p, "sluice_epoch_", sl_epoch_counters, SL_EPOCH_N_COUNTERS, epoch, &none);
}

/* ------------------------------------------------------------ the text */

static void emit_self(struct prom *p, const json_t *snap, const struct sl_prom_self *self)
{
	struct str none = { 0 }, l = { 0 };
	sample_text(p, family(p, "sluice_up", "gauge",
			      "1 when the exporter read a running engine at this scrape, else 0."),
		    &none, snap != NULL ? "1" : "0");
	label(&l, "version", self->version);
	if (self->prefix != NULL)
		label(&l, "prefix", self->prefix);
	sample_text(p, family(p, "sluice_exporter_info", "gauge",
			      "1, labelled with the exporter's version and the engine's file prefix "
			      "it was asked to read (none: the only engine running)."),
		    &l, "1");
	free(l.s);
}

static void emit_live(struct prom *p, const json_t *live)
{
	struct str l = { 0 }, none = { 0 };
	label(&l, "version", string_of(live, "version"));
	label(&l, "prefix", string_of(live, "prefix"));
	sample_text(p, family(p, "sluice_info", "gauge",
			      "1, labelled with the running engine's version and DPDK file prefix."),
		    &l, "1");
	free(l.s);
	sample(p, family(p, "sluice_uptime_seconds", "gauge",
			 "Seconds since the engine launched its workers (reloads do not reset it)."),
	       &none, json_object_get(live, "elapsed_ns"), 1e-9);
}

static void emit_reload(struct prom *p, const json_t *reload)
{
	struct str none = { 0 };
	sample(p, family(p, "sluice_reloads_total", "counter",
			 "Reloads applied since the engine started (sluice reload, SIGHUP)."),
	       &none, json_object_get(reload, "applied"), 1.0);
	sample(p, family(p, "sluice_last_reload_timestamp_seconds", "gauge",
			 "Unix time of the last reload applied; 0 when none was."),
	       &none, json_object_get(reload, "last_unix_s"), 1.0);
}

static char *render(struct prom *p, size_t *len)
{
	char *out = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&out, &n);
	if (f == NULL)
		return NULL;
	for (unsigned i = 0; i < p->n; i++) {
		struct fam *m = &p->fams[i];
		struct str help = { 0 };
		str_add_escaped(&help, m->help, false);
		if (help.failed || fflush(m->f) != 0)
			p->failed = true;
		else
			fprintf(f, "# HELP %s %s\n# TYPE %s %s\n%.*s", m->name, help.s, m->name,
				m->type, (int)m->len, m->buf);
		free(help.s);
	}
	if (fclose(f) != 0 || p->failed) {
		free(out);
		return NULL;
	}
	*len = n;
	return out;
}

char *sl_prom_text(const json_t *snap, const struct sl_prom_self *self, size_t *len)
{
	struct prom p = { 0 };
	emit_self(&p, snap, self);
	if (snap != NULL) {
		const json_t *live = json_object_get(snap, "live");
		double tsc_hz = json_number_value(json_object_get(live, "tsc_hz"));
		emit_live(&p, live);
		emit_reload(&p, json_object_get(snap, "reload"));
		emit_apps(&p, json_object_get(snap, "apps"), tsc_hz);
		emit_links(&p, json_object_get(snap, "links"));
		emit_workers(&p, json_object_get(snap, "workers"), tsc_hz);
		emit_pool(&p, json_object_get(snap, "pool"), json_object_get(snap, "mbufs"));
		emit_epoch(&p, json_object_get(snap, "epoch"));
	}
	char *out = render(&p, len);
	for (unsigned i = 0; i < p.n; i++) {
		fclose(p.fams[i].f);
		free(p.fams[i].buf);
		free(p.fams[i].name);
		free(p.fams[i].help);
	}
	free(p.fams);
	if (out == NULL)
		errno = ENOMEM;
	return out;
}
