/*
** Private header of chacha20.c, for tempcrypt.c and the tests (not part of
** the public API in tempcrypt.h): the cipher, the wipe, the test-only
** hooks that pick a cipher path, and the multi-block kernel that
** chacha20.c instantiates once per vector width (docs/cipher.md).
*/
#ifndef TEMPCRYPT_CHACHA20_H
#define TEMPCRYPT_CHACHA20_H
#include <stddef.h>
#include <stdint.h>

/*
** ChaCha20 as in RFC 8439: 256-bit key, 96-bit nonce, 32-bit block counter.
** XORs n bytes of keystream, starting at block `counter`, into in and
** writes the result to out.  out == in is allowed; other overlap is not.
** The caller must not ask for more than 2^32 - counter blocks.
*/
void tempcrypt_chacha20_xor(uint8_t *out, const uint8_t *in, size_t n,
                            const uint8_t key[32], const uint8_t nonce[12],
                            uint32_t counter);

/* Overwrite n bytes at p with zeros in a way the compiler cannot drop. */
void tempcrypt_wipe(void *p, size_t n);

#ifdef SQLITE_TEMPCRYPT_TESTING
/*
** The paths of tempcrypt_chacha20_xor, numbered 0 .. NPATH-1: the scalar
** code, the portable 4-block vector code, AVX2 (8 blocks), AVX-512 (16
** blocks), and, for tests only, the 16-block kernel built for AVX2 so
** that a machine without AVX-512 still checks its shuffles.
*/
#define TEMPCRYPT_CHACHA20_NPATH 5

/* Name of path i ("scalar", "vec128", ...), or NULL if i is out of range. */
const char *tempcrypt_chacha20_path_name(int i);

/* NULL if this build and CPU run path i, else the reason why not. */
const char *tempcrypt_chacha20_path_missing(int i);

/* Use path i from now on (i < 0: the one chosen at start-up again).
** Returns 0, or -1 (and changes nothing) if path i is missing. */
int tempcrypt_chacha20_use_path(int i);

/* The path in use now. */
int tempcrypt_chacha20_current_path(void);
#endif /* SQLITE_TEMPCRYPT_TESTING */
#endif /* TEMPCRYPT_CHACHA20_H */

/*
** The kernel: CC_LANES (4, 8 or 16) blocks at once, block b of a group in
** lane b of x[0..15], plus, if CC_PLUS1, block CC_LANES of the group in
** the scalars y[0..15], whose rounds run on the integer units while the
** vector units do the others.  chacha20.c defines CC_NAME, CC_LANES,
** CC_PLUS1 (0 if not), CC_ATTR and CC_BYTEROT (0: rotations by shifts;
** 1: by 16 and 8 with byte shuffles; 2: by 16 with a 16-bit shuffle, by
** 8 with shifts) and includes this part once per instance.  The kernel
** XORs the keystream of every whole group in n into in, writes out, and
** advances state[12]; it returns the bytes done.  Only adds, XORs,
** rotations and fixed shuffles: no branch or address depends on a
** secret.  It wipes nothing itself: its caller wipes the stack under it
** (chacha20.c, wipe_stack_below).
*/
#ifdef CC_LANES
#ifndef CC_PLUS1
# define CC_PLUS1 0
#endif
#define CC_UNROLL _Pragma("GCC unroll 16")
/* Shuffle indices: M once per 128-bit lane g of a vector. */
#if CC_LANES == 4
# define CC_PER_LANE(M) M(0)
#elif CC_LANES == 8
# define CC_PER_LANE(M) M(0), M(1)
#else
# define CC_PER_LANE(M) M(0), M(1), M(2), M(3)
#endif
#define CC_UNPACKLO32(g) 4*g, CC_LANES+4*g, 4*g+1, CC_LANES+4*g+1
#define CC_UNPACKHI32(g) 4*g+2, CC_LANES+4*g+2, 4*g+3, CC_LANES+4*g+3
#define CC_UNPACKLO64(g) 4*g, 4*g+1, CC_LANES+4*g, CC_LANES+4*g+1
#define CC_UNPACKHI64(g) 4*g+2, 4*g+3, CC_LANES+4*g+2, CC_LANES+4*g+3
/* Lanes p then q of the two inputs together (16-lane vectors). */
#define CC_Q(p, q) 4*p, 4*p+1, 4*p+2, 4*p+3, 4*q, 4*q+1, 4*q+2, 4*q+3
/* Rotations by 16 and 8 as byte shuffles, per 32-bit word w. */
#define CC_R16W(w) 4*(w)+2, 4*(w)+3, 4*(w), 4*(w)+1
#define CC_R8W(w)  4*(w)+3, 4*(w), 4*(w)+1, 4*(w)+2
#define CC_R16G(g) CC_R16W(4*g), CC_R16W(4*g+1), CC_R16W(4*g+2), CC_R16W(4*g+3)
#define CC_R8G(g)  CC_R8W(4*g), CC_R8W(4*g+1), CC_R8W(4*g+2), CC_R8W(4*g+3)
#define CC_R16H(g) 8*g+1, 8*g, 8*g+3, 8*g+2, 8*g+5, 8*g+4, 8*g+7, 8*g+6
#if CC_BYTEROT == 2
# define CC_ROT16(v) (V)__builtin_shufflevector((VH)(v), (VH)(v), CC_PER_LANE(CC_R16H))
# define CC_ROT8(v)  ROTL32(v, 8)
#elif CC_BYTEROT
# define CC_ROT16(v) (V)__builtin_shufflevector((VB)(v), (VB)(v), CC_PER_LANE(CC_R16G))
# define CC_ROT8(v)  (V)__builtin_shufflevector((VB)(v), (VB)(v), CC_PER_LANE(CC_R8G))
#else
# define CC_ROT16(v) ROTL32(v, 16)
# define CC_ROT8(v)  ROTL32(v, 8)
#endif
#define CC_QR(a, b, c, d)                        \
  a += b;  d = CC_ROT16(d ^ a);                  \
  c += d;  b = ROTL32(b ^ c, 12);                \
  a += b;  d = CC_ROT8(d ^ a);                   \
  c += d;  b = ROTL32(b ^ c,  7)
/* XOR one vector of keystream into in, store at out; memcpy keeps it
** alignment-free and lets out == in. */
#define CC_XOR(o, s, v) do{                      \
  V t_ = (v), d_;                                \
  memcpy(&d_, (s), sizeof(V));                   \
  d_ ^= t_;                                      \
  memcpy((o), &d_, sizeof(V));                   \
}while(0)

/* The column round and the diagonal round: quarter round Q on v[0..15]. */
#define CC_COLUMNS(Q, v)                         \
  Q(v[0], v[4],  v[8], v[12]);                   \
  Q(v[1], v[5],  v[9], v[13]);                   \
  Q(v[2], v[6], v[10], v[14]);                   \
  Q(v[3], v[7], v[11], v[15])
#define CC_DIAGONALS(Q, v)                       \
  Q(v[0], v[5], v[10], v[15]);                   \
  Q(v[1], v[6], v[11], v[12]);                   \
  Q(v[2], v[7],  v[8], v[13]);                   \
  Q(v[3], v[4],  v[9], v[14])

CC_ATTR static size_t CC_NAME(u8 *out, const u8 *in, size_t n, u32 state[16]){
  typedef u32 V  __attribute__((vector_size(4 * CC_LANES)));
#if CC_BYTEROT == 2
  typedef uint16_t VH __attribute__((vector_size(4 * CC_LANES)));
#elif CC_BYTEROT
  typedef u8  VB __attribute__((vector_size(4 * CC_LANES)));
#endif
  V x[16], ctr, zero = {0};
#if CC_PLUS1
  u32 y[16];
#endif
  size_t nDone = 0;
  int i;
  for(i = 0; i < CC_LANES; i++) ctr[i] = (u32)i;
  while( n - nDone >= 64 * (CC_LANES + CC_PLUS1) ){
    /* Every loop over x is unrolled, so that x lives in registers (gcc
    ** -O2 would leave some loops rolled, and x in memory). */
    CC_UNROLL
    for(i = 0; i < 16; i++) x[i] = zero + state[i];
    x[12] += ctr;
#if CC_PLUS1
    CC_UNROLL
    for(i = 0; i < 16; i++) y[i] = state[i];
    y[12] += CC_LANES;
#endif
#ifdef __wasm__
    /* Two double rounds a turn: 1-5% faster under V8 (docs/cipher.md). */
    _Pragma("GCC unroll 2")
#endif
    for(i = 0; i < 10; i++){
      CC_COLUMNS(CC_QR, x);
#if CC_PLUS1
      CC_COLUMNS(QUARTERROUND, y);
#endif
      CC_DIAGONALS(CC_QR, x);
#if CC_PLUS1
      CC_DIAGONALS(QUARTERROUND, y);
#endif
    }
    CC_UNROLL
    for(i = 0; i < 16; i++) x[i] += state[i];
    x[12] += ctr;
#if CC_PLUS1
    {
      u8 *o = out + nDone + 64 * CC_LANES;
      const u8 *s = in + nDone + 64 * CC_LANES;
      y[12] += CC_LANES;
      CC_UNROLL
      for(i = 0; i < 16; i++){
        u32 w;                    /* little-endian, as vectors need */
        memcpy(&w, s + 4 * i, 4);
        w ^= y[i] + state[i];
        memcpy(o + 4 * i, &w, 4);
      }
    }
#endif
    /* A 4x4 transpose inside each 128-bit lane: afterwards x[i+k] holds,
    ** in its lane g, words i..i+3 of block 4g+k. */
    CC_UNROLL
    for(i = 0; i < 16; i += 4){
      V t0 = __builtin_shufflevector(x[i],   x[i+1], CC_PER_LANE(CC_UNPACKLO32));
      V t1 = __builtin_shufflevector(x[i+2], x[i+3], CC_PER_LANE(CC_UNPACKLO32));
      V t2 = __builtin_shufflevector(x[i],   x[i+1], CC_PER_LANE(CC_UNPACKHI32));
      V t3 = __builtin_shufflevector(x[i+2], x[i+3], CC_PER_LANE(CC_UNPACKHI32));
      x[i]   = __builtin_shufflevector(t0, t1, CC_PER_LANE(CC_UNPACKLO64));
      x[i+1] = __builtin_shufflevector(t0, t1, CC_PER_LANE(CC_UNPACKHI64));
      x[i+2] = __builtin_shufflevector(t2, t3, CC_PER_LANE(CC_UNPACKLO64));
      x[i+3] = __builtin_shufflevector(t2, t3, CC_PER_LANE(CC_UNPACKHI64));
    }
    CC_UNROLL
    for(i = 0; i < 4; i++){
      u8 *o = out + nDone + 64 * i;
      const u8 *s = in + nDone + 64 * i;
#if CC_LANES == 4
      CC_XOR(o,      s,      x[i]);
      CC_XOR(o + 16, s + 16, x[4 + i]);
      CC_XOR(o + 32, s + 32, x[8 + i]);
      CC_XOR(o + 48, s + 48, x[12 + i]);
#elif CC_LANES == 8
      /* Lanes 0 and 1 of x[i] and x[4+i] make 32 bytes of block i and
      ** of block 4+i. */
      CC_XOR(o,       s,       __builtin_shufflevector(x[i],     x[4 + i],  0, 1, 2, 3,  8,  9, 10, 11));
      CC_XOR(o + 256, s + 256, __builtin_shufflevector(x[i],     x[4 + i],  4, 5, 6, 7, 12, 13, 14, 15));
      CC_XOR(o + 32,  s + 32,  __builtin_shufflevector(x[8 + i], x[12 + i], 0, 1, 2, 3,  8,  9, 10, 11));
      CC_XOR(o + 288, s + 288, __builtin_shufflevector(x[8 + i], x[12 + i], 4, 5, 6, 7, 12, 13, 14, 15));
#else
      /* A 4x4 transpose of 128-bit lanes: block 4g+i is lane g of x[i],
      ** x[4+i], x[8+i] and x[12+i]. */
      {
        V a = __builtin_shufflevector(x[i],     x[4 + i],  CC_Q(0, 4), CC_Q(1, 5));
        V b = __builtin_shufflevector(x[i],     x[4 + i],  CC_Q(2, 6), CC_Q(3, 7));
        V c = __builtin_shufflevector(x[8 + i], x[12 + i], CC_Q(0, 4), CC_Q(1, 5));
        V d = __builtin_shufflevector(x[8 + i], x[12 + i], CC_Q(2, 6), CC_Q(3, 7));
        CC_XOR(o,       s,       __builtin_shufflevector(a, c, CC_Q(0, 1), CC_Q(4, 5)));
        CC_XOR(o + 256, s + 256, __builtin_shufflevector(a, c, CC_Q(2, 3), CC_Q(6, 7)));
        CC_XOR(o + 512, s + 512, __builtin_shufflevector(b, d, CC_Q(0, 1), CC_Q(4, 5)));
        CC_XOR(o + 768, s + 768, __builtin_shufflevector(b, d, CC_Q(2, 3), CC_Q(6, 7)));
      }
#endif
    }
    state[12] += CC_LANES + CC_PLUS1;
    nDone += 64 * (CC_LANES + CC_PLUS1);
  }
  return nDone;
}
#undef CC_PER_LANE
#undef CC_PLUS1
#undef CC_ROT16
#undef CC_ROT8
#undef CC_NAME
#undef CC_LANES
#undef CC_ATTR
#undef CC_BYTEROT
#endif /* CC_LANES */
