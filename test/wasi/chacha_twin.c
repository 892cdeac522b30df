/*
** ChaCha20 twin: built natively and for wasm32-wasi from the same source;
** the two outputs must be identical byte for byte (the WASI test compares
** them).  Runs tempcrypt_chacha20_xor over a seeded sequence of random
** keys, nonces, counters (including the 2^32-1 edge), lengths (0 to 9000)
** and in-place / out-of-place calls, and prints every case's first
** output bytes and a running 64-bit digest of all of them.
**
**   chacha_twin [cases] [seed]
*/
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "chacha20.h"

/* splitmix64, seeded: the same sequence on every platform. */
typedef struct Rng { uint64_t s; } Rng;
static uint64_t rng_next(Rng *r){
  uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
static uint64_t rng_below(Rng *r, uint64_t n){ return rng_next(r) % n; }
static void rng_fill(Rng *r, uint8_t *p, size_t n){ while( n-- ) *p++ = (uint8_t)rng_next(r); }

/* FNV-1a, 64-bit, over every output byte. */
static uint64_t digest(uint64_t h, const uint8_t *p, size_t n){
  while( n-- ){ h ^= *p++; h *= 0x100000001b3ULL; }
  return h;
}

int main(int argc, char **argv){
  static uint8_t in[9000], out[9008];
  int nCase = argc>1 ? atoi(argv[1]) : 3000;
  uint64_t seed = argc>2 ? strtoull(argv[2], 0, 0) : 0x7717c4a2ULL;
  Rng rng = { seed };
  uint64_t h = 0xcbf29ce484222325ULL;
  uint64_t nByte = 0;
  int i;
  printf("chacha_twin cases=%d seed=0x%llx\n", nCase, (unsigned long long)seed);
  for(i=0; i<nCase; i++){
    uint8_t key[32], nonce[12];
    size_t n, j;
    uint32_t ctr;
    uint8_t *p;
    switch( i%4 ){
      case 0:  n = (size_t)rng_below(&rng, 130); break;
      case 1:  n = (size_t)rng_below(&rng, 1100); break;
      case 2:  n = (size_t)rng_below(&rng, sizeof(in)+1); break;
      default: n = 64*(size_t)rng_below(&rng, 140); break;
    }
    if( i%8==7 ){
      ctr = 0xffffffffu - (uint32_t)((n+63)/64) + (n ? 1 : 0);
    }else{
      ctr = (uint32_t)rng_next(&rng);
      if( (uint64_t)ctr + (n+63)/64 > 0xffffffffULL ) ctr = 0;
    }
    rng_fill(&rng, key, 32);
    rng_fill(&rng, nonce, 12);
    rng_fill(&rng, in, n);
    p = out + (i%8);                       /* unaligned outputs too */
    if( i%3==0 ){
      memcpy(p, in, n);
      tempcrypt_chacha20_xor(p, p, n, key, nonce, ctr);   /* in place */
    }else{
      tempcrypt_chacha20_xor(p, in, n, key, nonce, ctr);
    }
    h = digest(h, p, n);
    nByte += n;
    if( i<8 || i%500==0 ){
      printf("case %d n=%u ctr=%08x out=", i, (unsigned)n, ctr);
      for(j=0; j<n && j<16; j++) printf("%02x", p[j]);
      printf("\n");
    }
  }
  printf("bytes=%llu digest=%016llx\n", (unsigned long long)nByte, (unsigned long long)h);
  return 0;
}
