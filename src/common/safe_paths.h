// Path and file-system primitives for writing without losing what a user had: which version of a
// file was read (identity), temporary names that fit any file name and are recognisable as banjia's,
// exclusive creation of a name, and a per-tree lock. The writers (common/file_io.h for single
// outputs, migrate/in_place_writer.h and migrate/output_tree.h for trees) are built from these.
#pragma once
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>
#include <sys/stat.h>
#include <sys/types.h>

namespace banjia {

// One version of one file: the inode and what changes when its content changes. Two equal
// identities mean "the same file, not written since" (mtime has nanosecond resolution on the file
// systems banjia writes to; the content check that follows covers a coarse one).
struct FileIdentity {
  dev_t dev = 0;
  ino_t ino = 0;
  int64_t size = -1;
  int64_t mtime_ns = 0;

  static FileIdentity of(const struct stat& st);
  bool known() const { return size >= 0; }
  bool same_inode(const FileIdentity& o) const { return dev == o.dev && ino == o.ino; }
  bool operator==(const FileIdentity&) const = default;
};

// The longest name one directory entry may have (NAME_MAX on Linux file systems).
inline constexpr size_t kMaxNameBytes = 255;

// A temporary name beside `name`: "." + name + ".banjia-" + 6 random characters, the name shortened
// (at a UTF-8 character boundary) so that the result fits kMaxNameBytes.
std::string temp_name_for(std::string_view name);
// Whether `name` has the shape temp_name_for gives (what an interrupted run may leave behind), and
// whether it is one given for `for_name`.
bool is_banjia_temp_name(std::string_view name);
bool is_banjia_temp_name_for(std::string_view name, std::string_view for_name);

// Creates a new file `name` in directory `dirfd` (O_EXCL: never an existing one, never through a
// link) with mode 0600, returns its descriptor, or -1 with errno set.
int create_exclusive_at(int dirfd, const std::string& name);
// Creates a temporary file beside `for_name` in `dirfd` (a fresh temp_name_for name each try), sets
// `created` to its name and returns its descriptor, or -1 with errno set.
int create_temp_at(int dirfd, std::string_view for_name, std::string& created);

// Renames `from` to `to` within `dirfd` only if `to` does not exist (RENAME_NOREPLACE, or link +
// unlink where the file system lacks it). Returns 0, or -1 with errno set (EEXIST: `to` exists).
int rename_no_replace_at(int dirfd, const std::string& from, const std::string& to);
// Atomically swaps two names within `dirfd` (RENAME_EXCHANGE). Returns 0, or -1 with errno set;
// EINVAL / ENOSYS / ENOTSUP mean the file system cannot, and the caller falls back to a rename.
int exchange_at(int dirfd, const std::string& a, const std::string& b);

// Whether `suffix` may be appended to a file name to name its backup: non-empty, no '/', no NUL.
// Returns the problem, or "" when it may.
std::string backup_suffix_problem(std::string_view suffix);

// One writing run per tree at a time: an exclusive flock(2) on the tree's directory and a shared one
// on every directory above it, so that a run on a tree and a run on a tree inside it exclude each
// other too, while runs on separate trees do not. Released when the process ends, however it ends.
class TreeLock {
 public:
  // Throws InputError naming `root` when another run holds it. File systems without flock (some
  // network mounts) give no lock and no error.
  static std::unique_ptr<TreeLock> acquire(const std::filesystem::path& root, std::string_view what);
  ~TreeLock();
  TreeLock(const TreeLock&) = delete;
  TreeLock& operator=(const TreeLock&) = delete;

 private:
  TreeLock() = default;
  std::vector<int> fds_;
};

// `text` with control characters (C0, DEL) written as \n, \t, \xHH, so that a file name holding an
// escape sequence or a newline prints as one inert line.
std::string printable(std::string_view text);
// A value from an input, for a message: printable, and cut after `max_bytes` (at a character
// boundary) with how much was left out, so that a 5 MB field makes a short line.
std::string excerpt(std::string_view text, size_t max_bytes = 40);

}  // namespace banjia
