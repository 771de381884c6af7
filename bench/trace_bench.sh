#!/usr/bin/env bash
# `banjia trace summary` alone on a ~1 GB Kineto trace synthesised from a real fixture
# (bench/trace_synth.py): medians, throughput, peak RSS (/usr/bin/time -v "Maximum resident set
# size"), CPU time (user+sys) and parallel efficiency (CPU time / (wall x cores)), the load average
# before and after (the machine may be shared), a -j 1 series for the speed-up from threads, and one
# run's phase split (BANJIA_TRACE_TIMING=1). The side-by-side with HolisticTraceAnalysis on the same
# file is bench/trace_peers.py.
#   PYTHON=.venv/bin/python bench/trace_bench.sh [SIZE_MB=1000] [RUNS=5]
# PRIO="chrt -f 10" (root) runs every measured command at real-time priority.
set -euo pipefail
cd "$(dirname "$0")/.."
SIZE_MB=${1:-1000}
RUNS=${2:-5}
BIN=${BANJIA_BIN:-build/src/banjia}
PRIO=${PRIO:-}
PYTHON=${PYTHON:-python3}
SRC=tests/fixtures/gpu-h200/traces/resnet50_fp32.json.gz
TRACE=${TRACE:-/tmp/banjia_trace_bench_${SIZE_MB}mb.json}
[ -f "$TRACE" ] || "$PYTHON" bench/trace_synth.py "$SRC" "$TRACE" "$SIZE_MB" >/dev/null
BYTES=$(stat -c %s "$TRACE")
cat "$TRACE" > /dev/null  # page cache warm

measure() {  # prints "seconds max_rss_kb cpu_seconds" for one run of "$@"
  local log
  log=$(mktemp)
  # shellcheck disable=SC2086
  /usr/bin/time -v $PRIO "$@" > /dev/null 2> "$log"
  local wall rss
  wall=$(grep "Elapsed (wall clock)" "$log" | awk '{print $NF}' | awk -F: '{ if (NF==3) print $1*3600+$2*60+$3; else print $1*60+$2 }')
  rss=$(grep "Maximum resident set size" "$log" | awk '{print $NF}')
  cpu=$(grep -E "(User|System) time" "$log" | awk '{s += $NF} END {print s}')
  rm -f "$log"
  echo "$wall $rss $cpu"
}

median() { sort -n | awk '{a[NR]=$1} END { if (NR%2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2 }'; }

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
b_times=(); b_cpu=(); b_rss=0
for _ in $(seq "$RUNS"); do
  read -r t r c < <(measure "$BIN" trace summary "$TRACE" --format json -o /dev/null)
  b_times+=("$t"); b_cpu+=("$c"); [ "$r" -gt "$b_rss" ] && b_rss=$r
done
j1_times=(); j1_cpu=()
for _ in $(seq "$RUNS"); do
  read -r t r c < <(measure "$BIN" trace summary "$TRACE" --format json -o /dev/null -j 1)
  j1_times+=("$t"); j1_cpu+=("$c")
done
echo "Phase split of one run (wall; CPU of the whole process during the phase):"
echo
echo '```'
# shellcheck disable=SC2086
BANJIA_TRACE_TIMING=1 $PRIO "$BIN" trace summary "$TRACE" --format json -o /dev/null 2>&1 | sed 's/^banjia trace timing: /  /'
echo '```'
echo
j1_med=$(printf '%s\n' "${j1_times[@]}" | median)
j1_cpu_med=$(printf '%s\n' "${j1_cpu[@]}" | median)
b_med=$(printf '%s\n' "${b_times[@]}" | median)
b_cpu_med=$(printf '%s\n' "${b_cpu[@]}" | median)
awk -v j1="$j1_med" -v j1c="$j1_cpu_med" -v j1t="${j1_times[*]}" -v bct="${b_cpu[*]}" -v lb="$load_before" -v prio="${PRIO:-inherited: $(chrt -p $$ | sed -n "1s/.*: //p")}" \
    -v bytes="$BYTES" -v bc="$b_cpu_med" -v b="$b_med" -v br="$b_rss" -v bt="${b_times[*]}" \
    -v cores="$(nproc)" -v load="$(cut -d' ' -f1-3 /proc/loadavg)" 'BEGIN {
  printf "File: %.1f MB, %s cores, load average before %s, after %s; priority: %s\n\n", bytes/1e6, cores, lb, load, prio
  printf "| tool | runs (s) | median (s) | throughput | peak RSS | RSS / file |\n|---|---|---|---|---|---|\n"
  printf "| banjia trace summary | %s | %.2f | %.2f GB/s | %.0f MB | %.2fx |\n", bt, b, bytes/b/1e9, br/1024, br*1024/bytes
  printf "\nbanjia CPU time (user+sys) per run: %s; median %.2f s = %.2f GB/s per CPU-second; parallel efficiency %.0f%% (CPU / (wall x %s cores)); on %s idle cores at this CPU cost: %.2f GB/s\n", bct, bc, bytes/bc/1e9, 100*bc/(b*cores), cores, cores, cores*bytes/bc/1e9
  printf "\nbanjia -j 1: runs %s, median %.2f s (%.2f GB/s), CPU %.2f s; threads speed-up %.2fx\n", j1t, j1, bytes/j1/1e9, j1c, j1/b
}'
