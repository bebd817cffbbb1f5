/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Telling a service manager where a run is: the sd_notify protocol
 * (libsystemd), spoken when systemd starts Sluice as a Type=notify service
 * (engine/cli/sluice@.service.in, docs/operations.md).
 *
 *   READY=1     every app has started and the workers run
 *   WATCHDOG=1  the control thread is alive (when the unit sets WatchdogSec)
 *   STOPPING=1  the stop has begun (a signal, or the end of --duration)
 *   STATUS=...  one line that `systemctl status` shows
 *
 * Guarantees: without NOTIFY_SOCKET in the environment every function is a
 * no-op that costs a load and a branch (the environment is read once, at the
 * first call); a run behaves exactly as it does from a terminal.  Sending
 * never fails a run: a message the manager cannot take is lost, as
 * sd_notify(3) loses it.
 *
 * Limits: control thread only (the state below is not shared); a send is one
 * datagram on a local socket, which does not wait unless the manager's queue
 * is full.  The watchdog pings come from the control thread's loop, so a
 * control thread that stops looping (not a busy worker) is what the watchdog
 * catches; work that may take long is kept off that loop (a capture's
 * filter compiles on a thread of its own: capture.h).
 */
#ifndef SL_NOTIFY_H
#define SL_NOTIFY_H

/* READY=1 with STATUS=status (NULL: no status).  Control thread. */
void sl_notify_ready(const char *status);

/* STOPPING=1.  Control thread. */
void sl_notify_stopping(void);

/* STATUS= a printf-formatted line (at most 255 bytes are sent).  Control
 * thread. */
void sl_notify_status(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* WATCHDOG=1 if the manager asked for pings (WATCHDOG_USEC, and WATCHDOG_PID
 * naming this process when it is set: sd_watchdog_enabled(3)) and at least
 * half its interval has passed since the last ping; else nothing.  now_s: a
 * monotonic time in seconds, of any origin but the same for every call.  The
 * first call pings.  Call it often (every loop of the control thread).
 * Control thread. */
void sl_notify_watchdog_tick(double now_s);

#endif
