// `migrate -o OUT`: writing a new tree so that nothing outside OUT is ever written. Every directory
// below OUT is opened or created one name at a time without following a symbolic link, so a link
// already in OUT (to a directory, or to a file) is never written through: a link where a directory
// must go is an error for the files below it, and a file's name is replaced by a rename, which
// replaces a link that stands there instead of its target.
#pragma once
#include <filesystem>
#include <string>
#include <string_view>
#include <sys/types.h>

namespace banjia::migrate {

class OutputTree {
 public:
  // Opens the directory `root`, creating it (and its parents) when missing. `root` itself may be a
  // link to a directory: the user named it. Throws InputError naming it.
  explicit OutputTree(const std::filesystem::path& root);
  ~OutputTree();
  OutputTree(const OutputTree&) = delete;
  OutputTree& operator=(const OutputTree&) = delete;

  // Writes `data` to `relative` ('/'-separated, no "..") with permission bits `mode`, atomically.
  // `durable`: fsync before the rename (a new tree may skip it and flush once at the end). Throws
  // InputError naming the path below the root.
  void write_file(const std::string& relative, std::string_view data, mode_t mode, bool durable = false);
  // Copies the regular file `source` to `relative` as write_file does, streaming (a large data file
  // in the tree costs no memory). A source that is no longer a regular file is an error.
  void copy_file(const std::string& relative, const std::filesystem::path& source, mode_t mode);
  // Creates the symbolic link `relative` -> `target` (the link's text, copied as it is), replacing
  // whatever entry has that name, atomically.
  void write_symlink(const std::string& relative, const std::filesystem::path& target);

  const std::filesystem::path& root() const { return root_; }

 private:
  // Opens the directory holding `relative` (creating what is missing); sets `name` to the last part.
  int open_parent(const std::string& relative, std::string& name);
  // Creates a temporary file beside `relative`, lets `fill` write it, and renames it into place.
  template <class Fill>
  void write_with(const std::string& relative, mode_t mode, bool durable, Fill fill);
  std::filesystem::path root_;
  int root_fd_ = -1;
};

}  // namespace banjia::migrate
