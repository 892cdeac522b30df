/*
** ChaCha20 (RFC 8439) for sqlite-tempcrypt.
**
** Portable C99, constant time: the only branches and memory indexes depend
** on lengths and counters, never on the key, the nonce or the data.  Words
** are loaded and stored with shifts, so the scalar code does not care
** about the host's byte order or alignment.  Vector paths (4, 8 or 16
** blocks at once) are added where the compiler has them; docs/cipher.md
** describes the paths, their dispatch and how no keystream or key is
** left in memory after a call (the stack wipe, below).
*/
#include <string.h>
#include "chacha20.h"

#ifdef __GNUC__
# define NOINLINE __attribute__((noinline))
#else
# define NOINLINE   /* then the stack wipe is not guaranteed: see below */
#endif

typedef uint8_t  u8;
typedef uint32_t u32;

static u32 load32_le(const u8 *s){
  return (u32)s[0] | ((u32)s[1] << 8) | ((u32)s[2] << 16) | ((u32)s[3] << 24);
}

static void store32_le(u8 *d, u32 w){
  d[0] = (u8)w;  d[1] = (u8)(w >> 8);  d[2] = (u8)(w >> 16);  d[3] = (u8)(w >> 24);
}

#define ROTL32(x, n) (((x) << (n)) | ((x) >> (32 - (n))))
#define QUARTERROUND(a, b, c, d)               \
  a += b;  d = ROTL32(d ^ a, 16);              \
  c += d;  b = ROTL32(b ^ c, 12);              \
  a += b;  d = ROTL32(d ^ a,  8);              \
  c += d;  b = ROTL32(b ^ c,  7)

/* The 20 rounds plus the feed-forward: out = rounds(in) + in. */
static void chacha20_block(u32 out[16], const u32 in[16]){
  u32 x0 = in[0],  x1 = in[1],  x2 = in[2],  x3 = in[3];
  u32 x4 = in[4],  x5 = in[5],  x6 = in[6],  x7 = in[7];
  u32 x8 = in[8],  x9 = in[9],  x10 = in[10], x11 = in[11];
  u32 x12 = in[12], x13 = in[13], x14 = in[14], x15 = in[15];
  int i;
  for(i = 0; i < 10; i++){
    QUARTERROUND(x0, x4,  x8, x12);  /* column rounds */
    QUARTERROUND(x1, x5,  x9, x13);
    QUARTERROUND(x2, x6, x10, x14);
    QUARTERROUND(x3, x7, x11, x15);
    QUARTERROUND(x0, x5, x10, x15);  /* diagonal rounds */
    QUARTERROUND(x1, x6, x11, x12);
    QUARTERROUND(x2, x7,  x8, x13);
    QUARTERROUND(x3, x4,  x9, x14);
  }
  out[0]  = x0  + in[0];  out[1]  = x1  + in[1];
  out[2]  = x2  + in[2];  out[3]  = x3  + in[3];
  out[4]  = x4  + in[4];  out[5]  = x5  + in[5];
  out[6]  = x6  + in[6];  out[7]  = x7  + in[7];
  out[8]  = x8  + in[8];  out[9]  = x9  + in[9];
  out[10] = x10 + in[10]; out[11] = x11 + in[11];
  out[12] = x12 + in[12]; out[13] = x13 + in[13];
  out[14] = x14 + in[14]; out[15] = x15 + in[15];
}

/*
** The scalar worker: whole blocks, then the partial last one.  Its ks and
** tail, like every worker's frame, are wiped by wipe_stack_below().
*/
NOINLINE static void chacha20_scalar(u8 *out, const u8 *in, size_t n,
                                     u32 state[16]){
  u32 ks[16];
  size_t i;
  /* Word by word, which also works when out == in. */
  while( n >= 64 ){
    chacha20_block(ks, state);
    for(i = 0; i < 16; i++){
      store32_le(out + 4 * i, load32_le(in + 4 * i) ^ ks[i]);
    }
    state[12]++;
    in += 64;  out += 64;  n -= 64;
  }
  if( n > 0 ){
    u8 tail[64];
    chacha20_block(ks, state);
    for(i = 0; i < 16; i++) store32_le(tail + 4 * i, ks[i]);
    for(i = 0; i < n; i++) out[i] = in[i] ^ tail[i];
  }
}

/*
** Vector paths: many blocks at once, one block per lane, with the
** compiler's generic vector types; the kernel is in chacha20.h.  vec128
** (4 blocks) is SSE2 on x86-64, simd128 in WebAssembly built with
** -msimd128, NEON on Arm.  On x86-64 the AVX2 (8 blocks) and AVX-512 (16
** blocks) kernels are compiled beside it with target attributes, and the
** widest one the CPU has is chosen once at start-up.
*/
#if defined(__GNUC__) && !defined(TEMPCRYPT_NO_VECTOR) \
 && (defined(__clang__) || __GNUC__ >= 12) \
 && defined(__BYTE_ORDER__) && __BYTE_ORDER__==__ORDER_LITTLE_ENDIAN__ \
 && (defined(__SSE2__) || defined(__wasm_simd128__) || defined(__ARM_NEON))
# define TEMPCRYPT_VECTOR 1
# if defined(__x86_64__) && !defined(TEMPCRYPT_NO_X86)
#  define TEMPCRYPT_X86 1
# endif
#endif

#ifdef TEMPCRYPT_VECTOR
/* Rotations by 16 swap 16-bit halves: pshuflw and pshufhw on SSE2 (two
** instructions for three), and in wasm under V8 (Node 20) about 3% faster
** than shifts; by 8 shifts, as SSE2 has no byte shuffle and V8's
** i8x16.shuffle for both made the kernel about 8% slower (docs/cipher.md). */
# define CC_VEC128_ROT 2
# define CC_NAME    chacha20_vec128x4
# define CC_LANES   4
# define CC_ATTR    NOINLINE
# define CC_BYTEROT CC_VEC128_ROT
# include "chacha20.h"
# ifdef __x86_64__
/* x86-64: 4 blocks in vectors and a fifth in scalars, whose rounds run on
** the integer units beside the vector ones, then 4 blocks for the rest.
** Measured only here: in wasm V8 spilled the scalars and it ran at half
** speed, and 32-bit x86 has too few registers (docs/cipher.md). */
#  define CC_NAME    chacha20_vec128x5
#  define CC_LANES   4
#  define CC_PLUS1   1
#  define CC_ATTR    NOINLINE
#  define CC_BYTEROT CC_VEC128_ROT
#  include "chacha20.h"
NOINLINE static size_t chacha20_vec128(u8 *out, const u8 *in, size_t n,
                                       u32 state[16]){
  size_t nDone = chacha20_vec128x5(out, in, n, state);
  return nDone + chacha20_vec128x4(out + nDone, in + nDone, n - nDone, state);
}
# else
#  define chacha20_vec128 chacha20_vec128x4
# endif
#endif
#ifdef TEMPCRYPT_X86
# define CC_NAME    chacha20_avx2
# define CC_LANES   8
# define CC_ATTR    NOINLINE __attribute__((target("avx2")))
/* vpshufb for 16 and 8: about 15% faster than shifts here. */
# define CC_BYTEROT 1
# include "chacha20.h"
/* AVX-512F rotates in one instruction (vprold): no shuffles needed. */
# define CC_NAME    chacha20_avx512
# define CC_LANES   16
# define CC_ATTR    NOINLINE __attribute__((target("avx512f")))
# define CC_BYTEROT 0
# include "chacha20.h"
# ifdef SQLITE_TEMPCRYPT_TESTING
/* The 16-block kernel on AVX2, so that CPUs without AVX-512 test it.
** With 16 ymm registers for 32 vectors its frame is about 5.5 KiB, too
** deep for wipe_stack_below(): its wrapper wipes 8 KiB below itself. */
#  define CC_NAME    chacha20_lanes16_avx2_kernel
#  define CC_LANES   16
#  define CC_ATTR    NOINLINE __attribute__((target("avx2")))
#  define CC_BYTEROT 1
#  include "chacha20.h"
NOINLINE static void wipe_8k_below(void){
  volatile uint64_t aScratch[1024];
  size_t i;
  for(i = 0; i < sizeof(aScratch)/sizeof(aScratch[0]); i++) aScratch[i] = 0;
}
NOINLINE static size_t chacha20_lanes16_avx2(u8 *out, const u8 *in, size_t n,
                                             u32 state[16]){
  size_t nDone = chacha20_lanes16_avx2_kernel(out, in, n, state);
  wipe_8k_below();
  return nDone;
}
# endif
#endif

/*
** The paths.  xBulk does every whole group of nLane blocks and returns the
** bytes done; what is left goes to the narrower paths, then to the scalar
** worker.
*/
typedef struct CcPath {
  const char *zName;
  size_t (*xBulk)(u8 *out, const u8 *in, size_t n, u32 state[16]);
  int iNarrower;          /* path for the rest, -1 for the scalar worker */
} CcPath;

enum { CC_SCALAR, CC_VEC128, CC_AVX2, CC_AVX512, CC_L16AVX2, CC_NPATH };

static const CcPath aPath[CC_NPATH] = {
  { "scalar",        0,                     -1 },
#ifdef TEMPCRYPT_VECTOR
  { "vec128",        chacha20_vec128,       -1 },
#else
  { "vec128",        0,                     -1 },
#endif
#ifdef TEMPCRYPT_X86
  { "avx2",          chacha20_avx2,         CC_VEC128 },
  { "avx512",        chacha20_avx512,       CC_AVX2 },
#else
  { "avx2",          0,                     -1 },
  { "avx512",        0,                     -1 },
#endif
#if defined(TEMPCRYPT_X86) && defined(SQLITE_TEMPCRYPT_TESTING)
  { "lanes16-avx2",  chacha20_lanes16_avx2, CC_AVX2 },
#else
  { "lanes16-avx2",  0,                     -1 },
#endif
};

/* The path chosen at start-up: the widest this CPU has. */
#ifdef TEMPCRYPT_VECTOR
# define CC_PORTABLE CC_VEC128
#else
# define CC_PORTABLE CC_SCALAR
#endif
#ifdef TEMPCRYPT_X86
static int iPathStart = CC_PORTABLE;
#else
# define iPathStart CC_PORTABLE
#endif
static int iPathNow = CC_PORTABLE;   /* the path in use */

#if defined(TEMPCRYPT_X86) || defined(SQLITE_TEMPCRYPT_TESTING)
/* Why path i cannot run here, or NULL. */
static const char *ccMissing(int i){
  if( i < 0 || i >= CC_NPATH ) return "no such path";
  if( i == CC_SCALAR ) return 0;
  if( !aPath[i].xBulk ){
#ifndef TEMPCRYPT_VECTOR
    return "not compiled: no vector support in this build";
#else
    return i == CC_L16AVX2 ? "test-only path, not compiled"
                           : "not compiled: x86-64 only";
#endif
  }
#ifdef TEMPCRYPT_X86
  __builtin_cpu_init();
  if( (i == CC_AVX2 || i == CC_L16AVX2) && !__builtin_cpu_supports("avx2") ){
    return "this CPU (or its OS) has no AVX2";
  }
  if( i == CC_AVX512 && !__builtin_cpu_supports("avx512f") ){
    return "this CPU (or its OS) has no AVX-512F";
  }
#endif
  return 0;
}
#endif

#ifdef TEMPCRYPT_X86
/* Runs once, before main() (and before any thread can call the cipher). */
__attribute__((constructor)) static void chacha20_choose_path(void){
  if( !ccMissing(CC_AVX512) ) iPathStart = CC_AVX512;
  else if( !ccMissing(CC_AVX2) ) iPathStart = CC_AVX2;
  iPathNow = iPathStart;
}
#endif

/*
** The stack wipe.  The workers above keep state and keystream in
** registers and in spill slots the C code cannot name, so they are never
** inlined: their frames lie below tempcrypt_chacha20_xor's, and this
** function, called from the same frame right after them, overwrites that
** area (as libsodium's stackzero does).  CC_WIPE_BYTES must exceed the
** deepest worker frame; test/c/stackscan.c checks it for every path, and
** docs/cipher.md says how.  Unoptimised builds keep the kernels' vectors
** in memory: up to 2.3 KiB (avx512 at -O0), so they wipe more.
*/
#ifdef __OPTIMIZE__
# define CC_WIPE_BYTES 2048
#else
# define CC_WIPE_BYTES 8192
#endif
NOINLINE static void wipe_stack_below(void){
#ifdef __GNUC__
  /* 16 bytes a store.  Not memset(): a call out of here could go through
  ** the dynamic linker's lazy binding, which saves the vector registers,
  ** keystream and all, in a frame below this one. */
  typedef u32 W __attribute__((vector_size(16)));
  volatile W aScratch[CC_WIPE_BYTES / 16];
  W zero = {0};
  size_t i;
  for(i = 0; i < sizeof(aScratch)/sizeof(aScratch[0]); i++) aScratch[i] = zero;
#else
  volatile uint64_t aScratch[CC_WIPE_BYTES / 8];
  size_t i;
  for(i = 0; i < sizeof(aScratch)/sizeof(aScratch[0]); i++) aScratch[i] = 0;
#endif
}

#ifdef SQLITE_TEMPCRYPT_TESTING
const char *tempcrypt_chacha20_path_name(int i){
  return i >= 0 && i < CC_NPATH ? aPath[i].zName : 0;
}
const char *tempcrypt_chacha20_path_missing(int i){ return ccMissing(i); }
int tempcrypt_chacha20_use_path(int i){
  if( i < 0 ) i = iPathStart;
  if( ccMissing(i) ) return -1;
  iPathNow = i;
  return 0;
}
int tempcrypt_chacha20_current_path(void){ return iPathNow; }
#endif

/*
** Volatile stores keep the compiler from proving them dead.  16 bytes a
** store between the unaligned ends (the memory tier wipes every block it
** frees: a store a byte cost as much as enciphering it).  Not memset(),
** for the reason given at wipe_stack_below().
*/
void tempcrypt_wipe(void *p, size_t n){
  volatile u8 *v = (volatile u8 *)p;
#ifdef __GNUC__
  typedef u32 W __attribute__((vector_size(16), may_alias));
  volatile W *w;
  W zero = {0};
  while( n > 0 && ((uintptr_t)v & 15) != 0 ){ *v++ = 0;  n--; }
  for(w = (volatile W *)v; n >= 16; n -= 16) *w++ = zero;
  v = (volatile u8 *)w;
#endif
  while( n-- ) *v++ = 0;
}

void tempcrypt_chacha20_xor(uint8_t *out, const uint8_t *in, size_t n,
                            const uint8_t key[32], const uint8_t nonce[12],
                            uint32_t counter){
  u32 state[16];
  int i;

  if( n == 0 ) return;
  /* "expand 32-byte k" */
  state[0] = 0x61707865;  state[1] = 0x3320646e;
  state[2] = 0x79622d32;  state[3] = 0x6b206574;
  for(i = 0; i < 8; i++) state[4 + i] = load32_le(key + 4 * i);
  state[12] = counter;
  state[13] = load32_le(nonce);
  state[14] = load32_le(nonce + 4);
  state[15] = load32_le(nonce + 8);

  for(i = iPathNow; i >= 0 && aPath[i].xBulk; i = aPath[i].iNarrower){
    size_t nDone = aPath[i].xBulk(out, in, n, state);
    in += nDone;  out += nDone;  n -= nDone;
  }
  if( n > 0 ) chacha20_scalar(out, in, n, state);
  wipe_stack_below();
  tempcrypt_wipe(state, sizeof(state));
}
