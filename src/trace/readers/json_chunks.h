// Splits a trace's event array into independent array documents so that simdjson's structural
// index stays small (memory) and parts parse on several cores (speed), and so that traces beyond
// simdjson's 4 GB single-document limit can be read. Works on pretty-printed JSON (Kineto writes
// one event per indented block): a raw newline never occurs inside a JSON string, so the separator
// ",<newline+indent>{" with the first element's exact indentation marks a top-level boundary.
// Boundaries are made into documents by rewriting bytes in place: the ',' closing a part becomes
// ']' and the last indentation byte before the next '{' becomes '['.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace banjia::trace {

struct EventChunks {
  bool chunked = false;  // false: layout not splittable (minified JSON); parse the whole document
  bool bare_array = false;
  std::vector<std::pair<size_t, size_t>> docs;  // [begin, end) byte ranges, each an array of events
  int64_t base_time_ns = 0;
  std::string distributed_info;  // JSON text of the top-level "distributedInfo" object, if any
};

// Throws InputError(file, ...) for a malformed top level it can detect (unterminated string,
// junk after the top-level object); leaves deeper validation to simdjson.
EventChunks split_events(char* data, size_t len, size_t chunk_bytes, const std::string& file);

}  // namespace banjia::trace
