// Recorder JSON runs (python/banjia/bench.py; schema "banjia.bench" version 1 in docs/bench.md).
#include <cmath>

#include <fmt/format.h>
#include <simdjson.h>

#include "bench/run.h"
#include "common/errors.h"
#include "common/safe_paths.h"

namespace banjia::bench {

namespace {
using simdjson::dom::element;
using simdjson::dom::object;

std::optional<element> member(const object& o, std::string_view key) {
  element e;
  if (o.at_key(key).get(e) != simdjson::SUCCESS || e.is_null()) return std::nullopt;
  return e;
}

std::optional<double> number(const object& o, std::string_view key, const std::string& file) {
  auto e = member(o, key);
  if (!e) return std::nullopt;
  double d = 0;
  if (e->get_double().get(d) != simdjson::SUCCESS)
    throw InputError(file, fmt::format("\"{}\" is not a number", key));
  return d;
}

std::string string_or_empty(const object& o, std::string_view key) {
  auto e = member(o, key);
  std::string_view s;
  if (!e || e->get_string().get(s) != simdjson::SUCCESS) return "";
  return std::string(s);
}

object object_or_throw(const element& e, std::string_view what, const std::string& file) {
  object o;
  if (e.get_object().get(o) != simdjson::SUCCESS) throw InputError(file, fmt::format("\"{}\" is not an object", what));
  return o;
}

void read_memory(const object& root, Run& run, const std::string& file) {
  auto m = member(root, "memory");
  if (!m) return;
  object mem = object_or_throw(*m, "memory", file);
  // Allocator peak (cuda/npu) is what the article's table means by memory; RSS is the cpu fallback.
  if (auto v = number(mem, "peak_allocated_bytes", file)) {
    run.peak_memory_bytes = *v;
    run.memory_kind = "allocated";
  } else if (auto rss = number(mem, "peak_rss_bytes", file)) {
    run.peak_memory_bytes = *rss;
    run.memory_kind = "rss";
  }
  if (run.peak_memory_bytes && *run.peak_memory_bytes < 0) throw InputError(file, "negative peak memory");
  if (run.peak_memory_bytes && *run.peak_memory_bytes > 0)
    check_magnitude(*run.peak_memory_bytes, "peak memory", fmt::format("{}", *run.peak_memory_bytes), "\"memory\"",
                    "bytes", file);
}

void read_power(const object& root, Run& run, const std::string& file) {
  auto p = member(root, "power");
  if (!p) return;
  object power = object_or_throw(*p, "power", file);
  auto samples = member(power, "samples_w");
  if (!samples) return;
  simdjson::dom::array arr;
  if (samples->get_array().get(arr) != simdjson::SUCCESS) throw InputError(file, "\"power.samples_w\" is not an array");
  size_t index = 0;
  for (element v : arr) {
    double w = 0;
    ++index;
    if (v.get_double().get(w) != simdjson::SUCCESS || !std::isfinite(w) || w <= 0) continue;
    check_magnitude(w, "power", fmt::format("{} W", w), fmt::format("power.samples_w[{}]", index - 1), "W", file);
    run.power_w.push_back(w);
  }
}
}  // namespace

Run parse_json_run(std::string_view text, const std::string& file) {
  simdjson::dom::parser parser;
  simdjson::padded_string padded(text);
  element doc;
  if (auto err = parser.parse(padded).get(doc); err != simdjson::SUCCESS)
    throw InputError(file, std::string("invalid JSON: ") + simdjson::error_message(err));
  object root;
  if (doc.get_object().get(root) != simdjson::SUCCESS) throw InputError(file, "expected a JSON object (banjia.bench recording)");
  if (string_or_empty(root, "format") != kRecorderFormat)
    throw InputError(file, "not a banjia bench recording (missing \"format\": \"banjia.bench\")");
  auto version = number(root, "version", file);
  if (!version) throw InputError(file, "missing \"version\"");
  if (*version > kRecorderSchemaVersion || *version < 1)
    throw InputError(file, fmt::format("recording schema version {} is not supported (this banjia reads version {})",
                                       *version, kRecorderSchemaVersion));
  Run run;
  run.file = file;
  run.label = string_or_empty(root, "label");
  if (auto d = member(root, "device")) {
    object dev = object_or_throw(*d, "device", file);
    run.device = string_or_empty(dev, "type");
    run.device_name = string_or_empty(dev, "name");
  }
  auto t = member(root, "timing");
  if (!t) throw InputError(file, "missing \"timing\"");
  object timing = object_or_throw(*t, "timing", file);
  run.timing_method = string_or_empty(timing, "method");
  const std::string unit = string_or_empty(timing, "unit");
  auto scale = ms_per_unit(unit);
  if (!scale) throw InputError(file, fmt::format("unknown time unit '{}' in \"timing.unit\" (expected ms, us or s)", excerpt(unit)));
  auto times = member(timing, "times");
  simdjson::dom::array arr;
  if (!times || times->get_array().get(arr) != simdjson::SUCCESS)
    throw InputError(file, "\"timing.times\" is missing or not an array");
  size_t index = 0;
  for (element v : arr) {
    ++index;
    double d = 0;
    std::string why;
    if (v.get_double().get(d) != simdjson::SUCCESS) why = "not a number";
    else if (d < 0) why = fmt::format("negative time {}", d);
    else if (d == 0) why = "zero time";
    // Converting to milliseconds can overflow (1e308 s) or underflow (5e-324 us): not a usable time.
    else if (!std::isfinite(d * *scale) || d * *scale == 0) why = fmt::format("time {} {} out of range", d, unit);
    if (!why.empty()) {
      if (run.skipped++ == 0) run.first_skip = fmt::format("timing.times[{}]: {}", index - 1, why);
      continue;
    }
    check_magnitude(d * *scale, "time", fmt::format("{} {}", d, unit), fmt::format("timing.times[{}]", index - 1), "ms",
                    file);
    run.times_ms.push_back(d * *scale);
  }
  if (run.times_ms.empty())
    throw InputError(file, run.skipped ? fmt::format("no valid times ({} skipped; first: {})", run.skipped, run.first_skip)
                                       : std::string("\"timing.times\" is empty"));
  if (auto b = number(root, "batch_size", file)) {
    if (*b <= 0) throw InputError(file, "\"batch_size\" must be positive");
    check_magnitude(*b, "batch size", fmt::format("{}", *b), "\"batch_size\"", "samples", file);
    run.batch_size = *b;
  }
  if (auto u = string_or_empty(root, "sample_unit"); !u.empty()) run.sample_unit = u;
  read_memory(root, run, file);
  read_power(root, run, file);
  return run;
}

}  // namespace banjia::bench
