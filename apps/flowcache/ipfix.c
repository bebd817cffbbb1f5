/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Flow records to an IPFIX collector over UDP (ipfix.h): a ring from the
 * worker, a thread that encodes them with libfixbuf and sends them.
 */
#include <errno.h>
#include <netdb.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>

#include <fixbuf/public.h>

#include "apps/flowcache/ipfix.h"

#define EMIT_NS 100000000ull       /* a waiting record goes out within this */
#define MSG_MAX 1420               /* a message's bytes at most (one datagram) */
#define IDLE_NS 1000000            /* the thread's nap when nothing waits */

/* The internal records: the templates' elements in order, packed (each
 * element's length given in the specs: libfixbuf refuses an internal
 * template with a defaulted length). */
struct rec4 {                /* 56 bytes */
	uint64_t start, end, packets, octets;
	uint32_t src, dst, point, ingress;
	uint16_t sport, dport, vlan;
	uint8_t proto, reason;
} __attribute__((packed));
_Static_assert(sizeof(struct rec4) == 56, "the IPv4 template's elements, unpadded");

struct rec6 {                /* 80 bytes */
	uint64_t start, end, packets, octets;
	uint8_t src[16], dst[16];
	uint32_t point, ingress;
	uint16_t sport, dport, vlan;
	uint8_t proto, reason;
} __attribute__((packed));
_Static_assert(sizeof(struct rec6) == 80, "the IPv6 template's elements, unpadded");

static fbInfoElementSpec_t spec4[] = {
	{ "flowStartMilliseconds", 8, 0 }, { "flowEndMilliseconds", 8, 0 },
	{ "packetDeltaCount", 8, 0 }, { "octetDeltaCount", 8, 0 },
	{ "sourceIPv4Address", 4, 0 }, { "destinationIPv4Address", 4, 0 },
	{ "observationPointId", 4, 0 }, { "ingressInterface", 4, 0 },
	{ "sourceTransportPort", 2, 0 }, { "destinationTransportPort", 2, 0 },
	{ "vlanId", 2, 0 },
	{ "protocolIdentifier", 1, 0 }, { "flowEndReason", 1, 0 },
	FB_IESPEC_NULL
};

static fbInfoElementSpec_t spec6[] = {
	{ "flowStartMilliseconds", 8, 0 }, { "flowEndMilliseconds", 8, 0 },
	{ "packetDeltaCount", 8, 0 }, { "octetDeltaCount", 8, 0 },
	{ "sourceIPv6Address", 16, 0 }, { "destinationIPv6Address", 16, 0 },
	{ "observationPointId", 4, 0 }, { "ingressInterface", 4, 0 },
	{ "sourceTransportPort", 2, 0 }, { "destinationTransportPort", 2, 0 },
	{ "vlanId", 2, 0 },
	{ "protocolIdentifier", 1, 0 }, { "flowEndReason", 1, 0 },
	FB_IESPEC_NULL
};

struct sl_ipfix {
	struct sl_ipfix_conf conf;
	fbInfoModel_t *model;
	fBuf_t *buf;                 /* owns the session and the exporter */
	fbExporter_t *ex;            /* encodes each message into msg */
	uint8_t msg[MSG_MAX];
	int fd;                      /* a connected socket to the collector, or -1 */
	uint64_t next_try_ns, backoff_ns;   /* TCP: the next connection attempt */
	uint16_t tid4, tid6;
	pthread_t thread;
	bool started;
	int stop;                    /* atomic: close asked */

	/* the ring: producer writes head, consumer tail */
	struct sl_ipfix_rec *slots;
	unsigned mask;
	uint64_t head __attribute__((aligned(64)));
	uint64_t tail __attribute__((aligned(64)));

	/* the thread's */
	unsigned pending;            /* records in the message being built */
	int cur;                     /* family of the template set last: 0, 4 or 6 */
	uint64_t sent, lost, messages, template_sends, connects;   /* atomics, for stats */
};

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int sl_ipfix_parse(const char *url, struct sl_ipfix_conf *conf, struct sl_err *err)
{
	static const char *const schemes[] = { "ipfix://", "ipfix+udp://", "ipfix+tcp://" };
	const char *h = NULL, *colon;
	for (unsigned i = 0; i < 3 && h == NULL; i++)
		if (strncmp(url, schemes[i], strlen(schemes[i])) == 0) {
			h = url + strlen(schemes[i]);
			conf->tcp = i == 2;
		}
	if (h == NULL)
		return 0;
	size_t hl;
	if (*h == '[') {   /* an IPv6 address */
		const char *end = strchr(h, ']');
		if (end == NULL || end[1] != ':')
			goto bad;
		h++;
		hl = (size_t)(end - h);
		colon = end + 1;
	} else {
		colon = strrchr(h, ':');
		if (colon == NULL)
			goto bad;
		hl = (size_t)(colon - h);
		if (memchr(h, ':', hl) != NULL)
			goto bad;   /* an IPv6 address needs brackets */
	}
	if (hl == 0 || hl >= sizeof(conf->host))
		goto bad;
	const char *port = colon + 1;
	char *end;
	unsigned long pn = strtoul(port, &end, 10);
	if (*port < '0' || *port > '9' || *end != '\0' || pn < 1 || pn > 65535)
		return sl_errf(err, EINVAL, "records: the collector's port must be 1..65535, in '%s'", url);
	memcpy(conf->host, h, hl);
	conf->host[hl] = '\0';
	snprintf(conf->port, sizeof(conf->port), "%lu", pn);
	return 1;
bad:
	return sl_errf(err, EINVAL, "records: '%s' is not ipfix://HOST:PORT, ipfix+udp://HOST:PORT or "
		       "ipfix+tcp://HOST:PORT (an IPv6 HOST in brackets)", url);
}

int sl_ipfix_resolve(const struct sl_ipfix_conf *conf, struct sl_err *err)
{
	struct addrinfo hints = { .ai_socktype = conf->tcp ? SOCK_STREAM : SOCK_DGRAM }, *res = NULL;
	int rc = getaddrinfo(conf->host, conf->port, &hints, &res);
	if (rc != 0)
		return sl_errf(err, EINVAL, "records: cannot resolve the IPFIX collector '%s': %s",
			       conf->host, gai_strerror(rc));
	freeaddrinfo(res);
	return 0;
}

/* Over TCP: a connection, if the last attempt is long enough ago (the wait
 * doubles from 100 ms to 10 s while attempts fail); a new one first gets
 * the templates.  Connecting waits at most 1 s (SO_SNDTIMEO). */
static void send_templates(struct sl_ipfix *x);

static void tcp_connect(struct sl_ipfix *x, uint64_t now)
{
	if (x->fd >= 0 || now < x->next_try_ns)
		return;
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *ai = NULL;
	int fd = -1;
	if (getaddrinfo(x->conf.host, x->conf.port, &hints, &ai) == 0) {
		fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
		struct timeval tv = { .tv_sec = 1 };
		if (fd >= 0 && (setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)) != 0 ||
				connect(fd, ai->ai_addr, ai->ai_addrlen) != 0)) {
			close(fd);
			fd = -1;
		}
		freeaddrinfo(ai);
	}
	if (fd < 0) {
		x->backoff_ns = x->backoff_ns == 0 ? 100000000ull :
				x->backoff_ns >= 5000000000ull ? 10000000000ull : 2 * x->backoff_ns;
		x->next_try_ns = now + x->backoff_ns;
		return;
	}
	x->fd = fd;
	x->backoff_ns = 0;
	__atomic_fetch_add(&x->connects, 1, __ATOMIC_RELAXED);
	send_templates(x);   /* a new transport session: the templates first */
}

/* Write len bytes of x->msg: one datagram (UDP), or the whole message on
 * the stream (TCP: a failure closes the connection, tried again later). */
static bool send_all(struct sl_ipfix *x, size_t len)
{
	if (x->fd < 0)
		return false;
	if (!x->conf.tcp)
		return send(x->fd, x->msg, len, 0) == (ssize_t)len;
	for (size_t off = 0; off < len;) {
		ssize_t n = send(x->fd, x->msg + off, len - off, MSG_NOSIGNAL);
		if (n <= 0) {
			close(x->fd);
			x->fd = -1;
			x->next_try_ns = mono_ns();
			return false;
		}
		off += (size_t)n;
	}
	return true;
}

/* Send the message being built; its records count as sent or lost.
 * libfixbuf encodes it into x->msg and this thread sends the datagram, so
 * that a refusal (ICMP port unreachable, reported by the connected
 * socket's next send) counts the message's records as lost instead of
 * being retried. */
static void emit(struct sl_ipfix *x)
{
	GError *gerr = NULL;
	fBufSetExportTime(x->buf, (uint32_t)time(NULL));
	bool ok = fBufEmit(x->buf, &gerr);
	if (gerr != NULL)
		g_clear_error(&gerr);
	size_t len = ok ? fbExporterGetMsgLen(x->ex) : 0;
	if (ok && len > 0)
		ok = send_all(x, len);
	__atomic_fetch_add(ok ? &x->sent : &x->lost, x->pending, __ATOMIC_RELAXED);
	if (ok)
		__atomic_fetch_add(&x->messages, 1, __ATOMIC_RELAXED);
	x->pending = 0;
	x->cur = 0;   /* a new message starts with its template set again */
}

static bool use_template(struct sl_ipfix *x, int family);

static void send_templates(struct sl_ipfix *x)
{
	GError *gerr = NULL;
	if (x->pending > 0)
		emit(x);
	/* in manual mode the export stops at the end of a message (EOM)
	 * instead of starting one: the templates go out in automatic mode */
	fBufSetAutomaticMode(x->buf, TRUE);
	if (fbSessionExportTemplates(fBufGetSession(x->buf), &gerr))
		__atomic_fetch_add(&x->template_sends, 1, __ATOMIC_RELAXED);
	if (gerr != NULL)
		g_clear_error(&gerr);
	emit(x);
	fBufSetAutomaticMode(x->buf, FALSE);
}

static bool use_template(struct sl_ipfix *x, int family)
{
	if (x->cur == family)
		return true;
	uint16_t tid = family == 6 ? x->tid6 : x->tid4;
	GError *gerr = NULL;
	bool ok = fBufSetInternalTemplate(x->buf, tid, &gerr) &&
		  fBufSetExportTemplate(x->buf, tid, &gerr);
	if (gerr != NULL)
		g_clear_error(&gerr);
	if (ok)
		x->cur = family;
	return ok;
}

/* Add one record to the message, sending the message first when full. */
static void append(struct sl_ipfix *x, const struct sl_ipfix_rec *r)
{
	struct rec4 a;
	struct rec6 b;
	uint8_t *base;
	size_t len;
	if (r->family == 6) {
		b = (struct rec6){ .start = r->start_ms, .end = r->end_ms, .packets = r->packets,
				   .octets = r->bytes, .point = x->conf.point, .ingress = r->ingress,
				   .sport = r->sport, .dport = r->dport, .vlan = r->vlan,
				   .proto = r->proto, .reason = r->reason };
		memcpy(b.src, r->src, 16);
		memcpy(b.dst, r->dst, 16);
		base = (uint8_t *)&b;
		len = sizeof(b);
	} else {
		a = (struct rec4){ .start = r->start_ms, .end = r->end_ms, .packets = r->packets,
				   .octets = r->bytes, .point = x->conf.point, .ingress = r->ingress,
				   .sport = r->sport, .dport = r->dport, .vlan = r->vlan,
				   .proto = r->proto, .reason = r->reason };
		a.src = (uint32_t)r->src[0] << 24 | (uint32_t)r->src[1] << 16 |
			(uint32_t)r->src[2] << 8 | r->src[3];
		a.dst = (uint32_t)r->dst[0] << 24 | (uint32_t)r->dst[1] << 16 |
			(uint32_t)r->dst[2] << 8 | r->dst[3];
		base = (uint8_t *)&a;
		len = sizeof(a);
	}
	for (int attempt = 0; attempt < 2; attempt++) {
		GError *gerr = NULL;
		if (use_template(x, r->family == 6 ? 6 : 4) && fBufAppend(x->buf, base, len, &gerr)) {
			x->pending++;
			return;
		}
		bool full = gerr != NULL && g_error_matches(gerr, FB_ERROR_DOMAIN, FB_ERROR_EOM);
		if (gerr != NULL)
			g_clear_error(&gerr);
		if (!full)
			break;
		emit(x);   /* the message is full: send it, then try again */
	}
	__atomic_fetch_add(&x->lost, 1, __ATOMIC_RELAXED);
}

static void *run(void *arg)
{
	struct sl_ipfix *x = arg;
	uint64_t last_emit = mono_ns(), last_tmpl = last_emit;
	for (;;) {
		bool stopping = __atomic_load_n(&x->stop, __ATOMIC_ACQUIRE);
		uint64_t head = __atomic_load_n(&x->head, __ATOMIC_ACQUIRE), tail = x->tail;
		for (; tail != head; tail++)
			append(x, &x->slots[tail & x->mask]);
		__atomic_store_n(&x->tail, tail, __ATOMIC_RELEASE);
		uint64_t now = mono_ns();
		if (x->conf.tcp)
			tcp_connect(x, now);
		if (now - last_tmpl >= x->conf.refresh_ns) {
			send_templates(x);
			last_tmpl = now;
		}
		if (x->pending > 0 && (now - last_emit >= EMIT_NS || stopping)) {
			emit(x);
			last_emit = now;
		}
		if (stopping && __atomic_load_n(&x->head, __ATOMIC_ACQUIRE) == tail)
			break;
		if (head == tail) {
			struct timespec ts = { 0, IDLE_NS };
			nanosleep(&ts, NULL);
		}
	}
	return NULL;
}

static fbTemplate_t *template(fbInfoModel_t *model, fbInfoElementSpec_t *spec, GError **gerr)
{
	fbTemplate_t *t = fbTemplateAlloc(model);
	if (t != NULL && !fbTemplateAppendSpecArray(t, spec, UINT32_MAX, gerr)) {
		fbTemplateFreeUnused(t);
		return NULL;
	}
	return t;
}

struct sl_ipfix *sl_ipfix_open(const struct sl_ipfix_conf *conf, struct sl_err *err)
{
	struct sl_ipfix *x = calloc(1, sizeof(*x));
	GError *gerr = NULL;
	fbSession_t *s = NULL;
	if (x != NULL)
		x->fd = -1;
	if (x == NULL || conf->queue == 0 || (conf->queue & (conf->queue - 1)) != 0) {
		free(x);
		sl_errf(err, EINVAL, "IPFIX exporter: no memory, or a queue that is not a power of two");
		errno = EINVAL;
		return NULL;
	}
	x->conf = *conf;
	x->mask = conf->queue - 1;
	x->slots = calloc(conf->queue, sizeof(*x->slots));
	x->model = fbInfoModelAlloc();
	s = x->model != NULL ? fbSessionAlloc(x->model) : NULL;
	if (x->slots == NULL || s == NULL)
		goto fail;
	fbSessionSetDomain(s, conf->domain);
	/* each template twice: internal (the record's layout) and external
	 * (what goes on the wire), with one id */
	fbTemplate_t *i4 = template(x->model, spec4, &gerr), *e4 = template(x->model, spec4, &gerr);
	fbTemplate_t *i6 = template(x->model, spec6, &gerr), *e6 = template(x->model, spec6, &gerr);
	if (i4 == NULL || e4 == NULL || i6 == NULL || e6 == NULL)
		goto fail;
	x->tid4 = fbSessionAddTemplate(s, TRUE, 256, i4, &gerr);
	if (x->tid4 == 0 || fbSessionAddTemplate(s, FALSE, x->tid4, e4, &gerr) == 0)
		goto fail;
	x->tid6 = fbSessionAddTemplate(s, TRUE, 257, i6, &gerr);
	if (x->tid6 == 0 || fbSessionAddTemplate(s, FALSE, x->tid6, e6, &gerr) == 0)
		goto fail;
	if (!conf->tcp) {   /* TCP connects from the thread, with back-off */
		struct addrinfo hints = { .ai_socktype = SOCK_DGRAM }, *ai = NULL;
		if (getaddrinfo(conf->host, conf->port, &hints, &ai) != 0)
			goto fail;
		x->fd = socket(ai->ai_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		if (x->fd < 0 || connect(x->fd, ai->ai_addr, ai->ai_addrlen) != 0) {
			freeaddrinfo(ai);
			goto fail;
		}
		freeaddrinfo(ai);
	}
	x->ex = fbExporterAllocBuffer(x->msg, sizeof(x->msg));
	if (x->ex == NULL)
		goto fail;
	x->buf = fBufAllocForExport(s, x->ex);
	if (x->buf == NULL)
		goto fail;
	fBufSetAutomaticMode(x->buf, FALSE);
	if (!conf->tcp)
		send_templates(x);
	if (pthread_create(&x->thread, NULL, run, x) != 0)
		goto fail;
	x->started = true;
	return x;
fail:
	sl_errf(err, ENOMEM, "IPFIX exporter to %s port %s: %s", conf->host, conf->port,
		gerr != NULL ? gerr->message : "cannot set up libfixbuf's session");
	if (gerr != NULL)
		g_clear_error(&gerr);
	if (x->buf != NULL)
		fBufFree(x->buf);   /* and the session and exporter with it */
	else if (s != NULL)
		fbSessionFree(s);
	if (x->model != NULL)
		fbInfoModelFree(x->model);
	if (x->fd >= 0)
		close(x->fd);
	free(x->slots);
	free(x);
	errno = ENOMEM;
	return NULL;
}

bool sl_ipfix_put(struct sl_ipfix *x, const struct sl_ipfix_rec *r)
{
	uint64_t head = x->head;
	if (head - __atomic_load_n(&x->tail, __ATOMIC_ACQUIRE) > x->mask)
		return false;
	x->slots[head & x->mask] = *r;
	__atomic_store_n(&x->head, head + 1, __ATOMIC_RELEASE);
	return true;
}

void sl_ipfix_stats(const struct sl_ipfix *x, struct sl_ipfix_stats *out)
{
	out->sent = __atomic_load_n(&x->sent, __ATOMIC_RELAXED);
	out->lost = __atomic_load_n(&x->lost, __ATOMIC_RELAXED);
	out->messages = __atomic_load_n(&x->messages, __ATOMIC_RELAXED);
	out->template_sends = __atomic_load_n(&x->template_sends, __ATOMIC_RELAXED);
	out->connects = __atomic_load_n(&x->connects, __ATOMIC_RELAXED);
}

void sl_ipfix_close_wait(struct sl_ipfix *x, struct sl_ipfix_stats *out)
{
	if (x == NULL)
		return;
	if (x->started) {
		__atomic_store_n(&x->stop, 1, __ATOMIC_RELEASE);
		pthread_join(x->thread, NULL);
		x->started = false;
	}
	sl_ipfix_stats(x, out);
}

void sl_ipfix_close(struct sl_ipfix *x)
{
	struct sl_ipfix_stats ignored;
	if (x == NULL)
		return;
	sl_ipfix_close_wait(x, &ignored);
	fBufFree(x->buf);
	fbInfoModelFree(x->model);
	if (x->fd >= 0)
		close(x->fd);
	free(x->slots);
	free(x);
}
