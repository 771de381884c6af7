#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test (CI runs this: .ci/run):
#   the C++ suite (GoogleTest via ctest); the types (mypy --strict, settings in pyproject.toml); the CLI
#   end-to-end, Python runtime, simulated-NPU and knowledge-base (data/) tests (pytest in .venv); the wheel, installed into a
#   fresh venv; the portable x86_64 wheel (scripts/portable-wheels.sh --ci, docs/building.md; from
#   nothing in CI's fresh clone, build-portable/ keeps its work for the next local run); then one clang build with ASan + UBSan and libFuzzer instrumentation: the C++ suite and
#   the CLI tests under the sanitizers, and a fuzz smoke run of every harness (docs/fuzzing.md).
set -euo pipefail
cd "$(dirname "$0")/.."
JOBS=${JOBS:-$(nproc)}

bash scripts/install-deps.sh
bash scripts/setup-venv.sh
PY=$PWD/.venv/bin/python
export PYTHONPATH="$PWD/python${PYTHONPATH:+:$PYTHONPATH}"

echo "== build (RelWithDebInfo) [${SECONDS} s so far]"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j "$JOBS"

echo "== C++ tests [${SECONDS} s so far]"
ctest --test-dir build --output-on-failure -j "$JOBS"

echo "== types (mypy --strict) [${SECONDS} s so far]"
"$PY" -m mypy

echo "== CLI end-to-end, Python runtime, simulated-NPU and knowledge-base tests [${SECONDS} s so far]"
BANJIA_BIN="$PWD/build/src/banjia" "$PY" -m pytest -q tests/e2e tests/runtime tests/data

echo "== wheel (pip wheel ., installed into a fresh venv) [${SECONDS} s so far]"
bash scripts/wheel-test.sh

# The bounded part of scripts/portable-wheels.sh that fits CI's time: the x86_64 wheel (static
# libraries and binary by Zig for glibc 2.28), auditwheel, pip install, and the CLI smoke on a CPU
# without AVX and with Debian 11's C library. The aarch64 wheel and the chroot: the full script.
echo "== portable x86_64 wheel (manylinux, Zig toolchain; scripts/portable-wheels.sh --ci) [${SECONDS} s so far]"
JOBS=$JOBS bash scripts/portable-wheels.sh --ci

echo "== build with ASan + UBSan and libFuzzer instrumentation (clang) [${SECONDS} s so far]"
CLANG=$(bash scripts/install-deps.sh --print-clang)
CC=clang-$CLANG CXX=clang++-$CLANG cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DBANJIA_SANITIZE=ON -DBANJIA_FUZZ=ON >/dev/null
cmake --build build-asan -j "$JOBS"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

echo "== C++ tests under sanitizers [${SECONDS} s so far]"
ctest --test-dir build-asan --output-on-failure -j "$JOBS"

echo "== CLI end-to-end tests under sanitizers [${SECONDS} s so far]"
# The simulated-NPU runs exercise Python, not the binary: they ran above.
BANJIA_BIN="$PWD/build-asan/src/banjia" "$PY" -m pytest -q tests/e2e --ignore=tests/e2e/test_migrated_examples_run.py

echo "== fuzz smoke (libFuzzer: each harness for 20 s on its corpus; see docs/fuzzing.md) [${SECONDS} s so far]"
FUZZ_BUILD_DIR=build-asan bash scripts/fuzz.sh 20
echo "== all tests passed in ${SECONDS} s"
