#include "common/safe_paths.h"

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/random.h>
#include <unistd.h>

#include <fmt/format.h>

#include "common/errors.h"
#include "common/utf8.h"

namespace banjia {
namespace fs = std::filesystem;

FileIdentity FileIdentity::of(const struct stat& st) {
  return {st.st_dev, st.st_ino, static_cast<int64_t>(st.st_size),
          static_cast<int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec};
}

namespace {
constexpr std::string_view kTempMarker = ".banjia-";
constexpr size_t kTempRandomChars = 6;
constexpr std::string_view kTempAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

// Unpredictable enough that two runs (or threads) do not keep picking the same name; exclusive
// creation, not the randomness, is what makes a name safe to use.
std::string random_chars(size_t n) {
  unsigned char bytes[16];
  if (::getrandom(bytes, n, GRND_NONBLOCK) != static_cast<ssize_t>(n)) {
    static std::atomic<uint64_t> counter{0};
    uint64_t x = (uint64_t(::getpid()) << 32) ^ counter.fetch_add(0x9E3779B97F4A7C15ull) ^
                 uint64_t(std::chrono::steady_clock::now().time_since_epoch().count());
    for (size_t i = 0; i < n; ++i, x = x * 6364136223846793005ull + 1442695040888963407ull)
      bytes[i] = static_cast<unsigned char>(x >> 56);
  }
  std::string out;
  for (size_t i = 0; i < n; ++i) out += kTempAlphabet[bytes[i] % kTempAlphabet.size()];
  return out;
}
}  // namespace

namespace {
// "." + name (shortened to leave room) + ".banjia-": what every temporary name for `name` starts with.
std::string temp_prefix_for(std::string_view name) {
  const size_t room = kMaxNameBytes - 1 - kTempMarker.size() - kTempRandomChars;
  if (name.size() > room) {
    size_t cut = room;
    // Back up over UTF-8 continuation bytes so the shortened name stays valid text.
    while (cut > 0 && (static_cast<unsigned char>(name[cut]) & 0xC0) == 0x80) --cut;
    name = name.substr(0, cut);
  }
  return "." + std::string(name) + std::string(kTempMarker);
}
}  // namespace

std::string temp_name_for(std::string_view name) { return temp_prefix_for(name) + random_chars(kTempRandomChars); }

bool is_banjia_temp_name_for(std::string_view name, std::string_view for_name) {
  const std::string prefix = temp_prefix_for(for_name);
  return name.size() == prefix.size() + kTempRandomChars && name.starts_with(prefix) && is_banjia_temp_name(name);
}

bool is_banjia_temp_name(std::string_view name) {
  if (name.size() < 1 + kTempMarker.size() + kTempRandomChars || name[0] != '.') return false;
  std::string_view tail = name.substr(name.size() - kTempRandomChars);
  std::string_view marker = name.substr(name.size() - kTempRandomChars - kTempMarker.size(), kTempMarker.size());
  if (marker != kTempMarker) return false;
  for (char c : tail)
    if (kTempAlphabet.find(c) == std::string_view::npos) return false;
  return true;
}

int create_exclusive_at(int dirfd, const std::string& name) {
  return ::openat(dirfd, name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
}

int create_temp_at(int dirfd, std::string_view for_name, std::string& created) {
  for (int attempt = 0; attempt < 100; ++attempt) {
    created = temp_name_for(for_name);
    int fd = create_exclusive_at(dirfd, created);
    if (fd >= 0 || errno != EEXIST) return fd;
  }
  errno = EEXIST;
  return -1;
}

int rename_no_replace_at(int dirfd, const std::string& from, const std::string& to) {
  if (::renameat2(dirfd, from.c_str(), dirfd, to.c_str(), RENAME_NOREPLACE) == 0) return 0;
  if (errno != EINVAL && errno != ENOSYS && errno != ENOTSUP) return -1;
  // No RENAME_NOREPLACE here: link(2) fails on an existing name just the same.
  if (::linkat(dirfd, from.c_str(), dirfd, to.c_str(), 0) != 0) return -1;
  ::unlinkat(dirfd, from.c_str(), 0);
  return 0;
}

int exchange_at(int dirfd, const std::string& a, const std::string& b) {
  return ::renameat2(dirfd, a.c_str(), dirfd, b.c_str(), RENAME_EXCHANGE);
}

std::string backup_suffix_problem(std::string_view suffix) {
  if (suffix.empty()) return "--backup-suffix is empty: the backup would replace the file";
  if (suffix.find('/') != std::string_view::npos)
    return "--backup-suffix contains '/': a backup must lie next to its file";
  if (suffix.find('\0') != std::string_view::npos) return "--backup-suffix contains a NUL byte";
  return "";
}

std::unique_ptr<TreeLock> TreeLock::acquire(const fs::path& root, std::string_view what) {
  std::unique_ptr<TreeLock> lock(new TreeLock());
  std::error_code ec;
  fs::path dir = fs::canonical(root, ec);
  if (ec) throw InputError(root.string(), "cannot resolve: " + ec.message());
  bool first = true;
  for (;;) {
    int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
      lock->fds_.push_back(fd);
      if (::flock(fd, (first ? LOCK_EX : LOCK_SH) | LOCK_NB) != 0 && errno == EWOULDBLOCK)
        throw InputError(root.string(), fmt::format("another {} is writing {}; wait for it to finish", what,
                                                    first ? "this tree" : "a tree holding this one (" + dir.string() + ")"));
    } else if (first) {
      throw InputError(root.string(), "cannot open directory: " + std::string(std::strerror(errno)));
    }
    first = false;
    if (dir == dir.root_path() || !dir.has_parent_path()) break;
    dir = dir.parent_path();
  }
  return lock;
}

TreeLock::~TreeLock() {
  for (int fd : fds_) ::close(fd);
}

std::string printable(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
      ++i;
      continue;
    }
    if (c == '\n') out += "\\n";
    else if (c == '\t') out += "\\t";
    else if (c == '\r') out += "\\r";
    else if (c < 0x80) out += fmt::format("\\x{:02x}", c);
    else {
      size_t n = utf8_sequence_length(text.substr(i));
      // C1 controls (U+0080..U+009F, two bytes C2 80..9F) act as escape sequences on some terminals.
      bool c1 = n == 2 && c == 0xC2 && static_cast<unsigned char>(text[i + 1]) < 0xA0;
      if (n == 0) out += fmt::format("\\x{:02x}", c), n = 1;
      else if (c1) out += fmt::format("\\u{:04x}", static_cast<unsigned char>(text[i + 1]));
      else out.append(text.substr(i, n));
      i += n;
      continue;
    }
    ++i;
  }
  return out;
}

std::string excerpt(std::string_view text, size_t max_bytes) {
  if (text.size() <= max_bytes) return printable(text);
  size_t cut = max_bytes;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  return printable(text.substr(0, cut)) + fmt::format("... ({} more bytes)", text.size() - cut);
}

}  // namespace banjia
