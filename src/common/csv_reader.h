// RFC 4180 CSV reading (quoted fields, doubled quotes, CRLF, embedded newlines) with columns found
// by header name, as profiler CSVs differ between versions. Cells are returned untrimmed;
// `trim_cell` strips the spaces and tabs some torch_npu versions append.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace banjia {

struct CsvTable {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  size_t ragged_rows = 0;  // rows whose field count differs from the header's (kept, padded/truncated)

  // Index of the first column whose trimmed name equals one of `names` (case-insensitive).
  std::optional<size_t> column(std::initializer_list<std::string_view> names) const;
};

// Parses CSV text. A UTF-8 BOM is skipped. Throws InputError(file, ...) on an unterminated quote.
CsvTable parse_csv(std::string_view text, const std::string& file_for_errors);

std::string_view trim_cell(std::string_view s);

// Parses a number cell: trims, accepts a leading '+', rejects "N/A", empty and trailing junk.
std::optional<double> parse_number_cell(std::string_view s);

}  // namespace banjia
