# Proof at the API level (docs/proof.md, "The JS layer"): the differential
# API fuzzer, faults below the JS layer, mutations of js/.
#
#   make test-fuzz-api   a short seeded fuzzer run: Node (memory, file) and
#                        Chromium and Firefox (OPFS, memory)           (CI)
#   make fuzz-api        a long run with a fresh seed (FUZZ_TIME seconds
#                        per storage, FUZZ_PROGRAMS at most)
#   make test-faults     storage calls failing at every position, through
#                        the API (Node memory and file; OPFS in browsers)  (CI)
#   make mutate-js       deliberate bugs in js/, each must fail a test of
#                        make test (slow, not in CI)
#
# KNOWN_OPEN: the known open defects the fuzzer does not provoke (the
# switches are listed in test/fuzz/program.js, KNOWN); remove a name once
# its fix is merged.  Empty: none is open.
KNOWN_OPEN     ?=
FUZZ_SEED      ?= 20261201
FUZZ_BROWSERS  ?= chromium,firefox
FUZZ_ENV        = KNOWN_OPEN=$(KNOWN_OPEN)

.PHONY: test-fuzz-api fuzz-api
test-fuzz-api: browser $(SQLITE_DIR)/sqlite3.h
	$(FUZZ_ENV) node test/fuzz/fuzz-api.mjs --seed=$(FUZZ_SEED) --programs=40 \
	    --browsers=$(FUZZ_BROWSERS) --browser-programs=6
TEST_TARGETS += test-fuzz-api

FUZZ_TIME     ?= 300
FUZZ_PROGRAMS ?= 100000
fuzz-api: browser $(SQLITE_DIR)/sqlite3.h
	$(FUZZ_ENV) node test/fuzz/fuzz-api.mjs --programs=$(FUZZ_PROGRAMS) --time=$(FUZZ_TIME) \
	    --browsers=$(FUZZ_BROWSERS)

# Faults: every position over memory, every FAULTS_FILE_STRIDE-th over
# files (each run fsyncs for real), every FAULTS_BROWSER_STRIDE-th over
# OPFS in each browser; FAULTS_STRIDE=1 FAULTS_FILE_STRIDE=1
# FAULTS_BROWSER_STRIDE=1 tries every position everywhere.
FAULTS_STRIDE         ?= 1
FAULTS_FILE_STRIDE    ?= 7
FAULTS_BROWSER_STRIDE ?= 9
FAULTS_BROWSERS       ?= chromium,firefox
.PHONY: test-faults
test-faults: browser
	node test/faults/node.mjs --only=memory --stride=$(FAULTS_STRIDE)
	node test/faults/node.mjs --only=file --stride=$(FAULTS_FILE_STRIDE) \
	    --browsers=$(FAULTS_BROWSERS) --browser-stride=$(FAULTS_BROWSER_STRIDE)
TEST_TARGETS += test-faults

.PHONY: mutate-js
mutate-js: browser $(API_FIXTURE) conformance-baseline $(SQLITE_DIR)/sqlite3.h
	KNOWN_OPEN=$(KNOWN_OPEN) test/mutate-js.sh
