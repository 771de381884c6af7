#include "trace/model/trace_model.h"

#include <algorithm>
#include <cstring>
#include <iterator>
#include <optional>
#include <type_traits>

#include "common/thread_pool.h"

namespace banjia::trace {

std::string_view format_name(TraceFormat f) {
  switch (f) {
    case TraceFormat::kineto: return "kineto";
    case TraceFormat::torch_npu: return "torch_npu";
    case TraceFormat::chrome: return "chrome";
  }
  return "";
}

uint32_t StringPool::hash_of(std::string_view s) {
  // Word-at-a-time multiply/xor-shift mix (splitmix64 constants) of the length and of at most the
  // first and the last 32 bytes: long kernel names and shape lists differ there, and hits are
  // confirmed by comparing all bytes anyway.
  uint64_t h = 0x9E3779B97F4A7C15ull ^ s.size();
  auto mix = [&h](const char* p, size_t n) {
    for (; n >= 8; p += 8, n -= 8) {
      uint64_t w;
      std::memcpy(&w, p, 8);
      h = (h ^ w) * 0xBF58476D1CE4E5B9ull;
      h ^= h >> 31;
    }
    uint64_t w = 0;
    std::memcpy(&w, p, n);
    h = (h ^ w) * 0x94D049BB133111EBull;
    h ^= h >> 29;
  };
  if (s.size() <= 64) {
    mix(s.data(), s.size());
  } else {
    mix(s.data(), 32);
    mix(s.data() + s.size() - 32, 32);
  }
  return static_cast<uint32_t>(h ^ (h >> 32));
}

uint32_t StringPool::intern(std::string_view s) {
  uint32_t h = hash_of(s);
  size_t mask = slots_.size() - 1;
  for (size_t i = h & mask;; i = (i + 1) & mask) {
    Slot& slot = slots_[i];
    if (slot.id == UINT32_MAX) {
      storage_.emplace_back(s);
      auto id = static_cast<uint32_t>(views_.size());
      views_.push_back(storage_.back());
      slot = Slot{h, id};
      if (views_.size() * 2 > slots_.size()) grow();
      return id;
    }
    if (slot.hash == h && views_[slot.id] == s) return slot.id;
  }
}

void StringPool::grow() {
  std::vector<Slot> old = std::move(slots_);
  slots_.assign(old.size() * 2, Slot{});
  size_t mask = slots_.size() - 1;
  for (const Slot& o : old) {
    if (o.id == UINT32_MAX) continue;
    size_t i = o.hash & mask;
    while (slots_[i].id != UINT32_MAX) i = (i + 1) & mask;
    slots_[i] = o;
  }
}

uint32_t StringPool::find(std::string_view s) const {
  uint32_t h = hash_of(s);
  size_t mask = slots_.size() - 1;
  for (size_t i = h & mask;; i = (i + 1) & mask) {
    const Slot& slot = slots_[i];
    if (slot.id == UINT32_MAX) return UINT32_MAX;
    if (slot.hash == h && views_[slot.id] == s) return slot.id;
  }
}

bool is_device(Kind k) {
  return k == Kind::kernel || k == Kind::memcpy || k == Kind::memset || k == Kind::comm;
}

void TraceData::reserve(size_t n) {
  for (auto* v : {&name, &cat, &shape, &task_type}) v->reserve(n);
  for (auto* v : {&ts, &dur, &pid, &tid, &corr, &ext_id, &bytes}) v->reserve(n);
  kind.reserve(n);
  if (keep_input_types) input_type.reserve(n);
}

void TraceData::append(TraceData&& part) {
  std::vector<TraceData> parts;
  parts.push_back(std::move(part));
  append(std::move(parts), 1);
}

void TraceData::append(std::vector<TraceData>&& parts, unsigned threads) {
  // Strings first (serial, but only each part's distinct strings), then every column on its own
  // thread.
  size_t total = size();
  std::vector<size_t> offset(parts.size());
  std::vector<std::vector<uint32_t>> remap(parts.size());
  for (size_t k = 0; k < parts.size(); ++k) {
    offset[k] = total;
    total += parts[k].size();
    remap[k].resize(parts[k].strings.size());
    for (size_t i = 0; i < remap[k].size(); ++i)
      remap[k][i] = strings.intern(parts[k].strings.view(static_cast<uint32_t>(i)));
  }
  auto proc = [](int64_t v, const std::vector<uint32_t>& r) {
    return v <= kStringPidBase && v != kNone ? kStringPidBase - static_cast<int64_t>(r[kStringPidBase - v]) : v;
  };
  using Ids = UninitVector<uint32_t> TraceData::*;
  using Nums = UninitVector<int64_t> TraceData::*;
  static constexpr Ids id_cols[] = {&TraceData::name, &TraceData::cat, &TraceData::shape, &TraceData::task_type,
                                    &TraceData::input_type};
  static constexpr Nums proc_cols[] = {&TraceData::pid, &TraceData::tid};
  static constexpr Nums num_cols[] = {&TraceData::ts, &TraceData::dur, &TraceData::corr, &TraceData::ext_id,
                                      &TraceData::bytes};
  constexpr size_t n_ids = std::size(id_cols), n_proc = std::size(proc_cols), n_num = std::size(num_cols);
  parallel_for(n_ids + n_proc + n_num, threads, [&](size_t c) {
    // Appended by insert (no zero-filling first), then rewritten in place while the part's slice is
    // still in cache; each part's column is freed as soon as it is copied.
    auto each_part = [&](auto col, auto rewrite) {
      auto& to = this->*col;
      bool any = false;  // input_type is empty unless it was asked for
      for (auto& part : parts) any = any || !(part.*col).empty();
      if (!any) return;
      if (total > to.capacity()) to.reserve(std::max(total, to.capacity() * 2));  // parts come one by one
      for (size_t k = 0; k < parts.size(); ++k) {
        auto& from = parts[k].*col;
        size_t at = to.size();
        to.insert(to.end(), from.begin(), from.end());
        rewrite(to.data() + at, to.data() + to.size(), remap[k]);
        std::remove_reference_t<decltype(from)>().swap(from);
      }
    };
    if (c < n_ids) {
      each_part(id_cols[c], [](uint32_t* p, uint32_t* e, const std::vector<uint32_t>& r) {
        for (; p != e; ++p) *p = r[*p];
      });
    } else if (c < n_ids + n_proc) {
      each_part(proc_cols[c - n_ids], [&](int64_t* p, int64_t* e, const std::vector<uint32_t>& r) {
        for (; p != e; ++p) *p = proc(*p, r);
      });
    } else {
      each_part(num_cols[c - n_ids - n_proc], [](int64_t*, int64_t*, const std::vector<uint32_t>&) {});
    }
  });
  for (size_t k = 0; k < parts.size(); ++k) {
    TraceData& part = parts[k];
    const auto& r = remap[k];
    for (Flow f : part.flows) {
      f.cat = r[f.cat];
      f.pid = proc(f.pid, r);
      f.tid = proc(f.tid, r);
      if (f.string_id) f.id = r[f.id];
      flows.push_back(f);
    }
    for (auto& [p, n] : part.process_names) process_names[proc(p, r)] = n;
    for (auto& [p, n] : part.process_labels) process_labels[proc(p, r)] = n;
    missing_fields += part.missing_fields;
    negative_durations += part.negative_durations;
    unknown_categories += part.unknown_categories;
    part = TraceData();
  }
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

// SDMA task types (mstt compare_tools); MEMCPY_ASYNC is the DB export's name. Stream bookkeeping
// tasks: mstt compare_tools counts EVENT_WAIT_SQE as wait, not compute.
std::optional<Kind> kind_of_task_type(std::string_view t) {
  static constexpr std::string_view copies[] = {"SDMA_SQE", "PCIE_DMA_SQE", "SDMA", "MEMCPY_ASYNC"};
  static constexpr std::string_view bookkeeping[] = {
      "EVENT_RECORD_SQE", "EVENT_WAIT_SQE", "EVENT_RECORD", "EVENT_WAIT", "Notify Wait", "Write Value",
      "PLACE_HOLDER_SQE", "PROFILING_ENABLE", "PROFILING_DISABLE", "STARS_COMMON"};
  for (auto c : copies)
    if (t == c) return Kind::memcpy;
  for (auto c : bookkeeping)
    if (t == c) return Kind::other;
  return std::nullopt;
}
}  // namespace

void TraceData::classify(unsigned threads) {
  // Per string (categories, task types) and per process decisions first, so that the pass over
  // the events is table lookups only and runs on all threads.
  struct ByString {
    int8_t cat_kind;
    bool cat_known;
    int8_t task_kind;  // -1: a task type that does not change the kind
  };
  std::vector<ByString> by_string(strings.size());
  parallel_for((strings.size() + 4095) / 4096, threads, [&](size_t b) {
    for (size_t id = b * 4096; id < std::min(strings.size(), (b + 1) * 4096); ++id) {
      std::string_view s = strings.view(static_cast<uint32_t>(id));
      bool known = true;
      Kind k = kind_of_category(s, known);
      auto task = kind_of_task_type(s);
      by_string[id] = {static_cast<int8_t>(k), known, static_cast<int8_t>(task ? static_cast<int>(*task) : -1)};
    }
  });
  struct ByProcess {
    Kind kind;
    bool python;
  };
  std::map<int64_t, ByProcess> procs;
  for (auto& [p, n] : process_names) procs[p] = ByProcess{kind_of_process(n), n == "Python"};
  kind.assign(size(), Kind::other);
  constexpr size_t kBlock = 1 << 16;
  size_t blocks = (size() + kBlock - 1) / kBlock;
  std::vector<size_t> unknown(blocks);
  parallel_for(blocks, threads, [&](size_t b) {
    int64_t last_pid = kNone;
    const ByProcess* proc = nullptr;
    for (size_t i = b * kBlock; i < std::min(size(), (b + 1) * kBlock); ++i) {
      if (pid[i] != last_pid || i == b * kBlock) {
        last_pid = pid[i];
        auto it = procs.find(pid[i]);
        proc = it == procs.end() ? nullptr : &it->second;
      }
      Kind k = Kind::other;
      if (proc && proc->kind != Kind::other) {
        k = proc->kind;  // NPU device processes decide regardless of category
      } else if (cat[i] != 0) {
        k = static_cast<Kind>(by_string[cat[i]].cat_kind);
        if (!by_string[cat[i]].cat_known) ++unknown[b];
      } else if (!proc || !proc->python) {
        // No category and no known process: the legacy (non-Kineto) profiler's export, where every
        // complete event is a host op (pid "CPU functions").
        k = Kind::host_op;
      }
      if (k == Kind::kernel && task_type[i] != 0 && by_string[task_type[i]].task_kind >= 0)
        k = static_cast<Kind>(by_string[task_type[i]].task_kind);
      kind[i] = k;
    }
  });
  for (size_t u : unknown) unknown_categories += u;
}

}  // namespace banjia::trace
