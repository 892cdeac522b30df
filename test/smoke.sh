#!/usr/bin/env bash
# SQL smoke test of the shell: with PRAGMA temp_store=FILE (temp files
# encrypted by tempcrypt) a temp table, a large ORDER BY, DISTINCT and a
# VACUUM give the same results as with temp_store=MEMORY.
set -euo pipefail
shell=${1:?usage: smoke.sh path/to/sqlite3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export SQLITE_TMPDIR="$work/tmp" TMPDIR="$work/tmp"
mkdir -p "$work/tmp"
passed=0 failed=0
check(){ if [ "$2" = "$3" ]; then passed=$((passed+1)); else failed=$((failed+1)); echo "FAIL: $1: '$2' != '$3'" >&2; fi; }

workload(){ cat <<SQL
PRAGMA temp_store=$1;
PRAGMA cache_size=8;
CREATE TABLE t(a INTEGER, b TEXT);
WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x<30000)
  INSERT INTO t SELECT (x*7919)%30011, printf('row-%08d-%s', (x*104729)%30011, hex(zeroblob(40))) FROM c;
CREATE TEMP TABLE tt AS SELECT * FROM t WHERE a%3=0;
CREATE INDEX temp.tt_b ON tt(b);
SELECT count(*), sum(a), max(b) FROM tt;
SELECT group_concat(a) FROM (SELECT a FROM t ORDER BY b DESC LIMIT 20 OFFSET 10000);
SELECT count(DISTINCT substr(b,1,12)) FROM t;
SELECT sum(n) FROM (SELECT a%97 AS k, count(*) AS n FROM t GROUP BY k);
BEGIN; UPDATE t SET a=a+1 WHERE a<5000; ROLLBACK;
VACUUM;
PRAGMA integrity_check;
SELECT count(*), sum(a) FROM t;
SQL
}

rm -f "$work/file.db" "$work/mem.db"
# Under strace (when there is one) also count the temp files really opened,
# so the comparison cannot pass with everything kept in memory.
if command -v strace >/dev/null; then
  out_file=$(workload FILE | strace -f -qq -e trace=openat -o "$work/trace" "$shell" "$work/file.db")
  ntemp=$(grep -c "\"$work/tmp/" "$work/trace" || true)
  if [ "$ntemp" -ge 3 ]; then passed=$((passed+1)); else failed=$((failed+1)); echo "FAIL: only $ntemp temp files opened" >&2; fi
  echo "smoke: temp_store=FILE opened $ntemp temp files"
  rm -f "$work/file.db"
fi
out_file=$(workload FILE | "$shell" "$work/file.db")
out_mem=$(workload MEMORY | "$shell" "$work/mem.db")
check "temp_store=FILE matches temp_store=MEMORY" "$out_file" "$out_mem"
check "six result lines" "$(printf '%s\n' "$out_file" | wc -l)" "6"
check "integrity_check" "$(printf '%s\n' "$out_file" | sed -n 5p)" "ok"
vfs=$(printf '.vfsname\n' | "$shell" "$work/file.db")
check "shell's default VFS is tempcrypt" "$vfs" "tempcrypt/unix"
# Temp files are deleted on close: nothing may be left in the temp directory.
check "no temp file left behind" "$(ls -A "$work/tmp" | wc -l)" "0"
echo "smoke: $passed passed, $failed failed"
[ "$failed" = 0 ]
