// `banjia migrate`: rewrites a project tree to a new directory (-o OUT) or in place, atomically,
// never losing what the user had. Planning (what each file becomes) is separate from writing, so
// --dry-run, --check and --diff share all of it.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "migrate/migrate_plan.h"

namespace banjia::migrate {

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
