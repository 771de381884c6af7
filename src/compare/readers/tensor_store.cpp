#include "compare/readers/tensor_store.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "common/errors.h"
#include "common/file_io.h"
#include "compare/readers/libzip.h"
#include "compare/readers/zip_stored.h"

namespace banjia::compare {

MappedFile::MappedFile(const std::filesystem::path& path) {
  // O_NONBLOCK: a FIFO without a writer is refused below instead of waited for.
  int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) throw InputError(path.string(), std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    throw InputError(path.string(), "not a regular file");
  }
  note_input_file(st);
  size_ = static_cast<size_t>(st.st_size);
  if (size_ > 0) {
    data_ = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
    if (data_ == MAP_FAILED) {
      data_ = nullptr;
      int err = errno;
      ::close(fd);
      throw InputError(path.string(), std::string("cannot map: ") + std::strerror(err));
    }
    ::madvise(data_, size_, MADV_SEQUENTIAL);
  }
  ::close(fd);
}

MappedFile::~MappedFile() {
  if (data_) ::munmap(data_, size_);
}

namespace {
// Names that could escape a directory if someone extracted the archive: refuse them outright.
bool unsafe_member_name(const std::string& name) {
  if (name.empty() || name[0] == '/' || name[0] == '\\') return true;
  if (name.size() > 1 && name[1] == ':') return true;  // C:\...
  size_t start = 0;
  while (start <= name.size()) {
    size_t end = name.find_first_of("/\\", start);
    if (end == std::string::npos) end = name.size();
    if (name.compare(start, end - start, "..") == 0 && end - start == 2) return true;
    start = end + 1;
  }
  return false;
}

zip* open_from_memory(const LibZip& lz, std::string_view bytes, std::string& problem) {
  zip_error_t error;
  lz.error_init(&error);
  zip_source_t* src = lz.source_buffer_create(bytes.data(), bytes.size(), 0, &error);
  zip_t* z = src ? lz.open_from_source(src, ZIP_RDONLY, &error) : nullptr;
  if (!z) {
    problem = lz.error_strerror(&error);
    if (src) lz.source_free(src);
  }
  lz.error_fini(&error);
  return z;
}
}  // namespace

// path.native() rather than a temporary path.string(): libzip() returns a process-wide object, but
// GCC 14 (-Wdangling-reference) reads a reference result from a call with a temporary argument as dangling.
NpzArchive::NpzArchive(const std::filesystem::path& path, ZipLimits limits)
    : zip_(libzip(path.native())), path_(path), file_(path) {
  std::string problem;
  zip* z = open_from_memory(zip_, file_.bytes(), problem);
  if (!z) throw InputError(path.string(), "not a readable npz (zip) archive: " + problem);
  all_.push_back(z);
  idle_.push_back(z);
  zip_int64_t n = zip_.get_num_entries(z, 0);
  uint64_t total = 0;
  for (zip_int64_t i = 0; i < n; ++i) {
    zip_stat_t st;
    zip_.stat_init(&st);
    NpzMember m;
    if (zip_.stat_index(z, static_cast<zip_uint64_t>(i), 0, &st) != 0) {
      m.problem = "unreadable zip entry";
    } else {
      m.name = st.name ? st.name : "";
      m.size = st.size;
      m.compressed = st.comp_size;
      m.stored = (st.valid & ZIP_STAT_COMP_METHOD) && st.comp_method == ZIP_CM_STORE;
      total += m.size;
      if (unsafe_member_name(m.name)) {
        m.problem = "unsafe member name (absolute or containing '..')";
      } else if (m.compressed > file_.bytes().size()) {
        // The ratio guard below is only as good as this size: it must be bytes the archive holds.
        m.problem = fmt::format("member claims {} compressed bytes but the archive holds {} (corrupt archive)",
                                m.compressed, file_.bytes().size());
      } else if (m.size > limits.max_member_bytes) {
        m.problem = fmt::format("member inflates to {}, more than {} (--max-input-size); not read",
                                byte_size_text(m.size), byte_size_text(limits.max_member_bytes));
      } else if (total > limits.max_total_bytes) {
        m.problem = fmt::format("archive expands beyond {} bytes (zip bomb guard)", limits.max_total_bytes);
      } else if (m.size > (1u << 20) &&
                 static_cast<double>(m.size) > limits.max_ratio * static_cast<double>(std::max<uint64_t>(m.compressed, 1))) {
        m.problem = fmt::format("compression ratio above {:.0f}:1 (zip bomb guard)", limits.max_ratio);
      }
    }
    members_.push_back(std::move(m));
  }
  std::vector<ZipMemberInfo> infos;
  for (const auto& m : members_) infos.push_back({m.name, m.compressed, m.stored && m.size == m.compressed});
  auto offsets = stored_data_offsets(file_.bytes(), infos);
  for (size_t i = 0; i < members_.size(); ++i) members_[i].data_offset = offsets[i];
}

NpzArchive::~NpzArchive() {
  for (zip* z : all_) zip_.discard(z);
}

zip* NpzArchive::borrow() {
  {
    std::lock_guard lock(mutex_);
    if (!idle_.empty()) {
      zip* z = idle_.back();
      idle_.pop_back();
      return z;
    }
  }
  std::string problem;
  zip* z = open_from_memory(zip_, file_.bytes(), problem);
  if (!z) return nullptr;
  std::lock_guard lock(mutex_);
  all_.push_back(z);
  return z;
}

void NpzArchive::give_back(zip* z) {
  std::lock_guard lock(mutex_);
  idle_.push_back(z);
}

std::string NpzArchive::read(size_t index, std::vector<std::byte>& out, std::string_view& bytes) {
  const NpzMember& m = members_.at(index);
  if (!m.problem.empty()) return m.problem;
  if (m.data_offset) {
    bytes = file_.bytes().substr(*m.data_offset, m.size);
    return "";
  }
  zip* z = borrow();
  if (!z) return "cannot reopen archive";
  std::string problem;
  zip_file_t* f = zip_.fopen_index(z, index, 0);
  if (!f) {
    problem = fmt::format("cannot open member: {}", zip_.strerror(z));
  } else {
    out.resize(m.size);
    zip_int64_t got = m.size ? zip_.fread(f, out.data(), m.size) : 0;
    if (got < 0 || static_cast<uint64_t>(got) != m.size) {
      problem = fmt::format("member {} is corrupt or truncated: {}", m.name, zip_.file_strerror(f));
    } else {
      char extra;  // the header's size must be the real size: anything more is a corrupt archive
      if (zip_.fread(f, &extra, 1) != 0) problem = "member holds more data than its header says";
    }
    zip_.fclose(f);
  }
  give_back(z);
  if (!problem.empty()) out.clear();
  bytes = std::string_view(reinterpret_cast<const char*>(out.data()), out.size());
  return problem;
}

}  // namespace banjia::compare
