/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <systemd/sd-daemon.h>

#include "ops/notify.h"
#include "ops/report.h"
#include "base/note.h"

static struct {
	bool read;       /* the environment has been read */
	bool on;         /* NOTIFY_SOCKET is set */
	bool warned;     /* a failed send has been reported */
	bool pinged;     /* last_s holds the last ping */
	double half_s;   /* half the watchdog interval; 0: no pings */
	double last_s;
} st;

static bool enabled(void)
{
	if (!st.read) {
		st.read = true;
		const char *sock = getenv("NOTIFY_SOCKET");
		st.on = sock != NULL && sock[0] != '\0';
		uint64_t usec = 0;
		if (st.on && sd_watchdog_enabled(0, &usec) > 0 && usec > 0)
			st.half_s = (double)usec / 2e6;
	}
	return st.on;
}

/* One message; a failure is reported once and otherwise ignored. */
static void tell(const char *msg)
{
	int rc = sd_notify(0, msg);
	if (rc < 0 && !st.warned) {
		st.warned = true;
		sl_warn("cannot notify the service manager (NOTIFY_SOCKET=%s): %s; the "
			       "run goes on", getenv("NOTIFY_SOCKET"), strerror(-rc));
	}
}

void sl_notify_ready(const char *status)
{
	if (!enabled())
		return;
	char msg[320];
	snprintf(msg, sizeof(msg), "READY=1%s%.255s", status != NULL ? "\nSTATUS=" : "",
		 status != NULL ? status : "");
	tell(msg);
}

void sl_notify_stopping(void)
{
	if (enabled())
		tell("STOPPING=1");
}

void sl_notify_status(const char *fmt, ...)
{
	if (!enabled())
		return;
	char msg[8 + 256] = "STATUS=";
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg + 7, sizeof(msg) - 7, fmt, ap);
	va_end(ap);
	tell(msg);
}

void sl_notify_watchdog_tick(double now_s)
{
	if (!enabled() || st.half_s <= 0)
		return;
	if (st.pinged && now_s - st.last_s < st.half_s)
		return;
	st.pinged = true;
	st.last_s = now_s;
	tell("WATCHDOG=1");
}
