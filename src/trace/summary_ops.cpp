// Host op table (self/total time by nesting per thread), kernel table, kernel classes, launch
// delays and per-step host counters (syncs, casts, transfers, compiles).
#include <algorithm>
#include <unordered_map>

#include "trace/summary.h"
#include "trace/summary_context.h"

namespace banjia::trace {

namespace {
constexpr double kUs = 1000.0;

bool is_op(Kind k) { return k == Kind::host_op || k == Kind::annotation; }

std::vector<OpRow> top_by(std::vector<OpRow> rows, size_t n, double OpRow::*field) {
  std::sort(rows.begin(), rows.end(), [&](const OpRow& a, const OpRow& b) {
    return a.*field != b.*field ? a.*field > b.*field : a.name < b.name;
  });
  if (rows.size() > n) rows.resize(n);
  return rows;
}

// Launch delay pairs from torch_npu flows: the 's' end on the host (CANN launch or torch op),
// the 'f' end at the device task's start on its stream.
void npu_launch_delays(const TraceData& t, std::vector<double>& out) {
  auto key = [](int64_t pid, int64_t tid, int64_t ts) {
    return static_cast<uint64_t>(pid) * 1000003u ^ static_cast<uint64_t>(tid) * 7919u ^ static_cast<uint64_t>(ts);
  };
  std::unordered_multimap<uint64_t, size_t> dev_at;
  for (size_t i = 0; i < t.size(); ++i)
    if (is_device(t.kind[i])) dev_at.emplace(key(t.pid[i], t.tid[i], t.ts[i]), i);
  uint32_t h2d = t.strings.find("HostToDevice"), async = t.strings.find("async_npu");
  uint32_t use = h2d != UINT32_MAX ? h2d : async;
  if (use == UINT32_MAX) return;
  auto flow_key = [](const Flow& f) { return f.id * 2 + (f.string_id ? 1 : 0); };
  std::unordered_map<uint64_t, int64_t> start;
  for (auto& f : t.flows)
    if (f.cat == use && f.ph == 's') start.emplace(flow_key(f), f.ts);
  for (auto& f : t.flows) {
    if (f.cat != use || f.ph != 'f') continue;
    auto s = start.find(flow_key(f));
    if (s == start.end()) continue;
    auto range = dev_at.equal_range(key(f.pid, f.tid, f.ts));
    for (auto it = range.first; it != range.second; ++it) {
      size_t i = it->second;
      if (t.pid[i] == f.pid && t.tid[i] == f.tid && t.ts[i] == f.ts && t.ts[i] >= s->second) {
        out.push_back((t.ts[i] - s->second) / kUs);
        break;
      }
    }
  }
}
}  // namespace

void fill_op_tables(SummaryContext& ctx, Summary& s, const SummaryOptions& opt) {
  const TraceData& t = ctx.t;
  std::vector<size_t> ops;
  for (size_t i = 0; i < t.size(); ++i)
    if (is_op(t.kind[i])) ops.push_back(i);
  std::sort(ops.begin(), ops.end(), [&](size_t a, size_t b) {
    if (t.pid[a] != t.pid[b]) return t.pid[a] < t.pid[b];
    if (t.tid[a] != t.tid[b]) return t.tid[a] < t.tid[b];
    if (t.ts[a] != t.ts[b]) return t.ts[a] < t.ts[b];
    return t.dur[a] > t.dur[b];
  });
  std::vector<int64_t> self(ops.size());
  std::vector<size_t> stack;  // positions in `ops`
  for (size_t p = 0; p < ops.size(); ++p) {
    size_t i = ops[p];
    if (p > 0 && (t.pid[ops[p - 1]] != t.pid[i] || t.tid[ops[p - 1]] != t.tid[i])) stack.clear();
    while (!stack.empty() && t.ts[ops[stack.back()]] + t.dur[ops[stack.back()]] <= t.ts[i]) stack.pop_back();
    self[p] = t.dur[i];
    if (!stack.empty() && t.ts[i] + t.dur[i] <= t.ts[ops[stack.back()]] + t.dur[ops[stack.back()]])
      self[stack.back()] -= t.dur[i];
    stack.push_back(p);
  }
  std::unordered_map<uint32_t, OpRow> by_name;
  for (size_t p = 0; p < ops.size(); ++p) {
    size_t i = ops[p];
    if (ctx.rules.step.matches(t.name_of(i))) continue;
    OpRow& r = by_name[t.name[i]];
    ++r.count;
    r.total_us += t.dur[i] / kUs;
    r.self_us += std::max<int64_t>(0, self[p]) / kUs;
  }
  for (auto& [id, r] : by_name) {
    r.name = std::string(t.strings.view(id));
    s.ops.push_back(r);
  }
  std::sort(s.ops.begin(), s.ops.end(), [](const OpRow& a, const OpRow& b) { return a.name < b.name; });
  s.top_ops_self = top_by(s.ops, opt.top, &OpRow::self_us);
  s.top_ops_total = top_by(s.ops, opt.top, &OpRow::total_us);

  // Per-step host counters.
  for (size_t i = 0; i < t.size(); ++i) {
    Kind k = t.kind[i];
    if (k != Kind::runtime && k != Kind::host_op) continue;
    int f = ctx.flags(i);
    if (!f) continue;
    int32_t st = ctx.step_at(t.ts[i]);
    for (StepStats* x : {&s.overall, st >= 0 ? &s.steps[st] : nullptr}) {
      if (!x) continue;
      if (f & 1) ++x->sync_points;
      if (f & 2) ++x->dtype_casts;
      if (f & 4) ++x->compile_events;
    }
  }
}

void fill_kernel_tables(SummaryContext& ctx, Summary& s, const SummaryOptions& opt) {
  const TraceData& t = ctx.t;
  const auto& class_names = kernel_class_names();
  std::vector<ClassRow> classes(class_names.size());
  for (size_t c = 0; c < classes.size(); ++c) classes[c].name = class_names[c];
  std::unordered_map<uint32_t, KernelRow> kernels;
  std::vector<double> all_durs;
  std::vector<std::vector<double>> step_durs(s.steps.size());
  double device_total = 0;
  for (size_t i = 0; i < t.size(); ++i) {
    Kind k = t.kind[i];
    if (!is_device(k)) continue;
    int c = ctx.class_index(i);
    double d = t.dur[i] / kUs;
    ++classes[c].count;
    classes[c].total_us += d;
    device_total += d;
    int32_t st = ctx.step[i];
    if (k == Kind::memcpy) {
      std::string_view n = t.name_of(i);
      bool h2d = n.find("HtoD") != std::string_view::npos, d2h = n.find("DtoH") != std::string_view::npos;
      int64_t b = t.bytes[i] == kNone ? 0 : t.bytes[i];
      for (StepStats* x : {&s.overall, st >= 0 ? &s.steps[st] : nullptr}) {
        if (!x) continue;
        if (h2d) ++x->h2d_count, x->h2d_bytes += b;
        if (d2h) ++x->d2h_count, x->d2h_bytes += b;
      }
    }
    if (k != Kind::kernel) continue;
    KernelRow& r = kernels[t.name[i]];
    ++r.count;
    r.total_us += d;
    r.kernel_class = class_names[c];
    all_durs.push_back(d);
    if (st >= 0) step_durs[st].push_back(d);
  }
  for (auto& c : classes) c.share = device_total > 0 ? c.total_us / device_total : 0;
  s.classes = classes;
  std::vector<KernelRow> rows;
  for (auto& [id, r] : kernels) {
    r.name = std::string(t.strings.view(id));
    rows.push_back(r);
  }
  std::sort(rows.begin(), rows.end(), [](const KernelRow& a, const KernelRow& b) {
    return a.total_us != b.total_us ? a.total_us > b.total_us : a.name < b.name;
  });
  if (rows.size() > opt.top) rows.resize(opt.top);
  s.top_kernels = rows;
  s.kernel_count = all_durs.size();
  size_t short_count = std::count_if(all_durs.begin(), all_durs.end(), [](double d) { return d < 10.0; });
  s.short_kernel_share = all_durs.empty() ? 0 : static_cast<double>(short_count) / static_cast<double>(all_durs.size());
  s.kernel_median_us = dist_stats(all_durs).median_us;
  s.overall.kernels = all_durs.size();
  s.overall.kernel_median_us = s.kernel_median_us;
  for (size_t k = 0; k < s.steps.size(); ++k) {
    s.steps[k].kernels = step_durs[k].size();
    s.steps[k].kernel_median_us = dist_stats(step_durs[k]).median_us;
  }
  // Launch delay: device start - host launch start (HTA pairs runtime and kernel by correlation id).
  std::vector<double> delays;
  for (size_t i = 0; i < t.size(); ++i)
    if (t.kind[i] == Kind::kernel && ctx.launch_ts[i] != kNone && t.ts[i] >= ctx.launch_ts[i])
      delays.push_back((t.ts[i] - ctx.launch_ts[i]) / kUs);
  if (delays.empty() && t.format == "torch_npu") npu_launch_delays(t, delays);
  s.launch_delay = dist_stats(std::move(delays));
}

}  // namespace banjia::trace
