// The version pairing `env doctor` checks: version parts, CANN release tags, the three checks on a
// small table written here, and the shipped data/env/compat.toml loading without problems.
#include <gtest/gtest.h>

#include "env/analysis/doctor_compat.h"

namespace banjia::env {
namespace {

constexpr const char* kTable = R"(
[[release]]
torch_npu = "2.1.0.post10"
branch = "v2.1.0-6.0.0"
torch = "2.1.0"
cann = "8.0.0"
source = "row a"

[[python]]
torch = "2.1.0"
python = ["3.8", "3.9", "3.10", "3.11"]
source = "row b"

[[python]]
torch = "1.11.0"
python = ["3.7", "3.8"]
python_min = "3.7.5"
source = "row c"
)";

const CompatCheck& check(const std::vector<CompatCheck>& checks, std::string_view what) {
  for (const auto& c : checks)
    if (c.what == what) return c;
  throw std::logic_error("no check " + std::string(what));
}

TEST(DoctorCompat, ReleasePartDropsPreReleaseAndLocalLabels) {
  EXPECT_EQ(release_part("2.1.0+cpu"), "2.1.0");
  EXPECT_EQ(release_part("2.1.0a0+git12ab"), "2.1.0");
  EXPECT_EQ(release_part("2.4.0"), "2.4.0");
  EXPECT_EQ(release_part(""), "");
}

TEST(DoctorCompat, CannTagsOfARelease) {
  EXPECT_TRUE(cann_version_is("8.0.0", "8.0.0"));
  EXPECT_TRUE(cann_version_is("8.1.RC1.alpha001", "8.1.RC1"));
  EXPECT_TRUE(cann_version_is("8.3.0-alpha.1", "8.3.0"));
  EXPECT_FALSE(cann_version_is("6.3.RC3.1", "6.3.RC3"));  // a release of its own in the table
  EXPECT_FALSE(cann_version_is("8.0.RC2", "8.0.0"));
  EXPECT_FALSE(cann_version_is("8.0.00", "8.0.0"));
}

TEST(DoctorCompat, MatchingVersionsAreOk) {
  auto table = load_compat_table(kTable, "t.toml");
  ASSERT_TRUE(table.problems.empty());
  auto checks = check_compat(table, {"3.10.4", "2.1.0+cpu", "2.1.0.post10", "8.0.0"});
  ASSERT_EQ(checks.size(), 3u);
  for (const auto& c : checks) EXPECT_EQ(c.status, CompatStatus::ok) << c.what << ": " << c.message;
  EXPECT_EQ(check(checks, "torch").source, "row a");
  EXPECT_EQ(check(checks, "python").source, "row b");
}

TEST(DoctorCompat, MismatchesNameWhatTheTableExpects) {
  auto table = load_compat_table(kTable, "t.toml");
  auto checks = check_compat(table, {"3.12.1", "2.4.0", "2.1.0.post10+git1", "8.0.RC2"});
  EXPECT_EQ(check(checks, "torch").status, CompatStatus::mismatch);
  EXPECT_EQ(check(checks, "torch").expected, "2.1.0");
  EXPECT_EQ(check(checks, "cann").status, CompatStatus::mismatch);
  EXPECT_EQ(check(checks, "cann").expected, "8.0.0");
  // Python is checked against the torch that is installed; 2.4.0 has no row here.
  EXPECT_EQ(check(checks, "python").status, CompatStatus::unknown);
  auto py = check_compat(table, {"3.12.1", "2.1.0", "2.1.0.post10", "8.0.0"});
  EXPECT_EQ(check(py, "python").status, CompatStatus::mismatch);
  EXPECT_EQ(check(py, "python").expected, "3.8, 3.9, 3.10, 3.11");
}

TEST(DoctorCompat, PythonMinimumWithinTheOldestMinor) {
  auto table = load_compat_table(kTable, "t.toml");
  EXPECT_EQ(check(check_compat(table, {"3.7.4", "1.11.0", "", ""}), "python").status, CompatStatus::mismatch);
  EXPECT_EQ(check(check_compat(table, {"3.7.5", "1.11.0", "", ""}), "python").status, CompatStatus::ok);
  EXPECT_EQ(check(check_compat(table, {"3.8.0", "1.11.0", "", ""}), "python").status, CompatStatus::ok);
}

TEST(DoctorCompat, VersionsOutsideTheTableAreUnknown) {
  auto table = load_compat_table(kTable, "t.toml");
  for (const auto& c : check_compat(table, {"3.10.4", "2.1.0", "9.9.9", "8.0.0"}))
    if (c.what != "python") {
      EXPECT_EQ(c.status, CompatStatus::unknown) << c.what;
    }
  for (const auto& c : check_compat(table, {"", "", "", ""})) EXPECT_EQ(c.status, CompatStatus::unknown) << c.what;
}

TEST(DoctorCompat, BadEntriesAreProblems) {
  auto table = load_compat_table(R"(
[[release]]
torch_npu = "2.1.0"
torch = "2.1.0"
cann = "7.0.0"
[[python]]
torch = "2.1.0"
python = ["3.10.1"]
source = "s"
)", "bad.toml");
  ASSERT_EQ(table.problems.size(), 4u);  // no branch, no source; a python entry not major.minor, so none
}

TEST(DoctorCompat, ShippedTableLoads) {
  const auto& table = compat_table();
  EXPECT_TRUE(table.problems.empty()) << table.problems.front();
  EXPECT_GT(table.releases.size(), 50u);
  EXPECT_GT(table.pythons.size(), 10u);
}

}  // namespace
}  // namespace banjia::env
