# The WASI release: the shell module in the npm package and a tar.gz of
# the shell, the libraries, their headers, a pkg-config file and an
# example, both the same bytes from the same sources wherever they are
# built (no paths in the objects: -ffile-prefix-map in mk/wasi.mk;
# deterministic ar, tar and gzip).
#   make dist-wasi        dist/wasi/sqlite3.wasm and $(WASI_ARCHIVE)
#   make test-wasi-dist   builds the example from the archive alone and
#                         runs it under wasmtime; the archive and module
#                         built again in two other directories must have
#                         the same SHA-256 (test/wasi/dist.mjs); runs the
#                         WASI commands README.md, npm-readme.md and
#                         docs/wasi.md print (test/wasi/docs-commands.mjs:
#                         npm pack, and pip for the package users' wasmtime)
#   make wasi-shell DB=test.db   the shell under the project's wasmtime

PKG_VERSION   := $(shell sed -n 's/^  "version": "\(.*\)",$$/\1/p' package.json)
WASI_PKG      := dist/wasi/sqlite3.wasm
WASI_ARCHIVE_NAME := sqlite-tempcrypt-wasi-$(PKG_VERSION)
WASI_ARCHIVE  := $(BUILD)/release/$(WASI_ARCHIVE_NAME).tar.gz
WASI_STAGE    := $(BUILD)/release/$(WASI_ARCHIVE_NAME)
# tar and gzip that give the same bytes for the same files.
WASI_TAR_FLAGS := --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner \
    --mode=u+rwX,go=rX --format=gnu

.PHONY: dist-wasi test-wasi-dist wasi-shell
dist-wasi: $(WASI_PKG) $(WASI_ARCHIVE)

# The module npm ships (package.json: "files" and the subpath export
# sqlite-tempcrypt/wasi/sqlite3.wasm).
$(WASI_PKG): $(WASI)/sqlite3.wasm
	@mkdir -p $(@D)
	cp $< $@

$(WASI_ARCHIVE): $(WASI)/sqlite3.wasm $(WASI)/libsqlite3.a $(WASI)/libtempcrypt.a \
    $(SQLITE_DIR)/sqlite3.h src/tempcrypt.h wasm/wasi/example.c LICENSE package.json \
    wasm/wasi/dist/sqlite-tempcrypt.pc.in wasm/wasi/dist/README.md
	rm -rf $(WASI_STAGE) $@
	mkdir -p $(WASI_STAGE)/bin $(WASI_STAGE)/include $(WASI_STAGE)/lib/pkgconfig \
	    $(WASI_STAGE)/share/sqlite-tempcrypt
	cp $(WASI)/sqlite3.wasm $(WASI_STAGE)/bin/
	cp $(WASI)/libsqlite3.a $(WASI)/libtempcrypt.a $(WASI_STAGE)/lib/
	cp $(SQLITE_DIR)/sqlite3.h src/tempcrypt.h $(WASI_STAGE)/include/
	cp wasm/wasi/example.c $(WASI_STAGE)/share/sqlite-tempcrypt/
	cp LICENSE wasm/wasi/dist/README.md $(WASI_STAGE)/
	sed 's/@VERSION@/$(PKG_VERSION)/' wasm/wasi/dist/sqlite-tempcrypt.pc.in \
	    > $(WASI_STAGE)/lib/pkgconfig/sqlite-tempcrypt.pc
	tar $(WASI_TAR_FLAGS) -C $(dir $(WASI_STAGE)) -cf - $(WASI_ARCHIVE_NAME) | gzip -n -9 > $@
	rm -rf $(WASI_STAGE)

test-wasi-dist: dist-wasi browser
	TEMPCRYPT_WASI_ARCHIVE=$(WASI_ARCHIVE) TEMPCRYPT_WASMTIME=$(WASMTIME) WASI_CC=$(WASI_CC) \
	    $(WASI_NODE) --test test/wasi/dist.mjs test/wasi/docs-commands.mjs
TEST_TARGETS += test-wasi-dist

DB ?= test.db
wasi-shell: $(WASI)/sqlite3.wasm
	$(WASMTIME) run --dir=. --env TMPDIR=. $(WASI)/sqlite3.wasm $(DB)
