#!/usr/bin/env bash
# Side-by-side benchmark: `banjia trace summary` vs Python's json.load alone, on a ~1 GB Kineto trace
# synthesised from a real fixture (bench/trace_synth.py). Prints medians, throughput, ratio, peak
# RSS (/usr/bin/time -v "Maximum resident set size"), CPU time (user+sys) and parallel efficiency
# (CPU time / (wall x cores)), the load average before and after (the machine may be shared), a
# -j 1 run for the speed-up from threads, and one run's phase split (BANJIA_TRACE_TIMING=1).
#   bench/trace_bench.sh [SIZE_MB=1000] [RUNS=5] [PY_RUNS=3]
# On a machine shared with other work, PRIO="chrt -f 10" (root) runs every measured command, banjia
# and json.load alike, at real-time priority so that other processes do not take its cores.
set -euo pipefail
cd "$(dirname "$0")/.."
SIZE_MB=${1:-1000}
RUNS=${2:-5}
PY_RUNS=${3:-3}
BIN=${BANJIA_BIN:-build/src/banjia}
PRIO=${PRIO:-}
SRC=../shared/fixtures/gpu-h200/traces/resnet50_fp32.json.gz
TRACE=${TRACE:-/tmp/banjia_trace_bench_${SIZE_MB}mb.json}
[ -f "$TRACE" ] || /usr/bin/python3 bench/trace_synth.py "$SRC" "$TRACE" "$SIZE_MB"
BYTES=$(stat -c %s "$TRACE")
cat "$TRACE" > /dev/null  # page cache warm for both tools

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
echo "phase split of one run (wall; CPU of the whole process during the phase):"
# shellcheck disable=SC2086
BANJIA_TRACE_TIMING=1 $PRIO "$BIN" trace summary "$TRACE" --format json -o /dev/null 2>&1 | sed 's/^banjia trace timing: /  /' 
p_times=(); p_rss=0
for _ in $(seq "$PY_RUNS"); do
  read -r t r c < <(measure /usr/bin/python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$TRACE")
  p_times+=("$t"); [ "$r" -gt "$p_rss" ] && p_rss=$r
done
j1_med=$(printf '%s\n' "${j1_times[@]}" | median)
j1_cpu_med=$(printf '%s\n' "${j1_cpu[@]}" | median)
b_med=$(printf '%s\n' "${b_times[@]}" | median)
b_cpu_med=$(printf '%s\n' "${b_cpu[@]}" | median)
p_med=$(printf '%s\n' "${p_times[@]}" | median)
awk -v j1="$j1_med" -v j1c="$j1_cpu_med" -v j1t="${j1_times[*]}" -v bct="${b_cpu[*]}" -v lb="$load_before" -v prio="${PRIO:-inherited: $(chrt -p $$ | sed -n "1s/.*: //p")}" \
    -v bytes="$BYTES" -v bc="$b_cpu_med" -v b="$b_med" -v p="$p_med" -v br="$b_rss" -v pr="$p_rss" -v bt="${b_times[*]}" \
    -v pt="${p_times[*]}" -v cores="$(nproc)" -v load="$(cut -d' ' -f1-3 /proc/loadavg)" 'BEGIN {
  printf "file: %.1f MB, %s cores, load average before %s, after %s; priority: %s\n", bytes/1e6, cores, lb, load, prio
  printf "| tool | runs (s) | median (s) | throughput | peak RSS | RSS / file |\n|---|---|---|---|---|---|\n"
  printf "| banjia trace summary | %s | %.2f | %.2f GB/s | %.0f MB | %.2fx |\n", bt, b, bytes/b/1e9, br/1024, br*1024/bytes
  if (p > 0) {  # PY_RUNS=0 skips json.load
    printf "| python3 json.load | %s | %.2f | %.2f GB/s | %.0f MB | %.2fx |\n", pt, p, bytes/p/1e9, pr/1024, pr*1024/bytes
    printf "speed-up over json.load: %.1fx\n", p/b
  }
  printf "banjia CPU time (user+sys) per run: %s; median %.2f s = %.2f GB/s per CPU-second; parallel efficiency %.0f%% (CPU / (wall x %s cores)); on %s idle cores at this CPU cost: %.2f GB/s\n", bct, bc, bytes/bc/1e9, 100*bc/(b*cores), cores, cores, cores*bytes/bc/1e9
  printf "banjia -j 1: runs %s, median %.2f s (%.2f GB/s), CPU %.2f s; threads speed-up %.2fx\n", j1t, j1, bytes/j1/1e9, j1c, j1/b
}'
