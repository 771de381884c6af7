// sort_findings: the order every writer emits (file, line, column, rule), stable for equal keys.
#include "common/diagnostic.h"

#include <gtest/gtest.h>

namespace banjia {
namespace {

Finding at(std::string file, int line, int column, std::string rule, std::string message = "") {
  Finding f;
  f.file = std::move(file);
  f.line = line;
  f.column = column;
  f.rule = std::move(rule);
  f.message = std::move(message);
  return f;
}

std::vector<std::string> keys(const std::vector<Finding>& v) {
  std::vector<std::string> out;
  for (const auto& f : v) out.push_back(f.file + ":" + std::to_string(f.line) + ":" + std::to_string(f.column) + ":" + f.rule + ":" + f.message);
  return out;
}

TEST(SortFindings, OrdersByFileLineColumnRule) {
  // A walk visits directory `a` before its sibling `a.py`; as strings, "a.py" < "a/x.py" ('.' < '/').
  std::vector<Finding> v{at("t/a/x.py", 1, 1, "r"), at("t/a.py", 10, 2, "r"), at("t/a.py", 9, 5, "r"),
                         at("t/a.py", 9, 5, "a"), at("t/a.py", 10, 1, "r")};
  sort_findings(v);
  EXPECT_EQ(keys(v), (std::vector<std::string>{"t/a.py:9:5:a:", "t/a.py:9:5:r:", "t/a.py:10:1:r:",
                                               "t/a.py:10:2:r:", "t/a/x.py:1:1:r:"}));
}

TEST(SortFindings, KeepsTheOrderOfEqualKeys) {
  std::vector<Finding> v{at("f.py", 2, 1, "r", "second"), at("f.py", 1, 1, "r", "first"),
                         at("f.py", 2, 1, "r", "third")};
  sort_findings(v);
  EXPECT_EQ(keys(v), (std::vector<std::string>{"f.py:1:1:r:first", "f.py:2:1:r:second", "f.py:2:1:r:third"}));
  sort_findings(v);  // already in order: unchanged
  EXPECT_EQ(keys(v), (std::vector<std::string>{"f.py:1:1:r:first", "f.py:2:1:r:second", "f.py:2:1:r:third"}));
}

}  // namespace
}  // namespace banjia
