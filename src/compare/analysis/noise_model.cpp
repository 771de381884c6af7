#include "compare/analysis/noise_model.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>

#include "compare/analysis/compare_result.h"
#include "compare/analysis/noise_parameters.h"

namespace banjia::compare {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
// Relative error above which a tensor below its layer's scale counts as zero in exact arithmetic
// (two samples of rounding noise differ by about their own size: sqrt(2) for independent ones).
constexpr double kNearZeroRelative = 0.5;

Phase phase_of(const DumpEntry& e) {
  if (e.key.starts_with("grad.") || e.key.find("parameters_grad") != std::string::npos) return Phase::kParamGrad;
  if (e.key.find(".backward") != std::string::npos) return Phase::kBackward;
  return Phase::kForward;
}

// The module a parameter gradient belongs to: "grad.blocks.0.ln1.weight" -> "blocks.0.ln1".
std::string owner_module(const DumpEntry& e, Phase phase) {
  if (phase != Phase::kParamGrad || !e.key.starts_with("grad.")) return e.module;
  std::string path = e.key.substr(5);
  auto dot = path.rfind('.');
  return dot == std::string::npos ? std::string() : path.substr(0, dot);
}

std::optional<int64_t> numel(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0 || (d > 0 && n > std::numeric_limits<int64_t>::max() / d)) return std::nullopt;
    n *= d;
  }
  return n;
}

bool is_batchnorm(const DumpEntry& e) { return e.type.find("BatchNorm") != std::string::npos; }

// The reference's RMS and the relative error, from tensor metrics or (statistics) from the four
// summary statistics: each difference bounds the elementwise error from below, and each is taken
// relative to the tensor's own scale, so a mean near zero (a normalisation's output) is no signal.
// With count sketches on both sides, the relative error is estimated as a tensor comparison measures
// it (‖a − b‖ / ‖b‖, compare/model/count_sketch.h), bounded below by what the norms and means prove.
struct Observed {
  double rel = 0, rms_b = 0;
  bool known = false;
  bool sketched = false;  // rel estimated from sketches (not a lower bound)
};

Observed observe(const EntryResult& r) {
  Observed o;
  if (r.metrics) {
    const PairMetrics& m = *r.metrics;
    if (m.count == 0) return o;
    o.rms_b = m.b.norm / std::sqrt(static_cast<double>(m.count));
    o.rel = m.rmse == 0 ? 0 : o.rms_b > 0 ? m.rmse / o.rms_b : kInf;
    o.known = std::isfinite(m.rmse);
    return o;
  }
  const SummaryStats &a = r.stats_a, &b = r.stats_b;
  auto n = numel(r.shape_b);
  if (b.norm && std::isfinite(*b.norm) && n && *n > 0) o.rms_b = *b.norm / std::sqrt(static_cast<double>(*n));
  double maxabs = 0;
  for (auto* v : {&b.max, &b.min})
    if (*v && std::isfinite(**v)) maxabs = std::max(maxabs, std::fabs(**v));
  if (o.rms_b == 0) o.rms_b = maxabs;
  auto diff = [](const std::optional<double>& x, const std::optional<double>& y) -> std::optional<double> {
    if (!x || !y) return std::nullopt;
    if (*x == *y || (std::isnan(*x) && std::isnan(*y))) return 0.0;  // equal infinities, nan on both sides
    return std::fabs(*x - *y);
  };
  auto relative = [&](std::optional<double> d, double scale) {
    if (!d) return;
    o.known = true;
    double e = *d == 0 ? 0 : scale > 0 ? *d / scale : kInf;
    o.rel = std::max(o.rel, e);
  };
  relative(diff(a.norm, b.norm), b.norm && std::isfinite(*b.norm) ? std::fabs(*b.norm) : 0);
  relative(diff(a.mean, b.mean), o.rms_b);
  if (auto d = sketch_distance(a.sketch, b.sketch); d && b.norm && std::isfinite(*b.norm)) {
    // ‖a − b‖ ≥ |‖a‖ − ‖b‖| and ≥ √n |mean(a) − mean(b)|: the two bounds above hold for the
    // estimate too; the extremes bound the largest error, not the RMS one, and are left out.
    relative(d, std::fabs(*b.norm));
    o.sketched = true;
    return o;
  }
  relative(diff(a.max, b.max), maxabs);
  relative(diff(a.min, b.min), maxabs);
  return o;
}

// Modules that have recorded descendants: their output's error is covered by their children's.
std::unordered_set<std::string> modules_with_children(const CompareResult& r) {
  std::unordered_set<std::string> out;
  for (const EntryResult& e : r.entries) {
    const std::string& m = e.a->module;
    if (m.empty()) continue;
    out.insert("");  // the root (module path "") holds every other module
    for (size_t dot = m.find('.'); dot != std::string::npos; dot = m.find('.', dot + 1)) out.insert(m.substr(0, dot));
  }
  return out;
}

// The entry's role: its key without the call counter and with every all-digit path component (layer
// index, call count) replaced by '*': "0020.transformer.h.1.ln_2.forward.output" and
// "grad.transformer.h.1.ln_2.weight" -> "transformer.h.*.ln_2.forward.output", "grad.transformer.h.*.ln_2.weight".
std::string role_of(const std::string& key) {
  std::string out;
  size_t start = 0;
  bool first = true;
  while (start <= key.size()) {
    size_t dot = key.find('.', start);
    std::string_view part(key.data() + start, (dot == std::string::npos ? key.size() : dot) - start);
    bool digits = !part.empty() && std::all_of(part.begin(), part.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (!(first && digits)) {
      if (!out.empty()) out += '.';
      out += digits ? std::string_view("*") : part;
    }
    first = false;
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return out;
}

bool is_mask_or_index_impl(const std::string& dtype, const SummaryStats& s) {
  DType t;
  if (!parse_dtype_name(dtype, t)) return false;
  if (!dtype_is_float(t)) return true;  // integer and bool tensors: indices, token ids, boolean masks
  // Lowest finite value per float dtype (torch.finfo(dtype).min): what masked_fill(mask, finfo.min)
  // writes. A value at half of it or beyond is a fill value, not data.
  const std::string name(dtype_name(t));
  double lowest = name == "float16" ? 65504.0 : name == "bfloat16" ? 3.3895313892515355e38
                  : name == "float64" ? 1.7976931348623157e308 : 3.4028234663852886e38;
  // A mask holds no nan and no +inf; an overflow (fp16 past 65504) usually holds both signs.
  if (s.nan_count.value_or(0) > 0 || (s.max && (std::isnan(*s.max) || *s.max == kInf))) return false;
  return s.min && (std::isinf(*s.min) ? *s.min < 0 : *s.min <= -0.5 * lowest);
}

class NoiseModel {
 public:
  NoiseModel(const Dump& a, const Dump& b, CompareResult& r)
      : p_(noise_parameters()), r_(r),
        f32_a_(float32_compute_precision(a.meta)), f32_b_(float32_compute_precision(b.meta)),
        has_children_(modules_with_children(r)) {
    index_modules();
  }

  void run() {
    double forward_max = 0, all_max = 0;
    std::map<Phase, double> previous_rms;
    std::unordered_map<std::string, double> role_max;
    for (size_t i = 0; i < r_.entries.size(); ++i) {
      EntryResult& e = r_.entries[i];
      Phase phase = phase_of(*e.a);
      e.noise.phase = phase;
      const Observed& o = observed_[i];
      const std::string owner = owner_module(*e.a, phase);
      if (phase == Phase::kForward && !forward_input_.contains(owner)) forward_input_[owner] = forward_max;
      if (!e.numeric || !o.known) {
        if (phase != Phase::kParamGrad && o.rms_b > 0 && !e.mask_or_index) previous_rms[phase] = o.rms_b;
        continue;
      }
      double scale = phase == Phase::kParamGrad ? grad_scale_[owner] : previous_rms[phase];
      double e_in = phase == Phase::kForward ? forward_max : all_max;
      // A parameter gradient is computed during its module's backward: later errors are not its inputs'
      // (all_max_at_backward_: the pass-wide largest error at its module's output gradient).
      if (phase == Phase::kParamGrad)
        if (auto it = all_max_at_backward_.find(owner); it != all_max_at_backward_.end()) e_in = it->second;
      // A module's input gradients are computed from its output gradient and its forward input
      // alone: judged against those, a wrong backward is pinned on its module. A module with
      // recorded children also passes its children's backward errors on: it keeps e_in. So does an
      // entry compared by statistics without sketches: its inputs' errors are lower bounds (a
      // shifted norm hides a permutation), too weak to stand for them. Parameter gradients keep e_in
      // too: their batch sums may cancel (a LayerNorm bias before a mean over tokens), which their
      // own inputs' errors do not bound: their floor keeps a wide local term for that (u_acc = u below).
      bool own = (is_input_grad(*e.a) || phase == Phase::kParamGrad) && !has_children_.contains(owner) &&
                 (e.metrics.has_value() || o.sketched);
      if (own && (grad_output_error_.contains(owner) || forward_input_.contains(owner))) {
        e_in = std::max({grad_output_error_[owner], forward_input_[owner], forward_output_error_[owner]});
        e.noise.own_inputs = true;
      }
      std::string role = role_of(e.a->key);
      auto history = role_max.find(role);
      e.noise.history_ratio = history == role_max.end() ? -1 : history->second;
      assess(e, o, scale, e_in);
      if (!e.mask_or_index && !e.noise.near_zero && std::isfinite(e.noise.error)) {
        if (phase == Phase::kForward) forward_max = std::max(forward_max, e.noise.error);
        if (phase != Phase::kParamGrad) all_max = std::max(all_max, e.noise.error);
        if (std::isfinite(e.noise.ratio)) role_max[role] = std::max(e.noise.history_ratio, e.noise.ratio);
        if (phase == Phase::kForward && !is_forward_input(*e.a))
          forward_output_error_[owner] = std::max(forward_output_error_[owner], e.noise.error);
        if (phase == Phase::kForward && is_forward_input(*e.a))
          forward_input_[owner] = std::max(forward_input_[owner], e.noise.error);
      }
      if (phase != Phase::kParamGrad && !e.mask_or_index) previous_rms[phase] = o.rms_b;
      // A parameter gradient is computed from its module's output gradient: what came after that
      // (the module's own input gradients included) is not its input.
      if (phase == Phase::kBackward && !is_input_grad(*e.a)) all_max_at_backward_[owner] = all_max;
    }
    locate();
  }

 private:
  static bool is_input_grad(const DumpEntry& e) { return e.key.find(".backward.grad_input") != std::string::npos; }
  static bool is_forward_input(const DumpEntry& e) { return e.key.find(".forward.input") != std::string::npos; }

  // Observes every entry once: parameter gradients need their module's scale before they are judged.
  void index_modules() {
    observed_.reserve(r_.entries.size());
    for (EntryResult& e : r_.entries) {
      // Both sides: a mask is one by construction in the reference too, an overflow is not.
      e.mask_or_index = is_mask_or_index(e.dtype_b.empty() ? e.dtype_a : e.dtype_b, e.stats_b) &&
                        is_mask_or_index(e.dtype_a.empty() ? e.dtype_b : e.dtype_a, e.stats_a);
      observed_.push_back(e.numeric ? observe(e) : Observed{});
      Phase phase = phase_of(*e.a);
      const std::string module = owner_module(*e.a, phase);
      if (phase == Phase::kBackward && !is_input_grad(*e.a)) {
        if (!grad_output_numel_.contains(module))
          if (auto n = numel(e.shape_a)) grad_output_numel_[module] = *n;
        // Known before the walk: an identity module (Dropout with p=0) passes the very tensor its
        // output gradient is, and the hook on its input may fire first.
        const Observed& o = observed_.back();
        if (o.known && std::isfinite(o.rel) && !e.mask_or_index)
          grad_output_error_[module] = std::max(grad_output_error_[module], o.rel);
      }
      if (phase == Phase::kForward && !is_forward_input(*e.a) && !forward_roundoff_.contains(module))
        // For its parameter gradients: their batch sums multiply the autocast region's low-precision
        // activations and gradients, whatever dtype this module's own output has.
        forward_roundoff_[module] = std::max(entry_roundoff(*e.a, e.a->dtype, f32_a_, true),
                                             entry_roundoff(*e.b, e.b->dtype, f32_b_, true));
      if (phase == Phase::kParamGrad && e.numeric) {
        grad_scale_[module] = std::max(grad_scale_[module], observed_.back().rms_b);
      }
    }
  }

  // One side's precision for an entry: its dtype, coarsened for float32 by what the run allowed
  // float32 math to use (TF32, HF32, bfloat16 matmuls), and by autocast unless the capture says the
  // module computes in its output's dtype (a torch.nn Embedding or LayerNorm stays float32 under
  // autocast) or the module has recorded children (whose errors its inputs' error already carries);
  // autocast_region: coarsened by autocast whatever the module (the precision around it).
  double entry_roundoff(const DumpEntry& e, const std::string& dtype, const std::string& f32,
                        bool autocast_region = false) const {
    double u = unit_roundoff(dtype);
    if (u == unit_roundoff("float32")) u = std::max(u, unit_roundoff(f32));
    bool computes_in_its_dtype =
        !autocast_region && (e.computes_in_output_dtype.value_or(false) || has_children_.contains(e.module));
    if (u > 0 && !e.autocast.empty() && !computes_in_its_dtype) u = std::max(u, unit_roundoff(e.autocast));
    return u;
  }

  int64_t reduction_of(const EntryResult& e, Phase phase) const {
    if (e.a->reduction > 0) return e.a->reduction;
    const std::vector<int64_t>& shape = e.shape_b.empty() ? e.shape_a : e.shape_b;
    if (phase == Phase::kParamGrad) {
      auto it = grad_output_numel_.find(owner_module(*e.a, phase));
      if (it == grad_output_numel_.end() || shape.empty() || shape[0] <= 0) return p_.parameter_reduction;
      return std::max<int64_t>(1, it->second / shape[0]);
    }
    if (phase == Phase::kForward && is_batchnorm(*e.a) && shape.size() >= 2 && shape[1] > 0)
      if (auto n = numel(shape)) return std::max<int64_t>(1, *n / shape[1]);
    int64_t last = shape.empty() ? 1 : shape.back();
    return std::max(last, p_.min_reduction);
  }

  void assess(EntryResult& e, const Observed& o, double scale, double e_in) {
    NoiseAssessment& n = e.noise;
    Phase phase = n.phase;
    n.assessed = true;
    n.unit_roundoff = std::max(entry_roundoff(*e.a, e.dtype_a, f32_a_), entry_roundoff(*e.b, e.dtype_b, f32_b_));
    if (phase == Phase::kParamGrad)
      if (auto it = forward_roundoff_.find(owner_module(*e.a, phase)); it != forward_roundoff_.end())
        n.unit_roundoff = std::max(n.unit_roundoff, it->second);
    n.reduction = reduction_of(e, phase);
    // Forward and output-gradient math accumulates in float32 (or wider): GPU tensor cores, Ascend
    // cube units and CPU kernels sum low-precision products in float32. A parameter gradient keeps u
    // for its batch sum: that sum may cancel (a LayerNorm bias before a mean over tokens), and
    // nothing else in its floor bounds how much.
    double u_acc = phase == Phase::kParamGrad ? n.unit_roundoff : std::min(n.unit_roundoff, unit_roundoff("float32"));
    n.local_floor = p_.round * n.unit_roundoff + p_.accumulate * u_acc * std::sqrt(static_cast<double>(n.reduction));
    double growth = phase == Phase::kForward ? p_.growth_forward
                    : phase == Phase::kBackward ? p_.growth_backward : p_.growth_param;
    n.input_error = e_in;
    n.floor = std::max(n.local_floor, growth * e_in);
    n.error = o.rel;
    n.sketched = o.sketched;
    // Forward and output gradients are near zero against their rounding alone; a parameter gradient
    // against its whole floor (a bias before a BatchNorm sums to zero up to the noise of its sum).
    double zero_level = phase == Phase::kParamGrad ? n.floor : n.local_floor;
    // Near zero means zero in exact arithmetic: the two sides then differ by about their own size.
    // A small tensor that agrees to a few percent is not zero, only small (a weight gradient beside
    // its bias gradient, where activations are small).
    if (scale > 0 && o.rms_b < zero_level * scale && o.rel > kNearZeroRelative) {
      n.near_zero = true;
      n.error = o.rel * o.rms_b / scale;  // the absolute error over the layer's scale
    }
    n.ill_conditioned = phase == Phase::kForward && is_batchnorm(*e.a) && e.a->training != false &&
                        n.reduction < p_.batchnorm_min_values;
    n.ratio = n.error == 0 ? 0 : n.floor > 0 ? n.error / n.floor : kInf;
    // The ratio already divides out the inputs' error: a role whose ratio rises well above what its
    // earlier layers showed gained error that its inputs do not explain.
    n.history_jump = n.ratio > 1 && n.history_ratio >= 0 && n.ratio > p_.history_factor * n.history_ratio;
    e.status = n.ratio <= 1 ? Status::kPass
               : n.ratio > p_.clear_factor || n.history_jump ? Status::kFail : Status::kWarn;
    if ((n.near_zero || n.ill_conditioned) && e.status == Status::kFail) e.status = Status::kWarn;
    if (e.status != Status::kPass) {
      std::string why = n.near_zero ? "near zero: error over its layer's scale"
                        : n.ill_conditioned ? fmt::format("BatchNorm (values per channel: {})", n.reduction)
                                            : "relative error";
      if (n.sketched) why += " (estimated from count sketches)";
      std::string note = fmt::format("{} {:.3g} is {:.1f}x its noise floor {:.3g} ({} {:.3g})", why, n.error,
                                     n.ratio, n.floor, n.own_inputs ? "its own inputs' error" : "inputs' error",
                                     n.input_error);
      if (n.history_ratio >= 0 && !n.near_zero)
        note += n.history_ratio > 0 ? fmt::format("; its role's largest ratio before it: {:.2g}", n.history_ratio)
                                    : "; its role showed no error before it";
      e.message = e.message.empty() ? note : note + "; " + e.message;
    }
  }

  void locate() {
    auto suspect_in = [&](Phase phase) -> std::optional<size_t> {
      for (size_t i = 0; i < r_.entries.size(); ++i) {
        const EntryResult& e = r_.entries[i];
        if (e.noise.assessed && e.noise.phase == phase && e.status == Status::kFail && !e.mask_or_index) return i;
      }
      return std::nullopt;
    };
    for (size_t i = 0; i < r_.entries.size(); ++i) {
      const NoiseAssessment& n = r_.entries[i].noise;
      if (n.assessed && n.phase == Phase::kParamGrad && n.ratio > 1) r_.gradient_ranking.push_back(i);
    }
    std::stable_sort(r_.gradient_ranking.begin(), r_.gradient_ranking.end(), [&](size_t x, size_t y) {
      return r_.entries[x].noise.ratio > r_.entries[y].noise.ratio;
    });
    r_.suspect = suspect_in(Phase::kForward);
    if (!r_.suspect) r_.suspect = suspect_in(Phase::kBackward);
    // Parameter gradients are written after the whole backward, out of execution order: the worst one
    // that fails names the module whose weight gradient alone is wrong.
    if (!r_.suspect && !r_.gradient_ranking.empty() && r_.entries[r_.gradient_ranking[0]].status == Status::kFail)
      r_.suspect = r_.gradient_ranking[0];
    r_.clear_factor = p_.clear_factor;
    r_.history_factor = p_.history_factor;
    r_.jump_min = p_.growth_forward;
  }

  const NoiseParameters& p_;
  CompareResult& r_;
  std::string f32_a_, f32_b_;
  std::unordered_set<std::string> has_children_;
  std::unordered_map<std::string, int64_t> grad_output_numel_;
  std::unordered_map<std::string, double> forward_roundoff_;
  std::unordered_map<std::string, double> grad_scale_;
  // per module: the largest forward error before its first forward output (its inputs' error, or
  // its recorded inputs'), of its forward outputs, of its output gradients
  std::unordered_map<std::string, double> forward_input_, forward_output_error_, grad_output_error_;
  std::unordered_map<std::string, double> all_max_at_backward_;  // all_max at its module's last output gradient
  std::vector<Observed> observed_;  // per entry, in r_.entries order
};

}  // namespace

bool is_mask_or_index(const std::string& dtype, const SummaryStats& s) { return is_mask_or_index_impl(dtype, s); }

void apply_noise_model(const Dump& a, const Dump& b, CompareResult& r) { NoiseModel(a, b, r).run(); }

}  // namespace banjia::compare
