/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Interlink under two (and four) threads.  Objects are sequence numbers cast
 * to pointers; the consumer checks every one.
 *
 *  1. stream: one producer and one consumer thread with random burst sizes
 *     (the consumer's dequeues plain or filling at random; so in churn)
 *     and a random number of bursts per publish (as workers batch a breath),
 *     for ring sizes 2, 64 and 1024, while a third thread reads the counters.
 *  2. churn: two producer threads compete for the producer end and two
 *     consumer threads for the consumer end; whoever attaches runs a random
 *     number of bursts, detaches and lets the other try.  The next sequence
 *     number of each end is a plain variable handed from thread to thread
 *     only by detach/attach, so ThreadSanitizer checks that the state machine
 *     orders the hand-over.
 *
 * Each phase runs for a fixed time, so the test takes the same wall time
 * under ThreadSanitizer; it asserts that traffic moved, not how fast.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rte_eal.h>

#include "interlink/interlink.h"
#include "interlink/interlink_worker.h"

#include "check.h"

#define MAX_BURST 64
#define STREAM_SECONDS 0.7
#define CHURN_SECONDS 1.5

static cpu_set_t cpus; /* the CPUs this process started with */

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void start(pthread_t *t, void *(*fn)(void *), void *arg)
{
	pthread_attr_t a;
	pthread_attr_init(&a);
	/* The EAL pinned the main thread to one CPU; the test threads get all
	 * the CPUs the process started with. */
	pthread_attr_setaffinity_np(&a, sizeof(cpus), &cpus);
	if (pthread_create(t, &a, fn, arg) != 0) {
		printf("FAIL: pthread_create\n");
		exit(1);
	}
	pthread_attr_destroy(&a);
}

/* 1. stream */

struct stream {
	struct sl_il *il;
	double until;
	unsigned seed;
	uint64_t sent;          /* written by the producer before it exits */
	uint64_t received;      /* written by the consumer before it exits */
	int done;               /* producer finished (atomic) */
	int stop_reader;        /* atomic */
	uint64_t reads;         /* counter snapshots taken by the reader */
};

static void *stream_producer(void *arg)
{
	struct stream *st = arg;
	unsigned seed = st->seed;
	void *objs[MAX_BURST];
	uint64_t next = 1;      /* sequence number of the next object to be taken */
	unsigned held = 0;      /* objs[0..held) were refused: offered again first */
	unsigned pending = 0, batch = 1;

	CHECK(sl_il_attach(st->il, SL_IL_PRODUCER) == 0, "attach producer");
	while (now_s() < st->until) {
		for (int i = 0; i < 64; i++) {
			unsigned b = held;
			if (b == 0) {
				b = 1 + (unsigned)rand_r(&seed) % MAX_BURST;
				for (unsigned k = 0; k < b; k++)
					objs[k] = (void *)(uintptr_t)(next + k);
			}
			unsigned n = sl_il_enqueue_burst(st->il, objs, b);
			next += n;
			held = b - n;
			memmove(objs, objs + n, held * sizeof(objs[0]));
			if (++pending >= batch || held > 0) {
				sl_il_publish_producer(st->il);
				pending = 0;
				batch = 1 + (unsigned)rand_r(&seed) % 4;
			}
			if (held > 0)
				sched_yield();
		}
	}
	/* Objects still held were never taken: they do not count as sent. */
	CHECK(sl_il_detach(st->il, SL_IL_PRODUCER) == 0, "detach producer");
	st->sent = next - 1;
	__atomic_store_n(&st->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void *stream_consumer(void *arg)
{
	struct stream *st = arg;
	unsigned seed = st->seed * 31 + 7;
	void *objs[MAX_BURST];
	uint64_t next = 1;
	unsigned pending = 0, batch = 1;

	CHECK(sl_il_attach(st->il, SL_IL_CONSUMER) == 0, "attach consumer");
	for (;;) {
		bool done = __atomic_load_n(&st->done, __ATOMIC_ACQUIRE);
		unsigned max = 1 + (unsigned)rand_r(&seed) % MAX_BURST;
		/* the plain and the filling dequeue, mixed */
		unsigned n = rand_r(&seed) % 2 ? sl_il_dequeue_burst_fill(st->il, objs, max)
					      : sl_il_dequeue_burst(st->il, objs, max);
		for (unsigned k = 0; k < n; k++, next++)
			if ((uintptr_t)objs[k] != next) {
				CHECK(0, "stream: expected %lu, got %lu", (unsigned long)next,
				      (unsigned long)(uintptr_t)objs[k]);
				goto out;
			}
		if (++pending >= batch || n == 0) {
			sl_il_publish_consumer(st->il);
			pending = 0;
			batch = 1 + (unsigned)rand_r(&seed) % 4;
		}
		/* The producer detached (published everything) before `done`. */
		if (n == 0 && done && sl_il_empty_hint(st->il))
			break;
		if (n == 0)
			sched_yield();
	}
out:
	sl_il_publish_consumer(st->il);
	CHECK(sl_il_detach(st->il, SL_IL_CONSUMER) == 0, "detach consumer");
	st->received = next - 1;
	return NULL;
}

static void *stream_reader(void *arg)
{
	struct stream *st = arg;
	struct sl_il_stats s;
	uint64_t last_dequeued = 0;
	while (!__atomic_load_n(&st->stop_reader, __ATOMIC_ACQUIRE)) {
		sl_il_stats_read(st->il, &s);
		CHECK(s.dequeued >= last_dequeued, "counters never go back");
		CHECK(s.occupancy <= s.size && s.occupancy_hwm <= s.size, "occupancy %u hwm %u",
		      s.occupancy, s.occupancy_hwm);
		last_dequeued = s.dequeued;
		st->reads++;
		usleep(1000);
	}
	return NULL;
}

static void test_stream(uint32_t size, uint32_t sample, unsigned seed)
{
	char name[32];
	snprintf(name, sizeof(name), "st%u_%u", size, sample);
	struct sl_err err = { "" };
	struct stream st = { .seed = seed };
	st.il = sl_il_create(name, &(struct sl_il_config){ .size = size, .socket = SOCKET_ID_ANY,
			.sample_every = sample }, &err);
	if (st.il == NULL) {
		CHECK(0, "create: %s", err.msg);
		return;
	}
	st.until = now_s() + STREAM_SECONDS;
	pthread_t p, c, r;
	start(&c, stream_consumer, &st);
	start(&p, stream_producer, &st);
	start(&r, stream_reader, &st);
	pthread_join(p, NULL);
	pthread_join(c, NULL);
	__atomic_store_n(&st.stop_reader, 1, __ATOMIC_RELEASE);
	pthread_join(r, NULL);

	struct sl_il_stats s;
	sl_il_stats_read(st.il, &s);
	CHECK(st.sent > 1000, "%s: only %lu objects moved", name, (unsigned long)st.sent);
	CHECK(st.received == st.sent, "%s: sent %lu, received %lu", name, (unsigned long)st.sent,
	      (unsigned long)st.received);
	CHECK(s.packets == st.sent && s.dequeued == st.sent, "%s: counters %lu in, %lu out", name,
	      (unsigned long)s.packets, (unsigned long)s.dequeued);
	CHECK(s.sojourn_samples == (st.sent + sample - 1) / sample, "%s: %lu samples for %lu",
	      name, (unsigned long)s.sojourn_samples, (unsigned long)st.sent);
	CHECK(s.occupancy == 0 && s.occupancy_hwm > 0 && s.occupancy_hwm <= size,
	      "%s: occupancy %u, high-water %u", name, s.occupancy, s.occupancy_hwm);
	CHECK(sl_il_drain(st.il, NULL, NULL) == 0, "%s: nothing left", name);
	CHECK(sl_il_free(st.il) == 0, "%s: free", name);
	printf("stream size %-4u: %lu objects, %lu refused, high-water %u, %lu counter reads\n",
	       size, (unsigned long)st.sent, (unsigned long)s.refused, s.occupancy_hwm,
	       (unsigned long)st.reads);
}

/* 2. churn */

struct churn {
	struct sl_il *il;
	double until;
	/* Touched only by the thread that holds the matching end. */
	uint64_t next_in;
	uint64_t next_out;
	/* atomics */
	uint64_t total;         /* set once the producers stop */
	int producers_done;
	int consumers_done;
	uint64_t handovers[2];
};

struct churn_thread {
	struct churn *ch;
	unsigned seed;
	unsigned attaches;
};

static void *churn_producer(void *arg)
{
	struct churn_thread *t = arg;
	struct churn *ch = t->ch;
	void *objs[MAX_BURST];

	while (!__atomic_load_n(&ch->producers_done, __ATOMIC_ACQUIRE)) {
		int rc = sl_il_attach(ch->il, SL_IL_PRODUCER);
		if (rc != 0) {
			CHECK(rc == -EBUSY || rc == -EAGAIN, "producer attach: %d", rc);
			sched_yield();
			continue;
		}
		t->attaches++;
		if (__atomic_load_n(&ch->producers_done, __ATOMIC_ACQUIRE)) {
			sl_il_detach(ch->il, SL_IL_PRODUCER);
			break;
		}
		unsigned bursts = 1 + (unsigned)rand_r(&t->seed) % 200;
		for (unsigned i = 0; i < bursts; i++) {
			unsigned b = 1 + (unsigned)rand_r(&t->seed) % MAX_BURST;
			for (unsigned k = 0; k < b; k++)
				objs[k] = (void *)(uintptr_t)(ch->next_in + k);
			unsigned n = sl_il_enqueue_burst(ch->il, objs, b);
			ch->next_in += n;
			if (rand_r(&t->seed) % 3 == 0 || n < b)
				sl_il_publish_producer(ch->il);
			if (n < b)
				sched_yield();
		}
		/* Objects may be left unpublished here: detach must publish them.
		 * The last producer records the total while it still holds the
		 * end, so no other producer can add to it afterwards. */
		if (now_s() >= ch->until) {
			__atomic_store_n(&ch->total, ch->next_in - 1, __ATOMIC_RELAXED);
			__atomic_store_n(&ch->producers_done, 1, __ATOMIC_RELEASE);
		}
		__atomic_add_fetch(&ch->handovers[SL_IL_PRODUCER], 1, __ATOMIC_RELAXED);
		CHECK(sl_il_detach(ch->il, SL_IL_PRODUCER) == 0, "producer detach");
		sched_yield();
	}
	return NULL;
}

static void *churn_consumer(void *arg)
{
	struct churn_thread *t = arg;
	struct churn *ch = t->ch;
	void *objs[MAX_BURST];

	while (!__atomic_load_n(&ch->consumers_done, __ATOMIC_ACQUIRE)) {
		int rc = sl_il_attach(ch->il, SL_IL_CONSUMER);
		if (rc != 0) {
			CHECK(rc == -EBUSY || rc == -EAGAIN, "consumer attach: %d", rc);
			sched_yield();
			continue;
		}
		t->attaches++;
		unsigned bursts = 1 + (unsigned)rand_r(&t->seed) % 200;
		for (unsigned i = 0; i < bursts; i++) {
			bool done = __atomic_load_n(&ch->producers_done, __ATOMIC_ACQUIRE);
			unsigned max = 1 + (unsigned)rand_r(&t->seed) % MAX_BURST;
			unsigned n = rand_r(&t->seed) % 2 ? sl_il_dequeue_burst_fill(ch->il, objs, max)
							 : sl_il_dequeue_burst(ch->il, objs, max);
			for (unsigned k = 0; k < n; k++, ch->next_out++)
				if ((uintptr_t)objs[k] != ch->next_out) {
					CHECK(0, "churn: expected %lu, got %lu",
					      (unsigned long)ch->next_out,
					      (unsigned long)(uintptr_t)objs[k]);
					__atomic_store_n(&ch->consumers_done, 1, __ATOMIC_RELEASE);
					break;
				}
			if (rand_r(&t->seed) % 3 == 0)
				sl_il_publish_consumer(ch->il);
			if (n == 0 && done &&
			    ch->next_out > __atomic_load_n(&ch->total, __ATOMIC_RELAXED)) {
				__atomic_store_n(&ch->consumers_done, 1, __ATOMIC_RELEASE);
				break;
			}
			if (n == 0)
				sched_yield();
		}
		__atomic_add_fetch(&ch->handovers[SL_IL_CONSUMER], 1, __ATOMIC_RELAXED);
		CHECK(sl_il_detach(ch->il, SL_IL_CONSUMER) == 0, "consumer detach");
		sched_yield();
	}
	return NULL;
}

static void test_churn(uint32_t size)
{
	struct sl_err err = { "" };
	struct churn ch = { .next_in = 1, .next_out = 1 };
	ch.il = sl_il_create("churn", &(struct sl_il_config){ .size = size,
			.socket = SOCKET_ID_ANY, .sample_every = 8 }, &err);
	if (ch.il == NULL) {
		CHECK(0, "create: %s", err.msg);
		return;
	}
	ch.until = now_s() + CHURN_SECONDS;
	struct churn_thread t[4];
	pthread_t th[4];
	for (int i = 0; i < 4; i++) {
		t[i] = (struct churn_thread){ .ch = &ch, .seed = 100u + (unsigned)i };
		start(&th[i], i < 2 ? churn_producer : churn_consumer, &t[i]);
	}
	for (int i = 0; i < 4; i++)
		pthread_join(th[i], NULL);

	struct sl_il_stats s;
	sl_il_stats_read(ch.il, &s);
	uint64_t total = ch.total;
	CHECK(total > 1000, "churn: only %lu objects", (unsigned long)total);
	CHECK(ch.next_out == total + 1, "churn: received %lu of %lu", (unsigned long)ch.next_out - 1,
	      (unsigned long)total);
	CHECK(s.packets == total && s.dequeued == total, "churn: counters %lu in, %lu out",
	      (unsigned long)s.packets, (unsigned long)s.dequeued);
	CHECK(t[0].attaches > 0 && t[1].attaches > 0 && t[2].attaches > 0 && t[3].attaches > 0,
	      "every thread held its end at least once: %u %u %u %u", t[0].attaches,
	      t[1].attaches, t[2].attaches, t[3].attaches);
	CHECK(s.state[0] == SL_IL_DETACHED && s.state[1] == SL_IL_DETACHED, "both ends detached");
	CHECK(sl_il_drain(ch.il, NULL, NULL) == 0, "churn: nothing left");
	CHECK(sl_il_free(ch.il) == 0, "churn: free");
	printf("churn size %-4u: %lu objects, %lu producer and %lu consumer hand-overs "
	       "(attaches %u %u / %u %u)\n",
	       size, (unsigned long)total, (unsigned long)ch.handovers[0],
	       (unsigned long)ch.handovers[1], t[0].attaches, t[1].attaches, t[2].attaches,
	       t[3].attaches);
}

int main(void)
{
	sched_getaffinity(0, sizeof(cpus), &cpus);
	char prefix[32];
	snprintf(prefix, sizeof(prefix), "tils%d", (int)getpid());
	char *argv[] = { "test_interlink_stress", "--no-huge", "-m", "64", "--no-pci",
			 "--file-prefix", prefix, "--log-level", "lib.eal:error", "-l", "0", NULL };
	if (rte_eal_init(11, argv) < 0) {
		printf("SKIP: cannot initialise DPDK's EAL\n");
		return 77;
	}
	test_stream(2, 1, 1);
	test_stream(64, 4, 2);
	test_stream(1024, 64, 3);
	test_churn(16);
	test_churn(1024);
	rte_eal_cleanup();
	if (failures == 0)
		printf("ok: interlink stress\n");
	return failures ? 1 : 0;
}
