#include "trace/analysis/advisors.h"

#include <algorithm>
#include <fmt/format.h>
#include <map>
#include <set>
#include <unordered_map>

#include "trace/analysis/id_map.h"
#include "trace/model/trace_model.h"

namespace banjia::trace {

namespace {

Finding make(const AdvisorRule& r, const Summary& s, std::string detail, std::string evidence, double saving_us) {
  Finding f;
  f.file = s.file;
  f.rule = r.id;
  f.category = "performance";
  f.severity = parse_severity(r.severity).value_or(Severity::warning);
  f.fix = FixKind::advisory;
  f.message = r.message + (detail.empty() ? "" : ": " + detail);
  f.suggestion = r.advice;
  f.source = r.source;
  f.evidence = std::move(evidence);
  f.est_saving_us = std::max(0.0, saving_us);
  return f;
}

// One firing of a rule in one step. A pattern that repeats every step is one finding (merged()), not
// one per step: `what` says what fired (op and shape, or "" for a step-level rule).
struct StepHit {
  std::string what, step, evidence;
  double saving_us = 0;
};

std::string steps_text(const std::vector<const StepHit*>& hits) {
  if (hits.size() == 1) return hits[0]->step;
  constexpr size_t kNamed = 3;  // name a few steps; the count says how many in all
  std::string names;
  for (size_t i = 0; i < hits.size() && i < kNamed; ++i) names += (i ? ", " : "") + hits[i]->step;
  if (hits.size() > kNamed) names += ", ...";
  return fmt::format("{} steps ({})", hits.size(), names);
}

// One finding per distinct `what`, in first-seen order: the steps it fired in, each step's evidence, and
// the summed saving (each step's saving is an upper bound for that step).
void merged(const AdvisorRule& r, const Summary& s, const std::vector<StepHit>& hits, std::vector<Finding>& out) {
  std::vector<std::string> order;
  std::map<std::string, std::vector<const StepHit*>> by_what;
  for (const auto& h : hits) {
    auto& group = by_what[h.what];
    if (group.empty()) order.push_back(h.what);
    group.push_back(&h);
  }
  for (const auto& what : order) {
    const auto& group = by_what[what];
    std::string evidence;
    double saving = 0;
    for (const StepHit* h : group) {
      evidence += (evidence.empty() ? "" : "; ") + h->evidence;
      saving += h->saving_us;
    }
    std::string where = steps_text(group);
    out.push_back(make(r, s, what.empty() ? where : what + " in " + where, evidence, saving));
  }
}

// The rule with this id when the trace meets its needs; a rule it does not meet is listed in
// Summary::skipped_rules instead (summarize()).
const AdvisorRule* applicable(const SummaryContext& ctx, std::string_view id) {
  const AdvisorRule* r = ctx.rules.advisor(id);
  return r && !skip_reason(*r, ctx.facts) ? r : nullptr;
}

std::string step_name(const Summary& s, int32_t st) { return st >= 0 ? s.steps[st].name : std::string("trace"); }

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
  merged(r, s, hits, out);
}

bool is_conv_op(std::string_view n) { return n == "aten::convolution"; }

// First dimension of the first input in a Kineto "Input Dims" value such as [[1, 3, 32, 32], [...]].
std::optional<long> batch_of(std::string_view dims) {
  size_t p = dims.find_first_of("0123456789");
  size_t open = dims.find("[[");
  if (open == std::string_view::npos || p == std::string_view::npos || dims.find(']') < p) return std::nullopt;
  return std::strtol(std::string(dims.substr(p, 12)).c_str(), nullptr, 10);
}

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
  merged(r, s, hits, out);
}

void host_device_sync(const SummaryContext& ctx, const Summary& s, const AdvisorRule& r, std::vector<Finding>& out) {
  const TraceData& t = ctx.t;
  size_t n = s.steps.size() + 1;  // last slot: events outside any step
  std::vector<size_t> small(n), syncs(n);
  std::vector<double> cost(n);
  auto slot = [&](int32_t st) { return st >= 0 ? static_cast<size_t>(st) : n - 1; };
  for (size_t i = 0; i < t.size(); ++i) {
    Kind k = t.kind[i];
    if (k == Kind::memcpy) {
      std::string_view nm = t.name_of(i);
      bool hd = nm.find("HtoD") != std::string_view::npos || nm.find("DtoH") != std::string_view::npos;
      if (hd && t.bytes[i] != kNone && t.bytes[i] <= r.param("max_transfer_bytes")) {
        ++small[slot(ctx.step[i])];
        cost[slot(ctx.step[i])] += t.dur[i] / kNsPerUs;
      }
    } else if ((k == Kind::runtime || k == Kind::host_op) && (ctx.flags(i) & kSync)) {
      size_t sl = slot(ctx.step_at(t.ts[i]));
      ++syncs[sl];
      cost[sl] += t.dur[i] / kNsPerUs;
    }
  }
  std::vector<StepHit> hits;
  for (size_t k = 0; k < n; ++k) {
    if (small[k] < r.param("min_transfers") || syncs[k] < r.param("min_syncs")) continue;
    std::string name = k + 1 < n ? s.steps[k].name : "outside steps";
    std::string ev = fmt::format("{}: {} small (<= {:.0f} B) H2D/D2H copies, {} sync points; blocking + copy time {:.1f} us",
                                 name, small[k], r.param("max_transfer_bytes"), syncs[k], cost[k]);
    hits.push_back({"small transfers and syncs", name, ev, cost[k]});
  }
  merged(r, s, hits, out);
}

void step_rules(const SummaryContext& ctx, Summary& s) {
  const AdvisorRule* hb = applicable(ctx, "host-bound");
  const AdvisorRule* xs = applicable(ctx, "excessive-sync");
  const AdvisorRule* cno = applicable(ctx, "comm-not-overlapped");
  std::vector<StepHit> host_bound, excessive_sync, comm_exposed;
  for (auto& st : s.steps) {
    const Breakdown& b = st.breakdown;
    if (hb && b.wall_us > 0 && st.kernels >= hb->param("min_kernels") &&
        b.busy_us() / b.wall_us < hb->param("max_busy_ratio") && st.kernel_median_us < hb->param("max_median_kernel_us"))
      host_bound.push_back({"", st.name,
                            fmt::format("{}: device busy {:.1f} of {:.1f} us ({:.1f}%), {} kernels, median {:.2f} us",
                                        st.name, b.busy_us(), b.wall_us, 100 * b.busy_us() / b.wall_us, st.kernels,
                                        st.kernel_median_us),
                            b.idle_us});
    if (xs && st.sync_points >= xs->param("min_syncs_per_step"))
      excessive_sync.push_back({"", st.name, fmt::format("{}: {} sync points", st.name, st.sync_points), 0});
    if (cno && b.wall_us > 0 && b.comm_us / b.wall_us >= cno->param("min_share"))
      comm_exposed.push_back({"", st.name,
                              fmt::format("{}: communication not overlapped {:.1f} us of {:.1f} us ({:.1f}%)", st.name,
                                          b.comm_us, b.wall_us, 100 * b.comm_us / b.wall_us),
                              b.comm_us});
  }
  if (hb) merged(*hb, s, host_bound, s.findings);
  if (xs) merged(*xs, s, excessive_sync, s.findings);
  if (cno) merged(*cno, s, comm_exposed, s.findings);
}

void npu_rules(const SummaryContext& ctx, Summary& s) {
  if (const AdvisorRule* r = applicable(ctx, "recompilation"); r && s.overall.compile_events >= r->param("min_compiles"))
    s.findings.push_back(make(*r, s, "", fmt::format("{} aclopCompileAndExecute events", s.overall.compile_events), 0));
  if (!s.npu) return;
  if (const AdvisorRule* r = applicable(ctx, "aicpu-fallback"); r && s.npu->ai_cpu_slow_tasks > 0)
    s.findings.push_back(make(*r, s, "",
                              fmt::format("{} AI_CPU tasks ({} of them >= {:.0f} us), {:.1f} us in total", s.npu->ai_cpu_tasks,
                                          s.npu->ai_cpu_slow_tasks, r->param("min_task_us"), s.npu->ai_cpu_us),
                              s.npu->ai_cpu_us));
}
}  // namespace

void run_scan_advisor(size_t k, const SummaryContext& ctx, const Summary& s, std::vector<Finding>& out) {
  using Advisor = void (*)(const SummaryContext&, const Summary&, const AdvisorRule&, std::vector<Finding>&);
  static constexpr std::pair<const char*, Advisor> scans[kScanAdvisors] = {
      {"small-gemm-batching", small_gemm_batching}, {"conv-in-loop", conv_in_loop}, {"host-device-sync", host_device_sync}};
  if (auto* r = applicable(ctx, scans[k].first)) scans[k].second(ctx, s, *r, out);
}

void run_advisors(SummaryContext& ctx, Summary& s) {
  step_rules(ctx, s);
  npu_rules(ctx, s);
}

}  // namespace banjia::trace
