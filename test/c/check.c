/*
** The counters behind CHECK (check.h).
*/
#include "check.h"

int check_nPass = 0, check_nFail = 0;

int check_finish(const char *zName){
  printf("%s: %d passed, %d failed\n", zName, check_nPass, check_nFail);
  fflush(stdout);
  return check_nFail ? 1 : 0;
}
