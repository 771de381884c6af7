// `migrate --in-place`: replacing a tree's files by their rewrites so that nothing a user had is
// lost, whatever happens during the run (docs/data-safety.md).
//
// Per file: the file must still be the version that was read (inode, size, mtime and bytes), checked
// before the backup is made and again just before the replace; the backup FILE<suffix> is created
// whole under a temporary name and renamed into place only if that name is free (or is already a
// byte-identical copy: what a killed run leaves); the rewrite is written under a temporary name,
// flushed, and swapped in (RENAME_EXCHANGE) under a write lease, after which the file swapped out
// must still be the one that was read and opened by nobody since, or the swap is undone. Any failure
// leaves the file as the user has it, and removes what this run created for it.
#pragma once
#include <filesystem>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "common/safe_paths.h"

namespace banjia::migrate {

struct InPlaceTarget {
  std::filesystem::path path;   // the file, as found in the tree (never a symbolic link)
  FileIdentity read_as;         // the version `original` was read from
  std::string_view original;    // its bytes as read
  std::string_view rewritten;   // what replaces them
};

class InPlaceWriter {
 public:
  // backup_suffix: appended to each file's name for its backup; nullopt: no backups (--no-backup).
  explicit InPlaceWriter(std::optional<std::string> backup_suffix) : backup_suffix_(std::move(backup_suffix)) {}

  // Replaces one file (safe to call from several threads for different files). Returns "" when the
  // file now holds `rewritten`, else the problem; the file is then exactly as the user left it.
  std::string replace(const InPlaceTarget& target);

  // Creates the new file `path` holding `data` (mode 0644), never over anything: its name must be free,
  // or already hold exactly `data` (what an earlier or killed run left). Returns "" when the file
  // holds `data`, else the problem; nothing of this run is left behind then.
  std::string create(const std::filesystem::path& path, std::string_view data);

  // Flushes every directory a file was replaced or created in (the renames become durable). Returns the
  // directories that could not be flushed, each with its problem.
  std::vector<std::pair<std::string, std::string>> finish();

 private:
  std::optional<std::string> backup_suffix_;
  std::mutex dirs_mutex_;
  std::set<std::string> dirs_;
};

// Removes temporary files an interrupted run left in the tree (paths whose names have the shape of
// is_banjia_temp_name). Only call this while holding the tree's TreeLock: then no other banjia run
// is writing them. Returns how many were removed.
size_t remove_stale_temps(const std::vector<std::filesystem::path>& temps);

}  // namespace banjia::migrate
