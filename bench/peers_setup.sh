#!/usr/bin/env bash
# Installs the peer tools the suite measures banjia against, into a cache directory outside the
# repository (never part of CI; bench/run.sh calls it):
#   $BENCH_CACHE/venv      Python 3.11 venv: torch (CPU), HolisticTraceAnalysis, mindstudio-probe,
#                          msprof-analyze, and msFmkTransplt's dependencies (libcst, jedi, pandas,
#                          prettytable)
#   $BENCH_CACHE/src/mstt  Ascend mstt (msFmkTransplt lives in msfmktransplt/src/ms_fmk_transplt)
#   $BENCH_CACHE/src/examples, $BENCH_CACHE/src/nanoGPT  projects to migrate
# Every step is tried on its own; what failed is written to $BENCH_CACHE/status/<name> (first line of
# the error), so a later table can say so instead of the suite stopping.
#   BENCH_CACHE=~/.cache/banjia-bench bash bench/peers_setup.sh
set -uo pipefail
CACHE=${BENCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/banjia-bench}
PY=${BENCH_PYTHON:-python3.11}
mkdir -p "$CACHE/status" "$CACHE/src"
VENV=$CACHE/venv

note() {  # note NAME RC LOG : records "ok" or the error's first line for NAME
  local name=$1 rc=$2 log=$3
  if [ "$rc" = 0 ]; then
    echo ok >"$CACHE/status/$name"
  else
    # The last line that says "error" is usually the cause; else the log's last line.
    { grep -i -m1 -E "^error|error:" "$log" || tail -n1 "$log"; } | head -c 300 >"$CACHE/status/$name"
    echo "peers_setup: $name failed: $(cat "$CACHE/status/$name")" >&2
  fi
}

if [ ! -x "$VENV/bin/python" ]; then
  "$PY" -m venv "$VENV" >"$CACHE/status/venv.log" 2>&1
  note venv $? "$CACHE/status/venv.log"
fi
pip_install() {  # pip_install NAME IMPORT_CHECK SPEC... : installs unless IMPORT_CHECK already works
  local name=$1 check=$2; shift 2
  if "$VENV/bin/python" -c "$check" >/dev/null 2>&1; then echo ok >"$CACHE/status/$name"; return; fi
  echo "peers_setup: installing $name ($*)" >&2
  "$VENV/bin/python" -m pip install --quiet "$@" >"$CACHE/status/$name.log" 2>&1
  local rc=$?
  [ "$rc" = 0 ] && { "$VENV/bin/python" -c "$check" >>"$CACHE/status/$name.log" 2>&1; rc=$?; }
  note "$name" "$rc" "$CACHE/status/$name.log"
}
if [ -x "$VENV/bin/python" ]; then
  # torch first and pinned: the CPU build of the version the project uses; an unpinned resolve
  # would fetch a multi-GB CUDA build.
  pip_install torch "import torch" "torch==2.13.0"
  pip_install hta "import hta.trace_analysis" HolisticTraceAnalysis "torch==2.13.0"
  pip_install msprobe "import msprobe" mindstudio-probe "torch==2.13.0"
  pip_install msprof_analyze "import msprof_analyze" msprof-analyze "torch==2.13.0"
  pip_install msfmktransplt_deps "import libcst, jedi, pandas, prettytable" libcst jedi pandas prettytable
else
  for name in torch hta msprobe msprof_analyze msfmktransplt_deps; do
    echo "no venv ($(cat "$CACHE/status/venv"))" >"$CACHE/status/$name"
  done
fi

clone() {  # clone NAME MIRROR_GIT_DIR URL : the newest commit's files in $CACHE/src/NAME
  local name=$1 mirror=$2 url=$3 dst=$CACHE/src/$1 log=$CACHE/status/src_$1.log
  if [ -f "$dst/.source_commit" ]; then echo ok >"$CACHE/status/src_$name"; return; fi
  rm -rf "$dst" && mkdir -p "$dst"
  if [ -d "$mirror" ]; then
    # A local mirror may lack its largest blobs (data files): export the tree without them.
    echo "peers_setup: exporting $name from $mirror" >&2
    local excludes=() tree
    tree=$(git --git-dir="$mirror" ls-tree -r HEAD | awk -F'\t' '$1 ~ / blob /')
    # cat-file answers one line per object in input order: "<id> missing" for an absent one.
    while IFS= read -r path; do excludes+=(":(exclude)$path"); done < <(
      paste -d'\t' <(cut -f1 <<<"$tree" | awk '{print $3}' | git --git-dir="$mirror" cat-file --batch-check) \
        <(cut -f2- <<<"$tree") | awk -F'\t' '$1 ~ / missing$/ {print $2}')
    { git --git-dir="$mirror" archive --format=tar HEAD -- . "${excludes[@]}" | tar -x -C "$dst" &&
      git --git-dir="$mirror" rev-parse HEAD >"$dst/.source_commit"; } >"$log" 2>&1
  else
    echo "peers_setup: cloning $name from $url" >&2
    { git clone --quiet --depth 1 "$url" "$dst.git" && git -C "$dst.git" rev-parse HEAD >"$dst.git/.source_commit" &&
      rm -rf "$dst" && mv "$dst.git" "$dst" && rm -rf "$dst/.git"; } >"$log" 2>&1
  fi
  note "src_$name" $? "$log"
}
MIRROR=${BENCH_MIRROR:-/work/.mirror}
clone mstt "$MIRROR/xiaobingling93-pixel+Ascend-mstt/repo" https://gitee.com/ascend/mstt.git
clone examples "$MIRROR/pytorch+examples/repo" https://github.com/pytorch/examples.git
clone nanoGPT "$MIRROR/karpathy+nanoGPT/repo" https://github.com/karpathy/nanoGPT.git
echo "$CACHE"
