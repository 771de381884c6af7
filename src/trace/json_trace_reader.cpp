#include "trace/json_trace_reader.h"

#include <cctype>
#include <simdjson.h>

#include "common/errors.h"
#include "trace/json_source.h"

namespace banjia::trace {

void parse_events_generic(TraceData& t, const JsonBuffer& buf, char first, bool& saw_events);
#if defined(__x86_64__)
void parse_events_haswell(TraceData& t, const JsonBuffer& buf, char first, bool& saw_events);
#endif

TraceData read_json_trace(const std::filesystem::path& path) {
  const std::string file = path.string();
  JsonBuffer buf = load_json_buffer(path);
  TraceData t;
  t.file = file;
  t.input_bytes = buf.length;
  size_t first = 0;
  while (first < buf.length && std::isspace(static_cast<unsigned char>(buf.data[first]))) ++first;
  if (first == buf.length) throw InputError(file, "empty file");
  char c = buf.data[first];
  if (c != '{' && c != '[')
    throw InputError(file, "not a JSON trace (expected a Kineto or torch_npu Chrome trace, .json or .json.gz)");
  t.reserve(buf.length / 280);
  bool saw_events = false;
  try {
#if defined(__x86_64__)
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi2") && __builtin_cpu_supports("pclmul"))
      parse_events_haswell(t, buf, c, saw_events);
    else
#endif
      parse_events_generic(t, buf, c, saw_events);
  } catch (const simdjson::simdjson_error& e) {
    throw InputError(file, std::string("invalid or truncated JSON (") + e.what() + ")");
  }
  if (!saw_events) throw InputError(file, "JSON object has no \"traceEvents\" array; not a Kineto trace");
  if (t.size() == 0) throw InputError(file, "trace has no complete (ph \"X\") events");
  if (t.format == "torch_npu") {  // a bare array is torch_npu's only when it has NPU processes
    bool npu = false;
    for (auto& [pid, n] : t.process_names) npu = npu || n == "Ascend Hardware" || n == "CANN" || n == "Overlap Analysis";
    if (!npu) t.format = "chrome";
  }
  t.classify();
  return t;
}

}  // namespace banjia::trace
