#!/usr/bin/env bash
# Python front-end throughput, side by side with CPython over the same files in one run:
#   banjia (decode + tokenize + bracket/statement view + imports + dotted-name resolution)
#   vs CPython's `tokenize.tokenize` and `ast.parse` (both single-threaded, like one banjia core): the
#   reference implementation of the language, not a peer tool.
# CPU time (best of N rounds) is reported, not wall time: shared build machines make wall time noisy.
# Usage: PYTHON=.venv/bin/python bench/tokenizer_bench.sh DIR [ROUNDS]     (default 3 rounds)
set -euo pipefail
cd "$(dirname "$0")/.."
DIR=${1:?usage: bench/tokenizer_bench.sh DIR [ROUNDS]}
PYTHON=${PYTHON:-python3}
ROUNDS=${2:-3}
TOKDUMP=${BANJIA_TOKDUMP:-build/tests/tools/banjia_tokdump}
[ -x "$TOKDUMP" ] || { echo "build first: ninja -C build banjia_tokdump" >&2; exit 2; }
LIST=$(mktemp)
trap 'rm -f "$LIST"' EXIT
find "$DIR" -name '*.py' -type f | sort > "$LIST"

BANJIA_JSON=$("$TOKDUMP" --stats --rounds "$ROUNDS" --mode py312 --files-from "$LIST")
"$PYTHON" - "$LIST" "$ROUNDS" "$BANJIA_JSON" <<'PY'
import ast, io, json, sys, time, tokenize
files = [l.rstrip("\n") for l in open(sys.argv[1])]
rounds = int(sys.argv[2])
banjia = json.loads(sys.argv[3])
data = [open(f, "rb").read() for f in files]
mb = sum(map(len, data)) / 1e6

def best(fn):
    times = []
    for _ in range(rounds):
        t0 = time.process_time()
        for d in data:
            try:
                fn(d)
            except (SyntaxError, ValueError, tokenize.TokenError):
                pass
        times.append(time.process_time() - t0)
    return min(times)

t_tok = best(lambda d: sum(1 for _ in tokenize.tokenize(io.BytesIO(d).readline)))
t_ast = best(lambda d: ast.parse(d))
cpu = banjia["cpu_s"]
print(f"files: {len(files)}  size: {mb:.1f} MB  rounds: {rounds} (best CPU time)")
print(f"banjia tokenize only          : {cpu['tokenize']:.3f} s  {mb / cpu['tokenize']:7.1f} MB/s")
print(f"banjia front end (all stages) : {cpu['total']:.3f} s  {mb / cpu['total']:7.1f} MB/s"
      f"  [decode {cpu['decode']:.3f}, tokenize {cpu['tokenize']:.3f}, view {cpu['view']:.3f}, imports+names {cpu['imports_names']:.3f}]")
print(f"CPython tokenize.tokenize     : {t_tok:.3f} s  {mb / t_tok:7.1f} MB/s  -> banjia tokenizer {t_tok / cpu['tokenize']:.0f}x faster")
print(f"CPython ast.parse             : {t_ast:.3f} s  {mb / t_ast:7.1f} MB/s  -> banjia front end {t_ast / cpu['total']:.0f}x faster")
PY
