// Walking the paths given on a command line: directories recursively (skipping VCS, virtualenv and
// build directories), symlink loops detected, results in a stable (sorted) order.
#pragma once
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace banjia {

struct WalkedFile {
  std::filesystem::path path;     // filesystem path to open
  std::string display;            // path as shown in reports (as given / relative to the root given)
};

struct WalkOptions {
  std::vector<std::string> exclude_globs;  // matched against the path relative to each root and its basename
  bool follow_symlinks = true;             // directory symlinks are followed once (loops detected)
  // Decides which regular files found in directories are kept, by file name; default keeps all.
  std::function<bool(std::string_view name)> keep;
  // When set, each kept file is handed here as soon as it is found (in walk order, on the walking
  // thread) instead of being collected in WalkResult::files: a scan can start on the first files
  // while the walk goes on.
  std::function<void(WalkedFile&&)> on_file;
};

struct WalkProblem {
  std::string path;
  std::string problem;
};

struct WalkResult {
  std::vector<WalkedFile> files;      // empty when WalkOptions::on_file is set
  std::vector<WalkProblem> problems;  // unreadable dirs, symlink loops, missing paths
};

// Directory names never descended into.
bool is_skipped_directory(std::string_view name);
// An editor's settings directory (.vscode, .idea, .devcontainer): its JSON-with-comments files are the editor's, not
// the program's configuration.
bool is_editor_settings_directory(std::string_view name);

// fnmatch-style glob (with ** matching across '/').
bool glob_match(std::string_view pattern, std::string_view path);

WalkResult walk_paths(const std::vector<std::string>& roots, const WalkOptions& options);

}  // namespace banjia
