/* SPDX-License-Identifier: BSD-3-Clause */
#include <string.h>

#include "ops/pcapng.h"

#define BT_SHB 0x0A0D0D0Au
#define BT_IDB 0x00000001u
#define BT_EPB 0x00000006u
#define BT_ISB 0x00000005u
#define BYTE_ORDER_MAGIC 0x1A2B3C4Du

#define OPT_END 0
#define SHB_HARDWARE 2
#define SHB_OS 3
#define SHB_USERAPPL 4
#define IF_NAME 2
#define IF_DESCRIPTION 3
#define IF_TSRESOL 9
#define ISB_IFRECV 4
#define ISB_IFDROP 5
#define ISB_FILTERACCEPT 6

static size_t pad4(size_t n)
{
	return (n + 3) & ~(size_t)3;
}

/* Bytes an option of len value bytes takes (NULL value: none). */
static size_t opt_size(const void *value, size_t len)
{
	return value == NULL ? 0 : 4 + pad4(len);
}

static size_t str_opt_size(const char *s)
{
	return s == NULL ? 0 : opt_size(s, strlen(s));
}

static uint8_t *put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);
	return p + 4;
}

static uint8_t *put_opt(uint8_t *p, uint16_t code, const void *value, size_t len)
{
	if (value == NULL)
		return p;
	uint16_t h[2] = { code, (uint16_t)len };
	memcpy(p, h, 4);
	memcpy(p + 4, value, len);
	memset(p + 4 + len, 0, pad4(len) - len);
	return p + 4 + pad4(len);
}

static uint8_t *put_str_opt(uint8_t *p, uint16_t code, const char *s)
{
	return s == NULL ? p : put_opt(p, code, s, strlen(s));
}

/* An option's value is at most 65535 bytes. */
static int str_ok(const char *s)
{
	return s == NULL || strlen(s) <= 0xffff;
}

size_t sl_pcapng_shb(void *buf, size_t room, const char *hardware, const char *os,
		     const char *application)
{
	if (!str_ok(hardware) || !str_ok(os) || !str_ok(application))
		return 0;
	size_t len = 28 + str_opt_size(hardware) + str_opt_size(os) + str_opt_size(application) + 4;
	if (len > room || len > UINT32_MAX)
		return 0;
	uint8_t *p = buf;
	p = put32(p, BT_SHB);
	p = put32(p, (uint32_t)len);
	p = put32(p, BYTE_ORDER_MAGIC);
	uint16_t ver[2] = { 1, 0 };
	memcpy(p, ver, 4);
	p += 4;
	int64_t section_len = -1;   /* not given */
	memcpy(p, &section_len, 8);
	p += 8;
	p = put_str_opt(p, SHB_HARDWARE, hardware);
	p = put_str_opt(p, SHB_OS, os);
	p = put_str_opt(p, SHB_USERAPPL, application);
	p = put32(p, OPT_END);
	put32(p, (uint32_t)len);
	return len;
}

size_t sl_pcapng_idb(void *buf, size_t room, const char *name, const char *description,
		     uint32_t snaplen)
{
	if (!str_ok(name) || !str_ok(description))
		return 0;
	uint8_t tsresol = 9;
	size_t len = 20 + str_opt_size(name) + str_opt_size(description) + opt_size(&tsresol, 1) + 4;
	if (len > room)
		return 0;
	uint8_t *p = buf;
	p = put32(p, BT_IDB);
	p = put32(p, (uint32_t)len);
	uint16_t lt[2] = { SL_PCAPNG_LINKTYPE_ETHERNET, 0 };
	memcpy(p, lt, 4);
	p += 4;
	p = put32(p, snaplen);
	p = put_str_opt(p, IF_NAME, name);
	p = put_str_opt(p, IF_DESCRIPTION, description);
	p = put_opt(p, IF_TSRESOL, &tsresol, 1);
	p = put32(p, OPT_END);
	put32(p, (uint32_t)len);
	return len;
}

/* The start of a packet or statistics block: type, length, interface,
 * timestamp (high word first). */
static uint8_t *put_iface_head(void *buf, uint32_t type, size_t len, uint32_t iface,
			       uint64_t ts_ns)
{
	uint8_t *p = put32(buf, type);
	p = put32(p, (uint32_t)len);
	p = put32(p, iface);
	p = put32(p, (uint32_t)(ts_ns >> 32));
	return put32(p, (uint32_t)ts_ns);
}

size_t sl_pcapng_epb(void *buf, size_t room, uint32_t iface, uint64_t ts_ns, const void *data,
		     uint32_t caplen, uint32_t origlen)
{
	size_t len = SL_PCAPNG_EPB_OVERHEAD + pad4(caplen);
	if (len > room || len > UINT32_MAX)
		return 0;
	uint8_t *p = put_iface_head(buf, BT_EPB, len, iface, ts_ns);
	p = put32(p, caplen);
	p = put32(p, origlen);
	memcpy(p, data, caplen);
	memset(p + caplen, 0, pad4(caplen) - caplen);
	p += pad4(caplen);
	put32(p, (uint32_t)len);
	return len;
}

size_t sl_pcapng_isb(void *buf, size_t room, uint32_t iface, uint64_t ts_ns, uint64_t recv,
		     uint64_t drop, uint64_t accepted)
{
	size_t len = 24 + 3 * (4 + 8) + 4;
	if (len > room)
		return 0;
	uint8_t *p = put_iface_head(buf, BT_ISB, len, iface, ts_ns);
	p = put_opt(p, ISB_IFRECV, &recv, 8);
	p = put_opt(p, ISB_IFDROP, &drop, 8);
	p = put_opt(p, ISB_FILTERACCEPT, &accepted, 8);
	p = put32(p, OPT_END);
	put32(p, (uint32_t)len);
	return len;
}

uint64_t sl_pcapng_count_epb(const void *buf, size_t len, uint64_t *per_iface, unsigned n_iface)
{
	const uint8_t *p = buf;
	uint64_t n = 0;
	for (size_t off = 0; len - off >= 12;) {
		uint32_t type, blen;
		memcpy(&type, p + off, 4);
		memcpy(&blen, p + off + 4, 4);
		if (blen < 12 || blen > len - off)
			break;
		if (type == BT_EPB && blen >= SL_PCAPNG_EPB_OVERHEAD) {
			uint32_t iface;
			memcpy(&iface, p + off + 8, 4);
			n++;
			if (per_iface != NULL && iface < n_iface)
				per_iface[iface]++;
		}
		off += blen;
	}
	return n;
}
