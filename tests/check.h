/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The unit tests' one assertion: CHECK(cond, fmt, ...) counts the check and,
 * when cond is false, prints "FAIL file:line: message" and counts a failure.
 * A test ends with `return failures ? 1 : 0;` (77 means skipped).  CHECK may
 * be used from several threads at once (the counters are atomic).
 */
#ifndef SL_TEST_CHECK_H
#define SL_TEST_CHECK_H

#include <stdio.h>

static int failures, checks;

#define CHECK(cond, ...)                                                     \
	do {                                                                 \
		__atomic_fetch_add(&checks, 1, __ATOMIC_RELAXED);            \
		if (!(cond)) {                                               \
			printf("FAIL %s:%d: ", __FILE__, __LINE__);          \
			printf(__VA_ARGS__);                                 \
			printf("\n");                                        \
			__atomic_fetch_add(&failures, 1, __ATOMIC_RELAXED);  \
		}                                                            \
	} while (0)

#endif
