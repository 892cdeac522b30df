#!/usr/bin/env bash
# Mutation check of js/ (make mutate-js): deliberate bugs applied one at a
# time to a scratch copy of the package (js/ and the dist/ built from it;
# the real files are never touched); each must make some test of `make
# test` fail.  Prints: bug -> the test that caught it.
#
#   test/mutate-js.sh              stop at the first test that catches a mutant
#   MUTATE_ALL=1 test/mutate-js.sh run every test on every mutant
#   test/mutate-js.sh 3 7          only mutations 3 and 7
#
# Needs dist/ (make browser), build/sqlite, build/api-fixtures and
# build/conformance/baseline (make test-api-node test-conformance-js).
set -u
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
W=$(realpath -m "${MUTATE_JS_DIR:-$BUILD/mutate-js}")
ALL=${MUTATE_ALL:-0}
TIMEOUT=${MUTATE_TIMEOUT:-300}
KNOWN=${KNOWN_OPEN:-}

for f in dist/sqlite3.wasm $BUILD/sqlite/sqlite3.h $BUILD/api-fixtures/native.db $BUILD/conformance/baseline/sqlite3.mjs; do
  [ -e "$f" ] || { echo "mutate-js: $f missing (make browser test-api-node conformance-baseline)"; exit 2; }
done

# ------------------------------------------------------------ the bugs
# name :: file :: find :: replace
# `find` must occur exactly once in js/FILE (checked for every mutation
# before anything runs: a stale anchor stops the run); it is replaced in
# the copies of js/FILE and dist/FILE.
MUT=(
"calls not queued behind a transaction :: page/async-database.js :: if (!this.held) return this.send(method, args); :: return this.send(method, args);"
"a nested transaction's rollback keeps its changes :: engine/connection.js :: if (!commit) this.execRaw(\`ROLLBACK TO \${name}\`); :: /* no rollback to the savepoint */"
"batch() not atomic :: engine/connection.js :: const all = (fn) => (list.length === 1 ? fn() : this.transaction(fn)); :: const all = (fn) => fn();"
"safe integers bound as REAL :: engine/values.js :: case 'number': return Number.isSafeInteger(v) ? to.int64(M, h, i, BigInt(v)) : to.double(M, h, i, v); :: case 'number': return to.double(M, h, i, v);"
"2^53 - 1 read back as a BigInt :: engine/values.js :: (v <= MAX_SAFE && v >= MIN_SAFE ? Number(v) : v) :: (v < MAX_SAFE && v >= MIN_SAFE ? Number(v) : v)"
"a blob is a view of the wasm memory :: engine/values.js :: return M.HEAPU8.slice(p, p + from.bytes(M, h, i)); :: return M.HEAPU8.subarray(p, p + from.bytes(M, h, i));"
"text decoded one byte short :: engine/values.js :: decoder.decode(M.HEAPU8.subarray(p, p + n)) :: decoder.decode(M.HEAPU8.subarray(p, p + Math.max(0, n - 1)))"
"import staging file never removed :: engine/transfer.js :: } finally {\n      this.abort();\n    } :: } finally {\n      this.closeHandle();\n    }"
"import skips quick_check :: engine/transfer.js :: if (check.length !== 1 || check[0] !== 'ok') { :: if (false) {"
"error code lost across the Worker boundary :: shared/errors.js :: if (e.name === 'SqliteError' || typeof e.code === 'string') w.code = e.code; :: if (typeof e.code === 'string') w.code = e.code;"
"error cause lost across the Worker boundary :: shared/errors.js :: if (e.cause !== undefined && depth < WIRE_DEPTH) w.cause = toWire(e.cause, depth + 1); :: /* no cause */"
"a quota error is not SQLITE_FULL :: shared/errors.js :: if (e && e.name === 'QuotaExceededError') return SQLITE_FULL; :: /* no quota rule */"
"OPFS pool: a released file never freed :: storage/opfs-pool.js :: slot.ah.flush();\n    this.free.push(slot);\n  } :: slot.ah.flush();\n  }"
"OPFS pool: a failed header write loses the slot :: storage/opfs-pool.js :: slot.flags = 0;\n        this.free.push(slot);\n        throw e; :: slot.flags = 0;\n        throw e;"
"file storage: a short write reported as done :: storage/file-backend.js :: while (n < buf.length) n += this.fs.writeSync(h.fd, buf, n, buf.length - n, offset + n); :: n += this.fs.writeSync(h.fd, buf, n, Math.max(1, buf.length - n - 1), offset + n);"
"main thread: Database.files() missing :: page/async-database.js :: files() { return this.call('files'); } :: /* files() deleted */"
"sync API: heapSize() missing :: engine/sync-database.js :: heapSize() { return this.engine.M.HEAPU8.length; } :: /* heapSize() deleted */"
"Worker: the files message missing :: dispatch/rpc.js :: files: (s) => ({ list: s.db.files.list(), wipedAtOpen: s.db.files.wipedAtOpen }), :: /* files handler deleted */"
"index.d.ts: heapSize() missing :: index.d.ts :: heapSize(): Promise<number>; :: /* heapSize deleted */"
"a row option not sent across the Worker boundary :: shared/methods.js :: if (at >= 0) out[at] = callOptions(m, args[at], ASYNC) && Object.fromEntries(m.options.map((k) => [k, args[at][k]])); :: if (at >= 0) out[at] = undefined;"
"file lock: never taken (every opener wins) :: storage/file-lock.js :: if (this.link(tmp, path)) return null; :: return null;"
"file lock: taken over while its holder is alive :: storage/file-lock.js :: if (!ownerDead(fs, this.os, holder)) return holder; :: /* every holder taken for dead */"
"queue of sessions: the busy timeout never fires :: dispatch/hub.js :: job.timer = limitTimer(() => this.expire(job), job.s.busyTimeoutMs); :: job.timer = 1;"
"a call leaving a transaction open is kept :: dispatch/rpc.js :: if (this.txDepth > 0 || !this.db.inTransaction) return; :: return;"
"a call on db inside transaction(fn) waits instead of failing :: page/async-database.js :: if (fromInsideHolder(this)) { :: if (false) {"
"a call made after close() runs ahead of it :: page/async-database.js :: if (this.closing) return Promise.reject(closedError()); :: /* no check */"
"calls after SQLite ended the transaction run in autocommit :: engine/connection.js :: if (this.txStack.length && this.txGone()) throw this.txGoneError(); :: /* no check */"
"a throwing collation keeps a transaction's write :: engine/connection.js :: if (!M._sqlite3_stmt_readonly(stmt) && !M._sqlite3_get_autocommit(this.db)) this.execRaw('ROLLBACK'); :: /* no rollback */"
"changes stale for a statement that changed nothing :: engine/connection.js :: M._sqlite3_total_changes64(this.db) === before ? 0 : Number(M._sqlite3_changes64(this.db)) :: Number(M._sqlite3_changes64(this.db))"
)

# ------------------------------------------------------------ the suite
# name | command, run in the scratch copy
SUITE=(
"methods|node --test test/unit/methods.test.mjs"
"unit|node --test test/unit/"
"api-node|node test/api/node.mjs"
"fuzz-api|KNOWN_OPEN=$KNOWN node test/fuzz/fuzz-api.mjs --seed=20261201 --programs=40 --no-shrink --max-failures=0"
"faults|node test/faults/node.mjs --only=memory --stride=5"
"conformance-js|node test/conformance/node.mjs"
)

# apply FILE FIND REPLACE DIR...: replace the one occurrence of FIND in
# each DIR/FILE; with no DIR, only check that js/FILE has it exactly once.
apply() {
  node -e '
    const fs = require("fs");
    const [file, find, repl, ...dirs] = process.argv.slice(1).map((s, i) => (i === 1 || i === 2 ? s.replace(/\\n/g, "\n") : s));
    const count = (t) => t.split(find).length - 1;
    const n = count(fs.readFileSync(`js/${file}`, "utf8"));
    if (n !== 1) { console.error(`mutate-js: "${find}" found ${n} times in js/${file}, not once`); process.exit(1); }
    for (const d of dirs) {
      const p = `${d}/${file}`;
      if (!fs.existsSync(p)) continue;
      const t = fs.readFileSync(p, "utf8");
      if (count(t) !== 1) { console.error(`mutate-js: ${p} does not match js/${file}`); process.exit(1); }
      fs.writeFileSync(p, t.replace(find, () => repl));
    }' "$@"
}

field() { echo "$1" | awk -v n="$2" 'BEGIN { FS = " :: " } { print $n }'; }

bad=0
for e in "${MUT[@]}"; do apply "$(field "$e" 2)" "$(field "$e" 3)" "$(field "$e" 4)" || bad=1; done
[ $bad = 0 ] || { echo "mutate-js: update the anchors in test/mutate-js.sh"; exit 2; }

# A scratch tree: copies of what a mutation changes, links to the rest.
fresh_tree() {
  rm -rf "$W/tree"
  mkdir -p "$W/tree/build"
  cp -r js dist test docs package.json "$W/tree/"
  ln -s "$PWD/node_modules" "$W/tree/node_modules"
  for d in sqlite api-fixtures conformance; do ln -s "$PWD/$BUILD/$d" "$W/tree/build/$d"; done
}

# The suite must pass on the unmutated copy first.
echo "mutate-js: baseline run of the suite"
fresh_tree
for s in "${SUITE[@]}"; do
  name=${s%%|*}; cmd=${s#*|}
  if ! (cd "$W/tree" && timeout "$TIMEOUT" bash -c "$cmd" >"$W/baseline-$name.log" 2>&1); then
    echo "mutate-js: the suite fails without a mutation ($name; $W/baseline-$name.log)"; exit 2
  fi
done

only=("$@")
caught=0; total=0
printf '\nMutation check of js/: bug -> the tests that caught it\n'
i=0
for e in "${MUT[@]}"; do
  i=$((i + 1))
  if [ ${#only[@]} -gt 0 ] && [[ ! " ${only[*]} " =~ " $i " ]]; then continue; fi
  total=$((total + 1))
  desc=$(field "$e" 1)
  fresh_tree
  apply "$(field "$e" 2)" "$(field "$e" 3)" "$(field "$e" 4)" "$W/tree/js" "$W/tree/dist" || exit 2
  t0=$(date +%s)
  by=""
  for s in "${SUITE[@]}"; do
    name=${s%%|*}; cmd=${s#*|}
    if ! (cd "$W/tree" && timeout "$TIMEOUT" bash -c "$cmd" >"$W/mutant-$i-$name.log" 2>&1); then
      by="$by $name"
      [ "$ALL" = 1 ] || break
    fi
  done
  if [ -n "$by" ]; then caught=$((caught + 1)); fi
  printf '%2d  %-52s %-40s %4ss\n' "$i" "$desc" "${by:- NOT CAUGHT}" "$(( $(date +%s) - t0 ))"
done
echo "mutations caught: $caught of $total"
echo "$caught passed, $((total - caught)) failed"
rm -rf "$W/tree"
[ "$caught" = "$total" ]
