/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Latency probes: what apps/probe/probe_source.c writes into a frame and
 * apps/probe/probe_sink.c reads back, the sink's per-stream sequence check, and the
 * check that the TSC can be used to stamp packets at all.
 *
 * The stamp.  A probe frame is Ethernet/IPv4/UDP (a valid frame, 60 bytes at
 * least) with
 *     UDP destination port  SL_PROBE_UDP_PORT
 *     UDP source port       the stream id
 * and right after the UDP header (offset 42), in host byte order:
 *     42  uint16  SL_PROBE_MAGIC
 *     44  uint64  sequence number within the stream, from 0
 *     52  uint64  TSC when the frame was handed to its output link
 * so the stamp ends at byte 60, the smallest frame.  A stream is one output
 * of one probe_source: id = app index x SL_MAX_PORTS + output number (mod
 * 2^16).  TSC values mean something only on the machine that wrote them.
 *
 * Nothing here allocates, prints or touches DPDK state; the functions can be
 * used without an EAL (the unit tests do).
 */
#ifndef SL_PROBE_H
#define SL_PROBE_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_config.h>

#include "base/err.h"

#define SL_PROBE_UDP_PORT 0x51ceu
#define SL_PROBE_MAGIC 0x7e57u
#define SL_PROBE_OFF_MAGIC 42u
#define SL_PROBE_OFF_SEQ 44u
#define SL_PROBE_OFF_TSC 52u
#define SL_PROBE_LEN 60u           /* headers and stamp: the smallest probe */
#define SL_PROBE_OFF_DST_PORT 36u  /* UDP destination port (network order) */
#define SL_PROBE_OFF_SRC_PORT 34u  /* UDP source port = stream id (network order) */

/*
 * Per-stream sequence check.
 *
 * `next` is one more than the highest sequence number seen (the first
 * expected number before any packet).  For each packet with sequence s:
 *
 *   s == next   in order.
 *   s >  next   a gap: the s - next numbers skipped are counted in `lost`.
 *   s <  next   late: counted in `reordered`, and then
 *                 - within the window (next - s <= SL_SEQ_WINDOW) and not
 *                   seen before: it fills a gap, so `lost` falls by one;
 *                 - within the window and seen before: also counted in
 *                   `duplicates` (`lost` unchanged);
 *                 - older than the window: also counted in `stale`; it is
 *                   assumed to fill a gap (`lost` falls by one, never below
 *                   zero), since it cannot be told from a duplicate.
 *
 * So at any time `lost` is the number of sequence numbers below `next` not
 * received (exactly, while nothing arrives more than SL_SEQ_WINDOW late), and
 * `reordered` the number of packets that arrived late: numbered below `next`,
 * i.e. not above the highest number already received on their stream
 * (duplicates included).  Numbers before the start (sl_seq_init's `first`) count as
 * already seen.  Comparisons are modulo 2^64, so a stream may wrap.
 */
#define SL_SEQ_WINDOW 1024u

struct sl_seq {
	uint64_t next;
	uint64_t lost;
	uint64_t reordered;
	uint64_t duplicates;
	uint64_t stale;
	uint64_t seen[SL_SEQ_WINDOW / 64];   /* bit s mod WINDOW for s in [next - WINDOW, next) */
};

static inline void sl_seq_init(struct sl_seq *s, uint64_t first)
{
	memset(s, 0, sizeof(*s));
	s->next = first;
	memset(s->seen, 0xff, sizeof(s->seen));
}

static inline void sl_seq_mark(struct sl_seq *s, uint64_t seq)
{
	s->seen[(seq % SL_SEQ_WINDOW) / 64] |= UINT64_C(1) << (seq % 64);
}

static inline bool sl_seq_was_seen(const struct sl_seq *s, uint64_t seq)
{
	return (s->seen[(seq % SL_SEQ_WINDOW) / 64] >> (seq % 64)) & 1;
}

static inline void sl_seq_check(struct sl_seq *s, uint64_t seq)
{
	int64_t ahead = (int64_t)(seq - s->next);

	if (ahead == 0) {
		sl_seq_mark(s, seq);
		s->next = seq + 1;
	} else if (ahead > 0) {
		s->lost += (uint64_t)ahead;
		if ((uint64_t)ahead >= SL_SEQ_WINDOW) {
			memset(s->seen, 0, sizeof(s->seen));
		} else {
			for (uint64_t x = s->next; x != seq; x++)
				s->seen[(x % SL_SEQ_WINDOW) / 64] &= ~(UINT64_C(1) << (x % 64));
		}
		sl_seq_mark(s, seq);
		s->next = seq + 1;
	} else {
		s->reordered++;
		if ((uint64_t)-ahead <= SL_SEQ_WINDOW) {
			if (sl_seq_was_seen(s, seq)) {
				s->duplicates++;
			} else {
				sl_seq_mark(s, seq);
				s->lost--;
			}
		} else {
			s->stale++;
			if (s->lost > 0)
				s->lost--;
		}
	}
}

/*
 * Invariant TSC.  Latency stamps compare TSC values taken on different cores
 * at different times, which is right only where the TSC runs at a constant
 * rate in every P- and C-state: the x86 flags constant_tsc and nonstop_tsc.
 * sl_probe_check_tsc reads /proc/cpuinfo, or the file named by the
 * environment variable SLUICE_CPUINFO, and requires both flags on every
 * "flags" line (every CPU).  On other architectures the time stamp counter
 * DPDK reads is architecturally constant and nothing is checked.
 *
 * Returns 0, or -ENOTSUP (not invariant) or -errno (unreadable file) with a
 * sentence in err.
 */
#define SL_PROBE_CPUINFO_ENV "SLUICE_CPUINFO"

/* Does the space-separated list `list` contain `word`? */
static inline bool sl_probe_has_word(const char *list, const char *word)
{
	size_t len = strlen(word);
	for (const char *p = strstr(list, word); p != NULL; p = strstr(p + 1, word)) {
		bool start = p == list || p[-1] == ' ' || p[-1] == '\t' || p[-1] == ':';
		char end = p[len];
		if (start && (end == '\0' || end == ' ' || end == '\t' || end == '\n'))
			return true;
	}
	return false;
}

static inline int sl_probe_check_tsc_file(const char *path, struct sl_err *err)
{
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0;
	unsigned flag_lines = 0;
	bool invariant = true;

	if (f == NULL)
		return sl_errf(err, errno,
			       "cannot read %s to check that the TSC is invariant: %s",
			       path, strerror(errno));
	while (getline(&line, &cap, f) >= 0) {
		if (strncmp(line, "flags", 5) != 0 || strchr(line, ':') == NULL)
			continue;
		flag_lines++;
		const char *list = strchr(line, ':') + 1;
		if (!sl_probe_has_word(list, "constant_tsc") ||
		    !sl_probe_has_word(list, "nonstop_tsc"))
			invariant = false;
	}
	free(line);
	fclose(f);
	if (flag_lines == 0 || !invariant)
		return sl_errf(err, ENOTSUP,
			       "the TSC is not invariant on this machine (no "
			       "constant_tsc/nonstop_tsc in %s); latency stamps would be wrong",
			       path);
	return 0;
}

static inline int sl_probe_check_tsc(struct sl_err *err)
{
#ifdef RTE_ARCH_X86
	const char *path = getenv(SL_PROBE_CPUINFO_ENV);
	return sl_probe_check_tsc_file(path != NULL && path[0] != '\0' ? path : "/proc/cpuinfo",
				       err);
#else
	(void)err;
	return 0;
#endif
}

#endif
