/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The control socket: one per running engine, a UNIX SOCK_SEQPACKET socket
 * named SL_CTL_SOCKET in DPDK's runtime directory of the engine's file
 * prefix (next to dpdk_telemetry.v2), mode 0600.  docs/control.md is the
 * protocol: every message is one JSON object of at most SL_CTL_MSG_MAX
 * bytes; a request names its verb ({"verb": "reload", ...}) and gets exactly
 * one reply, {"ok": true, ...} or {"ok": false, "error": SENTENCE,
 * "status": 1|2} (2: the request or the configuration it names is wrong; 1:
 * the engine could not do it).
 *
 * A reply of any length goes out as consecutive messages of exactly
 * SL_CTL_MSG_MAX bytes and a last one shorter than that (a reply whose
 * length is a multiple of SL_CTL_MSG_MAX ends with a newline, JSON
 * whitespace, to make it so): a message of SL_CTL_MSG_MAX bytes means
 * "more follows".  A reply under SL_CTL_MSG_MAX bytes is one message.
 *
 * The server runs on the engine's control thread: sl_ctl_poll() waits at
 * most timeout_ms for something to do, accepts, reads whole messages and
 * answers them through the handler, never blocking on a client: a client
 * that connects and sends nothing, or does not take its reply, is closed
 * after SL_CTL_IDLE_MS without progress; the rest of a reply that the
 * socket cannot take at once is sent as the client reads it (the client's
 * next request is read after that); a message that is not a JSON object
 * with a string verb, or is longer than SL_CTL_MSG_MAX, gets an error reply.
 * At most SL_CTL_CLIENTS at once; one more is answered with the busy reply
 * {"ok": false, "busy": true, "status": 1, "error": SENTENCE} and closed.
 *
 * The client side (sl_ctl_request, sl_ctl_call) never waits without a
 * limit: connecting (a full listen queue is tried again), each busy reply
 * (tried again with a pause that grows to 250 ms) and the reply each have
 * one, and the environment variable SLUICE_TIMEOUT (seconds) replaces the
 * command's defaults (sl_ctl_client_wait).
 *
 * Threads: everything on one thread (the engine's control thread, or a
 * client's).  Errors follow engine/base/err.h.
 */
#ifndef SL_CONTROL_H
#define SL_CONTROL_H

#include <stdbool.h>
#include <stddef.h>
#include <signal.h>
#include <stdint.h>

#include <jansson.h>

#include "base/err.h"

#define SL_CTL_SOCKET "sluice_control"
#define SL_CTL_MSG_MAX 65536
#define SL_CTL_IDLE_MS 2000
#define SL_CTL_CLIENTS 8
#define SL_CTL_REPLY_MAX (64u << 20)   /* the longest reply a client takes */
#define SL_CTL_TIMEOUT_ENV "SLUICE_TIMEOUT"

struct sl_ctl;

/* Answers one request (a JSON object whose "verb" is a string): returns
 * the reply, which the server sends and then releases.  NULL means out of
 * memory (the server replies so). */
typedef json_t *sl_ctl_handler(void *arg, const char *verb, json_t *req);

/* Listen at DIR/SL_CTL_SOCKET (a stale socket there is replaced; DIR must
 * exist).  Returns the server, or NULL with errno and a sentence. */
struct sl_ctl *sl_ctl_open(const char *dir, sl_ctl_handler *handler, void *arg,
			   struct sl_err *err);

/* Serve for at most timeout_ms (0: what is ready now). */
void sl_ctl_poll(struct sl_ctl *c, int timeout_ms);

/* Close every client and the socket, and unlink it.  NULL: no-op. */
void sl_ctl_close(struct sl_ctl *c);

const char *sl_ctl_path(const struct sl_ctl *c);

/* Parse one message: a JSON object whose "verb" is a string.  Returns the
 * object (the caller's; *verb points into it), or NULL with a sentence. */
json_t *sl_ctl_parse(const char *buf, size_t len, const char **verb, struct sl_err *err);

/* An error reply {"ok": false, "error": msg, "status": status}.  A msg that
 * is not UTF-8 (it may quote a client's bytes or a path) goes out with each
 * byte above 0x7f as '?'.  NULL only when out of memory. */
json_t *sl_ctl_error(int status, const char *msg);

/* The client side: the exit status an error reply asks for (2 when its
 * status is 2, else 1). */
int sl_ctl_error_status(const json_t *reply);

/* For the handler, during a request: take the requesting client's
 * connection over.  Returns its fd (the caller's to answer on and close;
 * the server neither replies to that request nor reads the connection
 * again, and ignores the handler's return value), or -1 outside a request. */
int sl_ctl_detach(struct sl_ctl *c);

/* How long a client waits for an engine, in ms: to connect (busy replies
 * and a full listen queue tried again within it), then for the reply. */
struct sl_ctl_wait {
	int connect_ms;             /* 0: not set yet (sl_ctl_wait_default) */
	int reply_ms;
	/* Called once, at the first busy reply, with a sentence that says so
	 * (a command line prints it); NULL: nothing. */
	void (*on_busy)(const char *sentence);
	/* Non-NULL: a wait that begins with *cancel non-zero, or that a
	 * signal interrupts and finds it so (a handler installed without
	 * SA_RESTART sets it), ends at once with ECANCELED.  A signal between
	 * the check and the wait's start is seen at the next one (a second
	 * Ctrl-C).  NULL: signals do not end a wait. */
	volatile sig_atomic_t *cancel;
};

/* The one reading of $SLUICE_TIMEOUT (seconds, > 0, at most a day), made
 * once by a client command before it starts: *w with both waits set to it,
 * or to 0 (each left to the command's default) when it is not set.  0, or
 * -EINVAL with the sentence naming the variable and its value. */
int sl_ctl_client_wait(struct sl_ctl_wait *w, struct sl_err *err);

/* A command's defaults for the waits that $SLUICE_TIMEOUT did not set. */
void sl_ctl_wait_default(struct sl_ctl_wait *w, int connect_ms, int reply_ms);

/* Send j (not released) on fd, framed as a reply (messages of
 * SL_CTL_MSG_MAX bytes, the last shorter), without waiting: 0, or -errno
 * (EAGAIN: the socket could not take it all now; ENOMEM). */
int sl_ctl_send_reply(int fd, const json_t *j);

/* The client side: connect a SOCK_SEQPACKET socket to the UNIX socket path,
 * trying again while the listener's queue is full, until deadline_ms
 * (CLOCK_MONOTONIC, ms).  Returns the fd (blocking), or -errno: ENOENT or
 * ECONNREFUSED (nobody listens), EACCES, ETIMEDOUT, ECANCELED (a signal
 * while *cancel is set; cancel may be NULL), ... (no sentence: the caller
 * names the engine). */
int sl_ctl_connect_path(const char *path, int64_t deadline_ms,
			volatile sig_atomic_t *cancel);

/* CLOCK_MONOTONIC in ms (for deadlines). */
int64_t sl_ctl_now_ms(void);

/* The client side: send the request text to DIR/SL_CTL_SOCKET and return
 * its reply, read whole (see the framing above), as JSON (the caller's),
 * trying again after a busy reply while w->connect_ms lasts.  With fd NULL
 * the connection is closed; else it is left open in *fd (the caller's: a
 * capture goes on on it).  NULL with errno and a sentence naming the socket:
 * ENOENT (no socket), ECONNREFUSED (nobody listens), EACCES, ETIMEDOUT (no
 * connection or no reply in time; the sentence gives the limit and
 * SLUICE_TIMEOUT), EBUSY (every connection stayed in use until
 * w->connect_ms ran out), ECANCELED (a signal, w->cancel), ECONNRESET (closed without an answer), EPROTO (not JSON),
 * EMSGSIZE (a reply over SL_CTL_REPLY_MAX). */
json_t *sl_ctl_request(const char *dir, const char *text, const struct sl_ctl_wait *w,
		       int *fd, struct sl_err *err);

/* sl_ctl_request for a JSON request, the connection closed after. */
json_t *sl_ctl_call(const char *dir, json_t *req, const struct sl_ctl_wait *w,
		    struct sl_err *err);

#endif
