# SQL-level proof: leak check, differential test, every-position
# fault injection, key hygiene, sanitizers, valgrind, ctgrind, mutations.
#
#   make test-proof          leakcheck, difftest, faulttest, keyhygiene,
#                            recovery (whole again after a fault); each with
#                            and without the memory tier; tempfree (the
#                            TEMP database's free pages)                 (CI)
#   make test-sanitize-asan  the same under ASan+UBSan+LSan              (CI)
#   make test-sanitize-tsan  difftest/leakcheck with threads=4 under TSan (CI)
#   make test-sanitize       both sanitizer runs
#   make test-valgrind       the proof and core tests under valgrind memcheck
#   make ctgrind             constant-time check under memcheck          (CI)
#   make leak-report         just print the plaintext leak report
#   make mutate              mutation check (slow, not in CI)
#
# The programs come from the test builds of mk/native.mk (plain, asan,
# tsan: $(TEST_DIR_plain) and so on).

PROOF       ?= $(BUILD)/proof
PROOF_TESTS := leakcheck difftest faulttest keyhygiene recovery tempfree
PROOF_RUN    = mkdir -p $(PROOF)/tmp && PROOF_DIR=$(PROOF)/tmp
VALGRIND    ?= valgrind

.PHONY: test-proof test-sanitize test-sanitize-asan test-sanitize-tsan \
        test-valgrind ctgrind leak-report mutate
TEST_TARGETS += test-proof test-sanitize-asan test-sanitize-tsan ctgrind

# The memory tier's runs of faulttest and recovery: budgets so small that the
# temp files spill part-way (each program checks that they do).
PROOF_TIER_FAULT    := -budget 12288
PROOF_TIER_RECOVERY := -budget 16384

test-proof: $(addprefix $(TEST_DIR_plain)/,$(PROOF_TESTS))
	$(PROOF_RUN) $(TEST_DIR_plain)/leakcheck
	$(PROOF_RUN) $(TEST_DIR_plain)/difftest
	$(PROOF_RUN) $(TEST_DIR_plain)/faulttest
	$(PROOF_RUN) $(TEST_DIR_plain)/faulttest $(PROOF_TIER_FAULT)
	$(PROOF_RUN) $(TEST_DIR_plain)/keyhygiene
	$(PROOF_RUN) $(TEST_DIR_plain)/recovery
	$(PROOF_RUN) $(TEST_DIR_plain)/recovery $(PROOF_TIER_RECOVERY) -stride 4
	$(PROOF_RUN) $(TEST_DIR_plain)/tempfree

leak-report: $(TEST_DIR_plain)/leakcheck
	$(PROOF_RUN) $(TEST_DIR_plain)/leakcheck

# ASan+UBSan+LSan, every fault position as in the plain run.
PROOF_ASAN_ENV = ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:halt_on_error=1 \
                 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
test-sanitize-asan: $(addprefix $(TEST_DIR_asan)/,$(PROOF_TESTS))
	$(PROOF_RUN) $(PROOF_ASAN_ENV) $(TEST_DIR_asan)/leakcheck -q
	$(PROOF_RUN) $(PROOF_ASAN_ENV) $(TEST_DIR_asan)/difftest 600
	$(PROOF_RUN) $(PROOF_ASAN_ENV) $(TEST_DIR_asan)/faulttest
	$(PROOF_RUN) $(PROOF_ASAN_ENV) $(TEST_DIR_asan)/faulttest $(PROOF_TIER_FAULT)
	$(PROOF_RUN) $(PROOF_ASAN_ENV) $(TEST_DIR_asan)/keyhygiene
	$(PROOF_RUN) $(PROOF_ASAN_ENV) $(TEST_DIR_asan)/recovery -stride 25
	$(PROOF_RUN) $(PROOF_ASAN_ENV) $(TEST_DIR_asan)/recovery $(PROOF_TIER_RECOVERY) -stride 25
	$(PROOF_RUN) $(PROOF_ASAN_ENV) $(TEST_DIR_asan)/tempfree -programs 20

# TSan with the multi-threaded sorter (PRAGMA threads=4 in both programs,
# with and without the memory tier, whose budget the worker threads share),
# and the counters and the tier's budget under four threads (statsrace).
PROOF_TSAN_ENV = TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1:suppressions=$(CURDIR)/test/c/tsan.supp
test-sanitize-tsan: $(TEST_DIR_tsan)/difftest $(TEST_DIR_tsan)/leakcheck $(TEST_DIR_tsan)/statsrace
	$(PROOF_RUN) $(PROOF_TSAN_ENV) $(TEST_DIR_tsan)/leakcheck -q
	$(PROOF_RUN) $(PROOF_TSAN_ENV) $(TEST_DIR_tsan)/difftest 800
	$(PROOF_RUN) $(PROOF_TSAN_ENV) $(TEST_DIR_tsan)/statsrace 4 4000

test-sanitize: test-sanitize-asan test-sanitize-tsan

PROOF_VG = $(VALGRIND) -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite
# The core's own ChaCha20 and stress tests (mk/native.mk) come along.
test-valgrind: $(addprefix $(TEST_DIR_plain)/,$(PROOF_TESTS)) \
               $(TEST_DIR_plain)/chacha20_test $(TEST_DIR_plain)/stress
	$(PROOF_VG) $(TEST_DIR_plain)/chacha20_test 300
	$(PROOF_VG) $(TEST_DIR_plain)/stress -n 30000 -s 1 -m all
	$(PROOF_RUN) $(PROOF_VG) $(TEST_DIR_plain)/leakcheck -q
	$(PROOF_RUN) $(PROOF_VG) $(TEST_DIR_plain)/difftest 400
	$(PROOF_RUN) $(PROOF_VG) $(TEST_DIR_plain)/faulttest -stride 7
	$(PROOF_RUN) $(PROOF_VG) $(TEST_DIR_plain)/faulttest $(PROOF_TIER_FAULT) -stride 7
	$(PROOF_RUN) $(PROOF_VG) $(TEST_DIR_plain)/keyhygiene
	$(PROOF_RUN) $(PROOF_VG) $(TEST_DIR_plain)/recovery -stride 100
	$(PROOF_RUN) $(PROOF_VG) $(TEST_DIR_plain)/recovery $(PROOF_TIER_RECOVERY) -stride 100
	$(PROOF_RUN) $(PROOF_VG) $(TEST_DIR_plain)/tempfree -programs 5

# Constant time: key and plaintext are marked undefined; memcheck then
# reports any branch or address that depends on them.  The self-test must
# make valgrind complain, or the method proves nothing.
PROOF_CT = $(VALGRIND) -q --error-exitcode=99 --exit-on-first-error=yes --track-origins=yes
ctgrind: $(TEST_DIR_plain)/ctgrind
	@echo "ctgrind: self-test (a deliberate secret-dependent branch must be reported)"
	@$(PROOF_RUN) $(PROOF_CT) $(TEST_DIR_plain)/ctgrind --leaky >$(PROOF)/ctgrind-selftest.log 2>&1; \
	  rc=$$?; if [ $$rc -ne 99 ]; then cat $(PROOF)/ctgrind-selftest.log; \
	  echo "ctgrind: self-test NOT detected by valgrind (rc=$$rc)"; exit 1; fi; \
	  echo "ctgrind: self-test detected, as it must be"
	$(PROOF_RUN) $(PROOF_CT) $(TEST_DIR_plain)/ctgrind

mutate: $(NATIVE)/sqlite3.o
	test/c/mutate.sh

# test/c/workloads.h: the proof's workloads and base database from the
# workload table (test/workloads.txt), made C by its parser.
WORKLOADS_H := test/c/workloads.h
$(WORKLOADS_H): test/workloads.txt test/workloads.mjs js/demo/workloads.js
	node test/workloads.mjs c > $@.tmp && mv $@.tmp $@
.PHONY: clean-workloads
clean: clean-workloads
clean-workloads:
	rm -f $(WORKLOADS_H)
# Every object of test/c/proof.c (the test builds of mk/native.mk), and
# mutate.sh's.
$(foreach v,$(TEST_VARIANTS),$(TEST_DIR_$(v))/lib/proof.o) mutate: $(WORKLOADS_H)
