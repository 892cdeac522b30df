/*
** ChaCha20 (RFC 8439) for sqlite-tempcrypt.
**
** Portable C99, constant time: the only branches and memory indexes depend
** on lengths and counters, never on the key, the nonce or the data.  Words
** are loaded and stored with shifts, so the code does not care about the
** host's byte order or alignment.  Every buffer that held key material or
** keystream is wiped before return.
*/
#include <string.h>
#include "tempcrypt.h"

typedef uint8_t  u8;
typedef uint32_t u32;

static u32 load32_le(const u8 *s){
  return (u32)s[0] | ((u32)s[1] << 8) | ((u32)s[2] << 16) | ((u32)s[3] << 24);
}

static void store32_le(u8 *d, u32 w){
  d[0] = (u8)w;  d[1] = (u8)(w >> 8);  d[2] = (u8)(w >> 16);  d[3] = (u8)(w >> 24);
}

void tempcrypt_wipe(void *p, size_t n);

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
** Vector path: four blocks at once, one block per lane, with the compiler's
** generic vector types (SSE2 on x86-64, simd128 in WebAssembly built with
** -msimd128, NEON on Arm).  Same rounds, same constant-time operations:
** adds, XORs and fixed rotations.
*/
#if defined(__GNUC__) && !defined(TEMPCRYPT_NO_VECTOR) \
 && defined(__BYTE_ORDER__) && __BYTE_ORDER__==__ORDER_LITTLE_ENDIAN__ \
 && (defined(__SSE2__) || defined(__wasm_simd128__) || defined(__ARM_NEON))
# define TEMPCRYPT_VECTOR 1
typedef u32 v4u32 __attribute__((vector_size(16)));
# ifdef __clang__
#  define SHUF(a, b, i, j, k, l) __builtin_shufflevector(a, b, i, j, k, l)
# else
#  define SHUF(a, b, i, j, k, l) __builtin_shuffle(a, b, (v4u32){ i, j, k, l })
# endif

/* XOR 16 bytes of in with k into out; memcpy keeps it alignment-free. */
static void xor16(u8 *out, const u8 *in, v4u32 k){
  v4u32 v;
  memcpy(&v, in, 16);
  v ^= k;
  memcpy(out, &v, 16);
}

static void chacha20_4blocks(u8 *out, const u8 *in, const u32 state[16]){
  v4u32 x[16];
  int i;
  for(i = 0; i < 16; i++){
    x[i] = (v4u32){ state[i], state[i], state[i], state[i] };
  }
  x[12] += (v4u32){ 0, 1, 2, 3 };
  for(i = 0; i < 10; i++){
    QUARTERROUND(x[0], x[4],  x[8], x[12]);
    QUARTERROUND(x[1], x[5],  x[9], x[13]);
    QUARTERROUND(x[2], x[6], x[10], x[14]);
    QUARTERROUND(x[3], x[7], x[11], x[15]);
    QUARTERROUND(x[0], x[5], x[10], x[15]);
    QUARTERROUND(x[1], x[6], x[11], x[12]);
    QUARTERROUND(x[2], x[7],  x[8], x[13]);
    QUARTERROUND(x[3], x[4],  x[9], x[14]);
  }
  /* Feed-forward; then lane b of x[0..15] is keystream block b, and a
  ** 4x4 transpose per group of four words gives each block's bytes. */
  for(i = 0; i < 16; i++){
    x[i] += (v4u32){ state[i], state[i], state[i], state[i] };
  }
  x[12] += (v4u32){ 0, 1, 2, 3 };
  for(i = 0; i < 16; i += 4){
    v4u32 t0 = SHUF(x[i],   x[i+1], 0, 4, 1, 5);
    v4u32 t1 = SHUF(x[i+2], x[i+3], 0, 4, 1, 5);
    v4u32 t2 = SHUF(x[i],   x[i+1], 2, 6, 3, 7);
    v4u32 t3 = SHUF(x[i+2], x[i+3], 2, 6, 3, 7);
    xor16(out +       4 * i, in +       4 * i, SHUF(t0, t1, 0, 1, 4, 5));
    xor16(out +  64 + 4 * i, in +  64 + 4 * i, SHUF(t0, t1, 2, 3, 6, 7));
    xor16(out + 128 + 4 * i, in + 128 + 4 * i, SHUF(t2, t3, 0, 1, 4, 5));
    xor16(out + 192 + 4 * i, in + 192 + 4 * i, SHUF(t2, t3, 2, 3, 6, 7));
  }
}

/*
** The rounds keep x in registers and spill slots; taking its address to
** wipe it would pin it to memory and cost a third of the speed.  Instead,
** after the vector loop, the caller overwrites the stack below its own
** frame, where chacha20_4blocks's frame was (as libsodium's stackzero).
*/
__attribute__((noinline)) static void wipe_stack_below(void){
  volatile uint64_t aScratch[128];
  size_t i;
  for(i = 0; i < sizeof(aScratch)/sizeof(aScratch[0]); i++) aScratch[i] = 0;
}
#endif

void tempcrypt_wipe(void *p, size_t n){
  /* A volatile pointer keeps the compiler from proving the stores dead. */
  volatile u8 *v = (volatile u8 *)p;
  while( n-- ) *v++ = 0;
}

void tempcrypt_chacha20_xor(uint8_t *out, const uint8_t *in, size_t n,
                            const uint8_t key[32], const uint8_t nonce[12],
                            uint32_t counter){
  u32 state[16], ks[16];
  u8 tail[64];
  int i;
#ifdef TEMPCRYPT_VECTOR
  int bVector = 0;
#endif

  /* "expand 32-byte k" */
  state[0] = 0x61707865;  state[1] = 0x3320646e;
  state[2] = 0x79622d32;  state[3] = 0x6b206574;
  for(i = 0; i < 8; i++) state[4 + i] = load32_le(key + 4 * i);
  state[12] = counter;
  state[13] = load32_le(nonce);
  state[14] = load32_le(nonce + 4);
  state[15] = load32_le(nonce + 8);

#ifdef TEMPCRYPT_VECTOR
  while( n >= 256 ){
    chacha20_4blocks(out, in, state);
    state[12] += 4;
    in += 256;  out += 256;  n -= 256;
    bVector = 1;
  }
  if( bVector ) wipe_stack_below();
#endif
  /* Whole blocks: XOR word by word, which also works when out == in. */
  while( n >= 64 ){
    chacha20_block(ks, state);
    for(i = 0; i < 16; i++){
      store32_le(out + 4 * i, load32_le(in + 4 * i) ^ ks[i]);
    }
    state[12]++;
    in += 64;  out += 64;  n -= 64;
  }
  if( n > 0 ){
    chacha20_block(ks, state);
    for(i = 0; i < 16; i++) store32_le(tail + 4 * i, ks[i]);
    for(i = 0; i < (int)n; i++) out[i] = in[i] ^ tail[i];
    tempcrypt_wipe(tail, sizeof(tail));
  }
  tempcrypt_wipe(ks, sizeof(ks));
  tempcrypt_wipe(state, sizeof(state));
}
