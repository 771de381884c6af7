# Script mode (a ctest): fails unless `${BANJIA} --version` prints exactly the version that the Python
# package at ${PYTHON_PATH} reports as banjia.__version__.
execute_process(COMMAND "${BANJIA}" --version RESULT_VARIABLE rc OUTPUT_VARIABLE binary_version
                ERROR_VARIABLE err OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${BANJIA} --version exited ${rc}: ${err}")
endif()
execute_process(
  COMMAND "${PYTHON}" -c "import sys; sys.path.insert(0, sys.argv[1]); import banjia; print(banjia.__version__)"
          "${PYTHON_PATH}"
  RESULT_VARIABLE rc OUTPUT_VARIABLE package_version ERROR_VARIABLE err OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "import banjia from ${PYTHON_PATH} failed (exit ${rc}): ${err}")
endif()
if(package_version STREQUAL "" OR NOT binary_version STREQUAL package_version)
  message(FATAL_ERROR "banjia --version printed '${binary_version}', banjia.__version__ is '${package_version}'")
endif()
message(STATUS "banjia --version and banjia.__version__ are both ${binary_version}")
