# CMake toolchain file: compile and link with Zig's C/C++ toolchain (`zig cc` / `zig c++`, clang with
# LLVM's libc++) for one Linux target, e.g. x86_64-linux-gnu.2.28 or aarch64-linux-gnu.2.28. The
# suffix after "gnu." is the glibc version the binary is linked against: Zig ships stub libraries of
# every glibc version, so a binary built on any host uses no glibc symbol newer than that version.
# This is how the portable wheels are built (scripts/portable-wheels.sh, docs/building.md): with
# -DBANJIA_STATIC_DEPS=ON and the static libraries of scripts/static-deps.sh in CMAKE_FIND_ROOT_PATH.
#
# Inputs (cache variables or environment variables of the same name):
#   BANJIA_ZIG_TARGET  the Zig target triple (required)
#   BANJIA_ZIG         the zig executable (default: `zig` on PATH, else the one in the PyPI package
#                      `ziglang` of the first python3 on PATH)
# Libraries and packages are looked for only under CMAKE_FIND_ROOT_PATH (and pkg-config's files only
# there), never in the build machine's /usr: its libraries are built for its own glibc and
# architecture, not the target's.
cmake_minimum_required(VERSION 3.25)

foreach(var BANJIA_ZIG_TARGET BANJIA_ZIG)
  if(NOT DEFINED ${var} AND DEFINED ENV{${var}})
    set(${var} "$ENV{${var}}")
  endif()
endforeach()
if(NOT BANJIA_ZIG_TARGET)
  message(FATAL_ERROR "zig-toolchain.cmake: set BANJIA_ZIG_TARGET, e.g. x86_64-linux-gnu.2.28")
endif()
if(NOT BANJIA_ZIG)
  find_program(BANJIA_ZIG zig)
endif()
if(NOT BANJIA_ZIG)
  execute_process(
    COMMAND python3 -c "import os, ziglang; print(os.path.join(os.path.dirname(ziglang.__file__), 'zig'))"
    OUTPUT_VARIABLE BANJIA_ZIG OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
endif()
if(NOT BANJIA_ZIG OR NOT EXISTS "${BANJIA_ZIG}")
  message(FATAL_ERROR "zig-toolchain.cmake: no zig found; set BANJIA_ZIG or `pip install ziglang`")
endif()
# try_compile projects re-read this file: hand them the same inputs.
set(BANJIA_ZIG_TARGET "${BANJIA_ZIG_TARGET}" CACHE STRING "Zig target triple")
set(BANJIA_ZIG "${BANJIA_ZIG}" CACHE FILEPATH "zig executable")
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES BANJIA_ZIG_TARGET BANJIA_ZIG CMAKE_FIND_ROOT_PATH)

set(CMAKE_SYSTEM_NAME Linux)
string(REGEX MATCH "^[^-]+" CMAKE_SYSTEM_PROCESSOR "${BANJIA_ZIG_TARGET}")

# A compiler given as a list is the program and its leading arguments.
set(CMAKE_C_COMPILER "${BANJIA_ZIG}" cc -target "${BANJIA_ZIG_TARGET}")
set(CMAKE_CXX_COMPILER "${BANJIA_ZIG}" c++ -target "${BANJIA_ZIG_TARGET}")
# simdjson before 3.6 enables AVX-512 for its Ice Lake kernel with a target attribute that lacks
# clang 18's "evex512" feature, which clang then rejects; naming the feature for the whole build lets
# that kernel compile. It enables no instruction by itself: AVX-512 code stays in the functions that
# simdjson runs after checking the CPU.
if(CMAKE_SYSTEM_PROCESSOR STREQUAL "x86_64")
  set(CMAKE_C_FLAGS_INIT "-mevex512")
  set(CMAKE_CXX_FLAGS_INIT "-mevex512")
endif()

# ar and ranlib must be single programs: small wrappers, written where this build (or try_compile)
# runs. The build machine's binutils could not be relied on for another architecture's objects.
foreach(tool ar ranlib)
  set(wrapper "${CMAKE_BINARY_DIR}/zig-${tool}")
  if(NOT EXISTS "${wrapper}")
    file(WRITE "${wrapper}" "#!/bin/sh\nexec '${BANJIA_ZIG}' ${tool} \"$@\"\n")
    file(CHMOD "${wrapper}" PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE
         WORLD_READ WORLD_EXECUTE)
  endif()
  string(TOUPPER "${tool}" TOOL)
  set(CMAKE_${TOOL} "${wrapper}" CACHE FILEPATH "zig ${tool}" FORCE)
endforeach()

set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
# pkg-config reads .pc files only from the root paths' lib/pkgconfig and share/pkgconfig. The
# environment is the whole process's: the try_compile projects that read this file again see the
# same CMAKE_FIND_ROOT_PATH (above), so they set the same value.
set(pc_dirs "")
foreach(root IN LISTS CMAKE_FIND_ROOT_PATH)
  list(APPEND pc_dirs "${root}/lib/pkgconfig" "${root}/share/pkgconfig")
endforeach()
string(REPLACE ";" ":" pc_dirs "${pc_dirs}")
set(ENV{PKG_CONFIG_LIBDIR} "${pc_dirs}")
set(ENV{PKG_CONFIG_PATH} "")
