#include "common/csv_reader.h"

#include <cctype>
#include <charconv>

#include "common/errors.h"

namespace banjia {

std::string_view trim_cell(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

std::optional<double> parse_number_cell(std::string_view s) {
  s = trim_cell(s);
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  if (s.empty()) return std::nullopt;
  double v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr != s.data() + s.size()) return std::nullopt;
  return v;
}

std::optional<size_t> CsvTable::column(std::initializer_list<std::string_view> names) const {
  auto iequal = [](std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i)
      if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i])))
        return false;
    return true;
  };
  for (auto n : names)
    for (size_t i = 0; i < header.size(); ++i)
      if (iequal(trim_cell(header[i]), n)) return i;
  return std::nullopt;
}

CsvTable parse_csv(std::string_view text, const std::string& file) {
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
  CsvTable table;
  std::vector<std::string> record;
  std::string field;
  bool in_quotes = false;
  bool any = false;  // current record has content
  size_t line = 1, quote_line = 0;
  auto end_record = [&] {
    record.push_back(std::move(field));
    field.clear();
    if (table.header.empty() && table.rows.empty() && !any && record.size() == 1 && record[0].empty()) {
      record.clear();
      return;  // leading blank line
    }
    if (!any && record.size() == 1 && record[0].empty()) {
      record.clear();
      return;  // blank line
    }
    if (table.header.empty()) {
      table.header = std::move(record);
    } else {
      if (record.size() != table.header.size()) {
        ++table.ragged_rows;
        record.resize(table.header.size());
      }
      table.rows.push_back(std::move(record));
    }
    record.clear();
    any = false;
  };
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (in_quotes) {
      if (c == '"') {
        if (i + 1 < text.size() && text[i + 1] == '"') {
          field.push_back('"');
          ++i;
        } else {
          in_quotes = false;
        }
      } else {
        if (c == '\n') ++line;
        field.push_back(c);
      }
      continue;
    }
    switch (c) {
      case '"':
        in_quotes = true;
        quote_line = line;
        any = true;
        break;
      case ',':
        record.push_back(std::move(field));
        field.clear();
        any = true;
        break;
      case '\r':
        if (i + 1 < text.size() && text[i + 1] == '\n') break;  // CRLF: handled at '\n'
        field.push_back(c);
        break;
      case '\n':
        ++line;
        end_record();
        break;
      default:
        field.push_back(c);
        any = true;
    }
  }
  if (in_quotes) throw InputError(file, "unterminated quoted field starting on line " + std::to_string(quote_line));
  if (any || !field.empty()) end_record();
  return table;
}

}  // namespace banjia
