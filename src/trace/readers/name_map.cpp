#include "trace/readers/name_map.h"

#include "common/csv_reader.h"
#include "common/errors.h"
#include "common/file_io.h"

namespace banjia::trace {

std::map<std::string, std::string> read_name_map(const std::string& path) {
  // A name map is a few lines; the cap stops a device or endless FIFO from being read without end.
  std::string text = read_text_file(path, size_t{16} << 20, "a CSV name map");
  std::string kept;  // drop comment lines before CSV parsing
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    std::string_view line(text.data() + pos, (nl == std::string::npos ? text.size() : nl) - pos);
    if (!trim_cell(line).starts_with("#")) kept.append(line).push_back('\n');
    pos = nl == std::string::npos ? text.size() : nl + 1;
  }
  CsvTable t = parse_csv("baseline,target\n" + kept, path);
  std::map<std::string, std::string> m;
  for (auto& row : t.rows) {
    if (row.size() == 1 && trim_cell(row[0]).empty()) continue;
    if (row.size() < 2 || trim_cell(row[0]).empty() || trim_cell(row[1]).empty())
      throw InputError(path, "each line must be 'baseline_name,target_name'");
    m[std::string(trim_cell(row[1]))] = std::string(trim_cell(row[0]));
  }
  return m;
}

}  // namespace banjia::trace
