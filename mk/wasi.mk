# WASI build: the SQLite shell and library with tempcrypt for wasm32-wasi
# (wasmtime, node:wasi, jco), with Debian's clang-19 + lld-19 + wasi-libc.
#   make wasi        build/wasi/sqlite3.wasm, libtempcrypt.a, libsqlite3.a
#   make test-wasi   build the WASI tests (test/wasi/) and run them under
#                    wasmtime, node:wasi and jco (WASI_RUNTIMES)
# Compiled with -O2, linked without -O: with -O clang would run the old
# Debian wasm-opt on the result.

WASI_CC      ?= clang-19
# llvm-ar writes a wasm symbol index; GNU ar's archives (no index for wasm
# objects) also link with wasm-ld 19.  llvm-19 is only a recommendation of
# clang-19, so fall back to ar.
WASI_AR      ?= $(or $(shell command -v llvm-ar-19 2>/dev/null),ar)
WASI_TARGET  ?= wasm32-wasi
WASI_SYSROOT ?= /usr
WASI_OPT     ?= -O2
# 128-bit SIMD: ChaCha20's four-block vector path (wasmtime, Node and
# browsers all have it).  WASI_SIMD= builds for runtimes without it.
WASI_SIMD    ?= -msimd128
# Bulk memory (memcpy/memset as memory.copy/memory.fill), saturating
# float-to-int, sign extension: in every runtime above, as in the browser
# build (docs/performance.md).  WASI_FEATURES= builds without them.
WASI_FEATURES ?= -mbulk-memory -mnontrapping-fptoint -msign-ext
WASI_NODE    ?= node
# The wasmtime CLI that scripts/install-deps.sh installs; `make test-wasi
# bench-wasi WASMTIME=/path/to/wasmtime` tests and measures another.
WASMTIME     ?= $(CURDIR)/build/tools/bin/wasmtime
WASI         := $(BUILD)/wasi
WASI_JCO     := node_modules/@bytecodealliance/jco/dist/jco.js

WASI_BASE_CFLAGS := --target=$(WASI_TARGET) --sysroot=$(WASI_SYSROOT)
# No build paths in the objects: the same sources give the same bytes
# wherever they are built (mk/wasi-dist.mk checks it).
WASI_CFLAGS   = $(WASI_BASE_CFLAGS) $(WASI_OPT) $(WASI_SIMD) $(WASI_FEATURES) -ffile-prefix-map=$(CURDIR)/=
WASI_LDFLAGS  = $(WASI_BASE_CFLAGS)

# No threads under WASI preview1.  SQLite picks its WASI default VFS
# ("unix-dotfile") and leaves out WAL shared memory by itself.
# The wasm speed settings (WASM_SPEED_DEFS in the Makefile: 8192-byte
# pages, a 16 MiB default cache), chosen by measurement; docs/performance.md.
# Not the browser's API-trimming options: embedders link this library.
# make WASI_SPEED_DEFS= builds with SQLite's stock defaults instead.
WASI_SPEED_DEFS ?= $(WASM_SPEED_DEFS)
WASI_SQLITE_DEFS := $(filter-out -DSQLITE_THREADSAFE=%,$(SQLITE_DEFS)) \
    -DSQLITE_THREADSAFE=0 $(WASI_SPEED_DEFS)

# The shell (not the library) uses signal(), getpid(), getrusage(), clock():
# wasi-libc's emulations of them.  compat.h/compat.c supply chmod(),
# realpath() and system(), which Debian's 2022 wasi-libc lacks.
WASI_EMUL_DEFS := -D_WASI_EMULATED_SIGNAL -D_WASI_EMULATED_PROCESS_CLOCKS \
    -D_WASI_EMULATED_GETPID -D_WASI_EMULATED_MMAN
WASI_EMUL_LIBS := -lwasi-emulated-signal -lwasi-emulated-process-clocks \
    -lwasi-emulated-getpid -lwasi-emulated-mman
WASI_SHELL_DEFS := -DSQLITE_SHELL_INIT_PROC=sqlite3_tempcrypt_wasi_shell_init

WASI_TC_OBJS   := $(patsubst src/%.c,$(WASI)/%.o,$(TC_SRC))
WASI_SHELL_OBJS := $(WASI)/shell.o $(WASI)/shell_init.o $(WASI)/shell_init_wasi.o \
    $(WASI)/compat.o $(WASI)/cabi_realloc.o

# Objects depend on the flags they were built with (flags_stamp: Makefile).
WASI_STAMP := $(WASI)/flags.stamp
$(eval $(call flags_stamp,$(WASI_STAMP),$(WASI_CC) $(WASI_CFLAGS) $(WASI_SQLITE_DEFS) $(WASI_EMUL_DEFS) $(WARN)))

.PHONY: wasi test-wasi wasi-tests
wasi: $(WASI)/sqlite3.wasm $(WASI)/libtempcrypt.a $(WASI)/libsqlite3.a

# ---------------------------------------------------------------- library
$(WASI)/sqlite3.o: $(SQLITE_C) $(WASI_STAMP)
	@mkdir -p $(@D)
	$(WASI_CC) $(WASI_CFLAGS) $(WASI_SQLITE_DEFS) -c $< -o $@

# With SQLITE_THREADSAFE=0 sqlite3.c has no sqlite3_mutex_*() functions at
# all; tempcrypt calls them, so the library adds no-op ones.
$(WASI)/libsqlite3.a: $(WASI)/sqlite3.o $(WASI)/sqlite3_mutex_noop.o
	rm -f $@ && $(WASI_AR) rcsD $@ $^

$(WASI)/%.o: src/%.c $(TC_HDR) $(SQLITE_DIR)/sqlite3.h $(WASI_STAMP)
	@mkdir -p $(@D)
	$(WASI_CC) $(WASI_CFLAGS) $(WARN) -I$(SQLITE_DIR) -Isrc -c $< -o $@

$(WASI)/libtempcrypt.a: $(WASI_TC_OBJS)
	rm -f $@ && $(WASI_AR) rcsD $@ $^

# ---------------------------------------------------------------- shell
$(WASI)/shell.o: $(SQLITE_DIR)/shell.c wasm/wasi/compat.h $(WASI_STAMP)
	@mkdir -p $(@D)
	$(WASI_CC) $(WASI_CFLAGS) $(WASI_SQLITE_DEFS) $(WASI_EMUL_DEFS) $(WASI_SHELL_DEFS) \
	    -include wasm/wasi/compat.h -I$(SQLITE_DIR) -c $< -o $@

$(WASI)/%.o: wasm/wasi/%.c wasm/wasi/compat.h $(SQLITE_DIR)/sqlite3.h $(WASI_STAMP)
	@mkdir -p $(@D)
	$(WASI_CC) $(WASI_CFLAGS) $(WARN) -I$(SQLITE_DIR) -Isrc -Iwasm/wasi -c $< -o $@

$(WASI)/sqlite3.wasm: $(WASI_SHELL_OBJS) $(WASI)/libtempcrypt.a $(WASI)/libsqlite3.a
	$(WASI_CC) $(WASI_LDFLAGS) -o $@ $^ $(WASI_EMUL_LIBS)

# ---------------------------------------------------------------- test builds
# The same shell with tempcrypt's runtime switch starting off: the control
# of the syscall-level leak proof (its temp files are plaintext).
$(WASI)/disabled/tempcrypt.o: src/tempcrypt.c $(TC_HDR) $(SQLITE_DIR)/sqlite3.h $(WASI_STAMP)
	@mkdir -p $(@D)
	$(WASI_CC) $(WASI_CFLAGS) $(WARN) -DSQLITE_TEMPCRYPT_DEFAULT_ENABLED=0 \
	    -I$(SQLITE_DIR) -Isrc -c $< -o $@

$(WASI)/sqlite3-disabled.wasm: $(WASI_SHELL_OBJS) $(WASI)/chacha20.o $(WASI)/tempcrypt_vtab.o \
    $(WASI)/disabled/tempcrypt.o $(WASI)/libsqlite3.a
	$(WASI_CC) $(WASI_LDFLAGS) -o $@ $^ $(WASI_EMUL_LIBS)

# tempcrypt and ChaCha20 with their test hooks, for the test programs.
$(WASI)/testing/%.o: src/%.c $(TC_HDR) $(SQLITE_DIR)/sqlite3.h $(WASI_STAMP)
	@mkdir -p $(@D)
	$(WASI_CC) $(WASI_CFLAGS) $(WARN) -DSQLITE_TEMPCRYPT_TESTING \
	    -I$(SQLITE_DIR) -Isrc -c $< -o $@

$(WASI)/testing/libtempcrypt.a: $(patsubst src/%.c,$(WASI)/testing/%.o,$(TC_SRC))
	rm -f $@ && $(WASI_AR) rcsD $@ $^

# The shell wrapped as a WASI preview2 component for jco (the tests time
# jco's runs without this one-off step).
$(WASI)/%.component.wasm: $(WASI)/%.wasm
	$(WASI_NODE) $(WASI_JCO) new $< --wasi-command -o $@

# WASI test programs: test/wasi/NAME.c -> build/wasi/test/NAME.wasm, linked
# with SQLite and the testing tempcrypt.
WASI_TEST_SRC  := $(sort $(wildcard test/wasi/*.c))
WASI_TEST_PROGS := $(patsubst test/wasi/%.c,$(WASI)/test/%.wasm,$(WASI_TEST_SRC))
WASI_TEST_CFLAGS = $(WASI_CFLAGS) $(WARN) -DSQLITE_TEMPCRYPT_TESTING \
    -I$(SQLITE_DIR) -Isrc -Itest/c -Itest/wasi

$(WASI)/test/%.o: test/wasi/%.c $(TEST_LIB_HDR) $(TC_HDR) $(SQLITE_DIR)/sqlite3.h $(WASI_STAMP)
	@mkdir -p $(@D)
	$(WASI_CC) $(WASI_TEST_CFLAGS) -c $< -o $@

$(WASI)/test/%.wasm: $(WASI)/test/%.o $(WASI)/cabi_realloc.o $(WASI)/ctest/libtest.a \
    $(WASI)/testing/libtempcrypt.a $(WASI)/libsqlite3.a
	$(WASI_CC) $(WASI_LDFLAGS) -o $@ $^

# The project's C tests (test/c/*.c: ChaCha20, stress, and the SQL-level
# proof tests) built for wasm32-wasi: build/wasi/ctest/NAME.wasm.  No
# libsodium in wasm: chacha20_test runs its vectors and properties, and
# chacha_twin checks wasm against native byte for byte.
WASI_CTESTS := chacha20_test stress leakcheck difftest faulttest keyhygiene \
    recovery conformance stackscan tempfree filelist
WASI_CTEST_PROGS := $(patsubst %,$(WASI)/ctest/%.wasm,$(WASI_CTESTS))

# The test library (check.c, the proof library: TEST_LIB_SRC, mk/native.mk).
$(WASI)/ctest/lib/%.o: test/c/%.c $(TEST_LIB_HDR) $(TC_HDR) $(SQLITE_DIR)/sqlite3.h $(WASI_STAMP)
	@mkdir -p $(@D)
	$(WASI_CC) $(WASI_TEST_CFLAGS) -c $< -o $@
$(WASI)/ctest/libtest.a: $(patsubst test/c/%.c,$(WASI)/ctest/lib/%.o,$(TEST_LIB_SRC))
	rm -f $@ && $(WASI_AR) rcsD $@ $^

$(WASI)/ctest/%.wasm: test/c/%.c $(TEST_LIB_HDR) $(WASI)/cabi_realloc.o $(WASI)/ctest/libtest.a \
    $(WASI)/testing/libtempcrypt.a $(WASI)/libsqlite3.a $(WASI_STAMP)
	@mkdir -p $(@D)
	$(WASI_CC) $(WASI_TEST_CFLAGS) -o $@ $< $(filter %.o %.a,$^)

# Native twin of test/wasi/chacha_twin.c: its output must equal the wasm's.
$(NATIVE)/wasi-twin/chacha_twin: test/wasi/chacha_twin.c src/chacha20.c $(TC_HDR) $(NATIVE)/flags
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(WARN) -Isrc -o $@ $< src/chacha20.c

# The embedding example of docs/wasi.md, linked with the shipped libraries
# only (no test hooks, no shell).
$(WASI)/example.wasm: wasm/wasi/example.c $(WASI)/libtempcrypt.a $(WASI)/libsqlite3.a $(WASI_STAMP)
	$(WASI_CC) $(WASI_CFLAGS) $(WARN) -I$(SQLITE_DIR) -Isrc -o $@ $(filter-out $(WASI_STAMP),$^)

# The wasm twin again with ChaCha20's scalar path (no vector code).
$(WASI)/test/chacha_twin_scalar.wasm: test/wasi/chacha_twin.c src/chacha20.c $(TC_HDR) $(WASI_STAMP)
	@mkdir -p $(@D)
	$(WASI_CC) $(WASI_CFLAGS) $(WARN) -DTEMPCRYPT_NO_VECTOR -Isrc -o $@ $< src/chacha20.c

# The dead-stack scan (test/c/stackscan.c) also as emscripten builds it for
# the browser (-O2 -msimd128), run under Node by stackscan.test.mjs.
WASI_EMCC     ?= emcc
WASI_EMCC_ENV ?= NODE_PATH=/usr/share/nodejs
$(WASI)/emcc/stackscan.cjs: test/c/stackscan.c $(TEST_LIB_HDR) test/c/check.c src/chacha20.c $(TC_HDR)
	@mkdir -p $(@D)
	$(WASI_EMCC_ENV) $(WASI_EMCC) -O2 -msimd128 $(WARN) -DSQLITE_TEMPCRYPT_TESTING -Isrc -Itest/c \
	    -sENVIRONMENT=node -sSINGLE_FILE=1 -o $@ test/c/stackscan.c test/c/check.c src/chacha20.c

WASI_EXTRA_TESTS := $(WASI_CTEST_PROGS) $(NATIVE)/wasi-twin/chacha_twin \
    $(WASI)/test/chacha_twin_scalar.wasm $(WASI)/example.wasm $(WASI)/emcc/stackscan.cjs

wasi-tests: wasi $(WASI)/sqlite3-disabled.wasm $(WASI)/sqlite3.component.wasm \
    $(WASI_TEST_PROGS) $(WASI_EXTRA_TESTS)

# Runs every test/wasi/*.test.mjs with node's test runner, each test under
# wasmtime (WASMTIME), node:wasi and jco: test/wasi/lib.mjs names them and
# says how each is run.  WASI_RUNTIMES=node,jco picks fewer.
WASI_RUNTIMES ?=
test-wasi: wasi-tests
	TEMPCRYPT_WASI_BUILD=$(WASI) TEMPCRYPT_NATIVE_BUILD=$(NATIVE) TEMPCRYPT_WASMTIME=$(WASMTIME) \
	    $(if $(WASI_RUNTIMES),TEMPCRYPT_WASI_RUNTIMES=$(WASI_RUNTIMES)) \
	    $(WASI_NODE) --test --test-concurrency=2 $(sort $(wildcard test/wasi/*.test.mjs))

TEST_TARGETS += test-wasi

# The proof's workload table in C (mk/proof.mk).
$(WASI)/ctest/lib/proof.o: $(WORKLOADS_H)
