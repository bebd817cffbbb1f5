/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A prefetch for writing: asks for a cache line in a state this core may
 * write (other cores' copies invalidated), so that the stores that follow
 * do not each wait for the line's ownership.  Worth it for a line another
 * core has read since this one last wrote it (an mbuf's first line after a
 * packet crossed to another worker and came back through the pool): there
 * the store's wait is a round trip to the other core.
 *
 * On x86 this is the PREFETCHW instruction itself: the build's
 * -march=corei7 (DPDK's) makes __builtin_prefetch's write hint a PREFETCHT0,
 * which brings the line shared and leaves the ownership request to the
 * store.  CPUs without PREFETCHW (CPUID 0x80000001 ECX bit 8) get nothing:
 * sl_prefetchw_supported() says, once, whether to call it.  Elsewhere, the
 * compiler's write prefetch.
 *
 * A hint only: it never faults, and a wrong address costs a wasted fetch.
 * Any thread.
 */
#ifndef SL_PREFETCH_H
#define SL_PREFETCH_H

#include <stdbool.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

/* Whether sl_prefetchw() prefetches on this CPU (cheap; call it once at
 * setup and keep the answer). */
static inline bool sl_prefetchw_supported(void)
{
#if defined(__x86_64__) || defined(__i386__)
	unsigned a, b, c, d;

	return __get_cpuid(0x80000001u, &a, &b, &c, &d) != 0 && (c & (1u << 8)) != 0;
#else
	return true;
#endif
}

/* Prefetch p's line for writing.  Only where sl_prefetchw_supported(). */
static inline void sl_prefetchw(const void *p)
{
#if defined(__x86_64__) || defined(__i386__)
	__asm__ volatile("prefetchw %0" : : "m"(*(const char *)p));
#else
	__builtin_prefetch(p, 1, 3);
#endif
}

#endif /* SL_PREFETCH_H */
