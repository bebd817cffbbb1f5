/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "base/err.h"

int sl_errf(struct sl_err *err, int errnum, const char *fmt, ...)
{
	if (err != NULL) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
		va_end(ap);
	}
	return -errnum;
}

void *sl_errf_null(struct sl_err *err, int errnum, const char *fmt, ...)
{
	if (err != NULL) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
		va_end(ap);
	}
	errno = errnum;
	return NULL;
}

bool sl_appendf(char *buf, size_t size, size_t *len, const char *fmt, ...)
{
	if (*len >= size)
		*len = size - 1;
	size_t room = size - *len;
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf + *len, room, fmt, ap);
	va_end(ap);
	if (n < 0) {
		buf[*len] = '\0';
		return false;
	}
	if ((size_t)n >= room) {
		*len = size - 1;
		return false;
	}
	*len += (size_t)n;
	return true;
}

int sl_err_prefix(struct sl_err *err, int errnum, const char *fmt, ...)
{
	if (err != NULL) {
		char prefix[256];
		char old[sizeof(err->msg)];
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(prefix, sizeof(prefix), fmt, ap);
		va_end(ap);
		memcpy(old, err->msg, sizeof(old));
		size_t n = strlen(prefix);
		if (n > sizeof(err->msg) - 3)
			n = sizeof(err->msg) - 3;
		memcpy(err->msg, prefix, n);
		memcpy(err->msg + n, ": ", 2);
		size_t room = sizeof(err->msg) - n - 3;
		size_t m = strnlen(old, room);
		memcpy(err->msg + n + 2, old, m);
		err->msg[n + 2 + m] = '\0';
	}
	return -errnum;
}
