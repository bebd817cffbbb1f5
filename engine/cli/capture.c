/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sluice capture [--prefix P] POINT... [-c COUNT] [-s SNAPLEN] [-f FILTER]
 *                [-a duration:S] -w FILE|-
 *
 * Ask a running engine (found as sluice stats finds it) to copy the packets
 * crossing the capture points into a pcapng stream (engine/ops/capture.h,
 * docs/capture.md), and write that stream to FILE (or stdout).  The engine
 * writes the pcapng blocks; this side passes them on.  Ends by -c (COUNT
 * packets written), -a (S seconds), SIGINT or SIGTERM (a stop: the engine
 * sends what it holds, then the counts), or the engine stopping; then prints
 * how many packets were captured (their blocks written whole to the
 * output), dropped by the filter and dropped because the capture could not
 * keep up, and exits 0.  An output that fails ends the capture too: a
 * reader that went away (EPIPE) exits 0, any other write error 1, both with
 * the count written and the packets the engine sent that were not.  Exit 2:
 * bad arguments, a filter over the bounds or that libpcap cannot compile, a
 * point the engine does not have; 1: no engine, or the capture failed.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>
#include <pcap/pcap.h>

#include "ops/capture.h"
#include "ops/control.h"
#include "base/err.h"
#include "ops/pcapng.h"
#include "cli/commands.h"
#include "cli/snapview.h"
#include "cli/telclient.h"

/* How long the engine may take to take the connection and to answer the
 * start ($SLUICE_TIMEOUT replaces it: engine/ops/control.h). */
#define START_TIMEOUT_MS 10000

static volatile sig_atomic_t stop_signal;

static void on_stop(int sig)
{
	stop_signal = sig;
}

static double mono_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Everything of buf[0..n) to fd: 0, or -errno with the bytes that were
 * written in *done. */
static int write_all(int fd, const uint8_t *buf, size_t n, size_t *done)
{
	*done = 0;
	while (*done < n) {
		ssize_t k = write(fd, buf + *done, n - *done);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return k < 0 ? -errno : -EIO;
		*done += (size_t)k;
	}
	return 0;
}

/* The filter, bounded and compiled by libpcap as the engine will: 0, or
 * exit status 2 with the bound or libpcap's message. */
static int check_filter(const char *filter, uint64_t snaplen)
{
	struct sl_err err = { "" };
	if (sl_cap_filter_check(filter, &err) < 0) {
		fprintf(stderr, "sluice: %s\n", err.msg);
		return SL_EXIT_CONFIG;
	}
	pcap_t *p = pcap_open_dead(DLT_EN10MB, (int)snaplen);
	struct bpf_program prog;
	if (p == NULL) {
		fprintf(stderr, "sluice: capture: out of memory\n");
		return SL_EXIT_RUNTIME;
	}
	if (pcap_compile(p, &prog, filter, 1, PCAP_NETMASK_UNKNOWN) != 0) {
		fprintf(stderr, "sluice: capture: filter '%s': %s\n", filter, pcap_geterr(p));
		pcap_close(p);
		return SL_EXIT_CONFIG;
	}
	pcap_freecode(&prog);
	pcap_close(p);
	return 0;
}

/* What was written to the output: packets in all and per point (the
 * engine's points, in order), and how the output failed (0: it did not). */
struct written {
	uint64_t packets, unwritten;
	uint64_t *per_point;
	size_t n_points;
	int err;
	const char *out;     /* the output's name, for the messages */
};

/* The end: how it ended, and the counts (the engine's, but what was
 * captured is what reached the output). */
static void print_counts(json_t *fin, const struct written *w)
{
	json_t *pts = json_object_get(fin, "points");
	char why[256];
	if (w->err == EPIPE)
		snprintf(why, sizeof(why), "the reader of %s went away", w->out);
	else if (w->err != 0)
		snprintf(why, sizeof(why), "cannot write to %s: %s", w->out, strerror(w->err));
	else
		snprintf(why, sizeof(why), "%s", sl_snap_str(json_object_get(fin, "end"), "?"));
	char tail[96] = "";
	if (w->err != 0)
		snprintf(tail, sizeof(tail), "; %llu more sent by the engine not written",
			 (unsigned long long)w->unwritten);
	fprintf(stderr, "sluice: capture: ended (%s): %llu packets captured, %lld dropped by "
		"the filter, %lld dropped (the capture could not keep up)%s\n", why,
		(unsigned long long)w->packets,
		(long long)json_integer_value(json_object_get(fin, "filtered")),
		(long long)json_integer_value(json_object_get(fin, "dropped")), tail);
	if (json_array_size(pts) < 2)
		return;
	size_t i;
	json_t *p;
	json_array_foreach(pts, i, p)
		fprintf(stderr, "  %s: %llu captured, %lld dropped by the filter, %lld dropped\n",
			sl_snap_str(json_object_get(p, "name"), "?"),
			(unsigned long long)(i < w->n_points ? w->per_point[i] : 0),
			(long long)json_integer_value(json_object_get(p, "filtered")),
			(long long)json_integer_value(json_object_get(p, "dropped")));
}

/* A busy engine: said once, while the start is tried again. */
static void busy_note(const char *sentence)
{
	fprintf(stderr, "sluice: capture: %s\n", sentence);
}

/* What the command line asks for. */
struct capture_opts {
	const char *prefix, *filter, *out;
	uint64_t count, snaplen, duration_s;
};

/* -a duration:S */
static int duration_opt(const struct sl_opt *o, const char *v, const struct sl_command *cmd)
{
	if (strncmp(v, "duration:", 9) != 0)
		return -1;
	return sl_opts_uint(v + 9, 1, 365u * 86400u, (uint64_t *)o->dst);
}

/* The options into c, the points into *points (a new JSON array): -1 to go
 * on, or an exit status. */
static int capture_args(const struct sl_command *cmd, int argc, char **argv,
			struct capture_opts *c, json_t **points)
{
	const struct sl_opt opts[] = {
		{ .name = "--prefix", .type = SL_OPT_STR, .dst = &c->prefix, .nonempty = true },
		{ .name = "-w", .type = SL_OPT_STR, .dst = &c->out, .nonempty = true },
		{ .name = "-f", .type = SL_OPT_STR, .dst = &c->filter },
		{ .name = "-c", .type = SL_OPT_UINT, .dst = &c->count, .min = 1,
		  .max = (double)(UINT64_MAX >> 1), .what = "a packet count from 1" },
		{ .name = "-s", .type = SL_OPT_UINT, .dst = &c->snaplen, .min = 0,
		  .max = SL_CAP_SNAPLEN_MAX, .what = "a snap length from 0 to 65535 bytes (0: 65535)" },
		{ .name = "-a", .type = SL_OPT_FN, .dst = &c->duration_s, .fn = duration_opt,
		  .what = "duration:SECONDS (a whole number from 1)" },
	};
	struct sl_args a = { .cmd = cmd, .opts = opts, .n_opts = SL_OPTS_LEN(opts),
			     .max_args = SL_ARGS_ANY };
	int rc = sl_opts_parse(&a, argc, argv);
	if (rc >= 0)
		return rc;
	if (c->snaplen == 0)   /* as tcpdump: the most */
		c->snaplen = SL_CAP_SNAPLEN_MAX;
	if (a.n_args == 0)
		return sl_usage_error(cmd, "no capture POINT given");
	if (c->out == NULL)
		return sl_usage_error(cmd, "no output given (-w FILE, or -w - for stdout)");
	if (c->filter != NULL && (rc = check_filter(c->filter, c->snaplen)) != 0)
		return rc;
	*points = json_array();
	for (unsigned i = 0; *points != NULL && i < a.n_args; i++)
		json_array_append_new(*points, json_string(a.args[i]));
	if (*points == NULL) {
		fprintf(stderr, "sluice: capture: out of memory\n");
		return SL_EXIT_RUNTIME;
	}
	return -1;
}

/* The capture verb's request, as text to free, or NULL (out of memory). */
static char *capture_request(const struct capture_opts *c, json_t *points)
{
	json_t *req = json_pack("{sssosIsI}", "verb", "capture", "points", points, "snaplen",
				(json_int_t)c->snaplen, "count", (json_int_t)c->count);
	if (req != NULL && c->filter != NULL)
		json_object_set_new(req, "filter", json_string(c->filter));
	char *text = req != NULL ? json_dumps(req, JSON_COMPACT) : NULL;
	json_decref(req);
	return text;
}

/* A capture under way: the engine's connection, the output, what was
 * written. */
struct session {
	int fd, ofd;
	uint8_t *buf;           /* one message: SL_CAP_MSG_MAX + 1 bytes */
	struct written w;
	double deadline;        /* 0: none */
	bool stopped;           /* capture-stop sent */
};

/* The output named by out (- is stdout) and the first line, from the
 * engine's answer: 0, or exit status 1. */
static int open_output(struct session *s, const char *out, const json_t *ans,
		       uint64_t snaplen)
{
	if (strcmp(out, "-") == 0) {
		s->ofd = STDOUT_FILENO;
	} else {
		s->ofd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (s->ofd < 0) {
			fprintf(stderr, "sluice: capture: cannot create '%s': %s\n", out,
				strerror(errno));
			return SL_EXIT_RUNTIME;
		}
	}
	json_t *ifs = json_object_get(ans, "interfaces");
	size_t i, nl = 0;
	json_t *f;
	json_array_foreach(ifs, i, f)
		nl += json_array_size(json_object_get(f, "links"));
	fprintf(stderr, "sluice: capture: capturing on %zu point%s (%zu link%s), snaplen "
		"%llu, into %s\n", json_array_size(ifs), json_array_size(ifs) == 1 ? "" : "s",
		nl, nl == 1 ? "" : "s", (unsigned long long)snaplen,
		s->ofd == STDOUT_FILENO ? "stdout" : out);
	s->w.out = s->ofd == STDOUT_FILENO ? "stdout" : out;
	s->w.n_points = json_array_size(ifs);
	s->w.per_point = calloc(s->w.n_points + 1, sizeof(uint64_t));
	if (s->w.per_point == NULL) {
		fprintf(stderr, "sluice: capture: out of memory\n");
		return SL_EXIT_RUNTIME;
	}
	return 0;
}

/* A data message of n bytes (its tag first) to the output: the packets
 * whose blocks were written whole are what was captured. */
static void write_data(struct session *s, size_t n)
{
	struct written *w = &s->w;
	size_t len = n - 1, done = 0;
	int rc = w->err == 0 ? write_all(s->ofd, s->buf + 1, len, &done) : 0;
	w->packets += sl_pcapng_count_epb(s->buf + 1, done, w->per_point, (unsigned)w->n_points);
	if (w->err != 0 || rc < 0)
		w->unwritten += sl_pcapng_count_epb(s->buf + 1, len, NULL, 0) -
				sl_pcapng_count_epb(s->buf + 1, done, NULL, 0);
	if (rc < 0) {
		w->err = -rc;
		if (w->err != EPIPE)
			fprintf(stderr, "sluice: capture: cannot write to %s: %s; stopping\n",
				w->out, strerror(w->err));
	}
}

/* Ask the engine to stop once a signal, the deadline or a failed output
 * says so; then wait for its next message.  Returns the bytes received, 0
 * when there is nothing yet, or -1 after saying why the capture ends. */
static ssize_t next_message(struct session *s)
{
	bool want_stop = stop_signal || (s->deadline > 0 && mono_s() >= s->deadline) ||
			 s->w.err != 0;
	if (want_stop && !s->stopped) {
		static const char stop[] = "{\"verb\":\"capture-stop\"}";
		if (send(s->fd, stop, sizeof(stop) - 1, MSG_NOSIGNAL) < 0) {
			fprintf(stderr, "sluice: capture: cannot ask the engine to stop: %s\n",
				strerror(errno));
			return -1;
		}
		s->stopped = true;
	}
	int wait = -1;
	if (!s->stopped && s->deadline > 0) {
		double left = s->deadline - mono_s();
		wait = left > 0 ? (int)(left * 1000) + 1 : 0;
	}
	struct pollfd p = { .fd = s->fd, .events = POLLIN };
	if (poll(&p, 1, wait) <= 0)
		return 0;
	ssize_t n = recv(s->fd, s->buf, SL_CAP_MSG_MAX + 1, 0);
	if (n < 0 && errno == EINTR)
		return 0;
	if (n <= 0) {
		fprintf(stderr, "sluice: capture: the engine closed the capture without its "
			"counts%s\n", n < 0 ? "" : " (did it stop?)");
		return -1;
	}
	return n;
}

/* Pass the engine's pcapng on until its last message, the counts; count
 * the packets that reach the output.  Returns the exit status. */
static int pass_on(struct session *s)
{
	for (;;) {
		ssize_t n = next_message(s);
		if (n < 0)
			return SL_EXIT_RUNTIME;
		if (n == 0)
			continue;
		if (s->buf[0] == SL_CAP_DATA_TAG) {
			write_data(s, (size_t)n);
			continue;
		}
		json_error_t je;
		json_t *fin = json_loadb((const char *)s->buf, (size_t)n, 0, &je);
		if (fin == NULL) {
			fprintf(stderr, "sluice: capture: the engine sent something that is not JSON "
				"(%s)\n", je.text);
			return SL_EXIT_RUNTIME;
		}
		print_counts(fin, &s->w);
		json_decref(fin);
		/* A reader that went away (EPIPE) ends a capture as -c does. */
		return s->w.err != 0 && s->w.err != EPIPE ? SL_EXIT_RUNTIME : SL_EXIT_OK;
	}
}

/* Start the capture on the engine in dir, and pass it on to c->out.
 * Returns the exit status. */
static int capture(const char *dir, const char *text, const struct capture_opts *c,
		   struct sl_ctl_wait *wait)
{
	struct session s = { .fd = -1, .ofd = -1, .w = { .out = c->out } };
	struct sl_err err = { "" };
	int status = SL_EXIT_RUNTIME;
	s.buf = malloc(SL_CAP_MSG_MAX + 1);
	json_t *ans = s.buf != NULL ? sl_ctl_request(dir, text, wait, &s.fd, &err) : NULL;
	if (ans == NULL) {
		fprintf(stderr, "sluice: capture: %s\n", s.buf == NULL ? "out of memory" : err.msg);
	} else if (!json_is_true(json_object_get(ans, "ok"))) {
		status = sl_ctl_error_status(ans);
		fprintf(stderr, "sluice: %s\n", sl_snap_str(json_object_get(ans, "error"),
							   "the engine refused the capture"));
	} else if (open_output(&s, c->out, ans, c->snaplen) == 0) {
		s.deadline = c->duration_s > 0 ? mono_s() + (double)c->duration_s : 0;
		status = pass_on(&s);
	}
	if (s.ofd >= 0 && s.ofd != STDOUT_FILENO && close(s.ofd) < 0) {
		fprintf(stderr, "sluice: capture: cannot write '%s': %s\n", c->out,
			strerror(errno));
		status = SL_EXIT_RUNTIME;
	}
	if (s.fd >= 0)
		close(s.fd);
	json_decref(ans);
	free(s.w.per_point);
	free(s.buf);
	return status;
}

int sl_cmd_capture(const struct sl_command *cmd, int argc, char **argv,
		   const struct sl_ctl_wait *env_wait)
{
	struct capture_opts c = { .snaplen = SL_CAP_SNAPLEN_MAX };
	json_t *points = NULL;
	int rc = capture_args(cmd, argc, argv, &c, &points);
	if (rc >= 0)
		return rc;

	/* Ctrl-C (SIGINT, SIGTERM) stops a capture, and ends a wait for the
	 * engine before it starts (ECANCELED). */
	struct sigaction sa = { .sa_handler = on_stop };   /* no SA_RESTART */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	struct sl_ctl_wait wait = *env_wait;
	wait.cancel = &stop_signal;

	struct sl_err err = { "" };
	char dir[PATH_MAX + 160];
	if (sl_telc_engine_dir(c.prefix, &wait, dir, sizeof(dir), &err) < 0) {
		json_decref(points);
		fprintf(stderr, "sluice: capture: %s\n", err.msg);
		return SL_EXIT_RUNTIME;
	}
	char *text = capture_request(&c, points);   /* takes points */
	if (text == NULL) {
		fprintf(stderr, "sluice: capture: out of memory\n");
		return SL_EXIT_RUNTIME;
	}
	sl_ctl_wait_default(&wait, START_TIMEOUT_MS, START_TIMEOUT_MS);
	wait.on_busy = busy_note;
	rc = capture(dir, text, &c, &wait);
	free(text);
	return rc;
}
