#include "trace/report/compare_render.h"

#include <fmt/format.h>

#include "common/report.h"
#include "common/safe_paths.h"

namespace banjia::trace {

namespace {
std::string ratio_text(const CompareRow& r) {
  if (auto q = r.ratio()) return fmt::format("{:.2f}x", *q);
  return r.is_new() ? "new" : "-";  // "-": nothing on either side, or a count with no time
}
}  // namespace

void write_comparison_json(JsonWriter& w, const Comparison& c) {
  auto rows = [&](const char* key, const std::vector<CompareRow>& v, bool counts) {
    w.key(key).begin_array();
    for (auto& r : v) {
      w.begin_object().field("name", r.name);
      if (counts) w.field("baseline_count", r.base_count).field("target_count", r.target_count);
      w.field("baseline_us", r.base_us).field("target_us", r.target_us).field("delta_us", r.delta_us());
      w.field("ratio", r.ratio()).field("new", r.is_new());
      w.end_object();
    }
    w.end_array();
  };
  w.field("baseline", c.baseline).field("target", c.target);
  w.field("baseline_steps", static_cast<uint64_t>(c.baseline_steps));
  w.field("target_steps", static_cast<uint64_t>(c.target_steps));
  w.field("per", "step");
  rows("step", c.metrics, false);
  rows("kernel_classes", c.classes, true);
  rows("ops", c.ops, true);
}

std::string comparison_text(const Comparison& c, size_t top) {
  std::string o = fmt::format("baseline: {} ({} step{})\ntarget:   {} ({} step{})\nevery value is a mean per step\n\n",
                              printable(c.baseline), c.baseline_steps, c.baseline_steps == 1 ? "" : "s", printable(c.target),
                              c.target_steps, c.target_steps == 1 ? "" : "s");
  o += fmt::format("  {:<20} {:>12} {:>12} {:>8}\n", "step (ms/step)", "baseline", "target", "ratio");
  for (auto& r : c.metrics)
    o += fmt::format("  {:<20} {:>12.3f} {:>12.3f} {:>8}\n", r.name, r.base_us / 1000, r.target_us / 1000, ratio_text(r));
  o += fmt::format("\n  {:<20} {:>12} {:>12} {:>8}\n", "kernel class (ms/step)", "baseline", "target", "ratio");
  for (auto& r : c.classes)
    if (r.base_count > 0 || r.target_count > 0)
      o += fmt::format("  {:<20} {:>12.3f} {:>12.3f} {:>8}\n", r.name, r.base_us / 1000, r.target_us / 1000, ratio_text(r));
  o += fmt::format("\n  op types, largest regression first (ms/step, calls/step):\n  {:>10} {:>10} {:>8} {:>8} {:>8}  {}\n",
                   "baseline", "target", "ratio", "n base", "n tgt", "op");
  size_t shown = 0;
  for (auto& r : c.ops) {
    if (shown++ >= top) break;
    o += fmt::format("  {:>10.3f} {:>10.3f} {:>8} {:>8.4g} {:>8.4g}  {}\n", r.base_us / 1000, r.target_us / 1000,
                     ratio_text(r), r.base_count, r.target_count, r.name);
  }
  return o;
}

std::string comparison_csv(const Comparison& c) {
  std::string o = "op,baseline_count_per_step,target_count_per_step,baseline_us_per_step,target_us_per_step,"
                  "delta_us_per_step,ratio\n";
  for (auto& r : c.ops) {
    auto q = r.ratio();
    o += fmt::format("{},{:.6g},{:.6g},{:.3f},{:.3f},{:.3f},{}\n", csv_field(r.name), r.base_count, r.target_count,
                     r.base_us, r.target_us, r.delta_us(), q ? fmt::format("{:.6f}", *q) : std::string());
  }
  return o;
}

}  // namespace banjia::trace
