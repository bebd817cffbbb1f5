/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * source: generates Ethernet/IPv4/UDP frames of a fixed size.
 *
 * Flows: flow f (0 <= f < flows) has source address src_ip + (f mod 4096)
 * and UDP source port 1024 + f / 4096, so both address-only and 5-tuple
 * hashes spread them.  Destination is dst_ip, UDP port 9.  The payload is
 * zero, the UDP checksum 0 (none), the IPv4 checksum correct.  Param dist
 * chooses each frame's flow:
 *
 *   cycle    the flows in order, 0, 1, ..., flows - 1, 0, ...
 *   zipf     flow f with probability proportional to 1 / (f + 1)^zipf_s:
 *            flow 0 is the most popular, then flow 1, and so on.  Samples
 *            come from rejection-inversion (Hoermann and Derflinger, 1996):
 *            O(1) time and memory whatever flows is.  At least 98% of
 *            samples cost one log and one exp (just the exp when zipf_s is
 *            1); the others add two of each, and under 2% draw again.  The
 *            uniform numbers come from a splitmix64 generator seeded with
 *            seed, so a config gives the same frames on every run.
 *   unique   every frame is a new flow; flows is ignored.  Frame number c
 *            (a 64-bit counter from 0) gets source address
 *            src_ip + (c mod 2^12) + 2^12 * (c / 2^44), modulo 2^32, UDP
 *            source port (1024 + c / 2^12) mod 2^16 and destination port
 *            (9 + c / 2^28) mod 2^16 (divisions rounding down).  This is a
 *            one-to-one map of the 64-bit counter onto (address, source
 *            port, destination port), so no 5-tuple repeats before 2^64
 *            frames.  Frames 0 .. 2^24 - 1 are the flows of cycle with
 *            flows 16777216, in the same order.
 *
 * zipf_s is a decimal number, 0 < zipf_s <= 5, checked whatever dist is;
 * zipf_s and seed are used only by zipf.
 *
 * Pacing: with rate > 0 a token bucket on the TSC admits packets; it holds
 * at most catch_up (default 10 ms) of packets (at least 1), so a stall of
 * the worker up to that long is made up for and a longer one is not.  The source never sleeps.  With
 * count > 0 it stops after that many packets.  With paused it sends nothing
 * (a reload can set it false, or true again).
 *
 * A frame larger than one buffer of the app's pool is sent as a chain of
 * segments.  If mbufs cannot be allocated the breath sends nothing; nothing
 * is counted, no flow is used up, and the next breath tries again.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include <rte_ip.h>
#include <rte_udp.h>

#include "base/rand.h"
#include "runtime/app.h"
#include "apps/pkt/gen.h"

#define SRC_SIZE_MAX SL_GEN_SIZE_MAX
#define SRC_ADDR_BITS 12u                           /* address offsets per port */
#define SRC_ADDRS_PER_PORT (1u << SRC_ADDR_BITS)
#define SRC_PORT_FIRST 1024u
#define SRC_DST_PORT 9u
#define SRC_ZIPF_S_MAX 5.0
#define SRC_ZIPF_Q_PLAIN 1e-3                       /* see zipf_H_inv */

/* unique: bits of the frame counter for each field (see the top comment). */
#define SRC_UNIQ_SPORT_SHIFT SRC_ADDR_BITS          /* 16 bits of source port */
#define SRC_UNIQ_DPORT_SHIFT (SRC_UNIQ_SPORT_SHIFT + 16)
#define SRC_UNIQ_ADDR_HI_SHIFT (SRC_UNIQ_DPORT_SHIFT + 16)

enum source_dist { SRC_DIST_CYCLE, SRC_DIST_ZIPF, SRC_DIST_UNIQUE };

/*
 * Rejection-inversion sampling of Zipf(s, n) over ranks 1..n.
 *
 * h(x) = x^-s is the unnormalised weight; H is an antiderivative of h,
 * H(x) = (x^(1-s) - 1) / (1-s) (log x when s = 1).  A uniform u on
 * [H(1.5) - h(1), H(n + 0.5)] is mapped to x = H^-1(u) and rounded to the
 * rank k.  Rank k owns the u in [H(k - 0.5), H(k + 0.5)] (rank 1 also the
 * extra h(1) below H(1.5)), of which the top h(k) are accepted: h is convex,
 * so h(k) fits, and every rank is accepted with probability proportional to
 * h(k).  Most samples are accepted by the cheap test k - x <= accept, with
 * the bound taken at k = 2, which the paper shows holds for every k >= 2
 * (rank 1 is always accepted); the others compare u with H(k + 0.5) - h(k).
 * H, and H^-1 near s = 1, are written with log1p/expm1 quotients so that
 * s near 1 loses no precision; a NaN from rounding at the very end of the
 * range fails both tests and draws again.
 */
struct source_zipf {
	double s;
	double q;                /* 1 - s */
	double u_lo;             /* H(1.5) - h(1) */
	double u_hi;             /* H(n + 0.5) */
	double accept;           /* 2 - H^-1(H(2.5) - h(2)) */
	double q_inv;            /* 1 / q, when q_plain */
	bool q_plain;            /* |q| >= SRC_ZIPF_Q_PLAIN */
	uint32_t n;
};

/* log1p(t) / t, and its limit 1 at t = 0. */
static inline double zipf_log1p_ratio(double t)
{
	if (fabs(t) > 1e-8)
		return log1p(t) / t;
	return 1.0 - t * (0.5 - t / 3.0);
}

/* expm1(t) / t, and its limit 1 at t = 0. */
static inline double zipf_expm1_ratio(double t)
{
	if (fabs(t) > 1e-8)
		return expm1(t) / t;
	return 1.0 + t * (0.5 + t / 6.0);
}

static inline double zipf_h(const struct source_zipf *z, double x)
{
	return exp(-z->s * log(x));
}

static inline double zipf_H(const struct source_zipf *z, double x)
{
	double lx = log(x);

	return zipf_expm1_ratio(z->q * lx) * lx;
}

/* (1 + q u)^(1/q).  Away from s = 1 the plain log is faster than log1p and
 * precise enough: its error, divided by |q| >= SRC_ZIPF_Q_PLAIN, moves x by
 * a relative 1e-12 or so. */
static inline double zipf_H_inv(const struct source_zipf *z, double u)
{
	if (z->q_plain)
		return exp(log(1.0 + z->q * u) * z->q_inv);
	return exp(zipf_log1p_ratio(z->q * u) * u);
}

static void zipf_setup(struct source_zipf *z, double s, uint32_t n)
{
	z->s = s;
	z->q = 1.0 - s;
	z->n = n;
	z->q_plain = fabs(z->q) >= SRC_ZIPF_Q_PLAIN;
	z->q_inv = z->q_plain ? 1.0 / z->q : 0.0;
	z->u_lo = zipf_H(z, 1.5) - 1.0;
	z->u_hi = zipf_H(z, n + 0.5);
	z->accept = 2.0 - zipf_H_inv(z, zipf_H(z, 2.5) - zipf_h(z, 2.0));
}

/* A Zipf rank, 0 (the most popular) .. n - 1. */
static inline uint32_t zipf_sample(const struct source_zipf *z, uint64_t *state)
{
	for (;;) {
		/* 53 random bits: a uniform double in [0, 1). */
		double r = (double)(sl_rand64(state) >> 11) * 0x1.0p-53;
		double u = z->u_hi + r * (z->u_lo - z->u_hi);
		double x = zipf_H_inv(z, u);
		double k = floor(x + 0.5);

		if (k < 1.0)
			k = 1.0;
		else if (k > z->n)
			k = z->n;
		if (k - x <= z->accept || u >= zipf_H(z, k + 0.5) - zipf_h(z, k))
			return (uint32_t)k - 1;
	}
}

struct source_priv {
	enum source_dist dist;

	/* cycle */
	uint32_t flows;
	uint32_t flow;           /* index of the next frame's flow */
	uint32_t addr_off;       /* next frame: src_ip + addr_off ... */
	uint32_t port;           /* ... and this source port */

	/* zipf */
	struct source_zipf zipf;
	uint64_t rng;

	/* unique */
	uint64_t next;           /* the next frame's counter */

	struct sl_gen gen;       /* template (IPv4 checksum 0), pacing, count */
	uint32_t ip_sum;         /* the template's IPv4 header summed (RFC 1071)
				  * with source address and checksum 0 */
	bool paused;             /* sends nothing (live) */
};

static int parse_zipf_text(const char *text, double *s, struct sl_err *err)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(text, &end);
	if (end == text || *end != '\0' || errno != 0 || !(v > 0.0 && v <= SRC_ZIPF_S_MAX))
		return sl_errf(err, EINVAL,
			       "parameter 'zipf_s' must be a number greater than 0 and at most 5, got '%s'",
			       text);
	*s = v;
	return 0;
}

static int source_init(struct sl_app *app, struct sl_err *err)
{
	struct source_priv *p = app->priv;
	double s = 1.0;
	int rc;

	p->dist = (enum source_dist)sl_app_param_uint(app, "dist");
	p->flows = (uint32_t)sl_app_param_uint(app, "flows");
	rc = parse_zipf_text(sl_app_param_str(app, "zipf_s"), &s, err);
	if (rc < 0)
		return rc;
	rc = sl_gen_init(&p->gen, app, SRC_PORT_FIRST, SRC_DST_PORT, SL_GEN_HDR_LEN, err);
	if (rc < 0)
		return rc;
	sl_gen_catch_up(&p->gen, sl_app_param_uint(app, "catch_up"));
	struct rte_ipv4_hdr ip;
	memcpy(&ip, p->gen.frame + SL_GEN_L3_OFF, sizeof(ip));
	ip.src_addr = 0;
	ip.hdr_checksum = 0;
	p->ip_sum = __rte_raw_cksum(&ip, sizeof(ip), 0);
	p->paused = sl_app_param_bool(app, "paused");

	p->flow = 0;
	p->addr_off = 0;
	p->port = SRC_PORT_FIRST;
	zipf_setup(&p->zipf, s, p->flows);
	p->rng = sl_app_param_uint(app, "seed");
	p->next = 0;
	return 0;
}

/* Writes the flow's fields into d, the data of a frame built from the
 * template (sl_gen_data, computed once per frame by the caller).  The IPv4
 * checksum is the template's sum plus the source address's two halves: the
 * frame is not read back, because a load of bytes that stores still being
 * committed have just written waits for every store before them, and those
 * include the mbuf's first line, whose ownership may be a round trip to
 * another core away (docs/benchmarks.md, "The floor under the cliff"). */
static inline void source_patch(const struct source_priv *p, uint8_t *d, uint32_t src_ip,
				uint16_t sport)
{
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(d + SL_GEN_L3_OFF);
	struct rte_udp_hdr *udp = (struct rte_udp_hdr *)(d + SL_GEN_L4_OFF);
	rte_be32_t src = rte_cpu_to_be_32(src_ip);

	ip->src_addr = src;
	ip->hdr_checksum = (uint16_t)~__rte_raw_cksum_reduce(__rte_raw_cksum(&src, sizeof(src),
									    p->ip_sum));
	udp->src_port = rte_cpu_to_be_16(sport);
}

static void source_cycle(struct source_priv *p, struct rte_mbuf **pkts, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		source_patch(p, sl_gen_data(&p->gen, pkts[i]), p->gen.src_ip_host + p->addr_off,
			     (uint16_t)p->port);

		/* Next flow, without a division per frame. */
		if (++p->flow == p->flows) {
			p->flow = 0;
			p->addr_off = 0;
			p->port = SRC_PORT_FIRST;
		} else if (++p->addr_off == SRC_ADDRS_PER_PORT) {
			p->addr_off = 0;
			p->port++;
		}
	}
}

static void source_zipf(struct source_priv *p, struct rte_mbuf **pkts, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		uint32_t f = zipf_sample(&p->zipf, &p->rng);

		source_patch(p, sl_gen_data(&p->gen, pkts[i]),
			     p->gen.src_ip_host + (f & (SRC_ADDRS_PER_PORT - 1)),
			     (uint16_t)(SRC_PORT_FIRST + (f >> SRC_ADDR_BITS)));
	}
}

static void source_unique(struct source_priv *p, struct rte_mbuf **pkts, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		uint64_t c = p->next++;
		uint32_t off = (uint32_t)(c & (SRC_ADDRS_PER_PORT - 1)) |
			       (uint32_t)(c >> SRC_UNIQ_ADDR_HI_SHIFT) << SRC_ADDR_BITS;
		uint8_t *d = sl_gen_data(&p->gen, pkts[i]);
		struct rte_udp_hdr *udp = (struct rte_udp_hdr *)(d + SL_GEN_L4_OFF);

		source_patch(p, d, p->gen.src_ip_host + off,
			     (uint16_t)(SRC_PORT_FIRST + (c >> SRC_UNIQ_SPORT_SHIFT)));
		udp->dst_port = rte_cpu_to_be_16((uint16_t)(SRC_DST_PORT +
							     (c >> SRC_UNIQ_DPORT_SHIFT)));
	}
}

static void source_pull(struct sl_app *app)
{
	struct source_priv *p = app->priv;
	struct rte_mbuf *pkts[SL_BURST_MAX];
	struct sl_link *out = app->out[0];
	unsigned n;

	if (out == NULL || p->paused)
		return;
	n = sl_gen_want(&p->gen);
	if (n == 0)
		return;
	if (sl_gen_build(&p->gen, app->pool, pkts, n) == 0)
		return;

	switch (p->dist) {
	case SRC_DIST_CYCLE:
		source_cycle(p, pkts, n);
		break;
	case SRC_DIST_ZIPF:
		source_zipf(p, pkts, n);
		break;
	case SRC_DIST_UNIQUE:
		source_unique(p, pkts, n);
		break;
	}
	sl_gen_sent(&p->gen, n);
	sl_app_count_in_n(app, n, (uint64_t)n * p->gen.size);   /* not read back */
	sl_link_transmit(out, pkts, n);
}

/* A reload that changes rate, catch_up or paused: the new values, applied
 * by the worker. */
struct source_pace {
	uint64_t rate, catch_up_ns;
	bool paused;
};

static int source_reconfig(struct sl_app *app, const struct sl_param_value *params,
			   void **state, struct sl_err *err)
{
	struct source_pace *pace = malloc(sizeof(*pace));
	if (pace == NULL)
		return sl_errf(err, ENOMEM, "out of memory");
	const struct sl_param_spec *t = app->type->params;
	unsigned n = app->type->n_params;
	pace->rate = params[sl_param_find(t, n, "rate")].u;
	pace->catch_up_ns = params[sl_param_find(t, n, "catch_up")].u;
	pace->paused = params[sl_param_find(t, n, "paused")].u != 0;
	*state = pace;
	return 0;
}

static void source_apply(struct sl_app *app, void *state)
{
	struct source_priv *p = app->priv;
	struct source_pace *pace = state;
	sl_gen_set_rate(&p->gen, pace->rate, pace->catch_up_ns);
	p->paused = pace->paused;
}

static void source_release(struct sl_app *app, void *state, bool applied)
{
	(void)app;
	(void)applied;
	free(state);
}

static const struct sl_param_spec source_params[] = {
	{ .name = "size", .type = SL_PARAM_UINT, .def = "64", .min = 60, .max = SRC_SIZE_MAX,
	  .doc = "frame size in bytes, without FCS" },
	{ .name = "flows", .type = SL_PARAM_UINT, .def = "1", .min = 1, .max = 16777216,
	  .doc = "number of flows (source address and UDP source port vary); ignored by dist unique" },
	{ .name = "dist", .type = SL_PARAM_ENUM, .def = "cycle", .choices = "cycle|zipf|unique",
	  .doc = "flow of each frame: the flows in order, Zipf-distributed, or a new flow every frame" },
	{ .name = "zipf_s", .type = SL_PARAM_STRING, .def = "1.0",
	  .doc = "Zipf exponent for dist zipf, a number in (0, 5]; flow 0 is the most popular" },
	{ .name = "seed", .type = SL_PARAM_UINT, .def = "1",
	  .doc = "seed of the random numbers of dist zipf (same seed, same frames)" },
	{ .name = "rate", .type = SL_PARAM_UINT, .def = "0", .max = 1000000000,
	  .live = true, .doc = "packets per second; 0 means as fast as possible" },
	{ .name = "paused", .type = SL_PARAM_BOOL, .def = "false", .live = true,
	  .doc = "send nothing until a reload sets it false (to start traffic at a chosen moment, "
		 "such as after a capture began)" },
	{ .name = "count", .type = SL_PARAM_UINT, .def = "0",
	  .doc = "packets to send before stopping; 0 means no limit" },
	{ .name = "catch_up", .type = SL_PARAM_DURATION, .def = "10ms", .max = 1000000000,
	  .live = true, .doc = "with rate: the longest stall of the worker the pacing makes up for (the "
		 "bucket holds this much time's packets), at most 1s" },
	SL_GEN_ADDR_PARAMS("first IPv4 source address (flows add to it)"),
};

/* At config load: zipf_s is a string parameter; check that it is a number;
 * src_ip and dst_ip, that they are IPv4 addresses. */
static int source_check(const struct sl_param_value *params, unsigned n_in,
				unsigned n_out, struct sl_err *err)
{
	double s;
	(void)n_out;
	int i = sl_param_find(source_params, SL_ARRAY_LEN(source_params), "zipf_s");
	int rc = parse_zipf_text(params[i].s, &s, err);
	if (rc == 0)
		rc = sl_gen_check(source_params, SL_ARRAY_LEN(source_params), params, err);
	return rc;
}

static const struct sl_port_spec source_outputs[] = {
	{ .name = "output", .required = true, .doc = "generated frames" },
};

static const struct sl_app_type source_app = {
	.name = "source",
	.doc = "Generate Ethernet/IPv4/UDP frames over flows in order, Zipf-distributed or all new, optionally paced",
	.params = source_params,
	.n_params = SL_ARRAY_LEN(source_params),
	.outputs = source_outputs,
	.n_outputs = SL_ARRAY_LEN(source_outputs),
	.priv_size = sizeof(struct source_priv),
	.check = source_check,
	.init = source_init,
	.pull = source_pull,
	.reconfig = source_reconfig,
	.apply = source_apply,
	.release = source_release,
};

SL_APP_REGISTER(source_app)
