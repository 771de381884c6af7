// Every fact in data/compare/*.toml names its source.
#include <gtest/gtest.h>

#include <toml++/toml.h>

#include "common/embedded_data.h"

namespace banjia {
namespace {

TEST(CompareData, EveryEntryHasASource) {
  auto files = embedded_under("data/compare/");
  ASSERT_GE(files.size(), 2u);
  for (const auto& f : files) {
    toml::table t = toml::parse(f.contents, std::string_view(f.path));
    size_t checked = 0;
    for (auto& [key, node] : t) {
      if (auto* section = node.as_table()) {
        EXPECT_TRUE((*section)["source"].value<std::string>().has_value()) << f.path << " [" << key.str() << "]";
        ++checked;
      } else if (auto* rows = node.as_array()) {
        for (auto& row : *rows) {
          auto* r = row.as_table();
          ASSERT_NE(r, nullptr) << f.path;
          EXPECT_TRUE((*r)["source"].value<std::string>().has_value()) << f.path << " [[" << key.str() << "]]";
          ++checked;
        }
      }
    }
    EXPECT_GT(checked, 0u) << f.path;
  }
}

}  // namespace
}  // namespace banjia
