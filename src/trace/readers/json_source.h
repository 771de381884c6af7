// Loads a JSON trace (plain or gzip, detected by content) into one writable buffer followed by
// simdjson's padding. Plain files are memory-mapped (private, copy-on-write: the chunked reader
// rewrites a few separator bytes), gzip is inflated into heap memory; neither is zero-filled first.
#pragma once
#include <cstdint>
#include <filesystem>
#include <string>

namespace banjia::trace {

// simdjson parses one document of at most 4 GB (SIMDJSON_MAXSIZE_BYTES).
constexpr uint64_t kMaxDocumentBytes = 0xFFFFFFFFull;

class JsonBuffer {
 public:
  JsonBuffer() = default;
  JsonBuffer(JsonBuffer&& o) noexcept { *this = std::move(o); }
  JsonBuffer& operator=(JsonBuffer&& o) noexcept;
  JsonBuffer(const JsonBuffer&) = delete;
  JsonBuffer& operator=(const JsonBuffer&) = delete;
  ~JsonBuffer();

  char* data() const { return data_; }
  size_t length() const { return length_; }      // document bytes
  size_t capacity() const { return capacity_; }  // >= length + SIMDJSON_PADDING, all readable
  bool gzip() const { return gzip_; }
  // For a mapped file: fault in the pages of [from, to) now (each parse worker does its own part,
  // so the page-table work runs on all cores), and drop the pages wholly inside [from, to) once
  // that part is parsed (its events are in compact columns by then; this keeps peak memory well
  // below the file size). No-ops for an inflated gzip buffer.
  void populate(size_t from, size_t to) const;
  void release(size_t from, size_t to) const;

  static JsonBuffer map_file(const std::filesystem::path& path, uint64_t size);
  static JsonBuffer inflate(const std::filesystem::path& path, uint64_t compressed);

 private:
  void release();
  char* data_ = nullptr;
  size_t length_ = 0, capacity_ = 0, mapped_ = 0;  // mapped_ > 0: munmap, else free
  bool gzip_ = false;
};

// Throws InputError naming the file for a missing file, a corrupt or truncated gzip stream, or a
// document whose events cannot be split into parts under the 4 GB limit.
JsonBuffer load_json_buffer(const std::filesystem::path& path);

}  // namespace banjia::trace
