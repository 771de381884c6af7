// small-gemm-batching: GEMM kernels grouped per step by the op (and input shape) that launched them; a
// group of many short ones is a loop of small matmuls that one batched matmul could replace.
#include <algorithm>
#include <fmt/format.h>
#include <map>
#include <set>
#include <tuple>

#include "trace/analysis/advisors/advisor.h"
#include "trace/analysis/id_map.h"
#include "trace/model/trace_model.h"

namespace banjia::trace::advisors {

namespace {
// Innermost (last written) host op for each External id in `kernels` (kernels and runtime calls
// carry the id of the op that launched them). Only the ids asked for are kept, so the map stays
// small and in cache while all host ops are scanned.
IdMap ops_by_external_id(const TraceData& t, const std::vector<size_t>& kernels) {
  IdMap m(kernels.size());
  for (size_t i : kernels)
    if (t.ext_id[i] != kNone) m.set(t.ext_id[i], -1);
  for (size_t i = 0; i < t.size(); ++i)
    if (t.kind[i] == Kind::host_op && t.ext_id[i] != kNone && m.find(t.ext_id[i])) m.set(t.ext_id[i], static_cast<int64_t>(i));
  return m;
}

double median(std::vector<double> v) { return dist_stats(std::move(v)).median_us; }
}  // namespace

void small_gemm_batching(const SummaryContext& ctx, const Summary& s, const AdvisorRule& r, std::vector<Finding>& out) {
  const TraceData& t = ctx.t;
  const auto& names = kernel_class_names();
  const int gemm = static_cast<int>(std::find(names.begin(), names.end(), "gemm") - names.begin());
  std::vector<size_t> kernels;
  for (size_t i = 0; i < t.size(); ++i)
    if (t.kind[i] == Kind::kernel && ctx.class_index(i) == gemm) kernels.push_back(i);
  auto ops = ops_by_external_id(t, kernels);
  // Calls are counted by launching op (one aten::mm may launch a GEMM and a split-K reduction).
  struct Group { std::vector<double> durs; std::set<int64_t> calls; int64_t first = INT64_MAX, last = INT64_MIN; uint32_t kname = 0; };
  std::map<std::tuple<int32_t, uint32_t, uint32_t>, Group> groups;  // step, op name (or kernel), shape
  for (size_t i : kernels) {
    uint32_t who = t.name[i], shape = 0;
    const int64_t* op = t.ext_id[i] != kNone ? ops.find(t.ext_id[i]) : nullptr;
    if (op && *op >= 0) {
      who = t.name[*op];
      shape = t.shape[*op];
    }
    Group& g = groups[{ctx.step[i], who, shape}];
    g.durs.push_back(t.dur[i] / kNsPerUs);
    g.calls.insert(t.ext_id[i] != kNone ? t.ext_id[i] : -static_cast<int64_t>(i) - 1);
    g.first = std::min(g.first, t.ts[i]);
    g.last = std::max(g.last, t.ts[i] + t.dur[i]);
    g.kname = t.name[i];
  }
  std::vector<StepHit> hits;
  for (auto& [key, g] : groups) {
    double med = median(g.durs);
    if (g.calls.size() < r.param("min_repeats") || med > r.param("max_median_kernel_us")) continue;
    auto [st, who, shape] = key;
    double longest = *std::max_element(g.durs.begin(), g.durs.end());
    double span = (g.last - g.first) / kNsPerUs;
    std::string ev = fmt::format("{}: {} x {} {} ({} GEMM kernels, e.g. {}), median {:.2f} us, device span {:.1f} us",
                                 step_name(s, st), g.calls.size(), t.strings.view(who), shape ? t.strings.view(shape) : "",
                                 g.durs.size(),
                                 t.strings.view(g.kname).substr(0, 80), med, span);
    hits.push_back({fmt::format("repeated {}{}{}", t.strings.view(who), shape ? " " : "", shape ? t.strings.view(shape) : ""),
                    step_name(s, st), ev, span - longest});
  }
  merge_step_hits(r, s, hits, out);
}

}  // namespace banjia::trace::advisors
