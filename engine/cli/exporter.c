/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * `sluice exporter`: Prometheus text on GET /metrics, read from a running
 * engine's telemetry socket at each scrape (promtext.h).
 *
 * Threads: libmicrohttpd answers connections in its own thread; the main
 * thread waits for SIGINT or SIGTERM, which every thread blocks.  A scrape
 * holds `lock` while it uses the one telemetry connection, so scrapes are
 * served one at a time (the engine's telemetry serves one request at a
 * time anyway).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <microhttpd.h>

#include "ops/control.h"
#include "base/err.h"
#include "cli/opts.h"
#include "cli/promtext.h"
#include "cli/telclient.h"

#define DEFAULT_LISTEN "127.0.0.1:9473"
#define CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"
/* A silent engine costs a scrape at most the connect wait plus one reply's
 * (3 s, within Prometheus's default scrape_timeout of 10 s); SLUICE_TIMEOUT
 * replaces both (docs/operations.md). */
#define SCRAPE_CONNECT_MS 1500
#define SCRAPE_REPLY_MS 1500

struct exporter {
	pthread_mutex_t lock;
	struct sl_telc *telc;        /* NULL: not connected */
	const char *prefix;          /* asked for, or NULL */
	const char *version;
	int last_errno;              /* of the last failed read (0: the last read worked) */
	struct sl_ctl_wait wait;     /* SCRAPE_*_MS, or SLUICE_TIMEOUT */
};

/* The listening address: IPv4 "A.B.C.D:PORT" or IPv6 "[ADDR]:PORT". */
struct listen_addr {
	struct sockaddr_storage sa;
	socklen_t len;
};

/* Returns 0, or -EINVAL when text is not an address and a port. */
static int parse_listen(const char *text, struct listen_addr *out)
{
	char host[INET6_ADDRSTRLEN + 2];
	const char *colon = strrchr(text, ':');
	if (colon == NULL || (size_t)(colon - text) >= sizeof(host) || colon == text)
		return -EINVAL;
	memcpy(host, text, (size_t)(colon - text));
	host[colon - text] = '\0';

	const char *p = colon + 1;
	if (*p < '0' || *p > '9')
		return -EINVAL;
	char *end;
	errno = 0;
	unsigned long port = strtoul(p, &end, 10);
	if (errno != 0 || *end != '\0' || port == 0 || port > 65535)
		return -EINVAL;

	memset(out, 0, sizeof(*out));
	size_t hl = strlen(host);
	if (host[0] == '[' && hl > 2 && host[hl - 1] == ']') {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)&out->sa;
		host[hl - 1] = '\0';
		if (inet_pton(AF_INET6, host + 1, &a->sin6_addr) != 1)
			return -EINVAL;
		a->sin6_family = AF_INET6;
		a->sin6_port = htons((uint16_t)port);
		out->len = sizeof(*a);
		return 0;
	}
	struct sockaddr_in *a = (struct sockaddr_in *)&out->sa;
	if (inet_pton(AF_INET, host, &a->sin_addr) != 1)
		return -EINVAL;
	a->sin_family = AF_INET;
	a->sin_port = htons((uint16_t)port);
	out->len = sizeof(*a);
	return 0;
}

/* A bound, listening socket, or -errno. */
static int listen_on(const struct listen_addr *addr)
{
	int fd = socket(addr->sa.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	int one = 1;
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) != 0 ||
	    (addr->sa.ss_family == AF_INET6 &&
	     setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one)) != 0) ||
	    bind(fd, (const struct sockaddr *)&addr->sa, addr->len) != 0 ||
	    listen(fd, 64) != 0) {
		int e = errno;
		close(fd);
		return -e;
	}
	return fd;
}

/* One snapshot, or NULL with the reason in errno.  A connection that the
 * engine closed (it stopped, or restarted under the same prefix) is
 * reopened once.  Under e->lock. */
static json_t *read_engine(struct exporter *e)
{
	struct sl_err err = { { 0 } };
	for (int attempt = 0; attempt < 2; attempt++) {
		if (e->telc == NULL) {
			e->telc = sl_telc_open(e->prefix, &e->wait, &err);
			if (e->telc == NULL)
				break;
		}
		json_t *snap = sl_telc_snapshot(e->telc, &err);
		if (snap != NULL) {
			if (e->last_errno != 0)
				fprintf(stderr, "sluice: exporter: reading the engine '%s'\n",
					sl_telc_prefix(e->telc));
			e->last_errno = 0;
			return snap;
		}
		int reason = errno;
		if (reason == EAGAIN) {   /* starting or stopping: keep the connection */
			errno = reason;
			break;
		}
		sl_telc_close(e->telc);
		e->telc = NULL;
		errno = reason;
		if (reason != ECONNRESET && reason != ENOENT && reason != EPIPE)
			break;
	}
	int reason = errno > 0 ? errno : EIO;
	/* Say it once per change, not at every scrape. */
	if (reason != e->last_errno)
		fprintf(stderr, "sluice: exporter: no engine to read (sluice_up 0): %s\n",
			err.msg[0] != '\0' ? err.msg : strerror(reason));
	e->last_errno = reason;
	errno = reason;
	return NULL;
}

static enum MHD_Result reply(struct MHD_Connection *conn, unsigned status, char *body, size_t len,
			     const char *type)
{
	struct MHD_Response *r =
		MHD_create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE);
	if (r == NULL) {
		free(body);
		return MHD_NO;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	enum MHD_Result ret = MHD_queue_response(conn, status, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result reply_text(struct MHD_Connection *conn, unsigned status, const char *text)
{
	char *body = strdup(text);
	if (body == NULL)
		return MHD_NO;
	return reply(conn, status, body, strlen(body), "text/plain; charset=utf-8");
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
				  const char *method, const char *version, const char *upload,
				  size_t *upload_size, void **state)
{
	struct exporter *e = cls;
	/* The first call is for the headers only; answer on the second, once
	 * any body has been read (and ignored). */
	if (*state == NULL) {
		*state = e;
		return MHD_YES;
	}
	if (*upload_size != 0) {
		*upload_size = 0;
		return MHD_YES;
	}
	if (strcmp(url, "/metrics") != 0)
		return reply_text(conn, MHD_HTTP_NOT_FOUND, "not found: the metrics are at /metrics\n");
	if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 && strcmp(method, MHD_HTTP_METHOD_HEAD) != 0)
		return reply_text(conn, MHD_HTTP_METHOD_NOT_ALLOWED, "/metrics answers GET\n");

	struct sl_prom_self self = { .version = e->version, .prefix = e->prefix };
	pthread_mutex_lock(&e->lock);
	json_t *snap = read_engine(e);
	size_t len = 0;
	char *text = sl_prom_text(snap, &self, &len);
	pthread_mutex_unlock(&e->lock);
	json_decref(snap);
	if (text == NULL)
		return reply_text(conn, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory\n");
	return reply(conn, MHD_HTTP_OK, text, len, CONTENT_TYPE);
}

static const struct sl_command exporter_cmd = {
	.name = "exporter",
	.synopsis = "exporter [--listen ADDR:PORT] [--prefix P]",
	.help = "usage: sluice exporter [--listen ADDR:PORT] [--prefix P]\n"
		"serve the running engine's counters in Prometheus text format on\n"
		"http://ADDR:PORT/metrics (default " DEFAULT_LISTEN "; IPv6: [ADDR]:PORT);\n"
		"--prefix: the engine's DPDK file prefix (default: the only one running)\n",
};

/* sluice-exporter(8) (`sluice-exporter --man`; meson builds the installed
 * page with it). */
static void exporter_man(void)
{
	sl_roff_title("SLUICE-EXPORTER", 8, "System Administration", stdout);
	fputs(".SH NAME\nsluice\\-exporter \\- serve a running Sluice engine's counters to Prometheus\n"
	      ".SH SYNOPSIS\n.B sluice\\-exporter\n", stdout);
	sl_roff_put(strchr(exporter_cmd.synopsis, ' ') + 1, true, stdout);
	fputs("\n.br\n.B sluice exporter\n.RI [ OPTIONS ]\n"
	      ".SH DESCRIPTION\n"
	      "Answers \\fBGET /metrics\\fR with the counters of a running engine (its\n"
	      "workers, apps, links, pool and epoch) in Prometheus text format, read from\n"
	      "the engine's DPDK telemetry socket at each scrape; an engine that is not\n"
	      "running gives a scrape without its counters and \\fBsluice_up 0\\fR.\n"
	      ".SH OPTIONS\n"
	      ".TP\n.BI \\-\\-listen \" ADDR:PORT\"\n"
	      "where to listen (default " DEFAULT_LISTEN "; an IPv6 address in brackets)\n"
	      ".TP\n.BI \\-\\-prefix \" P\"\n"
	      "the engine's DPDK file prefix (default: the only one running)\n"
	      ".TP\n.B \\-\\-man\nprint this page\n"
	      ".SH ENVIRONMENT\n.TP\n.B SLUICE_TIMEOUT\n"
	      "seconds to wait for the engine at each scrape\n"
	      ".SH EXIT STATUS\n"
	      "0 after SIGINT or SIGTERM, 1 when it cannot listen, 2 on a bad option.\n"
	      ".SH SEE ALSO\n.BR sluice (8),\n.BR prometheus (1)\n", stdout);
}

int sl_exporter_main(int argc, char **argv, const char *version)
{
	if (argc == 1 && strcmp(argv[0], "--man") == 0) {
		exporter_man();
		return SL_EXIT_OK;
	}
	const char *listen_text = DEFAULT_LISTEN;
	struct exporter e = { .lock = PTHREAD_MUTEX_INITIALIZER, .version = version };
	const struct sl_opt opts[] = {
		{ .name = "--listen", .type = SL_OPT_STR, .dst = &listen_text, .nonempty = true },
		{ .name = "--prefix", .type = SL_OPT_STR, .dst = &e.prefix, .nonempty = true },
	};
	struct sl_args a = { .cmd = &exporter_cmd, .opts = opts, .n_opts = SL_OPTS_LEN(opts) };
	int rc = sl_opts_parse(&a, argc, argv);
	if (rc >= 0)
		return rc;
	struct sl_err err = { "" };
	if (sl_ctl_client_wait(&e.wait, &err) < 0) {
		fprintf(stderr, "sluice: exporter: %s\n", err.msg);
		return SL_EXIT_CONFIG;
	}
	sl_ctl_wait_default(&e.wait, SCRAPE_CONNECT_MS, SCRAPE_REPLY_MS);
	struct listen_addr addr;
	if (parse_listen(listen_text, &addr) != 0)
		return sl_usage_error(&exporter_cmd, "--listen needs ADDR:PORT with an IPv4 address "
				      "or [IPv6], and a port 1..65535, got '%s'", listen_text);

	/* SIGINT and SIGTERM go to sigwait below: block them before the
	 * server's thread starts, so that it inherits the mask. */
	sigset_t stop;
	sigemptyset(&stop);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &stop, NULL);
	signal(SIGPIPE, SIG_IGN);   /* a client gone mid-reply is the server's error */

	int fd = listen_on(&addr);
	if (fd < 0) {
		fprintf(stderr, "sluice: exporter: cannot listen on %s: %s\n", listen_text,
			strerror(-fd));
		return SL_EXIT_RUNTIME;
	}
	unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO;
	if (addr.sa.ss_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	struct MHD_Daemon *d = MHD_start_daemon(flags, 0, NULL, NULL, on_request, &e,
						MHD_OPTION_LISTEN_SOCKET, fd,
						MHD_OPTION_CONNECTION_TIMEOUT, 30u,
						MHD_OPTION_END);
	if (d == NULL) {
		close(fd);
		fprintf(stderr, "sluice: exporter: cannot start the HTTP server on %s\n",
			listen_text);
		return SL_EXIT_RUNTIME;
	}
	printf("sluice: exporter: serving http://%s/metrics (engine: %s)\n", listen_text,
	       e.prefix != NULL ? e.prefix : "the only one running");
	fflush(stdout);

	int sig = 0;
	while (sigwait(&stop, &sig) != 0)
		;
	printf("sluice: exporter: %s, stopping\n", sig == SIGINT ? "SIGINT" : "SIGTERM");
	MHD_stop_daemon(d);   /* closes fd */
	pthread_mutex_lock(&e.lock);
	if (e.telc != NULL)
		sl_telc_close(e.telc);
	e.telc = NULL;
	pthread_mutex_unlock(&e.lock);
	return SL_EXIT_OK;
}
