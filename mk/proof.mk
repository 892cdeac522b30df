# SQL-level proof (issue 3): leak check, differential test, every-position
# fault injection, key hygiene, sanitizers, valgrind, ctgrind, mutations.
#
#   make test-proof          leakcheck, difftest, faulttest, keyhygiene,
#                            recovery (issue 9: whole again after a fault)  (CI)
#   make test-sanitize-asan  the same under ASan+UBSan+LSan              (CI)
#   make test-sanitize-tsan  difftest/leakcheck with threads=4 under TSan (CI)
#   make test-sanitize       both sanitizer runs
#   make test-valgrind       the proof and core tests under valgrind memcheck
#   make ctgrind             constant-time check under memcheck          (CI)
#   make leak-report         just print the plaintext leak report
#   make mutate              mutation check (slow, not in CI)
#
# One sqlite3.o per build variant, shared by all test programs: the plain
# variant reuses $(NATIVE)/sqlite3.o.

PROOF       ?= $(BUILD)/proof
PROOF_TESTS := leakcheck difftest faulttest keyhygiene recovery
PROOF_SRC   := test/proof.c test/proof.h
PROOF_RUN    = mkdir -p $(PROOF)/tmp && PROOF_DIR=$(PROOF)/tmp
VALGRIND    ?= valgrind

# Per-variant compiler flags (SQLite and our code alike).
PROOF_FLAGS_plain := $(CFLAGS)
PROOF_FLAGS_asan  := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined \
                     -fno-sanitize-recover=undefined
PROOF_FLAGS_tsan  := -O1 -g -fsanitize=thread
PROOF_INC         := -I$(SQLITE_DIR) -Isrc -Itest -DSQLITE_TEMPCRYPT_TESTING

# $(call proof_variant,NAME,SQLITE_OBJ)
define proof_variant
$(PROOF)/$(1)/tc_%.o: src/%.c $(TC_HDR) $(SQLITE_DIR)/sqlite3.h
	@mkdir -p $$(@D)
	$$(CC) $$(PROOF_FLAGS_$(1)) $$(WARN) $$(PROOF_INC) -c $$< -o $$@
$(PROOF)/$(1)/proof.o: $(PROOF_SRC) $(TC_HDR) $(SQLITE_DIR)/sqlite3.h
	@mkdir -p $$(@D)
	$$(CC) $$(PROOF_FLAGS_$(1)) $$(WARN) $$(PROOF_INC) -c test/proof.c -o $$@
$(PROOF)/$(1)/%: test/%.c $(PROOF)/$(1)/proof.o $(PROOF)/$(1)/tc_tempcrypt.o \
                 $(PROOF)/$(1)/tc_chacha20.o $(2)
	$$(CC) $$(PROOF_FLAGS_$(1)) $$(WARN) $$(PROOF_INC) -o $$@ $$< \
	    $(PROOF)/$(1)/proof.o $(PROOF)/$(1)/tc_tempcrypt.o \
	    $(PROOF)/$(1)/tc_chacha20.o $(2) -lpthread -lm
endef

$(PROOF)/asan/sqlite3.o $(PROOF)/tsan/sqlite3.o: $(PROOF)/%/sqlite3.o: $(SQLITE_C)
	@mkdir -p $(@D)
	$(CC) $(PROOF_FLAGS_$*) $(SQLITE_DEFS) -c $< -o $@

$(eval $(call proof_variant,plain,$(NATIVE)/sqlite3.o))
$(eval $(call proof_variant,asan,$(PROOF)/asan/sqlite3.o))
$(eval $(call proof_variant,tsan,$(PROOF)/tsan/sqlite3.o))
.SECONDARY:

.PHONY: test-proof test-sanitize test-sanitize-asan test-sanitize-tsan \
        test-valgrind ctgrind leak-report mutate
TEST_TARGETS += test-proof test-sanitize-asan test-sanitize-tsan ctgrind

test-proof: $(addprefix $(PROOF)/plain/,$(PROOF_TESTS))
	$(PROOF_RUN) $(PROOF)/plain/leakcheck
	$(PROOF_RUN) $(PROOF)/plain/difftest
	$(PROOF_RUN) $(PROOF)/plain/faulttest
	$(PROOF_RUN) $(PROOF)/plain/keyhygiene
	$(PROOF_RUN) $(PROOF)/plain/recovery

leak-report: $(PROOF)/plain/leakcheck
	$(PROOF_RUN) $(PROOF)/plain/leakcheck

# ASan+UBSan+LSan, every fault position as in the plain run.
PROOF_ASAN_ENV = ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:halt_on_error=1 \
                 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
test-sanitize-asan: $(addprefix $(PROOF)/asan/,$(PROOF_TESTS))
	$(PROOF_RUN) $(PROOF_ASAN_ENV) $(PROOF)/asan/leakcheck -q
	$(PROOF_RUN) $(PROOF_ASAN_ENV) $(PROOF)/asan/difftest 600
	$(PROOF_RUN) $(PROOF_ASAN_ENV) $(PROOF)/asan/faulttest
	$(PROOF_RUN) $(PROOF_ASAN_ENV) $(PROOF)/asan/keyhygiene
	$(PROOF_RUN) $(PROOF_ASAN_ENV) $(PROOF)/asan/recovery -stride 25

# TSan with the multi-threaded sorter (PRAGMA threads=4 in both programs).
test-sanitize-tsan: $(PROOF)/tsan/difftest $(PROOF)/tsan/leakcheck
	$(PROOF_RUN) TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1:suppressions=$(CURDIR)/test/tsan.supp $(PROOF)/tsan/leakcheck -q
	$(PROOF_RUN) TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1:suppressions=$(CURDIR)/test/tsan.supp $(PROOF)/tsan/difftest 800

test-sanitize: test-sanitize-asan test-sanitize-tsan

PROOF_VG = $(VALGRIND) -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite
# The core's own ChaCha20 and stress tests (mk/native.mk) come along.
test-valgrind: $(addprefix $(PROOF)/plain/,$(PROOF_TESTS)) \
               $(NATIVE)/test/chacha20_test $(NATIVE)/test/stress
	$(PROOF_VG) $(NATIVE)/test/chacha20_test 300
	$(PROOF_VG) $(NATIVE)/test/stress -n 30000 -s 1 -m all
	$(PROOF_RUN) $(PROOF_VG) $(PROOF)/plain/leakcheck -q
	$(PROOF_RUN) $(PROOF_VG) $(PROOF)/plain/difftest 400
	$(PROOF_RUN) $(PROOF_VG) $(PROOF)/plain/faulttest -stride 7
	$(PROOF_RUN) $(PROOF_VG) $(PROOF)/plain/keyhygiene
	$(PROOF_RUN) $(PROOF_VG) $(PROOF)/plain/recovery -stride 100

# Constant time: key and plaintext are marked undefined; memcheck then
# reports any branch or address that depends on them.  The self-test must
# make valgrind complain, or the method proves nothing.
PROOF_CT = $(VALGRIND) -q --error-exitcode=99 --exit-on-first-error=yes --track-origins=yes
ctgrind: $(PROOF)/plain/ctgrind
	@echo "ctgrind: self-test (a deliberate secret-dependent branch must be reported)"
	@$(PROOF_RUN) $(PROOF_CT) $(PROOF)/plain/ctgrind --leaky >$(PROOF)/ctgrind-selftest.log 2>&1; \
	  rc=$$?; if [ $$rc -ne 99 ]; then cat $(PROOF)/ctgrind-selftest.log; \
	  echo "ctgrind: self-test NOT detected by valgrind (rc=$$rc)"; exit 1; fi; \
	  echo "ctgrind: self-test detected, as it must be"
	$(PROOF_RUN) $(PROOF_CT) $(PROOF)/plain/ctgrind

mutate: $(NATIVE)/sqlite3.o
	test/mutate.sh
