#include "compare/noise_model.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <unordered_map>

#include <fmt/format.h>

#include "compare/comparison.h"
#include "compare/noise_parameters.h"

namespace banjia::compare {

std::string_view phase_name(Phase p) {
  switch (p) {
    case Phase::kForward: return "forward";
    case Phase::kBackward: return "backward";
    case Phase::kParamGrad: return "param_grad";
  }
  return "forward";
}

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

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
struct Observed {
  double rel = 0, rms_b = 0;
  bool known = false;
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
  relative(diff(a.max, b.max), maxabs);
  relative(diff(a.min, b.min), maxabs);
  return o;
}

class NoiseModel {
 public:
  NoiseModel(const Dump& a, const Dump& b, CompareResult& r)
      : p_(noise_parameters()), r_(r),
        f32_a_(float32_compute_precision(a.meta)), f32_b_(float32_compute_precision(b.meta)) {
    index_modules();
  }

  void run() {
    double forward_max = 0, all_max = 0;
    std::map<Phase, double> previous_rms;
    for (size_t i = 0; i < r_.entries.size(); ++i) {
      EntryResult& e = r_.entries[i];
      Phase phase = phase_of(*e.a);
      e.noise.phase = phase;
      const Observed& o = observed_[i];
      if (!e.numeric || !o.known) {
        if (phase != Phase::kParamGrad && o.rms_b > 0) previous_rms[phase] = o.rms_b;
        continue;
      }
      double scale = phase == Phase::kParamGrad ? grad_scale_[owner_module(*e.a, phase)] : previous_rms[phase];
      double e_in = phase == Phase::kForward ? forward_max : all_max;
      assess(e, o, scale, e_in);
      if (!e.noise.near_zero && std::isfinite(e.noise.error)) {
        if (phase == Phase::kForward) forward_max = std::max(forward_max, e.noise.error);
        if (phase != Phase::kParamGrad) all_max = std::max(all_max, e.noise.error);
      }
      if (phase != Phase::kParamGrad) previous_rms[phase] = o.rms_b;
    }
    locate();
  }

 private:
  // Observes every entry once: parameter gradients need their module's scale before they are judged.
  void index_modules() {
    observed_.reserve(r_.entries.size());
    for (const EntryResult& e : r_.entries) {
      observed_.push_back(e.numeric ? observe(e) : Observed{});
      Phase phase = phase_of(*e.a);
      const std::string module = owner_module(*e.a, phase);
      if (phase == Phase::kBackward && !grad_output_numel_.contains(module))
        if (auto n = numel(e.shape_a)) grad_output_numel_[module] = *n;
      if (phase == Phase::kForward && !forward_roundoff_.contains(module))
        forward_roundoff_[module] = std::max(entry_roundoff(e.a->dtype, e.a->autocast, f32_a_),
                                             entry_roundoff(e.b->dtype, e.b->autocast, f32_b_));
      if (phase == Phase::kParamGrad && e.numeric) {
        grad_scale_[module] = std::max(grad_scale_[module], observed_.back().rms_b);
      }
    }
  }

  // One side's precision for an entry: its dtype, coarsened by autocast and, for float32, by what
  // the run allowed float32 math to use (TF32, HF32, bfloat16 matmuls).
  double entry_roundoff(const std::string& dtype, const std::string& autocast, const std::string& f32) const {
    double u = unit_roundoff(dtype);
    if (u == unit_roundoff("float32")) u = std::max(u, unit_roundoff(f32));
    if (u > 0 && !autocast.empty()) u = std::max(u, unit_roundoff(autocast));
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
    n.unit_roundoff = std::max(entry_roundoff(e.dtype_a, e.a->autocast, f32_a_),
                               entry_roundoff(e.dtype_b, e.b->autocast, f32_b_));
    if (phase == Phase::kParamGrad)
      if (auto it = forward_roundoff_.find(owner_module(*e.a, phase)); it != forward_roundoff_.end())
        n.unit_roundoff = std::max(n.unit_roundoff, it->second);
    n.reduction = reduction_of(e, phase);
    // Forward and output-gradient math accumulates in float32 (or wider); a parameter gradient's
    // batch reduction may run in the low precision itself.
    double u_acc = phase == Phase::kParamGrad ? n.unit_roundoff : std::min(n.unit_roundoff, unit_roundoff("float32"));
    n.local_floor = p_.round * n.unit_roundoff + p_.accumulate * u_acc * std::sqrt(static_cast<double>(n.reduction));
    double growth = phase == Phase::kForward ? p_.growth_forward
                    : phase == Phase::kBackward ? p_.growth_backward : p_.growth_param;
    n.input_error = e_in;
    n.floor = std::max(n.local_floor, growth * e_in);
    n.error = o.rel;
    // Forward and output gradients are near zero against their rounding alone; a parameter gradient
    // against its whole floor (a bias before a BatchNorm sums to zero up to the noise of its sum).
    double zero_level = phase == Phase::kParamGrad ? n.floor : n.local_floor;
    if (scale > 0 && o.rms_b < zero_level * scale) {
      n.near_zero = true;
      n.error = o.rel * o.rms_b / scale;  // the absolute error over the layer's scale
    }
    n.ill_conditioned = phase == Phase::kForward && is_batchnorm(*e.a) && e.a->training != false &&
                        n.reduction < p_.batchnorm_min_values;
    n.ratio = n.error == 0 ? 0 : n.floor > 0 ? n.error / n.floor : kInf;
    e.status = n.ratio <= 1 ? Status::kPass : n.ratio <= p_.clear_factor ? Status::kWarn : Status::kFail;
    if ((n.near_zero || n.ill_conditioned) && e.status == Status::kFail) e.status = Status::kWarn;
    if (e.status != Status::kPass) {
      std::string why = n.near_zero ? "near zero: error over its layer's scale"
                        : n.ill_conditioned ? fmt::format("BatchNorm (values per channel: {})", n.reduction)
                                            : "relative error";
      std::string note = fmt::format("{} {:.3g} is {:.1f}x its noise floor {:.3g} (inputs' error {:.3g})", why,
                                     n.error, n.ratio, n.floor, n.input_error);
      e.message = e.message.empty() ? note : note + "; " + e.message;
    }
  }

  void locate() {
    auto suspect_in = [&](Phase phase) -> std::optional<size_t> {
      for (size_t i = 0; i < r_.entries.size(); ++i) {
        const NoiseAssessment& n = r_.entries[i].noise;
        if (n.assessed && n.phase == phase && n.ratio > p_.clear_factor && !n.near_zero && !n.ill_conditioned)
          return i;
      }
      return std::nullopt;
    };
    r_.suspect = suspect_in(Phase::kForward);
    if (!r_.suspect) r_.suspect = suspect_in(Phase::kBackward);
    for (size_t i = 0; i < r_.entries.size(); ++i) {
      const NoiseAssessment& n = r_.entries[i].noise;
      if (n.assessed && n.phase == Phase::kParamGrad && n.ratio > 1) r_.gradient_ranking.push_back(i);
    }
    std::stable_sort(r_.gradient_ranking.begin(), r_.gradient_ranking.end(), [&](size_t x, size_t y) {
      return r_.entries[x].noise.ratio > r_.entries[y].noise.ratio;
    });
    r_.clear_factor = p_.clear_factor;
  }

  const NoiseParameters& p_;
  CompareResult& r_;
  std::string f32_a_, f32_b_;
  std::unordered_map<std::string, int64_t> grad_output_numel_;
  std::unordered_map<std::string, double> forward_roundoff_;
  std::unordered_map<std::string, double> grad_scale_;
  std::vector<Observed> observed_;  // per entry, in r_.entries order
};

}  // namespace

void apply_noise_model(const Dump& a, const Dump& b, CompareResult& r) { NoiseModel(a, b, r).run(); }

}  // namespace banjia::compare
