#!/usr/bin/env bash
# Obtains the modern LLM corpus (bench/corpus.tsv) at its pinned commits, outside the repository
# (never part of CI; bench/run.sh calls it before bench/modern_corpus.py):
#   $BENCH_CACHE/corpus/NAME                the files of the pinned commit, plus .source_commit
#   $BENCH_CACHE/status/corpus_NAME         "ok", or the first error line of the step that failed
# A local git mirror ($BENCH_MIRROR/OWNER+NAME/repo, as the fetch tool leaves it) is used when it
# holds the pinned commit; else the commit is fetched from GitHub (`git fetch --depth 1 origin SHA`).
# A mirror may lack its largest blobs (data files, 4 MiB and more): those paths are left out.
# A tree already at the pinned commit is kept, so a rerun costs nothing.
#   $BENCH_CACHE/corpus-venv                Python for bench/corpus_runs.py: the project's torch and numpy
#                                           (a .pth line to $PYTHON's site-packages, no second torch) plus
#                                           what nanochat's entry points import (bench/corpus_runs.txt)
#   BENCH_CACHE=~/.cache/banjia-bench bash bench/corpus_setup.sh [NAME...]
set -uo pipefail
cd "$(dirname "$0")/.."
CACHE=${BENCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/banjia-bench}
MIRROR=${BENCH_MIRROR:-/work/.mirror}
mkdir -p "$CACHE/status" "$CACHE/corpus"

note() {  # note NAME RC LOG : records "ok" or the error's first line for NAME
  local name=$1 rc=$2 log=$3
  if [ "$rc" = 0 ]; then
    echo ok >"$CACHE/status/$name"
  else
    { grep -i -m1 -E "^error|error:|fatal:" "$log" || tail -n1 "$log"; } | head -c 300 >"$CACHE/status/$name"
    echo "corpus_setup: $name failed: $(cat "$CACHE/status/$name")" >&2
  fi
}

export_mirror() {  # export_mirror GIT_DIR COMMIT DST : the commit's files, without absent blobs
  local git_dir=$1 commit=$2 dst=$3 tree excludes=()
  tree=$(git --git-dir="$git_dir" ls-tree -r "$commit" | awk -F'\t' '$1 ~ / blob /')
  # cat-file answers one line per object in input order: "<id> missing" for an absent one.
  while IFS= read -r path; do excludes+=(":(exclude)$path"); done < <(
    paste -d'\t' <(cut -f1 <<<"$tree" | awk '{print $3}' | git --git-dir="$git_dir" cat-file --batch-check) \
      <(cut -f2- <<<"$tree") | awk -F'\t' '$1 ~ / missing$/ {print $2}')
  [ "${#excludes[@]}" = 0 ] || echo "corpus_setup: ${#excludes[@]} files absent from the mirror, left out" >&2
  git --git-dir="$git_dir" archive --format=tar "$commit" -- . "${excludes[@]}" | tar -x -C "$dst"
}

clone_github() {  # clone_github OWNER/NAME COMMIT DST : exactly that commit from GitHub
  local repo=$1 commit=$2 dst=$3
  git init --quiet "$dst" && git -C "$dst" remote add origin "https://github.com/$repo.git" &&
    git -C "$dst" fetch --quiet --depth 1 origin "$commit" && git -C "$dst" checkout --quiet FETCH_HEAD &&
    rm -rf "$dst/.git"
}

obtain() {  # obtain NAME OWNER/NAME COMMIT
  local name=$1 repo=$2 commit=$3 dst=$CACHE/corpus/$1 log=$CACHE/status/corpus_$1.log
  local git_dir=$MIRROR/${repo/\//+}/repo
  if [ "$(cat "$dst/.source_commit" 2>/dev/null)" = "$commit" ]; then echo ok >"$CACHE/status/corpus_$name"; return; fi
  rm -rf "$dst" && mkdir -p "$dst"
  if [ -d "$git_dir" ] && git --git-dir="$git_dir" cat-file -e "$commit^{commit}" 2>/dev/null; then
    echo "corpus_setup: exporting $name @ ${commit:0:12} from $git_dir" >&2
    export_mirror "$git_dir" "$commit" "$dst" >"$log" 2>&1
  else
    echo "corpus_setup: fetching $name @ ${commit:0:12} from GitHub" >&2
    clone_github "$repo" "$commit" "$dst" >"$log" 2>&1
  fi
  local rc=$?
  if [ "$rc" = 0 ]; then echo "$commit" >"$dst/.source_commit"; else rm -rf "$dst"; fi
  note "corpus_$name" "$rc" "$log"
}

corpus_venv() {  # the venv of bench/corpus_runs.py; status in $CACHE/status/corpus_venv
  local venv=$CACHE/corpus-venv log=$CACHE/status/corpus_venv.log py=${PYTHON:-$PWD/.venv/bin/python} site
  if [ -f "$venv/.requirements" ] && cmp -s "$venv/.requirements" bench/corpus_runs.txt; then echo ok >"$CACHE/status/corpus_venv"; return; fi
  echo "corpus_setup: making $venv" >&2
  site=$("$py" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])') &&
    rm -rf "$venv" && "$py" -m venv "$venv" >"$log" 2>&1 &&
    "$venv/bin/python" -c 'import sysconfig, sys; print(sysconfig.get_paths()["purelib"])' >"$venv/.site" &&
    echo "$site" >"$(cat "$venv/.site")/project_venv.pth" &&
    "$venv/bin/python" -m pip install --quiet -r bench/corpus_runs.txt >>"$log" 2>&1 &&
    "$venv/bin/python" -c 'import torch, numpy, pyarrow, rustbpe, tiktoken, wandb' >>"$log" 2>&1 &&
    cp bench/corpus_runs.txt "$venv/.requirements"
  note corpus_venv $? "$log"
}

[ $# -gt 0 ] || corpus_venv
while IFS=$'\t' read -r name repo commit _rest; do
  case $name in ''|'#'*) continue ;; esac
  if [ $# -gt 0 ] && ! printf '%s\n' "$@" | grep -qx "$name"; then continue; fi
  obtain "$name" "$repo" "$commit"
done <bench/corpus.tsv
echo "$CACHE/corpus"
