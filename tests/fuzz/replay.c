/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * main() for a fuzz target without libFuzzer: every argument is a file or a
 * directory whose files (not recursive, dotfiles skipped, in name order) are
 * each passed once to LLVMFuzzerTestOneInput.  A missing directory counts as
 * empty (a target may have no regressions yet).  A broken promise or a
 * sanitizer report aborts, so the exit status says whether every input held.
 */
#include <dirent.h>
#include <errno.h>
#include <sys/stat.h>

#include "fuzz.h"

__attribute__((weak)) int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	return 0;
}

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0;

	if (f == NULL) {
		fprintf(stderr, "replay: cannot read %s: %s\n", path, strerror(errno));
		return -1;
	}
	for (;;) {
		if (len == cap) {
			cap = cap ? cap * 2 : 4096;
			uint8_t *bigger = realloc(buf, cap);
			fuzz_require(bigger != NULL, "out of memory reading %s", path);
			buf = bigger;
		}
		size_t got = fread(buf + len, 1, cap - len, f);
		if (got == 0)
			break;
		len += got;
	}
	fclose(f);
	/* An exact-size copy, so that a read past the input is caught. */
	uint8_t *exact = malloc(len ? len : 1);
	fuzz_require(exact != NULL, "out of memory reading %s", path);
	memcpy(exact, buf, len);
	free(buf);
	LLVMFuzzerTestOneInput(exact, len);
	free(exact);
	return 0;
}

static int only_files(const struct dirent *d)
{
	return d->d_name[0] != '.';
}

int main(int argc, char **argv)
{
	unsigned total = 0;
	int bad = 0;

	LLVMFuzzerInitialize(&argc, &argv);
	for (int i = 1; i < argc; i++) {
		struct stat st;
		if (stat(argv[i], &st) != 0) {
			printf("replay: %s: absent, nothing to replay\n", argv[i]);
			continue;
		}
		if (!S_ISDIR(st.st_mode)) {
			bad |= run_file(argv[i]) < 0;
			total++;
			continue;
		}
		struct dirent **names;
		int n = scandir(argv[i], &names, only_files, alphasort);
		if (n < 0) {
			fprintf(stderr, "replay: cannot list %s: %s\n", argv[i], strerror(errno));
			bad = 1;
			continue;
		}
		for (int k = 0; k < n; k++) {
			char path[4096];
			snprintf(path, sizeof(path), "%s/%s", argv[i], names[k]->d_name);
			bad |= run_file(path) < 0;
			free(names[k]);
		}
		free(names);
		printf("replay: %s: %d inputs\n", argv[i], n);
		total += (unsigned)n;
	}
	printf("replay: %u inputs, %s\n", total, bad ? "some unreadable" : "all held");
	return bad ? 1 : 0;
}
