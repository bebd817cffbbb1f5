/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The unit tests' one assertion: CHECK(cond, fmt, ...) counts the check and,
 * when cond is false, prints "FAIL file:line: message" and counts a failure.
 * A test ends with `return failures ? 1 : 0;` (77 means skipped).  CHECK may
 * be used from several threads at once (the counters are atomic).
 *
 * The runner: a test program lists its cases in a table and its main is
 *
 *	static const struct sl_test_case cases[] = { SL_CASE(test_a), ... };
 *	int main(int argc, char **argv) { return sl_test_main(argc, argv, cases, SL_NCASES(cases)); }
 *
 * Run without arguments, it runs every case in order and prints one line per
 * case ("ok NAME (N checks)" or "FAIL NAME (F of N checks failed)") and a
 * total.  With arguments, it runs only the cases named (in the order given);
 * --list prints the names.  An unknown name is a usage error (status 2).
 * sl_test_main_fixture also takes a set-up, run once before the first case
 * (after the names are checked; it returns 0, or the status to exit with:
 * 77 for "cannot run here", 1 for a failure) and a tear-down, run after the
 * last (either may be NULL).
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

#include <stdlib.h>
#include <string.h>

struct sl_test_case {
	const char *name;
	void (*fn)(void);
};

#define SL_CASE(fn) { #fn, fn }
#define SL_NCASES(a) (sizeof(a) / sizeof((a)[0]))

static inline void sl_test_run_one(const struct sl_test_case *c)
{
	int f0 = __atomic_load_n(&failures, __ATOMIC_RELAXED);
	int c0 = __atomic_load_n(&checks, __ATOMIC_RELAXED);
	c->fn();
	int f = __atomic_load_n(&failures, __ATOMIC_RELAXED) - f0;
	int n = __atomic_load_n(&checks, __ATOMIC_RELAXED) - c0;
	if (f)
		printf("FAIL %s (%d of %d checks failed)\n", c->name, f, n);
	else
		printf("ok %s (%d checks)\n", c->name, n);
	fflush(stdout);
}

static inline int sl_test_main_fixture(int argc, char **argv,
				       const struct sl_test_case *cases, size_t n,
				       int (*setup)(void), void (*teardown)(void))
{
	if (argc > 1 && strcmp(argv[1], "--list") == 0) {
		for (size_t i = 0; i < n; i++)
			printf("%s\n", cases[i].name);
		return 0;
	}
	for (int a = 1; a < argc; a++) {
		size_t i = 0;
		while (i < n && strcmp(cases[i].name, argv[a]) != 0)
			i++;
		if (i == n) {
			fprintf(stderr, "%s: no case '%s' (--list names them)\n", argv[0], argv[a]);
			return 2;
		}
	}
	if (setup != NULL) {
		int rc = setup();
		if (rc != 0)
			return rc;
	}
	if (argc > 1) {
		for (int a = 1; a < argc; a++)
			for (size_t i = 0; i < n; i++)
				if (strcmp(cases[i].name, argv[a]) == 0)
					sl_test_run_one(&cases[i]);
	} else {
		for (size_t i = 0; i < n; i++)
			sl_test_run_one(&cases[i]);
	}
	if (teardown != NULL)
		teardown();
	printf("%s: %d checks, %d failed\n", failures ? "FAIL" : "ok", checks, failures);
	return failures ? 1 : 0;
}

static inline int sl_test_main(int argc, char **argv, const struct sl_test_case *cases,
			       size_t n)
{
	return sl_test_main_fixture(argc, argv, cases, n, NULL, NULL);
}

#endif
