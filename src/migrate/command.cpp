// `banjia migrate SRC (-o OUT | --in-place)`: format-preserving CUDA -> Ascend rewrite.
#include <cstdio>

#include <fmt/format.h>

#include "cli/verbs.h"
#include "common/errors.h"
#include "common/file_io.h"
#include "common/unified_diff.h"
#include "migrate/migrate_report.h"
#include "migrate/tree_migrator.h"

namespace banjia {

namespace {

struct MigrateArgs {
  migrate::MigrateOptions opt;
  std::string output;
  bool no_backup = false, dry_run = false, check = false, diff = false;
  std::string report;
};

int run_migrate(MigrateArgs& args) {
  auto& o = args.opt;
  if (!args.output.empty()) o.output = args.output;
  o.backup = !args.no_backup;
  o.write = !(args.dry_run || args.check);
  migrate::MigratePlan plan = migrate::plan_migration(o);
  migrate::MigrateTotals t = migrate::totals(plan);

  std::string diff;
  if (args.diff)
    for (const auto& pf : plan.files)
      if (pf.kind == migrate::PlannedFile::Kind::rewrite && pf.rewrite.changed())
        diff += unified_diff(pf.rewrite.original, pf.rewrite.rewritten, "a/" + pf.relative, "b/" + pf.relative);
  auto errors = migrate::write_migration(plan, o);
  if (!args.report.empty()) {
    bool csv = args.report.size() >= 4 && args.report.ends_with(".csv");
    write_file_atomic(args.report, csv ? migrate::report_csv(plan) : migrate::report_json(plan, t, o));
  }
  std::fputs(diff.c_str(), stdout);
  std::fflush(stdout);  // the diff comes before the summary when both go to one terminal or pipe
  std::string summary = migrate::summary_text(plan, t, o);
  std::fputs(summary.c_str(), args.diff ? stderr : stdout);
  for (const auto& e : errors) std::fprintf(stderr, "banjia: %s: %s\n", e.file.c_str(), e.problem.c_str());
  if (!errors.empty()) return kExitInputError;
  if (args.check && t.files_changed > 0) return kExitFindings;
  return kExitOk;
}

}  // namespace

void register_migrate(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<MigrateArgs>();
  CLI::App* cmd = app.add_subcommand("migrate", "Rewrite CUDA code for Ascend NPUs (torch_npu): minimal, format-preserving edits");
  cmd->add_option("source", args->opt.source, "Project directory (or one file) to migrate")->required();
  cmd->add_option("-o,--output", args->output, "Write the migrated tree to OUT (must be empty, outside SOURCE)")
      ->option_text("OUT");
  cmd->add_flag("--in-place", args->opt.in_place, "Rewrite files in place (atomically), keeping a backup of each");
  cmd->add_option("--backup-suffix", args->opt.backup_suffix, "Suffix of backups made by --in-place")->capture_default_str();
  cmd->add_flag("--no-backup", args->no_backup, "With --in-place: do not keep backups");
  cmd->add_flag("--force", args->opt.force, "Write into a non-empty OUT");
  cmd->add_flag("--diff", args->diff, "Print a unified diff of every change (summary goes to stderr)");
  cmd->add_flag("--dry-run", args->dry_run, "Write nothing; report what would change");
  cmd->add_flag("--check", args->check, "Write nothing; exit 1 if any file would change (CI gate)");
  cmd->add_option("--report", args->report, "Write the change log and the manual-work list (.json or .csv)")
      ->option_text("FILE");
  cmd->add_flag("--annotate", args->opt.rewrite.annotate, "Add a `# banjia: ...` comment above code left for manual work");
  cmd->add_option("--exclude", args->opt.exclude_globs, "Copy but do not rewrite paths matching GLOB (repeatable)")
      ->option_text("GLOB");
  cmd->add_option("--target-torch-npu", args->opt.target_torch_npu,
                  "TorchNPU release to target (e.g. 7.3.0): allocator options it lacks are dropped (default: newest)")
      ->option_text("VERSION");
  cmd->add_option("--target", args->opt.rewrite.target,
                  "npu: torch_npu code (torch.npu, \"npu\", hccl, import torch_npu); accelerator: device-agnostic code for "
                  "GPU and NPU alike (torch.accelerator, torch.amp, the device from "
                  "torch.accelerator.current_accelerator(), the backend torch picks for it); what has no "
                  "device-agnostic form stays and is reported")
      ->check(CLI::IsMember({std::string(scan::kTargetNpu), std::string(scan::kTargetAccelerator)}))
      ->capture_default_str();
  cmd->add_option("-j,--threads", args->opt.threads, "Worker threads (default: all cores)");
  cmd->footer(R"(Examples:
  banjia migrate examples/cifar_ddp -o build/cifar_ddp-npu --diff --report build/changes.json
  banjia migrate src/ --in-place --backup-suffix .cuda
  banjia migrate . --check            # in CI: fail when CUDA-only code creeps back in
  banjia migrate train/ -o train-any --target accelerator   # one codebase for GPU and NPU)");
  cmd->callback([args, &exit_code] { exit_code = run_migrate(*args); });
}

}  // namespace banjia
