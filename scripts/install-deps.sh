#!/usr/bin/env bash
# Installs the Debian packages banjia needs to build and test, on Debian 12 (bookworm) or 13 (trixie).
# Idempotent: packages already present are skipped; safe to run any number of times. The Python side
# (torch, numpy, pytest, mypy) lives in .venv, made by scripts/setup-venv.sh, not in Debian packages.
# Prints the clang major version it chose for the fuzzers when asked: install-deps.sh --print-clang
set -euo pipefail

# Debian release -> the clang whose libFuzzer and sanitizer runtimes (libclang-rt-N-dev) it ships.
debian_major() {
  local v
  v=$(cat /etc/debian_version 2>/dev/null || true)
  case "$v" in
    12.* | bookworm*) echo 12 ;;
    13.* | trixie*) echo 13 ;;
    *) echo "install-deps: /etc/debian_version is '${v:-missing}'; Debian 12 or 13 is needed" >&2; return 2 ;;
  esac
}
DEBIAN=$(debian_major)
case "$DEBIAN" in
  12) CLANG=14 ;;
  13) CLANG=19 ;;
esac
if [ "${1:-}" = "--print-clang" ]; then
  echo "$CLANG"
  exit 0
fi

PACKAGES=(
  # toolchain
  g++ cmake ninja-build pkg-config git
  # C++ libraries (see README "Dependencies")
  libsimdjson-dev libcli11-dev libfmt-dev libtomlplusplus-dev libyaml-dev
  libsqlite3-dev zlib1g-dev libzip-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  # the work-counting tests (tests/e2e/test_cost_is_linear.py count instructions with callgrind)
  valgrind
  # fuzzing (libFuzzer) and sanitizer runtimes
  "clang-$CLANG" "libclang-rt-$CLANG-dev"
  # a Python 3 for CMake's version test; the test suites' Python is .venv (scripts/setup-venv.sh)
  python3
  # HTML report rendering tests; a CJK font so Chinese text in reports renders (Debian 12 and 13)
  chromium fonts-wqy-microhei
  # the portable wheels (scripts/portable-wheels.sh, docs/building.md): Debian's sources of the C/C++
  # libraries (dpkg-dev unpacks what apt-get source fetches; tclsh generates SQLite's amalgamation),
  # qemu-user to run the aarch64 binary and a CPU without AVX, debootstrap for another userland
  dpkg-dev tcl qemu-user-static debootstrap
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#PACKAGES[@]} packages present (Debian $DEBIAN)"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "install-deps: installing on Debian $DEBIAN: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "install-deps: done"
