// The join of a trace's aten op calls with the coverage data. Every aten call is counted (nested
// ones too) with its self time: its duration less the host ops nested directly in it, so self times
// add up without counting any nanosecond twice.
#include "trace/ops_report.h"

#include <algorithm>
#include <map>
#include <unordered_map>

#include "common/errors.h"
#include "trace/trace_rules.h"

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
  size_t i;            // event index
  int64_t self_ns;
  bool calls_aten = false;
  size_t kernel_owner = SIZE_MAX;  // event index of the outermost enclosing aten op with a kernel
};

// Host ops of one thread, by start (longest first on ties, the parent before its child).
void nest_thread(const TraceData& t, std::vector<size_t>& ops, const std::vector<int8_t>& has_kernel,
                 std::vector<Call>& calls) {
  std::sort(ops.begin(), ops.end(), [&](size_t a, size_t b) {
    if (t.ts[a] != t.ts[b]) return t.ts[a] < t.ts[b];
    if (t.dur[a] != t.dur[b]) return t.dur[a] > t.dur[b];
    return a < b;
  });
  struct Open {
    size_t i;
    size_t call;          // position in `calls`, SIZE_MAX for a non-aten op
    size_t nearest_aten;  // position in `calls` of the nearest aten op at or above, SIZE_MAX if none
    size_t owner;         // event index of the outermost aten op with a kernel at or above
  };
  std::vector<Open> stack;
  for (size_t i : ops) {
    int64_t end = t.ts[i] + t.dur[i];
    while (!stack.empty() && t.ts[stack.back().i] + t.dur[stack.back().i] <= t.ts[i]) stack.pop_back();
    bool nested = !stack.empty() && end <= t.ts[stack.back().i] + t.dur[stack.back().i];
    Open parent = nested ? stack.back() : Open{SIZE_MAX, SIZE_MAX, SIZE_MAX, SIZE_MAX};
    if (nested && parent.call != SIZE_MAX) calls[parent.call].self_ns -= t.dur[i];
    Open self{i, SIZE_MAX, parent.nearest_aten, parent.owner};
    if (!aten_base_name(t.name_of(i)).empty()) {
      if (parent.nearest_aten != SIZE_MAX) calls[parent.nearest_aten].calls_aten = true;
      self.call = self.nearest_aten = calls.size();
      calls.push_back(Call{i, t.dur[i], false, parent.owner});
      if (parent.owner == SIZE_MAX && has_kernel[t.name[i]] == 1) self.owner = i;
    }
    stack.push_back(self);
  }
}

// The first tensor input's dtype and all of them.
std::string_view first_dtype(const std::vector<std::string>& dtypes) {
  for (auto& d : dtypes)
    if (!d.empty()) return d;
  return {};
}
}  // namespace

size_t OpsCoverage::ops_off_npu() const {
  std::set<std::string_view> names;
  for (auto& r : rows)
    if (off_npu(r.status)) names.insert(r.name);
  return names.size();
}

int64_t OpsCoverage::self_ns_off_npu() const {
  int64_t ns = 0;
  for (auto& r : rows)
    if (off_npu(r.status)) ns += r.self_ns;
  return ns;
}

OpsCoverage op_coverage(const TraceData& t, const OpsDataSet& data) {
  OpsCoverage c;
  c.file = t.file;
  const auto& step = trace_rules().step;
  // Per name: -1 not aten, 0 aten without a kernel, 1 aten with a kernel (ai_cpu-marked ops count as none).
  std::vector<int8_t> has_kernel(t.strings.size(), -1);
  for (uint32_t id = 0; id < t.strings.size(); ++id) {
    std::string_view base = aten_base_name(t.strings.view(id));
    if (base.empty()) continue;
    OpVerdict v = judge_op(data, base, false, "");
    has_kernel[id] = v.status == OpStatus::npu_kernel ? 1 : 0;
  }
  std::map<std::pair<int64_t, int64_t>, std::vector<size_t>> threads;
  for (size_t i = 0; i < t.size(); ++i)
    if (t.kind[i] == Kind::host_op && !step.matches(t.name_of(i))) threads[{t.pid[i], t.tid[i]}].push_back(i);
  std::vector<Call> calls;
  for (auto& [key, ops] : threads) nest_thread(t, ops, has_kernel, calls);
  if (calls.empty()) throw InputError(t.file, "trace has no aten host ops (cpu_op events named aten::...)");

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
  c.input_types = !t.input_type.empty();

  std::map<std::pair<uint32_t, OpStatus>, OpCoverageRow> rows;
  std::map<std::tuple<uint32_t, bool, std::string>, OpVerdict> verdicts;
  std::unordered_map<uint32_t, std::vector<std::string>> dtypes_by_id;
  for (const Call& call : calls) {
    size_t i = call.i;
    if (!windows.empty() && !in_windows(windows, t.ts[i])) continue;
    const std::vector<std::string>* dtypes = nullptr;
    if (c.input_types && t.input_type[i] != 0) {
      auto [it, fresh] = dtypes_by_id.try_emplace(t.input_type[i]);
      if (fresh) it->second = dtypes_of_input_types(t.strings.view(t.input_type[i]));
      dtypes = &it->second;
    }
    std::string first = dtypes ? std::string(first_dtype(*dtypes)) : std::string();
    OpVerdict verdict;
    if (call.kernel_owner != SIZE_MAX) {
      verdict.status = OpStatus::inside_npu_kernel;
      verdict.overloads = matching_overloads(data, aten_base_name(t.name_of(i)));
    } else {
      auto key = std::tuple{t.name[i], call.calls_aten, first};
      auto it = verdicts.find(key);
      if (it == verdicts.end())
        it = verdicts.emplace(key, judge_op(data, aten_base_name(t.name_of(i)), call.calls_aten, first)).first;
      verdict = it->second;
    }
    OpCoverageRow& r = rows[{t.name[i], verdict.status}];
    if (r.calls == 0) {
      r.name = t.name_of(i);
      r.status = verdict.status;
      r.overloads = verdict.overloads;
    }
    if (!verdict.limit_api.empty()) {
      r.limit_api = verdict.limit_api;
      r.limit_dtypes = verdict.limit_dtypes;
    }
    ++r.calls;
    r.self_ns += std::max<int64_t>(0, call.self_ns);
    if (dtypes)
      for (auto& d : *dtypes)
        if (!d.empty()) r.dtypes.insert(d);
    if (call.kernel_owner != SIZE_MAX) r.inside.insert(std::string(t.name_of(call.kernel_owner)));
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
