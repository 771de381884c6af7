#include "migrate/output_tree.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/errors.h"
#include "common/file_io.h"
#include "common/unique_fd.h"
#include "common/safe_paths.h"

namespace banjia::migrate {
namespace fs = std::filesystem;

OutputTree::OutputTree(const fs::path& root) : root_(root) {
  std::error_code ec;
  fs::create_directories(root, ec);
  root_fd_ = ::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (root_fd_ < 0) throw InputError(root.string(), "cannot open output directory: " + errno_text(errno));
}

OutputTree::~OutputTree() {
  if (root_fd_ >= 0) ::close(root_fd_);
}

int OutputTree::open_parent(const std::string& relative, std::string& name) {
  int dir = ::dup(root_fd_);
  if (dir < 0) throw InputError(root_.string(), "cannot open output directory: " + errno_text(errno));
  std::string walked;
  size_t start = 0;
  for (;;) {
    size_t slash = relative.find('/', start);
    std::string part = relative.substr(start, slash == std::string::npos ? std::string::npos : slash - start);
    if (part.empty() || part == "." || part == "..") {
      ::close(dir);
      throw InputError((root_ / relative).string(), "not a plain path below the output directory");
    }
    if (slash == std::string::npos) {
      name = part;
      return dir;
    }
    walked += (walked.empty() ? "" : "/") + part;
    int next = ::openat(dir, part.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (next < 0 && errno == ENOENT) {
      if (::mkdirat(dir, part.c_str(), 0777) != 0 && errno != EEXIST) {
        int err = errno;
        ::close(dir);
        throw InputError((root_ / walked).string(), "cannot create directory: " + errno_text(err));
      }
      next = ::openat(dir, part.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    }
    int err = errno;
    struct stat st{};
    const bool link = next < 0 && ::fstatat(dir, part.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode);
    ::close(dir);
    if (next < 0) {
      if (link) throw InputError((root_ / walked).string(), "is a symbolic link in the output directory; nothing is written through it");
      if (err == ENOTDIR) throw InputError((root_ / walked).string(), "is not a directory");
      throw InputError((root_ / walked).string(), "cannot open directory: " + errno_text(err));
    }
    dir = next;
    start = slash + 1;
  }
}

template <class Fill>
void OutputTree::write_with(const std::string& relative, mode_t mode, bool durable, Fill fill) {
  std::string name;
  UniqueFd dir(open_parent(relative, name));
  const std::string shown = (root_ / relative).string();
  struct stat st{};
  if (::fstatat(dir.fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode))
    throw InputError(shown, "is a directory");
  std::string temp;
  UniqueFd f(create_temp_at(dir.fd, name, temp));
  if (f.fd < 0) throw InputError(shown, "cannot create a temporary file: " + errno_text(errno));
  auto fail = [&](const std::string& what, int err) {
    ::unlinkat(dir.fd, temp.c_str(), 0);
    throw InputError(shown, what + ": " + errno_text(err));
  };
  try {
    fill(f.fd);
  } catch (const InputError&) {
    ::unlinkat(dir.fd, temp.c_str(), 0);
    throw;
  }
  if (::fchmod(f.fd, mode) != 0) fail("cannot set mode", errno);
  if (durable && ::fsync(f.fd) != 0) fail("fsync failed", errno);
  int fd = f.fd;
  f.fd = -1;
  if (::close(fd) != 0) fail("close failed", errno);
  // rename(2) replaces the entry `name`, a link included, and never follows it.
  if (::renameat(dir.fd, temp.c_str(), dir.fd, name.c_str()) != 0) fail("cannot write", errno);
}

void OutputTree::write_file(const std::string& relative, std::string_view data, mode_t mode, bool durable) {
  write_with(relative, mode, durable, [&](int fd) {
    if (!write_all_to_fd(fd, data)) throw InputError((root_ / relative).string(), "write failed: " + errno_text(errno));
  });
}

void OutputTree::copy_file(const std::string& relative, const fs::path& source, mode_t mode) {
  UniqueFd in(::open(source.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
  struct stat st{};
  if (in.fd < 0 || ::fstat(in.fd, &st) != 0) throw InputError(source.string(), "cannot open: " + errno_text(errno));
  if (!S_ISREG(st.st_mode)) throw InputError(source.string(), "no longer a regular file: not copied");
  write_with(relative, mode, false, [&](int out) {
    std::string buffer;
    size_t copied = 0;
    for (;;) {
      ssize_t n = ::copy_file_range(in.fd, nullptr, out, nullptr, size_t{1} << 30, 0);
      if (n == 0) return;
      if (n > 0) {
        copied += static_cast<size_t>(n);
        continue;
      }
      if (errno == EINTR) continue;
      const bool unsupported = errno == EXDEV || errno == EINVAL || errno == ENOSYS || errno == EOPNOTSUPP;
      if (!unsupported || copied > 0) throw InputError((root_ / relative).string(), "write failed: " + errno_text(errno));
      break;  // no copy_file_range between these file systems: read and write
    }
    buffer.resize(size_t{1} << 20);
    for (;;) {
      ssize_t n = ::read(in.fd, buffer.data(), buffer.size());
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) throw InputError(source.string(), "read failed: " + errno_text(errno));
      if (n == 0) return;
      if (!write_all_to_fd(out, std::string_view(buffer.data(), static_cast<size_t>(n))))
        throw InputError((root_ / relative).string(), "write failed: " + errno_text(errno));
    }
  });
}

void OutputTree::write_symlink(const std::string& relative, const fs::path& target) {
  std::string name;
  UniqueFd dir(open_parent(relative, name));
  const std::string shown = (root_ / relative).string();
  std::string temp;
  for (int attempt = 0; attempt < 100; ++attempt) {
    temp = temp_name_for(name);
    if (::symlinkat(target.c_str(), dir.fd, temp.c_str()) == 0) break;
    if (errno != EEXIST) throw InputError(shown, "cannot create symlink: " + errno_text(errno));
    temp.clear();
  }
  if (temp.empty()) throw InputError(shown, "cannot create symlink: " + errno_text(EEXIST));
  if (::renameat(dir.fd, temp.c_str(), dir.fd, name.c_str()) != 0) {
    int err = errno;
    ::unlinkat(dir.fd, temp.c_str(), 0);
    throw InputError(shown, "cannot create symlink: " + errno_text(err));
  }
}

}  // namespace banjia::migrate
