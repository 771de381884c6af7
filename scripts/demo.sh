#!/usr/bin/env bash
# The main job on the embedded examples. Installs what is missing and builds, then:
#  1. migrates examples/cifar_ddp to build/cifar_ddp-npu, printing the diff of every edit and the
#     summary (files changed, edits per rule, items left for manual work); the change log is written to
#     build/cifar_ddp-npu.changes.json;
#  2. migrates examples/npu_sim to build/npu_sim-npu and runs every migrated program on the simulated
#     NPU (python -m banjia.npu_sim), one summary line each;
#  3. migrates examples/llm_modern (a tiny GPT trainer as modern LLM code is written: torchrun, DDP,
#     torch.compile, bf16 autocast, a capability check) to build/llm_modern-npu, shows what is left for
#     a person and why, and trains it for 3 steps on two simulated NPUs (torchrun, 2 processes).
# Exits 1 when one of the migrated programs does not run.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh >&2
bash scripts/setup-venv.sh >&2
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j "$(nproc)" --target banjia >&2
B=$PWD/build/src/banjia

echo "== 1. migrate examples/cifar_ddp"
rm -rf build/cifar_ddp-npu build/npu_sim-npu build/llm_modern-npu build/llm_kernels-npu
"$B" migrate examples/cifar_ddp -o build/cifar_ddp-npu --diff --report build/cifar_ddp-npu.changes.json 2>&1

echo
echo "== 2. migrate examples/npu_sim, then run each migrated program on the simulated NPU"
"$B" migrate examples/npu_sim -o build/npu_sim-npu 2>&1 | sed -n '1p'
failed=0
for script in build/npu_sim-npu/*.py; do
  name=$(basename "$script")
  if log=$(cd build/npu_sim-npu && PYTHONPATH="$OLDPWD/python" "$OLDPWD/.venv/bin/python" -m banjia.npu_sim "$name" 2>&1 >/dev/null); then
    echo "  ok    $name: $(grep -m1 'aten ops on npu' <<<"$log" | sed 's/^banjia npu_sim: //')"
  else
    failed=1
    echo "  FAIL  $name: $(grep -m1 'banjia npu_sim:' <<<"$log" | sed 's/^banjia npu_sim: //')"
  fi
done

echo
echo "== 3. migrate examples/llm_modern, then train it on two simulated NPUs (torchrun --nproc-per-node 2)"
"$B" migrate examples/llm_modern -o build/llm_modern-npu 2>&1
if log=$(cd build/llm_modern-npu && PYTHONPATH="$OLDPWD/python" "$OLDPWD/.venv/bin/python" -m banjia.npu_sim \
    -m torch.distributed.run --standalone --nproc-per-node 2 train.py --steps 3 2>&1); then
  grep -E '^step |^peak |^banjia npu_sim:' <<<"$log" | sed 's/^/  /'
else
  failed=1
  echo "  FAIL  llm_modern:"
  grep -E '^banjia npu_sim:|Error' <<<"$log" | tail -5 | sed 's/^/    /'
fi
echo
echo "== 4. migrate examples/llm_kernels (flash-attn, xformers, apex: redirected to shims), then train it on the simulated NPU"
"$B" migrate examples/llm_kernels -o build/llm_kernels-npu 2>&1 | grep -E '^banjia migrate|^  shim modules|_npu\.py  \('
if log=$(cd build/llm_kernels-npu && PYTHONPATH="$OLDPWD/python" "$OLDPWD/.venv/bin/python" -m banjia.npu_sim train.py 2>&1); then
  grep -E '^step |^banjia npu_sim:' <<<"$log" | sed 's/^/  /'
else
  failed=1
  echo "  FAIL  llm_kernels:"
  grep -E '^banjia npu_sim:|Error' <<<"$log" | tail -5 | sed 's/^/    /'
fi
exit $failed
