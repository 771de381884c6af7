#!/usr/bin/env bash
# Installs dependencies, builds, and runs every test: the C++ suite (GoogleTest via ctest), the
# end-to-end CLI and Python runtime tests (pytest with Debian's /usr/bin/python3 and python3-torch),
# then the C++ suite and the CLI tests again under AddressSanitizer + UndefinedBehaviorSanitizer.
set -euo pipefail
cd "$(dirname "$0")/.."
JOBS=${JOBS:-$(nproc)}

bash scripts/install-deps.sh

echo "== build (RelWithDebInfo)"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j "$JOBS"

echo "== C++ tests"
ctest --test-dir build --output-on-failure -j "$JOBS"

echo "== CLI end-to-end and Python runtime tests"
export PYTHONPATH="$PWD/python${PYTHONPATH:+:$PYTHONPATH}"
BANJIA_BIN="$PWD/build/src/banjia" /usr/bin/python3 -m pytest -q -p no:cacheprovider tests/e2e tests/runtime

echo "== fuzz smoke (libFuzzer, clang-14: each harness for 20 s on its corpus; see FUZZING.md)"
bash scripts/fuzz.sh 20

echo "== build with ASan + UBSan"
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DBANJIA_SANITIZE=ON >/dev/null
cmake --build build-asan -j "$JOBS"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

echo "== C++ tests under sanitizers"
ctest --test-dir build-asan --output-on-failure -j "$JOBS"

echo "== CLI end-to-end tests under sanitizers"
BANJIA_BIN="$PWD/build-asan/src/banjia" /usr/bin/python3 -m pytest -q -p no:cacheprovider tests/e2e
