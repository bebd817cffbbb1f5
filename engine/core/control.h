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
 * The server runs on the engine's control thread: sl_ctl_poll() waits at
 * most timeout_ms for something to do, accepts, reads whole messages and
 * answers them through the handler, never blocking on a client: a client
 * that connects and sends nothing is closed after SL_CTL_IDLE_MS; one whose
 * reply cannot be sent at once is closed; a message that is not a JSON
 * object with a string verb, or is longer than SL_CTL_MSG_MAX, gets an error
 * reply.  At most SL_CTL_CLIENTS at once; more are refused by closing them.
 *
 * Threads: everything on one thread (the engine's control thread, or a
 * client's).  Errors follow engine/err/err.h.
 */
#ifndef SL_CONTROL_H
#define SL_CONTROL_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "err.h"

#define SL_CTL_SOCKET "sluice_control"
#define SL_CTL_MSG_MAX 65536
#define SL_CTL_IDLE_MS 2000
#define SL_CTL_CLIENTS 8

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

/* The client side: a connection to DIR/SL_CTL_SOCKET (for a long
 * conversation: a capture).  Returns the fd, or -errno with a sentence as
 * sl_ctl_call says. */
int sl_ctl_connect(const char *dir, struct sl_err *err);

/* The client side: connect to DIR/SL_CTL_SOCKET, send req, wait at most
 * timeout_ms for the reply.  Returns the reply (the caller's), or NULL with
 * errno (ENOENT: no socket; ECONNREFUSED: nobody listens; EACCES; ETIMEDOUT)
 * and a sentence. */
json_t *sl_ctl_call(const char *dir, json_t *req, int timeout_ms, struct sl_err *err);

#endif
