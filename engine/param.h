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
 * Thread: control thread only (config load and app init).  No function here
 * allocates except sl_param_parse for SL_PARAM_STRING (strdup; freed by
 * sl_param_value_free).
 */
#ifndef SL_PARAM_H
#define SL_PARAM_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

#include "err.h"

enum sl_param_type {
	SL_PARAM_UINT,
	SL_PARAM_BOOL,
	SL_PARAM_STRING,
	SL_PARAM_ENUM,
	SL_PARAM_MAC,
	SL_PARAM_DURATION,
};

struct sl_param_spec {
	const char *name;
	enum sl_param_type type;
	const char *def;      /* default as text; NULL means the parameter is required */
	uint64_t min, max;    /* inclusive range for UINT (max 0 means no limit) */
	const char *choices;  /* ENUM: "hash|round-robin" */
	const char *doc;      /* one line */
};

struct sl_param_value {
	uint64_t u;          /* UINT; ENUM index; DURATION in nanoseconds; BOOL 0/1 */
	char *s;             /* STRING, and ENUM's chosen name (owned) */
	uint8_t mac[6];      /* MAC */
	bool set;            /* given in the config (false: default applied) */
};

/* Name of a type as written in docs ("uint", "bool", ...). */
const char *sl_param_type_name(enum sl_param_type t);

/* Parse text for spec into *out.  Returns 0, or -EINVAL with a sentence in err
 * that starts with "parameter 'NAME' ..." (the caller prefixes the app). */
int sl_param_parse(const struct sl_param_spec *spec, const char *text,
		   struct sl_param_value *out, struct sl_err *err);

void sl_param_value_free(struct sl_param_value *v);

/* Index of name in specs[0..n), or -1. */
int sl_param_find(const struct sl_param_spec *specs, unsigned n, const char *name);

/* Write a human-readable range/choices description of spec into buf
 * ("1..65535", "hash|round-robin", "") and return buf. */
const char *sl_param_range_str(const struct sl_param_spec *spec, char *buf, size_t len);

/* The candidate in cands[0..n) closest to word by edit distance, if close
 * enough to be a likely typo; NULL otherwise.  Used for "did you mean". */
const char *sl_did_you_mean(const char *word, const char *const *cands, unsigned n);

#endif
