// Dispatch by content, and the unit table shared by the CSV and JSON readers.
#include <filesystem>

#include <fmt/format.h>

#include "bench/run.h"
#include "common/errors.h"
#include "common/file_io.h"

namespace banjia::bench {

std::optional<double> ms_per_unit(std::string_view u) {
  if (u == "ms" || u == "msec") return 1.0;
  if (u == "us" || u == "usec") return 1e-3;
  if (u == "s" || u == "sec") return 1e3;
  return std::nullopt;
}

void check_magnitude(double value, std::string_view what, std::string_view text, std::string_view where,
                     std::string_view unit, const std::string& file) {
  if (value >= kMinMagnitude && value <= kMaxMagnitude) return;
  const char* direction = value > kMaxMagnitude ? "overflows" : "underflows";
  throw InputError(file, fmt::format("{} {} at {} {} the statistics (accepted: {:g} to {:g} {})", what, text, where,
                                     direction, kMinMagnitude, kMaxMagnitude, unit));
}

// A run of a million iterations is about 20 MiB of CSV; the cap stops a device such as /dev/zero or a
// mistaken huge file from being read into memory whole.
constexpr size_t kMaxRunFileBytes = size_t{1} << 30;

Run load_run(const std::filesystem::path& path) {
  const std::string file = path.string();
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw InputError(file, "is a directory, expected a .json or .csv file");
  std::string text = read_text_file(path, kMaxRunFileBytes, "a CSV or JSON run");
  size_t first = text.find_first_not_of(" \t\r\n");
  if (text.starts_with("\xEF\xBB\xBF")) first = text.find_first_not_of(" \t\r\n", 3);
  if (first == std::string::npos) throw InputError(file, "empty file");
  Run run = text[first] == '{' || text[first] == '[' ? parse_json_run(text, file) : parse_csv_run(text, file);
  if (run.label.empty()) run.label = path.stem().string();
  return run;
}

}  // namespace banjia::bench
