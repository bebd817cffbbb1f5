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

#include "control.h"

struct client {
	int fd;                 /* -1: free */
	double since;           /* connected, or last request, s */
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
}

/* Send j (and release it) to cl; a client that cannot take it at once is
 * closed. */
static void reply(struct client *cl, json_t *j)
{
	if (j == NULL)
		j = sl_ctl_error(1, "out of memory");
	char *text = j != NULL ? json_dumps(j, JSON_COMPACT) : NULL;
	json_decref(j);
	if (text == NULL) {
		drop(cl);
		return;
	}
	size_t len = strlen(text);
	ssize_t n = send(cl->fd, text, len, MSG_DONTWAIT | MSG_NOSIGNAL);
	free(text);
	if (n < 0 || (size_t)n != len)
		drop(cl);
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
			p[n] = (struct pollfd){ .fd = c->clients[i].fd, .events = POLLIN };
			map[n++] = i;
		}
	int r = poll(p, n, timeout_ms);
	double now = mono_s();
	if (r > 0) {
		for (unsigned k = 1; k < n; k++)
			if (p[k].revents != 0)
				serve(c, &c->clients[map[k]]);
		if (p[0].revents & POLLIN) {
			int fd;
			while ((fd = accept4(c->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0) {
				unsigned i = 0;
				while (i < SL_CTL_CLIENTS && c->clients[i].fd >= 0)
					i++;
				if (i == SL_CTL_CLIENTS) {
					close(fd);   /* too many at once */
					continue;
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

int sl_ctl_connect(const char *dir, struct sl_err *err)
{
	struct sockaddr_un sa;
	if (socket_path(dir, &sa, err) < 0)
		return -ENAMETOOLONG;
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return sl_errf(err, errno, "cannot create a socket: %s", strerror(errno));
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		int e = errno;
		close(fd);
		if (e == ENOENT || e == ECONNREFUSED)
			return sl_errf(err, e, "no engine answers at %s", sa.sun_path);
		return sl_errf(err, e, "cannot connect to %s: %s", sa.sun_path, strerror(e));
	}
	return fd;
}

json_t *sl_ctl_call(const char *dir, json_t *req, int timeout_ms, struct sl_err *err)
{
	struct sockaddr_un sa;
	if (socket_path(dir, &sa, err) < 0) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	char *text = json_dumps(req, JSON_COMPACT);
	if (text == NULL)
		return sl_errf_null(err, ENOMEM, "out of memory");
	json_t *ans = NULL;
	int fail = 0, fd = -1;
	char *buf = malloc(SL_CTL_MSG_MAX + 1);
	if (buf == NULL) {
		fail = -sl_errf(err, ENOMEM, "out of memory");
		goto out;
	}
	fd = sl_ctl_connect(dir, err);
	if (fd < 0) {
		fail = -fd;
		goto out;
	}
	size_t len = strlen(text);
	if (send(fd, text, len, MSG_NOSIGNAL) != (ssize_t)len) {
		fail = -sl_errf(err, errno, "cannot send to %s: %s", sa.sun_path, strerror(errno));
		goto out;
	}
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int r;
	do
		r = poll(&p, 1, timeout_ms);
	while (r < 0 && errno == EINTR);
	if (r == 0) {
		fail = -sl_errf(err, ETIMEDOUT, "the engine at %s did not answer within %.1f s", sa.sun_path,
			timeout_ms / 1000.0);
		goto out;
	}
	ssize_t n = recv(fd, buf, SL_CTL_MSG_MAX, 0);
	if (n <= 0) {
		fail = -sl_errf(err, n < 0 ? errno : ECONNRESET, "the engine at %s closed the connection "
			"without an answer", sa.sun_path);
		goto out;
	}
	json_error_t je;
	ans = json_loadb(buf, (size_t)n, 0, &je);
	if (ans == NULL)
		fail = -sl_errf(err, EPROTO, "the engine at %s answered something that is not JSON (%s)",
			sa.sun_path, je.text);
out:
	if (fd >= 0)
		close(fd);
	free(buf);
	free(text);
	if (ans == NULL)
		errno = fail != 0 ? fail : EPROTO;
	return ans;
}
