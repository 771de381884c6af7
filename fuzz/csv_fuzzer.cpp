// Common RFC 4180 CSV reader, plus the cell helpers profiler readers use on every cell.
// A malformed table may only be reported with InputError naming the file.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "common/csv_reader.h"
#include "common/errors.h"
#include "fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    banjia::CsvTable t = banjia::parse_csv(text, "fuzz.csv");
    (void)t.column({"Name", "Duration(us)"});
    for (const auto& row : t.rows)
      for (const auto& cell : row) {
        std::string_view trimmed = banjia::trim_cell(cell);
        FUZZ_CHECK(trimmed.size() <= cell.size(), "trim never grows a cell");
        (void)banjia::parse_number_cell(cell);
      }
  } catch (const banjia::InputError&) {
  }
  return 0;
}
