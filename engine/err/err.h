/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Sluice's one error convention, kept by the engine, the pool, the interlinks
 * and the apps.  This small library (engine/err, linked by all of them) is
 * the only thing the pool and the interlinks take from the engine's tree.
 *
 *  - Actions (functions that do something and can fail) return 0 on success
 *    or a negative errno value (-EINVAL, -ENOMEM...): never -1, never a
 *    positive errno.  A length of time an action measures goes through an
 *    out-parameter (seconds in a double, or nanoseconds in a uint64_t), never
 *    in the int it returns, where a long one would overflow into an error.
 *  - Predicates return bool.  Burst functions return a count.
 *  - Constructors (and look-ups that return an object) return a pointer, or
 *    NULL with errno set to the reason (a positive errno value, as libc and
 *    DPDK's rte_errno do), so that a caller can act on it (retry on another
 *    NUMA node after ENOMEM, ...).
 *  - Where a person will read the failure, the callee writes one sentence that
 *    names the object ("app 'fc': parameter 'entries' must be ...", "pool
 *    'sluice_mbufs': ...") into the struct sl_err the caller passed; callers
 *    may pass NULL when they want no sentence.  Callers on the way up may
 *    prefix it (sl_err_prefix).  The callee never prints and never exits.
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
