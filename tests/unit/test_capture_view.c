/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Capture's control side (engine/ops/capture.h) through its view, without
 * an EAL, a socket or root: a configuration parsed from text (a source, a
 * forwarder replicated on a group of two workers, a sink: with the split
 * and join that replication inserts) and a link object per configured link
 * make a synthetic struct sl_cap_view.
 *   - point resolution: links by name (spaces optional), app ports, the
 *     replicas of a group's app by its base name and one replica by its
 *     own, the refusals with their exact sentences;
 *   - sl_cap_open's refusals, with their status and sentence, and nothing
 *     left behind: a malformed request, a point unknown, a link named by two
 *     points, a link under capture already, a filter over its bounds, an
 *     engine that stops;
 *   - filters: the bounds (64 terms, 4096 bytes; how terms are counted) and
 *     libpcap's compile, its refusals quoting the whole filter.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <pcap/pcap.h>

#include "base/err.h"
#include "config/config.h"
#include "config/lookup.h"
#include "ops/capture.h"
#include "runtime/link.h"

#include "../check.h"

/* Apps: src, f@0, f@1, out, then src@output (split), out@input (join). */
static const char yaml[] =
	"dpdk: { args: [--no-huge, -m, \"512\"] }\n"
	"pool: { mbufs: 16383 }\n"
	"workers:\n  rx: auto\n  fwd: { count: 2 }\n  tx: auto\n"
	"apps:\n"
	"  src: { type: source, worker: rx, rate: 1000 }\n"
	"  f: { type: l2fwd, worker: fwd }\n"
	"  out: { type: sink, worker: tx }\n"
	"links:\n  - src.output -> f.input\n  - f.output -> out.input\n";

/* The links as the engine names them, in the config's order. */
static const char *const link_names[] = {
	"src.output -> src@output.input",
	"src@output.output0 -> f@0.input",
	"src@output.output1 -> f@1.input",
	"f@0.output -> out@input.input0",
	"f@1.output -> out@input.input1",
	"out@input.output -> out.input",
};
#define N_LINKS (sizeof(link_names) / sizeof(link_names[0]))

static struct sl_config *cfg;
static struct sl_link *links[N_LINKS];
static bool stops;
static struct sl_cap_view view;

/* The synthetic view: cfg, a zeroed link object for each of its links, no
 * epoch and no control socket (no case gets as far as taking a connection
 * over). */
static bool setup(void)
{
	if (cfg != NULL)
		return true;
	struct sl_err err = { "" };
	cfg = sl_config_parse("capture.yaml", yaml, strlen(yaml), &err);
	CHECK(cfg != NULL, "the configuration does not parse: %s", err.msg);
	if (cfg == NULL)
		return false;
	CHECK(cfg->n_links == N_LINKS, "%u links, not %zu", cfg->n_links, N_LINKS);
	if (cfg->n_links != N_LINKS)
		return false;
	for (unsigned i = 0; i < N_LINKS; i++) {
		links[i] = calloc(1, sizeof(*links[i]));
		if (links[i] == NULL)
			abort();
		sl_config_link_name(cfg, i, links[i]->name, sizeof(links[i]->name));
		links[i]->index = i;
		CHECK(strcmp(links[i]->name, link_names[i]) == 0, "link %u is '%s', not '%s'", i,
		      links[i]->name, link_names[i]);
	}
	view = (struct sl_cap_view){ .cfg = cfg, .links = links, .stopping = &stops };
	sl_cap_attach(&view);
	return true;
}

/* ---- point resolution -------------------------------------------------- */

static const struct {
	const char *point;
	unsigned n, idx[2];
} resolved[] = {
	{ "src.output -> src@output.input", 1, { 0 } },
	{ "src.output->src@output.input", 1, { 0 } },
	{ "  f@1.output  ->  out@input.input1 ", 1, { 4 } },
	{ "src.output", 1, { 0 } },
	{ "out.input", 1, { 5 } },
	{ "f.input", 2, { 1, 2 } },           /* every replica */
	{ "f.output", 2, { 3, 4 } },
	{ "f@0.output", 1, { 3 } },           /* one replica */
	{ "f @1 . input", 1, { 2 } },
	{ "src@output.output1", 1, { 2 } },   /* an inserted split */
	{ "out@input.input0", 1, { 3 } },
};

static void resolve_points(void)
{
	if (!setup())
		return;
	for (size_t c = 0; c < sizeof(resolved) / sizeof(resolved[0]); c++) {
		unsigned idx[N_LINKS];
		struct sl_err err = { "" };
		int n = sl_cap_resolve(&view, resolved[c].point, idx, &err);
		CHECK(n == (int)resolved[c].n, "'%s': %d links (%s), not %u", resolved[c].point, n,
		      err.msg, resolved[c].n);
		for (int k = 0; k < n && n == (int)resolved[c].n; k++)
			CHECK(idx[k] == resolved[c].idx[k], "'%s': link %d is %u, not %u",
			      resolved[c].point, k, idx[k], resolved[c].idx[k]);
	}
}

static const struct {
	const char *point, *msg;
} unresolved[] = {
	{ "src.output -> nope.input", "capture: no link 'src.output -> nope.input' in the running "
	  "configuration (sluice plan lists the links)" },
	{ "f.output -> out.input", "capture: no link 'f.output -> out.input' in the running "
	  "configuration (sluice plan lists the links)" },
	{ "srcoutput", "capture: 'srcoutput' is not a capture point (a link \"a.output -> "
	  "b.input\" or an app's port \"a.output\")" },
	{ ".output", "capture: '.output' is not a capture point (a link \"a.output -> b.input\" "
	  "or an app's port \"a.output\")" },
	{ "src.", "capture: 'src.' is not a capture point (a link \"a.output -> b.input\" or "
	  "an app's port \"a.output\")" },
	{ "nope.output", "capture: no app 'nope' in the running configuration (point "
	  "'nope.output')" },
	{ "f@2.output", "capture: no app 'f@2' in the running configuration (point "
	  "'f@2.output')" },
	{ "src.input", "capture: app 'src' has no link on port 'input' (point 'src.input'; "
	  "sluice plan lists the links)" },
	{ "f.output2", "capture: app 'f' has no link on port 'output2' (point 'f.output2'; "
	  "sluice plan lists the links)" },
};

static void resolve_refusals(void)
{
	if (!setup())
		return;
	for (size_t c = 0; c < sizeof(unresolved) / sizeof(unresolved[0]); c++) {
		unsigned idx[N_LINKS];
		struct sl_err err = { "" };
		int n = sl_cap_resolve(&view, unresolved[c].point, idx, &err);
		CHECK(n == -EINVAL, "'%s': %d, not -EINVAL", unresolved[c].point, n);
		CHECK(strcmp(err.msg, unresolved[c].msg) == 0, "'%s': \"%s\", not \"%s\"",
		      unresolved[c].point, err.msg, unresolved[c].msg);
	}
}

/* ---- sl_cap_open's refusals -------------------------------------------- */

/* sl_cap_open(request text) must refuse with status and msg, leaving no
 * capture behind. */
static void refused(const char *req_text, int status, const char *msg)
{
	json_error_t jerr;
	json_t *req = json_loads(req_text, 0, &jerr);
	CHECK(req != NULL, "bad request text %s: %s", req_text, jerr.text);
	if (req == NULL)
		return;
	json_t *reply = sl_cap_open(req);
	CHECK(reply != NULL, "%s: accepted", req_text);
	if (reply != NULL) {
		json_t *ok = json_object_get(reply, "ok");
		const char *e = json_string_value(json_object_get(reply, "error"));
		int st = (int)json_integer_value(json_object_get(reply, "status"));
		CHECK(json_is_false(ok), "%s: not ok:false", req_text);
		CHECK(st == status, "%s: status %d, not %d", req_text, st, status);
		CHECK(e != NULL && strcmp(e, msg) == 0, "%s: \"%s\", not \"%s\"", req_text,
		      e != NULL ? e : "(none)", msg);
	}
	json_decref(reply);
	json_decref(req);
	CHECK(!sl_cap_service(), "%s: a capture was left behind", req_text);
}

static void open_bad_requests(void)
{
	if (!setup())
		return;
	refused("{}", SL_EXIT_CONFIG, "capture: \"points\" must be a non-empty list of capture points");
	refused("{\"points\": []}", SL_EXIT_CONFIG,
		"capture: \"points\" must be a non-empty list of capture points");
	refused("{\"points\": \"src.output\"}", SL_EXIT_CONFIG,
		"capture: \"points\" must be a non-empty list of capture points");
	refused("{\"points\": [\"src.output\", 3]}", SL_EXIT_CONFIG,
		"capture: \"points\" must be a list of strings");
	refused("{\"points\": [\"src.output\"], \"filter\": 1}", SL_EXIT_CONFIG,
		"capture: \"filter\" must be a string");
	refused("{\"points\": [\"src.output\"], \"snaplen\": 0}", SL_EXIT_CONFIG,
		"capture: \"snaplen\" must be an integer from 1 to 65535");
	refused("{\"points\": [\"src.output\"], \"snaplen\": 65536}", SL_EXIT_CONFIG,
		"capture: \"snaplen\" must be an integer from 1 to 65535");
	refused("{\"points\": [\"src.output\"], \"count\": -1}", SL_EXIT_CONFIG,
		"capture: \"count\" must be an integer from 0 to 9223372036854775807");
	refused("{\"points\": [\"src.output\"], \"count\": \"9\"}", SL_EXIT_CONFIG,
		"capture: \"count\" must be an integer from 0 to 9223372036854775807");
}

static void open_unknown_points(void)
{
	if (!setup())
		return;
	refused("{\"points\": [\"src.output\", \"nope.output\"]}", SL_EXIT_CONFIG,
		"capture: no app 'nope' in the running configuration (point 'nope.output')");
	refused("{\"points\": [\"src.input\"]}", SL_EXIT_CONFIG,
		"capture: app 'src' has no link on port 'input' (point 'src.input'; sluice plan "
		"lists the links)");
	refused("{\"points\": [\"a.output -> b.input\"]}", SL_EXIT_CONFIG,
		"capture: no link 'a.output -> b.input' in the running configuration (sluice "
		"plan lists the links)");
	refused("{\"points\": [\"srcoutput\"]}", SL_EXIT_CONFIG,
		"capture: 'srcoutput' is not a capture point (a link \"a.output -> b.input\" or "
		"an app's port \"a.output\")");
}

/* Two points naming one link: the same point twice, a replica's port and
 * its group's, a link and the port it is on. */
static void open_link_named_twice(void)
{
	if (!setup())
		return;
	refused("{\"points\": [\"src.output\", \"src.output\"]}", SL_EXIT_CONFIG,
		"capture: point 'src.output' names link 'src.output -> src@output.input', which "
		"an earlier point of this capture names too");
	refused("{\"points\": [\"f.output\", \"f@1.output\"]}", SL_EXIT_CONFIG,
		"capture: point 'f@1.output' names link 'f@1.output -> out@input.input1', which "
		"an earlier point of this capture names too");
	refused("{\"points\": [\"f@0.input\", \"f.input\"]}", SL_EXIT_CONFIG,
		"capture: point 'f.input' names link 'src@output.output0 -> f@0.input', which "
		"an earlier point of this capture names too");
	refused("{\"points\": [\"out@input.output -> out.input\", \"out.input\"]}", SL_EXIT_CONFIG,
		"capture: point 'out.input' names link 'out@input.output -> out.input', which an "
		"earlier point of this capture names too");
}

static void open_link_busy(void)
{
	if (!setup())
		return;
	static struct sl_cap_tap other;   /* another capture's tap */
	links[4]->cap = &other;
	refused("{\"points\": [\"f.output\"]}", SL_EXIT_RUNTIME,
		"capture: link 'f@1.output -> out@input.input1' (point 'f.output') is being "
		"captured already, by another sluice capture");
	refused("{\"points\": [\"src.output\", \"f@1.output -> out@input.input1\"]}",
		SL_EXIT_RUNTIME, "capture: link 'f@1.output -> out@input.input1' (point "
		"'f@1.output -> out@input.input1') is being captured already, by another sluice "
		"capture");
	links[4]->cap = NULL;
}

static void open_engine_stopping(void)
{
	if (!setup())
		return;
	stops = true;
	refused("{\"points\": [\"src.output\"]}", SL_EXIT_RUNTIME,
		"capture: the engine is stopping");
	/* A request that is wrong in itself says so first. */
	refused("{\"points\": [\"src.output\"], \"snaplen\": 0}", SL_EXIT_CONFIG,
		"capture: \"snaplen\" must be an integer from 1 to 65535");
	stops = false;
}

/* ---- filters ----------------------------------------------------------- */

/* "host 10.0.0.1 OP host 10.0.0.2 OP ...": n terms. */
static char *hosts(unsigned n, const char *op)
{
	size_t len = n * (strlen(op) + 32) + 1;
	char *f = malloc(len), *p = f;
	if (f == NULL)
		abort();
	for (unsigned i = 0; i < n; i++)
		p += snprintf(p, len - (size_t)(p - f), "%shost 10.0.%u.%u", i ? op : "", i / 250,
			      i % 250 + 1);
	return f;
}

static void check_terms(const char *filter, unsigned terms)
{
	struct sl_err err = { "" };
	int rc = sl_cap_filter_check(filter, &err);
	if (terms <= SL_CAP_FILTER_MAX_TERMS) {
		CHECK(rc == 0, "'%.60s' (%u terms) refused: %s", filter, terms, err.msg);
		return;
	}
	char want[256];
	snprintf(want, sizeof(want), "capture: filter has %u terms (primitives joined by "
		 "and/or); at most 64 are accepted, as libpcap's compile time grows steeply "
		 "with them", terms);
	CHECK(rc == -E2BIG, "'%.60s' (%u terms): %d, not -E2BIG", filter, terms, rc);
	CHECK(strcmp(err.msg, want) == 0, "'%.60s': \"%s\", not \"%s\"", filter, err.msg, want);
}

static void filter_terms(void)
{
	static const char *const ops[] = { " or ", " and ", " && ", " || ", " OR ", " And ",
					   "||", "&&" };
	for (size_t o = 0; o < sizeof(ops) / sizeof(ops[0]); o++)
		for (unsigned n = 63; n <= 65; n++) {
			char *f = hosts(n, ops[o]);
			check_terms(f, n);
			free(f);
		}
	char *f = hosts(200, "||");   /* within the bytes */
	check_terms(f, 200);
	free(f);
	/* Words that hold the operators are not operators. */
	check_terms("ether host 02:00:00:00:00:01 and not arp", 2);
	check_terms("host band.example or host orange.example", 2);
	check_terms("host and-or.example", 1);
	check_terms("udp and (port 53 or port 5353) && not host 10.0.0.1", 4);
	check_terms("", 1);
}

static void filter_bytes(void)
{
	char f[SL_CAP_FILTER_MAX_BYTES + 2];
	memset(f, ' ', sizeof(f));
	memcpy(f, "udp", 3);
	f[SL_CAP_FILTER_MAX_BYTES] = '\0';
	struct sl_err err = { "" };
	CHECK(sl_cap_filter_check(f, &err) == 0, "4096 bytes refused: %s", err.msg);
	f[SL_CAP_FILTER_MAX_BYTES] = ' ';
	f[SL_CAP_FILTER_MAX_BYTES + 1] = '\0';
	int rc = sl_cap_filter_check(f, &err);
	CHECK(rc == -E2BIG, "4097 bytes: %d, not -E2BIG", rc);
	CHECK(strcmp(err.msg, "capture: filter is 4097 bytes long; at most 4096 are accepted") == 0,
	      "4097 bytes: \"%s\"", err.msg);
}

/* The engine checks the bounds before it starts a compile. */
static void open_filter_bounds(void)
{
	if (!setup())
		return;
	char *f = hosts(65, " or ");
	json_t *req = json_pack("{s[s]ss}", "points", "src.output", "filter", f);
	char *text = json_dumps(req, JSON_COMPACT);
	refused(text, SL_EXIT_CONFIG, "capture: filter has 65 terms (primitives joined by "
		"and/or); at most 64 are accepted, as libpcap's compile time grows steeply with "
		"them");
	free(text);
	json_decref(req);
	free(f);
}

static void filter_compile(void)
{
	static const char *const good[] = { "udp dst port 53", "not arp",
					    "ether src 02:00:00:00:00:01", "",
					    "udp and (src port 1024 or src port 1025)" };
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		struct bpf_program prog;
		char msg[SL_CAP_FILTER_MSG_MAX] = "";
		int rc = sl_cap_filter_compile(good[i], 65535, &prog, msg, sizeof(msg));
		CHECK(rc == 0, "'%s' does not compile: %s", good[i], msg);
		if (rc == 0) {
			CHECK(prog.bf_len > 0, "'%s': no instructions", good[i]);
			pcap_freecode(&prog);
		}
	}
}

static void filter_compile_errors(void)
{
	static const struct {
		const char *filter, *msg;
	} bad[] = {
		{ "udp port", "capture: filter 'udp port': can't parse filter expression: "
		  "syntax error" },
		{ "tcp port 99999", "capture: filter 'tcp port 99999': illegal port number 99999 "
		  "> 65535" },
		{ "ether host 02:00", "capture: filter 'ether host 02:00': " },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct bpf_program prog;
		char msg[SL_CAP_FILTER_MSG_MAX] = "";
		int rc = sl_cap_filter_compile(bad[i].filter, 65535, &prog, msg, sizeof(msg));
		CHECK(rc == -EINVAL, "'%s' compiled (%d)", bad[i].filter, rc);
		size_t n = strlen(bad[i].msg);
		bool prefix = bad[i].msg[n - 1] == ' ';   /* libpcap's words vary */
		CHECK(prefix ? strncmp(msg, bad[i].msg, n) == 0 && msg[n] != '\0'
			     : strcmp(msg, bad[i].msg) == 0,
		      "'%s': \"%s\", not \"%s%s\"", bad[i].filter, msg, bad[i].msg,
		      prefix ? "..." : "");
	}
	/* A long filter within the bounds is quoted whole. */
	char *f = hosts(60, " or ");
	size_t len = strlen(f);
	char *g = malloc(len + 16);
	if (g == NULL)
		abort();
	snprintf(g, len + 16, "%s or udp port", f);
	struct bpf_program prog;
	char msg[SL_CAP_FILTER_MSG_MAX] = "";
	int rc = sl_cap_filter_compile(g, 65535, &prog, msg, sizeof(msg));
	CHECK(rc == -EINVAL, "a long filter ending in 'udp port' compiled (%d)", rc);
	char want[SL_CAP_FILTER_MSG_MAX];
	snprintf(want, sizeof(want), "capture: filter '%s': ", g);
	CHECK(len > sizeof(((struct sl_err *)0)->msg), "the long filter is short (%zu)", len);
	CHECK(strncmp(msg, want, strlen(want)) == 0, "a long filter: \"%.80s...\"", msg);
	free(g);
	free(f);
}

static const struct sl_test_case cases[] = {
	SL_CASE(resolve_points),
	SL_CASE(resolve_refusals),
	SL_CASE(open_bad_requests),
	SL_CASE(open_unknown_points),
	SL_CASE(open_link_named_twice),
	SL_CASE(open_link_busy),
	SL_CASE(open_engine_stopping),
	SL_CASE(open_filter_bounds),
	SL_CASE(filter_terms),
	SL_CASE(filter_bytes),
	SL_CASE(filter_compile),
	SL_CASE(filter_compile_errors),
};

int main(int argc, char **argv)
{
	return sl_test_main(argc, argv, cases, SL_NCASES(cases));
}
