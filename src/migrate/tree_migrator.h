// `banjia migrate`: rewrites a project tree to a new directory (-o OUT) or in place, atomically,
// never losing what the user had. Planning (what each file becomes) is separate from writing, so
// --dry-run, --check and --diff share all of it.
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

// Validates the options (throws InputError with one clear line) and computes every file's result.
// For an in-place run that writes, first takes the tree's lock and removes what an interrupted run
// left (docs/data-safety.md).
MigratePlan plan_migration(const MigrateOptions& options);

struct WriteError {
  std::string file;
  std::string problem;
  std::optional<size_t> planned;  // the index in MigratePlan::files of the file not written, if one
};

// Writes the plan (to OUT, or in place with backups). Each file is written atomically; errors are
// collected per file and never leave a partial file in place of an original.
std::vector<WriteError> write_migration(const MigratePlan& plan, const MigrateOptions& options);

}  // namespace banjia::migrate
