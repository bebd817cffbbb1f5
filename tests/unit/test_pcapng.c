/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The pcapng writer (engine/ops/pcapng.h).  A stream of a section header,
 * two interface descriptions, enhanced packets of caplen 0, 1, 3, 4, 60, 64
 * (and one cut short: caplen < origlen) and interface statistics is built in
 * a buffer and read back by a walker in this file.  Asserted: every block's
 * total length is a multiple of 4 and its leading and trailing length fields
 * agree; block types SHB 0x0A0D0D0A, IDB 1, EPB 6, ISB 5, in the order
 * written; the SHB's byte-order magic 0x1A2B3C4D, version 1.0, section
 * length -1, shb_hardware / shb_os / shb_userappl as given (and none when
 * NULL); the IDB's linktype 1, snaplen, if_name (2) equal to the name,
 * if_description (3), if_tsresol (9) = 9; the EPB's interface id, timestamp
 * (high and low words reassembled) = ts_ns, caplen, origlen, data bytes and
 * zero padding; the ISB's isb_ifrecv / isb_ifdrop / isb_filteraccept (4, 5,
 * 6) as 64-bit values; options are well formed, padded with zeros and end
 * with opt_endofopt.  Every function returns exactly the block's size when
 * room equals it and writes no byte past it, and returns 0 and writes
 * nothing when room is one byte (or more) short.  Where tcpdump or tshark is
 * installed, they read the stream from a file: tcpdump prints one line per
 * packet, tshark the packets' interface names in order (skipped silently
 * otherwise).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ops/pcapng.h"

#include "check.h"

#define BT_SHB 0x0A0D0D0Au
#define BT_IDB 0x00000001u
#define BT_EPB 0x00000006u
#define BT_ISB 0x00000005u

#define HARDWARE "x86_64 test box"
#define OS "Linux 6.1"
#define APPLICATION "sluice test_pcapng"
#define SNAPLEN 65535u

static const char *const if_names[2] = { "src.output -> swap.input", "swap.output" };
static const char *const if_descs[2] = { "the link from src to swap", "swap's output port" };

struct pkt {
	uint32_t iface;
	uint64_t ts_ns;
	uint32_t caplen, origlen;
};

static const struct pkt pkts[] = {
	{ 0, 1700000000123456789ull, 0, 0 },
	{ 1, 1700000000123456790ull, 1, 1 },
	{ 0, 0x00000001ffffffffull, 3, 3 },      /* low word all ones */
	{ 1, 0x0000000200000000ull, 4, 4 },      /* low word zero */
	{ 0, 1700000001000000000ull, 60, 60 },
	{ 1, 1700000001000000001ull, 64, 64 },
	{ 0, 1700000002000000000ull, 60, 1514 }, /* cut short */
};
#define N_PKTS (sizeof(pkts) / sizeof(pkts[0]))

struct stats {
	uint32_t iface;
	uint64_t ts_ns, recv, drop, accepted;
};

static const struct stats isbs[2] = {
	{ 0, 1700000003000000000ull, 4, 0, 4 },
	{ 1, 1700000003000000001ull, 0x123456789ull, 0x100000000ull, 0xfedcba9876543210ull },
};

static uint8_t payload[256];

static uint32_t get32(const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return v;
}

static uint16_t get16(const uint8_t *p)
{
	uint16_t v;
	memcpy(&v, p, 2);
	return v;
}

static uint64_t get64(const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return v;
}

/* The options of one block, read from opts (n bytes, up to the trailing
 * length): at most 8, each code, length and value. */
struct opts {
	unsigned n;
	bool ok;   /* well formed: padded with zeros, ends with opt_endofopt exactly at the end */
	uint16_t code[8], len[8];
	const uint8_t *val[8];
};

static struct opts parse_opts(const uint8_t *p, size_t n)
{
	struct opts o = { .ok = false };
	size_t at = 0;
	while (at + 4 <= n) {
		uint16_t code = get16(p + at), len = get16(p + at + 2);
		if (code == 0) {
			o.ok = len == 0 && at + 4 == n;
			return o;
		}
		size_t padded = ((size_t)len + 3) & ~(size_t)3;
		if (at + 4 + padded > n || o.n == 8)
			return o;
		for (size_t k = len; k < padded; k++)
			if (p[at + 4 + k] != 0)
				return o;
		o.code[o.n] = code;
		o.len[o.n] = len;
		o.val[o.n] = p + at + 4;
		o.n++;
		at += 4 + padded;
	}
	return o;
}

/* The value of option code (its length in *len), or NULL. */
static const uint8_t *opt(const struct opts *o, uint16_t code, uint16_t *len)
{
	for (unsigned i = 0; i < o->n; i++)
		if (o->code[i] == code) {
			*len = o->len[i];
			return o->val[i];
		}
	return NULL;
}

static bool str_opt_is(const struct opts *o, uint16_t code, const char *s)
{
	uint16_t len;
	const uint8_t *v = opt(o, code, &len);
	if (s == NULL)
		return v == NULL;
	return v != NULL && len == strlen(s) && memcmp(v, s, len) == 0;
}

/* Check the block at p (room bytes left in the stream): its type and its
 * two lengths; its total length, or 0 when it is unreadable. */
static size_t check_block(const uint8_t *p, size_t room, uint32_t type, const char *what)
{
	if (room < 12) {
		CHECK(0, "%s: only %zu bytes left", what, room);
		return 0;
	}
	uint32_t t = get32(p), len = get32(p + 4);
	CHECK(t == type, "%s: block type 0x%08x, expected 0x%08x", what, t, type);
	CHECK(len % 4 == 0, "%s: total length %u not a multiple of 4", what, len);
	if (len < 12 || len > room) {
		CHECK(0, "%s: total length %u with %zu bytes left", what, len, room);
		return 0;
	}
	CHECK(get32(p + len - 4) == len, "%s: trailing length %u, leading %u", what,
	      get32(p + len - 4), len);
	return t == type && len % 4 == 0 ? len : 0;
}

static size_t check_shb(const uint8_t *p, size_t room, const char *hw, const char *os,
			const char *app)
{
	size_t len = check_block(p, room, BT_SHB, "SHB");
	if (len < 28)
		return len;
	CHECK(get32(p + 8) == 0x1A2B3C4Du, "SHB byte-order magic 0x%08x", get32(p + 8));
	CHECK(get16(p + 12) == 1 && get16(p + 14) == 0, "SHB version %u.%u", get16(p + 12),
	      get16(p + 14));
	CHECK((int64_t)get64(p + 16) == -1, "SHB section length %lld",
	      (long long)(int64_t)get64(p + 16));
	struct opts o = parse_opts(p + 24, len - 28);
	CHECK(o.ok, "SHB options malformed");
	CHECK(str_opt_is(&o, 2, hw), "SHB shb_hardware not \"%s\"", hw ? hw : "(none)");
	CHECK(str_opt_is(&o, 3, os), "SHB shb_os not \"%s\"", os ? os : "(none)");
	CHECK(str_opt_is(&o, 4, app), "SHB shb_userappl not \"%s\"", app ? app : "(none)");
	CHECK(o.n == (unsigned)(hw != NULL) + (os != NULL) + (app != NULL), "SHB has %u options",
	      o.n);
	return len;
}

static size_t check_idb(const uint8_t *p, size_t room, const char *name, const char *desc,
			uint32_t snaplen)
{
	size_t len = check_block(p, room, BT_IDB, "IDB");
	if (len < 20)
		return len;
	CHECK(get16(p + 8) == 1, "IDB %s: linktype %u", name, get16(p + 8));
	CHECK(get16(p + 10) == 0, "IDB %s: reserved %u", name, get16(p + 10));
	CHECK(get32(p + 12) == snaplen, "IDB %s: snaplen %u", name, get32(p + 12));
	struct opts o = parse_opts(p + 16, len - 20);
	CHECK(o.ok, "IDB %s: options malformed", name);
	CHECK(str_opt_is(&o, 2, name), "IDB if_name not \"%s\"", name);
	CHECK(str_opt_is(&o, 3, desc), "IDB %s: if_description not \"%s\"", name,
	      desc ? desc : "(none)");
	uint16_t rl = 0;
	const uint8_t *res = opt(&o, 9, &rl);
	CHECK(res != NULL && rl == 1 && res[0] == 9, "IDB %s: if_tsresol missing or not 9", name);
	CHECK(o.n == 2u + (desc != NULL), "IDB %s: %u options", name, o.n);
	return len;
}

static size_t check_epb(const uint8_t *p, size_t room, const struct pkt *k, unsigned i)
{
	size_t len = check_block(p, room, BT_EPB, "EPB");
	if (len < 32)
		return len;
	size_t padded = ((size_t)k->caplen + 3) & ~(size_t)3;
	CHECK(len == 32 + padded, "EPB %u: length %zu for caplen %u", i, len, k->caplen);
	CHECK(get32(p + 8) == k->iface, "EPB %u: interface %u, expected %u", i, get32(p + 8),
	      k->iface);
	uint64_t ts = (uint64_t)get32(p + 12) << 32 | get32(p + 16);
	CHECK(ts == k->ts_ns, "EPB %u: timestamp %llu, expected %llu", i, (unsigned long long)ts,
	      (unsigned long long)k->ts_ns);
	CHECK(get32(p + 20) == k->caplen, "EPB %u: caplen %u, expected %u", i, get32(p + 20),
	      k->caplen);
	CHECK(get32(p + 24) == k->origlen, "EPB %u: origlen %u, expected %u", i, get32(p + 24),
	      k->origlen);
	if (len != 32 + padded)
		return len;
	CHECK(memcmp(p + 28, payload + i, k->caplen) == 0, "EPB %u: data differs", i);
	bool zero = true;
	for (size_t b = k->caplen; b < padded; b++)
		zero = zero && p[28 + b] == 0;
	CHECK(zero, "EPB %u: padding not zero", i);
	return len;
}

static size_t check_isb(const uint8_t *p, size_t room, const struct stats *s)
{
	size_t len = check_block(p, room, BT_ISB, "ISB");
	if (len < 24)
		return len;
	CHECK(get32(p + 8) == s->iface, "ISB: interface %u, expected %u", get32(p + 8), s->iface);
	uint64_t ts = (uint64_t)get32(p + 12) << 32 | get32(p + 16);
	CHECK(ts == s->ts_ns, "ISB %u: timestamp %llu", s->iface, (unsigned long long)ts);
	struct opts o = parse_opts(p + 20, len - 24);
	CHECK(o.ok, "ISB %u: options malformed", s->iface);
	const uint16_t codes[3] = { 4, 5, 6 };
	const uint64_t want[3] = { s->recv, s->drop, s->accepted };
	for (unsigned c = 0; c < 3; c++) {
		uint16_t l = 0;
		const uint8_t *v = opt(&o, codes[c], &l);
		CHECK(v != NULL && l == 8 && get64(v) == want[c],
		      "ISB %u: option %u missing or not %llu", s->iface, codes[c],
		      (unsigned long long)want[c]);
	}
	CHECK(o.n == 3, "ISB %u: %u options", s->iface, o.n);
	return len;
}

/* One call of a writer, for the room checks. */
enum kind { SHB, SHB_NULL, IDB, IDB_NODESC, EPB, ISB };

static size_t call(enum kind k, unsigned i, void *buf, size_t room)
{
	switch (k) {
	case SHB:
		return sl_pcapng_shb(buf, room, HARDWARE, OS, APPLICATION);
	case SHB_NULL:
		return sl_pcapng_shb(buf, room, NULL, NULL, NULL);
	case IDB:
		return sl_pcapng_idb(buf, room, if_names[i], if_descs[i], SNAPLEN);
	case IDB_NODESC:
		return sl_pcapng_idb(buf, room, if_names[i], NULL, SNAPLEN);
	case EPB:
		return sl_pcapng_epb(buf, room, pkts[i].iface, pkts[i].ts_ns, payload + i,
				     pkts[i].caplen, pkts[i].origlen);
	case ISB:
		return sl_pcapng_isb(buf, room, isbs[i].iface, isbs[i].ts_ns, isbs[i].recv,
				     isbs[i].drop, isbs[i].accepted);
	}
	return 0;
}

#define GUARD 0xA5

/* Room exactly the size: the size, the same bytes, nothing past them; one
 * byte short (and none): 0 and nothing written. */
static void check_room(enum kind k, unsigned i, const char *what)
{
	static uint8_t ref[1024], g[1024 + 64];
	size_t n = call(k, i, ref, sizeof(ref));
	CHECK(n > 0 && n % 4 == 0, "%s: size %zu", what, n);
	if (n == 0 || n > sizeof(ref))
		return;
	const size_t rooms[3] = { n - 1, n > 4 ? n - 4 : 0, 0 };
	for (unsigned r = 0; r < 3; r++) {
		memset(g, GUARD, sizeof(g));
		size_t got = call(k, i, g, rooms[r]);
		CHECK(got == 0, "%s: returned %zu with room %zu of %zu", what, got, rooms[r], n);
		bool untouched = true;
		for (size_t b = 0; b < sizeof(g); b++)
			untouched = untouched && g[b] == GUARD;
		CHECK(untouched, "%s: wrote with room %zu of %zu", what, rooms[r], n);
	}
	memset(g, GUARD, sizeof(g));
	size_t got = call(k, i, g, n);
	CHECK(got == n, "%s: returned %zu with room exactly %zu", what, got, n);
	CHECK(memcmp(g, ref, n) == 0, "%s: differs with room exactly %zu", what, n);
	bool untouched = true;
	for (size_t b = n; b < sizeof(g); b++)
		untouched = untouched && g[b] == GUARD;
	CHECK(untouched, "%s: wrote past its %zu bytes", what, n);
}

static const char *tool(const char *name)
{
	static char path[64];
	const char *dirs[2] = { "/usr/bin", "/usr/sbin" };
	for (unsigned d = 0; d < 2; d++) {
		snprintf(path, sizeof(path), "%s/%s", dirs[d], name);
		if (access(path, X_OK) == 0)
			return path;
	}
	return NULL;
}

/* Run cmd; its stdout's lines (at most max, newlines stripped) into lines;
 * how many there were, or -1 when it could not run or failed.  Lines that
 * start with white space (tcpdump's hex dump of a payload it cannot decode)
 * are not counted. */
static int run_lines(const char *cmd, char lines[][128], int max)
{
	FILE *f = popen(cmd, "r");
	if (f == NULL)
		return -1;
	char line[4096];
	int n = 0;
	while (fgets(line, sizeof(line), f) != NULL) {
		if (line[0] == ' ' || line[0] == '\t')
			continue;
		if (n < max) {
			line[strcspn(line, "\n")] = '\0';
			line[127] = '\0';   /* longer ones are cut */
			memcpy(lines[n], line, strlen(line) + 1);
		}
		n++;
	}
	int st = pclose(f);
	return st == 0 ? n : -1;
}

/* Read the stream with the tools that are installed. */
static void check_tools(const uint8_t *stream, size_t len)
{
	const char *tcpdump_path = tool("tcpdump");
	char tcpdump[64] = "";
	if (tcpdump_path != NULL)
		snprintf(tcpdump, sizeof(tcpdump), "%s", tcpdump_path);
	const char *tshark = tool("tshark");
	if (tcpdump[0] == '\0' && tshark == NULL)
		return;
	char file[] = "/tmp/test_pcapng.XXXXXX";
	int fd = mkstemp(file);
	CHECK(fd >= 0, "mkstemp failed");
	if (fd < 0)
		return;
	CHECK(write(fd, stream, len) == (ssize_t)len, "writing %s failed", file);
	close(fd);

	char cmd[256], lines[16][128];
	if (tcpdump[0] != '\0') {
		snprintf(cmd, sizeof(cmd), "%s -r %s -nn 2>/dev/null", tcpdump, file);
		int n = run_lines(cmd, lines, 16);
		CHECK(n == (int)N_PKTS, "tcpdump printed %d packet lines, expected %u", n,
		      (unsigned)N_PKTS);
	}
	if (tshark != NULL) {
		snprintf(cmd, sizeof(cmd), "%s -r %s -T fields -e frame.interface_name 2>/dev/null",
			 tshark, file);
		int n = run_lines(cmd, lines, 16);
		CHECK(n == (int)N_PKTS, "tshark printed %d lines, expected %u packets", n,
		      (unsigned)N_PKTS);
		for (int i = 0; i < n && i < (int)N_PKTS; i++)
			CHECK(strcmp(lines[i], if_names[pkts[i].iface]) == 0,
			      "tshark: packet %d on \"%s\", expected \"%s\"", i, lines[i],
			      if_names[pkts[i].iface]);
	}
	unlink(file);
}

static int setup(void)
{
	for (unsigned i = 0; i < sizeof(payload); i++)
		payload[i] = (uint8_t)(i * 37 + 11);
	return 0;
}

/* A stream of every block type, read back block by block, counted, and
 * read by the tools (tshark, capinfos) where they are installed. */
static void test_stream(void)
{
	static uint8_t s[4096];
	size_t len = 0, n, epb_end[N_PKTS];
	n = sl_pcapng_shb(s + len, sizeof(s) - len, HARDWARE, OS, APPLICATION);
	CHECK(n > 0, "sl_pcapng_shb failed");
	len += n;
	for (unsigned i = 0; i < 2; i++) {
		n = sl_pcapng_idb(s + len, sizeof(s) - len, if_names[i], if_descs[i], SNAPLEN);
		CHECK(n > 0, "sl_pcapng_idb %u failed", i);
		len += n;
	}
	for (unsigned i = 0; i < N_PKTS; i++) {
		n = sl_pcapng_epb(s + len, sizeof(s) - len, pkts[i].iface, pkts[i].ts_ns, payload + i,
				  pkts[i].caplen, pkts[i].origlen);
		CHECK(n == SL_PCAPNG_EPB_OVERHEAD + ((pkts[i].caplen + 3u) & ~3u),
		      "sl_pcapng_epb %u returned %zu", i, n);
		len += n;
		epb_end[i] = len;
	}
	for (unsigned i = 0; i < 2; i++) {
		n = sl_pcapng_isb(s + len, sizeof(s) - len, isbs[i].iface, isbs[i].ts_ns, isbs[i].recv,
				  isbs[i].drop, isbs[i].accepted);
		CHECK(n > 0, "sl_pcapng_isb %u failed", i);
		len += n;
	}

	/* Read it back. */
	size_t at = 0;
	n = check_shb(s, len, HARDWARE, OS, APPLICATION);
	at += n;
	for (unsigned i = 0; i < 2 && n > 0; i++) {
		n = check_idb(s + at, len - at, if_names[i], if_descs[i], SNAPLEN);
		at += n;
	}
	for (unsigned i = 0; i < N_PKTS && n > 0; i++) {
		n = check_epb(s + at, len - at, &pkts[i], i);
		at += n;
	}
	for (unsigned i = 0; i < 2 && n > 0; i++) {
		n = check_isb(s + at, len - at, &isbs[i]);
		at += n;
	}
	CHECK(n > 0 && at == len, "the walk ended at %zu of %zu bytes", at, len);

	/* Counted back: whole packet blocks only, per interface. */
	uint64_t per[3] = { 0, 0, 0 };
	CHECK(sl_pcapng_count_epb(s, len, per, 2) == N_PKTS && per[0] == 4 && per[1] == 3 &&
	      per[2] == 0, "counted %llu %llu %llu of the whole stream's packets",
	      (unsigned long long)per[0], (unsigned long long)per[1], (unsigned long long)per[2]);
	memset(per, 0, sizeof(per));
	CHECK(sl_pcapng_count_epb(s, epb_end[N_PKTS - 1] - 1, per, 1) == N_PKTS - 1 &&
	      per[0] == 3 && per[1] == 0, "a cut last block counted (per interface 0: %llu)",
	      (unsigned long long)per[0]);
	CHECK(sl_pcapng_count_epb(s, epb_end[0] - 1, NULL, 0) == 0,
	      "the first block, cut, counted");
	CHECK(sl_pcapng_count_epb(s, epb_end[2], NULL, 0) == 3, "three whole blocks not counted");
	CHECK(sl_pcapng_count_epb(s, 7, NULL, 0) == 0, "7 bytes counted as a packet");

	check_tools(s, len);
}

/* Without the optional strings. */
static void test_no_options(void)
{
	size_t n;
	static uint8_t t[256];
	n = sl_pcapng_shb(t, sizeof(t), NULL, NULL, NULL);
	CHECK(n == 32, "SHB without options: %zu bytes", n);
	CHECK(check_shb(t, n, NULL, NULL, NULL) == n, "SHB without options unreadable");
	n = sl_pcapng_idb(t, sizeof(t), if_names[1], NULL, 128);
	CHECK(check_idb(t, n, if_names[1], NULL, 128) == n && n > 0, "IDB without description");
}

/* Every writer refuses a buffer one byte short and writes nothing. */
static void test_room(void)
{
	check_room(SHB, 0, "SHB");
	check_room(SHB_NULL, 0, "SHB without options");
	for (unsigned i = 0; i < 2; i++) {
		check_room(IDB, i, "IDB");
		check_room(IDB_NODESC, i, "IDB without description");
	}
	for (unsigned i = 0; i < N_PKTS; i++)
		check_room(EPB, i, "EPB");
	for (unsigned i = 0; i < 2; i++)
		check_room(ISB, i, "ISB");
}

static const struct sl_test_case cases[] = {
	SL_CASE(test_stream),
	SL_CASE(test_no_options),
	SL_CASE(test_room),
};

int main(int argc, char **argv)
{
	return sl_test_main_fixture(argc, argv, cases, SL_NCASES(cases), setup, NULL);
}
