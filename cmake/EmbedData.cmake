# Knowledge-base files under data/ are compiled into the binary so that `banjia` is one self-contained
# file: no install prefix to find, no data drifting from the code that reads it.
# banjia_embed_data(<target> <glob...> [EXCLUDE <regex>...]) generates a source file exposing
#   std::span<const banjia::EmbeddedFile> banjia::embedded_files()
# EXCLUDE drops the matched paths (relative to the repository) that match a regex.
function(banjia_embed_data target)
  cmake_parse_arguments(PARSE_ARGV 1 EMBED "" "" "EXCLUDE")
  set(files)
  foreach(g IN LISTS EMBED_UNPARSED_ARGUMENTS)
    file(GLOB_RECURSE matched CONFIGURE_DEPENDS "${PROJECT_SOURCE_DIR}/${g}")
    list(APPEND files ${matched})
  endforeach()
  foreach(re IN LISTS EMBED_EXCLUDE)
    list(FILTER files EXCLUDE REGEX "^${PROJECT_SOURCE_DIR}/${re}")
  endforeach()
  list(SORT files)
  # Each TOML file also goes in as JSON written by banjia_toml_to_json, under "toml-as-json/<path>"
  # (outside data/, so listings of data/ never see it): common/toml_json.h says why.
  set(gen_root "${CMAKE_CURRENT_BINARY_DIR}/toml-as-json")
  # A cross build (e.g. aarch64 on x86_64) cannot run the banjia_toml_to_json it builds: it takes one
  # built for this machine instead (BANJIA_TOML_TO_JSON), or runs its own through
  # CMAKE_CROSSCOMPILING_EMULATOR, which CMake puts before a tool named by its target. Without an
  # emulator CMake does not turn a target's name into its path when cross-compiling (a build for
  # another glibc of this machine's architecture, as the Zig toolchain makes, still runs here).
  set(BANJIA_TOML_TO_JSON "" CACHE FILEPATH
      "banjia_toml_to_json built for the build machine (cross builds; default: the one built here)")
  if(BANJIA_TOML_TO_JSON)
    set(converter "${BANJIA_TOML_TO_JSON}")
    set(converter_dep "${BANJIA_TOML_TO_JSON}")
  elseif(CMAKE_CROSSCOMPILING AND NOT CMAKE_CROSSCOMPILING_EMULATOR)
    set(converter "$<TARGET_FILE:banjia_toml_to_json>")
    set(converter_dep banjia_toml_to_json)
  else()
    set(converter banjia_toml_to_json)
    set(converter_dep banjia_toml_to_json)
  endif()
  set(generated)
  foreach(f IN LISTS files)
    if(f MATCHES "\\.toml$")
      file(RELATIVE_PATH rel "${PROJECT_SOURCE_DIR}" "${f}")
      set(json "${gen_root}/${rel}")
      get_filename_component(json_dir "${json}" DIRECTORY)
      add_custom_command(
        OUTPUT "${json}"
        COMMAND ${CMAKE_COMMAND} -E make_directory "${json_dir}"
        COMMAND ${converter} "${f}" "${json}"
        DEPENDS "${f}" ${converter_dep}
        COMMENT "Knowledge base as JSON: ${rel}"
        VERBATIM)
      list(APPEND generated "${json}")
    endif()
  endforeach()
  set(out "${CMAKE_CURRENT_BINARY_DIR}/embedded_data.cpp")
  # '|'-separated: a ';' list would be split by the shell running the custom command.
  string(REPLACE ";" "|" files_arg "${files}")
  string(REPLACE ";" "|" generated_arg "${generated}")
  add_custom_command(
    OUTPUT "${out}"
    COMMAND ${CMAKE_COMMAND} -DOUT=${out} -DROOT=${PROJECT_SOURCE_DIR} "-DFILES=${files_arg}"
            "-DGEN_ROOT=${CMAKE_CURRENT_BINARY_DIR}" "-DGENERATED=${generated_arg}"
            -P "${PROJECT_SOURCE_DIR}/cmake/embed_files.cmake"
    DEPENDS ${files} ${generated} "${PROJECT_SOURCE_DIR}/cmake/embed_files.cmake"
    COMMENT "Embedding knowledge base (data/)"
    VERBATIM)
  target_sources(${target} PRIVATE "${out}")
endfunction()
