/* One record of a temp-file I/O trace (tier-trace.c writes, tier-sim.c reads). */
#ifndef TIER_TRACE_H
#define TIER_TRACE_H
#include <stdint.h>
enum { TIER_OPEN = 1, TIER_CLOSE, TIER_READ, TIER_WRITE, TIER_TRUNCATE };
typedef struct TierRec {
  int64_t off;        /* offset; the new size for TIER_TRUNCATE */
  uint32_t file;      /* file id, from 1, unique within one trace */
  int32_t amt;        /* bytes read or written */
  int32_t flags;      /* open flags (TIER_OPEN) */
  uint8_t op;         /* TIER_* */
  uint8_t pad[3];
} TierRec;
#endif
