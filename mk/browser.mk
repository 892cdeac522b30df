# Browser build: SQLite + tempcrypt + the storage VFS (wasm/browser/) as an ES
# module and a .wasm file, packaged with the JS API (js/) into dist/.
#   make browser        build dist/
#   make test-browser   run the browser tests in every engine installed
#                       (BROWSERS=chromium,firefox,webkit picks them)
# Needs Debian's emscripten (emcc 3.1.6); -O1 and above need NODE_PATH.

EMCC          ?= emcc
BROWSER       := $(BUILD)/browser
DIST          ?= dist
BROWSER_OPT   ?= -O2
# SQLite itself is built for size (-Oz: 0.84x the official wasm instead of
# 1.42x, no slowdown measurable here); the hot core (tempcrypt, ChaCha20,
# the VFS) and the link (emcc's wasm-opt) keep BROWSER_OPT.  Measurements:
# docs/performance.md, "Build settings".
BROWSER_SQLITE_OPT ?= -Oz
BROWSER_LINK_OPT   ?= $(BROWSER_OPT)
BROWSER_ENV   := NODE_PATH=/usr/share/nodejs

# What the package API offers on top (docs/api.md): full-text search and
# R*Tree (sqlite_dbpage, which exportStream reads the file page by page
# with, is in every build: SQLITE_DEFS).
BROWSER_API_DEFS := -DSQLITE_ENABLE_FTS5 -DSQLITE_ENABLE_RTREE

# No threads in the Worker (mutexes are no-ops, but the sqlite3_mutex_* API
# stays for tempcrypt), no OS layer (the VFS is ours), no mmap.
BROWSER_SQLITE_DEFS := $(filter-out -DSQLITE_THREADSAFE=%,$(SQLITE_DEFS)) \
    -DSQLITE_THREADSAFE=1 -DSQLITE_MUTEX_NOOP -DSQLITE_OS_OTHER=1 -DSQLITE_OMIT_SHARED_CACHE \
    -DSQLITE_OMIT_DEPRECATED -DSQLITE_MAX_MMAP_SIZE=0 -DSQLITE_USE_ALLOCA \
    -DSQLITE_ENABLE_BYTECODE_VTAB -DSQLITE_ENABLE_DBSTAT_VTAB $(BROWSER_API_DEFS)

# ---- speed: the wasm settings of the Makefile's WASM_SQLITE_DEFS, and
# the optimisation and memory flags; docs/performance.md.
BROWSER_SQLITE_DEFS += $(WASM_SQLITE_DEFS)
# ---- end speed

# wasm features beyond the MVP, on every object and the link (emcc 3.1.6
# enables none of them by default); every engine the package supports has
# them.  Bulk memory turns memcpy/memset into memory.copy/memory.fill; the
# other two make float-to-int and sign extension single instructions.
# Measured in docs/performance.md ("Build settings").
BROWSER_WASM_FEATURES ?= -msimd128 -mbulk-memory -mnontrapping-fptoint -msign-ext
BROWSER_CFLAGS := $(BROWSER_OPT) $(BROWSER_WASM_FEATURES) -I$(SQLITE_DIR) -Isrc -Iwasm/browser

# The package's JS: the entry points at the top of js/ and the layers'
# folders (js/README.md), copied to dist/ as they are laid out.
JS_LAYERS    := page dispatch tabs engine storage shared
BROWSER_JS   := $(wildcard js/*.js $(JS_LAYERS:%=js/%/*.js)) js/index.d.ts js/worker.d.ts js/kysely.d.ts js/drizzle.d.ts js/serve.d.ts

# Exactly the C functions js/ calls: js/ writes every such call as
# M._<name>(...) (test/unit/exports.test.mjs holds it to that), and the
# list is read from those calls.
BROWSER_EXPORT_LIST := $(sort $(patsubst M._%,%,$(shell grep -ohE 'M\._[a-z][a-z0-9_]*' $(BROWSER_JS))))
BROWSER_EMPTY :=
BROWSER_COMMA := ,
BROWSER_EXPORTS := $(patsubst %$(BROWSER_COMMA),%,$(subst $(BROWSER_EMPTY) $(BROWSER_EMPTY),$(BROWSER_EMPTY),$(foreach f,$(BROWSER_EXPORT_LIST),_$(f)$(BROWSER_COMMA))))

BROWSER_LDFLAGS := $(BROWSER_LINK_OPT) $(BROWSER_WASM_FEATURES) -sEXPORT_ES6=1 -sMODULARIZE=1 \
    -sEXPORT_NAME=createSqliteModule -sENVIRONMENT=web,worker \
    -sALLOW_MEMORY_GROWTH=1 -sINITIAL_MEMORY=16MB -sWASM_BIGINT=1 \
    -sFILESYSTEM=0 -sEXIT_RUNTIME=0 -sINCOMING_MODULE_JS_API=instantiateWasm,print,printErr \
    -sEXPORTED_FUNCTIONS=$(BROWSER_EXPORTS) \
    -sEXPORTED_RUNTIME_METHODS=[] \
    --js-library wasm/browser/storage_library.js --js-library wasm/browser/api_library.js

# The compile and link commands (the C of wasm/browser/ and src/ with
# every warning; SQLite's own with its defines and size setting).
BROWSER_CC = $(BROWSER_ENV) $(EMCC) $(BROWSER_CFLAGS)
BROWSER_WARN := -Wall -Wextra
BROWSER_LD = $(BROWSER_ENV) $(EMCC) $(BROWSER_LDFLAGS)

BROWSER_OBJS := $(BROWSER)/sqlite3.o $(BROWSER)/storage_vfs.o $(BROWSER)/storage_buf.o $(BROWSER)/glue.o \
    $(patsubst %.c,$(BROWSER)/%.o,$(notdir $(TC_SRC)))

.PHONY: browser test-browser
browser: $(DIST)/sqlite3.mjs $(patsubst js/%,$(DIST)/%,$(BROWSER_JS)) $(DIST)/shared/constants.d.ts

# Objects depend on the flags they were built with.
$(eval $(call flags_stamp,$(BROWSER)/flags,$$(BROWSER_CFLAGS) $$(BROWSER_SQLITE_OPT) $$(BROWSER_SQLITE_DEFS)))

$(BROWSER)/sqlite3.o: $(SQLITE_C) $(BROWSER)/flags
	@mkdir -p $(@D)
	$(BROWSER_CC) $(BROWSER_SQLITE_OPT) $(BROWSER_SQLITE_DEFS) -c $< -o $@

$(BROWSER)/%.o: wasm/browser/%.c wasm/browser/storage_vfs.h $(SQLITE_DIR)/sqlite3.h $(TC_HDR) $(BROWSER)/flags
	@mkdir -p $(@D)
	$(BROWSER_CC) $(BROWSER_SQLITE_DEFS) $(BROWSER_WARN) -c $< -o $@

# The core (tempcrypt + ChaCha20) is always $(TC_SRC): no override, so no
# build can ship without encryption.  The memory tier has its default
# budget, as on every target; the JS API sets it per database (tempBudget).
$(BROWSER)/%.o: src/%.c $(TC_HDR) $(SQLITE_DIR)/sqlite3.h $(BROWSER)/flags
	@mkdir -p $(@D)
	$(BROWSER_CC) $(BROWSER_WARN) -c $< -o $@

# The link depends on its flags too (the export list, say).
$(eval $(call flags_stamp,$(BROWSER)/ldflags,$$(BROWSER_LDFLAGS)))

$(DIST)/sqlite3.mjs: $(BROWSER_OBJS) wasm/browser/storage_library.js wasm/browser/api_library.js $(BROWSER)/ldflags
	@mkdir -p $(@D)
	$(BROWSER_LD) $(BROWSER_OBJS) -o $@

# One rule per file, so that a new js/ file is copied too.
$(DIST)/%.js: js/%.js
	@mkdir -p $(@D)
	cp $< $@
$(DIST)/%.d.ts: js/%.d.ts
	@mkdir -p $(@D)
	cp $< $@
# The constants' types, from the one list of values.
$(DIST)/shared/constants.d.ts: js/shared/constants.js scripts/constants-dts.mjs
	@mkdir -p $(@D)
	node scripts/constants-dts.mjs js/shared/constants.js > $@

BROWSERS ?=
test-browser: browser
	BROWSERS=$(BROWSERS) node test/browser/run.mjs

TEST_TARGETS += test-browser

# The wasm must stay smaller than the official build's (test/bench/size.mjs).
.PHONY: test-size
test-size: browser
	node test/bench/size.mjs $(DIST)
TEST_TARGETS += test-size

# ---- speed: the same link with the wasm heap capped, for the
# larger-than-memory run of `make bench-big` (mk/bench.mk).
BENCH_HEAP_CAP ?= 256MB
$(BENCH_DIR)/capped/sqlite3.mjs: $(BROWSER_OBJS) wasm/browser/storage_library.js $(BROWSER)/ldflags
	@mkdir -p $(@D)
	$(BROWSER_LD) -sMAXIMUM_MEMORY=$(BENCH_HEAP_CAP) $(BROWSER_OBJS) -o $@
# ---- end speed

# The API tests (test/api/) import a database made by the
# native sqlite3 shell; the same tests run in Node by test-api-node.
API_FIXTURE := $(BUILD)/api-fixtures/native.db
$(API_FIXTURE): $(NATIVE)/sqlite3 test/api/native-fixture.sql
	@mkdir -p $(@D)
	rm -f $@ $@-wal $@-shm
	$(NATIVE)/sqlite3 $@ < test/api/native-fixture.sql > /dev/null
test-browser: $(API_FIXTURE)

# Then the ORM adapters against their peers' drivers over better-sqlite3
# (orm-diff.mjs, fresh seeds, printed), and both ORM suites again under
# the lowest Kysely and Drizzle the package supports (lowest-peers.mjs);
# then migrators started at once (migration-race.mjs), also under the
# lowest Kysely, whose Migrator takes its lock inside the transaction.
LOWEST_PEERS := --import ./test/api/lowest-peers.mjs
.PHONY: test-api-node
test-api-node: browser $(API_FIXTURE)
	node test/api/node.mjs
	node test/api/orm-diff.mjs
	node $(LOWEST_PEERS) test/api/orm-node.mjs
	node $(LOWEST_PEERS) test/api/orm-diff.mjs --seeds 10
	node test/api/migration-race.mjs
	MIGRATION_ROUNDS=4 node $(LOWEST_PEERS) test/api/migration-race.mjs

TEST_TARGETS += test-api-node

# Unit tests of the JS layers in Node (node:test; test/unit/*.test.mjs).
.PHONY: test-node-unit
test-node-unit: browser $(WASI_PKG)
	node --test test/unit/*.test.mjs

TEST_TARGETS += test-node-unit

# The random test of storage 'file''s locks (part of test-node-unit,
# short there), longer: 200 ops per actor, 5 rounds.
.PHONY: test-file-lock-random
test-file-lock-random: browser
	FILE_LOCK_OPS=200 FILE_LOCK_ROUNDS=5 node --test test/unit/file-lock-random.test.mjs

# A 1 GiB streamed import in Node (needs ~3 GiB of disk under build/ while it
# runs, about 30 s; the files are removed, pass or fail).
.PHONY: test-api-big
test-api-big: browser $(NATIVE)/sqlite3
	node test/api/import-big.mjs; rc=$$?; rm -rf $(BUILD)/api-big; exit $$rc
TEST_TARGETS += test-api-big

# The workload table where the demo page and the leak test fetch it.
browser: $(DIST)/workloads.txt
$(DIST)/workloads.txt: test/workloads.txt
	@mkdir -p $(@D)
	cp $< $@

# The model-based test of several tabs (test/browser/tabsmodel.mjs; two
# rounds of 100 steps per engine run in test-browser), longer: ROUNDS
# rounds (default 10) of STEPS steps (default 150) per engine, from seed
# SEED (default: random; printed, with the line that replays a round).
#   make fuzz-tabs ROUNDS=20 STEPS=150 SEED=1 BROWSERS=chromium
.PHONY: fuzz-tabs
fuzz-tabs: browser
	BROWSERS=$(BROWSERS) TABS_ROUNDS=$(or $(ROUNDS),10) TABS_STEPS=$(or $(STEPS),150) SEED=$(SEED) node test/browser/run.mjs --only=tabsmodel
