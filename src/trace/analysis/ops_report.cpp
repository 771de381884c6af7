// The join of a trace's aten op calls with the coverage data. Every aten call is counted (nested
// ones too) with its self time: its duration less the host ops nested directly in it, so self times
// add up without counting any nanosecond twice.
#include "trace/analysis/ops_report.h"

#include <algorithm>
#include <iterator>
#include <map>
#include <unordered_map>

#include "common/errors.h"
#include "trace/model/trace_rules.h"

namespace banjia::trace {

namespace {
struct Window {
  int64_t from, to;
};

// ProfilerStep#N windows (one per name, the longest: the DB export writes a step twice).
std::vector<Window> step_windows(const TraceData& t) {
  const auto& step = trace_rules().step;
  std::unordered_map<uint32_t, size_t> longest;
  for (size_t i = 0; i < t.size(); ++i) {
    if (t.kind[i] != Kind::host_op && t.kind[i] != Kind::annotation) continue;
    if (!step.matches(t.name_of(i))) continue;
    auto [it, fresh] = longest.try_emplace(t.name[i], i);
    if (!fresh && t.dur[i] > t.dur[it->second]) it->second = i;
  }
  std::vector<Window> out;
  for (auto& [name, i] : longest) out.push_back(Window{t.ts[i], t.ts[i] + t.dur[i]});
  std::sort(out.begin(), out.end(), [](const Window& a, const Window& b) { return a.from < b.from; });
  return out;
}

bool in_windows(const std::vector<Window>& w, int64_t ts) {
  auto it = std::upper_bound(w.begin(), w.end(), ts, [](int64_t x, const Window& s) { return x < s.from; });
  return it != w.begin() && ts < std::prev(it)->to;
}

struct Call {
  size_t i;  // event index
  int64_t self_ns;
  ops::OpVerdict verdict;
  size_t owner;  // position in the calls of the outermost enclosing aten op owning its callees
};

// Decides each aten call's status, top-down: a call inside an op that owns its callees (a kernel or
// a fallback) takes that op's side; any other call is judged on its own name and dtype.
class CallJudge {
 public:
  CallJudge(const TraceData& t, const ops::OpsDataSet& d, const std::set<std::string, std::less<>>& not_run_alone)
      : t_(t), d_(d), not_run_alone_(not_run_alone) {}

  ops::OpVerdict judge(size_t i, bool caller_may_differ) {
    std::string_view forward = ops::forward_of_backward(ops::aten_base_name(t_.name_of(i)));
    bool path_may_differ = caller_may_differ || (!forward.empty() && not_run_alone_.contains(forward));
    std::string first;
    if (!t_.input_type.empty() && t_.input_type[i] != 0) {
      for (auto& dt : dtypes(t_.input_type[i]))
        if (!dt.empty()) {
          first = dt;
          break;
        }
    }
    auto key = std::tuple{t_.name[i], path_may_differ, first};
    auto it = cache_.find(key);
    if (it == cache_.end())
      it = cache_.emplace(key, ops::judge_op(d_, ops::aten_base_name(t_.name_of(i)), path_may_differ, first)).first;
    return it->second;
  }

  std::vector<std::string> overloads(size_t i) const { return ops::matching_overloads(d_, ops::aten_base_name(t_.name_of(i))); }

  const std::vector<std::string>& dtypes(uint32_t input_type) {
    auto [it, fresh] = dtypes_.try_emplace(input_type);
    if (fresh) it->second = ops::dtypes_of_input_types(t_.strings.view(input_type));
    return it->second;
  }

 private:
  const TraceData& t_;
  const ops::OpsDataSet& d_;
  const std::set<std::string, std::less<>>& not_run_alone_;  // bases no call of which runs on its own
  std::map<std::tuple<uint32_t, bool, std::string>, ops::OpVerdict> cache_;
  std::unordered_map<uint32_t, std::vector<std::string>> dtypes_;
};

// Host ops of one thread, by start (longest first on ties, the parent before its child). Self time:
// duration less the host ops nested directly inside.
void nest_thread(const TraceData& t, std::vector<size_t>& ops, CallJudge& judge, std::vector<Call>& calls) {
  std::sort(ops.begin(), ops.end(), [&](size_t a, size_t b) {
    if (t.ts[a] != t.ts[b]) return t.ts[a] < t.ts[b];
    if (t.dur[a] != t.dur[b]) return t.dur[a] > t.dur[b];
    return a < b;
  });
  struct Open {
    size_t i;
    size_t call;          // position in `calls`, SIZE_MAX for a non-aten op
    size_t nearest_aten;  // position in `calls` of the nearest aten op at or above, SIZE_MAX if none
    size_t owner;         // position in `calls` of the outermost op owning its callees at or above
  };
  std::vector<Open> stack;
  for (size_t i : ops) {
    int64_t end = t.ts[i] + t.dur[i];
    while (!stack.empty() && t.ts[stack.back().i] + t.dur[stack.back().i] <= t.ts[i]) stack.pop_back();
    bool nested = !stack.empty() && end <= t.ts[stack.back().i] + t.dur[stack.back().i];
    Open parent = nested ? stack.back() : Open{SIZE_MAX, SIZE_MAX, SIZE_MAX, SIZE_MAX};
    if (nested && parent.call != SIZE_MAX) calls[parent.call].self_ns -= t.dur[i];
    Open self{i, SIZE_MAX, parent.nearest_aten, parent.owner};
    if (!ops::aten_base_name(t.name_of(i)).empty()) {
      Call call{i, t.dur[i], {}, parent.owner};
      if (parent.owner != SIZE_MAX) {
        // A fallback runs its callees on the CPU too; a kernel does their work itself.
        ops::OpStatus owner = calls[parent.owner].verdict.status;
        call.verdict.status = owner == ops::OpStatus::fallback || owner == ops::OpStatus::no_npu_kernel ? owner
                                                                                              : ops::OpStatus::inside_npu_kernel;
        call.verdict.overloads = judge.overloads(i);
      } else {
        // A composite caller may take another path on an NPU; an unknown one may not run there.
        ops::OpStatus caller = parent.nearest_aten != SIZE_MAX ? calls[parent.nearest_aten].verdict.status : ops::OpStatus::npu_kernel;
        call.verdict = judge.judge(i, caller == ops::OpStatus::composite || caller == ops::OpStatus::unknown);
        if (ops::owns_callees(call.verdict.status)) self.owner = calls.size();
      }
      self.call = self.nearest_aten = calls.size();
      calls.push_back(std::move(call));
    }
    stack.push_back(self);
  }
}

}  // namespace

size_t OpsCoverage::ops_off_npu() const {
  std::set<std::string_view> names;
  for (auto& r : rows)
    if (ops::off_npu(r.status) && r.own_calls > 0) names.insert(r.name);
  return names.size();
}

int64_t OpsCoverage::self_ns_off_npu() const {
  int64_t ns = 0;
  for (auto& r : rows)
    if (ops::off_npu(r.status)) ns += r.self_ns;
  return ns;
}

OpsCoverage op_coverage(const TraceData& t, const ops::OpsDataSet& data) {
  OpsCoverage c;
  c.file = t.file;
  c.input_types = std::any_of(t.input_type.begin(), t.input_type.end(), [](uint32_t id) { return id != 0; });
  const auto& step = trace_rules().step;
  std::map<std::pair<int64_t, int64_t>, std::vector<size_t>> threads;
  for (size_t i = 0; i < t.size(); ++i)
    if (t.kind[i] == Kind::host_op && !step.matches(t.name_of(i))) threads[{t.pid[i], t.tid[i]}].push_back(i);
  // X_backward runs because X ran under autograd; when no call of X in the trace would run on its own
  // on an NPU (all inside another op's kernel or fallback, or unknown), its backward may not run
  // there either. Backward ops run on autograd's thread, often walked before their forward's: a first
  // pass finds those forwards, a second judges the backwards knowing them.
  std::set<std::string, std::less<>> not_run_alone;
  std::vector<Call> calls;
  for (int pass = 0; pass < 3; ++pass) {
    calls.clear();
    CallJudge judge(t, data, not_run_alone);
    for (auto& [key, ops] : threads) nest_thread(t, ops, judge, calls);
    std::set<std::string, std::less<>> seen, alone;
    for (auto& call : calls) {
      std::string base(ops::aten_base_name(t.name_of(call.i)));
      if (call.owner == SIZE_MAX && call.verdict.status != ops::OpStatus::unknown) alone.insert(base);
      seen.insert(std::move(base));
    }
    std::set<std::string, std::less<>> next;
    std::set_difference(seen.begin(), seen.end(), alone.begin(), alone.end(), std::inserter(next, next.end()));
    if (next == not_run_alone) break;
    not_run_alone = std::move(next);
  }
  if (calls.empty()) throw InputError(t.file, "trace has no aten host ops (cpu_op events named aten::...)");
  CallJudge judge(t, data, not_run_alone);  // for the rows' dtypes

  std::vector<Window> windows = step_windows(t);
  c.steps = windows.size();
  if (!windows.empty()) {
    c.time_basis = "steps";
    for (auto& w : windows) c.step_ns += w.to - w.from;
  } else {
    c.time_basis = "span";
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (size_t i = 0; i < t.size(); ++i) {
      lo = std::min(lo, t.ts[i]);
      hi = std::max(hi, t.ts[i] + t.dur[i]);
    }
    c.step_ns = hi - lo;
  }

  std::map<std::pair<uint32_t, ops::OpStatus>, OpCoverageRow> rows;
  for (const Call& call : calls) {
    size_t i = call.i;
    if (!windows.empty() && !in_windows(windows, t.ts[i])) continue;
    OpCoverageRow& r = rows[{t.name[i], call.verdict.status}];
    if (r.calls == 0) {
      r.name = t.name_of(i);
      r.status = call.verdict.status;
      r.overloads = call.verdict.overloads;
    }
    if (!call.verdict.limit_api.empty()) {
      r.limit_api = call.verdict.limit_api;
      r.limit_dtypes = call.verdict.limit_dtypes;
    }
    ++r.calls;
    if (call.owner == SIZE_MAX) ++r.own_calls;
    r.self_ns += std::max<int64_t>(0, call.self_ns);
    if (c.input_types && t.input_type[i] != 0)
      for (auto& d : judge.dtypes(t.input_type[i]))
        if (!d.empty()) r.dtypes.insert(d);
    if (call.owner != SIZE_MAX) r.inside.insert(std::string(t.name_of(calls[call.owner].i)));
  }
  for (auto& [key, row] : rows) c.rows.push_back(std::move(row));
  std::sort(c.rows.begin(), c.rows.end(), [](const OpCoverageRow& a, const OpCoverageRow& b) {
    if (a.self_ns != b.self_ns) return a.self_ns > b.self_ns;
    if (a.name != b.name) return a.name < b.name;
    return a.status < b.status;
  });
  return c;
}

}  // namespace banjia::trace
