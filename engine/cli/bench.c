/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sluice bench latency: a sweep of real pipelines, one child process each.
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
 * A run: DIR/runs/NNN.yaml, `sluice run NNN.yaml --duration S` with its
 * output in NNN.log, each sink's report in NNN-rxK.json.  Per run, the
 * receivers are aggregated: counts and Mpps are summed, the percentiles and
 * max are the worst receiver's, min the best's, and the histograms are summed
 * bucket by bucket.
 */
#include <errno.h>
#include <fcntl.h>
#include <hwloc.h>
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

#include "app.h"
#include "bench.h"
#include "err.h"
#include "param.h"
#include "topology.h"

#define BENCH_MAX_LOADS 16
#define BENCH_MAX_RX SL_MAX_PORTS       /* outputs of one probe_source */
#define BENCH_LOG_TAIL 25               /* lines shown of a failed run's log */
#define BENCH_GRACE_S 60.0              /* beyond the duration: EAL start, drain */

static const char usage_text[] =
	"usage: sluice bench latency [--out DIR] [--duration S] [--loads LIST]\n"
	"                            [--receivers N] [--ops LIST] [--size BYTES]\n"
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
	"  --quick          one load, short runs (for tests)\n"
	"  --dry-run        print the runs and exit\n";

enum { OPS_SLUICE, OPS_DPDK, OPS_N };
static const char *const ops_names[OPS_N] = { "sluice", "dpdk" };

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
	double sent, drops;     /* from the log's summary; -1: unknown */
	double v[R_N];          /* aggregated over the receivers */
	struct rx_result rx[BENCH_MAX_RX];
	struct bucket *hist;
	unsigned n_hist;
};

static volatile sig_atomic_t bench_signalled;

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

static int usage_error(const char *fmt, const char *arg)
{
	fprintf(stderr, "sluice: bench latency: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\n(see 'sluice bench latency --help')\n");
	return SL_EXIT_CONFIG;
}

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

/* s with JSON's escapes, without the quotes. */
static void json_escape(FILE *f, const char *s)
{
	for (; *s != '\0'; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", f);
		else if (c == '\t')
			fputs("\\t", f);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
}

static void json_string(FILE *f, const char *s)
{
	fputc('"', f);
	json_escape(f, s);
	fputc('"', f);
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

/* put_num, with -1 (unknown) as null where asked. */
static void json_num(FILE *f, double v, bool unknown_is_null)
{
	if (unknown_is_null && v < 0)
		fputs("null", f);
	else
		put_num(f, v);
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

/* DIR/runs/NNN then suffix (".yaml", ".log") or, with rx >= 0, "-rxK.json".
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

/* ---- the report format ---------------------------------------------------- */

static const char *skip_ws(const char *s)
{
	while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
		s++;
	return s;
}

/* Position just after `"key"` and its colon, or NULL. */
static const char *json_key(const char *text, const char *key)
{
	size_t klen = strlen(key);
	for (const char *s = strchr(text, '"'); s != NULL; s = strchr(s + 1, '"')) {
		if (strncmp(s + 1, key, klen) != 0 || s[1 + klen] != '"')
			continue;
		const char *c = skip_ws(s + 2 + klen);
		if (*c == ':')
			return skip_ws(c + 1);
	}
	return NULL;
}

bool sl_bench_json_number(const char *text, const char *key, double *out)
{
	const char *v = json_key(text, key);
	if (v == NULL)
		return false;
	char *end;
	double d = strtod(v, &end);
	if (end == v)
		return false;
	*out = d;
	return true;
}

/* "histogram": [[lo, hi, count], ...] appended to *h. */
static int parse_histogram(const char *text, struct bucket **h, unsigned *n)
{
	const char *s = json_key(text, "histogram");
	if (s == NULL || *s != '[')
		return -EINVAL;
	s = skip_ws(s + 1);
	while (*s != ']') {
		double v[3];
		if (*s != '[')
			return -EINVAL;
		s++;
		for (int i = 0; i < 3; i++) {
			char *end;
			v[i] = strtod(skip_ws(s), &end);
			if (end == skip_ws(s))
				return -EINVAL;
			s = skip_ws(end);
			if (*s != (i < 2 ? ',' : ']'))
				return -EINVAL;
			s++;
		}
		struct bucket *nb = realloc(*h, (*n + 1) * sizeof(**h));
		if (nb == NULL)
			return -ENOMEM;
		*h = nb;
		(*h)[(*n)++] = (struct bucket){ v[0], v[1], v[2] };
		s = skip_ws(s);
		if (*s == ',')
			s = skip_ws(s + 1);
		else if (*s != ']')
			return -EINVAL;
	}
	return 0;
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

static void yaml_path(FILE *f, const char *path)
{
	json_string(f, path);      /* a YAML double-quoted scalar escapes alike */
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
	fprintf(f, "dpdk:\n  args: [--no-huge, -m, \"512\", --no-pci, --no-telemetry,\n"
		   "         --file-prefix, %s, --log-level, \"lib.eal:warning\"]\n", prefix);
	fprintf(f, "pool: { ops: %s, mbufs: %u }\n", ops_names[ops],
		p->n_rx <= 4 ? 16383u : 65535u);
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
		yaml_path(f, report);
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

/* Run `sluice run CONFIG --duration S` with its output in log.  Returns the
 * wait status, or -ETIMEDOUT (killed), or -errno; *cpu_s: the CPU time the
 * child used (user + system, all threads). */
static int run_child(const char *config, const char *log, double duration, double *cpu_s)
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
		char *argv[] = { "sluice", "run", (char *)config, "--duration", dur, NULL };
		execv("/proc/self/exe", argv);
		dprintf(2, "sluice: bench latency: cannot execute /proc/self/exe: %s\n",
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

/* From the summary in the log: the control thread's CPU, packets generated
 * by the source, drops on the source's links. */
static void parse_log(const char *log, struct result *r)
{
	r->control_cpu = -1;
	r->sent = -1;
	r->drops = -1;
	char *text = read_file(log, 1 << 22);
	if (text == NULL)
		return;
	const char *c = strstr(text, "control thread on cpu ");
	if (c != NULL)
		r->control_cpu = atoi(c + strlen("control thread on cpu "));
	enum { NONE, APPS, LINKS } table = NONE;
	double drops = 0;
	bool any = false;
	for (char *line = strtok(text, "\n"); line != NULL; line = strtok(NULL, "\n")) {
		if (strncmp(line, "apps", 4) == 0) {
			table = APPS;
			continue;
		}
		if (strncmp(line, "links", 5) == 0) {
			table = LINKS;
			continue;
		}
		if (line[0] != ' ') {
			table = NONE;
			continue;
		}
		char a[128], b[128], k[64];
		double n1, n2, n3;
		if (table == APPS && sscanf(line, " %127s %127s %63s %lf", a, b, k, &n1) == 4 &&
		    strcmp(a, "probe") == 0) {
			r->sent = n1;
		} else if (table == LINKS &&
			   sscanf(line, " %127s -> %127s %63s %lf %lf %lf", a, b, k, &n1, &n2, &n3) ==
				   6 &&
			   strncmp(a, "probe.output", 12) == 0) {
			drops += n3;
			any = true;
		}
	}
	if (any)
		r->drops = drops;
	free(text);
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

/* Read the receivers' reports and aggregate them into r. */
static int read_reports(const char *dir, struct result *r, struct sl_err *err)
{
	const struct place *p = r->p;
	for (unsigned k = 0; k < R_N; k++)
		r->v[k] = 0;
	for (unsigned i = 0; i < p->n_rx; i++) {
		char path[4096];
		run_path(path, sizeof(path), dir, r->run, (int)i, "");
		char *text = read_file(path, 1 << 24);
		if (text == NULL)
			return sl_errf(err, ENOENT, "sink%u wrote no report (%s: %s)", i, path,
				       strerror(errno));
		struct rx_result *x = &r->rx[i];
		for (unsigned k = 0; k < R_N; k++) {
			if (!sl_bench_json_number(text, report_keys[k], &x->v[k])) {
				free(text);
				return sl_errf(err, EINVAL, "%s: no number for \"%s\"", path,
					       report_keys[k]);
			}
		}
		int rc = parse_histogram(text, &r->hist, &r->n_hist);
		free(text);
		if (rc < 0)
			return sl_errf(err, -rc, "%s: \"histogram\" is not a list of "
				       "[lower_ns, upper_ns, count]", path);
		if (x->v[R_PACKETS] <= 0)
			return sl_errf(err, EIO, "sink%u on cpu %d measured no packets (%s)", i,
				       p->rx[i], path);
		for (unsigned k = 0; k < R_N; k++) {
			switch (k) {
			case R_PACKETS: case R_LOST: case R_REORDERED: case R_FOREIGN: case R_MPPS:
				r->v[k] += x->v[k];
				break;
			case R_MIN:
				if (i == 0 || x->v[k] < r->v[k])
					r->v[k] = x->v[k];
				break;
			default:            /* duration, percentiles, max: the worst */
				if (x->v[k] > r->v[k])
					r->v[k] = x->v[k];
			}
		}
	}
	merge_histogram(r->hist, &r->n_hist);
	return 0;
}

/* ---- output files ---------------------------------------------------------- */

static const char csv_header[] =
	"run,kind,hop_class,tx_cpu,rx_cpus,receivers,load_pps,ops,size,packets,lost,"
	"reordered,mpps,p50_ns,p90_ns,p99_ns,p999_ns,max_ns,min_ns,foreign,sent,drops,"
	"duration_s,control_cpu,other_load,steal\n";

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
	fputc('\n', f);
}

struct machine_info {
	char *lscpu;
	char *topology;
	char kernel[512];
	bool xml;
	char started[32];
};

static void json_stats(FILE *f, const double *v, const char *indent)
{
	for (unsigned k = 0; k < R_N; k++) {
		fprintf(f, ",\n%s\"%s\": ", indent, report_keys[k]);
		json_num(f, v[k], false);
	}
}

static int write_json(const char *dir, const struct bench_opts *o, const struct machine *m,
		      const struct machine_info *mi, int argc, char **argv,
		      const struct result *res, unsigned n_res, unsigned n_runs)
{
	char path[4096], tmp[4200];
	snprintf(path, sizeof(path), "%s/results.json", dir);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	FILE *f = fopen(tmp, "w");
	if (f == NULL)
		return -errno;
	fprintf(f, "{\n  \"command\": \"sluice bench latency");
	for (int i = 0; i < argc; i++) {
		fputc(' ', f);
		json_escape(f, argv[i]);
	}
	fprintf(f, "\",\n  \"started\": \"%s\",\n  \"complete\": %s,\n", mi->started,
		n_res == n_runs ? "true" : "false");
	fprintf(f, "  \"options\": {\"duration_s\": ");
	json_num(f, o->duration, false);
	fprintf(f, ", \"loads_pps\": [");
	for (unsigned i = 0; i < o->n_loads; i++)
		fprintf(f, "%s%llu", i ? ", " : "", (unsigned long long)o->loads[i]);
	fprintf(f, "], \"receivers\": %d, \"ops\": [", o->receivers);
	for (unsigned i = 0; i < o->n_ops; i++)
		fprintf(f, "%s\"%s\"", i ? ", " : "", ops_names[o->ops[i]]);
	fprintf(f, "], \"size\": %u, \"quick\": %s},\n", o->size, o->quick ? "true" : "false");

	fprintf(f, "  \"machine\": {\n    \"lscpu\": ");
	if (mi->lscpu != NULL)
		json_string(f, mi->lscpu);
	else
		fputs("null", f);
	fprintf(f, ",\n    \"hwloc_xml\": %s,\n    \"topology\": ",
		mi->xml ? "\"machine.xml\"" : "null");
	json_string(f, mi->topology != NULL ? mi->topology : "");
	fprintf(f, ",\n    \"kernel\": ");
	json_string(f, mi->kernel);
	fprintf(f, ",\n    \"cpus_allowed\": [");
	for (unsigned i = 0; i < m->n_cpus; i++)
		fprintf(f, "%s%d", i ? ", " : "", m->cpus[i]);
	fprintf(f, "]\n  },\n  \"runs\": [");

	for (unsigned n = 0; n < n_res; n++) {
		const struct result *r = &res[n];
		const struct place *p = r->p;
		fprintf(f, "%s\n    {\n      \"run\": %u,\n      \"kind\": \"%s\",\n"
			   "      \"hop_class\": \"%s\",\n      \"tx_cpu\": %d,\n      \"rx_cpus\": [",
			n ? "," : "", r->run, p->receivers ? "receivers" : "pair", place_hop(p), p->tx);
		for (unsigned i = 0; i < p->n_rx; i++)
			fprintf(f, "%s%d", i ? ", " : "", p->rx[i]);
		fprintf(f, "],\n      \"receivers\": %u,\n      \"load_pps\": %llu,\n"
			   "      \"ops\": \"%s\",\n      \"size\": %u,\n      \"control_cpu\": ",
			p->n_rx, (unsigned long long)r->load, ops_names[r->ops], o->size);
		json_num(f, r->control_cpu, true);
		fprintf(f, ",\n      \"other_load\": ");
		json_num(f, r->other_load, true);
		fprintf(f, ",\n      \"steal\": ");
		json_num(f, r->steal, true);
		fprintf(f, ",\n      \"sent\": ");
		json_num(f, r->sent, true);
		fprintf(f, ",\n      \"drops\": ");
		json_num(f, r->drops, true);
		json_stats(f, r->v, "      ");
		fprintf(f, ",\n      \"config\": \"runs/%03u.yaml\",\n      \"log\": \"runs/%03u.log\","
			   "\n      \"per_receiver\": [",
			r->run, r->run);
		for (unsigned i = 0; i < p->n_rx; i++) {
			fprintf(f, "%s\n        {\"sink\": \"sink%u\", \"cpu\": %d, \"hop_class\": \"%s\","
				   " \"report\": \"runs/%03u-rx%u.json\"",
				i ? "," : "", i, p->rx[i], hop_label(p, i), r->run, i);
			json_stats(f, r->rx[i].v, "         ");
			fputc('}', f);
		}
		fprintf(f, "\n      ],\n      \"histogram\": [");
		for (unsigned b = 0; b < r->n_hist; b++) {
			fprintf(f, "%s[", b ? ", " : "");
			json_num(f, r->hist[b].lo, false);
			fputs(", ", f);
			json_num(f, r->hist[b].hi, false);
			fputs(", ", f);
			json_num(f, r->hist[b].count, false);
			fputc(']', f);
		}
		fprintf(f, "]\n    }");
	}
	fprintf(f, "\n  ]\n}\n");
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
		fprintf(stderr, "sluice: bench latency: %s needs a whole number in %llu..%llu%s, "
				"got '%s'\n(see 'sluice bench latency --help')\n",
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
		return usage_error("--loads needs a list like 10k,100k,1M,0, got '%s'", text);
	o->n_loads = 0;
	char *save = NULL;
	for (char *t = strtok_r(buf, ",", &save); t != NULL; t = strtok_r(NULL, ",", &save)) {
		if (o->n_loads == BENCH_MAX_LOADS)
			return usage_error("--loads: at most 16 loads, got '%s'", text);
		uint64_t v;
		if (strcmp(t, "max") == 0 || strcmp(t, "unlimited") == 0)
			v = 0;
		else if (parse_uint("--loads", t, 0, 1000000000, &v) < 0)
			return SL_EXIT_CONFIG;
		o->loads[o->n_loads++] = v;
	}
	if (o->n_loads == 0)
		return usage_error("--loads needs a list like 10k,100k,1M,0, got '%s'", text);
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
			fprintf(stderr, "sluice: bench latency: --ops: unknown pool ops '%s'%s%s%s; "
					"choose from sluice, dpdk\n",
				t, hint ? " (did you mean '" : "", hint ? hint : "", hint ? "'?)" : "");
			return SL_EXIT_CONFIG;
		}
		for (unsigned i = 0; i < o->n_ops; i++)
			if (o->ops[i] == k)
				return usage_error("--ops names '%s' twice", t);
		o->ops[o->n_ops++] = k;
	}
	if (o->n_ops == 0)
		return usage_error("--ops needs a list like sluice,dpdk, got '%s'", text);
	return 0;
}

static int parse_opts(int argc, char **argv, struct bench_opts *o)
{
	static const char *const names[] = { "--out", "--duration", "--loads", "--receivers",
					     "--ops", "--size", "--quick", "--dry-run", "--help" };
	bool loads_set = false, receivers_set = false;
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "--quick") == 0) {
			o->quick = true;
			continue;
		}
		if (strcmp(a, "--dry-run") == 0) {
			o->dry_run = true;
			continue;
		}
		if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			fputs(usage_text, stdout);
			return -1;
		}
		bool known = false;
		for (unsigned k = 0; k < 6; k++)
			known |= strcmp(a, names[k]) == 0;
		if (!known) {
			const char *hint = a[0] == '-' ? sl_did_you_mean(a, names, SL_ARRAY_LEN(names))
						       : NULL;
			fprintf(stderr, "sluice: bench latency: unknown %s '%s'%s%s%s\n"
					"(see 'sluice bench latency --help')\n",
				a[0] == '-' ? "option" : "argument", a, hint ? " (did you mean '" : "",
				hint ? hint : "", hint ? "'?)" : "");
			return SL_EXIT_CONFIG;
		}
		if (i + 1 >= argc)
			return usage_error("%s needs a value", a);
		const char *v = argv[++i];
		uint64_t u;
		if (strcmp(a, "--out") == 0) {
			if (v[0] == '\0' || strlen(v) > 3000)
				return usage_error("%s needs a directory (a path of at most 3000 "
						   "bytes)", a);
			o->out = v;
		} else if (strcmp(a, "--duration") == 0) {
			char *end;
			double d = strtod(v, &end);
			if (end == v || *end != '\0' || !(d >= 0.1 && d <= 3600))
				return usage_error("--duration needs seconds in 0.1..3600, got '%s'", v);
			o->duration = d;
			o->duration_set = true;
		} else if (strcmp(a, "--loads") == 0) {
			int rc = parse_loads(v, o);
			if (rc != 0)
				return rc;
			loads_set = true;
		} else if (strcmp(a, "--receivers") == 0) {
			if (parse_uint(a, v, 0, BENCH_MAX_RX, &u) < 0)
				return SL_EXIT_CONFIG;
			o->receivers = (int)u;
			receivers_set = true;
		} else if (strcmp(a, "--ops") == 0) {
			int rc = parse_ops(v, o);
			if (rc != 0)
				return rc;
		} else {
			if (parse_uint(a, v, 60, 9000, &u) < 0)
				return SL_EXIT_CONFIG;
			o->size = (unsigned)u;
		}
	}
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
	return 0;
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

static int bench_latency(int argc, char **argv)
{
	struct bench_opts o = { .duration = 2, .receivers = -1, .size = 64,
				.loads = { 10000, 100000, 1000000, 0 }, .n_loads = 4,
				.ops = { OPS_SLUICE, OPS_DPDK }, .n_ops = 2 };
	int rc = parse_opts(argc, argv, &o);
	if (rc != 0)
		return rc < 0 ? SL_EXIT_OK : rc;

	if (sl_app_type_find("probe_source") == NULL || sl_app_type_find("probe_sink") == NULL) {
		fprintf(stderr, "sluice: bench latency: this build has no probe_source and "
				"probe_sink app types\n");
		return SL_EXIT_RUNTIME;
	}

	struct machine m;
	rc = load_machine(&m, o.dry_run);
	if (rc != 0) {
		sl_topology_free(m.topo);
		return rc;
	}
	unsigned avail = m.n_cpus - 1;
	if (avail > BENCH_MAX_RX)
		avail = BENCH_MAX_RX;
	unsigned receivers;
	if (o.receivers == -1)
		receivers = avail;
	else if (o.receivers == -2)
		receivers = avail < 2 ? avail : 2;
	else if ((unsigned)o.receivers > avail) {
		fprintf(stderr, "sluice: bench latency: --receivers %d: this process may use %u "
				"CPU%s besides the transmitter's (at most %u receiver%s)\n",
			o.receivers, m.n_cpus - 1, m.n_cpus == 2 ? "" : "s", avail,
			avail == 1 ? "" : "s");
		sl_topology_free(m.topo);
		return SL_EXIT_CONFIG;
	} else {
		receivers = (unsigned)o.receivers;
	}
	o.receivers = (int)receivers;

	struct place places[5 + BENCH_MAX_RX];
	unsigned n_places = make_places(&m, receivers, places);
	unsigned n_runs = n_places * o.n_loads * o.n_ops;

	if (o.out == NULL) {
		time_t t = time(NULL);
		struct tm tm;
		localtime_r(&t, &tm);
		strftime(o.out_default, sizeof(o.out_default), "bench-latency-%Y%m%d-%H%M%S", &tm);
		o.out = o.out_default;
	}
	double est = n_runs * (o.duration + 1.0);
	fprintf(o.dry_run ? stdout : stderr,
		"bench latency: %u run%s (%u placement%s x %u load%s x %u pool ops) of %g s, "
		"about %.0f s%s%s\n",
		n_runs, n_runs == 1 ? "" : "s", n_places, n_places == 1 ? "" : "s", o.n_loads,
		o.n_loads == 1 ? "" : "s", o.n_ops, o.duration, est, o.dry_run ? "" : "; into ",
		o.dry_run ? "" : o.out);

	char prefix[64];
	snprintf(prefix, sizeof(prefix), "sluice-bench-%d", (int)getpid());
	char runs_dir[4096];
	snprintf(runs_dir, sizeof(runs_dir), "%s/runs", o.out);
	if (!o.dry_run && (rc = mkdir_p(runs_dir)) < 0) {
		fprintf(stderr, "sluice: bench latency: cannot create %s: %s\n", runs_dir,
			strerror(-rc));
		sl_topology_free(m.topo);
		return SL_EXIT_RUNTIME;
	}

	struct machine_info mi = { 0 };
	FILE *csv = NULL;
	struct result *res = calloc(n_runs, sizeof(*res));
	if (res == NULL) {
		sl_topology_free(m.topo);
		return SL_EXIT_RUNTIME;
	}
	int exit_code = SL_EXIT_OK;
	char path[4096];
	if (!o.dry_run) {
		machine_info(&m, o.out, &mi);
		snprintf(path, sizeof(path), "%s/results.csv", o.out);
		csv = fopen(path, "w");
		if (csv == NULL) {
			fprintf(stderr, "sluice: bench latency: cannot write %s: %s\n", path,
				strerror(errno));
			exit_code = SL_EXIT_RUNTIME;
			goto out;
		}
		fputs(csv_header, csv);
		fflush(csv);
	}

	struct sigaction sa = { .sa_handler = on_signal }, old_int, old_term;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGINT, &sa, &old_int) < 0 || sigaction(SIGTERM, &sa, &old_term) < 0) {
		fprintf(stderr, "sluice: bench latency: cannot install the signal handlers: %s\n",
			strerror(errno));
		exit_code = SL_EXIT_RUNTIME;
		goto out;
	}

	double t_start = now_s();
	unsigned run = 0, done = 0;
	for (unsigned pi = 0; pi < n_places && exit_code == SL_EXIT_OK; pi++) {
		for (unsigned li = 0; li < o.n_loads && exit_code == SL_EXIT_OK; li++) {
			for (unsigned oi = 0; oi < o.n_ops && exit_code == SL_EXIT_OK; oi++) {
				const struct place *p = &places[pi];
				struct result *r = &res[run];
				*r = (struct result){ .run = ++run, .p = p, .load = o.loads[li],
						      .ops = o.ops[oi] };
				char what[512], lbuf[32], label[700];
				place_text(p, what, sizeof(what));
				snprintf(label, sizeof(label), "%s load %s ops %s", what,
					 load_label(r->load, lbuf, sizeof(lbuf)), ops_names[r->ops]);
				if (o.dry_run) {
					printf("[%u/%u] %s\n", r->run, n_runs, label);
					continue;
				}
				fprintf(stderr, "[%u/%u] %s: ", r->run, n_runs, label);
				fflush(stderr);

				char config[4096], log[4096];
				run_path(config, sizeof(config), o.out, r->run, -1, ".yaml");
				run_path(log, sizeof(log), o.out, r->run, -1, ".log");
				for (unsigned i = 0; i < p->n_rx; i++) {
					run_path(path, sizeof(path), o.out, r->run, (int)i, "");
					unlink(path);
				}
				rc = write_config(config, o.out, r->run, n_runs, p, r->load, r->ops,
						  &o, prefix);
				if (rc < 0) {
					fprintf(stderr, "\nsluice: bench latency: cannot write %s: %s\n",
						config, strerror(-rc));
					exit_code = SL_EXIT_RUNTIME;
					break;
				}
				double busy0, steal0, busy1, steal1, t0 = now_s(), child_cpu;
				bool times = cpu_times(&busy0, &steal0);
				int st = run_child(config, log, o.duration, &child_cpu);
				double wall = now_s() - t0;
				r->other_load = r->steal = -1;
				if (times && cpu_times(&busy1, &steal1) && wall > 0) {
					double other = busy1 - busy0 - child_cpu;
					r->other_load = round2(other > 0 ? other / wall : 0);
					r->steal = round2((steal1 - steal0) / wall);
				}
				remove_runtime_dir(prefix);
				if (bench_signalled) {
					fprintf(stderr, "interrupted\n");
					exit_code = SL_EXIT_RUNTIME;
					break;
				}
				struct sl_err err = { "" };
				if (st < 0)
					sl_errf(&err, -st, "%s",
						st == -ETIMEDOUT ? "'sluice run' did not end; killed"
								 : strerror(-st));
				else if (WIFSIGNALED(st))
					sl_errf(&err, EIO, "'sluice run' was killed by signal %d",
						WTERMSIG(st));
				else if (WEXITSTATUS(st) != 0)
					sl_errf(&err, EIO, "'sluice run %s' exited %d", config,
						WEXITSTATUS(st));
				else
					read_reports(o.out, r, &err);
				if (err.msg[0] != '\0') {
					fprintf(stderr, "failed\nsluice: bench latency: run %u (%s) "
							"failed: %s\n",
						r->run, label, err.msg);
					show_log_tail(log);
					exit_code = SL_EXIT_RUNTIME;
					break;
				}
				parse_log(log, r);
				done = run;
				fprintf(stderr, "p50 %.0f ns p99 %.0f ns %.2f Mpps", r->v[R_P50],
					r->v[R_P99], r->v[R_MPPS]);
				if (r->v[R_LOST] > 0 || r->drops > 0)
					fprintf(stderr, " (lost %.0f, link drops %.0f)", r->v[R_LOST],
						r->drops < 0 ? 0 : r->drops);
				if (r->other_load >= 0.1)
					fprintf(stderr, " [other work: %.1f CPUs]", r->other_load);
				fputc('\n', stderr);
				csv_row(csv, r, &o);
				fflush(csv);
				rc = write_json(o.out, &o, &m, &mi, argc, argv, res, done, n_runs);
				if (rc < 0) {
					fprintf(stderr, "sluice: bench latency: cannot write "
							"%s/results.json: %s\n", o.out, strerror(-rc));
					exit_code = SL_EXIT_RUNTIME;
				}
			}
		}
	}
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);

	if (!o.dry_run) {
		if (done == 0 && write_json(o.out, &o, &m, &mi, argc, argv, res, 0, n_runs) < 0)
			exit_code = SL_EXIT_RUNTIME;
		if (exit_code == SL_EXIT_OK)
			fprintf(stderr, "bench latency: %u runs in %.0f s; results in %s/results.csv "
					"and %s/results.json (plots: scripts/plot-latency %s)\n",
				n_runs, now_s() - t_start, o.out, o.out, o.out);
		else
			fprintf(stderr, "bench latency: %u of %u runs done; their results are in "
					"%s/results.csv and %s/results.json\n",
				done, n_runs, o.out, o.out);
	}
out:
	if (csv != NULL)
		fclose(csv);
	for (unsigned i = 0; i < n_runs; i++)
		free(res[i].hist);
	free(res);
	free(mi.lscpu);
	free(mi.topology);
	sl_topology_free(m.topo);
	return exit_code;
}

int sl_bench_main(int argc, char **argv)
{
	static const char *const benches[] = { "latency" };
	if (argc < 1 || strcmp(argv[0], "--help") == 0 || strcmp(argv[0], "-h") == 0) {
		fputs(usage_text, argc < 1 ? stderr : stdout);
		return argc < 1 ? SL_EXIT_CONFIG : SL_EXIT_OK;
	}
	if (strcmp(argv[0], "latency") == 0)
		return bench_latency(argc - 1, argv + 1);
	const char *hint = sl_did_you_mean(argv[0], benches, SL_ARRAY_LEN(benches));
	fprintf(stderr, "sluice: bench: unknown benchmark '%s'%s%s%s; the benchmarks: latency\n",
		argv[0], hint ? " (did you mean '" : "", hint ? hint : "", hint ? "'?)" : "");
	return SL_EXIT_CONFIG;
}
