// Line/column bookkeeping for readers that work on raw text (C++/CUDA sources, requirement lists, shell
// scripts). Lines end at \n, \r\n or a lone \r; columns count code points.
#pragma once
#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

namespace banjia {

// Maps byte offsets to 1-based lines and 1-based code-point columns.
class LineIndex {
 public:
  explicit LineIndex(std::string_view text);
  int line(size_t offset) const;                          // 1-based
  int column(size_t offset) const;                        // 1-based, in code points
  std::string_view line_text(int line) const;             // without the line break
  std::pair<int, int> locate(size_t offset) const { return {line(offset), column(offset)}; }

 private:
  std::string_view text_;
  std::vector<size_t> starts_;
};

}  // namespace banjia
