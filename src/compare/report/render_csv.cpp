// CSV with msprobe's column names (real-data "ALL" layout, or the statistics "SUMMARY" layout when no
// pair had tensor data), followed by banjia's own columns. Unmatched entries are rows too.
#include <cmath>

#include <fmt/format.h>

#include "common/report.h"
#include "compare/report/render.h"

namespace banjia::compare {

namespace {

// msprobe's placeholders: "Nan" for NaN, "N/A" for missing; numbers as Python would print them.
std::string num(std::optional<double> v) {
  if (!v) return "N/A";
  if (std::isnan(*v)) return "Nan";
  if (std::isinf(*v)) return *v > 0 ? "inf" : "-inf";
  return fmt::format("{}", *v);
}

std::string percent(std::optional<double> v) { return v ? (std::isnan(*v) ? "Nan" : fmt::format("{}%", *v * 100)) : "N/A"; }

void row(std::string& out, const std::vector<std::string>& cells) {
  for (size_t i = 0; i < cells.size(); ++i) {
    if (i) out += ',';
    out += csv_field(cells[i]);
  }
  out += '\n';
}

const std::vector<std::string> kBasic = {"NPU Name", "Bench Name", "NPU Dtype", "Bench Dtype",
                                         "NPU Tensor Shape", "Bench Tensor Shape"};
const std::vector<std::string> kStatsCols = {"NPU max", "NPU min", "NPU mean", "NPU l2norm",
                                             "Bench max", "Bench min", "Bench mean", "Bench l2norm"};
const std::vector<std::string> kOwn = {"Status", "RMSE", "MeanAbsErr", "RelL2Err", "AllcloseMismatchRatio",
                                       "Rtol", "Atol", "NPU nan", "NPU inf", "Bench nan", "Bench inf",
                                       "Would overflow fp16", "Match", "Phase", "NoiseFloor", "NoiseRatio"};

void stats_cells(std::vector<std::string>& c, const SummaryStats& s) {
  for (const auto* v : {&s.max, &s.min, &s.mean, &s.norm}) c.push_back(num(*v));
}

std::string dtype_or(const std::string& d) { return d.empty() ? "N/A" : d; }

}  // namespace

std::string render_dump_csv(const CompareResult& r) {
  bool tensor_layout = r.entries.empty();
  for (const auto& e : r.entries) tensor_layout |= e.mode == "tensor";
  std::vector<std::string> header = kBasic;
  std::vector<std::string> metric_cols =
      tensor_layout ? std::vector<std::string>{"Cosine", "EucDist", "MaxAbsErr", "MaxRelativeErr",
                                               "One Thousandth Err Ratio", "Five Thousandths Err Ratio"}
                    : std::vector<std::string>{"Max diff", "Min diff", "Mean diff", "L2norm diff", "MaxRelativeErr",
                                               "MinRelativeErr", "MeanRelativeErr", "NormRelativeErr"};
  header.insert(header.end(), metric_cols.begin(), metric_cols.end());
  header.insert(header.end(), kStatsCols.begin(), kStatsCols.end());
  header.push_back(tensor_layout ? "Accuracy Reached or Not" : "Result");
  header.push_back("Err_message");
  header.insert(header.end(), kOwn.begin(), kOwn.end());
  std::string out;
  row(out, header);
  for (const EntryResult& e : r.entries) {
    std::vector<std::string> c = {e.a->key, e.b->key, dtype_or(e.dtype_a), dtype_or(e.dtype_b),
                                  shape_string(e.shape_a), shape_string(e.shape_b)};
    const PairMetrics* m = e.metrics ? &*e.metrics : nullptr;
    if (tensor_layout) {
      bool scalar = m && m->cosine_state == CosineState::kSingleElement;
      if (!m) {
        for (int i = 0; i < 6; ++i) c.push_back("N/A");
      } else {
        c.push_back(scalar ? "unsupported" : num(m->cosine));
        c.push_back(scalar ? "unsupported" : num(m->euc_dist));
        c.push_back(num(m->max_abs_err));
        c.push_back(num(m->max_rel_err));
        c.push_back(scalar ? "unsupported" : num(m->one_thousandth_ratio));
        c.push_back(scalar ? "unsupported" : num(m->five_thousandths_ratio));
      }
    } else {
      for (const auto& d : e.stats_diff.diff) c.push_back(num(d));
      for (const auto& d : e.stats_diff.rel) c.push_back(percent(d));
    }
    stats_cells(c, e.stats_a);
    stats_cells(c, e.stats_b);
    c.push_back(e.msprobe_result);
    c.push_back(e.message);
    c.push_back(std::string(status_name(e.status)));
    c.push_back(m ? num(m->rmse) : "N/A");
    c.push_back(m ? num(m->mean_abs_err) : "N/A");
    c.push_back(m ? num(m->rel_l2_err) : "N/A");
    c.push_back(m ? num(m->allclose_mismatch_fraction) : "N/A");
    c.push_back(num(e.tol.rtol));
    c.push_back(num(e.tol.atol));
    for (int64_t v : {m ? m->a.nan : -1, m ? m->a.inf : -1, m ? m->b.nan : -1, m ? m->b.inf : -1})
      c.push_back(v < 0 ? "N/A" : std::to_string(v));
    c.push_back(std::to_string(e.ref_beyond_fp16));
    c.push_back(e.fuzzy ? "name_shape" : "key");
    c.push_back(std::string(phase_name(e.noise.phase)));
    c.push_back(e.noise.assessed ? num(e.noise.floor) : "N/A");
    c.push_back(e.noise.assessed ? num(e.noise.ratio) : "N/A");
    row(out, c);
  }
  auto unmatched = [&](const DumpEntry& e, bool npu_side) {
    std::vector<std::string> c(header.size(), "N/A");
    c[npu_side ? 0 : 1] = e.key;
    c[npu_side ? 2 : 3] = dtype_or(e.dtype);
    c[npu_side ? 4 : 5] = shape_string(e.shape);
    size_t msg = kBasic.size() + metric_cols.size() + kStatsCols.size();
    c[msg] = "N/A";
    c[msg + 1] = npu_side ? "No bench data matched." : "Bench api/module unmatched.";
    c[msg + 2] = "unmatched";
    c[msg + kOwn.size() + 1] = "";
    return c;
  };
  for (const DumpEntry* e : r.unmatched_a) row(out, unmatched(*e, true));
  for (const DumpEntry* e : r.unmatched_b) row(out, unmatched(*e, false));
  return out;
}

}  // namespace banjia::compare
