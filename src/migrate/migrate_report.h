// The migrate change log (--report FILE, JSON or CSV by extension) and the summary printed at the end:
// files changed, edits per rule, items left for manual work.
#pragma once
#include <map>
#include <string>

#include "migrate/tree_migrator.h"

namespace banjia::migrate {

struct MigrateTotals {
  size_t files_examined = 0, files_changed = 0, edits = 0, leftovers = 0, errors = 0;
  size_t npu_aware_files = 0;  // files that already branch on the NPU (their GPU branches stay)
  size_t shim_files = 0;       // shim modules written beside the files whose imports use them
  std::map<std::string, size_t> edits_by_rule, leftovers_by_rule;
};

MigrateTotals totals(const MigratePlan& plan);
std::string summary_text(const MigratePlan& plan, const MigrateTotals& t, const MigrateOptions& o);
std::string report_json(const MigratePlan& plan, const MigrateTotals& t, const MigrateOptions& o);
std::string report_csv(const MigratePlan& plan);

}  // namespace banjia::migrate
