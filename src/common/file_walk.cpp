#include "common/file_walk.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <dirent.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <set>
#include <sys/stat.h>
#include <unistd.h>
#include <system_error>

namespace banjia {
namespace fs = std::filesystem;

bool is_skipped_directory(std::string_view name) {
  // .vscode, .idea and .devcontainer hold the editor's settings (JSON with comments), not the program's configuration.
  static constexpr std::array<std::string_view, 22> kSkip = {
      ".git", ".hg", ".svn", "__pycache__", "build", "dist", ".venv", "venv", "env", ".env",
      ".tox", ".nox", ".mypy_cache", ".pytest_cache", ".ruff_cache", "node_modules", "site-packages",
      ".eggs", ".ipynb_checkpoints", ".vscode", ".idea", ".devcontainer"};
  return std::find(kSkip.begin(), kSkip.end(), name) != kSkip.end() || name.ends_with(".egg-info");
}

bool is_editor_settings_directory(std::string_view name) {
  return name == ".vscode" || name == ".idea" || name == ".devcontainer";
}

bool glob_match(std::string_view pattern, std::string_view path) {
  std::string p(pattern), s(path);
  // "**/" and "/**" are handled by fnmatch without FNM_PATHNAME ('*' then crosses '/').
  return ::fnmatch(p.c_str(), s.c_str(), 0) == 0;
}

namespace {

std::string errno_message(int err) { return std::error_code(err, std::system_category()).message(); }

// Directory walking with readdir(3) and plain strings: the entry type comes from d_type where the
// file system provides it, so a file costs no stat unless it is a symlink, and no std::filesystem
// path is built (and split into components) for files that are not kept.
struct Walker {
  const WalkOptions& opt;
  WalkResult& out;
  std::set<std::pair<dev_t, ino_t>> visiting;  // directories on the current stack (loop detection)

  bool excluded(std::string_view rel, std::string_view name) const {
    for (const auto& g : opt.exclude_globs)
      if (glob_match(g, rel) || glob_match(g, name)) return true;
    return false;
  }
  bool kept(std::string_view name) const { return !opt.keep || opt.keep(name); }

  void add_file(std::string path, std::string display) {
    WalkedFile f{fs::path(std::move(path)), std::move(display)};
    if (opt.on_file) opt.on_file(std::move(f));
    else out.files.push_back(std::move(f));
  }

  struct Entry {
    std::string name;
    unsigned char type;  // d_type
  };
  // The entries of the directory open as `d` but "." and "..", sorted by name (closes `d`); a read
  // error midway is a problem, and what was read is kept.
  void read_entries(DIR* d, const std::string& display, std::vector<Entry>& entries) {
    for (;;) {
      errno = 0;
      const dirent* e = ::readdir(d);
      if (!e) break;
      std::string_view name = e->d_name;
      if (name == "." || name == "..") continue;
      entries.push_back({std::string(name), e->d_type});
    }
    if (errno != 0) out.problems.push_back({display, "cannot read directory: " + errno_message(errno)});
    ::closedir(d);
    std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) { return a.name < b.name; });
  }

  // `rel` is the directory's path relative to the command-line root ("" for the root itself).
  void walk_dir(const std::string& dir, const std::string& display, const std::string& rel) {
    // Opened once and identified by the open descriptor: one path lookup per directory, not two
    // (stat, then opendir), and what is read is what was identified.
    const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    struct stat st{};
    if (fd < 0 || ::fstat(fd, &st) != 0) {
      out.problems.push_back({display, "cannot read directory: " + errno_message(errno)});
      if (fd >= 0) ::close(fd);
      return;
    }
    auto key = std::make_pair(st.st_dev, st.st_ino);
    if (visiting.count(key)) {
      ::close(fd);
      out.problems.push_back({display, "symlink loop: directory already being visited"});
      return;
    }
    DIR* d = ::fdopendir(fd);  // owns fd from here
    if (!d) {
      out.problems.push_back({display, "cannot read directory: " + errno_message(errno)});
      ::close(fd);
      return;
    }
    visiting.insert(key);
    std::vector<Entry> entries;
    read_entries(d, display, entries);
    const std::string prefix = dir.ends_with('/') ? dir : dir + "/";
    for (const Entry& e : entries) visit(prefix + e.name, e, display, rel);
    visiting.erase(key);
  }

  void visit(std::string path, const Entry& e, const std::string& parent_display, const std::string& parent_rel) {
    const std::string& name = e.name;
    std::string display = parent_display.empty() || parent_display == "." ? name : parent_display + "/" + name;
    std::string rel = parent_rel.empty() ? name : parent_rel + "/" + name;
    if (!opt.exclude_globs.empty() && (excluded(display, name) || excluded(rel, name))) return;
    bool is_link = e.type == DT_LNK;
    bool is_dir = e.type == DT_DIR, is_file = e.type == DT_REG;
    if (is_link || e.type == DT_UNKNOWN) {
      struct stat st{};
      if (e.type == DT_UNKNOWN) {
        if (::lstat(path.c_str(), &st) != 0) return;
        is_link = S_ISLNK(st.st_mode);
      }
      if (::stat(path.c_str(), &st) != 0) {
        // A dangling symlink or a permission problem on a single entry: only a broken link to a file
        // we would have read is worth a word.
        if (is_link && kept(name)) out.problems.push_back({display, "broken symlink"});
        return;
      }
      is_dir = S_ISDIR(st.st_mode);
      is_file = S_ISREG(st.st_mode);
    }
    if (is_dir) {
      if (is_link && !opt.follow_symlinks) return;
      if (is_skipped_directory(name)) return;
      walk_dir(path, display, rel);
    } else if (is_file && kept(name)) {
      add_file(std::move(path), std::move(display));
    }
  }
};

}  // namespace

WalkResult walk_paths(const std::vector<std::string>& roots, const WalkOptions& options) {
  WalkResult result;
  Walker w{options, result, {}};
  for (const auto& r : roots) {
    struct stat st{};
    if (r.empty() || ::stat(r.c_str(), &st) != 0) {
      result.problems.push_back({r, "no such file or directory"});
      continue;
    }
    if (S_ISDIR(st.st_mode)) {
      std::string display = r;
      while (display.size() > 1 && display.back() == '/') display.pop_back();
      w.walk_dir(r, display, "");
    } else {
      // A file named explicitly is always taken, whatever `keep` says about its name.
      w.add_file(r, r);
    }
  }
  return result;
}

}  // namespace banjia
