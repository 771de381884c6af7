#!/usr/bin/env bash
# Creates .venv at the repository root: Python 3.11 with requirements-dev.txt (torch 2.13.0 CPU build,
# numpy, pytest, mypy), the interpreter every Python test and the type check run with.
# Idempotent: a .venv whose Python 3.11 runs and whose packages have the pinned versions is reused;
# one with other versions is brought to the pins; one whose interpreter is missing, broken or not 3.11
# is made anew. PYTHON=/path/to/python3.11 picks the interpreter (default: python3.11 on PATH, which
# pyenv provides on these machines; Debian 12's own /usr/bin/python3.11 works too).
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=.venv
REQUIREMENTS=requirements-dev.txt

# Prints each pinned requirement that the environment's Python does not have at that version.
# A local version label (2.13.0+cpu) satisfies its public version (2.13.0), as in pip.
unmet_pins() {
  "$VENV/bin/python" - "$REQUIREMENTS" <<'EOF'
import sys
from importlib.metadata import PackageNotFoundError, version

for line in open(sys.argv[1], encoding="utf-8"):
    line = line.split("#", 1)[0].strip()
    if not line:
        continue
    name, _, pinned = line.partition("==")
    try:
        have = version(name.strip()).split("+", 1)[0]
    except PackageNotFoundError:
        have = None
    if have != pinned.strip():
        print(f"{name.strip()} (have {have}, want {pinned.strip()})")
EOF
}

venv_python_ok() {
  [ -x "$VENV/bin/python" ] &&
    "$VENV/bin/python" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))' 2>/dev/null &&
    "$VENV/bin/python" -m pip --version >/dev/null 2>&1
}

if venv_python_ok; then
  unmet=$(unmet_pins) || unmet="(cannot read installed versions)"
  if [ -z "$unmet" ] && "$VENV/bin/python" -c 'import torch, numpy, pytest, mypy' 2>/dev/null; then
    echo "setup-venv: $VENV is up to date ($("$VENV/bin/python" --version), $(grep -c '==' "$REQUIREMENTS") pinned packages)"
    exit 0
  fi
  echo "setup-venv: $VENV needs: ${unmet:-a reinstall (an import failed)}"
else
  PYTHON=${PYTHON:-$(command -v python3.11 || true)}
  if [ -z "$PYTHON" ]; then
    echo "setup-venv: python3.11 not found on PATH (Debian 12: apt-get install python3.11-venv; or set PYTHON)" >&2
    exit 2
  fi
  if ! "$PYTHON" -c 'import sys, ensurepip, venv; sys.exit(sys.version_info[:2] != (3, 11))' 2>/dev/null; then
    # Debian's own interpreter ships venv's pip bootstrap separately.
    if [ "$PYTHON" = /usr/bin/python3.11 ] && command -v apt-get >/dev/null; then
      SUDO=""
      if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
      echo "setup-venv: installing python3.11-venv"
      $SUDO apt-get update -qq
      DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends python3.11-venv >/dev/null
    fi
    if ! "$PYTHON" -c 'import sys, ensurepip, venv; sys.exit(sys.version_info[:2] != (3, 11))' 2>/dev/null; then
      echo "setup-venv: $PYTHON is not a Python 3.11 with venv and ensurepip" >&2
      exit 2
    fi
  fi
  if [ -e "$VENV" ]; then echo "setup-venv: $VENV is broken or not Python 3.11; making it anew"; fi
  rm -rf "$VENV"
  echo "setup-venv: creating $VENV with $PYTHON ($("$PYTHON" --version))"
  "$PYTHON" -m venv "$VENV"
fi

"$VENV/bin/python" -m pip install -q --disable-pip-version-check -r "$REQUIREMENTS"
unmet=$(unmet_pins)
if [ -n "$unmet" ]; then
  echo "setup-venv: after pip install, $VENV still lacks: $unmet" >&2
  exit 1
fi
echo "setup-venv: $VENV ready ($("$VENV/bin/python" --version); $(grep '==' "$REQUIREMENTS" | paste -sd ' '))"
