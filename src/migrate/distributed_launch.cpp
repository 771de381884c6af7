// The launch script `banjia migrate --distributed` writes beside a training script (distributed.h).
#include <algorithm>

#include <fmt/format.h>

#include "common/errors.h"
#include "common/file_io.h"
#include "env/report/env_template.h"
#include "migrate/distributed.h"

namespace banjia::migrate {

std::string launch_script_name(std::string_view script) {
  const std::string_view stem = script.ends_with(".py") ? script.substr(0, script.size() - 3) : script;
  return fmt::format("{}_distributed.sh", stem);
}

std::string launch_script(std::string_view script, std::string_view target) {
  std::string out = fmt::format(
      "#!/usr/bin/env bash\n"
      "# Runs {0} with one process per device of this machine (torchrun); written by banjia migrate --distributed.\n"
      "#   bash {1} [--nproc N] [arguments of {0}]   (default: 8 processes)\n"
      "# Several machines: torchrun's --nnodes, --node_rank and --rdzv_endpoint (pytorch docs: torchrun).\n"
      "set -euo pipefail\n"
      "cd \"$(dirname \"$0\")\"\n"
      "nproc=8\n"
      "if [ \"${{1:-}}\" = --nproc ]; then nproc=$2; shift 2; fi\n",
      script, launch_script_name(script));
  if (target == "npu") {
    out += "\n# The Ascend settings of `banjia env template --scenario distributed --cards 8`:\n";
    const std::string settings = env::render_template("distributed", 8);
    // Everything after its own header (the lines up to the first blank one).
    const size_t body = settings.find("\n\n");
    out += body == std::string::npos ? settings : settings.substr(body + 2);
    if (!out.ends_with("\n")) out += "\n";
  }
  out += fmt::format("\nexec torchrun --nproc_per_node \"$nproc\" {} \"$@\"\n", script);
  return out;
}

void plan_distributed(MigratePlan& plan, std::string_view target,
                      const std::function<std::filesystem::path(const std::string& relative_dir)>& on_disk) {
  namespace fs = std::filesystem;
  std::vector<PlannedFile> scripts;
  for (PlannedFile& pf : plan.files) {
    if (pf.kind != PlannedFile::Kind::rewrite || !distribute_script(pf.rewrite, target)) continue;
    const fs::path relative(pf.relative);
    const std::string name = launch_script_name(relative.filename().string());
    const std::string bytes = launch_script(relative.filename().string(), target);
    const std::string dir = relative.parent_path().generic_string();
    const fs::path there = on_disk(dir) / name;
    std::error_code ec;
    if (fs::exists(fs::symlink_status(there, ec))) {
      std::string present;
      try {
        present = read_file(there, bytes.size() + 1);
      } catch (const InputError&) {
      }
      if (present == bytes) continue;  // written by an earlier run: kept as it is
      const DistributedItem& item = distributed_item("ddp-launch-script");
      Finding f;
      f.file = pf.relative;
      f.rule = item.id;
      f.category = "distributed";
      f.fix = FixKind::manual;
      f.message = fmt::format("{} exists and is not this launch script: not written (torchrun --nproc_per_node N {})",
                              (relative.parent_path() / name).generic_string(), relative.filename().string());
      f.source = item.source;
      pf.rewrite.leftovers.push_back(std::move(f));
      continue;
    }
    PlannedFile s;
    s.kind = PlannedFile::Kind::shim;
    s.relative = (relative.parent_path() / name).generic_string();
    s.rewrite.display = s.relative;
    s.rewrite.rewritten = bytes;
    s.shim_rule = "ddp-launch-script";
    s.shim_library = "torchrun launch script for " + relative.filename().string();
    scripts.push_back(std::move(s));
  }
  if (scripts.empty()) return;
  for (auto& s : scripts) plan.files.push_back(std::move(s));
  std::stable_sort(plan.files.begin(), plan.files.end(), [](const auto& a, const auto& b) { return a.relative < b.relative; });
}

}  // namespace banjia::migrate
