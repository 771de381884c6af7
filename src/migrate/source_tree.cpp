#include "migrate/source_tree.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/file_walk.h"
#include "common/safe_paths.h"

namespace banjia::migrate {
namespace fs = std::filesystem;

namespace {

const char* kind_of(mode_t mode) {
  if (S_ISFIFO(mode)) return "FIFO";
  if (S_ISSOCK(mode)) return "socket";
  if (S_ISCHR(mode)) return "character device";
  if (S_ISBLK(mode)) return "block device";
  return "special file";
}

struct Walk {
  const std::vector<std::string>& globs;
  SourceTree& out;
  bool in_editor_settings = false;  // below a .vscode or .idea directory

  bool excluded(const std::string& rel, const std::string& name) const {
    for (const auto& g : globs)
      if (glob_match(g, rel) || glob_match(g, name)) return true;
    return false;
  }

  // `fd` is the open directory at `path` (`rel` below the root, "" for the root); closes it.
  void directory(int fd, const fs::path& path, const std::string& rel) {
    DIR* d = ::fdopendir(fd);
    if (!d) {
      out.problems.push_back({rel.empty() ? "." : rel, std::string("cannot read directory: ") + std::strerror(errno)});
      ::close(fd);
      return;
    }
    std::vector<std::string> names;
    for (;;) {
      errno = 0;
      const dirent* e = ::readdir(d);
      if (!e) break;
      std::string name = e->d_name;
      if (name != "." && name != "..") names.push_back(std::move(name));
    }
    if (errno != 0)
      out.problems.push_back({rel.empty() ? "." : rel, std::string("cannot read directory: ") + std::strerror(errno)});
    std::sort(names.begin(), names.end());
    for (const auto& name : names) entry(::dirfd(d), path / name, rel.empty() ? name : rel + "/" + name, name);
    ::closedir(d);
  }

  void entry(int parent, const fs::path& path, const std::string& rel, const std::string& name) {
    struct stat st{};
    if (::fstatat(parent, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
      // Gone since the directory was read: nothing to migrate.
      if (errno != ENOENT) out.problems.push_back({rel, std::string("cannot examine: ") + std::strerror(errno)});
      return;
    }
    const bool skip = excluded(rel, name);
    if (S_ISDIR(st.st_mode)) {
      if (name == ".git" || name == ".hg" || name == ".svn" || name == "__pycache__" || skip) return;
      int fd = ::openat(parent, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      if (fd < 0) {
        out.problems.push_back({rel, std::string("cannot read directory: ") + std::strerror(errno)});
        return;
      }
      // An editor's settings are copied as they are, never read as the program's configuration.
      const bool was_editor = in_editor_settings;
      in_editor_settings = was_editor || is_editor_settings_directory(name);
      directory(fd, path, rel);
      in_editor_settings = was_editor;
      return;
    }
    if (S_ISREG(st.st_mode) && is_banjia_temp_name(name)) {
      out.stale_temps.push_back(path);
      return;
    }
    SourceEntry e;
    e.path = path;
    e.relative = rel;
    e.excluded = skip || in_editor_settings;
    if (S_ISLNK(st.st_mode)) e.type = SourceEntry::Type::symlink;
    else if (!S_ISREG(st.st_mode)) e.type = SourceEntry::Type::other, e.other_kind = kind_of(st.st_mode);
    out.entries.push_back(std::move(e));
  }
};

}  // namespace

SourceTree walk_source_tree(const fs::path& root, const std::vector<std::string>& exclude_globs) {
  SourceTree tree;
  Walk w{exclude_globs, tree};
  int fd = ::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) tree.problems.push_back({".", std::string("cannot read directory: ") + std::strerror(errno)});
  else w.directory(fd, root, "");
  // Sorted by relative path as a whole ("a.py" before "a/b.py" is not what a per-directory sort
  // gives): reports and the order of writes follow it.
  std::sort(tree.entries.begin(), tree.entries.end(),
            [](const SourceEntry& a, const SourceEntry& b) { return a.relative < b.relative; });
  return tree;
}

}  // namespace banjia::migrate
