/* SPDX-License-Identifier: BSD-3-Clause */
/* Derived values of a snapshot (snapview.h). */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli/snapview.h"

json_t *sl_snap_get(const json_t *obj, ...)
{
	va_list ap;
	va_start(ap, obj);
	json_t *v = (json_t *)obj;
	for (const char *k = va_arg(ap, const char *); k != NULL && v != NULL;
	     k = va_arg(ap, const char *))
		v = json_is_object(v) ? json_object_get(v, k) : NULL;
	va_end(ap);
	return v;
}

bool sl_snap_u64(const json_t *v, uint64_t *out)
{
	if (json_is_integer(v) && json_integer_value(v) >= 0) {
		*out = (uint64_t)json_integer_value(v);
		return true;
	}
	if (json_is_real(v) && json_real_value(v) >= 0 && json_real_value(v) < 1.8e19) {
		*out = (uint64_t)json_real_value(v);
		return true;
	}
	return false;
}

bool sl_snap_num(const json_t *v, double *out)
{
	if (!json_is_number(v))
		return false;
	*out = json_number_value(v);
	return true;
}

const char *sl_snap_str(const json_t *v, const char *def)
{
	return json_is_string(v) ? json_string_value(v) : def;
}

void sl_snap_app_runtime(const json_t *app, struct sl_snap_runtime *rt)
{
	const json_t *r = sl_snap_get(app, "runtime", NULL);
	memset(rt, 0, sizeof(*rt));
	rt->ok = sl_snap_u64(json_object_get(r, "pull_calls"), &rt->pull_calls) &&
		 sl_snap_u64(json_object_get(r, "pull_packets"), &rt->pull_packets) &&
		 sl_snap_u64(json_object_get(r, "pull_cycles"), &rt->pull_cycles) &&
		 sl_snap_u64(json_object_get(r, "push_calls"), &rt->push_calls) &&
		 sl_snap_u64(json_object_get(r, "push_packets"), &rt->push_packets) &&
		 sl_snap_u64(json_object_get(r, "push_cycles"), &rt->push_cycles);
}

void sl_snap_worker_read(const json_t *worker, struct sl_snap_worker *w)
{
	memset(w, 0, sizeof(*w));
	w->ok = json_is_object(worker) &&
		sl_snap_u64(json_object_get(worker, "breaths"), &w->breaths) &&
		sl_snap_u64(json_object_get(worker, "busy_breaths"), &w->busy_breaths) &&
		sl_snap_u64(json_object_get(worker, "idle_breaths"), &w->idle_breaths) &&
		sl_snap_u64(json_object_get(worker, "busy_cycles"), &w->busy_cycles) &&
		sl_snap_u64(json_object_get(worker, "idle_cycles"), &w->idle_cycles);
}

/* b - a for the sums x1 + x2 of two snapshots; false when it went back. */
static bool delta2(uint64_t a1, uint64_t a2, uint64_t b1, uint64_t b2, uint64_t *out)
{
	if (b1 < a1 || b2 < a2)
		return false;
	*out = (b1 - a1) + (b2 - a2);
	return true;
}

static bool ratio(bool ok, uint64_t num, uint64_t den, double scale, double *out)
{
	if (!ok || den == 0)
		return false;
	*out = scale * (double)num / (double)den;
	return true;
}

bool sl_snap_moved(const struct sl_snap_runtime *a, const struct sl_snap_runtime *b,
		   uint64_t *out)
{
	return a->ok && b->ok &&
	       delta2(a->pull_packets, a->push_packets, b->pull_packets, b->push_packets, out);
}

bool sl_snap_cycles_per_packet(const struct sl_snap_runtime *a, const struct sl_snap_runtime *b,
			       double *out)
{
	uint64_t cycles = 0, packets = 0;
	bool ok = sl_snap_moved(a, b, &packets) &&
		  delta2(a->pull_cycles, a->push_cycles, b->pull_cycles, b->push_cycles, &cycles);
	return ratio(ok, cycles, packets, 1, out);
}

bool sl_snap_packets_per_call(const struct sl_snap_runtime *a, const struct sl_snap_runtime *b,
			      double *out)
{
	uint64_t calls = 0, packets = 0;
	bool ok = sl_snap_moved(a, b, &packets) &&
		  delta2(a->pull_calls, a->push_calls, b->pull_calls, b->push_calls, &calls);
	return ratio(ok, packets, calls, 1, out);
}

bool sl_snap_busy_pct(const struct sl_snap_worker *a, const struct sl_snap_worker *b,
		      double *out)
{
	uint64_t all = 0, busy = 0;
	bool ok = a->ok && b->ok &&
		  delta2(a->busy_cycles, a->idle_cycles, b->busy_cycles, b->idle_cycles, &all) &&
		  delta2(a->busy_cycles, 0, b->busy_cycles, 0, &busy);
	return ratio(ok, busy, all, 100, out);
}

bool sl_snap_rate(const json_t *a, const json_t *b, double dt_s, double *out)
{
	uint64_t x = 0, y = 0;
	if (!sl_snap_u64(a, &x) || !sl_snap_u64(b, &y) || y < x || !(dt_s > 0))
		return false;
	*out = (double)(y - x) / dt_s;
	return true;
}

void sl_snap_fmt(char *buf, size_t len, bool ok, const char *fmt, double v)
{
	if (!ok) {
		snprintf(buf, len, "-");
		return;
	}
	snprintf(buf, len, fmt, v);
}

void sl_snap_fmt_u64(char *buf, size_t len, const json_t *v)
{
	uint64_t x;
	if (sl_snap_u64(v, &x))
		snprintf(buf, len, "%" PRIu64, x);
	else
		snprintf(buf, len, "-");
}
