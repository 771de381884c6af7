// `banjia migrate SRC (-o OUT | --in-place)`: format-preserving CUDA -> Ascend rewrite.
#include "migrate/command.h"

#include <cstdio>
#include <sys/stat.h>

#include <fmt/format.h>

#include "common/errors.h"
#include "common/file_io.h"
#include "common/safe_paths.h"
#include "common/unified_diff.h"
#include "migrate/migrate_report.h"
#include "rules/core/source_files.h"

namespace banjia::migrate {
namespace fs = std::filesystem;

namespace {

// Problems printed one line each before the rest are only counted (the report lists them all).
constexpr size_t kMaxProblemLines = 20;

bool same_file(const struct stat& a, const struct stat& b) { return a.st_dev == b.st_dev && a.st_ino == b.st_ino; }

// --report must not replace a file the run reads or writes: a source file (in place, or the tree
// copied to OUT), or a file of OUT.
void check_report_path(const std::string& report, const MigratePlan& plan, const MigrateOptions& o) {
  struct stat rs{};
  if (::stat(report.c_str(), &rs) == 0) {
    for (const auto& pf : plan.files) {
      struct stat st{};
      if (pf.kind == PlannedFile::Kind::skipped || ::stat(pf.source_path.c_str(), &st) != 0 || !same_file(rs, st)) continue;
      throw InputError(report, "is an input of this migration (" + pf.relative + "); choose another --report");
    }
  }
  std::error_code ec;
  if (!o.output) {
    // In place, the shims are the files the run creates.
    const fs::path at = fs::weakly_canonical(report, ec);
    const fs::path src(o.source);
    const fs::path beside = fs::is_directory(src, ec) ? src : src.parent_path();
    for (const auto& pf : plan.files)
      if (pf.kind == PlannedFile::Kind::shim && fs::weakly_canonical(beside / pf.relative, ec) == at)
        throw InputError(report, "is a file the migration writes; choose another --report");
    return;
  }
  fs::path out = fs::weakly_canonical(*o.output, ec), at = fs::weakly_canonical(report, ec);
  std::string below = at.lexically_relative(out).generic_string();
  for (const auto& pf : plan.files)
    if (below == pf.relative || (plan.files.size() == 1 && at == out))
      throw InputError(report, "is a file the migration writes; choose another --report");
}

// A file that was not written has no edits: the report and the summary count only what happened,
// and name the file with the problem.
void record_write_errors(MigratePlan& plan, const std::vector<WriteError>& errors) {
  for (const auto& e : errors) {
    if (!e.planned) continue;
    PlannedFile& pf = plan.files[*e.planned];
    if (pf.kind == PlannedFile::Kind::shim) pf.kind = PlannedFile::Kind::skipped;  // listed as not written only
    FileRewrite& fr = pf.rewrite;
    fr.rewritten = fr.original;
    fr.changes.clear();
    fr.leftovers.push_back(rules::input_error_finding(plan.files[*e.planned].relative, "not written: " + e.problem));
  }
}

// One stderr line per problem (a file not examined, not readable or not written), up to a cap.
size_t print_problems(const MigratePlan& plan, const std::vector<WriteError>& errors) {
  size_t n = 0;
  auto line = [&](const std::string& file, const std::string& problem) {
    if (++n <= kMaxProblemLines) std::fprintf(stderr, "banjia: %s: %s\n", printable(file).c_str(), printable(problem).c_str());
  };
  for (const auto& pf : plan.files)
    for (const auto& f : pf.rewrite.leftovers)
      if (f.rule == "input-error") line(f.file, f.message);
  for (const auto& e : errors)
    if (!e.planned) line(e.file, e.problem);
  if (n > kMaxProblemLines)
    std::fprintf(stderr, "banjia: and %zu more files not migrated (every one is in --report)\n", n - kMaxProblemLines);
  return n;
}

}  // namespace

int run_migrate(const MigrateVerbOptions& args) {
  MigrateOptions o = args.tree;
  if (!args.output.empty()) o.output = args.output;
  o.backup = !args.no_backup;
  o.write = !(args.dry_run || args.check);
  MigratePlan plan = plan_migration(o);
  if (!args.report.empty()) check_report_path(args.report, plan, o);
  if (plan.stale_temps_removed > 0)
    std::fprintf(stderr, "banjia: removed %zu temporary files an interrupted run left in %s\n", plan.stale_temps_removed,
                 printable(o.source).c_str());

  auto errors = write_migration(plan, o);
  record_write_errors(plan, errors);
  MigrateTotals t = totals(plan);
  std::string diff;
  if (args.diff)
    for (const auto& pf : plan.files) {
      if (pf.kind == PlannedFile::Kind::rewrite && pf.rewrite.changed())
        diff += unified_diff(pf.rewrite.original, pf.rewrite.rewritten, "a/" + pf.relative, "b/" + pf.relative);
      else if (pf.kind == PlannedFile::Kind::shim)  // a new file, as git shows one
        diff += unified_diff("", pf.rewrite.rewritten, "/dev/null", "b/" + pf.relative);
    }
  // Stdout may fail (a full disk): the tree and its report still count, so the failure is raised last.
  std::string stdout_problem;
  auto to_stdout = [&](const std::string& text) {
    try {
      write_output("-", text);
    } catch (const InputError& e) {
      if (stdout_problem.empty()) stdout_problem = e.problem();
    }
  };
  to_stdout(diff);  // the diff comes before the summary when both go to one terminal or pipe
  std::string summary = summary_text(plan, t, o);
  if (args.diff) std::fputs(summary.c_str(), stderr);
  else to_stdout(summary);
  // Problems are printed before the report is written: a full disk that fails the report must not
  // hide which files were not written.
  const size_t problems = print_problems(plan, errors);
  if (!args.report.empty()) {
    bool csv = args.report.size() >= 4 && args.report.ends_with(".csv");
    write_file_atomic(args.report, csv ? report_csv(plan) : report_json(plan, t, o));
  }
  if (!stdout_problem.empty()) throw InputError("stdout", stdout_problem);
  if (problems > 0) return kExitInputError;
  if (args.check && (t.files_changed > 0 || t.shim_files > 0)) return kExitFindings;
  return kExitOk;
}

}  // namespace banjia::migrate
