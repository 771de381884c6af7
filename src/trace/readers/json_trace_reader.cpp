#include "trace/readers/json_trace_reader.h"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <cctype>
#include <memory>
#include <fmt/format.h>
#include <simdjson.h>

#include "common/cpu_features.h"
#include "common/errors.h"
#include "common/memory_policy.h"
#include "common/thread_pool.h"
#include "trace/readers/json_chunks.h"
#include "trace/readers/json_source.h"
#include "trace/model/phase_timer.h"

namespace banjia::trace {

// json_trace_reader_generic.cpp / json_trace_reader_haswell.cpp (the same parser built for two CPU targets).
void parse_document_generic(TraceData& t, const char* data, size_t len, size_t capacity, bool& saw_events);
void parse_event_array_generic(TraceData& t, const char* data, size_t len, size_t capacity, std::shared_ptr<void>& parser);
#if defined(__x86_64__)
void parse_document_haswell(TraceData& t, const char* data, size_t len, size_t capacity, bool& saw_events);
void parse_event_array_haswell(TraceData& t, const char* data, size_t len, size_t capacity, std::shared_ptr<void>& parser);
#endif

namespace {
void parse_document(TraceData& t, const JsonBuffer& b, bool& saw) {
#if defined(__x86_64__)
  if (cpu_has_avx2()) return parse_document_haswell(t, b.data(), b.length(), b.capacity(), saw);
#endif
  parse_document_generic(t, b.data(), b.length(), b.capacity(), saw);
}

void parse_part(TraceData& t, const JsonBuffer& b, std::pair<size_t, size_t> r, std::shared_ptr<void>& parser) {
  const char* p = b.data() + r.first;
  size_t cap = b.capacity() - r.first;
#if defined(__x86_64__)
  if (cpu_has_avx2()) return parse_event_array_haswell(t, p, r.second - r.first, cap, parser);
#endif
  parse_event_array_generic(t, p, r.second - r.first, cap, parser);
}

// Parses all parts on `threads` workers, each with its own reusable parser, pulling the next part
// from a shared counter. A worker that finishes a part drops the part's input pages, then appends
// to `t` every finished part that is next in order (under a lock, while the others keep parsing),
// so parts are joined in file order and freed early.
void parse_parts(TraceData& t, const JsonBuffer& b, const EventChunks& chunks, unsigned threads) {
  const size_t n = chunks.docs.size();
  // Parts, columns and the analysis' lists are allocated and freed by the hundred megabytes.
  back_heap_with_huge_pages(std::max<size_t>(size_t{64} << 20, 2 * b.length()));
  std::vector<TraceData> parts(n);
  std::vector<char> parsed(n, 0);
  size_t joined = 0;
  std::mutex join_mutex;
  std::atomic<size_t> next{0};
  std::atomic<bool> failed{false};
  t.reserve(b.length() / 200);  // untouched capacity costs address space only
  PhaseTimer pt("parse+join parts");
  parallel_for(std::min<size_t>(threads, n), threads, [&](size_t) {
    std::shared_ptr<void> parser;
    for (size_t i; !failed && (i = next.fetch_add(1)) < n;) {
      auto [from, to] = chunks.docs[i];
      b.populate(from, to);
      parts[i].file = t.file;
      parts[i].keep_input_types = t.keep_input_types;
      parts[i].reserve((to - from) / 200);
      try {
        parse_part(parts[i], b, chunks.docs[i], parser);
      } catch (...) {
        failed = true;
        throw;
      }
      b.release(from, to);
      std::lock_guard lock(join_mutex);
      parsed[i] = 1;
      for (; joined < n && parsed[joined]; ++joined) t.append(std::move(parts[joined]));
    }
  });
}
}  // namespace

TraceData read_json_trace(const std::filesystem::path& path) { return read_json_trace(path, kDefaultPartBytes); }

TraceData read_json_trace(const std::filesystem::path& path, size_t part_bytes) {
  return read_json_trace(path, part_bytes, 0);
}

TraceData read_json_trace(const std::filesystem::path& path, size_t part_bytes, unsigned threads) {
  return read_json_trace(path, part_bytes, threads, false);
}

TraceData read_json_trace(const std::filesystem::path& path, size_t part_bytes, unsigned threads,
                          bool keep_input_types) {
  threads = worker_count(threads);
  const std::string file = path.string();
  JsonBuffer buf = load_json_buffer(path);
  TraceData t;
  t.file = file;
  t.keep_input_types = keep_input_types;
  t.input_bytes = buf.length();
  size_t first = 0;
  while (first < buf.length() && std::isspace(static_cast<unsigned char>(buf.data()[first]))) ++first;
  if (first == buf.length()) throw InputError(file, "empty file");
  char c = buf.data()[first];
  if (c != '{' && c != '[')
    throw InputError(file, "not a JSON trace (expected a Kineto or torch_npu Chrome trace, .json or .json.gz)");
  t.format = c == '[' ? TraceFormat::torch_npu : TraceFormat::kineto;
  bool saw_events = false;
  try {
    EventChunks chunks;
    PhaseTimer timer("split and parse");
    if (part_bytes > 0) chunks = split_events(buf.data(), buf.length(), part_bytes, file);
    if (chunks.chunked) {
      t.base_time_ns = chunks.base_time_ns;
      t.distributed_info = std::move(chunks.distributed_info);
      parse_parts(t, buf, chunks, threads);
      saw_events = true;
    } else {
      if (buf.length() > kMaxDocumentBytes)
        throw InputError(file, fmt::format("trace is {:.2f} GB, over simdjson's 4 GB single-document limit, and its "
                                           "events are not one per line (minified JSON), so it cannot be split; "
                                           "record fewer steps per trace",
                                           static_cast<double>(buf.length()) / 1e9));
      parse_document(t, buf, saw_events);
    }
  } catch (const simdjson::simdjson_error& e) {
    throw InputError(file, std::string("invalid or truncated JSON (") + e.what() + ")");
  }
  if (!saw_events) throw InputError(file, "JSON object has no \"traceEvents\" array; not a Kineto trace");
  if (t.size() == 0) throw InputError(file, "trace has no complete (ph \"X\") events");
  if (t.format == TraceFormat::torch_npu) {  // a bare array is torch_npu's only when it has NPU processes
    bool npu = false;
    for (auto& [pid, n] : t.process_names) npu = npu || n == "Ascend Hardware" || n == "CANN" || n == "Overlap Analysis";
    if (!npu) t.format = TraceFormat::chrome;
  }
  {
    PhaseTimer pt("classify");
    t.classify(threads);
  }
  return t;
}

}  // namespace banjia::trace
