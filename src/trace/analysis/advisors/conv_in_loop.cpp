// conv-in-loop: aten::convolution called many times per step on the same batch-1 input shape, the
// trace of a Python loop over single samples.
#include <algorithm>
#include <cstdlib>
#include <fmt/format.h>
#include <map>
#include <optional>

#include "trace/analysis/advisors/advisor.h"
#include "trace/model/trace_model.h"

namespace banjia::trace::advisors {

namespace {
bool is_conv_op(std::string_view n) { return n == "aten::convolution"; }

// First dimension of the first input in a Kineto "Input Dims" value such as [[1, 3, 32, 32], [...]].
std::optional<long> batch_of(std::string_view dims) {
  size_t p = dims.find_first_of("0123456789");
  size_t open = dims.find("[[");
  if (open == std::string_view::npos || p == std::string_view::npos || dims.find(']') < p) return std::nullopt;
  return std::strtol(std::string(dims.substr(p, 12)).c_str(), nullptr, 10);
}
}  // namespace

void conv_in_loop(const SummaryContext& ctx, const Summary& s, const AdvisorRule& r, std::vector<Finding>& out) {
  const TraceData& t = ctx.t;
  struct Group { size_t count = 0; double total = 0, longest = 0; };
  std::map<std::pair<int32_t, uint32_t>, Group> groups;
  for (size_t i = 0; i < t.size(); ++i) {
    if (t.kind[i] != Kind::host_op || !is_conv_op(t.name_of(i)) || !t.shape[i]) continue;
    auto b = batch_of(t.strings.view(t.shape[i]));
    if (!b || *b != 1) continue;
    Group& g = groups[{ctx.step_at(t.ts[i]), t.shape[i]}];
    ++g.count;
    g.total += t.dur[i] / kNsPerUs;
    g.longest = std::max(g.longest, t.dur[i] / kNsPerUs);
  }
  std::vector<StepHit> hits;
  for (auto& [key, g] : groups) {
    if (g.count < r.param("min_repeats")) continue;
    std::string ev = fmt::format("{}: {} x aten::convolution with batch-1 input {}, host time {:.1f} us",
                                 step_name(s, key.first), g.count, t.strings.view(key.second), g.total);
    hits.push_back({fmt::format("batch-1 convolutions on {}", t.strings.view(key.second)), step_name(s, key.first), ev,
                    g.total - g.longest});
  }
  merge_step_hits(r, s, hits, out);
}

}  // namespace banjia::trace::advisors
