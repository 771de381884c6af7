// Where the C++ tests find their data: tests/fixtures of the source tree (what each file is and where
// it came from: tests/fixtures/PROVENANCE). A missing file makes the reading test fail.
#pragma once

#include <filesystem>
#include <string_view>

namespace banjia::test {

inline std::filesystem::path fixture(std::string_view relative) {
  return std::filesystem::path(BANJIA_SOURCE_DIR) / "tests" / "fixtures" / relative;
}

}  // namespace banjia::test
