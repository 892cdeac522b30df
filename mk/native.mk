# Native tests of the core: ChaCha20, the model-based stress test and the
# SQL smoke test.  The test build of the library has the test-only hooks
# (SQLITE_TEMPCRYPT_TESTING); the shipped libtempcrypt.a never does.

NATIVE_TEST  ?= $(NATIVE)/test
STRESS_OPS   ?= 1200000
STRESS_SEED  ?= $(shell date +%s)
TEST_CFLAGS   = $(CFLAGS) $(WARN) -I$(SQLITE_DIR) -Isrc -Itest -DSQLITE_TEMPCRYPT_TESTING

.PHONY: test-native test-chacha20 test-stress test-smoke test-stackscan
TEST_TARGETS += test-native
test-native: test-chacha20 test-stackscan test-stress test-smoke test-statsrace

$(NATIVE_TEST)/%.o: src/%.c $(TC_HDR) $(SQLITE_DIR)/sqlite3.h
	@mkdir -p $(@D)
	$(CC) $(TEST_CFLAGS) -c $< -o $@

$(NATIVE_TEST)/libtempcrypt-test.a: $(NATIVE_TEST)/chacha20.o $(NATIVE_TEST)/tempcrypt.o
	rm -f $@ && ar rcs $@ $^

$(NATIVE_TEST)/chacha20_test: test/chacha20_test.c test/testutil.h $(NATIVE_TEST)/libtempcrypt-test.a
	$(CC) $(TEST_CFLAGS) -DHAVE_LIBSODIUM -o $@ $< $(NATIVE_TEST)/libtempcrypt-test.a -lsodium

$(NATIVE_TEST)/stress: test/stress.c test/testutil.h $(NATIVE_TEST)/libtempcrypt-test.a $(NATIVE)/sqlite3.o
	$(CC) $(TEST_CFLAGS) -o $@ $< $(NATIVE_TEST)/libtempcrypt-test.a $(NATIVE)/sqlite3.o -lpthread -lm

# The same tests against the portable scalar path (the vector path is
# what x86-64, Arm and wasm with -msimd128 run).
$(NATIVE_TEST)/chacha20_test_scalar: test/chacha20_test.c test/testutil.h src/chacha20.c $(TC_HDR)
	@mkdir -p $(@D)
	$(CC) $(TEST_CFLAGS) -DHAVE_LIBSODIUM -DTEMPCRYPT_NO_VECTOR -o $@ test/chacha20_test.c src/chacha20.c -lsodium

test-chacha20: $(NATIVE_TEST)/chacha20_test $(NATIVE_TEST)/chacha20_test_scalar
	$(NATIVE_TEST)/chacha20_test 20000
	$(NATIVE_TEST)/chacha20_test_scalar 5000

# No keystream, round state or key left in the dead stack after a call, on
# every cipher path, with gcc and with clang (each inlines and spills in
# its own way); the control must find what a leaky function leaves.
# Never under ASan or valgrind: it reads below the stack pointer.
STACKSCAN_CLANG ?= $(or $(shell command -v clang-19 2>/dev/null),clang)
$(NATIVE_TEST)/stackscan: test/stackscan.c test/testutil.h src/chacha20.c $(TC_HDR)
	@mkdir -p $(@D)
	$(CC) $(TEST_CFLAGS) -o $@ test/stackscan.c src/chacha20.c
$(NATIVE_TEST)/stackscan-clang: test/stackscan.c test/testutil.h src/chacha20.c $(TC_HDR)
	@mkdir -p $(@D)
	$(STACKSCAN_CLANG) $(TEST_CFLAGS) -o $@ test/stackscan.c src/chacha20.c
test-stackscan: $(NATIVE_TEST)/stackscan $(NATIVE_TEST)/stackscan-clang
	$(NATIVE_TEST)/stackscan
	$(NATIVE_TEST)/stackscan-clang
	@if $(NATIVE_TEST)/stackscan -control >$(NATIVE_TEST)/stackscan-control.log 2>&1; then \
	  cat $(NATIVE_TEST)/stackscan-control.log; echo "stackscan: control NOT detected"; exit 1; fi; \
	  echo "stackscan: control detected, as it must be"

test-stress: $(NATIVE_TEST)/stress
	$< -n $(STRESS_OPS) -s $(STRESS_SEED) -m all

test-smoke: $(NATIVE)/sqlite3
	test/smoke.sh $(NATIVE)/sqlite3

# Speed, measured, never asserted: ratios against plaintext temp files and
# temp_store=MEMORY in the same process, and ChaCha20 against libsodium.
# `make bench` (mk/bench.mk) runs it with the other targets.
# The shipped tempcrypt.o with the test build of chacha20.o, whose hooks
# let the bench time every cipher path.
$(NATIVE)/bench: test/bench.c test/testutil.h $(NATIVE)/tempcrypt.o $(NATIVE_TEST)/chacha20.o $(NATIVE)/sqlite3.o
	$(CC) $(NATIVE_CFLAGS) -Itest -DHAVE_LIBSODIUM -DSQLITE_TEMPCRYPT_TESTING -o $@ $< \
	    $(NATIVE)/tempcrypt.o $(NATIVE_TEST)/chacha20.o $(NATIVE)/sqlite3.o -lsodium -lpthread -lm
# Just the cipher: every path against libsodium (about 5 s).
.PHONY: bench-chacha-native
bench-chacha-native: $(NATIVE)/bench
	$< cipher

# The core tests under ASan+UBSan+LSan, sharing the sanitized SQLite and
# library objects that mk/proof.mk builds.
ASAN_DIR = $(BUILD)/proof/asan
.PHONY: test-native-asan
TEST_TARGETS += test-native-asan
$(NATIVE_TEST)/asan/%: test/%.c test/testutil.h $(ASAN_DIR)/tc_tempcrypt.o $(ASAN_DIR)/tc_chacha20.o $(ASAN_DIR)/sqlite3.o
	@mkdir -p $(@D)
	$(CC) $(PROOF_FLAGS_asan) $(WARN) -I$(SQLITE_DIR) -Isrc -Itest -DSQLITE_TEMPCRYPT_TESTING -DHAVE_LIBSODIUM \
	    -o $@ $< $(ASAN_DIR)/tc_tempcrypt.o $(ASAN_DIR)/tc_chacha20.o $(ASAN_DIR)/sqlite3.o -lsodium -lpthread -lm
test-native-asan: $(NATIVE_TEST)/asan/stress $(NATIVE_TEST)/asan/chacha20_test
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 $(NATIVE_TEST)/asan/chacha20_test 3000
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 $(NATIVE_TEST)/asan/stress -n 240000 -s $(STRESS_SEED) -m all

# The stack's conformance (issue 9): the same SQL, API calls and file
# controls on each lower VFS and on tempcrypt over it, transcripts
# compared (test/conformance.c).  Scratch files go to tmpfs when there is
# one: the journal-mode scenarios sync a lot.
CONFORMANCE_VFS ?= unix unix-dotfile unix-none unix-excl
CONFORMANCE_DIR ?= $(if $(wildcard /dev/shm/.),/dev/shm/tempcrypt-conformance-$(USER),$(BUILD)/conformance)
.PHONY: test-conformance
TEST_TARGETS += test-conformance
$(NATIVE_TEST)/conformance: test/conformance.c test/testutil.h $(NATIVE_TEST)/libtempcrypt-test.a $(NATIVE)/sqlite3.o
	$(CC) $(TEST_CFLAGS) -o $@ $< $(NATIVE_TEST)/libtempcrypt-test.a $(NATIVE)/sqlite3.o -lpthread -lm
test-conformance: $(NATIVE_TEST)/conformance
	@mkdir -p $(CONFORMANCE_DIR)
	@for v in $(CONFORMANCE_VFS); do $< -dir $(CONFORMANCE_DIR) $$v || exit 1; done
	@rm -rf $(CONFORMANCE_DIR)

# Counters reset while other threads do I/O lose nothing (issue 9).
.PHONY: test-statsrace
$(NATIVE_TEST)/statsrace: test/statsrace.c test/testutil.h $(NATIVE)/libtempcrypt.a $(NATIVE)/sqlite3.o
	@mkdir -p $(@D)
	$(CC) $(NATIVE_CFLAGS) -Itest -o $@ $< $(NATIVE)/libtempcrypt.a $(NATIVE)/sqlite3.o -lpthread -lm
test-statsrace: $(NATIVE_TEST)/statsrace
	$< 4 20000
