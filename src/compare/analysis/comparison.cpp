#include "compare/analysis/comparison.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <map>
#include <unordered_map>

#include <fmt/format.h>

#include "common/thread_pool.h"
#include "compare/analysis/noise_model.h"

namespace banjia::compare {

namespace {

bool stat_nonfinite(const SummaryStats& s) {
  for (const auto* v : {&s.max, &s.min, &s.mean, &s.norm})
    if (*v && !std::isfinite(**v)) return true;
  return s.nan_count.value_or(0) > 0 || s.inf_count.value_or(0) > 0;
}

int64_t stat_nonfinite_count(const SummaryStats& s) {
  int64_t n = s.nan_count.value_or(0) + s.inf_count.value_or(0);
  return n > 0 ? n : (stat_nonfinite(s) ? 1 : 0);  // stats without counts: "at least one"
}

bool is_float(const std::string& dtype) {
  DType t;
  return parse_dtype_name(dtype, t) && dtype_is_float(t);
}

SummaryStats stats_of(const SideStats& s) {
  SummaryStats out;
  out.max = s.max; out.min = s.min; out.mean = s.mean; out.norm = s.norm;
  out.nan_count = s.nan; out.inf_count = s.inf;
  return out;
}

void score_statistics(EntryResult& r) {
  r.mode = "statistics";
  r.stats_diff = compare_stats(r.stats_a, r.stats_b);
  r.nonfinite_a = stat_nonfinite_count(r.stats_a);
  r.nonfinite_b = stat_nonfinite_count(r.stats_b);
  if (r.stats_b.max && r.stats_b.min && is_float(r.dtype_b))
    r.ref_beyond_fp16 = std::max(std::fabs(*r.stats_b.max), std::fabs(*r.stats_b.min)) > 65504.0;
  if (!r.stats_diff.any) {
    bool empty = !r.shape_a.empty() && !r.shape_b.empty() && r.shape_a == r.shape_b &&
                 std::find(r.shape_a.begin(), r.shape_a.end(), 0) != r.shape_a.end();
    r.status = empty ? Status::kSkipped : Status::kError;
    r.message = empty ? "This is empty data, can not compare." : "No statistics on both sides to compare.";
    return;
  }
  r.msprobe_result = r.stats_diff.warning ? "Warning" : "";
  if ((r.nonfinite_a > 0) != (r.nonfinite_b > 0)) {
    r.status = Status::kFail;
    r.message = "nan/inf on one side only.";
  } else {
    // msprobe's warning stays in msprobe_result and the message; the noise model decides the status.
    if (r.stats_diff.warning) r.message = "Need double check api accuracy.";
    r.status = Status::kPass;
    r.numeric = true;
  }
}

void score_tensors(EntryResult& r, const NpyView& va, const NpyView& vb) {
  r.mode = "tensor";
  r.shape_a = va.shape;
  r.shape_b = vb.shape;
  if (va.shape != vb.shape) {
    r.status = Status::kFail;
    r.msprobe_result = "Unmatched";
    r.message = "Shape of NPU and bench Tensor do not match. Skipped.";
    return;
  }
  if (va.count == 0) {
    r.status = Status::kSkipped;
    r.message = "This is empty data, can not compare.";
    return;
  }
  r.tol = tolerance_for_pair(r.dtype_a, r.dtype_b);
  PairMetrics m = compute_metrics(va, vb, r.tol);
  r.stats_a = stats_of(m.a);
  r.stats_b = stats_of(m.b);
  r.stats_diff = compare_stats(r.stats_a, r.stats_b);
  r.nonfinite_a = m.a.nan + m.a.inf;
  r.nonfinite_b = m.b.nan + m.b.inf;
  r.ref_beyond_fp16 = is_float(r.dtype_b) ? m.b.beyond_fp16 : 0;
  r.msprobe_result = msprobe_accuracy(m);
  r.dtype_pass = m.allclose_mismatches == 0;
  if (m.nonfinite_position_mismatches > 0) {
    // msprobe reports every metric as N/A here: values over the finite positions alone would mislead.
    for (double* v : {&m.cosine, &m.euc_dist, &m.max_abs_err, &m.max_rel_err, &m.rmse, &m.mean_abs_err,
                      &m.rel_l2_err, &m.one_thousandth_ratio, &m.five_thousandths_ratio})
      *v = std::nan("");
    r.message = "The Position of inf or nan in NPU and bench Tensor do not match.";
  } else if (va.shape.empty()) {
    r.message = "This is type of 0-d tensor, can not calculate 'Cosine', 'EucDist', 'One Thousandth Err Ratio' "
                "and 'Five Thousandths Err Ratio'.";
  } else if (m.cosine_state == CosineState::kOneZero) {
    r.message = "All the data is Zero in npu/Bench dump data.";
  } else if (!r.dtype_pass) {
    r.message = fmt::format("Mismatched elements: {} / {} ({:.1f}%) at rtol={:g}, atol={:g}", m.allclose_mismatches,
                            m.count, 100.0 * m.allclose_mismatch_fraction, r.tol.rtol, r.tol.atol);
  }
  if (r.dtype_a != r.dtype_b && !r.message.empty()) r.message += " ";
  if (r.dtype_a != r.dtype_b) r.message += "Dtype of NPU and bench Tensor do not match.";
  r.metrics = m;
  if (m.nonfinite_position_mismatches > 0) {
    r.status = Status::kFail;
    return;
  }
  r.status = Status::kPass;
  r.numeric = true;
}

std::string original_dtype(const DumpEntry& e, const LoadedTensor& t, bool loaded) {
  if (!e.dtype.empty()) {
    DType d;
    if (parse_dtype_name(e.dtype, d)) return std::string(dtype_name(d));
    return e.dtype;
  }
  return loaded ? std::string(dtype_name(t.view.dtype)) : std::string();
}

void score_pair(const Dump& da, const Dump& db, EntryResult& r) {
  const DumpEntry& a = *r.a;
  const DumpEntry& b = *r.b;
  r.shape_a = a.shape;
  r.shape_b = b.shape;
  bool data_a = a.data != DataKind::kNone, data_b = b.data != DataKind::kNone;
  LoadedTensor ta, tb;
  std::string err_a = data_a ? load_tensor(da, a, ta) : "", err_b = data_b ? load_tensor(db, b, tb) : "";
  r.dtype_a = original_dtype(a, ta, data_a && err_a.empty());
  r.dtype_b = original_dtype(b, tb, data_b && err_b.empty());
  if (!err_a.empty() || !err_b.empty()) {
    r.status = Status::kError;
    r.mode = "tensor";
    r.message = !err_a.empty() ? "NPU: " + err_a : "";
    if (!err_b.empty()) r.message += (r.message.empty() ? "Bench: " : "; Bench: ") + err_b;
    return;
  }
  if (data_a && data_b) return score_tensors(r, ta.view, tb.view);
  // At least one side has statistics only: compare statistics (derived from the tensor if needed).
  auto side = [](const DumpEntry& e, bool data, const LoadedTensor& t) {
    if (!data) return e.stats;
    return stats_of(compute_metrics(t.view, t.view, Tolerance{}).a);
  };
  r.stats_a = side(a, data_a, ta);
  r.stats_b = side(b, data_b, tb);
  if (data_a) r.shape_a = ta.view.shape;
  if (data_b) r.shape_b = tb.view.shape;
  // Sketches are compared only under one scheme: a tensor side is sketched under the other's.
  const std::optional<SketchScheme> scheme = da.sketch ? da.sketch : db.sketch;
  if (scheme && (!da.sketch || !db.sketch || *da.sketch == *db.sketch)) {
    if (data_a && !r.stats_b.sketch.empty()) r.stats_a.sketch = sketch_of(ta.view, *scheme);
    if (data_b && !r.stats_a.sketch.empty()) r.stats_b.sketch = sketch_of(tb.view, *scheme);
  } else {
    r.stats_a.sketch.clear();
    r.stats_b.sketch.clear();
  }
  score_statistics(r);
}

// Exact keys first; what is left pairs by (name without call count, shape), first come first served.
void match(const Dump& a, const Dump& b, CompareResult& out) {
  if (a.format == "npy" && b.format == "npy" && a.entries.size() == 1 && b.entries.size() == 1) {
    // Two single .npy files: compare them whatever their names.
    EntryResult r;
    r.a = &a.entries[0];
    r.b = &b.entries[0];
    out.entries.push_back(std::move(r));
    return;
  }
  std::unordered_map<std::string, size_t> by_key;
  for (size_t i = 0; i < b.entries.size(); ++i) by_key.emplace(b.entries[i].key, i);
  std::vector<bool> used_b(b.entries.size(), false);
  std::vector<std::optional<size_t>> pair_of(a.entries.size());
  for (size_t i = 0; i < a.entries.size(); ++i) {
    auto it = by_key.find(a.entries[i].key);
    if (it != by_key.end() && !used_b[it->second]) {
      pair_of[i] = it->second;
      used_b[it->second] = true;
    }
  }
  auto fuzzy_key = [](const DumpEntry& e, const std::string& format) {
    return name_without_call_count(e, format) + "|" + shape_string(e.shape);
  };
  std::map<std::string, std::deque<size_t>> queues;
  for (size_t j = 0; j < b.entries.size(); ++j)
    if (!used_b[j]) queues[fuzzy_key(b.entries[j], b.format)].push_back(j);
  std::vector<bool> fuzzy(a.entries.size(), false);
  for (size_t i = 0; i < a.entries.size(); ++i) {
    if (pair_of[i]) continue;
    auto it = queues.find(fuzzy_key(a.entries[i], a.format));
    if (it == queues.end() || it->second.empty()) continue;
    pair_of[i] = it->second.front();
    it->second.pop_front();
    used_b[*pair_of[i]] = true;
    fuzzy[i] = true;
  }
  for (size_t i = 0; i < a.entries.size(); ++i) {
    if (!pair_of[i]) {
      out.unmatched_a.push_back(&a.entries[i]);
      continue;
    }
    EntryResult r;
    r.a = &a.entries[i];
    r.b = &b.entries[*pair_of[i]];
    r.fuzzy = fuzzy[i];
    out.entries.push_back(std::move(r));
  }
  for (size_t j = 0; j < b.entries.size(); ++j)
    if (!used_b[j]) out.unmatched_b.push_back(&b.entries[j]);
}

void localise(CompareResult& out) {
  double baseline = 0;
  for (size_t i = 0; i < out.entries.size(); ++i) {
    const EntryResult& r = out.entries[i];
    if (!out.first_divergence && (r.status == Status::kFail || r.status == Status::kWarn)) out.first_divergence = i;
    // A mask filled with -inf is non-finite by construction: where the overflow starts is elsewhere.
    if (!out.first_nonfinite_a && r.nonfinite_a > 0) {
      if (r.mask_or_index) ++out.masks_skipped_a;
      else out.first_nonfinite_a = i;
    }
    if (!out.first_nonfinite_b && r.nonfinite_b > 0) {
      if (r.mask_or_index) ++out.masks_skipped_b;
      else out.first_nonfinite_b = i;
    }
    if (!out.first_ref_beyond_fp16 && r.ref_beyond_fp16 > 0) out.first_ref_beyond_fp16 = i;
    if (!r.metrics || r.metrics->nonfinite_position_mismatches > 0) continue;
    double e = r.metrics->rel_l2_err;
    if (!std::isfinite(e)) continue;
    if (e > 0) {
      if (!out.growth) out.growth = ErrorGrowth{i, i, i};
      if (e > out.entries[out.growth->peak].metrics->rel_l2_err) out.growth->peak = i;
    }
    if (out.growth) out.growth->last = i;
    // A jump is measured against the largest error seen so far: the first nonzero difference has
    // no baseline and is not a jump (baseline noise such as TF32 appears there), and a rise by no
    // more than one forward module may add in noise (jump_min) is not one either.
    if (baseline > 0 && e > out.jump_min * baseline && e > baseline) {
      double factor = e / baseline;
      if (!out.largest_jump || factor > out.largest_jump->factor) out.largest_jump = ErrorJump{i, factor, baseline};
    }
    baseline = std::max(baseline, e);
  }
}

}  // namespace

CompareResult compare_dumps(const Dump& a, const Dump& b, const CompareOptions& options) {
  CompareResult out;
  match(a, b, out);
  parallel_for(out.entries.size(), worker_count(options.threads),
               [&](size_t i) { score_pair(a, b, out.entries[i]); });
  apply_noise_model(a, b, out);
  localise(out);
  return out;
}

}  // namespace banjia::compare
