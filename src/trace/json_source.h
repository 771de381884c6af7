// Loads a JSON trace (plain or gzip, detected by content) into one buffer with simdjson's padding.
#pragma once
#include <cstdint>
#include <filesystem>
#include <string>

namespace banjia::trace {

// simdjson parses one document of at most 4 GB (SIMDJSON_MAXSIZE_BYTES).
constexpr uint64_t kMaxDocumentBytes = 0xFFFFFFFFull;

struct JsonBuffer {
  std::string data;  // size() = document bytes + padding; `length` is the document itself
  size_t length = 0;
  bool gzip = false;
};

// Throws InputError naming the file for a missing file, a corrupt or truncated gzip stream, or a
// document over the 4 GB limit (with the advice to split the trace).
JsonBuffer load_json_buffer(const std::filesystem::path& path);

}  // namespace banjia::trace
