// walk_paths on a small tree made here: the order files come in, what is skipped, and how symlink
// loops and missing paths are reported.
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>
#include <vector>

#include <gtest/gtest.h>

#include "common/file_walk.h"

using namespace banjia;
namespace fs = std::filesystem;

namespace {
class WalkTree : public ::testing::Test {
 protected:
  fs::path root = fs::temp_directory_path() / ("banjia_walk_" + std::to_string(::getpid()));
  void SetUp() override {
    fs::remove_all(root);
    for (const char* f : {"b.py", "a/z.py", "a/c/d.py", "a.py", "__pycache__/x.py", ".git/y.py", "n/m.txt"}) {
      fs::create_directories((root / f).parent_path());
      std::ofstream(root / f) << "x = 1\n";
    }
  }
  void TearDown() override { fs::remove_all(root); }
  std::vector<std::string> displays(const WalkResult& r) {
    std::vector<std::string> out;
    for (const auto& f : r.files) out.push_back(f.display);
    return out;
  }
};
}  // namespace

// Depth first, each directory's entries by name (bytewise: "a" < "a.py" < "b.py"), VCS and cache
// directories skipped, displays relative to the root as given.
TEST_F(WalkTree, EntriesComeSortedDepthFirstWithoutSkippedDirectories) {
  WalkOptions o;
  o.keep = [](std::string_view name) { return name.ends_with(".py"); };
  const std::string r = root.string();
  WalkResult w = walk_paths({r}, o);
  EXPECT_TRUE(w.problems.empty());
  EXPECT_EQ(displays(w), (std::vector<std::string>{r + "/a/c/d.py", r + "/a/z.py", r + "/a.py", r + "/b.py"}));
}

TEST_F(WalkTree, DirectorySymlinkLoopIsAProblemAndTheWalkGoesOn) {
  fs::create_directory_symlink(root / "a", root / "a" / "c" / "up");
  WalkOptions o;
  o.keep = [](std::string_view name) { return name.ends_with(".py"); };
  WalkResult w = walk_paths({root.string()}, o);
  ASSERT_EQ(w.problems.size(), 1u);
  EXPECT_EQ(w.problems[0].path, root.string() + "/a/c/up");
  EXPECT_NE(w.problems[0].problem.find("symlink loop"), std::string::npos);
  EXPECT_EQ(w.files.size(), 4u);
}

TEST_F(WalkTree, MissingRootIsAProblemAndAFileRootIsKeptWhateverItsName) {
  WalkOptions o;
  o.keep = [](std::string_view) { return false; };
  const std::string txt = (root / "n" / "m.txt").string();
  WalkResult w = walk_paths({(root / "nope").string(), txt}, o);
  ASSERT_EQ(w.problems.size(), 1u);
  EXPECT_EQ(w.problems[0].path, (root / "nope").string());
  EXPECT_EQ(displays(w), std::vector<std::string>{txt});
}
