# Warnings are errors for banjia's own code (not for third-party headers).
function(banjia_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Werror -Wno-missing-field-initializers)
endfunction()
