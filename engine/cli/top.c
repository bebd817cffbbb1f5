/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sluice top [--prefix P] [--interval S] [--sort cycles|packets|drops]: a
 * full-screen view of a running engine (ncurses), refreshed every interval
 * from its snapshots (telclient.h).  Rates are differences between two
 * consecutive snapshots over the engine's own clock (live.elapsed_ns); the
 * first frame shows averages since the workers' launch.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <curses.h>

#include "base/err.h"
#include "cli/commands.h"
#include "cli/snapview.h"
#include "cli/telclient.h"

/* Below this, one line asks for a bigger terminal. */
enum { MIN_COLS = 80, MIN_LINES = 16, WIDE_COLS = 130 };

enum sort_key { SORT_CONFIG, SORT_CYCLES, SORT_PACKETS, SORT_DROPS };

struct top {
	const char *prefix;
	double interval;        /* seconds */
	enum sort_key sort;
	json_t *prev, *cur;     /* the last two snapshots (prev NULL: none yet) */
	double dt;              /* seconds from prev (or the launch) to cur; 0: unknown */
	char note[512];         /* the bottom line: the engine stopped, ... */
};

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	(void)sig;
	interrupted = 1;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ------------------------------------------------------------- values */

/* (b - a) / dt for the counter at key of two objects: a is the object in
 * the previous snapshot; on the first frame (no previous snapshot) the
 * counter counts from zero, since the launch. */
static bool rate_of(const struct top *t, const json_t *a, const json_t *b, const char *key,
		    double dt, double *out)
{
	static json_t *zero;
	if (zero == NULL)
		zero = json_integer(0);
	if (t->prev != NULL && a == NULL)
		return false;
	const json_t *va = t->prev == NULL ? zero : json_object_get(a, key);
	return sl_snap_rate(va, json_object_get(b, key), dt, out);
}

/* The same object (apps.NAME, ...) in the previous snapshot, or NULL. */
static json_t *prev_of(const struct top *t, const char *section, const char *name)
{
	return t->prev == NULL ? NULL : sl_snap_get(t->prev, section, name, NULL);
}

static void runtime_pair(const struct top *t, const char *name, const json_t *app,
			 struct sl_snap_runtime *a, struct sl_snap_runtime *b)
{
	const json_t *pa = prev_of(t, "apps", name);
	sl_snap_app_runtime(app, b);
	if (t->prev == NULL) {
		memset(a, 0, sizeof(*a));
		a->ok = true;
	} else {
		sl_snap_app_runtime(pa, a);
	}
}

/* "12.3k", "4.56M": a rate that fits in a narrow column. */
static void fmt_si(char *buf, size_t len, bool ok, double v)
{
	if (!ok)
		snprintf(buf, len, "-");
	else if (v >= 1e9)
		snprintf(buf, len, "%.2fG", v / 1e9);
	else if (v >= 1e6)
		snprintf(buf, len, "%.2fM", v / 1e6);
	else if (v >= 1e4)
		snprintf(buf, len, "%.1fk", v / 1e3);
	else
		snprintf(buf, len, "%.0f", v);
}

/* The value apps are sorted by (larger first); -1 when missing. */
static double sort_value(const struct top *t, const char *name, const json_t *app)
{
	struct sl_snap_runtime a, b;
	double v = -1;
	uint64_t moved;
	const json_t *pc = sl_snap_get(prev_of(t, "apps", name), "counters", NULL);
	const json_t *cc = json_object_get(app, "counters");
	switch (t->sort) {
	case SORT_CYCLES:
		runtime_pair(t, name, app, &a, &b);
		if (!sl_snap_cycles_per_packet(&a, &b, &v))
			v = -1;
		break;
	case SORT_PACKETS:
		runtime_pair(t, name, app, &a, &b);
		if (sl_snap_moved(&a, &b, &moved)) {
			v = (double)moved;
		} else {
			double in = 0, out = 0;
			bool ok = rate_of(t, pc, cc, "in_packets", 1, &in);
			ok |= rate_of(t, pc, cc, "out_packets", 1, &out);
			v = ok ? in + out : -1;
		}
		break;
	case SORT_DROPS:
		if (!rate_of(t, pc, cc, "drops", 1, &v))
			v = -1;
		break;
	case SORT_CONFIG:
		break;
	}
	return v;
}

struct app_row {
	const char *name;
	json_t *app;
	double key;
	size_t pos;
};

static int row_cmp(const void *x, const void *y)
{
	const struct app_row *a = x, *b = y;
	if (a->key != b->key)
		return a->key > b->key ? -1 : 1;
	return a->pos < b->pos ? -1 : a->pos > b->pos;
}

/* ------------------------------------------------------------- screen */

/* Print one line at row (cut at the screen's width). */
__attribute__((format(printf, 2, 3)))
static void line(int row, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	mvaddnstr(row, 0, buf, COLS);
}

static void draw_head(const struct top *t, int row)
{
	const json_t *live = json_object_get(t->cur, "live");
	static const char *const sorts[] = { "configuration order", "cycles/packet",
					     "packets", "drops" };
	char pid[32], up[32];
	double el = 0;
	sl_snap_fmt_u64(pid, sizeof(pid), json_object_get(live, "pid"));
	bool ok = sl_snap_num(json_object_get(live, "elapsed_ns"), &el);
	sl_snap_fmt(up, sizeof(up), ok, "%.1f s", el / 1e9);
	attron(A_BOLD);
	line(row, "sluice top: engine '%s' (pid %s, sluice %s) %s for %s; every %.1f s; "
	     "apps by %s",
	     sl_snap_str(json_object_get(live, "prefix"), t->prefix ? t->prefix : "-"), pid,
	     sl_snap_str(json_object_get(live, "version"), "-"),
	     sl_snap_str(json_object_get(live, "state"), "-"), up, t->interval,
	     sorts[t->sort]);
	attroff(A_BOLD);
}

static int draw_workers(const struct top *t, int row, int rows)
{
	const json_t *ws = json_object_get(t->cur, "workers");
	const char *name;
	json_t *w;
	int total = (int)json_object_size(ws), shown = 0;
	attron(A_UNDERLINE);
	line(row++, "  %-16s %5s %7s %11s", "worker", "cpu", "busy %", "breaths/s");
	attroff(A_UNDERLINE);
	json_object_foreach((json_t *)ws, name, w) {
		if (shown == rows - (total > rows)) {
			line(row++, "  ... %d more workers (a taller terminal shows them)",
			     total - shown);
			break;
		}
		struct sl_snap_worker a = { .ok = true }, b;
		const json_t *pw = prev_of(t, "workers", name);
		char cpu[32], busy[32], br[32];
		double v = 0;
		if (t->prev != NULL)
			sl_snap_worker_read(pw, &a);
		sl_snap_worker_read(w, &b);
		sl_snap_fmt_u64(cpu, sizeof(cpu), json_object_get(w, "cpu"));
		bool ok = sl_snap_busy_pct(&a, &b, &v);
		sl_snap_fmt(busy, sizeof(busy), ok, "%.1f", v);
		ok = rate_of(t, pw, w, "breaths", t->dt, &v);
		fmt_si(br, sizeof(br), ok, v);
		line(row++, "  %-16.16s %5s %7s %11s", name, cpu, busy, br);
		shown++;
	}
	return row;
}

static int draw_apps(const struct top *t, int row, int rows)
{
	const json_t *apps = json_object_get(t->cur, "apps");
	size_t n = json_object_size(apps), k = 0;
	bool wide = COLS >= WIDE_COLS;
	int nw = wide ? 16 : 12, tw = wide ? 13 : 10, ww = wide ? 10 : 8;
	struct app_row *r = calloc(n ? n : 1, sizeof(*r));
	const char *name;
	json_t *a;
	if (r == NULL) {
		line(row++, "  (out of memory)");
		return row;
	}
	json_object_foreach((json_t *)apps, name, a) {
		r[k] = (struct app_row){ name, a, sort_value(t, name, a), k };
		k++;
	}
	if (t->sort != SORT_CONFIG)
		qsort(r, n, sizeof(*r), row_cmp);
	attron(A_UNDERLINE);
	line(row++, "  %-*s %-*s %-*s %8s %8s %9s %8s %8s%s", nw, "app", tw, "type", ww, "worker",
	     "Mpps in", "Mpps out", "drops/s", "cyc/pkt", "pkt/call",
	     wide ? "     in_packets    out_packets" : "");
	attroff(A_UNDERLINE);
	for (k = 0; k < n; k++) {
		if ((int)k == rows - ((int)n > rows)) {
			line(row++, "  ... %zu more apps (a taller terminal shows them)", n - k);
			break;
		}
		const json_t *pc = sl_snap_get(prev_of(t, "apps", r[k].name), "counters", NULL);
		const json_t *cc = json_object_get(r[k].app, "counters");
		struct sl_snap_runtime ra, rb;
		char in[32], out[32], dr[32], cpp[32], ppc[32], tin[32], tout[32];
		double v = 0;
		bool ok = rate_of(t, pc, cc, "in_packets", t->dt, &v);
		sl_snap_fmt(in, sizeof(in), ok, "%.3f", v / 1e6);
		ok = rate_of(t, pc, cc, "out_packets", t->dt, &v);
		sl_snap_fmt(out, sizeof(out), ok, "%.3f", v / 1e6);
		ok = rate_of(t, pc, cc, "drops", t->dt, &v);
		fmt_si(dr, sizeof(dr), ok, v);
		runtime_pair(t, r[k].name, r[k].app, &ra, &rb);
		ok = sl_snap_cycles_per_packet(&ra, &rb, &v);
		sl_snap_fmt(cpp, sizeof(cpp), ok, "%.1f", v);
		ok = sl_snap_packets_per_call(&ra, &rb, &v);
		sl_snap_fmt(ppc, sizeof(ppc), ok, "%.2f", v);
		sl_snap_fmt_u64(tin, sizeof(tin), json_object_get(cc, "in_packets"));
		sl_snap_fmt_u64(tout, sizeof(tout), json_object_get(cc, "out_packets"));
		if (wide)
			line(row++, "  %-*.*s %-*.*s %-*.*s %8s %8s %9s %8s %8s %14s %14s", nw, nw,
			     r[k].name, tw, tw, sl_snap_str(json_object_get(r[k].app, "type"), "-"),
			     ww, ww, sl_snap_str(json_object_get(r[k].app, "worker"), "-"), in, out,
			     dr, cpp, ppc, tin, tout);
		else
			line(row++, "  %-*.*s %-*.*s %-*.*s %8s %8s %9s %8s %8s", nw, nw, r[k].name,
			     tw, tw, sl_snap_str(json_object_get(r[k].app, "type"), "-"), ww, ww,
			     sl_snap_str(json_object_get(r[k].app, "worker"), "-"), in, out, dr, cpp,
			     ppc);
	}
	free(r);
	return row;
}

static int draw_links(const struct top *t, int row, int rows)
{
	const json_t *links = json_object_get(t->cur, "links");
	int nw = COLS >= WIDE_COLS ? 44 : 28, total = (int)json_object_size(links), shown = 0;
	const char *name;
	json_t *l;
	attron(A_UNDERLINE);
	line(row++, "  %-*s %-9s %8s %9s %8s %10s", nw, "link", "kind", "Mpps", "drops/s",
	     "occ hwm", "p99 ns");
	attroff(A_UNDERLINE);
	json_object_foreach((json_t *)links, name, l) {
		if (shown == rows - (total > rows)) {
			line(row++, "  ... %d more links (a taller terminal shows them)",
			     total - shown);
			break;
		}
		const json_t *pl = prev_of(t, "links", name);
		char mpps[32], dr[32], hwm[32], p99[32];
		double v = 0;
		bool ok = rate_of(t, pl, l, "packets", t->dt, &v);
		sl_snap_fmt(mpps, sizeof(mpps), ok, "%.3f", v / 1e6);
		ok = rate_of(t, pl, l, "drops", t->dt, &v);
		fmt_si(dr, sizeof(dr), ok, v);
		sl_snap_fmt_u64(hwm, sizeof(hwm), json_object_get(l, "occupancy_hwm"));
		sl_snap_fmt_u64(p99, sizeof(p99), json_object_get(l, "sojourn_p99_ns"));
		line(row++, "  %-*.*s %-9s %8s %9s %8s %10s", nw, nw, name,
		     sl_snap_str(json_object_get(l, "kind"), "-"), mpps, dr, hwm, p99);
		shown++;
	}
	return row;
}

static void draw_pool_epoch(const struct top *t, int row)
{
	const json_t *pool = json_object_get(t->cur, "pool"), *ep = json_object_get(t->cur, "epoch");
	const json_t *pev = sl_snap_get(t->prev, "pool", "events", NULL);
	const json_t *tiers = json_object_get(pool, "tiers");
	char buf[512], num[32];
	size_t len = 0;
	const char *key;
	json_t *v;
	double r = 0;
	sl_appendf(buf, sizeof(buf), &len, "pool (%s):",
		   sl_snap_str(json_object_get(pool, "ops"), "-"));
	if (json_is_object(tiers)) {
		const char *sep = " tiers ";
		json_object_foreach((json_t *)tiers, key, v) {
			sl_snap_fmt_u64(num, sizeof(num), v);
			sl_appendf(buf, sizeof(buf), &len, "%s%s %s", sep, key, num);
			sep = ", ";
		}
		bool ok = rate_of(t, pev,
				  json_object_get(pool, "events"), "rebalances", t->dt, &r);
		sl_snap_fmt(num, sizeof(num), ok, "%.1f", r);
		sl_appendf(buf, sizeof(buf), &len, "; rebalances/s %s;", num);
	}
	sl_snap_fmt_u64(num, sizeof(num), sl_snap_get(t->cur, "mbufs", "back", NULL));
	sl_appendf(buf, sizeof(buf), &len, " %s of ", num);
	sl_snap_fmt_u64(num, sizeof(num), sl_snap_get(t->cur, "mbufs", "total", NULL));
	sl_appendf(buf, sizeof(buf), &len, "%s mbufs in the pool", num);
	line(row++, "%s", buf);

	char backlog[32], hwm[32], p99[32], stall[32];
	double ns = 0;
	sl_snap_fmt_u64(backlog, sizeof(backlog), json_object_get(ep, "backlog"));
	sl_snap_fmt_u64(hwm, sizeof(hwm), json_object_get(ep, "backlog_hwm"));
	bool ok = sl_snap_num(json_object_get(ep, "free_ns_p99"), &ns);
	sl_snap_fmt(p99, sizeof(p99), ok, "%.0f ns", ns);
	ok = sl_snap_num(json_object_get(ep, "stall_ns"), &ns);
	sl_snap_fmt(stall, sizeof(stall), ok, "%.3f ms", ns / 1e6);
	line(row, "epoch (%s): backlog %s, backlog_hwm %s, retire->free p99 %s, slowest "
	     "quiescent state %s ago", sl_snap_str(json_object_get(ep, "policy"), "-"), backlog,
	     hwm, p99, stall);
}

/* Rows for the three tables' bodies: each gets all it needs when that
 * fits, else the largest gives up rows (keeping at least one). */
static void share_rows(int avail, int need[3], int got[3])
{
	for (int i = 0; i < 3; i++)
		got[i] = need[i];
	while (got[0] + got[1] + got[2] > avail) {
		int big = 0;
		for (int i = 1; i < 3; i++)
			if (got[i] > got[big])
				big = i;
		if (got[big] <= 1)
			break;
		got[big]--;
	}
}

static void draw(const struct top *t)
{
	erase();
	if (COLS < MIN_COLS || LINES < MIN_LINES) {
		line(0, "terminal too small (%dx%d): sluice top needs at least %dx%d", COLS, LINES,
		     MIN_COLS, MIN_LINES);
		refresh();
		return;
	}
	int row = 0;
	if (t->cur != NULL) {
		/* title, blank, 3 table heads, 2 blanks, blank, pool, epoch, bottom line */
		int need[3] = { (int)json_object_size(json_object_get(t->cur, "workers")),
				(int)json_object_size(json_object_get(t->cur, "apps")),
				(int)json_object_size(json_object_get(t->cur, "links")) };
		int got[3];
		share_rows(LINES - 11, need, got);
		draw_head(t, row);
		row = draw_workers(t, row + 2, got[0]);
		row = draw_apps(t, row + 1, got[1]);
		row = draw_links(t, row + 1, got[2]);
		draw_pool_epoch(t, row + 1);
	}
	attron(A_REVERSE);
	line(LINES - 1, "%s", t->note[0] ? t->note : "q: quit");
	attroff(A_REVERSE);
	refresh();
}

/* Wait until `until` (monotonic seconds) or a key: false when the key is
 * q (or a signal came).  The screen is drawn again on a resize. */
static bool wait_keys(const struct top *t, double until)
{
	for (;;) {
		if (interrupted)
			return false;
		double left = until - now_s();
		if (left <= 0)
			return true;
		timeout((int)ceil(left * 1000));
		int ch = getch();
		if (ch == 'q' || ch == 'Q')
			return false;
		if (ch == KEY_RESIZE)
			draw(t);
	}
}

/* top's options into t: -1 to go on, or an exit status. */
static int parse_args(const struct sl_command *cmd, struct top *t, int argc, char **argv)
{
	static const char *const sorts[] = { "cycles", "packets", "drops", NULL };
	int sort = -1;
	const struct sl_opt opts[] = {
		{ .name = "--prefix", .type = SL_OPT_STR, .dst = &t->prefix, .nonempty = true },
		{ .name = "--interval", .type = SL_OPT_NUM, .dst = &t->interval, .min = 0.1,
		  .max = 3600, .what = "seconds in 0.1..3600" },
		{ .name = "--sort", .type = SL_OPT_CHOICE, .dst = &sort, .choices = sorts },
	};
	struct sl_args a = { .cmd = cmd, .opts = opts, .n_opts = SL_OPTS_LEN(opts) };
	int rc = sl_opts_parse(&a, argc, argv);
	if (sort >= 0)
		t->sort = sort == 0 ? SORT_CYCLES : sort == 1 ? SORT_PACKETS : SORT_DROPS;
	return rc;
}

/* Seconds between two snapshots by the engine's clock (a NULL a: since the
 * launch), or 0 when it cannot tell. */
static double interval_of(const json_t *a, const json_t *b)
{
	double ea = 0, eb = 0;
	if (a != NULL && !sl_snap_num(sl_snap_get(a, "live", "elapsed_ns", NULL), &ea))
		return 0;
	if (!sl_snap_num(sl_snap_get(b, "live", "elapsed_ns", NULL), &eb) || eb <= ea)
		return 0;
	return (eb - ea) / 1e9;
}

int sl_cmd_top(const struct sl_command *cmd, int argc, char **argv,
	       const struct sl_ctl_wait *w)
{
	struct top t = { .interval = 1.0, .sort = SORT_CONFIG };
	int arc = parse_args(cmd, &t, argc, argv);
	if (arc >= 0)
		return arc;
	struct sl_err err = { "" };
	struct sl_ctl_wait tw = *w;
	tw.cancel = &interrupted;   /* Ctrl-C ends a wait for a slow engine */
	struct sl_telc *c = sl_telc_open(t.prefix, &tw, &err);
	if (c == NULL) {
		fprintf(stderr, "sluice: top: %s\n", err.msg);
		return SL_EXIT_RUNTIME;
	}
	const char *prefix = sl_telc_prefix(c);
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		fprintf(stderr, "sluice: top: needs a terminal (for one snapshot as text or JSON: "
			"sluice stats --prefix %s)\n", prefix);
		sl_telc_close(c);
		return SL_EXIT_RUNTIME;
	}
	/* newterm, not initscr: initscr ends the process when it fails. */
	SCREEN *screen = newterm(NULL, stdout, stdin);
	if (screen == NULL) {
		fprintf(stderr, "sluice: top: cannot drive this terminal (TERM=%s)\n",
			getenv("TERM") ? getenv("TERM") : "");
		sl_telc_close(c);
		return SL_EXIT_RUNTIME;
	}
	struct sigaction sa = { .sa_handler = on_signal };   /* no SA_RESTART: getch returns */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	cbreak();
	noecho();
	keypad(stdscr, TRUE);
	curs_set(0);

	int rc = SL_EXIT_OK;
	bool ran = false, stopped = false;
	double taken = 0;   /* when the snapshot in t.cur was asked for */
	char failure[600] = "";
	while (!interrupted) {
		double start = now_s();
		json_t *s = sl_telc_snapshot(c, &err);
		if (s == NULL) {
			int e = errno;
			if (ran && (e == ECONNRESET || e == ENOENT || e == EAGAIN)) {
				stopped = true;
				snprintf(t.note, sizeof(t.note), "engine '%s' stopped: %s", prefix,
					 err.msg);
				draw(&t);
				break;
			}
			if (!ran && e == EAGAIN) {
				snprintf(t.note, sizeof(t.note), "waiting for engine '%s': %s",
					 prefix, err.msg);
				draw(&t);
				if (!wait_keys(&t, start + t.interval))
					break;
				continue;
			}
			snprintf(failure, sizeof(failure), "%s", err.msg);
			rc = SL_EXIT_RUNTIME;
			break;
		}
		ran = true;
		t.note[0] = '\0';
		json_decref(t.prev);
		t.prev = t.cur;
		t.cur = s;
		t.dt = interval_of(t.prev, t.cur);
		if (t.dt == 0 && t.prev != NULL)   /* no engine clock: ours */
			t.dt = start - taken;
		taken = start;
		draw(&t);
		if (!wait_keys(&t, start + t.interval))
			break;
	}
	if (stopped) {
		/* Leave the news on screen a moment (a key ends it sooner). */
		timeout(2000);
		getch();
	}
	endwin();
	delscreen(screen);
	sl_telc_close(c);
	json_decref(t.prev);
	json_decref(t.cur);
	if (failure[0])
		fprintf(stderr, "sluice: top: %s\n", failure);
	else if (stopped)
		printf("sluice top: %s\n", t.note);
	return rc;
}
