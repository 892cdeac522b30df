#!/usr/bin/env bash
# Installs everything the build and the tests need: Debian packages (as
# root), the pinned npm devDependencies from package-lock.json, and wasmtime
# from the Python package index (scripts/wasmtime-requirements.txt, pinned
# by version and hash) into build/tools/venv, with the CLI linked as
# build/tools/bin/wasmtime.
# Safe to run again; it only installs what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

APT_PACKAGES=(
  build-essential valgrind strace      # native build, memcheck, syscall leak proof
  unzip                                # make sqlite: the shell comes in an official zip
  pkg-config                           # make test-wasi-dist: the release archive's example builds with its .pc file
  libsodium-dev                        # differential test of ChaCha20 (tests only)
  clang-19 lld-19 libclang-rt-19-dev-wasm32 wasi-libc   # WASI build
  python3 python3-venv                 # wasmtime (PyPI) for the WASI tests, in build/tools/venv
  emscripten                           # browser build
  chromium                             # browser tests, driven by playwright-core
  firefox-esr                          # browser tests, driven by puppeteer-core (WebDriver BiDi)
  webkit2gtk-driver xvfb               # browser tests in WebKitGTK's MiniBrowser (selenium-webdriver, on its own Xvfb)
)

missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if ((${#missing[@]})); then
  if [ "$(id -u)" != 0 ]; then
    echo "install-deps: missing Debian packages: ${missing[*]} (run as root or install them)" >&2
    exit 1
  fi
  echo "install-deps: apt-get install ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "install-deps: npm ci"
  npm ci --no-audit --no-fund --loglevel=error
fi

# The virtual environment holds a copy of the requirements it was made from:
# a changed pin, or a venv whose wasmtime does not start, makes a new one.
TOOLS=build/tools
if ! cmp -s scripts/wasmtime-requirements.txt "$TOOLS/venv/requirements.txt" 2>/dev/null \
   || ! "$TOOLS/bin/wasmtime" --version >/dev/null 2>&1 \
   || ! "$TOOLS/venv/bin/python3" -c 'import wasmtime' 2>/dev/null; then
  echo "install-deps: wasmtime into $TOOLS/venv"
  rm -rf "$TOOLS/venv" "$TOOLS/bin"
  mkdir -p "$TOOLS/bin"
  python3 -m venv "$TOOLS/venv"
  "$TOOLS/venv/bin/pip" install --quiet --disable-pip-version-check --no-deps --only-binary=:all: \
      --require-hashes -r scripts/wasmtime-requirements.txt
  # The binary itself, not the package's Python launcher; the wheel does not
  # keep its execute bit.
  cli=$("$TOOLS/venv/bin/python3" -c 'import wasmtime_cli; print(wasmtime_cli._binary_path())')
  chmod +x "$cli"
  ln -s "$cli" "$TOOLS/bin/wasmtime"
  "$TOOLS/bin/wasmtime" --version
  cp scripts/wasmtime-requirements.txt "$TOOLS/venv/requirements.txt"
fi
