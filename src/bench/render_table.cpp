#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "bench/render.h"
#include "common/safe_paths.h"
#include "common/utf8.h"

namespace banjia::bench {

namespace {

// Four significant digits, but never exponent notation for the sizes a table shows (12345 not 1.234e+04).
std::string num(double v) { return std::fabs(v) >= 1000 ? fmt::format("{:.0f}", v) : fmt::format("{:.4g}", v); }
std::string opt_num(const std::optional<double>& v) { return v ? num(*v) : "-"; }

const MetricComparison* find_metric(const std::vector<MetricComparison>& list, std::string_view metric) {
  for (const auto& m : list)
    if (m.metric == metric) return &m;
  return nullptr;
}

std::string ratio_cell(const BenchComparison& c, size_t run, std::string_view metric) {
  if (run == 0) return "baseline";
  const MetricComparison* m = find_metric(c.vs_baseline[run], metric);
  if (!m) return "-";
  if (!m->ci_low) return fmt::format("{:.3f}x no CI ({}) {}", m->ratio, m->no_ci_reason, m->verdict);
  std::string cell = fmt::format("{:.3f}x [{:.3f}, {:.3f}] {}", m->ratio, *m->ci_low, *m->ci_high, m->verdict);
  return m->inconclusive_reason.empty() ? cell : cell + " (" + m->inconclusive_reason + ")";
}

}  // namespace

TableModel comparison_table(const BenchComparison& c) {
  TableModel t;
  t.header.push_back("metric");
  for (const auto& r : c.runs) t.header.push_back(printable(r.run.label));
  auto row = [&](std::string name, auto cell) {
    std::vector<std::string> r{std::move(name)};
    for (size_t i = 0; i < c.runs.size(); ++i) r.push_back(cell(i, c.runs[i]));
    t.rows.push_back(std::move(r));
  };
  row("device", [](size_t, const RunStats& s) {
    return !s.run.device_name.empty() ? s.run.device_name : !s.run.device.empty() ? s.run.device : std::string("-");
  });
  row("iterations", [](size_t, const RunStats& s) { return std::to_string(s.time.n); });
  row("median step (ms)", [](size_t, const RunStats& s) { return num(s.time.median); });
  row("p95 step (ms)", [](size_t, const RunStats& s) { return num(s.time.p95); });
  row("CV", [](size_t, const RunStats& s) { return fmt::format("{:.1f} %", s.time.cv * 100); });
  row("outliers (Tukey)", [](size_t, const RunStats& s) {
    size_t n = s.time.outliers_low + s.time.outliers_high;
    return n ? fmt::format("{} ({} low, {} high)", n, s.time.outliers_low, s.time.outliers_high) : std::string("0");
  });
  row("throughput", [](size_t, const RunStats& s) {
    return s.throughput_per_s ? fmt::format("{} {}/s", num(*s.throughput_per_s), s.run.sample_unit) : std::string("-");
  });
  row("peak memory (GiB)", [](size_t, const RunStats& s) {
    if (!s.run.peak_memory_bytes) return std::string("-");
    return fmt::format("{:.3g} ({})", *s.run.peak_memory_bytes / (1024.0 * 1024 * 1024), s.run.memory_kind);
  });
  row("power median (W)", [](size_t, const RunStats& s) { return opt_num(s.power_median_w); });
  row("energy per sample (J)", [](size_t, const RunStats& s) { return opt_num(s.energy_per_sample_j); });
  // A metric no run measured (e.g. power from CSV inputs) would be a row of dashes: leave it out.
  std::erase_if(t.rows, [](const std::vector<std::string>& r) {
    return std::all_of(r.begin() + 1, r.end(), [](const std::string& cell) { return cell == "-"; });
  });
  if (c.runs.size() > 1) {
    const int pct = static_cast<int>(c.policy.confidence * 100 + 0.5);
    for (auto [metric, name] : {std::pair{"step_time", "step time vs baseline"}, {"throughput", "throughput vs baseline"},
                                {"peak_memory", "memory vs baseline"}, {"power", "power vs baseline"},
                                {"energy_per_sample", "energy vs baseline"}}) {
      bool any = false;
      for (size_t i = 1; i < c.runs.size(); ++i) any = any || find_metric(c.vs_baseline[i], metric);
      if (!any) continue;
      row(fmt::format("{} [{} % CI]", name, pct), [&, metric = metric](size_t i, const RunStats&) {
        return ratio_cell(c, i, metric);
      });
    }
  }
  return t;
}

std::vector<std::string> all_warnings(const BenchComparison& c) {
  std::vector<std::string> out;
  for (const auto& r : c.runs)
    for (const auto& w : r.warnings) out.push_back(printable(r.run.label) + ": " + w);
  for (const auto& w : c.warnings) out.push_back(w);
  return out;
}

std::string render_bench_text(const BenchComparison& c) {
  TableModel t = comparison_table(c);
  std::vector<size_t> width(t.header.size(), 0);
  auto measure = [&](const std::vector<std::string>& r) {
    for (size_t i = 0; i < r.size(); ++i) width[i] = std::max(width[i], utf8_count_code_points(r[i]));
  };
  measure(t.header);
  for (const auto& r : t.rows) measure(r);
  auto line = [&](const std::vector<std::string>& r) {
    std::string out;
    for (size_t i = 0; i < r.size(); ++i) {
      std::string pad(width[i] - utf8_count_code_points(r[i]), ' ');
      out += i == 0 ? r[i] + pad : "  " + pad + r[i];  // metric names left, values right-aligned
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out + "\n";
  };
  std::string out = line(t.header);
  size_t total = 0;
  for (size_t w : width) total += w + 2;
  out += std::string(total - 2, '-') + "\n";
  for (const auto& r : t.rows) out += line(r);
  auto warnings = all_warnings(c);
  if (!warnings.empty()) {
    out += "\nwarnings:\n";
    for (const auto& w : warnings) out += "  - " + w + "\n";
  }
  out += fmt::format("\nratios are other/baseline medians; {} % percentile-bootstrap CI ({} resamples, seed {})\n",
                     static_cast<int>(c.policy.confidence * 100 + 0.5), c.policy.bootstrap_resamples,
                     c.policy.bootstrap_seed);
  return out;
}

std::string render_bench_markdown(const BenchComparison& c) {
  TableModel t = comparison_table(c);
  auto esc = [](const std::string& s) {
    std::string o;
    for (char ch : s) o += ch == '|' ? std::string("\\|") : std::string(1, ch);
    return o;
  };
  std::string out = "|";
  for (const auto& h : t.header) out += " " + esc(h) + " |";
  out += "\n|---|";
  for (size_t i = 1; i < t.header.size(); ++i) out += "---:|";
  out += "\n";
  for (const auto& r : t.rows) {
    out += "|";
    for (const auto& cell : r) out += " " + esc(cell) + " |";
    out += "\n";
  }
  auto warnings = all_warnings(c);
  if (!warnings.empty()) {
    out += "\n**Warnings**\n\n";
    for (const auto& w : warnings) out += "- " + esc(w) + "\n";
  }
  return out;
}

}  // namespace banjia::bench
