// Host op table (self/total time by nesting per thread), kernel table, kernel classes, launch
// delays and per-step host counters (syncs, casts, transfers, compiles).
#include <algorithm>
#include <unordered_map>

#include "trace/analysis/summary.h"
#include "trace/analysis/parallel_sort.h"
#include "trace/analysis/summary_context.h"
#include "trace/model/trace_model.h"

namespace banjia::trace {

namespace {

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
        out.push_back((t.ts[i] - s->second) / kNsPerUs);
        break;
      }
    }
  }
}
}  // namespace

void set_op_tables(Summary& s, std::vector<OpRow> ops, size_t top) {
  s.ops = std::move(ops);
  std::sort(s.ops.begin(), s.ops.end(), [](const OpRow& a, const OpRow& b) { return a.name < b.name; });
  s.top_ops_self = top_by(s.ops, top, &OpRow::self_us);
  s.top_ops_total = top_by(s.ops, top, &OpRow::total_us);
}

void fill_op_tables(SummaryContext& ctx, Summary& s, const SummaryOptions& opt) {
  const TraceData& t = ctx.t;
  // Host ops of each thread by start time, longest first on ties (the parent before its first child);
  // the event index makes the order total, so self times do not depend on the sort.
  struct OpKey {
    int64_t pid, tid, ts, neg_dur;
    size_t i;
    bool operator<(const OpKey& o) const {
      if (pid != o.pid) return pid < o.pid;
      if (tid != o.tid) return tid < o.tid;
      if (ts != o.ts) return ts < o.ts;
      if (neg_dur != o.neg_dur) return neg_dur < o.neg_dur;
      return i < o.i;
    }
  };
  std::vector<std::vector<OpKey>> found(ctx.blocks());
  parallel_for(ctx.blocks(), ctx.threads, [&](size_t b) {
    for (size_t i = b * kEventBlock; i < std::min(t.size(), (b + 1) * kEventBlock); ++i)
      if (is_op(t.kind[i])) found[b].push_back(OpKey{t.pid[i], t.tid[i], t.ts[i], -t.dur[i], i});
  });
  // Threads apart (few), then per thread: ops by time (profilers write them almost in order) and
  // self time = own duration minus the durations of ops nested directly inside (a stack). Totals
  // per name id are added up per worker in integer ns (exact, so independent of the order).
  auto threads = group_by(std::move(found), [](const OpKey& o) { return std::pair{o.pid, o.tid}; });
  struct Acc {
    size_t count = 0;
    int64_t self_ns = 0, total_ns = 0;
  };
  std::vector<std::vector<Acc>> acc(ctx.threads);
  ctx.for_items(threads.size(), [&](size_t w, size_t k) {
    std::vector<OpKey>& ops = threads[k];
    sort_nearly_sorted(ops, std::less<OpKey>());
    std::vector<int64_t> self(ops.size());
    std::vector<size_t> stack;  // positions in `ops`
    for (size_t p = 0; p < ops.size(); ++p) {
      const OpKey& o = ops[p];
      while (!stack.empty() && ops[stack.back()].ts - ops[stack.back()].neg_dur <= o.ts) stack.pop_back();
      self[p] = -o.neg_dur;
      if (!stack.empty() && o.ts - o.neg_dur <= ops[stack.back()].ts - ops[stack.back()].neg_dur)
        self[stack.back()] += o.neg_dur;
      stack.push_back(p);
    }
    if (acc[w].empty()) acc[w].resize(t.strings.size());
    for (size_t p = 0; p < ops.size(); ++p) {
      size_t i = ops[p].i;
      if (ctx.flags(i) & kStep) continue;
      Acc& a = acc[w][t.name[i]];
      ++a.count;
      a.total_ns -= ops[p].neg_dur;
      a.self_ns += std::max<int64_t>(0, self[p]);
    }
    std::vector<OpKey>().swap(ops);
  });
  std::vector<Acc> by_name(t.strings.size());
  for (auto& per_worker : acc)
    for (size_t id = 0; id < per_worker.size(); ++id) {
      by_name[id].count += per_worker[id].count;
      by_name[id].self_ns += per_worker[id].self_ns;
      by_name[id].total_ns += per_worker[id].total_ns;
    }
  std::vector<OpRow> rows;
  for (size_t id = 0; id < by_name.size(); ++id) {
    const Acc& a = by_name[id];
    if (a.count == 0) continue;
    rows.push_back(OpRow{std::string(t.strings.view(static_cast<uint32_t>(id))), a.count, a.self_ns / kNsPerUs,
                         a.total_ns / kNsPerUs});
  }
  set_op_tables(s, std::move(rows), opt.top);

  // Per-step host counters (last slot: the whole trace), per worker, then added up.
  struct Counts {
    size_t sync = 0, cast = 0, compile = 0;
  };
  const size_t slots = s.steps.size() + 1;
  std::vector<std::vector<Counts>> counts(ctx.threads, std::vector<Counts>(slots));
  ctx.for_blocks([&](size_t w, size_t from, size_t to) {
    for (size_t i = from; i < to; ++i) {
      Kind k = t.kind[i];
      if (k != Kind::runtime && k != Kind::host_op) continue;
      int f = ctx.flags(i) & (kSync | kCast | kCompile);
      if (!f) continue;
      int32_t st = ctx.step_at(t.ts[i]);
      for (size_t slot : {slots - 1, st >= 0 ? static_cast<size_t>(st) : SIZE_MAX}) {
        if (slot == SIZE_MAX) continue;
        Counts& c = counts[w][slot];
        c.sync += (f & kSync) != 0;
        c.cast += (f & kCast) != 0;
        c.compile += (f & kCompile) != 0;
      }
    }
  });
  for (auto& per_worker : counts)
    for (size_t slot = 0; slot < slots; ++slot) {
      StepStats& x = slot + 1 == slots ? s.overall : s.steps[slot];
      x.sync_points += per_worker[slot].sync;
      x.dtype_casts += per_worker[slot].cast;
      x.compile_events += per_worker[slot].compile;
    }
}

void fill_kernel_tables(SummaryContext& ctx, Summary& s, const SummaryOptions& opt) {
  const TraceData& t = ctx.t;
  const auto& class_names = kernel_class_names();
  const size_t n_steps = s.steps.size();
  // Everything is accumulated per worker in integer ns and added up after: exact, and the same
  // for any number of threads. Duration lists only feed order statistics (order irrelevant).
  struct Transfers {
    size_t h2d = 0, d2h = 0;
    int64_t h2d_bytes = 0, d2h_bytes = 0;
  };
  struct Scratch {
    std::vector<size_t> class_count;
    std::vector<int64_t> class_ns;
    std::vector<size_t> kernel_count;  // per name id
    std::vector<int64_t> kernel_ns;
    std::vector<Transfers> transfers;  // per step, last slot: whole trace
    std::vector<int64_t> durs, delays;
    std::vector<std::vector<int64_t>> step_durs;
  };
  std::vector<Scratch> scratch(ctx.threads);
  for (auto& x : scratch) {
    x.class_count.resize(class_names.size());
    x.class_ns.resize(class_names.size());
    x.transfers.resize(n_steps + 1);
    x.step_durs.resize(n_steps);
  }
  ctx.for_blocks([&](size_t w, size_t from, size_t to) {
    Scratch& x = scratch[w];
    for (size_t i = from; i < to; ++i) {
      Kind k = t.kind[i];
      if (!is_device(k)) continue;
      int c = ctx.class_index(i);
      int64_t d = t.dur[i];
      ++x.class_count[c];
      x.class_ns[c] += d;
      int32_t st = ctx.step[i];
      if (k == Kind::memcpy) {
        int f = ctx.flags(i);
        int64_t b = t.bytes[i] == kNone ? 0 : t.bytes[i];
        for (size_t slot : {n_steps, st >= 0 ? static_cast<size_t>(st) : SIZE_MAX}) {
          if (slot == SIZE_MAX) continue;
          Transfers& tr = x.transfers[slot];
          if (f & kHtoD) ++tr.h2d, tr.h2d_bytes += b;
          if (f & kDtoH) ++tr.d2h, tr.d2h_bytes += b;
        }
      }
      if (k != Kind::kernel) continue;
      if (x.kernel_count.empty()) {
        x.kernel_count.resize(t.strings.size());
        x.kernel_ns.resize(t.strings.size());
      }
      ++x.kernel_count[t.name[i]];
      x.kernel_ns[t.name[i]] += d;
      x.durs.push_back(d);
      if (st >= 0) x.step_durs[st].push_back(d);
      // Launch delay: device start - host launch start (HTA pairs runtime and kernel by correlation id).
      if (ctx.launch_ts[i] != kNone && t.ts[i] >= ctx.launch_ts[i]) x.delays.push_back(t.ts[i] - ctx.launch_ts[i]);
    }
  });
  Scratch& all = scratch[0];
  for (size_t w = 1; w < scratch.size(); ++w) {
    Scratch& x = scratch[w];
    for (size_t c = 0; c < class_names.size(); ++c) {
      all.class_count[c] += x.class_count[c];
      all.class_ns[c] += x.class_ns[c];
    }
    if (all.kernel_count.empty()) all.kernel_count.swap(x.kernel_count), all.kernel_ns.swap(x.kernel_ns);
    for (size_t id = 0; id < x.kernel_count.size(); ++id) {
      all.kernel_count[id] += x.kernel_count[id];
      all.kernel_ns[id] += x.kernel_ns[id];
    }
    for (size_t k = 0; k <= n_steps; ++k) {
      all.transfers[k].h2d += x.transfers[k].h2d;
      all.transfers[k].d2h += x.transfers[k].d2h;
      all.transfers[k].h2d_bytes += x.transfers[k].h2d_bytes;
      all.transfers[k].d2h_bytes += x.transfers[k].d2h_bytes;
    }
    all.durs.insert(all.durs.end(), x.durs.begin(), x.durs.end());
    all.delays.insert(all.delays.end(), x.delays.begin(), x.delays.end());
    for (size_t k = 0; k < n_steps; ++k)
      all.step_durs[k].insert(all.step_durs[k].end(), x.step_durs[k].begin(), x.step_durs[k].end());
    x = Scratch();
  }
  int64_t device_ns = 0;
  for (int64_t v : all.class_ns) device_ns += v;
  std::vector<ClassRow> classes(class_names.size());
  for (size_t c = 0; c < classes.size(); ++c) {
    classes[c].name = class_names[c];
    classes[c].count = all.class_count[c];
    classes[c].total_us = all.class_ns[c] / kNsPerUs;
    classes[c].share = device_ns > 0 ? static_cast<double>(all.class_ns[c]) / static_cast<double>(device_ns) : 0;
  }
  s.classes = classes;
  for (size_t k = 0; k <= n_steps; ++k) {
    StepStats& x = k == n_steps ? s.overall : s.steps[k];
    const Transfers& tr = all.transfers[k];
    x.h2d_count += tr.h2d, x.h2d_bytes += tr.h2d_bytes, x.d2h_count += tr.d2h, x.d2h_bytes += tr.d2h_bytes;
  }
  std::vector<KernelRow> rows;
  for (size_t id = 0; id < all.kernel_count.size(); ++id) {
    if (!all.kernel_count[id]) continue;
    auto nm = static_cast<uint32_t>(id);
    rows.push_back(KernelRow{std::string(t.strings.view(nm)), class_names[ctx.class_of_name(nm)],
                             all.kernel_count[id], all.kernel_ns[id] / kNsPerUs});
  }
  std::sort(rows.begin(), rows.end(), [](const KernelRow& a, const KernelRow& b) {
    return a.total_us != b.total_us ? a.total_us > b.total_us : a.name < b.name;
  });
  if (rows.size() > opt.top) rows.resize(opt.top);
  s.top_kernels = rows;
  s.kernel_count = all.durs.size();
  size_t short_count = std::count_if(all.durs.begin(), all.durs.end(), [](int64_t d) { return d < 10000; });
  s.short_kernel_share =
      all.durs.empty() ? 0 : static_cast<double>(short_count) / static_cast<double>(all.durs.size());
  s.kernel_median_us = median_us(std::move(all.durs));
  s.overall.kernels = s.kernel_count;
  s.overall.kernel_median_us = s.kernel_median_us;
  parallel_for(n_steps, ctx.threads, [&](size_t k) {
    s.steps[k].kernels = all.step_durs[k].size();
    s.steps[k].kernel_median_us = median_us(std::move(all.step_durs[k]));
  });
  if (all.delays.empty() && t.format == TraceFormat::torch_npu) {
    std::vector<double> delays;
    npu_launch_delays(t, delays);
    s.launch_delay = dist_stats(std::move(delays));
  } else {
    s.launch_delay = dist_stats_ns(std::move(all.delays));
  }
}

}  // namespace banjia::trace
