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
#include "cli/snapview.h"
#include "cli/telclient.h"

static const char capture_usage[] =
	"usage: sluice capture [--prefix P] POINT... [-c COUNT] [-s SNAPLEN] [-f FILTER]\n"
	"                      [-a duration:S] -w FILE|-\n"
	"  POINT: a link \"a.output -> b.input\" or an app's port \"a.output\", \"b.input\"";

/* How long the engine may take to take the connection and to answer the
 * start ($SLUICE_TIMEOUT replaces it: engine/ops/control.h). */
#define START_TIMEOUT_MS 10000

static volatile sig_atomic_t stop_signal;

static void on_stop(int sig)
{
	stop_signal = sig;
}

static int usage(const char *fmt, const char *arg)
{
	fprintf(stderr, "sluice: capture: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\n%s\n", capture_usage);
	return SL_EXIT_CONFIG;
}

static int parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *v)
{
	char *end;
	errno = 0;
	unsigned long long x = strtoull(s, &end, 10);
	if (errno != 0 || end == s || *end != '\0' || s[0] == '-' || x < min || x > max)
		return -1;
	*v = x;
	return 0;
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

int sl_cmd_capture(int argc, char **argv, const struct sl_ctl_wait *env_wait)
{
	const char *prefix = NULL, *filter = NULL, *out = NULL;
	uint64_t count = 0, snaplen = SL_CAP_SNAPLEN_MAX, duration_s = 0;
	json_t *points = json_array();
	if (points == NULL)
		return SL_EXIT_RUNTIME;
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		bool opt = a[0] == '-' && a[1] != '\0';
		if (opt && i + 1 >= argc) {
			json_decref(points);
			return usage("%s needs a value", a);
		}
		int bad = 0;
		if (strcmp(a, "--prefix") == 0)
			prefix = argv[++i];
		else if (strcmp(a, "-w") == 0)
			out = argv[++i];
		else if (strcmp(a, "-f") == 0)
			filter = argv[++i];
		else if (strcmp(a, "-c") == 0)
			bad = parse_u64(argv[++i], 1, UINT64_MAX >> 1, &count);
		else if (strcmp(a, "-s") == 0) {
			bad = parse_u64(argv[++i], 0, SL_CAP_SNAPLEN_MAX, &snaplen);
			if (snaplen == 0)   /* as tcpdump: the most */
				snaplen = SL_CAP_SNAPLEN_MAX;
		} else if (strcmp(a, "-a") == 0) {
			const char *v = argv[++i];
			bad = strncmp(v, "duration:", 9) != 0 ||
			      parse_u64(v + 9, 1, 365u * 86400u, &duration_s) < 0;
		} else if (opt) {
			json_decref(points);
			return usage("unknown option '%s'", a);
		} else {
			json_array_append_new(points, json_string(a));
		}
		if (bad) {
			json_decref(points);
			if (strcmp(a, "-c") == 0)
				return usage("-c wants a packet count from 1, not '%s'", argv[i]);
			if (strcmp(a, "-s") == 0)
				return usage("-s wants a snap length from 0 to 65535 bytes (0: 65535), "
					     "not '%s'", argv[i]);
			return usage("-a wants duration:SECONDS (a whole number from 1), not '%s'",
				     argv[i]);
		}
	}
	if (json_array_size(points) == 0) {
		json_decref(points);
		return usage("no capture POINT given%s", "");
	}
	if (out == NULL) {
		json_decref(points);
		return usage("no output given (-w FILE, or -w - for stdout)%s", "");
	}
	if (filter != NULL) {
		int rc = check_filter(filter, snaplen);
		if (rc != 0) {
			json_decref(points);
			return rc;
		}
	}

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
	if (sl_telc_engine_dir(prefix, &wait, dir, sizeof(dir), &err) < 0) {
		json_decref(points);
		fprintf(stderr, "sluice: capture: %s\n", err.msg);
		return SL_EXIT_RUNTIME;
	}
	json_t *req = json_pack("{sssosIsI}", "verb", "capture", "points", points, "snaplen",
				(json_int_t)snaplen, "count", (json_int_t)count);
	if (req != NULL && filter != NULL)
		json_object_set_new(req, "filter", json_string(filter));
	char *text = req != NULL ? json_dumps(req, JSON_COMPACT) : NULL;
	json_decref(req);
	uint8_t *buf = malloc(SL_CAP_MSG_MAX + 1);
	if (text == NULL || buf == NULL) {
		free(text);
		free(buf);
		fprintf(stderr, "sluice: capture: out of memory\n");
		return SL_EXIT_RUNTIME;
	}

	int status = SL_EXIT_RUNTIME, ofd = -1;
	json_t *ans = NULL;
	struct written w = { .out = out };
	int fd = -1;
	sl_ctl_wait_default(&wait, START_TIMEOUT_MS, START_TIMEOUT_MS);
	wait.on_busy = busy_note;
	ans = sl_ctl_request(dir, text, &wait, &fd, &err);
	if (ans == NULL) {
		fprintf(stderr, "sluice: capture: %s\n", err.msg);
		goto out;
	}
	if (!json_is_true(json_object_get(ans, "ok"))) {
		status = sl_ctl_error_status(ans);
		fprintf(stderr, "sluice: %s\n", sl_snap_str(json_object_get(ans, "error"),
							   "the engine refused the capture"));
		goto out;
	}
	if (strcmp(out, "-") == 0) {
		ofd = STDOUT_FILENO;
	} else {
		ofd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (ofd < 0) {
			fprintf(stderr, "sluice: capture: cannot create '%s': %s\n", out,
				strerror(errno));
			goto out;
		}
	}
	{
		json_t *ifs = json_object_get(ans, "interfaces");
		size_t i, nl = 0;
		json_t *f;
		json_array_foreach(ifs, i, f)
			nl += json_array_size(json_object_get(f, "links"));
		fprintf(stderr, "sluice: capture: capturing on %zu point%s (%zu link%s), snaplen "
			"%llu, into %s\n", json_array_size(ifs), json_array_size(ifs) == 1 ? "" : "s",
			nl, nl == 1 ? "" : "s", (unsigned long long)snaplen,
			ofd == STDOUT_FILENO ? "stdout" : out);
	}

	/* Pass the engine's pcapng on until its last message, the counts;
	 * count the packets that reach the output. */
	w.out = ofd == STDOUT_FILENO ? "stdout" : out;
	w.n_points = json_array_size(json_object_get(ans, "interfaces"));
	w.per_point = calloc(w.n_points + 1, sizeof(uint64_t));
	if (w.per_point == NULL) {
		fprintf(stderr, "sluice: capture: out of memory\n");
		goto out;
	}
	double deadline = duration_s > 0 ? mono_s() + (double)duration_s : 0;
	bool stopped = false;
	for (;;) {
		bool want_stop = stop_signal || (deadline > 0 && mono_s() >= deadline) || w.err != 0;
		if (want_stop && !stopped) {
			static const char stop[] = "{\"verb\":\"capture-stop\"}";
			if (send(fd, stop, sizeof(stop) - 1, MSG_NOSIGNAL) < 0) {
				fprintf(stderr, "sluice: capture: cannot ask the engine to stop: %s\n",
					strerror(errno));
				goto out;
			}
			stopped = true;
		}
		int wait = -1;
		if (!stopped && deadline > 0) {
			double left = deadline - mono_s();
			wait = left > 0 ? (int)(left * 1000) + 1 : 0;
		}
		struct pollfd p = { .fd = fd, .events = POLLIN };
		int r = poll(&p, 1, wait);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			continue;
		ssize_t n = recv(fd, buf, SL_CAP_MSG_MAX + 1, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			fprintf(stderr, "sluice: capture: the engine closed the capture without its "
				"counts%s\n", n < 0 ? "" : " (did it stop?)");
			goto out;
		}
		if (buf[0] == SL_CAP_DATA_TAG) {
			/* Whole blocks: the packets whose blocks were written whole
			 * are what was captured. */
			size_t len = (size_t)n - 1, done = 0;
			int rc = w.err == 0 ? write_all(ofd, buf + 1, len, &done) : 0;
			w.packets += sl_pcapng_count_epb(buf + 1, done, w.per_point,
							 (unsigned)w.n_points);
			if (w.err != 0 || rc < 0)
				w.unwritten += sl_pcapng_count_epb(buf + 1, len, NULL, 0) -
					       sl_pcapng_count_epb(buf + 1, done, NULL, 0);
			if (rc < 0) {
				w.err = -rc;
				if (w.err != EPIPE)
					fprintf(stderr, "sluice: capture: cannot write to %s: %s; "
						"stopping\n", w.out, strerror(w.err));
			}
			continue;
		}
		json_error_t je;
		json_t *fin = json_loadb((const char *)buf, (size_t)n, 0, &je);
		if (fin == NULL) {
			fprintf(stderr, "sluice: capture: the engine sent something that is not JSON "
				"(%s)\n", je.text);
			goto out;
		}
		print_counts(fin, &w);
		json_decref(fin);
		/* A reader that went away (EPIPE) ends a capture as -c does. */
		status = w.err != 0 && w.err != EPIPE ? SL_EXIT_RUNTIME : SL_EXIT_OK;
		break;
	}
out:
	if (ofd >= 0 && ofd != STDOUT_FILENO && close(ofd) < 0) {
		fprintf(stderr, "sluice: capture: cannot write '%s': %s\n", out, strerror(errno));
		status = SL_EXIT_RUNTIME;
	}
	if (fd >= 0)
		close(fd);
	json_decref(ans);
	free(w.per_point);
	free(text);
	free(buf);
	return status;
}
