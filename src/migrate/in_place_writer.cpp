#include "migrate/in_place_writer.h"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include "common/errors.h"
#include "common/file_io.h"
#include "common/unique_fd.h"

namespace banjia::migrate {
namespace fs = std::filesystem;

namespace {

// Whether the open file `fd` holds exactly `expected` (and nothing after it).
bool holds_exactly(int fd, std::string_view expected) {
  char buf[1 << 16];
  size_t at = 0;
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return false;
    if (n == 0) return at == expected.size();
    size_t got = static_cast<size_t>(n);
    if (got > expected.size() - at || std::memcmp(buf, expected.data() + at, got) != 0) return false;
    at += got;
  }
}

// What stands at `name` in `dirfd` now, compared with the version that was read.
enum class Now { as_read, changed, deleted };
struct Observed {
  Now now = Now::changed;
  struct stat st{};
  std::string problem;  // for a file that could not even be examined
};

Observed observe(int dirfd, const std::string& name, const FileIdentity& read_as, std::string_view original) {
  Observed o;
  UniqueFd f(::openat(dirfd, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
  if (f.fd < 0) {
    if (errno == ENOENT) o.now = Now::deleted;
    else if (errno != ELOOP) o.problem = "cannot open: " + errno_text(errno);
    return o;  // ELOOP: a symbolic link stands there now
  }
  if (::fstat(f.fd, &o.st) != 0 || !S_ISREG(o.st.st_mode)) return o;
  if (FileIdentity::of(o.st) != read_as || !holds_exactly(f.fd, original)) return o;
  o.now = Now::as_read;
  return o;
}

// A write lease (fcntl F_SETLEASE) on the file about to be replaced. The kernel grants it only while
// no other program has the file open, and any open during the swap breaks it, visibly (F_GETLEASE):
// so a program that opens the file just before the swap and writes just after, whose write would
// land in the replaced version, is seen, and the swap undone. Where leases are not available (a
// network file system, a file of another user) the content checks alone decide.
class WriteLease {
 public:
  WriteLease() {
    // A broken lease signals its holder with SIGIO, whose default action ends the process; the
    // break is read from F_GETLEASE instead.
    struct sigaction old{};
    if (::sigaction(SIGIO, nullptr, &old) == 0 && old.sa_handler == SIG_DFL) ::signal(SIGIO, SIG_IGN);
  }
  WriteLease(const WriteLease&) = delete;
  WriteLease& operator=(const WriteLease&) = delete;
  ~WriteLease() { release(); }
  // Lets the programs waiting to open the file go on (and this process open it again).
  void release() {
    if (held_) ::fcntl(fd_.fd, F_SETLEASE, F_UNLCK);
    held_ = false;
  }

  // Opens `name` in `dirfd` and takes the lease, retrying for a while as long as another program
  // has the file open. Returns "" (leased, or leases unavailable: held() says which) or the problem.
  // `probe` is a file of this run in the same directory that nobody else opens: where even it gets
  // no lease, the file system gives none that mean anything, and `name` is not tried.
  std::string take(int dirfd, const std::string& name, const std::string& probe) {
    {
      UniqueFd p(::openat(dirfd, probe.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
      if (p.fd < 0 || ::fcntl(p.fd, F_SETLEASE, F_WRLCK) != 0) return "";
      ::fcntl(p.fd, F_SETLEASE, F_UNLCK);
    }
    for (int attempt = 0;; ++attempt) {
      int fd = ::openat(dirfd, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
      if (fd < 0) return "";  // the checks that follow say what stands there
      if (::fcntl(fd, F_SETLEASE, F_WRLCK) == 0) {
        fd_.fd = fd;
        held_ = true;
        return "";
      }
      const int err = errno;
      ::close(fd);
      if (err != EAGAIN && err != EBUSY) return "";
      if (attempt == 200) return "open in another program; left as it is (run migrate again)";
      ::usleep(1000);
    }
  }
  bool held() const { return held_; }
  int fd() const { return fd_.fd; }
  // Nobody opened the file since the lease was taken.
  bool intact() const { return ::fcntl(fd_.fd, F_GETLEASE) == F_WRLCK; }

 private:
  UniqueFd fd_;
  bool held_ = false;
};

// Whether the leased file is still the version read, and still the one at `name` in `dirfd`. Reads
// through the lease's descriptor: opening the file again would break the lease.
bool leased_file_is_as_read(const WriteLease& lease, int dirfd, const std::string& name, const FileIdentity& read_as,
                            std::string_view original) {
  struct stat held{}, at_name{};
  if (::fstat(lease.fd(), &held) != 0 || FileIdentity::of(held) != read_as) return false;
  if (::fstatat(dirfd, name.c_str(), &at_name, AT_SYMLINK_NOFOLLOW) != 0 || at_name.st_ino != held.st_ino ||
      at_name.st_dev != held.st_dev)
    return false;
  return ::lseek(lease.fd(), 0, SEEK_SET) == 0 && holds_exactly(lease.fd(), original);
}

// Writes `data` to a new temporary file beside `for_name` with the mode and owner of `like`,
// flushed to disk. Returns its name, or "" with `problem` set (nothing left behind).
std::string write_temp(int dirfd, std::string_view for_name, std::string_view data, const struct stat& like,
                       std::string& problem) {
  std::string name;
  UniqueFd f(create_temp_at(dirfd, for_name, name));
  if (f.fd < 0) {
    problem = "cannot create a temporary file: " + errno_text(errno);
    return "";
  }
  auto fail = [&](const char* what) {
    problem = fmt::format("{}: {}", what, errno_text(errno));
    ::unlinkat(dirfd, name.c_str(), 0);
    return std::string();
  };
  if (!write_all_to_fd(f.fd, data)) return fail("write failed");
  // The owner first: a chown clears set-user-ID bits that the chmod then restores. Only root may give
  // a file away; for anyone else the file is theirs already, so a refusal changes nothing.
  if (::fchown(f.fd, like.st_uid, like.st_gid) != 0 && errno != EPERM) return fail("cannot set owner");
  if (::fchmod(f.fd, like.st_mode & 07777) != 0) return fail("cannot set mode");
  if (::fsync(f.fd) != 0) return fail("fsync failed");
  int fd = f.fd;
  f.fd = -1;
  if (::close(fd) != 0) return fail("close failed");
  return name;
}

}  // namespace

std::string InPlaceWriter::replace(const InPlaceTarget& t) {
  const std::string dir = t.path.has_parent_path() ? t.path.parent_path().string() : ".";
  const std::string name = t.path.filename().string();
  UniqueFd d(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (d.fd < 0) return "cannot open its directory: " + errno_text(errno);
  auto not_as_read = [](const Observed& o) {
    if (!o.problem.empty()) return o.problem + "; left as it is";
    return std::string(o.now == Now::deleted ? "deleted during the run; not recreated"
                                             : "changed during the run; left as you have it (run migrate again)");
  };
  Observed before = observe(d.fd, name, t.read_as, t.original);
  if (before.now != Now::as_read) return not_as_read(before);

  // The backup: whole under a temporary name, then given its name only if that name is free.
  std::string backup;
  bool made_backup = false;
  if (backup_suffix_) {
    backup = name + *backup_suffix_;
    if (backup.size() > kMaxNameBytes)
      return fmt::format("its backup's name would be longer than {} bytes; use --no-backup or a shorter "
                         "--backup-suffix; left as it is", kMaxNameBytes);
    struct stat bst{};
    if (::fstatat(d.fd, backup.c_str(), &bst, AT_SYMLINK_NOFOLLOW) == 0) {
      UniqueFd b(S_ISREG(bst.st_mode) ? ::openat(d.fd, backup.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC) : -1);
      // A byte-identical copy (a killed run's backup of this very file, or the user's own) loses
      // nothing when kept as the backup; anything else may be the only copy of an original.
      if (b.fd < 0 || !holds_exactly(b.fd, t.original))
        return fmt::format("backup {} already exists and differs from the file; move it away first (it may hold "
                           "your original); left as it is", backup);
    } else if (errno != ENOENT) {
      return fmt::format("cannot examine backup {}: {}; left as it is", backup, errno_text(errno));
    } else {
      std::string problem;
      std::string temp = write_temp(d.fd, backup, t.original, before.st, problem);
      if (temp.empty()) return "cannot write its backup: " + problem + "; left as it is";
      if (rename_no_replace_at(d.fd, temp, backup) != 0) {
        int err = errno;
        ::unlinkat(d.fd, temp.c_str(), 0);
        return err == EEXIST ? fmt::format("backup {} appeared during the run; left as it is", backup)
                             : fmt::format("cannot create backup {}: {}; left as it is", backup, errno_text(err));
      }
      made_backup = true;
    }
  }
  auto undo_backup = [&] {
    if (made_backup) ::unlinkat(d.fd, backup.c_str(), 0);
  };

  std::string problem;
  std::string temp = write_temp(d.fd, name, t.rewritten, before.st, problem);
  if (temp.empty()) {
    undo_backup();
    return problem + "; left as it is";
  }
  auto give_up = [&](std::string why) {
    ::unlinkat(d.fd, temp.c_str(), 0);
    undo_backup();
    return why;
  };
  WriteLease lease;
  if (auto busy = lease.take(d.fd, name, temp); !busy.empty()) return give_up(busy);
  if (lease.held() ? !leased_file_is_as_read(lease, d.fd, name, t.read_as, t.original)
                   : observe(d.fd, name, t.read_as, t.original).now != Now::as_read) {
    lease.release();
    return give_up(not_as_read(observe(d.fd, name, t.read_as, t.original)));
  }
  if (exchange_at(d.fd, temp, name) == 0) {
    // What was swapped out must be the version that was read, and (leased) opened by nobody since:
    // an edit that landed between the check above and the swap is now under the temporary name, and
    // is swapped back.
    const bool swapped_as_read = lease.held() ? lease.intact() && leased_file_is_as_read(lease, d.fd, temp, t.read_as, t.original)
                                              : observe(d.fd, temp, t.read_as, t.original).now == Now::as_read;
    if (!swapped_as_read) {
      if (exchange_at(d.fd, temp, name) != 0) {
        // Out of the temporary name, which the next run would remove as a leftover.
        int err = errno;
        std::string kept = name.substr(0, kMaxNameBytes - 7) + ".edited";
        if (rename_no_replace_at(d.fd, temp, kept) != 0) kept = temp;
        return fmt::format("changed during the run; your version is in {} (could not swap it back: {})",
                           (fs::path(dir) / kept).string(), errno_text(err));
      }
      return give_up(not_as_read(Observed{}));
    }
    ::unlinkat(d.fd, temp.c_str(), 0);
  } else if (errno == EINVAL || errno == ENOSYS || errno == ENOTSUP) {
    // A file system without RENAME_EXCHANGE: the check above is the last word.
    if (::renameat(d.fd, temp.c_str(), d.fd, name.c_str()) != 0)
      return give_up("cannot replace it: " + errno_text(errno) + "; left as it is");
  } else {
    return give_up("cannot replace it: " + errno_text(errno) + "; left as it is");
  }
  std::lock_guard lock(dirs_mutex_);
  dirs_.insert(dir);
  return "";
}

std::string InPlaceWriter::create(const fs::path& path, std::string_view data) {
  const std::string dir = path.has_parent_path() ? path.parent_path().string() : ".";
  const std::string name = path.filename().string();
  UniqueFd d(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (d.fd < 0) return "cannot open its directory: " + errno_text(errno);
  std::string temp;
  UniqueFd f(create_temp_at(d.fd, name, temp));
  if (f.fd < 0) return "cannot create a temporary file: " + errno_text(errno);
  auto fail = [&](const std::string& what) {
    ::unlinkat(d.fd, temp.c_str(), 0);
    return what;
  };
  if (!write_all_to_fd(f.fd, data)) return fail("write failed: " + errno_text(errno));
  if (::fchmod(f.fd, 0644) != 0) return fail("cannot set mode: " + errno_text(errno));
  if (::fsync(f.fd) != 0) return fail("fsync failed: " + errno_text(errno));
  const int fd = f.fd;
  f.fd = -1;
  if (::close(fd) != 0) return fail("close failed: " + errno_text(errno));
  if (rename_no_replace_at(d.fd, temp, name) != 0) {
    const int err = errno;
    if (err != EEXIST) return fail("cannot create it: " + errno_text(err));
    // Something took the name since the run looked: only the very same bytes are fine.
    UniqueFd existing(::openat(d.fd, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
    struct stat st{};
    const bool same = existing.fd >= 0 && ::fstat(existing.fd, &st) == 0 && S_ISREG(st.st_mode) && holds_exactly(existing.fd, data);
    ::unlinkat(d.fd, temp.c_str(), 0);
    if (!same) return "appeared during the run with other contents; left as it is";
    return "";
  }
  std::lock_guard lock(dirs_mutex_);
  dirs_.insert(dir);
  return "";
}

std::vector<std::pair<std::string, std::string>> InPlaceWriter::finish() {
  std::vector<std::pair<std::string, std::string>> problems;
  std::lock_guard lock(dirs_mutex_);
  for (const auto& dir : dirs_) {
    UniqueFd d(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (d.fd < 0 || ::fsync(d.fd) != 0) problems.emplace_back(dir, "cannot flush the directory: " + errno_text(errno));
  }
  dirs_.clear();
  return problems;
}

size_t remove_stale_temps(const std::vector<fs::path>& temps) {
  size_t removed = 0;
  for (const auto& p : temps) {
    struct stat st{};
    if (!is_banjia_temp_name(p.filename().string()) || ::lstat(p.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
    if (::unlink(p.c_str()) == 0) ++removed;
  }
  return removed;
}

}  // namespace banjia::migrate
