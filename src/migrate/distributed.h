// `banjia migrate --distributed`: a single-device training script becomes a DistributedDataParallel one,
// started by torchrun with one process per device (docs/distributed-migrate.md).
//
// It runs after the ordinary migration of the file, on its output, and changes only a script that
// trains: a DataLoader, and an optimizer built over `model.parameters()`. What it writes, each a
// change of the report with its data/distributed.toml id:
//   - the process group, right before the training loader or the model is built (whichever comes
//     first), with the device taken from LOCAL_RANK;
//   - a DistributedSampler for the training loader (it takes over the loader's shuffle), and
//     sampler.set_epoch(epoch) at the start of the epoch loop around the loader's use;
//   - the model wrapped in DistributedDataParallel right before its optimizer is built, and
//     model.module for what the wrapper does not forward (state_dict, the model's own attributes);
//   - print, logging.* and torch.save under a rank-0 guard; an evaluation call given the other loader
//     on rank 0, on model.module;
//   - the imports those need;
// and a launch script beside the script (launch_script()). What it cannot decide (its own sampler,
// several models, gradient accumulation, no epoch loop...) is a finding for a person, not a guess.
#pragma once
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>

#include "migrate/change.h"
#include "migrate/migrate_plan.h"

namespace banjia::migrate {

// Makes fr.rewritten (the file as the migration for `target` wrote it) distributed, adding changes and
// leftovers to fr. Returns whether the file is a training script (and so needs a launch script).
bool distribute_script(FileRewrite& fr, std::string_view target);

// The launch script of the training script `script` (a file name): torchrun with `--nproc N`
// processes (default 8), after `banjia env template --scenario distributed` for the npu target.
std::string launch_script(std::string_view script, std::string_view target);
// Its file name beside the script: train.py -> train_distributed.sh.
std::string launch_script_name(std::string_view script);

// Makes every Python file of the plan that trains distributed (distribute_script) and plans its launch
// script beside it: a new file, never written over another. Where the directory (`on_disk`, relative
// to SRC, as shim_files.h's) has a file of that name with other bytes, the script says so instead.
void plan_distributed(MigratePlan& plan, std::string_view target,
                      const std::function<std::filesystem::path(const std::string& relative_dir)>& on_disk);

// The message and source of an item of data/distributed.toml (throws InputError for an unknown id,
// and at the first call when the data and the ids the code uses differ).
struct DistributedItem {
  std::string id, message, source;
  FixKind fix = FixKind::manual;
};
const DistributedItem& distributed_item(std::string_view id);

}  // namespace banjia::migrate
