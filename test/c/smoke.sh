#!/usr/bin/env bash
# SQL smoke test of the shell: with PRAGMA temp_store=FILE (temp files
# encrypted by tempcrypt) the workloads of the table marked "smoke"
# (test/workloads.txt, on their base of $SMOKE_ROWS rows) give the same
# results as with temp_store=MEMORY: without the memory tier (PRAGMA
# tempcrypt_budget=0: every temp file on disk), with a budget so small
# that temp files spill part-way, and with the default budget.
set -euo pipefail
shell=${1:?usage: smoke.sh path/to/sqlite3}
rows=${SMOKE_ROWS:-5000}
here=$(dirname "$0")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export SQLITE_TMPDIR="$work/tmp" TMPDIR="$work/tmp"
mkdir -p "$work/tmp"
passed=0 failed=0
check(){ if [ "$2" = "$3" ]; then passed=$((passed+1)); else failed=$((failed+1)); echo "FAIL: $1: '$2' != '$3'" >&2; fi; }

node "$here/../workloads.mjs" sql smoke "$rows" > "$work/workloads.sql"
# workload TEMP_STORE [BUDGET]: the budget's pragma prints the budget, the
# same line in every run with that budget.
workload(){
  printf 'PRAGMA temp_store=%s;\nPRAGMA cache_size=8;\n' "$1"
  if [ -n "${2:-}" ]; then printf 'PRAGMA tempcrypt_budget=%s;\n' "$2"; fi
  cat "$work/workloads.sql"
  printf 'PRAGMA integrity_check;\n'
}

rm -f "$work/file.db" "$work/mem.db"
# Under strace (when there is one) also count the temp files really opened,
# so the comparison cannot pass with everything kept in memory; with the
# default budget these temp files fit in memory and none reaches the disk.
ntemp(){  # ntemp [BUDGET]: temp files the FILE run opens
  workload FILE "${1:-}" | strace -f -qq -e trace=openat -o "$work/trace" "$shell" "$work/file.db" > /dev/null 2>&1 || true
  rm -f "$work/file.db"
  # A temp file is a new name in $work/tmp, or (SQLite 3.54 on Linux) an
  # unnamed file made with O_TMPFILE on that directory.
  grep -cE "\"$work/tmp/|\"$work/tmp\", [^)]*O_TMPFILE" "$work/trace" || true
}
if command -v strace >/dev/null; then
  n0=$(ntemp 0); nsmall=$(ntemp 32768); ndefault=$(ntemp)
  if [ "$n0" -ge 3 ]; then passed=$((passed+1)); else failed=$((failed+1)); echo "FAIL: budget 0: only $n0 temp files opened" >&2; fi
  if [ "$nsmall" -ge 1 ]; then passed=$((passed+1)); else failed=$((failed+1)); echo "FAIL: budget 32768: no temp file opened (nothing spilled)" >&2; fi
  check "default budget: no temp file reaches the disk" "$ndefault" "0"
  echo "smoke: temp_store=FILE opened $n0 temp files with budget 0, $nsmall with 32768 bytes, $ndefault with the default"
fi
# Errors (the statement journal's UNIQUE failure) are part of the output.
for b in 0 32768 ""; do
  rm -f "$work/file.db" "$work/mem.db"
  workload FILE "$b" | "$shell" "$work/file.db" > "$work/file.out" 2>&1 || true
  workload MEMORY "$b" | "$shell" "$work/mem.db" > "$work/mem.out" 2>&1 || true
  check "temp_store=FILE matches temp_store=MEMORY (budget ${b:-default})" "$(cmp -s "$work/file.out" "$work/mem.out" && echo same || echo differs)" "same"
done
echo "smoke: $(wc -l < "$work/file.out") result lines on $rows rows"
check "integrity_check ends the output" "$(tail -n 1 "$work/file.out")" "ok"
# The shell's three prefixes: "Parse error near line N:", "Runtime error near
# line N:" and "Error near line N:" (a statement that never ran counts too).
errors=$(grep -E '^(Parse error|Runtime error|Error) near line' "$work/file.out" || true)
check "one error, the statement journal's UNIQUE failure" "$(printf '%s\n' "$errors" | grep -c 'UNIQUE constraint failed')/$(printf '%s\n' "$errors" | wc -l)" "1/1"
# The evidence table (SELECT * FROM tempcrypt_files): a temp table and a
# sort, without the memory tier, both encrypted on the way to storage;
# with the default budget the temp table stays in memory.
evidence(){  # evidence BUDGET: the temp_db row and the sorter's closed row
  printf 'PRAGMA temp_store=FILE; PRAGMA cache_size=5; PRAGMA temp.cache_size=5; PRAGMA tempcrypt_budget=%s;
CREATE TABLE m(x); INSERT INTO m SELECT randomblob(500) FROM generate_series(1,2000);
SELECT count(*) FROM (SELECT x FROM m ORDER BY x);
CREATE TEMP TABLE t(x); INSERT INTO t SELECT x FROM m;
SELECT kind, open, encrypted, in_storage, bytes_to_storage >= size, bytes_ciphered >= bytes_written,
       bytes_in_memory > 0 FROM tempcrypt_files WHERE kind = '"'"'temp_db'"'"';
SELECT kind, open, encrypted, in_storage FROM tempcrypt_files WHERE kind = '"'"'temp_journal'"'"' LIMIT 1;\n' "$1" \
    | "$shell" "$work/evidence.db" 2>&1
  rm -f "$work/evidence.db"
}
check "tempcrypt_files, budget 0" "$(evidence 0 | tr '\n' ' ')" "0 2000 temp_db|1|1|1|1|1|0 temp_journal|0|1|1 "
check "tempcrypt_files, default budget" "$(evidence 67108864 | tr '\n' ' ')" "67108864 2000 temp_db|1|1|0|0|0|1 temp_journal|0|1|0 "
# UPDATE/DELETE ... ORDER BY ... LIMIT (the Makefile's SQLite rules).
udl=$(printf 'CREATE TABLE u(a); INSERT INTO u VALUES (3),(1),(2),(5),(4);
DELETE FROM u ORDER BY a LIMIT 2; UPDATE u SET a = a*10 ORDER BY a DESC LIMIT 1;
SELECT group_concat(a) FROM (SELECT a FROM u ORDER BY rowid);\n' | "$shell" :memory: 2>&1 || true)
check "UPDATE/DELETE ... ORDER BY ... LIMIT" "$udl" "3,50,4"
vfs=$(printf '.vfsname\n' | "$shell" "$work/file.db")
check "shell's default VFS is tempcrypt" "$vfs" "tempcrypt/unix"
# Temp files are deleted on close: nothing may be left in the temp directory.
check "no temp file left behind" "$(ls -A "$work/tmp" | wc -l)" "0"
echo "smoke: $passed passed, $failed failed"
[ "$failed" = 0 ]
