/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The worker loop: push order, rounds, and packet flow through same-worker and
 * cross-worker links, with apps and links built by hand on a real EAL
 * (--no-huge) and a real mbuf pool.  Asserts the order of push calls, the
 * counters, and that every mbuf is back in the pool at the end.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "interlink/interlink.h"

#include "runtime/app.h"
#include "runtime/worker.h"

#include "check.h"

static char trace[256];

static void rec(struct sl_app *app)
{
	strcat(trace, app->name);
	strcat(trace, " ");
}

/* gen: pull makes `burst` packets once; fwd: forwards; end: frees. */
static void gen_pull(struct sl_app *app)
{
	unsigned *left = app->priv;
	struct rte_mbuf *p[SL_BURST_MAX];
	unsigned n = *left < app->burst ? *left : app->burst;
	if (n == 0 || rte_pktmbuf_alloc_bulk(app->pool, p, n) != 0)
		return;
	for (unsigned i = 0; i < n; i++)
		rte_pktmbuf_append(p[i], 60);
	*left -= n;
	sl_app_count_in(app, p, n);
	sl_link_transmit(app->out[0], p, n);
}

static void fwd_push(struct sl_app *app)
{
	struct rte_mbuf *p[SL_BURST_MAX];
	rec(app);
	for (unsigned i = 0; i < app->n_in; i++) {
		unsigned n = sl_link_receive(app->in[i], p, app->burst);
		for (unsigned o = 0; o < app->n_out && n > 0; o++) {
			sl_link_transmit(app->out[o], p, n);
			n = 0;
		}
		if (n > 0) {
			sl_app_count_out(app, p, n);
			rte_pktmbuf_free_bulk(p, n);
		}
	}
}

static const struct sl_port_spec in_port[] = { { "input#", false, "" } };
static const struct sl_port_spec out_port[] = { { "output#", false, "" } };
static const struct sl_app_type gen_t = { .name = "t_wgen", .doc = "test", .outputs = out_port,
	.n_outputs = 1, .pull = gen_pull, .priv_size = sizeof(unsigned) };
static const struct sl_app_type fwd_t = { .name = "t_wfwd", .doc = "test", .inputs = in_port,
	.n_inputs = 1, .outputs = out_port, .n_outputs = 1, .push = fwd_push };

static struct rte_mempool *pool;

static void make_app(struct sl_app *a, const struct sl_app_type *t, const char *name)
{
	memset(a, 0, sizeof(*a));
	a->type = t;
	a->name = name;
	a->burst = 32;
	a->pool = pool;
	a->priv = calloc(1, 64);
}

static void make_link(struct sl_link *l, struct sl_app *from, struct sl_app *to, bool ring)
{
	memset(l, 0, sizeof(*l));
	static unsigned seq;
	if (ring) {
		char name[32];
		snprintf(name, sizeof(name), "tw%u", seq++);
		struct sl_il_config c = { .size = 64, .socket = SOCKET_ID_ANY };
		l->il = sl_il_create(name, &c, NULL);
		sl_il_attach(l->il, SL_IL_PRODUCER);
		sl_il_attach(l->il, SL_IL_CONSUMER);
	} else {
		l->mask = 63;
		l->slots = calloc(64, sizeof(void *));
	}
	from->out[from->n_out++] = l;
	to->in[to->n_in++] = l;
	l->from = from;
	l->to = to;
}

static void entry(struct sl_push_entry *e, struct sl_app *a)
{
	e->app = a;
	e->n_in = a->n_in;
	memcpy(e->in, a->in, sizeof(e->in));
}

/* gen -> a -> b -> end on one worker, pushed in topological order a, b, end:
 * one breath carries a burst all the way through, in one round. */
static void test_chain_one_breath(void)
{
	struct sl_app g, a, b, end;
	struct sl_link l1, l2, l3;
	make_app(&g, &gen_t, "gen");
	make_app(&a, &fwd_t, "a");
	make_app(&b, &fwd_t, "b");
	make_app(&end, &fwd_t, "end");
	*(unsigned *)g.priv = 100;
	make_link(&l1, &g, &a, false);
	make_link(&l2, &a, &b, false);
	make_link(&l3, &b, &end, false);

	struct sl_app *pull[] = { &g };
	struct sl_push_entry push[3];
	entry(&push[0], &a);
	entry(&push[1], &b);
	entry(&push[2], &end);
	bool stop = false;
	struct sl_worker w = { .pull = pull, .n_pull = 1, .push = push, .n_push = 3,
			       .stop = &stop };

	trace[0] = '\0';
	CHECK(sl_worker_breathe(&w), "first breath did no work");
	CHECK(strcmp(trace, "a b end ") == 0, "push order was '%s'", trace);
	CHECK(end.stats.out_packets == 32, "end consumed %lu, expected 32",
	      (unsigned long)end.stats.out_packets);
	for (int i = 0; i < 10; i++)
		sl_worker_breathe(&w);
	CHECK(end.stats.out_packets == 100, "end consumed %lu of 100",
	      (unsigned long)end.stats.out_packets);
	CHECK(l2.tx.packets == 100 && l2.rx.packets == 100 && l2.tx.drops == 0,
	      "link a->b counted %lu/%lu/%lu", (unsigned long)l2.tx.packets,
	      (unsigned long)l2.rx.packets, (unsigned long)l2.tx.drops);
	CHECK(w.breaths == 11, "breaths %lu", (unsigned long)w.breaths);
	trace[0] = '\0';
	CHECK(!sl_worker_breathe(&w), "idle breath reported work");
	CHECK(trace[0] == '\0', "idle breath pushed '%s'", trace);
	free(l1.slots);
	free(l2.slots);
	free(l3.slots);
	free(g.priv); free(a.priv); free(b.priv); free(end.priv);
}

/* Push order given backwards (end, b, a): packets still arrive, using more
 * rounds, and the per-round order is the given one. */
static void test_rounds(void)
{
	struct sl_app g, a, b, end;
	struct sl_link l1, l2, l3;
	make_app(&g, &gen_t, "gen");
	make_app(&a, &fwd_t, "a");
	make_app(&b, &fwd_t, "b");
	make_app(&end, &fwd_t, "end");
	*(unsigned *)g.priv = 32;
	make_link(&l1, &g, &a, false);
	make_link(&l2, &a, &b, false);
	make_link(&l3, &b, &end, false);
	struct sl_app *pull[] = { &g };
	struct sl_push_entry push[3];
	entry(&push[0], &end);
	entry(&push[1], &b);
	entry(&push[2], &a);
	bool stop = false;
	struct sl_worker w = { .pull = pull, .n_pull = 1, .push = push, .n_push = 3,
			       .stop = &stop };
	trace[0] = '\0';
	sl_worker_breathe(&w);
	CHECK(strcmp(trace, "a b end ") == 0, "backwards order pushed '%s'", trace);
	CHECK(end.stats.out_packets == 32, "end consumed %lu", (unsigned long)end.stats.out_packets);
	free(l1.slots); free(l2.slots); free(l3.slots);
	free(g.priv); free(a.priv); free(b.priv); free(end.priv);
}

/* A full link drops and counts; the sender never keeps packets. */
static void test_full_link_drops(void)
{
	struct sl_app g, end;
	struct sl_link l;
	make_app(&g, &gen_t, "gen");
	make_app(&end, &fwd_t, "end");
	make_link(&l, &g, &end, true);   /* an interlink of 64 slots */
	*(unsigned *)g.priv = 96;
	gen_pull(&g);
	gen_pull(&g);
	gen_pull(&g);
	CHECK(l.tx.packets == 64 && l.tx.drops == 32, "interlink: %lu queued, %lu dropped",
	      (unsigned long)l.tx.packets, (unsigned long)l.tx.drops);
	/* Nothing is visible to the consumer until the producer publishes. */
	CHECK(sl_link_empty(&l), "interlink shows packets before the publish");
	sl_il_publish_producer(l.il);
	CHECK(sl_link_count(&l) == 64, "interlink holds %u", sl_link_count(&l));
	fwd_push(&end);
	fwd_push(&end);
	CHECK(sl_link_empty(&l), "interlink not empty after two pushes");
	CHECK(end.stats.out_packets == 64, "end got %lu", (unsigned long)end.stats.out_packets);
	sl_il_publish_consumer(l.il);
	sl_il_detach(l.il, SL_IL_PRODUCER);
	sl_il_detach(l.il, SL_IL_CONSUMER);
	CHECK(sl_il_free(l.il) == 0, "interlink free failed");
	free(g.priv); free(end.priv);
}

/* A same-worker link keeps order across its ring's wrap: bursts of 1..37
 * in, up to 1..41 out, the ring of 64 slots never aligned with them; a
 * burst into a full ring is cut and the rest dropped (and freed). */
static void test_link_wrap(void)
{
	struct sl_app src, dst;
	struct sl_link l;
	make_app(&src, &gen_t, "src");
	make_app(&dst, &fwd_t, "dst");
	make_link(&l, &src, &dst, false);
	struct rte_mbuf *in[64], *out[64];
	uintptr_t next_in = 0, next_out = 0;
	unsigned bad = 0;
	uint64_t drops = 0;
	for (unsigned r = 0; r < 400; r++) {
		unsigned n = 1 + r % 37;
		for (unsigned i = 0; i < n; i++) {
			in[i] = rte_pktmbuf_alloc(pool);
			CHECK(in[i] != NULL, "an mbuf");
			in[i]->hash.usr = (uint32_t)(next_in + i);
		}
		unsigned room = 64 - sl_link_count(&l);
		sl_link_transmit(&l, in, n);
		next_in += RTE_MIN(n, room);
		drops += n > room ? n - room : 0;
		unsigned got = sl_link_receive(&l, out, 1 + r % 41);
		for (unsigned i = 0; i < got; i++) {
			bad += out[i]->hash.usr != (uint32_t)next_out++;
			rte_pktmbuf_free(out[i]);
		}
	}
	unsigned got;
	while ((got = sl_link_receive(&l, out, 64)) > 0)
		for (unsigned i = 0; i < got; i++) {
			bad += out[i]->hash.usr != (uint32_t)next_out++;
			rte_pktmbuf_free(out[i]);
		}
	CHECK(bad == 0, "%u packets out of order", bad);
	CHECK(next_out == next_in && l.tx.packets == next_in && l.rx.packets == next_in,
	      "in %lu, out %lu, link tx %lu rx %lu", (unsigned long)next_in,
	      (unsigned long)next_out, (unsigned long)l.tx.packets, (unsigned long)l.rx.packets);
	CHECK(drops > 0 && l.tx.drops == drops, "drops %lu, counted %lu", (unsigned long)drops,
	      (unsigned long)l.tx.drops);
	free(l.slots);
	free(src.priv); free(dst.priv);
}

static unsigned freed_objects;

static void count_free(void *obj, void *arg)
{
	(void)obj;
	(void)arg;
	freed_objects++;
}

/* The breath reports a quiescent state and then reclaims retired objects
 * (capped), at its top: with one worker, objects retired before (during the
 * last breath) are freed by the next breath, never more than reclaim_cap
 * per breath, and nothing is freed before a quiescent state follows the
 * retire. */
static void test_epoch_in_breath(void)
{
	struct sl_err err;
	struct sl_epoch_conf ec = { .name = "tw", .n_workers = 1 };
	struct sl_epoch *e = sl_epoch_create(&ec, &err);
	CHECK(e != NULL, "epoch: %s", err.msg);
	if (e == NULL)
		return;
	bool stop = false;
	struct sl_worker w = { .stop = &stop, .epoch = e, .epoch_w = sl_epoch_worker(e, 0),
			       .reclaim_cap = 3 };
	static int objs[5];
	sl_epoch_online(w.epoch_w);
	for (int i = 0; i < 5; i++)
		sl_epoch_retire(e, w.epoch_w, &objs[i], count_free, NULL);
	CHECK(sl_epoch_reclaim(e, w.epoch_w, 16) == 0 && freed_objects == 0,
	      "freed %u before a quiescent state", freed_objects);
	sl_worker_breathe(&w);
	CHECK(freed_objects == 3, "freed %u, the cap is 3", freed_objects);
	sl_worker_breathe(&w);
	CHECK(freed_objects == 5, "freed %u of 5", freed_objects);
	sl_worker_breathe(&w);
	CHECK(freed_objects == 5, "freed %u, more than retired", freed_objects);
	sl_epoch_offline(w.epoch_w);
	sl_epoch_free(e);
}

/* Where a worker is (sl_worker_at/sl_worker_where), as the engine's report
 * of a worker that does not stop reads it: seen from inside each app call,
 * and after the loop. */
static struct sl_worker *where_w;
static char where_seen[128];

static void where_note(struct sl_app *app)
{
	unsigned idx;
	enum sl_worker_step st = sl_worker_where(where_w, &idx);
	char one[32];
	snprintf(one, sizeof(one), "%s:%s:%u ", app->name, sl_worker_step_name(st), idx);
	strcat(where_seen, one);
}

static void where_push(struct sl_app *app)
{
	struct rte_mbuf *p[SL_BURST_MAX];
	where_note(app);
	unsigned n = sl_link_receive(app->in[0], p, app->burst);
	rte_pktmbuf_free_bulk(p, n);
}

static const struct sl_app_type where_pull_t = { .name = "t_wpull", .doc = "test",
	.outputs = out_port, .n_outputs = 1, .pull = where_note };
static const struct sl_app_type where_push_t = { .name = "t_wpush", .doc = "test",
	.inputs = in_port, .n_inputs = 1, .push = where_push, .tick = where_note };

static void test_where(void)
{
	struct sl_app src, dst;
	struct sl_link l;
	make_app(&src, &where_pull_t, "src");
	make_app(&dst, &where_push_t, "dst");
	src.index = 7;
	dst.index = 9;
	make_link(&l, &src, &dst, false);
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	CHECK(m != NULL, "an mbuf");
	sl_link_transmit(&l, &m, 1);
	struct sl_app *pull[] = { &src };
	struct sl_app *tick[] = { &dst };
	struct sl_push_entry push[1];
	entry(&push[0], &dst);
	bool stop = false;
	struct sl_worker w = { .pull = pull, .n_pull = 1, .push = push, .n_push = 1,
			       .tick = tick, .n_tick = 1, .stop = &stop };
	unsigned idx = 99;
	where_w = &w;
	where_seen[0] = '\0';
	CHECK(sl_worker_where(&w, &idx) == SL_STEP_START && idx == 0, "a new worker is at %s",
	      sl_worker_step_name(sl_worker_where(&w, &idx)));
	sl_worker_breathe(&w);
	CHECK(strcmp(where_seen, "src:pull:7 dst:push:9 dst:tick:9 ") == 0,
	      "seen from inside the apps: '%s'", where_seen);
	CHECK(sl_worker_where(&w, &idx) == SL_STEP_TICK && idx == 9,
	      "after the breath: %s %u", sl_worker_step_name(sl_worker_where(&w, &idx)), idx);
	stop = true;
	sl_worker_main(&w);
	CHECK(sl_worker_where(&w, &idx) == SL_STEP_DONE, "after the loop: %s",
	      sl_worker_step_name(sl_worker_where(&w, &idx)));
	CHECK(strcmp(sl_worker_step_name(SL_STEP_EPOCH), "epoch") == 0 &&
	      strcmp(sl_worker_step_name(SL_STEP_FLUSH), "flush") == 0 &&
	      strcmp(sl_worker_step_name(SL_STEP_HOUSE), "house") == 0, "step names");
	free(l.slots);
	free(src.priv);
	free(dst.priv);
}

/* An app type's declared counters: added by index on the data path, read
 * after the common ones; warnings append. */
static const struct sl_counter_spec cnt_specs[] = {
	{ "seen", SL_COUNTER, "Packets seen." },
	{ "level", SL_GAUGE, "A level." },
};

static void cnt_push(struct sl_app *app)
{
	struct rte_mbuf *p[SL_BURST_MAX];
	unsigned n = sl_link_receive(app->in[0], p, app->burst);
	sl_app_ctr_add(app, 0, n);
	sl_app_ctr_set(app, 1, 7);
	sl_app_drop(app, p, n);
}

static const struct sl_app_type cnt_t = { .name = "t_wcnt", .doc = "test", .inputs = in_port,
	.n_inputs = 1, .push = cnt_push, .counters = cnt_specs, .n_counters = 2 };

static void test_app_counters(void)
{
	struct sl_app src, cnt;
	struct sl_link l;
	make_app(&src, &gen_t, "src");
	make_app(&cnt, &cnt_t, "cnt");
	*(unsigned *)src.priv = 40;
	make_link(&l, &src, &cnt, false);
	struct sl_push_entry push[1];
	entry(&push[0], &cnt);
	struct sl_app *pull[] = { &src };
	bool stop = false;
	struct sl_worker w = { .pull = pull, .n_pull = 1, .push = push, .n_push = 1, .stop = &stop };
	sl_worker_breathe(&w);
	sl_worker_breathe(&w);
	uint64_t v[SL_APP_COMMON_COUNTERS + 2];
	sl_app_counters_read(&cnt, v);
	CHECK(v[4] == 40 && v[5] == 40 && v[6] == 7, "drops %lu, seen %lu, level %lu",
	      (unsigned long)v[4], (unsigned long)v[5], (unsigned long)v[6]);
	CHECK(strcmp(sl_app_common_counters[4].name, "drops") == 0, "common counter 4 is %s",
	      sl_app_common_counters[4].name);
	CHECK(cnt.warning[0] == '\0', "a new app has a warning");
	sl_app_warn(&cnt, "first %d", 1);
	sl_app_warn(&cnt, "second");
	CHECK(strcmp(cnt.warning, "first 1; second") == 0, "warnings: '%s'", cnt.warning);
	char big[2 * SL_APP_WARNING_MAX];
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	sl_app_warn(&cnt, "%s", big);
	CHECK(strlen(cnt.warning) == SL_APP_WARNING_MAX - 1, "a long warning is cut: %zu bytes",
	      strlen(cnt.warning));
	free(l.slots);
	free(src.priv);
	free(cnt.priv);
}

/* The registry refuses a bad counter table with a sentence naming the type
 * and the counter.  (The type stays registered: this test runs last.) */
static struct sl_counter_spec bad_specs[SL_APP_COUNTERS_MAX + 1];
static struct sl_app_type bad_t = { .name = "t_wbad", .doc = "test", .counters = bad_specs };
static struct sl_app_reg bad_reg = { .type = &bad_t };

static void expect_registry_error(unsigned n, const char *want)
{
	struct sl_err err = { "" };
	bad_t.n_counters = n;
	CHECK(sl_app_registry_check(&err) == -EINVAL && strcmp(err.msg, want) == 0,
	      "registry check: '%s', expected '%s'", err.msg, want);
}

static void test_counter_registry(void)
{
	struct sl_err err = { "" };
	CHECK(sl_app_registry_check(&err) == 0, "the registered apps: %s", err.msg);
	for (unsigned i = 0; i < SL_ARRAY_LEN(bad_specs); i++)
		bad_specs[i] = (struct sl_counter_spec){ "ok", SL_COUNTER, "Fine." };
	sl_app_registry_append(&bad_reg);
	bad_specs[0].name = "Bad-Name";
	expect_registry_error(1, "app type 't_wbad': counter 0: name 'Bad-Name' is not snake_case "
			      "(a-z, 0-9, _, starting with a letter)");
	bad_specs[0].name = "drops";
	expect_registry_error(1, "app type 't_wbad': counter 'drops' repeats a common counter");
	bad_specs[0].name = "ok";
	expect_registry_error(2, "app type 't_wbad': counter 'ok' declared twice");
	bad_specs[1].name = "fine";
	bad_specs[1].help = "";
	expect_registry_error(2, "app type 't_wbad': counter 'fine' has no help");
	expect_registry_error(SL_APP_COUNTERS_MAX + 1, "app type 't_wbad' declares 65 counters, "
			      "more than the 64 an app can keep (SL_APP_COUNTERS_MAX)");
}

/* sl_pkts_free: plain packets go back without a read of their second line,
 * and everything else is freed as rte_pktmbuf_free would: chains, a clone
 * (indirect) and the direct mbuf it holds, a packet with another reference,
 * packets of two pools interleaved, more than one run's worth at once. */
static void test_pkts_free(void)
{
	struct rte_mempool *other = rte_pktmbuf_pool_create("tw2", 255, 0, 0,
							    2048 + RTE_PKTMBUF_HEADROOM,
							    SOCKET_ID_ANY);
	CHECK(other != NULL, "cannot create a second pool");
	if (other == NULL)
		return;
	unsigned avail = rte_mempool_avail_count(pool);
	struct rte_mbuf *p[200];
	unsigned n = 0;

	/* 150 plain packets, alternating pools in runs of 1, 2 and 3. */
	for (unsigned i = 0; i < 150; i++)
		p[n++] = rte_pktmbuf_alloc((i / ((i % 3) + 1)) % 2 ? other : pool);
	/* A chain of three segments. */
	struct rte_mbuf *h = rte_pktmbuf_alloc(pool), *s1 = rte_pktmbuf_alloc(pool),
			*s2 = rte_pktmbuf_alloc(other);
	CHECK(h != NULL && s1 != NULL && s2 != NULL, "cannot allocate a chain");
	if (h == NULL || s1 == NULL || s2 == NULL)
		return;
	CHECK(rte_pktmbuf_chain(h, s1) == 0 && rte_pktmbuf_chain(h, s2) == 0, "cannot chain");
	p[n++] = h;
	/* A clone (indirect, attached to a direct mbuf) and the direct one. */
	struct rte_mbuf *d = rte_pktmbuf_alloc(pool);
	struct rte_mbuf *c = rte_pktmbuf_clone(d, other);
	CHECK(c != NULL && rte_mbuf_refcnt_read(d) == 2, "cannot clone");
	p[n++] = c;
	p[n++] = d;
	/* A packet with a second reference: freed once here, once below. */
	struct rte_mbuf *two = rte_pktmbuf_alloc(pool);
	rte_mbuf_refcnt_update(two, 1);
	p[n++] = two;
	for (unsigned i = 0; i < n; i++)
		CHECK(p[i] != NULL, "allocation %u failed", i);

	sl_pkts_free(p, n);
	CHECK(rte_mbuf_refcnt_read(two) == 1, "a packet with two references: refcnt %u",
	      rte_mbuf_refcnt_read(two));
	CHECK(rte_mempool_avail_count(pool) == avail - 1, "%u of %u mbufs back before the last "
	      "reference", rte_mempool_avail_count(pool), avail - 1);
	sl_pkts_free(&two, 1);
	CHECK(rte_mempool_avail_count(pool) == avail, "%u of %u mbufs back",
	      rte_mempool_avail_count(pool), avail);
	CHECK(rte_mempool_avail_count(other) == 255, "%u of 255 mbufs of the second pool back",
	      rte_mempool_avail_count(other));
	/* What went back is fit for reuse as it lies in the pool (taken raw, no
	 * reset): one segment, no next, one reference, a valid mbuf. */
	void *again[256];
	unsigned left = rte_mempool_avail_count(other);
	CHECK(left <= RTE_DIM(again) && rte_mempool_get_bulk(other, again, left) == 0,
	      "cannot take the second pool's %u mbufs", left);
	for (unsigned j = 0; j < left; j++) {
		struct rte_mbuf *m = again[j];
		const char *why = NULL;
		CHECK(m->next == NULL && m->nb_segs == 1 && rte_mbuf_refcnt_read(m) == 1 &&
		      rte_mbuf_check(m, 1, &why) == 0, "a freed mbuf is not clean: %s",
		      why != NULL ? why : "next, nb_segs or refcnt");
	}
	rte_mempool_put_bulk(other, again, left);
	rte_mempool_free(other);
}

/* Direct links (link.h): a type that takes bursts in hand.  Each packet
 * carries a sequence number (sgen); the last app of a chain checks that
 * they come in order and frees them; take can spin for `spin` TSC cycles
 * (the accounting's nesting). */
struct dt_priv {
	unsigned left;          /* sgen: packets still to make */
	uint32_t seq;           /* sgen: the next number; end: the one expected */
	unsigned out_of_order;
	uint64_t spin, spun;
	unsigned sized;         /* takes that were given the burst's bytes */
};

static void sgen_pull(struct sl_app *app)
{
	struct dt_priv *d = app->priv;
	struct rte_mbuf *p[SL_BURST_MAX];
	unsigned n = d->left < app->burst ? d->left : app->burst;
	if (n == 0 || rte_pktmbuf_alloc_bulk(app->pool, p, n) != 0)
		return;
	for (unsigned i = 0; i < n; i++) {
		uint32_t *at = (uint32_t *)rte_pktmbuf_append(p[i], 60);
		*at = d->seq++;
	}
	d->left -= n;
	sl_app_count_in(app, p, n);
	sl_link_transmit(app->out[0], p, n);
}

/* Forward on out[0], or at the end of the chain check the order and free. */
static void dt_burst(struct sl_app *app, struct rte_mbuf **p, unsigned n)
{
	struct dt_priv *d = app->priv;
	if (app->n_out > 0) {   /* with the bytes, for the next take */
		sl_link_transmit_sized(app->out[0], p, n, sl_pkts_bytes(p, n));
		return;
	}
	for (unsigned i = 0; i < n; i++)
		if (*rte_pktmbuf_mtod(p[i], uint32_t *) != d->seq++)
			d->out_of_order++;
	sl_app_count_out(app, p, n);
	rte_pktmbuf_free_bulk(p, n);
}

static void dt_push(struct sl_app *app)
{
	struct rte_mbuf *p[SL_BURST_MAX];
	rec(app);
	unsigned n = sl_link_receive(app->in[0], p, app->burst);
	if (n > 0)
		dt_burst(app, p, n);
}

static void dt_take(struct sl_app *app, unsigned in, struct rte_mbuf **p, unsigned n,
		    uint64_t bytes)
{
	struct dt_priv *d = app->priv;
	strcat(trace, app->name);
	strcat(trace, in == 0 ? ":take " : ":take-wrong-input ");
	if (bytes != SL_BYTES_UNKNOWN && bytes != sl_pkts_bytes(p, n))
		strcat(trace, "wrong-bytes ");
	d->sized += bytes != SL_BYTES_UNKNOWN;
	sl_link_rx_bytes(app->in[in], sl_pkts_bytes(p, n));
	if (d->spin > 0) {
		uint64_t t0 = rte_rdtsc(), t;
		while ((t = rte_rdtsc()) - t0 < d->spin)
			;
		d->spun += t - t0;
	}
	dt_burst(app, p, n);
}

static const struct sl_app_type sgen_t = { .name = "t_wsgen", .doc = "test", .outputs = out_port,
	.n_outputs = 1, .pull = sgen_pull };
static const struct sl_app_type dt_t = { .name = "t_wtake", .doc = "test", .inputs = in_port,
	.n_inputs = 1, .outputs = out_port, .n_outputs = 1, .push = dt_push, .take = dt_take };

static void make_direct(struct sl_link *l, struct sl_worker *w)
{
	l->take = l->to->type->take;
	l->take_w = w;
	l->to_in = 0;
}

/* gen -> a -> end over two direct links: one breath hands the burst down
 * the chain in the calls (no push), in order, counted on both links and
 * charged to each app as a push call; on a timed breath each app's
 * cycles leave out the takes nested in its call, so that the apps'
 * cycles add up to no more than the breath's even when the last take
 * spins (charged three times over without the nesting).  Packets queued
 * on a direct link go out first, by push, and each link keeps its order. */
static void test_direct(void)
{
	struct sl_app g, a, end;
	struct sl_link l1, l2;
	make_app(&g, &sgen_t, "gen");
	make_app(&a, &dt_t, "a");
	make_app(&end, &dt_t, "end");
	struct dt_priv *dg = g.priv, *de = end.priv;
	dg->left = 100;
	de->spin = 2000000;
	make_link(&l1, &g, &a, false);
	make_link(&l2, &a, &end, false);
	struct sl_app *pull[] = { &g };
	struct sl_push_entry push[2];
	entry(&push[0], &a);
	entry(&push[1], &end);
	bool stop = false;
	struct sl_worker w = { .pull = pull, .n_pull = 1, .push = push, .n_push = 2,
			       .stop = &stop, .accounting = true };
	make_direct(&l1, &w);
	make_direct(&l2, &w);
	CHECK(strcmp(sl_link_kind(&l1), "direct") == 0, "kind %s", sl_link_kind(&l1));

	trace[0] = '\0';
	sl_worker_breathe(&w);   /* breath 0: timed */
	CHECK(strcmp(trace, "a:take end:take ") == 0, "calls '%s'", trace);
	CHECK(end.stats.out_packets == 32 && de->out_of_order == 0, "end got %lu, %u out of order",
	      (unsigned long)end.stats.out_packets, de->out_of_order);
	CHECK(l1.tx.packets == 32 && l1.rx.packets == 32 && l2.tx.packets == 32 &&
	      l2.rx.packets == 32 && l2.rx.bytes == 32 * 60 && l1.write == 0 && l2.write == 0,
	      "links %lu/%lu, %lu/%lu/%lu bytes, queued %u, %u", (unsigned long)l1.tx.packets,
	      (unsigned long)l1.rx.packets, (unsigned long)l2.tx.packets,
	      (unsigned long)l2.rx.packets, (unsigned long)l2.rx.bytes, l1.write, l2.write);
	CHECK(a.rt.push_calls == 1 && a.rt.push_packets == 32 && end.rt.push_calls == 1 &&
	      end.rt.push_packets == 32 && g.rt.pull_calls == 1 && g.rt.pull_packets == 32,
	      "charged calls/packets: gen %lu/%lu, a %lu/%lu, end %lu/%lu",
	      (unsigned long)g.rt.pull_calls, (unsigned long)g.rt.pull_packets,
	      (unsigned long)a.rt.push_calls, (unsigned long)a.rt.push_packets,
	      (unsigned long)end.rt.push_calls, (unsigned long)end.rt.push_packets);
	uint64_t sum = g.rt.pull_cycles + a.rt.push_cycles + end.rt.push_cycles;
	CHECK(end.rt.push_cycles >= de->spun && de->spun >= de->spin && sum <= w.timed_cycles,
	      "cycles: gen %lu, a %lu, end %lu (spun %lu), breath %lu",
	      (unsigned long)g.rt.pull_cycles, (unsigned long)a.rt.push_cycles,
	      (unsigned long)end.rt.push_cycles, (unsigned long)de->spun,
	      (unsigned long)w.timed_cycles);
	de->spin = 0;

	/* Outside a breath (the drain at stop): not charged; the worker's
	 * step is never the take's (it runs within its caller's). */
	w.acct_now = 0;
	w.at = 12345;
	sgen_pull(&g);
	CHECK(w.at == 12345 && a.rt.push_calls == 1 && end.stats.out_packets == 64,
	      "outside a breath: at %lu, a's calls %lu, end got %lu", (unsigned long)w.at,
	      (unsigned long)a.rt.push_calls, (unsigned long)end.stats.out_packets);

	/* 32 queued on l1 by sl_link_enqueue (a reload's move), then a
	 * breath: gen's last 4 queue behind them and a's push takes them all. */
	struct rte_mbuf *q[32];
	CHECK(rte_pktmbuf_alloc_bulk(pool, q, 32) == 0, "no mbufs");
	for (unsigned i = 0; i < 32; i++)
		*(uint32_t *)rte_pktmbuf_append(q[i], 60) = dg->seq++;
	dg->left -= 32;
	trace[0] = '\0';
	sl_link_enqueue(&l1, q, 32);
	CHECK(l1.write - l1.read == 32 && trace[0] == '\0' && l1.tx.packets == 96,
	      "enqueued: %u queued, calls '%s', tx %lu", l1.write - l1.read, trace,
	      (unsigned long)l1.tx.packets);
	trace[0] = '\0';
	sl_worker_breathe(&w);
	CHECK(strcmp(trace, "a end:take a end:take ") == 0, "calls '%s'", trace);
	CHECK(((struct dt_priv *)a.priv)->sized == 0 && de->sized == 4,
	      "takes given the bytes: a %u (gen adds none up), end %u of 4",
	      ((struct dt_priv *)a.priv)->sized, de->sized);
	CHECK(l1.write == l1.read && end.stats.out_packets == 100 && de->out_of_order == 0 &&
	      l1.tx.packets == 100 && l1.rx.packets == 100 && l2.tx.packets == 100 &&
	      l2.rx.packets == 100 && l2.rx.bytes == 100 * 60,
	      "left %u, end got %lu (%u out of order); links %lu/%lu, %lu/%lu",
	      l1.write - l1.read, (unsigned long)end.stats.out_packets, de->out_of_order,
	      (unsigned long)l1.tx.packets, (unsigned long)l1.rx.packets,
	      (unsigned long)l2.tx.packets, (unsigned long)l2.rx.packets);
	free(l1.slots);
	free(l2.slots);
	free(g.priv); free(a.priv); free(end.priv);
}

static int setup(void)
{
	char prefix[32];
	snprintf(prefix, sizeof(prefix), "tw%d", (int)getpid());
	char *argv[] = { "test_worker", "--no-huge", "-m", "128", "--no-pci", "--file-prefix",
			 prefix, "--log-level", "lib.eal:error", "-l", "0", NULL };
	if (rte_eal_init(11, argv) < 0) {
		printf("SKIP: cannot initialise DPDK's EAL\n");
		return 77;
	}
	pool = rte_pktmbuf_pool_create("tw", 1023, 0, 0, 2048 + RTE_PKTMBUF_HEADROOM,
				       SOCKET_ID_ANY);
	if (pool == NULL) {
		printf("FAIL: cannot create a pool\n");
		return 1;
	}
	return 0;
}

static void teardown(void)
{
	CHECK(rte_mempool_avail_count(pool) == 1023, "%u of 1023 mbufs back",
	      rte_mempool_avail_count(pool));
	rte_mempool_free(pool);
	rte_eal_cleanup();
}

static const struct sl_test_case cases[] = {
	SL_CASE(test_chain_one_breath),
	SL_CASE(test_rounds),
	SL_CASE(test_full_link_drops),
	SL_CASE(test_link_wrap),
	SL_CASE(test_epoch_in_breath),
	SL_CASE(test_where),
	SL_CASE(test_app_counters),
	SL_CASE(test_counter_registry),
	SL_CASE(test_pkts_free),
	SL_CASE(test_direct),
};

int main(int argc, char **argv)
{
	return sl_test_main_fixture(argc, argv, cases, SL_NCASES(cases), setup, teardown);
}
