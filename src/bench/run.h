// One benchmark run as `bench compare` sees it: per-iteration step times plus what the recorder knew
// (batch size, peak memory, power samples). Loaded from the recorder's JSON (python/banjia/bench.py,
// schema in docs/bench.md) or from a CSV with an `iteration` column and a time column (`ms`, `us`, `s`).
#pragma once
#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace banjia::bench {

inline constexpr int kRecorderSchemaVersion = 1;
inline constexpr std::string_view kRecorderFormat = "banjia.bench";

struct Run {
  std::string file;
  std::string label;         // recorder label, or the file name without extension
  std::string device;        // "cuda", "npu", "cpu" or "" when unknown (CSV)
  std::string device_name;
  std::string timing_method; // e.g. "cuda-event", "perf_counter"; "" for CSV
  std::vector<double> times_ms;  // valid per-iteration times, in file order
  size_t skipped = 0;            // rows/values dropped as invalid (non-numeric, negative, zero, non-finite)
  std::string first_skip;        // why the first one was dropped, e.g. "line 5: non-numeric time 'abc'"
  std::optional<double> batch_size;
  std::string sample_unit = "samples";
  std::optional<double> peak_memory_bytes;
  std::string memory_kind;       // "allocated", "rss" (what peak_memory_bytes measures)
  std::vector<double> power_w;   // power samples taken while the run was measured
};

// Milliseconds per unit for "ms", "us", "s" (also "msec", "usec", "sec"); nullopt for anything else.
std::optional<double> ms_per_unit(std::string_view unit);

// Measured numbers (times in ms, power, batch size, memory bytes) must lie in [kMinMagnitude,
// kMaxMagnitude] (zero memory aside): the statistics form sums, squares and products or ratios of up to
// six of them, and within this range none of those leaves the double range (1e40^6 = 1e240 < 1.8e308).
inline constexpr double kMinMagnitude = 1e-40, kMaxMagnitude = 1e40;

// Throws InputError(file, "WHAT TEXT at WHERE overflows|underflows the statistics (...)") when the positive
// `value` (spelled `text`, in `unit`) lies outside [kMinMagnitude, kMaxMagnitude].
void check_magnitude(double value, std::string_view what, std::string_view text, std::string_view where,
                     std::string_view unit, const std::string& file);

// Loads a run, choosing the reader by content (JSON object) or extension (.csv). Throws InputError
// naming the file for unreadable, empty, malformed input, unknown units, or no valid time at all.
Run load_run(const std::filesystem::path& path);

Run parse_csv_run(std::string_view text, const std::string& file);
Run parse_json_run(std::string_view text, const std::string& file);

}  // namespace banjia::bench
