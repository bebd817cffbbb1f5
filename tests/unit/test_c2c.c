/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Core-to-core matrices: measuring (on this machine's CPUs), saving and
 * loading, grouping into measured domains, load errors, and placement on a
 * flat machine using measured domains.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "placement/c2c.h"
#include "config/config.h"
#include "config/place.h"

#include "check.h"

/* 8 CPUs in two groups of 4: 30 ns inside a group, 95 ns across. */
static struct sl_c2c *two_groups(void)
{
	static int cpus[8] = { 0, 1, 2, 3, 4, 5, 6, 7 };
	static double ns[64];
	static struct sl_c2c m = { 8, cpus, ns };
	for (unsigned i = 0; i < 8; i++)
		for (unsigned j = 0; j < 8; j++)
			ns[i * 8 + j] = i == j ? 0 : ((i < 4) == (j < 4) ? 30 + i + j : 95);
	return &m;
}

static void test_domains(void)
{
	int dom[8];
	unsigned n = sl_c2c_domains(two_groups(), 1.5, dom);
	CHECK(n == 2, "%u domains, expected 2", n);
	for (int i = 0; i < 8; i++)
		CHECK(dom[i] == (i < 4 ? 0 : 1), "cpu %d in domain %d", i, dom[i]);
}

static void test_save_load(void)
{
	char path[64];
	struct sl_err err;
	snprintf(path, sizeof(path), "/tmp/sl-c2c-%d.csv", (int)getpid());
	CHECK(sl_c2c_save(two_groups(), path, &err) == 0, "%s", err.msg);
	struct sl_c2c *m = sl_c2c_load(path, &err);
	CHECK(m != NULL, "%s", m ? "" : err.msg);
	if (m != NULL) {
		CHECK(m->n == 8 && m->cpus[7] == 7, "loaded %u cpus", m->n);
		CHECK(m->ns[1 * 8 + 2] == 33.0 && m->ns[0 * 8 + 7] == 95.0, "values %.1f %.1f",
		      m->ns[10], m->ns[7]);
		sl_c2c_free(m);
	}
	FILE *f = fopen(path, "w");
	fputs("cpu,0,1\n0,0.0,20.0\n2,20.0,0.0\n", f);
	fclose(f);
	CHECK(sl_c2c_load(path, &err) == NULL && strstr(err.msg, ":3: expected the row of cpu 1"),
	      "wrong row: %s", err.msg);
	f = fopen(path, "w");
	fputs("hello\n", f);
	fclose(f);
	CHECK(sl_c2c_load(path, &err) == NULL && strstr(err.msg, ":1: not a core-to-core matrix"),
	      "bad header: %s", err.msg);
	unlink(path);
	errno = 0;
	CHECK(sl_c2c_load(path, &err) == NULL && errno == ENOENT &&
	      strstr(err.msg, "cannot read"), "missing: errno %d, %s", errno, err.msg);
}

/* Measured domains written into a synthetic machine of 8 PUs: the count
 * comes back through the out-parameter; a matrix of other CPUs is refused
 * and leaves the machine as it was. */
static void test_apply_domains(void)
{
	struct sl_err err;
	setenv("HWLOC_SYNTHETIC", "pack:1 l3:1 core:8 pu:1", 1);
	struct sl_topology *t = sl_topology_load(&err);
	unsetenv("HWLOC_SYNTHETIC");
	CHECK(t != NULL, "topology: %s", err.msg);
	if (t == NULL)
		return;
	unsigned n = 99;
	int rc = sl_topology_apply_domains(t, two_groups(), 1.5, &n);
	CHECK(rc == 0 && n == 2 && t->n_l3 == 2, "apply: rc %d, %u domains, n_l3 %u", rc, n,
	      t->n_l3);
	CHECK(sl_topology_apply_domains(t, two_groups(), 1.5, NULL) == 0, "NULL count");

	static int far_cpus[2] = { 100, 101 };
	static double far_ns[4] = { 0, 20, 20, 0 };
	struct sl_c2c far = { 2, far_cpus, far_ns };
	n = 99;
	rc = sl_topology_apply_domains(t, &far, 1.5, &n);
	CHECK(rc == -EINVAL && n == 99 && t->n_l3 == 2, "no CPU covered: rc %d, n %u, n_l3 %u",
	      rc, n, t->n_l3);
	sl_topology_free(t);
}

/* Write text to path and load it: NULL expected, with a message equal to
 * "PATH" followed by want (want starts at the ':' of ":LINE:"). */
static void load_error(const char *path, const char *text, size_t len, const char *want)
{
	struct sl_err err = { "" };
	char full[600];
	FILE *f = fopen(path, "w");
	fwrite(text, 1, len, f);
	fclose(f);
	errno = 0;
	struct sl_c2c *m = sl_c2c_load(path, &err);
	snprintf(full, sizeof(full), "%s%s", path, want);
	CHECK(m == NULL, "accepted: %.60s", text);
	CHECK(errno == EINVAL, "errno %d, want EINVAL, for %.60s", errno, text);
	CHECK(strcmp(err.msg, full) == 0, "message:\n  got  %s\n  want %s", err.msg, full);
	sl_c2c_free(m);
}

#define LOAD_ERROR(path, text, want) load_error(path, text, sizeof(text) - 1, want)

/* What the loader refuses, each with FILE:LINE and the offending text. */
static void test_load_errors(void)
{
	char path[64];
	snprintf(path, sizeof(path), "/tmp/sl-c2c-e%d.csv", (int)getpid());

	/* Latencies that are not finite numbers, or negative. */
	LOAD_ERROR(path, "cpu,0,1\n0,0.0,nan\n1,20.0,0.0\n",
		   ":2: bad latency value 'nan' for cpus 0 and 1: expected a number of ns in "
		   "0..1000000000");
	LOAD_ERROR(path, "cpu,0,1\n0,0.0,20.0\n1,1000000000.1,0.0\n",
		   ":3: bad latency value '1000000000.1' for cpus 1 and 0: expected a number of ns "
		   "in 0..1000000000");
	LOAD_ERROR(path, "cpu,0,1\n0,0.0,20.0\n1,inf,0.0\n",
		   ":3: bad latency value 'inf' for cpus 1 and 0: expected a number of ns in "
		   "0..1000000000");
	LOAD_ERROR(path, "cpu,0,1\n0,0.0,20.0\n1,-Infinity,0.0\n",
		   ":3: bad latency value '-Infinity' for cpus 1 and 0: expected a number of ns "
		   "in 0..1000000000");
	LOAD_ERROR(path, "cpu,0,1\n0,0.0,-3\n1,20.0,0.0\n",
		   ":2: bad latency value '-3' for cpus 0 and 1: expected a number of ns in "
		   "0..1000000000");
	LOAD_ERROR(path, "cpu,0,1\n0,0.0,20x\n1,20.0,0.0\n",
		   ":2: bad latency value '20x' for cpus 0 and 1: expected a number of ns in "
		   "0..1000000000");
	LOAD_ERROR(path, "cpu,0,1\n0,0.0,\n1,20.0,0.0\n",
		   ":2: bad latency value '' for cpus 0 and 1: expected a number of ns in "
		   "0..1000000000");

	/* CPU ids: negative, duplicate, too large (quoted whole, not
	 * truncated), not a number. */
	LOAD_ERROR(path, "cpu,0,-1\n0,0.0,20.0\n-1,20.0,0.0\n",
		   ":1: column 3: '-1' is not a CPU number (0..1023)");
	LOAD_ERROR(path, "cpu,3,5,3\n3,0,1,1\n5,1,0,1\n3,1,1,0\n",
		   ":1: column 4: cpu 3 appears twice in the header (columns 2 and 4)");
	LOAD_ERROR(path, "cpu,0,99999999999\n0,0.0,20.0\n99999999999,20.0,0.0\n",
		   ":1: column 3: '99999999999' is not a CPU number (0..1023)");
	LOAD_ERROR(path, "cpu,0,1024\n0,0.0,20.0\n1024,20.0,0.0\n",
		   ":1: column 3: '1024' is not a CPU number (0..1023)");
	LOAD_ERROR(path, "cpu,0,,1\n", ":1: column 3: '' is not a CPU number (0..1023)");
	LOAD_ERROR(path, "cpu,0,1\n0,0.0,20.0\n99999999999,20.0,0.0\n",
		   ":3: expected the row of cpu 1, found '99999999999'");
	LOAD_ERROR(path, "cpu,0,1\n0,0.0,20.0\n-1,20.0,0.0\n",
		   ":3: expected the row of cpu 1, found '-1'");

	/* Rows: too few or too many values, too many rows, too few. */
	LOAD_ERROR(path, "cpu,0,1\n0,0.0\n1,20.0,0.0\n",
		   ":2: expected 2 values in the row of cpu 0, found 1");
	LOAD_ERROR(path, "cpu,0,1\n0,0.0,20.0,5\n1,20.0,0.0\n",
		   ":2: expected 2 values in the row of cpu 0, found more");
	LOAD_ERROR(path, "cpu,0,1\n0,0.0,20.0\n1,20.0,0.0\n\n2,1,1\n",
		   ":5: a row beyond the 2 of the header's CPUs: '2'");
	LOAD_ERROR(path, "cpu,0,1\n0,0.0,20.0\n",
		   ":2: the file ends after 1 rows; the header names 2 CPUs");
	LOAD_ERROR(path, "cpu,0,1\n0,0.0,2\0\n", ":2: a NUL byte in the line");

	/* A very long field: the message names its own line (the reader
	 * does not split the line), and quotes the start of the field. */
	size_t big = 20000;
	char *text = malloc(big + 64);
	int off = snprintf(text, big + 64, "cpu,0,1\n0,0.0,20.0\n1,");
	memset(text + off, '7', big);
	off += (int)big;
	off += snprintf(text + off, 64, ",0.0\n");
	load_error(path, text, (size_t)off,
		   ":3: bad latency value '7777777777777777777777777777777777777777...' "
		   "(20000 characters) for cpus 1 and 0: expected a number of ns in "
		   "0..1000000000");
	free(text);

	/* A line longer than 1 MiB is refused at its own line. */
	big = (1u << 20) + 10;
	text = malloc(big + 64);
	off = snprintf(text, big + 64, "cpu,0,1\n0,0.0,20.0\n1,");
	memset(text + off, '1', big);
	off += (int)big;
	load_error(path, text, (size_t)off, ":3: line longer than 1048576 bytes");
	free(text);

	/* Windows line ends and blank lines are fine. */
	struct sl_err err;
	FILE *f = fopen(path, "w");
	fputs("cpu,4,2\r\n\r\n4,0.0,20.5\r\n2,20.5,0\r\n", f);
	fclose(f);
	struct sl_c2c *m = sl_c2c_load(path, &err);
	CHECK(m != NULL, "CRLF matrix: %s", err.msg);
	if (m != NULL) {
		CHECK(m->n == 2 && m->cpus[0] == 4 && m->cpus[1] == 2 && m->ns[1] == 20.5,
		      "CRLF matrix read as %u cpus %d %d, %.1f", m->n, m->cpus[0], m->cpus[1],
		      m->ns[1]);
		sl_c2c_free(m);
	}
	unlink(path);
}

/* hwloc sees one flat L3; the matrix splits it in two; a chain of three
 * workers lands inside one measured domain. */
static void test_placement_with_matrix(void)
{
	char path[64];
	struct sl_err err;
	snprintf(path, sizeof(path), "/tmp/sl-c2c-p%d.csv", (int)getpid());
	sl_c2c_save(two_groups(), path, &err);
	setenv("HWLOC_SYNTHETIC", "pack:1 l3:1 core:8 pu:1", 1);
	char text[1024];
	snprintf(text, sizeof(text),
		 "topology: { c2c: %s }\n"
		 "workers: { a: auto, b: auto, c: 5 }\n"
		 "apps:\n  s: { type: source, worker: a }\n  f: { type: l2fwd, worker: b }\n"
		 "  k: { type: sink, worker: c }\n"
		 "links: [s.output -> f.input, f.output -> k.input]\n", path);
	struct sl_config *cfg = sl_config_parse("m.yaml", text, strlen(text), &err);
	CHECK(cfg != NULL, "config: %s", err.msg);
	if (cfg == NULL)
		return;
	struct sl_topology *t;
	struct sl_plan p;
	CHECK(sl_config_plan_here(cfg, &t, &p, &err) == 0, "plan: %s", err.msg);
	CHECK(t->n_l3 == 2, "%u domains after the matrix", t->n_l3);
	CHECK(strstr(t->source, "measured") != NULL, "source '%s'", t->source);
	/* c is pinned to cpu 5 (second group): a and b must join it there. */
	CHECK(p.cpus[2] == 5, "c on %d", p.cpus[2]);
	CHECK(p.cpus[0] >= 4 && p.cpus[1] >= 4, "a on %d, b on %d: not in 4..7", p.cpus[0],
	      p.cpus[1]);
	CHECK(p.hops[0] == SL_HOP_L3 && p.hops[1] == SL_HOP_L3, "hops %s %s",
	      sl_hop_name(p.hops[0]), sl_hop_name(p.hops[1]));
	sl_plan_free(&p);
	sl_topology_free(t);
	sl_config_free(cfg);

	/* A machine with several L3 domains ignores the matrix, with a warning. */
	setenv("HWLOC_SYNTHETIC", "pack:1 l3:2 core:4 pu:1", 1);
	cfg = sl_config_parse("m.yaml", text, strlen(text), &err);
	CHECK(sl_config_plan_here(cfg, &t, &p, &err) == 0, "plan: %s", err.msg);
	CHECK(p.n_warnings > 0 && strstr(p.warnings[p.n_warnings - 1], "topology.c2c ignored"),
	      "no 'ignored' warning");
	sl_plan_free(&p);
	sl_topology_free(t);
	sl_config_free(cfg);

	/* A missing matrix file is an error naming the key. */
	setenv("HWLOC_SYNTHETIC", "pack:1 l3:1 core:8 pu:1", 1);
	unlink(path);
	cfg = sl_config_parse("m.yaml", text, strlen(text), &err);
	int rc = sl_config_plan_here(cfg, &t, &p, &err);
	CHECK(rc == -ENOENT && strstr(err.msg, "m.yaml:1:18: topology.c2c: cannot read"),
	      "missing matrix: rc %d, %s", rc, err.msg);
	sl_config_free(cfg);
	unsetenv("HWLOC_SYNTHETIC");
}

/* No samples refused before any thread runs (also on one CPU); the
 * median of odd and even counts. */
static void test_median(void)
{
	int cpus[2] = { 0, 1 };
	struct sl_err err;
	errno = 0;
	CHECK(sl_c2c_measure(cpus, 2, 500, 0, &err) == NULL && errno == EINVAL &&
	      strcmp(err.msg, "core-to-core latency: measuring needs at least 1 sample a pair") == 0,
	      "no samples: errno %d, '%s'", errno, err.msg);
	double odd[5] = { 9, 1, 5, 3, 7 }, even[4] = { 8, 2, 6, 4 }, one[1] = { 42 };
	CHECK(sl_c2c_median(odd, 5) == 5 && odd[0] == 1 && odd[4] == 9, "median of 5: %g", odd[2]);
	CHECK(sl_c2c_median(even, 4) == 5, "median of 4 (want the mean of 4 and 6)");
	CHECK(sl_c2c_median(one, 1) == 42, "median of 1 (want 42)");
}

/* A real measurement on this machine's first two CPUs: positive, symmetric. */
static void test_measure(void)
{
	cpu_set_t set;
	int cpus[2], n = 0;
	sched_getaffinity(0, sizeof(set), &set);
	for (int c = 0; c < CPU_SETSIZE && n < 2; c++)
		if (CPU_ISSET(c, &set))
			cpus[n++] = c;
	if (n < 2) {
		printf("note: one CPU only, measurement not tested\n");
		return;
	}
	struct sl_err err;
	errno = 0;
	CHECK(sl_c2c_measure(cpus, 1, 500, 3, &err) == NULL && errno == EINVAL &&
	      strcmp(err.msg, "core-to-core latency: measuring needs at least 2 CPUs, got 1") == 0,
	      "one CPU: errno %d, '%s'", errno, err.msg);
	/* A CPU this process may not use: pinning fails with EINVAL. */
	if (!CPU_ISSET(CPU_SETSIZE - 1, &set)) {
		int bad[2] = { CPU_SETSIZE - 1, cpus[0] };
		char want[160];
		snprintf(want, sizeof(want), "core-to-core latency: cannot run threads on cpus %d "
			 "and %d: %s", CPU_SETSIZE - 1, cpus[0], strerror(EINVAL));
		errno = 0;
		CHECK(sl_c2c_measure(bad, 2, 500, 3, &err) == NULL && errno == EINVAL &&
		      strcmp(err.msg, want) == 0, "unusable CPU: errno %d, '%s'", errno, err.msg);
	}
	struct sl_c2c *m = sl_c2c_measure(cpus, 2, 500, 3, &err);
	CHECK(m != NULL, "measure: %s", err.msg);
	if (m != NULL) {
		CHECK(m->ns[1] > 0 && m->ns[1] == m->ns[2] && m->ns[0] == 0, "matrix %.1f %.1f",
		      m->ns[1], m->ns[2]);
		sl_c2c_free(m);
	}
}

static const struct sl_test_case cases[] = {
	SL_CASE(test_domains),
	SL_CASE(test_save_load),
	SL_CASE(test_load_errors),
	SL_CASE(test_apply_domains),
	SL_CASE(test_placement_with_matrix),
	SL_CASE(test_median),
	SL_CASE(test_measure),
};

int main(int argc, char **argv)
{
	return sl_test_main(argc, argv, cases, SL_NCASES(cases));
}
