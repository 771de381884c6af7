// Configuration files (YAML, JSON, TOML) as scan and migrate read them: every scalar with the keys
// above it and the bytes it is written with, so that a rewrite edits that value and nothing else.
#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rules/core/source_files.h"

namespace banjia::rules {


// Configuration files larger than this are data (a dataset, a vocabulary), not settings: skipped.
inline constexpr size_t kMaxConfigBytes = size_t{1} << 20;

struct ByteRange {
  size_t begin = 0, end = 0;
};

struct ConfigScalar {
  std::vector<std::string> path;  // keys from the root; an item of a list adds "[i]"
  std::string value;              // strings unescaped; other scalars as written (true, 8)
  bool is_string = true;
  ByteRange written;              // the scalar as written, quotes included
  // The bytes of the value itself where the file spells it verbatim (plain or quoted without
  // escapes, on one line): what an edit may replace. Absent: reported only.
  std::optional<ByteRange> verbatim;
  std::optional<ByteRange> key;   // the innermost key as written, for a value of a mapping
};

// Every scalar value of the document(s), in file order. Throws InputError(display, "... at line N: ...")
// for a file that does not parse.
std::vector<ConfigScalar> read_config(std::string_view text, ConfigFormat format, const std::string& display);

// "trainer.env[0].name"
std::string key_path_text(const std::vector<std::string>& path);

// Readers (config_yaml.cpp, config_json.cpp, config_toml.cpp).
std::vector<ConfigScalar> read_yaml(std::string_view text, const std::string& display);
std::vector<ConfigScalar> read_json(std::string_view text, const std::string& display);
std::vector<ConfigScalar> read_toml(std::string_view text, const std::string& display);

// Byte offsets of the positions YAML and TOML parsers report: a 1-based line and a 1-based column
// counted in code points; lines end at \n, \r\n or \r. The line starts are found once, so that a
// file's thousands of scalars cost a walk along one line each, not along the file.
class TextPositions {
 public:
  explicit TextPositions(std::string_view text);
  // npos when the text has no such position.
  size_t offset(size_t line, size_t column) const;

 private:
  std::string_view text_;
  std::vector<size_t> line_starts_;
};

// `value` spelled verbatim at `at`: plain (quote 0) or between the quote characters, as a whole scalar
// on one line. The range of the value's bytes, or nullopt.
std::optional<ByteRange> verbatim_at(std::string_view text, size_t at, std::string_view value, char quote);

}  // namespace banjia::rules
