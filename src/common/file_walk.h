// Walking the paths given on a command line: directories recursively (skipping VCS, virtualenv and
// build directories), symlink loops detected, results in a stable (sorted) order.
#pragma once
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace banjia {

struct WalkOptions {
  std::vector<std::string> exclude_globs;  // matched against the path relative to each root and its basename
  bool follow_symlinks = true;             // directory symlinks are followed once (loops detected)
  // Decides which regular files are kept (by path); default keeps all.
  std::function<bool(const std::filesystem::path&)> keep;
};

struct WalkedFile {
  std::filesystem::path path;     // filesystem path to open
  std::string display;            // path as shown in reports (as given / relative to the root given)
  std::filesystem::path root;     // the command-line root it came from
};

struct WalkProblem {
  std::string path;
  std::string problem;
};

struct WalkResult {
  std::vector<WalkedFile> files;
  std::vector<WalkProblem> problems;  // unreadable dirs, symlink loops, missing paths
};

// Directory names never descended into.
bool is_skipped_directory(const std::string& name);

// fnmatch-style glob (with ** matching across '/').
bool glob_match(std::string_view pattern, std::string_view path);

WalkResult walk_paths(const std::vector<std::string>& roots, const WalkOptions& options);

}  // namespace banjia
