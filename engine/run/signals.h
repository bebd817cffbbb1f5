/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The engine's signals (SIGINT, SIGTERM, SIGHUP, SIGALRM) and the step that
 * setup or clean-up is in, for a message when a signal comes during it.
 *
 * SIGINT and SIGTERM stop a run, and stopping is bounded:
 *  - while the workers run, the handler only records the signal; the control
 *    loop stops the workers and waits for them at most stop_timeout seconds
 *    (engine.c: run_loop, wait_workers), or until a second signal;
 *  - during setup and clean-up (phase SETUP, CLEANUP) the control thread is
 *    busy in one step (creating the pool, an app's init, ...) and looks at
 *    the signal only between steps.  The first signal arms an alarm of
 *    stop_timeout seconds (rounded up to whole seconds); if the step has not
 *    ended by then, or at a second signal, the handler writes which step it
 *    was and ends the process (_exit(1)) without the rest of the clean-up.
 *    A clean-up that follows a run stopped by a signal gets the same alarm
 *    when it begins (sl_sig_enter_cleanup).
 * The handler uses only async-signal-safe calls (write, alarm, _exit).
 *
 * Only the control thread takes these signals (SIGINT, SIGTERM, SIGHUP,
 * SIGALRM): sl_engine_run blocks them before rte_eal_init, so that every
 * thread DPDK starts there (the workers' lcores, telemetry and its client
 * threads, interrupts, multi-process) inherits the mask, and unblocks them
 * on the control thread once the handlers are in place.  A signal therefore
 * never interrupts a system call of a DPDK thread (DPDK 22.11's telemetry
 * thread ends at the first failed accept(), EINTR included).  SIGHUP's
 * handler restarts what it interrupts (SA_RESTART): a reload request must
 * not fail a step of setup; SIGINT's and SIGTERM's do not, so that a step
 * blocked in a system call ends at a stop.
 *
 * Control thread (the handlers: any thread that has them unblocked).
 */
#ifndef SL_RUN_SIGNALS_H
#define SL_RUN_SIGNALS_H

#include <signal.h>
#include <stdbool.h>

#include "base/err.h"

enum sl_phase { SL_PHASE_QUIET, SL_PHASE_SETUP, SL_PHASE_RUN, SL_PHASE_CLEANUP };

/* The signals the control thread alone takes, into *set. */
void sl_sig_set(sigset_t *set);

/* Install the handlers; stop_timeout bounds a setup or clean-up step after
 * a signal (seconds, rounded up; 0: no bound).  0 or -errno with a
 * sentence. */
int sl_sig_install(double stop_timeout, struct sl_err *err);

void sl_sig_phase(enum sl_phase p);

/* Clean-up begins (phase CLEANUP); after a signal it is bounded by the
 * stop timeout, counted from here, or a second signal. */
void sl_sig_enter_cleanup(void);

/* The first signal that came (0: none), and how many came. */
int sl_sig_first(void);
int sl_sig_count(void);

/* Whether a SIGHUP came since the last call (reload the config file). */
bool sl_sig_take_hup(void);

/* "SIGINT", "SIGTERM" or "a signal". */
const char *sl_sig_name(int sig);

/* Say what setup or clean-up does next, for a signal that comes during it;
 * returns -EINTR with a sentence if a signal came already during setup.
 * sl_sig_step() is the step said last. */
int sl_step_to(struct sl_err *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
const char *sl_sig_step(void);

#endif
