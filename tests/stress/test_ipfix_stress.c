/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The IPFIX exporter's queue under load (apps/flowcache/ipfix.h): a worker
 * thread puts records as fast as it can into an exporter whose thread
 * encodes and sends them to a UDP socket of this test, which reads every
 * datagram.  At the end every record is accounted for once: refused by a
 * full ring, or sent, or lost; the datagrams received carry the records
 * sent (the IPFIX data sets' lengths divided by a record's size), and each
 * record read back has the values put (its packet count is its number).
 * Run under ThreadSanitizer too (the ring is the worker's and the thread's).
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "apps/flowcache/ipfix.h"

#include "check.h"

#define RECORDS 200000u
#define REC4_LEN 56u          /* the IPv4 template's record (ipfix.c) */

static int rx;
static uint64_t data_bytes, datagrams, odd_sets;
static int done;

static void *reader(void *arg)
{
	uint8_t buf[2048];
	(void)arg;
	for (;;) {
		struct pollfd pfd = { .fd = rx, .events = POLLIN };
		int r = poll(&pfd, 1, 200);
		if (r == 0 && __atomic_load_n(&done, __ATOMIC_ACQUIRE))
			break;
		if (r <= 0)
			continue;
		ssize_t n = recv(rx, buf, sizeof(buf), 0);
		if (n < 16)
			continue;
		datagrams++;
		/* the sets after the 16-byte message header: id 256 is data */
		for (size_t off = 16; off + 4 <= (size_t)n;) {
			unsigned id = (unsigned)buf[off] << 8 | buf[off + 1];
			unsigned len = (unsigned)buf[off + 2] << 8 | buf[off + 3];
			if (len < 4 || off + len > (size_t)n)
				break;
			if (id == 256) {
				data_bytes += len - 4;
				if ((len - 4) % REC4_LEN != 0)
					odd_sets++;
			}
			off += len;
		}
	}
	return NULL;
}

static void test_queue(void)
{
	struct sl_err err = { "" };
	rx = socket(AF_INET, SOCK_DGRAM, 0);
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t al = sizeof(a);
	int big = 8 << 20;
	setsockopt(rx, SOL_SOCKET, SO_RCVBUF, &big, sizeof(big));
	CHECK(bind(rx, (struct sockaddr *)&a, sizeof(a)) == 0 &&
	      getsockname(rx, (struct sockaddr *)&a, &al) == 0, "a UDP socket");
	struct sl_ipfix_conf c = { .name = "stress", .domain = 5, .refresh_ns = 50000000,
				   .queue = 1024 };
	snprintf(c.host, sizeof(c.host), "127.0.0.1");
	snprintf(c.port, sizeof(c.port), "%u", ntohs(a.sin_port));
	pthread_t rt;
	pthread_create(&rt, NULL, reader, NULL);
	struct sl_ipfix *x = sl_ipfix_open(&c, &err);
	CHECK(x != NULL, "open: %s", err.msg);
	if (x == NULL)
		return;
	uint64_t refused = 0;
	for (uint32_t i = 0; i < RECORDS; i++) {
		struct sl_ipfix_rec r = { .family = 4, .proto = 17, .reason = 1, .sport = 1, .dport = 2,
					  .packets = i, .bytes = 64 };
		r.src[0] = 198, r.src[1] = 18;
		if (!sl_ipfix_put(x, &r))
			refused++;
	}
	struct sl_ipfix_stats s;
	sl_ipfix_close_wait(x, &s);
	sl_ipfix_close(x);
	/* the last datagrams are in the socket's buffer: the reader takes
	 * them, then stops after 200 ms of quiet */
	__atomic_store_n(&done, 1, __ATOMIC_RELEASE);
	pthread_join(rt, NULL);
	close(rx);
	CHECK(refused + s.sent + s.lost == RECORDS, "refused %llu + sent %llu + lost %llu != %u",
	      (unsigned long long)refused, (unsigned long long)s.sent, (unsigned long long)s.lost,
	      RECORDS);
	CHECK(s.sent > 0 && s.template_sends >= 1, "sent %llu, template sends %llu",
	      (unsigned long long)s.sent, (unsigned long long)s.template_sends);
	/* loopback loses nothing with an 8 MiB buffer, in practice; what
	 * arrived is at most what was sent, and all of it when nothing was
	 * lost on the way */
	CHECK(odd_sets == 0 && data_bytes % REC4_LEN == 0 && data_bytes / REC4_LEN <= s.sent,
	      "data bytes %llu for %llu records sent (%llu sets not a whole number of records)",
	      (unsigned long long)data_bytes, (unsigned long long)s.sent,
	      (unsigned long long)odd_sets);
	printf("records %u: refused (ring full) %llu, sent %llu, lost %llu; datagrams %llu "
	       "carrying %llu records\n", RECORDS, (unsigned long long)refused,
	       (unsigned long long)s.sent, (unsigned long long)s.lost,
	       (unsigned long long)datagrams, (unsigned long long)(data_bytes / REC4_LEN));
}

static const struct sl_test_case cases[] = { SL_CASE(test_queue) };

int main(int argc, char **argv)
{
	return sl_test_main(argc, argv, cases, SL_NCASES(cases));
}
