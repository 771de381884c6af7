#include "trace/trace_model.h"

namespace banjia::trace {

uint32_t StringPool::intern(std::string_view s) {
  auto it = index_.find(s);
  if (it != index_.end()) return it->second;
  storage_.emplace_back(s);
  std::string_view v = storage_.back();
  auto id = static_cast<uint32_t>(views_.size());
  views_.push_back(v);
  index_.emplace(v, id);
  return id;
}

uint32_t StringPool::find(std::string_view s) const {
  auto it = index_.find(s);
  return it == index_.end() ? UINT32_MAX : it->second;
}

bool is_device(Kind k) {
  return k == Kind::kernel || k == Kind::memcpy || k == Kind::memset || k == Kind::comm;
}

void TraceData::reserve(size_t n) {
  for (auto* v : {&name, &cat, &shape, &task_type}) v->reserve(n);
  for (auto* v : {&ts, &dur, &pid, &tid, &corr, &ext_id, &bytes}) v->reserve(n);
  kind.reserve(n);
}

void TraceData::append(TraceData&& part) {
  std::vector<uint32_t> remap(part.strings.size());
  for (size_t i = 0; i < remap.size(); ++i) remap[i] = strings.intern(part.strings.view(static_cast<uint32_t>(i)));
  auto ids = [&](std::vector<uint32_t>& to, const std::vector<uint32_t>& from) {
    for (uint32_t v : from) to.push_back(remap[v]);
  };
  ids(name, part.name);
  ids(cat, part.cat);
  ids(shape, part.shape);
  ids(task_type, part.task_type);
  auto proc = [&](int64_t v) {
    return v <= kStringPidBase && v != kNone ? kStringPidBase - static_cast<int64_t>(remap[kStringPidBase - v]) : v;
  };
  for (int64_t v : part.pid) pid.push_back(proc(v));
  for (int64_t v : part.tid) tid.push_back(proc(v));
  for (auto col : {std::pair{&ts, &part.ts}, std::pair{&dur, &part.dur}, std::pair{&corr, &part.corr},
                    std::pair{&ext_id, &part.ext_id}, std::pair{&bytes, &part.bytes}})
    col.first->insert(col.first->end(), col.second->begin(), col.second->end());
  for (Flow f : part.flows) {
    f.cat = remap[f.cat];
    f.pid = proc(f.pid);
    f.tid = proc(f.tid);
    if (f.string_id) f.id = remap[f.id];
    flows.push_back(f);
  }
  for (auto& [p, n] : part.process_names) process_names[proc(p)] = n;
  for (auto& [p, n] : part.process_labels) process_labels[proc(p)] = n;
  missing_fields += part.missing_fields;
  negative_durations += part.negative_durations;
  unknown_categories += part.unknown_categories;
  part = TraceData();
}

namespace {
// Category names of current Kineto (libkineto ActivityType.cpp) and of the 2021 format.
Kind kind_of_category(std::string_view c, bool& known) {
  known = true;
  if (c == "cpu_op" || c == "Operator" || c == "operator") return Kind::host_op;
  if (c == "user_annotation") return Kind::annotation;
  if (c == "cuda_runtime" || c == "Runtime" || c == "runtime" || c == "cuda_driver" ||
      c == "privateuse1_runtime" || c == "privateuse1_driver")
    return Kind::runtime;
  if (c == "kernel" || c == "Kernel") return Kind::kernel;
  if (c == "gpu_memcpy" || c == "Memcpy") return Kind::memcpy;
  if (c == "gpu_memset" || c == "Memset") return Kind::memset;
  if (c == "gpu_user_annotation") return Kind::device_annotation;
  if (c == "python_function") return Kind::python;
  static constexpr std::string_view other_known[] = {
      "external_correlation", "cpu_instant_event", "overhead", "cuda_sync", "cuda_event",
      "cuda_profiler_range", "collective_comm", "hardware_counters", "hpu_op", "glow_runtime",
      "Trace", "enqueue", "dequeue", "Python", "ac2g", "fwdbwd", "async_npu", "HostToDevice",
      "async_task_queue", "async_gpu", "async_cpu_to_gpu", "async", "Memory", "GPU Memory"};
  for (auto k : other_known)
    if (c == k) return Kind::other;
  if (c.starts_with("mtia_") || c.starts_with("xpu_")) return Kind::other;
  known = false;
  return Kind::other;
}

Kind kind_of_process(std::string_view p) {
  if (p == "Ascend Hardware") return Kind::kernel;
  if (p == "HCCL" || p == "Communication") return Kind::comm;
  if (p == "Overlap Analysis") return Kind::overlap;
  if (p == "CANN") return Kind::runtime;
  return Kind::other;
}
}  // namespace

void TraceData::classify() {
  std::vector<int8_t> cat_kind(strings.size(), -1);
  std::vector<uint8_t> cat_known(strings.size(), 1);
  std::map<int64_t, Kind> proc_kind;
  for (auto& [p, n] : process_names) proc_kind[p] = kind_of_process(n);
  kind.assign(size(), Kind::other);
  for (size_t i = 0; i < size(); ++i) {
    Kind k = Kind::other;
    auto pk = proc_kind.find(pid[i]);
    Kind by_proc = pk == proc_kind.end() ? Kind::other : pk->second;
    if (by_proc != Kind::other) {
      k = by_proc;  // NPU device processes decide regardless of category
    } else if (cat[i] != 0) {
      if (cat_kind[cat[i]] < 0) {
        bool known = true;
        cat_kind[cat[i]] = static_cast<int8_t>(kind_of_category(strings.view(cat[i]), known));
        cat_known[cat[i]] = known;
      }
      k = static_cast<Kind>(cat_kind[cat[i]]);
      if (!cat_known[cat[i]]) ++unknown_categories;
    } else if (pk == proc_kind.end() || process_names.at(pid[i]) != "Python") {
      // No category and no known process: the legacy (non-Kineto) profiler's export, where every
      // complete event is a host op (pid "CPU functions").
      k = Kind::host_op;
    }
    if (k == Kind::kernel && task_type[i] != 0) {
      std::string_view t = strings.view(task_type[i]);
      // SDMA task types (mstt compare_tools); MEMCPY_ASYNC is the DB export's name.
      static constexpr std::string_view copies[] = {"SDMA_SQE", "PCIE_DMA_SQE", "SDMA", "MEMCPY_ASYNC"};
      // Stream bookkeeping tasks (mstt compare_tools counts EVENT_WAIT_SQE as wait, not compute).
      static constexpr std::string_view bookkeeping[] = {
          "EVENT_RECORD_SQE", "EVENT_WAIT_SQE", "EVENT_RECORD", "EVENT_WAIT", "Notify Wait", "Write Value",
          "PLACE_HOLDER_SQE", "PROFILING_ENABLE", "PROFILING_DISABLE", "STARS_COMMON"};
      for (auto c : copies)
        if (t == c) k = Kind::memcpy;
      for (auto c : bookkeeping)
        if (t == c) k = Kind::other;
    }
    kind[i] = k;
  }
}

}  // namespace banjia::trace
