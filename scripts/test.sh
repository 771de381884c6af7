#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test (CI runs this: .ci/run):
#   the C++ suite (GoogleTest via ctest; it also checks that no shared code is compiled beyond
#   baseline x86-64); the CLI smoke on an emulated CPU without AVX (qemu -cpu Nehalem); the types
#   (mypy --strict, settings in pyproject.toml); the CLI end-to-end, Python runtime, simulated-NPU and
#   knowledge-base (data/) tests (pytest in .venv, two workers); the portable x86_64 and aarch64 wheels
#   (scripts/portable-wheels.sh: auditwheel, the smoke under qemu-aarch64, on a CPU without AVX and in
#   a Debian 11 chroot; docs/building.md), the x86_64 one installed into a fresh venv
#   (scripts/wheel-test.sh); then one
#   clang build with ASan + UBSan and libFuzzer instrumentation: the C++ suite and the CLI tests of bad
#   and concurrent input under the sanitizers, and a fuzz smoke run of every harness (docs/fuzzing.md).
# Each step prints the seconds spent so far; docs/building.md lists what each step takes.
set -euo pipefail
cd "$(dirname "$0")/.."
JOBS=${JOBS:-$(nproc)}

bash scripts/install-deps.sh
bash scripts/setup-venv.sh
PY=$PWD/.venv/bin/python
export PYTHONPATH="$PWD/python${PYTHONPATH:+:$PYTHONPATH}"
version=$(sed -n 's/^__version__ = "\(.*\)"$/\1/p' python/banjia/__init__.py)

# Line tables only (-g1): file:line in backtraces and sanitizer reports, a third less compile time than
# full debug information; unity batches (BANJIA_UNITY_BUILD, as the wheels are built): less than half
# the compile time of a full build. CI's 30 minutes need both.
LINES_ONLY=(-DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG"
            "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG" -DBANJIA_UNITY_BUILD=ON)
echo "== build (RelWithDebInfo, -g1, unity) [${SECONDS} s so far]"
cmake -S . -B build -G Ninja "${LINES_ONLY[@]}" >/dev/null
cmake --build build -j "$JOBS"

echo "== C++ tests [${SECONDS} s so far]"
ctest --test-dir build --output-on-failure -j "$JOBS"

if [ "$(uname -m)" = x86_64 ]; then
  echo "== CLI smoke on a CPU without AVX (qemu-x86_64 -cpu Nehalem) [${SECONDS} s so far]"
  bash scripts/portable-smoke.sh inputs build/smoke-baseline-cpu
  bash scripts/portable-smoke.sh run build/smoke-baseline-cpu "$version" qemu-x86_64-static -cpu Nehalem "$PWD/build/src/banjia"
fi

echo "== types (mypy --strict) [${SECONDS} s so far]"
"$PY" -m mypy

# Two workers (pytest-xdist), each test file on one worker: most tests wait on one banjia process.
echo "== CLI end-to-end, Python runtime, simulated-NPU and knowledge-base tests [${SECONDS} s so far]"
BANJIA_BIN="$PWD/build/src/banjia" "$PY" -m pytest -q -n "$JOBS" --dist loadfile tests/e2e tests/runtime tests/data

# Both wheels, each a full build of banjia with the Zig toolchain, with every check of
# docs/building.md: auditwheel, the glibc floor, the smoke under qemu-aarch64, on a CPU without AVX and
# in a Debian 11 chroot.
echo "== portable wheels, x86_64 and aarch64 (manylinux, Zig toolchain; scripts/portable-wheels.sh) [${SECONDS} s so far]"
JOBS=$JOBS bash scripts/portable-wheels.sh --arch x86_64,aarch64

# What a user gets from `pip install` of the x86_64 wheel just built (its Python package and binary).
echo "== wheel installed into a fresh venv (scripts/wheel-test.sh) [${SECONDS} s so far]"
wheels=(build-portable/wheelhouse/banjia-"$version"-py3-none-manylinux*_x86_64.whl)
WHEEL=${wheels[0]} bash scripts/wheel-test.sh

echo "== build with ASan + UBSan and libFuzzer instrumentation (clang) [${SECONDS} s so far]"
CLANG=$(bash scripts/install-deps.sh --print-clang)
CC=clang-$CLANG CXX=clang++-$CLANG cmake -S . -B build-asan -G Ninja "${LINES_ONLY[@]}" \
  -DBANJIA_SANITIZE=ON -DBANJIA_FUZZ=ON >/dev/null
cmake --build build-asan -j "$JOBS"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

echo "== C++ tests under sanitizers [${SECONDS} s so far]"
ctest --test-dir build-asan --output-on-failure -j "$JOBS"

# Under the sanitizers, the CLI tests that feed banjia hostile, truncated, concurrent or new-format input
# (the whole suite ran above against the developer build; all of it under ASan does not fit CI's time).
echo "== CLI end-to-end tests of bad and concurrent input under sanitizers [${SECONDS} s so far]"
BANJIA_BIN="$PWD/build-asan/src/banjia" "$PY" -m pytest -q -n "$JOBS" --dist loadfile \
  tests/e2e/test_malformed_inputs.py tests/e2e/test_data_safety_exit_codes.py tests/e2e/test_data_safety_in_place.py \
  tests/e2e/test_data_safety_minor.py tests/e2e/test_data_safety_paths.py tests/e2e/test_migrate_safety.py \
  tests/e2e/test_trace_errors.py tests/e2e/test_compare_inputs.py tests/e2e/test_compare_msprobe_pt.py \
  tests/e2e/test_config_files.py tests/e2e/test_migrate_distributed.py tests/e2e/test_migrate_shims.py

echo "== fuzz smoke (libFuzzer: each harness for 10 s on its corpus; see docs/fuzzing.md) [${SECONDS} s so far]"
FUZZ_BUILD_DIR=build-asan bash scripts/fuzz.sh 10
echo "== all tests passed in ${SECONDS} s"
