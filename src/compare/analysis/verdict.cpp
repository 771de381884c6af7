#include "compare/analysis/verdict.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>

#include <toml++/toml.h>

#include "common/embedded_data.h"
#include "common/errors.h"
#include "common/toml_document.h"
#include "compare/readers/npy_format.h"

namespace banjia::compare {

namespace {
constexpr const char* kTolerancesFile = "data/compare/tolerances.toml";
constexpr const char* kMsprobeFile = "data/compare/msprobe.toml";

toml::table parse_embedded(const char* path) {
  auto text = embedded_file(path);
  if (!text) throw InputError(path, "not compiled into the binary");
  return parse_toml(*text, path);
}

double number(const toml::table& t, const char* section, const char* key) {
  auto v = t[section][key].value<double>();
  if (!v) throw InputError(kMsprobeFile, std::string("missing ") + section + "." + key);
  return *v;
}

const std::map<std::string, Tolerance>& tolerance_table() {
  static const std::map<std::string, Tolerance> table = [] {
    std::map<std::string, Tolerance> out;
    toml::table t = parse_embedded(kTolerancesFile);
    if (auto* arr = t["dtype"].as_array()) {
      for (auto& node : *arr) {
        auto* row = node.as_table();
        if (!row) continue;
        auto name = (*row)["name"].value<std::string>();
        auto rtol = (*row)["rtol"].value<double>();
        auto atol = (*row)["atol"].value<double>();
        if (name && rtol && atol) out[*name] = Tolerance{*rtol, *atol};
      }
    }
    return out;
  }();
  return table;
}
}  // namespace

const MsprobeThresholds& msprobe_thresholds() {
  static const MsprobeThresholds th = [] {
    toml::table t = parse_embedded(kMsprobeFile);
    return MsprobeThresholds{number(t, "accuracy", "cos_threshold"), number(t, "accuracy", "max_abs_err_threshold"),
                             number(t, "accuracy", "cos_max_threshold"),
                             number(t, "accuracy", "max_abs_err_max_threshold"), number(t, "summary", "magnitude"),
                             number(t, "summary", "epsilon")};
  }();
  return th;
}

Tolerance tolerance_for(const std::string& dtype) {
  DType t;
  if (!parse_dtype_name(dtype, t)) return {};
  const auto& table = tolerance_table();
  auto it = table.find(std::string(dtype_name(t)));
  return it == table.end() ? Tolerance{} : it->second;
}

Tolerance tolerance_for_pair(const std::string& dtype_a, const std::string& dtype_b) {
  Tolerance a = tolerance_for(dtype_a), b = tolerance_for(dtype_b);
  return {std::max(a.rtol, b.rtol), std::max(a.atol, b.atol)};
}

std::string msprobe_accuracy(const PairMetrics& m) {
  if (m.nonfinite_position_mismatches > 0) return "No";
  const auto& th = msprobe_thresholds();
  // A cosine msprobe cannot compute (single element, one side all zero) leaves only MaxAbsErr.
  bool have_cos = m.cosine_state == CosineState::kOk || m.cosine_state == CosineState::kBothZero;
  if (!have_cos && m.cosine_state == CosineState::kOneZero) return "No";
  double cos = have_cos ? m.cosine : 1.0;
  if (cos < th.cos_threshold && m.max_abs_err > th.max_abs_err_threshold) return "No";
  if (cos < th.cos_max_threshold || m.max_abs_err > th.max_abs_err_max_threshold) return "No";
  return "Yes";
}

StatsDiff compare_stats(const SummaryStats& a, const SummaryStats& b) {
  StatsDiff out;
  const auto& th = msprobe_thresholds();
  const std::optional<double>* av[4] = {&a.max, &a.min, &a.mean, &a.norm};
  const std::optional<double>* bv[4] = {&b.max, &b.min, &b.mean, &b.norm};
  for (int i = 0; i < 4; ++i) {
    if (!*av[i] || !*bv[i]) continue;
    out.any = true;
    double x = **av[i], y = **bv[i], d = x - y;
    out.diff[i] = d;
    if (y != 0) out.rel[i] = std::fabs(d / y);
    // NaN compares false: a statistic that is NaN on one side raises the warning explicitly.
    double magnitude = std::fabs(d) / (std::fabs(std::max(x, y)) + th.summary_epsilon);
    if (magnitude > th.summary_magnitude || (std::isnan(d) && !(std::isnan(x) && std::isnan(y))))
      out.warning = true;
  }
  return out;
}

}  // namespace banjia::compare
