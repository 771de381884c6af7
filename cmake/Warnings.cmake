# Warnings are errors for banjia's own code (not for third-party headers).
function(banjia_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Werror -Wno-missing-field-initializers)
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
    # GCC 12 reports false -Wrestrict errors inside libstdc++'s std::string operator+ at -O3
    # (GCC bug 105651, fixed in GCC 13); the Release build would otherwise not compile.
    target_compile_options(${target} PRIVATE -Wno-restrict)
  endif()
endfunction()
