/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests for engine/config/config.c: valid configurations are checked value by
 * value; invalid ones are a table of YAML texts and the message each must
 * produce (with its FILE:LINE:COL where the position matters).
 *
 * The app types used here are registered by this file (names start with
 * "t_") so that the tests do not depend on the real apps.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config/config.h"

/* ---- test-local app types ----------------------------------------------- */

static const struct sl_port_spec in_port[] = { { "input", true, "packets in" } };
static const struct sl_port_spec out_port[] = { { "output", true, "packets out" } };
static const struct sl_port_spec opt_in[] = { { "input", false, "packets in" } };
static const struct sl_port_spec opt_out[] = { { "output", false, "packets out" } };
static const struct sl_port_spec in_family[] = { { "input#", true, "packets in" } };
static const struct sl_port_spec out_family[] = { { "output#", true, "packets out" } };

static const struct sl_app_type t_gen = {
	.name = "t_gen", .doc = "test generator",
	.outputs = out_port, .n_outputs = 1,
};
SL_APP_REGISTER(t_gen)

static const struct sl_param_spec fwd_params[] = {
	{ .name = "size", .type = SL_PARAM_UINT, .def = "64", .min = 64, .max = 9000,
	  .doc = "frame size" },
	{ .name = "mode", .type = SL_PARAM_ENUM, .def = "a", .choices = "a|bb",
	  .doc = "mode" },
	{ .name = "mac", .type = SL_PARAM_MAC, .def = "02:00:00:00:00:01", .doc = "address" },
	{ .name = "idle_timeout", .type = SL_PARAM_DURATION, .def = "30s", .doc = "idle time" },
	{ .name = "flag", .type = SL_PARAM_BOOL, .def = "no", .doc = "a switch" },
};
static const struct sl_app_type t_fwd = {
	.name = "t_fwd", .doc = "test forwarder",
	.params = fwd_params, .n_params = SL_ARRAY_LEN(fwd_params),
	.inputs = in_port, .n_inputs = 1,
	.outputs = out_port, .n_outputs = 1,
};
SL_APP_REGISTER(t_fwd)

static const struct sl_param_spec dev_params[] = {
	{ .name = "device", .type = SL_PARAM_STRING, .def = NULL, .doc = "device" },
};
static const struct sl_app_type t_dev = {
	.name = "t_dev", .doc = "test device",
	.params = dev_params, .n_params = SL_ARRAY_LEN(dev_params),
	.inputs = opt_in, .n_inputs = 1,
	.outputs = opt_out, .n_outputs = 1,
};
SL_APP_REGISTER(t_dev)

/* A device that one app alone may drive (as a port's). */
static const struct sl_param_spec xdev_params[] = {
	{ .name = "device", .type = SL_PARAM_STRING, .def = NULL, .exclusive = true,
	  .doc = "device" },
};
static const struct sl_app_type t_xdev = {
	.name = "t_xdev", .doc = "test exclusive device",
	.params = xdev_params, .n_params = SL_ARRAY_LEN(xdev_params),
	.inputs = opt_in, .n_inputs = 1,
	.outputs = opt_out, .n_outputs = 1,
};
SL_APP_REGISTER(t_xdev)

static const struct sl_app_type t_split = {
	.name = "t_split", .doc = "test splitter",
	.inputs = in_port, .n_inputs = 1,
	.outputs = out_family, .n_outputs = 1,
};
SL_APP_REGISTER(t_split)

static const struct sl_app_type t_join = {
	.name = "t_join", .doc = "test joiner",
	.inputs = in_family, .n_inputs = 1,
	.outputs = out_port, .n_outputs = 1,
};
SL_APP_REGISTER(t_join)

static const struct sl_app_type t_sink = {
	.name = "t_sink", .doc = "test sink",
	.inputs = in_port, .n_inputs = 1,
};
SL_APP_REGISTER(t_sink)

/* List parameters (SL_PARAM_TABLE): `routes` is required with at least one
 * row; `extra` defaults to no rows and takes at most two. */
static const struct sl_param_spec route_fields[] = {
	{ .name = "prefix", .type = SL_PARAM_STRING, .def = NULL, .doc = "destination" },
	{ .name = "via", .type = SL_PARAM_STRING, .def = "none", .doc = "next hop" },
	{ .name = "output", .type = SL_PARAM_UINT, .def = "0", .max = 15, .doc = "port" },
	{ .name = "dst_mac", .type = SL_PARAM_MAC, .def = "02:00:00:00:00:ff", .doc = "mac" },
};
static const struct sl_param_spec extra_fields[] = {
	{ .name = "name", .type = SL_PARAM_STRING, .def = NULL, .doc = "a name" },
	{ .name = "on", .type = SL_PARAM_BOOL, .def = "yes", .doc = "a switch" },
};
static const struct sl_param_spec router_params[] = {
	{ .name = "routes", .type = SL_PARAM_TABLE, .def = NULL, .min = 1, .doc = "routes",
	  .fields = route_fields, .n_fields = SL_ARRAY_LEN(route_fields) },
	{ .name = "extra", .type = SL_PARAM_TABLE, .def = "[]", .max = 2, .doc = "extras",
	  .fields = extra_fields, .n_fields = SL_ARRAY_LEN(extra_fields) },
	{ .name = "size", .type = SL_PARAM_UINT, .def = "64", .doc = "a number" },
};
static const struct sl_app_type t_router = {
	.name = "t_router", .doc = "test app with list parameters",
	.params = router_params, .n_params = SL_ARRAY_LEN(router_params),
	.inputs = opt_in, .n_inputs = 1,
	.outputs = opt_out, .n_outputs = 1,
};
SL_APP_REGISTER(t_router)

/* References between apps declared by the schema: `route` names a t_router
 * app, apps naming one `table` must agree on entries and route. */
static const struct sl_param_spec cache_params[] = {
	{ .name = "entries", .type = SL_PARAM_UINT, .def = "64", .doc = "size" },
	{ .name = "table", .type = SL_PARAM_STRING, .def = "none", .doc = "shared table",
	  .share_agree = "entries|route" },
	{ .name = "route", .type = SL_PARAM_STRING, .def = "none", .doc = "a router",
	  .app_type = "t_router" },
	{ .name = "mac", .type = SL_PARAM_MAC, .def = "02:00:00:00:00:01", .doc = "address" },
};
static const struct sl_app_type t_cache = {
	.name = "t_cache", .doc = "test app that shares a table and names a router",
	.params = cache_params, .n_params = SL_ARRAY_LEN(cache_params),
	.inputs = in_port, .n_inputs = 1,
	.outputs = out_port, .n_outputs = 1,
};
SL_APP_REGISTER(t_cache)

/* ---- reporting ---------------------------------------------------------- */

static unsigned n_checks, n_failed;

/* Record one check; print "ok N what" or "FAIL N what: detail". */
__attribute__((format(printf, 3, 4)))
static bool check(bool ok, const char *what, const char *detail_fmt, ...)
{
	n_checks++;
	if (ok) {
		printf("ok %u %s\n", n_checks, what);
		return true;
	}
	n_failed++;
	printf("FAIL %u %s: ", n_checks, what);
	va_list ap;
	va_start(ap, detail_fmt);
	vprintf(detail_fmt, ap);
	va_end(ap);
	printf("\n");
	return false;
}

static bool check_uint(const char *what, unsigned long long got, unsigned long long want)
{
	return check(got == want, what, "got %llu, want %llu", got, want);
}

static bool check_str(const char *what, const char *got, const char *want)
{
	return check(got != NULL && strcmp(got, want) == 0, what, "got '%s', want '%s'",
		     got != NULL ? got : "(null)", want);
}

static struct sl_config *parse(const char *text, struct sl_err *err)
{
	memset(err, 0, sizeof(*err));
	return sl_config_parse("t.yaml", text, strlen(text), err);
}

/* Parse text that must be valid; print the message if not. */
static struct sl_config *parse_ok(const char *what, const char *text)
{
	struct sl_err err;
	struct sl_config *cfg = parse(text, &err);
	check(cfg != NULL, what, "unexpected error: %s", err.msg);
	return cfg;
}

static int app_index(const struct sl_config *cfg, const char *name)
{
	for (unsigned i = 0; i < cfg->n_apps; i++)
		if (strcmp(cfg->apps[i].name, name) == 0)
			return (int)i;
	return -1;
}

static const struct sl_param_value *pv(const struct sl_config *cfg, const char *app,
				       const char *param)
{
	const struct sl_app_cfg *a = &cfg->apps[app_index(cfg, app)];
	return &a->params[sl_param_find(a->type->params, a->type->n_params, param)];
}

/* ---- valid configurations ----------------------------------------------- */

static void test_minimal_defaults(void)
{
	struct sl_config *cfg = parse_ok("minimal config parses",
		"apps:\n"
		"  g: { type: t_gen }\n"
		"  s: { type: t_sink }\n"
		"links:\n"
		"  - g.output -> s.input\n");
	if (cfg == NULL)
		return;
	check_str("path is the given name", cfg->path, "t.yaml");
	check_uint("default pool.mbufs", cfg->pool.mbufs, 16383);
	check_uint("default pool.cache", cfg->pool.cache, 256);
	check_uint("default pool.ops", cfg->pool.ops, SL_POOL_OPS_SLUICE);
	check_uint("default engine.epoch", cfg->epoch_policy, SL_EPOCH_IMMEDIATE);
	check_uint("default engine.reclaim_cap", cfg->reclaim_cap, 256);
	check_uint("default engine.epoch_ring", cfg->epoch_ring, 4096);
	check_uint("default engine.stop_timeout", cfg->stop_timeout_ns, 5000000000ULL);
	check_uint("default pool.chunk", cfg->pool.chunk, 512);
	check_uint("default pool.l3_tier", cfg->pool.l3_tier, 1);
	check_uint("default pool.l3_chunks", cfg->pool.l3_chunks, 4);
	check_uint("default pool.order (address)", cfg->pool.shuffle, 0);
	check_uint("default pool.data_room", cfg->pool.data_room, 2048);
	check_uint("default engine.burst", cfg->burst, 32);
	check_uint("default engine.link_size", cfg->link_size, 1024);
	check_uint("default engine.link_impl", cfg->link_impl, SL_LINK_INTERLINK);
	check_uint("no eal args", cfg->n_eal_args, 0);
	check_uint("one default worker", cfg->n_workers, 1);
	check_str("default worker name", cfg->workers[0].name, "main");
	check(cfg->workers[0].core == SL_CORE_AUTO, "default worker core auto", "core %d",
	      cfg->workers[0].core);
	check_uint("two apps", cfg->n_apps, 2);
	check_str("app 0 name", cfg->apps[0].name, "g");
	check(cfg->apps[0].type == &t_gen, "app 0 type", "wrong type");
	check_uint("app 0 worker", cfg->apps[0].worker, 0);
	check_uint("app 1 mark line", cfg->apps[1].mark.line, 3);
	check_uint("app 1 mark col", cfg->apps[1].mark.col, 3);
	check_uint("one link", cfg->n_links, 1);
	check_uint("link from app", cfg->links[0].from.app, 0);
	check_str("link from port", cfg->links[0].from.port, "output");
	check_uint("link to app", cfg->links[0].to.app, 1);
	check_str("link to port", cfg->links[0].to.port, "input");
	check_uint("link mark line", cfg->links[0].mark.line, 5);
	check_uint("link mark col", cfg->links[0].mark.col, 5);
	check(cfg->order != NULL && cfg->order[0] == 0 && cfg->order[1] == 1, "order g, s",
	      "wrong order");
	sl_config_free(cfg);
}

static int first_allowed_cpu(void)
{
	cpu_set_t set;
	CPU_ZERO(&set);
	if (sched_getaffinity(0, sizeof(set), &set) != 0)
		return -1;
	for (int i = 0; i < CPU_SETSIZE; i++)
		if (CPU_ISSET(i, &set))
			return i;
	return -1;
}

static void test_overrides(void)
{
	int cpu = first_allowed_cpu();
	char text[1024];

	snprintf(text, sizeof(text),
		 "dpdk:\n"
		 "  args: [--no-huge, -m, \"512\", --no-pci, --log-level=7]\n"
		 "pool: { mbufs: 64Ki, ops: dpdk, cache: 0, data_room: 0x1000 }\n"
		 "engine:\n"
		 "  burst: 64\n"
		 "  link_size: 4Ki\n"
		 "  stop_timeout: 1500ms\n"
		 "  accounting: false\n"
		 "  direct_links: false\n"
		 "workers:\n"
		 "  rx: auto\n"
		 "  fwd: { core: auto }\n"
		 "  pinned: { core: %d }\n"
		 "  bare: %d\n"
		 "apps:\n"
		 "  g: { type: t_gen, worker: rx }\n"
		 "  f: { type: t_fwd, worker: fwd }\n"
		 "  f2: { type: t_fwd, worker: bare }\n"
		 "  s: { type: t_sink, worker: pinned }\n"
		 "links: [g.output -> f.input, f.output -> f2.input, f2.output -> s.input]\n",
		 cpu, cpu + 1);
	/* `bare` needs a second CPU: skip it on a one-CPU affinity set. */
	cpu_set_t set;
	CPU_ZERO(&set);
	sched_getaffinity(0, sizeof(set), &set);
	bool two = cpu >= 0 && cpu + 1 < CPU_SETSIZE && CPU_ISSET(cpu + 1, &set);
	if (!two) {
		snprintf(text, sizeof(text),
			 "dpdk:\n"
			 "  args: [--no-huge, -m, \"512\", --no-pci, --log-level=7]\n"
			 "pool: { mbufs: 64Ki, ops: dpdk, cache: 0, data_room: 0x1000 }\n"
			 "engine:\n"
			 "  burst: 64\n"
			 "  link_size: 4Ki\n"
			 "  stop_timeout: 1500ms\n"
			 "  accounting: false\n"
			 "  direct_links: false\n"
			 "workers:\n"
			 "  rx: auto\n"
			 "  fwd: { core: auto }\n"
			 "  pinned: { core: %d }\n"
			 "  bare: auto\n"
			 "apps:\n"
			 "  g: { type: t_gen, worker: rx }\n"
			 "  f: { type: t_fwd, worker: fwd }\n"
			 "  f2: { type: t_fwd, worker: bare }\n"
			 "  s: { type: t_sink, worker: pinned }\n"
			 "links: [g.output -> f.input, f.output -> f2.input, f2.output -> s.input]\n",
			 cpu);
	}
	struct sl_config *cfg = parse_ok("overrides parse", text);
	if (cfg == NULL)
		return;
	check_uint("eal arg count", cfg->n_eal_args, 5);
	check_str("eal arg 0", cfg->eal_args[0], "--no-huge");
	check_str("eal arg 2 (quoted)", cfg->eal_args[2], "512");
	check_str("eal arg 4", cfg->eal_args[4], "--log-level=7");
	check_uint("pool.mbufs 64Ki", cfg->pool.mbufs, 65536);
	check_uint("pool.cache 0", cfg->pool.cache, 0);
	check_uint("pool.data_room 0x1000", cfg->pool.data_room, 4096);
	check_uint("engine.burst", cfg->burst, 64);
	check_uint("engine.link_size 4Ki", cfg->link_size, 4096);
	check_uint("engine.stop_timeout 1500ms", cfg->stop_timeout_ns, 1500000000ULL);
	check_uint("engine.accounting false", cfg->accounting, 0);
	check_uint("engine.direct_links false", cfg->direct_links, 0);
	check_uint("four workers", cfg->n_workers, 4);
	check_str("worker 0 name", cfg->workers[0].name, "rx");
	check(cfg->workers[0].core == SL_CORE_AUTO, "scalar auto core", "core %d",
	      cfg->workers[0].core);
	check(cfg->workers[1].core == SL_CORE_AUTO, "mapping auto core", "core %d",
	      cfg->workers[1].core);
	check(cfg->workers[2].core == cpu, "mapping explicit core", "core %d, want %d",
	      cfg->workers[2].core, cpu);
	check(cfg->workers[3].core == (two ? cpu + 1 : SL_CORE_AUTO), "scalar explicit core",
	      "core %d", cfg->workers[3].core);
	check_uint("worker mark line", cfg->workers[2].mark.line, 13);
	check_uint("app g on rx", cfg->apps[0].worker, 0);
	check_uint("app f on fwd", cfg->apps[1].worker, 1);
	check_uint("app f2 on bare", cfg->apps[2].worker, 3);
	check_uint("app s on pinned", cfg->apps[3].worker, 2);
	sl_config_free(cfg);
}

static void test_params(void)
{
	struct sl_config *cfg = parse_ok("typed parameters parse",
		"apps:\n"
		"  d:\n"
		"    type: t_dev\n"
		"    device: \"net_pcap0,rx_pcap=in.pcap\"\n"
		"  f:\n"
		"    type: t_fwd\n"
		"    size: 2Ki\n"
		"    mode: bb\n"
		"    mac: aa:bb:cc:dd:ee:0f\n"
		"    idle_timeout: 250ms\n"
		"    flag: yes\n"
		"  g: { type: t_fwd, size: 1k }\n"
		"  s: { type: t_sink }\n"
		"links:\n"
		"  - d.output -> f.input\n"
		"  - f.output -> g.input\n"
		"  - g.output -> s.input\n");
	if (cfg == NULL)
		return;
	check_str("string param", pv(cfg, "d", "device")->s, "net_pcap0,rx_pcap=in.pcap");
	check(pv(cfg, "d", "device")->set, "string param set", "not set");
	check_uint("uint 2Ki", pv(cfg, "f", "size")->u, 2048);
	check(pv(cfg, "f", "size")->set, "uint set", "not set");
	check_uint("enum index", pv(cfg, "f", "mode")->u, 1);
	check_str("enum name", pv(cfg, "f", "mode")->s, "bb");
	const uint8_t *mac = pv(cfg, "f", "mac")->mac;
	check(mac[0] == 0xaa && mac[5] == 0x0f, "mac value", "got %02x..%02x", mac[0], mac[5]);
	check_uint("duration 250ms in ns", pv(cfg, "f", "idle_timeout")->u, 250000000ULL);
	check_uint("bool yes", pv(cfg, "f", "flag")->u, 1);
	check_uint("uint 1k", pv(cfg, "g", "size")->u, 1000);
	check(pv(cfg, "g", "size")->set, "given uint is set", "not set");
	check_uint("default enum index", pv(cfg, "g", "mode")->u, 0);
	check_str("default enum name", pv(cfg, "g", "mode")->s, "a");
	check(!pv(cfg, "g", "mode")->set, "default enum is not set", "set");
	mac = pv(cfg, "g", "mac")->mac;
	check(mac[0] == 0x02 && mac[5] == 0x01, "default mac", "got %02x..%02x", mac[0], mac[5]);
	check(!pv(cfg, "g", "mac")->set, "default mac is not set", "set");
	check_uint("default duration 30s", pv(cfg, "g", "idle_timeout")->u, 30000000000ULL);
	check_uint("default bool", pv(cfg, "g", "flag")->u, 0);
	check(!pv(cfg, "g", "flag")->set, "default bool is not set", "set");
	check_uint("d mark line", cfg->apps[0].mark.line, 2);
	sl_config_free(cfg);
}

static void test_numbered_ports_and_diamond(void)
{
	struct sl_config *cfg = parse_ok("diamond with numbered ports parses",
		"apps:\n"
		"  gen: { type: t_gen }\n"
		"  sp: { type: t_split }\n"
		"  a: { type: t_fwd }\n"
		"  b: { type: t_fwd }\n"
		"  jn: { type: t_join }\n"
		"  out: { type: t_sink }\n"
		"links:\n"
		"  - gen.output -> sp.input\n"
		"  - sp.output1 -> b.input\n"
		"  - sp.output0->a.input\n"
		"  - \"a.output\t->   jn.input0\"\n"
		"  - b.output  ->  jn.input1\n"
		"  - jn.output -> out.input\n");
	if (cfg == NULL)
		return;
	check_uint("six links", cfg->n_links, 6);
	const struct sl_link_cfg *l = &cfg->links[1];
	check_str("family port name", l->from.port, "output1");
	check_uint("family port number", l->from.number, 1);
	check_uint("family spec index", l->from.spec, 0);
	check_uint("link 1 to app b", l->to.app, 3);
	l = &cfg->links[2];
	check_uint("link without blanks: from app", l->from.app, 1);
	check_uint("link without blanks: number", l->from.number, 0);
	l = &cfg->links[3];
	check_str("tab-separated link: to port", l->to.port, "input0");
	check_uint("tab-separated link: to app", l->to.app, 4);
	check_uint("fixed port number is 0", cfg->links[5].to.number, 0);
	bool ok = true;
	for (unsigned i = 0; i < 6; i++)
		ok = ok && cfg->order[i] == i;
	check(ok, "diamond order follows declaration", "order %u %u %u %u %u %u",
	      cfg->order[0], cfg->order[1], cfg->order[2], cfg->order[3], cfg->order[4],
	      cfg->order[5]);
	sl_config_free(cfg);
}

/* Worker groups: members, replicas, links within a group, and the join and
 * split inserted towards single workers. */
static void test_groups(void)
{
	struct sl_config *cfg = parse_ok("a replicated chain parses",
		"workers:\n"
		"  rx: auto\n"
		"  fwd: { count: 2 }\n"
		"  tx: auto\n"
		"apps:\n"
		"  gen: { type: t_gen, worker: rx }\n"
		"  f: { type: t_fwd, worker: fwd, size: 128 }\n"
		"  g: { type: t_fwd, worker: fwd }\n"
		"  out: { type: t_sink, worker: tx }\n"
		"links:\n"
		"  - gen.output -> f.input\n"
		"  - f.output -> g.input\n"
		"  - { link: g.output -> out.input, size: 256 }\n");
	if (cfg == NULL)
		return;
	check_uint("four workers (two members)", cfg->n_workers, 4);
	check_str("member 0's name", cfg->workers[1].name, "fwd@0");
	check_str("member 1's name", cfg->workers[2].name, "fwd@1");
	check_str("member's group", cfg->workers[2].group, "fwd");
	check_uint("member number", cfg->workers[2].member, 1);
	check_uint("group size", cfg->workers[2].n_members, 2);
	check(cfg->workers[0].group == NULL, "a single worker has no group", "group %s",
	      cfg->workers[0].group);
	/* gen, f@0, f@1, g@0, g@1, out, then gen@output (split), out@input (join) */
	check_uint("eight apps", cfg->n_apps, 8);
	if (cfg->n_apps == 8) {
		check_str("replica name", cfg->apps[2].name, "f@1");
		check_str("replica base", cfg->apps[2].base, "f");
		check_uint("replica number", cfg->apps[2].replica, 1);
		check_uint("replica count", cfg->apps[2].n_replicas, 2);
		check_uint("replica 1 on member 1", cfg->apps[2].worker, 2);
		check_uint("replica keeps its parameters", cfg->apps[2].params[0].u, 128);
		check_str("split inserted", cfg->apps[6].name, "gen@output");
		check_str("split's type", cfg->apps[6].type->name, "split");
		check_uint("split on the source's worker", cfg->apps[6].worker, 0);
		check_str("join inserted", cfg->apps[7].name, "out@input");
		check_str("join's type", cfg->apps[7].type->name, "join");
		check_uint("join on the sink's worker", cfg->apps[7].worker, 3);
		check(cfg->apps[7].implicit && !cfg->apps[2].implicit, "implicit marks", "wrong");
	}
	/* gen->split, split->f@0, split->f@1, f@k->g@k (2), g@k->join (2), join->out */
	check_uint("eight links", cfg->n_links, 8);
	if (cfg->n_links == 8) {
		const struct sl_link_cfg *l = &cfg->links[2];
		check_str("split output 1", l->from.port, "output1");
		check_uint("split output 1's number", l->from.number, 1);
		check_uint("to replica 1", l->to.app, 2);
		l = &cfg->links[4];
		check_uint("f@1 -> g@1 from", l->from.app, 2);
		check_uint("f@1 -> g@1 to", l->to.app, 4);
		l = &cfg->links[6];
		check_str("join input 1", l->to.port, "input1");
		check_uint("join link keeps its size", l->size, 256);
		check_uint("join -> out", cfg->links[7].to.app, 5);
	}
	sl_config_free(cfg);

	cfg = parse_ok("a group of one needs no join",
		"workers:\n  one: { cores: [0] }\n  s: auto\n"
		"apps:\n  g: { type: t_gen, worker: one }\n  o: { type: t_sink, worker: s }\n"
		"links: [g.output -> o.input]\n");
	if (cfg != NULL) {
		check_uint("two apps", cfg->n_apps, 2);
		check_str("still a replica", cfg->apps[0].name, "g@0");
		check_uint("one link", cfg->n_links, 1);
		sl_config_free(cfg);
	}
}

static void test_order_out_of_declaration(void)
{
	struct sl_config *cfg = parse_ok("apps declared downstream first parse",
		"links:\n"
		"  - jn.output -> out.input\n"
		"  - gen.output -> sp.input\n"
		"  - sp.output0 -> a.input\n"
		"  - sp.output1 -> b.input\n"
		"  - a.output -> jn.input1\n"
		"  - b.output -> jn.input0\n"
		"apps:\n"
		"  out: { type: t_sink }\n"
		"  jn: { type: t_join }\n"
		"  b: { type: t_fwd }\n"
		"  a: { type: t_fwd }\n"
		"  sp: { type: t_split }\n"
		"  gen: { type: t_gen }\n");
	if (cfg == NULL)
		return;
	static const unsigned want[] = { 5, 4, 2, 3, 1, 0 };  /* gen sp b a jn out */
	bool ok = true;
	for (unsigned i = 0; i < 6; i++)
		ok = ok && cfg->order[i] == want[i];
	check(ok, "push order: upstream first, ties by declaration",
	      "order %u %u %u %u %u %u", cfg->order[0], cfg->order[1], cfg->order[2],
	      cfg->order[3], cfg->order[4], cfg->order[5]);
	sl_config_free(cfg);
}

static void test_optional_sections(void)
{
	struct sl_config *cfg = parse_ok("lone app with null sections parses",
		"# a device that needs no links\n"
		"dpdk:\n"
		"pool:\n"
		"engine: {}\n"
		"apps:\n"
		"  nic: { type: t_dev, device: net_null0 }\n"
		"links:\n");
	if (cfg == NULL)
		return;
	check_uint("no links", cfg->n_links, 0);
	check_uint("null pool keeps defaults", cfg->pool.mbufs, 16383);
	check_uint("order of one app", cfg->order[0], 0);
	sl_config_free(cfg);
}

static void test_load_file(void)
{
	char path[] = "/tmp/sluice_test_config_XXXXXX";
	int fd = mkstemp(path);
	static const char text[] =
		"apps:\n"
		"  g: { type: t_gen }\n"
		"  s: { type: t_sink, sizee: 1 }\n"
		"links: [g.output -> s.input]\n";
	struct sl_err err;

	if (!check(fd >= 0, "temporary file", "mkstemp: %s", strerror(errno)))
		return;
	if (write(fd, text, sizeof(text) - 1) != (ssize_t)(sizeof(text) - 1))
		check(false, "write temporary file", "%s", strerror(errno));
	close(fd);

	errno = 0;
	struct sl_config *cfg = sl_config_load(path, &err);
	char want[256];
	snprintf(want, sizeof(want), "%s:3:22: app 's': unknown parameter 'sizee'", path);
	check(cfg == NULL && errno == EINVAL && strncmp(err.msg, want, strlen(want)) == 0,
	      "load reports the file's path, errno EINVAL", "errno %d, got '%s'", errno, err.msg);
	sl_config_free(cfg);

	fd = open(path, O_WRONLY | O_TRUNC);
	static const char good[] = "apps: { s: { type: t_dev, device: x } }\n";
	if (fd < 0 || write(fd, good, sizeof(good) - 1) != (ssize_t)(sizeof(good) - 1))
		check(false, "rewrite temporary file", "%s", strerror(errno));
	if (fd >= 0)
		close(fd);
	cfg = sl_config_load(path, &err);
	check(cfg != NULL, "load a valid file", "%s", err.msg);
	if (cfg != NULL)
		check_str("loaded path", cfg->path, path);
	sl_config_free(cfg);
	unlink(path);

	errno = 0;
	cfg = sl_config_load("/nonexistent/sluice.yaml", &err);
	check(cfg == NULL && errno == ENOENT &&
	      strcmp(err.msg, "/nonexistent/sluice.yaml: cannot read: "
			      "No such file or directory") == 0,
	      "missing file, errno ENOENT", "errno %d, got '%s'", errno, err.msg);
	errno = 0;
	cfg = sl_config_load("/tmp", &err);
	check(cfg == NULL && errno == EISDIR &&
	      strcmp(err.msg, "/tmp: cannot read: Is a directory") == 0,
	      "directory, errno EISDIR", "errno %d, got '%s'", errno, err.msg);
}

/* sl_config_order on a config built by hand, and called twice. */
static void test_order_api(void)
{
	struct sl_config *cfg = parse_ok("config for order api",
		"apps:\n"
		"  s: { type: t_sink }\n"
		"  g: { type: t_gen }\n"
		"links: [g.output -> s.input]\n");
	if (cfg == NULL)
		return;
	struct sl_err err;
	int rc = sl_config_order(cfg, &err);
	check(rc == 0 && cfg->order[0] == 1 && cfg->order[1] == 0, "order recomputed",
	      "rc %d", rc);
	sl_config_free(cfg);
}

/* ---- list parameters ---------------------------------------------------- */

static void test_table(void)
{
	struct sl_config *cfg = parse_ok("list parameter parses",
		"apps:\n"
		"  r1:\n"
		"    type: t_router\n"
		"    routes:\n"
		"      - { prefix: 198.18.1.0/24, output: 0, dst_mac: \"02:00:00:00:01:01\" }\n"
		"      - prefix: 0.0.0.0/0\n"
		"        via: 198.18.0.254\n"
		"        output: 1\n"
		"  r2: { type: t_router, routes: [ { prefix: a } ], extra: [] }\n");
	if (cfg == NULL)
		return;
	const struct sl_param_value *v = pv(cfg, "r1", "routes");
	check(v->set, "list is set", "not set");
	check_uint("two rows", v->n_rows, 2);
	check_uint("row width", v->n_fields, SL_ARRAY_LEN(route_fields));
	if (v->n_rows == 2) {
		const struct sl_param_row *r = v->rows;
		check_str("row 0 where", r[0].where, "t.yaml:5:9");
		check_str("row 0 prefix", r[0].v[0].s, "198.18.1.0/24");
		check(r[0].v[0].set, "row 0 prefix set", "not set");
		check_str("row 0 via default", r[0].v[1].s, "none");
		check(!r[0].v[1].set, "row 0 via default not set", "set");
		check_uint("row 0 output", r[0].v[2].u, 0);
		check(r[0].v[2].set, "row 0 output 0 set", "not set");
		check(r[0].v[3].mac[4] == 0x01 && r[0].v[3].mac[5] == 0x01 && r[0].v[3].set,
		      "row 0 dst_mac", "got ..%02x:%02x", r[0].v[3].mac[4], r[0].v[3].mac[5]);
		check_str("row 1 where", r[1].where, "t.yaml:6:9");
		check_str("row 1 prefix", r[1].v[0].s, "0.0.0.0/0");
		check_str("row 1 via", r[1].v[1].s, "198.18.0.254");
		check(r[1].v[1].set, "row 1 via set", "not set");
		check_uint("row 1 output", r[1].v[2].u, 1);
		check(r[1].v[3].mac[0] == 0x02 && r[1].v[3].mac[5] == 0xff && !r[1].v[3].set,
		      "row 1 dst_mac default", "got %02x..%02x", r[1].v[3].mac[0],
		      r[1].v[3].mac[5]);
	}
	v = pv(cfg, "r1", "extra");
	check(!v->set && v->n_rows == 0 && v->rows == NULL, "absent list takes its default []",
	      "set %d, %u rows", v->set, v->n_rows);
	check_uint("absent list's row width", v->n_fields, SL_ARRAY_LEN(extra_fields));
	check_uint("scalar beside a list", pv(cfg, "r1", "size")->u, 64);
	v = pv(cfg, "r2", "extra");
	check(v->set && v->n_rows == 0 && v->rows == NULL, "empty list given", "set %d, %u rows",
	      v->set, v->n_rows);
	v = pv(cfg, "r2", "routes");
	check(v->n_rows == 1 && strcmp(v->rows[0].where, "t.yaml:9:35") == 0 &&
	      strcmp(v->rows[0].v[0].s, "a") == 0, "flow list of one row",
	      "%u rows, where %s", v->n_rows, v->n_rows ? v->rows[0].where : "-");

	/* The accessor apps use, on an app built from the config. */
	struct sl_app app = { .type = &t_router, .params = cfg->apps[0].params };
	unsigned n = 99;
	const struct sl_param_row *rows = sl_app_param_table(&app, "routes", &n);
	check(n == 2 && rows == cfg->apps[0].params[0].rows, "sl_app_param_table", "%u rows", n);
	rows = sl_app_param_table(&app, "extra", &n);
	check(n == 0 && rows == NULL, "sl_app_param_table, no rows", "%u rows", n);
	sl_config_free(cfg);
}

/* The parser of texts knows only the empty list. */
static void test_table_param_api(void)
{
	struct sl_param_value v = { 0 };
	struct sl_err err = { "" };
	char range[64];

	int rc = sl_param_parse(&router_params[1], "[]", &v, &err);
	check(rc == 0 && v.n_rows == 0 && v.rows == NULL && v.set && v.n_fields == 2,
	      "parse [] for a list", "rc %d: %s", rc, err.msg);
	sl_param_value_free(&v);
	rc = sl_param_parse(&router_params[1], "a, b", &v, &err);
	check(rc == -EINVAL && strcmp(err.msg, "parameter 'extra' must be a list of mappings") == 0,
	      "parse text for a list", "rc %d: %s", rc, err.msg);
	rc = sl_param_parse(&router_params[0], "[]", &v, &err);
	check(rc == -EINVAL &&
	      strcmp(err.msg, "parameter 'routes' must have at least 1 row, got 0") == 0,
	      "parse [] for a list of at least one row", "rc %d: %s", rc, err.msg);
	check_str("list type name", sl_param_type_name(SL_PARAM_TABLE), "list");
	check_str("range, minimum", sl_param_range_str(&router_params[0], range, sizeof(range)),
		  ">= 1 row");
	check_str("range, maximum", sl_param_range_str(&router_params[1], range, sizeof(range)),
		  "0..2 rows");
	const struct sl_param_spec three = { .name = "t", .type = SL_PARAM_TABLE, .min = 1,
					     .max = 3 };
	rc = sl_param_rows_check(&three, 4, &err);
	check(rc == -EINVAL && strcmp(err.msg, "parameter 't' must have 1..3 rows, got 4") == 0,
	      "row range message", "rc %d: %s", rc, err.msg);
	check(sl_param_rows_check(&three, 3, &err) == 0, "rows within range", "rejected");
}

/* Bad list schemas are found by sl_app_registry_check.  One registry node is
 * appended and its type swapped for each case; it ends on a good type. */
static const struct sl_param_spec fields_ab[] = {
	{ .name = "a", .type = SL_PARAM_UINT, .def = "1", .doc = "a" },
	{ .name = "b", .type = SL_PARAM_UINT, .def = NULL, .doc = "b" },
};
static const struct sl_param_spec fields_dup[] = {
	{ .name = "a", .type = SL_PARAM_UINT, .def = "1", .doc = "a" },
	{ .name = "a", .type = SL_PARAM_BOOL, .def = "no", .doc = "a again" },
};
static const struct sl_param_spec fields_nested[] = {
	{ .name = "a", .type = SL_PARAM_UINT, .def = "1", .doc = "a" },
	{ .name = "inner", .type = SL_PARAM_TABLE, .def = "[]", .doc = "a list in a list",
	  .fields = fields_ab, .n_fields = SL_ARRAY_LEN(fields_ab) },
};
static const struct sl_param_spec fields_bad_default[] = {
	{ .name = "n", .type = SL_PARAM_UINT, .def = "many", .doc = "n" },
};

#define LIST(def_, min_, max_, f) { { .name = "rows", .type = SL_PARAM_TABLE, .def = def_, \
	.min = min_, .max = max_, .doc = "rows", .fields = f, .n_fields = SL_ARRAY_LEN(f) } }
static const struct sl_param_spec bad_dup[] = LIST(NULL, 0, 0, fields_dup);
static const struct sl_param_spec bad_nested[] = LIST(NULL, 0, 0, fields_nested);
static const struct sl_param_spec bad_field_default[] = LIST(NULL, 0, 0, fields_bad_default);
static const struct sl_param_spec bad_default_text[] = LIST("none", 0, 0, fields_ab);
static const struct sl_param_spec bad_default_min[] = LIST("[]", 1, 0, fields_ab);
static const struct sl_param_spec bad_range[] = LIST(NULL, 3, 2, fields_ab);
static const struct sl_param_spec good_list[] = LIST("[]", 0, 8, fields_ab);
#undef LIST
static const struct sl_param_spec bad_no_fields[] = {
	{ .name = "rows", .type = SL_PARAM_TABLE, .def = "[]", .doc = "rows" },
};
static const struct sl_param_spec bad_fields_on_scalar[] = {
	{ .name = "n", .type = SL_PARAM_UINT, .def = "1", .doc = "n",
	  .fields = fields_ab, .n_fields = SL_ARRAY_LEN(fields_ab) },
};

static void test_table_registry_check(void)
{
	static const struct {
		const struct sl_param_spec *params;
		const char *want;
	} cases[] = {
		{ bad_dup, "app type 't_list': parameter 'rows': field 'a' declared twice" },
		{ bad_nested,
		  "app type 't_list': parameter 'rows': field 'inner' is a list, and lists do not nest" },
		{ bad_field_default,
		  "app type 't_list': parameter 'rows': bad default: parameter 'n' must be an unsigned integer, got 'many'" },
		{ bad_default_text,
		  "app type 't_list': bad default: parameter 'rows' must be a list of mappings" },
		{ bad_default_min,
		  "app type 't_list': bad default: parameter 'rows' must have at least 1 row, got 0" },
		{ bad_range,
		  "app type 't_list': list parameter 'rows' has a maximum of rows below its minimum" },
		{ bad_no_fields, "app type 't_list': list parameter 'rows' has no fields" },
		{ bad_fields_on_scalar, "app type 't_list': parameter 'n' has fields but is not a list" },
	};
	static struct sl_app_type type = { .name = "t_list", .doc = "list schemas", .n_params = 1 };
	static struct sl_app_reg reg = { .type = &type };
	struct sl_err err = { "" };

	int rc = sl_app_registry_check(&err);
	check(rc == 0, "registry with list parameters passes", "%s", err.msg);
	sl_app_registry_append(&reg);
	for (unsigned i = 0; i < SL_ARRAY_LEN(cases); i++) {
		char what[96];
		type.params = cases[i].params;
		err.msg[0] = '\0';
		rc = sl_app_registry_check(&err);
		snprintf(what, sizeof(what), "registry check: bad list schema %u", i);
		check(rc == -EINVAL && strcmp(err.msg, cases[i].want) == 0, what,
		      "got '%s', want '%s'", err.msg, cases[i].want);
	}
	type.params = good_list;
	rc = sl_app_registry_check(&err);
	check(rc == 0, "registry check: good list schema", "%s", err.msg);
}

struct exact_case {
	const char *what;
	const char *text;
	const char *want;      /* the whole message */
};

/* Each case must fail to parse with errno EINVAL and exactly its message;
 * label prefixes the case's name in the test's output. */
static void run_exact_cases(const struct exact_case *cases, unsigned n, const char *label)
{
	for (unsigned i = 0; i < n; i++) {
		const struct exact_case *b = &cases[i];
		struct sl_err err;
		errno = 0;
		struct sl_config *cfg = parse(b->text, &err);
		int e = errno;
		char what[160];

		snprintf(what, sizeof(what), "%s: %s", label, b->what);
		if (cfg != NULL) {
			check(false, what, "parsed without error");
			sl_config_free(cfg);
			continue;
		}
		check(e == EINVAL, what, "errno %d, want EINVAL (%d)", e, EINVAL);
		check(strcmp(err.msg, b->want) == 0, what, "got '%s', want '%s'", err.msg, b->want);
	}
}

#define ROUTER "apps:\n  r1:\n    type: t_router\n"

static const struct exact_case table_cases[] = {
	{ "list given a scalar", ROUTER "    routes: 198.18.1.0/24\n",
	  "t.yaml:4:13: app 'r1': parameter 'routes' must be a list of mappings, got a scalar" },
	{ "list given a mapping", ROUTER "    routes: { prefix: a }\n",
	  "t.yaml:4:13: app 'r1': parameter 'routes' must be a list of mappings, got a mapping" },
	{ "list given nothing", ROUTER "    routes:\n    size: 1\n",
	  "t.yaml:4:12: app 'r1': parameter 'routes' must be a list of mappings, got nothing" },
	{ "row is a scalar", ROUTER "    routes: [ { prefix: a }, b ]\n",
	  "t.yaml:4:30: app 'r1': routes[1] must be a mapping of fields, got a scalar" },
	{ "row is a sequence", ROUTER "    routes:\n      - [ prefix, a ]\n",
	  "t.yaml:5:9: app 'r1': routes[0] must be a mapping of fields, got a sequence" },
	{ "unknown field with a guess", ROUTER
	  "    routes:\n      - { prefix: a }\n      - { prefix: b }\n      - { prefx: c }\n",
	  "t.yaml:7:11: app 'r1': routes[2]: unknown field 'prefx' (did you mean 'prefix'?)" },
	{ "unknown field, no guess", ROUTER "    routes:\n      - { prefix: a, zzzzzzzz: 1 }\n",
	  "t.yaml:5:22: app 'r1': routes[0]: unknown field 'zzzzzzzz' (known: prefix, via, output, dst_mac)" },
	{ "field not a number", ROUTER "    routes:\n      - { prefix: a, output: x }\n",
	  "t.yaml:5:30: app 'r1': routes[0]: field 'output' must be an unsigned integer, got 'x'" },
	{ "field out of range", ROUTER
	  "    routes:\n      - prefix: a\n      - prefix: b\n        output: 16\n",
	  "t.yaml:7:17: app 'r1': routes[1]: field 'output' must be in 0..15, got 16" },
	{ "field bad mac", ROUTER "    routes: [ { prefix: a, dst_mac: 02:00 } ]\n",
	  "t.yaml:4:37: app 'r1': routes[0]: field 'dst_mac' must be a MAC address like 02:00:00:00:00:01, got '02:00'" },
	{ "field is a sequence", ROUTER "    routes:\n      - { prefix: a, output: [1] }\n",
	  "t.yaml:5:30: app 'r1': routes[0]: field 'output' must be a single value, got a sequence" },
	{ "field name not a word", ROUTER "    routes:\n      - { [prefix]: a }\n",
	  "t.yaml:5:11: app 'r1': routes[0]: field names must be single words, got a sequence" },
	{ "missing required field, flow row", ROUTER "    routes:\n      - { output: 1 }\n",
	  "t.yaml:5:9: app 'r1': routes[0]: missing required field 'prefix'" },
	{ "missing required field, block row", ROUTER
	  "    routes:\n      - prefix: a\n      - via: b\n        output: 2\n",
	  "t.yaml:6:9: app 'r1': routes[1]: missing required field 'prefix'" },
	{ "empty row", ROUTER "    routes: [ {} ]\n",
	  "t.yaml:4:15: app 'r1': routes[0]: missing required field 'prefix'" },
	{ "duplicate field", ROUTER "    routes:\n      - { prefix: a, prefix: b }\n",
	  "t.yaml:5:22: app 'r1': routes[0]: duplicate field 'prefix' (first at line 5)" },
	{ "too few rows", ROUTER "    routes: []\n",
	  "t.yaml:4:13: app 'r1': parameter 'routes' must have at least 1 row, got 0" },
	{ "too many rows", ROUTER
	  "    routes: [ { prefix: a } ]\n    extra: [ { name: a }, { name: b }, { name: c } ]\n",
	  "t.yaml:5:12: app 'r1': parameter 'extra' must have at most 2 rows, got 3" },
	{ "error in a second list after a good one", ROUTER
	  "    routes: [ { prefix: a } ]\n    extra:\n      - name: a\n        on: maybe\n",
	  "t.yaml:7:13: app 'r1': extra[0]: field 'on' must be true or false, got 'maybe'" },
	{ "missing required list", "apps:\n  r1: { type: t_router }\n",
	  "t.yaml:2:3: app 'r1': missing required parameter 'routes'" },
	{ "unknown list name", ROUTER "    route: [ { prefix: a } ]\n",
	  "t.yaml:4:5: app 'r1': unknown parameter 'route' (did you mean 'routes'?)" },
	{ "scalar parameter given a sequence", "apps:\n  f: { type: t_fwd, size: [64] }\n",
	  "t.yaml:2:27: app 'f': parameter 'size' must be a single value, got a sequence" },
};

static void test_table_errors(void)
{
	run_exact_cases(table_cases, SL_ARRAY_LEN(table_cases), "invalid list");
}

/* ---- invalid configurations --------------------------------------------- */

struct bad_case {
	const char *what;
	const char *text;
	const char *want;      /* substring of the message */
	const char *unwanted;  /* substring that must not appear, or NULL */
};

#define TWO_APPS "apps:\n  g: { type: t_gen }\n  s: { type: t_sink }\n"
#define TWO_LINKED TWO_APPS "links: [g.output -> s.input]\n"

static const struct bad_case bad_cases[] = {
	{ "engine.epoch unknown", "engine: { epoch: rcu }\n" TWO_LINKED,
	  "t.yaml:1:18: engine.epoch must be one of immediate|batch|qsbr, got 'rcu'", NULL },
	{ "engine.stop_timeout not a duration", "engine: { stop_timeout: soon }\n" TWO_LINKED,
	  "t.yaml:1:25: engine.stop_timeout must be a duration like 30s or 250ms, got 'soon'", NULL },
	{ "engine.reclaim_cap zero", "engine: { reclaim_cap: 0 }\n" TWO_LINKED,
	  "t.yaml:1:24: engine.reclaim_cap must be in 1..65536, got 0", NULL },
	{ "engine.epoch_ring not a power of two", "engine: { epoch_ring: 100 }\n" TWO_LINKED,
	  "t.yaml:1:23: engine.epoch_ring must be a power of two, got 100", NULL },
	{ "link size not a power of two", TWO_APPS
	  "links:\n  - { link: \"g.output -> s.input\", size: 100 }\n",
	  "t.yaml:5:42: link size must be a power of two in 2..16777216, got '100'", NULL },
	{ "link mapping without link", TWO_APPS "links:\n  - { size: 64 }\n",
	  "t.yaml:5:5: a link given as a mapping needs 'link:", NULL },
	{ "link mapping unknown key", TWO_APPS "links:\n  - { lnk: \"g.output -> s.input\" }\n",
	  "t.yaml:5:7: link: unknown key 'lnk' (did you mean 'link'?)", NULL },
	{ "syntax error", "apps:\n  g: { type: t_gen\nlinks: []\n",
	  "t.yaml:3:6: YAML syntax error: did not find expected ',' or '}'", NULL },
	{ "syntax error: bad indentation", "apps:\n  g: {type: t_gen}\n s: 1\n",
	  "t.yaml:3:2: YAML syntax error: ", NULL },
	{ "invalid UTF-8", "apps:\n  g: \xff\n", "t.yaml:2:6: YAML syntax error: ", NULL },
	{ "empty text", "", "t.yaml:1:1: empty configuration; expected a mapping with 'apps' and 'links'",
	  NULL },
	{ "only comments", "# nothing\n\n", "t.yaml:1:1: empty configuration", NULL },
	{ "two documents", TWO_LINKED "---\napps: {}\n",
	  "t.yaml:6:1: a second YAML document", NULL },
	{ "root is a sequence", "- apps\n- links\n",
	  "t.yaml:1:1: the configuration must be a mapping with 'apps' and 'links', got a sequence",
	  NULL },
	{ "unknown top-level key", TWO_LINKED "linkz: []\n",
	  "t.yaml:5:1: unknown top-level key 'linkz' (did you mean 'links'?)", NULL },
	{ "unknown top-level key, no guess", "zzzzzzzz: 1\n" TWO_LINKED,
	  "t.yaml:1:1: unknown top-level key 'zzzzzzzz' (known: dpdk, pool", "did you mean" },
	{ "duplicate top-level key", "pool: {}\n" TWO_LINKED "pool: { cache: 1 }\n",
	  "t.yaml:6:1: duplicate key 'pool' (first at line 1)", NULL },
	{ "no apps section", "links: []\n",
	  "t.yaml:1:1: no 'apps' section: at least one app is required", NULL },
	{ "empty apps", "apps: {}\n", "t.yaml:1:7: 'apps' is empty: at least one app is required",
	  NULL },
	{ "apps is a sequence", "apps: [g, s]\n",
	  "t.yaml:1:7: 'apps' must be a mapping of app names to their settings, got a sequence",
	  NULL },
	{ "links is a mapping", TWO_APPS "links: { g.output: s.input }\n",
	  "t.yaml:4:8: 'links' must be a sequence of \"app.port -> app.port\" strings, got a mapping",
	  NULL },
	{ "link is a sequence", TWO_APPS "links:\n  - [g.output, s.input]\n",
	  "t.yaml:5:5: each link must be a string", NULL },
	{ "link mapping of the wrong shape", TWO_APPS "links:\n  - { g.output: s.input }\n",
	  "t.yaml:5:7: link: unknown key 'g.output' (known: link, size)", NULL },
	{ "dpdk is a sequence", "dpdk: [--no-huge]\n" TWO_LINKED,
	  "t.yaml:1:7: 'dpdk' must be a mapping with 'args', got a sequence", NULL },
	{ "dpdk unknown key", "dpdk: { arg: [--no-huge] }\n" TWO_LINKED,
	  "t.yaml:1:9: dpdk: unknown key 'arg' (did you mean 'args'?)", NULL },
	{ "dpdk.args is a string", "dpdk: { args: --no-huge }\n" TWO_LINKED,
	  "t.yaml:1:15: dpdk.args must be a sequence of strings", NULL },
	{ "dpdk.args with -l", "dpdk: {args: [--no-huge, -l, 0-3]}\n" TWO_LINKED,
	  "t.yaml:1:26: dpdk.args: '-l' is not allowed: Sluice assigns lcores from the workers section",
	  NULL },
	{ "dpdk.args with -c", "dpdk:\n  args:\n    - -c0x3\n" TWO_LINKED,
	  "t.yaml:3:7: dpdk.args: '-c0x3' is not allowed", NULL },
	{ "dpdk.args with --lcores", "dpdk: {args: [--lcores=0-1]}\n" TWO_LINKED,
	  "dpdk.args: '--lcores=0-1' is not allowed", NULL },
	{ "dpdk.args with --main-lcore", "dpdk: {args: [--main-lcore, \"1\"]}\n" TWO_LINKED,
	  "dpdk.args: '--main-lcore' is not allowed", NULL },
	{ "pool.mbufs too small", "pool: { mbufs: 5 }\n" TWO_LINKED,
	  "t.yaml:1:16: pool.mbufs must be in 1023..16777215, got 5", NULL },
	{ "pool.cache with ops sluice", "pool:\n  cache: 128\n" TWO_LINKED,
	  "t.yaml:2:10: pool.cache applies to ops: dpdk only", NULL },
	{ "pool.chunk with ops dpdk", "pool: { ops: dpdk, chunk: 256 }\n" TWO_LINKED,
	  "t.yaml:1:27: pool.chunk applies to ops: sluice only", NULL },
	{ "pool.chunk too small", "pool: { chunk: 32 }\n" TWO_LINKED,
	  "t.yaml:1:16: pool.chunk must be in 64..2048, got 32", NULL },
	{ "pool.high below chunk", "pool: { chunk: 256, high: 100 }\n" TWO_LINKED,
	  "t.yaml:1:27: pool.high must be at least pool.chunk (256), got 100", NULL },
	{ "pool.ops unknown", "pool: { ops: stack }\n" TWO_LINKED,
	  "t.yaml:1:14: pool.ops must be one of sluice|dpdk, got 'stack'", NULL },
	{ "pool.order unknown", "pool: { order: sorted }\n" TWO_LINKED,
	  "t.yaml:1:16: pool.order must be one of address|shuffled, got 'sorted'", NULL },
	{ "pool.order with ops dpdk", "pool: { ops: dpdk, order: shuffled }\n" TWO_LINKED,
	  "t.yaml:1:27: pool.order applies to ops: sluice only", NULL },
	{ "pool.l3_chunks not a power of two", "pool: { l3_tier: true, l3_chunks: 6 }\n" TWO_LINKED,
	  "pool.l3_chunks must be a power of two of at least 2, got 6", NULL },
	{ "pool.cache not a number", "pool:\n  ops: dpdk\n  cache: lots\n" TWO_LINKED,
	  "t.yaml:3:10: pool.cache must be an unsigned integer, got 'lots'", NULL },
	{ "pool.data_room is a sequence", "pool: { data_room: [1] }\n" TWO_LINKED,
	  "t.yaml:1:20: pool.data_room must be a number, got a sequence", NULL },
	{ "pool unknown key", "pool: { mbuf: 4096 }\n" TWO_LINKED,
	  "t.yaml:1:9: pool: unknown key 'mbuf' (did you mean 'mbufs'?)", NULL },
	{ "pool is a scalar", "pool: 4096\n" TWO_LINKED,
	  "t.yaml:1:7: 'pool' must be a mapping", NULL },
	{ "engine.link_size not a power of two", "engine: { link_size: 1000 }\n" TWO_LINKED,
	  "t.yaml:1:22: engine.link_size must be a power of two, got 1000", NULL },
	{ "engine.link_size too big", "engine: { link_size: 128Ki }\n" TWO_LINKED,
	  "engine.link_size must be in 64..65536, got 131072", NULL },
	{ "engine.link_impl unknown", "engine: { link_impl: rte_ring }\n" TWO_LINKED,
	  "t.yaml:1:22: engine.link_impl must be one of interlink|ring, got 'rte_ring'", NULL },
	{ "engine.burst zero", "engine: { burst: 0 }\n" TWO_LINKED,
	  "t.yaml:1:18: engine.burst must be in 1..256, got 0", NULL },
	{ "engine unknown key", "engine: { brust: 8 }\n" TWO_LINKED,
	  "engine: unknown key 'brust' (did you mean 'burst'?)", NULL },
	{ "worker core beyond the CPU set", "workers:\n  rx: { core: 5000 }\n"
	  "apps:\n  g: { type: t_gen }\n  s: { type: t_sink }\nlinks: [g.output -> s.input]\n",
	  "t.yaml:2:15: worker 'rx': core must be below 1024, got 5000",
	  NULL },
	{ "worker core not a number", "workers:\n  rx: { core: first }\n"
	  "apps:\n  g: { type: t_gen }\n  s: { type: t_sink }\nlinks: [g.output -> s.input]\n",
	  "t.yaml:2:15: worker 'rx': core must be a CPU number or 'auto', got 'first'", NULL },
	{ "worker unknown key", "workers:\n  rx: { coer: auto }\n"
	  "apps:\n  g: { type: t_gen }\n  s: { type: t_sink }\nlinks: [g.output -> s.input]\n",
	  "t.yaml:2:9: worker 'rx': unknown key 'coer' (did you mean 'core'?)", NULL },
	{ "worker is a sequence", "workers:\n  rx: [1]\n"
	  "apps:\n  g: { type: t_gen }\n  s: { type: t_sink }\nlinks: [g.output -> s.input]\n",
	  "t.yaml:2:7: worker 'rx' must be a core number, 'auto', { core: N | auto }, { cores: [N, ...] } or { count: N }, got a sequence",
	  NULL },
	{ "group cores not a list", "workers:\n  rx: { cores: auto }\n"
	  "apps:\n  g: { type: t_gen }\n  s: { type: t_sink }\nlinks: [g.output -> s.input]\n",
	  "t.yaml:2:16: worker 'rx': cores must be a list of CPU numbers like [2, 3], got a single value", NULL },
	{ "group with no cores", "workers:\n  fwd: { cores: [] }\n"
	  "apps:\n  g: { type: t_gen }\n  s: { type: t_sink }\nlinks: [g.output -> s.input]\n",
	  "t.yaml:2:17: worker 'fwd': cores is empty; a group needs at least one core", NULL },
	{ "group count 0", "workers:\n  fwd: { count: 0 }\n"
	  "apps:\n  g: { type: t_gen }\n  s: { type: t_sink }\nlinks: [g.output -> s.input]\n",
	  "t.yaml:2:17: worker 'fwd': count must be a number of members from 1 to 256, got '0'", NULL },
	{ "group cores and count", "workers:\n  fwd: { cores: [0], count: 2 }\n"
	  "apps:\n  g: { type: t_gen }\n  s: { type: t_sink }\nlinks: [g.output -> s.input]\n",
	  "t.yaml:2:29: worker 'fwd': give either cores (a list of CPUs) or count, not both", NULL },
	{ "group and core", "workers:\n  fwd: { core: 1, count: 2 }\n"
	  "apps:\n  g: { type: t_gen }\n  s: { type: t_sink }\nlinks: [g.output -> s.input]\n",
	  "t.yaml:2:16: worker 'fwd': core names one CPU for one worker; a group gives cores or count instead", NULL },
	{ "group core not a number", "workers:\n  fwd: { cores: [0, x] }\n"
	  "apps:\n  g: { type: t_gen }\n  s: { type: t_sink }\nlinks: [g.output -> s.input]\n",
	  "t.yaml:2:21: worker 'fwd': each of cores must be a CPU number, got 'x'", NULL },
	{ "group core taken twice", "workers:\n  fwd: { cores: [1, 1] }\n"
	  "apps:\n  g: { type: t_gen }\n  s: { type: t_sink }\nlinks: [g.output -> s.input]\n",
	  "t.yaml:2:21: worker 'fwd': core 1 is already used by worker 'fwd@0'", NULL },
	{ "group without apps", "workers:\n  a: auto\n  fwd: { count: 2 }\n"
	  "apps:\n  g: { type: t_gen, worker: a }\n  s: { type: t_sink, worker: a }\nlinks: [g.output -> s.input]\n",
	  "t.yaml:3:3: worker 'fwd' has no apps", NULL },
	{ "links between groups of different sizes",
	  "workers:\n  x: { count: 2 }\n  y: { count: 3 }\n"
	  "apps:\n  g: { type: t_gen, worker: x }\n  s: { type: t_sink, worker: y }\nlinks: [g.output -> s.input]\n",
	  "t.yaml:7:9: link 'g.output -> s.input' joins group 'x' (2 members) to group 'y' (3 members); "
	  "links between groups join member k to member k, so the groups must be the same size", NULL },
	{ "a group too large for a join",
	  "workers:\n  x: { count: 17 }\n  y: auto\n"
	  "apps:\n  g: { type: t_gen, worker: x }\n  s: { type: t_sink, worker: y }\nlinks: [g.output -> s.input]\n",
	  "t.yaml:7:9: link 'g.output -> s.input': app 's' runs on one worker and the other end on a group of 17; "
	  "a group linked to a single worker has at most 16 members", NULL },
	{ "one device on two apps",
	  "workers:\n  x: { count: 2 }\n  y: auto\n"
	  "apps:\n  a: { type: t_xdev, worker: x, device: \"nic0,queues=2\" }\n"
	  "  b: { type: t_xdev, worker: y, device: nic0 }\n",
	  "t.yaml:6:3: app 'b': device 'nic0' is already served by app 'a' (line 5); one t_xdev app "
	  "serves a device: to spread it over several workers, run that app on a worker group "
	  "({ cores: [...] })", NULL },
	{ "bad worker name", "workers:\n  1rx: auto\n"
	  "apps:\n  g: { type: t_gen }\n  s: { type: t_sink }\nlinks: [g.output -> s.input]\n",
	  "t.yaml:2:3: worker name '1rx' is not valid", NULL },
	{ "duplicate worker", "workers:\n  rx: auto\n  rx: auto\n"
	  "apps:\n  g: { type: t_gen }\n  s: { type: t_sink }\nlinks: [g.output -> s.input]\n",
	  "t.yaml:3:3: duplicate worker 'rx' (first at line 2)", NULL },
	{ "empty workers", "workers: {}\n" TWO_LINKED,
	  "t.yaml:1:10: 'workers' names no worker", NULL },
	{ "worker without apps", "workers:\n  rx: auto\n  idle: auto\n"
	  "apps:\n  g: { type: t_gen, worker: rx }\n  s: { type: t_sink, worker: rx }\n"
	  "links: [g.output -> s.input]\n",
	  "t.yaml:3:3: worker 'idle' has no apps", NULL },
	{ "app without worker among several", "workers:\n  rx: auto\n  fwd: auto\n"
	  "apps:\n  g: { type: t_gen, worker: rx }\n  x: { type: t_sink }\n"
	  "links: [g.output -> x.input]\n",
	  "t.yaml:6:3: app 'x': no worker given and there are 2 workers (rx, fwd)", NULL },
	{ "unknown worker", "workers:\n  rx: auto\n  fwd: auto\n"
	  "apps:\n  g: { type: t_gen, worker: rx }\n  x: { type: t_sink, worker: fwdd }\n"
	  "links: [g.output -> x.input]\n",
	  "t.yaml:6:30: app 'x': no worker named 'fwdd' (did you mean 'fwd'?)", NULL },
	{ "unknown worker, no guess", "workers:\n  rx: auto\n  fwd: auto\n"
	  "apps:\n  g: { type: t_gen, worker: rx }\n  x: { type: t_sink, worker: zzzzzz }\n"
	  "links: [g.output -> x.input]\n",
	  "app 'x': no worker named 'zzzzzz' (workers: rx, fwd)", NULL },
	{ "unknown type with a guess", "apps:\n  x: { type: t_fwdd }\n",
	  "t.yaml:2:14: app 'x': unknown type 't_fwdd' (did you mean 't_fwd'?)", NULL },
	{ "unknown type without a guess", "apps:\n  x: { type: zzzzzzzzzz }\n",
	  "app 'x': unknown type 'zzzzzzzzzz' (known types: ", NULL },
	{ "missing type", "apps:\n  x: { size: 64 }\n", "t.yaml:2:3: app 'x': missing 'type'",
	  NULL },
	{ "app is a scalar", "apps:\n  x: t_gen\n",
	  "t.yaml:2:6: app 'x' must be a mapping with 'type' and its parameters, got a single value",
	  NULL },
	{ "bad app name", "apps:\n  a.b: { type: t_gen }\n",
	  "t.yaml:2:3: app name 'a.b' is not valid", NULL },
	{ "duplicate app", "apps:\n  g: { type: t_gen }\n  s: { type: t_sink }\n"
	  "  g: { type: t_gen }\n",
	  "t.yaml:4:3: duplicate app 'g' (first at line 2)", NULL },
	{ "duplicate key in an app", "apps:\n  f:\n    type: t_fwd\n    size: 64\n    size: 128\n",
	  "t.yaml:5:5: app 'f': duplicate key 'size' (first at line 4)", NULL },
	{ "unknown parameter with a guess",
	  "apps:\n  g: { type: t_gen }\n  fc:\n    type: t_fwd\n    idle_timout: 30s\n",
	  "t.yaml:5:5: app 'fc': unknown parameter 'idle_timout' (did you mean 'idle_timeout'?)",
	  NULL },
	{ "unknown parameter, no guess", "apps:\n  fc: { type: t_fwd, zzzzzzzzz: 1 }\n",
	  "app 'fc': unknown parameter 'zzzzzzzzz' (type t_fwd takes: size, mode, mac", NULL },
	{ "misspelt 'worker'", "apps:\n  fc: { type: t_fwd, workr: main }\n",
	  "app 'fc': unknown parameter 'workr' (did you mean 'worker'?)", NULL },
	{ "parameter out of range", "apps:\n  f: { type: t_fwd, size: 10 }\n",
	  "t.yaml:2:27: app 'f': parameter 'size' must be in 64..9000, got 10", NULL },
	{ "enum parameter", "apps:\n  f: { type: t_fwd, mode: c }\n",
	  "app 'f': parameter 'mode' must be one of a|bb, got 'c'", NULL },
	{ "parameter is a mapping", "apps:\n  f: { type: t_fwd, mac: { a: 1 } }\n",
	  "t.yaml:2:26: app 'f': parameter 'mac' must be a single value, got a mapping", NULL },
	{ "missing required parameter", "apps:\n  g: { type: t_gen }\n  nic: { type: t_dev }\n",
	  "t.yaml:3:3: app 'nic': missing required parameter 'device'", NULL },
	{ "link without arrow", TWO_APPS "links: [g.output s.input]\n",
	  "t.yaml:4:9: link 'g.output s.input' must look like 'app.port -> app.port'", NULL },
	{ "link without a port", TWO_APPS "links: [g -> s.input]\n",
	  "link 'g -> s.input' must look like 'app.port -> app.port'", NULL },
	{ "link with two arrows", TWO_APPS "links: [g.output -> s.input -> x.input]\n",
	  "must look like 'app.port -> app.port'", NULL },
	{ "link to an unknown app", TWO_APPS "links:\n  - g.output -> ss.input\n",
	  "t.yaml:5:5: link 'g.output -> ss.input': no app named 'ss' (did you mean 's'?)",
	  NULL },
	{ "link to an unknown app, no guess", TWO_APPS "links:\n  - g.output -> zzzzz.input\n",
	  "link 'g.output -> zzzzz.input': no app named 'zzzzz'", "did you mean" },
	{ "unknown output port with a guess", TWO_APPS "links: [g.outpt -> s.input]\n",
	  "t.yaml:4:9: link 'g.outpt -> s.input': app 'g' (type t_gen) has no output port 'outpt' (did you mean 'output'?)",
	  NULL },
	{ "unknown output port, no guess", TWO_APPS "links: [g.out -> s.input]\n",
	  "app 'g' (type t_gen) has no output port 'out' (output ports: output)", NULL },
	{ "family port offered with its number",
	  "apps:\n  g: { type: t_gen }\n  sp: { type: t_split }\n  s: { type: t_sink }\n"
	  "links: [g.output -> sp.input, sp.outpt0 -> s.input]\n",
	  "app 'sp' (type t_split) has no output port 'outpt0' (did you mean 'output0'?)", NULL },
	{ "family port number too high",
	  "apps:\n  g: { type: t_gen }\n  sp: { type: t_split }\n  s: { type: t_sink }\n"
	  "links: [g.output -> sp.input, sp.output16 -> s.input]\n",
	  "has no output port 'output16' (numbered ports go from output0 to output15)", NULL },
	{ "input used as a link source", TWO_APPS "links: [s.input -> g.output]\n",
	  "app 's' (type t_sink) has no output port 'input' (it has no output ports)", NULL },
	{ "output used as a link destination",
	  "apps:\n  g: { type: t_gen }\n  f: { type: t_fwd }\n"
	  "links: [g.output -> f.output]\n",
	  "app 'f' (type t_fwd) has no input port 'output' (input ports: input)", NULL },
	{ "output connected twice",
	  "apps:\n  g: { type: t_gen }\n  s: { type: t_sink }\n  t: { type: t_sink }\n"
	  "links:\n  - g.output -> s.input\n  - g.output -> t.input\n",
	  "t.yaml:7:5: link 'g.output -> t.input': port 'g.output' is already connected (line 6)",
	  NULL },
	{ "input connected twice",
	  "apps:\n  g: { type: t_gen }\n  h: { type: t_gen }\n  s: { type: t_sink }\n"
	  "links:\n  - g.output -> s.input\n  - h.output -> s.input\n",
	  "t.yaml:7:5: link 'h.output -> s.input': port 's.input' is already connected (line 6)",
	  NULL },
	{ "required input left open",
	  "apps:\n  g: { type: t_dev, device: x }\n  snk: { type: t_sink }\n",
	  "t.yaml:3:3: app 'snk': input 'input' is not connected", NULL },
	{ "required output left open",
	  "apps:\n  g: { type: t_gen }\n  s: { type: t_dev, device: x }\n",
	  "t.yaml:2:3: app 'g': output 'output' is not connected", NULL },
	{ "numbered family with a gap",
	  "apps:\n  g: { type: t_gen }\n  sp: { type: t_split }\n"
	  "  a: { type: t_sink }\n  b: { type: t_sink }\n"
	  "links: [g.output -> sp.input, sp.output0 -> a.input, sp.output2 -> b.input]\n",
	  "t.yaml:3:3: app 'sp': output1 is not connected but output2 is; number ports from output0 without gaps",
	  NULL },
	{ "numbered family without output0",
	  "apps:\n  g: { type: t_gen }\n  sp: { type: t_split }\n  a: { type: t_sink }\n"
	  "links: [g.output -> sp.input, sp.output1 -> a.input]\n",
	  "app 'sp': output0 is not connected but output1 is", NULL },
	{ "required numbered family unconnected",
	  "apps:\n  g: { type: t_gen }\n  sp: { type: t_split }\n"
	  "links: [g.output -> sp.input]\n",
	  "t.yaml:3:3: app 'sp': output 'output0' is not connected", NULL },
	{ "self-loop", "apps:\n  f: { type: t_fwd }\nlinks:\n  - f.output -> f.input\n",
	  "t.yaml:4:5: links form a cycle: f -> f", NULL },
	{ "three-app cycle",
	  "apps:\n  a: { type: t_fwd }\n  b: { type: t_fwd }\n  c: { type: t_fwd }\n"
	  "links:\n  - b.output -> c.input\n  - a.output -> b.input\n  - c.output -> a.input\n",
	  "t.yaml:6:5: links form a cycle: b -> c -> a -> b", NULL },
	{ "cycle downstream of a source",
	  "apps:\n  g: { type: t_gen }\n  j: { type: t_join }\n  f: { type: t_fwd }\n"
	  "  sp: { type: t_split }\n  s: { type: t_sink }\n"
	  "links:\n  - g.output -> j.input0\n  - j.output -> f.input\n  - f.output -> sp.input\n"
	  "  - sp.output0 -> s.input\n  - sp.output1 -> j.input1\n",
	  "t.yaml:9:5: links form a cycle: j -> f -> sp -> j", NULL },
};

/* Values that parse but cannot work, and references between apps. */
#define GEN_FWD_SINK(fwd) "apps:\n  g: { type: t_gen }\n  f: { type: t_fwd, " fwd " }\n" \
	"  s: { type: t_sink }\nlinks: [g.output -> f.input, f.output -> s.input]\n"
#define CACHES(a, b) "apps:\n  g: { type: t_gen }\n  sp: { type: t_split }\n" \
	"  c1: { type: t_cache, " a " }\n  c2: { type: t_cache, " b " }\n" \
	"  s1: { type: t_sink }\n  s2: { type: t_sink }\n" \
	"  r: { type: t_router, routes: [ { prefix: x } ] }\n" \
	"links: [g.output -> sp.input, sp.output0 -> c1.input, sp.output1 -> c2.input, " \
	"c1.output -> s1.input, c2.output -> s2.input]\n"

static const struct exact_case value_cases[] = {
	{ "duration nan", GEN_FWD_SINK("idle_timeout: nan"),
	  "t.yaml:3:35: app 'f': parameter 'idle_timeout' must be a duration like 30s or 250ms, got 'nan'" },
	{ "duration inf", GEN_FWD_SINK("idle_timeout: inf"),
	  "t.yaml:3:35: app 'f': parameter 'idle_timeout' must be a duration like 30s or 250ms, got 'inf'" },
	{ "duration infinity seconds", GEN_FWD_SINK("idle_timeout: infinitys"),
	  "t.yaml:3:35: app 'f': parameter 'idle_timeout' must be a duration like 30s or 250ms, got 'infinitys'" },
	{ "duration negative", GEN_FWD_SINK("idle_timeout: -1s"),
	  "t.yaml:3:35: app 'f': parameter 'idle_timeout' must be a duration like 30s or 250ms, got '-1s'" },
	{ "duration with a plus sign", GEN_FWD_SINK("idle_timeout: \"+1s\""),
	  "t.yaml:3:35: app 'f': parameter 'idle_timeout' must be a duration like 30s or 250ms, got '+1s'" },
	{ "duration hexadecimal", GEN_FWD_SINK("idle_timeout: 0x10s"),
	  "t.yaml:3:35: app 'f': parameter 'idle_timeout' must be a duration like 30s or 250ms, got '0x10s'" },
	{ "duration under 1ns", GEN_FWD_SINK("idle_timeout: 0.4ns"),
	  "t.yaml:3:35: app 'f': parameter 'idle_timeout' must be 0 (never) or at least 1ns, got '0.4ns'" },
	{ "duration 1e-20 seconds", GEN_FWD_SINK("idle_timeout: 1e-20"),
	  "t.yaml:3:35: app 'f': parameter 'idle_timeout' must be 0 (never) or at least 1ns, got '1e-20'" },
	{ "duration too long", GEN_FWD_SINK("idle_timeout: 1e12h"),
	  "t.yaml:3:35: app 'f': parameter 'idle_timeout' is too long a duration (at most about 584 years): '1e12h'" },
	{ "mac with a sign", GEN_FWD_SINK("mac: \"-1:00:00:00:00:00\""),
	  "t.yaml:3:26: app 'f': parameter 'mac' must be a MAC address like 02:00:00:00:00:01, got '-1:00:00:00:00:00'" },
	{ "mac with a blank", GEN_FWD_SINK("mac: \" a:bb:cc:dd:ee:ff\""),
	  "t.yaml:3:26: app 'f': parameter 'mac' must be a MAC address like 02:00:00:00:00:01, got ' a:bb:cc:dd:ee:ff'" },
	{ "mac with single digits", GEN_FWD_SINK("mac: \"2:0:0:0:0:1:ab:cd\""),
	  "t.yaml:3:26: app 'f': parameter 'mac' must be a MAC address like 02:00:00:00:00:01, got '2:0:0:0:0:1:ab:cd'" },
	{ "pool chunk above mbufs", "pool: { mbufs: 1023, chunk: 2048 }\n" TWO_LINKED,
	  "t.yaml:1:29: pool.chunk (2048) must be at most pool.mbufs (1023): buffers move between "
	  "workers in whole chunks, and the pool could make none" },
	{ "pool high above mbufs", "pool: { mbufs: 2047, high: 100000 }\n" TWO_LINKED,
	  "t.yaml:1:28: pool.high (100000) must be at most pool.mbufs (2047): one worker's "
	  "freelist could keep every buffer from the others" },
	{ "route names no app", CACHES("route: nowhere", "entries: 64"),
	  "t.yaml:4:3: app 'c1': parameter 'route': no t_router app named 'nowhere'" },
	{ "route names an app of another type", CACHES("entries: 64", "route: s1"),
	  "t.yaml:5:3: app 'c2': parameter 'route': app 's1' is a t_sink, not a t_router" },
	{ "sharers disagree on entries", CACHES("table: x, entries: 1024", "table: x, entries: 2048"),
	  "t.yaml:5:3: app 'c2': table 'x' is shared with app 'c1', which sets a different "
	  "'entries'; apps sharing a table must agree on entries and route" },
	{ "sharers disagree on route", CACHES("table: x, route: r", "table: x"),
	  "t.yaml:5:3: app 'c2': table 'x' is shared with app 'c1', which sets a different "
	  "'route'; apps sharing a table must agree on entries and route" },
	{ "private table joined", CACHES("entries: 64", "table: c1"),
	  "t.yaml:5:3: app 'c2': table 'c1' is the private table of app 'c1'; to share a table, "
	  "every app that uses it names it with 'table:'" },
};

/* Sections of keys (pool, engine, topology): the messages the schema's
 * types give, whole. */
static const struct exact_case section_cases[] = {
	{ "pool.ops is a sequence", "pool: { ops: [dpdk] }\n" TWO_LINKED,
	  "t.yaml:1:14: pool.ops must be one of sluice|dpdk, got a sequence" },
	{ "pool.l3_tier is a mapping", "pool: { l3_tier: { a: 1 } }\n" TWO_LINKED,
	  "t.yaml:1:18: pool.l3_tier must be true or false, got a mapping" },
	{ "pool.l3_tier not a bool", "pool: { l3_tier: maybe }\n" TWO_LINKED,
	  "t.yaml:1:18: pool.l3_tier must be true or false, got 'maybe'" },
	{ "engine.stop_timeout is a mapping", "engine: { stop_timeout: { s: 1 } }\n" TWO_LINKED,
	  "t.yaml:1:25: engine.stop_timeout must be a duration like 30s or 250ms, got a mapping" },
	{ "engine is a sequence", "engine: [1]\n" TWO_LINKED,
	  "t.yaml:1:9: 'engine' must be a mapping with keys burst, link_size, link_impl, epoch, "
	  "reclaim_cap, epoch_ring, stop_timeout, accounting, idle_sleep, direct_links, got a "
	  "sequence" },
	{ "engine.direct_links not a bool", "engine: { direct_links: 1x }\n" TWO_LINKED,
	  "t.yaml:1:25: engine.direct_links must be true or false, got '1x'" },
	{ "engine.accounting not a bool", "engine: { accounting: sometimes }\n" TWO_LINKED,
	  "t.yaml:1:23: engine.accounting must be true or false, got 'sometimes'" },
	{ "engine.burst too large", "engine:\n  burst: 257\n" TWO_LINKED,
	  "t.yaml:2:10: engine.burst must be in 1..256, got 257" },
	{ "engine duplicate key", "engine: { burst: 8, burst: 16 }\n" TWO_LINKED,
	  "t.yaml:1:21: engine: duplicate key 'burst' (first at line 1)" },
	{ "topology is a scalar", "topology: m.txt\n" TWO_LINKED,
	  "t.yaml:1:11: 'topology' must be a mapping with key c2c, got a single value" },
	{ "topology unknown key", "topology: { c2: m.txt }\n" TWO_LINKED,
	  "t.yaml:1:13: topology: unknown key 'c2' (did you mean 'c2c'?)" },
	{ "topology.c2c empty", "topology: { c2c: '' }\n" TWO_LINKED,
	  "t.yaml:1:18: topology.c2c must be the path of a core-to-core latency matrix saved "
	  "by 'sluice topology --measure --save FILE', or none, got an empty value" },
	{ "topology.c2c is a sequence", "topology: { c2c: [m.txt] }\n" TWO_LINKED,
	  "t.yaml:1:18: topology.c2c must be the path of a core-to-core latency matrix saved "
	  "by 'sluice topology --measure --save FILE', or none, got a sequence" },
};

static void test_section_errors(void)
{
	run_exact_cases(section_cases, SL_ARRAY_LEN(section_cases), "invalid section");
}

static void test_value_errors(void)
{
	run_exact_cases(value_cases, SL_ARRAY_LEN(value_cases), "invalid value");

	/* What is allowed: agreeing sharers, a router named, durations of 0
	 * and of 1ns, a fraction that comes to whole nanoseconds. */
	struct sl_config *cfg = parse_ok("sharers that agree, a router named",
		CACHES("table: x, entries: 1024, route: r", "table: x, entries: 1Ki, route: r"));
	sl_config_free(cfg);
	cfg = parse_ok("durations 0, 1ns and 1.5us", GEN_FWD_SINK("idle_timeout: 0") );
	if (cfg != NULL)
		check_uint("duration 0", pv(cfg, "f", "idle_timeout")->u, 0);
	sl_config_free(cfg);
	cfg = parse_ok("duration 1ns", GEN_FWD_SINK("idle_timeout: 1ns"));
	if (cfg != NULL)
		check_uint("duration 1ns", pv(cfg, "f", "idle_timeout")->u, 1);
	sl_config_free(cfg);
	cfg = parse_ok("duration 1.5us", GEN_FWD_SINK("idle_timeout: 1.5us"));
	if (cfg != NULL)
		check_uint("duration 1.5us", pv(cfg, "f", "idle_timeout")->u, 1500);
	sl_config_free(cfg);
	cfg = parse_ok("a leading 0 is decimal", GEN_FWD_SINK("size: 0100"));
	if (cfg != NULL)
		check_uint("size 0100", pv(cfg, "f", "size")->u, 100);
	sl_config_free(cfg);
	cfg = parse_ok("0x is hexadecimal", GEN_FWD_SINK("size: 0x100"));
	if (cfg != NULL)
		check_uint("size 0x100", pv(cfg, "f", "size")->u, 256);
	sl_config_free(cfg);
	cfg = parse_ok("mac in capitals", GEN_FWD_SINK("mac: AA:BB:CC:DD:EE:0F"));
	if (cfg != NULL)
		check(pv(cfg, "f", "mac")->mac[0] == 0xaa && pv(cfg, "f", "mac")->mac[5] == 0x0f,
		      "mac in capitals value", "wrong bytes");
	sl_config_free(cfg);
}

/* Workers x (chunk or high mark) that can hold the whole pool: a warning
 * with the place, not an error. */
static void test_pool_warnings(void)
{
	static const char *const two_workers =
		"workers: { a: auto, b: auto }\n"
		"apps:\n  g: { type: t_gen, worker: a }\n  s: { type: t_sink, worker: b }\n"
		"links: [g.output -> s.input]\n";
	char text[2048];
	struct sl_config *cfg;

	snprintf(text, sizeof(text), "pool: { mbufs: 2047, high: 2000, chunk: 1024 }\n%s",
		 two_workers);
	cfg = parse_ok("two workers whose chunks exceed the pool", text);
	if (cfg != NULL && check_uint("one warning", cfg->n_warnings, 1))
		check_str("warning: workers x chunk", cfg->warnings[0],
			  "t.yaml:1:41: pool: 2 workers x pool.chunk 1024 = 2048 buffers, more than "
			  "pool.mbufs (2047): buffers move between workers in whole chunks, so a worker "
			  "can find the pool empty while the others hold every buffer; raise pool.mbufs "
			  "or lower pool.chunk");
	sl_config_free(cfg);

	snprintf(text, sizeof(text), "pool: { mbufs: 2047, high: 1100 }\n%s", two_workers);
	cfg = parse_ok("two workers whose high marks reach the pool", text);
	if (cfg != NULL && check_uint("one warning", cfg->n_warnings, 1))
		check_str("warning: workers x high", cfg->warnings[0],
			  "t.yaml:1:28: pool: 2 workers x a freelist high mark of 1100 = 2200 buffers, "
			  "at least pool.mbufs (2047): the workers' freelists can hold every buffer, so "
			  "a worker can find the pool empty while the others hold them; raise "
			  "pool.mbufs or lower pool.high");
	sl_config_free(cfg);

	snprintf(text, sizeof(text), "pool: { mbufs: 4095 }\n%s", two_workers);
	cfg = parse_ok("two workers, room for both", text);
	if (cfg != NULL)
		check_uint("no warning", cfg->n_warnings, 0);
	sl_config_free(cfg);

	/* No pool section: the default pool over 24 workers draws the warning,
	 * which then points at the workers section (line 1). */
	size_t used = (size_t)snprintf(text, sizeof(text), "workers: {");
	for (unsigned w = 0; w < 24; w++)
		used += (size_t)snprintf(text + used, sizeof(text) - used, "%s w%u: auto",
					 w ? "," : "", w);
	used += (size_t)snprintf(text + used, sizeof(text) - used, " }\napps:\n  g: { type: t_gen, worker: w0 }\n");
	for (unsigned w = 1; w < 23; w++)
		used += (size_t)snprintf(text + used, sizeof(text) - used,
					 "  f%u: { type: t_fwd, worker: w%u }\n", w, w);
	used += (size_t)snprintf(text + used, sizeof(text) - used,
				 "  s: { type: t_sink, worker: w23 }\nlinks: [g.output -> f1.input");
	for (unsigned w = 1; w < 22; w++)
		used += (size_t)snprintf(text + used, sizeof(text) - used,
					 ", f%u.output -> f%u.input", w, w + 1);
	snprintf(text + used, sizeof(text) - used, ", f22.output -> s.input]\n");
	cfg = parse_ok("24 workers and the default pool", text);
	if (cfg != NULL && check_uint("one warning", cfg->n_warnings, 1))
		check(strncmp(cfg->warnings[0], "t.yaml:1:10: pool: 24 workers x ", 32) == 0,
		      "the warning points at the workers section", "got '%s'", cfg->warnings[0]);
	sl_config_free(cfg);

	cfg = parse_ok("one worker holding most of the pool",
		       "pool: { mbufs: 2047, high: 2047 }\n" TWO_LINKED);
	if (cfg != NULL)
		check_uint("no warning with one worker", cfg->n_warnings, 0);
	sl_config_free(cfg);
}

/* A chain of n t_fwd apps between a t_gen and a t_sink, as YAML. */
static char *chain_text(unsigned n, size_t *len)
{
	size_t cap = 64 + (size_t)n * 80;
	char *t = malloc(cap);
	size_t used = 0;

	if (t == NULL)
		return NULL;
	used += (size_t)snprintf(t + used, cap - used, "apps:\n  g: { type: t_gen }\n");
	for (unsigned i = 0; i < n; i++)
		used += (size_t)snprintf(t + used, cap - used, "  f%u: { type: t_fwd }\n", i);
	used += (size_t)snprintf(t + used, cap - used, "  s: { type: t_sink }\nlinks:\n  - g.output -> f0.input\n");
	for (unsigned i = 0; i + 1 < n; i++)
		used += (size_t)snprintf(t + used, cap - used, "  - f%u.output -> f%u.input\n", i, i + 1);
	used += (size_t)snprintf(t + used, cap - used, "  - f%u.output -> s.input\n", n - 1);
	*len = used;
	return t;
}

/* Checking is O(n log n): a chain of 100000 apps is accepted (the quadratic
 * checks took minutes) and its push order is the chain; in large configs a
 * long cycle and a duplicate name are still found and placed. */
static void test_large_configs(void)
{
	size_t len = 0;
	struct sl_err err;
	struct sl_config *cfg;
	char *text;

	/* A chain of 20000 closed into a ring through a t_join in front of f0:
	 * a cycle of 20001 apps, reported from its first link in the file. */
	enum { R = 20000 };
	text = chain_text(R, &len);
	if (!check(text != NULL, "ring text", "out of memory"))
		return;
	char *ring = malloc(len + 64);
	if (ring != NULL) {
		memcpy(ring, text, len + 1);
		/* s becomes a t_join fed by g (input0) and f19999 (input1). */
		memcpy(strstr(ring, "  s: { type: t_sink }\n"), "  s: { type: t_join }\n", 22);
		memcpy(strstr(ring, "  - g.output -> f0.input\n"), "  - g.output -> s.input0\n", 25);
		size_t rlen = (size_t)(strstr(ring, "  - f19999.output -> s.input\n") - ring);
		rlen += (size_t)sprintf(ring + rlen, "  - f19999.output -> s.input1\n"
					"  - s.output -> f0.input\n");
		cfg = sl_config_parse("t.yaml", ring, rlen, &err);
		static const char want_ring[] = "t.yaml:20006:5: links form a cycle: f0 -> f1 -> f2 -> ";
		check(cfg == NULL && strncmp(err.msg, want_ring, strlen(want_ring)) == 0,
		      "20001-app cycle reported", "got '%s'", err.msg);
		sl_config_free(cfg);
		free(ring);
	}

	/* Duplicate app names deep in a large mapping (the sorted check): the
	 * first repeat in the file is named, with the first occurrence. */
	memcpy(strstr(text, "  f17000: "), "  f16000: ", 10);
	memcpy(strstr(text, "  f18000: "), "  f15000: ", 10);
	cfg = sl_config_parse("t.yaml", text, len, &err);
	check(cfg == NULL && strcmp(err.msg, "t.yaml:17003:3: duplicate app 'f16000' (first at line 16003)") == 0,
	      "duplicate in a large mapping", "got '%s'", err.msg);
	sl_config_free(cfg);
	free(text);

	/* Last: glibc with MALLOC_PERTURB_ (as meson runs tests) is slow to
	 * parse after a large config has been freed. */
	enum { N = 100000 };
	text = chain_text(N, &len);
	if (!check(text != NULL, "chain text", "out of memory"))
		return;
	cfg = sl_config_parse("t.yaml", text, len, &err);
	if (check(cfg != NULL, "100000-app chain accepted", "%s", err.msg)) {
		check_uint("chain apps", cfg->n_apps, N + 2);
		check_uint("chain links", cfg->n_links, N + 1);
		bool in_order = cfg->order[0] == 0 && cfg->order[N + 1] == N + 1;
		for (unsigned k = 1; k <= N && in_order; k++)
			in_order = cfg->order[k] == k;
		check(in_order, "chain push order g, f0 .. f99999, s", "out of order");
	}
	sl_config_free(cfg);
	free(text);

	/* An input connected twice, found at the second link with the line of
	 * the first. */
	cfg = parse("apps:\n  g: { type: t_gen }\n  h: { type: t_gen }\n  s: { type: t_sink }\n"
		    "links:\n  - g.output -> s.input\n  - h.output -> s.input\n", &err);
	check(cfg == NULL && strcmp(err.msg, "t.yaml:7:5: link 'h.output -> s.input': port 's.input' is already connected (line 6)") == 0,
	      "input connected twice (exact)", "got '%s'", err.msg);
	sl_config_free(cfg);
}

/* YAML aliases cannot multiply list rows without bound: one list of rows
 * named by many apps is refused once the rows exceed the text's size. */
static void test_alias_expansion(void)
{
	enum { APPS = 400, ROWS = 400 };
	size_t cap = 64 + (size_t)ROWS * 8 + (size_t)APPS * 64;
	char *t = malloc(cap);
	size_t used = 0;
	struct sl_err err;

	if (!check(t != NULL, "alias text", "out of memory"))
		return;
	used += (size_t)snprintf(t + used, cap - used, "apps:\n  r0: { type: t_router, routes: &rows [");
	for (unsigned i = 0; i < ROWS; i++)
		used += (size_t)snprintf(t + used, cap - used, "%s&r%u {prefix: x}", i ? "," : "", i);
	used += (size_t)snprintf(t + used, cap - used, "] }\n");
	for (unsigned i = 1; i < APPS; i++)
		used += (size_t)snprintf(t + used, cap - used, "  r%u: { type: t_router, routes: *rows }\n", i);
	struct sl_config *cfg = sl_config_parse("t.yaml", t, used, &err);
	check(cfg == NULL && strstr(err.msg, ": YAML aliases make this configuration expand to more than ") != NULL &&
	      strstr(err.msg, "list rows; write the lists out") != NULL && strncmp(err.msg, "t.yaml:", 7) == 0,
	      "aliased list rows are bounded", "got '%s'", err.msg);
	sl_config_free(cfg);
	free(t);
}

/* Deep nesting is refused at once (libyaml's scanner would take time in
 * proportion to depth x length); 5 levels are all a configuration needs. */
static void test_deep_nesting(void)
{
	enum { DEPTH = 200000 };
	size_t len = 6 + 2 * (size_t)DEPTH + 1;
	char *t = malloc(len + 1);
	struct sl_err err;

	if (!check(t != NULL, "nesting text", "out of memory"))
		return;
	memcpy(t, "apps: ", 6);
	memset(t + 6, '[', DEPTH);
	memset(t + 6 + DEPTH, ']', DEPTH);
	t[len - 1] = '\n';
	t[len] = '\0';
	struct sl_config *cfg = sl_config_parse("t.yaml", t, len, &err);
	check(cfg == NULL && strcmp(err.msg, "t.yaml:1:70: YAML nesting deeper than 64 levels; "
				    "a configuration needs at most 5") == 0,
	      "deep nesting refused", "got '%s'", err.msg);
	sl_config_free(cfg);
	free(t);
}

/* Only regular files of at most SL_CONFIG_MAX_BYTES are read. */
static void test_load_limits(void)
{
	struct sl_err err;
	errno = 0;
	struct sl_config *cfg = sl_config_load("/dev/zero", &err);
	check(cfg == NULL && errno == EINVAL &&
	      strcmp(err.msg, "/dev/zero: cannot read: it is a character device, not a regular "
		     "file") == 0,
	      "character device refused, errno EINVAL", "errno %d, got '%s'", errno, err.msg);
	sl_config_free(cfg);

	char path[] = "/tmp/sluice_test_config_XXXXXX";
	int fd = mkstemp(path);
	if (!check(fd >= 0, "temporary file", "mkstemp: %s", strerror(errno)))
		return;
	/* A sparse file one byte over the cap: refused before it is read. */
	if (ftruncate(fd, SL_CONFIG_MAX_BYTES + 1) != 0)
		check(false, "ftruncate", "%s", strerror(errno));
	close(fd);
	errno = 0;
	cfg = sl_config_load(path, &err);
	char want[512];
	snprintf(want, sizeof(want), "%s: too large: 16777217 bytes, more than the 16 MiB a "
		 "configuration may have", path);
	check(cfg == NULL && errno == EFBIG && strcmp(err.msg, want) == 0,
	      "oversized file refused, errno EFBIG", "errno %d, got '%s'", errno, err.msg);
	sl_config_free(cfg);
	unlink(path);

	/* A pseudo-file reports 0 bytes: read to its end, then parsed (it is
	 * no YAML configuration), never "grew while it was read". */
	errno = 0;
	cfg = sl_config_load("/proc/self/status", &err);
	check(cfg == NULL && errno == EINVAL && strncmp(err.msg, "/proc/self/status:", 18) == 0 &&
	      strstr(err.msg, "grew") == NULL && strstr(err.msg, "cannot read") == NULL,
	      "/proc/self/status read to its end, refused as a configuration (EINVAL)",
	      "errno %d, got '%s'", errno, err.msg);
	sl_config_free(cfg);
	/* One whose content passes the cap (8 bytes per page of the address
	 * space, reported as 0 bytes): refused once read to the cap. */
	errno = 0;
	cfg = sl_config_load("/proc/self/pagemap", &err);
	check(cfg == NULL && errno == EFBIG &&
	      strcmp(err.msg, "/proc/self/pagemap: too large: more than the 16 MiB a "
		     "configuration may have (read up to there)") == 0,
	      "a pseudo-file over the cap refused, errno EFBIG", "errno %d, got '%s'", errno,
	      err.msg);
	sl_config_free(cfg);

	char dir[] = "/tmp/sluice_test_fifo_XXXXXX";
	if (mkdtemp(dir) != NULL) {
		char fifo[sizeof(dir) + 8];
		snprintf(fifo, sizeof(fifo), "%s/f", dir);
		if (mkfifo(fifo, 0600) == 0) {
			/* No writer: a blocking open would wait for ever. */
			cfg = sl_config_load(fifo, &err);
			snprintf(want, sizeof(want), "%s: cannot read: it is a FIFO, not a regular file", fifo);
			check(cfg == NULL && strcmp(err.msg, want) == 0, "FIFO refused", "got '%s'", err.msg);
			sl_config_free(cfg);
			unlink(fifo);
		}
		rmdir(dir);
	}
}

static void test_bad_cases(void)
{
	for (unsigned i = 0; i < SL_ARRAY_LEN(bad_cases); i++) {
		const struct bad_case *b = &bad_cases[i];
		struct sl_err err;
		errno = 0;
		struct sl_config *cfg = parse(b->text, &err);
		int e = errno;
		char what[160];

		snprintf(what, sizeof(what), "invalid: %s", b->what);
		if (cfg != NULL) {
			check(false, what, "parsed without error");
			sl_config_free(cfg);
			continue;
		}
		check(e == EINVAL, what, "errno %d, want EINVAL (%d)", e, EINVAL);
		bool ok = strstr(err.msg, b->want) != NULL &&
			  (b->unwanted == NULL || strstr(err.msg, b->unwanted) == NULL) &&
			  strchr(err.msg, '\n') == NULL;
		check(ok, what, "got '%s', want '%s'", err.msg, b->want);
	}
}

/* Two workers naming one core (a CPU this process may use, so that only the
 * duplicate is wrong). */
static void test_cpu_messages(void)
{
	char text[512], want[512];
	struct sl_err err;
	struct sl_config *cfg;

	int cpu = first_allowed_cpu();
	snprintf(text, sizeof(text),
		 "workers:\n  a: { core: %d }\n  b: { core: %d }\n"
		 "apps:\n  g: { type: t_gen, worker: a }\n  s: { type: t_sink, worker: b }\n"
		 "links: [g.output -> s.input]\n", cpu, cpu);
	cfg = parse(text, &err);
	snprintf(want, sizeof(want), "t.yaml:3:14: worker 'b': core %d is already used by worker 'a'",
		 cpu);
	check(cfg == NULL && strcmp(err.msg, want) == 0, "invalid: core used twice",
	      "got '%s', want '%s'", err.msg, want);
	sl_config_free(cfg);
}

/* A NULL err is allowed: the call still fails cleanly. */
/* Links in mapping form carry their own size. */
static void test_link_sizes(void)
{
	struct sl_config *cfg = parse_ok("link sizes parse",
		"apps:\n  g: { type: t_gen }\n  f: { type: t_fwd }\n  s: { type: t_sink }\n"
		"links:\n  - { link: \"g.output -> f.input\", size: 4Ki }\n  - f.output -> s.input\n");
	if (cfg == NULL)
		return;
	check_uint("mapping link size", cfg->links[0].size, 4096);
	check_uint("string link size (engine default)", cfg->links[1].size, 0);
	check_uint("mapping link resolves its ports", cfg->links[0].to.app, 1);
	sl_config_free(cfg);
}

/* pool.order: shuffled (the default, address, is checked with the other
 * defaults). */
static void test_pool_order(void)
{
	struct sl_config *cfg = parse_ok("pool.order shuffled", "pool: { order: shuffled }\n" TWO_LINKED);
	if (cfg != NULL)
		check_uint("pool.order: shuffled", cfg->pool.shuffle, 1);
	sl_config_free(cfg);
}

static void test_null_err(void)
{
	struct sl_config *cfg = sl_config_parse("t.yaml", "apps: 1", 7, NULL);
	check(cfg == NULL, "NULL err accepted", "parsed");
}

/* ---- the schema is where defaults live ---------------------------------- */

/* The value a loaded config holds for section.key, as sl_param_parse gives
 * it (an enum's index, a bool's 0/1, a duration's ns); c2c: 0 for none, 1
 * for a path.  false for a key this test does not know: a key added to the
 * schema must be added here too. */
static bool config_value(const struct sl_config *cfg, const char *section, const char *key,
			 uint64_t *out)
{
	const struct sl_pool_cfg *pc = &cfg->pool;
	const struct { const char *section, *key; uint64_t v; } values[] = {
		{ "pool", "mbufs", pc->mbufs }, { "pool", "cache", pc->cache },
		{ "pool", "data_room", pc->data_room }, { "pool", "ops", pc->ops },
		{ "pool", "chunk", pc->chunk }, { "pool", "high", pc->high },
		{ "pool", "l3_tier", pc->l3_tier }, { "pool", "l3_chunks", pc->l3_chunks },
		{ "pool", "order", pc->shuffle },
		{ "engine", "burst", cfg->burst }, { "engine", "link_size", cfg->link_size },
		{ "engine", "link_impl", cfg->link_impl },
		{ "engine", "epoch", cfg->epoch_policy }, { "engine", "reclaim_cap", cfg->reclaim_cap },
		{ "engine", "epoch_ring", cfg->epoch_ring },
		{ "engine", "stop_timeout", cfg->stop_timeout_ns },
		{ "engine", "accounting", cfg->accounting },
		{ "engine", "idle_sleep", cfg->idle_sleep_ns },
		{ "engine", "direct_links", cfg->direct_links },
		{ "topology", "c2c", cfg->c2c_path != NULL },
	};
	for (unsigned i = 0; i < SL_ARRAY_LEN(values); i++)
		if (strcmp(values[i].section, section) == 0 && strcmp(values[i].key, key) == 0) {
			*out = values[i].v;
			return true;
		}
	return false;
}

/* Every key of the sections of keys, in a config that leaves them out (or
 * gives them empty), holds exactly its schema default. */
static void check_schema_defaults(const char *what, const char *text)
{
	unsetenv("SLUICE_IDLE_SLEEP");   /* the environment's default of engine.idle_sleep */
	struct sl_config *cfg = parse_ok(what, text);
	unsigned n;
	const struct sl_config_section *sec = sl_config_sections(&n);

	if (cfg == NULL)
		return;
	for (unsigned i = 0; i < n; i++) {
		if (sec[i].entry != NULL)
			continue;        /* workers: below */
		for (unsigned k = 0; k < sec[i].n_keys; k++) {
			const struct sl_param_spec *spec = &sec[i].keys[k];
			struct sl_param_value want = { 0 };
			uint64_t got = 0;
			char name[160];

			snprintf(name, sizeof(name), "%s: %s.%s is the schema's default '%s'", what,
				 sec[i].name, spec->name, spec->def ? spec->def : "(none)");
			if (!check(spec->def != NULL && sl_param_parse(spec, spec->def, &want, NULL) == 0,
				   name, "the schema's default does not parse") ||
			    !check(config_value(cfg, sec[i].name, spec->name, &got), name,
				   "key unknown to this test"))
				continue;
			if (spec->type == SL_PARAM_STRING)
				check(got == (strcmp(want.s, "none") != 0), name, "path %s",
				      cfg->c2c_path ? cfg->c2c_path : "(none)");
			else
				check_uint(name, got, want.u);
			sl_param_value_free(&want);
		}
	}
	sl_config_free(cfg);
}

static void test_schema_defaults(void)
{
	unsigned n;
	const struct sl_config_section *sec = sl_config_sections(&n);

	/* The sections are the top-level keys, each named once, with keys
	 * named once and defaults that parse. */
	check_uint("seven sections", n, 7);
	for (unsigned i = 0; i < n; i++) {
		char name[128];
		snprintf(name, sizeof(name), "section '%s' has a summary, doc and unique keys",
			 sec[i].name);
		bool ok = sec[i].summary != NULL && sec[i].doc != NULL;
		for (unsigned j = 0; j < i; j++)
			ok = ok && strcmp(sec[i].name, sec[j].name) != 0;
		for (unsigned k = 0; k < sec[i].n_keys; k++)
			ok = ok && sec[i].keys[k].doc != NULL && sec[i].keys[k].def != NULL &&
			     sl_param_find(sec[i].keys, k, sec[i].keys[k].name) < 0;
		check(ok, name, "missing text, a repeated name, or a key without a default");
	}
	check(sl_config_doc_intro()[0] != '\0', "the documentation has an introduction", "empty");

	check_schema_defaults("sections left out", TWO_LINKED);
	check_schema_defaults("sections with no value", "pool:\nengine:\ntopology:\n" TWO_LINKED);
	check_schema_defaults("empty sections", "pool: {}\nengine: {}\ntopology: {}\n" TWO_LINKED);

	/* The anchors: what the schema says today. */
	struct sl_config *cfg = parse_ok("empty engine section", "engine: {}\n" TWO_LINKED);
	if (cfg != NULL) {
		check_uint("empty engine: burst 32", cfg->burst, 32);
		check_uint("empty engine: link_size 1024", cfg->link_size, 1024);
		check_uint("empty engine: epoch immediate", cfg->epoch_policy, SL_EPOCH_IMMEDIATE);
		check_uint("empty engine: reclaim_cap 256", cfg->reclaim_cap, 256);
		check_uint("empty engine: epoch_ring 4096", cfg->epoch_ring, 4096);
		check_uint("empty engine: stop_timeout 5s", cfg->stop_timeout_ns, 5000000000ULL);
	}
	sl_config_free(cfg);

	/* A worker's core defaults to the schema's "auto", as if written. */
	cfg = parse_ok("worker with an empty mapping",
		       "workers:\n  w: {}\n  x:\n"
		       "apps:\n  g: { type: t_gen, worker: w }\n  s: { type: t_sink, worker: x }\n"
		       "links: [g.output -> s.input]\n");
	if (cfg != NULL) {
		check(cfg->workers[0].core == SL_CORE_AUTO && cfg->workers[1].core == SL_CORE_AUTO,
		      "worker core defaults to auto", "cores %d, %d", cfg->workers[0].core,
		      cfg->workers[1].core);
	}
	sl_config_free(cfg);

	/* topology.c2c: none is no matrix; a path is kept with its place. */
	cfg = parse_ok("topology.c2c none", "topology: { c2c: none }\n" TWO_LINKED);
	if (cfg != NULL)
		check(cfg->c2c_path == NULL, "c2c none: no path", "path %s", cfg->c2c_path);
	sl_config_free(cfg);
	cfg = parse_ok("topology.c2c path", "topology:\n  c2c: m.txt\n" TWO_LINKED);
	if (cfg != NULL) {
		check_str("c2c path", cfg->c2c_path, "m.txt");
		check_uint("c2c mark line", cfg->c2c_mark.line, 2);
		check_uint("c2c mark col", cfg->c2c_mark.col, 8);
	}
	sl_config_free(cfg);
}

/* docs/config.md (generated by `sluice config --markdown`) shows each key
 * with the schema's type and default: the values test_schema_defaults finds
 * in a loaded config.  Read from the source tree, the tests' directory. */
static void test_doc_shows_defaults(void)
{
	FILE *f = fopen("docs/config.md", "r");
	static char doc[1 << 17];
	size_t len = 0;
	unsigned n;
	const struct sl_config_section *sec = sl_config_sections(&n);

	if (!check(f != NULL, "docs/config.md opens (run from the source tree)", "cannot open"))
		return;
	len = fread(doc, 1, sizeof(doc) - 1, f);
	fclose(f);
	doc[len] = '\0';
	for (unsigned i = 0; i < n; i++)
		for (unsigned k = 0; k < sec[i].n_keys; k++) {
			const struct sl_param_spec *spec = &sec[i].keys[k];
			char row[256], name[160];
			snprintf(row, sizeof(row), "| `%s` | %s | %s |", spec->name,
				 sl_param_type_name(spec->type), spec->def);
			snprintf(name, sizeof(name), "docs/config.md shows %s.%s = %s", sec[i].name,
				 spec->name, spec->def);
			check(strstr(doc, row) != NULL, name, "no row '%s'", row);
		}
}

/* sl_param_defaults: defaults parsed as written, .set false; a required
 * value missing is -ENOENT with its index; a bad default is -EINVAL. */
static void test_param_defaults(void)
{
	static const struct sl_param_spec specs[] = {
		{ .name = "a", .type = SL_PARAM_UINT, .def = NULL, .min = 1, .max = 9 },
		{ .name = "b", .type = SL_PARAM_UINT, .def = "2Ki", .max = 0 },
		{ .name = "c", .type = SL_PARAM_ENUM, .def = "y", .choices = "x|y" },
		{ .name = "d", .type = SL_PARAM_DURATION, .def = "250ms" },
	};
	static const struct sl_param_spec bad[] = {
		{ .name = "e", .type = SL_PARAM_UINT, .def = "10", .min = 1, .max = 9 },
	};
	struct sl_param_value v[SL_ARRAY_LEN(specs)] = { { 0 } };
	struct sl_err err = { "" };
	unsigned missing = 99;

	check_uint("required value missing: -ENOENT",
		   (unsigned)-sl_param_defaults(specs, 4, v, &missing, &err), ENOENT);
	check_uint("the missing one's index", missing, 0);
	check(sl_param_parse(&specs[0], "3", &v[0], NULL) == 0, "a parses", "no");
	check_uint("all given or defaulted: 0", (unsigned)sl_param_defaults(specs, 4, v, &missing, &err), 0);
	check(v[0].set && v[0].u == 3, "a kept as given", "u %llu", (unsigned long long)v[0].u);
	check(!v[1].set && v[1].u == 2048, "b defaulted to 2Ki, not set", "u %llu",
	      (unsigned long long)v[1].u);
	check(!v[2].set && v[2].u == 1 && v[2].s != NULL && strcmp(v[2].s, "y") == 0,
	      "c defaulted to y", "u %llu", (unsigned long long)v[2].u);
	check(!v[3].set && v[3].u == 250000000ULL, "d defaulted to 250ms", "u %llu",
	      (unsigned long long)v[3].u);
	for (unsigned i = 0; i < SL_ARRAY_LEN(v); i++)
		sl_param_value_free(&v[i]);

	struct sl_param_value e = { 0 };
	int rc = sl_param_defaults(bad, 1, &e, &missing, &err);
	check(rc == -EINVAL && strcmp(err.msg, "parameter 'e' must be in 1..9, got 10") == 0,
	      "a bad default: -EINVAL with the parse message", "rc %d, '%s'", rc, err.msg);
}

int main(void)
{
	test_minimal_defaults();
	test_overrides();
	test_params();
	test_numbered_ports_and_diamond();
	test_groups();
	test_order_out_of_declaration();
	test_optional_sections();
	test_load_file();
	test_order_api();
	test_bad_cases();
	test_cpu_messages();
	test_link_sizes();
	test_pool_order();
	test_null_err();
	test_table();
	test_table_param_api();
	test_table_errors();
	test_table_registry_check();
	test_value_errors();
	test_section_errors();
	test_schema_defaults();
	test_doc_shows_defaults();
	test_param_defaults();
	test_pool_warnings();
	test_large_configs();
	test_alias_expansion();
	test_load_limits();
	test_deep_nesting();

	if (n_failed > 0) {
		printf("%u of %u checks failed\n", n_failed, n_checks);
		return 1;
	}
	printf("all %u checks passed\n", n_checks);
	return 0;
}
