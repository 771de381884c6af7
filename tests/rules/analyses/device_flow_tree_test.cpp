// Device values across the modules of one tree (rules/analyses/tree_flow.h): a constant that becomes a device
// only where another module imports it, and a value passed to a function another module defines.
// Expected outputs are the programs that select the NPU, written out by hand.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "migrate/tree_migrator.h"
#include "scan/scanner.h"

namespace fs = std::filesystem;

namespace {

struct Tree {
  fs::path root = fs::temp_directory_path() / ("banjia-tree-flow-" + std::to_string(::getpid()));
  Tree() {
    fs::remove_all(root);
    fs::create_directories(root / "pkg");
    write("pkg/__init__.py", "");
    write("pkg/consts.py", "GPU = 'cuda'\nMODE = 'cuda'\n");
    write("pkg/util.py", "def setup(where, n=1):\n    import torch\n    return torch.zeros(n, device=where)\n");
    write("pkg/train.py",
          "from .consts import GPU\nfrom pkg.util import setup\nimport torch\nx = torch.ones(2).to(GPU)\nsetup('cuda')\n");
  }
  ~Tree() { fs::remove_all(root); }
  void write(const std::string& rel, const std::string& text) const { std::ofstream(root / rel) << text; }
};

const banjia::migrate::FileRewrite& file(const banjia::migrate::MigratePlan& plan, const std::string& rel) {
  for (const auto& f : plan.files)
    if (f.relative == rel) return f.rewrite;
  throw std::runtime_error("no " + rel);
}

}  // namespace

TEST(DeviceFlowTree, ImportedConstantsAndFunctionParametersAreFollowed) {
  Tree t;
  banjia::migrate::MigrateOptions o;
  o.source = t.root.string();
  o.write = false;
  o.rewrite.insert_import = false;
  auto plan = banjia::migrate::plan_migration(o);
  // GPU reaches .to() in train.py; MODE is imported nowhere: it stays, reported.
  EXPECT_EQ(file(plan, "pkg/consts.py").rewritten, "GPU = 'npu'\nMODE = 'cuda'\n");
  EXPECT_EQ(file(plan, "pkg/train.py").rewritten,
            "from .consts import GPU\nfrom pkg.util import setup\nimport torch\nx = torch.ones(2).to(GPU)\nsetup('npu')\n");
  // scan reports what migrate does.
  banjia::scan::ScanOptions so;
  auto result = banjia::scan::scan_paths({t.root.string()}, so);
  int automatic = 0, unresolved = 0;
  for (const auto& f : result.findings) {
    if (f.rule == "device-string") ++automatic;
    if (f.rule == "device-string-unresolved") ++unresolved;
  }
  EXPECT_EQ(automatic, 2);
  EXPECT_EQ(unresolved, 1);
}
