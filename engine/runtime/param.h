/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Parameter schemas: every app type declares its parameters once, as an
 * array of struct sl_param_spec.  The same table drives validation of YAML
 * configs, `sluice apps` and docs/apps.md, so the three cannot disagree.
 *
 * Values are parsed from the text of a YAML scalar.  Unsigned integers accept
 * decimal, 0x hex and the suffixes k, M, G (x1000) and Ki, Mi, Gi (x1024);
 * booleans accept true/false/yes/no/on/off; MAC addresses are aa:bb:cc:dd:ee:ff;
 * enums name one of the choices listed in `choices`, separated by '|';
 * durations take a number with ns, us, ms, s, m or h (bare numbers are seconds).
 *
 * Lists (SL_PARAM_TABLE) are the one parameter that is not a scalar: a YAML
 * sequence of mappings ("rows"), each row's keys checked against a nested
 * schema, spec->fields.  A field may be of any type but SL_PARAM_TABLE; a
 * field whose def is NULL is required in every row.  config.c builds the rows
 * from the YAML; sl_param_parse only knows the empty list, "[]", so that a
 * list's default can be written like any other.
 *
 * The same machinery reads the keys of the configuration's own sections
 * (pool, engine, topology, workers: config.h), so that a default, a range, a
 * type and a line of doc are written once, in a spec, wherever they apply.
 *
 * Thread: control thread only (config load and app init).  No function here
 * allocates except sl_param_parse (and sl_param_defaults through it) for
 * SL_PARAM_STRING and SL_PARAM_ENUM (strdup).  Whatever a value owns (its string, a list's rows and their
 * values and `where`) is freed by sl_param_value_free.
 */
#ifndef SL_PARAM_H
#define SL_PARAM_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

#include "base/err.h"

enum sl_param_type {
	SL_PARAM_UINT,
	SL_PARAM_BOOL,
	SL_PARAM_STRING,
	SL_PARAM_ENUM,
	SL_PARAM_MAC,
	SL_PARAM_DURATION,
	SL_PARAM_TABLE,       /* a list of rows; see spec->fields */
};

struct sl_param_spec {
	const char *name;
	enum sl_param_type type;
	/* Default as text; NULL means the parameter is required.  TABLE: NULL
	 * (the key must be given; `[]` is then accepted unless min >= 1) or
	 * "[]" (no rows by default). */
	const char *def;
	/* UINT and DURATION (ns): inclusive range of the value; TABLE: of the
	 * number of rows.  max 0 means no upper limit; a DURATION's 0 (never)
	 * is refused too when min is above 0. */
	uint64_t min, max;
	const char *choices;  /* ENUM: "hash|round-robin" */
	const char *doc;      /* one line */
	/* TABLE: the schema of one row, n_fields entries; NULL/0 otherwise. */
	const struct sl_param_spec *fields;
	unsigned n_fields;
	/* STRING naming another app (a flowcache's `route`): the value must be
	 * `none` or the name of an app of this type in the same configuration.
	 * Checked at config load.  NULL: a plain string. */
	const char *app_type;
	/* STRING naming an object that apps of this type share (a flowcache's
	 * `table`): apps giving the same value, other than `none`, must agree
	 * on the parameters listed here, '|'-separated; `none` gives an app an
	 * object of its own, named after the app, which no other app may name.
	 * Checked at config load.  NULL: no sharing. */
	const char *share_agree;
	/* STRING naming a resource that one app alone may hold (a port's
	 * device): no two apps of the type may give the same value, compared
	 * up to its first comma.  Checked at config load. */
	bool exclusive;
	/* May change while the app runs: a reload that changes only such
	 * parameters of an app reconfigures it in place (its type's reconfig
	 * and apply, engine/runtime/app.h) instead of restarting it. */
	bool live;
};

struct sl_param_row;

struct sl_param_value {
	uint64_t u;          /* UINT; ENUM index; DURATION in nanoseconds; BOOL 0/1 */
	char *s;             /* STRING, and ENUM's chosen name (owned) */
	uint8_t mac[6];      /* MAC */
	bool set;            /* given in the config (false: default applied) */
	struct sl_param_row *rows;  /* TABLE: n_rows rows in config order (owned) */
	unsigned n_rows;
	unsigned n_fields;   /* TABLE: values in each row (the spec's n_fields) */
};

/* One row of a TABLE value. */
struct sl_param_row {
	/* n_fields values, parallel to spec->fields: defaults applied, .set
	 * true for a field the row gives (as for app parameters).  Owned. */
	struct sl_param_value *v;
	char *where;         /* "FILE:LINE:COL" of the row's mapping, for messages (owned) */
};

/* Name of a type as written in docs ("uint", "bool", ...). */
const char *sl_param_type_name(enum sl_param_type t);

/* Parse text for spec into *out.  Returns 0, or -EINVAL (-ENOMEM) with a
 * sentence in err that starts with "parameter 'NAME' ..." (the caller prefixes
 * the app).  For a TABLE the only text accepted is "[]": no rows (an error if
 * spec->min >= 1); anything else is "parameter 'NAME' must be a list of
 * mappings". */
int sl_param_parse(const struct sl_param_spec *spec, const char *text,
		   struct sl_param_value *out, struct sl_err *err);

/* Is n an allowed number of rows for the TABLE spec (spec->min..max)?  Returns
 * 0, or -EINVAL with "parameter 'NAME' must have at least 1 row, got 0" (or
 * "at most N rows", "N..M rows") in err. */
int sl_param_rows_check(const struct sl_param_spec *spec, unsigned n, struct sl_err *err);

/* Free what v owns, a TABLE's rows included (v->n_fields values per row), and
 * leave v without rows or string.  Safe on a zeroed value and on a TABLE
 * whose last row is only partly filled (zeroed values, NULL where). */
void sl_param_value_free(struct sl_param_value *v);

/* Make *dst a deep copy of *src (its string, a list's rows with their
 * values and `where`).  Returns 0, or -ENOMEM with *dst left holding
 * nothing (safe to free). */
int sl_param_value_copy(struct sl_param_value *dst, const struct sl_param_value *src);

/* Give each value of vals[0..n) (parallel to specs) that is not set the
 * default of its spec, parsed as if it had been written (.set stays false):
 * the schema is the one place a default is written.  Returns 0; -ENOENT,
 * with the index of the first value that is not set and has no default (a
 * required parameter) in *missing and err untouched; or -EINVAL (-ENOMEM)
 * with "parameter 'NAME' ..." in err when a default does not parse (a bad
 * schema). */
int sl_param_defaults(const struct sl_param_spec *specs, unsigned n,
		      struct sl_param_value *vals, unsigned *missing, struct sl_err *err);

/* Index of name in specs[0..n), or -1 when no spec has that name (a look-up:
 * -1 is "not found", never an errno). */
int sl_param_find(const struct sl_param_spec *specs, unsigned n, const char *name);

/* Write a human-readable range/choices description of spec into buf
 * ("1..65535", "hash|round-robin", "", for a TABLE "0..16 rows" or
 * ">= 1 row") and return buf. */
const char *sl_param_range_str(const struct sl_param_spec *spec, char *buf, size_t len);

/* The candidate in cands[0..n) closest to word by edit distance, if close
 * enough to be a likely typo; NULL otherwise.  Used for "did you mean". */
const char *sl_did_you_mean(const char *word, const char *const *cands, unsigned n);

#endif
