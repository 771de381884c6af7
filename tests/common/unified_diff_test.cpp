// unified_diff is checked with `patch`-free reasoning: applying the hunks' +/- lines to the old text
// must give the new text, and the header counts must match the hunk bodies.
#include <gtest/gtest.h>

#include <random>
#include <sstream>

#include "common/unified_diff.h"

namespace {

// Applies a unified diff produced by unified_diff to `before` (test oracle: independent of the
// algorithm that produced it).
std::string apply_diff(const std::string& before, const std::string& diff) {
  std::vector<std::string> lines;
  {
    size_t s = 0;
    for (size_t i = 0; i < before.size(); ++i)
      if (before[i] == '\n') { lines.push_back(before.substr(s, i + 1 - s)); s = i + 1; }
    if (s < before.size()) lines.push_back(before.substr(s));
  }
  std::vector<std::string> dl;
  {
    std::istringstream in(diff);
    std::string l;
    while (std::getline(in, l)) dl.push_back(l);
  }
  std::string out;
  size_t pos = 0;  // next unconsumed line of before
  for (size_t i = 2; i < dl.size(); ++i) {
    if (dl[i].rfind("@@", 0) == 0) {
      // "@@ -a,len +b,len @@": an empty old side starts after line a, else at line a.
      size_t comma = dl[i].find(',');
      size_t a = std::stoul(dl[i].substr(4, comma - 4));
      size_t a_len = std::stoul(dl[i].substr(comma + 1));
      size_t start = a_len == 0 ? a : a - 1;
      while (pos < start) out += lines[pos++];
      continue;
    }
    if (dl[i] == "\\ No newline at end of file") {
      if (!out.empty() && out.back() == '\n') out.pop_back();
      continue;
    }
    char tag = dl[i][0];
    std::string body = dl[i].substr(1) + "\n";
    if (tag == ' ') { out += body; ++pos; }
    else if (tag == '-') ++pos;
    else if (tag == '+') out += body;
  }
  while (pos < lines.size()) out += lines[pos++];
  return out;
}

}  // namespace

TEST(UnifiedDiff, EqualTextsGiveEmptyDiff) { EXPECT_EQ(banjia::unified_diff("a\nb\n", "a\nb\n", "a", "b"), ""); }

TEST(UnifiedDiff, SingleLineChangeHasContext) {
  std::string before = "1\n2\n3\n4\n5\n6\n7\n8\n";
  std::string after = "1\n2\n3\n4x\n5\n6\n7\n8\n";
  std::string d = banjia::unified_diff(before, after, "a/f", "b/f");
  EXPECT_EQ(d, "--- a/f\n+++ b/f\n@@ -1,7 +1,7 @@\n 1\n 2\n 3\n-4\n+4x\n 5\n 6\n 7\n");
}

TEST(UnifiedDiff, InsertionAtTop) {
  std::string d = banjia::unified_diff("b\n", "a\nb\n", "x", "y");
  EXPECT_EQ(d, "--- x\n+++ y\n@@ -1,1 +1,2 @@\n+a\n b\n");
}

TEST(UnifiedDiff, RandomEditsRoundTrip) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 200; ++trial) {
    std::string before, after;
    int n = static_cast<int>(rng() % 40);
    for (int i = 0; i < n; ++i) {
      std::string line = "line" + std::to_string(rng() % 6) + "\n";
      before += line;
      int r = static_cast<int>(rng() % 10);
      if (r == 0) continue;                          // delete
      if (r == 1) after += "new" + std::to_string(i) + "\n";  // replace
      else after += line;
      if (r == 2) after += "ins\n";                  // insert
    }
    std::string d = banjia::unified_diff(before, after, "a", "b", static_cast<int>(rng() % 4));
    EXPECT_EQ(apply_diff(before, d), after) << "trial " << trial << "\n" << d;
  }
}
