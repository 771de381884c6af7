#include <cmath>

#include "common/json_writer.h"
#include "compare/report/render.h"

namespace banjia::compare {

namespace {

void shape(JsonWriter& w, const char* key, const std::vector<int64_t>& s) {
  w.key(key).begin_array();
  for (int64_t d : s) w.value(d);
  w.end_array();
}

// JSON has no nan or infinity: a non-finite statistic is null, and "nonfinite" names its value.
void stats(JsonWriter& w, const char* key, const SummaryStats& s) {
  w.key(key).begin_object();
  w.field("max", s.max).field("min", s.min).field("mean", s.mean).field("norm", s.norm);
  w.field("nan", s.nan_count).field("inf", s.inf_count);
  bool any = false;
  for (auto [name, v] : {std::pair{"max", &s.max}, {"min", &s.min}, {"mean", &s.mean}, {"norm", &s.norm}}) {
    if (!*v || std::isfinite(**v)) continue;
    if (!any) w.key("nonfinite").begin_object();
    any = true;
    w.field(name, std::isnan(**v) ? "nan" : **v > 0 ? "inf" : "-inf");
  }
  if (any) w.end_object();
  w.end_object();
}

void noise(JsonWriter& w, const NoiseAssessment& n) {
  w.field("phase", phase_name(n.phase));
  if (!n.assessed) {
    w.key("noise").null();
    return;
  }
  w.key("noise").begin_object().field("error", n.error).field("floor", n.floor).field("ratio", n.ratio);
  w.field("ratio_infinite", std::isinf(n.ratio)).field("local_floor", n.local_floor);
  w.field("input_error", n.input_error).field("unit_roundoff", n.unit_roundoff);
  w.field("reduction", n.reduction).field("near_zero", n.near_zero).field("ill_conditioned", n.ill_conditioned);
  w.key("history_ratio");
  if (n.history_ratio >= 0) w.value(n.history_ratio);
  else w.null();
  w.field("history_jump", n.history_jump).field("own_inputs", n.own_inputs).field("sketched", n.sketched);
  w.end_object();
}

void noise_ref(JsonWriter& w, const CompareResult& r, size_t i) {
  const EntryResult& e = r.entries[i];
  w.begin_object().field("key", e.a->key).field("module", display_module(*e.a)).field("phase", phase_name(e.noise.phase));
  w.field("status", status_name(e.status)).field("error", e.noise.error).field("floor", e.noise.floor);
  w.field("ratio", e.noise.ratio).field("input_error", e.noise.input_error).end_object();
}

void entry_ref(JsonWriter& w, const DumpEntry& e) {
  w.begin_object().field("key", e.key).field("module", e.module).field("type", e.type).field("dtype", e.dtype);
  shape(w, "shape", e.shape);
  w.end_object();
}

void located(JsonWriter& w, const CompareResult& r, const std::optional<size_t>& i, bool side_a) {
  if (!i) {
    w.null();
    return;
  }
  const EntryResult& e = r.entries[*i];
  w.begin_object().field("key", e.a->key).field("module", display_module(*e.a)).field("status", status_name(e.status));
  if (e.metrics) {
    const SideStats& s = side_a ? e.metrics->a : e.metrics->b;
    w.field("nan", s.nan).field("inf", s.inf);
  }
  w.end_object();
}

void dump_info(JsonWriter& w, const char* key, const Dump& d) {
  w.key(key).begin_object().field("path", d.path).field("format", d.format).field("task", d.task);
  w.key("meta").begin_object();
  for (const auto& [k, v] : d.meta) w.field(k, v);
  w.end_object().field("entries", static_cast<uint64_t>(d.entries.size())).end_object();
}

void metrics(JsonWriter& w, const EntryResult& e) {
  const PairMetrics* m = e.metrics ? &*e.metrics : nullptr;
  auto opt = [&](double v) { return m ? std::optional<double>(v) : std::nullopt; };
  w.field("cosine", opt(m ? m->cosine : 0)).field("max_abs_err", opt(m ? m->max_abs_err : 0));
  w.field("max_rel_err", opt(m ? m->max_rel_err : 0)).field("rmse", opt(m ? m->rmse : 0));
  w.field("mean_abs_err", opt(m ? m->mean_abs_err : 0)).field("euc_dist", opt(m ? m->euc_dist : 0));
  w.field("rel_l2_err", opt(m ? m->rel_l2_err : 0));
  w.field("one_thousandth_err_ratio", opt(m ? m->one_thousandth_ratio : 0));
  w.field("five_thousandths_err_ratio", opt(m ? m->five_thousandths_ratio : 0));
  w.field("allclose_mismatch_fraction", opt(m ? m->allclose_mismatch_fraction : 0));
  w.field("rtol", e.tol.rtol).field("atol", e.tol.atol);
  w.field("numel", m ? std::optional<int64_t>(m->count) : std::nullopt);
  w.field("nan_a", m ? std::optional<int64_t>(m->a.nan) : std::nullopt);
  w.field("inf_a", m ? std::optional<int64_t>(m->a.inf) : std::nullopt);
  w.field("nan_b", m ? std::optional<int64_t>(m->b.nan) : std::nullopt);
  w.field("inf_b", m ? std::optional<int64_t>(m->b.inf) : std::nullopt);
}

}  // namespace

std::string render_dump_json(const Dump& a, const Dump& b, const CompareResult& r) {
  JsonWriter w(true);
  w.begin_object();
  dump_info(w, "a", a);
  dump_info(w, "b", b);
  w.key("summary").begin_object();
  w.field("compared", static_cast<uint64_t>(r.entries.size()));
  for (Status s : {Status::kPass, Status::kSkipped, Status::kWarn, Status::kFail, Status::kError})
    w.field(status_name(s), static_cast<uint64_t>(r.count(s)));
  w.field("unmatched_a", static_cast<uint64_t>(r.unmatched_a.size()));
  w.field("unmatched_b", static_cast<uint64_t>(r.unmatched_b.size()));
  w.end_object();
  w.key("entries").begin_array();
  for (const EntryResult& e : r.entries) {
    w.begin_object().field("key", e.a->key);
    if (e.b->key != e.a->key) w.field("key_b", e.b->key);
    w.field("module", display_module(*e.a)).field("type", e.a->type);
    w.field("match", e.fuzzy ? "name_shape" : "key").field("mode", e.mode);
    w.field("status", status_name(e.status)).field("message", e.message);
    w.field("dtype_a", e.dtype_a).field("dtype_b", e.dtype_b);
    shape(w, "shape_a", e.shape_a);
    shape(w, "shape_b", e.shape_b);
    metrics(w, e);
    w.field("msprobe_result", e.msprobe_result);
    if (e.mode == "tensor") w.field("dtype_verdict", e.metrics ? (e.dtype_pass ? "pass" : "fail") : "");
    w.field("would_overflow_fp16", static_cast<int64_t>(e.ref_beyond_fp16));
    if (e.metrics) w.field("nonfinite_positions_match", e.metrics->nonfinite_position_mismatches == 0);
    noise(w, e.noise);
    w.field("mask_or_index", e.mask_or_index);
    stats(w, "stats_a", e.stats_a);
    stats(w, "stats_b", e.stats_b);
    w.key("stats_rel_err").begin_object();
    const char* names[4] = {"max", "min", "mean", "norm"};
    for (int i = 0; i < 4; ++i) w.field(names[i], e.stats_diff.rel[i]);
    w.end_object();
    w.end_object();
  }
  w.end_array();
  w.key("unmatched").begin_object();
  w.key("a").begin_array();
  for (const DumpEntry* e : r.unmatched_a) entry_ref(w, *e);
  w.end_array().key("b").begin_array();
  for (const DumpEntry* e : r.unmatched_b) entry_ref(w, *e);
  w.end_array().end_object();
  w.key("suspect");
  if (r.suspect) noise_ref(w, r, *r.suspect);
  else w.null();
  w.key("gradient_ranking").begin_array();
  for (size_t i : r.gradient_ranking) noise_ref(w, r, i);
  w.end_array();
  w.field("clear_factor", r.clear_factor).field("history_factor", r.history_factor);
  w.key("first_divergence");
  located(w, r, r.first_divergence, true);
  w.key("first_nonfinite").begin_object().key("a");
  located(w, r, r.first_nonfinite_a, true);
  w.key("b");
  located(w, r, r.first_nonfinite_b, false);
  w.key("masks_skipped").begin_object().field("a", static_cast<uint64_t>(r.masks_skipped_a));
  w.field("b", static_cast<uint64_t>(r.masks_skipped_b)).end_object();
  w.end_object();
  w.key("first_fp16_overflow_in_reference");
  located(w, r, r.first_ref_beyond_fp16, false);
  w.key("error_growth");
  if (r.growth) {
    w.begin_object();
    for (auto [name, i] : {std::pair{"first_nonzero", r.growth->first_nonzero}, std::pair{"peak", r.growth->peak},
                           std::pair{"last", r.growth->last}}) {
      const EntryResult& e = r.entries[i];
      w.key(name).begin_object().field("key", e.a->key).field("rel_l2_err", e.metrics->rel_l2_err).end_object();
    }
    w.end_object();
  } else {
    w.null();
  }
  w.key("largest_error_jump");
  if (r.largest_jump) {
    const EntryResult& e = r.entries[r.largest_jump->index];
    w.begin_object().field("key", e.a->key).field("module", display_module(*e.a));
    w.field("factor", r.largest_jump->factor).field("baseline_rel_l2_err", r.largest_jump->baseline);
    w.field("rel_l2_err", e.metrics->rel_l2_err).end_object();
  } else {
    w.null();
  }
  w.end_object();
  std::string out = w.take();
  out += '\n';
  return out;
}

std::string display_module(const DumpEntry& e) { return e.module.empty() ? e.key : e.module; }

}  // namespace banjia::compare
