/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Interlink across DPDK processes: the primary creates a ring; a secondary
 * process (this program run again with --proc-type=secondary and the same
 * --file-prefix) finds it by name, attaches the consumer and takes the first
 * numbers; the primary takes over the consumer for the rest; then a second
 * secondary attaches the producer by name and sends more.  Every number must
 * arrive once, in order.  The objects are integers cast to pointers.
 *
 * A secondary process needs hugepages: with --no-huge, DPDK 22.11 keeps no
 * hugepage_data file for a secondary to map, and its EAL init fails.  The
 * test uses hugepages when hugetlbfs is mounted with at least 32 MiB free,
 * and is skipped (77) when a secondary cannot start.
 */
#include <errno.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>

#include "interlink/interlink.h"
#include "interlink/interlink_worker.h"

#include "check.h"
#include "il_seq.h"

#define RING "mp"
#define N_SECONDARY 100000u
#define N_PRIMARY 20000u

/* Hugepages usable by DPDK: hugetlbfs mounted and >= 16 free 2 MiB pages. */
static bool have_hugepages(void)
{
	char line[256];
	bool mounted = false;
	long free_pages = 0;
	FILE *f = fopen("/proc/mounts", "r");
	if (f != NULL) {
		while (fgets(line, sizeof(line), f) != NULL)
			if (strstr(line, " hugetlbfs ") != NULL)
				mounted = true;
		fclose(f);
	}
	f = fopen("/proc/meminfo", "r");
	if (f != NULL) {
		while (fgets(line, sizeof(line), f) != NULL)
			sscanf(line, "HugePages_Free: %ld", &free_pages);
		fclose(f);
	}
	return mounted && free_pages >= 16;
}

static int eal_init(const char *prog, const char *prefix, bool secondary, bool huge)
{
	char *argv[16];
	int argc = 0;
	argv[argc++] = (char *)prog;
	argv[argc++] = huge ? "-m" : "--no-huge";
	argv[argc++] = huge ? "32" : "-m";
	if (!huge)
		argv[argc++] = "64";
	argv[argc++] = "--no-pci";
	argv[argc++] = "--file-prefix";
	argv[argc++] = (char *)prefix;
	argv[argc++] = secondary ? "--proc-type=secondary" : "--proc-type=primary";
	argv[argc++] = "--log-level";
	argv[argc++] = getenv("SL_TEST_EAL_DEBUG") ? "lib.eal:debug"
			: secondary ? "lib.eal:crit" : "lib.eal:error";
	argv[argc++] = "-l";
	argv[argc++] = "0";
	argv[argc] = NULL;
	return rte_eal_init(argc, argv);
}

/* Secondary: `role` is "consume" or "produce"; numbers first..first+count-1.
 * Exit status: 0 ok, 1 failure, 77 the EAL could not start. */
static int secondary(const char *prog, const char *prefix, bool huge, const char *role,
		     uintptr_t first, uintptr_t count, const cpu_set_t *cpus)
{
	if (eal_init(prog, prefix, true, huge) < 0) {
		printf("secondary %s: EAL init failed: %s\n", role, rte_strerror(rte_errno));
		return 77;
	}
	sched_setaffinity(0, sizeof(*cpus), cpus);
	struct sl_err err = { "" };
	struct sl_il *il = sl_il_lookup(RING, &err);
	if (il == NULL) {
		printf("FAIL secondary: lookup: %s\n", err.msg);
		return 1;
	}
	bool consume = strcmp(role, "consume") == 0;
	enum sl_il_end end = consume ? SL_IL_CONSUMER : SL_IL_PRODUCER;
	int rc;
	while ((rc = sl_il_attach(il, end)) == -EAGAIN)
		;
	if (rc != 0) {
		printf("FAIL secondary: attach %s: %d\n", role, rc);
		return 1;
	}
	void *objs[32];
	uintptr_t next = first, stop = first + count;
	uint64_t deadline = rte_rdtsc() + 60 * rte_get_tsc_hz();
	while (next < stop && rte_rdtsc() < deadline) {
		unsigned b = stop - next < 32 ? (unsigned)(stop - next) : 32, n;
		if (consume) {
			n = sl_il_dequeue_burst_publish(il, objs, b);
			for (unsigned k = 0; k < n; k++)
				if ((uintptr_t)objs[k] != next + k) {
					printf("FAIL secondary: expected %lu, got %lu\n",
					       (unsigned long)(next + k),
					       (unsigned long)(uintptr_t)objs[k]);
					return 1;
				}
		} else {
			for (unsigned k = 0; k < b; k++)
				objs[k] = (void *)(next + k);
			n = sl_il_enqueue_burst_publish(il, objs, b);
		}
		next += n;
		if (n == 0)
			sched_yield();
	}
	if (next != stop) {
		printf("FAIL secondary: timed out at %lu of %lu\n", (unsigned long)(next - first),
		       (unsigned long)count);
		return 1;
	}
	rc = sl_il_detach(il, end);
	rte_eal_cleanup();
	return rc == 0 ? 0 : 1;
}

static pid_t spawn(const char *self, const char *prefix, bool huge, const char *role,
		   uintptr_t first, uintptr_t count)
{
	char a[32], b[32];
	snprintf(a, sizeof(a), "%lu", (unsigned long)first);
	snprintf(b, sizeof(b), "%lu", (unsigned long)count);
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		execl(self, self, "--secondary", prefix, huge ? "huge" : "nohuge", role, a, b,
		      (char *)NULL);
		_exit(1);
	}
	return pid;
}

int main(int argc, char **argv)
{
	/* The EAL pins its main thread to one CPU; keep the starting set for the
	 * secondary so that the two ends can run in parallel. */
	cpu_set_t cpus;
	sched_getaffinity(0, sizeof(cpus), &cpus);
	if (argc == 7 && strcmp(argv[1], "--secondary") == 0)
		return secondary(argv[0], argv[2], strcmp(argv[3], "huge") == 0, argv[4],
				 strtoul(argv[5], NULL, 10), strtoul(argv[6], NULL, 10), &cpus);

	char self[4096];
	ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (len <= 0) {
		printf("FAIL: cannot find this program's path\n");
		return 1;
	}
	self[len] = '\0';
	char prefix[32];
	snprintf(prefix, sizeof(prefix), "tilm%d", (int)getpid());
	bool huge = have_hugepages();
	if (eal_init(argv[0], prefix, false, huge) < 0) {
		printf("SKIP: cannot initialise DPDK's EAL\n");
		return 77;
	}
	struct sl_err err = { "" };
	struct sl_il *il = sl_il_create(RING, &(struct sl_il_config){ .size = 512,
			.socket = SOCKET_ID_ANY }, &err);
	if (il == NULL) {
		printf("FAIL: create: %s\n", err.msg);
		return 1;
	}
	CHECK(sl_il_attach(il, SL_IL_PRODUCER) == 0, "primary attaches the producer");

	/* 1. A secondary consumes 1..N_SECONDARY, then the primary the rest. */
	pid_t pid = spawn(self, prefix, huge, "consume", 1, N_SECONDARY);
	uintptr_t total = N_SECONDARY + N_PRIMARY, next_in = 1;
	void *objs[32];
	int st = -1;
	uint64_t deadline = rte_rdtsc() + 120 * rte_get_tsc_hz();
	while (rte_rdtsc() < deadline) {
		if (next_in <= total) {
			unsigned b = total - next_in + 1 < 32 ? (unsigned)(total - next_in + 1) : 32;
			for (unsigned k = 0; k < b; k++)
				objs[k] = (void *)(next_in + k);
			unsigned n = sl_il_enqueue_burst_publish(il, objs, b);
			next_in += n;
			if (n > 0)
				continue;
		}
		if (waitpid(pid, &st, WNOHANG) == pid)
			break;
		sched_yield();
	}
	if (WIFEXITED(st) && WEXITSTATUS(st) == 77) {
		printf("SKIP: a DPDK secondary process cannot start here (%s); it needs "
		       "hugetlbfs with free hugepages\n",
		       huge ? "EAL init failed; SL_TEST_EAL_DEBUG=1 shows why"
			    : "no hugepages, and --no-huge memory cannot be attached");
		sl_il_detach(il, SL_IL_PRODUCER);
		sl_il_drain(il, NULL, NULL);
		sl_il_free(il);
		rte_eal_cleanup();
		return 77;
	}
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "secondary consumer exit status %d", st);
	CHECK(sl_il_attach(il, SL_IL_CONSUMER) == 0, "primary takes the consumer over");
	uintptr_t next_out = il_seq_finish(il, next_in, N_SECONDARY + 1, total, deadline,
					   "primary after the secondary");
	CHECK(next_out == total + 1, "primary received up to %lu", (unsigned long)next_out - 1);

	/* 2. A secondary attaches the producer by name and sends N_SECONDARY more. */
	CHECK(sl_il_detach(il, SL_IL_PRODUCER) == 0, "primary detaches the producer");
	uintptr_t end = total + 1 + N_SECONDARY;
	bool exited = false;
	/* A secondary's EAL can fail to map the primary's memory at the same
	 * addresses now and then (address-space layout, sanitizer shadows): one
	 * that could not start (77) and sent nothing is started again. */
	for (unsigned attempt = 0; attempt < 5; attempt++) {
		exited = false;
		pid = spawn(self, prefix, huge, "produce", total + 1, N_SECONDARY);
		while (next_out < end && rte_rdtsc() < deadline) {
			unsigned n = sl_il_dequeue_burst_publish(il, objs, 32);
			if (n == 0) {
				/* The producer gone and the ring empty: nothing more comes. */
				if (exited)
					break;
				exited = waitpid(pid, &st, WNOHANG) == pid;
				sched_yield();
			}
			for (unsigned k = 0; k < n; k++, next_out++)
				if ((uintptr_t)objs[k] != next_out) {
					CHECK(0, "from the secondary producer: expected %lu, got %lu",
					      (unsigned long)next_out, (unsigned long)(uintptr_t)objs[k]);
					next_out = end;
					break;
				}
		}
		if (!exited)
			waitpid(pid, &st, 0);
		if (!(WIFEXITED(st) && WEXITSTATUS(st) == 77 && next_out == total + 1))
			break;
		printf("secondary producer: its EAL could not start (attempt %u); again\n", attempt + 1);
	}
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "secondary producer exit status %d", st);
	CHECK(next_out == end, "received up to %lu of %lu", (unsigned long)next_out - 1,
	      (unsigned long)end - 1);

	struct sl_il_stats s;
	sl_il_stats_read(il, &s);
	CHECK(s.packets == end - 1 && s.dequeued == end - 1, "counters: %lu in, %lu out",
	      (unsigned long)s.packets, (unsigned long)s.dequeued);
	CHECK(sl_il_detach(il, SL_IL_CONSUMER) == 0, "detach consumer");
	CHECK(sl_il_drain(il, NULL, NULL) == 0, "nothing left");
	CHECK(sl_il_free(il) == 0, "free");
	rte_eal_cleanup();
	if (failures == 0)
		printf("ok: interlink across DPDK processes\n");
	return failures ? 1 : 0;
}
