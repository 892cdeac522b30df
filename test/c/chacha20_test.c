/*
** ChaCha20 tests: RFC 8439 vectors, properties, and (when built with
** HAVE_LIBSODIUM) a differential test against libsodium's IETF ChaCha20.
** With SQLITE_TEMPCRYPT_TESTING they run on every cipher path this build
** and CPU have (scalar, vec128, avx2, avx512, ...) and say which they skip.
**
**   chacha20_test [iterations] [seed]
*/
#include "chacha20.h"
#include "testutil.h"
#ifdef HAVE_LIBSODIUM
# include <sodium.h>
#endif

static const char *zSunscreen =
  "Ladies and Gentlemen of the class of '99: If I could offer you only one "
  "tip for the future, sunscreen would be it.";

static void counting(uint8_t *p, int n){ int i; for(i=0;i<n;i++) p[i]=(uint8_t)i; }

static void test_vectors(void){
  uint8_t key[32], nonce[12], want[128], got[128];
  size_t n;

  /* RFC 8439 2.3.2: the block function, as keystream of counter 1. */
  counting(key, 32);
  tu_unhex(nonce, "000000090000004a00000000");
  tu_unhex(want, "10f1e7e4d13b5915500fdd1fa32071c4c7d1f4c733c068030422aa9ac3d46c4e"
                 "d2826446079faa0914c2d705d98b02a2b5129cd1de164eb9cbd083e8a2503c4e");
  memset(got, 0, 64);
  tempcrypt_chacha20_xor(got, got, 64, key, nonce, 1);
  CHECK(memcmp(got, want, 64)==0, "RFC 8439 2.3.2 block function");

  /* RFC 8439 2.4.2: encryption of the sunscreen text, counter 1. */
  tu_unhex(nonce, "000000000000004a00000000");
  n = tu_unhex(want, "6e2e359a2568f98041ba0728dd0d6981e97e7aec1d4360c20a27afccfd9fae0b"
                     "f91b65c5524733ab8f593dabcd62b3571639d624e65152ab8f530c359f0861d8"
                     "07ca0dbf500d6a6156a38e088a22b65e52bc514d16ccf806818ce91ab7793736"
                     "5af90bbf74a35be6b40b8eedf2785e42874d");
  CHECK(n==strlen(zSunscreen), "sunscreen length %d", (int)n);
  tempcrypt_chacha20_xor(got, (const uint8_t*)zSunscreen, n, key, nonce, 1);
  CHECK(memcmp(got, want, n)==0, "RFC 8439 2.4.2 encryption");
  tempcrypt_chacha20_xor(got, got, n, key, nonce, 1);
  CHECK(memcmp(got, zSunscreen, n)==0, "RFC 8439 2.4.2 decryption in place");

  /* RFC 8439 A.1 vectors #1 and #2: all-zero key and nonce, counters 0, 1. */
  memset(key, 0, 32);
  memset(nonce, 0, 12);
  tu_unhex(want, "76b8e0ada0f13d90405d6ae55386bd28bdd219b8a08ded1aa836efcc8b770dc7"
                 "da41597c5157488d7724e03fb8d84a376a43b8f41518a11cc387b669b2ee6586"
                 "9f07e7be5551387a98ba977c732d080dcb0f29a048e3656912c6533e32ee7aed"
                 "29b721769ce64e43d57133b074d839d531ed1f28510afb45ace10a1f4b794d6f");
  memset(got, 0, 128);
  tempcrypt_chacha20_xor(got, got, 128, key, nonce, 0);
  CHECK(memcmp(got, want, 128)==0, "RFC 8439 A.1 #1 and #2 (counter continues)");
  memset(got, 0, 64);
  tempcrypt_chacha20_xor(got, got, 64, key, nonce, 1);
  CHECK(memcmp(got, want+64, 64)==0, "RFC 8439 A.1 #2 alone");
}

static void test_properties(TuRng *rng, int nIter){
  static uint8_t in[4200], a[4200], b[4200 + 1], ks[4200];  /* b+1: unaligned */
  uint8_t key[32], nonce[12];
  int it;
  for(it=0; it<nIter; it++){
    size_t n = (size_t)tu_below(rng, sizeof(in)+1);
    size_t cut = (n/64) ? 64*(size_t)tu_below(rng, n/64 + 1) : 0;
    uint32_t ctr = (uint32_t)tu_below(rng, 1u<<20);
    size_t i;
    int ok = 1;
    tu_fill(rng, key, 32);
    tu_fill(rng, nonce, 12);
    tu_fill(rng, in, n);

    /* One call equals two calls split at a block boundary. */
    tempcrypt_chacha20_xor(a, in, n, key, nonce, ctr);
    tempcrypt_chacha20_xor(b, in, cut, key, nonce, ctr);
    tempcrypt_chacha20_xor(b+cut, in+cut, n-cut, key, nonce, ctr+(uint32_t)(cut/64));
    CHECK(memcmp(a, b, n)==0, "counter continuation n=%d cut=%d", (int)n, (int)cut);

    /* In place equals out of place. */
    memcpy(b, in, n);
    tempcrypt_chacha20_xor(b, b, n, key, nonce, ctr);
    CHECK(memcmp(a, b, n)==0, "in place n=%d", (int)n);

    /* Zero input gives the keystream, and data XOR keystream is the output. */
    memset(ks, 0, n);
    tempcrypt_chacha20_xor(ks, ks, n, key, nonce, ctr);
    for(i=0; i<n; i++) if( (uint8_t)(in[i]^ks[i])!=a[i] ) ok = 0;
    CHECK(ok, "zero input yields the keystream n=%d", (int)n);

    /* Unaligned buffers give the same bytes. */
    memcpy(b+1, in, n);
    tempcrypt_chacha20_xor(b+1, b+1, n, key, nonce, ctr);
    CHECK(memcmp(a, b+1, n)==0, "unaligned n=%d", (int)n);
  }

  /* Counter 2^32-1: the last block the 32-bit counter addresses. */
  {
    uint8_t k0[32] = {0}, n0[12] = {0};
    memset(a, 0, 64);
    tempcrypt_chacha20_xor(a, a, 64, k0, n0, 0xffffffffu);
    memset(b, 0, 64);
    tempcrypt_chacha20_xor(b, b, 64, k0, n0, 0xfffffffeu);
    CHECK(memcmp(a, b, 64)!=0, "counter 2^32-1 differs from 2^32-2");
    memset(b, 0, 128);
    tempcrypt_chacha20_xor(b, b, 128, k0, n0, 0xfffffffeu);
    CHECK(memcmp(a, b+64, 64)==0, "counter 2^32-2 continues into 2^32-1");
  }

  /* The wipe zeroes exactly [p, p+n), at every alignment and length
  ** around its 16-byte stores. */
  {
    int iOff, n, i, nBad = 0;
    for(iOff=0; iOff<16; iOff++){
      for(n=0; n<=80; n++){
        memset(a, 0xa5, 100);
        tempcrypt_wipe(a+iOff, (size_t)n);
        for(i=0; i<100; i++){
          if( a[i]!=(i>=iOff && i<iOff+n ? 0 : 0xa5) ) nBad++;
        }
      }
    }
    CHECK(nBad==0, "tempcrypt_wipe zeroes exactly its range at every alignment");
  }
}

#ifdef HAVE_LIBSODIUM
static void test_libsodium(TuRng *rng, int nIter){
  static uint8_t in[9000], a[9001], b[9000];
  uint8_t key[32], nonce[12];
  int it, nBad = 0;
  CHECK(sodium_init()>=0, "sodium_init");
  for(it=0; it<nIter; it++){
    size_t n;
    uint32_t ctr;
    switch( it%4 ){
      case 0:  n = (size_t)tu_below(rng, 130); break;
      case 1:  n = (size_t)tu_below(rng, 1100); break;
      case 2:  n = (size_t)tu_below(rng, sizeof(in)+1); break;
      default: n = 64*(size_t)tu_below(rng, 140); break;
    }
    /* Keep counter + blocks inside 2^32: libsodium carries past it into
    ** the nonce, RFC 8439 leaves it undefined, tempcrypt never gets there. */
    if( it%8==7 ){
      ctr = 0xffffffffu - (uint32_t)((n+63)/64) + (n ? 1 : 0);
    }else{
      ctr = (uint32_t)(tu_next(rng) % (0xffffffffu - 200));
    }
    tu_fill(rng, key, 32);
    tu_fill(rng, nonce, 12);
    tu_fill(rng, in, n);
    tempcrypt_chacha20_xor(a+(it&1), in, n, key, nonce, ctr);
    crypto_stream_chacha20_ietf_xor_ic(b, in, n, nonce, ctr, key);
    if( memcmp(a+(it&1), b, n)!=0 ){
      if( nBad++<5 ) fprintf(stderr, "libsodium mismatch n=%d ctr=%u\n", (int)n, ctr);
    }
  }
  CHECK(nBad==0, "differential against libsodium: %d of %d differ", nBad, nIter);
  printf("differential against libsodium: %d random key/nonce/counter/length cases\n", nIter);
}
#endif

/* All the tests on the path in use. */
static void test_path(TuRng *rng, int nIter){
  test_vectors();
  test_properties(rng, nIter/10 + 1);
#ifdef HAVE_LIBSODIUM
  test_libsodium(rng, nIter);
#else
  printf("differential against libsodium: skipped (not built with libsodium)\n");
#endif
}

int main(int argc, char **argv){
  int nIter = argc>1 ? atoi(argv[1]) : 5000;
  uint64_t seed = argc>2 ? strtoull(argv[2], 0, 0) : 0x5eed1234ULL;
  TuRng rng = { seed };
  printf("chacha20_test: iterations=%d seed=0x%llx\n", nIter, (unsigned long long)seed);
#ifdef SQLITE_TEMPCRYPT_TESTING
  {
    int iStart = tempcrypt_chacha20_current_path(), i, nRun = 0;
    printf("chacha20_test: start-up path %s\n", tempcrypt_chacha20_path_name(iStart));
    for(i=0; i<TEMPCRYPT_CHACHA20_NPATH; i++){
      const char *zWhy = tempcrypt_chacha20_path_missing(i);
      if( zWhy ){
        printf("chacha20_test: path %s SKIPPED: %s\n", tempcrypt_chacha20_path_name(i), zWhy);
        CHECK(tempcrypt_chacha20_use_path(i)==-1, "a missing path is refused");
        continue;
      }
      CHECK(tempcrypt_chacha20_use_path(i)==0, "use path %d", i);
      CHECK(tempcrypt_chacha20_current_path()==i, "path %d in use", i);
      printf("chacha20_test: path %s\n", tempcrypt_chacha20_path_name(i));
      test_path(&rng, nIter);
      nRun++;
    }
    CHECK(tempcrypt_chacha20_use_path(-1)==0 && tempcrypt_chacha20_current_path()==iStart,
          "back to the start-up path");
    printf("chacha20_test: %d paths run\n", nRun);
  }
#else
  test_path(&rng, nIter);
#endif
  return check_finish("chacha20_test");
}
