# The in-browser leak-check demo (js/demo/): the page runs a workload twice
# over OPFS, temp files in plaintext and encrypted, and shows what reached
# the disk.
#   make demo          install what is missing, build, serve on 127.0.0.1:$(PORT)
#   make demo-check    headless: run one workload in Chromium (DEMO_BROWSER), print the
#                      side-by-side table, save build/demo/demo-check.png
#   make test-demo     the browser test of the page in every engine installed
#                      (BROWSERS=chromium,firefox,webkit picks them; part of `make test`)

PORT          ?= 8321
DEMO_WORKLOAD ?= temp-table
DEMO_ROWS     ?= 5000
DEMO_BROWSER  ?= chromium

.PHONY: demo demo-check test-demo
demo:
	scripts/install-deps.sh
	$(MAKE) --no-print-directory browser
	node test/demo/serve.mjs --port=$(PORT)

demo-check:
	scripts/install-deps.sh
	$(MAKE) --no-print-directory browser
	node test/demo/drive.mjs --workload=$(DEMO_WORKLOAD) --rows=$(DEMO_ROWS) --out=$(BUILD)/demo --browser=$(DEMO_BROWSER)

test-demo: browser
	BROWSERS=$(BROWSERS) node test/demo/test.mjs

TEST_TARGETS += test-demo
