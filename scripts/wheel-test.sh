#!/usr/bin/env bash
# Builds the wheel (`pip wheel . --no-deps`), installs it into a fresh virtual environment that has no
# torch, and checks what a user gets: the `banjia` command on the environment's PATH printing the
# package's version, `import banjia` without torch, and a migrate run of examples/cifar_ddp that
# exits 0 and rewrites the model's `.cuda()` to `.npu()`. Prints the time of each step.
# WHEEL_DIR (default build/wheelhouse) keeps the wheel; PYTHON picks the interpreter (default: .venv's,
# else python3.11, else python3). Exits 1 on a failed check.
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

step "building the wheel with $PYTHON"
start=$SECONDS
rm -f "$WHEEL_DIR"/banjia-*.whl
"$PYTHON" -m pip wheel . -w "$WHEEL_DIR" --no-deps -q --disable-pip-version-check
wheels=("$WHEEL_DIR"/banjia-"$version"-*.whl)
[ -f "${wheels[0]}" ] && [ ${#wheels[@]} -eq 1 ] || fail "expected one banjia-$version wheel in $WHEEL_DIR"
wheel=${wheels[0]}
echo "wheel-test: built $wheel ($(du -k "$wheel" | cut -f1) KiB) in $((SECONDS - start))s"

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
echo "wheel-test: all checks passed in ${SECONDS}s"
