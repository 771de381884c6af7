// Line/column bookkeeping for scanners that work on raw text (C++/CUDA sources, requirement lists).
#pragma once
#include <cstdint>
#include <string_view>
#include <vector>

namespace banjia::scan {

// Maps byte offsets to 1-based lines and 1-based code-point columns.
class LineIndex {
 public:
  explicit LineIndex(std::string_view text);
  int line(size_t offset) const;                          // 1-based
  int column(size_t offset) const;                        // 1-based, in code points
  std::string_view line_text(int line) const;             // without the line break

 private:
  std::string_view text_;
  std::vector<size_t> starts_;
};

}  // namespace banjia::scan
