// What `banjia migrate` is asked to do and what it plans to write: the options, and one planned file
// per file of the tree. tree_migrator.h makes the plan and writes it; the shims (shim_files.h) and the
// distributed launch scripts (distributed.h) add their files to it.
#pragma once
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/safe_paths.h"
#include "migrate/change.h"
#include "migrate/python_rewriter.h"

namespace banjia::migrate {

struct MigrateOptions {
  std::string source;
  std::optional<std::string> output;   // -o OUT
  bool in_place = false;
  std::string backup_suffix = ".orig";
  bool backup = true;
  bool force = false;                  // allow a non-empty OUT
  bool write = true;                   // false for --dry-run and --check
  RewriteOptions rewrite;
  std::string target_torch_npu;        // TorchNPU release to target ("" = newest known)
  std::vector<std::string> exclude_globs;
  unsigned threads = 0;
  bool distributed = false;            // --distributed: training scripts become DDP ones (distributed.h)
};

struct PlannedFile {
  std::filesystem::path source_path;   // file in SRC (empty for a shim)
  std::string relative;                // path relative to SRC (shown in reports)
  // skipped: nothing is written for it; its input-error leftover says why. shim: a new file migrate
  // writes, rewrite.rewritten its bytes: the shim module the redirected imports beside it use
  // (shim_files.h), or the launch script of a script made distributed (distributed.h).
  enum class Kind { rewrite, copy, symlink, skipped, shim } kind = Kind::copy;
  FileRewrite rewrite;                 // for Kind::rewrite (and Kind::shim)
  FileIdentity read_as;                // for Kind::rewrite: the version rewrite.original was read from
  // For a Python file: its directory, as the imports redirected to a shim see it.
  rules::FileDirectory directory;
  std::optional<rules::FlowSeeds> seeds;  // what the rest of the tree told it (rewritten with them)
  std::string shim_rule;               // for Kind::shim: the rule whose redirects use it
  std::string shim_library;            // for Kind::shim: the library it stands in for (flash_attn)
};

struct MigratePlan {
  std::vector<PlannedFile> files;
  size_t rewritable = 0;               // Python and shell files examined
  std::shared_ptr<const TreeLock> lock;  // held from planning to the end of an in-place run
  size_t stale_temps_removed = 0;      // temporary files of an interrupted run, removed under the lock
};

}  // namespace banjia::migrate
