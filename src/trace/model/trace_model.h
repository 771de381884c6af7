// The compact, columnar in-memory form of one profiler trace (Kineto or torch_npu), shared by every
// reader and every analysis. Names and categories are interned; times are integer nanoseconds so
// that string timestamps like "1736408883704643.212" (µs) survive exactly.
#pragma once
#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/uninit_allocator.h"
#include "trace/model/time_units.h"

namespace banjia::trace {

// Interns strings; id 0 is the empty string. Views returned by `view` stay valid for the pool's life.
// The index is open addressing over (hash, id) pairs: the reader interns every event's name, and
// std::unordered_map's node walk and byte-wise hash would be a tenth of the parse time.
class StringPool {
 public:
  StringPool() { intern(""); }
  uint32_t intern(std::string_view s);
  std::string_view view(uint32_t id) const { return views_[id]; }
  size_t size() const { return views_.size(); }
  // Id of `s` if it was interned, else UINT32_MAX (does not add it).
  uint32_t find(std::string_view s) const;

 private:
  struct Slot {
    uint32_t hash = 0, id = UINT32_MAX;
  };
  static uint32_t hash_of(std::string_view s);
  void grow();
  std::deque<std::string> storage_;
  std::vector<std::string_view> views_;
  std::vector<Slot> slots_ = std::vector<Slot>(64);
};

// What an event is, decided after reading (categories differ between Kineto versions and NPU traces
// have none on device events; the process name decides there).
enum class Kind : uint8_t {
  other,
  host_op,        // cpu_op / Operator / NPU Python cpu_op
  annotation,     // user_annotation (ProfilerStep#N lives here in new Kineto)
  runtime,        // cuda_runtime / Runtime / cuda_driver / NPU CANN (AscendCL@..., Node@launch)
  kernel,         // device compute task (kernel / Kernel / NPU Ascend Hardware)
  memcpy,         // gpu_memcpy / Memcpy / NPU SDMA tasks
  memset,         // gpu_memset / Memset
  comm,           // NPU HCCL process events (device communication)
  overlap,        // NPU "Overlap Analysis" process events
  device_annotation,  // gpu_user_annotation
  python,         // python_function
};

bool is_device(Kind k);

// Which profiler wrote the trace, decided by the reader: the analyses that only torch_npu's output
// allows (its overlap analysis events, launch delays from its CANN events) switch on it.
enum class TraceFormat : uint8_t {
  kineto,     // torch.profiler / Kineto: {"traceEvents": [...]}
  torch_npu,  // torch_npu's trace_view.json (a bare array with NPU processes), .db or kernel_details.csv
  chrome,     // a bare Chrome-trace array without NPU processes
};
// The name reports give the format ("kineto", "torch_npu", "chrome").
std::string_view format_name(TraceFormat f);

struct Flow {
  uint64_t id = 0;  // numeric id, or the interned string id when string_id
  bool string_id = false;
  int64_t pid = 0, tid = 0, ts = 0;
  uint32_t cat = 0;
  char ph = 0;  // 's' or 'f'
};

constexpr int64_t kNone = INT64_MIN;
// String pids/tids ("Spans", "CPU functions") are stored as kStringPidBase - string id; numeric pids,
// even negative ones seen in real traces, stay above it.
constexpr int64_t kStringPidBase = -(int64_t{1} << 62);

struct TraceData {
  std::string file;
  TraceFormat format = TraceFormat::kineto;
  StringPool strings;
  // One entry per complete ('X') event, all columns the same length. Columns of a large trace are
  // tens of megabytes each: UninitVector puts them on transparent huge pages (filling 4 KiB pages
  // one fault at a time costs a third of the CPU time of a 1 GB trace's summary on a VM).
  UninitVector<uint32_t> name, cat, shape, task_type;
  UninitVector<int64_t> ts, dur, pid, tid, corr, ext_id, bytes;
  UninitVector<Kind> kind;
  // Kineto's "Input type" list per event (the raw JSON array, interned), read only when
  // `keep_input_types` is set before reading (`trace ops`); empty otherwise, so that the summary's
  // parse neither looks at the key nor fills a column.
  bool keep_input_types = false;
  UninitVector<uint32_t> input_type;
  std::vector<Flow> flows;
  std::map<int64_t, std::string> process_names, process_labels;
  int64_t base_time_ns = 0;
  std::string distributed_info;  // Kineto's top-level "distributedInfo" object (JSON text), or ""
  uint64_t input_bytes = 0;
  // Counts of problems tolerated while reading (reported as warnings, never a crash).
  size_t missing_fields = 0, negative_durations = 0, unknown_categories = 0;

  size_t size() const { return ts.size(); }
  std::string_view name_of(size_t i) const { return strings.view(name[i]); }
  void reserve(size_t n);
  // Moves `part`'s events, flows and metadata to the end of this trace, re-interning its strings
  // (used to join the parts of a trace parsed in parallel; call before classify()).
  void append(TraceData&& part);
  // The same for several parts in order; the columns are copied on up to `threads` threads.
  void append(std::vector<TraceData>&& parts, unsigned threads);
  // Assigns `kind` to every event from its category and, for uncategorised NPU events, its
  // process name. Called by readers once all events and metadata events are in.
  void classify(unsigned threads = 1);
};

}  // namespace banjia::trace
