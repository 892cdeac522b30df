/*
** cabi_realloc for the WASI preview1 -> preview2 component adapter (used
** when a module runs under jco or any component runtime).  Without this
** export the adapter takes its memory with memory.grow behind the back of
** the allocator of Debian's 2022 wasi-libc, and the adapter's own state
** check then fails ("assertion failed at adapter line ...").  With it, the
** adapter allocates through malloc like everyone else.
*/
#include <stdlib.h>
#include <string.h>

__attribute__((export_name("cabi_realloc")))
void *cabi_realloc(void *pOld, size_t nOld, size_t align, size_t nNew){
  void *p;
  if( nNew==0 ) return (void*)align;   /* any non-null, suitably aligned */
  if( align<=16 ){
    p = realloc(pOld, nNew);
  }else{
    p = aligned_alloc(align, (nNew + align - 1) & ~(align - 1));
    if( p && pOld ){
      memcpy(p, pOld, nOld<nNew ? nOld : nNew);
      free(pOld);
    }
  }
  if( p==0 ) abort();
  return p;
}
