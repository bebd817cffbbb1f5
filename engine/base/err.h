/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Sluice's one error convention, kept by the engine, the pool, the interlinks
 * and the apps.  This small library (engine/err, linked by all of them) is
 * the only thing the pool and the interlinks take from the engine's tree.
 *
 *  - Actions (functions that do something and can fail) return 0 on success
 *    or a negative errno value (-EINVAL, -ENOMEM...): never -1, never a
 *    positive errno, never a count or a flag mixed with the errno values.
 *    What an action produces (a count, a length of time, "reached the end")
 *    goes through an out-parameter: a time in seconds in a double or in
 *    nanoseconds in a uint64_t, never in the int it returns, where a long
 *    one would overflow into an error.  Static helpers keep this too.
 *  - Predicates return bool.  Burst functions return a count (unsigned,
 *    never an errno).
 *  - A look-up of an index (a name in a table, a route, a NUMA node) may
 *    return -1 for "not found" only where its header says so in words; it
 *    then cannot fail otherwise.
 *  - Constructors return a pointer, or NULL with errno set to the reason (a
 *    positive errno value, as libc and DPDK's rte_errno do), so that a
 *    caller can act on it (retry on another NUMA node after ENOMEM, ...);
 *    sl_errf_null writes the sentence and sets errno in one call.  A
 *    reason taken from errno or rte_errno after a library call is checked
 *    to be > 0 first (some paths fail without setting it), with a sensible
 *    fallback (ENOMEM, EINVAL), so that a failure never becomes 0.  Look-ups
 *    that return an object return NULL for "not found" and say so.
 *  - Where a person will read the failure, the callee writes one sentence that
 *    names the object ("app 'fc': parameter 'entries' must be ...", "pool
 *    'sluice_mbufs': ...") into the struct sl_err the caller passed; callers
 *    may pass NULL when they want no sentence.  Callers on the way up may
 *    prefix it (sl_err_prefix).  The callee never prints and never exits.
 *  - Only the command line (engine/cli) and the engine's report writer
 *    (engine/ops/report.c) print.  One exception: the engine's signal
 *    handler, which must stay async-signal-safe, writes its one line with
 *    write(2) and ends a stop that cannot finish with _exit (engine.c).
 *
 * Exit statuses of the sluice binary: 0 success, 1 runtime failure, 2 usage or
 * configuration error (SL_EXIT_*).
 */
#ifndef SL_ERR_H
#define SL_ERR_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

enum { SL_EXIT_OK = 0, SL_EXIT_RUNTIME = 1, SL_EXIT_CONFIG = 2 };

struct sl_err {
	char msg[512];
};

/* Write a sentence into err (may be NULL) and return -errnum (errnum > 0).
 * A message already in err is replaced. */
int sl_errf(struct sl_err *err, int errnum, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* For constructors: write a sentence into err (may be NULL) like sl_errf,
 * set errno to errnum (> 0) and return NULL. */
void *sl_errf_null(struct sl_err *err, int errnum, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Prefix the message in err with "prefix: " (for adding file:line:col or an
 * object name on the way up).  Returns -errnum like sl_errf. */
int sl_err_prefix(struct sl_err *err, int errnum, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Append printf-style text to buf[0..size), whose first *len bytes are used:
 * never writes past buf[size - 1], always leaves buf terminated, and keeps
 * *len <= size - 1 (text that does not fit is cut).  Returns true if all of
 * it fitted.  size must be > 0. */
bool sl_appendf(char *buf, size_t size, size_t *len, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#endif
