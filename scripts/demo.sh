#!/usr/bin/env bash
# The main job on the embedded example: install, build, then migrate examples/cifar_ddp to
# build/cifar_ddp-npu, printing the diff of every edit and the summary (files changed, edits per rule,
# items left for manual work). The change log is written to build/cifar_ddp-npu.changes.json.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh >&2
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j "$(nproc)" >&2
rm -rf build/cifar_ddp-npu
./build/src/banjia migrate examples/cifar_ddp -o build/cifar_ddp-npu --diff \
  --report build/cifar_ddp-npu.changes.json 2>&1
