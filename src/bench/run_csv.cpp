// CSV runs: `iteration,ms`, as in tests/fixtures/gpu-h200/bench/*.csv.
#include <charconv>
#include <cmath>

#include <fmt/format.h>

#include "bench/run.h"
#include "common/csv_reader.h"
#include "common/errors.h"
#include "common/safe_paths.h"

namespace banjia::bench {

namespace {
constexpr std::string_view kTimeColumns[] = {"ms", "time_ms", "step_ms", "us", "time_us", "s", "time_s"};

// A cell that is a number but outside the double range (1e400, 1e-400): std::from_chars says so.
bool beyond_double_range(std::string_view cell) {
  cell = trim_cell(cell);
  if (!cell.empty() && cell.front() == '+') cell.remove_prefix(1);
  double v = 0;
  auto [ptr, ec] = std::from_chars(cell.data(), cell.data() + cell.size(), v);
  return ec == std::errc::result_out_of_range && ptr == cell.data() + cell.size();
}

std::string unit_of(std::string_view column) {
  auto pos = column.rfind('_');
  return std::string(pos == std::string_view::npos ? column : column.substr(pos + 1));
}
}  // namespace

Run parse_csv_run(std::string_view text, const std::string& file) {
  CsvTable table = parse_csv(text, file);
  if (table.header.empty()) throw InputError(file, "empty file (expected a header such as 'iteration,ms')");
  std::optional<size_t> col;
  std::string column_name;
  for (auto name : kTimeColumns) {
    if ((col = table.column({name}))) {
      column_name = std::string(name);
      break;
    }
  }
  if (!col) {
    std::string got;
    for (const auto& h : table.header) got += (got.empty() ? "" : ",") + std::string(trim_cell(h));
    if (got.size() > 60) got = got.substr(0, 57) + "...";  // keep the error one short line
    for (char& ch : got)
      if (static_cast<unsigned char>(ch) < 0x20) ch = '?';
    throw InputError(file, "no time column (expected one of ms, time_ms, step_ms, us, time_us, s, time_s; header is '" +
                               got + "')");
  }
  const double scale = *ms_per_unit(unit_of(column_name));
  Run run;
  run.file = file;
  for (size_t i = 0; i < table.rows.size(); ++i) {
    const std::string& cell = table.rows[i][*col];
    auto v = parse_number_cell(cell);
    std::string why;
    if (!v && beyond_double_range(cell)) why = fmt::format("time {} out of range (beyond a double)", excerpt(trim_cell(cell)));
    else if (!v) why = fmt::format("non-numeric time '{}'", excerpt(trim_cell(cell)));
    else if (!std::isfinite(*v)) why = "non-finite time";
    else if (*v < 0) why = fmt::format("negative time {}", *v);
    else if (*v == 0) why = "zero time";
    // Converting to milliseconds can overflow (1e308 s) or underflow (5e-324 us): not a usable time.
    else if (!std::isfinite(*v * scale) || *v * scale == 0) why = fmt::format("time {} out of range", excerpt(trim_cell(cell)));
    if (!why.empty()) {
      if (run.skipped++ == 0) run.first_skip = fmt::format("data row {}: {}", i + 1, why);
      continue;
    }
    check_magnitude(*v * scale, "time", fmt::format("{} {}", excerpt(trim_cell(cell)), unit_of(column_name)),
                    fmt::format("data row {}", i + 1), "ms", file);
    run.times_ms.push_back(*v * scale);
  }
  if (run.times_ms.empty())
    throw InputError(file, table.rows.empty() ? "no data rows"
                                              : fmt::format("no valid times ({} rows skipped; first: {})",
                                                            run.skipped, run.first_skip));
  return run;
}

}  // namespace banjia::bench
