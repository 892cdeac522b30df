/*
** Small helpers shared by the C test programs: a seeded PRNG whose seed is
** printed so any failure can be replayed, and hex parsing.  CHECK comes
** from check.h.
*/
#ifndef TEMPCRYPT_TESTUTIL_H
#define TEMPCRYPT_TESTUTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"

/* splitmix64: tiny, seedable, good enough for test data. */
typedef struct TuRng { uint64_t s; } TuRng;
static inline uint64_t tu_next(TuRng *r){
  uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
/* Uniform in [0, n) for n > 0. */
static inline uint64_t tu_below(TuRng *r, uint64_t n){ return tu_next(r) % n; }
static inline void tu_fill(TuRng *r, uint8_t *p, size_t n){
  while( n-- ) *p++ = (uint8_t)tu_next(r);
}

static inline size_t tu_unhex(uint8_t *out, const char *z){
  size_t n = 0;
  while( z[0] && z[1] ){
    unsigned v;
    if( sscanf(z, "%2x", &v)!=1 ) break;
    out[n++] = (uint8_t)v;
    z += 2;
  }
  return n;
}

#endif
