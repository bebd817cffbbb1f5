/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The engine's signals and the step setup and clean-up are in (signals.h).
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "run/signals.h"

static volatile sig_atomic_t signalled;     /* the first signal */
static volatile sig_atomic_t n_signals;
static volatile sig_atomic_t phase;
static volatile sig_atomic_t grace_s;       /* stop_timeout, whole seconds */
static char step_buf[2][192];               /* the step setup or clean-up is in */
static const char *volatile step = "";

const char *sl_sig_name(int sig)
{
	return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "a signal";
}

static void say(int fd, const char *a, const char *b, const char *c, const char *d)
{
	const char *parts[] = { a, b, c, d };
	for (unsigned i = 0; i < 4; i++) {
		size_t n = 0;
		while (parts[i][n] != '\0')
			n++;
		for (size_t off = 0; off < n;) {
			ssize_t k = write(fd, parts[i] + off, n - off);
			if (k <= 0)
				break;
			off += (size_t)k;
		}
	}
}

static void abandon(const char *why)
{
	say(STDERR_FILENO, "sluice: error: ", why, (const char *)step,
	    "; exiting now, without the rest of the clean-up\n");
	_exit(SL_EXIT_RUNTIME);
}

static void on_signal(int sig)
{
	if (signalled == 0)
		signalled = sig;
	n_signals++;
	if (phase != SL_PHASE_SETUP && phase != SL_PHASE_CLEANUP)
		return;
	if (n_signals > 1) {
		abandon(phase == SL_PHASE_SETUP ? "a second signal during setup, while "
					     : "a second signal during clean-up, while ");
		return;
	}
	say(STDOUT_FILENO, "sluice: ", sl_sig_name(sig),
	    phase == SL_PHASE_SETUP ? " received during setup, while " : " received during clean-up, while ",
	    (const char *)step);
	say(STDOUT_FILENO, phase == SL_PHASE_SETUP ? "; stopping after this step"
						 : "; the clean-up goes on within the stop timeout",
	    " (a second signal ends the process now)\n", "", "");
	if (grace_s > 0)
		alarm((unsigned)grace_s);      /* --stop-timeout 0: no limit */
}

static volatile sig_atomic_t hup;   /* SIGHUP: reload the config file */

static void on_hup(int sig)
{
	(void)sig;
	hup = 1;
}

static void on_alarm(int sig)
{
	(void)sig;
	if (phase == SL_PHASE_SETUP)
		abandon("setup did not stop within the stop timeout (engine.stop_timeout, --stop-timeout) after the "
			"signal; it is still ");
	else if (phase == SL_PHASE_CLEANUP)
		abandon("clean-up did not end within the stop timeout (engine.stop_timeout, --stop-timeout) after the "
			"signal; it is still ");
}

/* Say what setup or clean-up does next, for a signal that comes during it;
 * returns -EINTR with a sentence if a signal came already. */
int sl_step_to(struct sl_err *err, const char *fmt, ...)
{
	if (signalled != 0 && phase == SL_PHASE_SETUP) {
		alarm(0);
		return sl_errf(err, EINTR, "%s received during setup, while %s: stopped before "
			       "running", sl_sig_name(signalled), (const char *)step);
	}
	char *buf = step_buf[step == step_buf[0] ? 1 : 0];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(step_buf[0]), fmt, ap);
	va_end(ap);
	step = buf;
	return 0;
}

/* Clean-up begins.  After a signal it is bounded like the wait for the
 * workers: the stop timeout, counted from here, or a second signal. */
void sl_sig_enter_cleanup(void)
{
	phase = SL_PHASE_CLEANUP;
	if (signalled != 0 && grace_s > 0)
		alarm((unsigned)grace_s);
}

int sl_sig_install(double stop_timeout, struct sl_err *err)
{
	struct sigaction sa = { .sa_handler = on_signal };
	sigemptyset(&sa.sa_mask);
	struct sigaction al = { .sa_handler = on_alarm };
	sigemptyset(&al.sa_mask);
	grace_s = stop_timeout <= 0 ? 0 : stop_timeout >= 1e6 ? 1000000
		  : (int)stop_timeout + (stop_timeout > (int)stop_timeout);
	struct sigaction hu = { .sa_handler = on_hup, .sa_flags = SA_RESTART };
	sigemptyset(&hu.sa_mask);
	if (sigaction(SIGINT, &sa, NULL) < 0 || sigaction(SIGTERM, &sa, NULL) < 0 ||
	    sigaction(SIGALRM, &al, NULL) < 0 || sigaction(SIGHUP, &hu, NULL) < 0)
		return sl_errf(err, errno, "cannot install the signal handlers: %s",
			       strerror(errno));
	return 0;
}


/* The signals the control thread alone takes (see "signals" above). */
void sl_sig_set(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGHUP);
	sigaddset(set, SIGALRM);
}

void sl_sig_phase(enum sl_phase p)
{
	phase = p;
}

int sl_sig_first(void)
{
	return signalled;
}

int sl_sig_count(void)
{
	return n_signals;
}

bool sl_sig_take_hup(void)
{
	if (!hup)
		return false;
	hup = 0;
	return true;
}

const char *sl_sig_step(void)
{
	return (const char *)step;
}
