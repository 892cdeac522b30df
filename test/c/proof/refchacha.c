/*
** Reference ChaCha20 (RFC 8439), deliberately plain and separate from
** src/chacha20.c: the checks below tempcrypt decrypt with it.
*/
#include <string.h>
#include "internal.h"

#define RROTL(v, c) (((v) << (c)) | ((v) >> (32 - (c))))
#define RQR(a, b, c, d) a += b; d ^= a; d = RROTL(d, 16); c += d; b ^= c; b = RROTL(b, 12); \
                        a += b; d ^= a; d = RROTL(d, 8);  c += d; b ^= c; b = RROTL(b, 7);
static uint32_t rle32(const unsigned char *p){
  return (uint32_t)p[0] | (uint32_t)p[1]<<8 | (uint32_t)p[2]<<16 | (uint32_t)p[3]<<24;
}
void proofRefChacha20(unsigned char *out, const unsigned char *in, size_t n,
                      const unsigned char key[32], const unsigned char nonce[12],
                      uint32_t ctr){
  uint32_t st[16], x[16];
  size_t i, j;
  st[0] = 0x61707865; st[1] = 0x3320646e; st[2] = 0x79622d32; st[3] = 0x6b206574;
  for(i=0; i<8; i++) st[4+i] = rle32(key+4*i);
  st[12] = ctr;
  for(i=0; i<3; i++) st[13+i] = rle32(nonce+4*i);
  for(i=0; i<n; i+=64){
    for(j=0; j<16; j++) x[j] = st[j];
    for(j=0; j<10; j++){
      RQR(x[0], x[4], x[8], x[12]) RQR(x[1], x[5], x[9], x[13])
      RQR(x[2], x[6], x[10], x[14]) RQR(x[3], x[7], x[11], x[15])
      RQR(x[0], x[5], x[10], x[15]) RQR(x[1], x[6], x[11], x[12])
      RQR(x[2], x[7], x[8], x[13]) RQR(x[3], x[4], x[9], x[14])
    }
    for(j=0; j<64 && i+j<n; j++){
      uint32_t w = x[j/4] + st[j/4];
      out[i+j] = in[i+j] ^ (unsigned char)(w >> (8*(j%4)));
    }
    st[12]++;
  }
}

/* RFC 8439 2.3.2. */
int proofRefSelfTest(void){
  static const unsigned char want[16] = {0x10,0xf1,0xe7,0xe4,0xd1,0x3b,0x59,0x15,
                                         0x50,0x0f,0xdd,0x1f,0xa3,0x20,0x71,0xc4};
  unsigned char key[32], nonce[12] = {0,0,0,9,0,0,0,0x4a,0,0,0,0}, z[16], o[16];
  int i;
  for(i=0; i<32; i++) key[i] = (unsigned char)i;
  memset(z, 0, sizeof(z));
  proofRefChacha20(o, z, 16, key, nonce, 1);
  return memcmp(o, want, 16)==0;
}
