#include "common/file_walk.h"

#include <algorithm>
#include <fnmatch.h>
#include <set>
#include <sys/stat.h>
#include <system_error>

namespace banjia {
namespace fs = std::filesystem;

bool is_skipped_directory(const std::string& name) {
  static const std::set<std::string> kSkip = {
      ".git", ".hg", ".svn", "__pycache__", "build", "dist", ".venv", "venv", "env", ".env",
      ".tox", ".nox", ".mypy_cache", ".pytest_cache", ".ruff_cache", "node_modules", "site-packages",
      ".eggs", ".ipynb_checkpoints"};
  return kSkip.count(name) > 0 || name.ends_with(".egg-info");
}

bool glob_match(std::string_view pattern, std::string_view path) {
  std::string p(pattern), s(path);
  // "**/" and "/**" are handled by fnmatch without FNM_PATHNAME ('*' then crosses '/').
  return ::fnmatch(p.c_str(), s.c_str(), 0) == 0;
}

namespace {

struct Walker {
  const WalkOptions& opt;
  WalkResult& out;
  std::set<std::pair<dev_t, ino_t>> visiting;  // directories on the current stack (loop detection)

  bool excluded(const std::string& rel, const std::string& name) const {
    for (const auto& g : opt.exclude_globs)
      if (glob_match(g, rel) || glob_match(g, name)) return true;
    return false;
  }

  void add_file(const fs::path& p, const std::string& display, const fs::path& root) {
    if (opt.keep && !opt.keep(p)) return;
    out.files.push_back({p, display, root});
  }

  void walk_dir(const fs::path& dir, const std::string& display, const fs::path& root) {
    struct stat st{};
    if (::stat(dir.c_str(), &st) != 0) {
      out.problems.push_back({display, "cannot stat directory"});
      return;
    }
    auto key = std::make_pair(st.st_dev, st.st_ino);
    if (visiting.count(key)) {
      out.problems.push_back({display, "symlink loop: directory already being visited"});
      return;
    }
    visiting.insert(key);
    std::error_code ec;
    struct Entry { std::string name; fs::directory_entry entry; };
    std::vector<Entry> entries;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
      entries.push_back({it->path().filename().string(), *it});
    if (ec) out.problems.push_back({display, "cannot read directory: " + ec.message()});
    std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) { return a.name < b.name; });
    for (const auto& [name, e] : entries) {
      std::string child_display = display.empty() || display == "." ? name : display + "/" + name;
      if (!opt.exclude_globs.empty()) {
        std::string rel = fs::path(child_display).lexically_relative(root.empty() ? "." : root).string();
        if (excluded(child_display, name) || excluded(rel, name)) continue;
      }
      // The entry's type comes from readdir (d_type) where the file system provides it: no stat per
      // file unless it is a symlink.
      std::error_code sec;
      bool is_link = e.is_symlink(sec);
      bool is_dir = !sec && e.is_directory(sec);
      bool is_file = !sec && !is_dir && e.is_regular_file(sec);
      if (sec) {
        // A dangling symlink or permission problem on a single entry.
        // Only a broken link to a file we would have read is worth a word.
        if (is_link && (!opt.keep || opt.keep(e.path()))) out.problems.push_back({child_display, "broken symlink"});
        continue;
      }
      if (is_dir) {
        if (is_link && !opt.follow_symlinks) continue;
        if (is_skipped_directory(name)) continue;
        walk_dir(e.path(), child_display, root);
      } else if (is_file) {
        add_file(e.path(), child_display, root);
      }
    }
    visiting.erase(key);
  }
};

}  // namespace

WalkResult walk_paths(const std::vector<std::string>& roots, const WalkOptions& options) {
  WalkResult result;
  Walker w{options, result, {}};
  for (const auto& r : roots) {
    fs::path p(r);
    std::error_code ec;
    auto status = fs::status(p, ec);
    if (ec || !fs::exists(status)) {
      result.problems.push_back({r, "no such file or directory"});
      continue;
    }
    if (fs::is_directory(status)) {
      std::string display = r;
      while (display.size() > 1 && display.back() == '/') display.pop_back();
      w.walk_dir(p, display, p);
    } else {
      // A file named explicitly is always taken, whatever `keep` says about its name.
      result.files.push_back({p, r, p.parent_path()});
    }
  }
  return result;
}

}  // namespace banjia
