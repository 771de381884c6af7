#!/usr/bin/env bash
# Installs everything banjia needs to build and test, from Debian 12 packages only.
# Idempotent: packages already present are skipped; safe to run any number of times.
set -euo pipefail

PACKAGES=(
  # toolchain
  g++ cmake ninja-build pkg-config git
  # C++ libraries (see README "Dependencies")
  libsimdjson-dev libcli11-dev libfmt-dev libtomlplusplus-dev
  libsqlite3-dev zlib1g-dev libzip-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  # fuzzing (libFuzzer) and sanitizer runtimes
  clang-14 libclang-rt-14-dev
  # Python runtime tests and real-world corpora (torch package, numpy)
  python3 python3-torch python3-numpy python3-pytest
  # HTML report rendering tests
  chromium
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#PACKAGES[@]} packages present"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "install-deps: done"
