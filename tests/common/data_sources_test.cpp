// Every `source` in data/ that names a file of this repository (docs/sources/..., tests/fixtures/...)
// points to a file that exists, and an `#anchor` after a page names one of its headings, as GitHub
// derives heading anchors. No source cites the project's reference data, which is not in the repository.
#include <cctype>
#include <filesystem>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <toml++/toml.h>

#include "common/embedded_data.h"
#include "common/file_io.h"

namespace banjia {
namespace {

namespace fs = std::filesystem;

struct Source {
  std::string file;
  std::string text;
};

void collect_sources(const toml::node& node, const std::string& file, std::vector<Source>& out) {
  if (const auto* table = node.as_table()) {
    for (const auto& [key, value] : *table) {
      if (key.str() == "source" && value.is_string()) out.push_back({file, *value.value<std::string>()});
      collect_sources(value, file, out);
    }
  } else if (const auto* array = node.as_array()) {
    for (const auto& element : *array) collect_sources(element, file, out);
  }
}

std::vector<Source> all_sources() {
  std::vector<Source> out;
  for (const auto& f : embedded_under("data/")) {
    if (!f.path.ends_with(".toml")) continue;
    collect_sources(toml::parse(f.contents, f.path), std::string(f.path), out);
  }
  return out;
}

// GitHub's anchor for a heading: lower case, punctuation other than '-' and '_' dropped, spaces to '-'.
std::string anchor_of(std::string_view heading) {
  std::string a;
  for (unsigned char c : heading) {
    if (std::isalnum(c) || c == '-' || c == '_' || c >= 0x80) a += static_cast<char>(std::tolower(c));
    else if (c == ' ') a += '-';
  }
  return a;
}

std::set<std::string> anchors_of(const fs::path& page) {
  std::set<std::string> out;
  std::istringstream lines(read_file(page));
  std::string line;
  bool in_code = false;
  while (std::getline(lines, line)) {
    if (line.starts_with("```")) in_code = !in_code;
    size_t level = line.find_first_not_of('#');
    if (in_code || level == 0 || level > 6 || level == std::string::npos || line[level] != ' ') continue;
    out.insert(anchor_of(line.substr(level + 1)));
  }
  return out;
}

// The repository paths a source names: every "docs/sources/..." and "tests/fixtures/..." up to a
// space, ';', ',' or ')', except those after "owner/repo : ", which name another repository's file
// (Ascend/triton-ascend has a docs/sources/ too).
std::vector<std::string> repository_paths(const std::string& source) {
  std::vector<std::string> out;
  for (std::string_view root : {"docs/sources/", "tests/fixtures/"}) {
    for (size_t at = source.find(root); at != std::string::npos; at = source.find(root, at + 1)) {
      if (at >= 3 && source.compare(at - 3, 3, " : ") == 0) continue;
      size_t end = source.find_first_of(" ;,)", at);
      out.push_back(source.substr(at, end == std::string::npos ? std::string::npos : end - at));
    }
  }
  return out;
}

TEST(DataSources, RepositoryPathsExistAndAnchorsNameHeadings) {
  const auto sources = all_sources();
  ASSERT_GT(sources.size(), 300u);
  size_t paths = 0, anchors = 0;
  for (const auto& s : sources) {
    for (const auto& cited : repository_paths(s.text)) {
      ++paths;
      const size_t hash = cited.find('#');
      const fs::path file = fs::path(BANJIA_SOURCE_DIR) / cited.substr(0, hash);
      ASSERT_TRUE(fs::exists(file)) << s.file << ": " << cited << " does not exist (source: " << s.text << ")";
      if (hash == std::string::npos) continue;
      ++anchors;
      EXPECT_TRUE(anchors_of(file).contains(cited.substr(hash + 1)))
          << s.file << ": " << cited << " names no heading of " << file.filename();
    }
  }
  EXPECT_GT(paths, 80u);
  EXPECT_GT(anchors, 70u);
}

TEST(DataSources, NoSourceCitesTheReferenceDataOutsideTheRepository) {
  // The reference data's documents; their facts are cited through docs/sources/ and tests/fixtures/.
  const std::vector<std::string> outside = {"shared/", "tuning-article.zh.txt", "profiler-formats.md",
                                            "migration-apis.md", "precision-compare.md"};
  for (const auto& s : all_sources()) {
    for (const auto& name : outside)
      EXPECT_EQ(s.text.find(name), std::string::npos) << s.file << ": " << s.text;
    for (size_t at = s.text.find("env-vars.md"); at != std::string::npos; at = s.text.find("env-vars.md", at + 1))
      EXPECT_TRUE(at >= 13 && s.text.compare(at - 13, 13, "docs/sources/") == 0) << s.file << ": " << s.text;
  }
}

TEST(DataSources, AnchorOfFollowsGitHub) {
  EXPECT_EQ(anchor_of("1.1 Operator execution"), "11-operator-execution");
  EXPECT_EQ(anchor_of("The tuning article's three patterns"), "the-tuning-articles-three-patterns");
  EXPECT_EQ(anchor_of("6.5 msprobe config_check"), "65-msprobe-config_check");
  EXPECT_EQ(anchor_of("GPT-2 eager vs SDPA"), "gpt-2-eager-vs-sdpa");
}

}  // namespace
}  // namespace banjia
