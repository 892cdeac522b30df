/*
** The on-disk layout, decoded: see layout.h.
*/
#include <string.h>
#include "layout.h"
#include "internal.h"

int64_t layout_block_start(int B, int64_t k){ return k*(int64_t)B; }
int64_t layout_block_of(int B, int64_t off){ return off/(int64_t)B; }

void layout_xor(unsigned char *out, const unsigned char *in, size_t n,
                const unsigned char key[32], uint64_t c, int64_t j){
  unsigned char nonce[12], blk[64];
  int i;
  for(i=0; i<8; i++) nonce[i] = (unsigned char)(c >> (8*i));
  memset(nonce+8, 0, sizeof(nonce)-8);
  while( n>0 ){
    size_t o = (size_t)(j % 64), m = 64 - o;
    if( m>n ) m = n;
    memset(blk, 0, sizeof(blk));
    proofRefChacha20(blk, blk, sizeof(blk), key, nonce, (uint32_t)(j/64));
    for(i=0; i<(int)m; i++) out[i] = in[i] ^ blk[o+i];
    out += m; in += m; j += (int64_t)m; n -= m;
  }
}
