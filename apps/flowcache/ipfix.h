/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ipfix.h: flow records to an IPFIX collector (RFC 7011) over UDP, encoded
 * by libfixbuf, sent by a thread of the exporter's own, so that a worker
 * never waits for the network (docs/flowcache.md, "IPFIX").
 *
 * Records.  Two templates, one per family: flowStartMilliseconds,
 * flowEndMilliseconds, packetDeltaCount, octetDeltaCount,
 * source/destinationIPv4Address (or IPv6Address), observationPointId,
 * source/destinationTransportPort, protocolIdentifier, flowEndReason.
 * Templates are sent when the exporter starts and again every `refresh_ns`
 * (UDP has no session: a collector that starts later learns them then).
 * Messages carry the observation domain `domain`; sequence numbers are
 * libfixbuf's.  A message goes out when it is full (the path MTU) and at
 * least every 100 ms while records wait.
 *
 * Queue.  sl_ipfix_put copies a record into a single-producer,
 * single-consumer ring of `queue` slots; the exporter's thread takes them.
 * A full ring refuses the record (the caller counts it lost).  libfixbuf
 * encodes each message into a buffer and the thread sends it on a
 * connected UDP socket: a send that fails (no collector: the ICMP port
 * unreachable of an earlier datagram is reported by the next send) loses
 * the records of that message, counted in `lost`; nothing is resent, and
 * the next message is tried.  UDP says no more: a collector that drops
 * datagrams silently is not seen.  Over TCP the thread connects (at most
 * 1 s a try), sends the templates on each new connection, and when a send
 * fails closes it and tries again after 100 ms, doubling to 10 s while
 * tries fail; the messages meanwhile are lost and counted.
 *
 * Threads.  parse and open/close on the control thread (open starts the
 * thread, close drains the ring, sends what is left and joins it); put on
 * one worker at a time (the ring's one producer); stats on any thread.
 * Errors follow engine/base/err.h.
 */
#ifndef SL_IPFIX_H
#define SL_IPFIX_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

#include "base/err.h"

/* flowEndReason (RFC 7011 / IANA) */
enum {
	SL_IPFIX_IDLE = 1,
	SL_IPFIX_ACTIVE = 2,
	SL_IPFIX_END = 3,
	SL_IPFIX_FORCED = 4,
	SL_IPFIX_LACK_OF_RESOURCES = 5,
};

struct sl_ipfix_rec {
	uint8_t family;           /* 4 or 6 */
	uint8_t proto;
	uint8_t reason;           /* flowEndReason */
	uint16_t sport, dport;    /* host order */
	uint8_t src[16], dst[16]; /* network order; IPv4 in the first 4 bytes */
	uint64_t packets, bytes;
	uint64_t start_ms, end_ms;   /* Unix time */
	uint16_t vlan;            /* vlanId: 0 untagged */
	uint32_t ingress;         /* ingressInterface: 0 not known */
};

struct sl_ipfix_conf {
	const char *name;         /* for messages */
	char host[256];
	char port[16];
	bool tcp;                 /* ipfix+tcp://: a stream, else UDP datagrams */
	uint32_t domain;          /* observation domain id */
	uint32_t point;           /* observationPointId (a replica's number) */
	uint64_t refresh_ns;      /* template resend period */
	unsigned queue;           /* ring slots, a power of two */
};

/* Is url an IPFIX collector's, "ipfix://HOST:PORT" or "ipfix+udp://..."
 * (UDP) or "ipfix+tcp://..." (TCP), HOST a name, an IPv4 address or an
 * IPv6 address in brackets, PORT 1..65535?  Returns 1 and fills
 * conf->host, port and tcp; 0 when url is none of these at all; -EINVAL
 * with a sentence for a malformed one. */
int sl_ipfix_parse(const char *url, struct sl_ipfix_conf *conf, struct sl_err *err);

/* Resolve conf's host and port for UDP: 0, or -EINVAL ("cannot resolve
 * ...") with a sentence. */
int sl_ipfix_resolve(const struct sl_ipfix_conf *conf, struct sl_err *err);

struct sl_ipfix;

/* Set up the templates and the exporter, send the templates and start the
 * thread.  Returns the exporter, or NULL with errno and a sentence. */
struct sl_ipfix *sl_ipfix_open(const struct sl_ipfix_conf *conf, struct sl_err *err);

/* Queue one record (the ring's producer).  false: the ring is full. */
bool sl_ipfix_put(struct sl_ipfix *x, const struct sl_ipfix_rec *r);

struct sl_ipfix_stats {
	uint64_t sent;            /* records in messages the socket took */
	uint64_t lost;            /* records of messages that failed */
	uint64_t messages;
	uint64_t template_sends;
	uint64_t connects;        /* TCP connections made */
};

void sl_ipfix_stats(const struct sl_ipfix *x, struct sl_ipfix_stats *out);

/* Send what is queued and stop the thread; *out then holds the final
 * counts.  Then sl_ipfix_close frees it (which also stops the thread if
 * this was not called).  NULL is a no-op for both. */
void sl_ipfix_close_wait(struct sl_ipfix *x, struct sl_ipfix_stats *out);
void sl_ipfix_close(struct sl_ipfix *x);

#endif
