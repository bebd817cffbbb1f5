/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_values: the value parsers a config's scalars go through: routes and
 * addresses (apps/router/route.h) and parameter values (engine/runtime/param.h).  Byte 0
 * selects the parser (modulo 12), the rest is the text (up to its first NUL):
 *
 *   0 sl_route_parse_prefix    6 BOOL
 *   1 sl_route_parse_addr      7 ENUM "hash|round-robin|zipf"
 *   2 UINT 1..16777216         8 STRING
 *   3 UINT, no bounds          9 TABLE (only "[]" parses)
 *   4 DURATION                10 one prefix per line: sl_route_find_repeat
 *   5 MAC                     11 sl_did_you_mean over app-like names
 *
 * Promises checked (route.h, param.h): a rejection has a message; an
 * accepted prefix or address is the canonical text of what it parsed to
 * (decimal, no leading zeros, host bits zero); an integer is within its
 * range, and plain digits mean decimal; a duration is a number and a unit,
 * and a positive one is not zero nanoseconds; a MAC is six pairs of hex
 * digits joined by ':'; a repeat found among prefixes is a real repeat and
 * none is missed; a suggestion is one of the candidates.
 */
#include <ctype.h>
#include <math.h>

#include "runtime/param.h"
#include "apps/router/route.h"

#include "fuzz.h"

/* text as C would write it, for messages: control bytes escaped, long text
 * cut.  Two buffers, so that two texts fit in one message. */
static const char *shown(const char *text)
{
	static char bufs[2][256];
	static unsigned next;
	char *b = bufs[next++ % 2];
	size_t o = 0;
	for (const unsigned char *p = (const unsigned char *)text; *p != '\0' && o < 240; p++)
		o += (size_t)snprintf(b + o, 256 - o, isprint(*p) && *p != '\\' ? "%c" : "\\x%02x",
				      *p);
	b[o] = '\0';
	return b;
}

static void prefix_or_addr(const char *text, bool prefix)
{
	struct sl_err err = { "" };
	uint32_t a = 0;
	uint8_t depth = 32;
	int rc = prefix ? sl_route_parse_prefix(text, &a, &depth, &err)
			: sl_route_parse_addr(text, &a, &err);
	if (rc < 0) {
		fuzz_require(rc == -EINVAL && fuzz_has_message(err.msg, sizeof(err.msg)),
			     "rejected with %d and no message", rc);
		return;
	}
	fuzz_require(depth <= 32, "depth %u", depth);
	fuzz_require(depth == 32 || (a & (0xffffffffu >> depth)) == 0,
		     "prefix '%s' accepted with host bits set", shown(text));
	char canon[32];
	if (prefix)
		snprintf(canon, sizeof(canon), "%u.%u.%u.%u/%u", a >> 24, (a >> 16) & 255,
			 (a >> 8) & 255, a & 255, depth);
	else
		snprintf(canon, sizeof(canon), "%u.%u.%u.%u", a >> 24, (a >> 16) & 255,
			 (a >> 8) & 255, a & 255);
	fuzz_require(strcmp(canon, text) == 0, "'%s' accepted as %s", shown(text), canon);
}

static bool all_digits(const char *s)
{
	if (*s == '\0')
		return false;
	for (; *s != '\0'; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

/* NUMBER UNIT with UNIT one of ns us ms s m h or none, NUMBER decimal (an
 * optional '+', fraction and exponent); *v receives the number. */
static bool duration_shape(const char *s, double *v)
{
	if (*s == '+')
		s++;
	const char *p = s;
	while (isdigit((unsigned char)*p))
		p++;
	if (*p == '.')
		for (p++; isdigit((unsigned char)*p); p++)
			;
	if (p == s || (p == s + 1 && *s == '.'))
		return false;
	if (*p == 'e' || *p == 'E') {
		const char *q = p + 1;
		if (*q == '+' || *q == '-')
			q++;
		if (!isdigit((unsigned char)*q))
			return false;
		while (isdigit((unsigned char)*q))
			q++;
		p = q;
	}
	*v = strtod(s, NULL);
	return !strcmp(p, "") || !strcmp(p, "ns") || !strcmp(p, "us") || !strcmp(p, "ms") ||
	       !strcmp(p, "s") || !strcmp(p, "m") || !strcmp(p, "h");
}

static bool mac_shape(const char *s)
{
	if (strlen(s) != 17)
		return false;
	for (int i = 0; i < 17; i++)
		if (i % 3 == 2 ? s[i] != ':' : !isxdigit((unsigned char)s[i]))
			return false;
	return true;
}

static void param(const struct sl_param_spec *spec, const char *text)
{
	struct sl_err err = { "" };
	struct sl_param_value v;
	memset(&v, 0, sizeof(v));
	int rc = sl_param_parse(spec, text, &v, &err);
	if (rc < 0) {
		fuzz_require(fuzz_has_message(err.msg, sizeof(err.msg)) &&
			     strncmp(err.msg, "parameter '", 11) == 0,
			     "rejected without a 'parameter ...' message: '%s'", err.msg);
		return;
	}
	switch (spec->type) {
	case SL_PARAM_UINT:
		fuzz_require(v.u >= spec->min && (spec->max == 0 || v.u <= spec->max),
			     "'%s' accepted as %llu, outside the range", shown(text),
			     (unsigned long long)v.u);
		if (all_digits(text))
			fuzz_require(v.u == strtoull(text, NULL, 10),
				     "'%s' accepted as %llu, not as the decimal number", shown(text),
				     (unsigned long long)v.u);
		break;
	case SL_PARAM_DURATION: {
		double num = 0;
		fuzz_require(duration_shape(text, &num), "'%s' accepted as a duration (%llu ns)",
			     shown(text), (unsigned long long)v.u);
		fuzz_require(!(num > 0) || v.u > 0, "positive duration '%s' accepted as 0 ns",
			     shown(text));
		break;
	}
	case SL_PARAM_MAC: {
		char canon[18];
		fuzz_require(mac_shape(text), "'%s' accepted as a MAC address", shown(text));
		snprintf(canon, sizeof(canon), "%02x:%02x:%02x:%02x:%02x:%02x", v.mac[0],
			 v.mac[1], v.mac[2], v.mac[3], v.mac[4], v.mac[5]);
		fuzz_require(strcasecmp(canon, text) == 0, "'%s' parsed as %s", shown(text), canon);
		break;
	}
	case SL_PARAM_BOOL:
		fuzz_require(v.u <= 1, "bool %llu", (unsigned long long)v.u);
		break;
	case SL_PARAM_ENUM:
		fuzz_require(v.s != NULL && strcmp(v.s, text) == 0, "enum text not kept");
		fuzz_require(v.u < 3, "enum index %llu", (unsigned long long)v.u);
		break;
	case SL_PARAM_STRING:
		fuzz_require(v.s != NULL && strcmp(v.s, text) == 0, "string not kept");
		break;
	case SL_PARAM_TABLE:
		fuzz_require(strcmp(text, "[]") == 0 && v.n_rows == 0, "'%s' accepted as a list",
			     shown(text));
		break;
	}
	sl_param_value_free(&v);
}

#define MAX_ROUTES 64

static void repeats(char *text)
{
	struct sl_route routes[MAX_ROUTES];
	unsigned n = 0;
	for (char *line = strtok(text, "\n"); line != NULL && n < MAX_ROUTES;
	     line = strtok(NULL, "\n")) {
		struct sl_err err = { "" };
		memset(&routes[n], 0, sizeof(routes[n]));
		if (sl_route_parse_prefix(line, &routes[n].prefix, &routes[n].depth, &err) == 0)
			n++;
	}
	unsigned first = 0, again = 0;
	int rc = sl_route_find_repeat(routes, n, &first, &again);
	/* The repeat whose second occurrence comes first, by brute force. */
	unsigned bf = 0, ba = 0;
	bool found = false;
	for (unsigned j = 1; j < n && !found; j++)
		for (unsigned i = 0; i < j && !found; i++)
			if (routes[i].prefix == routes[j].prefix && routes[i].depth == routes[j].depth) {
				bf = i;
				ba = j;
				found = true;
			}
	fuzz_require(rc == (found ? -EEXIST : 0), "find_repeat %d, brute force %s", rc,
		     found ? "found one" : "found none");
	if (found)
		fuzz_require(first == bf && again == ba, "find_repeat %u/%u, brute force %u/%u",
			     first, again, bf, ba);
}

static void did_you_mean(const char *word)
{
	static const char *const cands[] = { "flowcache", "router", "source", "sink", "l2fwd",
					     "port", "tee", "split", "join", "probe_source",
					     "probe_sink", "entries", "idle_timeout", "routes" };
	const char *s = sl_did_you_mean(word, cands, (sizeof(cands) / sizeof(cands[0])));
	bool member = s == NULL;
	for (unsigned i = 0; i < (sizeof(cands) / sizeof(cands[0])) && !member; i++)
		member = s == cands[i];
	fuzz_require(member, "suggestion not among the candidates");
	if (s != NULL)
		fuzz_require(strlen(word) < 63, "a suggestion for a %zu-byte word", strlen(word));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct sl_param_spec specs[] = {
		{ .name = "entries", .type = SL_PARAM_UINT, .min = 1, .max = 1u << 24 },
		{ .name = "count", .type = SL_PARAM_UINT },
		{ .name = "idle_timeout", .type = SL_PARAM_DURATION },
		{ .name = "dst_mac", .type = SL_PARAM_MAC },
		{ .name = "enabled", .type = SL_PARAM_BOOL },
		{ .name = "mode", .type = SL_PARAM_ENUM, .choices = "hash|round-robin|zipf" },
		{ .name = "path", .type = SL_PARAM_STRING },
		{ .name = "routes", .type = SL_PARAM_TABLE, .min = 0, .max = 16 },
	};
	if (size < 1)
		return 0;
	char *text = malloc(size);
	fuzz_require(text != NULL, "out of memory");
	memcpy(text, data + 1, size - 1);
	text[size - 1] = '\0';
	unsigned sel = data[0] % 12;
	if (sel <= 1)
		prefix_or_addr(text, sel == 0);
	else if (sel <= 9)
		param(&specs[sel - 2], text);
	else if (sel == 10)
		repeats(text);
	else
		did_you_mean(text);
	free(text);
	return 0;
}
