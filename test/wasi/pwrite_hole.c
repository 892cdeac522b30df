/*
** Does the WASI runtime write past the end of a file where it is told to?
** pwrite() 4096 bytes at offset 8192 of an empty file must leave a file of
** 12288 bytes (a hole of zeros, then the data).  SQLite writes pages out of
** order when its cache spills, so a runtime that appends instead corrupts
** every database (@wasmer/wasi 1.2.2 does).  Prints "pwrite past EOF: ok"
** and exits 0, or says what it found and exits 1.
*/
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(void){
  static char data[4096], back[4096];
  int fd;
  off_t size;
  memset(data, 'B', sizeof data);
  fd = open("pwrite_hole.bin", O_RDWR|O_CREAT|O_TRUNC, 0644);
  if( fd<0 ){ perror("pwrite_hole.bin"); return 2; }
  if( pwrite(fd, data, sizeof data, 8192)!=(ssize_t)sizeof data ){ perror("pwrite"); return 2; }
  size = lseek(fd, 0, SEEK_END);
  memset(back, 0, sizeof back);
  if( pread(fd, back, sizeof back, 8192)<0 ){ perror("pread"); return 2; }
  close(fd);
  unlink("pwrite_hole.bin");
  if( size!=12288 || memcmp(back, data, sizeof data)!=0 ){
    printf("pwrite past EOF: wrong (4096 bytes at offset 8192 of an empty file"
           " gave a file of %lld bytes, data %s at 8192)\n",
           (long long)size, memcmp(back, data, sizeof data) ? "not" : "found");
    return 1;
  }
  printf("pwrite past EOF: ok\n");
  return 0;
}
