/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sluice-bench: benchmarks made of real pipelines, a program of its own
 * beside sluice and sluice-exporter (the sweeps, their files and their
 * child processes are no part of the product binary).  `sluice bench ARGS`
 * runs it, found next to the sluice binary, with ARGS.
 *
 *   sluice bench latency [--out DIR] [--duration S] [--loads LIST]
 *                        [--receivers N] [--ops LIST] [--size BYTES]
 *                        [--quick] [--dry-run]
 *
 * latency: one-way latency and throughput between workers, for every hop
 * class this machine offers (the same worker, SMT siblings, one L3 domain,
 * two L3 domains, two NUMA nodes) and for one transmitter feeding 1..N
 * receivers, at several offered loads, with each pool (ops sluice, dpdk).
 * Every run is a pipeline of probe_source and probe_sink apps on explicit
 * cores, run by a child process (the sluice binary beside this one: `sluice
 * run`), because DPDK's EAL can be initialised once per process.  Writes
 * DIR/results.csv, DIR/results.json, DIR/machine.xml (hwloc) and DIR/runs/
 * (each run's config, log and the sinks' reports).  docs/benchmarks.md
 * ("Latency between workers") describes the runs and the files.
 *
 * Thread: the process's main thread; forks one child per run and waits for
 * it.  Exit status: 0 success, 1 a run failed (named, with the end of its
 * log), 2 a usage error.
 *
 * Placements come from the topology of this machine (never a described one):
 *
 *   pair       one probe_source on the transmitter's worker, one probe_sink
 *              on the receiver's, for each hop class the allowed CPUs offer
 *              (smt-sibling, same-l3, cross-l3, cross-numa), plus "local":
 *              both apps on one worker, the baseline without a hop.
 *   receivers  one probe_source with k outputs, each linked to a probe_sink
 *              on its own worker, k = 1..N, the receivers' CPUs ordered by
 *              hop class from the transmitter (closest first).
 *
 * The transmitter runs on the first allowed CPU that is neither the first
 * one nor its SMT sibling, and receivers take the first allowed CPU last
 * within their hop class, so that it stays free for the control thread as
 * long as possible (placement gives the control thread the first allowed CPU
 * no worker uses).  On two CPUs the control thread shares the receiver's.
 *
 * Every placement runs at every load with every pool ops, loads and ops
 * innermost so that the runs compared with each other are adjacent in time.
 * A run: DIR/runs/NNN.yaml, `sluice run NNN.yaml --duration S --summary-json
 * NNN-summary.json` with its output in NNN.log, its JSON summary (the
 * packets sent, the links' drops, every mbuf back: docs/summary.md) in
 * NNN-summary.json, each sink's report in NNN-rxK.json.  Per run, the
 * receivers are aggregated: counts and Mpps are summed, the percentiles and
 * max are the worst receiver's, min the best's, and the histograms are summed
 * bucket by bucket.
 */
#include <errno.h>
#include <fcntl.h>
#include <hwloc.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <dirent.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "cli/opts.h"
#include "runtime/app.h"
#include "base/err.h"
#include "runtime/param.h"
#include "placement/c2c.h"
#include "placement/topology.h"

#define BENCH_MAX_LOADS 16
#define BENCH_MAX_RX SL_MAX_PORTS       /* outputs of one probe_source */
#define BENCH_LOG_TAIL 25               /* lines shown of a failed run's log */
#define BENCH_GRACE_S 60.0              /* beyond the duration: EAL start, drain */

static const char usage_text[] =
	"usage: sluice bench latency [--out DIR] [--duration S] [--loads LIST]\n"
	"                            [--receivers N] [--ops LIST] [--size BYTES]\n"
	"                            [--memory 4k|2m] [--order shuffled|address]\n"
	"                            [--quick] [--dry-run]\n"
	"\n"
	"One-way latency between workers: one pair of workers per hop class this\n"
	"machine offers (and both apps on one worker, 'local'), then one transmitter\n"
	"feeding 1..N receivers, at each load, with each pool; every run a real\n"
	"pipeline (probe_source -> probe_sink) on explicit cores, in a child process.\n"
	"\n"
	"  --out DIR        where results.csv, results.json, machine.xml and runs/ go\n"
	"                   (default bench-latency-YYYYMMDD-HHMMSS)\n"
	"  --duration S     seconds per run (default 2; --quick: 1)\n"
	"  --loads LIST     offered loads in packets per second, 0 = unlimited\n"
	"                   (default 10k,100k,1M,0; --quick: 100k)\n"
	"  --receivers N    sweep 1..N receivers; 0 skips the sweep (default: every\n"
	"                   allowed CPU but the transmitter's, at most 16; --quick: 2)\n"
	"  --ops LIST       pool ops to compare: sluice,dpdk (default both)\n"
	"  --size BYTES     frame size, 60..9000 (default 64)\n"
	"  --memory 4k|2m   the runs' memory: 4k (default) --no-huge -m 512, 4 kB\n"
	"                   pages, no set-up needed; 2m --in-memory --socket-mem\n"
	"                   512 on 2 MB hugepages (256 free ones on NUMA node 0\n"
	"                   needed), the memory DPDK is deployed on\n"
	"  --order shuffled|address\n"
	"                   pool.order of the runs with ops sluice (default\n"
	"                   shuffled: each pair has one worker read what the other\n"
	"                   wrote; docs/pool.md, \"Order\")\n"
	"  --quick          one load, short runs (for tests)\n"
	"  --dry-run        print the runs and exit\n"
	"\n"
	"Each run leaves in runs/: NNN.yaml (its config), NNN.log (its output),\n"
	"NNN-summary.json (its JSON summary, docs/summary.md: every mbuf back is\n"
	"checked there) and NNN-rxK.json (receiver K's report).  A run across\n"
	"CPUs also gets the pair's one-way c2c measured just before and after it,\n"
	"and its regime (near below 100 ns, far, or mixed).  With load 0 and a pair\n"
	"across CPUs the last line (stdout) is\n"
	"  summary: cliff_ratio=A pool_ratio_across=B c2c_ns=C regime=R\n"
	"A the farthest pair's Mpps over the local pair's, B that pair's with ops\n"
	"sluice over ops dpdk, C and R the c2c around those runs.\n";

enum { OPS_SLUICE, OPS_DPDK, OPS_N };
static const char *const ops_names[OPS_N] = { "sluice", "dpdk" };

/* --memory: the EAL's memory for every run (write_config), as bench-link's
 * and bench-peers' --memory.  With --no-huge DPDK gives each mbuf a 4 kB
 * page of its own, so every mbuf's first line falls in the same few cache
 * sets (docs/benchmarks.md); on hugepages the mbufs are packed. */
enum { MEM_4K, MEM_2M };
static const char *const memory_names[] = { "4k", "2m", NULL };
static const char *const memory_eal[] = {
	[MEM_4K] = "--no-huge, -m, \"512\"",
	[MEM_2M] = "--in-memory, --socket-mem, \"512\"",
};
#define BENCH_HUGEPAGES_2M 256u   /* --socket-mem 512 */

/* --order: pool.order of the runs with ops sluice (docs/pool.md, "Order"):
 * shuffled by default, since every pair of workers here has one read what
 * the other wrote. */
enum { ORDER_SHUFFLED, ORDER_ADDRESS };
static const char *const order_names[] = { "shuffled", "address", NULL };

/* The fields of a probe_sink report that the bench keeps. */
enum {
	R_PACKETS, R_LOST, R_REORDERED, R_FOREIGN, R_DURATION, R_MPPS,
	R_MIN, R_P50, R_P90, R_P99, R_P999, R_MAX, R_N
};
static const char *const report_keys[R_N] = {
	"packets", "lost", "reordered", "foreign", "duration_s", "mpps",
	"min_ns", "p50_ns", "p90_ns", "p99_ns", "p999_ns", "max_ns",
};

struct bench_opts {
	const char *out;
	char out_default[64];
	double duration;
	bool duration_set;
	uint64_t loads[BENCH_MAX_LOADS];
	unsigned n_loads;
	int receivers;          /* -1: as many as the machine allows */
	int ops[OPS_N];
	unsigned n_ops;
	unsigned size;
	int memory;             /* MEM_4K, MEM_2M */
	int order;              /* ORDER_SHUFFLED, ORDER_ADDRESS */
	bool quick, dry_run;
};

struct place {
	bool receivers;         /* kind: receivers sweep (else a pair) */
	bool local;             /* source and sink on one worker */
	int tx;
	int rx[BENCH_MAX_RX];
	enum sl_hop hop[BENCH_MAX_RX];
	unsigned n_rx;
};

struct bucket {
	double lo, hi, count;
};

struct rx_result {
	double v[R_N];
};

struct result {
	unsigned run;
	const struct place *p;
	uint64_t load;
	int ops;
	int control_cpu;        /* -1: unknown */
	double other_load;      /* CPUs busy with other work, on average; -1: unknown */
	double steal;           /* CPUs taken by the hypervisor, on average; -1: unknown */
	double sent, drops;     /* from the run's JSON summary; -1: unknown */
	double c2c[2];          /* one-way ns between the transmitter and its farthest
				 * receiver, before and after the run; -1: not
				 * measured (a local run, or the measure failed) */
	double v[R_N];          /* aggregated over the receivers */
	struct rx_result rx[BENCH_MAX_RX];
	struct bucket *hist;
	unsigned n_hist;
};

static volatile sig_atomic_t bench_signalled;

/* The sluice binary that runs each pipeline: the one beside this program. */
static char sluice_path[PATH_MAX + 16];

static void on_signal(int sig)
{
	bench_signalled = sig;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- small helpers -------------------------------------------------------- */

static const struct sl_command latency_cmd = {
	.name = "bench latency",
	.synopsis = "bench latency [--out DIR] [--duration S] [--loads LIST]\n"
		    "              [--receivers N] [--ops LIST] [--size BYTES]\n"
		    "              [--memory 4k|2m] [--order shuffled|address]\n"
		    "              [--quick] [--dry-run]",
	.help = usage_text,
};

static const char *hop_label(const struct place *p, unsigned i)
{
	return p->local ? "local" : sl_hop_name(p->hop[i]);
}

/* The hop class of a run: a pair's, or the farthest of a sweep's receivers. */
static const char *place_hop(const struct place *p)
{
	unsigned far = 0;
	for (unsigned i = 1; i < p->n_rx; i++)
		if (p->hop[i] > p->hop[far])
			far = i;
	return hop_label(p, far);
}

/* "10k", "1M", "250000", "max" */
static const char *load_label(uint64_t load, char *buf, size_t len)
{
	if (load == 0)
		snprintf(buf, len, "max");
	else if (load % 1000000 == 0)
		snprintf(buf, len, "%lluM", (unsigned long long)(load / 1000000));
	else if (load % 1000 == 0)
		snprintf(buf, len, "%lluk", (unsigned long long)(load / 1000));
	else
		snprintf(buf, len, "%llu", (unsigned long long)load);
	return buf;
}

/* A number in fixed notation: integers without a fraction, others with at
 * most 6 decimals, trailing zeros dropped.  The same text in CSV and JSON. */
static void put_num(FILE *f, double v)
{
	char buf[64];
	if (v == (double)(long long)v) {
		fprintf(f, "%lld", (long long)v);
		return;
	}
	int n = snprintf(buf, sizeof(buf), "%.6f", v);
	while (n > 1 && buf[n - 1] == '0')
		buf[--n] = '\0';
	if (n > 1 && buf[n - 1] == '.')
		buf[--n] = '\0';
	fputs(buf, f);
}

/* ---- JSON values (jansson) ------------------------------------------------- */

/* A number as put_num writes it (an integer, or at most 6 decimals), or null
 * for -1 (unknown) where asked.  Dumped with JSON_REAL_PRECISION(15), it
 * reads as in the CSV.  NULL: no memory. */
static json_t *jnum(double v, bool unknown_is_null)
{
	if (unknown_is_null && v < 0)
		return json_null();
	char buf[64];
	snprintf(buf, sizeof(buf), "%.6f", v);
	double r = strtod(buf, NULL);
	if (r == (double)(long long)r)
		return json_integer((json_int_t)r);
	return json_real(r);
}

/* s as a JSON string; bytes that are not UTF-8 (a path, an argument) become
 * '?'.  NULL: no memory. */
static json_t *jstr(const char *s)
{
	json_t *j = json_string(s);
	if (j != NULL)
		return j;
	char *copy = strdup(s);
	if (copy == NULL)
		return NULL;
	for (char *c = copy; *c != '\0'; c++)
		if ((unsigned char)*c >= 0x80)
			*c = '?';
	j = json_string(copy);
	free(copy);
	return j;
}

/* Append v to the array a, which takes v.  Returns a, or NULL (a and v
 * freed) if either is NULL or there is no memory. */
static json_t *append(json_t *a, json_t *v)
{
	if (a == NULL) {
		json_decref(v);
		return NULL;
	}
	if (json_array_append_new(a, v) != 0) {
		json_decref(a);
		return NULL;
	}
	return a;
}

static json_t *int_array(const int *v, unsigned n)
{
	json_t *a = json_array();
	for (unsigned i = 0; i < n; i++)
		a = append(a, json_integer(v[i]));
	return a;
}

static char *read_file(const char *path, size_t max)
{
	FILE *f = fopen(path, "r");
	if (f == NULL)
		return NULL;
	size_t cap = 4096, len = 0;
	char *buf = malloc(cap);
	while (buf != NULL) {
		if (len + 1 >= cap) {
			if (cap >= max)
				break;
			char *nb = realloc(buf, cap * 2);
			if (nb == NULL) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = nb;
			cap *= 2;
		}
		size_t n = fread(buf + len, 1, cap - 1 - len, f);
		if (n == 0)
			break;
		len += n;
	}
	fclose(f);
	if (buf != NULL)
		buf[len] = '\0';
	return buf;
}

/* Everything a command prints on stdout, or NULL. */
static char *command_output(const char *cmd)
{
	FILE *p = popen(cmd, "r");
	if (p == NULL)
		return NULL;
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	if (m != NULL) {
		char chunk[4096];
		size_t n;
		while ((n = fread(chunk, 1, sizeof(chunk), p)) > 0)
			fwrite(chunk, 1, n, m);
		fclose(m);
	}
	if (pclose(p) != 0 || len == 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

static int mkdir_p(const char *path)
{
	char buf[4096];
	if (snprintf(buf, sizeof(buf), "%s", path) >= (int)sizeof(buf))
		return -ENAMETOOLONG;
	for (char *s = buf + 1; *s != '\0'; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(buf, 0755) < 0 && errno != EEXIST)
			return -errno;
		*s = '/';
	}
	if (mkdir(buf, 0755) < 0 && errno != EEXIST)
		return -errno;
	return 0;
}

/* DPDK's runtime directory for a file prefix (flat: files only). */
static void remove_runtime_dir(const char *prefix)
{
	char dir[512];
	const char *base = geteuid() == 0 ? "/var/run" : getenv("XDG_RUNTIME_DIR");
	if (base == NULL)
		base = "/tmp";
	snprintf(dir, sizeof(dir), "%s/dpdk/%s", base, prefix);
	DIR *d = opendir(dir);
	if (d == NULL)
		return;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		char p[1024];
		snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
		unlink(p);
	}
	closedir(d);
	rmdir(dir);
}

/* DIR/runs/NNN then suffix (".yaml", ".log", "-summary.json") or, with
 * rx >= 0, "-rxK.json".
 * The --out option is short enough (checked) for every such path to fit. */
static void run_path(char *buf, size_t len, const char *dir, unsigned run, int rx,
		     const char *suffix)
{
	char tail[32];
	if (rx >= 0)
		snprintf(tail, sizeof(tail), "-rx%d.json", rx);
	else
		snprintf(tail, sizeof(tail), "%s", suffix);
	int n = snprintf(buf, len, "%s/runs/%03u%s", dir, run, tail);
	if (n < 0 || (size_t)n >= len)
		buf[0] = '\0';
}

/* The machine's CPU time so far (/proc/stat, all CPUs), in seconds: busy
 * (user, nice, system, irq, softirq) and stolen by the hypervisor.  Returns
 * false if it cannot be read. */
static bool cpu_times(double *busy, double *steal)
{
	unsigned long long v[8] = { 0 };
	FILE *f = fopen("/proc/stat", "r");
	if (f == NULL)
		return false;
	int n = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2],
		       &v[3], &v[4], &v[5], &v[6], &v[7]);
	fclose(f);
	if (n != 8)
		return false;
	double tick = (double)sysconf(_SC_CLK_TCK);
	*busy = (double)(v[0] + v[1] + v[2] + v[5] + v[6]) / tick;
	*steal = (double)v[7] / tick;
	return true;
}

/* ---- the sinks' reports ----------------------------------------------------- */

/* The report's "histogram": [[lower_ns, upper_ns, count], ...], appended to
 * *h.  Returns 0, -EINVAL (not such a list) or -ENOMEM. */
static int report_histogram(const json_t *report, struct bucket **h, unsigned *n)
{
	const json_t *list = json_object_get(report, "histogram");
	if (!json_is_array(list))
		return -EINVAL;
	size_t i;
	const json_t *b;
	json_array_foreach(list, i, b) {
		double v[3];
		if (!json_is_array(b) || json_array_size(b) != 3)
			return -EINVAL;
		for (size_t k = 0; k < 3; k++) {
			const json_t *x = json_array_get(b, k);
			if (!json_is_number(x))
				return -EINVAL;
			v[k] = json_number_value(x);
		}
		struct bucket *nb = realloc(*h, (*n + 1) * sizeof(**h));
		if (nb == NULL)
			return -ENOMEM;
		*h = nb;
		(*h)[(*n)++] = (struct bucket){ v[0], v[1], v[2] };
	}
	return 0;
}

/* The number at obj.key into *v: 0, or -EINVAL with a sentence naming the
 * file and the value ("where" + key) if obj has no number there. */
static int json_num_at(const char *path, const json_t *obj, const char *where,
		       const char *key, double *v, struct sl_err *err)
{
	const json_t *x = json_object_get(obj, key);
	if (!json_is_number(x))
		return sl_errf(err, EINVAL, "%s: no number at \"%s%s\"", path, where, key);
	*v = json_number_value(x);
	return 0;
}

/* The JSON document at path (what: "report", "summary"), written by
 * writer; NULL with errno (ENOENT, EINVAL) and a sentence in err if the file
 * is missing or is not JSON.  The caller decrefs it. */
static json_t *load_json(const char *path, size_t flags, const char *what,
			 const char *writer, struct sl_err *err)
{
	FILE *f = fopen(path, "r");
	if (f == NULL)
		return sl_errf_null(err, ENOENT, "%s wrote no %s (%s: %s)", writer, what, path,
				    strerror(errno));
	json_error_t je;
	json_t *doc = json_loadf(f, flags, &je);
	fclose(f);
	if (doc == NULL)
		return sl_errf_null(err, EINVAL, "%s:%d:%d: not a JSON %s: %s", path, je.line,
				    je.column, what, je.text);
	return doc;
}

/* Sink i's report at path (probe_sink's JSON object): its numbers into x,
 * its histogram appended to h[0..*n).  Returns 0 or -errno with a sentence
 * in err. */
static int read_report(const char *path, unsigned i, struct rx_result *x, struct bucket **h,
		       unsigned *n, struct sl_err *err)
{
	char writer[32];
	snprintf(writer, sizeof(writer), "sink%u", i);
	/* as real: a count or bound beyond json_int_t reads as a double */
	json_t *doc = load_json(path, JSON_DECODE_INT_AS_REAL, "report", writer, err);
	if (doc == NULL)
		return -errno;
	int rc = 0;
	for (unsigned k = 0; k < R_N && rc == 0; k++)
		rc = json_num_at(path, doc, "", report_keys[k], &x->v[k], err);
	if (rc == 0 && (rc = report_histogram(doc, h, n)) < 0)
		rc = sl_errf(err, -rc, "%s: \"histogram\" is not a list of "
			     "[lower_ns, upper_ns, count]", path);
	json_decref(doc);
	return rc;
}

static int cmp_bucket(const void *a, const void *b)
{
	const struct bucket *x = a, *y = b;
	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	if (x->hi != y->hi)
		return x->hi < y->hi ? -1 : 1;
	return 0;
}

/* Sort and merge buckets with equal bounds (receivers' histograms summed). */
static void merge_histogram(struct bucket *h, unsigned *n)
{
	if (*n == 0)
		return;
	qsort(h, *n, sizeof(*h), cmp_bucket);
	unsigned w = 0;
	for (unsigned i = 1; i < *n; i++) {
		if (h[i].lo == h[w].lo && h[i].hi == h[w].hi)
			h[w].count += h[i].count;
		else
			h[++w] = h[i];
	}
	*n = w + 1;
}

/* ---- placements ----------------------------------------------------------- */

struct machine {
	struct sl_topology *topo;
	int cpus[CPU_SETSIZE];  /* allowed CPUs of the topology, ascending */
	unsigned n_cpus;
	int home;               /* the transmitter's CPU */
};

/* Receivers of the sweep, closest first: by hop class, then any CPU but the
 * first allowed one (the control thread's while it is free), then number. */
static const struct machine *sort_m;

static int cmp_distance(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	enum sl_hop hx = sl_topology_hop(sort_m->topo, sort_m->home, x);
	enum sl_hop hy = sl_topology_hop(sort_m->topo, sort_m->home, y);
	if (hx != hy)
		return hx < hy ? -1 : 1;
	bool fx = x == sort_m->cpus[0], fy = y == sort_m->cpus[0];
	if (fx != fy)
		return fx ? 1 : -1;
	return x < y ? -1 : x > y;
}

/* A pair of class h: from the home CPU where possible, avoiding the first
 * allowed CPU where possible.  Returns false if the machine has none. */
static bool find_pair(const struct machine *m, enum sl_hop h, int *tx, int *rx)
{
	for (int avoid_first = 1; avoid_first >= 0; avoid_first--) {
		for (unsigned j = 0; j < m->n_cpus; j++) {
			int c = m->cpus[j];
			if (c == m->home || (avoid_first && j == 0))
				continue;
			if (sl_topology_hop(m->topo, m->home, c) == h) {
				*tx = m->home;
				*rx = c;
				return true;
			}
		}
	}
	for (int avoid_first = 1; avoid_first >= 0; avoid_first--) {
		for (unsigned i = 0; i < m->n_cpus; i++) {
			for (unsigned j = 0; j < m->n_cpus; j++) {
				if (i == j || (avoid_first && (i == 0 || j == 0)))
					continue;
				if (sl_topology_hop(m->topo, m->cpus[i], m->cpus[j]) == h) {
					*tx = m->cpus[i];
					*rx = m->cpus[j];
					return true;
				}
			}
		}
	}
	return false;
}

/* Fill places[] (at most 5 pairs + BENCH_MAX_RX sweeps); returns the count. */
static unsigned make_places(const struct machine *m, unsigned receivers, struct place *places)
{
	unsigned n = 0;
	struct place *p = &places[n++];
	*p = (struct place){ .local = true, .tx = m->home, .n_rx = 1 };
	p->rx[0] = m->home;
	p->hop[0] = SL_HOP_SAME_CPU;

	static const enum sl_hop classes[] = { SL_HOP_SMT, SL_HOP_L3, SL_HOP_CROSS_L3,
					       SL_HOP_CROSS_NUMA };
	for (unsigned k = 0; k < SL_ARRAY_LEN(classes); k++) {
		int tx, rx;
		if (!find_pair(m, classes[k], &tx, &rx))
			continue;
		p = &places[n++];
		*p = (struct place){ .tx = tx, .n_rx = 1 };
		p->rx[0] = rx;
		p->hop[0] = classes[k];
	}

	int order[CPU_SETSIZE];
	unsigned n_order = 0;
	for (unsigned j = 0; j < m->n_cpus; j++)
		if (m->cpus[j] != m->home)
			order[n_order++] = m->cpus[j];
	sort_m = m;
	qsort(order, n_order, sizeof(order[0]), cmp_distance);
	for (unsigned k = 1; k <= receivers && k <= n_order; k++) {
		p = &places[n++];
		*p = (struct place){ .receivers = true, .tx = m->home, .n_rx = k };
		for (unsigned i = 0; i < k; i++) {
			p->rx[i] = order[i];
			p->hop[i] = sl_topology_hop(m->topo, m->home, order[i]);
		}
	}
	return n;
}

/* "cross-l3 cpu1->cpu0" or "3 receivers cpu1->cpu0,cpu2,cpu3" */
static void place_text(const struct place *p, char *buf, size_t len)
{
	size_t off;
	if (p->receivers)
		off = (size_t)snprintf(buf, len, "%u receiver%s cpu%d->", p->n_rx,
				       p->n_rx == 1 ? "" : "s", p->tx);
	else
		off = (size_t)snprintf(buf, len, "%s cpu%d->", place_hop(p), p->tx);
	for (unsigned i = 0; i < p->n_rx && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%scpu%d", i ? "," : "", p->rx[i]);
}

/* ---- one run -------------------------------------------------------------- */

/* Packets each sink ignores at the start: a tenth of a second (at most a
 * tenth of the run) of its share of the load; 10000 when unlimited. */
static uint64_t warmup_packets(uint64_t load, unsigned n_rx, double duration)
{
	if (load == 0)
		return 10000;
	double secs = duration / 10 < 0.1 ? duration / 10 : 0.1;
	uint64_t w = (uint64_t)((double)load / n_rx * secs);
	return w < 16 ? 16 : w;
}

/* path as a YAML double-quoted scalar (a JSON string is one).  Returns 0, or
 * -EILSEQ if path is not UTF-8 (which YAML cannot hold). */
static int yaml_path(FILE *f, const char *path)
{
	json_t *j = json_string(path);
	char *text = j != NULL ? json_dumps(j, JSON_ENCODE_ANY) : NULL;
	json_decref(j);
	if (text == NULL)
		return -EILSEQ;
	fputs(text, f);
	free(text);
	return 0;
}

static int write_config(const char *path, const char *dir, unsigned run, unsigned n_runs,
			const struct place *p, uint64_t load, int ops,
			const struct bench_opts *o, const char *prefix)
{
	FILE *f = fopen(path, "w");
	if (f == NULL)
		return -errno;
	char what[512], lbuf[32];
	place_text(p, what, sizeof(what));
	fprintf(f, "# sluice bench latency: run %u of %u: %s %s, load %s pps, pool ops %s\n",
		run, n_runs, p->receivers ? "receivers" : "pair", what,
		load_label(load, lbuf, sizeof(lbuf)), ops_names[ops]);
	fprintf(f, "dpdk:\n  args: [%s, --no-pci, --no-telemetry,\n"
		   "         --file-prefix, %s, --log-level, \"lib.eal:warning\"]\n",
		memory_eal[o->memory], prefix);
	fprintf(f, "pool: { ops: %s, mbufs: %u%s%s }\n", ops_names[ops],
		p->n_rx <= 4 ? 16383u : 65535u, ops == OPS_SLUICE ? ", order: " : "",
		ops == OPS_SLUICE ? order_names[o->order] : "");
	fprintf(f, "workers:\n  tx: { core: %d }\n", p->tx);
	if (!p->local)
		for (unsigned i = 0; i < p->n_rx; i++)
			fprintf(f, "  rx%u: { core: %d }\n", i, p->rx[i]);
	fprintf(f, "apps:\n  probe: { type: probe_source, worker: tx, size: %u, rate: %llu }\n",
		o->size, (unsigned long long)load);
	for (unsigned i = 0; i < p->n_rx; i++) {
		char report[4096];
		run_path(report, sizeof(report), dir, run, (int)i, "");
		char worker[16];
		if (p->local)
			snprintf(worker, sizeof(worker), "tx");
		else
			snprintf(worker, sizeof(worker), "rx%u", i);
		fprintf(f, "  sink%u: { type: probe_sink, worker: %s, warmup: %llu, report: ", i,
			worker, (unsigned long long)warmup_packets(load, p->n_rx, o->duration));
		if (yaml_path(f, report) < 0) {
			fclose(f);
			return -EILSEQ;
		}
		fprintf(f, " }\n");
	}
	if (p->local)
		fprintf(f, "# (one worker: 'tx' runs the source and the sink)\n");
	fprintf(f, "links:\n");
	for (unsigned i = 0; i < p->n_rx; i++)
		fprintf(f, "  - probe.output%u -> sink%u.input0\n", i, i);
	if (fclose(f) != 0)
		return -errno;
	return 0;
}

static double round2(double v)
{
	return (double)(long long)(v * 100 + 0.5) / 100;
}

/* Run `sluice run CONFIG --duration S --summary-json SUMMARY` with its
 * output in log.  Returns the wait status, or -ETIMEDOUT (killed), or
 * -errno; *cpu_s: the CPU time the child used (user + system, all threads). */
static int run_child(const char *config, const char *log, const char *summary,
		     double duration, double *cpu_s)
{
	*cpu_s = 0;
	char dur[32];
	snprintf(dur, sizeof(dur), "%g", duration);
	int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	pid_t pid = fork();
	if (pid < 0) {
		int e = errno;
		close(fd);
		return -e;
	}
	if (pid == 0) {
		int null = open("/dev/null", O_RDONLY);
		if (null >= 0)
			dup2(null, 0);
		dup2(fd, 1);
		dup2(fd, 2);
		char *argv[] = { "sluice", "run", (char *)config, "--duration", dur,
				 "--summary-json", (char *)summary, NULL };
		execv(sluice_path, argv);
		dprintf(2, "sluice: bench latency: cannot execute %s: %s\n", sluice_path,
			strerror(errno));
		_exit(127);
	}
	close(fd);

	double t0 = now_s();
	bool forwarded = false, termed = false, killed = false;
	int status;
	for (;;) {
		struct rusage ru;
		pid_t r = wait4(pid, &status, WNOHANG, &ru);
		if (r == pid) {
			*cpu_s = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 +
				 (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
			break;
		}
		if (r < 0 && errno != EINTR)
			return -errno;
		double t = now_s() - t0;
		if (bench_signalled && !forwarded) {
			kill(pid, SIGTERM);
			forwarded = true;
		}
		if (t > duration + BENCH_GRACE_S && !termed) {
			kill(pid, SIGTERM);
			termed = true;
		}
		if (t > duration + BENCH_GRACE_S + 10 && !killed) {
			kill(pid, SIGKILL);
			killed = true;
		}
		struct timespec nap = { 0, 50 * 1000 * 1000 };
		nanosleep(&nap, NULL);
	}
	return termed ? -ETIMEDOUT : status;
}


/* From a run's JSON summary doc (docs/summary.md): the packets the probe
 * generated (its in_packets), the drops on its links (those from
 * probe.outputK), the control thread's CPU and the mbuf check.  Returns 0 or -errno with a sentence. */
static int summary_values(const char *path, const json_t *doc, struct result *r,
			  struct sl_err *err)
{
	double schema = 0, total = 0, back = 0, control = -1;
	const json_t *mbufs = json_object_get(doc, "mbufs");
	const json_t *counters = json_object_get(json_object_get(json_object_get(doc, "apps"),
								 "probe"), "counters");
	const json_t *links = json_object_get(doc, "links");
	int rc = json_num_at(path, doc, "", "schema", &schema, err);
	if (rc == 0 && schema != 1)
		return sl_errf(err, EINVAL, "%s: schema %g, expected 1", path, schema);
	if (rc < 0 || (rc = json_num_at(path, mbufs, "mbufs.", "total", &total, err)) < 0 ||
	    (rc = json_num_at(path, mbufs, "mbufs.", "back", &back, err)) < 0 ||
	    (rc = json_num_at(path, counters, "apps.probe.counters.", "in_packets", &r->sent,
			      err)) < 0 ||
	    (rc = json_num_at(path, doc, "", "control_cpu", &control, err)) < 0)
		return rc;
	r->control_cpu = (int)control;
	if (back != total)
		return sl_errf(err, EFAULT, "%s: %.0f of %.0f mbufs back in the pool", path, back,
			       total);
	if (!json_is_object(links))
		return sl_errf(err, EINVAL, "%s: no object at \"links\"", path);
	const char *name;
	const json_t *l;
	r->drops = 0;
	json_object_foreach((json_t *)links, name, l) {
		const char *from = json_string_value(json_object_get(l, "from"));
		double d = 0;
		if (from == NULL || strncmp(from, "probe.output", 12) != 0)
			continue;
		char where[160];
		snprintf(where, sizeof(where), "links.%s.", name);
		if ((rc = json_num_at(path, l, where, "drops", &d, err)) < 0)
			return rc;
		r->drops += d;
	}
	return 0;
}

/* Read the run's JSON summary at path into r (sent, drops) and check that
 * every mbuf came back.  Returns 0 or -errno with a sentence naming the
 * file. */
static int read_summary(const char *path, struct result *r, struct sl_err *err)
{
	json_t *doc = load_json(path, 0, "summary", "'sluice run'", err);
	if (doc == NULL)
		return -errno;
	int rc = json_is_object(doc) ? summary_values(path, doc, r, err)
				     : sl_errf(err, EINVAL, "%s: not a JSON object", path);
	json_decref(doc);
	return rc;
}

static void show_log_tail(const char *log)
{
	char *text = read_file(log, 1 << 22);
	if (text == NULL) {
		fprintf(stderr, "  (no log: %s)\n", log);
		return;
	}
	size_t len = strlen(text);
	const char *s = text + len;
	for (unsigned lines = 0; s > text; s--)
		if (s[-1] == '\n' && s != text + len && ++lines == BENCH_LOG_TAIL)
			break;
	fprintf(stderr, "  --- the end of %s:\n", log);
	for (const char *l = s; *l != '\0';) {
		const char *e = strchr(l, '\n');
		int n = e ? (int)(e - l) : (int)strlen(l);
		fprintf(stderr, "  | %.*s\n", n, l);
		l += n + (e ? 1 : 0);
	}
	free(text);
}

/* Fold receiver i's numbers x into the run's: counts and Mpps summed, min
 * the best receiver's, duration, percentiles and max the worst's. */
static void aggregate(double *v, const struct rx_result *x, unsigned i)
{
	for (unsigned k = 0; k < R_N; k++) {
		switch (k) {
		case R_PACKETS: case R_LOST: case R_REORDERED: case R_FOREIGN: case R_MPPS:
			v[k] += x->v[k];
			break;
		case R_MIN:
			if (i == 0 || x->v[k] < v[k])
				v[k] = x->v[k];
			break;
		default:            /* duration, percentiles, max: the worst */
			if (x->v[k] > v[k])
				v[k] = x->v[k];
		}
	}
}

/* Read the receivers' reports and aggregate them into r. */
static int read_reports(const char *dir, struct result *r, struct sl_err *err)
{
	const struct place *p = r->p;
	for (unsigned k = 0; k < R_N; k++)
		r->v[k] = 0;
	for (unsigned i = 0; i < p->n_rx; i++) {
		char path[4096];
		run_path(path, sizeof(path), dir, r->run, (int)i, "");
		struct rx_result *x = &r->rx[i];
		int rc = read_report(path, i, x, &r->hist, &r->n_hist, err);
		if (rc < 0)
			return rc;
		if (x->v[R_PACKETS] <= 0)
			return sl_errf(err, EIO, "sink%u on cpu %d measured no packets (%s)", i,
				       p->rx[i], path);
		aggregate(r->v, x, i);
	}
	merge_histogram(r->hist, &r->n_hist);
	return 0;
}

/* ---- output files ---------------------------------------------------------- */

/* r's regime from the c2c around it ("near", "far" or "mixed"), or "" where
 * it was not measured. */
static const char *run_regime(const struct result *r)
{
	if (r->c2c[0] < 0 || r->c2c[1] < 0)
		return "";
	return sl_c2c_regime2(r->c2c[0], r->c2c[1]);
}

static const char csv_header[] =
	"run,kind,hop_class,tx_cpu,rx_cpus,receivers,load_pps,ops,size,packets,lost,"
	"reordered,mpps,p50_ns,p90_ns,p99_ns,p999_ns,max_ns,min_ns,foreign,sent,drops,"
	"duration_s,control_cpu,other_load,steal,c2c_before_ns,c2c_after_ns,regime\n";

static void csv_num(FILE *f, double v)
{
	fputc(',', f);
	if (v >= 0)
		put_num(f, v);
}

static void csv_row(FILE *f, const struct result *r, const struct bench_opts *o)
{
	const struct place *p = r->p;
	fprintf(f, "%u,%s,%s,%d,", r->run, p->receivers ? "receivers" : "pair", place_hop(p),
		p->tx);
	for (unsigned i = 0; i < p->n_rx; i++)
		fprintf(f, "%s%d", i ? " " : "", p->rx[i]);
	fprintf(f, ",%u,%llu,%s,%u", p->n_rx, (unsigned long long)r->load, ops_names[r->ops],
		o->size);
	static const int cols[] = { R_PACKETS, R_LOST, R_REORDERED, R_MPPS, R_P50, R_P90,
				    R_P99, R_P999, R_MAX, R_MIN, R_FOREIGN };
	for (unsigned k = 0; k < SL_ARRAY_LEN(cols); k++)
		csv_num(f, r->v[cols[k]]);
	csv_num(f, r->sent);
	csv_num(f, r->drops);
	csv_num(f, r->v[R_DURATION]);
	csv_num(f, r->control_cpu);
	csv_num(f, r->other_load);
	csv_num(f, r->steal);
	csv_num(f, r->c2c[0]);
	csv_num(f, r->c2c[1]);
	fprintf(f, ",%s\n", run_regime(r));
}

struct machine_info {
	char *lscpu;
	char *topology;
	char kernel[512];
	bool xml;
	char started[32];
};

/* One `sluice bench latency`: its options, machine, plan and results. */
struct sweep {
	struct bench_opts o;
	int argc;               /* its arguments, for results.json */
	char **argv;
	struct machine m;
	struct machine_info mi;
	struct place places[5 + BENCH_MAX_RX];
	unsigned n_places;
	unsigned n_runs;        /* places x loads x ops */
	char prefix[64];        /* the runs' DPDK file prefix */
	struct result *res;     /* n_runs; res[0..done) are finished */
	unsigned done;
	FILE *csv;
};

/* The numbers of a report (report_keys) added to obj; 0 or -1 (no memory). */
static int add_stats(json_t *obj, const double *v)
{
	for (unsigned k = 0; k < R_N; k++)
		if (json_object_set_new(obj, report_keys[k], jnum(v[k], false)) != 0)
			return -1;
	return 0;
}

static json_t *json_options(const struct bench_opts *o)
{
	json_t *loads = json_array(), *ops = json_array();
	for (unsigned i = 0; i < o->n_loads; i++)
		loads = append(loads, json_integer((json_int_t)o->loads[i]));
	for (unsigned i = 0; i < o->n_ops; i++)
		ops = append(ops, json_string(ops_names[o->ops[i]]));
	return json_pack("{s:o, s:o, s:i, s:o, s:i, s:s, s:s, s:b}", "duration_s",
			 jnum(o->duration, false), "loads_pps", loads, "receivers", o->receivers,
			 "ops", ops, "size", (int)o->size, "memory", memory_names[o->memory],
			 "order", order_names[o->order], "quick", (int)o->quick);
}

static json_t *json_machine(const struct machine *m, const struct machine_info *mi)
{
	return json_pack("{s:o, s:s?, s:o, s:o, s:o}",
			 "lscpu", mi->lscpu != NULL ? jstr(mi->lscpu) : json_null(),
			 "hwloc_xml", mi->xml ? "machine.xml" : NULL,
			 "topology", jstr(mi->topology != NULL ? mi->topology : ""),
			 "kernel", jstr(mi->kernel),
			 "cpus_allowed", int_array(m->cpus, m->n_cpus));
}

/* One receiver of a run: where it ran, its report, its numbers. */
static json_t *json_receiver(const struct result *r, unsigned i)
{
	const struct place *p = r->p;
	char sink[16], report[64];
	snprintf(sink, sizeof(sink), "sink%u", i);
	snprintf(report, sizeof(report), "runs/%03u-rx%u.json", r->run, i);
	json_t *j = json_pack("{s:s, s:i, s:s, s:s}", "sink", sink, "cpu", p->rx[i],
			      "hop_class", hop_label(p, i), "report", report);
	if (j != NULL && add_stats(j, r->rx[i].v) != 0) {
		json_decref(j);
		return NULL;
	}
	return j;
}

static json_t *json_histogram(const struct bucket *h, unsigned n)
{
	json_t *a = json_array();
	for (unsigned b = 0; b < n; b++)
		a = append(a, json_pack("[o, o, o]", jnum(h[b].lo, false), jnum(h[b].hi, false),
					jnum(h[b].count, false)));
	return a;
}

static json_t *json_run(const struct result *r, const struct bench_opts *o)
{
	const struct place *p = r->p;
	char config[32], log[32];
	snprintf(config, sizeof(config), "runs/%03u.yaml", r->run);
	snprintf(log, sizeof(log), "runs/%03u.log", r->run);
	json_t *j = json_pack("{s:i, s:s, s:s, s:i, s:o, s:i, s:I, s:s, s:i,"
			      " s:o, s:o, s:o, s:o, s:o}",
			      "run", (int)r->run, "kind", p->receivers ? "receivers" : "pair",
			      "hop_class", place_hop(p), "tx_cpu", p->tx,
			      "rx_cpus", int_array(p->rx, p->n_rx), "receivers", (int)p->n_rx,
			      "load_pps", (json_int_t)r->load, "ops", ops_names[r->ops],
			      "size", (int)o->size, "control_cpu", jnum(r->control_cpu, true),
			      "other_load", jnum(r->other_load, true), "steal", jnum(r->steal, true),
			      "sent", jnum(r->sent, true), "drops", jnum(r->drops, true));
	const char *regime = run_regime(r);
	json_t *rx = json_array();
	for (unsigned i = 0; i < p->n_rx; i++)
		rx = append(rx, json_receiver(r, i));
	if (j == NULL || add_stats(j, r->v) != 0 ||
	    json_object_set_new(j, "c2c_before_ns", jnum(r->c2c[0], true)) != 0 ||
	    json_object_set_new(j, "c2c_after_ns", jnum(r->c2c[1], true)) != 0 ||
	    json_object_set_new(j, "regime", regime[0] ? json_string(regime) : json_null()) != 0 ||
	    json_object_set_new(j, "config", json_string(config)) != 0 ||
	    json_object_set_new(j, "log", json_string(log)) != 0 ||
	    json_object_set_new(j, "per_receiver", rx) != 0 ||
	    json_object_set_new(j, "histogram", json_histogram(r->hist, r->n_hist)) != 0) {
		json_decref(j);
		return NULL;
	}
	return j;
}

/* results.json: the command, the options, the machine and the runs done so
 * far (complete: all of them).  NULL: no memory. */
static json_t *json_results(const struct sweep *s, unsigned n_res)
{
	char *cmd = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&cmd, &len);
	if (m == NULL)
		return NULL;
	fputs("sluice bench latency", m);
	for (int i = 0; i < s->argc; i++)
		fprintf(m, " %s", s->argv[i]);
	fclose(m);
	json_t *runs = json_array();
	for (unsigned n = 0; n < n_res; n++)
		runs = append(runs, json_run(&s->res[n], &s->o));
	json_t *doc = json_pack("{s:o, s:s, s:b, s:o, s:o, s:o}", "command", jstr(cmd),
				"started", s->mi.started, "complete", (int)(n_res == s->n_runs),
				"options", json_options(&s->o), "machine", json_machine(&s->m, &s->mi),
				"runs", runs);
	free(cmd);
	return doc;
}

/* DIR/results.json with the first n_res runs, replaced at once (written to
 * a temporary file, then renamed).  Returns 0 or -errno. */
static int write_json(const struct sweep *s, unsigned n_res)
{
	char path[4096], tmp[4200];
	snprintf(path, sizeof(path), "%s/results.json", s->o.out);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	json_t *doc = json_results(s, n_res);
	if (doc == NULL)
		return -ENOMEM;
	FILE *f = fopen(tmp, "w");
	if (f == NULL) {
		int e = errno;
		json_decref(doc);
		return -e;
	}
	int rc = json_dumpf(doc, f, JSON_INDENT(2) | JSON_REAL_PRECISION(15));
	json_decref(doc);
	if (rc != 0 || fputc('\n', f) == EOF) {
		fclose(f);
		return -EIO;
	}
	if (fclose(f) != 0)
		return -errno;
	if (rename(tmp, path) < 0)
		return -errno;
	return 0;
}

static void machine_info(const struct machine *m, const char *dir, struct machine_info *mi)
{
	time_t t = time(NULL);
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(mi->started, sizeof(mi->started), "%Y-%m-%dT%H:%M:%SZ", &tm);
	mi->lscpu = command_output("lscpu 2>/dev/null");
	size_t len = 0;
	FILE *f = open_memstream(&mi->topology, &len);
	if (f != NULL) {
		sl_topology_print(m->topo, f);
		fclose(f);
	}
	struct utsname u;
	if (uname(&u) == 0)
		snprintf(mi->kernel, sizeof(mi->kernel), "%s %s %s %s", u.sysname, u.release,
			 u.version, u.machine);

	char path[4096];
	snprintf(path, sizeof(path), "%s/machine.xml", dir);
	hwloc_topology_t ht;
	mi->xml = false;
	if (hwloc_topology_init(&ht) == 0) {
		hwloc_topology_set_io_types_filter(ht, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
		if (hwloc_topology_load(ht) == 0 && hwloc_topology_export_xml(ht, path, 0) == 0)
			mi->xml = true;
		hwloc_topology_destroy(ht);
	}
	if (!mi->xml)
		fprintf(stderr, "sluice: bench latency: warning: could not write %s\n", path);
}

/* ---- options --------------------------------------------------------------- */

static int parse_uint(const char *opt, const char *text, uint64_t min, uint64_t max,
		      uint64_t *out)
{
	const struct sl_param_spec spec = { .name = opt, .type = SL_PARAM_UINT, .def = "0",
					    .min = min, .max = max };
	struct sl_param_value v = { 0 };
	struct sl_err err = { "" };
	if (sl_param_parse(&spec, text, &v, &err) < 0 || v.u < min || v.u > max) {
		sl_usage_error(&latency_cmd, "%s needs a whole number in %llu..%llu%s, got '%s'",
			       opt, (unsigned long long)min, (unsigned long long)max,
			       max >= 1000000 ? " (10k, 1M: x1000, x1000000)" : "", text);
		sl_param_value_free(&v);
		return -EINVAL;
	}
	*out = v.u;
	sl_param_value_free(&v);
	return 0;
}

static int parse_loads(const char *text, struct bench_opts *o)
{
	char buf[512];
	if (snprintf(buf, sizeof(buf), "%s", text) >= (int)sizeof(buf) || buf[0] == '\0')
		return sl_usage_error(&latency_cmd, "--loads needs a list like 10k,100k,1M,0, got '%s'", text);
	o->n_loads = 0;
	char *save = NULL;
	for (char *t = strtok_r(buf, ",", &save); t != NULL; t = strtok_r(NULL, ",", &save)) {
		if (o->n_loads == BENCH_MAX_LOADS)
			return sl_usage_error(&latency_cmd, "--loads: at most 16 loads, got '%s'", text);
		uint64_t v;
		if (strcmp(t, "max") == 0 || strcmp(t, "unlimited") == 0)
			v = 0;
		else if (parse_uint("--loads", t, 0, 1000000000, &v) < 0)
			return SL_EXIT_CONFIG;
		o->loads[o->n_loads++] = v;
	}
	if (o->n_loads == 0)
		return sl_usage_error(&latency_cmd, "--loads needs a list like 10k,100k,1M,0, got '%s'", text);
	return 0;
}

static int parse_ops(const char *text, struct bench_opts *o)
{
	char buf[256];
	snprintf(buf, sizeof(buf), "%s", text);
	o->n_ops = 0;
	char *save = NULL;
	for (char *t = strtok_r(buf, ",", &save); t != NULL; t = strtok_r(NULL, ",", &save)) {
		int k;
		for (k = 0; k < OPS_N; k++)
			if (strcmp(t, ops_names[k]) == 0)
				break;
		if (k == OPS_N) {
			const char *hint = sl_did_you_mean(t, ops_names, OPS_N);
			return sl_usage_error(&latency_cmd, "--ops: unknown pool ops '%s'%s%s%s; "
					      "choose from sluice, dpdk", t,
					      hint ? " (did you mean '" : "", hint ? hint : "",
					      hint ? "'?)" : "");
		}
		for (unsigned i = 0; i < o->n_ops; i++)
			if (o->ops[i] == k)
				return sl_usage_error(&latency_cmd, "--ops names '%s' twice", t);
		o->ops[o->n_ops++] = k;
	}
	if (o->n_ops == 0)
		return sl_usage_error(&latency_cmd, "--ops needs a list like sluice,dpdk, got '%s'", text);
	return 0;
}

static int loads_opt(const struct sl_opt *opt, const char *v, const struct sl_command *cmd)
{
	return parse_loads(v, opt->dst);
}

static int ops_opt(const struct sl_opt *opt, const char *v, const struct sl_command *cmd)
{
	return parse_ops(v, opt->dst);
}

static int out_opt(const struct sl_opt *opt, const char *v, const struct sl_command *cmd)
{
	if (v[0] == '\0' || strlen(v) > 3000)
		return -1;
	*(const char **)opt->dst = v;
	return 0;
}

/* Parse the options of `sluice bench latency` into o.  Returns -1 to go on,
 * or the exit status to end with: 0 after --help, 2 after a usage error
 * (this is the command line: it returns exit statuses, not -errno). */
static int parse_opts(int argc, char **argv, struct bench_opts *o)
{
	bool loads_set = false, receivers_set = false;
	uint64_t receivers = 0, size = o->size;
	const struct sl_opt opts[] = {
		{ .name = "--out", .type = SL_OPT_FN, .dst = &o->out, .fn = out_opt,
		  .what = "a directory (a path of at most 3000 bytes)" },
		{ .name = "--duration", .type = SL_OPT_NUM, .dst = &o->duration, .min = 0.1,
		  .max = 3600, .what = "seconds in 0.1..3600", .seen = &o->duration_set },
		{ .name = "--loads", .type = SL_OPT_FN, .dst = o, .fn = loads_opt,
		  .seen = &loads_set },
		{ .name = "--receivers", .type = SL_OPT_UINT, .dst = &receivers, .max = BENCH_MAX_RX,
		  .seen = &receivers_set },
		{ .name = "--ops", .type = SL_OPT_FN, .dst = o, .fn = ops_opt },
		{ .name = "--size", .type = SL_OPT_UINT, .dst = &size, .min = 60, .max = 9000 },
		{ .name = "--memory", .type = SL_OPT_CHOICE, .dst = &o->memory,
		  .choices = memory_names },
		{ .name = "--order", .type = SL_OPT_CHOICE, .dst = &o->order,
		  .choices = order_names },
		{ .name = "--quick", .type = SL_OPT_FLAG, .dst = &o->quick },
		{ .name = "--dry-run", .type = SL_OPT_FLAG, .dst = &o->dry_run },
	};
	struct sl_args a = { .cmd = &latency_cmd, .opts = opts, .n_opts = SL_ARRAY_LEN(opts) };
	int rc = sl_opts_parse(&a, argc, argv);
	if (rc >= 0)
		return rc;
	o->size = (unsigned)size;
	if (receivers_set)
		o->receivers = (int)receivers;
	if (o->quick) {
		if (!loads_set) {
			o->loads[0] = 100000;
			o->n_loads = 1;
		}
		if (!o->duration_set)
			o->duration = 1;
		if (!receivers_set)
			o->receivers = -2;     /* at most 2 */
	}
	return -1;
}

/* For --memory 2m: 0 when BENCH_HUGEPAGES_2M 2 MB hugepages are free where
 * --socket-mem 512 asks for them (NUMA node 0, or the machine's where the
 * kernel has no nodes), else SL_EXIT_RUNTIME saying how many there are and
 * where to reserve more.  (--in-memory maps them without a hugetlbfs mount.) */
static int check_hugepages(void)
{
	static const char node0[] = "/sys/devices/system/node/node0/hugepages/hugepages-2048kB";
	static const char any[] = "/sys/kernel/mm/hugepages/hugepages-2048kB";
	const char *dir = access(node0, F_OK) == 0 ? node0 : any;
	char path[128];
	snprintf(path, sizeof(path), "%s/free_hugepages", dir);
	char *text = read_file(path, 64);
	unsigned long free_pages = text != NULL ? strtoul(text, NULL, 10) : 0;
	free(text);
	if (free_pages >= BENCH_HUGEPAGES_2M)
		return 0;
	fprintf(stderr, "sluice: bench latency: --memory 2m: %lu free 2 MB hugepages%s, %u needed "
			"(as root, raise %s/nr_hugepages by %lu)\n",
		free_pages, dir == node0 ? " on NUMA node 0" : "", BENCH_HUGEPAGES_2M, dir,
		BENCH_HUGEPAGES_2M - free_pages);
	return SL_EXIT_RUNTIME;
}

/* ---- the sweep ------------------------------------------------------------- */

/* This machine, or with dry_run a described one (HWLOC_SYNTHETIC,
 * HWLOC_XMLFILE: every CPU of it allowed), to see the runs it would get. */
static int load_machine(struct machine *m, bool dry_run)
{
	struct sl_err err = { "" };
	m->topo = sl_topology_load(&err);
	if (m->topo == NULL) {
		fprintf(stderr, "sluice: bench latency: %s\n", err.msg);
		return SL_EXIT_RUNTIME;
	}
	if (m->topo->synthetic && !dry_run) {
		fprintf(stderr, "sluice: bench latency: runs on this machine only, not on a "
				"described one (%s); unset HWLOC_SYNTHETIC and HWLOC_XMLFILE "
				"(--dry-run shows the runs it would get)\n",
			m->topo->source);
		return SL_EXIT_CONFIG;
	}
	cpu_set_t set;
	CPU_ZERO(&set);
	if (m->topo->synthetic) {
		for (unsigned i = 0; i < m->topo->n_pus; i++)
			CPU_SET(m->topo->pus[i].cpu, &set);
	} else if (sched_getaffinity(0, sizeof(set), &set) < 0) {
		fprintf(stderr, "sluice: bench latency: cannot read this process's CPU "
				"affinity: %s\n", strerror(errno));
		return SL_EXIT_RUNTIME;
	}
	m->n_cpus = 0;
	for (unsigned i = 0; i < m->topo->n_pus; i++)
		if (CPU_ISSET(m->topo->pus[i].cpu, &set))
			m->cpus[m->n_cpus++] = m->topo->pus[i].cpu;
	if (m->n_cpus == 0) {
		fprintf(stderr, "sluice: bench latency: no CPU of the topology is in this "
				"process's affinity\n");
		return SL_EXIT_RUNTIME;
	}
	/* The transmitter: the first CPU that is neither the first allowed one
	 * (left to the control thread) nor its SMT sibling. */
	m->home = m->cpus[m->n_cpus >= 2 ? 1 : 0];
	for (unsigned i = 1; i < m->n_cpus; i++) {
		if (sl_topology_hop(m->topo, m->cpus[0], m->cpus[i]) != SL_HOP_SMT) {
			m->home = m->cpus[i];
			break;
		}
	}
	return 0;
}

/* How many receivers the sweep goes to (o->receivers: -1 as many as the
 * machine allows, -2 at most 2 of those).  Returns 0, or SL_EXIT_CONFIG with
 * a message when more are asked than the machine allows. */
static int resolve_receivers(struct bench_opts *o, const struct machine *m)
{
	unsigned avail = m->n_cpus - 1;
	if (avail > BENCH_MAX_RX)
		avail = BENCH_MAX_RX;
	unsigned receivers;
	if (o->receivers == -1) {
		receivers = avail;
	} else if (o->receivers == -2) {
		receivers = avail < 2 ? avail : 2;
	} else if ((unsigned)o->receivers > avail) {
		fprintf(stderr, "sluice: bench latency: --receivers %d: this process may use %u "
				"CPU%s besides the transmitter's (at most %u receiver%s)\n",
			o->receivers, m->n_cpus - 1, m->n_cpus == 2 ? "" : "s", avail,
			avail == 1 ? "" : "s");
		return SL_EXIT_CONFIG;
	} else {
		receivers = (unsigned)o->receivers;
	}
	o->receivers = (int)receivers;
	return 0;
}

/* The runs, the output directory's name and the runs' DPDK prefix; says
 * how many runs and how long (on stdout for a dry run). */
static void plan_sweep(struct sweep *s)
{
	struct bench_opts *o = &s->o;
	s->n_places = make_places(&s->m, (unsigned)o->receivers, s->places);
	s->n_runs = s->n_places * o->n_loads * o->n_ops;
	if (o->out == NULL) {
		time_t t = time(NULL);
		struct tm tm;
		localtime_r(&t, &tm);
		strftime(o->out_default, sizeof(o->out_default), "bench-latency-%Y%m%d-%H%M%S",
			 &tm);
		o->out = o->out_default;
	}
	unsigned n = s->n_runs, np = s->n_places;
	fprintf(o->dry_run ? stdout : stderr,
		"bench latency: %u run%s (%u placement%s x %u load%s x %u pool ops) of %g s, "
		"about %.0f s%s%s\n",
		n, n == 1 ? "" : "s", np, np == 1 ? "" : "s", o->n_loads,
		o->n_loads == 1 ? "" : "s", o->n_ops, o->duration, n * (o->duration + 1.0),
		o->dry_run ? "" : "; into ", o->dry_run ? "" : o->out);
	snprintf(s->prefix, sizeof(s->prefix), "sluice-bench-%d", (int)getpid());
}

/* DIR/runs/, the machine's description (machine.xml) and results.csv with
 * its header.  Returns 0 or SL_EXIT_RUNTIME with a message. */
static int open_outputs(struct sweep *s)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/runs", s->o.out);
	int rc = mkdir_p(path);
	if (rc < 0) {
		fprintf(stderr, "sluice: bench latency: cannot create %s: %s\n", path,
			strerror(-rc));
		return SL_EXIT_RUNTIME;
	}
	machine_info(&s->m, s->o.out, &s->mi);
	snprintf(path, sizeof(path), "%s/results.csv", s->o.out);
	s->csv = fopen(path, "w");
	if (s->csv == NULL) {
		fprintf(stderr, "sluice: bench latency: cannot write %s: %s\n", path,
			strerror(errno));
		return SL_EXIT_RUNTIME;
	}
	fputs(csv_header, s->csv);
	fflush(s->csv);
	return 0;
}

/* The one-way c2c (ns) between p's transmitter and its farthest receiver
 * (the largest over its receivers' CPUs), rounded to 0.1 ns; -1 for a local
 * placement, or when a measure fails (said once). */
static double place_c2c(const struct place *p)
{
	static bool said;
	double worst = -1;
	for (unsigned i = 0; i < p->n_rx && !p->local; i++) {
		if (p->rx[i] == p->tx)
			continue;
		struct sl_err err = { "" };
		double ns = sl_c2c_pair(p->tx, p->rx[i], &err);
		if (ns < 0) {
			if (!said)
				fprintf(stderr, "\nsluice: bench latency: no c2c beside the results: "
						"%s\n", err.msg);
			said = true;
			return -1;
		}
		worst = ns > worst ? ns : worst;
	}
	return worst < 0 ? -1 : (double)(long long)(worst * 10 + 0.5) / 10;
}

/* Run r's child and measure the rest of the machine meanwhile (other_load,
 * steal), and the placement's c2c just before and after it.  Returns
 * run_child's status. */
static int run_measured(const struct sweep *s, struct result *r, const char *config,
			const char *log, const char *summary)
{
	r->c2c[0] = place_c2c(r->p);
	double busy0, steal0, busy1, steal1, t0 = now_s(), child_cpu;
	bool times = cpu_times(&busy0, &steal0);
	int st = run_child(config, log, summary, s->o.duration, &child_cpu);
	double wall = now_s() - t0;
	r->other_load = r->steal = -1;
	if (times && cpu_times(&busy1, &steal1) && wall > 0) {
		double other = busy1 - busy0 - child_cpu;
		r->other_load = round2(other > 0 ? other / wall : 0);
		r->steal = round2((steal1 - steal0) / wall);
	}
	remove_runtime_dir(s->prefix);
	r->c2c[1] = r->c2c[0] < 0 ? -1 : place_c2c(r->p);
	return st;
}

/* What a finished child left: its exit status st, then its JSON summary
 * (every mbuf back) and the sinks' reports read into r.  Leaves err empty if
 * the run succeeded. */
static void check_run(int st, const char *config, const char *summary, const char *dir,
		      struct result *r, struct sl_err *err)
{
	if (st < 0)
		sl_errf(err, -st, "%s",
			st == -ETIMEDOUT ? "'sluice run' did not end; killed" : strerror(-st));
	else if (WIFSIGNALED(st))
		sl_errf(err, EIO, "'sluice run' was killed by signal %d", WTERMSIG(st));
	else if (WEXITSTATUS(st) != 0)
		sl_errf(err, EIO, "'sluice run %s' exited %d", config, WEXITSTATUS(st));
	else if (read_summary(summary, r, err) == 0)
		read_reports(dir, r, err);
}

/* The end of a run's progress line: percentiles, rate, losses. */
static void print_progress(const struct result *r)
{
	fprintf(stderr, "p50 %.0f ns p99 %.0f ns %.2f Mpps", r->v[R_P50], r->v[R_P99],
		r->v[R_MPPS]);
	if (r->v[R_LOST] > 0 || r->drops > 0)
		fprintf(stderr, " (lost %.0f, link drops %.0f)", r->v[R_LOST],
			r->drops < 0 ? 0 : r->drops);
	if (r->other_load >= 0.1)
		fprintf(stderr, " [other work: %.1f CPUs]", r->other_load);
	if (run_regime(r)[0] != '\0')
		fprintf(stderr, " c2c %.1f/%.1f ns %s", r->c2c[0], r->c2c[1], run_regime(r));
	fputc('\n', stderr);
}

/* One run: its config, the child, its results (results.csv's row, and
 * results.json rewritten).  Returns SL_EXIT_OK or SL_EXIT_RUNTIME (said). */
static int run_one(struct sweep *s, struct result *r, const char *label)
{
	const char *dir = s->o.out;
	char config[4096], log[4096], summary[4096], path[4096];
	run_path(config, sizeof(config), dir, r->run, -1, ".yaml");
	run_path(log, sizeof(log), dir, r->run, -1, ".log");
	run_path(summary, sizeof(summary), dir, r->run, -1, "-summary.json");
	unlink(summary);
	for (unsigned i = 0; i < r->p->n_rx; i++) {
		run_path(path, sizeof(path), dir, r->run, (int)i, "");
		unlink(path);
	}
	int rc = write_config(config, dir, r->run, s->n_runs, r->p, r->load, r->ops, &s->o,
			      s->prefix);
	if (rc < 0) {
		fprintf(stderr, "\nsluice: bench latency: cannot write %s: %s\n", config,
			strerror(-rc));
		return SL_EXIT_RUNTIME;
	}
	int st = run_measured(s, r, config, log, summary);
	if (bench_signalled) {
		fprintf(stderr, "interrupted\n");
		return SL_EXIT_RUNTIME;
	}
	struct sl_err err = { "" };
	check_run(st, config, summary, dir, r, &err);
	if (err.msg[0] != '\0') {
		fprintf(stderr, "failed\nsluice: bench latency: run %u (%s) failed: %s\n", r->run,
			label, err.msg);
		show_log_tail(log);
		return SL_EXIT_RUNTIME;
	}
	s->done = r->run;
	print_progress(r);
	csv_row(s->csv, r, &s->o);
	fflush(s->csv);
	rc = write_json(s, s->done);
	if (rc < 0) {
		fprintf(stderr, "sluice: bench latency: cannot write %s/results.json: %s\n", dir,
			strerror(-rc));
		return SL_EXIT_RUNTIME;
	}
	return SL_EXIT_OK;
}

/* Every placement at every load with every pool ops, loads and ops
 * innermost; a dry run only prints them.  Stops at the first run that
 * fails.  Returns the exit code. */
static int run_all(struct sweep *s)
{
	const struct bench_opts *o = &s->o;
	unsigned run = 0;
	for (unsigned pi = 0; pi < s->n_places; pi++) {
		for (unsigned li = 0; li < o->n_loads; li++) {
			for (unsigned oi = 0; oi < o->n_ops; oi++) {
				struct result *r = &s->res[run];
				*r = (struct result){ .run = ++run, .p = &s->places[pi],
						      .load = o->loads[li], .ops = o->ops[oi] };
				char what[512], lbuf[32], label[700];
				place_text(r->p, what, sizeof(what));
				snprintf(label, sizeof(label), "%s load %s ops %s", what,
					 load_label(r->load, lbuf, sizeof(lbuf)), ops_names[r->ops]);
				if (o->dry_run) {
					printf("[%u/%u] %s\n", r->run, s->n_runs, label);
					continue;
				}
				fprintf(stderr, "[%u/%u] %s: ", r->run, s->n_runs, label);
				fflush(stderr);
				int rc = run_one(s, r, label);
				if (rc != SL_EXIT_OK)
					return rc;
			}
		}
	}
	return SL_EXIT_OK;
}

/* The closing line, where the sweep ran the local pair and a pair across
 * CPUs at unlimited load (load 0):
 *   summary: cliff_ratio=A pool_ratio_across=B c2c_ns=C regime=R
 * A the farthest pair's Mpps over the local pair's (both ops sluice), B
 * that pair's Mpps with ops sluice over ops dpdk, C the median of the c2c
 * measured around those runs and R their common regime (near, far or
 * mixed); NA for what was not run. */
static void print_summary(const struct sweep *s)
{
	const struct result *local = NULL, *cross = NULL, *cross_dpdk = NULL;
	for (unsigned i = 0; i < s->done; i++) {
		const struct result *r = &s->res[i];
		if (r->load != 0 || r->p->receivers || r->ops != OPS_SLUICE)
			continue;
		if (r->p->local)
			local = r;
		else
			cross = r;   /* pairs come in hop-class order: the last is the farthest */
	}
	if (local == NULL || cross == NULL)
		return;
	for (unsigned i = 0; i < s->done; i++)
		if (s->res[i].p == cross->p && s->res[i].load == 0 && s->res[i].ops == OPS_DPDK)
			cross_dpdk = &s->res[i];
	double v[4];
	unsigned n = 0;
	for (unsigned k = 0; k < 2; k++) {
		if (cross->c2c[k] >= 0)
			v[n++] = cross->c2c[k];
		if (cross_dpdk != NULL && cross_dpdk->c2c[k] >= 0)
			v[n++] = cross_dpdk->c2c[k];
	}
	printf("summary: cliff_ratio=");
	if (local->v[R_MPPS] > 0)
		printf("%.3f", cross->v[R_MPPS] / local->v[R_MPPS]);
	else
		printf("NA");
	printf(" pool_ratio_across=");
	if (cross_dpdk != NULL && cross_dpdk->v[R_MPPS] > 0)
		printf("%.3f", cross->v[R_MPPS] / cross_dpdk->v[R_MPPS]);
	else
		printf("NA");
	if (n == 0) {
		printf(" c2c_ns=NA regime=NA\n");
		return;
	}
	double med = sl_c2c_median(v, n);   /* which sorts v */
	/* sorted: all on one side when the least and the most are */
	printf(" c2c_ns=%.1f regime=%s\n", med, sl_c2c_regime2(v[0], v[n - 1]));
}

/* run_all with SIGINT and SIGTERM caught (forwarded to the running child,
 * then the sweep stops), then results.json for a sweep that finished no
 * run, and the closing line. */
static int run_sweep(struct sweep *s)
{
	struct sigaction sa = { .sa_handler = on_signal }, old_int, old_term;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGINT, &sa, &old_int) < 0 || sigaction(SIGTERM, &sa, &old_term) < 0) {
		fprintf(stderr, "sluice: bench latency: cannot install the signal handlers: %s\n",
			strerror(errno));
		return SL_EXIT_RUNTIME;
	}
	double t_start = now_s();
	int exit_code = run_all(s);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	if (s->o.dry_run)
		return exit_code;

	const char *out = s->o.out;
	if (s->done == 0 && write_json(s, 0) < 0)
		exit_code = SL_EXIT_RUNTIME;
	if (exit_code == SL_EXIT_OK) {
		fprintf(stderr, "bench latency: %u runs in %.0f s; results in %s/results.csv "
				"and %s/results.json (plots: scripts/plot-latency %s)\n",
			s->n_runs, now_s() - t_start, out, out, out);
		print_summary(s);
	}
	else
		fprintf(stderr, "bench latency: %u of %u runs done; their results are in "
				"%s/results.csv and %s/results.json\n",
			s->done, s->n_runs, out, out);
	return exit_code;
}

static void sweep_free(struct sweep *s)
{
	if (s->csv != NULL)
		fclose(s->csv);
	for (unsigned i = 0; s->res != NULL && i < s->n_runs; i++)
		free(s->res[i].hist);
	free(s->res);
	free(s->mi.lscpu);
	free(s->mi.topology);
	sl_topology_free(s->m.topo);
	free(s);
}

static int bench_latency(int argc, char **argv)
{
	struct sweep *s = calloc(1, sizeof(*s));
	if (s == NULL)
		return SL_EXIT_RUNTIME;
	s->o = (struct bench_opts){ .duration = 2, .receivers = -1, .size = 64,
				    .loads = { 10000, 100000, 1000000, 0 }, .n_loads = 4,
				    .ops = { OPS_SLUICE, OPS_DPDK }, .n_ops = 2 };
	s->argc = argc;
	s->argv = argv;
	int rc = parse_opts(argc, argv, &s->o);
	if (rc >= 0)
		goto out;
	if (sl_app_type_find("probe_source") == NULL || sl_app_type_find("probe_sink") == NULL) {
		fprintf(stderr, "sluice: bench latency: this build has no probe_source and "
				"probe_sink app types\n");
		rc = SL_EXIT_RUNTIME;
		goto out;
	}
	rc = load_machine(&s->m, s->o.dry_run);
	if (rc == 0)
		rc = resolve_receivers(&s->o, &s->m);
	if (rc != 0)
		goto out;
	plan_sweep(s);
	s->res = calloc(s->n_runs, sizeof(*s->res));
	if (s->res == NULL) {
		rc = SL_EXIT_RUNTIME;
		goto out;
	}
	if (!s->o.dry_run && s->o.memory == MEM_2M && (rc = check_hugepages()) != 0)
		goto out;
	if (!s->o.dry_run && (rc = open_outputs(s)) != 0)
		goto out;
	rc = run_sweep(s);
out:
	sweep_free(s);
	return rc;
}

/* sluice_path: "sluice" in this program's directory.  0, or exit status 1. */
static int find_sluice(void)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n < 0) {
		fprintf(stderr, "sluice: bench: cannot find this program's directory: %s\n",
			strerror(errno));
		return SL_EXIT_RUNTIME;
	}
	self[n] = '\0';
	char *slash = strrchr(self, '/');
	if (slash != NULL)
		*slash = '\0';
	snprintf(sluice_path, sizeof(sluice_path), "%s/sluice", self);
	return 0;
}

/* sluice-bench(8) (`sluice-bench --man`; meson builds the installed page
 * with it): its usage text, as it is. */
static void bench_man(void)
{
	sl_roff_title("SLUICE-BENCH", 8, "System Administration", stdout);
	fputs(".SH NAME\nsluice\\-bench \\- Sluice's benchmarks (sluice bench)\n"
	      ".SH SYNOPSIS\n.B sluice bench latency\n.RI [ OPTIONS ]\n"
	      ".br\n.B sluice\\-bench latency\n.RI [ OPTIONS ]\n"
	      ".SH DESCRIPTION\n"
	      "\\fBsluice bench\\fR runs this program, installed beside \\fBsluice\\fR(8).\n"
	      ".PP\n.nf\n", stdout);
	sl_roff_put(usage_text, false, stdout);
	fputs(".fi\n.SH SEE ALSO\n.BR sluice (8)\n", stdout);
}

/* argv[1] is the benchmark's name ("latency"). */
int main(int argc, char **argv)
{
	argc--;
	argv++;
	if (argc == 1 && strcmp(argv[0], "--man") == 0) {
		bench_man();
		return SL_EXIT_OK;
	}
	static const char *const benches[] = { "latency" };
	if (argc < 1 || strcmp(argv[0], "--help") == 0 || strcmp(argv[0], "-h") == 0) {
		fputs(usage_text, argc < 1 ? stderr : stdout);
		return argc < 1 ? SL_EXIT_CONFIG : SL_EXIT_OK;
	}
	if (strcmp(argv[0], "latency") == 0)
		return find_sluice() != 0 ? SL_EXIT_RUNTIME : bench_latency(argc - 1, argv + 1);
	const char *hint = sl_did_you_mean(argv[0], benches, SL_ARRAY_LEN(benches));
	fprintf(stderr, "sluice: bench: unknown benchmark '%s'%s%s%s; the benchmarks: latency\n",
		argv[0], hint ? " (did you mean '" : "", hint ? hint : "", hint ? "'?)" : "");
	return SL_EXIT_CONFIG;
}
