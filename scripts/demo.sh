#!/usr/bin/env bash
# The main job on the embedded example: install, build, then show what in examples/ is CUDA-specific.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh >&2
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j "$(nproc)" >&2
./build/src/banjia scan examples/ --fail-on none
