#include "scan/source_position.h"

#include <algorithm>

#include "common/utf8.h"

namespace banjia::scan {

LineIndex::LineIndex(std::string_view text) : text_(text) {
  starts_.push_back(0);
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\n') starts_.push_back(i + 1);
    else if (text[i] == '\r' && (i + 1 >= text.size() || text[i + 1] != '\n')) starts_.push_back(i + 1);
  }
}

int LineIndex::line(size_t offset) const {
  auto it = std::upper_bound(starts_.begin(), starts_.end(), offset);
  return static_cast<int>(it - starts_.begin());
}

int LineIndex::column(size_t offset) const {
  size_t start = starts_[static_cast<size_t>(line(offset) - 1)];
  return static_cast<int>(utf8_count_code_points(text_.substr(start, offset - start))) + 1;
}

std::string_view LineIndex::line_text(int line) const {
  if (line < 1 || static_cast<size_t>(line) > starts_.size()) return {};
  size_t start = starts_[static_cast<size_t>(line - 1)];
  size_t end = static_cast<size_t>(line) < starts_.size() ? starts_[static_cast<size_t>(line)] : text_.size();
  std::string_view s = text_.substr(start, end - start);
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

}  // namespace banjia::scan
