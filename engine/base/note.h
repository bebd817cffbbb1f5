/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The engine's lines for people: notes and warnings printed while it runs.
 *
 * Thread: any (each line is one flushed write of stdio; lines from two
 * threads do not interleave within a line).  Used by the run loop, reload,
 * capture, telemetry and sd_notify code; the packet path never prints.
 * Depends on libc only.
 */
#ifndef SL_NOTE_H
#define SL_NOTE_H

/* "sluice: TEXT" on stdout, flushed. */
void sl_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* "sluice: warning: TEXT" on stdout, flushed. */
void sl_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* "sluice: warning: TEXT" on stderr (a failure of the clean-up itself). */
void sl_warn_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
