#include "trace/json_source.h"

#include <cstdio>
#include <fmt/format.h>
#include <simdjson.h>
#include <zlib.h>

#include "common/errors.h"

namespace banjia::trace {

namespace {
std::string size_error(uint64_t bytes) {
  return fmt::format(
      "trace is {:.2f} GB uncompressed, over simdjson's 4 GB single-document limit; "
      "record fewer steps per trace (torch.profiler schedule active=1) or split the traceEvents",
      static_cast<double>(bytes) / 1e9);
}

// Reads a plain file straight into the padded buffer (no second copy).
JsonBuffer load_plain(const std::filesystem::path& path, uint64_t size) {
  JsonBuffer b;
  FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) throw InputError(path.string(), "cannot open file");
  b.data.resize(size + simdjson::SIMDJSON_PADDING);
  size_t got = size == 0 ? 0 : std::fread(b.data.data(), 1, size, f);
  std::fclose(f);
  if (got != size) throw InputError(path.string(), "read error");
  b.length = size;
  return b;
}

JsonBuffer load_gzip(const std::filesystem::path& path, uint64_t compressed) {
  JsonBuffer b;
  b.gzip = true;
  // The gzip trailer holds the uncompressed size mod 2^32: a good first guess for the buffer.
  uint64_t guess = compressed * 8;
  if (FILE* f = std::fopen(path.c_str(), "rb")) {
    unsigned char t[4];
    if (std::fseek(f, -4, SEEK_END) == 0 && std::fread(t, 1, 4, f) == 4)
      guess = std::max<uint64_t>(guess, t[0] | (t[1] << 8) | (t[2] << 16) | (uint64_t(t[3]) << 24));
    std::fclose(f);
  }
  gzFile gz = gzopen(path.c_str(), "rb");
  if (!gz) throw InputError(path.string(), "cannot open file");
  gzbuffer(gz, 1 << 17);
  b.data.resize(std::min<uint64_t>(guess, kMaxDocumentBytes) + simdjson::SIMDJSON_PADDING + 1);
  size_t len = 0;
  for (;;) {
    if (b.data.size() - len < simdjson::SIMDJSON_PADDING + (1 << 16)) {
      if (len > kMaxDocumentBytes) {
        gzclose(gz);
        throw InputError(path.string(), size_error(len));
      }
      b.data.resize(b.data.size() * 2);
    }
    size_t room = b.data.size() - len - simdjson::SIMDJSON_PADDING;
    int n = gzread(gz, b.data.data() + len, static_cast<unsigned>(std::min<size_t>(room, 1u << 30)));
    if (n < 0) {
      int err = 0;
      std::string msg = gzerror(gz, &err);
      gzclose(gz);
      throw InputError(path.string(), "corrupt or truncated gzip data (" + msg + ")");
    }
    if (n == 0) break;
    len += static_cast<size_t>(n);
  }
  int err = 0;
  const char* msg = gzerror(gz, &err);
  if (err != Z_OK && err != Z_STREAM_END) {
    std::string m = msg;
    gzclose(gz);
    throw InputError(path.string(), "corrupt or truncated gzip data (" + m + ")");
  }
  gzclose(gz);
  if (len > kMaxDocumentBytes) throw InputError(path.string(), size_error(len));
  b.length = len;
  b.data.resize(len + simdjson::SIMDJSON_PADDING);
  return b;
}
}  // namespace

JsonBuffer load_json_buffer(const std::filesystem::path& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw InputError(path.string(), "is a directory, not a trace file");
  uint64_t size = std::filesystem::file_size(path, ec);
  if (ec) throw InputError(path.string(), "cannot read file (" + ec.message() + ")");
  unsigned char magic[2] = {0, 0};
  if (FILE* f = std::fopen(path.c_str(), "rb")) {
    size_t got = std::fread(magic, 1, 2, f);
    std::fclose(f);
    if (got < 2) magic[0] = magic[1] = 0;
  } else {
    throw InputError(path.string(), "cannot open file");
  }
  if (magic[0] == 0x1f && magic[1] == 0x8b) return load_gzip(path, size);
  if (size > kMaxDocumentBytes) throw InputError(path.string(), size_error(size));
  return load_plain(path, size);
}

}  // namespace banjia::trace
