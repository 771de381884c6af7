#include <gtest/gtest.h>

#include "common/version.h"

using banjia::compare_versions;

TEST(Version, NumericPartsCompareAsNumbers) {
  EXPECT_LT(compare_versions("7.3.0", "26.0.0"), 0);
  EXPECT_GT(compare_versions("26.1.0", "26.0.9"), 0);
  EXPECT_EQ(compare_versions("7.3", "7.3.0"), 0);
}

TEST(Version, ReleaseCandidatesComeBeforeTheRelease) {
  EXPECT_LT(compare_versions("6.0.RC3", "6.0.0"), 0);
  EXPECT_LT(compare_versions("8.1.RC1", "8.1.RC2"), 0);
}

TEST(Version, Validation) {
  EXPECT_TRUE(banjia::is_release_version("26.1.0"));
  EXPECT_TRUE(banjia::is_release_version("6.0.RC3"));
  EXPECT_FALSE(banjia::is_release_version(""));
  EXPECT_FALSE(banjia::is_release_version("latest"));
  EXPECT_FALSE(banjia::is_release_version("7..0"));
  EXPECT_FALSE(banjia::is_release_version("7.0."));
}
