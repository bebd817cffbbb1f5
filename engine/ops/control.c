/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "ops/control.h"
#include "ops/report.h"
#include "base/note.h"

struct client {
	int fd;                 /* -1: free */
	double since;           /* connected, or last progress, s */
	char *out;              /* a reply being sent (NULL: none) */
	size_t out_len, out_off;
};

struct sl_ctl {
	int fd;
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	sl_ctl_handler *handler;
	void *arg;
	struct client clients[SL_CTL_CLIENTS];
	char *buf;              /* SL_CTL_MSG_MAX + 1 */
	struct client *current; /* the client whose request the handler answers */
	bool detached;          /* the handler took current's connection */
	bool sndbuf_warned;     /* a failed SO_SNDBUF was said */
};

static double mono_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int socket_path(const char *dir, struct sockaddr_un *sa, struct sl_err *err)
{
	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	int n = snprintf(sa->sun_path, sizeof(sa->sun_path), "%s/%s", dir, SL_CTL_SOCKET);
	if (n < 0 || (size_t)n >= sizeof(sa->sun_path))
		return sl_errf(err, ENAMETOOLONG, "control socket path %s/%s is too long", dir,
			       SL_CTL_SOCKET);
	return 0;
}

json_t *sl_ctl_error(int status, const char *msg)
{
	json_t *j = json_pack("{sbsssi}", "ok", 0, "error", msg, "status", status);
	if (j != NULL)
		return j;
	/* Not UTF-8 (a JSON string must be): msg quotes bytes a client sent, or
	 * a path.  The same sentence with each byte above 0x7f as '?'. */
	char *safe = strdup(msg);
	if (safe == NULL)
		return NULL;
	for (char *p = safe; *p != '\0'; p++)
		if ((unsigned char)*p > 0x7f)
			*p = '?';
	j = json_pack("{sbsssi}", "ok", 0, "error", safe, "status", status);
	free(safe);
	return j;
}

int sl_ctl_error_status(const json_t *reply)
{
	json_t *st = json_object_get(reply, "status");
	return json_is_integer(st) && json_integer_value(st) == 2 ? 2 : 1;
}

json_t *sl_ctl_parse(const char *buf, size_t len, const char **verb, struct sl_err *err)
{
	json_error_t je;
	json_t *j = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &je);
	if (j == NULL)
		return sl_errf_null(err, EINVAL, "malformed request (not JSON: %s at byte %d)",
				    je.text, je.position);
	if (!json_is_object(j)) {
		json_decref(j);
		return sl_errf_null(err, EINVAL, "malformed request (not a JSON object)");
	}
	json_t *v = json_object_get(j, "verb");
	if (!json_is_string(v)) {
		json_decref(j);
		return sl_errf_null(err, EINVAL, "malformed request (no string \"verb\")");
	}
	*verb = json_string_value(v);
	return j;
}

struct sl_ctl *sl_ctl_open(const char *dir, sl_ctl_handler *handler, void *arg,
			   struct sl_err *err)
{
	struct sockaddr_un sa;
	if (socket_path(dir, &sa, err) < 0) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	struct sl_ctl *c = calloc(1, sizeof(*c));
	char *buf = malloc(SL_CTL_MSG_MAX + 1);
	if (c == NULL || buf == NULL) {
		free(c);
		free(buf);
		return sl_errf_null(err, ENOMEM, "out of memory");
	}
	c->buf = buf;
	c->handler = handler;
	c->arg = arg;
	for (unsigned i = 0; i < SL_CTL_CLIENTS; i++)
		c->clients[i].fd = -1;
	snprintf(c->path, sizeof(c->path), "%s", sa.sun_path);
	c->fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (c->fd < 0)
		goto out_fail;
	/* Only this process's file prefix can own the path: a socket left
	 * by an engine that died is replaced. */
	unlink(c->path);
	mode_t old = umask(0177);
	int rc = bind(c->fd, (struct sockaddr *)&sa, sizeof(sa));
	umask(old);
	if (rc < 0 || chmod(c->path, 0600) < 0 || listen(c->fd, SL_CTL_CLIENTS) < 0)
		goto out_close;
	return c;

out_close: {
	int e = errno;
	close(c->fd);
	unlink(c->path);
	errno = e;
}
out_fail: {
	int e = errno;
	sl_errf(err, e, "cannot create the control socket %s: %s", c->path, strerror(e));
	free(c->buf);
	free(c);
	errno = e;
	return NULL;
}
}

const char *sl_ctl_path(const struct sl_ctl *c)
{
	return c->path;
}

static void drop(struct client *cl)
{
	close(cl->fd);
	cl->fd = -1;
	free(cl->out);
	cl->out = NULL;
}

/* Send what the socket takes now of cl's reply (messages of SL_CTL_MSG_MAX
 * bytes, the last shorter); the rest waits for the client to read.  A
 * client that failed is closed. */
static void flush(struct client *cl, double now)
{
	while (cl->out_off < cl->out_len) {
		size_t n = cl->out_len - cl->out_off;
		if (n > SL_CTL_MSG_MAX)
			n = SL_CTL_MSG_MAX;
		ssize_t k = send(cl->fd, cl->out + cl->out_off, n, MSG_DONTWAIT | MSG_NOSIGNAL);
		if (k < 0 && (errno == EAGAIN || errno == EINTR))
			return;
		if (k < 0 || (size_t)k != n) {
			drop(cl);
			return;
		}
		cl->out_off += n;
		cl->since = now;
	}
	free(cl->out);
	cl->out = NULL;
}

/* j as reply text (malloc'd, its length in *len): a text whose length is a
 * multiple of SL_CTL_MSG_MAX gets a newline, as its last message of
 * SL_CTL_MSG_MAX bytes would say "more follows".  NULL when out of memory. */
static char *frame(const json_t *j, size_t *len)
{
	char *text = json_dumps(j, JSON_COMPACT);
	if (text == NULL)
		return NULL;
	size_t n = strlen(text);
	if (n % SL_CTL_MSG_MAX == 0) {
		char *t = realloc(text, n + 2);
		if (t == NULL) {
			free(text);
			return NULL;
		}
		text = t;
		text[n++] = '\n';
		text[n] = '\0';
	}
	*len = n;
	return text;
}

int sl_ctl_send_reply(int fd, const json_t *j)
{
	size_t len, off = 0;
	char *text = frame(j, &len);
	if (text == NULL)
		return -ENOMEM;
	int rc = 0;
	while (off < len) {
		size_t n = len - off < SL_CTL_MSG_MAX ? len - off : SL_CTL_MSG_MAX;
		ssize_t k = send(fd, text + off, n, MSG_DONTWAIT | MSG_NOSIGNAL);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0 || (size_t)k != n) {
			rc = k < 0 ? -errno : -EMSGSIZE;
			break;
		}
		off += n;
	}
	free(text);
	return rc;
}

/* Send j (and release it) to cl, whole (flush). */
static void reply(struct client *cl, json_t *j)
{
	if (j == NULL)
		j = sl_ctl_error(1, "out of memory");
	size_t len = 0;
	char *text = j != NULL ? frame(j, &len) : NULL;
	json_decref(j);
	if (text == NULL) {
		drop(cl);
		return;
	}
	cl->out = text;
	cl->out_len = len;
	cl->out_off = 0;
	flush(cl, mono_s());
}

/* Room on fd for whole messages of SL_CTL_MSG_MAX bytes: a send buffer
 * under that (net.core.wmem_default below 64 KiB) fails each with EMSGSIZE.
 * SO_SNDBUF is capped at net.core.wmem_max; SO_SNDBUFFORCE (root) is not.
 * 0, or -1 with errno (ENOBUFS: capped below the size). */
static int set_sndbuf(int fd)
{
	int want = 2 * SL_CTL_MSG_MAX, got = 0;
	socklen_t len = sizeof(got);
	if (setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &want, sizeof(want)) < 0)
		return -1;
	/* The kernel reports twice what it keeps, for its bookkeeping. */
	if (getsockopt(fd, SOL_SOCKET, SO_SNDBUF, &got, &len) == 0 && got >= 2 * want)
		return 0;
	if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &want, sizeof(want)) == 0)
		return 0;
	errno = ENOBUFS;
	return -1;
}

/* All SL_CTL_CLIENTS are taken: say so on fd (what it sent is not read)
 * and close it. */
static void refuse_busy(int fd)
{
	char m[160];
	snprintf(m, sizeof(m), "the engine is busy: all %d of its control connections are in "
		 "use; try again", SL_CTL_CLIENTS);
	json_t *j = sl_ctl_error(1, m);
	char *text = NULL;
	if (j != NULL && json_object_set_new(j, "busy", json_true()) == 0)
		text = json_dumps(j, JSON_COMPACT);
	json_decref(j);
	/* Read what came already, so that closing with it unread does not
	 * turn the client's read of this reply into ECONNRESET. */
	char sink[64];
	while (recv(fd, sink, sizeof(sink), MSG_DONTWAIT | MSG_TRUNC) > 0)
		;
	if (text != NULL)
		(void)send(fd, text, strlen(text), MSG_DONTWAIT | MSG_NOSIGNAL);
	free(text);
	close(fd);
}

static void serve(struct sl_ctl *c, struct client *cl)
{
	/* MSG_TRUNC: the length of the whole message, also where it is
	 * longer than the buffer. */
	ssize_t n = recv(cl->fd, c->buf, SL_CTL_MSG_MAX + 1, MSG_DONTWAIT | MSG_TRUNC);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {   /* the client closed, or failed */
		drop(cl);
		return;
	}
	cl->since = mono_s();
	if ((size_t)n > SL_CTL_MSG_MAX) {
		char m[96];
		snprintf(m, sizeof(m), "request too long (%zd bytes; at most %d)", n,
			 SL_CTL_MSG_MAX);
		reply(cl, sl_ctl_error(2, m));
		return;
	}
	struct sl_err err = { "" };
	const char *verb;
	json_t *req = sl_ctl_parse(c->buf, (size_t)n, &verb, &err);
	if (req == NULL) {
		reply(cl, sl_ctl_error(2, err.msg));
		return;
	}
	c->current = cl;
	json_t *ans = c->handler(c->arg, verb, req);
	c->current = NULL;
	json_decref(req);
	if (c->detached) {   /* the connection is the handler's now */
		c->detached = false;
		cl->fd = -1;
		json_decref(ans);
		return;
	}
	reply(cl, ans);
}

int sl_ctl_detach(struct sl_ctl *c)
{
	if (c->current == NULL || c->detached)
		return -1;
	c->detached = true;
	return c->current->fd;
}

void sl_ctl_poll(struct sl_ctl *c, int timeout_ms)
{
	struct pollfd p[SL_CTL_CLIENTS + 1];
	unsigned map[SL_CTL_CLIENTS + 1], n = 0;
	p[n] = (struct pollfd){ .fd = c->fd, .events = POLLIN };
	map[n++] = SL_CTL_CLIENTS;
	for (unsigned i = 0; i < SL_CTL_CLIENTS; i++)
		if (c->clients[i].fd >= 0) {
			/* A client reads the rest of its reply before its next
			 * request is read. */
			short ev = c->clients[i].out != NULL ? POLLOUT : POLLIN;
			p[n] = (struct pollfd){ .fd = c->clients[i].fd, .events = ev };
			map[n++] = i;
		}
	int r = poll(p, n, timeout_ms);
	double now = mono_s();
	if (r > 0) {
		for (unsigned k = 1; k < n; k++) {
			struct client *cl = &c->clients[map[k]];
			if (p[k].revents == 0 || cl->fd < 0)
				continue;
			if (cl->out != NULL)
				flush(cl, now);   /* fails, and drops, on a hang-up */
			else
				serve(c, cl);
		}
		if (p[0].revents & POLLIN) {
			int fd;
			while ((fd = accept4(c->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0) {
				unsigned i = 0;
				while (i < SL_CTL_CLIENTS && c->clients[i].fd >= 0)
					i++;
				if (i == SL_CTL_CLIENTS) {
					refuse_busy(fd);   /* too many at once */
					continue;
				}
				if (set_sndbuf(fd) < 0 && !c->sndbuf_warned) {
					c->sndbuf_warned = true;
					sl_warn("control socket %s: cannot give a client a "
						       "send buffer of %d bytes (%s): replies over "
						       "the host's net.core.wmem_max may fail",
						       c->path, 2 * SL_CTL_MSG_MAX, strerror(errno));
				}
				c->clients[i] = (struct client){ .fd = fd, .since = now };
			}
		}
	}
	for (unsigned i = 0; i < SL_CTL_CLIENTS; i++)
		if (c->clients[i].fd >= 0 && now - c->clients[i].since > SL_CTL_IDLE_MS / 1000.0)
			drop(&c->clients[i]);
}

void sl_ctl_close(struct sl_ctl *c)
{
	if (c == NULL)
		return;
	for (unsigned i = 0; i < SL_CTL_CLIENTS; i++)
		if (c->clients[i].fd >= 0)
			drop(&c->clients[i]);
	close(c->fd);
	unlink(c->path);
	free(c->buf);
	free(c);
}

/* ---------------------------------------------------------------- client */

int64_t sl_ctl_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int sl_ctl_client_wait(struct sl_ctl_wait *w, struct sl_err *err)
{
	*w = (struct sl_ctl_wait){ 0 };
	const char *v = getenv(SL_CTL_TIMEOUT_ENV);
	if (v == NULL || *v == '\0')
		return 0;
	char *end;
	errno = 0;
	double s = strtod(v, &end);
	if (errno != 0 || end == v || *end != '\0' || !(s > 0 && s <= 86400))
		return sl_errf(err, EINVAL, "%s must be a number of seconds above 0 (at most "
			       "86400), not '%.40s'", SL_CTL_TIMEOUT_ENV, v);
	int ms = (int)(s * 1000 + 0.5);
	w->connect_ms = w->reply_ms = ms > 0 ? ms : 1;
	return 0;
}

void sl_ctl_wait_default(struct sl_ctl_wait *w, int connect_ms, int reply_ms)
{
	if (w->connect_ms <= 0)
		w->connect_ms = connect_ms;
	if (w->reply_ms <= 0)
		w->reply_ms = reply_ms;
}

/* After EINTR: does the wait end (a signal that cancels)? */
static bool cancelled(volatile sig_atomic_t *cancel)
{
	return cancel != NULL && *cancel != 0;
}

/* Sleep ms, or until deadline_ms if sooner: 0, or -ECANCELED. */
static int pause_until(int ms, int64_t deadline_ms, volatile sig_atomic_t *cancel)
{
	int64_t left = deadline_ms - sl_ctl_now_ms();
	if (left < ms)
		ms = left > 0 ? (int)left : 0;
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };
	if (cancelled(cancel))   /* a signal that came before the wait */
		return -ECANCELED;
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		if (cancelled(cancel))
			return -ECANCELED;
	return 0;
}

int sl_ctl_connect_path(const char *path, int64_t deadline_ms, volatile sig_atomic_t *cancel)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	strcpy(sa.sun_path, path);
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	/* Non-blocking, a UNIX socket connects at once or says EAGAIN: the
	 * listener's queue is full (the listener is slow, or stopped
	 * accepting).  Try again, with a growing pause, until the deadline. */
	int pause_ms = 1, e = 0;
	for (;;) {
		if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0)
			break;
		e = errno;
		if (e == EINTR && cancelled(cancel)) {
			e = ECANCELED;
			break;
		}
		if (e != EAGAIN && e != EINTR)
			break;
		if (sl_ctl_now_ms() >= deadline_ms) {
			e = ETIMEDOUT;
			break;
		}
		if (pause_until(pause_ms, deadline_ms, cancel) < 0) {
			e = ECANCELED;
			break;
		}
		pause_ms = pause_ms < 64 ? pause_ms * 2 : 100;
		e = 0;
	}
	if (e == 0 && fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) < 0)
		e = errno;
	if (e != 0) {
		close(fd);
		return -e;
	}
	return fd;
}

/* Wait until fd is readable or deadline_ms: 0, or -ETIMEDOUT, -ECANCELED. */
static int wait_readable(int fd, int64_t deadline_ms, volatile sig_atomic_t *cancel)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	for (;;) {
		if (cancelled(cancel))   /* a signal before the wait, or during it */
			return -ECANCELED;
		int64_t left = deadline_ms - sl_ctl_now_ms();
		int r = poll(&p, 1, left > 0 ? (int)left : 0);
		if (r > 0)
			return 0;
		if (r == 0)
			return -ETIMEDOUT;
		if (errno != EINTR)
			return -errno;
	}
}

/* Read one reply (messages of SL_CTL_MSG_MAX bytes, then a shorter one) into
 * *buf (malloc'd, NUL-terminated), its length in *len; every message by
 * deadline_ms.  0, or -errno: ETIMEDOUT, ECANCELED, ECONNRESET (closed
 * before the end), EMSGSIZE (over SL_CTL_REPLY_MAX), ENOMEM. */
static int read_reply(int fd, int64_t deadline_ms, volatile sig_atomic_t *cancel, char **buf,
		      size_t *len)
{
	char *b = NULL;
	size_t n = 0, cap = 0;
	bool reset = false;
	int rc = 0;
	for (;;) {
		rc = wait_readable(fd, deadline_ms, cancel);
		if (rc < 0)
			break;
		/* The next message's length (MSG_TRUNC), to make room. */
		ssize_t want = recv(fd, NULL, 0, MSG_PEEK | MSG_TRUNC | MSG_DONTWAIT);
		if (want < 0 && errno == ECONNRESET && !reset) {
			/* The engine closed with our request unread (a busy
			 * reply): the error is reported once, what it sent
			 * before is still there. */
			reset = true;
			continue;
		}
		if (want < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (want <= 0) {
			rc = want < 0 ? -errno : -ECONNRESET;
			break;
		}
		if (n + (size_t)want > SL_CTL_REPLY_MAX) {
			rc = -EMSGSIZE;
			break;
		}
		if (n + (size_t)want + 1 > cap) {
			size_t ncap = cap ? cap : SL_CTL_MSG_MAX + 1;
			while (ncap < n + (size_t)want + 1)
				ncap *= 2;
			char *nb = realloc(b, ncap);
			if (nb == NULL) {
				rc = -ENOMEM;
				break;
			}
			b = nb;
			cap = ncap;
		}
		ssize_t k = recv(fd, b + n, cap - n, MSG_DONTWAIT);
		if (k < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (k <= 0) {
			rc = k < 0 ? -errno : -ECONNRESET;
			break;
		}
		n += (size_t)k;
		if (k != SL_CTL_MSG_MAX)
			break;   /* the last message */
	}
	if (rc < 0) {
		free(b);
		return rc;
	}
	b[n] = '\0';
	*buf = b;
	*len = n;
	return 0;
}

/* One try of sl_ctl_request: connect to path by deadline, send text, read
 * the reply within w->reply_ms.  The reply (busy ones included) with its
 * connection in *fd, or NULL with errno and the sentence. */
static json_t *request_once(const char *path, const char *text, const struct sl_ctl_wait *w,
			    int64_t deadline, int *fd_out, struct sl_err *err)
{
	int fd = sl_ctl_connect_path(path, deadline, w->cancel);
	if (fd == -ENOENT || fd == -ECONNREFUSED)
		return sl_errf_null(err, -fd, "no engine answers at %s", path);
	if (fd == -ETIMEDOUT)
		return sl_errf_null(err, ETIMEDOUT, "the engine at %s did not take the connection "
				    "within %.1f s (its control thread does not accept; %s sets "
				    "the limit)", path, w->connect_ms / 1000.0, SL_CTL_TIMEOUT_ENV);
	if (fd == -ECANCELED)
		return sl_errf_null(err, ECANCELED, "interrupted while connecting to the engine "
				    "at %s", path);
	if (fd < 0)
		return sl_errf_null(err, -fd, "cannot connect to %s: %s", path, strerror(-fd));
	size_t len = strlen(text);
	ssize_t sent = send(fd, text, len, MSG_NOSIGNAL);
	int send_errno = sent < 0 ? errno : EIO;
	/* A busy engine may have answered and closed already: read its
	 * answer even when the send failed. */
	int64_t reply_deadline = sl_ctl_now_ms() + (sent == (ssize_t)len ? w->reply_ms : 0);
	char *buf = NULL;
	size_t n = 0;
	int rc = read_reply(fd, reply_deadline, w->cancel, &buf, &n);
	if (rc < 0) {
		close(fd);
		if (rc == -ECANCELED)
			return sl_errf_null(err, ECANCELED, "interrupted while waiting for the "
					    "engine at %s to answer", path);
		if (sent != (ssize_t)len)
			return sl_errf_null(err, send_errno, "cannot send to %s: %s", path,
					    strerror(send_errno));
		if (rc == -ETIMEDOUT)
			return sl_errf_null(err, ETIMEDOUT, "the engine at %s did not answer within "
					    "%.1f s (%s sets the limit)", path, w->reply_ms / 1000.0,
					    SL_CTL_TIMEOUT_ENV);
		if (rc == -EMSGSIZE)
			return sl_errf_null(err, EMSGSIZE, "the engine at %s answered more than %u "
					    "MiB", path, SL_CTL_REPLY_MAX >> 20);
		if (rc == -ENOMEM)
			return sl_errf_null(err, ENOMEM, "out of memory");
		return sl_errf_null(err, -rc, "the engine at %s closed the connection without an "
				    "answer", path);
	}
	json_error_t je;
	json_t *ans = json_loadb(buf, n, 0, &je);
	free(buf);
	if (ans == NULL) {
		close(fd);
		return sl_errf_null(err, EPROTO, "the engine at %s answered something that is not "
				    "JSON (%s)", path, je.text);
	}
	*fd_out = fd;
	return ans;
}

/* The longest pause between tries of a busy engine (docs/control.md). */
#define BUSY_PAUSE_MAX_MS 250

json_t *sl_ctl_request(const char *dir, const char *text, const struct sl_ctl_wait *w,
		       int *fd_out, struct sl_err *err)
{
	struct sockaddr_un sa;
	if (socket_path(dir, &sa, err) < 0) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	const char *path = sa.sun_path;
	int64_t start = sl_ctl_now_ms(), deadline = start + w->connect_ms;
	int pause_ms = 10;
	for (unsigned tries = 1;; tries++) {
		int fd = -1;
		json_t *ans = request_once(path, text, w, deadline, &fd, err);
		if (ans == NULL)
			return NULL;
		if (!json_is_true(json_object_get(ans, "busy"))) {
			if (fd_out != NULL)
				*fd_out = fd;
			else
				close(fd);
			return ans;
		}
		/* Busy: try again after a pause that grows, while the time to
		 * connect lasts. */
		close(fd);
		json_decref(ans);
		if (sl_ctl_now_ms() + pause_ms >= deadline)
			return sl_errf_null(err, EBUSY, "the engine at %s is busy: all %d of its "
					    "control connections stayed in use for %.1f s (%u tries "
					    "within the %.1f s limit; %s sets it)", path,
					    SL_CTL_CLIENTS,
					    (double)(sl_ctl_now_ms() - start) / 1000.0, tries,
					    w->connect_ms / 1000.0, SL_CTL_TIMEOUT_ENV);
		if (tries == 1 && w->on_busy != NULL) {
			char m[sizeof(err->msg)];
			snprintf(m, sizeof(m), "the engine at %s is busy (all %d control "
				 "connections in use); trying again for up to %.1f s", path,
				 SL_CTL_CLIENTS, w->connect_ms / 1000.0);
			w->on_busy(m);
		}
		if (pause_until(pause_ms, deadline, w->cancel) < 0)
			return sl_errf_null(err, ECANCELED, "interrupted while waiting for the busy "
					    "engine at %s", path);
		pause_ms = pause_ms * 2 < BUSY_PAUSE_MAX_MS ? pause_ms * 2 : BUSY_PAUSE_MAX_MS;
	}
}

json_t *sl_ctl_call(const char *dir, json_t *req, const struct sl_ctl_wait *w,
		    struct sl_err *err)
{
	char *text = json_dumps(req, JSON_COMPACT);
	if (text == NULL)
		return sl_errf_null(err, ENOMEM, "out of memory");
	json_t *ans = sl_ctl_request(dir, text, w, NULL, err);
	int e = errno;
	free(text);
	errno = e;
	return ans;
}
