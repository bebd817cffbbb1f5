/* SPDX-License-Identifier: BSD-3-Clause */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "runtime/param.h"

const char *sl_param_type_name(enum sl_param_type t)
{
	switch (t) {
	case SL_PARAM_UINT: return "uint";
	case SL_PARAM_BOOL: return "bool";
	case SL_PARAM_STRING: return "string";
	case SL_PARAM_ENUM: return "enum";
	case SL_PARAM_MAC: return "mac";
	case SL_PARAM_DURATION: return "duration";
	case SL_PARAM_TABLE: return "list";
	}
	return "?";
}

static int parse_uint(const char *text, uint64_t *out)
{
	char *end;
	if (text[0] == '\0' || text[0] == '-' || isspace((unsigned char)text[0]))
		return -EINVAL;
	/* Decimal, or hexadecimal with 0x: a leading 0 is not octal ("010" is 10). */
	int base = text[0] == '0' && (text[1] == 'x' || text[1] == 'X') ? 16 : 10;
	errno = 0;
	unsigned long long v = strtoull(text, &end, base);
	if (errno != 0 || end == text)
		return -EINVAL;
	uint64_t mul = 1;
	if (strcmp(end, "k") == 0 || strcmp(end, "K") == 0) mul = 1000ULL;
	else if (strcmp(end, "M") == 0) mul = 1000000ULL;
	else if (strcmp(end, "G") == 0) mul = 1000000000ULL;
	else if (strcmp(end, "Ki") == 0) mul = 1ULL << 10;
	else if (strcmp(end, "Mi") == 0) mul = 1ULL << 20;
	else if (strcmp(end, "Gi") == 0) mul = 1ULL << 30;
	else if (*end != '\0') return -EINVAL;
	if (v != 0 && mul > UINT64_MAX / v)
		return -ERANGE;
	*out = v * mul;
	return 0;
}

/* A number (no sign, no blanks, not nan or inf) with an optional unit.  A
 * positive value that comes to less than 1 ns is refused, not read as 0
 * ("never"): -EDOM. */
static int parse_duration(const char *text, uint64_t *ns)
{
	char *end;
	if (text[0] == '\0' || text[0] == '-' || text[0] == '+' ||
	    !(isdigit((unsigned char)text[0]) || text[0] == '.'))
		return -EINVAL;
	errno = 0;
	double v = strtod(text, &end);
	if (errno != 0 || end == text || !isfinite(v) || v < 0)
		return -EINVAL;
	/* Hexadecimal floats ("0x1p3") are a C curiosity, not a duration. */
	for (const char *p = text; p < end; p++)
		if (*p == 'x' || *p == 'X')
			return -EINVAL;
	double mul;
	if (*end == '\0' || strcmp(end, "s") == 0) mul = 1e9;
	else if (strcmp(end, "ms") == 0) mul = 1e6;
	else if (strcmp(end, "us") == 0) mul = 1e3;
	else if (strcmp(end, "ns") == 0) mul = 1;
	else if (strcmp(end, "m") == 0) mul = 60e9;
	else if (strcmp(end, "h") == 0) mul = 3600e9;
	else return -EINVAL;
	double t = v * mul;
	if (!(t <= 1.8e19))
		return -ERANGE;
	if (v > 0 && t < 1.0)
		return -EDOM;
	*ns = (uint64_t)t;
	return 0;
}

/* Exactly six pairs of hex digits separated by ':'. */
static int parse_mac(const char *text, uint8_t mac[6])
{
	for (int i = 0; i < 6; i++) {
		const char *p = text + 3 * i;
		if (!isxdigit((unsigned char)p[0]) || !isxdigit((unsigned char)p[1]) ||
		    p[2] != (i < 5 ? ':' : '\0'))
			return -EINVAL;
	}
	for (int i = 0; i < 6; i++) {
		char pair[3] = { text[3 * i], text[3 * i + 1], '\0' };
		mac[i] = (uint8_t)strtoul(pair, NULL, 16);
	}
	return 0;
}

/* Index of text among the '|'-separated choices, or -1 when it is none of
 * them (a look-up: -1 is "not found", not an errno). */
static int enum_index(const char *choices, const char *text)
{
	size_t len = strlen(text);
	int idx = 0;
	for (const char *p = choices; *p != '\0'; idx++) {
		const char *bar = strchr(p, '|');
		size_t n = bar ? (size_t)(bar - p) : strlen(p);
		if (n == len && strncmp(p, text, n) == 0)
			return idx;
		if (bar == NULL)
			break;
		p = bar + 1;
	}
	return -1;
}

const char *sl_param_range_str(const struct sl_param_spec *spec, char *buf, size_t len)
{
	buf[0] = '\0';
	switch (spec->type) {
	case SL_PARAM_UINT:
		if (spec->max != 0)
			snprintf(buf, len, "%" PRIu64 "..%" PRIu64, spec->min, spec->max);
		else if (spec->min != 0)
			snprintf(buf, len, ">= %" PRIu64, spec->min);
		break;
	case SL_PARAM_ENUM:
		snprintf(buf, len, "%s", spec->choices);
		break;
	case SL_PARAM_BOOL:
		snprintf(buf, len, "true|false");
		break;
	case SL_PARAM_DURATION: {   /* a bound is written in whole ms, else ns */
		uint64_t b = spec->max != 0 ? spec->max : spec->min;
		const char *unit = b % 1000000 == 0 ? "ms" : "ns";
		uint64_t div = b % 1000000 == 0 ? 1000000 : 1;
		if (spec->min != 0 && spec->max != 0)
			snprintf(buf, len, "%" PRIu64 "%s..%" PRIu64 "%s", spec->min / div, unit,
				 spec->max / div, unit);
		else if (spec->max != 0)
			snprintf(buf, len, "<= %" PRIu64 "%s", spec->max / div, unit);
		else if (spec->min != 0)
			snprintf(buf, len, ">= %" PRIu64 "%s", spec->min / div, unit);
		break;
	}
	case SL_PARAM_TABLE:
		if (spec->max != 0)
			snprintf(buf, len, "%" PRIu64 "..%" PRIu64 " rows", spec->min, spec->max);
		else if (spec->min != 0)
			snprintf(buf, len, ">= %" PRIu64 " row%s", spec->min,
				 spec->min == 1 ? "" : "s");
		break;
	default:
		break;
	}
	return buf;
}

int sl_param_rows_check(const struct sl_param_spec *spec, unsigned n, struct sl_err *err)
{
	if (n >= spec->min && (spec->max == 0 || n <= spec->max))
		return 0;
	if (spec->max == 0)
		return sl_errf(err, EINVAL, "parameter '%s' must have at least %" PRIu64 " row%s, got %u",
			       spec->name, spec->min, spec->min == 1 ? "" : "s", n);
	if (spec->min == 0)
		return sl_errf(err, EINVAL, "parameter '%s' must have at most %" PRIu64 " row%s, got %u",
			       spec->name, spec->max, spec->max == 1 ? "" : "s", n);
	return sl_errf(err, EINVAL, "parameter '%s' must have %" PRIu64 "..%" PRIu64 " rows, got %u",
		       spec->name, spec->min, spec->max, n);
}

int sl_param_parse(const struct sl_param_spec *spec, const char *text,
		   struct sl_param_value *out, struct sl_err *err)
{
	char range[128];
	struct sl_param_value v = { 0 };
	int rc;

	switch (spec->type) {
	case SL_PARAM_UINT:
		rc = parse_uint(text, &v.u);
		if (rc == -ERANGE)
			return sl_errf(err, EINVAL, "parameter '%s' is too large: '%s'",
				       spec->name, text);
		if (rc < 0)
			return sl_errf(err, EINVAL,
				       "parameter '%s' must be an unsigned integer, got '%s'",
				       spec->name, text);
		if (v.u < spec->min || (spec->max != 0 && v.u > spec->max))
			return sl_errf(err, EINVAL,
				       "parameter '%s' must be in %s, got %" PRIu64,
				       spec->name, sl_param_range_str(spec, range, sizeof(range)),
				       v.u);
		break;
	case SL_PARAM_BOOL:
		if (!strcasecmp(text, "true") || !strcasecmp(text, "yes") ||
		    !strcasecmp(text, "on"))
			v.u = 1;
		else if (!strcasecmp(text, "false") || !strcasecmp(text, "no") ||
			 !strcasecmp(text, "off"))
			v.u = 0;
		else
			return sl_errf(err, EINVAL,
				       "parameter '%s' must be true or false, got '%s'",
				       spec->name, text);
		break;
	case SL_PARAM_STRING:
		if (text[0] == '\0')
			return sl_errf(err, EINVAL, "parameter '%s' must not be empty",
				       spec->name);
		break;
	case SL_PARAM_ENUM: {
		int idx = enum_index(spec->choices, text);
		if (idx < 0)
			return sl_errf(err, EINVAL, "parameter '%s' must be one of %s, got '%s'",
				       spec->name, spec->choices, text);
		v.u = (uint64_t)idx;
		break;
	}
	case SL_PARAM_MAC:
		if (parse_mac(text, v.mac) < 0)
			return sl_errf(err, EINVAL,
				       "parameter '%s' must be a MAC address like 02:00:00:00:00:01, got '%s'",
				       spec->name, text);
		break;
	case SL_PARAM_DURATION:
		rc = parse_duration(text, &v.u);
		if (rc == -EDOM)
			return sl_errf(err, EINVAL,
				       "parameter '%s' must be 0 (never) or at least 1ns, got '%s'",
				       spec->name, text);
		if (rc == -ERANGE)
			return sl_errf(err, EINVAL,
				       "parameter '%s' is too long a duration (at most about 584 years): '%s'",
				       spec->name, text);
		if (rc < 0)
			return sl_errf(err, EINVAL,
				       "parameter '%s' must be a duration like 30s or 250ms, got '%s'",
				       spec->name, text);
		if ((spec->max != 0 && v.u > spec->max) || v.u < spec->min)
			return sl_errf(err, EINVAL, "parameter '%s' must be %s, got '%s'",
				       spec->name, sl_param_range_str(spec, range, sizeof(range)),
				       text);
		break;
	case SL_PARAM_TABLE:
		if (strcmp(text, "[]") != 0)
			return sl_errf(err, EINVAL, "parameter '%s' must be a list of mappings",
				       spec->name);
		rc = sl_param_rows_check(spec, 0, err);
		if (rc < 0)
			return rc;
		v.n_fields = spec->n_fields;
		break;
	}
	if (spec->type == SL_PARAM_STRING || spec->type == SL_PARAM_ENUM) {
		v.s = strdup(text);
		if (v.s == NULL)
			return sl_errf(err, ENOMEM, "out of memory");
	}
	v.set = true;
	*out = v;
	return 0;
}

void sl_param_value_free(struct sl_param_value *v)
{
	free(v->s);
	v->s = NULL;
	for (unsigned r = 0; r < v->n_rows; r++) {
		struct sl_param_row *row = &v->rows[r];
		if (row->v != NULL)
			for (unsigned f = 0; f < v->n_fields; f++)
				sl_param_value_free(&row->v[f]);
		free(row->v);
		free(row->where);
	}
	free(v->rows);
	v->rows = NULL;
	v->n_rows = 0;
}

int sl_param_value_copy(struct sl_param_value *dst, const struct sl_param_value *src)
{
	*dst = *src;
	dst->s = NULL;
	dst->rows = NULL;
	dst->n_rows = 0;
	if (src->s != NULL && (dst->s = strdup(src->s)) == NULL)
		return -ENOMEM;
	if (src->n_rows == 0)
		return 0;
	dst->rows = calloc(src->n_rows, sizeof(*dst->rows));
	if (dst->rows == NULL)
		goto nomem;
	for (unsigned r = 0; r < src->n_rows; r++) {
		const struct sl_param_row *from = &src->rows[r];
		struct sl_param_row *to = &dst->rows[r];
		dst->n_rows = r + 1;
		to->v = calloc(src->n_fields > 0 ? src->n_fields : 1, sizeof(*to->v));
		to->where = from->where != NULL ? strdup(from->where) : NULL;
		if (to->v == NULL || (from->where != NULL && to->where == NULL))
			goto nomem;
		for (unsigned f = 0; f < src->n_fields; f++)
			if (sl_param_value_copy(&to->v[f], &from->v[f]) < 0)
				goto nomem;
	}
	return 0;
nomem:
	sl_param_value_free(dst);
	return -ENOMEM;
}

int sl_param_defaults(const struct sl_param_spec *specs, unsigned n,
		      struct sl_param_value *vals, unsigned *missing, struct sl_err *err)
{
	for (unsigned i = 0; i < n; i++) {
		if (vals[i].set)
			continue;
		if (specs[i].def == NULL) {
			*missing = i;
			return -ENOENT;
		}
		int rc = sl_param_parse(&specs[i], specs[i].def, &vals[i], err);
		if (rc < 0)
			return rc;
		vals[i].set = false;
	}
	return 0;
}

int sl_param_find(const struct sl_param_spec *specs, unsigned n, const char *name)
{
	for (unsigned i = 0; i < n; i++)
		if (strcmp(specs[i].name, name) == 0)
			return (int)i;
	return -1;
}

static unsigned edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	unsigned d[64][64];   /* optimal string alignment: an adjacent swap is one edit */
	if (la >= 63 || lb >= 63)
		return 99;
	for (size_t i = 0; i <= la; i++)
		d[i][0] = (unsigned)i;
	for (size_t j = 0; j <= lb; j++)
		d[0][j] = (unsigned)j;
	for (size_t i = 1; i <= la; i++)
		for (size_t j = 1; j <= lb; j++) {
			unsigned best = d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
			if (d[i - 1][j] + 1 < best) best = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < best) best = d[i][j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    d[i - 2][j - 2] + 1 < best)
				best = d[i - 2][j - 2] + 1;
			d[i][j] = best;
		}
	return d[la][lb];
}

const char *sl_did_you_mean(const char *word, const char *const *cands, unsigned n)
{
	const char *best = NULL;
	unsigned best_d = 99;
	for (unsigned i = 0; i < n; i++) {
		unsigned d = edit_distance(word, cands[i]);
		if (d < best_d) {
			best_d = d;
			best = cands[i];
		}
	}
	size_t len = strlen(word);
	unsigned limit = len <= 3 ? 1 : (len <= 6 ? 2 : 3);
	return best_d <= limit ? best : NULL;
}
