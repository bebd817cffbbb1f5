/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The unit tests' one assertion: CHECK(cond, fmt, ...) counts the check and,
 * when cond is false, prints "FAIL file:line: message" and counts a failure.
 * A test ends with `return failures ? 1 : 0;` (77 means skipped).
 */
#ifndef SL_TEST_CHECK_H
#define SL_TEST_CHECK_H

#include <stdio.h>

static int failures, checks;

#define CHECK(cond, ...)                                                     \
	do {                                                                 \
		checks++;                                                    \
		if (!(cond)) {                                               \
			printf("FAIL %s:%d: ", __FILE__, __LINE__);          \
			printf(__VA_ARGS__);                                 \
			printf("\n");                                        \
			failures++;                                          \
		}                                                            \
	} while (0)

#endif
