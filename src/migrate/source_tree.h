// What `migrate` finds under SRC: every entry, never following a symbolic link, with everything it
// could not read named (an unreadable directory is a problem, never a silently empty one).
#pragma once
#include <filesystem>
#include <string>
#include <vector>

namespace banjia::migrate {

struct SourceEntry {
  enum class Type { regular, symlink, other } type = Type::regular;
  std::filesystem::path path;   // to open
  std::string relative;         // below SRC, '/'-separated
  std::string other_kind;       // for Type::other: "FIFO", "socket", "character device", ...
  bool excluded = false;        // matches an --exclude glob (copied, not rewritten)
};

struct SourceProblem {
  std::string relative;
  std::string problem;
};

struct SourceTree {
  std::vector<SourceEntry> entries;              // sorted by relative path
  std::vector<SourceProblem> problems;           // directories that could not be read
  std::vector<std::filesystem::path> stale_temps;  // temporary files of an interrupted banjia run
};

// Walks the directory `root`. VCS metadata and __pycache__ are skipped, and so are directories an
// --exclude glob matches; temporary files a killed banjia run left (safe_paths.h) are listed apart,
// never as entries.
SourceTree walk_source_tree(const std::filesystem::path& root, const std::vector<std::string>& exclude_globs);

}  // namespace banjia::migrate
