/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The config diff (engine/config/diff.h), table-driven: one running config,
 * and for each kind of change a new config with the exact actions (in
 * order) or the exact refusal it must give.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "config/diff.h"

#include "../check.h"

#define HEAD_NO_POOL "dpdk: { args: [--no-huge, -m, \"512\"] }\n"
#define HEAD HEAD_NO_POOL "pool: { mbufs: 16383 }\n"
#define WORKERS "workers:\n  a: { core: auto }\n  b: { core: auto }\n"
#define APPS "apps:\n" \
	     "  src: { type: source, worker: a, rate: 1000 }\n" \
	     "  fwd: { type: l2fwd, worker: b }\n" \
	     "  out: { type: sink, worker: b }\n"
#define LINKS "links:\n  - src.output -> fwd.input\n  - fwd.output -> out.input\n"

static const char base[] = HEAD WORKERS APPS LINKS;

static const struct {
	const char *what, *text;
	const char *actions;     /* one line each, in order; NULL: refused */
	const char *refusal;     /* the sentence, when refused */
} cases[] = {
	{ "nothing changed", HEAD WORKERS APPS LINKS, "", NULL },
	{ "a live parameter", HEAD WORKERS
	  "apps:\n  src: { type: source, worker: a, rate: 2000 }\n"
	  "  fwd: { type: l2fwd, worker: b }\n  out: { type: sink, worker: b }\n" LINKS,
	  "reconfigure app 'src': rate 1000 -> 2000\n", NULL },
	{ "a live duration", HEAD WORKERS
	  "apps:\n  src: { type: source, worker: a, rate: 1000, catch_up: 20ms }\n"
	  "  fwd: { type: l2fwd, worker: b }\n  out: { type: sink, worker: b }\n" LINKS,
	  "reconfigure app 'src': catch_up 10ms -> 20ms\n", NULL },
	{ "a parameter its type cannot change live", HEAD WORKERS
	  "apps:\n  src: { type: source, worker: a, rate: 1000, size: 128 }\n"
	  "  fwd: { type: l2fwd, worker: b }\n  out: { type: sink, worker: b }\n" LINKS,
	  "restart app 'src': size 64 -> 128 (source cannot change it live)\n", NULL },
	{ "live and fixed together", HEAD WORKERS
	  "apps:\n  src: { type: source, worker: a, rate: 5, size: 128 }\n"
	  "  fwd: { type: l2fwd, worker: b, mode: set }\n  out: { type: sink, worker: b }\n"
	  LINKS,
	  "restart app 'fwd': mode swap -> set (l2fwd cannot change it live)\n"
	  "restart app 'src': size 64 -> 128 (source cannot change it live); rate 1000 -> 5\n",
	  NULL },
	{ "another type", HEAD WORKERS
	  "apps:\n  src: { type: source, worker: a, rate: 1000 }\n"
	  "  fwd: { type: tee, worker: b }\n  out: { type: sink, worker: b }\n"
	  "links:\n  - src.output -> fwd.input\n  - fwd.output0 -> out.input\n",
	  "remove link 'fwd.output -> out.input'\n"
	  "restart app 'fwd': type l2fwd -> tee\n"
	  "add link 'fwd.output0 -> out.input'\n", NULL },
	{ "an app removed, another added", HEAD WORKERS
	  "apps:\n  src: { type: source, worker: a, rate: 1000 }\n"
	  "  fwd: { type: l2fwd, worker: b }\n  out2: { type: sink, worker: a }\n"
	  "links:\n  - src.output -> fwd.input\n  - fwd.output -> out2.input\n",
	  "remove link 'fwd.output -> out.input'\n"
	  "stop app 'out': sink\n"
	  "start app 'out2': sink on worker a\n"
	  "add link 'fwd.output -> out2.input'\n", NULL },
	{ "apps moved: a cross link becomes local, a local one crosses", HEAD WORKERS
	  "apps:\n  src: { type: source, worker: b, rate: 1000 }\n"
	  "  fwd: { type: l2fwd, worker: b }\n  out: { type: sink, worker: a }\n" LINKS,
	  "remove link 'fwd.output -> out.input'\n"
	  "remove link 'src.output -> fwd.input'\n"
	  "move app 'out': worker b -> a (its queued packets carried over)\n"
	  "move app 'src': worker a -> b (its queued packets carried over)\n"
	  "add link 'fwd.output -> out.input': rebuilt\n"
	  "add link 'src.output -> fwd.input': rebuilt\n", NULL },
	{ "a worker added, an app moved onto it", HEAD
	  "workers:\n  a: { core: auto }\n  b: { core: auto }\n  c: { core: auto }\n"
	  "apps:\n  src: { type: source, worker: a, rate: 1000 }\n"
	  "  fwd: { type: l2fwd, worker: b }\n  out: { type: sink, worker: c }\n" LINKS,
	  "remove link 'fwd.output -> out.input'\n"
	  "add worker 'c': core auto\n"
	  "move app 'out': worker b -> c (its queued packets carried over)\n"
	  "add link 'fwd.output -> out.input': rebuilt\n", NULL },
	{ "a worker removed", HEAD "workers:\n  a: { core: auto }\n"
	  "apps:\n  src: { type: source, worker: a, rate: 1000 }\n"
	  "  fwd: { type: l2fwd, worker: a }\n  out: { type: sink, worker: a }\n" LINKS,
	  "remove link 'src.output -> fwd.input'\n"
	  "remove worker 'b'\n"
	  "move app 'fwd': worker b -> a (its queued packets carried over)\n"
	  "move app 'out': worker b -> a (its queued packets carried over)\n"
	  "add link 'src.output -> fwd.input': rebuilt\n", NULL },
	{ "a link's size", HEAD WORKERS APPS
	  "links:\n  - { link: \"src.output -> fwd.input\", size: 4096 }\n"
	  "  - fwd.output -> out.input\n",
	  "remove link 'src.output -> fwd.input'\n"
	  "add link 'src.output -> fwd.input': rebuilt\n", NULL },
	{ "the pool", "dpdk: { args: [--no-huge, -m, \"512\"] }\npool: { mbufs: 8191 }\n"
	  WORKERS APPS LINKS, NULL,
	  "pool.mbufs cannot change while running (16383 -> 8191); restart Sluice" },
	{ "the pool's order (an enum the config holds as a bool)",
	  HEAD_NO_POOL "pool: { mbufs: 16383, order: shuffled }\n" WORKERS APPS LINKS, NULL,
	  "pool.order cannot change while running (address -> shuffled); restart Sluice" },
	{ "the EAL arguments", "dpdk: { args: [--no-huge, -m, \"1024\"] }\n"
	  "pool: { mbufs: 16383 }\n" WORKERS APPS LINKS, NULL,
	  "dpdk.args cannot change while running; restart Sluice" },
	{ "the burst", HEAD "engine: { burst: 64 }\n" WORKERS APPS LINKS, NULL,
	  "engine.burst cannot change while running (32 -> 64); restart Sluice" },
	{ "the link implementation (an enum: its names)",
	  HEAD "engine: { link_impl: ring }\n" WORKERS APPS LINKS, NULL,
	  "engine.link_impl cannot change while running (interlink -> ring); restart Sluice" },
	{ "the epoch policy", HEAD "engine: { epoch: qsbr }\n" WORKERS APPS LINKS, NULL,
	  "engine.epoch cannot change while running (immediate -> qsbr); restart Sluice" },
	{ "accounting (a bool)", HEAD "engine: { accounting: false }\n" WORKERS APPS LINKS, NULL,
	  "engine.accounting cannot change while running (true -> false); restart Sluice" },
	{ "a worker's core", HEAD "workers:\n  a: { core: 0 }\n  b: { core: auto }\n"
	  APPS LINKS, NULL,
	  "worker 'a': core cannot change while running (auto -> 0); restart Sluice" },
};

static struct sl_config *parse(const char *what, const char *text)
{
	struct sl_err err = { "" };
	struct sl_config *c = sl_config_parse("t.yaml", text, strlen(text), &err);
	CHECK(c != NULL, "%s: the config does not load: %s", what, err.msg);
	return c;
}

static void lines(const struct sl_diff *d, char *buf, size_t len)
{
	size_t used = 0;
	buf[0] = '\0';
	for (unsigned i = 0; i < d->n; i++) {
		char line[512];
		sl_diff_format(&d->actions[i], line, sizeof(line));
		used += (size_t)snprintf(buf + used, len - used, "%s\n", line);
	}
}

int main(void)
{
	struct sl_config *old = parse("base", base);
	if (old == NULL)
		return 1;
	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sl_config *n = parse(cases[i].what, cases[i].text);
		if (n == NULL)
			continue;
		struct sl_diff d;
		struct sl_err err = { "" };
		int rc = sl_config_diff(old, n, &d, &err);
		if (cases[i].actions == NULL) {
			CHECK(rc == -EPERM, "%s: refused with -EPERM, got %d", cases[i].what, rc);
			CHECK(strcmp(err.msg, cases[i].refusal) == 0, "%s: message '%s', expected '%s'",
			      cases[i].what, err.msg, cases[i].refusal);
			CHECK(d.n == 0 && d.actions == NULL, "%s: no actions with a refusal",
			      cases[i].what);
		} else {
			char got[4096];
			CHECK(rc == 0, "%s: diff failed: %s", cases[i].what, err.msg);
			lines(&d, got, sizeof(got));
			CHECK(strcmp(got, cases[i].actions) == 0, "%s: actions\n%sexpected\n%s",
			      cases[i].what, got, cases[i].actions);
			/* Deterministic: the same again, and nothing back from new to new. */
			struct sl_diff again, none;
			char twice[4096];
			CHECK(sl_config_diff(old, n, &again, &err) == 0, "%s: second diff",
			      cases[i].what);
			lines(&again, twice, sizeof(twice));
			CHECK(strcmp(got, twice) == 0, "%s: a second diff differs", cases[i].what);
			CHECK(sl_config_diff(n, n, &none, &err) == 0 && none.n == 0,
			      "%s: a config against itself has %u actions", cases[i].what, none.n);
			sl_diff_free(&again);
			sl_diff_free(&none);
		}
		sl_diff_free(&d);
		sl_config_free(n);
	}
	sl_config_free(old);
	printf("test_diff: %d checks, %d failures\n", checks, failures);
	return failures ? 1 : 0;
}
