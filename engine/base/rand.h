/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A small deterministic generator for what needs reproducible numbers and
 * not secret ones: a source's flow choice, the order of a shuffled pool,
 * tests.  splitmix64 (Steele, Lea and Flood, "Fast splittable pseudorandom
 * number generators", OOPSLA 2014): a 64-bit state stepped by a constant,
 * then mixed; period 2^64, and every seed, 0 included, is a good one.
 *
 * The state is the caller's (one per thread that draws); nothing here is
 * shared or allocates.  Header only, any thread.
 */
#ifndef SL_RAND_H
#define SL_RAND_H

#include <stdint.h>

/* The next 64 random bits of *state (advanced). */
static inline uint64_t sl_rand64(uint64_t *state)
{
	uint64_t z = (*state += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

/* A number in [0, n) (n >= 1), from *state; the modulo's bias is below
 * n / 2^64. */
static inline uint64_t sl_rand_below(uint64_t *state, uint64_t n)
{
	return sl_rand64(state) % n;
}

#endif /* SL_RAND_H */
