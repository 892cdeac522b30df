/*
** Dead-stack scan: after tempcrypt_chacha20_xor returns, no word of the
** keystream it made, of its state before the feed-forward (the rounds
** can be run backwards from it to the key), or of its key may be left in
** the stack below its caller.
**
** The test paints the stack below a driver function with a pattern,
** calls the cipher from the same frame, copies the dead stack out and
** looks for every secret word at every 4-byte-aligned offset.  The words
** are computed at run time by a reference ChaCha20 of this file, from a
** key drawn from a seeded PRNG, so none of them is in the binary.  It
** runs natively (built with gcc and with clang) and in wasm, where the C
** stack lives in linear memory; with SQLITE_TEMPCRYPT_TESTING it runs
** every cipher path this CPU has.
**
** This reads memory below the stack pointer on purpose: never build it
** with ASan or run it under valgrind.
**
**   stackscan [-control]
**
** -control: the scan must find the keystream that a deliberately leaky
** function leaves in its frame (exits 1 when it does).
*/
#include "chacha20.h"
#include "testutil.h"

#define NOINLINE __attribute__((noinline))
#define SCAN_BYTES 16384            /* how far below the driver to look */
#define MAX_BYTES  (4096 + 1024 + 64 + 63)
#define MAX_BLOCKS ((MAX_BYTES + 63) / 64)
#define PAINT      0xa5

static uint8_t aKey[32], aNonce[12];
static uint8_t aBuf[MAX_BYTES];
static uint8_t aDump[SCAN_BYTES];
static volatile uintptr_t scanLo;   /* lowest address of the painted area */

/* Secret words of one call, and how many. */
static uint32_t aSecret[MAX_BLOCKS * 32 + 8];
static int nSecret;

/* ---------------------------------------------------------- reference */
#define RL(x, n) (((x) << (n)) | ((x) >> (32 - (n))))
#define QR(a, b, c, d) \
  a += b; d = RL(d ^ a, 16); c += d; b = RL(b ^ c, 12); \
  a += b; d = RL(d ^ a, 8);  c += d; b = RL(b ^ c, 7)

static uint32_t le32(const uint8_t *p){
  return p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* RFC 8439 2.3: x gets the state after the 20 rounds, ks the keystream. */
static void ref_block(uint32_t x[16], uint32_t ks[16], uint32_t ctr){
  uint32_t s[16];
  int i;
  s[0] = 0x61707865; s[1] = 0x3320646e; s[2] = 0x79622d32; s[3] = 0x6b206574;
  for(i=0; i<8; i++) s[4+i] = le32(aKey + 4*i);
  s[12] = ctr;
  for(i=0; i<3; i++) s[13+i] = le32(aNonce + 4*i);
  memcpy(x, s, sizeof(s));
  for(i=0; i<10; i++){
    QR(x[0], x[4], x[8],  x[12]); QR(x[1], x[5], x[9],  x[13]);
    QR(x[2], x[6], x[10], x[14]); QR(x[3], x[7], x[11], x[15]);
    QR(x[0], x[5], x[10], x[15]); QR(x[1], x[6], x[11], x[12]);
    QR(x[2], x[7], x[8],  x[13]); QR(x[3], x[4], x[9],  x[14]);
  }
  for(i=0; i<16; i++) ks[i] = x[i] + s[i];
}

/* The secret words of a call over n bytes from block counter ctr. */
static void collect(size_t n, uint32_t ctr){
  size_t b;
  int i;
  nSecret = 0;
  for(i=0; i<8; i++) aSecret[nSecret++] = le32(aKey + 4*i);
  for(b=0; b<(n+63)/64; b++){
    uint32_t x[16], ks[16];
    ref_block(x, ks, ctr + (uint32_t)b);
    for(i=0; i<16; i++){
      aSecret[nSecret++] = ks[i];
      aSecret[nSecret++] = x[i];
    }
  }
}

/* --------------------------------------------------------------- driver */
NOINLINE static void paint(void){
  volatile uint8_t a[SCAN_BYTES];
  size_t i;
  for(i=0; i<SCAN_BYTES; i++) a[i] = PAINT;
  scanLo = (uintptr_t)a;
}

/* The control: keystream left in a frame nobody wipes. */
NOINLINE static void leaky_xor(uint8_t *out, const uint8_t *in, size_t n,
                               const uint8_t *key, const uint8_t *nonce,
                               uint32_t ctr){
  volatile uint8_t ks[256];
  size_t i;
  for(i=0; i<sizeof(ks); i++) ks[i] = 0;
  tempcrypt_chacha20_xor((uint8_t*)ks, (uint8_t*)ks, sizeof(ks), key, nonce, ctr);
  for(i=0; i<n; i++) out[i] = in[i] ^ ks[i % sizeof(ks)];
}

typedef void (*XorFn)(uint8_t*, const uint8_t*, size_t, const uint8_t*,
                      const uint8_t*, uint32_t);

/*
** Paint, call, copy: all from this one frame, so the cipher's frames lie
** in the painted area.  The copy loop makes no call, so nothing writes
** below this frame before the dump is taken.
*/
NOINLINE static void call_and_dump(XorFn xXor, size_t n, uint32_t ctr){
  const volatile uint8_t *p;
  size_t i;
  paint();
  xXor(aBuf, aBuf, n, aKey, aNonce, ctr);
  p = (const volatile uint8_t*)scanLo;
  for(i=0; i<SCAN_BYTES; i++) aDump[i] = p[i];
}

/* Count secret words in the dump; *pDeep: bytes below the driver of the
** deepest one, *pUsed: of the deepest byte the call wrote at all. */
static int scan(int *pDeep, int *pUsed){
  int nFound = 0, i, j;
  *pDeep = 0;
  *pUsed = 0;
  for(i=0; i<SCAN_BYTES && aDump[i]==PAINT; i++){}
  *pUsed = SCAN_BYTES - i;
  for(i=0; i+4<=SCAN_BYTES; i+=4){
    uint32_t w = le32(aDump + i);
    if( w==0 || w==0xa5a5a5a5u ) continue;
    for(j=0; j<nSecret; j++){
      if( w==aSecret[j] ){
        nFound++;
        if( SCAN_BYTES - i > *pDeep ) *pDeep = SCAN_BYTES - i;
        break;
      }
    }
  }
  return nFound;
}

static const size_t aLen[] = { 17, 64, 255, 256, 1024, 4096, 4096 + 64 + 17,
                               4096 + 1024 + 64 + 63 };

/* Every length through xXor; returns how many secret words were left. */
static int run_lengths(XorFn xXor, const char *zWhat){
  unsigned k;
  int nTotal = 0;
  for(k=0; k<sizeof(aLen)/sizeof(aLen[0]); k++){
    size_t n = aLen[k];
    uint32_t ctr = 7 + (uint32_t)k;
    int nFound, nDeep, nUsed;
    collect(n, ctr);
    call_and_dump(xXor, n, ctr);
    nFound = scan(&nDeep, &nUsed);
    nTotal += nFound;
    printf("stackscan: %-12s n=%-5d %3d secret words left in dead stack"
           " (deepest %d bytes down; the call used %d bytes)\n",
           zWhat, (int)n, nFound, nDeep, nUsed);
  }
  return nTotal;
}

int main(int argc, char **argv){
  TuRng rng = { 0x57ac5ca7ULL };
  int bControl = argc>1 && strcmp(argv[1], "-control")==0;
  tu_fill(&rng, aKey, sizeof(aKey));
  tu_fill(&rng, aNonce, sizeof(aNonce));
  tu_fill(&rng, aBuf, sizeof(aBuf));

  if( bControl ){
    int nFound = run_lengths(leaky_xor, "control");
    CHECK(nFound==0, "control: %d keystream words left in the stack", nFound);
    return check_finish("stackscan -control");
  }
#ifdef SQLITE_TEMPCRYPT_TESTING
  {
    int iPath;
    for(iPath=0; iPath<TEMPCRYPT_CHACHA20_NPATH; iPath++){
      const char *zName = tempcrypt_chacha20_path_name(iPath);
      const char *zWhy = tempcrypt_chacha20_path_missing(iPath);
      int nFound;
      if( zWhy ){
        printf("stackscan: path %s skipped: %s\n", zName, zWhy);
        continue;
      }
      tempcrypt_chacha20_use_path(iPath);
      nFound = run_lengths(tempcrypt_chacha20_xor, zName);
      CHECK(nFound==0, "path %s: %d secret words left in dead stack", zName, nFound);
    }
    tempcrypt_chacha20_use_path(-1);
  }
#else
  {
    int nFound = run_lengths(tempcrypt_chacha20_xor, "default");
    CHECK(nFound==0, "%d secret words left in dead stack", nFound);
  }
#endif
  return check_finish("stackscan");
}
