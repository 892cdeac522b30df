#!/usr/bin/env bash
# The memory tier's policy measurement (docs/performance.md, "The memory
# tier"): record the temp-file I/O of every workload of workloads.txt with
# the tracing shell (tier-trace.c), for each SQLite configuration and row
# count, then replay the traces against every policy and budget
# (tier-sim.c).  Prints tier-sim's table (TSV) to stdout.
#   tier-sim.sh DIR ROWS... (env: TIER_BUDGETS, TIER_CONFIGS)
# DIR holds the shells (shell-native, shell-wasm) and tier-sim, and gets
# the traces.  Configurations: native (the native build's SQLite: 4096-byte
# pages, 2 MB caches), wasm-equal and wasm-default (SQLite with the wasm
# builds' WASM_SPEED_DEFS, with the bench's "equal" settings or none).
set -euo pipefail
dir=${1:?usage: tier-sim.sh DIR ROWS...}; shift
here=$(cd "$(dirname "$0")" && pwd)
work="$here/workloads.txt"
budgets=${TIER_BUDGETS:-1,4,16,64,256,1024}
configs=${TIER_CONFIGS:-native wasm-equal wasm-default}
export TMPDIR="$dir/tmp"
mkdir -p "$TMPDIR" "$dir/traces"
traces=()
for rows in "$@"; do
  for cfg in $configs; do
    shell="$dir/shell-${cfg%%-*}"
    db="$dir/bench-$cfg-$rows.db"
    pre="PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; PRAGMA temp_store=FILE;"
    create=""
    case $cfg in
      native|wasm-equal) create="PRAGMA page_size=4096;"
                         pre="$pre PRAGMA main.cache_size=-2000; PRAGMA temp.cache_size=-2000;";;
    esac
    rm -f "$db"
    { echo "$create PRAGMA journal_mode=OFF;"; awk -F'\t' '$1=="setup"{print $2";"}' "$work" | sed "s/\$ROWS/$rows/g"; } \
      | "$shell" "$db" >/dev/null
    while IFS=$'\t' read -r name sql; do
      case $name in ''|'#'*|setup|big.*) continue;; esac
      t="$dir/traces/$cfg-$rows-$name.trace"
      rm -f "$t"
      printf '%s\n%s;\n' "$pre" "${sql//\$ROWS/$rows}" | TIER_TRACE="$t" "$shell" "$db" >/dev/null
      traces+=("$t")
    done < "$work"
    rm -f "$db"
  done
done
"$dir/tier-sim" "$budgets" "${traces[@]}"
