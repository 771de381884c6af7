// `banjia migrate SRC (-o OUT | --in-place)`: format-preserving CUDA -> Ascend rewrite.
#include "migrate/command.h"

#include <cstdio>

#include "common/errors.h"
#include "common/file_io.h"
#include "common/unified_diff.h"
#include "migrate/migrate_report.h"

namespace banjia::migrate {

int run_migrate(const MigrateVerbOptions& args) {
  MigrateOptions o = args.tree;
  if (!args.output.empty()) o.output = args.output;
  o.backup = !args.no_backup;
  o.write = !(args.dry_run || args.check);
  MigratePlan plan = plan_migration(o);
  MigrateTotals t = totals(plan);

  std::string diff;
  if (args.diff)
    for (const auto& pf : plan.files)
      if (pf.kind == PlannedFile::Kind::rewrite && pf.rewrite.changed())
        diff += unified_diff(pf.rewrite.original, pf.rewrite.rewritten, "a/" + pf.relative, "b/" + pf.relative);
  auto errors = write_migration(plan, o);
  if (!args.report.empty()) {
    bool csv = args.report.size() >= 4 && args.report.ends_with(".csv");
    write_file_atomic(args.report, csv ? report_csv(plan) : report_json(plan, t, o));
  }
  std::fputs(diff.c_str(), stdout);
  std::fflush(stdout);  // the diff comes before the summary when both go to one terminal or pipe
  std::string summary = summary_text(plan, t, o);
  std::fputs(summary.c_str(), args.diff ? stderr : stdout);
  for (const auto& e : errors) std::fprintf(stderr, "banjia: %s: %s\n", e.file.c_str(), e.problem.c_str());
  if (!errors.empty()) return kExitInputError;
  if (args.check && t.files_changed > 0) return kExitFindings;
  return kExitOk;
}

}  // namespace banjia::migrate
