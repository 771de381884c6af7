// Reads Chrome-trace JSON as written by Kineto (`{"traceEvents": [...]}`, old and new categories,
// CUDA, ROCm, CPU-only) and by torch_npu (trace_view.json: a bare array, string `ts`, 64-bit ids)
// into TraceData in one streaming pass with simdjson On-Demand (no DOM of the whole file).
#pragma once
#include <filesystem>

#include "trace/model/trace_model.h"

namespace banjia::trace {

// Parts of about this size are parsed side by side (and bound simdjson's index memory).
constexpr size_t kDefaultPartBytes = size_t{8} << 20;

// Throws InputError naming the file for unreadable, corrupt, truncated, oversized or empty traces
// and for JSON that is not a trace.
TraceData read_json_trace(const std::filesystem::path& path);
// Same, splitting the event array into parts of about `part_bytes` (0: one whole-document parse).
TraceData read_json_trace(const std::filesystem::path& path, size_t part_bytes);
// Same, on `threads` worker threads (0: all cores). The result does not depend on `threads`.
TraceData read_json_trace(const std::filesystem::path& path, size_t part_bytes, unsigned threads);
// Same, also keeping each event's Kineto "Input type" list (TraceData::input_type).
TraceData read_json_trace(const std::filesystem::path& path, size_t part_bytes, unsigned threads,
                          bool keep_input_types);

}  // namespace banjia::trace
