#!/usr/bin/env bash
# Builds the libFuzzer harnesses (fuzz/, the clang install-deps.sh picks + ASan/UBSan) and runs each for SECONDS (default 30)
# on its seed corpus, one per CPU at a time (FUZZ_CPUS=0,1 picks the CPUs). Prints executions and
# crashes per harness; exits 1 when any harness crashed (the input is saved under
# build-fuzz/artifacts/<harness>/), 2 when the build fails.
# Usage: scripts/fuzz.sh [SECONDS] [HARNESS...]     (FUZZ_BUILD_DIR, FUZZ_JOBS override defaults)
set -uo pipefail
cd "$(dirname "$0")/.."
SECONDS_PER=${1:-30}
shift || true
BUILD=${FUZZ_BUILD_DIR:-build-fuzz}
FIXTURES=tests/fixtures

# harness -> max input length (bytes): large enough for a real file's interesting structure,
# small enough to keep executions per second high.
declare -A MAX_LEN=([python_tokenizer]=8192 [rewrite]=4096 [env_parse]=4096 [csv]=8192 [bench_run]=4096 [scan_deps]=4096
  [trace_json]=16384 [ascend_csv]=8192 [ascend_db]=16384 [summary_report]=16384 [npy]=16384 [msprobe_dump]=8192
  [torch_pt]=8192)
# Seeds used in place (read-only; libFuzzer reads directories recursively): the test data under
# tests/fixtures and a few source directories, referenced by path, not copied into fuzz/corpus.
declare -A EXTRA=(
  [csv]="$FIXTURES/ascend/msinsight/text/level0/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT"
  [bench_run]="$FIXTURES/gpu-h200/bench"
  [python_tokenizer]="examples/cifar_ddp"
  [rewrite]="examples/cifar_ddp fuzz/corpus/python_tokenizer"
  [env_parse]="tests/e2e/env_cases examples/cifar_ddp/scripts"
  [scan_deps]="examples/cifar_ddp"
  [trace_json]="$FIXTURES/gpu-h200/traces $FIXTURES/kineto/hta $FIXTURES/ascend/msinsight/fuzz $FIXTURES/ascend/mstt-advisor/timeline_advice"
  [ascend_csv]="$FIXTURES/ascend/msinsight/text/level1/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT $FIXTURES/ascend/msinsight/test_data/test_rank_0/ASCEND_PROFILER_OUTPUT $FIXTURES/ascend/mstt-advisor/compute_advice/data"
  [npy]="$FIXTURES/msprobe/api_checker"
  [msprobe_dump]="$FIXTURES/msprobe $FIXTURES/gpu-h200/dumps/tinygpt_cpu_fp32"
  [torch_pt]="$FIXTURES/msprobe/pt_l1/fp32"
)
HARNESSES=("$@")
[ ${#HARNESSES[@]} -eq 0 ] && HARNESSES=(python_tokenizer rewrite env_parse csv bench_run scan_deps trace_json ascend_csv ascend_db
  summary_report npy msprobe_dump torch_pt)

if [ ! -f "$BUILD/build.ninja" ]; then
  CLANG=$(bash scripts/install-deps.sh --print-clang)
  CC=clang-$CLANG CXX=clang++-$CLANG cmake -S . -B "$BUILD" -G Ninja -DBANJIA_FUZZ=ON -DBANJIA_TESTS=OFF \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null || exit 2
fi
ninja -C "$BUILD" -j "${FUZZ_JOBS:-$(nproc)}" "${HARNESSES[@]/#/fuzz_}" >/dev/null || { echo "fuzz build failed" >&2; exit 2; }

# One harness per CPU at a time, each pinned to its CPU: the trace readers start threads, and on a
# virtual machine every munmap in a process whose threads ran on two CPUs interrupts the other CPU
# for a TLB shootdown; pinned, fuzz_trace_json runs about twice as many inputs per second (docs/fuzzing.md).
# Without taskset the harnesses run one after another, unpinned.
SLOTS=(any)
if command -v taskset >/dev/null; then
  read -ra SLOTS <<<"$(python3 -c 'import os; print(*sorted(os.sched_getaffinity(0)))' 2>/dev/null || echo any)"
  [ -n "${FUZZ_CPUS:-}" ] && read -ra SLOTS <<<"${FUZZ_CPUS//,/ }"
fi
declare -A PID_ON=() HARNESS_OF=() RC=()  # slot -> pid, pid -> harness, harness -> exit status
trap 'kill -INT "${!HARNESS_OF[@]}" 2>/dev/null; wait; exit 130' INT TERM

start_harness() {  # harness slot
  local h=$1 slot=$2 pin=() d
  local work="$BUILD/corpus/$h" art="$BUILD/artifacts/$h/" seeds=("fuzz/corpus/$h")
  mkdir -p "$work" "$art"
  for d in ${EXTRA[$h]:-}; do [ -d "$d" ] && seeds+=("$d"); done
  [ "$slot" != any ] && pin=(taskset -c "$slot")
  "${pin[@]}" "$BUILD/fuzz/fuzz_$h" -max_total_time="$SECONDS_PER" -max_len="${MAX_LEN[$h]}" -timeout=10 \
    -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$art" "$work" "${seeds[@]}" >"$BUILD/fuzz-$h.log" 2>&1 &
  PID_ON[$slot]=$!
  HARNESS_OF[$!]=$h
}

reap_one() {  # waits for any running harness, records its status and frees its slot
  local pid rc slot
  wait -n -p pid "${!HARNESS_OF[@]}"
  rc=$?
  RC[${HARNESS_OF[$pid]}]=$rc
  unset "HARNESS_OF[$pid]"
  for slot in "${!PID_ON[@]}"; do [ "${PID_ON[$slot]}" = "$pid" ] && unset "PID_ON[$slot]"; done
}

for h in "${HARNESSES[@]}"; do
  [ ${#PID_ON[@]} -ge ${#SLOTS[@]} ] && reap_one
  for slot in "${SLOTS[@]}"; do [ -z "${PID_ON[$slot]:-}" ] && break; done
  start_harness "$h" "$slot"
done
while [ ${#HARNESS_OF[@]} -gt 0 ]; do reap_one; done

failed=0
printf '%-18s %12s %10s %8s\n' harness executions exec/s crashes
for h in "${HARNESSES[@]}"; do
  log="$BUILD/fuzz-$h.log"
  rc=${RC[$h]:-1}
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  crashes=0
  if [ "$rc" -ne 0 ]; then
    crashes=1 failed=1
    echo "--- $h failed (rc $rc); log: $log" >&2
    grep -E 'ERROR|SUMMARY|violated|Test unit written' "$log" | head -5 >&2
    # The input itself, so that a run whose machine is gone (CI) can be replayed from its log alone.
    unit=$(sed -n 's/.*Test unit written to \([^ ]*\).*/\1/p' "$log" | head -1)
    if [ -n "$unit" ] && [ -f "$unit" ] && [ "$(stat -c %s "$unit")" -le 16384 ]; then
      echo "input (base64; replay: base64 -d > crash <<< '...' && $BUILD/fuzz/fuzz_$h crash):" >&2
      base64 -w0 "$unit" >&2
      echo >&2
    fi
  fi
  printf '%-18s %12s %10s %8s\n' "$h" "${execs:-?}" "${rate:-?}" "$crashes"
done
exit $failed
