/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Interlink ends in two processes.  The parent creates a ring in EAL memory
 * and forks; the child (which makes no DPDK calls: it only uses the shared
 * mapping it inherited) attaches one end, moves sequence numbers, detaches,
 * and exits; the parent then takes the end over.  Checks that every number
 * arrives once and in order across the hand-overs, and that the attach state
 * machine works across processes.  (Attaching by name from a separate DPDK
 * secondary process is test_interlink_mp.)
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_memzone.h>

#include "interlink/interlink.h"
#include "interlink/interlink_worker.h"

#include "check.h"
#include "il_seq.h"

#define N_CHILD 100000u  /* numbers the child consumes */
#define N_PARENT 20000u  /* then the parent */
#define N_CHILD_TX 100000u /* then the child produces */

/* Child: consume N_CHILD numbers starting at 1.  Exit status 0 or 1. */
static int child_consume(struct sl_il *il)
{
	int rc;
	while ((rc = sl_il_attach(il, SL_IL_CONSUMER)) == -EAGAIN)
		;
	if (rc != 0) {
		printf("FAIL child: attach consumer: %d\n", rc);
		return 1;
	}
	if (il->ctrl.pid[SL_IL_CONSUMER] != getpid()) {
		printf("FAIL child: the consumer's pid is not the child's\n");
		return 1;
	}
	void *out[32];
	uintptr_t next = 1;
	while (next <= N_CHILD) {
		unsigned max = N_CHILD - next + 1 < 32 ? (unsigned)(N_CHILD - next + 1) : 32;
		unsigned n = sl_il_dequeue_burst_publish(il, out, max);
		if (n == 0)
			sched_yield(); /* the machine may have fewer free cores than threads */
		for (unsigned k = 0; k < n; k++, next++)
			if ((uintptr_t)out[k] != next) {
				printf("FAIL child: expected %lu, got %lu\n", (unsigned long)next,
				       (unsigned long)(uintptr_t)out[k]);
				return 1;
			}
	}
	return sl_il_detach(il, SL_IL_CONSUMER) == 0 ? 0 : 1;
}

/* Child: produce N_CHILD_TX numbers starting at `first`. */
static int child_produce(struct sl_il *il, uintptr_t first)
{
	if (sl_il_attach(il, SL_IL_PRODUCER) != 0) {
		printf("FAIL child: attach producer\n");
		return 1;
	}
	void *in[32];
	uintptr_t next = first, end = first + N_CHILD_TX;
	while (next < end) {
		unsigned b = end - next < 32 ? (unsigned)(end - next) : 32;
		for (unsigned k = 0; k < b; k++)
			in[k] = (void *)(next + k);
		unsigned n = sl_il_enqueue_burst(il, in, b);
		sl_il_publish_producer(il);
		if (n == 0)
			sched_yield();
		next += n;
	}
	return sl_il_detach(il, SL_IL_PRODUCER) == 0 ? 0 : 1;
}

static int wait_child(pid_t pid)
{
	int st;
	if (waitpid(pid, &st, 0) != pid)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* Does a forked child's store reach the parent's view of EAL memory?  True
 * when DPDK mapped it shared (--no-huge uses a memfd; hugepages are shared). */
static bool eal_memory_is_shared(void)
{
	const struct rte_memzone *z = rte_memzone_reserve("tilf_probe", 64, SOCKET_ID_ANY, 0);
	if (z == NULL)
		return false;
	volatile uint64_t *w = z->addr;
	*w = 0;
	pid_t pid = fork();
	if (pid == 0) {
		*w = 0x5eed;
		_exit(0);
	}
	bool shared = pid > 0 && wait_child(pid) == 0 && *w == 0x5eed;
	rte_memzone_free(z);
	return shared;
}

int main(void)
{
	/* The EAL pins this thread to one CPU; the children get the CPUs this
	 * process started with, so the two ends can run in parallel. */
	cpu_set_t cpus;
	sched_getaffinity(0, sizeof(cpus), &cpus);
	char prefix[32];
	snprintf(prefix, sizeof(prefix), "tilf%d", (int)getpid());
	char *argv[] = { "test_interlink_fork", "--no-huge", "-m", "64", "--no-pci", "--file-prefix",
			 prefix, "--log-level", "lib.eal:error", "-l", "0", NULL };
	if (rte_eal_init(11, argv) < 0) {
		printf("SKIP: cannot initialise DPDK's EAL\n");
		return 77;
	}
	if (!eal_memory_is_shared()) {
		printf("SKIP: DPDK's memory is private to this process here, so a forked child "
		       "cannot share a ring\n");
		rte_eal_cleanup();
		return 77;
	}

	struct sl_err err = { "" };
	struct sl_il *il = sl_il_create("fork", &(struct sl_il_config){ .size = 256,
			.socket = SOCKET_ID_ANY, .sample_every = 16 }, &err);
	if (il == NULL) {
		printf("FAIL: create: %s\n", err.msg);
		return 1;
	}
	CHECK(sl_il_attach(il, SL_IL_PRODUCER) == 0, "parent attaches the producer");

	/* 1. The child consumes the first N_CHILD numbers while the parent
	 * produces; then the parent consumes the rest. */
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		alarm(120);
		sched_setaffinity(0, sizeof(cpus), &cpus);
		_exit(child_consume(il));
	}
	CHECK(pid > 0, "fork");
	void *in[32], *out[32];
	uintptr_t next_in = 1, total = N_CHILD + N_PARENT;
	int st = -1;
	uint64_t deadline = rte_rdtsc() + 120 * rte_get_tsc_hz();
	while (rte_rdtsc() < deadline) {
		if (next_in <= total) {
			unsigned b = 1 + (unsigned)(next_in % 32);
			if (b > total - next_in + 1)
				b = (unsigned)(total - next_in + 1);
			for (unsigned k = 0; k < b; k++)
				in[k] = (void *)(next_in + k);
			unsigned n = sl_il_enqueue_burst_publish(il, in, b);
			next_in += n;
			if (n > 0)
				continue;
		}
		if (waitpid(pid, &st, WNOHANG) == pid)
			break;
		sched_yield();
	}
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child consumer exit status %d", st);
	CHECK(sl_il_state(il, SL_IL_CONSUMER) == SL_IL_DETACHED, "child detached the consumer");
	CHECK(sl_il_attach(il, SL_IL_CONSUMER) == 0, "parent attaches the consumer");
	uintptr_t next_out = il_seq_finish(il, next_in, N_CHILD + 1, total, deadline,
					   "parent after the child");
	CHECK(next_out == total + 1, "parent received up to %lu of %lu", (unsigned long)next_out - 1,
	      (unsigned long)total);

	/* 2. The parent hands the producer to a second child and consumes. */
	CHECK(sl_il_detach(il, SL_IL_PRODUCER) == 0, "parent detaches the producer");
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		alarm(120);
		sched_setaffinity(0, sizeof(cpus), &cpus);
		_exit(child_produce(il, total + 1));
	}
	uintptr_t end = total + 1 + N_CHILD_TX;
	while (next_out < end && rte_rdtsc() < deadline) {
		unsigned n = sl_il_dequeue_burst(il, out, 1 + (unsigned)(next_out % 32));
		if (n == 0)
			sched_yield();
		for (unsigned k = 0; k < n; k++, next_out++)
			if ((uintptr_t)out[k] != next_out) {
				CHECK(0, "from the child producer: expected %lu, got %lu",
				      (unsigned long)next_out, (unsigned long)(uintptr_t)out[k]);
				next_out = end;
				break;
			}
		sl_il_publish_consumer(il);
	}
	st = wait_child(pid);
	CHECK(st == 0, "child producer exit status %d", st);
	CHECK(next_out == end, "received up to %lu of %lu", (unsigned long)next_out - 1,
	      (unsigned long)end - 1);

	struct sl_il_stats s;
	sl_il_stats_read(il, &s);
	CHECK(s.packets == end - 1 && s.dequeued == end - 1, "counters: %lu in, %lu out",
	      (unsigned long)s.packets, (unsigned long)s.dequeued);
	CHECK(s.sojourn_samples == (end - 1) / 16, "samples %lu", (unsigned long)s.sojourn_samples);
	CHECK(s.state[SL_IL_PRODUCER] == SL_IL_DETACHED && s.pid[SL_IL_PRODUCER] == 0,
	      "the child left the producer detached");

	CHECK(sl_il_detach(il, SL_IL_CONSUMER) == 0, "detach consumer");
	CHECK(sl_il_drain(il, NULL, NULL) == 0, "nothing left");
	CHECK(sl_il_free(il) == 0, "free");
	rte_eal_cleanup();
	if (failures == 0)
		printf("ok: interlink across fork\n");
	return failures ? 1 : 0;
}
