// summarize(): step windows and the device time breakdown, then the op and kernel tables
// (summarize_ops.cpp), the NPU extras and the advisors, all from one ProfilerRun in memory.
#include "trace/analysis/summarize.h"

#include <algorithm>
#include <memory>

#include "common/thread_pool.h"
#include "trace/analysis/advisor_registry.h"
#include "trace/analysis/communication.h"
#include "trace/analysis/intervals.h"
#include "trace/analysis/parallel_sort.h"
#include "trace/analysis/summary.h"
#include "trace/analysis/summary_context.h"
#include "trace/model/phase_timer.h"
#include "trace/model/trace_model.h"

namespace banjia::trace {

// The op and kernel tables: summarize_ops.cpp, the part of this unit that builds them.
void fill_op_tables(SummaryContext& ctx, Summary& s, const SummaryOptions& opt);
void fill_kernel_tables(SummaryContext& ctx, Summary& s, const SummaryOptions& opt);
// Sets s.ops (sorted by name) and the top-N tables by self and by total time.
void set_op_tables(Summary& s, std::vector<OpRow> ops, size_t top);

namespace {

struct DevInterval {
  int64_t device, s, e;
  int32_t step;
  Group group;
};

// HTA temporal breakdown over one window: compute, then comm outside compute, then memory outside
// both. The three unions are kept side by side over intervals sorted by start.
struct BreakdownUnions {
  IntervalUnion c, cm, all;
  void add(const DevInterval& d) {
    if (d.group == Group::compute) c.add(d.s, d.e);
    if (d.group != Group::memory) cm.add(d.s, d.e);
    all.add(d.s, d.e);
  }
  Breakdown result(int64_t wall_ns) const {
    Breakdown b;
    int64_t uc = c.length(), ucm = cm.length(), uall = all.length();
    b.compute_us = uc / kNsPerUs;
    b.comm_us = (ucm - uc) / kNsPerUs;
    b.memory_us = (uall - ucm) / kNsPerUs;
    b.wall_us = std::max<int64_t>(wall_ns, uall) / kNsPerUs;
    b.idle_us = std::max(0.0, b.wall_us - b.busy_us());
    return b;
  }
};

// torch_npu's own breakdown: sums of the "Overlap Analysis" events (how step_trace_time.csv is made).
bool overlap_breakdown(SummaryContext& ctx, Summary& s) {
  const TraceData& t = ctx.t;
  bool any = false;
  std::vector<Breakdown> per_step(s.steps.size());
  Breakdown all;
  for (size_t i = 0; i < t.size(); ++i) {
    if (t.kind[i] != Kind::overlap) continue;
    std::string_view n = t.name_of(i);
    double d = t.dur[i] / kNsPerUs;
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

// Breakdown per device and step, then the kernel tables. Device intervals are gathered per block of
// events, sorted once by (device, start) and swept once per device and once more for the steps of
// the primary device.
void device_tables(SummaryContext& ctx, Summary& s, const SummaryOptions& opt) {
  const TraceData& t = ctx.t;
  // Trace span: every host and device event (not Kineto's whole-profile "Trace" span).
  struct Part {
    std::vector<DevInterval> dev;
    int64_t span_s = INT64_MAX, span_e = INT64_MIN;
    std::vector<int64_t> step_end;
  };
  std::vector<Part> parts(ctx.blocks());
  parallel_for(ctx.blocks(), ctx.threads, [&](size_t b) {
    Part& p = parts[b];
    p.step_end.assign(s.steps.size(), INT64_MIN);
    for (size_t i = b * kEventBlock; i < std::min(t.size(), (b + 1) * kEventBlock); ++i) {
      Kind k = t.kind[i];
      if (k == Kind::other || k == Kind::overlap) continue;
      int64_t end = t.ts[i] + t.dur[i];
      p.span_s = std::min(p.span_s, t.ts[i]);
      p.span_e = std::max(p.span_e, end);
      Group g = ctx.group(i);
      if (g == Group::none) continue;
      p.dev.push_back({ctx.device_of(t.pid[i]), t.ts[i], end, ctx.step[i], g});
      if (ctx.step[i] >= 0) p.step_end[ctx.step[i]] = std::max(p.step_end[ctx.step[i]], end);
    }
  });
  int64_t span_s = INT64_MAX, span_e = INT64_MIN;
  std::vector<std::vector<DevInterval>> dev_parts;
  for (Part& p : parts) {
    span_s = std::min(span_s, p.span_s);
    span_e = std::max(span_e, p.span_e);
    for (size_t k = 0; k < s.steps.size(); ++k) s.steps[k].end_ns = std::max(s.steps[k].end_ns, p.step_end[k]);
    dev_parts.push_back(std::move(p.dev));
  }
  parts.clear();
  if (span_s == INT64_MAX) span_s = span_e = 0;
  s.overall.name = "all";
  s.overall.start_ns = s.steps.empty() ? span_s : s.steps.front().start_ns;
  s.overall.end_ns = s.steps.empty() ? span_e : std::max(span_e, s.steps.back().end_ns);
  if (!s.steps.empty()) {
    for (auto& st : s.steps) s.overall.end_ns = std::max(s.overall.end_ns, st.end_ns);
  }

  // Overall per device: each device's intervals by start (almost in order already). Ties in
  // (start, end) may come in any order: unions do not care.
  auto devices = group_by(std::move(dev_parts), [](const DevInterval& d) { return d.device; });
  parallel_for(devices.size(), ctx.threads, [&](size_t k) {
    sort_nearly_sorted(devices[k], [](const DevInterval& a, const DevInterval& b) {
      return a.s != b.s ? a.s < b.s : a.e < b.e;
    });
  });
  int64_t wall = s.overall.end_ns - s.overall.start_ns;
  double best_busy = -1;
  const std::vector<DevInterval>* primary = nullptr;
  for (const auto& d : devices) {
    BreakdownUnions u;
    for (const DevInterval& x : d) u.add(x);
    Breakdown b = u.result(wall);
    s.devices[d.front().device] = b;
    if (b.busy_us() > best_busy) {
      best_busy = b.busy_us();
      s.primary_device = d.front().device;
      primary = &d;
    }
  }
  // Per step on the primary device: each step's intervals are a subsequence sorted by start.
  std::vector<BreakdownUnions> per_step(s.steps.size());
  std::vector<bool> seen(s.steps.size());
  if (primary)
    for (const DevInterval& x : *primary)
      if (x.step >= 0) {
        per_step[x.step].add(x);
        seen[x.step] = true;
      }
  for (size_t k = 0; k < s.steps.size(); ++k)
    if (seen[k]) s.steps[k].breakdown = per_step[k].result(s.steps[k].end_ns - s.steps[k].start_ns);
  if (s.devices.count(s.primary_device)) s.overall.breakdown = s.devices[s.primary_device];
  for (auto& st : s.steps)
    if (st.breakdown.wall_us == 0) {
      st.breakdown.wall_us = (st.end_ns - st.start_ns) / kNsPerUs;
      st.breakdown.idle_us = s.devices.empty() ? 0 : st.breakdown.wall_us;
    }
  if (s.devices.empty()) {  // CPU-only trace: no device, the whole span is host time
    s.overall.breakdown.wall_us = wall / kNsPerUs;
    s.overall.breakdown.idle_us = 0;
  }
  fill_kernel_tables(ctx, s, opt);
}
// Without host ops in the trace (kernel_details.csv only), operator_details.csv still has each op
// call's host self and total time.
void host_ops_from_operator_details(Summary& sum, const SummaryOptions& opt) {
  if (!sum.ops.empty() || !sum.npu || sum.npu->operator_details.empty()) return;
  std::vector<OpRow> ops;
  for (auto& r : sum.npu->operator_details) ops.push_back(OpRow{r.name, r.count, r.host_self_us, r.host_total_us});
  set_op_tables(sum, std::move(ops), opt.top);
}
}  // namespace

Summary summarize(const ProfilerRun& run, const SummaryOptions& opt) {
  const TraceData& t = run.trace;
  auto ctx_timer = std::make_unique<PhaseTimer>("context");
  SummaryContext ctx(t, trace_rules(), worker_count(opt.threads));
  ctx_timer.reset();
  const std::vector<BoundAdvisor> advisors = bind_advisors(ctx.rules);
  std::vector<const BoundAdvisor*> scans, finishers;
  for (const BoundAdvisor& a : advisors) (a.unit->stage == AdvisorStage::trace_scan ? scans : finishers).push_back(&a);
  Summary s;
  s.file = t.file;
  s.format = t.format;
  s.events = t.size();
  s.input_bytes = t.input_bytes;
  s.missing_fields = t.missing_fields;
  s.negative_durations = t.negative_durations;
  s.unknown_categories = t.unknown_categories;

  for (const AdvisorRule& r : ctx.rules.advisors)
    if (auto why = skip_reason(r, ctx.facts)) s.skipped_rules.push_back({r.id, std::move(*why)});

  for (size_t idx : ctx.step_events) {
    StepStats st;
    st.name = std::string(t.name_of(idx));
    st.start_ns = t.ts[idx];
    st.end_ns = t.ts[idx] + t.dur[idx];
    s.steps.push_back(st);
  }
  // Host op tables, device tables and the trace-scanning advisors touch disjoint fields (the
  // advisors read only step names): run them side by side; findings in fixed order.
  std::vector<std::vector<Finding>> found(scans.size());
  {
    PhaseTimer timer("tables and scans");
    parallel_for(2 + scans.size(), ctx.threads, [&](size_t part) {
      if (part == 0) fill_op_tables(ctx, s, opt);
      else if (part == 1) device_tables(ctx, s, opt);
      else run_advisor(*scans[part - 2], ctx, s, found[part - 2]);
    });
  }
  for (auto& f : found) s.findings.insert(s.findings.end(), f.begin(), f.end());
  if (t.format == TraceFormat::torch_npu) overlap_breakdown(ctx, s);

  PhaseTimer finish_timer("finish (NPU extras, rules)");
  if (run.npu) {
    s.npu = run.npu;
    host_ops_from_operator_details(s, opt);
    s.collectives = std::move(s.npu->collectives);
    s.npu->collectives.clear();
  }
  if (s.collectives.empty()) {
    // The communication kernels of the primary device; without any, the collectives a CPU backend
    // (gloo) ran on its worker threads.
    std::vector<size_t> kernels, host;
    for (size_t i = 0; i < t.size(); ++i) {
      if (ctx.group(i) == Group::comm && ctx.device_of(t.pid[i]) == s.primary_device) kernels.push_back(i);
      else if (!is_device(t.kind[i]) && (ctx.flags(i) & kHostCollective)) host.push_back(i);
    }
    s.collectives = collectives_from_events(t, kernels.empty() ? host : kernels);
  }
  for (const BoundAdvisor* a : finishers) {
    std::vector<Finding> out;
    run_advisor(*a, ctx, s, out);
    s.findings.insert(s.findings.end(), std::make_move_iterator(out.begin()), std::make_move_iterator(out.end()));
  }
  s.rank = run.rank;
  return s;
}

}  // namespace banjia::trace
