/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "placement/c2c.h"

struct pingpong {
	_Alignas(64) volatile uint64_t token;   /* the one shared line */
	char pad[64 - sizeof(uint64_t)];
	unsigned round_trips;
	int cpu;
	int ok;
};

/* Pin the calling thread to cpu.  Returns 0 or -errno (-EINVAL for a CPU
 * this process may not use). */
static int pin(int cpu)
{
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return -pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

/* The responder: waits for each odd value and answers with the next even. */
static void *responder(void *arg)
{
	struct pingpong *pp = arg;
	if (pin(pp->cpu) < 0)
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

/* One sample: the one-way latency in ns between a (this thread) and b, in
 * *ns.  Returns 0, or -errno when a thread cannot be started or pinned
 * (-EINVAL for a CPU this process may not use). */
static int sample(int a, int b, unsigned round_trips, double *ns)
{
	static struct pingpong pp;
	pthread_t t;
	memset((void *)&pp, 0, sizeof(pp));
	pp.round_trips = round_trips;
	pp.cpu = b;
	int rc = pin(a);
	if (rc == 0)
		rc = -pthread_create(&t, NULL, responder, &pp);
	if (rc < 0)
		return rc;
	/* Wait until the responder runs on its CPU, or has failed to pin. */
	for (int i = 0; i < 1000000 && !__atomic_load_n(&pp.ok, __ATOMIC_ACQUIRE); i++)
		sched_yield();
	if (!__atomic_load_n(&pp.ok, __ATOMIC_ACQUIRE)) {
		pthread_join(t, NULL);
		return -EINVAL;
	}
	double t0 = now_ns();
	for (uint64_t v = 0; v < 2ULL * round_trips; v += 2) {
		__atomic_store_n(&pp.token, v + 1, __ATOMIC_RELEASE);
		while (__atomic_load_n(&pp.token, __ATOMIC_ACQUIRE) != v + 2)
			;
	}
	double t1 = now_ns();
	pthread_join(t, NULL);
	*ns = (t1 - t0) / round_trips / 2.0;
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

double sl_c2c_median(double *v, unsigned n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
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
	if (n < 2)
		return sl_errf_null(err, EINVAL, "core-to-core latency: measuring needs at least "
				    "2 CPUs, got %u", n);
	if (samples == 0)
		return sl_errf_null(err, EINVAL, "core-to-core latency: measuring needs at least "
				    "1 sample a pair");
	struct sl_c2c *m = alloc_matrix(n);
	double *s = calloc(samples + 1, sizeof(*s));
	cpu_set_t old;
	if (m == NULL || s == NULL) {
		sl_c2c_free(m);
		free(s);
		return sl_errf_null(err, ENOMEM, "core-to-core latency: out of memory for a "
				    "matrix of %u CPUs", n);
	}
	pthread_getaffinity_np(pthread_self(), sizeof(old), &old);
	memcpy(m->cpus, cpus, n * sizeof(*cpus));
	for (unsigned i = 0; i < n; i++)
		for (unsigned j = i + 1; j < n; j++) {
			for (unsigned k = 0; k < samples; k++) {
				int rc = sample(cpus[i], cpus[j], round_trips, &s[k]);
				if (rc < 0) {
					pthread_setaffinity_np(pthread_self(), sizeof(old), &old);
					sl_c2c_free(m);
					free(s);
					return sl_errf_null(err, -rc, "core-to-core latency: cannot "
							    "run threads on cpus %d and %d: %s",
							    cpus[i], cpus[j], strerror(-rc));
				}
			}
			m->ns[i * n + j] = m->ns[j * n + i] = sl_c2c_median(s, samples);
		}
	pthread_setaffinity_np(pthread_self(), sizeof(old), &old);
	free(s);
	return m;
}

double sl_c2c_pair(int a, int b, struct sl_err *err)
{
	int cpus[2] = { a, b };
	struct sl_c2c *m = sl_c2c_measure(cpus, 2, 20000, 5, err);
	if (m == NULL)
		return -1;
	double ns = m->ns[1];
	sl_c2c_free(m);
	return ns;
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

/* Lines longer than this are refused rather than read on (a header of
 * CPU_SETSIZE CPUs or a row of their latencies takes a few kB). */
#define C2C_MAX_LINE (1u << 20)

/* Read one line of f into *buf (grown as needed, at most C2C_MAX_LINE
 * bytes), without its '\n' or "\r\n".  Returns 0 with *eof false and the
 * line in *buf, 0 with *eof true at the end of the file, or -E2BIG for a
 * longer line (the rest of it unread), -EIO or -ENOMEM. */
static int read_line(FILE *f, char **buf, size_t *cap, size_t *len, bool *eof)
{
	int c;
	*len = 0;
	*eof = false;
	while ((c = getc(f)) != EOF) {
		/* room for this character or, for '\n', the terminating NUL */
		if (*len + 1 >= *cap) {
			if (*cap >= C2C_MAX_LINE)
				return -E2BIG;
			size_t ncap = *cap ? *cap * 2 : 256;
			char *b = realloc(*buf, ncap);
			if (b == NULL)
				return -ENOMEM;
			*buf = b;
			*cap = ncap;
		}
		if (c == '\n')
			break;
		(*buf)[(*len)++] = (char)c;
	}
	if (c == EOF && ferror(f))
		return -EIO;
	if (c == EOF && *len == 0) {
		*eof = true;  /* (so *buf is allocated below: *len > 0 or c was '\n') */
		return 0;
	}
	if (*len > 0 && (*buf)[*len - 1] == '\r')
		(*len)--;
	(*buf)[*len] = '\0';
	return 0;
}

/* A field for a message: its text in quotes, cut after 40 characters. */
static const char *quote(const char *s, size_t len, char *out, size_t size)
{
	if (len > 40)
		snprintf(out, size, "'%.40s...' (%zu characters)", s, len);
	else
		snprintf(out, size, "'%.*s'", (int)len, s);
	return out;
}

/* A CPU number: decimal digits only, below CPU_SETSIZE, into *cpu.  Returns
 * 0 or -EINVAL. */
static int parse_cpu(const char *s, size_t len, int *cpu)
{
	long v = 0;
	if (len == 0 || len > 9)
		return -EINVAL;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -EINVAL;
		v = v * 10 + (s[i] - '0');
	}
	if (v >= CPU_SETSIZE)
		return -EINVAL;
	*cpu = (int)v;
	return 0;
}

/* The largest latency a matrix may hold: a second, far above any cache
 * line transfer, and short enough that a saved value reads back whole. */
#define C2C_MAX_NS 1e9

/* A latency: a number in 0..C2C_MAX_NS, the whole field, into *ns.  Returns
 * 0 or -EINVAL. */
static int parse_ns(const char *s, size_t len, double *ns)
{
	char text[64], *end;
	if (len == 0 || len >= sizeof(text))
		return -EINVAL;
	memcpy(text, s, len);
	text[len] = '\0';
	*ns = strtod(text, &end);
	return end == text + len && isfinite(*ns) && *ns >= 0 && *ns <= C2C_MAX_NS ? 0 : -EINVAL;
}

/* The field that starts at *q: its length, up to the next ',' or the end. */
static size_t field(const char *q)
{
	return strcspn(q, ",");
}

/* The header line "cpu,A,B,...": the matrix for its CPUs.  Returns it, or
 * NULL with errno set and a sentence in err. */
static struct sl_c2c *parse_header(const char *path, const char *line, size_t len,
				   struct sl_err *err)
{
	char shown[80];
	unsigned n = 0;
	if (strncmp(line, "cpu,", 4) != 0 || memchr(line, '\0', len) != NULL)
		return sl_errf_null(err, EINVAL, "%s:1: not a core-to-core matrix (expected a "
				    "'cpu,...' header)", path);
	for (const char *p = line; (p = strchr(p, ',')) != NULL; p++)
		n++;
	if (n > CPU_SETSIZE)
		return sl_errf_null(err, EINVAL, "%s:1: %u CPUs in the header, at most %d", path,
				    n, CPU_SETSIZE);
	struct sl_c2c *m = alloc_matrix(n);
	if (m == NULL)
		return sl_errf_null(err, ENOMEM, "%s:1: out of memory for a matrix of %u CPUs",
				    path, n);
	const char *q = line + 4;
	for (unsigned j = 0; j < n; j++, q++) {
		size_t flen = field(q);
		int cpu;
		if (parse_cpu(q, flen, &cpu) < 0) {
			sl_errf(err, EINVAL, "%s:1: column %u: %s is not a CPU number (0..%d)", path,
				j + 2, quote(q, flen, shown, sizeof(shown)), CPU_SETSIZE - 1);
			goto fail;
		}
		for (unsigned k = 0; k < j; k++)
			if (m->cpus[k] == cpu) {
				sl_errf(err, EINVAL, "%s:1: column %u: cpu %d appears twice in the "
					"header (columns %u and %u)", path, j + 2, cpu, k + 2, j + 2);
				goto fail;
			}
		m->cpus[j] = cpu;
		q += flen;
	}
	return m;
fail:
	sl_c2c_free(m);
	errno = EINVAL;
	return NULL;
}

/* Row `row` of m from line lineno, "cpu,ns,ns,...", with no NUL byte.
 * Returns 0 or -EINVAL with a sentence in err. */
static int parse_row(const char *path, unsigned lineno, const char *line, struct sl_c2c *m,
		     unsigned row, struct sl_err *err)
{
	char shown[80];
	unsigned n = m->n;
	size_t flen = field(line);
	if (row >= n)
		return sl_errf(err, EINVAL, "%s:%u: a row beyond the %u of the header's CPUs: %s",
			       path, lineno, n, quote(line, flen, shown, sizeof(shown)));
	int cpu;
	if (parse_cpu(line, flen, &cpu) < 0 || cpu != m->cpus[row])
		return sl_errf(err, EINVAL, "%s:%u: expected the row of cpu %d, found %s", path,
			       lineno, m->cpus[row], quote(line, flen, shown, sizeof(shown)));
	const char *q = line + flen;
	for (unsigned j = 0; j < n; j++) {
		if (*q != ',')
			return sl_errf(err, EINVAL, "%s:%u: expected %u values in the row of cpu "
				       "%d, found %u", path, lineno, n, m->cpus[row], j);
		q++;
		flen = field(q);
		if (parse_ns(q, flen, &m->ns[row * n + j]) < 0)
			return sl_errf(err, EINVAL, "%s:%u: bad latency value %s for cpus %d and "
				       "%d: expected a number of ns in 0..1000000000", path, lineno,
				       quote(q, flen, shown, sizeof(shown)), m->cpus[row],
				       m->cpus[j]);
		q += flen;
	}
	if (*q != '\0')
		return sl_errf(err, EINVAL, "%s:%u: expected %u values in the row of cpu %d, "
			       "found more", path, lineno, n, m->cpus[row]);
	return 0;
}

struct sl_c2c *sl_c2c_load(const char *path, struct sl_err *err)
{
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0, len;
	struct sl_c2c *m = NULL;
	unsigned row = 0, lineno = 1;
	bool eof;
	int rc, e = EINVAL;     /* the errno to fail with */
	if (f == NULL)
		return sl_errf_null(err, errno, "cannot read '%s': %s", path, strerror(errno));
	rc = read_line(f, &line, &cap, &len, &eof);
	if (rc < 0)
		goto read_fail;
	if (eof) {
		sl_errf(err, EINVAL, "%s:1: not a core-to-core matrix (expected a 'cpu,...' header)",
			path);
		goto fail;
	}
	m = parse_header(path, line, len, err);
	if (m == NULL) {
		e = errno;
		goto fail;
	}
	while ((rc = read_line(f, &line, &cap, &len, &eof)) == 0 && !eof) {
		lineno++;
		if (len == 0)
			continue;
		if (memchr(line, '\0', len) != NULL) {
			sl_errf(err, EINVAL, "%s:%u: a NUL byte in the line", path, lineno);
			goto fail;
		}
		if (parse_row(path, lineno, line, m, row, err) < 0)
			goto fail;
		row++;
	}
	if (rc < 0) {
		lineno++;
		goto read_fail;
	}
	if (row != m->n) {
		sl_errf(err, EINVAL, "%s:%u: the file ends after %u rows; the header names %u CPUs",
			path, lineno, row, m->n);
		goto fail;
	}
	fclose(f);
	free(line);
	return m;
read_fail:
	if (rc == -E2BIG)
		sl_errf(err, EINVAL, "%s:%u: line longer than %u bytes", path, lineno,
			C2C_MAX_LINE);
	else
		e = -sl_errf(err, -rc, "%s:%u: %s", path, lineno, strerror(-rc));
fail:
	fclose(f);
	free(line);
	sl_c2c_free(m);
	errno = e;
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

int sl_topology_apply_domains(struct sl_topology *t, const struct sl_c2c *m, double factor,
			      unsigned *n_domains)
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
	if (n_domains != NULL)
		*n_domains = n;
	return 0;
}
