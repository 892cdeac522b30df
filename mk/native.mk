# Native tests of the core: ChaCha20, the model-based stress test and the
# SQL smoke test.  The test build of the library has the test-only hooks
# (SQLITE_TEMPCRYPT_TESTING); the shipped libtempcrypt.a never does.

NATIVE_TEST  ?= $(NATIVE)/test
STRESS_OPS   ?= 1200000
STRESS_SEED  ?= $(shell date +%s)
TEST_CFLAGS   = $(CFLAGS) $(WARN) -I$(SQLITE_DIR) -Isrc -Itest -DSQLITE_TEMPCRYPT_TESTING

.PHONY: test-native test-chacha20 test-stress test-smoke
TEST_TARGETS += test-native
test-native: test-chacha20 test-stress test-smoke

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

test-stress: $(NATIVE_TEST)/stress
	$< -n $(STRESS_OPS) -s $(STRESS_SEED) -m all

test-smoke: $(NATIVE)/sqlite3
	test/smoke.sh $(NATIVE)/sqlite3

# Speed, measured, never asserted: ratios against plaintext temp files and
# temp_store=MEMORY in the same process, and ChaCha20 against libsodium.
# `make bench` (mk/bench.mk) runs it with the other targets.
$(NATIVE)/bench: test/bench.c test/testutil.h $(NATIVE)/libtempcrypt.a $(NATIVE)/sqlite3.o
	$(CC) $(NATIVE_CFLAGS) -Itest -DHAVE_LIBSODIUM -o $@ $< $(NATIVE)/libtempcrypt.a $(NATIVE)/sqlite3.o -lsodium -lpthread -lm

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
