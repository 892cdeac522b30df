#!/usr/bin/env bash
# Installs everything the build and the tests need: Debian packages (as
# root) and the pinned npm devDependencies from package-lock.json.
# Safe to run again; it only installs what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

APT_PACKAGES=(
  build-essential valgrind strace      # native build, memcheck, syscall leak proof
  unzip                                # make sqlite: the shell comes in an official zip
  libsodium-dev                        # differential test of ChaCha20 (tests only)
  clang-19 lld-19 libclang-rt-19-dev-wasm32 wasi-libc   # WASI build
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
