/* The tests' random numbers: splitmix64, the same on every machine. */
#ifndef HLOPLAN_TESTS_SPLITMIX_H
#define HLOPLAN_TESTS_SPLITMIX_H

#include <stdint.h>

static inline uint64_t
next_rand(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15u);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
	return z ^ (z >> 31);
}

#endif
