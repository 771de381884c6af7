#include "trace/analysis/compare.h"

#include <algorithm>
#include <unordered_map>

#include "trace/model/trace_rules.h"

namespace banjia::trace {

namespace {

enum class Side { kBaseline, kTarget };

// Rows joined by name, in first-seen order, accumulating each side's totals per step.
class RowsByName {
 public:
  explicit RowsByName(std::vector<CompareRow>& rows) : rows_(rows) {}
  void add(const std::string& name, Side side, double count, double total_us, double steps) {
    auto [it, fresh] = index_.try_emplace(name, rows_.size());
    if (fresh) rows_.push_back(CompareRow{name});
    CompareRow& r = rows_[it->second];
    (side == Side::kBaseline ? r.base_count : r.target_count) += count / steps;
    (side == Side::kBaseline ? r.base_us : r.target_us) += total_us / steps;
  }

 private:
  std::vector<CompareRow>& rows_;
  std::unordered_map<std::string, size_t> index_;
};
Breakdown mean_step(const Summary& s) {
  Breakdown m;
  if (s.steps.empty()) return s.overall.breakdown;
  for (auto& st : s.steps) {
    m.wall_us += st.breakdown.wall_us;
    m.compute_us += st.breakdown.compute_us;
    m.comm_us += st.breakdown.comm_us;
    m.memory_us += st.breakdown.memory_us;
    m.idle_us += st.breakdown.idle_us;
  }
  double n = static_cast<double>(s.steps.size());
  m.wall_us /= n, m.compute_us /= n, m.comm_us /= n, m.memory_us /= n, m.idle_us /= n;
  return m;
}

size_t steps_of(const Summary& s) { return std::max<size_t>(1, s.steps.size()); }
}  // namespace

Comparison compare_summaries(const Summary& base, const Summary& target,
                             const std::map<std::string, std::string>& target_to_base) {
  Comparison c;
  c.baseline = base.file;
  c.target = target.file;
  Breakdown b = mean_step(base), t = mean_step(target);
  for (auto [name, f] : {std::pair{"step_wall_us", &Breakdown::wall_us}, std::pair{"compute_us", &Breakdown::compute_us},
                         std::pair{"comm_us", &Breakdown::comm_us}, std::pair{"memory_us", &Breakdown::memory_us},
                         std::pair{"idle_us", &Breakdown::idle_us}})
    c.metrics.push_back(CompareRow{name, 0, 0, b.*f, t.*f});  // step rows have times, no counts
  c.baseline_steps = steps_of(base);
  c.target_steps = steps_of(target);
  const double nb = static_cast<double>(c.baseline_steps), nt = static_cast<double>(c.target_steps);
  // Kernel classes joined by name (both sides list the classes of data/trace/kernel_classes.toml);
  // ops by their name, the target's mapped to the baseline's.
  RowsByName classes(c.classes), ops(c.ops);
  for (auto& k : base.classes) classes.add(k.name, Side::kBaseline, k.count, k.total_us, nb);
  for (auto& k : target.classes) classes.add(k.name, Side::kTarget, k.count, k.total_us, nt);
  for (auto& op : base.ops) ops.add(op.name, Side::kBaseline, op.count, op.total_us, nb);
  for (auto& op : target.ops) {
    auto m = target_to_base.find(op.name);
    ops.add(m == target_to_base.end() ? op.name : m->second, Side::kTarget, op.count, op.total_us, nt);
  }
  std::sort(c.ops.begin(), c.ops.end(), [](const CompareRow& x, const CompareRow& y) {
    return x.delta_us() != y.delta_us() ? x.delta_us() > y.delta_us() : x.name < y.name;
  });
  return c;
}

}  // namespace banjia::trace
