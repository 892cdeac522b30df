/*
** The checks of every C test, native and WASI.  CHECK(cond, fmt, ...)
** counts a pass, or prints "FAIL file:line: message" and counts a failure;
** check_finish() prints the closing "NAME: N passed, N failed" line that
** make and the WASI runners read, and returns the exit status.  The
** counters live in check.c, so that the proof library's parts can check
** too (proof_check_below).
*/
#ifndef TEMPCRYPT_CHECK_H
#define TEMPCRYPT_CHECK_H
#include <stdio.h>

extern int check_nPass, check_nFail;

#define CHECK(cond, ...) do{                                   \
  if( cond ){ check_nPass++; }else{                            \
    check_nFail++;                                             \
    fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);       \
    fprintf(stderr, __VA_ARGS__);                              \
    fputc('\n', stderr);                                       \
  }                                                            \
}while(0)

/* Print "zName: N passed, N failed"; return 1 if anything failed, else 0. */
int check_finish(const char *zName);

#endif
