# Native tests of the core: ChaCha20, the model-based stress test and the
# SQL smoke test.  The test build of the library has the test-only hooks
# (SQLITE_TEMPCRYPT_TESTING); the shipped libtempcrypt.a never does.

NATIVE_TEST  ?= $(NATIVE)/test
STRESS_OPS   ?= 1200000
STRESS_SEED  ?= $(shell date +%s)

# ---------------------------------------------------------------- test builds
# Every C test program test/NAME.c is built in three variants, each with
# its own objects and flags stamp: plain ($(CFLAGS)), asan (ASan + UBSan +
# LSan) and tsan.  A variant links the program with the test library
# (libtest.a: check.c, checkvfs.c, test/c/proof.c and the parts in test/c/proof/), the
# library with its test hooks (libtempcrypt-test.a) and SQLite (plain: the
# native build's sqlite3.o).  $(TEST_DIR_<variant>)/NAME is the program.
TEST_VARIANTS  := plain asan tsan
TEST_DIR_plain := $(NATIVE_TEST)
TEST_DIR_asan  := $(NATIVE_TEST)/asan
TEST_DIR_tsan  := $(NATIVE_TEST)/tsan
TEST_FLAGS_plain = $(CFLAGS)
TEST_FLAGS_asan := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined \
                   -fno-sanitize-recover=undefined
TEST_FLAGS_tsan := -O1 -g -fsanitize=thread
TEST_SQLITE_plain := $(NATIVE)/sqlite3.o
TEST_SQLITE_asan  := $(TEST_DIR_asan)/sqlite3.o
TEST_SQLITE_tsan  := $(TEST_DIR_tsan)/sqlite3.o
TEST_INC      := -I$(SQLITE_DIR) -Isrc -Itest/c -DSQLITE_TEMPCRYPT_TESTING
TEST_CFLAGS    = $(CFLAGS) $(WARN) $(TEST_INC)
TEST_LIB_SRC  := test/c/check.c test/c/checkvfs.c test/c/proof.c $(sort $(wildcard test/c/proof/*.c))
TEST_LIB_HDR  := test/c/check.h test/c/checkvfs.h test/c/proof.h test/c/testutil.h $(wildcard test/c/proof/*.h)
# Programs checked against libsodium.
TEST_DEFS_chacha20_test := -DHAVE_LIBSODIUM
TEST_LIBS_chacha20_test := -lsodium

# $(call test_variant,VARIANT)
define test_variant
$(eval $(call flags_stamp,$(TEST_DIR_$(1))/flags,$(CC) $(TEST_FLAGS_$(1)) $(WARN) $(TEST_INC) $(SQLITE_DEFS)))
$(TEST_DIR_$(1))/%.o: src/%.c $(TC_HDR) $(SQLITE_DIR)/sqlite3.h $(TEST_DIR_$(1))/flags
	$$(CC) $$(TEST_FLAGS_$(1)) $$(WARN) $$(TEST_INC) -c $$< -o $$@
$(TEST_DIR_$(1))/libtempcrypt-test.a: $(patsubst src/%.c,$(TEST_DIR_$(1))/%.o,$(TC_SRC))
	rm -f $$@ && ar rcs $$@ $$^
$(TEST_DIR_$(1))/lib/%.o: test/c/%.c $(TEST_LIB_HDR) $(TC_HDR) $(SQLITE_DIR)/sqlite3.h $(TEST_DIR_$(1))/flags
	@mkdir -p $$(@D)
	$$(CC) $$(TEST_FLAGS_$(1)) $$(WARN) $$(TEST_INC) -c $$< -o $$@
$(TEST_DIR_$(1))/libtest.a: $(patsubst test/c/%.c,$(TEST_DIR_$(1))/lib/%.o,$(TEST_LIB_SRC))
	rm -f $$@ && ar rcs $$@ $$^
$(TEST_DIR_$(1))/%: test/c/%.c $(TEST_LIB_HDR) $(TEST_DIR_$(1))/libtest.a \
    $(TEST_DIR_$(1))/libtempcrypt-test.a $(TEST_SQLITE_$(1))
	$$(CC) $$(TEST_FLAGS_$(1)) $$(WARN) $$(TEST_INC) $$(TEST_DEFS_$$*) -o $$@ $$< \
	    $(TEST_DIR_$(1))/libtest.a $(TEST_DIR_$(1))/libtempcrypt-test.a $(TEST_SQLITE_$(1)) \
	    $$(TEST_LIBS_$$*) -lpthread -lm
endef
$(foreach v,$(TEST_VARIANTS),$(eval $(call test_variant,$(v))))

$(TEST_SQLITE_asan) $(TEST_SQLITE_tsan): $(NATIVE_TEST)/%/sqlite3.o: $(SQLITE_C) $(NATIVE_TEST)/%/flags
	$(CC) $(TEST_FLAGS_$*) $(SQLITE_DEFS) -c $< -o $@
.SECONDARY:

.PHONY: test-native test-chacha20 test-stress test-smoke test-stackscan
TEST_TARGETS += test-native
test-native: test-chacha20 test-stackscan test-stress test-smoke test-statsrace test-filelist

# The same tests against the portable scalar path (the vector path is
# what x86-64, Arm and wasm with -msimd128 run).
$(NATIVE_TEST)/chacha20_test_scalar: test/c/chacha20_test.c $(TEST_LIB_HDR) src/chacha20.c $(TC_HDR) \
    $(NATIVE_TEST)/lib/check.o
	$(CC) $(TEST_CFLAGS) -DHAVE_LIBSODIUM -DTEMPCRYPT_NO_VECTOR -o $@ test/c/chacha20_test.c src/chacha20.c \
	    $(NATIVE_TEST)/lib/check.o -lsodium

test-chacha20: $(NATIVE_TEST)/chacha20_test $(NATIVE_TEST)/chacha20_test_scalar
	$(NATIVE_TEST)/chacha20_test 20000
	$(NATIVE_TEST)/chacha20_test_scalar 5000

# No keystream, round state or key left in the dead stack after a call, on
# every cipher path, with gcc and with clang (each inlines and spills in
# its own way); the control must find what a leaky function leaves.
# Never under ASan or valgrind: it reads below the stack pointer.
STACKSCAN_CLANG ?= $(or $(shell command -v clang-19 2>/dev/null),clang)
$(NATIVE_TEST)/stackscan: test/c/stackscan.c $(TEST_LIB_HDR) src/chacha20.c $(TC_HDR) $(NATIVE_TEST)/lib/check.o
	$(CC) $(TEST_CFLAGS) -o $@ test/c/stackscan.c src/chacha20.c $(NATIVE_TEST)/lib/check.o
$(NATIVE_TEST)/stackscan-clang: test/c/stackscan.c $(TEST_LIB_HDR) src/chacha20.c $(TC_HDR) $(NATIVE_TEST)/lib/check.o
	$(STACKSCAN_CLANG) $(TEST_CFLAGS) -o $@ test/c/stackscan.c src/chacha20.c $(NATIVE_TEST)/lib/check.o
test-stackscan: $(NATIVE_TEST)/stackscan $(NATIVE_TEST)/stackscan-clang
	$(NATIVE_TEST)/stackscan
	$(NATIVE_TEST)/stackscan-clang
	@if $(NATIVE_TEST)/stackscan -control >$(NATIVE_TEST)/stackscan-control.log 2>&1; then \
	  cat $(NATIVE_TEST)/stackscan-control.log; echo "stackscan: control NOT detected"; exit 1; fi; \
	  echo "stackscan: control detected, as it must be"

test-stress: $(NATIVE_TEST)/stress
	$< -n $(STRESS_OPS) -s $(STRESS_SEED) -m all

test-smoke: $(NATIVE)/sqlite3
	test/c/smoke.sh $(NATIVE)/sqlite3

# The core tests under ASan+UBSan+LSan (the asan test build above).
.PHONY: test-native-asan
TEST_TARGETS += test-native-asan
test-native-asan: $(TEST_DIR_asan)/stress $(TEST_DIR_asan)/chacha20_test
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 $(TEST_DIR_asan)/chacha20_test 3000
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 $(TEST_DIR_asan)/stress -n 240000 -s $(STRESS_SEED) -m all

# The stack's conformance: the same SQL, API calls and file
# controls on each lower VFS and on tempcrypt over it, transcripts
# compared (test/c/conformance.c).  Scratch files go to tmpfs when there is
# one: the journal-mode scenarios sync a lot.
CONFORMANCE_VFS ?= unix unix-dotfile unix-none unix-excl
CONFORMANCE_DIR ?= $(if $(wildcard /dev/shm/.),/dev/shm/tempcrypt-conformance-$(USER),$(BUILD)/conformance)
.PHONY: test-conformance
TEST_TARGETS += test-conformance
# Each lower VFS without the memory tier, then with it (a budget that keeps
# every temp file of the scenarios in memory).
CONFORMANCE_TIER_BUDGET ?= 67108864
test-conformance: $(NATIVE_TEST)/conformance
	@mkdir -p $(CONFORMANCE_DIR)
	@for v in $(CONFORMANCE_VFS); do $< -dir $(CONFORMANCE_DIR) $$v || exit 1; \
	  $< -dir $(CONFORMANCE_DIR) -budget $(CONFORMANCE_TIER_BUDGET) $$v || exit 1; done
	@rm -rf $(CONFORMANCE_DIR)

# Programs linked with the shipped library, no test hooks: statsrace
# (counters reset while other threads do I/O lose nothing) and filelist
# (the file list's needle search: exact at its chunk boundaries, each
# stored byte read once, from SQL only in the caller's own files).
SHIPPED_LIB_TESTS := $(NATIVE_TEST)/statsrace $(NATIVE_TEST)/filelist
$(SHIPPED_LIB_TESTS): $(NATIVE_TEST)/%: test/c/%.c $(TEST_LIB_HDR) $(NATIVE)/libtempcrypt.a \
    $(NATIVE)/sqlite3.o $(NATIVE_TEST)/lib/check.o
	$(CC) $(NATIVE_CFLAGS) -Itest/c -o $@ $< $(NATIVE_TEST)/lib/check.o $(NATIVE)/libtempcrypt.a \
	    $(NATIVE)/sqlite3.o -lpthread -lm
.PHONY: test-statsrace test-filelist
test-statsrace: $(NATIVE_TEST)/statsrace
	$< 4 20000
test-filelist: $(NATIVE_TEST)/filelist
	$<

# The browser VFS's temp-file buffers (wasm/browser/storage_buf.c) against
# a model, natively over a stub bridge, every bridge call and allocation
# failing at each position, under ASan+UBSan (test/c/storagebuf.c).
STORAGEBUF_SEED ?= 20261204
.PHONY: test-storage-buf
TEST_TARGETS += test-storage-buf
$(TEST_DIR_asan)/storagebuf: test/c/storagebuf.c wasm/browser/storage_buf.c wasm/browser/storage_vfs.h test/c/check.c test/c/check.h
	@mkdir -p $(@D)
	$(CC) $(TEST_FLAGS_asan) $(WARN) -I$(SQLITE_DIR) -Iwasm/browser -Itest/c -o $@ \
	    test/c/storagebuf.c wasm/browser/storage_buf.c test/c/check.c
test-storage-buf: $(TEST_DIR_asan)/storagebuf
	ASAN_OPTIONS=detect_leaks=1 $< -s $(STORAGEBUF_SEED) -n 4 -ops 300
