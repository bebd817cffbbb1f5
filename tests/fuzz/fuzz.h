/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the fuzz targets share: the libFuzzer entry points, an in-memory file
 * for parsers that only take a path, and the targets' one assertion.
 *
 * A target finds a defect in two ways: a sanitizer report (AddressSanitizer,
 * UBSan, a leak) or fuzz_require() failing on a promise a header makes (a
 * rejected input has a message, an accepted one obeys the documented
 * bounds).  Both abort, so libFuzzer saves the input and replay.c fails.
 */
#ifndef SL_FUZZ_H
#define SL_FUZZ_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* Print "fuzz: broken promise: MESSAGE" and abort unless ok. */
static inline __attribute__((format(printf, 2, 3)))
void fuzz_require(bool ok, const char *fmt, ...)
{
	va_list ap;
	if (ok)
		return;
	fputs("fuzz: broken promise: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

/* Is msg a non-empty, NUL-terminated sentence within its buffer? */
static inline bool fuzz_has_message(const char *msg, size_t cap)
{
	return msg[0] != '\0' && memchr(msg, '\0', cap) != NULL;
}

/* Make data[0..size) the whole content of one memory file and return a path
 * that opens it from the start ("/proc/self/fd/N").  The file is created on
 * the first call and reused. */
static inline const char *fuzz_file(const uint8_t *data, size_t size)
{
	static int fd = -1;
	static char path[64];
	if (fd < 0) {
		fd = memfd_create("sluice-fuzz", 0);
		fuzz_require(fd >= 0, "memfd_create failed");
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	}
	fuzz_require(ftruncate(fd, 0) == 0, "ftruncate of the memory file failed");
	size_t done = 0;
	while (done < size) {
		ssize_t n = pwrite(fd, data + done, size - done, (off_t)done);
		fuzz_require(n > 0, "write to the memory file failed");
		done += (size_t)n;
	}
	return path;
}

#endif
