// InPlaceWriter: a file is replaced only while it is still the version that was read, and a failure
// at any step leaves the file as it was with nothing of the run beside it (docs/data-safety.md).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "common/file_io.h"
#include "common/safe_paths.h"
#include "migrate/in_place_writer.h"

namespace fs = std::filesystem;
using banjia::migrate::InPlaceWriter;

namespace {

fs::path fresh_dir(const std::string& name) {
  auto d = fs::temp_directory_path() / ("banjia-in-place-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

void put(const fs::path& p, const std::string& text) { std::ofstream(p, std::ios::binary) << text; }

std::vector<std::string> names(const fs::path& d) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(d)) out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

const std::string kOriginal = "x = y.cuda()\n";        // 13 bytes
const std::string kRewritten = "import torch_npu\nx = y.npu()\n";  // 29 bytes

}  // namespace

TEST(InPlaceWriter, ReplacesAndKeepsTheOriginalAsBackup) {
  auto d = fresh_dir("ok");
  put(d / "a.py", kOriginal);
  banjia::FileIdentity id;
  std::string read = banjia::read_file(d / "a.py", SIZE_MAX, id);
  InPlaceWriter w(".orig");
  EXPECT_EQ(w.replace({d / "a.py", id, read, kRewritten}), "");
  EXPECT_TRUE(w.finish().empty());
  EXPECT_EQ(banjia::read_file(d / "a.py"), kRewritten);
  EXPECT_EQ(banjia::read_file(d / "a.py.orig"), kOriginal);
  EXPECT_EQ(names(d), (std::vector<std::string>{"a.py", "a.py.orig"}));
  fs::remove_all(d);
}

// A failed replace removes the backup it made: left beside the unmigrated file, it would block every rerun.
TEST(InPlaceWriter, AFailedReplaceRemovesTheBackupItMade) {
  auto d = fresh_dir("fail");
  put(d / "a.py", kOriginal);
  banjia::FileIdentity id;
  std::string read = banjia::read_file(d / "a.py", SIZE_MAX, id);
  InPlaceWriter w(".orig");
  banjia::set_write_failure_after_bytes_for_testing(20);  // the backup (13 bytes) fits, the rewrite does not
  std::string problem = w.replace({d / "a.py", id, read, kRewritten});
  banjia::set_write_failure_after_bytes_for_testing(std::nullopt);
  EXPECT_EQ(problem, "write failed: No space left on device; left as it is");
  EXPECT_EQ(banjia::read_file(d / "a.py"), kOriginal);
  EXPECT_EQ(names(d), (std::vector<std::string>{"a.py"}));
  fs::remove_all(d);
}

TEST(InPlaceWriter, AFileEditedSinceItWasReadIsLeftAsTheUserHasIt) {
  auto d = fresh_dir("edited");
  put(d / "a.py", kOriginal);
  banjia::FileIdentity id;
  std::string read = banjia::read_file(d / "a.py", SIZE_MAX, id);
  // Same size, so only the bytes (or the mtime) tell the versions apart.
  put(d / "a.py", "x = y.CUDA()\n");
  InPlaceWriter w(".orig");
  EXPECT_EQ(w.replace({d / "a.py", id, read, kRewritten}), "changed during the run; left as you have it (run migrate again)");
  EXPECT_EQ(banjia::read_file(d / "a.py"), "x = y.CUDA()\n");
  EXPECT_EQ(names(d), (std::vector<std::string>{"a.py"}));
  fs::remove_all(d);
}

TEST(InPlaceWriter, AFileReplacedByALinkOrDeletedIsNotWritten) {
  auto d = fresh_dir("gone");
  put(d / "a.py", kOriginal);
  put(d / "elsewhere.py", kOriginal);
  banjia::FileIdentity id;
  std::string read = banjia::read_file(d / "a.py", SIZE_MAX, id);
  fs::remove(d / "a.py");
  InPlaceWriter w(".orig");
  EXPECT_EQ(w.replace({d / "a.py", id, read, kRewritten}), "deleted during the run; not recreated");
  EXPECT_FALSE(fs::exists(d / "a.py"));
  fs::create_symlink("elsewhere.py", d / "a.py");
  EXPECT_EQ(w.replace({d / "a.py", id, read, kRewritten}), "changed during the run; left as you have it (run migrate again)");
  EXPECT_EQ(banjia::read_file(d / "elsewhere.py"), kOriginal);
  EXPECT_EQ(names(d), (std::vector<std::string>{"a.py", "elsewhere.py"}));
  fs::remove_all(d);
}

TEST(InPlaceWriter, KeepsModeAndNeverMakesTheBackupThroughALink) {
  auto d = fresh_dir("mode");
  put(d / "a.py", kOriginal);
  fs::permissions(d / "a.py", fs::perms(0750), fs::perm_options::replace);
  put(d / "target", "precious");
  fs::create_symlink("target", d / "a.py.orig");  // a link where the backup goes
  banjia::FileIdentity id;
  std::string read = banjia::read_file(d / "a.py", SIZE_MAX, id);
  InPlaceWriter w(".orig");
  EXPECT_NE(w.replace({d / "a.py", id, read, kRewritten}).find("backup a.py.orig already exists"), std::string::npos);
  EXPECT_EQ(banjia::read_file(d / "target"), "precious");
  fs::remove(d / "a.py.orig");
  EXPECT_EQ(w.replace({d / "a.py", id, read, kRewritten}), "");
  EXPECT_EQ(fs::status(d / "a.py").permissions(), fs::perms(0750));
  EXPECT_EQ(fs::status(d / "a.py.orig").permissions(), fs::perms(0750));
  fs::remove_all(d);
}

TEST(SafePaths, TemporaryNamesFitAnyNameAndAreRecognised) {
  for (size_t n : {1, 100, 240, 241, 255}) {
    std::string name(n, 'x');
    std::string t = banjia::temp_name_for(name);
    EXPECT_LE(t.size(), banjia::kMaxNameBytes) << n;
    EXPECT_TRUE(banjia::is_banjia_temp_name(t)) << t;
  }
  // A name cut inside a UTF-8 character would not be text: the cut backs up to the character's start.
  std::string wide;
  while (wide.size() < 260) wide += "\xe6\x90\xac";  // 搬
  std::string t = banjia::temp_name_for(wide);
  EXPECT_EQ((t.size() - 1 - 14) % 3, 0u);
  EXPECT_FALSE(banjia::is_banjia_temp_name(".a.py.banjia-notmine")) << "seven characters";
  EXPECT_FALSE(banjia::is_banjia_temp_name(".a.py.banjia-fiver"));
  EXPECT_FALSE(banjia::is_banjia_temp_name("a.py.banjia-Ab3dE9"));
  EXPECT_FALSE(banjia::is_banjia_temp_name(".a.py.banjia-Ab3d-9"));
  EXPECT_TRUE(banjia::is_banjia_temp_name_for(banjia::temp_name_for(wide), wide));
  EXPECT_TRUE(banjia::is_banjia_temp_name_for(".a.py.banjia-Ab3dE9", "a.py"));
  EXPECT_FALSE(banjia::is_banjia_temp_name_for(".a.py.banjia-Ab3dE9", "b.py"));
  EXPECT_FALSE(banjia::is_banjia_temp_name_for(".a.py.orig.banjia-Ab3dE9", "a.py"));
}

TEST(SafePaths, PrintableEscapesControlCharactersOnly) {
  EXPECT_EQ(banjia::printable("a\x1b[31mb\nc\td\x7f"), "a\\x1b[31mb\\nc\\td\\x7f");
  EXPECT_EQ(banjia::printable("搬家.py"), "搬家.py");
  EXPECT_EQ(banjia::printable("\xc2\x9b" "2J"), "\\u009b2J");  // C1 CSI
  EXPECT_EQ(banjia::printable("\xff"), "\\xff");
}

TEST(SafePaths, BackupSuffixMustNameASibling) {
  EXPECT_EQ(banjia::backup_suffix_problem(".orig"), "");
  EXPECT_NE(banjia::backup_suffix_problem("/../x"), "");
  EXPECT_NE(banjia::backup_suffix_problem(""), "");
  EXPECT_NE(banjia::backup_suffix_problem(std::string("a\0b", 3)), "");
}

// A shim is a new file: created whole under a temporary name, given its name only while that is free,
// and never written over anything (an identical file is what an earlier or killed run left).
TEST(InPlaceWriter, CreatesANewFileAndNeverReplacesOne) {
  auto d = fresh_dir("create");
  InPlaceWriter w(".orig");
  const std::string shim = "def f():\n    pass\n";
  EXPECT_EQ(w.create(d / "shim.py", shim), "");
  EXPECT_EQ(banjia::read_file(d / "shim.py"), shim);
  EXPECT_EQ(fs::status(d / "shim.py").permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read | fs::perms::others_read);
  EXPECT_EQ(w.create(d / "shim.py", shim), "");  // the same bytes: nothing to do
  put(d / "mine.py", "# mine\n");
  EXPECT_EQ(w.create(d / "mine.py", shim), "appeared during the run with other contents; left as it is");
  EXPECT_EQ(banjia::read_file(d / "mine.py"), "# mine\n");
  EXPECT_TRUE(w.finish().empty());
  EXPECT_EQ(names(d), (std::vector<std::string>{"mine.py", "shim.py"}));  // no temporary file left
  fs::remove_all(d);
}
