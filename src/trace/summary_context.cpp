#include "trace/summary_context.h"

#include <algorithm>
#include <charconv>
#include <optional>

#include "trace/id_map.h"

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

SummaryContext::SummaryContext(const TraceData& trace, const TraceRules& r)
    : t(trace), rules(r), class_of_name(trace.strings.size(), -1), name_flags(trace.strings.size(), 0) {
  for (auto& [pid, label] : t.process_labels)
    if (auto d = device_from_label(label)) device_by_pid_[pid] = *d;
  const size_t n = t.size();
  // Step markers: ProfilerStep#N on the host (user_annotation in new Kineto, cpu_op in older and NPU).
  for (size_t i = 0; i < n; ++i)
    if ((t.kind[i] == Kind::annotation || t.kind[i] == Kind::host_op) && rules.step.matches(t.name_of(i)))
      step_events.push_back(i);
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
  // Device work belongs to the step in which the host launched it (correlation id of the runtime call).
  IdMap runtime_ts(n / 4);
  for (size_t i = 0; i < n; ++i)
    if (t.kind[i] == Kind::runtime && t.corr[i] != kNone) runtime_ts.add(t.corr[i], t.ts[i]);
  launch_ts.assign(n, kNone);
  for (size_t i = 0; i < n; ++i) {
    if (!is_device(t.kind[i]) || t.corr[i] == kNone) continue;
    if (const int64_t* ts = runtime_ts.find(t.corr[i])) launch_ts[i] = *ts;
  }
  step.assign(n, -1);
  if (!step_events.empty())
    for (size_t i = 0; i < n; ++i) step[i] = step_at(launch_ts[i] != kNone ? launch_ts[i] : t.ts[i]);
}

int32_t SummaryContext::step_at(int64_t ts) const {
  auto it = std::upper_bound(step_events.begin(), step_events.end(), ts,
                             [&](int64_t v, size_t idx) { return v < t.ts[idx]; });
  if (it == step_events.begin()) return -1;
  size_t k = static_cast<size_t>(it - step_events.begin()) - 1;
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

int SummaryContext::class_index(size_t i) {
  const auto& names = kernel_class_names();
  auto index_of = [&](std::string_view c) {
    return static_cast<int>(std::find(names.begin(), names.end(), c) - names.begin());
  };
  if (t.kind[i] == Kind::memcpy || t.kind[i] == Kind::memset) return index_of("memory");
  if (t.kind[i] == Kind::comm) return index_of("communication");
  uint32_t nm = t.name[i];
  if (class_of_name[nm] < 0) class_of_name[nm] = static_cast<int8_t>(index_of(rules.classify_kernel(t.strings.view(nm))));
  return class_of_name[nm];
}

Group SummaryContext::group(size_t i) {
  if (!is_device(t.kind[i])) return Group::none;
  std::string_view c = kernel_class_names()[class_index(i)];
  if (c == "communication") return Group::comm;
  if (c == "memory") return Group::memory;
  return Group::compute;
}

int SummaryContext::flags(size_t i) {
  uint32_t nm = t.name[i];
  if (!(name_flags[nm] & 0x80)) {
    std::string_view s = t.strings.view(nm);
    int f = 0x80;
    if (rules.sync.matches(s)) f |= 1;
    if (rules.cast.matches(s)) f |= 2;
    if (rules.compile.matches(s)) f |= 4;
    name_flags[nm] = static_cast<uint8_t>(f);
  }
  return name_flags[nm] & 0x7f;
}

}  // namespace banjia::trace
