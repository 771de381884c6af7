# Knowledge-base files under data/ are compiled into the binary so that `banjia` is one self-contained
# file: no install prefix to find, no data drifting from the code that reads it.
# banjia_embed_data(<target> <glob...>) generates a source file exposing
#   std::span<const banjia::EmbeddedFile> banjia::embedded_files()
function(banjia_embed_data target)
  set(files)
  foreach(g IN LISTS ARGN)
    file(GLOB_RECURSE matched CONFIGURE_DEPENDS "${PROJECT_SOURCE_DIR}/${g}")
    list(APPEND files ${matched})
  endforeach()
  list(SORT files)
  set(out "${CMAKE_CURRENT_BINARY_DIR}/embedded_data.cpp")
  # '|'-separated: a ';' list would be split by the shell running the custom command.
  string(REPLACE ";" "|" files_arg "${files}")
  add_custom_command(
    OUTPUT "${out}"
    COMMAND ${CMAKE_COMMAND} -DOUT=${out} -DROOT=${PROJECT_SOURCE_DIR} "-DFILES=${files_arg}"
            -P "${PROJECT_SOURCE_DIR}/cmake/embed_files.cmake"
    DEPENDS ${files} "${PROJECT_SOURCE_DIR}/cmake/embed_files.cmake"
    COMMENT "Embedding knowledge base (data/)"
    VERBATIM)
  target_sources(${target} PRIVATE "${out}")
endfunction()
