#include "trace/analysis/summary_context.h"

#include <algorithm>
#include <charconv>
#include <optional>

#include "trace/analysis/parallel_sort.h"

namespace banjia::trace {

namespace {
// "GPU 0" / "NPU 1" / "NPU" -> device index; processes without a device label keep their pid.
std::optional<int64_t> device_from_label(std::string_view label) {
  for (std::string_view p : {"GPU", "NPU"}) {
    if (!label.starts_with(p)) continue;
    auto rest = label.substr(p.size());
    while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
    int64_t d = 0;
    if (rest.empty()) return 0;
    auto [ptr, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), d);
    if (ec == std::errc()) return d;
    (void)ptr;
    return 0;
  }
  return std::nullopt;
}
}  // namespace

SummaryContext::SummaryContext(const TraceData& trace, const TraceRules& r, unsigned n_threads)
    : t(trace), rules(r), threads(std::max(1u, n_threads)) {
  for (auto& [pid, label] : t.process_labels)
    if (auto d = device_from_label(label)) device_by_pid_[pid] = *d;
  const auto& names = kernel_class_names();
  auto index_of = [&](std::string_view c) {
    return static_cast<int>(std::find(names.begin(), names.end(), c) - names.begin());
  };
  memory_class_ = index_of("memory");
  comm_class_ = index_of("communication");
  // Per distinct string: kernel class and name flags (a few thousand strings, millions of events).
  const size_t n_str = t.strings.size();
  class_of_name_.resize(n_str);
  name_flags_.resize(n_str);
  parallel_for((n_str + 1023) / 1024, threads, [&](size_t b) {
    for (size_t id = b * 1024; id < std::min(n_str, (b + 1) * 1024); ++id) {
      std::string_view s = t.strings.view(static_cast<uint32_t>(id));
      class_of_name_[id] = static_cast<int8_t>(index_of(rules.classify_kernel(s)));
      int f = 0;
      if (rules.sync.matches(s)) f |= kSync;
      if (rules.cast.matches(s)) f |= kCast;
      if (rules.compile.matches(s)) f |= kCompile;
      if (rules.step.matches(s)) f |= kStep;
      if (rules.host_collective.matches(s)) f |= kHostCollective;
      if (s.find("HtoD") != std::string_view::npos) f |= kHtoD;
      if (s.find("DtoH") != std::string_view::npos) f |= kDtoH;
      name_flags_[id] = static_cast<uint8_t>(f);
    }
  });
  const size_t n = t.size();
  // Step markers: ProfilerStep#N on the host (user_annotation in new Kineto, cpu_op in older and NPU);
  // in the same pass, the facts the advisors' needs are checked against.
  std::vector<std::vector<size_t>> found(blocks());
  std::vector<TraceFacts> block_facts(blocks());
  parallel_for(blocks(), threads, [&](size_t b) {
    TraceFacts& f = block_facts[b];
    for (size_t i = b * kEventBlock; i < std::min(n, (b + 1) * kEventBlock); ++i) {
      Kind k = t.kind[i];
      if ((k == Kind::annotation || k == Kind::host_op) && (flags(i) & kStep)) found[b].push_back(i);
      if (k == Kind::host_op && t.shape[i]) f.input_shapes = true;
      if (is_device(k)) {
        f.device = true;
        if (k == Kind::kernel) f.device_kernels = true;
        if (group(i) == Group::comm) f.communication = true;
      }
      // torch_npu's overlap analysis ("Communication", "Communication(Not Overlapped)")
      if (k == Kind::overlap && t.name_of(i).starts_with("Communication")) f.communication = true;
    }
  });
  facts.ascend = t.format == TraceFormat::torch_npu;
  for (const TraceFacts& f : block_facts) {
    facts.device |= f.device;
    facts.device_kernels |= f.device_kernels;
    facts.input_shapes |= f.input_shapes;
    facts.communication |= f.communication;
  }
  for (auto& f : found) step_events.insert(step_events.end(), f.begin(), f.end());
  std::sort(step_events.begin(), step_events.end(), [&](size_t a, size_t b) { return t.ts[a] < t.ts[b]; });
  // One marker per step name (torch_npu DB exports hold it in STEP_TIME and PYTORCH_API): keep the longest.
  std::unordered_map<uint32_t, size_t> by_name;
  std::vector<size_t> unique;
  for (size_t idx : step_events) {
    auto [it, fresh] = by_name.try_emplace(t.name[idx], unique.size());
    if (fresh) unique.push_back(idx);
    else if (t.dur[idx] > t.dur[unique[it->second]]) unique[it->second] = idx;
  }
  step_events = std::move(unique);
  std::sort(step_events.begin(), step_events.end(), [&](size_t a, size_t b) { return t.ts[a] < t.ts[b]; });
  for (size_t idx : step_events) step_start_.push_back(t.ts[idx]);
  // Device work belongs to the step in which the host launched it: the runtime call with the same
  // correlation id (the first one wins). Both sides are listed by id (ids grow with time, so the
  // lists are almost sorted already) and merge-joined.
  struct ById {
    int64_t corr;
    size_t i;
  };
  std::vector<std::vector<ById>> host_parts(blocks()), dev_parts(blocks());
  parallel_for(blocks(), threads, [&](size_t b) {
    for (size_t i = b * kEventBlock; i < std::min(n, (b + 1) * kEventBlock); ++i) {
      if (t.corr[i] == kNone) continue;
      if (t.kind[i] == Kind::runtime) host_parts[b].push_back({t.corr[i], i});
      else if (is_device(t.kind[i])) dev_parts[b].push_back({t.corr[i], i});
    }
  });
  std::vector<ById> by_id[2];
  for (size_t b = 0; b < blocks(); ++b) {
    by_id[0].insert(by_id[0].end(), host_parts[b].begin(), host_parts[b].end());
    by_id[1].insert(by_id[1].end(), dev_parts[b].begin(), dev_parts[b].end());
  }
  host_parts.clear(), dev_parts.clear();
  parallel_for(2, threads, [&](size_t k) { radix_sort(by_id[k], [](const ById& x) { return x.corr; }); });
  launch_ts.assign(n, kNone);
  const std::vector<ById>& host = by_id[0];
  size_t h = 0;
  for (const ById& d : by_id[1]) {
    while (h < host.size() && host[h].corr < d.corr) ++h;
    if (h < host.size() && host[h].corr == d.corr) launch_ts[d.i] = t.ts[host[h].i];
  }
  step.assign(n, -1);
  if (!step_events.empty())
    for_blocks([&](size_t, size_t from, size_t to) {
      int32_t last = -1;  // consecutive events mostly fall in the same step
      for (size_t i = from; i < to; ++i) {
        int64_t ts = launch_ts[i] != kNone ? launch_ts[i] : t.ts[i];
        if (last < 0 || last + 1 >= static_cast<int32_t>(step_start_.size()) || ts < step_start_[last] ||
            ts >= step_start_[last + 1])
          last = step_at(ts);
        step[i] = last;
      }
    });
}

int32_t SummaryContext::step_at(int64_t ts) const {
  auto it = std::upper_bound(step_start_.begin(), step_start_.end(), ts);
  if (it == step_start_.begin()) return -1;
  size_t k = static_cast<size_t>(it - step_start_.begin()) - 1;
  if (k + 1 == step_events.size()) {
    size_t last = step_events[k];
    if (ts > t.ts[last] + t.dur[last]) return -1;
  }
  return static_cast<int32_t>(k);
}

int64_t SummaryContext::device_of(int64_t pid) const {
  auto it = device_by_pid_.find(pid);
  return it == device_by_pid_.end() ? pid : it->second;
}

int SummaryContext::class_index(size_t i) const {
  if (t.kind[i] == Kind::memcpy || t.kind[i] == Kind::memset) return memory_class_;
  if (t.kind[i] == Kind::comm) return comm_class_;
  return class_of_name_[t.name[i]];
}

Group SummaryContext::group(size_t i) const {
  if (!is_device(t.kind[i])) return Group::none;
  int c = class_index(i);
  if (c == comm_class_) return Group::comm;
  if (c == memory_class_) return Group::memory;
  return Group::compute;
}

}  // namespace banjia::trace
