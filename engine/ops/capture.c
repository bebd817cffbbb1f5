/* SPDX-License-Identifier: BSD-3-Clause */
#define ALLOW_EXPERIMENTAL_API   /* rte_bpf_convert (DPDK 22.11) */

#include <ctype.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <pcap/pcap.h>
#include <rte_bpf.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_malloc.h>

#include "ops/capture.h"
#include "base/counter.h"
#include "base/note.h"
#include "config/lookup.h"
#include "ops/control.h"
#include "ops/pcapng.h"

/* The engine as capture sees it (sl_cap_attach), and the captures. */
static struct sl_cap_view view;
static struct sl_cap_session *sessions[SL_CAP_SESSIONS];

void sl_cap_attach(const struct sl_cap_view *v)
{
	view = *v;
}

static bool stopping(void)
{
	return view.stopping != NULL && *view.stopping;
}

/* ---- filters ---------------------------------------------------------- */

int sl_cap_filter_check(const char *filter, struct sl_err *err)
{
	size_t len = strlen(filter);
	if (len > SL_CAP_FILTER_MAX_BYTES)
		return sl_errf(err, E2BIG, "capture: filter is %zu bytes long; at most %u are "
			       "accepted", len, SL_CAP_FILTER_MAX_BYTES);
	unsigned long terms = 1;
	for (const char *c = filter; *c != '\0';) {
		if ((c[0] == '&' && c[1] == '&') || (c[0] == '|' && c[1] == '|')) {
			terms++;
			c += 2;
			continue;
		}
		if (!isalnum((unsigned char)*c)) {
			c++;
			continue;
		}
		/* A word: letters, digits and what names and addresses hold. */
		const char *w = c;
		while (isalnum((unsigned char)*c) || *c == '_' || *c == '-' || *c == '.' ||
		       *c == ':')
			c++;
		size_t n = (size_t)(c - w);
		if ((n == 3 && strncasecmp(w, "and", 3) == 0) ||
		    (n == 2 && strncasecmp(w, "or", 2) == 0))
			terms++;
	}
	if (terms > SL_CAP_FILTER_MAX_TERMS)
		return sl_errf(err, E2BIG, "capture: filter has %lu terms (primitives joined by "
			       "and/or); at most %u are accepted, as libpcap's compile time grows "
			       "steeply with them", terms, SL_CAP_FILTER_MAX_TERMS);
	return 0;
}

int sl_cap_filter_compile(const char *filter, uint32_t snaplen, struct bpf_program *prog,
			  char *msg, size_t len)
{
	pcap_t *p = pcap_open_dead(DLT_EN10MB, (int)snaplen);
	int rc = 0;
	if (p == NULL) {
		rc = -ENOMEM;
		snprintf(msg, len, "capture: filter '%s': out of memory", filter);
	} else if (pcap_compile(p, prog, filter, 1, PCAP_NETMASK_UNKNOWN) != 0) {
		rc = -EINVAL;
		snprintf(msg, len, "capture: filter '%s': %s", filter, pcap_geterr(p));
	}
	if (p != NULL)
		pcap_close(p);
	return rc;
}

/* A filter compiled by libpcap on a thread of its own.  state tells who
 * frees the job: the thread when the session abandoned it first, the
 * session otherwise. */
enum { JOB_RUNNING, JOB_DONE, JOB_ABANDONED };

struct compile_job {
	char *filter;
	uint32_t snaplen;
	int rc;                     /* 0: prog holds the code; else msg says why not */
	struct bpf_program prog;
	char msg[SL_CAP_FILTER_MSG_MAX];
	int state;                  /* JOB_*, atomic */
};

static void job_free(struct compile_job *j)
{
	if (j->rc == 0)
		pcap_freecode(&j->prog);
	free(j->filter);
	free(j);
}

static void *job_main(void *arg)
{
	struct compile_job *j = arg;
	pthread_setname_np(pthread_self(), "sl-capfilter");
	j->rc = sl_cap_filter_compile(j->filter, j->snaplen, &j->prog, j->msg, sizeof(j->msg));
	if (__atomic_exchange_n(&j->state, JOB_DONE, __ATOMIC_ACQ_REL) == JOB_ABANDONED)
		job_free(j);
	return NULL;
}

/* Start compiling filter: the job, or NULL with a sentence. */
static struct compile_job *job_start(const char *filter, uint32_t snaplen, struct sl_err *err)
{
	struct compile_job *j = calloc(1, sizeof(*j));
	if (j == NULL || (j->filter = strdup(filter)) == NULL) {
		free(j);
		return sl_errf_null(err, ENOMEM, "capture: out of memory");
	}
	j->snaplen = snaplen;
	j->rc = -EINPROGRESS;
	j->state = JOB_RUNNING;
	/* The thread takes no signal: they are the control thread's. */
	sigset_t all, old;
	sigfillset(&all);
	pthread_attr_t attr;
	int rc = pthread_attr_init(&attr);
	if (rc == 0) {
		pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
		pthread_sigmask(SIG_SETMASK, &all, &old);
		pthread_t t;
		rc = pthread_create(&t, &attr, job_main, j);
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		pthread_attr_destroy(&attr);
	}
	if (rc != 0) {
		free(j->filter);
		free(j);
		return sl_errf_null(err, rc, "capture: cannot start a thread to compile the "
				    "filter: %s", strerror(rc));
	}
	return j;
}

static bool job_done(struct compile_job *j)
{
	return __atomic_load_n(&j->state, __ATOMIC_ACQUIRE) == JOB_DONE;
}

/* The session no longer wants j (done or not). */
static void job_abandon(struct compile_job *j)
{
	if (__atomic_exchange_n(&j->state, JOB_ABANDONED, __ATOMIC_ACQ_REL) == JOB_DONE)
		job_free(j);
}

/* ---- the control thread ----------------------------------------------- */

/* One pcapng interface: a point as the client named it, and its links. */
struct iface {
	char *name;                 /* "a.output -> b.input" or "a.output" */
	json_t *links;              /* their names */
	uint64_t captured;          /* written to the client */
	/* The taps' counters, summed when they are detached. */
	uint64_t seen, filtered, dropped;
};

struct tapref {
	struct sl_cap_tap *tap;
	struct sl_link *link;       /* NULL once detached */
	unsigned iface;
};

struct sl_cap_session {
	int fd;
	unsigned n_ifaces, n_taps, next_tap;
	struct iface *ifaces;
	struct tapref *taps;
	uint32_t snaplen;
	uint64_t count, written;    /* count 0: no limit */
	uint64_t base_tsc, base_ns, hz;
	uint8_t *msg;               /* SL_CAP_MSG_MAX: tag byte, then blocks */
	size_t len;                 /* bytes in msg; 1: nothing but the tag */
	const char *end;            /* why it ends, or NULL while it runs */
	struct compile_job *job;    /* the filter, while it compiles: not started */
	bool attached;              /* the taps are attached: the capture runs */
	bool stats_added, final_sent, abandoned;
};

static uint64_t realtime_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t tsc_to_ns(const struct sl_cap_session *s, uint64_t tsc)
{
	uint64_t d = tsc > s->base_tsc ? tsc - s->base_tsc : 0;
	return s->base_ns + d / s->hz * 1000000000u + d % s->hz * 1000000000u / s->hz;
}

/* Detach every tap still attached (the workers stop writing into it within
 * a breath). */
static void detach_taps(struct sl_cap_session *s)
{
	if (!s->attached)
		return;
	s->attached = false;
	for (unsigned k = 0; k < s->n_taps; k++) {
		struct tapref *r = &s->taps[k];
		if (r->link == NULL)
			continue;
		__atomic_store_n(&r->link->cap, NULL, __ATOMIC_RELEASE);
		r->link = NULL;
	}
}

/* Add each tap's counters to its interface and retire it through the
 * epoch (workers_run false: the workers have stopped; freed now). */
static void release_taps(struct sl_cap_session *s, bool workers_run)
{
	for (unsigned k = 0; k < s->n_taps; k++) {
		struct tapref *r = &s->taps[k];
		if (r->tap == NULL)
			continue;
		struct iface *f = &s->ifaces[r->iface];
		f->seen += sl_counter_read(&r->tap->ctr.seen);
		f->filtered += sl_counter_read(&r->tap->ctr.filtered);
		f->dropped += sl_counter_read(&r->tap->ctr.dropped);
		if (!workers_run ||
		    sl_epoch_retire(view.epoch, view.epoch_w, r->tap, sl_cap_tap_free, NULL) < 0) {
			/* Workers stopped, or the retire list is full: wait for
			 * a grace period here (rare; the control thread only). */
			if (workers_run)
				sl_epoch_synchronize(view.epoch);
			sl_cap_tap_free(r->tap, NULL);
		}
		r->tap = NULL;
	}
}

static void free_session(struct sl_cap_session *s)
{
	if (s == NULL)
		return;
	if (s->job != NULL)
		job_abandon(s->job);
	for (unsigned k = 0; s->taps != NULL && k < s->n_taps; k++)
		if (s->taps[k].tap != NULL && !s->attached)
			sl_cap_tap_free(s->taps[k].tap, NULL);
	for (unsigned i = 0; i < s->n_ifaces; i++) {
		free(s->ifaces[i].name);
		json_decref(s->ifaces[i].links);
	}
	free(s->ifaces);
	free(s->taps);
	free(s->msg);
	if (s->fd >= 0)
		close(s->fd);
	free(s);
}

/* Remove the spaces of a (a point as written) into buf. */
static void squeeze(const char *a, char *buf, size_t len)
{
	size_t k = 0;
	for (; *a != '\0' && k + 1 < len; a++)
		if (*a != ' ' && *a != '\t')
			buf[k++] = *a;
	buf[k] = '\0';
}

int sl_cap_resolve(const struct sl_cap_view *v, const char *p, unsigned *idx,
		   struct sl_err *err)
{
	const struct sl_config *c = v->cfg;
	char want[256], name[256];
	squeeze(p, want, sizeof(want));
	unsigned n = 0;
	if (strstr(want, "->") != NULL) {
		for (unsigned i = 0; i < c->n_links; i++) {
			sl_config_link_name(c, i, name, sizeof(name));
			char sq[256];
			squeeze(name, sq, sizeof(sq));
			if (strcmp(sq, want) == 0)
				idx[n++] = i;
		}
		if (n == 0)
			return sl_errf(err, EINVAL, "capture: no link '%s' in the running "
				       "configuration (sluice plan lists the links)", p);
		return (int)n;
	}
	const char *dot = strrchr(want, '.');
	if (dot == NULL || dot == want || dot[1] == '\0')
		return sl_errf(err, EINVAL, "capture: '%s' is not a capture point (a link "
			       "\"a.output -> b.input\" or an app's port \"a.output\")", p);
	size_t alen = (size_t)(dot - want);
	const char *port = dot + 1;
	bool app_found = false;
	for (unsigned i = 0; i < c->n_apps; i++) {
		const struct sl_app_cfg *a = &c->apps[i];
		const char *nm = a->base != NULL ? a->base : a->name;
		if ((strlen(nm) == alen && strncmp(nm, want, alen) == 0) ||
		    (strlen(a->name) == alen && strncmp(a->name, want, alen) == 0))
			app_found = true;
	}
	if (!app_found)
		return sl_errf(err, EINVAL, "capture: no app '%.*s' in the running configuration "
			       "(point '%s')", (int)alen, want, p);
	for (unsigned i = 0; i < c->n_links; i++) {
		const struct sl_link_cfg *l = &c->links[i];
		const struct sl_endpoint *ends[2] = { &l->from, &l->to };
		for (unsigned k = 0; k < 2; k++) {
			const struct sl_app_cfg *a = &c->apps[ends[k]->app];
			bool same = (strlen(a->name) == alen && strncmp(a->name, want, alen) == 0) ||
				    (a->base != NULL && strlen(a->base) == alen &&
				     strncmp(a->base, want, alen) == 0);
			if (same && strcmp(ends[k]->port, port) == 0) {
				idx[n++] = i;
				break;
			}
		}
	}
	if (n == 0)
		return sl_errf(err, EINVAL, "capture: app '%.*s' has no link on port '%s' (point "
			       "'%s'; sluice plan lists the links)", (int)alen, want, port, p);
	return (int)n;
}

static int json_uint(json_t *req, const char *key, uint64_t def, uint64_t min, uint64_t max,
		     uint64_t *v, struct sl_err *err)
{
	json_t *j = json_object_get(req, key);
	if (j == NULL) {
		*v = def;
		return 0;
	}
	if (!json_is_integer(j) || json_integer_value(j) < (json_int_t)min ||
	    (uint64_t)json_integer_value(j) > max)
		return sl_errf(err, EINVAL, "capture: \"%s\" must be an integer from %llu to %llu",
			       key, (unsigned long long)min, (unsigned long long)max);
	*v = (uint64_t)json_integer_value(j);
	return 0;
}

/* The section header and one interface block per point, into s->msg. */
static void write_header(struct sl_cap_session *s)
{
	struct utsname u;
	char os[400] = "Linux";
	if (uname(&u) == 0)
		snprintf(os, sizeof(os), "%s %s", u.sysname, u.release);
	s->len += sl_pcapng_shb(s->msg + s->len, SL_CAP_MSG_MAX - s->len, u.machine, os,
				"sluice " SL_VERSION);
	for (unsigned i = 0; i < s->n_ifaces; i++) {
		char desc[1024] = "";
		size_t k, off = 0;
		json_t *l;
		json_array_foreach(s->ifaces[i].links, k, l)
			off += (size_t)snprintf(desc + off, off < sizeof(desc) ? sizeof(desc) - off : 0,
						"%s%s", k ? ", " : "", json_string_value(l));
		s->len += sl_pcapng_idb(s->msg + s->len, SL_CAP_MSG_MAX - s->len,
					s->ifaces[i].name, desc, s->snaplen);
	}
}

static struct sl_cap_session **free_slot(void)
{
	for (unsigned i = 0; i < SL_CAP_SESSIONS; i++)
		if (sessions[i] == NULL)
			return &sessions[i];
	return NULL;
}

/* An error reply on s's connection (the server's reply, when the session
 * has taken the connection over). */
static void answer_error(struct sl_cap_session *s, int status, const char *msg)
{
	json_t *j = sl_ctl_error(status, msg);
	if (j != NULL && s->fd >= 0)
		(void)sl_ctl_send_reply(s->fd, j);
	json_decref(j);
}

/* Start s (its connection taken over; prog: its compiled filter, or NULL):
 * check its links again, make and attach its taps, answer.  Returns true
 * when the capture runs; false when it was refused (the refusal sent) or
 * the client went away: the caller frees s. */
static bool launch(struct sl_cap_session *s, const struct bpf_program *prog)
{
	struct sl_err err = { "" };
	int status = SL_EXIT_RUNTIME;
	struct rte_bpf_prm *prm = NULL;
	if (stopping()) {
		sl_errf(&err, ESHUTDOWN, "capture: the engine is stopping");
		goto refuse;
	}
	if (s->end != NULL) {   /* sl_cap_link_gone, while the filter compiled */
		sl_errf(&err, EAGAIN, "capture: %s while the filter compiled; ask again",
			s->end);
		goto refuse;
	}
	for (unsigned k = 0; k < s->n_taps; k++) {
		struct sl_link *l = s->taps[k].link;
		if (__atomic_load_n(&l->cap, __ATOMIC_ACQUIRE) != NULL) {
			sl_errf(&err, EBUSY, "capture: link '%s' (point '%s') is being captured "
				"already, by another sluice capture", l->name,
				s->ifaces[s->taps[k].iface].name);
			goto refuse;
		}
	}
	if (prog != NULL) {
		prm = rte_bpf_convert(prog);
		if (prm == NULL) {
			sl_errf(&err, ENOTSUP, "capture: DPDK cannot convert the filter to eBPF: %s",
				strerror(rte_errno));
			status = SL_EXIT_CONFIG;
			goto refuse;
		}
	}
	for (unsigned k = 0; k < s->n_taps; k++) {
		int rc = sl_cap_tap_new(s->snaplen, s->taps[k].iface, prm, &s->taps[k].tap, &err);
		if (rc < 0) {
			status = rc == -ENOTSUP ? SL_EXIT_CONFIG : SL_EXIT_RUNTIME;
			goto refuse;
		}
	}
	rte_free(prm);
	prm = NULL;
	write_header(s);

	/* The answer, on the connection the session took over. */
	json_t *ifs = json_array();
	for (unsigned i = 0; ifs != NULL && i < s->n_ifaces; i++)
		json_array_append_new(ifs, json_pack("{sssO}", "name", s->ifaces[i].name, "links",
						     s->ifaces[i].links));
	json_t *ans = json_pack("{sbsosI}", "ok", 1, "interfaces", ifs, "snaplen",
				(json_int_t)s->snaplen);
	if (ans == NULL) {
		sl_errf(&err, ENOMEM, "capture: out of memory");
		goto refuse;
	}
	/* Framed as every reply (control.h), so that the first pcapng
	 * message never reads as the rest of it. */
	int sent = sl_ctl_send_reply(s->fd, ans);
	json_decref(ans);
	if (sent == -ENOMEM) {
		sl_errf(&err, ENOMEM, "capture: out of memory");
		goto refuse;
	}
	if (sent < 0)   /* the client went away, or does not read: nobody to answer */
		return false;
	int sndbuf = 4 << 20;
	setsockopt(s->fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf));
	s->hz = rte_get_tsc_hz();
	s->base_tsc = rte_rdtsc();
	s->base_ns = realtime_ns();
	for (unsigned k = 0; k < s->n_taps; k++)
		__atomic_store_n(&s->taps[k].link->cap, s->taps[k].tap, __ATOMIC_RELEASE);
	s->attached = true;
	sl_note("capture: started on %s (%u link%s)", s->ifaces[0].name, s->n_taps,
		       s->n_taps == 1 ? "" : "s");
	return true;

refuse:
	rte_free(prm);
	answer_error(s, status, err.msg);
	return false;
}

/* A capture request's fields. */
struct request {
	json_t *points;             /* a non-empty array */
	const char *filter;         /* NULL: none */
	uint64_t snaplen, count;
};

/* req's fields, checked (the filter against its bounds): 0, or -errno with
 * a sentence. */
static int parse_request(json_t *req, struct request *q, struct sl_err *err)
{
	json_t *jf = json_object_get(req, "filter");
	q->points = json_object_get(req, "points");
	if (!json_is_array(q->points) || json_array_size(q->points) == 0)
		return sl_errf(err, EINVAL, "capture: \"points\" must be a non-empty list of "
			       "capture points");
	if (jf != NULL && !json_is_string(jf))
		return sl_errf(err, EINVAL, "capture: \"filter\" must be a string");
	int rc = json_uint(req, "snaplen", SL_CAP_SNAPLEN_MAX, 1, SL_CAP_SNAPLEN_MAX, &q->snaplen,
			   err);
	if (rc == 0)
		rc = json_uint(req, "count", 0, 0, UINT64_MAX >> 1, &q->count, err);
	if (rc < 0)
		return rc;
	q->filter = jf != NULL ? json_string_value(jf) : NULL;
	if (q->filter != NULL && q->filter[0] == '\0')
		q->filter = NULL;
	return q->filter != NULL ? sl_cap_filter_check(q->filter, err) : 0;
}

/* A session for q with room for its points and n_links taps, no
 * connection yet; NULL when out of memory. */
static struct sl_cap_session *new_session(const struct request *q, unsigned n_links)
{
	struct sl_cap_session *s = calloc(1, sizeof(*s));
	if (s == NULL)
		return NULL;
	s->fd = -1;
	s->snaplen = (uint32_t)q->snaplen;
	s->count = q->count;
	s->ifaces = calloc(json_array_size(q->points), sizeof(*s->ifaces));
	s->taps = calloc(n_links + 1, sizeof(*s->taps));
	s->msg = malloc(SL_CAP_MSG_MAX);
	if (s->ifaces == NULL || s->taps == NULL || s->msg == NULL) {
		free_session(s);
		return NULL;
	}
	s->msg[0] = SL_CAP_DATA_TAG;
	s->len = 1;
	return s;
}

/* Point jp as s's next interface, with a tap reference for each of its
 * links (idx: room for their indices; taken: the links earlier points
 * named).  0, or -EINVAL (not a point, or a link named twice), -EBUSY (a
 * link under capture already) or -ENOMEM, with a sentence. */
static int add_point(struct sl_cap_session *s, json_t *jp, unsigned *idx, bool *taken,
		     struct sl_err *err)
{
	if (!json_is_string(jp))
		return sl_errf(err, EINVAL, "capture: \"points\" must be a list of strings");
	const char *p = json_string_value(jp);
	int n = sl_cap_resolve(&view, p, idx, err);
	if (n < 0)
		return n;
	struct iface *f = &s->ifaces[s->n_ifaces++];
	f->name = strdup(p);
	f->links = json_array();
	if (f->name == NULL || f->links == NULL)
		return sl_errf(err, ENOMEM, "capture: out of memory");
	for (int k = 0; k < n; k++) {
		struct sl_link *l = view.links[idx[k]];
		if (taken[idx[k]])
			return sl_errf(err, EINVAL, "capture: point '%s' names link '%s', which an "
				       "earlier point of this capture names too", p, l->name);
		if (__atomic_load_n(&l->cap, __ATOMIC_ACQUIRE) != NULL)
			return sl_errf(err, EBUSY, "capture: link '%s' (point '%s') is being "
				       "captured already, by another sluice capture", l->name, p);
		taken[idx[k]] = true;
		json_array_append_new(f->links, json_string(l->name));
		s->taps[s->n_taps++] = (struct tapref){ .link = l, .iface = s->n_ifaces - 1 };
	}
	return 0;
}

/* Every point of points into s: resolved, none twice, none under capture
 * already.  0, or -errno with a sentence (add_point's). */
static int add_points(struct sl_cap_session *s, json_t *points, struct sl_err *err)
{
	unsigned n_links = view.cfg->n_links;
	unsigned *idx = calloc(n_links + 1, sizeof(unsigned));
	bool *taken = calloc(n_links + 1, sizeof(bool));
	int rc = idx != NULL && taken != NULL ? 0 : sl_errf(err, ENOMEM, "capture: out of memory");
	for (size_t i = 0; rc == 0 && i < json_array_size(points); i++)
		rc = add_point(s, json_array_get(points, i), idx, taken, err);
	free(idx);
	free(taken);
	return rc;
}

json_t *sl_cap_open(json_t *req)
{
	struct sl_err err = { "" };
	struct request q = { 0 };
	if (parse_request(req, &q, &err) < 0)
		return sl_ctl_error(SL_EXIT_CONFIG, err.msg);
	if (stopping())
		return sl_ctl_error(SL_EXIT_RUNTIME, "capture: the engine is stopping");
	struct sl_cap_session **slot = free_slot();
	if (slot == NULL) {
		char m[128];
		snprintf(m, sizeof(m), "capture: %d captures run already (at most %d at once)",
			 SL_CAP_SESSIONS, SL_CAP_SESSIONS);
		return sl_ctl_error(SL_EXIT_RUNTIME, m);
	}
	struct sl_cap_session *s = new_session(&q, view.cfg->n_links);
	if (s == NULL)
		return sl_ctl_error(SL_EXIT_RUNTIME, "capture: out of memory");
	int rc = add_points(s, q.points, &err);
	if (rc == 0 && q.filter != NULL) {
		/* Compiled off this thread; sl_cap_service starts the capture
		 * once it is. */
		s->job = job_start(q.filter, s->snaplen, &err);
		if (s->job == NULL)
			rc = -EAGAIN;   /* a runtime failure, as -ENOMEM */
	}
	if (rc < 0) {
		free_session(s);
		bool runtime = rc == -EBUSY || rc == -ENOMEM || rc == -EAGAIN;
		return sl_ctl_error(runtime ? SL_EXIT_RUNTIME : SL_EXIT_CONFIG, err.msg);
	}
	s->fd = sl_ctl_detach(*view.ctl);
	*slot = s;
	if (s->job == NULL && !launch(s, NULL)) {
		free_session(s);
		*slot = NULL;
	}
	return NULL;
}

/* Send what msg holds.  Returns 1 (sent, or nothing to send), 0 (the client
 * cannot take it now: try later) or -1 (the client is gone). */
static int flush(struct sl_cap_session *s)
{
	if (s->len <= 1)
		return 1;
	ssize_t n = send(s->fd, s->msg, s->len, MSG_DONTWAIT | MSG_NOSIGNAL);
	if (n < 0)
		return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? 0 : -1;
	s->len = 1;
	return 1;
}

/* Records into msg until it is full, the rings are empty, or count is
 * reached.  Returns whether anything was added. */
static bool fill(struct sl_cap_session *s)
{
	bool any = false;
	unsigned idle = 0;
	while (idle < s->n_taps && (s->count == 0 || s->written < s->count)) {
		struct tapref *r = &s->taps[s->next_tap];
		const struct sl_capring_rec *rec = r->tap != NULL ? sl_capring_peek(&r->tap->ring)
								 : NULL;
		if (rec == NULL) {
			idle++;
			s->next_tap = (s->next_tap + 1) % s->n_taps;
			continue;
		}
		size_t n = sl_pcapng_epb(s->msg + s->len, SL_CAP_MSG_MAX - s->len, rec->tag,
					 tsc_to_ns(s, rec->tsc), rec->data, rec->caplen,
					 rec->origlen);
		if (n == 0)
			break;   /* full: the next message */
		s->len += n;
		s->written++;
		s->ifaces[rec->tag].captured++;
		sl_capring_advance(&r->tap->ring, rec);
		any = true;
		idle = 0;
		/* Take turns between taps, a few records each. */
		if (s->written % 32 == 0)
			s->next_tap = (s->next_tap + 1) % s->n_taps;
	}
	return any;
}

static void begin_end(struct sl_cap_session *s, const char *why)
{
	if (s->end != NULL)
		return;
	s->end = why;
	detach_taps(s);
}

/* The statistics blocks and the final JSON, once everything is sent. */
static int finish(struct sl_cap_session *s, bool workers_run)
{
	uint64_t filtered = 0, dropped = 0;
	if (!s->stats_added) {   /* msg is empty here: the blocks fit */
		release_taps(s, workers_run);
		uint64_t now = realtime_ns();
		for (unsigned i = 0; i < s->n_ifaces; i++) {
			struct iface *f = &s->ifaces[i];
			s->len += sl_pcapng_isb(s->msg + s->len, SL_CAP_MSG_MAX - s->len, i, now,
						f->seen, f->dropped, f->seen - f->filtered);
		}
		s->stats_added = true;
	}
	for (unsigned i = 0; i < s->n_ifaces; i++) {
		filtered += s->ifaces[i].filtered;
		dropped += s->ifaces[i].dropped;
	}
	int rc = flush(s);
	if (rc <= 0)
		return rc;
	json_t *pts = json_array();
	for (unsigned i = 0; pts != NULL && i < s->n_ifaces; i++) {
		struct iface *f = &s->ifaces[i];
		json_array_append_new(pts, json_pack("{sssIsIsIsI}", "name", f->name, "seen",
						     (json_int_t)f->seen, "captured",
						     (json_int_t)f->captured, "filtered",
						     (json_int_t)f->filtered, "dropped",
						     (json_int_t)f->dropped));
	}
	json_t *ans = json_pack("{sbsssIsIsIso}", "ok", 1, "end", s->end, "captured",
				(json_int_t)s->written, "filtered", (json_int_t)filtered,
				"dropped", (json_int_t)dropped, "points", pts);
	char *text = ans != NULL ? json_dumps(ans, JSON_COMPACT) : NULL;
	json_decref(ans);
	if (text != NULL)
		send(s->fd, text, strlen(text), MSG_DONTWAIT | MSG_NOSIGNAL);
	free(text);
	s->final_sent = true;
	sl_note("capture: %s ended (%s): %llu packets sent to sluice capture, %llu "
		       "dropped by the filter, %llu dropped for want of room", s->ifaces[0].name,
		       s->end, (unsigned long long)s->written, (unsigned long long)filtered,
		       (unsigned long long)dropped);
	return 1;
}

/* Read what the client sent: a stop, or its going away. */
static void read_client(struct sl_cap_session *s)
{
	char buf[512];
	ssize_t n = recv(s->fd, buf, sizeof(buf) - 1, MSG_DONTWAIT);
	if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
		return;
	if (n <= 0) {
		s->abandoned = true;
		begin_end(s, "the client went away");
		return;
	}
	/* Any message is a stop: the only verb a capture's client sends
	 * (capture-stop); the counts follow. */
	begin_end(s, "stopped");
}

/* Serve one session; returns false when it is over (freed by the caller). */
static bool serve(struct sl_cap_session *s)
{
	read_client(s);
	if (s->abandoned)
		return false;
	if (s->count != 0 && s->written >= s->count)
		begin_end(s, "count");
	/* At most 8 messages (1 MiB) a call: the control thread may share
	 * its CPU with a worker. */
	for (unsigned round = 0; round < 8; round++) {
		int rc = flush(s);
		if (rc < 0) {
			s->abandoned = true;
			return false;
		}
		if (rc == 0)
			return true;    /* the client is slow: keep the message */
		if (!fill(s))
			break;
		if (s->count != 0 && s->written >= s->count)
			begin_end(s, "count");
	}
	if (s->end == NULL)
		return true;
	/* Ending: what the rings still hold goes out first (not after a
	 * count: the rest is not wanted). */
	if (s->count == 0 || s->written < s->count) {
		if (flush(s) <= 0)
			return true;
		if (fill(s))
			return true;
	}
	int rc = finish(s, true);
	if (rc < 0)
		s->abandoned = true;
	return rc == 0;   /* 0: the last message waits for the client */
}

static void drop_session(unsigned i, bool workers_run)
{
	struct sl_cap_session *s = sessions[i];
	begin_end(s, "the client went away");
	release_taps(s, workers_run);
	if (s->abandoned && !s->final_sent)
		sl_note("capture: %s ended: %s (%llu packets sent)", s->ifaces[0].name,
			       s->end, (unsigned long long)s->written);
	free_session(s);
	sessions[i] = NULL;
}

/* Session i's filter has compiled: refuse it (then freed), or start it.
 * Returns whether it runs. */
static bool compiled(unsigned i)
{
	struct sl_cap_session *s = sessions[i];
	struct compile_job *j = s->job;
	bool runs;
	if (j->rc != 0) {
		answer_error(s, j->rc == -EINVAL ? SL_EXIT_CONFIG : SL_EXIT_RUNTIME, j->msg);
		runs = false;
	} else {
		runs = launch(s, &j->prog);
	}
	if (!runs) {
		free_session(s);
		sessions[i] = NULL;
		return false;
	}
	s->job = NULL;
	job_abandon(j);   /* done: freed now */
	return true;
}

bool sl_cap_service(void)
{
	bool any = false;
	for (unsigned i = 0; i < SL_CAP_SESSIONS; i++) {
		struct sl_cap_session *s = sessions[i];
		if (s == NULL)
			continue;
		if (s->job != NULL) {   /* its filter compiles */
			any |= !job_done(s->job) || compiled(i);
			continue;
		}
		if (s->final_sent || !serve(s))
			drop_session(i, true);
		else
			any = true;
	}
	return any;
}

void sl_cap_link_gone(const struct sl_link *l)
{
	for (unsigned i = 0; i < SL_CAP_SESSIONS; i++) {
		struct sl_cap_session *s = sessions[i];
		if (s == NULL)
			continue;
		for (unsigned k = 0; k < s->n_taps; k++)
			if (s->taps[k].link == l)
				begin_end(s, "a reload removed or rebuilt one of its links");
	}
}

void sl_cap_close_all(const char *why)
{
	for (unsigned i = 0; i < SL_CAP_SESSIONS; i++) {
		struct sl_cap_session *s = sessions[i];
		if (s == NULL)
			continue;
		if (s->job != NULL) {   /* not started: its filter compiles */
			char m[256];
			snprintf(m, sizeof(m), "capture: %s before the filter compiled", why);
			answer_error(s, SL_EXIT_RUNTIME, m);
			free_session(s);
			sessions[i] = NULL;
			continue;
		}
		begin_end(s, why);
		/* Everything the rings hold, then the counts; a client that
		 * takes nothing for a second loses the rest. */
		int rc = 1;
		for (unsigned waited = 0; !s->abandoned && !s->final_sent && waited < 20;) {
			rc = flush(s);
			if (rc < 0)
				break;
			if (rc == 0) {
				struct pollfd p = { .fd = s->fd, .events = POLLOUT };
				poll(&p, 1, 50);
				waited++;
				continue;
			}
			if ((s->count == 0 || s->written < s->count) && fill(s))
				continue;
			rc = finish(s, false);
			if (rc < 0)
				break;
		}
		drop_session(i, false);
	}
}
