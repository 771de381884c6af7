#include "trace/report/summary_render.h"

#include <fmt/format.h>

#include "common/report.h"
#include "common/safe_paths.h"
#include "trace/report/cluster_input_json.h"
#include "trace/report/communication_render.h"

namespace banjia::trace {

namespace {
void breakdown_json(JsonWriter& w, const Breakdown& b) {
  w.field("wall_us", b.wall_us).field("compute_us", b.compute_us).field("comm_us", b.comm_us);
  w.field("memory_us", b.memory_us).field("busy_us", b.busy_us()).field("idle_us", b.idle_us);
}

void step_json(JsonWriter& w, const StepStats& st) {
  w.begin_object();
  w.field("name", st.name).field("start_ns", st.start_ns).field("end_ns", st.end_ns);
  breakdown_json(w, st.breakdown);
  w.field("kernels", st.kernels).field("kernel_median_us", st.kernel_median_us);
  w.field("sync_points", st.sync_points);
  w.field("h2d_count", st.h2d_count).field("h2d_bytes", st.h2d_bytes);
  w.field("d2h_count", st.d2h_count).field("d2h_bytes", st.d2h_bytes);
  w.field("dtype_casts", st.dtype_casts).field("compile_events", st.compile_events);
  w.end_object();
}

void ops_json(JsonWriter& w, const std::vector<OpRow>& rows) {
  w.begin_array();
  for (auto& r : rows)
    w.begin_object().field("name", r.name).field("count", r.count).field("self_us", r.self_us)
        .field("total_us", r.total_us).end_object();
  w.end_array();
}

std::string pct(double part, double whole) {
  return whole > 0 ? fmt::format("{:5.1f}%", 100.0 * part / whole) : std::string("    -");
}

std::string shorten(std::string_view s, size_t n) {
  return s.size() <= n ? std::string(s) : std::string(s.substr(0, n - 3)) + "...";
}
}  // namespace

void write_summary_json(JsonWriter& w, const Summary& s) {
  w.begin_object();
  w.field("file", s.file).field("format", format_name(s.format)).field("events", s.events);
  w.field("input_bytes", s.input_bytes).field("primary_device", s.primary_device);
  w.key("warnings").begin_object().field("missing_fields", s.missing_fields)
      .field("negative_durations", s.negative_durations).field("unknown_categories", s.unknown_categories)
      .end_object();
  w.key("overall");
  step_json(w, s.overall);
  w.key("steps").begin_array();
  for (auto& st : s.steps) step_json(w, st);
  w.end_array();
  w.key("devices").begin_array();
  for (auto& [d, b] : s.devices) {
    w.begin_object().field("device", d);
    breakdown_json(w, b);
    w.end_object();
  }
  w.end_array();
  w.key("kernel_classes").begin_array();
  for (auto& c : s.classes)
    w.begin_object().field("class", c.name).field("count", c.count).field("total_us", c.total_us)
        .field("share", c.share).end_object();
  w.end_array();
  w.key("kernels").begin_object().field("count", s.kernel_count).field("median_us", s.kernel_median_us)
      .field("short_share", s.short_kernel_share).end_object();
  w.key("launch_delay").begin_object().field("count", s.launch_delay.count)
      .field("mean_us", s.launch_delay.mean_us).field("median_us", s.launch_delay.median_us)
      .field("p95_us", s.launch_delay.p95_us).field("max_us", s.launch_delay.max_us).end_object();
  w.key("top_ops_self");
  ops_json(w, s.top_ops_self);
  w.key("top_ops_total");
  ops_json(w, s.top_ops_total);
  w.key("top_kernels").begin_array();
  for (auto& k : s.top_kernels)
    w.begin_object().field("name", k.name).field("class", k.kernel_class).field("count", k.count)
        .field("total_us", k.total_us).end_object();
  w.end_array();
  if (s.npu) {
    const NpuExtras& n = *s.npu;
    w.key("npu").begin_object();
    w.field("ai_cpu_tasks", n.ai_cpu_tasks).field("ai_cpu_slow_tasks", n.ai_cpu_slow_tasks)
        .field("ai_cpu_us", n.ai_cpu_us);
    w.key("core_time_us").begin_object();
    for (auto& [k, v] : n.core_time_us) w.field(k, v);
    w.end_object();
    w.key("step_trace").begin_array();
    for (auto& r : n.step_trace) {
      w.begin_object().field("step", r.step).field("computing_us", r.computing)
          .field("comm_not_overlapped_us", r.comm_not_overlapped).field("overlapped_us", r.overlapped)
          .field("communication_us", r.communication).field("free_us", r.free).field("stage_us", r.stage)
          .field("bubble_us", r.bubble).field("preparing_us", r.preparing).end_object();
    }
    w.end_array();
    w.key("op_statistic");
    ops_json(w, n.op_statistic);
    w.key("operator_details").begin_array();
    for (auto& r : n.operator_details)
      w.begin_object().field("name", r.name).field("count", r.count).field("host_self_us", r.host_self_us)
          .field("host_total_us", r.host_total_us).field("device_self_us", r.device_self_us)
          .field("device_total_us", r.device_total_us).end_object();
    w.end_array();
    w.field("communication_ops", n.communication_ops).field("communication_elapse_ms", n.communication_elapse_ms);
    w.key("sources").begin_array();
    for (auto& f : n.sources) w.value(f);
    w.end_array();
    w.end_object();
  }
  w.key("skipped_rules").begin_array();
  for (auto& r : s.skipped_rules) w.begin_object().field("rule", r.rule).field("reason", r.reason).end_object();
  w.end_array();
  w.key("cluster_input");
  write_cluster_input_json(w, s);
  w.end_object();
}

std::string summary_text(const Summary& s) {
  std::string o = fmt::format("{} ({}, {} events)\n", printable(s.file), format_name(s.format), s.events);
  o += fmt::format("  {:<22} {:>11} {:>15} {:>15} {:>15} {:>15} {:>7} {:>6} {:>9} {:>9}\n", "step", "wall ms",
                   "compute", "comm", "memcpy/set", "idle", "kernels", "syncs", "H2D", "D2H");
  auto row = [&](const StepStats& st) {
    const Breakdown& b = st.breakdown;
    auto cell = [&](double v) { return fmt::format("{:8.3f} {}", v / 1000, pct(v, b.wall_us)); };
    o += fmt::format("  {:<22} {:>11.3f} {:>15} {:>15} {:>15} {:>15} {:>7} {:>6} {:>9} {:>9}\n",
                     shorten(st.name, 22), b.wall_us / 1000, cell(b.compute_us), cell(b.comm_us),
                     cell(b.memory_us), cell(b.idle_us), st.kernels, st.sync_points,
                     fmt::format("{}/{}B", st.h2d_count, st.h2d_bytes), fmt::format("{}/{}B", st.d2h_count, st.d2h_bytes));
  };
  for (auto& st : s.steps) row(st);
  row(s.overall);
  o += fmt::format("  kernels: {} (median {:.2f} us, {:.1f}% < 10 us); launch delay median {:.2f} us, p95 {:.2f} us ({} launches); dtype casts {}\n",
                   s.kernel_count, s.kernel_median_us, 100 * s.short_kernel_share, s.launch_delay.median_us,
                   s.launch_delay.p95_us, s.launch_delay.count, s.overall.dtype_casts);
  o += "  kernel classes:";
  for (auto& c : s.classes)
    if (c.count) o += fmt::format(" {} {:.1f}%", c.name, 100 * c.share);
  o += "\n  top ops (self ms / total ms / count):\n";
  for (auto& r : s.top_ops_self)
    o += fmt::format("    {:>10.3f} {:>10.3f} {:>7}  {}\n", r.self_us / 1000, r.total_us / 1000, r.count, shorten(r.name, 90));
  if (!s.top_kernels.empty()) o += "  top kernels (total ms / count / class):\n";
  for (auto& k : s.top_kernels)
    o += fmt::format("    {:>10.3f} {:>7} {:<13} {}\n", k.total_us / 1000, k.count, k.kernel_class, shorten(k.name, 90));
  if (s.npu) {
    const NpuExtras& n = *s.npu;
    o += fmt::format("  NPU: AI_CPU tasks {} ({} >= 20 us, {:.1f} us); op compiles {}\n", n.ai_cpu_tasks,
                     n.ai_cpu_slow_tasks, n.ai_cpu_us, s.overall.compile_events);
    if (!n.core_time_us.empty()) {
      o += "  NPU core time:";
      for (auto& [k, v] : n.core_time_us) o += fmt::format(" {} {:.1f} us;", k, v);
      o += "\n";
    }
    if (!n.operator_details.empty()) o += "  ops by device time (operator_details.csv; device total ms / host self ms / calls):\n";
    for (size_t i = 0; i < n.operator_details.size() && i < 5; ++i) {
      auto& r = n.operator_details[i];
      o += fmt::format("    {:>10.3f} {:>10.3f} {:>7}  {}\n", r.device_total_us / 1000, r.host_self_us / 1000, r.count,
                       shorten(r.name, 90));
    }
    for (auto& r : n.step_trace)
      o += fmt::format("  step_trace_time.csv step {}: computing {:.1f} us, comm not overlapped {:.1f} us, free {:.1f} us\n",
                       r.step, r.computing, r.comm_not_overlapped, r.free);
  }
  for (auto& r : s.skipped_rules) o += fmt::format("  skipped: {} \u2014 {}\n", r.rule, r.reason);
  size_t warn = s.missing_fields + s.negative_durations + s.unknown_categories;
  if (warn)
    o += fmt::format("  warnings: {} events with missing fields, {} negative durations, {} unknown categories\n",
                     s.missing_fields, s.negative_durations, s.unknown_categories);
  return o;
}

bool is_csv_table(const std::string& t) { return t == "steps" || t == "ops" || t == "kernels" || t == "classes"; }

std::string summary_csv(const std::vector<Summary>& all, const std::string& table) {
  std::string o;
  if (table == "ops") {
    o = "file,op,count,self_us,total_us\n";
    // The --top ops by self time, largest first, like the kernels table's top kernels.
    for (auto& s : all)
      for (auto& r : s.top_ops_self)
        o += fmt::format("{},{},{},{:.3f},{:.3f}\n", csv_field(s.file), csv_field(r.name), r.count, r.self_us, r.total_us);
  } else if (table == "kernels") {
    o = "file,kernel,class,count,total_us\n";
    for (auto& s : all)
      for (auto& k : s.top_kernels)
        o += fmt::format("{},{},{},{},{:.3f}\n", csv_field(s.file), csv_field(k.name), k.kernel_class, k.count, k.total_us);
  } else if (table == "classes") {
    o = "file,class,count,total_us,share\n";
    for (auto& s : all)
      for (auto& c : s.classes)
        o += fmt::format("{},{},{},{:.3f},{:.6f}\n", csv_field(s.file), c.name, c.count, c.total_us, c.share);
  } else {
    o = "file,step,wall_us,compute_us,comm_us,memory_us,idle_us,kernels,kernel_median_us,sync_points,h2d_count,h2d_bytes,d2h_count,d2h_bytes,dtype_casts,compile_events\n";
    for (auto& s : all) {
      auto row = [&](const StepStats& st) {
        const Breakdown& b = st.breakdown;
        o += fmt::format("{},{},{:.3f},{:.3f},{:.3f},{:.3f},{:.3f},{},{:.3f},{},{},{},{},{},{},{}\n", csv_field(s.file),
                         csv_field(st.name), b.wall_us, b.compute_us, b.comm_us, b.memory_us, b.idle_us, st.kernels,
                         st.kernel_median_us, st.sync_points, st.h2d_count, st.h2d_bytes, st.d2h_count, st.d2h_bytes,
                         st.dtype_casts, st.compile_events);
      };
      for (auto& st : s.steps) row(st);
      row(s.overall);
    }
  }
  return o;
}

void write_cluster_json(JsonWriter& w, const ClusterView& c) {
  w.begin_object();
  w.key("ranks").begin_array();
  for (auto& r : c.ranks)
    w.begin_object().field("file", r.file).field("rank", r.rank).field("step_us", r.step_us).field("compute_us", r.compute_us)
        .field("comm_us", r.comm_us).field("memory_us", r.memory_us).field("idle_us", r.idle_us)
        .field("stage_us", r.stage_us).field("bubble_us", r.bubble_us).end_object();
  w.end_array();
  w.key("slow_rank_metrics").begin_array();
  for (auto& m : c.metrics)
    w.begin_object().field("metric", m.metric).field("gap_ratio", m.gap_ratio)
        .field("slowest_rank", static_cast<uint64_t>(m.slowest)).field("flagged", m.flagged).end_object();
  w.end_array();
  w.field("slow_rank", c.slow_rank).field("threshold", kSlowRankRatio);
  if (c.culprit)
    w.key("culprit").begin_object().field("index", static_cast<uint64_t>(c.culprit->index))
        .field("rank", c.ranks[c.culprit->index].rank).field("own_us", c.culprit->own_us)
        .field("median_own_us", c.culprit->median_own_us).field("gap_ratio", c.culprit->gap_ratio).end_object();
  else
    w.key("culprit").null();
  w.key("waiting").begin_array();
  for (const WaitingRank& v : c.waiting)
    w.begin_object().field("index", static_cast<uint64_t>(v.index)).field("rank", c.ranks[v.index].rank)
        .field("wait_us", v.wait_us).field("excess_us", v.excess_us).end_object();
  w.end_array();
  w.key("communication");
  write_communication_json(w, c);
  w.end_object();
}

std::string cluster_ranks_csv(const ClusterView& c) {
  std::string o = "rank,file,step_us,compute_us,comm_us,memory_us,idle_us,stage_us,bubble_us,last_arrivals,held_us\n";
  const auto& arrivals = c.communication.arrivals.ranks;
  for (size_t i = 0; i < c.ranks.size(); ++i) {
    const RankRow& r = c.ranks[i];
    auto optional_cell = [](std::optional<double> v) { return v ? fmt::format("{:.3f}", *v) : std::string(); };
    o += fmt::format("{},{},{:.3f},{:.3f},{:.3f},{:.3f},{:.3f},{},{},{},{:.3f}\n", rank_of(c, i), csv_field(r.file), r.step_us,
                     r.compute_us, r.comm_us, r.memory_us, r.idle_us, optional_cell(r.stage_us), optional_cell(r.bubble_us),
                     i < arrivals.size() ? arrivals[i].last : 0, i < arrivals.size() ? arrivals[i].held_us : 0.0);
  }
  return o;
}

namespace {
// Pipeline stages, where the profiler recorded them: each rank's mean stage time and bubble, and
// the rank whose bubble is largest.
std::string pipeline_text(const ClusterView& c) {
  size_t worst = c.ranks.size();
  for (size_t i = 0; i < c.ranks.size(); ++i)
    if (c.ranks[i].bubble_us && (worst == c.ranks.size() || *c.ranks[i].bubble_us > *c.ranks[worst].bubble_us)) worst = i;
  if (worst == c.ranks.size() || *c.ranks[worst].bubble_us <= 0) return "";
  const RankRow& r = c.ranks[worst];
  return fmt::format("  pipeline bubble: largest at rank {}: {:.3f} ms per step of its stage's {:.3f} ms ({:.0f}%)\n",
                     rank_of(c, worst), *r.bubble_us / 1000, r.stage_us.value_or(0) / 1000,
                     r.stage_us && *r.stage_us > 0 ? 100 * *r.bubble_us / *r.stage_us : 0.0);
}
}  // namespace

std::string cluster_text(const ClusterView& c) {
  std::string o = "cluster (mean per step, ms):\n";
  o += fmt::format("  {:>4} {:>10} {:>10} {:>10} {:>10} {:>10}  {}\n", "rank", "step", "compute", "comm", "memory", "idle", "file");
  for (size_t i = 0; i < c.ranks.size(); ++i) {
    auto& r = c.ranks[i];
    o += fmt::format("  {:>4} {:>10.3f} {:>10.3f} {:>10.3f} {:>10.3f} {:>10.3f}  {}\n",
                     rank_of(c, i), r.step_us / 1000,
                     r.compute_us / 1000, r.comm_us / 1000, r.memory_us / 1000, r.idle_us / 1000, printable(r.file));
  }
  for (auto& m : c.metrics) {
    // Communication and idle time are where a rank waits: the rank with the most is not slow itself
    // unless it is also the one with the most own work.
    const bool waiting = m.metric == "comm_us" || m.metric == "idle_us";
    std::string flag;
    if (m.flagged && !waiting) flag = fmt::format(" > 5%: slow rank {}", rank_of(c, m.slowest));
    if (m.flagged && waiting) {
      flag = fmt::format(" > 5%: rank {} waits longest", rank_of(c, m.slowest));
      if (c.culprit && c.culprit->index != m.slowest) flag += fmt::format(" (for rank {})", rank_of(c, c.culprit->index));
    }
    o += fmt::format("  {}: (max-min)/mean = {:.1f}%{}\n", m.metric, 100 * m.gap_ratio, flag);
  }
  if (c.culprit)
    o += fmt::format("  culprit: rank {}: its own work (compute + memory) is {:.3f} ms per step, {:.0f}% above the median "
                     "rank's {:.3f} ms; the others wait for it\n",
                     rank_of(c, c.culprit->index), c.culprit->own_us / 1000,
                     c.culprit->median_own_us > 0 ? 100 * (c.culprit->own_us / c.culprit->median_own_us - 1) : 0.0,
                     c.culprit->median_own_us / 1000);
  if (!c.waiting.empty()) {
    o += "  waiting (comm + idle above the least-waiting rank, ms per step):";
    for (size_t k = 0; k < c.waiting.size() && k < 8; ++k)
      o += fmt::format(" rank {} +{:.3f}{}", rank_of(c, c.waiting[k].index), c.waiting[k].excess_us / 1000,
                       k + 1 < std::min<size_t>(c.waiting.size(), 8) ? "," : "");
    if (c.waiting.size() > 8) o += fmt::format(" and {} more", c.waiting.size() - 8);
    o += "\n";
  }
  o += pipeline_text(c);
  o += communication_text(c);
  return o;
}

}  // namespace banjia::trace
