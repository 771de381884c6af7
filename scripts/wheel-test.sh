#!/usr/bin/env bash
# Checks what a user of the wheel gets: installs it into a fresh virtual environment that has no
# torch, then checks the `banjia` command on the environment's PATH printing the package's version,
# `import banjia` without torch, a migrate run of examples/cifar_ddp that exits 0 and rewrites the
# model's `.cuda()` to `.npu()`, and SARIF's helpUri links to the rule pages installed with the wheel.
# The wheel: WHEEL=path (CI passes the portable x86_64 wheel that scripts/portable-wheels.sh built),
# else one built here with `pip wheel . --no-deps` into WHEEL_DIR (default build/wheelhouse).
# PYTHON picks the interpreter (default: .venv's, else python3.11, else python3). Prints the time of
# each step. Exits 1 on a failed check.
set -euo pipefail
cd "$(dirname "$0")/.."
# What is checked is the installed wheel: a PYTHONPATH to the source tree (scripts/test.sh sets one
# for the other tests) would import python/banjia instead.
unset PYTHONPATH
WHEEL_DIR=${WHEEL_DIR:-build/wheelhouse}
if [ -z "${PYTHON:-}" ]; then
  if [ -x .venv/bin/python ]; then PYTHON=.venv/bin/python
  else PYTHON=$(command -v python3.11 || command -v python3)
  fi
fi
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

fail() { echo "wheel-test: FAIL: $*" >&2; exit 1; }
step() { echo "wheel-test: $1 (${SECONDS}s so far)"; }

version=$(sed -n 's/^__version__ = "\(.*\)"$/\1/p' python/banjia/__init__.py)
[ -n "$version" ] || fail "python/banjia/__init__.py has no __version__ line"

if [ -n "${WHEEL:-}" ]; then
  [ -f "$WHEEL" ] || fail "WHEEL=$WHEEL: no such file"
  case "${WHEEL##*/}" in banjia-"$version"-*.whl) ;; *) fail "WHEEL=$WHEEL is not a banjia $version wheel" ;; esac
  wheel=$WHEEL
  echo "wheel-test: testing $wheel ($(du -k "$wheel" | cut -f1) KiB)"
else
  step "building the wheel with $PYTHON"
  start=$SECONDS
  rm -f "$WHEEL_DIR"/banjia-*.whl
  "$PYTHON" -m pip wheel . -w "$WHEEL_DIR" --no-deps -q --disable-pip-version-check
  wheels=("$WHEEL_DIR"/banjia-"$version"-*.whl)
  [ -f "${wheels[0]}" ] && [ ${#wheels[@]} -eq 1 ] || fail "expected one banjia-$version wheel in $WHEEL_DIR"
  wheel=${wheels[0]}
  echo "wheel-test: built $wheel ($(du -k "$wheel" | cut -f1) KiB) in $((SECONDS - start))s"
fi

step "installing it into a fresh venv"
start=$SECONDS
"$PYTHON" -m venv "$WORK/venv"
"$WORK/venv/bin/python" -m pip install -q --disable-pip-version-check --no-deps --no-index "$wheel"
echo "wheel-test: venv and install took $((SECONDS - start))s"
bin="$WORK/venv/bin/banjia"
[ -x "$bin" ] || fail "the wheel installed no executable $bin"

# The package imports without torch (the fresh venv has none), and its three version sources agree.
package_version=$("$WORK/venv/bin/python" -c '
import importlib.metadata, importlib.util, sys
assert importlib.util.find_spec("torch") is None, "torch is installed in the fresh venv"
import banjia
assert "torch" not in sys.modules, "import banjia imported torch"
assert banjia.__file__.startswith(sys.prefix), f"banjia imported from {banjia.__file__}, not the venv"
dist_version = importlib.metadata.version("banjia")
assert dist_version == banjia.__version__, f"metadata {dist_version} != __version__ {banjia.__version__}"
print(banjia.__version__)
') || fail "import banjia in the fresh venv"
[ "$package_version" = "$version" ] || fail "installed package is $package_version, the source tree says $version"
binary_version=$("$bin" --version) || fail "banjia --version exited $?"
[ "$binary_version" = "$version" ] || fail "banjia --version printed '$binary_version', the package is $version"
# Found on PATH as a user of the activated venv would find it.
[ "$(PATH="$WORK/venv/bin:$PATH" command -v banjia)" = "$bin" ] || fail "banjia is not the venv's command"
echo "wheel-test: banjia --version = banjia.__version__ = $version; import banjia needs no torch"

step "migrating examples/cifar_ddp with the installed command"
"$bin" migrate examples/cifar_ddp -o "$WORK/cifar_ddp-npu" >"$WORK/migrate.log" 2>&1 ||
  { cat "$WORK/migrate.log" >&2; fail "banjia migrate exited non-zero"; }
source_line=$(grep -F 'Net().cuda()' examples/cifar_ddp/train.py) || fail "examples/cifar_ddp/train.py has no Net().cuda()"
expected=${source_line/.cuda(/.npu(}
grep -qxF -- "$expected" "$WORK/cifar_ddp-npu/train.py" || fail "migrated train.py lacks: $expected"
grep -qF 'Net().cuda()' "$WORK/cifar_ddp-npu/train.py" && fail "migrated train.py still calls Net().cuda()"
echo "wheel-test: migrate rewrote '${source_line#"${source_line%%[! ]*}"}' to '${expected#"${expected%%[! ]*}"}'"
step "SARIF helpUri of the installed command"
# Each rule with a page links it, installed with the wheel beside the environment's bin/.
pages="$WORK/venv/share/doc/banjia/docs/rules"
compgen -G "$pages/*.md" >/dev/null || fail "the wheel installed no rule pages in $pages"
"$bin" scan examples/cifar_ddp --format sarif --fail-on none >"$WORK/scan.sarif" ||
  fail "banjia scan --format sarif exited non-zero"
"$WORK/venv/bin/python" - "$WORK/scan.sarif" "$pages" <<'EOF' || fail "SARIF helpUri"
import json, os, sys, urllib.parse
rules = json.load(open(sys.argv[1], encoding="utf-8"))["runs"][0]["tool"]["driver"]["rules"]
pages = os.path.realpath(sys.argv[2])
# Scan rules have a page (docs/rules); the environment checks' findings are documented elsewhere.
linked = 0
for rule in rules:
    page = os.path.join(pages, rule["id"] + ".md")
    if not os.path.isfile(page):
        assert "helpUri" not in rule, f"{rule['id']}: helpUri {rule['helpUri']}, but no page {page}"
        continue
    uri = urllib.parse.urlparse(rule.get("helpUri", ""))
    assert uri.scheme == "file" and urllib.parse.unquote(uri.path) == page, f"{rule['id']}: helpUri {rule.get('helpUri')}"
    linked += 1
assert linked, "no rule of the SARIF log links an installed page"
print(f"wheel-test: {linked} of {len(rules)} rules link their installed pages")
EOF
echo "wheel-test: all checks passed in ${SECONDS}s"
