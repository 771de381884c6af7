#include "trace/readers/json_source.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <simdjson.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zlib.h>

#include "common/errors.h"
#include "common/file_io.h"
#include "common/input_limits.h"

namespace banjia::trace {

namespace {
constexpr size_t kPadding = simdjson::SIMDJSON_PADDING;

size_t page_round(size_t n) {
  size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  return (n + page - 1) / page * page;
}
}  // namespace

JsonBuffer& JsonBuffer::operator=(JsonBuffer&& o) noexcept {
  if (this != &o) {
    release();
    data_ = o.data_, length_ = o.length_, capacity_ = o.capacity_, mapped_ = o.mapped_, gzip_ = o.gzip_;
    o.data_ = nullptr;
    o.length_ = o.capacity_ = o.mapped_ = 0;
  }
  return *this;
}

JsonBuffer::~JsonBuffer() { release(); }

void JsonBuffer::release() {
  if (!data_) return;
  if (mapped_) munmap(data_, mapped_);
  else std::free(data_);
  data_ = nullptr;
}

JsonBuffer JsonBuffer::map_file(const std::filesystem::path& path, uint64_t size) {
  JsonBuffer b;
  size_t total = page_round(size + kPadding);
  // Reserve file size + padding as zero pages, then map the file over the front: the padding past
  // the end of the file stays readable (mapping a file past its end would fault).
  void* base = mmap(nullptr, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (base == MAP_FAILED) throw InputError(path.string(), "cannot allocate memory for the trace");
  b.data_ = static_cast<char*>(base);
  b.mapped_ = total;
  b.length_ = size;
  b.capacity_ = total;
  if (size == 0) return b;
  int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) throw InputError(path.string(), "cannot open file");
  // Map read-only (page-cache pages are shared, not copied), then allow the few separator rewrites
  // of the chunked reader to copy-on-write just their pages. Pages are faulted in by the parse
  // workers (populate()), not here on one core.
  void* m = mmap(base, size, PROT_READ, MAP_PRIVATE | MAP_FIXED, fd, 0);
  ::close(fd);
  if (m == MAP_FAILED || mprotect(base, size, PROT_READ | PROT_WRITE) != 0)
    throw InputError(path.string(), "cannot map file");
  madvise(base, size, MADV_SEQUENTIAL);
  return b;
}

void JsonBuffer::populate(size_t from, size_t to) const {
  if (!mapped_ || to <= from) return;
#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22  // Linux 5.14; older kernels answer EINVAL and pages fault on demand
#endif
  size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  size_t lo = from / page * page;
  madvise(data_ + lo, std::min(to, length_) - lo, MADV_POPULATE_READ);
}

void JsonBuffer::release(size_t from, size_t to) const {
  if (!mapped_) return;
  size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  size_t lo = (from + page - 1) / page * page, hi = std::min(to, length_) / page * page;
  if (hi > lo) madvise(data_ + lo, hi - lo, MADV_DONTNEED);
}

JsonBuffer JsonBuffer::inflate(const std::filesystem::path& path, uint64_t compressed) {
  JsonBuffer b;
  b.gzip_ = true;
  // The gzip trailer holds the uncompressed size mod 2^32: a good first guess for the buffer, but
  // only as far as the file can back it (deflate expands at most ~1032:1); a corrupt trailer must
  // not allocate gigabytes for a tiny file. The buffer still grows if the data really is larger.
  uint64_t guess = std::min<uint64_t>(compressed * 8, max_inflated_bytes());
  if (FILE* f = std::fopen(path.c_str(), "rb")) {
    unsigned char t[4];
    if (std::fseek(f, -4, SEEK_END) == 0 && std::fread(t, 1, 4, f) == 4)
      guess = std::max<uint64_t>(guess, std::min({uint64_t(t[0] | (t[1] << 8) | (t[2] << 16) | (uint64_t(t[3]) << 24)),
                                                  compressed * 1032, max_inflated_bytes()}));
    std::fclose(f);
  }
  gzFile gz = gzopen(path.c_str(), "rb");
  if (!gz) throw InputError(path.string(), "cannot open file");
  gzbuffer(gz, 1 << 17);
  // zlib's messages start with the path ("f.json.gz: unexpected end of file"): drop it, the
  // InputError names the file already.
  auto zmsg = [&](const char* m) {
    std::string_view v(m ? m : "");
    std::string prefix = path.string() + ": ";
    return std::string(v.starts_with(prefix) ? v.substr(prefix.size()) : v);
  };
  auto fail = [&](const std::string& what) {
    gzclose(gz);
    throw InputError(path.string(), what);
  };
  b.capacity_ = guess + kPadding + (1 << 16);
  b.data_ = static_cast<char*>(std::malloc(b.capacity_));
  if (!b.data_) fail("cannot allocate memory for the trace");
  size_t len = 0;
  for (;;) {
    if (b.capacity_ - len < kPadding + (1 << 16)) {
      size_t grown = b.capacity_ * 2;
      char* p = static_cast<char*>(std::realloc(b.data_, grown));
      if (!p) fail("cannot allocate memory for the trace");
      b.data_ = p;
      b.capacity_ = grown;
    }
    size_t room = b.capacity_ - len - kPadding;
    // One byte past the cap tells a document of exactly the cap from a larger one.
    const uint64_t cap = max_inflated_bytes();
    if (len > cap) fail(fmt::format("inflates to more than {} (--max-input-size); not read", byte_size_text(cap)));
    room = static_cast<size_t>(std::min<uint64_t>(room, cap + 1 - len));
    int n = gzread(gz, b.data_ + len, static_cast<unsigned>(std::min<size_t>(room, 1u << 30)));
    if (n < 0) {
      int err = 0;
      fail("corrupt or truncated gzip data (" + zmsg(gzerror(gz, &err)) + ")");
    }
    if (n == 0) break;
    len += static_cast<size_t>(n);
  }
  int err = 0;
  const char* msg = gzerror(gz, &err);
  if (err != Z_OK && err != Z_STREAM_END) fail("corrupt or truncated gzip data (" + zmsg(msg) + ")");
  gzclose(gz);
  b.length_ = len;
  std::memset(b.data_ + len, 0, kPadding);
  return b;
}

JsonBuffer load_json_buffer(const std::filesystem::path& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw InputError(path.string(), "is a directory, not a trace file");
  uint64_t size = std::filesystem::file_size(path, ec);
  if (ec) throw InputError(path.string(), "cannot read file (" + ec.message() + ")");
  note_input_file(path);
  unsigned char magic[2] = {0, 0};
  FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) throw InputError(path.string(), "cannot open file");
  if (std::fread(magic, 1, 2, f) < 2) magic[0] = magic[1] = 0;
  std::fclose(f);
  if (magic[0] == 0x1f && magic[1] == 0x8b) return JsonBuffer::inflate(path, size);
  return JsonBuffer::map_file(path, size);
}

}  // namespace banjia::trace
