/*
** Declarations the SQLite shell (shell.c) uses that Debian's 2022
** wasi-libc does not declare under WASI.  Force-included (-include) when
** compiling shell.c for wasm32-wasi only; definitions in compat.c.
*/
#ifndef TEMPCRYPT_WASI_COMPAT_H
#define TEMPCRYPT_WASI_COMPAT_H
#ifdef __wasi__
#include <sys/types.h>
int chmod(const char *zPath, mode_t mode);
char *realpath(const char *zPath, char *zResolved);
#endif
#endif
