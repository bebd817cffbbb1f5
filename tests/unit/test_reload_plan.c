/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A reload's plan (engine/run/plan.h), over a table of config pairs: for
 * each, the apps kept, fresh and restarted, the links built anew and those
 * whose packets move into them, the apps reconfigured in place, the workers
 * the switch holds, or the exact refusal.  No engine and no DPDK: the plan
 * is a function of the two configs and their diff.
 *
 *   build/tests/test_reload_plan              every case
 *   build/tests/test_reload_plan app_moved    one case (--list names them)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "config/diff.h"
#include "config/lookup.h"
#include "run/plan.h"

#include "../check.h"

#define HEAD "dpdk: { args: [--no-huge, -m, \"512\"] }\n" \
	     "pool: { mbufs: 16383 }\n"
#define WORKERS "workers:\n  a: { core: auto }\n  b: { core: auto }\n"
#define SRC "  src: { type: source, worker: a, rate: 1000 }\n"
#define FWD "  fwd: { type: l2fwd, worker: b }\n"
#define OUT "  out: { type: sink, worker: b }\n"
#define LINKS "links:\n  - src.output -> fwd.input\n  - fwd.output -> out.input\n"
/* The running config most cases start from: a on one worker, fwd and out on
 * the other (src -> fwd crosses, through an interlink; fwd -> out does not). */
#define BASE HEAD WORKERS "apps:\n" SRC FWD OUT LINKS
/* With a second chain, src2 -> out2, on worker a. */
#define CHAIN2 HEAD WORKERS "apps:\n" SRC FWD OUT \
	"  src2: { type: source, worker: a }\n  out2: { type: sink, worker: a }\n" \
	LINKS "  - src2.output -> out2.input\n"
/* A worker group of two: src and out replicated on it (src@0 -> out@0, ...),
 * and a chain of its own on worker a. */
#define GROUP_HEAD HEAD "workers:\n  a: { core: auto }\n  g: { count: 2 }\n"
#define SOLO "  solo: { type: source, worker: a }\n  solo_out: { type: sink, worker: a }\n"
#define SOLO_LINK "  - solo.output -> solo_out.input\n"
#define GROUP GROUP_HEAD "apps:\n  src: { type: source, worker: g, rate: 1000 }\n" \
	"  out: { type: sink, worker: g }\n" SOLO \
	"links:\n  - src.output -> out.input\n" SOLO_LINK
#define FIXED "while running: a running engine's workers are fixed (DPDK's lcores are " \
	"set when it starts)"

/* One config pair and what its plan must say.  Names are sorted and
 * separated by one space; kept NULL: no structure step (only live
 * reconfiguration, or nothing); refusal non-NULL: refused so. */
struct row {
	const char *name;
	const char *old, *new;
	const char *kept, *fresh, *restarted;   /* apps of new */
	const char *fresh_links, *rebuilt;      /* links of new built anew; old links
						 * whose packets move into them */
	const char *affected;                   /* workers held */
	const char *reconf;                     /* apps reconfigured in place */
	const char *refusal;
};

static struct sl_config *parse(const char *what, const char *text)
{
	struct sl_err err = { "" };
	struct sl_config *c = sl_config_parse("t.yaml", text, strlen(text), &err);
	CHECK(c != NULL, "%s: the config does not load: %s", what, err.msg);
	return c;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The names names[0..n), sorted, one space between them, into buf. */
static const char *joined(const char **names, unsigned n, char *buf, size_t len)
{
	size_t used = 0;
	qsort(names, n, sizeof(*names), by_name);
	buf[0] = '\0';
	for (unsigned i = 0; i < n && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? " " : "", names[i]);
	return buf;
}

enum set { KEPT, FRESH, RESTARTED, FRESH_LINKS, REBUILT, AFFECTED, RECONF };

/* One of the plan's sets, as names. */
static const char *set(const struct sl_reload_plan *p, const struct sl_config *old,
		       const struct sl_config *new, enum set s, char *buf, size_t len)
{
	static char links[64][128];
	const char *names[64];
	unsigned n = 0;
	switch (s) {
	case KEPT:
	case FRESH:
	case RESTARTED:
		for (unsigned j = 0; j < new->n_apps && n < 64; j++) {
			bool fresh = p->app_from[j] < 0, r = p->restarted[j];
			if ((s == KEPT && !fresh) || (s == FRESH && fresh && !r) ||
			    (s == RESTARTED && r))
				names[n++] = new->apps[j].name;
		}
		break;
	case FRESH_LINKS:
		for (unsigned j = 0; j < new->n_links && n < 64; j++)
			if (p->link_from[j] < 0) {
				sl_config_link_name(new, j, links[n], sizeof(links[n]));
				names[n] = links[n];
				n++;
			}
		break;
	case REBUILT:
		for (unsigned i = 0; i < old->n_links && n < 64; i++)
			if (!p->old_link_kept[i] && p->into[i] >= 0) {
				sl_config_link_name(old, i, links[n], sizeof(links[n]));
				names[n] = links[n];
				n++;
			}
		break;
	case AFFECTED:
		for (unsigned w = 0; w < p->n_workers && n < 64; w++)
			if (p->affected[w])
				names[n++] = old->workers[w].name;
		break;
	case RECONF:
		for (unsigned i = 0; i < p->n_reconf && n < 64; i++)
			names[n++] = p->reconf[i].name;
		break;
	}
	return joined(names, n, buf, len);
}

static void expect(const struct row *r, const struct sl_reload_plan *p,
		   const struct sl_config *old, const struct sl_config *new, enum set s,
		   const char *what, const char *want)
{
	char got[1024];
	set(p, old, new, s, got, sizeof(got));
	CHECK(strcmp(got, want != NULL ? want : "") == 0, "%s: %s '%s', expected '%s'", r->name,
	      what, got, want != NULL ? want : "");
}

static void run(const struct row *r)
{
	struct sl_config *old = parse(r->name, r->old != NULL ? r->old : BASE);
	struct sl_config *new = parse(r->name, r->new);
	struct sl_diff d = { 0 };
	struct sl_reload_plan p;
	struct sl_err err = { "" };
	if (old == NULL || new == NULL)
		goto out;
	int rc = sl_config_diff(old, new, &d, &err);
	CHECK(rc == 0, "%s: diff failed: %s", r->name, err.msg);
	rc = sl_reload_plan(old, new, &d, &p, &err);
	CHECK(rc == 0, "%s: plan failed: %s", r->name, err.msg);
	if (rc < 0)
		goto out;
	if (r->refusal != NULL) {
		CHECK(p.refused == -EPERM, "%s: refused with -EPERM, got %d", r->name, p.refused);
		CHECK(strcmp(p.why, r->refusal) == 0, "%s: refusal '%s', expected '%s'", r->name,
		      p.why, r->refusal);
		sl_reload_plan_free(&p);
		goto out;
	}
	CHECK(p.refused == 0, "%s: refused: %s", r->name, p.why);
	expect(r, &p, old, new, RECONF, "reconfigured", r->reconf);
	CHECK(p.structural == (r->kept != NULL), "%s: structural %d", r->name, p.structural);
	if (p.structural && r->kept != NULL) {
		expect(r, &p, old, new, KEPT, "kept", r->kept);
		expect(r, &p, old, new, FRESH, "fresh", r->fresh);
		expect(r, &p, old, new, RESTARTED, "restarted", r->restarted);
		expect(r, &p, old, new, FRESH_LINKS, "fresh links", r->fresh_links);
		expect(r, &p, old, new, REBUILT, "rebuilt", r->rebuilt);
		expect(r, &p, old, new, AFFECTED, "affected", r->affected);
	}
	sl_reload_plan_free(&p);
out:
	sl_diff_free(&d);
	sl_config_free(new);
	sl_config_free(old);
}

/* A case: its row (named after it) and its function. */
#define ROW(case_name, ...)                                                   \
	static const struct row case_name##_row = { #case_name, __VA_ARGS__ }; \
	static void case_name(void) { run(&case_name##_row); }

ROW(nothing_changed, .new = BASE)
ROW(parameter_live, .new = HEAD WORKERS "apps:\n"
    "  src: { type: source, worker: a, rate: 2000 }\n" FWD OUT LINKS,
    .reconf = "src")
ROW(parameter_restart, .new = HEAD WORKERS "apps:\n"
    "  src: { type: source, worker: a, rate: 1000, size: 128 }\n" FWD OUT LINKS,
    /* src is a new object: its worker's lists change, and the kept link
     * out of it gets a new end, which holds fwd's worker too. */
    .kept = "fwd out", .restarted = "src", .affected = "a b")
ROW(parameter_restart_and_live, .new = HEAD WORKERS "apps:\n"
    "  src: { type: source, worker: a, rate: 5 }\n"
    "  fwd: { type: l2fwd, worker: b, mode: set }\n" OUT LINKS,
    .kept = "out src", .restarted = "fwd", .affected = "a b", .reconf = "src")
ROW(type_changed, .new = HEAD WORKERS "apps:\n" SRC
    "  fwd: { type: tee, worker: b }\n" OUT
    "links:\n  - src.output -> fwd.input\n  - fwd.output0 -> out.input\n",
    .kept = "out src", .restarted = "fwd", .fresh_links = "fwd.output0 -> out.input",
    .affected = "a b")
ROW(app_added, .new = CHAIN2,
    .kept = "fwd out src", .fresh = "out2 src2", .fresh_links = "src2.output -> out2.input",
    .affected = "a")
ROW(app_removed, .old = CHAIN2, .new = BASE,
    .kept = "fwd out src", .affected = "a")
ROW(app_replaced, .new = HEAD WORKERS "apps:\n" SRC FWD
    "  out2: { type: sink, worker: a }\n"
    "links:\n  - src.output -> fwd.input\n  - fwd.output -> out2.input\n",
    .kept = "fwd src", .fresh = "out2", .fresh_links = "fwd.output -> out2.input",
    .affected = "a b")
ROW(app_moved, .new = HEAD WORKERS "apps:\n" SRC FWD
    "  out: { type: sink, worker: a }\n" LINKS,
    /* fwd -> out now crosses: rebuilt as an interlink, its packets carried. */
    .kept = "fwd out src", .fresh_links = "fwd.output -> out.input",
    .rebuilt = "fwd.output -> out.input", .affected = "a b")
ROW(app_moved_both_links_rebuilt, .new = HEAD WORKERS "apps:\n" SRC
    "  fwd: { type: l2fwd, worker: a }\n" OUT LINKS,
    /* src -> fwd no longer crosses, fwd -> out now does: both rebuilt. */
    .kept = "fwd out src",
    .fresh_links = "fwd.output -> out.input src.output -> fwd.input",
    .rebuilt = "fwd.output -> out.input src.output -> fwd.input", .affected = "a b")
ROW(link_resized, .new = HEAD WORKERS "apps:\n" SRC FWD OUT
    "links:\n  - { link: \"src.output -> fwd.input\", size: 4096 }\n"
    "  - fwd.output -> out.input\n",
    .kept = "fwd out src", .fresh_links = "src.output -> fwd.input",
    .rebuilt = "src.output -> fwd.input", .affected = "a b")
ROW(link_resized_local, .new = HEAD WORKERS "apps:\n" SRC FWD OUT
    "links:\n  - src.output -> fwd.input\n"
    "  - { link: \"fwd.output -> out.input\", size: 4096 }\n",
    /* A link within worker b: a's lists and a's apps do not change. */
    .kept = "fwd out src", .fresh_links = "fwd.output -> out.input",
    .rebuilt = "fwd.output -> out.input", .affected = "b")
ROW(link_rewired, .old = CHAIN2, .new = HEAD WORKERS "apps:\n" SRC FWD OUT
    "  src2: { type: source, worker: a }\n  out2: { type: sink, worker: a }\n"
    "links:\n  - src.output -> fwd.input\n  - fwd.output -> out2.input\n"
    "  - src2.output -> out.input\n",
    /* Both links are new (other ends); the old ones' packets are freed. */
    .kept = "fwd out out2 src src2",
    .fresh_links = "fwd.output -> out2.input src2.output -> out.input",
    .affected = "a b")
ROW(worker_added, .new = HEAD
    "workers:\n  a: { core: auto }\n  b: { core: auto }\n  c: { core: auto }\n"
    "apps:\n" SRC FWD "  out: { type: sink, worker: c }\n" LINKS,
    .refusal = "cannot add worker 'c': core auto " FIXED)
ROW(worker_removed, .new = HEAD "workers:\n  a: { core: auto }\n"
    "apps:\n" SRC "  fwd: { type: l2fwd, worker: a }\n  out: { type: sink, worker: a }\n"
    LINKS,
    .refusal = "cannot remove worker 'b' " FIXED)
ROW(workers_reordered, .new = HEAD "workers:\n  b: { core: auto }\n  a: { core: auto }\n"
    "apps:\n" SRC FWD OUT LINKS,
    .refusal = "cannot reorder the workers while running (worker 0 is 'b', was 'a')")
ROW(workers_reordered_live, .new = HEAD "workers:\n  b: { core: auto }\n  a: { core: auto }\n"
    "apps:\n  src: { type: source, worker: a, rate: 2000 }\n" FWD OUT LINKS,
    .refusal = "cannot reorder the workers while running (worker 0 is 'b', was 'a')")
ROW(group_replicas_live, .old = GROUP, .new = GROUP_HEAD
    "apps:\n  src: { type: source, worker: g, rate: 2000 }\n"
    "  out: { type: sink, worker: g }\n" SOLO
    "links:\n  - src.output -> out.input\n" SOLO_LINK,
    .reconf = "src@0 src@1")
ROW(group_replicas_restart, .old = GROUP, .new = GROUP_HEAD
    "apps:\n  src: { type: source, worker: g, rate: 1000, size: 128 }\n"
    "  out: { type: sink, worker: g }\n" SOLO
    "links:\n  - src.output -> out.input\n" SOLO_LINK,
    .refusal = "cannot restart app 'src@0': size 64 -> 128 (source cannot change it live) "
	       "while running: it is a replica on a worker group, or a join or split "
	       "inserted for one")
ROW(group_app_added, .old = GROUP, .new = GROUP_HEAD
    "apps:\n  src: { type: source, worker: g, rate: 1000 }\n"
    "  out: { type: sink, worker: g }\n" SOLO
    "  src3: { type: source, worker: g }\n  out3: { type: sink, worker: g }\n"
    "links:\n  - src.output -> out.input\n" SOLO_LINK "  - src3.output -> out3.input\n",
    .refusal = "cannot start app 'out3@0': sink on worker g@0 while running: it is a "
	       "replica on a worker group, or a join or split inserted for one")
ROW(group_untouched, .old = GROUP, .new = GROUP_HEAD
    "apps:\n  src: { type: source, worker: g, rate: 1000 }\n"
    "  out: { type: sink, worker: g }\n" SOLO
    "  src2: { type: source, worker: a }\n  out2: { type: sink, worker: a }\n"
    "links:\n  - src.output -> out.input\n" SOLO_LINK "  - src2.output -> out2.input\n",
    /* A chain beside the group: the replicas and their workers stay. */
    .kept = "out@0 out@1 solo solo_out src@0 src@1", .fresh = "out2 src2",
    .fresh_links = "src2.output -> out2.input", .affected = "a")
ROW(flowcache_restart, .old = HEAD WORKERS "apps:\n" SRC
    "  fc: { type: flowcache, worker: b, entries: 4096 }\n" OUT
    "links:\n  - src.output -> fc.input\n  - fc.output -> out.input\n",
    .new = HEAD WORKERS "apps:\n" SRC
    "  fc: { type: flowcache, worker: b, entries: 8192 }\n" OUT
    "links:\n  - src.output -> fc.input\n  - fc.output -> out.input\n",
    .refusal = "cannot restart app 'fc': entries 4096 -> 8192 (flowcache cannot change "
	       "it live) while running: a flowcache's flows are reclaimed through its "
	       "worker's epoch state")

static const struct sl_test_case cases[] = {
	SL_CASE(nothing_changed),
	SL_CASE(parameter_live),
	SL_CASE(parameter_restart),
	SL_CASE(parameter_restart_and_live),
	SL_CASE(type_changed),
	SL_CASE(app_added),
	SL_CASE(app_removed),
	SL_CASE(app_replaced),
	SL_CASE(app_moved),
	SL_CASE(app_moved_both_links_rebuilt),
	SL_CASE(link_resized),
	SL_CASE(link_resized_local),
	SL_CASE(link_rewired),
	SL_CASE(worker_added),
	SL_CASE(worker_removed),
	SL_CASE(workers_reordered),
	SL_CASE(workers_reordered_live),
	SL_CASE(group_replicas_live),
	SL_CASE(group_replicas_restart),
	SL_CASE(group_app_added),
	SL_CASE(group_untouched),
	SL_CASE(flowcache_restart),
};

int main(int argc, char **argv)
{
	return sl_test_main(argc, argv, cases, SL_NCASES(cases));
}
