/* SPDX-License-Identifier: BSD-3-Clause */
#include <assert.h>
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/app.h"

static struct sl_app_reg *registry;

void sl_app_registry_append(struct sl_app_reg *reg)
{
	reg->next = registry;
	registry = reg;
}

const struct sl_app_type *sl_app_type_find(const char *name)
{
	for (struct sl_app_reg *r = registry; r != NULL; r = r->next)
		if (strcmp(r->type->name, name) == 0)
			return r->type;
	return NULL;
}

static int cmp_type(const void *a, const void *b)
{
	const struct sl_app_type *x = *(const struct sl_app_type *const *)a;
	const struct sl_app_type *y = *(const struct sl_app_type *const *)b;
	return strcmp(x->name, y->name);
}

unsigned sl_app_types(const struct sl_app_type **out, unsigned max)
{
	unsigned n = 0;
	for (struct sl_app_reg *r = registry; r != NULL; r = r->next) {
		if (n < max)
			out[n] = r->type;
		n++;
	}
	qsort(out, n < max ? n : max, sizeof(*out), cmp_type);
	return n;
}

bool sl_port_spec_match(const struct sl_port_spec *spec, const char *port,
			unsigned *number)
{
	size_t len = strlen(spec->name);
	if (len > 0 && spec->name[len - 1] == '#') {
		len--;
		if (strncmp(spec->name, port, len) != 0)
			return false;
		if (port[len] == '\0') {   /* the bare name: number 0 */
			*number = 0;
			return true;
		}
		const char *digits = port + len;
		if (!isdigit((unsigned char)digits[0]) ||
		    (digits[0] == '0' && digits[1] != '\0'))
			return false;
		char *end;
		unsigned long v = strtoul(digits, &end, 10);
		if (*end != '\0' || v >= SL_MAX_PORTS)
			return false;
		*number = (unsigned)v;
		return true;
	}
	if (strcmp(spec->name, port) != 0)
		return false;
	*number = 0;
	return true;
}

static int check_ports(const struct sl_app_type *t, const struct sl_port_spec *p,
		       unsigned n, const char *dir, struct sl_err *err)
{
	if (n > SL_MAX_PORTS)
		return sl_errf(err, EINVAL, "app type '%s': more than %u %s ports",
			       t->name, SL_MAX_PORTS, dir);
	for (unsigned i = 0; i < n; i++) {
		size_t len = strlen(p[i].name);
		if (len == 0)
			return sl_errf(err, EINVAL, "app type '%s': empty %s port name",
				       t->name, dir);
		if (p[i].name[len - 1] == '#' && n != 1)
			return sl_errf(err, EINVAL,
				       "app type '%s': numbered %s port '%s' must be the only %s port",
				       t->name, dir, p[i].name, dir);
	}
	return 0;
}

/* A list parameter's row schema: fields present, names unique, no nested
 * lists, defaults that parse; and a row range that can be met. */
const struct sl_counter_spec sl_app_common_counters[SL_APP_COMMON_COUNTERS] = {
	{ "in_packets", SL_COUNTER, "Packets received from outside the pipeline (a device, a file) or generated." },
	{ "in_bytes", SL_COUNTER, "Bytes of those packets (a port: the device's own byte counter, read at stop)." },
	{ "out_packets", SL_COUNTER, "Packets sent outside the pipeline or consumed." },
	{ "out_bytes", SL_COUNTER, "Bytes of those packets." },
	{ "drops", SL_COUNTER, "Packets the app dropped, for any reason (a full link's drops are the link's)." },
};

const struct sl_counter_spec sl_app_runtime_counters[SL_APP_RUNTIME_COUNTERS] = {
	{ "pull_calls", SL_COUNTER, "Calls of the app's pull (engine.accounting)." },
	{ "pull_packets", SL_COUNTER, "Packets its pull calls brought in." },
	{ "pull_cycles", SL_COUNTER, "TSC cycles its pull calls took (estimated from one breath in 16)." },
	{ "push_calls", SL_COUNTER, "Calls of the app's push (engine.accounting)." },
	{ "push_packets", SL_COUNTER, "Packets its push calls took from the app's input links." },
	{ "push_cycles", SL_COUNTER, "TSC cycles its push calls took (estimated from one breath in 16)." },
};

void sl_app_runtime_read(const struct sl_app *app, uint64_t *v)
{
	const uint64_t *rt = (const uint64_t *)&app->rt;
	for (unsigned i = 0; i < SL_APP_RUNTIME_COUNTERS; i++)
		v[i] = sl_counter_read(&rt[i]);
}

void sl_app_counters_read(const struct sl_app *app, uint64_t *v)
{
	const uint64_t *common = (const uint64_t *)&app->stats;
	for (unsigned i = 0; i < SL_APP_COMMON_COUNTERS; i++)
		v[i] = sl_counter_read(&common[i]);
	for (unsigned i = 0; i < app->type->n_counters; i++)
		v[SL_APP_COMMON_COUNTERS + i] = sl_counter_read(&app->ctr[i]);
}

void sl_app_warn(struct sl_app *app, const char *fmt, ...)
{
	size_t len = strlen(app->warning);
	if (len + 2 >= sizeof(app->warning))
		return;
	if (len > 0) {
		memcpy(app->warning + len, "; ", 3);
		len += 2;
	}
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(app->warning + len, sizeof(app->warning) - len, fmt, ap);
	va_end(ap);
}

static bool snake_case(const char *s)
{
	if (s == NULL || !islower((unsigned char)s[0]))
		return false;
	for (; *s != '\0'; s++)
		if (!islower((unsigned char)*s) && !isdigit((unsigned char)*s) && *s != '_')
			return false;
	return true;
}

/* A type's counter table: at most SL_APP_COUNTERS_MAX, snake_case names
 * distinct from each other, from the common and runtime counters and from
 * "name", help given. */
static int check_counters(const struct sl_app_type *t, struct sl_err *err)
{
	if (t->n_counters > SL_APP_COUNTERS_MAX)
		return sl_errf(err, EINVAL, "app type '%s' declares %u counters, more than the "
			       "%u an app can keep (SL_APP_COUNTERS_MAX)", t->name, t->n_counters,
			       SL_APP_COUNTERS_MAX);
	if (t->n_counters > 0 && t->counters == NULL)
		return sl_errf(err, EINVAL, "app type '%s' declares %u counters but no table",
			       t->name, t->n_counters);
	for (unsigned i = 0; i < t->n_counters; i++) {
		const struct sl_counter_spec *c = &t->counters[i];
		if (!snake_case(c->name))
			return sl_errf(err, EINVAL, "app type '%s': counter %u: name '%s' is not "
				       "snake_case (a-z, 0-9, _, starting with a letter)", t->name, i,
				       c->name ? c->name : "(null)");
		if (c->help == NULL || c->help[0] == '\0')
			return sl_errf(err, EINVAL, "app type '%s': counter '%s' has no help",
				       t->name, c->name);
		for (unsigned k = 0; k < SL_APP_COMMON_COUNTERS; k++)
			if (strcmp(c->name, sl_app_common_counters[k].name) == 0)
				return sl_errf(err, EINVAL, "app type '%s': counter '%s' repeats a "
					       "common counter", t->name, c->name);
		for (unsigned k = 0; k < SL_APP_RUNTIME_COUNTERS; k++)
			if (strcmp(c->name, sl_app_runtime_counters[k].name) == 0)
				return sl_errf(err, EINVAL, "app type '%s': counter '%s' repeats a "
					       "runtime counter", t->name, c->name);
		if (strcmp(c->name, "name") == 0)   /* a telemetry column (docs/telemetry.md) */
			return sl_errf(err, EINVAL, "app type '%s': a counter may not be called "
				       "'name'", t->name);
		for (unsigned k = 0; k < i; k++)
			if (strcmp(c->name, t->counters[k].name) == 0)
				return sl_errf(err, EINVAL, "app type '%s': counter '%s' declared "
					       "twice", t->name, c->name);
	}
	return 0;
}

static int check_fields(const struct sl_app_type *t, const struct sl_param_spec *s,
			struct sl_err *err)
{
	if (s->fields == NULL || s->n_fields == 0)
		return sl_errf(err, EINVAL, "app type '%s': list parameter '%s' has no fields",
			       t->name, s->name);
	if (s->max != 0 && s->max < s->min)
		return sl_errf(err, EINVAL,
			       "app type '%s': list parameter '%s' has a maximum of rows below its minimum",
			       t->name, s->name);
	for (unsigned f = 0; f < s->n_fields; f++) {
		const struct sl_param_spec *fs = &s->fields[f];
		if (fs->name == NULL || fs->name[0] == '\0')
			return sl_errf(err, EINVAL,
				       "app type '%s': parameter '%s': field %u has no name",
				       t->name, s->name, f);
		if (sl_param_find(s->fields, f, fs->name) >= 0)
			return sl_errf(err, EINVAL,
				       "app type '%s': parameter '%s': field '%s' declared twice",
				       t->name, s->name, fs->name);
		if (fs->type == SL_PARAM_TABLE)
			return sl_errf(err, EINVAL,
				       "app type '%s': parameter '%s': field '%s' is a list, and lists do not nest",
				       t->name, s->name, fs->name);
		if (fs->fields != NULL || fs->n_fields != 0)
			return sl_errf(err, EINVAL,
				       "app type '%s': parameter '%s': field '%s' has fields but is not a list",
				       t->name, s->name, fs->name);
		if (fs->def != NULL) {
			struct sl_param_value v;
			if (sl_param_parse(fs, fs->def, &v, err) < 0)
				return sl_err_prefix(err, EINVAL,
						     "app type '%s': parameter '%s': bad default",
						     t->name, s->name);
			sl_param_value_free(&v);
		}
	}
	return 0;
}

int sl_app_registry_check(struct sl_err *err)
{
	for (struct sl_app_reg *r = registry; r != NULL; r = r->next) {
		const struct sl_app_type *t = r->type;
		if (t->name == NULL || t->name[0] == '\0' || t->doc == NULL)
			return sl_errf(err, EINVAL, "an app type has no name or doc");
		for (struct sl_app_reg *q = r->next; q != NULL; q = q->next)
			if (strcmp(q->type->name, t->name) == 0)
				return sl_errf(err, EINVAL,
					       "app type '%s' is registered twice", t->name);
		int rc = check_ports(t, t->inputs, t->n_inputs, "input", err);
		if (rc == 0)
			rc = check_ports(t, t->outputs, t->n_outputs, "output", err);
		if (rc == 0)
			rc = check_counters(t, err);
		if (rc < 0)
			return rc;
		for (unsigned i = 0; i < t->n_params; i++) {
			const struct sl_param_spec *s = &t->params[i];
			if (sl_param_find(t->params, i, s->name) >= 0)
				return sl_errf(err, EINVAL,
					       "app type '%s': parameter '%s' declared twice",
					       t->name, s->name);
			if (s->live && (t->reconfig == NULL || t->apply == NULL ||
					t->release == NULL))
				return sl_errf(err, EINVAL,
					       "app type '%s': parameter '%s' is live but the type has "
					       "no reconfig, apply and release", t->name, s->name);
			if (strcmp(s->name, "type") == 0 || strcmp(s->name, "worker") == 0)
				return sl_errf(err, EINVAL,
					       "app type '%s': parameter name '%s' is reserved",
					       t->name, s->name);
			if (s->type == SL_PARAM_TABLE) {
				rc = check_fields(t, s, err);
				if (rc < 0)
					return rc;
			} else if (s->fields != NULL || s->n_fields != 0) {
				return sl_errf(err, EINVAL,
					       "app type '%s': parameter '%s' has fields but is not a list",
					       t->name, s->name);
			}
			if (s->def != NULL) {
				struct sl_param_value v;
				rc = sl_param_parse(s, s->def, &v, err);
				if (rc < 0)
					return sl_err_prefix(err, EINVAL,
							     "app type '%s': bad default", t->name);
				sl_param_value_free(&v);
			}
		}
	}
	return 0;
}

static const struct sl_param_value *param(const struct sl_app *app, const char *name,
					  enum sl_param_type type)
{
	int i = sl_param_find(app->type->params, app->type->n_params, name);
	assert(i >= 0 && "parameter not in the app type's table");
	assert(app->type->params[i].type == type && "parameter read with the wrong type");
	(void)type;
	return &app->params[i];
}

uint64_t sl_app_param_uint(const struct sl_app *app, const char *name)
{
	int i = sl_param_find(app->type->params, app->type->n_params, name);
	assert(i >= 0 && "parameter not in the app type's table");
	assert(app->type->params[i].type != SL_PARAM_STRING &&
	       app->type->params[i].type != SL_PARAM_MAC &&
	       app->type->params[i].type != SL_PARAM_TABLE);
	return app->params[i].u;
}

bool sl_app_param_bool(const struct sl_app *app, const char *name)
{
	return param(app, name, SL_PARAM_BOOL)->u != 0;
}

const char *sl_app_param_str(const struct sl_app *app, const char *name)
{
	int i = sl_param_find(app->type->params, app->type->n_params, name);
	assert(i >= 0 && "parameter not in the app type's table");
	return app->params[i].s;
}

const uint8_t *sl_app_param_mac(const struct sl_app *app, const char *name)
{
	return param(app, name, SL_PARAM_MAC)->mac;
}

bool sl_app_param_is_set(const struct sl_app *app, const char *name)
{
	int i = sl_param_find(app->type->params, app->type->n_params, name);
	assert(i >= 0 && "parameter not in the app type's table");
	return app->params[i].set;
}

const struct sl_param_row *sl_app_param_table(const struct sl_app *app, const char *name,
					      unsigned *n_rows)
{
	const struct sl_param_value *v = param(app, name, SL_PARAM_TABLE);
	if (n_rows != NULL)
		*n_rows = v->n_rows;
	return v->rows;
}

static struct sl_link *find_port(const struct sl_port_spec *specs, unsigned n,
				 struct sl_link *const *links, const char *port)
{
	for (unsigned i = 0; i < n; i++) {
		unsigned number;
		if (sl_port_spec_match(&specs[i], port, &number)) {
			size_t len = strlen(specs[i].name);
			return links[specs[i].name[len - 1] == '#' ? number : i];
		}
	}
	return NULL;
}

struct sl_link *sl_app_input(const struct sl_app *app, const char *port)
{
	return find_port(app->type->inputs, app->type->n_inputs, app->in, port);
}

struct sl_link *sl_app_output(const struct sl_app *app, const char *port)
{
	return find_port(app->type->outputs, app->type->n_outputs, app->out, port);
}
