#!/usr/bin/env bash
# Mutation check: apply deliberate bugs to copies of src/tempcrypt.c and
# src/chacha20.c, one at a time, in a scratch directory (the real sources
# are never touched), rebuild the test programs against each mutant and
# assert that the suite fails.  Prints a table: bug -> test that caught it.
#
#   test/mutate.sh            stop at the first test that catches a mutant
#   MUTATE_ALL=1 test/mutate.sh   run every test on every mutant (slower)
#   test/mutate.sh 3 7        only mutations 3 and 7
#
# Needs: build/native/sqlite3.o (make native), libsodium-dev, valgrind.
set -u
cd "$(dirname "$0")/.."
CC=${CC:-cc}
BUILD=${BUILD:-build}
SQLITE_DIR=${SQLITE_DIR:-$BUILD/sqlite}
SQLITE_O=${SQLITE_O:-$BUILD/native/sqlite3.o}
W=${MUTATE_DIR:-$BUILD/proof/mutate}
ALL=${MUTATE_ALL:-0}
CFL="-O2 -g -DSQLITE_TEMPCRYPT_TESTING -I$SQLITE_DIR -Itest"
LIBS="-lpthread -lm"

[ -f "$SQLITE_O" ] || { echo "mutate: $SQLITE_O missing (make native)"; exit 2; }
rm -rf "$W"; mkdir -p "$W/obj" "$W/tmp"

# ------------------------------------------------------------ the bugs
# name | file | sed script (applied to the copy; must change it)
MUT=(
"counter reused on overwrite|tempcrypt.c|s#^    iCtr = ++p->iCounter;\$#    iCtr = p->iCounter ? p->iCounter : ++p->iCounter;#"
"cipher skipped on appends|tempcrypt.c|s#^    tcCipher(p, aData+iOff, z, n, iCtr, iOff);\$#    if( bAppend ) memcpy(aData+iOff, z, n); else tcCipher(p, aData+iOff, z, n, iCtr, iOff);#"
"offset shifted by one block|tempcrypt.c|s#^  return k\*(i64)(p->szBlock + TC_HDR);\$#  return (k+1)*(i64)(p->szBlock + TC_HDR);#"
"failed write not zeroed (size kept)|tempcrypt.c|s#^  p->iSize = iOldSize;\$#  /* size kept */#"
"failed write: leftovers not truncated|tempcrypt.c|s#^  if( pSub->pMethods->xTruncate(pSub, tcPhysSize(p, iOldSize))!=SQLITE_OK ){\$#  if( 0 ){#"
"half-written block never repaired|tempcrypt.c|s#^      p->bPending = 1;\$#      p->bPending = 0;#"
"key not wiped on close|tempcrypt.c|s#^  tempcrypt_wipe(p->aKey, sizeof(p->aKey));\$#  /* no wipe */#"
"getentropy error ignored|tempcrypt.c|s#^    if( TC_ENTROPY(p->aKey, sizeof(p->aKey))!=0 ){\$#    if( (TC_ENTROPY(p->aKey, sizeof(p->aKey)), 0) ){#"
"wrong quarter-round rotation (7->8)|chacha20.c|s#^  c += d;  b = ROTL32(b ^ c,  7)\$#  c += d;  b = ROTL32(b ^ c,  8)#"
"mmap left on for encrypted files|tempcrypt.c|s#^  if( p->bCrypt ) return \&tc_io_methods_v1;\$#  (void)0;#; s#^      case SQLITE_FCNTL_MMAP_SIZE: {\$#      case -424242: {#"
"named files through the cipher|tempcrypt.c|s#^  if( zName==0 \&\& TC_LOAD(tcEnabled) ){\$#  if( TC_LOAD(tcEnabled) ){#"
"counter dropped on truncate|tempcrypt.c|s#^  p->iSize = size;\$#  p->iSize = size; p->iCounter = 0;#"
"xFileSize reports the physical size|tempcrypt.c|s#^    \*pSize = p->iSize;\$#    *pSize = tcPhysSize(p, p->iSize);#"
"secret-dependent branch in the cipher|tempcrypt.c|s#^  TC_ADD(tcStats.nEnciphered, (u64)n);\$#  TC_ADD(tcStats.nEnciphered, (u64)n); if( in[0]==0x42 ) TC_ADD(tcStats.nBlockRmw, 0);#"
"runtime switch ignored (always on)|tempcrypt.c|s#^  TC_STORE(tcEnabled, on ? 1 : 0);\$#  TC_STORE(tcEnabled, 1);#"
"append restarts the keystream at 0|tempcrypt.c|s#^    tcCipher(p, aData+iOff, z, n, iCtr, iOff);\$#    tcCipher(p, aData+iOff, z, n, iCtr, 0);#"
"failed append keeps continuing keystream|tempcrypt.c|s#^  p->bLastKnown = 0;\$#  /* still known */#"
"never-written block not zero-filled on read|tempcrypt.c|s#^    memset(zOut, 0, n);\$#    (void)0;#"
"shared memory promised where the lower has none|tempcrypt.c|s#^  return bShm ? \&tc_io_methods_shm : \&tc_io_methods_v1;\$#  return \&tc_io_methods_shm;#"
"CHUNK_SIZE forwarded to encrypted files|tempcrypt.c|s#^      case SQLITE_FCNTL_POWERSAFE_OVERWRITE:\$#      case SQLITE_FCNTL_POWERSAFE_OVERWRITE: case SQLITE_FCNTL_CHUNK_SIZE:#"
"failed clean-up truncate never retried|tempcrypt.c|s#^    p->bDirtyTail = 1;\$#    (void)0;#"
"pending repair dropped by a failed truncate|tempcrypt.c|s#^  if( (p->bPending \&\& p->kPending\*p->szBlock<size) || size>p->iSize ){\$#  if( p->bPending \&\& p->kPending*p->szBlock>=size ) p->bPending = 0;\n  if( p->bPending || size>p->iSize ){#"
)

# ------------------------------------------------------------ the suite
# name | command (run in $W/tmp with PROOF_DIR set; binaries in $W/bin)
SUITE=(
"chacha20_test|../bin/chacha20_test 2000"
"stress|../bin/stress -n 150000 -s 7 -m all"
"leakcheck|../bin/leakcheck -q"
"difftest|../bin/difftest 600"
"keyhygiene|../bin/keyhygiene"
"faulttest|../bin/faulttest"
"recovery|../bin/recovery -stride 20"
"conformance|../bin/conformance -dir . unix-dotfile"
"ctgrind|valgrind -q --error-exitcode=99 --exit-on-first-error=yes ../bin/ctgrind"
)
TESTS="chacha20_test stress leakcheck difftest faulttest keyhygiene ctgrind recovery conformance"

echo "mutate: compiling the test programs once"
$CC $CFL -Isrc -c test/proof.c -o "$W/obj/proof.o" || exit 2
for t in $TESTS; do
  extra=""; [ "$t" = chacha20_test ] && extra="-DHAVE_LIBSODIUM"
  $CC $CFL $extra -Isrc -c "test/$t.c" -o "$W/obj/$t.o" || exit 2
done

# Build the suite against the sources in $1 (a directory with the copies).
build() {
  local s=$1 t
  mkdir -p "$W/bin"; rm -f "$W/bin/"*
  $CC $CFL -I"$s" -c "$s/tempcrypt.c" -o "$W/obj/tc.o" 2>"$W/build.log" || return 1
  $CC $CFL -I"$s" -c "$s/chacha20.c" -o "$W/obj/cc.o" 2>>"$W/build.log" || return 1
  for t in $TESTS; do
    local obj="$W/obj/proof.o" lib=""
    case $t in chacha20_test) obj=""; lib="-lsodium";; stress|conformance) obj="";; esac
    $CC -o "$W/bin/$t" "$W/obj/$t.o" $obj "$W/obj/tc.o" "$W/obj/cc.o" "$SQLITE_O" $lib $LIBS \
      2>>"$W/build.log" || return 1
  done
}

# Run the suite; prints the names of the failing tests.
run_suite() {
  local caught="" e name cmd rc
  for e in "${SUITE[@]}"; do
    name=${e%%|*}; cmd=${e#*|}
    (cd "$W/tmp" && PROOF_DIR=. timeout -s KILL 240 $cmd >"../$name.log" 2>&1); rc=$?
    if [ $rc -ne 0 ]; then
      { [ $rc -eq 124 ] || [ $rc -eq 137 ]; } && name="$name(timeout)"
      caught="$caught $name"
      [ "$ALL" = 1 ] || break
    fi
  done
  echo "${caught# }"
}

mkdir -p "$W/src"
cp src/*.c src/*.h "$W/src/"
echo "mutate: baseline (no mutation) must pass every test"
build "$W/src" || { cat "$W/build.log"; echo "mutate: baseline does not build"; exit 2; }
SAVE=$ALL; ALL=1; base=$(run_suite); ALL=$SAVE
if [ -n "$base" ]; then echo "mutate: baseline FAILS: $base (see $W/*.log)"; exit 2; fi

sel=" $* "
nTot=0; nCaught=0; rows=()
for i in "${!MUT[@]}"; do
  n=$((i+1))
  [ $# -gt 0 ] && [[ "$sel" != *" $n "* ]] && continue
  IFS='|' read -r desc file script <<<"${MUT[$i]}"
  rm -rf "$W/src"; mkdir -p "$W/src"; cp src/*.c src/*.h "$W/src/"
  sed -i -e "$script" "$W/src/$file"
  nTot=$((nTot+1))
  t0=$(date +%s)
  if cmp -s "src/$file" "$W/src/$file"; then
    res="NOT APPLIED (source changed? update test/mutate.sh)"
  elif ! build "$W/src"; then
    res="does not compile"
  else
    res=$(run_suite)
    if [ -n "$res" ]; then nCaught=$((nCaught+1)); else res="NOT CAUGHT"; fi
  fi
  t1=$(date +%s)
  rows+=("$(printf '%2d  %-44s %-40s %4ss' "$n" "$desc" "$res" "$((t1-t0))")")
  echo "${rows[-1]}"
done
rm -rf "$W/src"

echo
if [ "$ALL" = 1 ]; then echo "Mutation check: bug -> every test that caught it"
else echo "Mutation check: bug -> first test that caught it (MUTATE_ALL=1: all)"; fi
printf '%2s  %-44s %-40s %5s\n' "#" "bug" "caught by" "time"
for r in "${rows[@]}"; do echo "$r"; done
echo "mutations caught: $nCaught of $nTot"
echo "$nCaught passed, $((nTot-nCaught)) failed"
[ "$nCaught" -eq "$nTot" ]
