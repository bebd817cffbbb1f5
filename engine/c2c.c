/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "c2c.h"

struct pingpong {
	_Alignas(64) volatile uint64_t token;   /* the one shared line */
	char pad[64 - sizeof(uint64_t)];
	unsigned round_trips;
	int cpu;
	int ok;
};

static int pin(int cpu)
{
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

/* The responder: waits for each odd value and answers with the next even. */
static void *responder(void *arg)
{
	struct pingpong *pp = arg;
	if (pin(pp->cpu) != 0)
		return NULL;
	__atomic_store_n(&pp->ok, 1, __ATOMIC_RELEASE);
	for (uint64_t v = 1; v < 2ULL * pp->round_trips; v += 2) {
		while (__atomic_load_n(&pp->token, __ATOMIC_ACQUIRE) != v)
			;
		__atomic_store_n(&pp->token, v + 1, __ATOMIC_RELEASE);
	}
	return NULL;
}

static double now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* One sample: one-way latency in ns between a (this thread) and b, or < 0. */
static double sample(int a, int b, unsigned round_trips)
{
	static struct pingpong pp;
	pthread_t t;
	memset((void *)&pp, 0, sizeof(pp));
	pp.round_trips = round_trips;
	pp.cpu = b;
	if (pin(a) != 0 || pthread_create(&t, NULL, responder, &pp) != 0)
		return -1;
	/* Wait until the responder runs on its CPU, or has failed to pin. */
	for (int i = 0; i < 1000000 && !__atomic_load_n(&pp.ok, __ATOMIC_ACQUIRE); i++)
		sched_yield();
	if (!__atomic_load_n(&pp.ok, __ATOMIC_ACQUIRE)) {
		pthread_join(t, NULL);
		return -1;
	}
	double t0 = now_ns();
	for (uint64_t v = 0; v < 2ULL * round_trips; v += 2) {
		__atomic_store_n(&pp.token, v + 1, __ATOMIC_RELEASE);
		while (__atomic_load_n(&pp.token, __ATOMIC_ACQUIRE) != v + 2)
			;
	}
	double t1 = now_ns();
	pthread_join(t, NULL);
	return (t1 - t0) / round_trips / 2.0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static struct sl_c2c *alloc_matrix(unsigned n)
{
	struct sl_c2c *m = calloc(1, sizeof(*m));
	if (m == NULL)
		return NULL;
	m->n = n;
	m->cpus = calloc(n + 1, sizeof(*m->cpus));
	m->ns = calloc((size_t)n * n + 1, sizeof(*m->ns));
	if (m->cpus == NULL || m->ns == NULL) {
		sl_c2c_free(m);
		return NULL;
	}
	return m;
}

struct sl_c2c *sl_c2c_measure(const int *cpus, unsigned n, unsigned round_trips,
			      unsigned samples, struct sl_err *err)
{
	if (n < 2) {
		sl_errf(err, EINVAL, "measuring core-to-core latency needs at least 2 CPUs");
		return NULL;
	}
	struct sl_c2c *m = alloc_matrix(n);
	double *s = calloc(samples + 1, sizeof(*s));
	cpu_set_t old;
	if (m == NULL || s == NULL) {
		sl_c2c_free(m);
		free(s);
		sl_errf(err, ENOMEM, "out of memory");
		return NULL;
	}
	pthread_getaffinity_np(pthread_self(), sizeof(old), &old);
	memcpy(m->cpus, cpus, n * sizeof(*cpus));
	for (unsigned i = 0; i < n; i++)
		for (unsigned j = i + 1; j < n; j++) {
			for (unsigned k = 0; k < samples; k++) {
				s[k] = sample(cpus[i], cpus[j], round_trips);
				if (s[k] < 0) {
					sl_errf(err, EINVAL, "cannot run threads on cpus %d and %d",
						cpus[i], cpus[j]);
					pthread_setaffinity_np(pthread_self(), sizeof(old), &old);
					sl_c2c_free(m);
					free(s);
					return NULL;
				}
			}
			qsort(s, samples, sizeof(*s), cmp_double);
			m->ns[i * n + j] = m->ns[j * n + i] = s[samples / 2];
		}
	pthread_setaffinity_np(pthread_self(), sizeof(old), &old);
	free(s);
	return m;
}

int sl_c2c_save(const struct sl_c2c *m, const char *path, struct sl_err *err)
{
	FILE *f = fopen(path, "w");
	if (f == NULL)
		return sl_errf(err, errno, "cannot write '%s': %s", path, strerror(errno));
	fprintf(f, "cpu");
	for (unsigned j = 0; j < m->n; j++)
		fprintf(f, ",%d", m->cpus[j]);
	fprintf(f, "\n");
	for (unsigned i = 0; i < m->n; i++) {
		fprintf(f, "%d", m->cpus[i]);
		for (unsigned j = 0; j < m->n; j++)
			fprintf(f, ",%.1f", m->ns[i * m->n + j]);
		fprintf(f, "\n");
	}
	if (fclose(f) != 0)
		return sl_errf(err, errno, "cannot write '%s': %s", path, strerror(errno));
	return 0;
}

struct sl_c2c *sl_c2c_load(const char *path, struct sl_err *err)
{
	FILE *f = fopen(path, "r");
	char line[8192];
	struct sl_c2c *m = NULL;
	unsigned row = 0, lineno = 1;
	if (f == NULL) {
		sl_errf(err, errno, "cannot read '%s': %s", path, strerror(errno));
		return NULL;
	}
	if (fgets(line, sizeof(line), f) == NULL || strncmp(line, "cpu,", 4) != 0) {
		sl_errf(err, EINVAL, "%s:1: not a core-to-core matrix (expected a 'cpu,...' header)",
			path);
		goto fail;
	}
	unsigned n = 0;
	for (char *p = line; (p = strchr(p, ',')) != NULL; p++)
		n++;
	m = alloc_matrix(n);
	if (m == NULL) {
		sl_errf(err, ENOMEM, "out of memory");
		goto fail;
	}
	char *p = line + 3;
	for (unsigned j = 0; j < n; j++)
		m->cpus[j] = (int)strtol(p + 1, &p, 10);
	while (fgets(line, sizeof(line), f) != NULL) {
		lineno++;
		if (line[0] == '\n')
			continue;
		char *q = line, *end;
		long cpu = strtol(q, &end, 10);
		if (end == q || row >= n || cpu != m->cpus[row]) {
			sl_errf(err, EINVAL, "%s:%u: expected the row of cpu %d", path, lineno,
				row < n ? m->cpus[row] : -1);
			goto fail;
		}
		q = end;
		for (unsigned j = 0; j < n; j++) {
			if (*q != ',') {
				sl_errf(err, EINVAL, "%s:%u: expected %u values", path, lineno, n);
				goto fail;
			}
			m->ns[row * n + j] = strtod(q + 1, &end);
			if (end == q + 1 || m->ns[row * n + j] < 0) {
				sl_errf(err, EINVAL, "%s:%u: bad latency value", path, lineno);
				goto fail;
			}
			q = end;
		}
		row++;
	}
	if (row != n) {
		sl_errf(err, EINVAL, "%s: %u rows for %u CPUs", path, row, n);
		goto fail;
	}
	fclose(f);
	return m;
fail:
	fclose(f);
	sl_c2c_free(m);
	return NULL;
}

void sl_c2c_print(const struct sl_c2c *m, FILE *out)
{
	fprintf(out, "core-to-core one-way latency, median ns:\n%6s", "cpu");
	for (unsigned j = 0; j < m->n; j++)
		fprintf(out, " %6d", m->cpus[j]);
	fprintf(out, "\n");
	for (unsigned i = 0; i < m->n; i++) {
		fprintf(out, "%6d", m->cpus[i]);
		for (unsigned j = 0; j < m->n; j++) {
			if (i == j)
				fprintf(out, " %6s", "-");
			else
				fprintf(out, " %6.1f", m->ns[i * m->n + j]);
		}
		fprintf(out, "\n");
	}
}

void sl_c2c_free(struct sl_c2c *m)
{
	if (m == NULL)
		return;
	free(m->cpus);
	free(m->ns);
	free(m);
}

unsigned sl_c2c_domains(const struct sl_c2c *m, double factor, int *domain)
{
	double best = 0;
	for (unsigned i = 0; i < m->n; i++)
		for (unsigned j = 0; j < m->n; j++)
			if (i != j && (best == 0 || m->ns[i * m->n + j] < best))
				best = m->ns[i * m->n + j];
	for (unsigned i = 0; i < m->n; i++)
		domain[i] = -1;
	unsigned n_dom = 0;
	/* Each unassigned CPU starts a domain and takes every unassigned CPU
	 * close to it. */
	for (unsigned i = 0; i < m->n; i++) {
		if (domain[i] >= 0)
			continue;
		domain[i] = (int)n_dom;
		for (unsigned j = i + 1; j < m->n; j++)
			if (domain[j] < 0 && m->ns[i * m->n + j] <= best * factor)
				domain[j] = (int)n_dom;
		n_dom++;
	}
	return n_dom;
}

int sl_topology_apply_domains(struct sl_topology *t, const struct sl_c2c *m, double factor)
{
	int *dom = calloc(m->n + 1, sizeof(*dom));
	if (dom == NULL)
		return -ENOMEM;
	unsigned n = sl_c2c_domains(m, factor, dom);
	unsigned covered = 0;
	for (unsigned i = 0; i < m->n; i++)
		for (unsigned k = 0; k < t->n_pus; k++)
			if (t->pus[k].cpu == m->cpus[i]) {
				t->pus[k].l3 = dom[i];
				covered++;
			}
	free(dom);
	if (covered == 0)
		return -EINVAL;
	t->n_l3 = n;
	snprintf(t->source + strlen(t->source), sizeof(t->source) - strlen(t->source),
		 " + measured L3 domains");
	return (int)n;
}
