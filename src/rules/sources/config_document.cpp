#include "rules/sources/config_document.h"

#include <array>

namespace banjia::rules {


std::string key_path_text(const std::vector<std::string>& path) {
  std::string s;
  for (const auto& k : path) {
    if (!s.empty() && !k.starts_with('[')) s += '.';
    s += k;
  }
  return s;
}

TextPositions::TextPositions(std::string_view text) : text_(text), line_starts_{0} {
  for (size_t at = text.find_first_of("\r\n"); at != std::string_view::npos; at = text.find_first_of("\r\n", at)) {
    at += text[at] == '\r' && at + 1 < text.size() && text[at + 1] == '\n' ? 2 : 1;
    line_starts_.push_back(at);
  }
}

size_t TextPositions::offset(size_t line, size_t column) const {
  if (line == 0 || column == 0 || line > line_starts_.size()) return std::string_view::npos;
  size_t at = line_starts_[line - 1];
  for (size_t c = 1; c < column; ++c) {
    if (at >= text_.size() || text_[at] == '\n' || text_[at] == '\r') return std::string_view::npos;
    ++at;  // past the lead byte, then its continuation bytes
    while (at < text_.size() && (static_cast<unsigned char>(text_[at]) & 0xC0) == 0x80) ++at;
  }
  return at;
}

std::optional<ByteRange> verbatim_at(std::string_view text, size_t at, std::string_view value, char quote) {
  if (at == std::string_view::npos || at > text.size()) return std::nullopt;
  const size_t begin = quote ? at + 1 : at;
  if (quote && (at >= text.size() || text[at] != quote)) return std::nullopt;
  if (begin + value.size() > text.size() || text.substr(begin, value.size()) != value) return std::nullopt;
  if (value.find_first_of("\r\n") != std::string_view::npos) return std::nullopt;
  const size_t end = begin + value.size();
  if (quote && (end >= text.size() || text[end] != quote)) return std::nullopt;
  return ByteRange{begin, end};
}

std::vector<ConfigScalar> read_config(std::string_view text, ConfigFormat format, const std::string& display) {
  switch (format) {
    case ConfigFormat::yaml: return read_yaml(text, display);
    case ConfigFormat::json: return read_json(text, display);
    case ConfigFormat::toml: return read_toml(text, display);
  }
  return {};
}

}  // namespace banjia::rules
