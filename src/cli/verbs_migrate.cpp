// `banjia migrate`'s command line.
#include <memory>

#include <CLI/CLI.hpp>

#include "cli/verbs.h"
#include "migrate/command.h"

namespace banjia {

void register_migrate(CLI::App& verb, int& exit_code) {
  auto args = std::make_shared<migrate::MigrateVerbOptions>();
  CLI::App* cmd = &verb;
  cmd->add_option("source", args->tree.source, "Project directory (or one file) to migrate")->required();
  cmd->add_option("-o,--output", args->output, "Write the migrated tree to OUT (must be empty, outside SOURCE)")
      ->option_text("OUT");
  cmd->add_flag("--in-place", args->tree.in_place, "Rewrite files in place (atomically), keeping a backup of each");
  cmd->add_option("--backup-suffix", args->tree.backup_suffix, "Suffix of backups made by --in-place")->capture_default_str();
  cmd->add_flag("--no-backup", args->no_backup, "With --in-place: do not keep backups");
  cmd->add_flag("--force", args->tree.force, "Write into a non-empty OUT");
  cmd->add_flag("--diff", args->diff, "Print a unified diff of every change (summary goes to stderr)");
  cmd->add_flag("--dry-run", args->dry_run, "Write nothing; report what would change");
  cmd->add_flag("--check", args->check, "Write nothing; exit 1 if any file would change (CI gate)");
  cmd->add_option("--report", args->report, "Write the change log and the manual-work list (.json or .csv)")
      ->option_text("FILE");
  cmd->add_flag("--annotate", args->tree.rewrite.annotate, "Add a `# banjia: ...` comment above code left for manual work");
  cmd->add_option("--exclude", args->tree.exclude_globs, "Copy but do not rewrite paths matching GLOB (repeatable)")
      ->option_text("GLOB");
  cmd->add_option("--target-torch-npu", args->tree.target_torch_npu,
                  "TorchNPU release to target (e.g. 7.3.0): allocator options it lacks are dropped (default: newest)")
      ->option_text("VERSION");
  cmd->add_option("--target", args->tree.rewrite.target,
                  "npu: torch_npu code (torch.npu, \"npu\", hccl, import torch_npu); accelerator: device-agnostic code for "
                  "GPU and NPU alike (torch.accelerator, torch.amp, the device from "
                  "torch.accelerator.current_accelerator(), the backend torch picks for it); what has no "
                  "device-agnostic form stays and is reported")
      ->check(CLI::IsMember({std::string(rules::kTargetNpu), std::string(rules::kTargetAccelerator)}))
      ->capture_default_str();
  cmd->add_flag("--distributed", args->tree.distributed,
                "Also turn single-device training scripts into DistributedDataParallel ones (process group from "
                "torchrun's LOCAL_RANK, DistributedSampler, the model wrapped, output on rank 0) and write a torchrun "
                "launch script beside each; what cannot be decided is reported");
  cmd->add_option("-j,--threads", args->tree.threads, "Worker threads (default: all cores)");
  cmd->footer(R"(Examples:
  banjia migrate examples/cifar_ddp -o build/cifar_ddp-npu --diff --report build/changes.json
  banjia migrate src/ --in-place --backup-suffix .cuda
  banjia migrate . --check            # in CI: fail when CUDA-only code creeps back in
  banjia migrate train/ -o train-any --target accelerator   # one codebase for GPU and NPU
  banjia migrate train.py -o npu/ --distributed   # one process per NPU: npu/train_distributed.sh)");
  cmd->callback([args, &exit_code] { exit_code = migrate::run_migrate(*args); });
}

}  // namespace banjia
