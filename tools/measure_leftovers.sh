#!/usr/bin/env bash
# Migrates each REPO with banjia and counts, with tools/leftover_device_values.py (Python's ast, apart
# from banjia's front-end), the "cuda"/"nccl" values left in code: reported (a manual item of the
# migrate report on that line) or unreported. Prints a Markdown table; the target is 0 unreported.
#   bash tools/measure_leftovers.sh [-b BANJIA] REPO...
set -euo pipefail
B=build/src/banjia
if [ "${1:-}" = "-b" ]; then B=$2; shift 2; fi
[ $# -gt 0 ] || { echo "usage: $0 [-b BANJIA] REPO..." >&2; exit 2; }
PY=${PYTHON:-python3}
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
echo "| repository | commit | Python files | device/backend values before | rewritten | left, reported | left, unreported |"
echo "|---|---|---|---|---|---|---|"
for repo in "$@"; do
  name=$(basename "$repo")
  "$B" migrate "$repo" -o "$OUT/$name" --report "$OUT/$name.json" >/dev/null 2>&1 || true
  before=$("$PY" "$HERE/leftover_device_values.py" "$repo" "$repo" "$OUT/$name.json" | sed -n 's/.*: \([0-9]*\) device.*/\1/p')
  read -r left reported unreported < <("$PY" "$HERE/leftover_device_values.py" "$repo" "$OUT/$name" "$OUT/$name.json" |
    sed -n 's/.*: \([0-9]*\) device\/backend values left, \([0-9]*\) reported, \([0-9]*\) unreported/\1 \2 \3/p')
  commit=$(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo "-")
  files=$(find "$repo" -name '*.py' -not -path '*/.git/*' | wc -l)
  echo "| $name | $commit | $files | $before | $((before - left)) | $reported | $unreported |"
done
