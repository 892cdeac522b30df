#!/usr/bin/env bash
# Mutation check: apply deliberate bugs to copies of src/tempcrypt.c and
# src/chacha20.c, one at a time, in a scratch directory (the real sources
# are never touched), rebuild the test programs against each mutant and
# assert that the suite fails.  Prints a table: bug -> test that caught it.
#
#   test/c/mutate.sh            stop at the first test that catches a mutant
#   MUTATE_ALL=1 test/c/mutate.sh   run every test on every mutant (slower)
#   test/c/mutate.sh 3 7        only mutations 3 and 7
#
# Needs: build/native/sqlite3.o (make native), libsodium-dev, valgrind.
set -u
cd "$(dirname "$0")/../.."
CC=${CC:-cc}
BUILD=${BUILD:-build}
SQLITE_DIR=${SQLITE_DIR:-$BUILD/sqlite}
SQLITE_O=${SQLITE_O:-$BUILD/native/sqlite3.o}
W=${MUTATE_DIR:-$BUILD/proof/mutate}
ALL=${MUTATE_ALL:-0}
CFL="-O2 -g -DSQLITE_TEMPCRYPT_TESTING -I$SQLITE_DIR -Itest/c"
LIBS="-lpthread -lm"

[ -f "$SQLITE_O" ] || { echo "mutate: $SQLITE_O missing (make native)"; exit 2; }
rm -rf "$W"; mkdir -p "$W/obj" "$W/tmp"

# ------------------------------------------------------------ the bugs
# name :: file :: function :: find :: replace [:: function :: find :: replace]...
# Each edit is anchored to a function (or macro) of src/FILE by name:
# `find` must occur exactly once in its body (spaces in it match any run
# of white space, or none), and is replaced by `replace` (\n: a new line).
# An anchor that no longer matches stops the run before anything is built.
MUT=(
"counter reused on overwrite :: tempcrypt.c :: tcWriteBlock :: iCtr = ++p->iCounter; :: iCtr = p->iCounter ? p->iCounter : ++p->iCounter;"
"cipher skipped on appends :: tempcrypt.c :: tcWriteBlock :: tcCipher(p, aData+iOff, z, n, iCtr, iOff); :: if( bAppend ) memcpy(aData+iOff, z, n); else tcCipher(p, aData+iOff, z, n, iCtr, iOff);"
"offset shifted by one block :: tempcrypt.c :: tcPhysOffset :: return k*(i64)p->szBlock; :: return (k+1)*(i64)p->szBlock;"
"failed write not zeroed (size kept) :: tempcrypt.c :: tcWriteFailed :: TC_STORE(p->iSize, iOldSize); :: /* size kept */"
"failed write: leftovers not truncated :: tempcrypt.c :: tcWriteFailed :: if( pSub->pMethods->xTruncate(pSub, iOldSize)!=SQLITE_OK ){ :: if( 0 ){"
"half-written block never repaired :: tempcrypt.c :: tcWriteBlock :: p->bPending = 1; :: p->bPending = 0;"
"key not wiped on close :: tempcrypt.c :: tcWipeFile :: tempcrypt_wipe(p->aKey, sizeof(p->aKey)); :: /* no wipe */"
"getentropy error ignored :: tempcrypt.c :: tcOpen :: if( TC_ENTROPY(p->aKey, sizeof(p->aKey))!=0 ){ :: if( (TC_ENTROPY(p->aKey, sizeof(p->aKey)), 0) ){"
"wrong quarter-round rotation (7->8) :: chacha20.c :: QUARTERROUND :: b = ROTL32(b ^ c, 7) :: b = ROTL32(b ^ c, 8)"
"mmap left on for encrypted files :: tempcrypt.c :: tcMethodsFor :: if( p->bCrypt ) return &tc_io_methods_v1; :: (void)0; :: tcFileControl :: case SQLITE_FCNTL_MMAP_SIZE: { :: case -424242: {"
"named files through the cipher :: tempcrypt.c :: tcOpen :: if( zName==0 && TC_LOAD(tcEnabled) ){ :: if( TC_LOAD(tcEnabled) ){"
"counter dropped on truncate :: tempcrypt.c :: tcTruncate :: TC_STORE(p->iSize, size); :: TC_STORE(p->iSize, size); p->iCounter = 0;"
"counters kept past a truncate :: tempcrypt.c :: tcLowerCut :: if( nBlk<nTop ) memset(p->aCtr + nBlk, 0, (size_t)(nTop - nBlk)*sizeof(u64)); :: (void)nTop;"
"secret-dependent branch in the cipher :: tempcrypt.c :: tcCipher :: TC_ADD(tcStats.nEnciphered, (u64)n); :: TC_ADD(tcStats.nEnciphered, (u64)n); if( in[0]==0x42 ) TC_ADD(tcStats.nBlockRmw, 0);"
"runtime switch ignored (always on) :: tempcrypt.c :: sqlite3_tempcrypt_set_enabled :: TC_STORE(tcEnabled, on ? 1 : 0); :: TC_STORE(tcEnabled, 1);"
"append restarts the keystream at 0 :: tempcrypt.c :: tcWriteBlock :: tcCipher(p, aData+iOff, z, n, iCtr, iOff); :: tcCipher(p, aData+iOff, z, n, iCtr, 0);"
"failed append keeps continuing keystream :: tempcrypt.c :: tcWriteFailed :: p->bLastKnown = 0; :: /* still known */"
"never-written block not zero-filled on read :: tempcrypt.c :: tcFetchBlock :: memset(z, 0, n); :: (void)0;"
"shared memory promised where the lower has none :: tempcrypt.c :: tcMethodsFor :: return bShm ? &tc_io_methods_shm : &tc_io_methods_v1; :: return &tc_io_methods_shm;"
"CHUNK_SIZE forwarded to encrypted files :: tempcrypt.c :: tcFileControl :: case SQLITE_FCNTL_POWERSAFE_OVERWRITE: :: case SQLITE_FCNTL_POWERSAFE_OVERWRITE: case SQLITE_FCNTL_CHUNK_SIZE:"
"failed clean-up truncate never retried :: tempcrypt.c :: tcWriteFailed :: p->bDirtyTail = 1; :: (void)0;"
"pending repair dropped by a failed truncate :: tempcrypt.c :: tcTruncate :: if( (p->bPending && p->kPending*p->szBlock<size) || size>p->iSize ){ :: if( p->bPending && p->kPending*p->szBlock>=size ) p->bPending = 0;\n  if( p->bPending || size>p->iSize ){"
"tier: memory block freed unwiped :: tempcrypt.c :: tcMemFree :: tempcrypt_wipe(p->apMem[k], (size_t)p->szBlock); :: /* no wipe */"
"tier: budget not enforced :: tempcrypt.c :: tcMemClaim :: if( cur + n > TC_LOAD(tcBudget) ) return 0; :: (void)0;"
"tier: budget claimed without compare-and-swap :: tempcrypt.c :: tcMemClaim :: }while( !TC_CAS(tcMemUsed, cur, cur + n) ); :: }while( (TC_STORE(tcMemUsed, cur + n), 0) );"
"tier: memory for a block the lower file holds :: tempcrypt.c :: tcMemNew :: if( k<p->nLowerBlk ) return 0; :: (void)0;"
"tier: shrink leaves old bytes in a memory block :: tempcrypt.c :: tcMemClip :: memset(a + iOff, 0, p->szBlock - iOff); :: (void)0;"
"tier: failed write keeps its memory blocks :: tempcrypt.c :: tcWriteFailed :: tcMemClip(p); :: (void)0;"
"tier: memory block read from the lower file :: tempcrypt.c :: tcReadRange :: if( (a = TC_MEM(p, k))!=0 ){ :: if( (a = 0)!=0 ){"
"tier: file control reaches a missing lower file :: tempcrypt.c :: tcFileControl :: rc = tcLowerOpen(p); :: rc = SQLITE_OK;"
"tier: lower file opened at once despite a budget :: tempcrypt.c :: tcOpen :: if( TC_LOAD(tcBudget)>0 ){ :: if( 0 ){"
"tier: late lower file without SQLite's lock :: tempcrypt.c :: tcLowerOpen :: rc = pSub->pMethods->xLock(pSub, aLevel[i]); :: (void)aLevel;"
"file list: a partial match not carried to the next chunk :: tempcrypt.c :: tcTempFind :: if( pSub->pMethods->xRead(pSub, aChunk, n, iOfst)!=SQLITE_OK ) return -1; :: if( pSub->pMethods->xRead(pSub, aChunk, n, iOfst)!=SQLITE_OK ) return -1; k = 0;"
"file list: the needle found in another connection's files :: tempcrypt.c :: tcTempFiles :: int bMine = db==0, j; :: int bMine = 1, j;"
"file list: a closed file's figures not kept :: tempcrypt.c :: tcTempRemove :: tcTempInfo(p, pLast); :: (void)0;"
"first write's block size: a journal's header taken as the block size :: tempcrypt.c :: tcChooseBlockSize :: iAmt>=(bDbFile ? TC_MIN_PAGE : TC_BLOCK) :: iAmt>=TC_MIN_PAGE"
"first write's block size: sorter units split into 4096-byte blocks :: tempcrypt.c :: tcChooseBlockSize :: iAmt>=(bDbFile ? TC_MIN_PAGE : TC_BLOCK) && :: bDbFile && iAmt>=TC_MIN_PAGE &&"
"repair leaves the block's counter as the failed write set it :: tempcrypt.c :: tcRepair :: p->aCtr[p->kPending] = iNew; :: (void)0;"
)

# mutate DIR ENTRY: apply ENTRY's edits to DIR/FILE; with DIR empty, only
# check that every anchor matches src/FILE.  Says why and fails otherwise.
mutate() {
  perl -e '
    my ($dir, $entry) = @ARGV;
    my ($desc, $file, @edits) = split / :: /, $entry;
    my $path = ($dir eq "" ? "src" : $dir)."/$file";
    open(my $fh, "<", $path) or die "mutate: $path: $!\n";
    my @l = <$fh>; close $fh;
    die "mutate: \"$desc\": edits are not function :: find :: replace triples\n" if @edits % 3;
    while( @edits ){
      my ($fn, $find, $repl) = splice(@edits, 0, 3);
      my ($s, $e);
      for my $i (0..$#l){
        if( $l[$i] =~ /^#\s*define\s+\Q$fn\E\b/ ){
          ($s, $e) = ($i, $i); $e++ while $e<$#l && $l[$e] =~ /\\\s*$/; last;
        }
        next unless $l[$i] =~ /^[A-Za-z_].*\b\Q$fn\E\s*\(/;
        my $j = $i; $j++ while $j<$#l && $l[$j] !~ /[;{]\s*$/;
        next if $l[$j] =~ /;\s*$/;                  # a declaration
        ($s, $e) = ($i, $j); $e++ while $e<$#l && $l[$e] !~ /^\}/; last;
      }
      die "mutate: \"$desc\": no function or macro $fn in src/$file\n" unless defined $s;
      my $re = join "\\s*", map { quotemeta } split /\s+/, $find;
      my @hit = grep { $l[$_] =~ /$re/ } $s..$e;
      my $n = 0; $n += () = $l[$_] =~ /$re/g for @hit;
      die "mutate: \"$desc\": \"$find\" found $n times in $fn (src/$file), not once\n" if $n!=1;
      $repl =~ s/\\n/\n/g;
      $l[$hit[0]] =~ s/$re/$repl/;
    }
    exit 0 if $dir eq "";
    open($fh, ">", $path) or die "mutate: $path: $!\n"; print $fh @l; close $fh;
  ' "$1" "$2"
}

# Every anchor first: a stale one fails the run here, loudly.
bad=0
for e in "${MUT[@]}"; do mutate "" "$e" || bad=1; done
[ $bad = 0 ] || { echo "mutate: update the anchors in test/c/mutate.sh"; exit 2; }

# ------------------------------------------------------------ the suite
# name | command (run in $W/tmp with PROOF_DIR set; binaries in $W/bin)
SUITE=(
"chacha20_test|../bin/chacha20_test 2000"
"stress|../bin/stress -n 150000 -s 7 -m all"
"leakcheck|../bin/leakcheck -q"
"difftest|../bin/difftest 600"
"keyhygiene|../bin/keyhygiene"
"faulttest|../bin/faulttest"
"faulttest-tier|../bin/faulttest -budget 12288"
"recovery|../bin/recovery -stride 20"
"conformance|../bin/conformance -dir . unix-dotfile"
"conformance-tier|../bin/conformance -dir . -budget 67108864 unix-dotfile"
"statsrace|../bin/statsrace 4 20000"
"filelist|../bin/filelist"
"ctgrind|valgrind -q --error-exitcode=99 --exit-on-first-error=yes ../bin/ctgrind"
)
TESTS="chacha20_test stress leakcheck difftest faulttest keyhygiene ctgrind recovery conformance statsrace filelist"

echo "mutate: compiling the test programs once"
mkdir -p "$W/obj/lib"
for f in test/c/check.c test/c/checkvfs.c test/c/proof.c test/c/proof/*.c; do
  o="$W/obj/lib/$(echo "${f#test/c/}" | tr / _).o"
  $CC $CFL -Isrc -c "$f" -o "$o" || exit 2
done
rm -f "$W/obj/libtest.a" && ar rcs "$W/obj/libtest.a" "$W/obj/lib/"*.o || exit 2
for t in $TESTS; do
  extra=""; [ "$t" = chacha20_test ] && extra="-DHAVE_LIBSODIUM"
  $CC $CFL $extra -Isrc -c "test/c/$t.c" -o "$W/obj/$t.o" || exit 2
done

# Build the suite against the sources in $1 (a directory with the copies).
build() {
  local s=$1 t
  mkdir -p "$W/bin"; rm -f "$W/bin/"*
  $CC $CFL -I"$s" -c "$s/tempcrypt.c" -o "$W/obj/tc.o" 2>"$W/build.log" || return 1
  $CC $CFL -I"$s" -c "$s/chacha20.c" -o "$W/obj/cc.o" 2>>"$W/build.log" || return 1
  $CC $CFL -I"$s" -c "$s/tempcrypt_vtab.c" -o "$W/obj/vt.o" 2>>"$W/build.log" || return 1
  for t in $TESTS; do
    local lib=""
    [ "$t" = chacha20_test ] && lib="-lsodium"
    $CC -o "$W/bin/$t" "$W/obj/$t.o" "$W/obj/libtest.a" "$W/obj/tc.o" "$W/obj/vt.o" "$W/obj/cc.o" "$SQLITE_O" $lib $LIBS \
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
  desc=${MUT[$i]%% :: *}; rest=${MUT[$i]#* :: }; file=${rest%% :: *}
  rm -rf "$W/src"; mkdir -p "$W/src"; cp src/*.c src/*.h "$W/src/"
  mutate "$W/src" "${MUT[$i]}" || exit 2
  nTot=$((nTot+1))
  t0=$(date +%s)
  if cmp -s "src/$file" "$W/src/$file"; then
    echo "mutate: \"$desc\" left src/$file unchanged"; exit 2
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
