/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdarg.h>
#include <stdio.h>

#include "base/note.h"

static void vline(FILE *f, const char *prefix, const char *fmt, va_list ap)
{
	fputs(prefix, f);
	vfprintf(f, fmt, ap);
	fputc('\n', f);
	fflush(f);
}

void sl_note(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vline(stdout, "sluice: ", fmt, ap);
	va_end(ap);
}

void sl_warn(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vline(stdout, "sluice: warning: ", fmt, ap);
	va_end(ap);
}

void sl_warn_err(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vline(stderr, "sluice: warning: ", fmt, ap);
	va_end(ap);
}
