// Where tensor bytes come from: .npy files are memory-mapped (no copy); .npz members are read through
// libzip (stored or deflated; loaded on first use, compare/readers/libzip.h) with guards against unsafe names
// and zip bombs. Archives are opened once and each worker thread borrows its own libzip handle, so
// pairs can be read in parallel.
#pragma once
#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "common/input_limits.h"
#include "compare/readers/npy_format.h"

struct zip;

namespace banjia::compare {

struct LibZip;

// Read-only mapping of a whole file; throws InputError naming the file when it cannot be mapped.
class MappedFile {
 public:
  explicit MappedFile(const std::filesystem::path& path);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  std::string_view bytes() const { return {static_cast<const char*>(data_), size_}; }

 private:
  void* data_ = nullptr;
  size_t size_ = 0;
};

struct ZipLimits {
  uint64_t max_member_bytes = max_inflated_bytes();  // one member, uncompressed (--max-input-size)
  uint64_t max_total_bytes = 256ull << 30;  // all members of one archive, uncompressed
  double max_ratio = 1000.0;                // uncompressed / compressed, checked for members > 1 MiB
};

struct NpzMember {
  std::string name;     // as stored, e.g. "0003.blocks.0.qkv.forward.output.npy"
  uint64_t size = 0;    // uncompressed
  uint64_t compressed = 0;
  bool stored = false;  // no compression (np.savez)
  std::optional<uint64_t> data_offset;  // stored member found in place: used from the mapping
  std::string problem;  // non-empty: unsafe or over a limit; never read
};

class NpzArchive {
 public:
  // Opens and lists the archive; throws InputError for a file that is not a readable zip.
  NpzArchive(const std::filesystem::path& path, ZipLimits limits = {});
  ~NpzArchive();
  NpzArchive(const NpzArchive&) = delete;
  NpzArchive& operator=(const NpzArchive&) = delete;

  const std::vector<NpzMember>& members() const { return members_; }
  const std::filesystem::path& path() const { return path_; }
  // The bytes of one member (by index into members()): a view into the mapping for stored members
  // (no copy), else decompressed into `buffer`. Returns a problem or "".
  std::string read(size_t index, std::vector<std::byte>& buffer, std::string_view& bytes);

 private:
  zip* borrow();
  void give_back(zip* z);
  const LibZip& zip_;
  std::filesystem::path path_;
  MappedFile file_;
  std::vector<NpzMember> members_;
  std::mutex mutex_;
  std::vector<zip*> idle_;  // open handles not in use by any thread
  std::vector<zip*> all_;
};

// Bytes of one tensor plus a parsed view into them. Keeps the mapping or buffer alive.
struct LoadedTensor {
  std::shared_ptr<const MappedFile> mapping;
  std::shared_ptr<NpzArchive> archive;  // a torch .pt zip whose stored member the view points into
  std::vector<std::byte> buffer;
  NpyView view;
};

}  // namespace banjia::compare
