#!/bin/bash
# The CLI smoke test of a portable banjia binary, run where that binary is to be proven: under
# qemu-user for aarch64, inside another distribution's userland (a chroot) for x86_64. It needs only
# bash, grep and coreutils, so it runs unchanged in a minimal chroot.
#   portable-smoke.sh inputs DIR          copy the inputs (an example project, trace, profiler
#                                         database and tensor dumps from the source tree) into DIR
#   portable-smoke.sh run DIR VERSION BANJIA [ARG...]
#                                         run `BANJIA [ARG...] <verb>` in DIR (which holds inputs/)
#                                         and check what each verb prints and exits with
# Exits 1 on the first failed check. Called by scripts/portable-wheels.sh.
set -euo pipefail

fail() { echo "portable-smoke: FAIL: $*" >&2; exit 1; }

inputs() {
  local dir=$1 src
  src="$(cd "$(dirname "$0")/.." && pwd)"
  local fx="$src/tests/fixtures"
  rm -rf "$dir/inputs" && mkdir -p "$dir/inputs/dumps"
  cp -a "$src/examples/cifar_ddp" "$dir/inputs/cifar_ddp"
  # A Kineto trace (gzip: zlib), an Ascend profiler database (SQLite), two tensor dumps whose .npz
  # archives hold deflated members (libzip).
  cp "$fx/gpu-h200/traces/antipattern_small_matmuls_fixed.json.gz" "$dir/inputs/trace.json.gz"
  cp -a "$fx/ascend/msinsight/db/level1/rank0_ascend_pt" "$dir/inputs/ascend_db"
  cp -a "$fx/gpu-h200/dumps/tinygpt_cuda_fp32_bug_ln_eps" "$dir/inputs/dumps/bug_ln_eps"
  cp -a "$fx/gpu-h200/dumps/tinygpt_cuda_fp32" "$dir/inputs/dumps/reference"
}

# run_verb NAME WANT_RC ARG...: runs banjia ARG... with its output in out/NAME.log; it must exit WANT_RC.
run_verb() {
  local name=$1 want_rc=$2; shift 2
  local rc=0
  "${BANJIA[@]}" "$@" >"out/$name.log" 2>&1 || rc=$?
  if [ "$rc" -ne "$want_rc" ]; then
    tail -20 "out/$name.log" >&2
    fail "$name: banjia $* exited $rc, expected $want_rc"
  fi
}
# expect NAME PATTERN...: out/NAME.log holds every fixed string PATTERN.
expect() {
  local name=$1; shift
  local p
  for p in "$@"; do
    grep -qF -- "$p" "out/$name.log" || { tail -20 "out/$name.log" >&2; fail "$name: output lacks '$p'"; }
  done
  echo "portable-smoke: ok   $name"
}

run() {
  local dir=$1 version=$2; shift 2
  BANJIA=("$@")
  cd "$dir"
  [ -d inputs ] || fail "$dir has no inputs/ (portable-smoke.sh inputs $dir)"
  rm -rf out && mkdir out

  run_verb version 0 --version
  [ "$(cat out/version.log)" = "$version" ] || fail "--version printed '$(cat out/version.log)', expected $version"
  echo "portable-smoke: ok   version ($version)"

  # scan exits 1 when it reports findings at warning level or above.
  run_verb scan 1 scan inputs/cifar_ddp
  expect scan "[torch-cuda-api]" "train.py"

  run_verb migrate 0 migrate inputs/cifar_ddp -o out/cifar_ddp-npu
  local line
  line=$(grep -F 'Net().cuda()' inputs/cifar_ddp/train.py) || fail "inputs/cifar_ddp/train.py has no Net().cuda()"
  grep -qxF -- "${line/.cuda(/.npu(}" out/cifar_ddp-npu/train.py || fail "migrate: train.py lacks ${line/.cuda(/.npu(}"
  grep -qF 'import torch_npu' out/cifar_ddp-npu/train.py || fail "migrate: train.py does not import torch_npu"
  echo "portable-smoke: ok   migrate (Net().cuda() -> Net().npu())"

  run_verb env-template 0 env template --scenario distributed --cards 8
  cp out/env-template.log out/env_npu.sh
  run_verb env-check 0 env check out/env_npu.sh
  expect env-check "0 error(s), 0 warning(s)"

  run_verb trace-kineto 0 trace summary inputs/trace.json.gz
  expect trace-kineto "(kineto, 8 events)" "aten::bmm"
  run_verb trace-ascend-db 0 trace summary inputs/ascend_db
  expect trace-ascend-db "(torch_npu, 3768 events)" "ProfilerStep#50"

  # compare exits 1 when an entry fails: the layer-norm epsilon bug is found where it first shows.
  run_verb compare 1 compare inputs/dumps/bug_ln_eps inputs/dumps/reference
  expect compare "compared 38: 37 pass, 0 warn, 1 fail" "first divergence: 0012.blocks.1.ln2.forward.output"
  echo "portable-smoke: all checks passed"
}

case "${1:-}" in
  inputs) [ $# -eq 2 ] || fail "usage: portable-smoke.sh inputs DIR"; inputs "$2" ;;
  run) [ $# -ge 4 ] || fail "usage: portable-smoke.sh run DIR VERSION BANJIA [ARG...]"; shift; run "$@" ;;
  *) fail "usage: portable-smoke.sh inputs DIR | run DIR VERSION BANJIA [ARG...]" ;;
esac
