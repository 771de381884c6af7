// Writing a migration never loses what the user had: a failed write (simulated full disk) leaves
// the original in place, names the file, and leaves no temporary file behind.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "common/file_io.h"
#include "migrate/tree_migrator.h"

namespace fs = std::filesystem;

namespace {

fs::path fresh_dir(const std::string& name) {
  auto d = fs::temp_directory_path() / ("banjia-migrate-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

std::string slurp(const fs::path& p) { return banjia::read_file(p); }

}  // namespace

TEST(TreeMigrator, DiskFullDuringInPlaceWriteKeepsTheOriginal) {
  auto d = fresh_dir("full");
  const std::string original = "import torch\nx = y.cuda()\n";
  { std::ofstream(d / "a.py") << original; }
  banjia::migrate::MigrateOptions o;
  o.source = d.string();
  o.in_place = true;
  o.backup = false;
  auto plan = banjia::migrate::plan_migration(o);
  banjia::set_write_failure_after_bytes_for_testing(5);
  auto errors = banjia::migrate::write_migration(plan, o);
  banjia::set_write_failure_after_bytes_for_testing(std::nullopt);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].file.find("a.py"), std::string::npos);
  EXPECT_EQ(slurp(d / "a.py"), original);
  size_t entries = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(d)) ++entries;
  EXPECT_EQ(entries, 1u) << "a temporary file was left behind";
  fs::remove_all(d);
}

TEST(TreeMigrator, BackupFailureLeavesTheSourceUntouched) {
  auto d = fresh_dir("backup");
  const std::string original = "x = y.cuda()\n";
  { std::ofstream(d / "a.py") << original; }
  banjia::migrate::MigrateOptions o;
  o.source = d.string();
  o.in_place = true;
  auto plan = banjia::migrate::plan_migration(o);
  banjia::set_write_failure_after_bytes_for_testing(3);  // the backup is written first and fails
  auto errors = banjia::migrate::write_migration(plan, o);
  banjia::set_write_failure_after_bytes_for_testing(std::nullopt);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(slurp(d / "a.py"), original);
  EXPECT_FALSE(fs::exists(d / "a.py.orig"));
  fs::remove_all(d);
}

TEST(TreeMigrator, CopiesEveryFileWithItsModeAndRewritesOnlyPythonAndShell) {
  auto src = fresh_dir("src");
  auto out = fs::temp_directory_path() / ("banjia-migrate-out-" + std::to_string(::getpid()));
  fs::remove_all(out);
  { std::ofstream(src / "run.sh") << "export CUDA_VISIBLE_DEVICES=0\n"; }
  { std::ofstream(src / "notes.txt") << "x.cuda() in prose\n"; }
  fs::create_directories(src / "pkg");
  { std::ofstream(src / "pkg" / "m.py") << "import torch\nt = torch.ones(1).cuda()\n"; }
  fs::permissions(src / "run.sh", fs::perms::owner_all | fs::perms::group_read, fs::perm_options::replace);
  banjia::migrate::MigrateOptions o;
  o.source = src.string();
  o.output = out.string();
  auto plan = banjia::migrate::plan_migration(o);
  EXPECT_TRUE(banjia::migrate::write_migration(plan, o).empty());
  EXPECT_EQ(slurp(out / "notes.txt"), "x.cuda() in prose\n");
  EXPECT_EQ(slurp(out / "run.sh"), "export ASCEND_RT_VISIBLE_DEVICES=0\n");
  EXPECT_EQ(slurp(out / "pkg" / "m.py"), "import torch\nimport torch_npu\nt = torch.ones(1).npu()\n");
  EXPECT_EQ(fs::status(out / "run.sh").permissions(), fs::status(src / "run.sh").permissions());
  fs::remove_all(src);
  fs::remove_all(out);
}
