/*
** Minimal stand-ins for POSIX calls WASI preview1 lacks, used only by the
** SQLite shell (the writefile() mode argument, the realpath() SQL
** function, and .system/.shell/edit(), which need a process to run).
** SQLite's library and tempcrypt do not use them.
*/
#ifdef __wasi__
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "compat.h"

/* WASI has no permission bits: succeed only if the mode asks for nothing
** a WASI file system could not already give. */
int chmod(const char *zPath, mode_t mode){
  struct stat st;
  if( stat(zPath, &st) ) return -1;
  (void)mode;
  errno = ENOTSUP;
  return -1;
}

/* WASI paths are relative to preopened directories and there are no
** symbolic links to resolve in the shell's uses: return the path itself
** if it exists. */
char *realpath(const char *zPath, char *zResolved){
  struct stat st;
  size_t n;
  if( zPath==0 ){ errno = EINVAL; return 0; }
  if( stat(zPath, &st) ) return 0;
  n = strlen(zPath);
  if( n>=PATH_MAX ){ errno = ENAMETOOLONG; return 0; }
  if( zResolved==0 ){
    zResolved = malloc(n+1);
    if( zResolved==0 ){ errno = ENOMEM; return 0; }
  }
  memcpy(zResolved, zPath, n+1);
  return zResolved;
}
/* No processes under WASI: system(NULL) says no shell is available, any
** command fails. */
int system(const char *zCmd){
  if( zCmd==0 ) return 0;
  errno = ENOSYS;
  return -1;
}
#endif
