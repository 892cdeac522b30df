# Speed, measured side by side, never asserted (docs/performance.md).  All
# benchmark code lives in test/bench/ and all its rules here.
#   make bench         native, WASI (node:wasi and wasmtime), then Chromium
#                      and Firefox over OPFS (BENCH_BROWSERS), the SQL of
#                      test/bench/workloads.txt on each BENCH_ROWS,
#                      with both settings (equal, default), medians of
#                      BENCH_REPS alternating runs; ChaCha20 against
#                      libsodium; then the 1 GiB larger-than-memory run
#                      (BENCH_BIG_MIB) in each browser.
#                      Results: build/bench/results.json and results.md.
#   make bench-smoke   the same harnesses on a few rows, one run each, no
#                      big run: keeps them working in CI (both browsers:
#                      Firefox adds 5 s idle, 17 s at load 10).
#   make bench-engine  the engines alone (no storage, temp_store=MEMORY),
#                      ours against the official build in Node (CPU time)
#                      and in Chromium: test/bench/engine.mjs.
#   make bench-file-lock  the lock files storage 'file' could use, measured:
#                      test/bench/file-lock.mjs; the per-transaction
#                      locks against better-sqlite3: test/bench/file-tx.mjs.
BENCH_ROWS    ?= 200000 1000000
BENCH_REPS    ?= 5
BENCH_BIG_MIB ?= 1024
BENCH_BROWSERS ?= chromium,firefox
BENCH_DIR     := $(BUILD)/bench
BENCH_WORK    := test/bench/workloads.txt

.PHONY: bench bench-smoke bench-native bench-wasi bench-browser bench-big bench-report bench-clean
# The harnesses one after the other (never in parallel: they time things).
bench:
	$(MAKE) -j1 bench-clean bench-native bench-chacha-wasm bench-wasi bench-browser bench-big bench-report
# Its prerequisites are built first, so a parallel `make -j test` never builds
# them twice at once.
BENCH_SMOKE_DEPS := browser $(NATIVE)/bench $(BUILD)/wasi/bench.wasm $(BUILD)/wasi/bench/chacha-wasi.wasm \
    $(BUILD)/wasi/bench/chacha-emcc.wasm
bench-smoke: $(BENCH_SMOKE_DEPS)
	$(MAKE) -j1 bench-clean bench-native bench-chacha-wasm bench-wasi bench-browser bench-report BENCH_ROWS=2000 BENCH_REPS=1 \
	    BENCH_DIR=$(BUILD)/bench-smoke CHACHA_BENCH_ARGS="--turns=1 --turn-ms=5"
	@# Asked for CPU time where there is no such clock (wasmtime), the
	@# harness says so and times by the wall clock, never 0.0 ms.
	cd $(BUILD)/bench-smoke && out=$$($(WASMTIME) run --dir=. --env TMPDIR=. --env BENCH_CLOCK=cpu \
	    --env BENCH_ONLY=distinct --env BENCH_MODE=0 $(CURDIR)/$(BUILD)/wasi/bench.wasm 2000 1 workloads.txt "" equal 2>&1) && \
	    echo "$$out" && { echo "$$out" | grep -q "no CPU-time clock" || ! echo "$$out" | grep -q ": 0.0 ms"; }

bench-clean:
	@mkdir -p $(BENCH_DIR) && rm -f $(BENCH_DIR)/*.jsonl

# Each harness appends JSON lines to $(BENCH_DIR)/<target>.jsonl.  The WASI
# run preopens only $(BENCH_DIR) (as "."), so the workload list is copied there.
bench-native: $(NATIVE)/bench
	for n in $(BENCH_ROWS); do for s in equal default; do \
	    TMPDIR=$(BENCH_DIR) $< $$n $(BENCH_REPS) $(BENCH_WORK) $(BENCH_DIR)/native.jsonl $$s || exit 1; done; done

# $(BUILD)/wasi/bench.wasm and WASMTIME: mk/wasi.mk.  Under node:wasi
# (wasi.jsonl), then under `wasmtime run` (wasi-wasmtime.jsonl).
bench-wasi: $(BUILD)/wasi/bench.wasm
	cp $(BENCH_WORK) $(BENCH_DIR)/workloads.txt
	cd $(BENCH_DIR) && for n in $(BENCH_ROWS); do for s in equal default; do \
	    $(WASI_NODE) $(CURDIR)/wasm/wasi/run.mjs --dir=. --env TMPDIR=. $(CURDIR)/$< \
	        $$n $(BENCH_REPS) workloads.txt wasi.jsonl $$s || exit 1; \
	    $(WASMTIME) run --dir=. --env TMPDIR=. $(CURDIR)/$< \
	        $$n $(BENCH_REPS) workloads.txt wasi-wasmtime.jsonl $$s || exit 1; done; done

bench-browser: browser
	node test/bench/browser.mjs --browsers=$(BENCH_BROWSERS) --rows="$(BENCH_ROWS)" --reps=$(BENCH_REPS) --out=$(BENCH_DIR)/browser.jsonl

# Ours encrypted with the memory tier at its default and without it, and
# with plaintext temp files (what the cipher costs), then the official build.
bench-big: browser $(BENCH_DIR)/capped/sqlite3.mjs
	node test/bench/browser.mjs --browsers=$(BENCH_BROWSERS) --big=$(BENCH_BIG_MIB) --big-tier0 --big-plain --cap=$(BENCH_DIR)/capped/sqlite3.wasm --out=$(BENCH_DIR)/big.jsonl

bench-report:
	node test/bench/report.mjs $(BENCH_DIR)

# How storage 'file' locks (docs/api.md, "Node: storage 'file'"): the
# candidate lock files, cycles per second, processes contending, racers
# taking over a dead owner's lock.
.PHONY: bench-file-lock
bench-file-lock:
	node test/bench/file-lock.mjs
	node test/bench/file-tx.mjs

# ---------------------------------------------------------------- builds
# test/bench/bench.c natively: the shipped tempcrypt.o with the test build
# of chacha20.o, whose hooks let it time every cipher path.
$(NATIVE)/bench: test/bench/bench.c $(NATIVE)/tempcrypt.o $(NATIVE)/tempcrypt_vtab.o $(NATIVE_TEST)/chacha20.o $(NATIVE)/sqlite3.o
	$(CC) $(NATIVE_CFLAGS) -DHAVE_LIBSODIUM -DSQLITE_TEMPCRYPT_TESTING -o $@ $< \
	    $(NATIVE)/tempcrypt.o $(NATIVE)/tempcrypt_vtab.o $(NATIVE_TEST)/chacha20.o $(NATIVE)/sqlite3.o -lsodium -lpthread -lm
# Just the cipher: every path against libsodium (about 5 s).
.PHONY: bench-chacha-native
bench-chacha-native: $(NATIVE)/bench
	$< cipher

# test/bench/bench.c for wasm32-wasi, linked with the shipped libraries.
$(WASI)/bench.wasm: test/bench/bench.c $(WASI)/libtempcrypt.a $(WASI)/libsqlite3.a $(WASI_STAMP)
	$(WASI_CC) $(WASI_CFLAGS) $(WARN) -I$(SQLITE_DIR) -Isrc -o $@ $< \
	    $(WASI)/libtempcrypt.a $(WASI)/libsqlite3.a

# ChaCha20 in wasm against libsodium.js (test/bench/chacha-node.mjs, then
# test/bench/chacha-browser.mjs in every browser engine installed;
# BROWSERS picks them): clang's WASI build and emscripten's, every path.
CHACHA_BENCH_EXPORTS := tempcrypt_chacha20_xor tempcrypt_chacha20_use_path \
    tempcrypt_chacha20_path_name tempcrypt_chacha20_path_missing malloc
CHACHA_BENCH_COMMA := ,
CHACHA_BENCH_SPACE := $(subst ,, )
.PHONY: bench-chacha-wasm
$(WASI)/bench/chacha-wasi.wasm: src/chacha20.c $(TC_HDR) $(WASI_STAMP)
	@mkdir -p $(@D)
	$(WASI_CC) $(WASI_CFLAGS) $(WARN) -DSQLITE_TEMPCRYPT_TESTING -Isrc -mexec-model=reactor \
	    $(addprefix -Wl$(CHACHA_BENCH_COMMA)--export=,$(CHACHA_BENCH_EXPORTS)) -o $@ src/chacha20.c
$(WASI)/bench/chacha-emcc.wasm: src/chacha20.c $(TC_HDR)
	@mkdir -p $(@D)
	$(WASI_EMCC_ENV) $(WASI_EMCC) -O2 -msimd128 $(WARN) -DSQLITE_TEMPCRYPT_TESTING -Isrc \
	    --no-entry -sSTANDALONE_WASM -sEXPORTED_FUNCTIONS=$(subst $(CHACHA_BENCH_SPACE),$(CHACHA_BENCH_COMMA),$(addprefix _,$(CHACHA_BENCH_EXPORTS))) \
	    -o $@ src/chacha20.c
CHACHA_BENCH_ARGS ?=
bench-chacha-wasm: $(WASI)/bench/chacha-wasi.wasm $(WASI)/bench/chacha-emcc.wasm
	$(WASI_NODE) test/bench/chacha-node.mjs $(CHACHA_BENCH_ARGS) $^
	$(WASI_NODE) test/bench/chacha-browser.mjs $(CHACHA_BENCH_ARGS) $^

# The engines alone (not part of `make bench`: a build-settings tool).
.PHONY: bench-engine
bench-engine: browser
	node test/bench/engine.mjs --rows=$(firstword $(BENCH_ROWS)) --reps=$(BENCH_REPS)
	node test/bench/engine.mjs --chromium --rows=$(firstword $(BENCH_ROWS)) --reps=$(BENCH_REPS)

# The harnesses stay alive in CI: `make test` runs the smoke mode (a wrong or
# differing result fails it; timings are never compared).
TEST_TARGETS += bench-smoke

# The memory tier's policy measurement (docs/performance.md, "The memory
# tier"): temp-file I/O traces of the workloads, replayed against each
# candidate policy and budget.  Not part of `make bench`: about 10 minutes.
#   make bench-tier-sim [TIER_SIM_ROWS="200000 1000000"]
TIER_SIM       := $(BUILD)/tier-sim
TIER_SIM_ROWS  ?= 200000 1000000
$(TIER_SIM)/shell.o: $(SQLITE_DIR)/shell.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SQLITE_DEFS) -DSQLITE_SHELL_INIT_PROC=tier_trace_init -I$(SQLITE_DIR) -c $< -o $@
$(TIER_SIM)/sqlite3-wasm.o: $(SQLITE_C)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SQLITE_DEFS) $(WASM_SPEED_DEFS) -c $< -o $@
$(TIER_SIM)/shell-native: $(TIER_SIM)/shell.o test/bench/tier-trace.c test/bench/tier-trace.h $(NATIVE)/sqlite3.o
	$(CC) $(NATIVE_CFLAGS) -o $@ $(TIER_SIM)/shell.o test/bench/tier-trace.c $(NATIVE)/sqlite3.o -lpthread -lm
$(TIER_SIM)/shell-wasm: $(TIER_SIM)/shell.o test/bench/tier-trace.c test/bench/tier-trace.h $(TIER_SIM)/sqlite3-wasm.o
	$(CC) $(NATIVE_CFLAGS) -o $@ $(TIER_SIM)/shell.o test/bench/tier-trace.c $(TIER_SIM)/sqlite3-wasm.o -lpthread -lm
$(TIER_SIM)/tier-sim: test/bench/tier-sim.c test/bench/tier-trace.h
	@mkdir -p $(@D)
	$(CC) $(NATIVE_CFLAGS) -o $@ $<
.PHONY: bench-tier-sim
bench-tier-sim: $(TIER_SIM)/shell-native $(TIER_SIM)/shell-wasm $(TIER_SIM)/tier-sim
	test/bench/tier-sim.sh $(TIER_SIM) $(TIER_SIM_ROWS) | tee $(TIER_SIM)/results.tsv

# What the cipher costs in the big run's sort and VACUUM, in Node without
# OPFS (docs/performance.md, "Where the time goes now"): CPU time,
# encrypted against plaintext.  Not part of `make bench`: about a minute.
.PHONY: bench-cipher-share
bench-cipher-share: browser
	node test/bench/cipher-share.mjs --rows=200000 --reps=$(BENCH_REPS)

# The heap an ephemeral b-tree's cache takes (docs/performance.md, "What
# tempBudget bounds"): natively, with WASM_SPEED_DEFS and memory statistics
# on.  Not part of `make bench`: about a minute.
#   make bench-ephemeral-cache [EPHEMERAL_ROWS="200000 1000000"]
EPHEMERAL      := $(BUILD)/ephemeral-cache
EPHEMERAL_ROWS ?= 200000 1000000
$(EPHEMERAL)/sqlite3.o: $(SQLITE_C)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -DSQLITE_THREADSAFE=0 $(WASM_SPEED_DEFS) -c $< -o $@
$(EPHEMERAL)/ephemeral-cache: test/bench/ephemeral-cache.c $(EPHEMERAL)/sqlite3.o
	$(CC) $(CFLAGS) $(WARN) -I$(SQLITE_DIR) $(WASM_SPEED_DEFS) -o $@ $< $(EPHEMERAL)/sqlite3.o -lm
.PHONY: bench-ephemeral-cache
bench-ephemeral-cache: $(EPHEMERAL)/ephemeral-cache
	for n in $(EPHEMERAL_ROWS); do TMPDIR=$(EPHEMERAL) $< $$n || exit 1; done
