/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The exporter's text (engine/cli/promtext.h), from snapshots written here:
 *   - names: sluice_ prefix, _total on counters only, ns -> _seconds with
 *     the value scaled and the help saying seconds, an app type's own
 *     counters as sluice_TYPE_NAME;
 *   - # HELP is the declared sentence (read from the tables, not copied),
 *     # TYPE the declared kind; each family once, its samples together;
 *   - labels: app/type/worker, link/kind, worker, tier; label values escaped
 *     (backslash, quote, newline);
 *   - a null (a local link's sojourn, an epoch latency before any free) is
 *     left out; no engine: sluice_up 0 and the exporter's own info only;
 *   - promtool (Debian's prometheus package), when installed, accepts it.
 * promtext.c comes from the CLI's library (sluice_cli).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include <stdbool.h>

#include <jansson.h>

#include "runtime/app.h"
#include "cli/promtext.h"
#include "ops/view.h"

static const char snapshot[] =
	"{\"schema\": 1, \"elapsed_s\": 2.0, \"control_cpu\": 0,"
	" \"live\": {\"prefix\": \"sl-q\", \"pid\": 42, \"version\": \"0.1.0\", \"state\": \"running\","
	"   \"elapsed_ns\": 2017601479, \"tsc_hz\": 2000000000},"
	" \"apps\": {"
	"  \"src\": {\"type\": \"source\", \"worker\": \"gen\", \"counters\": {\"in_packets\": 1004750,"
	"    \"in_bytes\": 64304000, \"out_packets\": 0, \"out_bytes\": 0, \"drops\": 0},"
	"    \"runtime\": {\"pull_calls\": null, \"pull_packets\": null, \"pull_cycles\": null,"
	"     \"push_calls\": null, \"push_packets\": null, \"push_cycles\": null}},"
	"  \"fc\": {\"type\": \"flowcache\", \"worker\": \"fwd\", \"counters\": {\"in_packets\": 0,"
	"    \"in_bytes\": 0, \"out_packets\": 0, \"out_bytes\": 0, \"drops\": 0,"
	"    \"lookups\": 2000, \"hits\": 1900, \"misses\": 100}},"
	"  \"out\": {\"type\": \"sink\", \"worker\": \"fwd\", \"counters\": {\"in_packets\": 0,"
	"    \"in_bytes\": 0, \"out_packets\": 1004750, \"out_bytes\": 64304000, \"drops\": 3},"
	"    \"runtime\": {\"pull_calls\": 10, \"pull_packets\": 0, \"pull_cycles\": 3000,"
	"     \"push_calls\": 20, \"push_packets\": 1004750, \"push_cycles\": 4000000000}}},"
	" \"links\": {"
	"  \"src.output -> fc.input\": {\"from\": \"src.output\", \"to\": \"fc.input\", \"kind\": \"interlink\","
	"    \"packets\": 1004750, \"bytes\": 64304000, \"drops\": 0, \"occupancy_hwm\": 119,"
	"    \"sojourn_p50_ns\": 160, \"sojourn_p99_ns\": 369},"
	"  \"fc.output -> out.input\": {\"from\": \"fc.output\", \"to\": \"out.input\", \"kind\": \"local\","
	"    \"packets\": 1004750, \"bytes\": 64304000, \"drops\": 0, \"occupancy_hwm\": null,"
	"    \"sojourn_p50_ns\": null, \"sojourn_p99_ns\": null},"
	"  \"odd \\\"name\\\" \\\\ with\\nnewline\": {\"kind\": \"local\", \"packets\": 1, \"bytes\": 2,"
	"    \"drops\": 0}},"
	" \"workers\": {\"gen\": {\"cpu\": 1, \"lcore\": 1, \"breaths\": 46670434},"
	"   \"fwd\": {\"cpu\": 0, \"lcore\": 2, \"breaths\": 60324672, \"busy_breaths\": 60000000,"
	"     \"idle_breaths\": 324672, \"busy_cycles\": 3000000000, \"idle_cycles\": 1000000000}},"
	" \"pool\": {\"ops\": \"sluice\", \"chunk\": 512,"
	"   \"tiers\": {\"workers\": 1024, \"l3\": 0, \"global\": 14848, \"shared\": 511},"
	"   \"events\": {\"rebalances\": 1992, \"reclaims\": 1963, \"empty\": 0, \"full\": 0,"
	"     \"rebalance_p999_ns\": 24576, \"reclaim_p999_ns\": 4608}, \"starved_s\": {}},"
	" \"epoch\": {\"policy\": \"immediate\", \"reclaim_cap\": 256, \"retired\": 7, \"freed\": 5,"
	"   \"freed_at_stop\": 0, \"backlog\": 1, \"backlog_hwm\": 2, \"stall_ns\": 20000000,"
	"   \"free_ns_p50\": null, \"free_ns_p99\": null,"
	"   \"free_ns_max\": null, \"free_breaths_p50\": null, \"free_breaths_p99\": null,"
	"   \"free_breaths_max\": null, \"grace_ns_p50\": 1500, \"grace_ns_p99\": null},"
	" \"drained_at_stop\": {\"delivered\": 0, \"freed\": 0}, \"warnings\": [],"
	" \"mbufs\": {\"total\": 16383, \"back\": 16000}}";

static bool has_line(const char *text, const char *line)
{
	size_t n = strlen(line);
	for (const char *p = text; (p = strstr(p, line)) != NULL; p++)
		if ((p == text || p[-1] == '\n') && p[n] == '\n')
			return true;
	return false;
}

static unsigned count(const char *text, const char *s)
{
	unsigned n = 0;
	for (const char *p = text; (p = strstr(p, s)) != NULL; p += strlen(s))
		n++;
	return n;
}

/* Every sample follows its own family's # TYPE, each family once. */
static void check_grouped(const char *text)
{
	char fam[256] = "", seen[64][128];
	unsigned n_seen = 0;
	for (const char *p = text; *p != '\0';) {
		const char *eol = strchr(p, '\n');
		CHECK(eol != NULL, "the text ends with a newline");
		if (eol == NULL)
			return;
		size_t len = (size_t)(eol - p);
		if (strncmp(p, "# TYPE ", 7) == 0) {
			const char *name = p + 7, *end = memchr(name, ' ', len - 7);
			size_t w = end != NULL ? (size_t)(end - name) : len - 7;
			snprintf(fam, sizeof(fam), "%.*s", (int)w, name);
			for (unsigned i = 0; i < n_seen; i++)
				CHECK(strcmp(seen[i], fam) != 0, "family %s declared twice", fam);
			if (n_seen < 64)
				snprintf(seen[n_seen++], sizeof(seen[0]), "%s", fam);
		} else if (p[0] != '#') {
			size_t w = strcspn(p, "{ ");
			CHECK(w == strlen(fam) && strncmp(p, fam, w) == 0,
			      "sample '%.*s' outside its family (last # TYPE: %s)", (int)len, p, fam);
		}
		p = eol + 1;
	}
}

static void check_promtool(const char *text)
{
	if (system("command -v promtool >/dev/null 2>&1") != 0) {
		printf("promtool not installed: its check is skipped\n");
		return;
	}
	FILE *f = popen("promtool check metrics >/tmp/test_promtext.lint 2>&1", "w");
	CHECK(f != NULL, "popen promtool");
	if (f == NULL)
		return;
	fputs(text, f);
	int rc = pclose(f);
	if (rc != 0) {
		if (system("cat /tmp/test_promtext.lint") != 0)
			printf("(no promtool output)\n");
		printf("%s", text);
	}
	CHECK(rc == 0, "promtool check metrics accepts the text (status %d)", rc);
	remove("/tmp/test_promtext.lint");
}

static void check_help(const char *text, const char *name, const char *help)
{
	char want[512];
	snprintf(want, sizeof(want), "# HELP %s %s", name, help);
	CHECK(has_line(text, want), "line '%s'", want);
}

/* A snapshot of a running engine: every family, its samples, HELP and TYPE
 * lines, what is left out, and promtool's verdict where it is installed. */
static void test_snapshot(void)
{
	struct sl_prom_self self = { .version = "9.9.9", .prefix = "sl-q" };
	json_error_t jerr;
	json_t *snap = json_loads(snapshot, 0, &jerr);
	CHECK(snap != NULL, "the test's snapshot parses: %s (line %d)", jerr.text, jerr.line);
	if (snap == NULL)
		return;
	size_t len = 0;
	char *t = sl_prom_text(snap, &self, &len);
	CHECK(t != NULL && strlen(t) == len, "a text of len bytes");
	if (t == NULL)
		return;

	static const char *const lines[] = {
		"sluice_up 1",
		"# TYPE sluice_up gauge",
		"sluice_exporter_info{version=\"9.9.9\",prefix=\"sl-q\"} 1",
		"sluice_info{version=\"0.1.0\",prefix=\"sl-q\"} 1",
		"sluice_uptime_seconds 2.017601479",
		"# TYPE sluice_app_out_packets_total counter",
		"sluice_app_out_packets_total{app=\"out\",type=\"sink\",worker=\"fwd\"} 1004750",
		"sluice_app_in_packets_total{app=\"src\",type=\"source\",worker=\"gen\"} 1004750",
		"sluice_app_drops_total{app=\"out\",type=\"sink\",worker=\"fwd\"} 3",
		"# TYPE sluice_flowcache_hits_total counter",
		"sluice_flowcache_hits_total{app=\"fc\"} 1900",
		"sluice_link_packets_total{link=\"src.output -> fc.input\",kind=\"interlink\"} 1004750",
		"# TYPE sluice_link_occupancy_hwm gauge",
		"sluice_link_occupancy_hwm{link=\"src.output -> fc.input\",kind=\"interlink\"} 119",
		"sluice_link_sojourn_p50_seconds{link=\"src.output -> fc.input\",kind=\"interlink\"} 1.6e-07",
		"sluice_link_sojourn_p99_seconds{link=\"src.output -> fc.input\",kind=\"interlink\"} 3.69e-07",
		"sluice_link_bytes_total{link=\"odd \\\"name\\\" \\\\ with\\nnewline\",kind=\"local\"} 2",
		"sluice_worker_info{worker=\"gen\",cpu=\"1\",lcore=\"1\"} 1",
		"sluice_worker_breaths_total{worker=\"fwd\"} 60324672",
		"# TYPE sluice_pool_tier_mbufs gauge",
		"sluice_pool_tier_mbufs{tier=\"workers\"} 1024",
		"sluice_pool_tier_mbufs{tier=\"shared\"} 511",
		"sluice_pool_rebalances_total 1992",
		"sluice_pool_rebalance_p999_seconds 2.4576e-05",
		"sluice_epoch_retired_total 7",
		"sluice_epoch_backlog_hwm 2",
		"sluice_epoch_grace_p50_seconds 1.5e-06",
		"sluice_epoch_backlog 1",
		"sluice_epoch_stall_seconds 0.02",
		"sluice_pool_mbufs 16383",
		"sluice_pool_available_mbufs 16000",
		"# TYPE sluice_app_calls_total counter",
		"sluice_app_calls_total{app=\"out\",phase=\"pull\"} 10",
		"sluice_app_calls_total{app=\"out\",phase=\"push\"} 20",
		"sluice_app_call_packets_total{app=\"out\",phase=\"push\"} 1004750",
		"sluice_app_cpu_seconds_total{app=\"out\",phase=\"pull\"} 1.5e-06",
		"sluice_app_cpu_seconds_total{app=\"out\",phase=\"push\"} 2",
		"sluice_worker_state_breaths_total{worker=\"fwd\",state=\"busy\"} 60000000",
		"sluice_worker_state_breaths_total{worker=\"fwd\",state=\"idle\"} 324672",
		"sluice_worker_cpu_seconds_total{worker=\"fwd\",state=\"busy\"} 1.5",
		"sluice_worker_cpu_seconds_total{worker=\"fwd\",state=\"idle\"} 0.5",
	};
	for (unsigned i = 0; i < SL_ARRAY_LEN(lines); i++)
		CHECK(has_line(t, lines[i]), "line '%s'", lines[i]);

	/* Left out: nulls, and a local link's interlink-only values. */
	CHECK(strstr(t, "sluice_link_occupancy_hwm{link=\"fc.output -> out.input\"") == NULL,
	      "no occupancy for a local link");
	CHECK(strstr(t, "sluice_epoch_free_p50_seconds ") == NULL, "no free_p50 while it is null");
	CHECK(strstr(t, "sluice_epoch_grace_p99_seconds ") == NULL, "no grace_p99 while it is null");
	CHECK(strstr(t, "_ns") == NULL, "no metric named in ns");
	CHECK(count(t, "sluice_app_out_packets_total{") == 3, "one out_packets sample per app");
	CHECK(strstr(t, "sluice_source_") == NULL, "no own counters for a type without them");
	CHECK(strstr(t, "{app=\"src\",phase=") == NULL, "no runtime samples while they are null");
	CHECK(strstr(t, "{worker=\"gen\",state=") == NULL, "no busy/idle samples where absent");

	/* HELP: the declared sentences, read from the tables. */
	check_help(t, "sluice_app_out_packets_total", sl_app_common_counters[2].help);
	check_help(t, "sluice_link_drops_total", sl_link_counters[SL_LINK_DROPS].help);
	check_help(t, "sluice_epoch_retired_total", sl_epoch_counters[SL_EPOCH_RETIRED].help);
	const struct sl_app_type *fc = sl_app_type_find("flowcache");
	CHECK(fc != NULL, "the flowcache type is registered");
	for (unsigned i = 0; fc != NULL && i < fc->n_counters; i++)
		if (strcmp(fc->counters[i].name, "hits") == 0)
			check_help(t, "sluice_flowcache_hits_total", fc->counters[i].help);
	CHECK(has_line(t, "# HELP sluice_link_sojourn_p50_seconds Median time a sampled packet "
			  "spent in the ring, in seconds (interlinks only)."),
	      "a scaled value's help says seconds");
	char tiers[256];
	snprintf(tiers, sizeof(tiers), "tier=workers: %s tier=l3: %s",
		 sl_pool_tier_counters[0].help, sl_pool_tier_counters[1].help);
	CHECK(strstr(t, tiers) != NULL, "the tiers' help joins their sentences");
	CHECK(count(t, "# HELP sluice_pool_tier_mbufs ") == 1, "one HELP for the tiers");
	snprintf(tiers, sizeof(tiers), "# HELP sluice_app_cpu_seconds_total %s phase=pull: %s phase=push: %s",
		 sl_prom_cycles_help, sl_app_runtime_counters[2].help, sl_app_runtime_counters[5].help);
	CHECK(has_line(t, tiers), "line '%s'", tiers);

	check_grouped(t);
	check_promtool(t);
	free(t);
	json_decref(snap);
}

/* No engine: up 0 and the exporter itself. */
static void test_no_engine(void)
{
	struct sl_prom_self self = { .version = "9.9.9", .prefix = NULL };
	size_t len = 0;
	char *t = sl_prom_text(NULL, &self, &len);
	CHECK(t != NULL, "a text without an engine");
	if (t != NULL) {
		CHECK(has_line(t, "sluice_up 0"), "sluice_up 0");
		CHECK(has_line(t, "sluice_exporter_info{version=\"9.9.9\"} 1"), "exporter info");
		CHECK(strstr(t, "sluice_info") == NULL && strstr(t, "sluice_app_") == NULL,
		      "nothing of an engine");
		check_grouped(t);
		check_promtool(t);
		free(t);
	}
}

static const struct sl_test_case cases[] = {
	SL_CASE(test_snapshot),
	SL_CASE(test_no_engine),
};

int main(int argc, char **argv)
{
	return sl_test_main(argc, argv, cases, SL_NCASES(cases));
}
