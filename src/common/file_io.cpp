#include "common/file_io.h"

#include <algorithm>
#include <mutex>
#include <set>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include "common/errors.h"
#include "common/unique_fd.h"

namespace banjia {
namespace fs = std::filesystem;

namespace {
std::optional<size_t> g_fail_after;
}  // namespace

void set_write_failure_after_bytes_for_testing(std::optional<size_t> bytes) { g_fail_after = bytes; }

const char* special_file_kind(mode_t mode) {
  if (S_ISFIFO(mode)) return "FIFO";
  if (S_ISSOCK(mode)) return "socket";
  if (S_ISCHR(mode)) return "character device";
  if (S_ISBLK(mode)) return "block device";
  if (S_ISDIR(mode)) return "directory";
  return "special file";
}

namespace {
// The files this process has read, by device and inode: no output may replace one.
std::mutex g_inputs_mutex;
std::set<std::pair<dev_t, ino_t>> g_inputs;
}  // namespace

void note_input_file(const struct stat& st) {
  std::lock_guard lock(g_inputs_mutex);
  g_inputs.emplace(st.st_dev, st.st_ino);
}

void note_input_file(const fs::path& path) {
  struct stat st{};
  if (::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode)) note_input_file(st);
}

void refuse_if_input(const fs::path& output) {
  struct stat st{};
  if (::stat(output.c_str(), &st) != 0) return;
  std::lock_guard lock(g_inputs_mutex);
  if (g_inputs.count({st.st_dev, st.st_ino}))
    throw InputError(output.string(), "is an input of this run; refusing to overwrite it (choose another output)");
}

namespace {
std::string size_text(size_t bytes) {
  if (bytes % (size_t{1} << 30) == 0) return fmt::format("{} GiB", bytes >> 30);
  if (bytes % (size_t{1} << 20) == 0) return fmt::format("{} MiB", bytes >> 20);
  return fmt::format("{} bytes", bytes);
}

// What a read refuses: more than max_bytes, and (when binary_problem is set) a NUL byte.
struct ReadLimits {
  size_t max_bytes = SIZE_MAX;
  std::string_view binary_problem;
  FileIdentity* identity = nullptr;  // set to the file read
};

// Reads the whole file into buf[0, n) and returns n. buf only grows (its bytes past n are left as
// they were), so a caller reusing one buffer for many files neither zero-fills nor reallocates once
// it has seen the largest. A regular file is read at its stat size, then a small probe read confirms
// EOF; a file that grew since fstat, or a pipe / procfs file reporting size 0, still reads whole, up
// to the limit.
size_t read_whole_file(const fs::path& path, std::string& buf, const ReadLimits& limits) {
  UniqueFd f;
  // O_NONBLOCK: opening a FIFO with no writer would wait for one, forever.
  f.fd = path == "-" ? ::fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 0) : ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (f.fd < 0) throw InputError(path.string(), "cannot open: " + errno_text(errno));
  struct stat st{};
  if (::fstat(f.fd, &st) != 0) throw InputError(path.string(), "cannot stat: " + errno_text(errno));
  if (S_ISDIR(st.st_mode)) throw InputError(path.string(), "is a directory, expected a file");
  if (!S_ISREG(st.st_mode)) {
    // A FIFO, device or socket has no end to wait for (/dev/zero, a FIFO nobody writes). Standard
    // input is the exception, as "-" or as a name for it (/dev/stdin): the user wired it up.
    struct stat in{};
    const bool is_stdin = ::fstat(STDIN_FILENO, &in) == 0 && in.st_dev == st.st_dev && in.st_ino == st.st_ino;
    if (!is_stdin) throw InputError(path.string(), "a " + std::string(special_file_kind(st.st_mode)) + ", not a regular file: not read");
    ::fcntl(f.fd, F_SETFL, ::fcntl(f.fd, F_GETFL) & ~O_NONBLOCK);
  } else {
    note_input_file(st);
  }
  if (limits.identity) *limits.identity = FileIdentity::of(st);
  auto too_large = [&] { return InputError(path.string(), "file larger than " + size_text(limits.max_bytes) + ", not read"); };
  auto read_some = [&](char* to, size_t len) -> size_t {
    for (;;) {
      ssize_t n = ::read(f.fd, to, len);
      if (n >= 0) return static_cast<size_t>(n);
      if (errno != EINTR) throw InputError(path.string(), "read failed: " + errno_text(errno));
    }
  };
  auto check_text = [&](const char* from, size_t n) {
    if (!limits.binary_problem.empty() && std::memchr(from, '\0', n) != nullptr)
      throw InputError(path.string(), std::string(limits.binary_problem));
  };
  const bool regular = S_ISREG(st.st_mode);
  if (regular && static_cast<uint64_t>(st.st_size) > limits.max_bytes) throw too_large();
  size_t want = regular ? static_cast<size_t>(st.st_size) : 0;
  if (buf.size() < want) buf.resize(want);
  size_t size = 0;
  for (;;) {
    if (size < want) {
      size_t n = read_some(buf.data() + size, want - size);
      if (n == 0) break;  // shrank since fstat
      check_text(buf.data() + size, n);
      size += n;
      // All the bytes fstat counted: the file as it was when opened. No read to see end-of-file
      // (one system call per file of a scan); a regular file of size 0 may still be a generated
      // one (/proc) and is read until end-of-file below.
      if (size == want && regular) break;
      continue;
    }
    char probe[4096];
    size_t n = read_some(probe, sizeof probe);
    if (n == 0) break;
    check_text(probe, n);
    if (n > limits.max_bytes - size) throw too_large();
    want = std::min(std::max(want * 2, size + n + (1 << 16)), limits.max_bytes);
    if (buf.size() < want) buf.resize(want);
    std::memcpy(buf.data() + size, probe, n);
    size += n;
  }
  return size;
}
}  // namespace

std::string read_file(const fs::path& path, size_t max_bytes) {
  std::string data;
  data.resize(read_whole_file(path, data, {max_bytes, {}}));
  return data;
}

std::string read_file(const fs::path& path, size_t max_bytes, FileIdentity& identity) {
  std::string data;
  data.resize(read_whole_file(path, data, {max_bytes, {}, &identity}));
  return data;
}

std::string_view read_file_into(const fs::path& path, std::string& buffer, size_t max_bytes) {
  size_t n = read_whole_file(path, buffer, {max_bytes, {}});
  return std::string_view(buffer.data(), n);
}

std::string read_text_file(const fs::path& path, size_t max_bytes, std::string_view what) {
  const std::string problem = fmt::format("binary file (contains NUL bytes), not {}", what);
  std::string data;
  data.resize(read_whole_file(path, data, {max_bytes, problem}));
  return data;
}

bool write_all_to_fd(int fd, std::string_view data) {
  size_t written = 0;
  while (written < data.size()) {
    size_t chunk = data.size() - written;
    if (g_fail_after && written + chunk > *g_fail_after) {
      chunk = *g_fail_after > written ? *g_fail_after - written : 0;
      if (chunk == 0) {
        errno = ENOSPC;
        return false;
      }
    }
    ssize_t n = ::write(fd, data.data() + written, chunk);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    written += static_cast<size_t>(n);
  }
  return true;
}

void write_file_atomic(const fs::path& given, std::string_view data, std::optional<mode_t> mode, bool durable) {
  refuse_if_input(given);
  replace_file_atomic(given, data, mode, durable);
}

void replace_file_atomic(const fs::path& given, std::string_view data, std::optional<mode_t> mode, bool durable) {
  const std::string target = given.string();
  struct stat st{};
  const bool exists = ::stat(given.c_str(), &st) == 0;  // follows symbolic links
  if (exists && S_ISDIR(st.st_mode)) throw InputError(target, "is a directory");
  if (exists && !S_ISREG(st.st_mode)) {
    // A device, FIFO or socket (`-o /dev/null`, `-o /dev/stderr` on a terminal): there is no file to
    // replace, and renaming over it would replace the device node itself. Write into it.
    UniqueFd f;
    f.fd = ::open(given.c_str(), O_WRONLY | O_CLOEXEC);
    if (f.fd < 0) throw InputError(target, "cannot open for writing: " + errno_text(errno));
    if (!write_all_to_fd(f.fd, data)) throw InputError(target, "write failed: " + errno_text(errno));
    return;
  }
  // A symbolic link stays a link: the file it points to is the one replaced.
  std::error_code ec;
  fs::path path = given;
  if (exists && fs::is_symlink(given, ec)) {
    fs::path real = fs::canonical(given, ec);
    if (!ec) path = real;
  }
  mode_t final_mode = 0644;
  if (mode) final_mode = *mode;
  else if (exists) final_mode = st.st_mode & 07777;

  fs::path dir = path.parent_path();
  if (dir.empty()) dir = ".";
  const std::string name = path.filename().string();
  UniqueFd d;
  d.fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (d.fd < 0) throw InputError(target, "cannot open its directory: " + errno_text(errno));
  std::string temp;
  UniqueFd f;
  f.fd = create_temp_at(d.fd, name, temp);
  if (f.fd < 0) throw InputError(target, "cannot create temporary file: " + errno_text(errno));
  auto fail = [&](const std::string& what, int err) {
    ::unlinkat(d.fd, temp.c_str(), 0);
    throw InputError(target, what + ": " + errno_text(err));
  };
  if (!write_all_to_fd(f.fd, data)) fail("write failed", errno);
  if (::fchmod(f.fd, final_mode) != 0) fail("cannot set mode", errno);
  if (durable && ::fsync(f.fd) != 0) fail("fsync failed", errno);
  int fd = f.fd;
  f.fd = -1;
  if (::close(fd) != 0) fail("close failed", errno);
  if (::renameat(d.fd, temp.c_str(), d.fd, name.c_str()) != 0) fail("cannot replace file", errno);
}

void sync_filesystem(const fs::path& path) {
  UniqueFd f;
  f.fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (f.fd < 0) throw InputError(path.string(), "cannot open: " + errno_text(errno));
  if (::syncfs(f.fd) != 0) throw InputError(path.string(), "sync failed: " + errno_text(errno));
}

void write_output(const std::string& path, std::string_view data) {
  if (path.empty() || path == "-") {
    // A report that does not arrive is a failure (a full disk, /dev/full, a closed stdout).
    errno = 0;
    if (std::fwrite(data.data(), 1, data.size(), stdout) != data.size() || std::fflush(stdout) != 0)
      throw InputError("stdout", "write failed" + (errno ? ": " + errno_text(errno) : std::string()));
    return;
  }
  write_file_atomic(path, data);
}

}  // namespace banjia
