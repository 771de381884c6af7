#!/usr/bin/env bash
# The C and C++ libraries banjia links, built as static archives for one Zig target (docs/building.md):
#   static-deps.sh fetch SRC_DIR
#     Downloads and unpacks Debian's source packages of the versions this machine's -dev packages
#     have (apt-get source, with its own apt lists under SRC_DIR/apt: /etc/apt is not changed), so a
#     portable binary is built from the same library versions as the developer build.
#   static-deps.sh build ZIG_TARGET SRC_DIR PREFIX
#     Builds zlib, libyaml, SQLite, libzip, fmt, simdjson, CLI11 and toml++ from the directories in
#     SRC_DIR (Debian's, or upstream release tarballs unpacked there) with cmake/zig-toolchain.cmake
#     into PREFIX: static archives, headers, CMake package files and pkg-config files, nothing else.
#     Each library is rebuilt only when its source directory, this script or the toolchain file changed.
# Environment: BANJIA_ZIG (the zig executable; default `zig` on PATH), JOBS (default 2).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
JOBS=${JOBS:-2}

die() { echo "static-deps: $*" >&2; exit 1; }

# ---------------------------------------------------------------------------------------------------
# fetch
# The -dev packages whose source packages are fetched, at the installed version.
DEV_PACKAGES=(zlib1g-dev libyaml-dev libsqlite3-dev libzip-dev libfmt-dev libsimdjson-dev libcli11-dev
              libtomlplusplus-dev)

fetch() {
  local src=$1
  mkdir -p "$src/apt/lists/partial" "$src/apt/cache/archives/partial"
  src=$(cd "$src" && pwd)
  # deb-src lines for each suite of the Debian mirror that /etc/apt already uses for binaries.
  local list="$src/apt/sources.list"
  : >"$list"
  local uri suites
  while read -r uri suites; do
    for s in $suites; do echo "deb-src $uri $s main" >>"$list"; done
  done < <(apt_binary_sources)
  [ -s "$list" ] || die "no Debian mirror found in /etc/apt/sources.list{,.d}"
  local apt=(-o "Dir::Etc::SourceList=$list" -o Dir::Etc::SourceParts=/dev/null
             -o "Dir::State::Lists=$src/apt/lists" -o "Dir::Cache=$src/apt/cache" -o APT::Sandbox::User=root)
  apt-get "${apt[@]}" update -qq
  local pkg want
  for pkg in "${DEV_PACKAGES[@]}"; do
    # The source version of the installed -dev package; its source may be gone from the mirror (the
    # release has moved on), and header-only libraries can then be taken from the package itself.
    want=$(dpkg-query -W -f '${source:Package}=${source:Version}' "$pkg" 2>/dev/null) ||
      die "$pkg is not installed (scripts/install-deps.sh installs it)"
    local name=${want%%=*}
    if compgen -G "$src/${name}-[0-9]*/" >/dev/null; then continue; fi
    if (cd "$src" && apt-get "${apt[@]}" source -qq "$want" >/dev/null 2>"$src/apt/$name.err"); then
      echo "static-deps: fetched Debian source $want"
    else
      echo "static-deps: Debian source $want cannot be downloaded ($(grep -m1 -o '[0-9]\{3\} .*' "$src/apt/$name.err" || echo see "$src/apt/$name.err"))"
      rm -f "$src/${name}"_*
    fi
  done
  local sqlite amalg
  if sqlite=$(source_dir "$src" 'sqlite3-[0-9]*' 'sqlite-*'); then
    amalg=$(sqlite_amalgamation "$sqlite")
    echo "static-deps: SQLite amalgamation in $amalg"
  fi
}

# "URI SUITE..." for every deb line of Debian's own archive in the deb822 and one-line formats.
apt_binary_sources() {
  python3 - <<'EOF'
import glob, re
out = []
for path in glob.glob("/etc/apt/sources.list.d/*.sources"):
    for stanza in re.split(r"\n\s*\n", open(path, encoding="utf-8").read()):
        fields = dict(re.findall(r"^([A-Za-z-]+):\s*(.*)$", stanza, re.M))
        if "deb" in fields.get("Types", "").split() and "debian" in fields.get("URIs", ""):
            for uri in fields["URIs"].split():
                out.append(f"{uri} {fields.get('Suites', '')}")
for path in ["/etc/apt/sources.list"] + glob.glob("/etc/apt/sources.list.d/*.list"):
    try:
        lines = open(path, encoding="utf-8").read().splitlines()
    except OSError:
        continue
    for line in lines:
        m = re.match(r"^deb\s+(?:\[[^]]*\]\s+)?(\S+)\s+(\S+)", line)
        if m and "debian" in m.group(1):
            out.append(f"{m.group(1)} {m.group(2)}")
print("\n".join(dict.fromkeys(out)))
EOF
}

# ---------------------------------------------------------------------------------------------------
# build
# The one source directory matching any of the patterns (Debian's name first, then upstream's).
source_dir() {
  local src=$1; shift
  local p d
  for p in "$@"; do
    for d in "$src"/$p/; do
      [ -d "$d" ] && { echo "${d%/}"; return 0; }
    done
  done
  return 1
}

# Skips a library whose stamp (its source's name and version, and this script's and the toolchain
# file's contents) is unchanged.
up_to_date() {
  local name=$1 id=$2
  local stamp="$PREFIX/.stamps/$name"
  local want
  want="$id $(sha256sum "$ROOT/scripts/static-deps.sh" "$ROOT/cmake/zig-toolchain.cmake" | cut -c1-16 | tr '\n' ' ')"
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
    echo "static-deps: $name up to date ($id)"
    return 0
  fi
  echo "$want" >"$WORK/$name.stamp"
  return 1
}
stamp() { mkdir -p "$PREFIX/.stamps"; mv "$WORK/$1.stamp" "$PREFIX/.stamps/$1"; }

# Prints the directory of SQLite's amalgamation (sqlite3.c, sqlite3.h) of the source directory DIR:
# DIR itself for an upstream sqlite-autoconf tarball, else DIR.amalgamation beside it, which SQLite's
# configure/make generates with the build machine's compiler and tclsh, once for every target (fetch
# makes it, so that builds for two targets at once do not both make it).
sqlite_amalgamation() {
  local dir=$1 out=$1.amalgamation
  if [ -f "$dir/sqlite3.c" ]; then echo "$dir"; return 0; fi
  if [ ! -f "$out/sqlite3.c" ]; then
    local tmp
    tmp=$(mktemp -d "$out.XXXXXX")
    (cd "$tmp" && CC=cc "$dir/configure" --disable-tcl >"$tmp/log" 2>&1 && make sqlite3.c >>"$tmp/log" 2>&1) ||
      { tail -30 "$tmp/log" >&2; die "SQLite amalgamation failed"; }
    mv -T "$tmp" "$out" 2>/dev/null || rm -rf "$tmp"
  fi
  echo "$out"
}

cmake_lib() {
  local name=$1 dir=$2; shift 2
  local bdir="$WORK/$name"
  rm -rf "$bdir"
  # CMAKE_POLICY_VERSION_MINIMUM: these releases declare cmake_minimum_required older than 3.5,
  # which CMake 4 refuses unless told which policies to assume.
  cmake -S "$dir" -B "$bdir" -G Ninja --toolchain "$ROOT/cmake/zig-toolchain.cmake" \
    -DBANJIA_ZIG_TARGET="$TARGET" -DBANJIA_ZIG="$ZIG" -DCMAKE_FIND_ROOT_PATH="$PREFIX" \
    -DCMAKE_INSTALL_PREFIX="$PREFIX" -DCMAKE_INSTALL_LIBDIR=lib -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_POLICY_VERSION_MINIMUM=3.5 -DBUILD_SHARED_LIBS=OFF -DCMAKE_POSITION_INDEPENDENT_CODE=ON \
    -DBUILD_TESTING=OFF "$@" >"$bdir.log" 2>&1 || { tail -30 "$bdir.log" >&2; die "$name: configure failed"; }
  cmake --build "$bdir" -j "$JOBS" >>"$bdir.log" 2>&1 || { tail -30 "$bdir.log" >&2; die "$name: build failed"; }
  cmake --install "$bdir" >>"$bdir.log" 2>&1 || { tail -30 "$bdir.log" >&2; die "$name: install failed"; }
}

build() {
  TARGET=$1
  local src=$2
  PREFIX=$3
  [ -d "$src" ] || die "no source directory $src (static-deps.sh fetch $src)"
  mkdir -p "$PREFIX"
  src=$(cd "$src" && pwd)
  PREFIX=$(cd "$PREFIX" && pwd)
  ZIG=${BANJIA_ZIG:-$(command -v zig || true)}
  [ -x "$ZIG" ] || die "no zig: set BANJIA_ZIG or put zig on PATH"
  WORK=$PREFIX/.build
  mkdir -p "$WORK"
  local CC="$ZIG cc -target $TARGET" AR="$ZIG ar" RANLIB="$ZIG ranlib"
  # -w: the libraries' own warnings (a newer clang than they were written for finds some) are not
  # this build's to fix, and would bury its output.
  local CFLAGS="-O2 -fPIC -w"
  local t0=$SECONDS dir

  # zlib: its own configure script (not autoconf) builds just the static library with --static.
  dir=$(source_dir "$src" 'zlib-[0-9]*') || die "no zlib source in $src"
  if ! up_to_date zlib "$(basename "$dir")"; then
    rm -rf "$WORK/zlib" && cp -a "$dir" "$WORK/zlib"
    (cd "$WORK/zlib" && CC="$CC" AR="$AR" RANLIB="$RANLIB" CFLAGS="$CFLAGS" \
      ./configure --static --prefix="$PREFIX" --libdir="$PREFIX/lib" >"$WORK/zlib.log" 2>&1 &&
      make -j "$JOBS" libz.a >>"$WORK/zlib.log" 2>&1 && make install >>"$WORK/zlib.log" 2>&1) ||
      { tail -30 "$WORK/zlib.log" >&2; die "zlib failed"; }
    stamp zlib
  fi

  # libyaml: its CMake build installs no yaml-0.1.pc (only autotools does, and Debian's source has
  # no generated configure); the library's own yaml-0.1.pc.in is filled in instead.
  dir=$(source_dir "$src" 'libyaml-[0-9]*' 'yaml-[0-9]*') || die "no libyaml source in $src"
  if ! up_to_date libyaml "$(basename "$dir")"; then
    cmake_lib libyaml "$dir" -DINSTALL_LIB_DIR=lib -DINSTALL_INCLUDE_DIR=include
    local version
    version=$(sed -n 's/.*YAML_VERSION_STRING "\(.*\)".*/\1/p' "$WORK/libyaml/include/config.h" 2>/dev/null ||
              true)
    [ -n "$version" ] || version=$(basename "$dir" | sed 's/^[a-z]*-\([0-9.]*\).*/\1/')
    mkdir -p "$PREFIX/lib/pkgconfig"
    sed -e "s|@prefix@|$PREFIX|; s|@exec_prefix@|\${prefix}|; s|@includedir@|\${prefix}/include|" \
        -e "s|@libdir@|\${prefix}/lib|; s|@PACKAGE_VERSION@|$version|" \
        "$dir/yaml-0.1.pc.in" >"$PREFIX/lib/pkgconfig/yaml-0.1.pc"
    stamp libyaml
  fi

  # SQLite: its amalgamation (sqlite_amalgamation), compiled for the target. SQLite's default
  # options; threads on, as in Debian.
  dir=$(source_dir "$src" 'sqlite3-[0-9]*' 'sqlite-*') || die "no SQLite source in $src"
  if ! up_to_date sqlite "$(basename "$dir")"; then
    local amalg
    amalg=$(sqlite_amalgamation "$dir")
    # shellcheck disable=SC2086  # CC is the compiler and its target arguments
    $CC $CFLAGS -DSQLITE_THREADSAFE=1 -c "$amalg/sqlite3.c" -o "$WORK/sqlite3.o"
    rm -f "$PREFIX/lib/libsqlite3.a"
    mkdir -p "$PREFIX/lib" "$PREFIX/include"
    $AR rcs "$PREFIX/lib/libsqlite3.a" "$WORK/sqlite3.o"
    cp "$amalg/sqlite3.h" "$amalg/sqlite3ext.h" "$PREFIX/include/"
    stamp sqlite
  fi

  # libzip: only what banjia reads (deflated and stored members of .npz archives): zlib, and none of
  # the optional bzip2, lzma, zstd or encryption back ends.
  dir=$(source_dir "$src" 'libzip-[0-9]*') || die "no libzip source in $src"
  if ! up_to_date libzip "$(basename "$dir")"; then
    cmake_lib libzip "$dir" -DENABLE_COMMONCRYPTO=OFF -DENABLE_GNUTLS=OFF -DENABLE_MBEDTLS=OFF \
      -DENABLE_OPENSSL=OFF -DENABLE_WINDOWS_CRYPTO=OFF -DENABLE_BZIP2=OFF -DENABLE_LZMA=OFF \
      -DENABLE_ZSTD=OFF -DBUILD_TOOLS=OFF -DBUILD_REGRESS=OFF -DBUILD_EXAMPLES=OFF -DBUILD_DOC=OFF
    stamp libzip
  fi

  dir=$(source_dir "$src" 'fmtlib-[0-9]*' 'fmt-[0-9]*') || die "no fmt source in $src"
  if ! up_to_date fmt "$(basename "$dir")"; then
    cmake_lib fmt "$dir" -DFMT_TEST=OFF -DFMT_DOC=OFF -DFMT_FUZZ=OFF
    stamp fmt
  fi

  dir=$(source_dir "$src" 'simdjson-[0-9]*') || die "no simdjson source in $src"
  if ! up_to_date simdjson "$(basename "$dir")"; then
    cmake_lib simdjson "$dir" -DSIMDJSON_DEVELOPER_MODE=OFF -DSIMDJSON_ENABLE_THREADS=ON
    stamp simdjson
  fi

  # Header-only: CLI11 installs its headers and CMake package files.
  dir=$(source_dir "$src" 'cli11-[0-9]*' 'CLI11-[0-9]*') || die "no CLI11 source in $src"
  if ! up_to_date cli11 "$(basename "$dir")"; then
    cmake_lib cli11 "$dir" -DCLI11_BUILD_TESTS=OFF -DCLI11_BUILD_EXAMPLES=OFF -DCLI11_BUILD_DOCS=OFF \
      -DCLI11_INSTALL=ON
    stamp cli11
  fi

  # toml++: its headers, from its source or else from the build machine's libtomlplusplus-dev (the
  # headers are the whole library). Compiled once into a static library, as Debian builds it
  # (TOML_HEADER_ONLY=0 in its tomlplusplus.pc), instead of inline into every file that includes it.
  local tomlinc
  if dir=$(source_dir "$src" 'tomlplusplus-[0-9]*'); then tomlinc=$dir/include
  elif [ -f /usr/include/toml++/toml.h ]; then dir=/usr/include/toml++; tomlinc=/usr/include
  else die "no toml++ source in $src and no /usr/include/toml++"
  fi
  local tv
  tv=$(sed -n 's/^#define TOML_LIB_\(MAJOR\|MINOR\|PATCH\)[[:space:]]*\([0-9]*\).*/\2/p' \
       "$tomlinc/toml++/impl/version.h" | paste -sd.)
  if ! up_to_date tomlplusplus "toml++ $tv from $dir"; then
    rm -rf "$PREFIX/include/toml++" && mkdir -p "$PREFIX/include" "$PREFIX/lib/pkgconfig"
    cp -a "$tomlinc/toml++" "$PREFIX/include/"
    # The library's documented way to build it once: TOML_IMPLEMENTATION in one translation unit.
    printf '#define TOML_IMPLEMENTATION 1\n#include <toml++/toml.h>\n' >"$WORK/toml.cpp"
    # shellcheck disable=SC2086
    $ZIG c++ -target "$TARGET" -std=c++20 $CFLAGS -DTOML_HEADER_ONLY=0 -I"$PREFIX/include" \
      -c "$WORK/toml.cpp" -o "$WORK/toml.o"
    rm -f "$PREFIX/lib/libtomlplusplus.a"
    $AR rcs "$PREFIX/lib/libtomlplusplus.a" "$WORK/toml.o"
    cat >"$PREFIX/lib/pkgconfig/tomlplusplus.pc" <<EOF
prefix=$PREFIX
includedir=\${prefix}/include
libdir=\${prefix}/lib

Name: tomlplusplus
Description: TOML config file parser and serializer for C++ (static, built by banjia's static-deps.sh)
Version: $tv
Libs: -L\${libdir} -ltomlplusplus
Cflags: -I\${includedir} -DTOML_HEADER_ONLY=0
EOF
    stamp tomlplusplus
  fi

  # Only static archives: a shared library left in PREFIX could be picked by a find_library.
  find "$PREFIX" -name '*.so*' -delete
  echo "static-deps: $TARGET libraries in $PREFIX (${SECONDS}s, $((SECONDS - t0))s building)"
}

case "${1:-}" in
  fetch) [ $# -eq 2 ] || die "usage: static-deps.sh fetch SRC_DIR"; fetch "$2" ;;
  build) [ $# -eq 4 ] || die "usage: static-deps.sh build ZIG_TARGET SRC_DIR PREFIX"; build "$2" "$3" "$4" ;;
  *) die "usage: static-deps.sh fetch SRC_DIR | build ZIG_TARGET SRC_DIR PREFIX" ;;
esac
