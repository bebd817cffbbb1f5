/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Configuration loading.  libyaml's document API turns the text into a tree
 * of nodes, each with the position where it starts; the functions below walk
 * that tree section by section (dpdk, pool, engine, workers, apps, links, in
 * that order whatever the order in the file), fill a struct sl_config, then
 * check ports and compute the push order.  The first problem found stops the
 * walk: its sentence goes into the caller's struct sl_err, prefixed with
 * FILE:LINE:COLUMN, and everything built so far is freed.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <yaml.h>

#include "config/config.h"

#define NAME_LIST_MAX 400     /* bytes of "a, b, c" lists in messages */

/* A name and its index, for lookups by binary search. */
struct name_ref {
	const char *name;
	unsigned idx;
};

/* What the walk needs at hand: the file name for messages, the document, the
 * config being filled and where to write the error; and what keeps checking
 * O(n log n): sorted name indexes, the connected port numbers of every app
 * (bit k of a word: number k of one port spec), which worker took each core,
 * and a bound on the list rows that YAML aliases can multiply. */
struct ctx {
	const char *name;
	yaml_document_t *doc;
	struct sl_config *cfg;
	struct sl_err *err;
	struct name_ref *workers_by_name;   /* n_worker_refs, sorted by name: a worker's
					     * name, or a group's (its first member) */
	unsigned n_worker_refs;
	struct name_ref *apps_by_name;      /* n_apps, sorted by name */
	uint64_t *ports_used;               /* per app: inputs' words, then outputs' */
	unsigned *ports_base;               /* per app: index of its first word */
	int *core_owner;                    /* CPU_SETSIZE: worker index + 1, or 0 */
	uint64_t rows, rows_max;            /* list rows built, and the bound */
	struct sl_mark pool_mark;           /* pool.chunk, pool.high or the section */
};

/* ---- small helpers ------------------------------------------------------ */

static struct sl_mark node_mark(const yaml_node_t *n)
{
	return (struct sl_mark){ .line = (unsigned)n->start_mark.line + 1,
				 .col = (unsigned)n->start_mark.column + 1 };
}

/* Write "NAME:LINE:COL: sentence" into the error and return -EINVAL. */
__attribute__((format(printf, 3, 4)))
static int fail_at(struct ctx *c, struct sl_mark m, const char *fmt, ...)
{
	char msg[sizeof(c->err->msg)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return sl_errf(c->err, EINVAL, "%s:%u:%u: %s", c->name, m.line, m.col, msg);
}

static int out_of_memory(struct ctx *c)
{
	return sl_errf(c->err, ENOMEM, "%s: out of memory", c->name);
}

/* Add "NAME:LINE:COL: sentence" to the config's warnings.  Returns 0, or
 * -ENOMEM. */
__attribute__((format(printf, 3, 4)))
static int config_warn(struct ctx *c, struct sl_mark m, const char *fmt, ...)
{
	struct sl_config *cfg = c->cfg;
	char msg[sizeof(c->err->msg)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	char **more = realloc(cfg->warnings, (cfg->n_warnings + 1) * sizeof(*more));
	if (more == NULL)
		return out_of_memory(c);
	cfg->warnings = more;
	size_t len = strlen(c->name) + strlen(msg) + 32;
	cfg->warnings[cfg->n_warnings] = malloc(len);
	if (cfg->warnings[cfg->n_warnings] == NULL)
		return out_of_memory(c);
	snprintf(cfg->warnings[cfg->n_warnings], len, "%s:%u:%u: %s", c->name, m.line, m.col, msg);
	cfg->n_warnings++;
	return 0;
}

static yaml_node_t *node_at(const struct ctx *c, int id)
{
	return yaml_document_get_node(c->doc, id);
}

static const char *text_of(const yaml_node_t *n)
{
	return (const char *)n->data.scalar.value;
}

/* The kind of a node, for "..., got a sequence". */
static const char *kind_name(const yaml_node_t *n)
{
	switch (n->type) {
	case YAML_MAPPING_NODE: return "a mapping";
	case YAML_SEQUENCE_NODE: return "a sequence";
	case YAML_SCALAR_NODE: return "a single value";
	default: return "nothing";
	}
}

/* An empty plain scalar, `~` or `null`: what `key:` with no value gives. */
static bool is_null(const yaml_node_t *n)
{
	if (n->type != YAML_SCALAR_NODE || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return false;
	const char *s = text_of(n);
	return s[0] == '\0' || strcmp(s, "~") == 0 || strcmp(s, "null") == 0 ||
	       strcmp(s, "Null") == 0 || strcmp(s, "NULL") == 0;
}

static unsigned n_pairs(const yaml_node_t *map)
{
	return (unsigned)(map->data.mapping.pairs.top - map->data.mapping.pairs.start);
}

static unsigned n_items(const yaml_node_t *seq)
{
	return (unsigned)(seq->data.sequence.items.top - seq->data.sequence.items.start);
}

/* App and worker names: a letter, then letters, digits, '_' and '-'. */
static bool valid_name(const char *s)
{
	if (!isalpha((unsigned char)s[0]))
		return false;
	for (const char *p = s + 1; *p != '\0'; p++)
		if (!isalnum((unsigned char)*p) && *p != '_' && *p != '-')
			return false;
	return true;
}

/* Join words into buf as "a, b, c" (cut short with "..." if it does not fit). */
static const char *join_names(const char *const *words, unsigned n, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < n; i++) {
		int w = snprintf(buf + used, len - used, "%s%s", i > 0 ? ", " : "", words[i]);
		if (w < 0 || (size_t)w >= len - used) {
			if (len >= 4)
				strcpy(buf + len - 4, "...");
			break;
		}
		used += (size_t)w;
	}
	return buf;
}

static int cmp_name_ref(const void *a, const void *b)
{
	const struct name_ref *x = a, *y = b;
	int r = strcmp(x->name, y->name);
	if (r != 0)
		return r;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* Index of name in refs[0..n) (sorted by cmp_name_ref), or -1. */
static int find_ref(const struct name_ref *refs, unsigned n, const char *name)
{
	unsigned lo = 0, hi = n;

	while (lo < hi) {
		unsigned mid = lo + (hi - lo) / 2;
		int r = strcmp(refs[mid].name, name);
		if (r == 0)
			return (int)refs[mid].idx;
		if (r < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

/* Keys this many or fewer are compared pairwise; more are sorted. */
#define KEYS_PAIRWISE 16

/* Every key of a mapping must be a scalar, and no key may appear twice.
 * `what` names a key in the message ("app", "worker", "key"); `owner` is put
 * in front ("app 'x': ") or is "".  The problem reported is the one met
 * first in file order; O(n log n) in the number of keys. */
static int check_keys(struct ctx *c, const yaml_node_t *map, const char *what,
		      const char *owner)
{
	const yaml_node_pair_t *start = map->data.mapping.pairs.start;
	unsigned n = n_pairs(map), scalars = 0;
	unsigned dup = n, first = 0;       /* a key repeating key `first`, earliest in the file */

	while (scalars < n && node_at(c, start[scalars].key)->type == YAML_SCALAR_NODE)
		scalars++;
	if (scalars <= KEYS_PAIRWISE) {
		for (unsigned p = 0; p < scalars && dup == n; p++)
			for (unsigned q = 0; q < p; q++)
				if (strcmp(text_of(node_at(c, start[q].key)),
					   text_of(node_at(c, start[p].key))) == 0) {
					dup = p;
					first = q;
					break;
				}
	} else {
		struct name_ref *refs = calloc(scalars, sizeof(*refs));
		if (refs == NULL)
			return out_of_memory(c);
		for (unsigned i = 0; i < scalars; i++)
			refs[i] = (struct name_ref){ text_of(node_at(c, start[i].key)), i };
		qsort(refs, scalars, sizeof(*refs), cmp_name_ref);
		/* In a run of equal keys, the second is the earliest repeat. */
		for (unsigned i = 1; i < scalars; i++)
			if (strcmp(refs[i].name, refs[i - 1].name) == 0 &&
			    (i < 2 || strcmp(refs[i - 1].name, refs[i - 2].name) != 0) &&
			    refs[i].idx < dup) {
				dup = refs[i].idx;
				first = refs[i - 1].idx;
			}
		free(refs);
	}
	if (dup < n) {
		const yaml_node_t *k = node_at(c, start[dup].key);
		return fail_at(c, node_mark(k), "%sduplicate %s '%s' (first at line %u)", owner,
			       what, text_of(k), node_mark(node_at(c, start[first].key)).line);
	}
	if (scalars < n) {
		const yaml_node_t *k = node_at(c, start[scalars].key);
		return fail_at(c, node_mark(k), "%s%s names must be single words, got %s",
			       owner, what, kind_name(k));
	}
	return 0;
}

/* "unknown key 'x' (did you mean 'y'?)" or "... (known keys: a, b)". */
static int unknown_key(struct ctx *c, const yaml_node_t *k, const char *owner,
		       const char *what, const char *const *known, unsigned n)
{
	const char *guess = sl_did_you_mean(text_of(k), known, n);
	char list[NAME_LIST_MAX];

	if (guess != NULL)
		return fail_at(c, node_mark(k), "%sunknown %s '%s' (did you mean '%s'?)",
			       owner, what, text_of(k), guess);
	return fail_at(c, node_mark(k), "%sunknown %s '%s' (known: %s)", owner, what,
		       text_of(k), join_names(known, n, list, sizeof(list)));
}

/* A section that must be a mapping; a key with no value counts as absent. */
static bool section_absent(const yaml_node_t *n)
{
	return n == NULL || is_null(n);
}

/* ---- the schema --------------------------------------------------------- */

/* Every key of the pool, engine, topology and workers sections is described
 * here once, as for an app type's parameters: type, default, range and one
 * line of doc.  The parser takes its defaults and ranges from these tables
 * and `sluice config` (docs/config.md) prints them. */

enum pool_key {
	POOL_MBUFS, POOL_CACHE, POOL_DATA_ROOM, POOL_OPS, POOL_CHUNK, POOL_HIGH,
	POOL_L3_TIER, POOL_L3_CHUNKS, POOL_N
};

static const struct sl_param_spec pool_keys[POOL_N] = {
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
	[POOL_L3_TIER] = { .name = "l3_tier", .type = SL_PARAM_BOOL, .def = "false",
		.doc = "(ops: sluice) a queue per L3 domain between the freelists and the "
		       "global queue" },
	[POOL_L3_CHUNKS] = { .name = "l3_chunks", .type = SL_PARAM_UINT, .def = "0",
		.min = 0, .max = 65536,
		.doc = "(ops: sluice) chunks per L3 queue: 0, or a power of two >= 2; 0 means 8" },
};

enum engine_key {
	ENGINE_BURST, ENGINE_LINK_SIZE, ENGINE_LINK_IMPL, ENGINE_EPOCH, ENGINE_RECLAIM_CAP, ENGINE_STOP_TIMEOUT,
	ENGINE_ACCOUNTING, ENGINE_N
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
	[ENGINE_STOP_TIMEOUT] = { .name = "stop_timeout", .type = SL_PARAM_DURATION, .def = "5s",
		.doc = "how long a stop waits for the workers and a setup or clean-up step; "
		       "0: no limit; sluice run --stop-timeout overrides it" },
	[ENGINE_ACCOUNTING] = { .name = "accounting", .type = SL_PARAM_BOOL, .def = "true",
		.doc = "count each app's pull and push calls, packets and TSC cycles, and each "
		       "worker's busy and idle cycles (docs/telemetry.md)" },
};

/* A STRING key's doc is a noun phrase: messages say "KEY must be DOC". */
static const struct sl_param_spec topology_keys[] = {
	{ .name = "c2c", .type = SL_PARAM_STRING, .def = "none",
	  .doc = "the path of a core-to-core latency matrix saved by "
		 "'sluice topology --measure --save FILE', or none" },
};

/* The keys of one worker; `core: N` may be written `N`, and `core: auto`
 * `auto`.  `cores` and `count` make the entry a group (parse_group). */
#define SL_GROUP_MAX 256
static const struct sl_param_spec worker_keys[] = {
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
	"([telemetry.md](telemetry.md)); [benchmarks.md](benchmarks.md) gives its cost.";

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
	"NUMA node, the hop class of every link (`local`, `smt-sibling`, `same-l3`,\n"
	"`cross-l3`, `cross-numa`) and the warnings. With `HWLOC_SYNTHETIC` (for\n"
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

/* Indexes into sections[], in the order parse_root reads them. */
enum section_id { SEC_DPDK, SEC_POOL, SEC_ENGINE, SEC_WORKERS, SEC_APPS, SEC_LINKS,
		  SEC_TOPOLOGY, SEC_N };

static const struct sl_config_section sections[SEC_N] = {
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

/* ---- sections of keys: pool, engine, topology --------------------------- */

/* sl_param_parse's sentence without its "parameter 'NAME' " lead, for
 * callers that name the value their own way ("pool.mbufs ...", "field
 * 'output' ..."). */
static const char *without_param_lead(const char *msg, const char *name)
{
	char lead[160];

	snprintf(lead, sizeof(lead), "parameter '%s' ", name);
	return strncmp(msg, lead, strlen(lead)) == 0 ? msg + strlen(lead) : msg;
}

/* What a non-scalar value of spec should have been, for "KEY must be ...". */
static const char *value_shape(const struct sl_param_spec *spec, char *buf, size_t len)
{
	switch (spec->type) {
	case SL_PARAM_BOOL: return "true or false";
	case SL_PARAM_ENUM:
		snprintf(buf, len, "one of %s", spec->choices);
		return buf;
	case SL_PARAM_STRING: return spec->doc;
	case SL_PARAM_MAC: return "a MAC address";
	case SL_PARAM_DURATION: return "a duration like 30s or 250ms";
	default: return "a number";
	}
}

/* One key's value: a scalar parsed for spec into *out.  sl_param_parse speaks
 * of "parameter 'mbufs' ..."; here that is "pool.mbufs ...". */
static int parse_key(struct ctx *c, const char *section, const struct sl_param_spec *spec,
		     const yaml_node_t *v, struct sl_param_value *out)
{
	struct sl_err perr = { "" };
	char shape[128];

	if (v->type != YAML_SCALAR_NODE)
		return fail_at(c, node_mark(v), "%s.%s must be %s, got %s", section, spec->name,
			       value_shape(spec, shape, sizeof(shape)), kind_name(v));
	if (spec->type == SL_PARAM_STRING && text_of(v)[0] == '\0')
		return fail_at(c, node_mark(v), "%s.%s must be %s, got an empty value", section,
			       spec->name, value_shape(spec, shape, sizeof(shape)));
	int rc = sl_param_parse(spec, text_of(v), out, &perr);
	if (rc == -ENOMEM)
		return out_of_memory(c);
	if (rc < 0)
		return fail_at(c, node_mark(v), "%s.%s %s", section, spec->name,
			       without_param_lead(perr.msg, spec->name));
	return 0;
}

/* A section of keys, s->keys: absent, or a key with no value, gives every
 * default; otherwise a mapping whose keys are checked and parsed against the
 * schema.  vals[i] receives the value of s->keys[i], the default where the
 * key is not given (.set false), and marks[i] where it was given ({0, 0}:
 * not given).  The caller frees vals with sl_param_value_free. */
static int parse_keys(struct ctx *c, const yaml_node_t *n, const struct sl_config_section *s,
		      struct sl_param_value *vals, struct sl_mark *marks)
{
	const char *known[16];
	unsigned n_known = s->n_keys < SL_ARRAY_LEN(known) ? s->n_keys : SL_ARRAY_LEN(known);
	char owner[32], list[NAME_LIST_MAX];
	unsigned missing;
	int rc;

	for (unsigned i = 0; i < n_known; i++)
		known[i] = s->keys[i].name;
	snprintf(owner, sizeof(owner), "%s: ", s->name);
	if (!section_absent(n)) {
		if (n->type != YAML_MAPPING_NODE)
			return fail_at(c, node_mark(n), "'%s' must be a mapping with key%s %s, got %s",
				       s->name, n_known == 1 ? "" : "s",
				       join_names(known, n_known, list, sizeof(list)), kind_name(n));
		rc = check_keys(c, n, "key", owner);
		if (rc < 0)
			return rc;
		for (const yaml_node_pair_t *p = n->data.mapping.pairs.start;
		     p < n->data.mapping.pairs.top; p++) {
			const yaml_node_t *k = node_at(c, p->key), *v = node_at(c, p->value);
			int idx = sl_param_find(s->keys, s->n_keys, text_of(k));
			if (idx < 0)
				return unknown_key(c, k, owner, "key", known, n_known);
			rc = parse_key(c, s->name, &s->keys[idx], v, &vals[idx]);
			if (rc < 0)
				return rc;
			marks[idx] = node_mark(v);
		}
	}
	rc = sl_param_defaults(s->keys, s->n_keys, vals, &missing, c->err);
	if (rc == -ENOENT)
		return fail_at(c, section_absent(n) ? (struct sl_mark){ 1, 1 } : node_mark(n),
			       "%s: missing required key '%s'", s->name, s->keys[missing].name);
	if (rc < 0)
		return sl_err_prefix(c->err, EINVAL, "%s: %s: bad default", c->name, s->name);
	return 0;
}

static void free_values(struct sl_param_value *vals, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		sl_param_value_free(&vals[i]);
}

/* What the pool's keys must agree on with each other. */
static int check_pool(struct ctx *c, const struct sl_mark *marks)
{
	const struct sl_pool_cfg *pc = &c->cfg->pool;

	if (pc->ops == SL_POOL_OPS_SLUICE && marks[POOL_CACHE].line != 0)
		return fail_at(c, marks[POOL_CACHE], "pool.cache applies to ops: dpdk only (Sluice's pool "
			       "has per-worker freelists instead; see pool.chunk and pool.high)");
	if (pc->ops == SL_POOL_OPS_DPDK) {
		for (unsigned i = POOL_CHUNK; i <= POOL_L3_CHUNKS; i++)
			if (marks[i].line != 0)
				return fail_at(c, marks[i], "pool.%s applies to ops: sluice only",
					       pool_keys[i].name);
	}
	if (pc->ops == SL_POOL_OPS_SLUICE && pc->chunk > pc->mbufs)
		return fail_at(c, marks[POOL_CHUNK].line != 0 ? marks[POOL_CHUNK] : marks[POOL_MBUFS],
			       "pool.chunk (%u) must be at most pool.mbufs (%u): buffers move "
			       "between workers in whole chunks, and the pool could make none",
			       pc->chunk, pc->mbufs);
	if (pc->high != 0 && pc->high < pc->chunk)
		return fail_at(c, marks[POOL_HIGH], "pool.high must be at least pool.chunk (%u), got %u",
			       pc->chunk, pc->high);
	if (pc->high > pc->mbufs)
		return fail_at(c, marks[POOL_HIGH], "pool.high (%u) must be at most pool.mbufs (%u): one "
			       "worker's freelist could keep every buffer from the others",
			       pc->high, pc->mbufs);
	if (pc->l3_chunks != 0 && (pc->l3_chunks < 2 || (pc->l3_chunks & (pc->l3_chunks - 1))))
		return fail_at(c, marks[POOL_L3_CHUNKS],
			       "pool.l3_chunks must be a power of two of at least 2, got %u",
			       pc->l3_chunks);
	return 0;
}

static int parse_pool(struct ctx *c, const yaml_node_t *n)
{
	struct sl_param_value v[POOL_N] = { { 0 } };
	struct sl_mark marks[POOL_N] = { { 0, 0 } };
	struct sl_pool_cfg *pc = &c->cfg->pool;
	int rc = parse_keys(c, n, &sections[SEC_POOL], v, marks);

	if (rc == 0) {
		pc->mbufs = (uint32_t)v[POOL_MBUFS].u;
		pc->cache = (uint32_t)v[POOL_CACHE].u;
		pc->data_room = (uint32_t)v[POOL_DATA_ROOM].u;
		pc->ops = (enum sl_pool_ops)v[POOL_OPS].u;
		pc->chunk = (uint32_t)v[POOL_CHUNK].u;
		pc->high = (uint32_t)v[POOL_HIGH].u;
		pc->l3_tier = v[POOL_L3_TIER].u != 0;
		pc->l3_chunks = (uint32_t)v[POOL_L3_CHUNKS].u;
	}
	free_values(v, POOL_N);
	if (rc < 0)
		return rc;
	/* Where a pool warning points: chunk, high, or the section. */
	if (marks[POOL_CHUNK].line != 0)
		c->pool_mark = marks[POOL_CHUNK];
	else if (marks[POOL_HIGH].line != 0)
		c->pool_mark = marks[POOL_HIGH];
	else if (!section_absent(n))
		c->pool_mark = node_mark(n);
	return check_pool(c, marks);
}

static int parse_engine(struct ctx *c, const yaml_node_t *n)
{
	struct sl_param_value v[ENGINE_N] = { { 0 } };
	struct sl_mark marks[ENGINE_N] = { { 0, 0 } };
	struct sl_config *cfg = c->cfg;
	int rc = parse_keys(c, n, &sections[SEC_ENGINE], v, marks);

	if (rc == 0) {
		cfg->burst = (unsigned)v[ENGINE_BURST].u;
		cfg->link_size = (unsigned)v[ENGINE_LINK_SIZE].u;
		cfg->link_impl = (enum sl_link_impl)v[ENGINE_LINK_IMPL].u;
		cfg->epoch_policy = (enum sl_epoch_policy)v[ENGINE_EPOCH].u;
		cfg->reclaim_cap = (unsigned)v[ENGINE_RECLAIM_CAP].u;
		cfg->stop_timeout_ns = v[ENGINE_STOP_TIMEOUT].u;
		cfg->accounting = v[ENGINE_ACCOUNTING].u != 0;
	}
	free_values(v, ENGINE_N);
	if (rc < 0)
		return rc;
	if ((cfg->link_size & (cfg->link_size - 1)) != 0)
		return fail_at(c, marks[ENGINE_LINK_SIZE],
			       "engine.link_size must be a power of two, got %u", cfg->link_size);
	return 0;
}

/* topology: { c2c: FILE }: a core-to-core latency matrix saved by
 * `sluice topology --measure --save FILE`, used where hwloc reports a single
 * L3 domain; `none`: no matrix. */
static int parse_topology(struct ctx *c, const yaml_node_t *n)
{
	struct sl_param_value v[SL_ARRAY_LEN(topology_keys)] = { { 0 } };
	struct sl_mark marks[SL_ARRAY_LEN(topology_keys)] = { { 0, 0 } };
	int rc = parse_keys(c, n, &sections[SEC_TOPOLOGY], v, marks);

	if (rc == 0 && strcmp(v[0].s, "none") != 0) {
		c->cfg->c2c_path = strdup(v[0].s);
		if (c->cfg->c2c_path == NULL)
			rc = out_of_memory(c);
		c->cfg->c2c_mark = marks[0];
	}
	free_values(v, SL_ARRAY_LEN(topology_keys));
	return rc;
}

/* ---- dpdk --------------------------------------------------------------- */

bool sl_eal_arg_reserved(const char *a)
{
	if (a[0] == '-' && (a[1] == 'l' || a[1] == 'c'))
		return true;     /* -l LIST, -lLIST, -c MASK, -cMASK */
	if (a[0] != '-' || a[1] != '-')
		return false;
	const char *name = a + 2;
	size_t n = strcspn(name, "=");
	return (n >= 2 && n <= 6 && strncmp(name, "lcores", n) == 0) ||
	       (n >= 3 && n <= 10 && strncmp(name, "main-lcore", n) == 0);
}

static int parse_dpdk(struct ctx *c, const yaml_node_t *n)
{
	static const char *const known[] = { "args" };
	struct sl_config *cfg = c->cfg;
	const yaml_node_t *args = NULL;
	int rc;

	if (section_absent(n))
		return 0;
	if (n->type != YAML_MAPPING_NODE)
		return fail_at(c, node_mark(n), "'dpdk' must be a mapping with 'args', got %s",
			       kind_name(n));
	rc = check_keys(c, n, "key", "dpdk: ");
	if (rc < 0)
		return rc;
	for (const yaml_node_pair_t *p = n->data.mapping.pairs.start;
	     p < n->data.mapping.pairs.top; p++) {
		const yaml_node_t *k = node_at(c, p->key);
		if (strcmp(text_of(k), "args") != 0)
			return unknown_key(c, k, "dpdk: ", "key", known, 1);
		args = node_at(c, p->value);
	}
	if (args == NULL || is_null(args))
		return 0;
	if (args->type != YAML_SEQUENCE_NODE)
		return fail_at(c, node_mark(args),
			       "dpdk.args must be a sequence of strings like [--no-huge, -m, \"512\"], got %s",
			       kind_name(args));

	cfg->eal_args = calloc(n_items(args) + 1, sizeof(*cfg->eal_args));
	if (cfg->eal_args == NULL)
		return out_of_memory(c);
	for (const yaml_node_item_t *i = args->data.sequence.items.start;
	     i < args->data.sequence.items.top; i++) {
		const yaml_node_t *a = node_at(c, *i);
		if (a->type != YAML_SCALAR_NODE)
			return fail_at(c, node_mark(a),
				       "dpdk.args must be a sequence of strings, got %s as an item",
				       kind_name(a));
		if (sl_eal_arg_reserved(text_of(a)))
			return fail_at(c, node_mark(a),
				       "dpdk.args: '%s' is not allowed: Sluice assigns lcores from the workers section",
				       text_of(a));
		cfg->eal_args[cfg->n_eal_args] = strdup(text_of(a));
		if (cfg->eal_args[cfg->n_eal_args] == NULL)
			return out_of_memory(c);
		cfg->n_eal_args++;
	}
	return 0;
}

/* ---- workers ------------------------------------------------------------ */

/* Room for n more workers. */
static int grow_workers(struct ctx *c, unsigned n)
{
	struct sl_config *cfg = c->cfg;
	struct sl_worker_cfg *w = realloc(cfg->workers, (cfg->n_workers + n) * sizeof(*w));
	if (w == NULL)
		return out_of_memory(c);
	memset(w + cfg->n_workers, 0, n * sizeof(*w));
	cfg->workers = w;
	return 0;
}

static int add_worker(struct ctx *c, const char *name, int core, struct sl_mark mark)
{
	struct sl_config *cfg = c->cfg;
	int rc = grow_workers(c, 1);
	if (rc < 0)
		return rc;
	struct sl_worker_cfg *w = &cfg->workers[cfg->n_workers];
	w->name = strdup(name);
	if (w->name == NULL)
		return out_of_memory(c);
	w->core = core;
	w->mark = mark;
	cfg->n_workers++;
	c->workers_by_name[c->n_worker_refs++] = (struct name_ref){ w->name, cfg->n_workers - 1 };
	return 0;
}

/* Take CPU cpu for worker `name` (the config's index `owner`), unless another
 * worker has it. */
static int claim_core(struct ctx *c, const yaml_node_t *at, const char *name, uint64_t cpu,
		      unsigned owner)
{
	int owner_idx = c->core_owner[cpu] - 1;
	if (owner_idx >= 0)
		return fail_at(c, node_mark(at),
			       "worker '%s': core %" PRIu64 " is already used by worker '%s'",
			       name, cpu, c->cfg->workers[owner_idx].name);
	c->core_owner[cpu] = (int)owner + 1;
	return 0;
}

/* A CPU number of worker `name` written at n (any number parses; the range
 * is checked in words that name the CPU set). */
static int parse_cpu(struct ctx *c, const char *name, const char *what, const yaml_node_t *n,
		     uint64_t *cpu)
{
	struct sl_param_spec any_cpu = worker_keys[0];
	struct sl_param_value val;
	any_cpu.max = 0;
	if (n->type != YAML_SCALAR_NODE || sl_param_parse(&any_cpu, text_of(n), &val, NULL) < 0)
		return fail_at(c, node_mark(n), "worker '%s': %s must be a CPU number%s, got %s%s%s",
			       name, what, strcmp(what, "core") == 0 ? " or 'auto'" : "",
			       n->type == YAML_SCALAR_NODE ? "'" : "",
			       n->type == YAML_SCALAR_NODE ? text_of(n) : kind_name(n),
			       n->type == YAML_SCALAR_NODE ? "'" : "");
	/* Whether the core exists and may be used is the placement's question
	 * (engine/placement/placement.c): it depends on the machine, not on the file. */
	if (val.u > worker_keys[0].max)
		return fail_at(c, node_mark(n), "worker '%s': %s must be below %" PRIu64 ", got %" PRIu64,
			       name, what, worker_keys[0].max + 1, val.u);
	*cpu = val.u;
	return 0;
}

/* A group: `cores: [N, ...]` (one member per CPU) or `count: N` (members
 * placed as core: auto).  Members are workers NAME@0, NAME@1, ...; the name
 * itself refers to the group (its first member, n_members of them). */
static int parse_group(struct ctx *c, const yaml_node_t *k, const yaml_node_t *cores,
		       const yaml_node_t *count)
{
	struct sl_config *cfg = c->cfg;
	const char *name = text_of(k);
	const yaml_node_t *at = cores != NULL ? cores : count;
	unsigned n;
	if (cores != NULL && count != NULL)
		return fail_at(c, node_mark(count),
			       "worker '%s': give either cores (a list of CPUs) or count, not both",
			       name);
	if (cores != NULL) {
		if (cores->type != YAML_SEQUENCE_NODE)
			return fail_at(c, node_mark(cores),
				       "worker '%s': cores must be a list of CPU numbers like [2, 3], got %s",
				       name, kind_name(cores));
		n = n_items(cores);
		if (n == 0)
			return fail_at(c, node_mark(cores),
				       "worker '%s': cores is empty; a group needs at least one core",
				       name);
	} else {
		struct sl_param_value val;
		struct sl_err perr;
		if (count->type != YAML_SCALAR_NODE ||
		    sl_param_parse(&worker_keys[2], text_of(count), &val, &perr) < 0 || val.u == 0)
			return fail_at(c, node_mark(count),
				       "worker '%s': count must be a number of members from 1 to %u, got %s%s%s",
				       name, (unsigned)SL_GROUP_MAX, count->type == YAML_SCALAR_NODE ? "'" : "",
				       count->type == YAML_SCALAR_NODE ? text_of(count) : kind_name(count),
				       count->type == YAML_SCALAR_NODE ? "'" : "");
		n = (unsigned)val.u;
	}
	if (n > SL_GROUP_MAX)
		return fail_at(c, node_mark(at), "worker '%s': a group has at most %u members, got %u",
			       name, (unsigned)SL_GROUP_MAX, n);
	unsigned first = cfg->n_workers;
	int rc = grow_workers(c, n);
	if (rc < 0)
		return rc;
	for (unsigned m = 0; m < n; m++) {
		struct sl_worker_cfg *w = &cfg->workers[first + m];
		uint64_t cpu = 0;
		w->core = SL_CORE_AUTO;
		if (cores != NULL) {
			const yaml_node_t *cn = node_at(c, cores->data.sequence.items.start[m]);
			rc = parse_cpu(c, name, "each of cores", cn, &cpu);
			if (rc == 0)
				rc = claim_core(c, cn, name, cpu, first + m);
			if (rc < 0)
				return rc;
			w->core = (int)cpu;
		}
		char member[160];
		snprintf(member, sizeof(member), "%s@%u", name, m);
		w->name = strdup(member);
		w->group = strdup(name);
		if (w->name == NULL || w->group == NULL)
			return out_of_memory(c);
		w->member = m;
		w->n_members = n;
		w->mark = node_mark(k);
		cfg->n_workers++;
	}
	c->workers_by_name[c->n_worker_refs++] = (struct name_ref){ cfg->workers[first].group, first };
	return 0;
}

/* The value of one worker: `auto`, a CPU number, { core: ... }, or a group:
 * { cores: [...] } or { count: N }. */
static int parse_worker(struct ctx *c, const yaml_node_t *k, const yaml_node_t *v)
{
	static const char *const known[] = { "core", "cores", "count" };
	const struct sl_param_spec *core_spec = &worker_keys[0];
	const char *name = text_of(k);
	const yaml_node_t *core = v, *cores = NULL, *count = NULL;
	char owner[128];
	int rc;

	snprintf(owner, sizeof(owner), "worker '%s': ", name);
	if (!valid_name(name))
		return fail_at(c, node_mark(k),
			       "worker name '%s' is not valid: use letters, digits, '_' and '-', starting with a letter",
			       name);
	if (v->type == YAML_MAPPING_NODE) {
		core = NULL;
		rc = check_keys(c, v, "key", owner);
		if (rc < 0)
			return rc;
		for (const yaml_node_pair_t *p = v->data.mapping.pairs.start;
		     p < v->data.mapping.pairs.top; p++) {
			const yaml_node_t *key = node_at(c, p->key);
			const yaml_node_t **slot = strcmp(text_of(key), "core") == 0 ? &core :
						   strcmp(text_of(key), "cores") == 0 ? &cores :
						   strcmp(text_of(key), "count") == 0 ? &count : NULL;
			if (slot == NULL)
				return unknown_key(c, key, owner, "key", known, SL_ARRAY_LEN(known));
			*slot = node_at(c, p->value);
		}
		if ((cores != NULL || count != NULL) && core != NULL)
			return fail_at(c, node_mark(core),
				       "worker '%s': core names one CPU for one worker; a group gives cores or count instead",
				       name);
		if (cores != NULL || count != NULL)
			return parse_group(c, k, cores, count);
	} else if (v->type != YAML_SCALAR_NODE) {
		return fail_at(c, node_mark(v),
			       "worker '%s' must be a core number, 'auto', { core: N | auto }, { cores: [N, ...] } or { count: N }, got %s",
			       name, kind_name(v));
	}

	/* The default, core_spec->def, is read as if it had been written. */
	if (core == NULL || is_null(core) ||
	    (core->type == YAML_SCALAR_NODE && strcmp(text_of(core), core_spec->def) == 0))
		return add_worker(c, name, SL_CORE_AUTO, node_mark(k));
	uint64_t cpu;
	rc = parse_cpu(c, name, "core", core, &cpu);
	if (rc == 0)
		rc = claim_core(c, core, name, cpu, c->cfg->n_workers);
	if (rc < 0)
		return rc;
	return add_worker(c, name, (int)cpu, node_mark(k));
}

static int parse_workers(struct ctx *c, const yaml_node_t *n)
{
	unsigned count = 1;
	int rc;

	if (!section_absent(n)) {
		if (n->type != YAML_MAPPING_NODE)
			return fail_at(c, node_mark(n),
				       "'workers' must be a mapping of worker names to { core: N | auto }, got %s",
				       kind_name(n));
		count = n_pairs(n);
		if (count == 0)
			return fail_at(c, node_mark(n),
				       "'workers' names no worker; leave it out to run every app on one worker");
	}
	c->workers_by_name = calloc(count, sizeof(*c->workers_by_name));
	c->core_owner = calloc(CPU_SETSIZE, sizeof(*c->core_owner));
	if (c->workers_by_name == NULL || c->core_owner == NULL)
		return out_of_memory(c);
	if (section_absent(n)) {
		rc = add_worker(c, "main", SL_CORE_AUTO, (struct sl_mark){ 1, 1 });
	} else {
		rc = check_keys(c, n, "worker", "");
		for (const yaml_node_pair_t *p = n->data.mapping.pairs.start;
		     rc == 0 && p < n->data.mapping.pairs.top; p++)
			rc = parse_worker(c, node_at(c, p->key), node_at(c, p->value));
	}
	if (rc < 0)
		return rc;
	qsort(c->workers_by_name, c->n_worker_refs, sizeof(*c->workers_by_name), cmp_name_ref);
	return 0;
}

/* Workers x (chunk or high mark) against the pool: warn where the workers'
 * freelists can hold every buffer (a worker then finds the pool empty while
 * buffers sit on the others' freelists).  A warning, not an error: traffic
 * that does not go everywhere at once may never strand them. */
static int pool_warnings(struct ctx *c)
{
	const struct sl_config *cfg = c->cfg;
	const struct sl_pool_cfg *pc = &cfg->pool;
	uint64_t w = cfg->n_workers;
	uint64_t high = pc->high != 0 ? pc->high : (uint64_t)pc->chunk * 3 / 2;

	if (pc->ops != SL_POOL_OPS_SLUICE || w < 2)
		return 0;
	if (w * pc->chunk > pc->mbufs)
		return config_warn(c, c->pool_mark,
				   "pool: %u workers x pool.chunk %u = %" PRIu64 " buffers, more than "
				   "pool.mbufs (%u): buffers move between workers in whole chunks, so "
				   "a worker can find the pool empty while the others hold every "
				   "buffer; raise pool.mbufs or lower pool.chunk",
				   cfg->n_workers, pc->chunk, w * pc->chunk, pc->mbufs);
	if (w * high >= pc->mbufs)
		return config_warn(c, c->pool_mark,
				   "pool: %u workers x a freelist high mark of %" PRIu64 " = %" PRIu64
				   " buffers, at least pool.mbufs (%u): the workers' freelists can "
				   "hold every buffer, so a worker can find the pool empty while the "
				   "others hold them; raise pool.mbufs or lower pool.high",
				   cfg->n_workers, high, w * high, pc->mbufs);
	return 0;
}

static const char *worker_list(const struct sl_config *cfg, char *buf, size_t len)
{
	const char *names[64];
	unsigned n = cfg->n_workers < SL_ARRAY_LEN(names) ? cfg->n_workers : SL_ARRAY_LEN(names);

	for (unsigned i = 0; i < n; i++)
		names[i] = cfg->workers[i].name;
	return join_names(names, n, buf, len);
}

/* ---- apps --------------------------------------------------------------- */

static int find_worker(const struct ctx *c, const char *name)
{
	return find_ref(c->workers_by_name, c->n_worker_refs, name);
}

/* Once every app is parsed (apps_by_name is filled at the end of parse_apps). */
static int find_app(const struct ctx *c, const char *name)
{
	return find_ref(c->apps_by_name, c->cfg->n_apps, name);
}

static int unknown_type(struct ctx *c, const yaml_node_t *v, const char *app)
{
	const struct sl_app_type *small[64], **types = small;
	unsigned n = sl_app_types(small, SL_ARRAY_LEN(small));
	const char **names;
	char list[NAME_LIST_MAX];
	int rc;

	if (n > SL_ARRAY_LEN(small)) {
		types = calloc(n, sizeof(*types));
		if (types == NULL)
			return out_of_memory(c);
		sl_app_types(types, n);
	}
	names = calloc(n + 1, sizeof(*names));
	if (names == NULL) {
		rc = out_of_memory(c);
		goto out_free_types;
	}
	for (unsigned i = 0; i < n; i++)
		names[i] = types[i]->name;
	const char *guess = sl_did_you_mean(text_of(v), names, n);
	if (guess != NULL)
		rc = fail_at(c, node_mark(v), "app '%s': unknown type '%s' (did you mean '%s'?)",
			     app, text_of(v), guess);
	else
		rc = fail_at(c, node_mark(v), "app '%s': unknown type '%s' (known types: %s)",
			     app, text_of(v), join_names(names, n, list, sizeof(list)));
	free(names);
out_free_types:
	if (types != small)
		free(types);
	return rc;
}

static int unknown_param(struct ctx *c, const yaml_node_t *k, const struct sl_app_cfg *a)
{
	const struct sl_app_type *t = a->type;
	const char **names = calloc(t->n_params + 2, sizeof(*names));
	char list[NAME_LIST_MAX];
	int rc;

	if (names == NULL)
		return out_of_memory(c);
	for (unsigned i = 0; i < t->n_params; i++)
		names[i] = t->params[i].name;
	names[t->n_params] = "type";
	names[t->n_params + 1] = "worker";
	const char *guess = sl_did_you_mean(text_of(k), names, t->n_params + 2);
	if (guess != NULL)
		rc = fail_at(c, node_mark(k), "app '%s': unknown parameter '%s' (did you mean '%s'?)",
			     a->name, text_of(k), guess);
	else if (t->n_params == 0)
		rc = fail_at(c, node_mark(k),
			     "app '%s': unknown parameter '%s' (type %s takes no parameters)",
			     a->name, text_of(k), t->name);
	else
		rc = fail_at(c, node_mark(k),
			     "app '%s': unknown parameter '%s' (type %s takes: %s)",
			     a->name, text_of(k), t->name,
			     join_names(names, t->n_params, list, sizeof(list)));
	free(names);
	return rc;
}

static const yaml_node_t *lookup(const struct ctx *c, const yaml_node_t *map,
				 const char *key, const yaml_node_t **key_node)
{
	for (const yaml_node_pair_t *p = map->data.mapping.pairs.start;
	     p < map->data.mapping.pairs.top; p++) {
		const yaml_node_t *k = node_at(c, p->key);
		if (strcmp(text_of(k), key) == 0) {
			if (key_node != NULL)
				*key_node = k;
			return node_at(c, p->value);
		}
	}
	return NULL;
}

static int app_type(struct ctx *c, struct sl_app_cfg *a, const yaml_node_t *k,
		    const yaml_node_t *v)
{
	const yaml_node_t *t = lookup(c, v, "type", NULL);

	if (t == NULL)
		return fail_at(c, node_mark(k), "app '%s': missing 'type'", a->name);
	if (t->type != YAML_SCALAR_NODE)
		return fail_at(c, node_mark(t), "app '%s': 'type' must be a type name, got %s",
			       a->name, kind_name(t));
	a->type = sl_app_type_find(text_of(t));
	if (a->type == NULL)
		return unknown_type(c, t, a->name);
	return 0;
}

static int app_worker(struct ctx *c, struct sl_app_cfg *a, const yaml_node_t *v)
{
	const struct sl_config *cfg = c->cfg;
	const yaml_node_t *w = lookup(c, v, "worker", NULL);
	char list[NAME_LIST_MAX];

	if (w == NULL || is_null(w)) {
		if (cfg->n_workers != 1)
			return fail_at(c, a->mark,
				       "app '%s': no worker given and there are %u workers (%s)",
				       a->name, cfg->n_workers,
				       worker_list(cfg, list, sizeof(list)));
		a->worker = 0;
		return 0;
	}
	if (w->type != YAML_SCALAR_NODE)
		return fail_at(c, node_mark(w), "app '%s': 'worker' must be a worker name, got %s",
			       a->name, kind_name(w));
	int idx = find_worker(c, text_of(w));
	if (idx >= 0) {
		a->worker = (unsigned)idx;
		return 0;
	}

	const char *names[64];
	unsigned n = cfg->n_workers < SL_ARRAY_LEN(names) ? cfg->n_workers : SL_ARRAY_LEN(names);
	for (unsigned i = 0; i < n; i++)
		names[i] = cfg->workers[i].name;
	const char *guess = sl_did_you_mean(text_of(w), names, n);
	if (guess != NULL)
		return fail_at(c, node_mark(w), "app '%s': no worker named '%s' (did you mean '%s'?)",
			       a->name, text_of(w), guess);
	return fail_at(c, node_mark(w), "app '%s': no worker named '%s' (workers: %s)",
		       a->name, text_of(w), worker_list(cfg, list, sizeof(list)));
}

/* ---- list parameters ---------------------------------------------------- */

/* The shape of a node, in the words of list messages ("got a scalar"). */
static const char *shape_name(const yaml_node_t *n)
{
	if (n->type == YAML_SCALAR_NODE)
		return is_null(n) ? "nothing" : "a scalar";
	return kind_name(n);
}

/* One value of a row: the field's scalar, parsed for the field.  sl_param_parse
 * speaks of "parameter 'output' ..."; in a row that is "field 'output' ...". */
static int parse_field(struct ctx *c, const char *owner, const struct sl_param_spec *fs,
		       const yaml_node_t *v, struct sl_param_value *out)
{
	struct sl_err perr = { "" };

	if (v->type != YAML_SCALAR_NODE)
		return fail_at(c, node_mark(v), "%sfield '%s' must be a single value, got %s",
			       owner, fs->name, kind_name(v));
	int rc = sl_param_parse(fs, text_of(v), out, &perr);
	if (rc == -ENOMEM)
		return out_of_memory(c);
	if (rc < 0)
		return fail_at(c, node_mark(v), "%sfield '%s' %s", owner, fs->name,
			       without_param_lead(perr.msg, fs->name));
	return 0;
}

/* One row: a mapping of field names to values, checked against spec->fields;
 * fields not given take their defaults (.set false). */
static int parse_row(struct ctx *c, const struct sl_app_cfg *a,
		     const struct sl_param_spec *spec, unsigned index,
		     const yaml_node_t *row, struct sl_param_row *out)
{
	struct sl_mark m = node_mark(row);
	char owner[256], where[256];
	int rc;

	if (row->type != YAML_MAPPING_NODE)
		return fail_at(c, m, "app '%s': %s[%u] must be a mapping of fields, got %s",
			       a->name, spec->name, index, shape_name(row));
	snprintf(where, sizeof(where), "%s:%u:%u", c->name, m.line, m.col);
	out->where = strdup(where);
	out->v = calloc(spec->n_fields, sizeof(*out->v));
	if (out->where == NULL || out->v == NULL)
		return out_of_memory(c);

	snprintf(owner, sizeof(owner), "app '%s': %s[%u]: ", a->name, spec->name, index);
	rc = check_keys(c, row, "field", owner);
	if (rc < 0)
		return rc;
	for (const yaml_node_pair_t *p = row->data.mapping.pairs.start;
	     p < row->data.mapping.pairs.top; p++) {
		const yaml_node_t *fk = node_at(c, p->key), *fv = node_at(c, p->value);
		int idx = sl_param_find(spec->fields, spec->n_fields, text_of(fk));
		if (idx < 0) {
			const char **names = calloc(spec->n_fields, sizeof(*names));
			if (names == NULL)
				return out_of_memory(c);
			for (unsigned f = 0; f < spec->n_fields; f++)
				names[f] = spec->fields[f].name;
			rc = unknown_key(c, fk, owner, "field", names, spec->n_fields);
			free(names);
			return rc;
		}
		rc = parse_field(c, owner, &spec->fields[idx], fv, &out->v[idx]);
		if (rc < 0)
			return rc;
	}
	unsigned missing;
	rc = sl_param_defaults(spec->fields, spec->n_fields, out->v, &missing, c->err);
	if (rc == -ENOENT)
		return fail_at(c, m, "%smissing required field '%s'", owner,
			       spec->fields[missing].name);
	if (rc < 0)
		return sl_err_prefix(c->err, EINVAL, "%s: %stype %s has a bad default",
				     where, owner, a->type->name);
	return 0;
}

/* A list parameter (SL_PARAM_TABLE): a sequence of rows.  Rows are counted in
 * *out as soon as they are allocated, so that whatever was built when an
 * error stops the walk is freed with the config. */
static int parse_table(struct ctx *c, const struct sl_app_cfg *a,
		       const struct sl_param_spec *spec, const yaml_node_t *seq,
		       struct sl_param_value *out)
{
	struct sl_mark m = node_mark(seq);

	if (seq->type != YAML_SEQUENCE_NODE)
		return fail_at(c, m, "app '%s': parameter '%s' must be a list of mappings, got %s",
			       a->name, spec->name, shape_name(seq));
	unsigned n = n_items(seq);
	if (sl_param_rows_check(spec, n, c->err) < 0)
		return sl_err_prefix(c->err, EINVAL, "%s:%u:%u: app '%s'", c->name, m.line,
				     m.col, a->name);
	/* Without aliases every row is text of its own; with them a list can
	 * be named again and again, and its rows built each time. */
	c->rows += n;
	if (c->rows > c->rows_max)
		return fail_at(c, m, "app '%s': parameter '%s': YAML aliases make this "
			       "configuration expand to more than %" PRIu64 " list rows; write "
			       "the lists out", a->name, spec->name, c->rows_max);
	out->n_fields = spec->n_fields;
	out->set = true;
	if (n == 0)
		return 0;
	out->rows = calloc(n, sizeof(*out->rows));
	if (out->rows == NULL)
		return out_of_memory(c);
	for (unsigned i = 0; i < n; i++) {
		out->n_rows = i + 1;
		int rc = parse_row(c, a, spec, i, node_at(c, seq->data.sequence.items.start[i]),
				   &out->rows[i]);
		if (rc < 0)
			return rc;
	}
	return 0;
}

static int parse_app(struct ctx *c, const yaml_node_t *k, const yaml_node_t *v)
{
	struct sl_config *cfg = c->cfg;
	struct sl_app_cfg *a = &cfg->apps[cfg->n_apps];
	char owner[160];
	int rc;

	if (!valid_name(text_of(k)))
		return fail_at(c, node_mark(k),
			       "app name '%s' is not valid: use letters, digits, '_' and '-', starting with a letter",
			       text_of(k));
	a->name = strdup(text_of(k));
	if (a->name == NULL)
		return out_of_memory(c);
	a->mark = node_mark(k);
	cfg->n_apps++;

	if (v->type != YAML_MAPPING_NODE)
		return fail_at(c, node_mark(v),
			       "app '%s' must be a mapping with 'type' and its parameters, got %s",
			       a->name, kind_name(v));
	snprintf(owner, sizeof(owner), "app '%s': ", a->name);
	rc = check_keys(c, v, "key", owner);
	if (rc == 0)
		rc = app_type(c, a, k, v);
	if (rc == 0)
		rc = app_worker(c, a, v);
	if (rc < 0)
		return rc;

	const struct sl_app_type *t = a->type;
	a->params = calloc(t->n_params > 0 ? t->n_params : 1, sizeof(*a->params));
	if (a->params == NULL)
		return out_of_memory(c);
	for (const yaml_node_pair_t *p = v->data.mapping.pairs.start;
	     p < v->data.mapping.pairs.top; p++) {
		const yaml_node_t *pk = node_at(c, p->key), *pv = node_at(c, p->value);
		const char *key = text_of(pk);
		if (strcmp(key, "type") == 0 || strcmp(key, "worker") == 0)
			continue;
		int idx = sl_param_find(t->params, t->n_params, key);
		if (idx < 0)
			return unknown_param(c, pk, a);
		if (t->params[idx].type == SL_PARAM_TABLE) {
			rc = parse_table(c, a, &t->params[idx], pv, &a->params[idx]);
			if (rc < 0)
				return rc;
			continue;
		}
		if (pv->type != YAML_SCALAR_NODE)
			return fail_at(c, node_mark(pv),
				       "app '%s': parameter '%s' must be a single value, got %s",
				       a->name, key, kind_name(pv));
		if (sl_param_parse(&t->params[idx], text_of(pv), &a->params[idx], c->err) < 0)
			return sl_err_prefix(c->err, EINVAL, "%s:%u:%u: app '%s'", c->name,
					     node_mark(pv).line, node_mark(pv).col, a->name);
	}
	unsigned missing;
	rc = sl_param_defaults(t->params, t->n_params, a->params, &missing, c->err);
	if (rc == -ENOENT)
		return fail_at(c, a->mark, "app '%s': missing required parameter '%s'",
			       a->name, t->params[missing].name);
	if (rc < 0)
		return sl_err_prefix(c->err, EINVAL, "%s:%u:%u: app '%s': type %s has a bad default",
				     c->name, a->mark.line, a->mark.col, a->name, t->name);
	return 0;
}

static int parse_apps(struct ctx *c, const yaml_node_t *n, const yaml_node_t *root)
{
	struct sl_config *cfg = c->cfg;
	int rc;

	if (n == NULL)
		return fail_at(c, node_mark(root),
			       "no 'apps' section: at least one app is required");
	if (is_null(n) || (n->type == YAML_MAPPING_NODE && n_pairs(n) == 0))
		return fail_at(c, node_mark(n), "'apps' is empty: at least one app is required");
	if (n->type != YAML_MAPPING_NODE)
		return fail_at(c, node_mark(n),
			       "'apps' must be a mapping of app names to their settings, got %s",
			       kind_name(n));
	rc = check_keys(c, n, "app", "");
	if (rc < 0)
		return rc;
	cfg->apps = calloc(n_pairs(n), sizeof(*cfg->apps));
	if (cfg->apps == NULL)
		return out_of_memory(c);
	for (const yaml_node_pair_t *p = n->data.mapping.pairs.start;
	     p < n->data.mapping.pairs.top; p++) {
		rc = parse_app(c, node_at(c, p->key), node_at(c, p->value));
		if (rc < 0)
			return rc;
	}
	c->apps_by_name = calloc(cfg->n_apps, sizeof(*c->apps_by_name));
	bool *busy = calloc(cfg->n_workers, sizeof(*busy));
	if (c->apps_by_name == NULL || busy == NULL) {
		free(busy);
		return out_of_memory(c);
	}
	for (unsigned i = 0; i < cfg->n_apps; i++) {
		c->apps_by_name[i] = (struct name_ref){ cfg->apps[i].name, i };
		const struct sl_worker_cfg *w = &cfg->workers[cfg->apps[i].worker];
		for (unsigned m = 0; m < (w->n_members > 0 ? w->n_members : 1); m++)
			busy[cfg->apps[i].worker + m] = true;
	}
	qsort(c->apps_by_name, cfg->n_apps, sizeof(*c->apps_by_name), cmp_name_ref);
	rc = 0;
	for (unsigned w = 0; w < cfg->n_workers && rc == 0; w++)
		if (!busy[w])
			rc = fail_at(c, cfg->workers[w].mark, "worker '%s' has no apps",
				     cfg->workers[w].group != NULL ? cfg->workers[w].group
							       : cfg->workers[w].name);
	free(busy);
	return rc;
}

/* ---- links -------------------------------------------------------------- */

/* Cut "app.port" out of [s, e) after trimming blanks; false if malformed. */
static bool split_endpoint(const char *s, const char *e, char *app, char *port, size_t len)
{
	while (s < e && isspace((unsigned char)*s))
		s++;
	while (e > s && isspace((unsigned char)e[-1]))
		e--;
	const char *dot = memchr(s, '.', (size_t)(e - s));
	if (dot == NULL || dot == s || dot + 1 == e)
		return false;
	size_t al = (size_t)(dot - s), pl = (size_t)(e - dot - 1);
	if (al >= len || pl >= len)
		return false;
	memcpy(app, s, al);
	app[al] = '\0';
	memcpy(port, dot + 1, pl);
	port[pl] = '\0';
	if (!valid_name(app))
		return false;
	for (const char *p = port; *p != '\0'; p++)
		if (!isalnum((unsigned char)*p) && *p != '_')
			return false;
	return true;
}

static const char *dir_name(bool output)
{
	return output ? "output" : "input";
}

/* "app 'a' (type source) has no output port 'out' (did you mean 'output'?)" */
static int unknown_port(struct ctx *c, const yaml_node_t *ln, const struct sl_app_cfg *a,
			bool output, const char *port)
{
	const struct sl_app_type *t = a->type;
	const struct sl_port_spec *specs = output ? t->outputs : t->inputs;
	unsigned n = output ? t->n_outputs : t->n_inputs;
	char names[SL_MAX_PORTS][48];
	const char *cands[SL_MAX_PORTS] = { NULL };
	char list[NAME_LIST_MAX];
	const char *text = text_of(ln);

	if (n > SL_MAX_PORTS)
		n = SL_MAX_PORTS;
	for (unsigned i = 0; i < n; i++) {
		size_t len = strlen(specs[i].name);
		if (len > 0 && specs[i].name[len - 1] == '#') {
			/* A family port with a number past the limit: say so. */
			if (strncmp(port, specs[i].name, len - 1) == 0 &&
			    isdigit((unsigned char)port[len - 1]))
				return fail_at(c, node_mark(ln),
					       "link '%s': app '%s' (type %s) has no %s port '%s' (numbered ports go from %.*s0 to %.*s%u)",
					       text, a->name, t->name, dir_name(output), port,
					       (int)(len - 1), specs[i].name, (int)(len - 1),
					       specs[i].name, SL_MAX_PORTS - 1);
			snprintf(names[i], sizeof(names[i]), "%.*s0", (int)(len - 1), specs[i].name);
		} else {
			snprintf(names[i], sizeof(names[i]), "%s", specs[i].name);
		}
		cands[i] = names[i];
	}
	const char *guess = sl_did_you_mean(port, cands, n);
	if (guess != NULL)
		return fail_at(c, node_mark(ln),
			       "link '%s': app '%s' (type %s) has no %s port '%s' (did you mean '%s'?)",
			       text, a->name, t->name, dir_name(output), port, guess);
	if (n == 0)
		return fail_at(c, node_mark(ln),
			       "link '%s': app '%s' (type %s) has no %s port '%s' (it has no %s ports)",
			       text, a->name, t->name, dir_name(output), port, dir_name(output));
	return fail_at(c, node_mark(ln),
		       "link '%s': app '%s' (type %s) has no %s port '%s' (%s ports: %s)",
		       text, a->name, t->name, dir_name(output), port, dir_name(output),
		       join_names(cands, n, list, sizeof(list)));
}

static int resolve_endpoint(struct ctx *c, const yaml_node_t *ln, const char *app,
			    const char *port, bool output, struct sl_endpoint *ep)
{
	const struct sl_config *cfg = c->cfg;
	const char *text = text_of(ln);
	int idx = find_app(c, app);

	if (idx < 0) {
		const char **names = calloc(cfg->n_apps + 1, sizeof(*names));
		if (names == NULL)
			return out_of_memory(c);
		for (unsigned i = 0; i < cfg->n_apps; i++)
			names[i] = cfg->apps[i].name;
		const char *guess = sl_did_you_mean(app, names, cfg->n_apps);
		int rc = guess != NULL ?
			fail_at(c, node_mark(ln), "link '%s': no app named '%s' (did you mean '%s'?)",
				text, app, guess) :
			fail_at(c, node_mark(ln), "link '%s': no app named '%s'", text, app);
		free(names);
		return rc;
	}

	const struct sl_app_cfg *a = &cfg->apps[idx];
	const struct sl_port_spec *specs = output ? a->type->outputs : a->type->inputs;
	unsigned n = output ? a->type->n_outputs : a->type->n_inputs;
	for (unsigned s = 0; s < n; s++) {
		unsigned number;
		if (sl_port_spec_match(&specs[s], port, &number)) {
			ep->app = (unsigned)idx;
			ep->spec = s;
			ep->number = number;
			ep->port = strdup(port);
			return ep->port != NULL ? 0 : out_of_memory(c);
		}
	}
	return unknown_port(c, ln, a, output, port);
}

static bool same_port(const struct sl_endpoint *x, const struct sl_endpoint *y)
{
	return x->app == y->app && x->spec == y->spec && x->number == y->number;
}

/* The word of connected numbers of an endpoint's port spec. */
static uint64_t *port_word(const struct ctx *c, const struct sl_endpoint *e, bool output)
{
	const struct sl_app_cfg *a = &c->cfg->apps[e->app];
	return &c->ports_used[c->ports_base[e->app] + (output ? a->type->n_inputs : 0) + e->spec];
}

/* One word per port spec of every app, all zero. */
static int alloc_ports(struct ctx *c)
{
	const struct sl_config *cfg = c->cfg;
	size_t words = 0;

	c->ports_base = calloc(cfg->n_apps + 1, sizeof(*c->ports_base));
	if (c->ports_base == NULL)
		return out_of_memory(c);
	for (unsigned i = 0; i < cfg->n_apps; i++) {
		c->ports_base[i] = (unsigned)words;
		words += cfg->apps[i].type->n_inputs + cfg->apps[i].type->n_outputs;
	}
	c->ports_used = calloc(words + 1, sizeof(*c->ports_used));
	return c->ports_used != NULL ? 0 : out_of_memory(c);
}

/* A link item in mapping form: { link: "a.out -> b.in", size: N }.  Returns
 * the node of the link text in *text_node and the size (0: engine.link_size). */
static int parse_link_map(struct ctx *c, const yaml_node_t *ln, const yaml_node_t **text_node,
			  uint32_t *size)
{
	static const char *const known[] = { "link", "size" };
	static const struct sl_param_spec size_spec = {
		.name = "size", .type = SL_PARAM_UINT, .min = 2, .max = 1u << 24 };
	*text_node = NULL;
	int rc = check_keys(c, ln, "key", "link: ");
	if (rc < 0)
		return rc;
	for (const yaml_node_pair_t *p = ln->data.mapping.pairs.start;
	     p < ln->data.mapping.pairs.top; p++) {
		const yaml_node_t *k = node_at(c, p->key), *v = node_at(c, p->value);
		if (strcmp(text_of(k), "link") == 0) {
			*text_node = v;
		} else if (strcmp(text_of(k), "size") == 0) {
			struct sl_param_value val;
			if (v->type != YAML_SCALAR_NODE ||
			    sl_param_parse(&size_spec, text_of(v), &val, NULL) < 0 ||
			    (val.u & (val.u - 1)) != 0)
				return fail_at(c, node_mark(v),
					       "link size must be a power of two in 2..16777216, got '%s'",
					       v->type == YAML_SCALAR_NODE ? text_of(v) : kind_name(v));
			*size = (uint32_t)val.u;
		} else {
			return unknown_key(c, k, "link: ", "key", known, SL_ARRAY_LEN(known));
		}
	}
	if (*text_node == NULL)
		return fail_at(c, node_mark(ln),
			       "a link given as a mapping needs 'link: \"app.port -> app.port\"'");
	return 0;
}

static int parse_link(struct ctx *c, const yaml_node_t *ln)
{
	struct sl_config *cfg = c->cfg;
	char from_app[128], from_port[128], to_app[128], to_port[128];
	uint32_t size = 0;

	if (ln->type == YAML_MAPPING_NODE) {
		int rc = parse_link_map(c, ln, &ln, &size);
		if (rc < 0)
			return rc;
	}
	if (ln->type != YAML_SCALAR_NODE)
		return fail_at(c, node_mark(ln),
			       "each link must be a string like \"app.port -> app.port\" or "
			       "{ link: \"app.port -> app.port\", size: N }, got %s",
			       kind_name(ln));
	const char *text = text_of(ln);
	const char *arrow = strstr(text, "->");
	if (arrow == NULL ||
	    !split_endpoint(text, arrow, from_app, from_port, sizeof(from_app)) ||
	    !split_endpoint(arrow + 2, text + strlen(text), to_app, to_port, sizeof(to_app)))
		return fail_at(c, node_mark(ln), "link '%s' must look like 'app.port -> app.port'",
			       text);

	struct sl_link_cfg *l = &cfg->links[cfg->n_links];
	l->mark = node_mark(ln);
	l->size = size;
	cfg->n_links++;
	int rc = resolve_endpoint(c, ln, from_app, from_port, true, &l->from);
	if (rc == 0)
		rc = resolve_endpoint(c, ln, to_app, to_port, false, &l->to);
	if (rc < 0)
		return rc;
	uint64_t *from_word = port_word(c, &l->from, true), *to_word = port_word(c, &l->to, false);
	uint64_t from_bit = UINT64_C(1) << l->from.number, to_bit = UINT64_C(1) << l->to.number;
	if ((*from_word & from_bit) || (*to_word & to_bit)) {
		/* Taken: find the link that took it (once, on the way out). */
		bool out_side = (*from_word & from_bit) != 0;
		unsigned j = 0;
		while (j + 1 < cfg->n_links &&
		       !(out_side ? same_port(&cfg->links[j].from, &l->from)
				  : same_port(&cfg->links[j].to, &l->to)))
			j++;
		return fail_at(c, l->mark, "link '%s': port '%s.%s' is already connected (line %u)",
			       text, out_side ? from_app : to_app, out_side ? from_port : to_port,
			       cfg->links[j].mark.line);
	}
	*from_word |= from_bit;
	*to_word |= to_bit;
	return 0;
}

static int parse_links(struct ctx *c, const yaml_node_t *n)
{
	struct sl_config *cfg = c->cfg;

	if (section_absent(n))
		return 0;
	if (n->type != YAML_SEQUENCE_NODE)
		return fail_at(c, node_mark(n),
			       "'links' must be a sequence of \"app.port -> app.port\" strings, got %s",
			       kind_name(n));
	cfg->links = calloc(n_items(n) + 1, sizeof(*cfg->links));
	if (cfg->links == NULL)
		return out_of_memory(c);
	for (const yaml_node_item_t *i = n->data.sequence.items.start;
	     i < n->data.sequence.items.top; i++) {
		int rc = parse_link(c, node_at(c, *i));
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* Required ports connected; numbered families from 0 without gaps. */
static int check_app_ports(struct ctx *c, unsigned app, bool output)
{
	const struct sl_config *cfg = c->cfg;
	const struct sl_app_cfg *a = &cfg->apps[app];
	const struct sl_port_spec *specs = output ? a->type->outputs : a->type->inputs;
	unsigned n = output ? a->type->n_outputs : a->type->n_inputs;

	for (unsigned s = 0; s < n; s++) {
		/* bit k: number k connected (k < SL_MAX_PORTS) */
		uint64_t used = port_word(c, &(struct sl_endpoint){ .app = app, .spec = s }, output)[0];
		size_t len = strlen(specs[s].name);
		bool family = len > 0 && specs[s].name[len - 1] == '#';
		int base = (int)(family ? len - 1 : len);
		for (unsigned k = 0; family && k < 64 && (used >> k) != 0; k++) {
			if (used & (UINT64_C(1) << k))
				continue;
			unsigned next = k + 1;
			while (!(used & (UINT64_C(1) << next)))
				next++;
			return fail_at(c, a->mark,
				       "app '%s': %.*s%u is not connected but %.*s%u is; number ports from %.*s0 without gaps",
				       a->name, base, specs[s].name, k, base, specs[s].name, next,
				       base, specs[s].name);
		}
		if (specs[s].required && used == 0)
			return fail_at(c, a->mark, "app '%s': %s '%.*s%s' is not connected",
				       a->name, dir_name(output), base, specs[s].name,
				       family ? "0" : "");
	}
	return 0;
}

static int check_ports(struct ctx *c)
{
	for (unsigned i = 0; i < c->cfg->n_apps; i++) {
		int rc = check_app_ports(c, i, false);
		if (rc == 0)
			rc = check_app_ports(c, i, true);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* ---- order -------------------------------------------------------------- */

/* Does link l order its ends?  Links out of a boundary app (a port: its
 * outputs come from pull, not from its inputs) do not. */
static bool link_orders(const struct sl_config *cfg, unsigned l)
{
	return !cfg->apps[cfg->links[l].from.app].type->boundary;
}

/* The ordering links grouped by app, in file order within each app: those
 * of app a are list[first[a] .. first[a + 1]).  By the from end (out) or
 * the to end (in).  NULL when out of memory. */
static unsigned *links_by_app(const struct sl_config *cfg, bool out, unsigned **first_out)
{
	unsigned n = cfg->n_apps;
	unsigned *first = calloc(n + 2, sizeof(*first));
	unsigned *list = calloc(cfg->n_links + 1, sizeof(*list));

	if (first == NULL || list == NULL) {
		free(first);
		free(list);
		return NULL;
	}
	for (unsigned l = 0; l < cfg->n_links; l++)
		if (link_orders(cfg, l))
			first[(out ? cfg->links[l].from.app : cfg->links[l].to.app) + 2]++;
	for (unsigned a = 0; a < n; a++)
		first[a + 2] += first[a + 1];
	/* first[a + 1] is now where app a's links start; it moves as they are
	 * filed, ending where app a + 1's start. */
	for (unsigned l = 0; l < cfg->n_links; l++)
		if (link_orders(cfg, l))
			list[first[(out ? cfg->links[l].from.app : cfg->links[l].to.app) + 1]++] = l;
	*first_out = first;
	return list;
}

/* Called with the apps Kahn's algorithm could not place (left[i] true): each
 * has a predecessor among them.  Walk predecessors from the first such app
 * (each time by its first link in the file from such an app) until one
 * repeats; that closes a cycle.  Report it starting from its link that comes
 * first in the file.  O(apps + links). */
static int report_cycle(const struct sl_config *cfg, const bool *left, struct sl_err *err)
{
	unsigned n = cfg->n_apps;
	int *seen = calloc(n + 1, sizeof(*seen));       /* step at which an app was met */
	unsigned *via = calloc(n + 1, sizeof(*via));    /* link taken from step k */
	unsigned *first = NULL;
	unsigned *in = links_by_app(cfg, false, &first);
	char text[sizeof(err->msg)];
	size_t used = 0;
	unsigned cur = 0, steps = 0;
	int rc;

	if (seen == NULL || via == NULL || in == NULL) {
		rc = sl_errf(err, ENOMEM, "%s: out of memory", cfg->path);
		goto out;
	}
	for (unsigned i = 0; i < n; i++)
		seen[i] = -1;
	while (!left[cur])
		cur++;
	while (seen[cur] < 0) {
		seen[cur] = (int)steps;
		unsigned k = first[cur];
		while (!left[cfg->links[in[k]].from.app])
			k++;
		via[steps++] = in[k];
		cur = cfg->links[in[k]].from.app;
	}

	/* The cycle's links are via[s .. steps): via[k] enters the app of step
	 * k from the app of step k + 1, so in the direction of the links the
	 * one after via[k] is via[k - 1] (via[steps - 1] after via[s]). */
	unsigned s = (unsigned)seen[cur], at = s;
	for (unsigned k = s; k < steps; k++)
		if (via[k] < via[at])
			at = k;
	unsigned start = via[at];
	do {
		const struct sl_link_cfg *lk = &cfg->links[via[at]];
		int w = snprintf(text + used, sizeof(text) - used, "%s -> ",
				 cfg->apps[lk->from.app].name);
		if (w > 0 && (size_t)w < sizeof(text) - used)
			used += (size_t)w;
		at = at > s ? at - 1 : steps - 1;
	} while (via[at] != start);
	snprintf(text + used, sizeof(text) - used, "%s", cfg->apps[cfg->links[start].from.app].name);

	rc = sl_errf(err, EINVAL, "%s:%u:%u: links form a cycle: %s", cfg->path,
		     cfg->links[start].mark.line, cfg->links[start].mark.col, text);
out:
	free(seen);
	free(via);
	free(first);
	free(in);
	return rc;
}

/* A binary min-heap of app indices: among the ready apps, the one declared
 * first goes next. */
static void heap_push(unsigned *h, unsigned *n, unsigned v)
{
	unsigned i = (*n)++;
	while (i > 0 && h[(i - 1) / 2] > v) {
		h[i] = h[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h[i] = v;
}

static unsigned heap_pop(unsigned *h, unsigned *n)
{
	unsigned top = h[0], v = h[--(*n)], i = 0;
	for (;;) {
		unsigned k = 2 * i + 1;
		if (k >= *n)
			break;
		if (k + 1 < *n && h[k + 1] < h[k])
			k++;
		if (h[k] >= v)
			break;
		h[i] = h[k];
		i = k;
	}
	h[i] = v;
	return top;
}

int sl_config_order(struct sl_config *cfg, struct sl_err *err)
{
	unsigned n = cfg->n_apps;
	unsigned *order = calloc(n + 1, sizeof(*order));
	unsigned *indeg = calloc(n + 1, sizeof(*indeg));
	unsigned *heap = calloc(n + 1, sizeof(*heap));
	bool *left = calloc(n + 1, sizeof(*left));
	unsigned *first = NULL;
	unsigned *out = links_by_app(cfg, true, &first);
	unsigned placed = 0, n_heap = 0;
	int rc = 0;

	if (order == NULL || indeg == NULL || heap == NULL || left == NULL || out == NULL) {
		rc = sl_errf(err, ENOMEM, "%s: out of memory", cfg->path);
		goto out;
	}
	for (unsigned l = 0; l < cfg->n_links; l++)
		if (link_orders(cfg, l))
			indeg[cfg->links[l].to.app]++;
	for (unsigned i = 0; i < n; i++) {
		left[i] = true;
		if (indeg[i] == 0)
			heap_push(heap, &n_heap, i);
	}
	while (n_heap > 0) {
		unsigned pick = heap_pop(heap, &n_heap);
		left[pick] = false;
		order[placed++] = pick;
		for (unsigned k = first[pick]; k < first[pick + 1]; k++) {
			unsigned to = cfg->links[out[k]].to.app;
			if (--indeg[to] == 0)
				heap_push(heap, &n_heap, to);
		}
	}
	if (placed < n) {
		rc = report_cycle(cfg, left, err);
		goto out;
	}
	free(cfg->order);
	cfg->order = order;
	order = NULL;
out:
	free(order);
	free(indeg);
	free(heap);
	free(left);
	free(first);
	free(out);
	return rc;
}

/* ---- entry points ------------------------------------------------------- */

/* Line and column of a byte offset, for reader errors (bad UTF-8...). */
static struct sl_mark offset_mark(const char *text, size_t len, size_t off)
{
	struct sl_mark m = { 1, 1 };

	for (size_t i = 0; i < off && i < len; i++) {
		if (text[i] == '\n') {
			m.line++;
			m.col = 1;
		} else {
			m.col++;
		}
	}
	return m;
}

static int syntax_error(struct ctx *c, const yaml_parser_t *p, const char *text, size_t len)
{
	const char *problem = p->problem != NULL ? p->problem : "malformed input";

	switch (p->error) {
	case YAML_MEMORY_ERROR:
		return out_of_memory(c);
	case YAML_READER_ERROR:
		return fail_at(c, offset_mark(text, len, p->problem_offset),
			       "YAML syntax error: %s", problem);
	default:
		break;
	}
	struct sl_mark m = { (unsigned)p->problem_mark.line + 1,
			     (unsigned)p->problem_mark.column + 1 };
	if (p->context != NULL)
		return fail_at(c, m, "YAML syntax error: %s (%s at line %u)", problem, p->context,
			       (unsigned)p->context_mark.line + 1);
	return fail_at(c, m, "YAML syntax error: %s", problem);
}

/* Collections nested deeper than this are refused before the document is
 * built.  A configuration needs 5 levels (root, apps, an app, a list, a
 * row); libyaml's scanner spends time in proportion to the depth on every
 * token, so deep nesting would make loading quadratic. */
#define NESTING_MAX 64

/* A first pass over the events, stopping at the first collection nested
 * deeper than NESTING_MAX.  Syntax errors are left to the loader's pass,
 * which reports them. */
static int check_nesting(struct ctx *c, const char *text, size_t len)
{
	yaml_parser_t parser;
	yaml_event_t ev;
	unsigned depth = 0;
	int rc = 0;

	if (!yaml_parser_initialize(&parser))
		return out_of_memory(c);
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	while (rc == 0 && yaml_parser_parse(&parser, &ev)) {
		yaml_event_type_t t = ev.type;
		struct sl_mark m = { (unsigned)ev.start_mark.line + 1,
				     (unsigned)ev.start_mark.column + 1 };
		yaml_event_delete(&ev);
		if (t == YAML_STREAM_END_EVENT)
			break;
		if (t == YAML_SEQUENCE_START_EVENT || t == YAML_MAPPING_START_EVENT) {
			if (++depth > NESTING_MAX)
				rc = fail_at(c, m, "YAML nesting deeper than %d levels; a "
					     "configuration needs at most 5", NESTING_MAX);
		} else if (t == YAML_SEQUENCE_END_EVENT || t == YAML_MAPPING_END_EVENT) {
			depth--;
		}
	}
	yaml_parser_delete(&parser);
	return rc;
}

/* Walk the top-level mapping, sections in dependency order. */
/* Highest connected output index + 1 of app a (as the engine numbers them:
 * the family number for "name#" ports, the port's place otherwise). */
static unsigned outputs_connected(const struct ctx *c, unsigned a)
{
	const struct sl_app_type *t = c->cfg->apps[a].type;
	unsigned n = 0;
	for (unsigned s = 0; s < t->n_outputs; s++) {
		uint64_t used = port_word(c, &(struct sl_endpoint){ .app = a, .spec = s }, true)[0];
		if (used == 0)
			continue;
		const char *name = t->outputs[s].name;
		unsigned idx = name[strlen(name) - 1] == '#' ? 63u - (unsigned)__builtin_clzll(used) : s;
		if (idx + 1 > n)
			n = idx + 1;
	}
	return n;
}

/* Each app type's own checks of its values (sl_app_type.check). */
static int check_apps(struct ctx *c)
{
	const struct sl_config *cfg = c->cfg;
	for (unsigned i = 0; i < cfg->n_apps; i++) {
		const struct sl_app_cfg *a = &cfg->apps[i];
		if (a->type->check == NULL)
			continue;
		struct sl_err e = { "" };
		if (a->type->check(a->params, outputs_connected(c, i), &e) == 0)
			continue;
		/* A sentence that starts with a place of this file ("FILE:L:C: ",
		 * a list row's where) points there; any other, at the app. */
		size_t nl = strlen(c->name);
		unsigned line, col;
		int used = 0;
		if (strncmp(e.msg, c->name, nl) == 0 &&
		    sscanf(e.msg + nl, ":%u:%u: %n", &line, &col, &used) == 2 && used > 0)
			return fail_at(c, (struct sl_mark){ line, col }, "app '%s': %s", a->name,
				       e.msg + nl + used);
		return fail_at(c, a->mark, "app '%s': %s", a->name, e.msg);
	}
	return 0;
}

/* Do two values of one spec hold the same setting? */
static bool same_value(const struct sl_param_spec *spec, const struct sl_param_value *x,
		       const struct sl_param_value *y)
{
	switch (spec->type) {
	case SL_PARAM_STRING:
		return strcmp(x->s, y->s) == 0;
	case SL_PARAM_MAC:
		return memcmp(x->mac, y->mac, sizeof(x->mac)) == 0;
	case SL_PARAM_TABLE:
		return x->n_rows == 0 && y->n_rows == 0;
	default:
		return x->u == y->u;
	}
}

/* "a|b|c" as "a, b and c". */
static const char *and_list(const char *bars, char *buf, size_t len)
{
	size_t used = 0;
	const char *last = strrchr(bars, '|');

	buf[0] = '\0';
	for (const char *p = bars; *p != '\0' && used + 6 < len; p++) {
		if (*p != '|') {
			buf[used++] = *p;
		} else if (p == last) {
			memcpy(buf + used, " and ", 5);
			used += 5;
		} else {
			memcpy(buf + used, ", ", 2);
			used += 2;
		}
	}
	buf[used] = '\0';
	return buf;
}

/* App a's STRING parameters that name another app (spec.app_type) or a
 * shared object (spec.share_agree; `shared` lists the apps of a's type that
 * give a value other than `none`, sorted by that value). */
static int check_app_refs(struct ctx *c, unsigned ai, unsigned p, const struct name_ref *shared,
			  unsigned n_shared)
{
	const struct sl_config *cfg = c->cfg;
	const struct sl_app_cfg *a = &cfg->apps[ai];
	const struct sl_param_spec *spec = &a->type->params[p];
	const char *v = a->params[p].s;

	if (strcmp(v, "none") == 0)
		return 0;
	if (spec->app_type != NULL) {
		int j = find_app(c, v);
		if (j < 0)
			return fail_at(c, a->mark, "app '%s': parameter '%s': no %s app named '%s'",
				       a->name, spec->name, spec->app_type, v);
		if (strcmp(cfg->apps[j].type->name, spec->app_type) != 0)
			return fail_at(c, a->mark,
				       "app '%s': parameter '%s': app '%s' is a %s, not a %s",
				       a->name, spec->name, v, cfg->apps[j].type->name,
				       spec->app_type);
	}
	if (spec->share_agree == NULL)
		return 0;
	int j = find_app(c, v);
	if (j >= 0 && cfg->apps[j].type == a->type && strcmp(cfg->apps[j].params[p].s, "none") == 0)
		return fail_at(c, a->mark,
			       "app '%s': %s '%s' is the private %s of app '%s'; to share a %s, "
			       "every app that uses it names it with '%s:'", a->name, spec->name, v,
			       spec->name, v, spec->name, spec->name);
	/* The first app (in the file) of the run of equal values in shared. */
	unsigned lo = 0, hi = n_shared;
	while (lo < hi) {
		unsigned mid = lo + (hi - lo) / 2;
		if (strcmp(shared[mid].name, v) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	const struct sl_app_cfg *f = &cfg->apps[shared[lo].idx];
	if (f == a)
		return 0;
	char keys[256], list[320];
	snprintf(keys, sizeof(keys), "%s", spec->share_agree);
	for (char *save = NULL, *k = strtok_r(keys, "|", &save); k != NULL;
	     k = strtok_r(NULL, "|", &save)) {
		int q = sl_param_find(a->type->params, a->type->n_params, k);
		if (q < 0 || same_value(&a->type->params[q], &a->params[q], &f->params[q]))
			continue;
		return fail_at(c, a->mark,
			       "app '%s': %s '%s' is shared with app '%s', which sets a different "
			       "'%s'; apps sharing a %s must agree on %s", a->name, spec->name, v,
			       f->name, k, spec->name, and_list(spec->share_agree, list, sizeof(list)));
	}
	return 0;
}

/* The apps of one type that give one shared-object parameter a value other
 * than `none`, sorted by that value (file order within a value). */
struct share_index {
	const struct sl_app_type *type;
	unsigned param;
	struct name_ref *refs;
	unsigned n;
};

#define SHARE_INDEXES_MAX 64     /* distinct (type, parameter) pairs with share_agree */

static struct share_index *share_index_of(struct ctx *c, struct share_index *idx, unsigned *n_idx,
					  const struct sl_app_type *t, unsigned p)
{
	const struct sl_config *cfg = c->cfg;

	for (unsigned k = 0; k < *n_idx; k++)
		if (idx[k].type == t && idx[k].param == p)
			return &idx[k];
	if (*n_idx == SHARE_INDEXES_MAX)
		return NULL;
	struct share_index *x = &idx[(*n_idx)++];
	*x = (struct share_index){ .type = t, .param = p };
	x->refs = calloc(cfg->n_apps + 1, sizeof(*x->refs));
	if (x->refs == NULL)
		return NULL;
	for (unsigned j = 0; j < cfg->n_apps; j++)
		if (cfg->apps[j].type == t && strcmp(cfg->apps[j].params[p].s, "none") != 0)
			x->refs[x->n++] = (struct name_ref){ cfg->apps[j].params[p].s, j };
	qsort(x->refs, x->n, sizeof(*x->refs), cmp_name_ref);
	return x;
}

/* References between apps that the schema declares (sl_param_spec.app_type,
 * .share_agree), reported in file order.  O(n log n). */
static int check_refs(struct ctx *c)
{
	const struct sl_config *cfg = c->cfg;
	struct share_index idx[SHARE_INDEXES_MAX];
	unsigned n_idx = 0;
	int rc = 0;

	for (unsigned i = 0; i < cfg->n_apps && rc == 0; i++) {
		const struct sl_app_type *t = cfg->apps[i].type;
		for (unsigned p = 0; p < t->n_params && rc == 0; p++) {
			const struct sl_param_spec *spec = &t->params[p];
			struct share_index *x = NULL;
			if (spec->type != SL_PARAM_STRING ||
			    (spec->app_type == NULL && spec->share_agree == NULL))
				continue;
			if (spec->share_agree != NULL) {
				x = share_index_of(c, idx, &n_idx, t, p);
				if (x == NULL || x->refs == NULL) {
					rc = out_of_memory(c);
					break;
				}
			}
			rc = check_app_refs(c, i, p, x != NULL ? x->refs : NULL,
					    x != NULL ? x->n : 0);
		}
	}
	for (unsigned k = 0; k < n_idx; k++)
		free(idx[k].refs);
	return rc;
}

/* Resources one app alone may hold (sl_param_spec.exclusive: a port's
 * device): sorted by type, parameter and value up to its first comma, so
 * that two apps asking for one are neighbours. */
struct claim {
	const char *type, *param, *value;
	size_t len;
	unsigned app;
};

static int cmp_claim(const void *x, const void *y)
{
	const struct claim *a = x, *b = y;
	int d = strcmp(a->type, b->type);
	if (d == 0)
		d = strcmp(a->param, b->param);
	if (d == 0)
		d = strncmp(a->value, b->value, a->len < b->len ? a->len : b->len);
	if (d == 0)
		d = a->len < b->len ? -1 : a->len > b->len;
	if (d == 0)
		d = a->app < b->app ? -1 : a->app > b->app;
	return d;
}

static int check_exclusive(struct ctx *c)
{
	const struct sl_config *cfg = c->cfg;
	unsigned n = 0;
	for (unsigned i = 0; i < cfg->n_apps; i++)
		for (unsigned p = 0; p < cfg->apps[i].type->n_params; p++)
			n += cfg->apps[i].type->params[p].exclusive;
	if (n < 2)
		return 0;
	struct claim *cl = calloc(n, sizeof(*cl));
	if (cl == NULL)
		return out_of_memory(c);
	n = 0;
	for (unsigned i = 0; i < cfg->n_apps; i++) {
		const struct sl_app_cfg *a = &cfg->apps[i];
		for (unsigned p = 0; p < a->type->n_params; p++) {
			const char *v = a->params[p].s;
			if (!a->type->params[p].exclusive || v == NULL)
				continue;
			cl[n++] = (struct claim){ a->type->name, a->type->params[p].name, v,
						  strcspn(v, ","), i };
		}
	}
	qsort(cl, n, sizeof(*cl), cmp_claim);
	int rc = 0;
	for (unsigned i = 1; i < n && rc == 0; i++) {
		const struct claim *x = &cl[i - 1], *y = &cl[i];
		if (strcmp(x->type, y->type) != 0 || strcmp(x->param, y->param) != 0 ||
		    x->len != y->len || strncmp(x->value, y->value, x->len) != 0)
			continue;
		const struct sl_app_cfg *first = &cfg->apps[x->app], *second = &cfg->apps[y->app];
		rc = fail_at(c, second->mark,
			     "app '%s': %s '%.*s' is already served by app '%s' (line %u); one %s app "
			     "serves a %s: to spread it over several workers, run that app on a "
			     "worker group ({ cores: [...] })", second->name, x->param, (int)x->len,
			     x->value, first->name, first->mark.line, x->type, x->param);
	}
	free(cl);
	return rc;
}

static int parse_root(struct ctx *c, const yaml_node_t *root)
{
	const char *top[SEC_N];
	const yaml_node_t *sec[SEC_N] = { NULL };
	int rc;

	for (unsigned i = 0; i < SEC_N; i++)
		top[i] = sections[i].name;

	if (root->type != YAML_MAPPING_NODE)
		return fail_at(c, node_mark(root),
			       "the configuration must be a mapping with 'apps' and 'links', got %s",
			       kind_name(root));
	rc = check_keys(c, root, "key", "");
	if (rc < 0)
		return rc;
	for (const yaml_node_pair_t *p = root->data.mapping.pairs.start;
	     p < root->data.mapping.pairs.top; p++) {
		const yaml_node_t *k = node_at(c, p->key);
		unsigned i = 0;
		while (i < SEC_N && strcmp(top[i], text_of(k)) != 0)
			i++;
		if (i == SEC_N)
			return unknown_key(c, k, "", "top-level key", top, SEC_N);
		sec[i] = node_at(c, p->value);
	}
	rc = parse_dpdk(c, sec[SEC_DPDK]);
	if (rc == 0)
		rc = parse_pool(c, sec[SEC_POOL]);
	if (rc == 0)
		rc = parse_engine(c, sec[SEC_ENGINE]);
	if (rc == 0)
		rc = parse_workers(c, sec[SEC_WORKERS]);
	/* With no pool section, a pool warning points at the workers. */
	if (rc == 0 && c->pool_mark.line == 0 && !section_absent(sec[SEC_WORKERS]))
		c->pool_mark = node_mark(sec[SEC_WORKERS]);
	if (rc == 0)
		rc = pool_warnings(c);
	if (rc == 0)
		rc = parse_apps(c, sec[SEC_APPS], root);
	if (rc == 0)
		rc = alloc_ports(c);
	if (rc == 0)
		rc = parse_links(c, sec[SEC_LINKS]);
	if (rc == 0)
		rc = parse_topology(c, sec[SEC_TOPOLOGY]);
	if (rc == 0)
		rc = check_ports(c);
	if (rc == 0)
		rc = check_apps(c);
	if (rc == 0)
		rc = check_refs(c);
	if (rc == 0)
		rc = check_exclusive(c);
	if (rc == 0)
		rc = sl_config_replicate(c->cfg, c->err);
	if (rc == 0)
		rc = sl_config_order(c->cfg, c->err);
	return rc;
}

struct sl_config *sl_config_parse(const char *name, const char *text, size_t len,
				  struct sl_err *err)
{
	struct sl_err scratch;
	struct ctx c = { .name = name != NULL ? name : "<config>",
			 .err = err != NULL ? err : &scratch,
			 /* A row takes at least a few bytes of text unless an
			  * alias repeats it. */
			 .rows_max = (uint64_t)len + 1024 };
	yaml_parser_t parser;
	yaml_document_t doc, extra;
	int rc;

	c.cfg = calloc(1, sizeof(*c.cfg));
	if (c.cfg == NULL) {
		errno = -out_of_memory(&c);
		return NULL;
	}
	c.cfg->path = strdup(c.name);
	if (c.cfg->path == NULL) {
		rc = out_of_memory(&c);
		goto out_free_cfg;
	}
	rc = check_nesting(&c, text, len);
	if (rc < 0)
		goto out_free_cfg;
	if (!yaml_parser_initialize(&parser)) {
		rc = out_of_memory(&c);
		goto out_free_cfg;
	}
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	if (!yaml_parser_load(&parser, &doc)) {
		rc = syntax_error(&c, &parser, text, len);
		goto out_delete_parser;
	}
	c.doc = &doc;

	/* A second document is a mistake (and a syntax error in it is one too). */
	if (!yaml_parser_load(&parser, &extra)) {
		rc = syntax_error(&c, &parser, text, len);
		goto out_delete_doc;
	}
	yaml_node_t *more = yaml_document_get_root_node(&extra);
	if (more != NULL) {
		rc = fail_at(&c, node_mark(more),
			     "a second YAML document; a configuration is one document");
		yaml_document_delete(&extra);
		goto out_delete_doc;
	}
	yaml_document_delete(&extra);

	yaml_node_t *root = yaml_document_get_root_node(&doc);
	if (root == NULL || is_null(root))
		rc = fail_at(&c, (struct sl_mark){ 1, 1 },
			     "empty configuration; expected a mapping with 'apps' and 'links'");
	else
		rc = parse_root(&c, root);

out_delete_doc:
	yaml_document_delete(&doc);
out_delete_parser:
	yaml_parser_delete(&parser);
out_free_cfg:
	free(c.workers_by_name);
	free(c.apps_by_name);
	free(c.ports_used);
	free(c.ports_base);
	free(c.core_owner);
	if (rc < 0) {
		sl_config_free(c.cfg);
		errno = -rc;
		return NULL;
	}
	return c.cfg;
}

struct sl_config *sl_config_load(const char *path, struct sl_err *err)
{
	struct stat st;
	char *buf = NULL;
	size_t len = 0;
	int e;

	/* Opened without blocking (a FIFO without a writer would wait), then
	 * checked: only a regular file is read, and at most SL_CONFIG_MAX_BYTES
	 * of it.  The size fstat reports only sizes the first buffer: a file
	 * is read to its end (a pseudo-file such as /proc/self/status reports
	 * 0 bytes), and one that passes the cap while it is read is refused. */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return sl_errf_null(err, errno, "%s: cannot read: %s", path, strerror(errno));
	if (fstat(fd, &st) != 0) {
		e = errno;
		sl_errf(err, e, "%s: cannot read: %s", path, strerror(e));
		goto out_close;
	}
	if (S_ISDIR(st.st_mode)) {
		e = -sl_errf(err, EISDIR, "%s: cannot read: %s", path, strerror(EISDIR));
		goto out_close;
	}
	if (!S_ISREG(st.st_mode)) {
		e = -sl_errf(err, EINVAL, "%s: cannot read: it is %s, not a regular file", path,
			     S_ISCHR(st.st_mode) ? "a character device" :
			     S_ISBLK(st.st_mode) ? "a block device" :
			     S_ISFIFO(st.st_mode) ? "a FIFO" : S_ISSOCK(st.st_mode) ? "a socket" :
			     "a special file");
		goto out_close;
	}
	if (st.st_size > SL_CONFIG_MAX_BYTES) {
		e = -sl_errf(err, EFBIG, "%s: too large: %lld bytes, more than the %d MiB a "
			     "configuration may have", path, (long long)st.st_size,
			     SL_CONFIG_MAX_BYTES >> 20);
		goto out_close;
	}
	/* Room for the whole file and a page more (to see its end), grown
	 * while the file goes on, up to the cap and a page. */
	const size_t limit = (size_t)SL_CONFIG_MAX_BYTES + 4096;
	size_t cap = (size_t)st.st_size + 4096;
	buf = malloc(cap);
	if (buf == NULL) {
		e = -sl_errf(err, ENOMEM, "%s: cannot read: out of memory", path);
		goto out_close;
	}
	for (;;) {
		if (len == cap) {
			size_t more = cap * 2 > limit ? limit : cap * 2;
			char *b = more > cap ? realloc(buf, more) : NULL;
			if (b == NULL) {
				e = -sl_errf(err, ENOMEM, "%s: cannot read: out of memory", path);
				goto out_free;
			}
			buf = b;
			cap = more;
		}
		ssize_t got = read(fd, buf + len, cap - len);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			e = errno;
			sl_errf(err, e, "%s: cannot read: %s", path, strerror(e));
			goto out_free;
		}
		if (got == 0)
			break;
		len += (size_t)got;
		if (len > (size_t)SL_CONFIG_MAX_BYTES) {
			e = -sl_errf(err, EFBIG, "%s: too large: more than the %d MiB a "
				     "configuration may have (read up to there)", path,
				     SL_CONFIG_MAX_BYTES >> 20);
			goto out_free;
		}
	}
	close(fd);

	struct sl_config *cfg = sl_config_parse(path, buf, len, err);
	e = errno;
	free(buf);
	errno = e;
	return cfg;

out_free:
	free(buf);
out_close:
	close(fd);
	errno = e;
	return NULL;
}

void sl_config_free(struct sl_config *cfg)
{
	if (cfg == NULL)
		return;
	for (unsigned i = 0; i < cfg->n_eal_args; i++)
		free(cfg->eal_args[i]);
	free(cfg->eal_args);
	free(cfg->c2c_path);
	for (unsigned i = 0; i < cfg->n_workers; i++) {
		free(cfg->workers[i].name);
		free(cfg->workers[i].group);
	}
	free(cfg->workers);
	for (unsigned i = 0; i < cfg->n_apps; i++) {
		struct sl_app_cfg *a = &cfg->apps[i];
		if (a->params != NULL)
			for (unsigned p = 0; p < a->type->n_params; p++)
				sl_param_value_free(&a->params[p]);
		free(a->params);
		free(a->name);
		free(a->base);
	}
	free(cfg->apps);
	for (unsigned i = 0; i < cfg->n_links; i++) {
		free(cfg->links[i].from.port);
		free(cfg->links[i].to.port);
	}
	free(cfg->links);
	free(cfg->order);
	for (unsigned i = 0; i < cfg->n_warnings; i++)
		free(cfg->warnings[i]);
	free(cfg->warnings);
	free(cfg->path);
	free(cfg);
}
