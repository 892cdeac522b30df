# The JS side of the conformance suite (test/conformance/): the
# same SQL over every lower storage of the browser build, compared with a
# build without tempcrypt (the baseline: glue.c with -DTC_BASELINE, the
# package's JS next to it; test-only, never in dist/).
#   make test-conformance-js   Node over the memory backend (about 1 min);
#                              Chromium runs its part in test-browser.

CONF_BASE := $(BUILD)/conformance/baseline

.PHONY: conformance-baseline test-conformance-js
conformance-baseline: $(CONF_BASE)/sqlite3.mjs $(CONF_BASE)/.js-stamp

$(BROWSER)/glue-baseline.o: wasm/browser/glue.c wasm/browser/storage_vfs.h $(SQLITE_DIR)/sqlite3.h $(TC_HDR) $(BROWSER)/flags
	@mkdir -p $(@D)
	$(BROWSER_ENV) $(EMCC) $(BROWSER_CFLAGS) $(BROWSER_SQLITE_DEFS) -DTC_BASELINE -Wall -Wextra -c $< -o $@

CONF_BASE_OBJS := $(filter-out $(BROWSER)/glue.o,$(BROWSER_OBJS)) $(BROWSER)/glue-baseline.o

$(CONF_BASE)/sqlite3.mjs: $(CONF_BASE_OBJS) wasm/browser/storage_library.js $(BROWSER)/ldflags
	@mkdir -p $(@D)
	$(BROWSER_ENV) $(EMCC) $(BROWSER_LDFLAGS) $(CONF_BASE_OBJS) -o $@

$(CONF_BASE)/.js-stamp: $(BROWSER_JS)
	@mkdir -p $(@D)
	cd js && cp --parents $(BROWSER_JS:js/%=%) $(abspath $(CONF_BASE))/
	touch $@

test-conformance-js: browser conformance-baseline
	node test/conformance/node.mjs

# The browser tests run the suite in Chromium too (test/conformance/browser.mjs).
test-browser: conformance-baseline

TEST_TARGETS += test-conformance-js
