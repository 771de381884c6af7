// summarize(): step windows and the device time breakdown. Op, kernel and launch tables are in
// summary_ops.cpp.
#include "trace/summary.h"

#include <algorithm>
#include <cmath>

#include "common/thread_pool.h"
#include "trace/intervals.h"
#include "trace/summary_context.h"

namespace banjia::trace {

void fill_op_tables(SummaryContext& ctx, Summary& s, const SummaryOptions& opt);     // summary_ops.cpp
void fill_kernel_tables(SummaryContext& ctx, Summary& s, const SummaryOptions& opt); // summary_ops.cpp

DistStats dist_stats(std::vector<double> v) {
  DistStats d;
  d.count = v.size();
  if (v.empty()) return d;
  std::sort(v.begin(), v.end());
  double sum = 0;
  for (double x : v) sum += x;
  d.mean_us = sum / static_cast<double>(v.size());
  size_t n = v.size();
  d.median_us = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
  d.p95_us = v[static_cast<size_t>(std::ceil(0.95 * static_cast<double>(n))) - 1];
  d.max_us = v.back();
  return d;
}

namespace {
constexpr double kUs = 1000.0;

struct DevInterval {
  int32_t step;
  int64_t device;
  Group group;
  int64_t s, e;
};

// HTA temporal breakdown over one window: compute, then comm outside compute, then memory outside both.
Breakdown breakdown_of(const std::vector<DevInterval>& v, size_t from, size_t to, int64_t wall_ns) {
  std::vector<Interval> c, cm, all;
  for (size_t i = from; i < to; ++i) {
    Interval iv{v[i].s, v[i].e};
    if (v[i].group == Group::compute) c.push_back(iv);
    if (v[i].group != Group::memory) cm.push_back(iv);
    all.push_back(iv);
  }
  Breakdown b;
  int64_t uc = union_length(c), ucm = union_length(cm), uall = union_length(all);
  b.compute_us = uc / kUs;
  b.comm_us = (ucm - uc) / kUs;
  b.memory_us = (uall - ucm) / kUs;
  b.wall_us = std::max<int64_t>(wall_ns, uall) / kUs;
  b.idle_us = std::max(0.0, b.wall_us - b.busy_us());
  return b;
}

// torch_npu's own breakdown: sums of the "Overlap Analysis" events (how step_trace_time.csv is made).
bool overlap_breakdown(SummaryContext& ctx, Summary& s) {
  const TraceData& t = ctx.t;
  bool any = false;
  std::vector<Breakdown> per_step(s.steps.size());
  Breakdown all;
  for (size_t i = 0; i < t.size(); ++i) {
    if (t.kind[i] != Kind::overlap) continue;
    std::string_view n = t.name_of(i);
    double d = t.dur[i] / kUs;
    auto add = [&](Breakdown& b) {
      if (n == "Computing") b.compute_us += d;
      else if (n == "Communication(Not Overlapped)") b.comm_us += d;
      else if (n == "Free") b.idle_us += d;
    };
    add(all);
    int32_t st = ctx.step_at(t.ts[i]);
    if (st >= 0) add(per_step[st]);
    any = true;
  }
  if (!any) return false;
  auto finish = [](Breakdown& b) { b.wall_us = b.compute_us + b.comm_us + b.idle_us; };
  for (size_t k = 0; k < s.steps.size(); ++k) {
    finish(per_step[k]);
    s.steps[k].breakdown = per_step[k];
  }
  finish(all);
  s.overall.breakdown = all;
  s.devices[s.primary_device] = all;
  return true;
}

// Breakdown per device and step, then the kernel tables. Uses only the kernel-class cache of ctx.
void device_tables(SummaryContext& ctx, Summary& s, const SummaryOptions& opt) {
  const TraceData& t = ctx.t;
  // Trace span: every host and device event (not Kineto's whole-profile "Trace" span).
  int64_t span_s = INT64_MAX, span_e = INT64_MIN;
  std::vector<DevInterval> dev;
  for (size_t i = 0; i < t.size(); ++i) {
    Kind k = t.kind[i];
    if (k == Kind::other || k == Kind::overlap) continue;
    span_s = std::min(span_s, t.ts[i]);
    span_e = std::max(span_e, t.ts[i] + t.dur[i]);
    Group g = ctx.group(i);
    if (g == Group::none) continue;
    dev.push_back({ctx.step[i], ctx.device_of(t.pid[i]), g, t.ts[i], t.ts[i] + t.dur[i]});
    if (ctx.step[i] >= 0) {
      auto& st = s.steps[ctx.step[i]];
      st.end_ns = std::max(st.end_ns, t.ts[i] + t.dur[i]);
    }
  }
  if (span_s == INT64_MAX) span_s = span_e = 0;
  s.overall.name = "all";
  s.overall.start_ns = s.steps.empty() ? span_s : s.steps.front().start_ns;
  s.overall.end_ns = s.steps.empty() ? span_e : std::max(span_e, s.steps.back().end_ns);
  if (!s.steps.empty()) {
    for (auto& st : s.steps) s.overall.end_ns = std::max(s.overall.end_ns, st.end_ns);
  }

  // Overall per device.
  std::sort(dev.begin(), dev.end(), [](const DevInterval& a, const DevInterval& b) {
    return a.device != b.device ? a.device < b.device : a.step < b.step;
  });
  int64_t wall = s.overall.end_ns - s.overall.start_ns;
  double best_busy = -1;
  for (size_t i = 0; i < dev.size();) {
    size_t j = i;
    while (j < dev.size() && dev[j].device == dev[i].device) ++j;
    Breakdown b = breakdown_of(dev, i, j, wall);
    s.devices[dev[i].device] = b;
    if (b.busy_us() > best_busy) {
      best_busy = b.busy_us();
      s.primary_device = dev[i].device;
    }
    i = j;
  }
  // Per step on the primary device (dev is sorted by step within a device).
  for (size_t a = 0; a < dev.size();) {
    size_t c = a;
    while (c < dev.size() && dev[c].device == dev[a].device && dev[c].step == dev[a].step) ++c;
    if (dev[a].step >= 0 && dev[a].device == s.primary_device) {
      auto& st = s.steps[dev[a].step];
      st.breakdown = breakdown_of(dev, a, c, st.end_ns - st.start_ns);
    }
    a = c;
  }
  if (s.devices.count(s.primary_device)) s.overall.breakdown = s.devices[s.primary_device];
  for (auto& st : s.steps)
    if (st.breakdown.wall_us == 0) {
      st.breakdown.wall_us = (st.end_ns - st.start_ns) / kUs;
      st.breakdown.idle_us = s.devices.empty() ? 0 : st.breakdown.wall_us;
    }
  if (s.devices.empty()) {  // CPU-only trace: no device, the whole span is host time
    s.overall.breakdown.wall_us = wall / kUs;
    s.overall.breakdown.idle_us = 0;
  }
  fill_kernel_tables(ctx, s, opt);
}
}  // namespace

Summary summarize(const TraceData& t, const SummaryOptions& opt,
                  const std::function<void(SummaryContext&, Summary&)>& finish) {
  SummaryContext ctx(t, trace_rules());
  Summary s;
  s.file = t.file;
  s.format = t.format;
  s.events = t.size();
  s.input_bytes = t.input_bytes;
  s.missing_fields = t.missing_fields;
  s.negative_durations = t.negative_durations;
  s.unknown_categories = t.unknown_categories;

  for (size_t idx : ctx.step_events) {
    StepStats st;
    st.name = std::string(t.name_of(idx));
    st.start_ns = t.ts[idx];
    st.end_ns = t.ts[idx] + t.dur[idx];
    s.steps.push_back(st);
  }
  // Host op tables and device tables touch disjoint fields and caches: run them side by side.
  parallel_for(2, worker_count(), [&](size_t part) {
    if (part == 0) fill_op_tables(ctx, s, opt);
    else device_tables(ctx, s, opt);
  });
  if (t.format == "torch_npu") overlap_breakdown(ctx, s);

  if (finish) finish(ctx, s);
  return s;
}

}  // namespace banjia::trace
