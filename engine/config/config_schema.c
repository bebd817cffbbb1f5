/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The schema: the keys of the pool, engine, topology and workers sections
 * (sl_param_spec tables, as for an app type's parameters), the docs of
 * every section, and the sections' table (sl_config_sections).
 */
#include <sched.h>

#include "config/config.h"
#include "config/config_private.h"

/* Every key of the pool, engine, topology and workers sections is described
 * here once, as for an app type's parameters: type, default, range and one
 * line of doc.  The parser takes its defaults and ranges from these tables
 * and `sluice config` (docs/config.md) prints them. */

const struct sl_param_spec pool_keys[POOL_N] = {
	[POOL_MBUFS] = { .name = "mbufs", .type = SL_PARAM_UINT, .def = "16383",
		.min = 1023, .max = 16777215,
		.doc = "packet buffers in the pool (2^n - 1 is the most memory-efficient)" },
	[POOL_CACHE] = { .name = "cache", .type = SL_PARAM_UINT, .def = "256",
		.min = 0, .max = 512,
		.doc = "(ops: dpdk) DPDK's per-lcore cache of buffers; at most mbufs / 1.5" },
	[POOL_DATA_ROOM] = { .name = "data_room", .type = SL_PARAM_UINT, .def = "2048",
		.min = 64, .max = 65000,
		.doc = "bytes of packet data per buffer, headroom excluded" },
	/* Choices in the order of enum sl_pool_ops. */
	[POOL_OPS] = { .name = "ops", .type = SL_PARAM_ENUM, .def = "sluice",
		.choices = "sluice|dpdk",
		.doc = "sluice: Sluice's pool (per-worker freelists, a global queue of chunks); "
		       "dpdk: DPDK's ring_mp_mc with its per-lcore cache, for comparison" },
	[POOL_CHUNK] = { .name = "chunk", .type = SL_PARAM_UINT, .def = "512",
		.min = 64, .max = 2048,
		.doc = "(ops: sluice) buffers moved per rebalance or reclaim step; at most mbufs" },
	[POOL_HIGH] = { .name = "high", .type = SL_PARAM_UINT, .def = "0",
		.min = 0, .max = 16777215,
		.doc = "(ops: sluice) freelist high mark: 0, or chunk..mbufs; 0 means chunk x 1.5" },
	[POOL_L3_TIER] = { .name = "l3_tier", .type = SL_PARAM_BOOL, .def = "true",
		.doc = "(ops: sluice) a short queue per L3 domain between the freelists and the "
		       "global queue: freed buffers are reused first, so fewer of them circulate" },
	[POOL_L3_CHUNKS] = { .name = "l3_chunks", .type = SL_PARAM_UINT, .def = "4",
		.min = 0, .max = 65536,
		.doc = "(ops: sluice) chunks per L3 queue: 0, or a power of two >= 2; 0 means 4" },
	/* Choices: index 1 is `shuffled` (sl_pool_cfg.shuffle). */
	[POOL_ORDER] = { .name = "order", .type = SL_PARAM_ENUM, .def = "address",
		.choices = "address|shuffled",
		.doc = "(ops: sluice) the order buffers first leave the pool in: address "
		       "(DPDK's), or shuffled once (a fixed seed), so that a worker that reads "
		       "packets another wrote walks no stride its CPU's prefetcher would follow "
		       "into the writer's buffers (docs/pool.md, \"Order\")" },
};

static const struct sl_param_spec engine_keys[ENGINE_N] = {
	[ENGINE_BURST] = { .name = "burst", .type = SL_PARAM_UINT, .def = "32",
		.min = 1, .max = SL_BURST_MAX, .doc = "packets per rx, tx and link burst" },
	[ENGINE_LINK_SIZE] = { .name = "link_size", .type = SL_PARAM_UINT, .def = "1024",
		.min = 64, .max = 65536,
		.doc = "slots in every link's ring, a power of two (a link can set its own: "
		       "see links)" },
	/* Choices in the order of enum sl_link_impl. */
	[ENGINE_LINK_IMPL] = { .name = "link_impl", .type = SL_PARAM_ENUM, .def = "interlink",
		.choices = "interlink|ring",
		.doc = "what carries a link between two workers: interlink (published once "
		       "per breath) or ring (DPDK's rte_ring SP/SC, for comparison: "
		       "scripts/bench-link)" },
	/* Choices in the order of enum sl_epoch_policy. */
	[ENGINE_EPOCH] = { .name = "epoch", .type = SL_PARAM_ENUM, .def = "immediate",
		.choices = "immediate|batch|qsbr",
		.doc = "how objects that apps retire are reclaimed (docs/epoch.md)" },
	[ENGINE_RECLAIM_CAP] = { .name = "reclaim_cap", .type = SL_PARAM_UINT, .def = "256",
		.min = 1, .max = 65536,
		.doc = "retired objects a worker frees per breath at most" },
	[ENGINE_EPOCH_RING] = { .name = "epoch_ring", .type = SL_PARAM_UINT, .def = "4096",
		.min = 64, .max = 16777216,
		.doc = "retired objects a worker may have waiting for their grace period, a "
		       "power of two; when they are all taken an app retires nothing more "
		       "until some are freed (the flow cache then ends no flow: docs/epoch.md)" },
	[ENGINE_STOP_TIMEOUT] = { .name = "stop_timeout", .type = SL_PARAM_DURATION, .def = "5s",
		.doc = "how long a stop waits for the workers and a setup or clean-up step; "
		       "0: no limit; sluice run --stop-timeout overrides it" },
	[ENGINE_ACCOUNTING] = { .name = "accounting", .type = SL_PARAM_BOOL, .def = "true",
		.doc = "count each app's pull and push calls, packets and TSC cycles, and each "
		       "worker's busy and idle cycles (docs/telemetry.md)" },
	[ENGINE_IDLE_SLEEP] = { .name = "idle_sleep", .type = SL_PARAM_DURATION, .def = "0",
		.max = 1000000000,
		.doc = "how long a worker sleeps between breaths once 1024 in a row found "
		       "nothing to do; 0: never (poll without pause); default: the "
		       "environment's SLUICE_IDLE_SLEEP, else 0" },
	[ENGINE_DIRECT_LINKS] = { .name = "direct_links", .type = SL_PARAM_BOOL, .def = "true",
		.doc = "a link between two apps of one worker hands each burst to its "
		       "consumer in the transmit call when the consumer's type can take "
		       "one (port, router, flowcache): no queue between them "
		       "(docs/architecture.md)" },
};

/* A STRING key's doc is a noun phrase: messages say "KEY must be DOC". */
const struct sl_param_spec topology_keys[] = {
	{ .name = "c2c", .type = SL_PARAM_STRING, .def = "none",
	  .doc = "the path of a core-to-core latency matrix saved by "
		 "'sluice topology --measure --save FILE', or none" },
};

/* The keys of one worker; `core: N` may be written `N`, and `core: auto`
 * `auto`.  `cores` and `count` make the entry a group (parse_group). */
const struct sl_param_spec worker_keys[] = {
	{ .name = "core", .type = SL_PARAM_UINT, .def = "auto", .min = 0,
	  .max = CPU_SETSIZE - 1,
	  .doc = "a CPU number, or auto: placed by L3 domain (see sluice plan)" },
	{ .name = "cores", .type = SL_PARAM_STRING, .def = "[]",
	  .doc = "a worker group: a list of CPU numbers, one member per CPU (GROUP@0, GROUP@1, ...)" },
	{ .name = "count", .type = SL_PARAM_UINT, .def = "0", .max = SL_GROUP_MAX,
	  .doc = "a worker group of this many members, each placed as core: auto; 0: not a group" },
};

static const char doc_intro[] =
	"A pipeline is one YAML file (parsed with libyaml). `sluice check FILE`\n"
	"validates it without starting DPDK or any device; `sluice run FILE` runs it.\n"
	"Every error gives `FILE:LINE:COLUMN:` and one sentence naming the object, with a\n"
	"\"did you mean\" where a known name is close; nothing starts on an error and the\n"
	"exit status is 2. Besides the types and ranges of parameters, an app type may\n"
	"check its values when the config is loaded (a router's routes, a flowcache's\n"
	"`ids` against `entries` and its table against the memory the process can\n"
	"get, the IPv4 addresses of `source` and `probe_source`, a source's\n"
	"`zipf_s`), and references between apps are checked too (a flowcache's\n"
	"`route` must name a router; flowcaches sharing a `table` must agree on its\n"
	"settings), so `sluice check` reports those too. What only starting can find\n"
	"(a device that does not probe, a file that cannot be opened) is reported by\n"
	"`sluice run` with exit status 1.\n"
	"\n"
	"The file must be a regular file of at most 16 MiB; anything else (a\n"
	"directory, `/dev/zero`, a FIFO) is refused before it is read, with exit\n"
	"status 2. A file is read to its end whatever size it reports (a file\n"
	"under `/proc` reports 0 bytes), and refused once it passes 16 MiB. YAML anchors and aliases work, but a list named by aliases may\n"
	"not multiply into more rows than the file has bytes, and collections may\n"
	"nest at most 64 deep (a configuration needs 5).\n"
	"\n"
	"Checking takes O(n log n) time in the number of apps and links: `sluice\n"
	"check` of a chain of 100000 apps takes about a second.\n"
	"\n"
	"```yaml\n"
	"dpdk:\n"
	"  args: [--no-huge, -m, \"512\", --no-pci, --file-prefix, demo]\n"
	"pool:    { mbufs: 16383, cache: 256, data_room: 2048 }\n"
	"engine:  { burst: 32, link_size: 1024 }\n"
	"workers:\n"
	"  rx:  { core: auto }\n"
	"  fwd: 1                      # shorthand for { core: 1 }\n"
	"apps:\n"
	"  in:   { type: port, worker: rx, device: \"net_pcap0,rx_pcap=in.pcap\" }\n"
	"  swap: { type: l2fwd, worker: fwd }\n"
	"  out:  { type: port, worker: fwd, device: \"net_pcap1,tx_pcap=out.pcap\" }\n"
	"links:\n"
	"  - in.output -> swap.input\n"
	"  - swap.output -> out.input\n"
	"```\n"
	"\n"
	"The top-level keys are the sections below; any other key is an error. A\n"
	"section left out, or given with no value, takes the defaults its table\n"
	"shows.";

static const char doc_dpdk[] =
	"`args` is a list of strings: EAL arguments, as for any DPDK application\n"
	"(`--no-huge`, `-m`, `--file-prefix`, `-a`, `--vdev`, `--log-level`, ...).\n"
	"More EAL arguments can follow `--` on the command line\n"
	"(`sluice run FILE -- --vdev net_null0`); they come after the config's.\n"
	"`-l`, `-c`, `--lcores` and `--main-lcore` are refused: Sluice builds the lcore\n"
	"map from `workers` (lcore 0 is the control thread, lcore *w*+1 runs worker *w*).\n"
	"Without `--file-prefix`, DPDK uses `rte`; give each concurrently running DPDK\n"
	"process its own.";

static const char doc_pool[] =
	"Keys of the other `ops` are errors (`pool.cache applies to ops: dpdk only`).\n"
	"A `chunk` larger than `mbufs` (the pool could make no chunk) and a `high`\n"
	"larger than `mbufs` (one worker's freelist could keep every buffer) are\n"
	"errors. With two or more workers, a pool that the workers' freelists can\n"
	"hold whole (workers x `chunk` > `mbufs`, or workers x the high mark >=\n"
	"`mbufs`) is allowed but comes with a warning that gives its place: a\n"
	"worker can then find the pool empty while buffers sit on the others'\n"
	"freelists.\n"
	"[pool.md](pool.md) describes the pool's design and its numbers.";

static const char doc_engine[] =
	"`epoch` ([epoch.md](epoch.md)): `immediate` frees a retired object once every\n"
	"worker has passed a quiescent state; `batch` collects bags of 64 every 128\n"
	"breaths; `qsbr` uses DPDK's `rte_rcu_qsbr` defer queues.\n"
	"\n"
	"`stop_timeout`: how long a stop (SIGINT, SIGTERM, the end of `--duration`)\n"
	"waits for the workers, and a signal for the setup or clean-up step under\n"
	"way, before the engine names what did not stop and exits 1; `sluice run\n"
	"--stop-timeout S` overrides it ([architecture.md](architecture.md)).\n"
	"\n"
	"`accounting`: where the cycles go, as VPP's `show runtime` shows it: each\n"
	"app's pull and push calls, the packets they moved and the TSC cycles they\n"
	"took, and each worker's busy and idle breaths and cycles.  `sluice stats`,\n"
	"`sluice top`, the exporter and the summaries show them\n"
	"([telemetry.md](telemetry.md)); [benchmarks.md](benchmarks.md) gives its cost.\n"
	"\n"
	"`direct_links`: on one worker, a link into an app whose type can take a\n"
	"burst in hand (`sluice apps` marks them: `port`, `router`, `flowcache`) is\n"
	"direct: the producer's transmit calls the consumer with the burst, depth\n"
	"first, so that a chain such as port -> router -> port runs as one loop over\n"
	"the burst, as DPDK's l3fwd does, with no queue between the apps. The link\n"
	"keeps its counters and captures; its kind reads `direct`. `false` queues\n"
	"every link, each consumer taking its bursts in the push step (for\n"
	"comparison: docs/benchmarks.md).\n"
	"\n"
	"`idle_sleep`: by default a worker polls without pause and takes its whole CPU\n"
	"whether packets come or not, as a DPDK worker does. With `idle_sleep: 100us` a\n"
	"worker whose last 1024 breaths in a row found nothing to do (no packet pulled\n"
	"in, none on a link) sleeps that long between breaths, offline to the epoch,\n"
	"until a breath finds work again; the first packet after a quiet spell then\n"
	"waits up to that long (the trade VPP's `poll-sleep-usec` and DPDK's\n"
	"l3fwd-power make). The workers' `naps` counter counts the sleeps. Where the\n"
	"file does not set it, the environment variable `SLUICE_IDLE_SLEEP` (a\n"
	"duration, such as `1ms`) gives the default: a machine shared by many engines\n"
	"(the test suite sets it) can have them all nap without editing each file.";

static const char doc_workers[] =
	"A mapping from worker name to `{ core: N }`, `{ core: auto }`, or the bare `N`\n"
	"or `auto`; or to a worker group, `{ cores: [N, ...] }` or `{ count: N }`.\n"
	"Names start with a letter and use letters, digits, `_` and `-`.\n"
	"Without a `workers` section there is one worker, `main`, with `core: auto`.\n"
	"\n"
	"A worker group is several workers, its members, named `GROUP@0`, `GROUP@1`,\n"
	"...: one per CPU of `cores`, or `count` of them placed as `core: auto`. An app\n"
	"placed on a group (`worker: GROUP`) runs once per member: replica *k* is named\n"
	"`APP@k` and runs on `GROUP@k`, with the app's parameters (a parameter naming\n"
	"another app of the group names that app's replica *k*). A `port` on a group\n"
	"gets a queue pair per member (see [apps.md](apps.md), `port`). Links are\n"
	"written once, between the apps as named in the file:\n"
	"\n"
	"- between two apps of one group (or of two groups of the same size), member\n"
	"  *k*'s replica links to member *k*'s: links stay inside a replica;\n"
	"- from an app on a group to an app on a single worker, each replica gets an\n"
	"  interlink into a `join` inserted on that worker, named `DEST@PORT`;\n"
	"- from an app on a single worker into a group, a `split` (mode `hash`: a flow\n"
	"  stays on one replica) inserted on that worker, named `SRC@PORT`, sends one\n"
	"  interlink to each replica. With one member, neither is inserted.\n"
	"\n"
	"Two groups of different sizes cannot be linked, and an app outside a group\n"
	"cannot name an app inside it. `sluice plan` lists every member and replica;\n"
	"the summaries count per replica and, under `replicated`, in total.\n"
	"\n"
	"- An explicit core is honoured. It must exist on the machine and be one this\n"
	"  process may run on (its CPU affinity); two workers may not name the same\n"
	"  core. Breaking these is a configuration error (exit 2), reported by\n"
	"  `check`, `plan` and `run`.\n"
	"- `auto` workers are placed by L3 cache domain (see `sluice plan`): workers\n"
	"  joined by links share an L3 domain where possible, weighted by the number\n"
	"  of links between them; a worker running a PCI port goes to its NIC's NUMA\n"
	"  node; two workers never share a CPU, or the two hardware threads of one\n"
	"  core, while a free core remains; the control thread takes a CPU no worker\n"
	"  uses where one remains. Poor outcomes are printed as warnings.\n"
	"- A worker without apps is an error.\n"
	"\n"
	"`sluice plan FILE` prints the placement: each worker's CPU, core, L3 domain and\n"
	"NUMA node, the hop class of every link (`local` or `direct` on one worker,\n"
	"`smt-sibling`, `same-l3`, `cross-l3`, `cross-numa`) and the warnings. With `HWLOC_SYNTHETIC` (for\n"
	"example `\"pack:1 l3:4 core:6 pu:1\"`, an EPYC-like 24 cores in four L3\n"
	"domains) or `HWLOC_XMLFILE` set, it plans for that machine instead.";

static const char doc_apps[] =
	"A mapping from app name to its settings: `type` (required), `worker`\n"
	"(required when there are several workers; otherwise the only one), and the\n"
	"type's parameters. Parameters are checked against the type's schema: unknown\n"
	"names, missing required ones, wrong types and out-of-range values are errors.\n"
	"[apps.md](apps.md) lists every type's ports and parameters (`sluice apps` prints\n"
	"the same).\n"
	"\n"
	"Value syntax (for app parameters and the keys of the sections above):\n"
	"\n"
	"- unsigned integers: `64`, `0x40`, `10k` (x1000), `1M`, `2G`, `4Ki` (x1024),\n"
	"  `1Mi`, `1Gi`; decimal unless written with `0x` (`010` is ten, not octal);\n"
	"- booleans: `true`/`false`, `yes`/`no`, `on`/`off`;\n"
	"- MAC addresses: `02:00:00:00:00:01` (six pairs of hex digits);\n"
	"- durations: `30s`, `250ms`, `10us`, `100ns`, `5m`, `1h` (a bare number is\n"
	"  seconds); a decimal number without sign, at most about 584 years. `0` is\n"
	"  0, and where a parameter says so means \"never\"; any other value must come\n"
	"  to at least `1ns` (`0.4ns` and `1e-20` are errors, not 0), and `nan` and\n"
	"  `inf` are errors;\n"
	"- enums: one of the listed choices;\n"
	"- lists: see below.\n"
	"\n"
	"### List parameters\n"
	"\n"
	"A parameter of type `list` takes a YAML sequence of mappings, one per row,\n"
	"in block or flow style:\n"
	"\n"
	"```yaml\n"
	"apps:\n"
	"  r1:\n"
	"    type: router\n"
	"    routes:\n"
	"      - { prefix: 198.18.1.0/24, output: 0, dst_mac: \"02:00:00:00:01:01\" }\n"
	"      - prefix: 0.0.0.0/0\n"
	"        via: 198.18.0.254\n"
	"        output: 1\n"
	"```\n"
	"\n"
	"Each row's keys are the list's fields, which `sluice apps` and\n"
	"[apps.md](apps.md) show under the parameter (\"Fields of each `routes` row\").\n"
	"A field is a single value of any of the types above, written the same way; a\n"
	"field without a default must appear in every row, the others take their\n"
	"default. The range of a list is its number of rows (`>= 1 row`, `0..16 rows`).\n"
	"A list whose default is `[]` may be left out (no rows); one shown as\n"
	"`(required)` must be given, as `[]` if it allows no rows.\n"
	"\n"
	"Errors name the row by its 0-based index, for example\n"
	"`r.yaml:7:9: app 'r1': routes[1]: unknown field 'prefx' (did you mean 'prefix'?)`;\n"
	"also checked are rows that are not mappings, values that are not single\n"
	"values or do not parse, missing required fields (reported at the row),\n"
	"fields given twice and the number of rows.";

static const char doc_links[] =
	"A list of `\"APP.PORT -> APP.PORT\"` strings, from an output port to an input\n"
	"port, or of mappings `{ link: \"APP.PORT -> APP.PORT\", size: N }` that give one\n"
	"link its own ring size (a power of two, 2..16777216; otherwise\n"
	"`engine.link_size`). A link between apps on one worker is a plain ring; a\n"
	"link between workers is an interlink (an SPSC ring in shared memory on the\n"
	"consumer's NUMA node, published once per breath). An app with one input and\n"
	"one output names them `input` and `output`; numbered ports (`output0`,\n"
	"`output1`, ... for `split` and `tee`; `input0`, ... for `join`) must be\n"
	"connected from 0 without gaps.\n"
	"\n"
	"Checked: both apps exist; the ports exist in the right direction; no port is\n"
	"connected twice; every required port is connected; the links form no cycle\n"
	"(links leaving a `port` app do not count, since a port's output comes from its\n"
	"device, so `nic.output -> fwd.input` with `fwd.output -> nic.input` is fine).\n"
	"The push order on each worker is the topological order of the apps, ties\n"
	"broken by the order of declaration.";

static const char doc_topology[] =
	"Where hwloc reports a single L3 domain (virtual machines often do), CPUs whose\n"
	"measured latency is within 1.5x of the fastest pair's are treated as one L3\n"
	"domain for placement. Where hwloc reports several, the matrix is ignored with\n"
	"a warning.\n"
	"\n"
	"The matrix file must be as `--save` writes it: a `cpu,...` header of distinct\n"
	"CPU numbers (0..1023), then one row per CPU, in the header's order, starting\n"
	"with its number and holding one finite latency of 0 ns or more per column.\n"
	"Anything else (`nan`, `inf`, a negative value, a repeated or negative CPU, a\n"
	"missing or extra field or row) is an error naming `FILE:LINE` and quoting the\n"
	"text.";

const struct sl_config_section sections[SEC_N] = {
	[SEC_DPDK] = { .name = "dpdk", .summary = "DPDK's EAL arguments: { args: [ARG, ...] }",
		       .doc = doc_dpdk },
	[SEC_POOL] = { .name = "pool", .summary = "the packet buffer pool",
		       .keys = pool_keys, .n_keys = POOL_N, .doc = doc_pool },
	[SEC_ENGINE] = { .name = "engine", .summary = "bursts, links, reclamation, stopping and accounting",
			 .keys = engine_keys, .n_keys = ENGINE_N, .doc = doc_engine },
	[SEC_WORKERS] = { .name = "workers",
			  .summary = "worker threads and groups: { NAME: { core: N | auto } | { cores: [N, ...] } | { count: N }, ... }",
			  .keys = worker_keys, .n_keys = SL_ARRAY_LEN(worker_keys),
			  .entry = "worker", .doc = doc_workers },
	[SEC_APPS] = { .name = "apps",
		       .summary = "the apps: { NAME: { type: T, worker: W, PARAM: VALUE ... } }",
		       .doc = doc_apps },
	[SEC_LINKS] = { .name = "links",
			.summary = "[ \"a.output -> b.input\", { link: \"...\", size: N }, ... ]",
			.doc = doc_links },
	[SEC_TOPOLOGY] = { .name = "topology", .summary = "where placement's L3 domains come from",
			   .keys = topology_keys, .n_keys = SL_ARRAY_LEN(topology_keys),
			   .doc = doc_topology },
};

const struct sl_config_section *sl_config_sections(unsigned *n)
{
	*n = SEC_N;
	return sections;
}

const char *sl_config_doc_intro(void)
{
	return doc_intro;
}
