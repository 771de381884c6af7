// `banjia migrate`'s entry point: the verb's options as the CLI layer (cli/verbs_migrate.cpp) parses them.
#pragma once
#include <string>

#include "migrate/tree_migrator.h"

namespace banjia::migrate {

struct MigrateVerbOptions {
  MigrateOptions tree;
  std::string output;  // the migrated tree; empty: see MigrateOptions
  bool no_backup = false, dry_run = false, check = false, diff = false;
  std::string report;  // change log and manual-work list (.json or .csv)
};

// Plans and writes the migration, prints the diff and summary; returns the process exit code.
int run_migrate(const MigrateVerbOptions& options);

}  // namespace banjia::migrate
