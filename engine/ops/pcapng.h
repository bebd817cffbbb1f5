/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The blocks of a pcapng stream (the pcapng specification, IETF draft
 * draft-ietf-opsawg-pcapng): a section header, one interface description per
 * capture point (its name in if_name, nanosecond timestamps in if_tsresol),
 * enhanced packet blocks, and interface statistics at the end.  Written in
 * the host's byte order, which the section header's byte-order magic tells
 * readers.  libpcap reads pcapng but writes only pcap, and DPDK 22.11's
 * rte_pcapng names interfaces only after ethdev ports; a capture point is a
 * link between two apps, hence this writer.
 *
 * Each writing function appends one block at buf and returns its length, or
 * 0 when it does not fit in room (nothing written).  Pure functions: any
 * thread.
 */
#ifndef SL_PCAPNG_H
#define SL_PCAPNG_H

#include <stddef.h>
#include <stdint.h>

#define SL_PCAPNG_LINKTYPE_ETHERNET 1
#define SL_PCAPNG_EPB_OVERHEAD 32u    /* an enhanced packet block without its data */

/* Section header: hardware, os and application are strings (NULL: left out). */
size_t sl_pcapng_shb(void *buf, size_t room, const char *hardware, const char *os,
		     const char *application);

/* Interface description: Ethernet, snaplen, name (if_name), optional
 * description (if_description, NULL: left out), if_tsresol 9 (ns). */
size_t sl_pcapng_idb(void *buf, size_t room, const char *name, const char *description,
		     uint32_t snaplen);

/* Enhanced packet: interface iface, time ts_ns since 1970, caplen bytes of
 * data out of a packet of origlen. */
size_t sl_pcapng_epb(void *buf, size_t room, uint32_t iface, uint64_t ts_ns, const void *data,
		     uint32_t caplen, uint32_t origlen);

/* Interface statistics at ts_ns: packets received (isb_ifrecv: the packets
 * that reached the point), dropped for want of room (isb_ifdrop), dropped by
 * the filter (isb_filteraccept is what passed: recv - filtered). */
size_t sl_pcapng_isb(void *buf, size_t room, uint32_t iface, uint64_t ts_ns, uint64_t recv,
		     uint64_t drop, uint64_t accepted);

/* Reading back: the enhanced packet blocks that lie wholly within the
 * first len bytes of buf, a run of whole blocks as the functions above
 * write them (the host's byte order), counted; each is also counted in
 * per_iface[its interface] when that is below n_iface (per_iface NULL:
 * not).  A block cut by len, and what follows it, is not counted. */
uint64_t sl_pcapng_count_epb(const void *buf, size_t len, uint64_t *per_iface, unsigned n_iface);

#endif
