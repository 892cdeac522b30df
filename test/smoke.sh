#!/usr/bin/env bash
# SQL smoke test of the shell: with PRAGMA temp_store=FILE (temp files
# encrypted by tempcrypt) the workloads of the table marked "smoke"
# (test/workloads.txt, on their base of $SMOKE_ROWS rows) give the same
# results as with temp_store=MEMORY.
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

node "$here/workloads.mjs" sql smoke "$rows" > "$work/workloads.sql"
workload(){
  printf 'PRAGMA temp_store=%s;\nPRAGMA cache_size=8;\n' "$1"
  cat "$work/workloads.sql"
  printf 'PRAGMA integrity_check;\n'
}

rm -f "$work/file.db" "$work/mem.db"
# Under strace (when there is one) also count the temp files really opened,
# so the comparison cannot pass with everything kept in memory.
if command -v strace >/dev/null; then
  workload FILE | strace -f -qq -e trace=openat -o "$work/trace" "$shell" "$work/file.db" > /dev/null 2>&1 || true
  # A temp file is a new name in $work/tmp, or (SQLite 3.54 on Linux) an
  # unnamed file made with O_TMPFILE on that directory.
  ntemp=$(grep -cE "\"$work/tmp/|\"$work/tmp\", [^)]*O_TMPFILE" "$work/trace" || true)
  if [ "$ntemp" -ge 3 ]; then passed=$((passed+1)); else failed=$((failed+1)); echo "FAIL: only $ntemp temp files opened" >&2; fi
  echo "smoke: temp_store=FILE opened $ntemp temp files"
  rm -f "$work/file.db"
fi
# Errors (the statement journal's UNIQUE failure) are part of the output.
workload FILE | "$shell" "$work/file.db" > "$work/file.out" 2>&1 || true
workload MEMORY | "$shell" "$work/mem.db" > "$work/mem.out" 2>&1 || true
check "temp_store=FILE matches temp_store=MEMORY" "$(cmp -s "$work/file.out" "$work/mem.out" && echo same || echo differs)" "same"
echo "smoke: $(wc -l < "$work/file.out") result lines on $rows rows"
check "integrity_check ends the output" "$(tail -n 1 "$work/file.out")" "ok"
# The shell's three prefixes: "Parse error near line N:", "Runtime error near
# line N:" and "Error near line N:" (a statement that never ran counts too).
errors=$(grep -E '^(Parse error|Runtime error|Error) near line' "$work/file.out" || true)
check "one error, the statement journal's UNIQUE failure" "$(printf '%s\n' "$errors" | grep -c 'UNIQUE constraint failed')/$(printf '%s\n' "$errors" | wc -l)" "1/1"
vfs=$(printf '.vfsname\n' | "$shell" "$work/file.db")
check "shell's default VFS is tempcrypt" "$vfs" "tempcrypt/unix"
# Temp files are deleted on close: nothing may be left in the temp directory.
check "no temp file left behind" "$(ls -A "$work/tmp" | wc -l)" "0"
echo "smoke: $passed passed, $failed failed"
[ "$failed" = 0 ]
